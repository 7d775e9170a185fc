//! `COM_CHANGE_USER`: a logged-in connection authenticates as another
//! account (or the same one again) and starts afresh, as connection pools
//! do when they hand a connection to a new user.
//!
//! Packet (client, sequence id 0): user `NUL`-terminated; the auth
//! response, length-prefixed by one byte (`CLIENT_SECURE_CONNECTION`, which
//! every client that speaks protocol 4.1 sends); the database
//! `NUL`-terminated; then, if present, the collation (2 bytes), the plugin
//! name `NUL`-terminated (`CLIENT_PLUGIN_AUTH`) and connection attributes
//! (ignored). The scramble is computed with the nonce of the connection's
//! greeting; the exchange is the login's ([`crate::auth::authenticate`]:
//! an auth switch when the plugin differs, caching_sha2's fast and full
//! paths), and it ends with OK or ERR.
//!
//! As in MariaDB: every prepared statement is closed first; on success the
//! session of the new account replaces the old one
//! ([`SqlSession::change_user`]: transaction rolled back, temporary tables,
//! variables and user variables gone, the database of the packet current);
//! on failure the client gets ER 1045 and the connection stays, with its
//! session reset. The host's login delay and failure count
//! ([`crate::hosts`]) apply as to a login.

use crate::auth::{self, AuthExchange, NATIVE_PASSWORD};
use crate::command::{CommandLoop, Flow};
use crate::error::{codes, MysqlError, WireError};
use crate::session::{LoginInfo, SqlSession, Transport};
use mysql_common::constants::CapabilityFlags;
use std::collections::HashMap;
use tokio::io::{AsyncRead, AsyncWrite};

/// A decoded `COM_CHANGE_USER` body.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    user: String,
    auth: Vec<u8>,
    database: Option<String>,
    collation: Option<u8>,
    plugin: String,
}

/// A `NUL`-terminated string at the start of `b` (to the end if there is
/// no `NUL`), and the rest after it.
fn cstr(b: &[u8]) -> (&[u8], &[u8]) {
    match b.iter().position(|&c| c == 0) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &[]),
    }
}

/// Decodes the body; `None` when it is truncated.
fn parse(body: &[u8], capabilities: CapabilityFlags) -> Option<Request> {
    let (user, rest) = cstr(body);
    let (auth, rest) = if capabilities.contains(CapabilityFlags::CLIENT_SECURE_CONNECTION) {
        let (&len, rest) = rest.split_first()?;
        let len = usize::from(len);
        (rest.get(..len)?, rest.get(len..)?)
    } else {
        cstr(rest)
    };
    let (database, mut rest) = cstr(rest);
    let mut collation = None;
    if rest.len() >= 2 {
        collation = Some(rest[0]);
        rest = &rest[2..];
    }
    let mut plugin = NATIVE_PASSWORD.to_owned();
    if capabilities.contains(CapabilityFlags::CLIENT_PLUGIN_AUTH) && !rest.is_empty() {
        let (name, _attributes) = cstr(rest);
        if !name.is_empty() {
            plugin = String::from_utf8_lossy(name).into_owned();
        }
    }
    Some(Request {
        user: String::from_utf8_lossy(user).into_owned(),
        auth: auth.to_vec(),
        database: (!database.is_empty()).then(|| String::from_utf8_lossy(database).into_owned()),
        collation,
        plugin,
    })
}

impl<S, H> CommandLoop<'_, S, H>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + crate::stream::BlockingAccess,
    H: SqlSession,
{
    /// Serves one `COM_CHANGE_USER` (see the module documentation).
    pub(crate) async fn change_user(&mut self, body: &[u8]) -> Result<Flow, WireError> {
        let request = parse(body, self.capabilities)
            .ok_or_else(|| WireError::Malformed("COM_CHANGE_USER".into()))?;
        self.close_statements();
        let host = self.info.host.clone();
        if let Some(delay) = self.server.hosts.login_delay(&host) {
            crate::login::pause(self.stream.is_blocking(), delay, self.info).await;
        }
        let session = &mut *self.session;
        let account = match self
            .server
            .call(|| session.lookup_account(&request.user, &host))
        {
            Ok(account) => account,
            Err(err) => return self.refused(&host, err).await,
        };
        let exchange = AuthExchange {
            nonce: &self.opened.nonce,
            user: &request.user,
            host: &host,
            secure: self.info.transport == Transport::Unix || self.opened.tls.is_some(),
            cache: &self.server.auth_cache,
            rsa: self.server.rsa.as_ref(),
            hosts: &self.server.hosts,
        };
        let authenticated = auth::authenticate(
            &mut *self.stream,
            &exchange,
            account,
            &request.plugin,
            request.auth.clone(),
        )
        .await;
        match authenticated {
            Ok(()) => {}
            Err(WireError::AuthFailed(err)) => {
                // The ERR packet is sent (and the host's count taken); the
                // connection stays, reset.
                self.reset_after_failure(&err);
                return Ok(Flow::Continue);
            }
            Err(e) => return Err(e),
        }
        let login = LoginInfo {
            user: request.user.clone(),
            host: host.clone(),
            database: request.database.clone(),
            capabilities: self.capabilities,
            collation: request.collation.unwrap_or(45),
            attributes: HashMap::new(),
            tls: self.opened.tls.clone(),
            transport: self.info.transport,
        };
        let session = &mut *self.session;
        let mut changed = self
            .server
            .call(|| session.change_user(&login))
            .and_then(|r| r);
        if let (Ok(()), Some(db)) = (&changed, &request.database) {
            changed = self.server.call(|| session.init_db(db)).and_then(|r| r);
        }
        match changed {
            Ok(()) => {
                self.server.hosts.login_succeeded(&host);
                self.send_ok().await
            }
            Err(err) => self.refused(&host, err).await,
        }
    }

    /// Sends `err` for a refused change of user and keeps the connection.
    async fn refused(&mut self, host: &str, err: MysqlError) -> Result<Flow, WireError> {
        self.failed(host, &err);
        self.send_err(&err).await
    }

    /// Counts a refused change of user and resets the session.
    fn failed(&mut self, host: &str, err: &MysqlError) {
        if err.code == codes::ER_ACCESS_DENIED_ERROR {
            self.server.hosts.login_failed(host);
        }
        self.reset_after_failure(err);
    }

    /// Tells the session its change of user failed and resets it.
    fn reset_after_failure(&mut self, err: &MysqlError) {
        let session = &mut *self.session;
        let _ = self.server.call(|| session.login_failed(err));
        let _ = self.server.call(|| session.reset_connection());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_decode() {
        let caps = CapabilityFlags::CLIENT_SECURE_CONNECTION | CapabilityFlags::CLIENT_PLUGIN_AUTH;
        let mut body = b"bob\0".to_vec();
        body.push(3);
        body.extend_from_slice(b"abc");
        body.extend_from_slice(b"shop\0");
        body.extend_from_slice(&[45, 0]);
        body.extend_from_slice(b"caching_sha2_password\0");
        let r = parse(&body, caps);
        assert_eq!(
            r,
            Some(Request {
                user: "bob".into(),
                auth: b"abc".to_vec(),
                database: Some("shop".into()),
                collation: Some(45),
                plugin: "caching_sha2_password".into(),
            })
        );
        // Old clients stop after the database.
        let r = parse(b"al\0\0\0", caps).map(|r| (r.user, r.database, r.plugin));
        assert_eq!(r, Some(("al".into(), None, NATIVE_PASSWORD.into())));
        assert_eq!(parse(b"x\0\x09ab", caps), None, "truncated auth data");
    }
}
