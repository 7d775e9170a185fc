//! Larch's MySQL client/server protocol, server side.
//!
//! This crate speaks the protocol and nothing else: it knows no SQL and no
//! storage. The SQL layer plugs in by implementing [`SqlSession`] (one value
//! per connection) and receives decoded requests; it answers through a
//! [`ResultWriter`] with OK packets and result sets of [`Value`]s described
//! by [`ColumnDef`]s. Packet primitives (handshake, handshake response,
//! auth switch, constants, scrambles) come from `mysql_common`.
//!
//! Modules, bottom-up:
//!
//! - [`error`]: [`MysqlError`] (what clients see) and [`WireError`] (why a
//!   connection ended), mapped to ERR packets in one place;
//! - [`packet`]: framing, sequence ids, 16 MiB splitting, `max_allowed_packet`;
//! - [`value`] and [`column`]: result values and column definitions, text and
//!   binary encodings, parameter decoding;
//! - [`results`]: OK/ERR/EOF packets and the [`ResultWriter`];
//! - [`auth`]: credentials, native and caching_sha2 verification, the RSA
//!   key, the fast-auth cache, the exchanges;
//! - [`session`]: the [`SqlSession`] trait and connection facts;
//! - `stmt` and `command`: prepared-statement state and the command loop;
//! - [`stream`]: [`ClientStream`], the transport under a connection (TCP,
//!   TLS, Unix socket), with tokio sockets or sockets in blocking mode;
//! - [`blocking`]: connections on threads of their own served with blocking
//!   socket calls and no event loop;
//! - [`tls`]: certificates ([`TlsSettings`]) and the switch to TLS after
//!   the client's SSL request;
//! - [`admission`]: the bound on connections that have not logged in;
//! - [`hosts`]: `max_connect_errors` and the login delay, by client host;
//! - `login`: greeting, TLS switch, authentication, `on_login`;
//! - [`server`]: [`Server`] (shared state, connection life);
//! - [`liveness`]: stopping commands whose client went away;
//! - [`threads`]: a thread per connection, with a cache of idle threads;
//! - [`timeouts`]: `connect_timeout`, `wait_timeout`, `net_read_timeout`
//!   and `net_write_timeout`, global and per session;
//! - [`listener`]: accepting TCP and Unix-socket clients.
//!
//! Usage:
//!
//! ```no_run
//! # use larch_wire::*;
//! # struct MySession;
//! # impl SqlSession for MySession {
//! #   fn lookup_account(&mut self, _: &str, _: &str) -> Option<Account> { None }
//! #   fn init_db(&mut self, _: &str) -> Result<(), MysqlError> { Ok(()) }
//! #   fn query(&mut self, _: &[u8], _: &mut ResultWriter<'_>) -> Result<(), MysqlError> { Ok(()) }
//! #   fn prepare(&mut self, _: u32, _: &[u8]) -> Result<PreparedInfo, MysqlError> { Ok(PreparedInfo::default()) }
//! #   fn execute(&mut self, _: u32, _: &[Value], _: &mut ResultWriter<'_>) -> Result<(), MysqlError> { Ok(()) }
//! #   fn close_statement(&mut self, _: u32) {}
//! #   fn reset_connection(&mut self) -> Result<(), MysqlError> { Ok(()) }
//! # }
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::new(ServerConfig::default())?;
//! let listener = Listener::bind_tcp("127.0.0.1:3306").await?;
//! listener.run(server, |_info| MySession).await;
//! # Ok(()) }
//! ```
//!
//! The protocol details supported are listed in `docs/wire-protocol.md`.

pub mod admission;
pub mod auth;
pub mod blocking;
pub mod certname;
mod change_user;
pub mod column;
mod command;
pub mod error;
pub mod hosts;
pub mod listener;
pub mod liveness;
pub mod local_infile;
mod login;
pub mod packet;
pub mod results;
pub mod server;
pub mod session;
mod stmt;
pub mod stream;
pub mod threads;
pub mod timeouts;
pub mod tls;
pub mod value;

pub use auth::{AuthCache, Credential};
pub use column::{ColumnDef, ColumnFlags, ColumnType};
pub use error::{codes, MysqlError, WireError};
pub use listener::{Listener, Threading};
pub use local_infile::LocalInfileReader;
pub use mysql_common::constants::{CapabilityFlags, StatusFlags};
pub use results::{OkResult, ResultSet, ResultWriter};
pub use server::{DefaultAuthPlugin, ExecutionMode, Server, ServerConfig, DEFAULT_SERVER_VERSION};
pub use session::{
    Account, ConnectionControl, ConnectionInfo, DurabilityWait, GoneHook, LoginInfo, PreparedInfo,
    SqlSession, Transport,
};
pub use stream::ClientStream;
pub use threads::ConnectionThreads;
pub use timeouts::{SessionTimeouts, TimeoutKind};
pub use tls::{TlsError, TlsInfo, TlsSettings, TLS_LIBRARY_VERSION};
pub use value::{Date, DateTime, Time, Value};
