//! The server object shared by all connections, and the life of one
//! connection up to the command loop: handshake, authentication, login.
//!
//! [`Server`] holds the configuration, the RSA key, the
//! `caching_sha2_password` cache and the registry of live connections (for
//! `KILL`). [`Server::serve_connection`] runs one connection to its end on
//! a [`ClientStream`]; [`Server::serve_tcp`] and [`Server::serve_unix`] add
//! what real sockets need (`TCP_NODELAY`, peer host). A connection never
//! takes the server down: protocol errors close that connection only, and
//! panics in the SQL layer become ER 1105 (see [`ExecutionMode`]).
//!
//! The handshake: greeting (with `CLIENT_SSL` when [`ServerConfig::tls`] is
//! set and the client came over TCP), then either the client's handshake
//! response, or its SSL request followed by the TLS handshake
//! ([`crate::tls`]) and the handshake response over TLS; then
//! authentication ([`crate::auth`]) and the final OK. Without TLS
//! configured an SSL request is refused with ER 1043.

use crate::admission::Admission;
use crate::auth::rsa::{RsaError, RsaPrivateKey, DEFAULT_KEY_BITS};
use crate::auth::AuthCache;
use crate::command::CommandLoop;
use crate::error::{MysqlError, WireError};
use crate::hosts::HostGuard;
use crate::packet::PacketStream;
use crate::results::{write_err, write_err_before_handshake};
use crate::session::{ConnectionControl, ConnectionInfo, SqlSession, Transport};
use crate::stream::ClientStream;
use crate::timeouts::{GlobalTimeouts, TimeoutKind};
use crate::tls::TlsSettings;
use mysql_common::constants::CapabilityFlags;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Capabilities the server offers, plus `CLIENT_SSL` on TCP connections
/// when TLS is configured. `CLIENT_LOCAL_FILES` lets LOAD DATA LOCAL ask the
/// client for files (`crate::local_infile`). Not offered: `CLIENT_COMPRESS`,
/// `CLIENT_SESSION_TRACK`, `CLIENT_QUERY_ATTRIBUTES`,
/// `CLIENT_OPTIONAL_RESULTSET_METADATA`.
pub const SERVER_CAPABILITIES: CapabilityFlags = CapabilityFlags::CLIENT_LONG_PASSWORD
    .union(CapabilityFlags::CLIENT_FOUND_ROWS)
    .union(CapabilityFlags::CLIENT_LONG_FLAG)
    .union(CapabilityFlags::CLIENT_LOCAL_FILES)
    .union(CapabilityFlags::CLIENT_CONNECT_WITH_DB)
    .union(CapabilityFlags::CLIENT_IGNORE_SPACE)
    .union(CapabilityFlags::CLIENT_PROTOCOL_41)
    .union(CapabilityFlags::CLIENT_INTERACTIVE)
    .union(CapabilityFlags::CLIENT_IGNORE_SIGPIPE)
    .union(CapabilityFlags::CLIENT_TRANSACTIONS)
    .union(CapabilityFlags::CLIENT_SECURE_CONNECTION)
    .union(CapabilityFlags::CLIENT_MULTI_STATEMENTS)
    .union(CapabilityFlags::CLIENT_MULTI_RESULTS)
    .union(CapabilityFlags::CLIENT_PS_MULTI_RESULTS)
    .union(CapabilityFlags::CLIENT_PLUGIN_AUTH)
    .union(CapabilityFlags::CLIENT_CONNECT_ATTRS)
    .union(CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)
    .union(CapabilityFlags::CLIENT_DEPRECATE_EOF);

/// Version string announced in the handshake. MariaDB numbering, because
/// the SQL dialect and tools we follow are MariaDB's; no "-MariaDB" tag,
/// so MariaDB clients do not switch on MariaDB-only protocol extensions
/// (extended capabilities, bulk execution) that this server does not have.
pub const DEFAULT_SERVER_VERSION: &str = concat!("11.4.0-Larch-", env!("CARGO_PKG_VERSION"));

/// How handler methods run on the connection's task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionMode {
    /// Call directly. Right for a thread per connection or handlers that
    /// never block for long.
    Inline,
    /// Call inside `tokio::task::block_in_place` on a multi-thread runtime,
    /// so other connections' tasks move to other workers while a statement
    /// blocks (falls back to `Inline` on a current-thread runtime).
    BlockInPlace,
}

/// Which plugin the handshake proposes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultAuthPlugin {
    /// `mysql_native_password` (MariaDB's default).
    NativePassword,
    /// `caching_sha2_password` (MySQL 8's default).
    CachingSha2Password,
}

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Version string of the handshake (`SELECT VERSION()` should agree).
    pub server_version: String,
    /// Largest client packet accepted, in bytes (`max_allowed_packet`).
    pub max_allowed_packet: usize,
    /// Plugin proposed in the handshake; accounts using the other one get an
    /// auth switch (one more round trip).
    pub default_auth_plugin: DefaultAuthPlugin,
    /// RSA modulus size for `caching_sha2_password` full authentication over
    /// TCP; `None` disables it (such logins then fail unless cached).
    pub rsa_key_bits: Option<u64>,
    /// How handler methods are called.
    pub execution: ExecutionMode,
    /// Idle time after which a connection is closed (`wait_timeout`).
    /// This and the other timeouts are the start values; see
    /// [`Server::set_timeout`] and [`crate::timeouts`].
    pub idle_timeout: Option<Duration>,
    /// How long a read or a write of the handshake waits before the
    /// connection is closed (`connect_timeout`). Applies to connections
    /// served with blocking calls ([`crate::blocking`]).
    pub connect_timeout: Option<Duration>,
    /// How long a read inside a command (the rest of a packet, the file of
    /// LOAD DATA LOCAL) waits before the connection is closed
    /// (`net_read_timeout`). Applies to connections served with blocking
    /// calls ([`crate::blocking`]).
    pub net_read_timeout: Option<Duration>,
    /// How long a write after the handshake waits for the client to take
    /// the bytes before the connection is closed (`net_write_timeout`).
    /// Applies to connections served with blocking calls
    /// ([`crate::blocking`]).
    pub net_write_timeout: Option<Duration>,
    /// Default collation id announced in the handshake.
    pub collation: u8,
    /// Certificate and key for TLS on TCP connections; `None`: TLS is not
    /// offered and SSL requests are refused.
    pub tls: Option<TlsSettings>,
    /// Connections in the handshake phase at most, and from one host at
    /// most ([`crate::admission`]).
    pub max_handshakes: usize,
    pub max_handshakes_per_host: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            server_version: DEFAULT_SERVER_VERSION.to_owned(),
            max_allowed_packet: 64 << 20,
            default_auth_plugin: DefaultAuthPlugin::NativePassword,
            rsa_key_bits: Some(DEFAULT_KEY_BITS),
            execution: ExecutionMode::Inline,
            idle_timeout: Some(Duration::from_secs(28_800)),
            connect_timeout: Some(Duration::from_secs(10)),
            net_read_timeout: Some(Duration::from_secs(30)),
            net_write_timeout: Some(Duration::from_secs(60)),
            collation: 45,
            tls: None,
            max_handshakes: crate::admission::DEFAULT_MAX_HANDSHAKES,
            max_handshakes_per_host: crate::admission::DEFAULT_MAX_HANDSHAKES_PER_HOST,
        }
    }
}

/// State shared by every connection of one server.
#[derive(Debug)]
pub struct Server {
    pub(crate) config: ServerConfig,
    pub(crate) rsa: Option<RsaPrivateKey>,
    pub(crate) auth_cache: AuthCache,
    next_connection_id: AtomicU32,
    /// Connections accepted so far, refused logins included
    /// (`Connections`).
    accepted: AtomicU64,
    connections: Arc<crate::liveness::Registry>,
    /// The timeouts in force (start values from `config`).
    timeouts: GlobalTimeouts,
    /// Connections in the handshake phase ([`crate::admission`]).
    pub(crate) admission: Admission,
    /// Connection errors and failed logins by host ([`crate::hosts`]).
    pub(crate) hosts: HostGuard,
    /// TLS handshakes started and finished (`Ssl_accepts`,
    /// `Ssl_finished_accepts`).
    pub(crate) ssl_accepts: AtomicU64,
    pub(crate) ssl_finished_accepts: AtomicU64,
    /// Connections whose login failed (`Aborted_connects`).
    pub(crate) aborted_connects: AtomicU64,
}

/// Removes a connection from the registry when it ends.
struct Registration<'a> {
    server: &'a Server,
    id: u32,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        if let Some(control) = self.server.connections.lock().remove(&self.id) {
            // Its descriptor must not keep the socket open.
            control.set_peer_probe(None);
        }
    }
}

impl Server {
    /// A server with `config`; generates the RSA key if configured.
    pub fn new(config: ServerConfig) -> Result<Arc<Self>, RsaError> {
        let rsa = config
            .rsa_key_bits
            .map(RsaPrivateKey::generate)
            .transpose()?;
        let timeouts = GlobalTimeouts::new(
            config.connect_timeout,
            config.idle_timeout,
            config.net_read_timeout,
            config.net_write_timeout,
        );
        let connections = Arc::new(Mutex::new(HashMap::new()));
        crate::liveness::start(Arc::downgrade(&connections));
        Ok(Arc::new(Server {
            timeouts,
            admission: Admission::new(config.max_handshakes, config.max_handshakes_per_host),
            config,
            rsa,
            auth_cache: AuthCache::default(),
            next_connection_id: AtomicU32::new(1),
            accepted: AtomicU64::new(0),
            connections,
            hosts: HostGuard::default(),
            ssl_accepts: AtomicU64::new(0),
            ssl_finished_accepts: AtomicU64::new(0),
            aborted_connects: AtomicU64::new(0),
        }))
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The timeout of `kind` in force: the configured one, or the last
    /// [`set_timeout`](Self::set_timeout).
    pub fn timeout(&self, kind: TimeoutKind) -> Option<Duration> {
        self.timeouts.get(kind)
    }

    /// Changes a timeout while the server runs (`SET GLOBAL wait_timeout`,
    /// `connect_timeout`, `net_read_timeout`, `net_write_timeout`): every
    /// connection follows from its next command on, unless its session set
    /// a value of its own ([`crate::SqlSession::timeouts`]).
    pub fn set_timeout(&self, kind: TimeoutKind, limit: Option<Duration>) {
        self.timeouts.set(kind, limit);
    }

    /// The timeouts in force, for the command loop.
    pub(crate) fn timeouts(&self) -> &GlobalTimeouts {
        &self.timeouts
    }

    /// Connections in the handshake phase ([`crate::admission`]).
    pub fn admission(&self) -> &Admission {
        &self.admission
    }

    /// What the server remembers of client hosts ([`crate::hosts`]):
    /// `max_connect_errors`, the login delay, FLUSH HOSTS.
    pub fn hosts(&self) -> &HostGuard {
        &self.hosts
    }

    /// `(Ssl_accepts, Ssl_finished_accepts, Aborted_connects)`.
    pub fn handshake_counts(&self) -> (u64, u64, u64) {
        (
            self.ssl_accepts.load(Ordering::Relaxed),
            self.ssl_finished_accepts.load(Ordering::Relaxed),
            self.aborted_connects.load(Ordering::Relaxed),
        )
    }

    /// The `caching_sha2_password` cache (clear it on `FLUSH PRIVILEGES`).
    pub fn auth_cache(&self) -> &AuthCache {
        &self.auth_cache
    }

    /// The RSA public key clients use for full authentication, as PEM.
    pub fn rsa_public_key_pem(&self) -> Option<&str> {
        self.rsa.as_ref().map(RsaPrivateKey::public_key_pem)
    }

    /// Ids of the live connections.
    pub fn connection_ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self.connections.lock().keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// Connections that exist, from the greeting to the close, logged in
    /// or not (`Threads_connected`).
    pub fn connected(&self) -> usize {
        self.connections.lock().len()
    }

    /// Connection identities handed out so far: every accepted connection,
    /// also those whose login failed (`Connections`).
    pub fn accepted(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// `KILL [CONNECTION | QUERY] id`; false if no such connection.
    pub fn kill(&self, connection_id: u32, query_only: bool) -> bool {
        let Some(control) = self.connections.lock().get(&connection_id).cloned() else {
            return false;
        };
        if query_only {
            control.kill_query();
        } else {
            control.kill_connection();
        }
        true
    }

    /// Ends a connection for a server shutdown, letting a command that is
    /// being answered finish: a connection running a command has it stopped
    /// (as KILL QUERY does) and stays until it is idle; an idle one is
    /// closed now. So the client that sent SHUTDOWN gets its OK before its
    /// connection closes. Returns false when there is no such connection.
    pub fn close_when_idle(&self, connection_id: u32) -> bool {
        let Some(control) = self.connections.lock().get(&connection_id).cloned() else {
            return false;
        };
        if control.busy_stamp().is_some() {
            control.kill_query();
        } else {
            control.kill_connection();
        }
        true
    }

    /// A new connection identity for a client at `host`.
    pub fn connection_info(&self, host: String, transport: Transport) -> ConnectionInfo {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        let mut id = self.next_connection_id.fetch_add(1, Ordering::Relaxed);
        if id == 0 {
            id = self.next_connection_id.fetch_add(1, Ordering::Relaxed);
        }
        ConnectionInfo {
            connection_id: id,
            host,
            transport,
            control: Arc::new(ConnectionControl::default()),
        }
    }

    /// Serves a TCP client: sets `TCP_NODELAY` (without it small responses
    /// wait for delayed ACKs) and uses the peer address as host.
    pub async fn serve_tcp<H, F>(
        self: &Arc<Self>,
        stream: tokio::net::TcpStream,
        make_session: F,
    ) -> Result<(), WireError>
    where
        H: SqlSession,
        F: FnOnce(&ConnectionInfo) -> H,
    {
        stream.set_nodelay(true)?;
        let host = stream
            .peer_addr()
            .map(|a| a.ip().to_string())
            .unwrap_or_else(|_| "unknown".to_owned());
        let info = self.connection_info(host, Transport::Tcp);
        let session = make_session(&info);
        self.serve_connection(ClientStream::Tcp(stream), info, session)
            .await
    }

    /// Serves a Unix-socket client (host `localhost`).
    pub async fn serve_unix<H, F>(
        self: &Arc<Self>,
        stream: tokio::net::UnixStream,
        make_session: F,
    ) -> Result<(), WireError>
    where
        H: SqlSession,
        F: FnOnce(&ConnectionInfo) -> H,
    {
        let info = self.connection_info("localhost".to_owned(), Transport::Unix);
        let session = make_session(&info);
        self.serve_connection(ClientStream::Unix(stream), info, session)
            .await
    }

    /// Runs one connection to its end: handshake (and TLS, on a TCP stream
    /// when configured), authentication, commands. Returns `Ok` when the
    /// client quit or closed the connection.
    ///
    /// Before the greeting a blocked host is refused (ER 1129,
    /// [`crate::hosts`]); until its login ends the connection holds a place
    /// in [`crate::admission`], which may close it to make room for newer
    /// ones; the login's outcome feeds the host's counts.
    pub async fn serve_connection<H>(
        &self,
        stream: ClientStream,
        info: ConnectionInfo,
        mut session: H,
    ) -> Result<(), WireError>
    where
        H: SqlSession,
    {
        self.connections
            .lock()
            .insert(info.connection_id, info.control.clone());
        let _registration = Registration {
            server: self,
            id: info.connection_id,
        };
        // A tokio socket is not read while a command runs: the liveness
        // watcher polls a second descriptor of it instead.
        info.control.set_peer_probe(stream.liveness_probe());
        let mut stream = PacketStream::new(stream, self.config.max_allowed_packet);
        if info.transport == Transport::Tcp && self.hosts.is_blocked(&info.host) {
            let err = MysqlError::host_blocked(&info.host);
            let mut out = stream.outbox();
            write_err_before_handshake(out.begin(), &err);
            out.end();
            let _ = stream.send(&mut out).await;
            let _ = self.call(|| session.on_close());
            stream.shutdown().await;
            return Err(WireError::AuthFailed(err));
        }
        let ticket = self.admission.admit(&info.host, info.control.clone());
        let control = info.control.clone();
        let (stream, opened) = {
            let open = self.open(stream, &info, &mut session);
            tokio::pin!(open);
            tokio::select! {
                biased;
                r = &mut open => r,
                () = control.killed() => {
                    // Closed to make room (a pool connection): its stream
                    // goes with the dropped future.
                    drop(ticket);
                    self.hosts.connect_error(&info.host);
                    self.aborted_connects.fetch_add(1, Ordering::Relaxed);
                    return Err(WireError::Killed);
                }
            }
        };
        drop(ticket);
        self.login_outcome(&info, &mut session, &opened);
        let Some(mut stream) = stream else {
            let _ = self.call(|| session.on_close());
            return opened.map(|_| ());
        };
        let result = match opened {
            Ok(opened) => {
                let mut commands = CommandLoop::new(self, &mut stream, &mut session, &info, opened);
                commands.run().await
            }
            Err(e) => Err(e),
        };
        let result = match result {
            Err(WireError::Closed) => Ok(()),
            Err(e) => {
                if let Some(err) = e.client_error() {
                    let mut out = stream.outbox();
                    write_err(out.begin(), &err);
                    out.end();
                    let _ = stream.send(&mut out).await;
                }
                Err(e)
            }
            Ok(()) => Ok(()),
        };
        let _ = self.call(|| session.on_close());
        stream.shutdown().await;
        result
    }

    /// Feeds the outcome of a login to the host's counts and the session.
    fn login_outcome<H: SqlSession, T>(
        &self,
        info: &ConnectionInfo,
        session: &mut H,
        opened: &Result<T, WireError>,
    ) {
        match opened {
            Ok(_) => self.hosts.login_succeeded(&info.host),
            Err(WireError::AuthFailed(err)) => {
                self.aborted_connects.fetch_add(1, Ordering::Relaxed);
                // The host's count was taken before the ERR went out
                // (`refuse_login`, `auth::fail`).
                if err.code == crate::error::codes::ER_ACCESS_DENIED_ERROR {
                    let _ = self.call(|| session.login_failed(err));
                }
            }
            Err(_) => {
                self.aborted_connects.fetch_add(1, Ordering::Relaxed);
                self.hosts.connect_error(&info.host);
            }
        }
    }

    /// Calls into the SQL layer, turning a panic into ER 1105.
    pub(crate) fn call<T>(&self, f: impl FnOnce() -> T) -> Result<T, MysqlError> {
        let run = || std::panic::catch_unwind(AssertUnwindSafe(f));
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        let result = if self.config.execution == ExecutionMode::BlockInPlace && multi_thread {
            tokio::task::block_in_place(run)
        } else {
            run()
        };
        result.map_err(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(panic = %what, "statement handler panicked");
            MysqlError::unknown("Unknown error: the statement failed with an internal error")
        })
    }
}
