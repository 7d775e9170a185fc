//! The login phase of a connection: greeting, the switch to TLS after an
//! SSL request, the handshake response, the login delay of a host with
//! failed logins ([`crate::hosts`]), authentication ([`crate::auth`]) and
//! the session's `on_login`, up to the final OK. [`Server::open`] runs it
//! and hands the command loop what it established ([`Opened`]: the
//! capabilities, the nonce `COM_CHANGE_USER` scrambles against, the TLS
//! facts).
//!
//! The handshake: greeting (with `CLIENT_SSL` when [`ServerConfig::tls`] is
//! set and the client came over TCP), then either the client's handshake
//! response, or its SSL request followed by the TLS handshake
//! ([`crate::tls`]) and the handshake response over TLS; then
//! authentication and the final OK. Without TLS configured an SSL request
//! is refused with ER 1043.

use crate::auth::{self, AuthExchange, NATIVE_PASSWORD};
use crate::error::{MysqlError, WireError};
use crate::packet::PacketStream;
use crate::results::{write_err, write_ok, OkResult};
use crate::server::{DefaultAuthPlugin, Server, SERVER_CAPABILITIES};
use crate::session::{ConnectionInfo, LoginInfo, SqlSession, Transport};
use crate::stream::ClientStream;
use crate::tls::{self, TlsInfo, TlsSettings};
use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(doc)]
use crate::server::ServerConfig;

/// What a successful login established, for the command loop.
#[derive(Debug, Clone)]
pub(crate) struct Opened {
    /// Capabilities both sides agreed on.
    pub capabilities: CapabilityFlags,
    /// The greeting's nonce (`COM_CHANGE_USER` scrambles with it).
    pub nonce: [u8; 20],
    /// The TLS facts, if the connection is encrypted.
    pub tls: Option<TlsInfo>,
}

/// Waits `delay` before an authentication, ending early when the
/// connection is killed (shutdown, or closed to make room).
pub(crate) async fn pause(blocking: bool, delay: Duration, info: &ConnectionInfo) {
    if blocking {
        let deadline = std::time::Instant::now() + delay;
        while !info.control.connection_killed() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    } else {
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = info.control.killed() => {}
        }
    }
}

impl Server {
    /// The login phase of a connection (see the module documentation).
    /// Gives the stream back (a TLS one after an SSL request; none when the
    /// TLS handshake failed) with the outcome; on failure the client
    /// already has its ERR packet when there was one to send.
    pub(crate) async fn open<H: SqlSession>(
        &self,
        mut stream: PacketStream<ClientStream>,
        info: &ConnectionInfo,
        session: &mut H,
    ) -> (
        Option<PacketStream<ClientStream>>,
        Result<Opened, WireError>,
    ) {
        let offer_tls = match stream.get_ref() {
            ClientStream::Tcp(_) | ClientStream::SyncTcp(_) => self.config.tls.as_ref(),
            _ => None,
        };
        let mut response = Vec::new();
        let mut opened = self
            .greet(&mut stream, info, offer_tls, &mut response)
            .await;
        let mut negotiated = None;
        if let (Ok(nonce), Some(settings)) = (&opened, offer_tls) {
            let nonce = *nonce;
            if is_ssl_request(&response) {
                self.ssl_accepts.fetch_add(1, Ordering::Relaxed);
                match tls::start(stream, settings).await {
                    Ok((tls_stream, tls_info)) => {
                        self.ssl_finished_accepts.fetch_add(1, Ordering::Relaxed);
                        stream = tls_stream;
                        negotiated = Some(tls_info);
                        opened = stream.read_packet(&mut response).await.map(|()| nonce);
                    }
                    // The stream went down with the failed handshake.
                    Err(e) => return (None, Err(e)),
                }
            }
        }
        let nonce = match opened {
            Ok(nonce) => nonce,
            Err(e) => return (Some(stream), Err(e)),
        };
        let opening = Opening {
            nonce,
            offered: offered_capabilities(offer_tls.is_some()),
            payload: response,
            tls: negotiated.clone(),
        };
        let result = self
            .handshake(&mut stream, info, opening, session)
            .await
            .map(|capabilities| Opened {
                capabilities,
                nonce,
                tls: negotiated,
            });
        (Some(stream), result)
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
    async fn handshake<H>(
        &self,
        stream: &mut PacketStream<ClientStream>,
        info: &ConnectionInfo,
        opening: Opening,
        session: &mut H,
    ) -> Result<CapabilityFlags, WireError>
    where
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
            transport: info.transport,
        };
        let scramble = response.scramble_buf().to_vec();
        drop(response);
        // Unix sockets and TLS are secure transports: caching_sha2 full
        // authentication takes the password in clear there.
        let secure = info.transport == Transport::Unix || login.tls.is_some();

        if let Some(delay) = self.hosts.login_delay(&info.host) {
            pause(stream.is_blocking(), delay, info).await;
        }
        let account = match self.call(|| session.lookup_account(&user, &info.host)) {
            Ok(account) => account,
            Err(err) => return Err(self.refuse_login(stream, &info.host, err).await),
        };
        let exchange = AuthExchange {
            nonce: &nonce,
            user: &user,
            host: &info.host,
            secure,
            cache: &self.auth_cache,
            rsa: self.rsa.as_ref(),
            hosts: &self.hosts,
        };
        auth::authenticate(stream, &exchange, account, &client_plugin, scramble).await?;

        let mut logged_in = self.call(|| session.on_login(&login)).and_then(|r| r);
        if let (Ok(()), Some(db)) = (&logged_in, &database) {
            logged_in = self.call(|| session.init_db(db)).and_then(|r| r);
        }
        if let Err(err) = logged_in {
            return Err(self.refuse_login(stream, &info.host, err).await);
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
    /// [`Self::refuse`] for a login refused from `host`: an ER 1045 is
    /// counted before it is sent (a client retrying at once meets the
    /// delay it earned).
    pub(crate) async fn refuse_login<S>(
        &self,
        stream: &mut PacketStream<S>,
        host: &str,
        err: MysqlError,
    ) -> WireError
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        if err.code == crate::error::codes::ER_ACCESS_DENIED_ERROR {
            self.hosts.login_failed(host);
        }
        self.refuse(stream, err).await
    }

    pub(crate) async fn refuse<S>(&self, stream: &mut PacketStream<S>, err: MysqlError) -> WireError
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
