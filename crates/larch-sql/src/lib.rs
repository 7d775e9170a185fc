//! Larch's SQL layer: the foundation the binder, planner and executor build on.
//!
//! - [`parse`]: query text to statements (sqlparser's MySQL dialect plus
//!   Larch's own parser for what it lacks), MySQL's 1064 syntax errors, and a
//!   statement cache for the text protocol;
//! - [`eval`]: scalar expressions compiled from the AST and evaluated over a
//!   row with MySQL's types, coercions, NULL rules and warnings;
//! - [`value`]: engine values to the text MySQL sends, and storing a value
//!   into a column type with MySQL's strict and non-strict rules;
//! - [`database`]: [`database::Database`], one open data directory shared by
//!   every session: engine objects, global variables, process list, status;
//! - [`session`]: [`session::Session`], one client's state and the entry
//!   points that run SQL text and prepared statements;
//! - `exec`: statement execution (SELECT with joins and aggregates, INSERT,
//!   UPDATE, DELETE, SET, SHOW, transactions); [`ddl`]: table definitions;
//! - [`server_hooks`]: status variables and `SET GLOBAL` reactions the
//!   server plugs in (threads, connections);
//! - [`user_locks`]: GET_LOCK's server-wide named locks;
//! - [`stack`]: the guard that fails a statement with 1436 before it
//!   overflows its thread's stack;
//! - [`result`]: what statements return (OK summaries and result sets);
//! - [`error`]: the one error type, mapped to MySQL error numbers, SQLSTATEs and
//!   wording, engine errors included.

pub mod database;
pub mod ddl;
pub mod error;
pub mod eval;
mod exec;
#[cfg(feature = "fault-injection")]
pub mod fault_injection;
pub mod metadata_locks;
pub mod parse;
pub mod privileges;
pub mod result;
pub mod server_hooks;
pub mod session;
pub mod stack;
pub mod statement_timer;
pub mod user_locks;
pub mod value;

pub use error::{SqlError, Warning};
/// The sqlparser version whose AST `parse::Statement::Sql` carries.
pub use sqlparser;
