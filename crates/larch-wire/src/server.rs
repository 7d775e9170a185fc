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

use crate::auth::rsa::{RsaError, RsaPrivateKey, DEFAULT_KEY_BITS};
use crate::auth::{self, AuthCache, AuthExchange, NATIVE_PASSWORD};
use crate::command::CommandLoop;
use crate::error::{MysqlError, WireError};
use crate::packet::PacketStream;
use crate::results::{write_err, write_ok, OkResult};
use crate::session::{ConnectionControl, ConnectionInfo, LoginInfo, SqlSession, Transport};
use crate::stream::ClientStream;
use crate::timeouts::{GlobalTimeouts, TimeoutKind};
use crate::tls::{self, TlsInfo, TlsSettings};
use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

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
        }
    }
}

/// State shared by every connection of one server.
#[derive(Debug)]
pub struct Server {
    config: ServerConfig,
    rsa: Option<RsaPrivateKey>,
    auth_cache: AuthCache,
    next_connection_id: AtomicU32,
    /// Connections accepted so far, refused logins included
    /// (`Connections`).
    accepted: AtomicU64,
    connections: Mutex<HashMap<u32, Arc<ConnectionControl>>>,
    /// The timeouts in force (start values from `config`).
    timeouts: GlobalTimeouts,
}

/// Removes a connection from the registry when it ends.
struct Registration<'a> {
    server: &'a Server,
    id: u32,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.server.connections.lock().remove(&self.id);
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
        Ok(Arc::new(Server {
            timeouts,
            config,
            rsa,
            auth_cache: AuthCache::default(),
            next_connection_id: AtomicU32::new(1),
            accepted: AtomicU64::new(0),
            connections: Mutex::new(HashMap::new()),
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
        let offer_tls = match stream {
            ClientStream::Tcp(_) | ClientStream::SyncTcp(_) => self.config.tls.as_ref(),
            _ => None,
        };
        let mut stream = PacketStream::new(stream, self.config.max_allowed_packet);
        let mut response = Vec::new();
        let mut opened = self
            .greet(&mut stream, &info, offer_tls, &mut response)
            .await;
        let mut negotiated = None;
        if let (Ok(nonce), Some(settings)) = (&opened, offer_tls) {
            let nonce = *nonce;
            if is_ssl_request(&response) {
                match tls::start(stream, settings).await {
                    Ok((tls_stream, tls_info)) => {
                        stream = tls_stream;
                        negotiated = Some(tls_info);
                        opened = stream.read_packet(&mut response).await.map(|()| nonce);
                    }
                    Err(e) => {
                        let _ = self.call(|| session.on_close());
                        return Err(e);
                    }
                }
            }
        }
        let handshake = match opened {
            Ok(nonce) => {
                let opening = Opening {
                    nonce,
                    offered: offered_capabilities(offer_tls.is_some()),
                    payload: response,
                    tls: negotiated,
                };
                self.handshake(&mut stream, &info, opening, &mut session)
                    .await
            }
            Err(e) => Err(e),
        };
        let result = match handshake {
            Ok(capabilities) => {
                let mut commands =
                    CommandLoop::new(self, &mut stream, &mut session, &info, capabilities);
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

    /// Sends the greeting (the handshake packet, offering TLS if `tls` is
    /// given) and reads the client's first packet into `response`: its
    /// handshake response or an SSL request. Returns the nonce.
    async fn greet<S>(
        &self,
        stream: &mut PacketStream<S>,
        info: &ConnectionInfo,
        tls: Option<&TlsSettings>,
        response: &mut Vec<u8>,
    ) -> Result<[u8; 20], WireError>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let nonce = new_nonce()?;
        let plugin = match self.config.default_auth_plugin {
            DefaultAuthPlugin::NativePassword => auth::NATIVE_PASSWORD,
            DefaultAuthPlugin::CachingSha2Password => auth::CACHING_SHA2_PASSWORD,
        };
        let mut scramble_2 = nonce[8..].to_vec();
        scramble_2.push(0);
        let scramble_1: [u8; 8] = [
            nonce[0], nonce[1], nonce[2], nonce[3], nonce[4], nonce[5], nonce[6], nonce[7],
        ];
        let handshake = HandshakePacket::new(
            10,
            self.config.server_version.as_bytes(),
            info.connection_id,
            scramble_1,
            Some(scramble_2),
            offered_capabilities(tls.is_some()),
            self.config.collation,
            StatusFlags::SERVER_STATUS_AUTOCOMMIT,
            Some(plugin.as_bytes()),
        );
        let mut out = stream.outbox();
        handshake.serialize(out.begin());
        out.end();
        stream.send(&mut out).await?;
        stream.read_packet(response).await?;
        Ok(nonce)
    }

    /// Parses the handshake response, authenticates and logs in. Returns
    /// the negotiated capabilities.
    async fn handshake<S, H>(
        &self,
        stream: &mut PacketStream<S>,
        info: &ConnectionInfo,
        opening: Opening,
        session: &mut H,
    ) -> Result<CapabilityFlags, WireError>
    where
        S: AsyncRead + AsyncWrite + Unpin,
        H: SqlSession,
    {
        let Opening {
            nonce,
            offered,
            payload,
            tls,
        } = opening;
        let client_flags = payload
            .get(..4)
            .map(|b| {
                CapabilityFlags::from_bits_truncate(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            })
            .unwrap_or_else(CapabilityFlags::empty);
        if is_ssl_request(&payload) {
            // An SSL request where TLS is not offered (not configured, or a
            // Unix socket): a well-behaved client never sends this. After
            // TLS started, a second one is a bad handshake.
            let err = if tls.is_some() {
                MysqlError::bad_handshake()
            } else {
                MysqlError::new(
                    crate::error::codes::ER_HANDSHAKE_ERROR,
                    "08S01",
                    "SSL connection is not supported by this server",
                )
            };
            return Err(self.refuse(stream, err).await);
        }
        let response = match ParseBuf(&payload).parse::<HandshakeResponse<'_>>(()) {
            Ok(r) if client_flags.contains(CapabilityFlags::CLIENT_PROTOCOL_41) => r,
            _ => return Err(self.refuse(stream, MysqlError::bad_handshake()).await),
        };
        let capabilities = response.capabilities() & offered;
        let user = String::from_utf8_lossy(response.user()).into_owned();
        let client_plugin = match response.auth_plugin() {
            Some(p) if capabilities.contains(CapabilityFlags::CLIENT_PLUGIN_AUTH) => {
                String::from_utf8_lossy(p.as_bytes()).into_owned()
            }
            _ => NATIVE_PASSWORD.to_owned(),
        };
        let database = response
            .db_name()
            .filter(|db| !db.is_empty())
            .map(|db| String::from_utf8_lossy(db).into_owned());
        let login = LoginInfo {
            user: user.clone(),
            host: info.host.clone(),
            database: database.clone(),
            capabilities,
            collation: response.collation(),
            attributes: response.connect_attributes().unwrap_or_default(),
            tls,
        };
        let scramble = response.scramble_buf().to_vec();
        drop(response);
        // Unix sockets and TLS are secure transports: caching_sha2 full
        // authentication takes the password in clear there.
        let secure = info.transport == Transport::Unix || login.tls.is_some();

        let account = match self.call(|| session.lookup_account(&user, &info.host)) {
            Ok(account) => account,
            Err(err) => return Err(self.refuse(stream, err).await),
        };
        let exchange = AuthExchange {
            nonce: &nonce,
            user: &user,
            host: &info.host,
            secure,
            cache: &self.auth_cache,
            rsa: self.rsa.as_ref(),
        };
        auth::authenticate(stream, &exchange, account, &client_plugin, scramble).await?;

        let mut logged_in = self.call(|| session.on_login(&login)).and_then(|r| r);
        if let (Ok(()), Some(db)) = (&logged_in, &database) {
            logged_in = self.call(|| session.init_db(db)).and_then(|r| r);
        }
        if let Err(err) = logged_in {
            return Err(self.refuse(stream, err).await);
        }
        let status = self
            .call(|| session.status_flags())
            .unwrap_or(StatusFlags::SERVER_STATUS_AUTOCOMMIT);
        let mut out = stream.outbox();
        write_ok(out.begin(), 0x00, &OkResult::default(), status);
        out.end();
        stream.send(&mut out).await?;
        Ok(capabilities)
    }

    /// Sends `err` during the handshake and returns the error that ends the
    /// connection.
    async fn refuse<S>(&self, stream: &mut PacketStream<S>, err: MysqlError) -> WireError
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut out = stream.outbox();
        write_err(out.begin(), &err);
        out.end();
        match stream.send(&mut out).await {
            Ok(()) => WireError::AuthFailed(err),
            Err(e) => e,
        }
    }
}

/// What the handshake established before the client's handshake response
/// was parsed.
struct Opening {
    /// The nonce sent in the greeting.
    nonce: [u8; 20],
    /// Capabilities offered in the greeting.
    offered: CapabilityFlags,
    /// The client's handshake response (or an SSL request).
    payload: Vec<u8>,
    /// The TLS parameters, if TLS started.
    tls: Option<TlsInfo>,
}

/// The capabilities of the greeting.
fn offered_capabilities(tls: bool) -> CapabilityFlags {
    if tls {
        SERVER_CAPABILITIES | CapabilityFlags::CLIENT_SSL
    } else {
        SERVER_CAPABILITIES
    }
}

/// An SSL request: the 32-byte start of a handshake response, with
/// `CLIENT_SSL`.
fn is_ssl_request(payload: &[u8]) -> bool {
    payload.len() == 32
        && payload.get(..4).is_some_and(|b| {
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & CapabilityFlags::CLIENT_SSL.bits() != 0
        })
}

/// A 20-byte handshake nonce of 7-bit characters without NUL or `$`, as
/// MySQL generates them (some clients treat the nonce as a C string).
fn new_nonce() -> Result<[u8; 20], WireError> {
    let mut nonce = [0u8; 20];
    getrandom::fill(&mut nonce).map_err(|e| WireError::Io(std::io::Error::other(e)))?;
    for b in &mut nonce {
        *b &= 0x7f;
        if *b == 0 || *b == b'$' {
            *b = b'a' + (*b % 26);
        }
    }
    Ok(nonce)
}
