//! The protocol adapter: [`Connection`] implements `larch_wire::SqlSession`
//! around a `larch_sql::session::Session`, one per client connection.
//!
//! - Login: `lookup_account` asks `Database::account` and maps the stored
//!   secret to a credential; `on_login` (after the password check) refuses
//!   a plain TCP login while `require_secure_transport` is on and a login
//!   that does not meet the account's `REQUIRE` (both ER 1045, as
//!   MariaDB), one beyond the listener group's connection limit (ER 1040;
//!   `crate::limits`: `max_connections` plus an administrator's slot, or
//!   `extra_max_connections` on the extra port) or the account's limits
//!   (ER 1203 / ER 1226); it creates the session under the protocol's
//!   connection id (so `CONNECTION_ID()`, `SHOW PROCESSLIST` and `KILL`
//!   agree with the handshake), records `CLIENT_FOUND_ROWS` and the TLS
//!   protocol and cipher (`Ssl_version`, `Ssl_cipher`), and installs the
//!   kill hook (`KILL [CONNECTION]` from any session sets the protocol's
//!   `ConnectionControl`, which wakes an idle connection and closes it),
//!   the hook that kills the running statement when the client goes away
//!   (`larch_wire::liveness`) and, for an account with per-hour statement
//!   limits, the statement hook that counts them.
//! - `change_user` (COM_CHANGE_USER): the session of the new account
//!   replaces the old one, keeping the connection's slot; if the new
//!   account is refused, a fresh session of the previous account stays.
//! - Statements: `query` runs the whole text through `Session::query_with`,
//!   writing each statement's result as it ends (with that statement's
//!   warning count), then the error that stopped the text; LOAD DATA LOCAL
//!   reads the client's file through the writer (`Client`);
//!   `refresh` (COM_REFRESH) runs the matching FLUSH statements;
//!   `prepare`/`execute` map to the session's prepared statements; rows go
//!   out in the text or binary protocol (`crate::convert`).
//! - Status flags: `SERVER_STATUS_AUTOCOMMIT` and `SERVER_STATUS_IN_TRANS`
//!   from the session after each command.
//! - Timeouts: the session's own `wait_timeout`, `net_read_timeout` and
//!   `net_write_timeout` (`SET SESSION`) apply to its connection
//!   (`timeouts`); the others follow the server's global values, which
//!   `SET GLOBAL` changes through the hook in `crate::serve`.
//!
//! Threads: by default (`--thread-handling=one-thread-per-connection`, as
//! MariaDB) every connection runs on a thread of its own, blocked in plain
//! socket reads and writes (`larch_wire::threads`, `larch_wire::blocking`),
//! so its statements, its
//! waits (row locks, metadata locks, `SLEEP`, the log sync of a commit) and
//! its I/O never hold up another connection, and the engine's blocking
//! regions (`larch_engine::io::blocking`) simply run. The client and the
//! connection's thread then hand the CPU to each other on each exchange;
//! measured on 2 CPUs with sysbench `oltp_point_select` at 16 client
//! threads (10k rows), against the pool below: server CPU per query 10.7 µs
//! instead of 19-24 µs, the client's 5 µs instead of 15-18 µs, and
//! 123k-126k queries/s instead of 49k-55k; `oltp_read_only` 3,266
//! transactions/s instead of 1,643.
//!
//! With `--thread-handling=pool-of-threads`, connections are tasks of the
//! multi-threaded runtime (one worker per CPU) and statements run directly on
//! the worker thread that reads their packet (`ExecutionMode::Inline`). Where
//! a statement may wait or run long (row-lock waits, `SLEEP`, full scans,
//! DDL) the engine enters a blocking region, and each worker's hook
//! ([`leave_worker`], installed at thread start) runs it inside
//! `tokio::task::block_in_place`: the worker's other connections move to a
//! new worker first, so one long or waiting query never stalls the others.
//! The runtime's blocking-thread limit is sized from `max_connections`.
//!
//! In both modes a commit does not wait for its log sync inside the
//! statement: the session defers it (`Session::defer_durability`), and the
//! connection's task awaits the sync (`SqlSession::durability`, served by the
//! engine's commit flusher) before it sends the result; measured on 2 cores
//! with sysbench oltp_update_index at 16 threads (pool), 10.2k transactions/s
//! and 93 µs of server CPU each before, 17.2k-18.3k and 50 µs after.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use larch_engine::record::value::Value as EValue;

use larch_sql::database::Database;
use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use larch_wire::{
    Account, ColumnDef, ConnectionControl, ConnectionInfo, DurabilityWait, LoginInfo, MysqlError,
    OkResult, PreparedInfo, ResultWriter, SessionTimeouts, SqlSession, StatusFlags, Value,
};

use crate::convert::{
    binary_value, column_def, credential, mysql_error, owned_value, param_value, text_value,
};
use crate::limits::{SlotGuard, Slots, UserConnections, UserGuard};

mod login;

/// The blocking-region hook of the server's worker threads: move the
/// worker's other tasks away, then run `f` (see the module documentation).
pub fn leave_worker(f: &mut dyn FnMut()) {
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if multi_thread {
        tokio::task::block_in_place(f);
    } else {
        f();
    }
}

/// Statement id used internally by `field_list` (the protocol numbers
/// statements from 1 upwards and never reaches it).
const FIELD_LIST_STMT: u32 = u32::MAX;

/// State shared by every connection of the server.
#[derive(Debug)]
pub struct Shared {
    /// The open database.
    pub db: Arc<Database>,
    /// Per-account connection counts (`crate::limits`).
    pub users: Arc<UserConnections>,
    /// `require_secure_transport`.
    pub require_secure_transport: AtomicBool,
}

impl Shared {
    /// Shared state for a server on `db`.
    pub fn new(db: Arc<Database>) -> Arc<Shared> {
        Arc::new(Shared {
            db,
            users: Arc::new(UserConnections::default()),
            require_secure_transport: AtomicBool::new(false),
        })
    }
}

/// One client connection; see the module documentation.
pub struct Connection {
    shared: Arc<Shared>,
    /// The connection limit of the listener that accepted it.
    slots: Arc<Slots>,
    id: u32,
    control: Arc<ConnectionControl>,
    session: Option<Session>,
    /// The login the session runs for (COM_CHANGE_USER falls back to it).
    login: Option<LoginInfo>,
    /// The slot taken at login, given back at the close.
    slot: Option<SlotGuard>,
    /// The account's counted connection.
    user: Option<Arc<UserGuard>>,
    /// The session's own socket timeouts, read under the session's
    /// settings epoch `.0` (`None`: not read yet).
    timeouts: (Option<u64>, SessionTimeouts),
}

impl Connection {
    /// A connection that has not logged in yet, under the limit `slots`.
    pub fn new(shared: Arc<Shared>, slots: Arc<Slots>, info: &ConnectionInfo) -> Connection {
        Connection {
            shared,
            slots,
            id: info.connection_id,
            control: info.control.clone(),
            session: None,
            login: None,
            slot: None,
            user: None,
            timeouts: (None, SessionTimeouts::default()),
        }
    }

    /// Ends the session (rolling back its transaction) and frees the
    /// connection's slot; runs before the client sees the socket close.
    fn release(&mut self) {
        self.session = None;
        self.user = None;
        self.slot = None;
    }

    fn session(&mut self) -> Result<&mut Session, MysqlError> {
        self.session
            .as_mut()
            .ok_or_else(|| MysqlError::unknown("the connection is not logged in"))
    }

    fn flags_of(session: &Session) -> StatusFlags {
        let mut flags = StatusFlags::empty();
        if session.autocommit() {
            flags |= StatusFlags::SERVER_STATUS_AUTOCOMMIT;
        }
        if session.in_transaction() {
            flags |= StatusFlags::SERVER_STATUS_IN_TRANS;
        }
        flags
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.release();
    }
}

/// Writes one statement's result; `started` when its result set was begun
/// by rows sent while it ran ([`Client`]), the rows of `result` ending it.
fn write_result(
    out: &mut ResultWriter<'_>,
    result: &QueryResult,
    warnings: u16,
    started: bool,
) -> Result<(), MysqlError> {
    match result {
        QueryResult::Ok(ok) => out.ok(OkResult {
            affected_rows: ok.affected_rows,
            last_insert_id: ok.last_insert_id,
            warnings,
            info: ok.info.clone(),
            status: StatusFlags::empty(),
        }),
        QueryResult::Rows(set) => {
            let columns: Vec<ColumnDef> = set.columns.iter().map(column_def).collect();
            if !started {
                out.begin_result_set(&columns)?;
            }
            let binary = out.is_binary();
            let mut row = Vec::with_capacity(columns.len());
            for values in &set.rows {
                row.clear();
                for ((v, c), def) in values.iter().zip(&set.columns).zip(&columns) {
                    row.push(if binary {
                        binary_value(v, &c.ty, def.column_type)
                    } else {
                        text_value(v, c)
                    });
                }
                out.row(&row)?;
            }
            out.end_result_set(warnings)
        }
    }
}

/// Writes `rows` (moved out) of the open result set described by `columns`
/// and `defs`: string values move into the protocol's values instead of
/// being copied, one allocation and copy less per string of every row.
fn write_owned_rows(
    out: &mut ResultWriter<'_>,
    columns: &[larch_sql::result::ResultColumn],
    defs: &[ColumnDef],
    rows: Vec<Vec<EValue>>,
) -> Result<(), MysqlError> {
    let binary = out.is_binary();
    let mut row = Vec::with_capacity(columns.len());
    for values in rows {
        row.clear();
        for ((v, c), def) in values.into_iter().zip(columns).zip(defs) {
            row.push(owned_value(v, c, def.column_type, binary));
        }
        out.row(&row)?;
    }
    Ok(())
}

/// [`write_result`] of a result the caller gives up (a prepared
/// statement's), its strings moved ([`write_owned_rows`]).
fn write_owned_result(
    out: &mut ResultWriter<'_>,
    result: QueryResult,
    warnings: u16,
    started: bool,
) -> Result<(), MysqlError> {
    let QueryResult::Rows(set) = result else {
        return write_result(out, &result, warnings, started);
    };
    let columns: Vec<ColumnDef> = set.columns.iter().map(column_def).collect();
    if !started {
        out.begin_result_set(&columns)?;
    }
    write_owned_rows(out, &set.columns, &columns, set.rows)?;
    out.end_result_set(warnings)
}

/// The client of one COM_QUERY or COM_STMT_EXECUTE: results are written as
/// each statement ends, the rows of a SELECT as they come
/// (`ClientIo::rows`), and LOAD DATA LOCAL reads the client's file through
/// the writer.
struct Client<'o, 'a> {
    out: &'o mut ResultWriter<'a>,
    /// The first failure to encode a result (ends the command).
    error: Option<MysqlError>,
    /// The column definitions of the result set begun by rows sent while
    /// the statement runs.
    streaming: Option<Vec<ColumnDef>>,
}

impl<'o, 'a> Client<'o, 'a> {
    fn new(out: &'o mut ResultWriter<'a>) -> Self {
        Client {
            out,
            error: None,
            streaming: None,
        }
    }
}

impl larch_sql::session::client_io::ClientIo for Client<'_, '_> {
    fn result(&mut self, session: &Session, result: &QueryResult) {
        self.out.set_session_status(Connection::flags_of(session));
        let started = self.streaming.take().is_some();
        if let Err(e) = write_result(self.out, result, session.warning_count(), started) {
            self.error.get_or_insert(e);
        }
    }

    fn rows(
        &mut self,
        columns: &[larch_sql::result::ResultColumn],
        rows: &mut Vec<Vec<EValue>>,
    ) -> Result<(), larch_sql::error::SqlError> {
        let written = (|| {
            if self.streaming.is_none() {
                let defs: Vec<ColumnDef> = columns.iter().map(column_def).collect();
                self.out.begin_result_set(&defs)?;
                self.streaming = Some(defs);
            }
            let defs = self.streaming.as_deref().unwrap_or_default();
            write_owned_rows(self.out, columns, defs, std::mem::take(rows))
        })();
        written.map_err(|e| {
            let stop = larch_sql::error::SqlError::new(e.code, e.message.clone());
            self.error.get_or_insert(e);
            stop
        })
    }

    fn local_file(
        &mut self,
        name: &str,
    ) -> Result<Box<dyn std::io::Read + '_>, larch_sql::error::SqlError> {
        match self.out.local_infile(name.as_bytes()) {
            Ok(r) => Ok(Box::new(r)),
            Err(e) => Err(larch_sql::error::SqlError::new(e.code, e.message)),
        }
    }
}

/// ER 1064 for a second statement when the client did not allow several.
fn multi_statement_error(sql: &[u8]) -> Option<MysqlError> {
    let text = String::from_utf8_lossy(sql);
    let pieces = larch_sql::parse::split::split_statements(&text);
    let second = pieces.get(1)?;
    let rest = text.get(second.start..).unwrap_or_default().trim_start();
    let near: String = if rest.len() > 80 {
        let mut cut = 77;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &rest[..cut])
    } else {
        rest.to_owned()
    };
    let line = text[..second.start].matches('\n').count() + 1;
    Some(MysqlError::new(
        1064,
        "42000",
        format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your \
             MariaDB server version for the right syntax to use near '{near}' at line {line}"
        ),
    ))
}

/// MySQL's `LIKE` with `%` and `_` (and `\` escapes), case-insensitive, for
/// `COM_FIELD_LIST` wildcards: the SQL layer's one LIKE matcher.
fn like(pattern: &[char], name: &[char]) -> bool {
    let pattern: String = pattern.iter().collect();
    let name: String = name.iter().collect();
    larch_sql::eval::like(
        &name,
        &pattern,
        '\\',
        larch_engine::record::collation::Collation::Utf8mb4GeneralCi,
    )
}

/// The client host as accounts name it: an IPv4 client of a dual-stack
/// (`--bind-address=*`) listener appears as `::ffff:a.b.c.d`, which MariaDB
/// shows and matches as `a.b.c.d`.
fn normalize_host(host: &str) -> &str {
    match host.strip_prefix("::ffff:") {
        Some(v4) if v4.parse::<std::net::Ipv4Addr>().is_ok() => v4,
        _ => host,
    }
}

impl SqlSession for Connection {
    fn lookup_account(&mut self, user: &str, host: &str) -> Option<Account> {
        let stored = self.shared.db.account(user, normalize_host(host))?;
        credential(&stored).map(|credential| Account { credential })
    }

    fn on_login(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        let started = self.start(login, true);
        if started.is_err() {
            self.release();
        }
        started
    }

    fn change_user(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        let previous = self.login.take();
        let previous_user = self.user.take();
        // The old session ends first: its connection id is the new one's.
        self.session = None;
        match self.start(login, false) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.user = previous_user;
                if let Some(previous) = previous {
                    self.start_session(&previous)?;
                }
                Err(e)
            }
        }
    }

    fn init_db(&mut self, database: &str) -> Result<(), MysqlError> {
        self.session()?
            .use_database(database)
            .map_err(|e| mysql_error(&e))
    }

    fn query(&mut self, sql: &[u8], out: &mut ResultWriter<'_>) -> Result<(), MysqlError> {
        if !out.multi_statements() {
            if let Some(err) = multi_statement_error(sql) {
                return Err(err);
            }
        }
        let session = self.session()?;
        let mut client = Client::new(out);
        let error = session.query_with(sql, &mut client);
        let failed = client.error.take();
        out.set_session_status(Self::flags_of(session));
        if let Some(e) = failed {
            return Err(e);
        }
        match error {
            Some(e) => Err(mysql_error(&e)),
            None => Ok(()),
        }
    }

    fn prepare(&mut self, stmt_id: u32, sql: &[u8]) -> Result<PreparedInfo, MysqlError> {
        let description = self
            .session()?
            .prepare(stmt_id, sql)
            .map_err(|e| mysql_error(&e))?;
        let params = u16::try_from(description.params).map_err(|_| {
            MysqlError::new(
                1390,
                "HY000",
                "Prepared statement contains too many placeholders",
            )
        })?;
        Ok(PreparedInfo {
            params,
            columns: description.columns.iter().map(column_def).collect(),
        })
    }

    fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<(), MysqlError> {
        let params: Vec<_> = params.iter().map(param_value).collect();
        let session = self.session()?;
        let mut client = Client::new(out);
        let result = session.execute_prepared_with(stmt_id, &params, Some(&mut client));
        let (failed, started) = (client.error.take(), client.streaming.is_some());
        out.set_session_status(Self::flags_of(session));
        if let Some(e) = failed {
            return Err(e);
        }
        let warnings = session.warning_count();
        match result {
            Ok(r) => write_owned_result(out, r, warnings, started),
            Err(e) => Err(mysql_error(&e)),
        }
    }

    fn close_statement(&mut self, stmt_id: u32) {
        if let Some(s) = self.session.as_mut() {
            s.close_prepared(stmt_id);
        }
    }

    fn reset_connection(&mut self) -> Result<(), MysqlError> {
        self.session()?.reset();
        Ok(())
    }

    fn status_flags(&self) -> StatusFlags {
        match &self.session {
            Some(s) => Self::flags_of(s),
            None => StatusFlags::SERVER_STATUS_AUTOCOMMIT,
        }
    }

    fn field_list(&mut self, table: &str, wildcard: &str) -> Result<Vec<ColumnDef>, MysqlError> {
        let quoted = table.replace('`', "``");
        let sql = format!("SELECT * FROM `{quoted}` LIMIT 0");
        let session = self.session()?;
        let description = session.prepare(FIELD_LIST_STMT, sql.as_bytes());
        session.close_prepared(FIELD_LIST_STMT);
        let description = description.map_err(|e| mysql_error(&e))?;
        let pattern: Vec<char> = wildcard.chars().collect();
        Ok(description
            .columns
            .iter()
            .filter(|c| {
                let name: Vec<char> = c.name.chars().collect();
                pattern.is_empty() || like(&pattern, &name)
            })
            .map(column_def)
            .collect())
    }

    fn refresh(&mut self, flags: u8) -> Result<(), MysqlError> {
        const ACTIONS: &[(u8, &str)] = &[
            (0x01, "FLUSH PRIVILEGES"),
            (0x02, "FLUSH LOGS"),
            (0x04, "FLUSH TABLES"),
            (0x08, "FLUSH HOSTS"),
            (0x10, "FLUSH STATUS"),
        ];
        let session = self.session()?;
        for (bit, sql) in ACTIONS {
            if flags & bit != 0 {
                session.execute(sql).map_err(|e| mysql_error(&e))?;
            }
        }
        Ok(())
    }

    fn statistics(&mut self) -> String {
        let db = &self.shared.db;
        let uptime = db.uptime_secs();
        let questions = db.status.questions.load(Ordering::Relaxed);
        let threads = db.processes().len();
        let qps = if uptime == 0 {
            0.0
        } else {
            questions as f64 / uptime as f64
        };
        format!(
            "Uptime: {uptime}  Threads: {threads}  Questions: {questions}  Slow queries: 0  \
             Opens: 0  Open tables: 0  Queries per second avg: {qps:.3}"
        )
    }

    fn durability(&mut self) -> Option<DurabilityWait> {
        let wait = self.session.as_mut()?.take_durable_wait()?;
        Some(Box::pin(async move {
            wait.await
                .map_err(|e| mysql_error(&larch_sql::error::SqlError::from(e)))
        }))
    }

    /// The session's `wait_timeout`, `net_read_timeout` and
    /// `net_write_timeout` (its own or the global values of when it
    /// started); read again only after a `SET` or a reset of the session
    /// changed its settings epoch.
    fn timeouts(&mut self) -> SessionTimeouts {
        let Some(session) = self.session.as_ref() else {
            return SessionTimeouts::default();
        };
        let epoch = session.settings_epoch();
        if self.timeouts.0 != Some(epoch) {
            let seconds = |name: &str| match session.variable(name) {
                Some(EValue::UInt(n)) => Some(Duration::from_secs(n)),
                Some(EValue::Int(n)) => u64::try_from(n).ok().map(Duration::from_secs),
                _ => None,
            };
            let own = SessionTimeouts {
                wait: seconds("wait_timeout"),
                net_read: seconds("net_read_timeout"),
                net_write: seconds("net_write_timeout"),
            };
            self.timeouts = (Some(epoch), own);
        }
        self.timeouts.1
    }

    fn on_close(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(p: &str, n: &str) -> bool {
        let p: Vec<char> = p.chars().collect();
        let n: Vec<char> = n.chars().collect();
        like(&p, &n)
    }

    #[test]
    fn mapped_ipv4_hosts() {
        assert_eq!(normalize_host("::ffff:127.0.0.1"), "127.0.0.1");
        assert_eq!(normalize_host("::1"), "::1");
        assert_eq!(normalize_host("localhost"), "localhost");
    }

    #[test]
    fn like_patterns() {
        assert!(matches("%", "abc"));
        assert!(matches("a%", "ABC"));
        assert!(matches("a_c", "abc"));
        assert!(!matches("a_c", "abbc"));
        assert!(matches("a\\_c", "a_c"));
        assert!(!matches("a\\_c", "abc"));
    }

    #[test]
    fn second_statement_is_a_syntax_error() {
        assert!(multi_statement_error(b"SELECT 1").is_none());
        assert!(multi_statement_error(b"SELECT 1;").is_none());
        let e = multi_statement_error(b"SELECT 1; SELECT 2");
        let e = e.map(|e| (e.code, e.message)).unwrap_or_default();
        assert_eq!(e.0, 1064);
        assert!(e.1.contains("near 'SELECT 2' at line 1"), "{}", e.1);
    }
}
