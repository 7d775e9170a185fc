//! Stored programs: stored procedures and functions (`routine`) and
//! triggers (`trigger`), and what the two kinds share, each in one place:
//!
//! - `head`: names, the definer and the creation context a program keeps
//!   (sql_mode, client character set, connection and database collations),
//!   their dictionary bytes and their SHOW columns;
//! - `cache`: parsed program bodies cached under their dictionary bytes;
//! - `host`: the session host a procedure's or a trigger's statements run
//!   on, and [`run_body`], the runner of a body with its locals bound and
//!   the program's database current;
//! - `show_filter`: the `LIKE` / `WHERE` filters of SHOW ... STATUS and
//!   SHOW TRIGGERS over their rows.
//!
//! A program runs on the stored-program interpreter (`routine::Interp`)
//! whatever its kind: locals (parameters, `NEW.col` / `OLD.col`) are
//! statement parameters, statements go through `exec::execute`.

pub(crate) mod cache;
pub(crate) mod head;
pub(crate) mod host;
pub(crate) mod routine;
pub(crate) mod show_filter;
pub(crate) mod trigger;

pub(crate) use host::run_body;
