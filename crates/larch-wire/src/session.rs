//! The boundary between the protocol and the SQL layer: [`SqlSession`].
//!
//! The protocol crate owns sockets, framing, the handshake, authentication
//! exchanges, prepared-statement bookkeeping (ids, parameter types, long
//! data) and result encoding. The SQL layer implements [`SqlSession`], one
//! value per client connection, and sees only decoded requests: account
//! look-ups, query text, statement ids with typed parameters.
//!
//! Contract:
//! - methods are called from the connection's task, one at a time; a method
//!   may block (see [`crate::ExecutionMode`] for how blocking is handled);
//! - a panic inside a method is caught: the client gets ER 1105 and the
//!   connection continues, so implementations should leave their state
//!   consistent at panic points (or reset it in [`SqlSession::reset_connection`]);
//! - results go through the [`ResultWriter`]; returning `Err` from `query`
//!   or `execute` ends the command with that error after the results already
//!   completed (the multi-statement rule).

use crate::auth::Credential;
use crate::blocking::SocketShutdown;
use crate::column::ColumnDef;
use crate::error::MysqlError;
use crate::results::ResultWriter;
use crate::timeouts::SessionTimeouts;
use crate::tls::TlsInfo;
use crate::value::Value;
use mysql_common::constants::{CapabilityFlags, StatusFlags};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// How the client reached the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// TCP/IP. The client may start TLS during the handshake;
    /// [`LoginInfo::tls`] says whether it did.
    Tcp,
    /// A Unix-domain socket (treated as a secure transport).
    Unix,
}

/// Facts about a connection known before authentication.
#[derive(Debug, Clone)]
pub struct ConnectionInfo {
    /// Server-assigned connection id (`CONNECTION_ID()`).
    pub connection_id: u32,
    /// Client host as used in account matching and error messages: the
    /// peer IP address for TCP, `localhost` for Unix sockets.
    pub host: String,
    /// Transport of the connection.
    pub transport: Transport,
    /// Kill flags shared with the server's connection registry.
    pub control: Arc<ConnectionControl>,
}

/// Kill requests for one connection, set by `KILL` from other connections.
#[derive(Default)]
pub struct ConnectionControl {
    kill_connection: AtomicBool,
    kill_query: AtomicBool,
    /// Wakes a connection task waiting for a command (tokio sockets).
    wake: tokio::sync::Notify,
    /// The socket of a connection served with blocking calls
    /// ([`crate::blocking`]) and the thread serving it: a kill shuts the
    /// socket down, which wakes the thread if it waits for a command or for
    /// a client to take its answer.
    socket: parking_lot::Mutex<Option<(Arc<dyn SocketShutdown>, std::thread::ThreadId)>>,
    /// A second descriptor of a tokio-served connection's socket
    /// ([`ClientStream::liveness_probe`](crate::stream::ClientStream)),
    /// polled by [`crate::liveness`]; dropped when the connection ends (it
    /// keeps the socket open while held).
    peer: parking_lot::Mutex<Option<std::os::fd::OwnedFd>>,
    /// Odd while a command runs: `2 * commands started + 1`
    /// ([`crate::liveness`]).
    busy: AtomicU64,
    /// Called when the client went away during a command
    /// ([`ConnectionControl::client_gone`]).
    gone_hook: parking_lot::Mutex<Option<GoneHook>>,
}

/// What [`ConnectionControl::set_gone_hook`] installs.
pub type GoneHook = Box<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for ConnectionControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionControl")
            .field("kill_connection", &self.connection_killed())
            .field("kill_query", &self.query_killed())
            .finish()
    }
}

impl ConnectionControl {
    /// Asks the connection to close after its current command.
    ///
    /// On a connection served with blocking calls, a kill from another
    /// connection (or the shutdown) shuts the socket down both ways, as
    /// MariaDB's does: a thread waiting for a command wakes, and so does
    /// one blocked writing to a client that stopped reading. A connection
    /// killing itself keeps its write side for the answer to its `KILL`.
    pub fn kill_connection(&self) {
        self.kill_connection.store(true, Ordering::Release);
        self.kill_query.store(true, Ordering::Release);
        // Wakes the connection if it is idle, waiting for a command.
        self.wake.notify_one();
        if let Some((socket, owner)) = self.socket.lock().as_ref() {
            if *owner == std::thread::current().id() {
                socket.shutdown_read();
            } else {
                socket.shutdown_both();
            }
        }
    }

    /// Makes kills wake the calling thread when it blocks on `socket` (or
    /// forgets the socket, with `None`, when the connection ends).
    pub(crate) fn set_socket(&self, socket: Option<Arc<dyn SocketShutdown>>) {
        *self.socket.lock() = socket.map(|s| (s, std::thread::current().id()));
        // A kill that came before the socket was known still wakes it.
        if self.connection_killed() {
            if let Some((socket, _)) = self.socket.lock().as_ref() {
                socket.shutdown_read();
            }
        }
    }

    /// Asks the running statement to stop (`KILL QUERY`).
    pub fn kill_query(&self) {
        self.kill_query.store(true, Ordering::Release);
    }

    /// True once `KILL CONNECTION` was requested.
    pub fn connection_killed(&self) -> bool {
        self.kill_connection.load(Ordering::Acquire)
    }

    /// True if the running statement should stop; long-running statements
    /// should poll this and fail with ER 1317 (`ER_QUERY_INTERRUPTED`).
    pub fn query_killed(&self) -> bool {
        self.kill_query.load(Ordering::Acquire)
    }

    /// Resolves once `KILL CONNECTION` was requested.
    pub(crate) async fn killed(&self) {
        while !self.connection_killed() {
            self.wake.notified().await;
        }
    }

    /// Clears a `KILL QUERY` request (done before each command).
    pub(crate) fn clear_query_kill(&self) {
        self.kill_query.store(false, Ordering::Release);
    }

    /// A command starts ([`crate::liveness`] watches busy connections).
    pub(crate) fn command_started(&self) {
        let n = self.busy.load(Ordering::Relaxed);
        self.busy.store((n | 1) + 2, Ordering::Relaxed);
    }

    /// The command ended.
    pub(crate) fn command_ended(&self) {
        let n = self.busy.load(Ordering::Relaxed);
        self.busy.store(n & !1, Ordering::Relaxed);
    }

    /// The running command's stamp, `None` when idle.
    pub(crate) fn busy_stamp(&self) -> Option<u64> {
        let n = self.busy.load(Ordering::Relaxed);
        (n & 1 == 1).then_some(n)
    }

    /// True when the connection's socket (served with blocking calls, or a
    /// tokio socket with a probe) was closed by the client.
    pub(crate) fn peer_closed(&self) -> bool {
        use std::os::fd::AsRawFd;
        if let Some((socket, _)) = self.socket.lock().as_ref() {
            return socket.peer_closed();
        }
        self.peer
            .lock()
            .as_ref()
            .is_some_and(|fd| crate::blocking::fd_peer_closed(fd.as_raw_fd()))
    }

    /// Watches `probe` (a second descriptor of a tokio-served connection's
    /// socket) for the client's close; `None` forgets it.
    pub(crate) fn set_peer_probe(&self, probe: Option<std::os::fd::OwnedFd>) {
        *self.peer.lock() = probe;
    }

    /// Installs what runs when the client goes away during a command (the
    /// SQL layer kills the statement there); the connection is closed
    /// either way.
    pub fn set_gone_hook(&self, hook: GoneHook) {
        *self.gone_hook.lock() = Some(hook);
    }

    /// The client went away during a command: runs the hook, then closes
    /// the connection.
    pub fn client_gone(&self) {
        if let Some(hook) = self.gone_hook.lock().as_ref() {
            hook();
        }
        self.kill_connection();
    }
}

/// An account found by [`SqlSession::lookup_account`].
#[derive(Debug, Clone)]
pub struct Account {
    /// The stored secret; its variant selects the auth plugin.
    pub credential: Credential,
}

/// What a successful login established.
#[derive(Debug, Clone)]
pub struct LoginInfo {
    /// Authenticated user name.
    pub user: String,
    /// Client host (as in [`ConnectionInfo::host`]).
    pub host: String,
    /// Database named in the handshake, if any (passed to `init_db` next).
    pub database: Option<String>,
    /// Capabilities both sides agreed on (e.g. `CLIENT_FOUND_ROWS` changes
    /// the meaning of affected rows).
    pub capabilities: CapabilityFlags,
    /// Collation id the client asked for.
    pub collation: u8,
    /// Connection attributes (`_client_name`, `program_name`, ...).
    pub attributes: HashMap<String, String>,
    /// The TLS protocol and cipher, if the connection is encrypted.
    pub tls: Option<TlsInfo>,
    /// How the client reached the server.
    pub transport: Transport,
}

/// What [`SqlSession::prepare`] reports about a statement.
#[derive(Debug, Clone, Default)]
pub struct PreparedInfo {
    /// Number of `?` placeholders.
    pub params: u16,
    /// Columns of the result set, empty if the statement returns none.
    pub columns: Vec<ColumnDef>,
}

/// A wait [`SqlSession::durability`] hands to the connection's task.
pub type DurabilityWait =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), MysqlError>> + Send>>;

/// The SQL layer's side of one client connection.
pub trait SqlSession: Send {
    /// Finds the account for `user` connecting from `host`; `None` if there
    /// is none (the client gets ER 1045 either way, as MySQL does).
    fn lookup_account(&mut self, user: &str, host: &str) -> Option<Account>;

    /// Called once authentication succeeded, before `init_db` for a database
    /// named in the handshake. An error is sent and the connection closed.
    fn on_login(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        let _ = login;
        Ok(())
    }

    /// `COM_INIT_DB` / `USE db`.
    fn init_db(&mut self, database: &str) -> Result<(), MysqlError>;

    /// `COM_QUERY`: runs `sql` (bytes in the connection character set; may be
    /// several statements when [`ResultWriter::multi_statements`] is true) and
    /// writes one result per statement.
    fn query(&mut self, sql: &[u8], out: &mut ResultWriter<'_>) -> Result<(), MysqlError>;

    /// `COM_STMT_PREPARE`: prepares `sql` under the id the protocol layer
    /// chose.
    fn prepare(&mut self, stmt_id: u32, sql: &[u8]) -> Result<PreparedInfo, MysqlError>;

    /// `COM_STMT_EXECUTE`: runs a prepared statement with decoded parameters
    /// (long data already merged in); rows go out in the binary protocol.
    fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<(), MysqlError>;

    /// `COM_STMT_CLOSE` (also called for every open statement when the
    /// connection is reset or closed).
    fn close_statement(&mut self, stmt_id: u32);

    /// `COM_STMT_RESET`: forget any per-execution state of the statement.
    fn reset_statement(&mut self, stmt_id: u32) -> Result<(), MysqlError> {
        let _ = stmt_id;
        Ok(())
    }

    /// `COM_RESET_CONNECTION`: roll back, drop temporary state and session
    /// variables, keep the login.
    fn reset_connection(&mut self) -> Result<(), MysqlError>;

    /// `COM_CHANGE_USER` authenticated `login`'s account: end the current
    /// session (as a reset does) and start one for the new account; an
    /// error is sent and the connection stays with its current session,
    /// reset. The default starts the new session through `on_login`.
    fn change_user(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        self.on_login(login)
    }

    /// A login attempt of the connection failed with `error` (ER 1045 from
    /// the password check or from `on_login`), for the server's counters.
    fn login_failed(&mut self, error: &MysqlError) {
        let _ = error;
    }

    /// Session status flags for OK/EOF packets (`SERVER_STATUS_AUTOCOMMIT`,
    /// `SERVER_STATUS_IN_TRANS`, ...).
    fn status_flags(&self) -> StatusFlags {
        StatusFlags::SERVER_STATUS_AUTOCOMMIT
    }

    /// `COM_FIELD_LIST` (deprecated; used by the `mysql` client's completion):
    /// columns of `table` matching the `LIKE` pattern `wildcard`.
    fn field_list(&mut self, table: &str, wildcard: &str) -> Result<Vec<ColumnDef>, MysqlError> {
        let _ = (table, wildcard);
        Ok(Vec::new())
    }

    /// `COM_REFRESH`: the `REFRESH_*` bits of `flags` (grant tables 0x01,
    /// logs 0x02, tables 0x04, hosts 0x08, status 0x10, threads 0x20,
    /// replica 0x40, master 0x80), as the matching FLUSH statements.
    fn refresh(&mut self, flags: u8) -> Result<(), MysqlError> {
        let _ = flags;
        Ok(())
    }

    /// `COM_STATISTICS`: the one-line status string.
    fn statistics(&mut self) -> String {
        String::from("Uptime: 0  Threads: 1  Questions: 0  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: 0.000")
    }

    /// After `query` or `execute`: what must finish before the client hears
    /// the result, e.g. the log sync of a commit (`None`: nothing). The
    /// connection's task awaits it, so the thread serves other connections
    /// meanwhile; an error replaces the result.
    fn durability(&mut self) -> Option<DurabilityWait> {
        None
    }

    /// The timeouts this session set for its own connection
    /// (`SET SESSION wait_timeout`, `net_read_timeout`,
    /// `net_write_timeout`); `None` for those that follow the server's
    /// value. Asked before every command on connections served with
    /// blocking calls, so it should be cheap.
    fn timeouts(&mut self) -> SessionTimeouts {
        SessionTimeouts::default()
    }

    /// The connection is closing (after `COM_QUIT`, an error or a kill).
    fn on_close(&mut self) {}
}
