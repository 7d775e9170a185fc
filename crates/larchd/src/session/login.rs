//! The checks of a login and the session it starts (see the `session`
//! module documentation): `require_secure_transport`, the account's
//! `REQUIRE`, the listener group's slot, the account's limits, then the
//! session with its kill, client-gone and statement hooks.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use larch_sql::privileges::options::LoginTls;
use larch_wire::{CapabilityFlags, LoginInfo, MysqlError, SessionTimeouts, Transport};

use super::{normalize_host, Connection};
use crate::convert::mysql_error;

impl Connection {
    /// The checks of a login and its session (see the module
    /// documentation); `take_slot` is false for a change of user.
    pub(super) fn start(&mut self, login: &LoginInfo, take_slot: bool) -> Result<(), MysqlError> {
        let host = normalize_host(&login.host);
        let Some(account) = self.shared.db.login_account(&login.user, host) else {
            return Err(MysqlError::access_denied(&login.user, host, false));
        };
        // The password was checked: one was used exactly when the account
        // has one. MariaDB refuses a plain TCP login under
        // `require_secure_transport` with 1045, as a failed REQUIRE.
        let denied = || MysqlError::access_denied(&login.user, host, !account.auth.is_empty());
        let secure = login.tls.is_some() || login.transport == Transport::Unix;
        if !secure && self.shared.require_secure_transport.load(Ordering::Relaxed) {
            return Err(denied());
        }
        let tls = LoginTls {
            unix_socket: login.transport == Transport::Unix,
            cipher: login.tls.as_ref().map(|t| t.cipher.clone()),
            peer: login.tls.as_ref().and_then(|t| t.peer.clone()),
        };
        if !account.options.tls.check(&tls) {
            return Err(denied());
        }
        if take_slot {
            self.slot = Some(self.slots.take(account.admin)?);
        }
        let user = self.shared.users.login(
            (account.user.clone(), account.host.clone()),
            account.options.limits,
            account.admin,
        )?;
        self.user = Some(Arc::new(user));
        self.start_session(login)?;
        // The account's MAX_STATEMENT_TIME is the session's
        // max_statement_time, as in MariaDB.
        if let Some(session) = self.session.as_mut() {
            session.take_account_statement_time(account.options.limits.statement_time_us);
        }
        Ok(())
    }

    /// Creates the session of `login` and its hooks.
    pub(super) fn start_session(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        let mut session = self
            .shared
            .db
            .new_session(u64::from(self.id), &login.user, normalize_host(&login.host))
            .map_err(|e| mysql_error(&e))?;
        session.client_found_rows = login
            .capabilities
            .contains(CapabilityFlags::CLIENT_FOUND_ROWS);
        if let Some(tls) = &login.tls {
            session.ssl_version = tls.version.clone();
            session.ssl_cipher = tls.cipher.clone();
        }
        let control = self.control.clone();
        session.set_kill_hook(Box::new(move |query_only| {
            if query_only {
                control.kill_query();
            } else {
                control.kill_connection();
            }
        }));
        // The client went away during a statement: kill it (1317 at its
        // next check) and the connection.
        let (db, id) = (self.shared.db.clone(), u64::from(self.id));
        self.control.set_gone_hook(Box::new(move || {
            let _ = db.kill(id, false);
        }));
        if let Some(user) = self.user.clone().filter(|u| u.limits_statements()) {
            session.statement_hook = Some(Box::new(move |writes| user.statement(writes)));
        }
        // Commits answer the client once their log sync is done, awaited on
        // the connection's task (`durability`), not on a parked thread.
        session.defer_durability(true);
        self.session = Some(session);
        self.login = Some(login.clone());
        self.timeouts = (None, SessionTimeouts::default());
        Ok(())
    }
}
