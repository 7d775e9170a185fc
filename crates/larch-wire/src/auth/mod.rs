//! Authentication: the exchanges after the client's handshake response, for
//! `mysql_native_password` and `caching_sha2_password`.
//!
//! Flows (`S` server, `C` client; every packet continues the handshake's
//! sequence ids):
//!
//! - plugin switch: when the client answered the handshake with a plugin
//!   other than the account's, or with no data for an account that has a
//!   password, `S: 0xFE <plugin>\0 <nonce>\0` and the client answers with
//!   data for that plugin (only one switch is allowed);
//! - `mysql_native_password`: the 20-byte scramble is checked against
//!   `SHA1(SHA1(password))`;
//! - `caching_sha2_password`: the 32-byte scramble is checked against the
//!   server-wide [`AuthCache`] of `SHA256(SHA256(password))`. Hit:
//!   `S: 0x01 0x03` (fast auth success), then OK. Miss: `S: 0x01 0x04`
//!   (perform full authentication); over a secure transport (a Unix socket,
//!   or TLS) the client sends the password in clear, NUL-terminated;
//!   otherwise it sends `0x02` to ask for the RSA public key
//!   (`S: 0x01 <PEM>`) and then the encrypted password, or the encrypted
//!   password straight away if it already has the key. The clear password
//!   is checked against the salted crypt string and, on success, cached for
//!   the fast path;
//! - failure: ER 1045 "Access denied ... (using password: YES/NO)", 28000.
//!   An unknown user fails the same way.
//!
//! TLS is offered when the server has a certificate ([`crate::tls`]); over
//! plain TCP, full authentication uses RSA.

mod password;
pub mod rsa;

pub use password::{
    sha1, sha256, sha2_stage2, verify_crypt, verify_native, verify_sha2_scramble, Credential,
};

use crate::error::{MysqlError, WireError};
use crate::packet::PacketStream;
use crate::results::write_err;
use crate::session::Account;
use mysql_common::packets::AuthSwitchRequest;
use mysql_common::proto::MySerialize;
use parking_lot::Mutex;
use rsa::RsaPrivateKey;
use std::collections::HashMap;
use tokio::io::{AsyncRead, AsyncWrite};

/// Name of the native plugin.
pub const NATIVE_PASSWORD: &str = "mysql_native_password";
/// Name of the SHA-256 caching plugin.
pub const CACHING_SHA2_PASSWORD: &str = "caching_sha2_password";

/// Entries kept before the cache is emptied (a crude bound; entries are
/// cheap to rebuild with one full authentication).
const AUTH_CACHE_LIMIT: usize = 100_000;

/// The `caching_sha2_password` fast-authentication cache: for each
/// (user, stored crypt string), `SHA256(SHA256(password))` learnt at the
/// last successful full authentication. Keying on the crypt string means a
/// password change (new salt and digest) can never hit a stale entry.
#[derive(Debug, Default)]
pub struct AuthCache {
    entries: Mutex<HashMap<(String, String), [u8; 32]>>,
}

impl AuthCache {
    fn get(&self, user: &str, crypt: &str) -> Option<[u8; 32]> {
        self.entries
            .lock()
            .get(&(user.to_owned(), crypt.to_owned()))
            .copied()
    }

    fn insert(&self, user: &str, crypt: &str, stage2: [u8; 32]) {
        let mut entries = self.entries.lock();
        if entries.len() >= AUTH_CACHE_LIMIT {
            entries.clear();
        }
        entries.insert((user.to_owned(), crypt.to_owned()), stage2);
    }

    /// Forgets every entry (`FLUSH PRIVILEGES`).
    pub fn clear(&self) {
        self.entries.lock().clear();
    }

    /// Forgets the entries of `user`.
    pub fn forget_user(&self, user: &str) {
        self.entries.lock().retain(|(u, _), _| u != user);
    }

    /// Number of cached entries.
    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    /// True if nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Everything an authentication exchange needs besides the stream.
pub(crate) struct AuthExchange<'a> {
    pub nonce: &'a [u8; 20],
    pub user: &'a str,
    pub host: &'a str,
    /// A Unix socket or TLS: the password may travel in clear.
    pub secure: bool,
    pub cache: &'a AuthCache,
    pub rsa: Option<&'a RsaPrivateKey>,
    /// Where a refused login is counted, before its ERR is sent (a client
    /// that retries at once must meet the delay its failure earned).
    pub hosts: &'a crate::hosts::HostGuard,
}

/// Outcome of a failed check: the error to send.
fn deny(ex: &AuthExchange<'_>, using_password: bool) -> MysqlError {
    MysqlError::access_denied(ex.user, ex.host, using_password)
}

/// Counts a refused login (ER 1045) for the client's host, then sends
/// `err` and returns the matching [`WireError`].
async fn fail<S>(stream: &mut PacketStream<S>, ex: &AuthExchange<'_>, err: MysqlError) -> WireError
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    if err.code == crate::error::codes::ER_ACCESS_DENIED_ERROR {
        ex.hosts.login_failed(ex.host);
    }
    let mut out = stream.outbox();
    write_err(out.begin(), &err);
    out.end();
    if let Err(e) = stream.send(&mut out).await {
        return e;
    }
    WireError::AuthFailed(err)
}

/// Runs the exchange after the handshake response (`client_plugin`,
/// `response`). On success the caller sends the final OK; on failure the
/// ERR has been sent.
pub(crate) async fn authenticate<S>(
    stream: &mut PacketStream<S>,
    ex: &AuthExchange<'_>,
    account: Option<Account>,
    client_plugin: &str,
    mut response: Vec<u8>,
) -> Result<(), WireError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let Some(account) = account else {
        let err = deny(ex, !response.is_empty());
        return Err(fail(stream, ex, err).await);
    };
    let wanted = account.credential.plugin_name();
    // A client whose preferred plugin differs from the one the handshake
    // proposed answers with its plugin name and no data, expecting a
    // switch request that carries the nonce for it (libmariadb does this
    // with --default-auth). An empty answer for an account that has a
    // password gets the switch too, so such clients can proceed.
    let empty_but_needed = response.is_empty() && !account.credential.is_empty_password();
    if client_plugin != wanted || empty_but_needed {
        let mut data = ex.nonce.to_vec();
        data.push(0);
        let mut out = stream.outbox();
        AuthSwitchRequest::new(wanted.as_bytes(), data).serialize(out.begin());
        out.end();
        stream.send(&mut out).await?;
        stream.read_packet(&mut response).await?;
    }
    let result = match &account.credential {
        Credential::NativePassword(None) | Credential::CachingSha2Password(None) => {
            if response.is_empty() {
                Ok(())
            } else {
                Err(deny(ex, true))
            }
        }
        Credential::NativePassword(Some(stage2)) => {
            if verify_native(&response, ex.nonce, stage2) {
                Ok(())
            } else {
                Err(deny(ex, !response.is_empty()))
            }
        }
        Credential::CachingSha2Password(Some(crypt)) => {
            caching_sha2(stream, ex, crypt, &response).await?
        }
    };
    match result {
        Ok(()) => Ok(()),
        Err(err) => Err(fail(stream, ex, err).await),
    }
}

/// The `caching_sha2_password` exchange after the scramble arrived. The
/// outer error is a connection failure; the inner one a denied login.
async fn caching_sha2<S>(
    stream: &mut PacketStream<S>,
    ex: &AuthExchange<'_>,
    crypt: &str,
    scramble: &[u8],
) -> Result<Result<(), MysqlError>, WireError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    if scramble.is_empty() {
        return Ok(Err(deny(ex, false)));
    }
    if let Some(stage2) = ex.cache.get(ex.user, crypt) {
        if !verify_sha2_scramble(scramble, ex.nonce, &stage2) {
            return Ok(Err(deny(ex, true)));
        }
        let mut out = stream.outbox();
        out.push(&[0x01, 0x03]);
        stream.send(&mut out).await?;
        return Ok(Ok(()));
    }
    let mut out = stream.outbox();
    out.push(&[0x01, 0x04]);
    stream.send(&mut out).await?;
    let mut packet = Vec::new();
    stream.read_packet(&mut packet).await?;

    let password = if ex.secure {
        // Secure transport: the password arrives in clear, NUL-terminated.
        strip_nul(packet)
    } else {
        let Some(rsa) = ex.rsa else {
            return Ok(Err(MysqlError::new(
                crate::error::codes::ER_ACCESS_DENIED_ERROR,
                "28000",
                format!(
                    "Access denied for user '{}'@'{}': full authentication requires a secure connection or the server's RSA key, which is disabled",
                    ex.user, ex.host
                ),
            )));
        };
        if packet == [0x02] {
            let mut out = stream.outbox();
            let payload = out.begin();
            payload.push(0x01);
            payload.extend_from_slice(rsa.public_key_pem().as_bytes());
            out.end();
            stream.send(&mut out).await?;
            stream.read_packet(&mut packet).await?;
        }
        let Some(mut plain) = rsa.decrypt(&packet) else {
            return Ok(Err(deny(ex, true)));
        };
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= ex.nonce[i % ex.nonce.len()];
        }
        strip_nul(plain)
    };
    if !verify_crypt(&password, crypt) {
        return Ok(Err(deny(ex, true)));
    }
    ex.cache.insert(ex.user, crypt, sha2_stage2(&password));
    Ok(Ok(()))
}

fn strip_nul(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.last() == Some(&0) {
        bytes.pop();
    }
    bytes
}
