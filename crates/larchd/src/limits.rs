//! Connection limits counted over logged-in connections, as MariaDB
//! counts them:
//!
//! - [`Slots`]: one per listener group (the main port and the Unix socket
//!   share `max_connections`; `extra_port` has `extra_max_connections`). A
//!   login takes a slot in `on_login`, after authentication, so
//!   connections that never log in take none (they are bounded apart, in
//!   `larch_wire::admission`). Past the limit the login gets ER 1040,
//!   except that an account with SUPER or CONNECTION ADMIN may take one
//!   more (MariaDB's administrator slot).
//! - [`UserConnections`]: per account (user name and host pattern, as
//!   MariaDB keys `USER_CONN` by default): the open connections
//!   (`MAX_USER_CONNECTIONS`, else the global `max_user_connections`:
//!   ER 1226 / ER 1203), and the connections, statements and updating
//!   statements of the current hour (`MAX_CONNECTIONS_PER_HOUR`,
//!   `MAX_QUERIES_PER_HOUR`, `MAX_UPDATES_PER_HOUR`: ER 1226), reset an hour
//!   after they started counting, or by FLUSH USER_RESOURCES. The order of
//!   the checks and the counting follow MariaDB's
//!   `check_for_max_user_connections` and `check_mqh`.
//!
//! Invariant: a [`SlotGuard`] / [`UserGuard`] gives back exactly what it
//! took, when the session ends or changes user.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use larch_sql::error::SqlError;
use larch_sql::privileges::options::AccountLimits;
use larch_wire::MysqlError;
use parking_lot::Mutex;

/// How long the per-hour counts run before they start again.
const HOUR: Duration = Duration::from_secs(3600);

/// Logged-in connections of the whole server, every listener group
/// together (`Max_used_connections`).
#[derive(Debug, Default)]
pub struct Usage {
    used: AtomicUsize,
    peak: AtomicUsize,
}

impl Usage {
    /// The most connections logged in at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

/// Logged-in connections of one listener group.
#[derive(Debug)]
pub struct Slots {
    max: AtomicUsize,
    used: AtomicUsize,
    usage: Arc<Usage>,
}

impl Slots {
    /// A group of `max` connections, counted also in `usage`.
    pub fn new(max: usize, usage: Arc<Usage>) -> Arc<Slots> {
        Arc::new(Slots {
            max: AtomicUsize::new(max),
            used: AtomicUsize::new(0),
            usage,
        })
    }

    /// Changes the limit (`SET GLOBAL extra_max_connections`); connections
    /// over it stay.
    pub fn set_max(&self, max: usize) {
        self.max.store(max, Ordering::Relaxed);
    }

    /// Takes a slot (ER 1040 past the limit; an administrator may take
    /// one more).
    pub fn take(self: &Arc<Self>, admin: bool) -> Result<SlotGuard, MysqlError> {
        let n = self.used.fetch_add(1, Ordering::SeqCst) + 1;
        let total = self.usage.used.fetch_add(1, Ordering::SeqCst) + 1;
        let guard = SlotGuard(self.clone());
        if n > self.max.load(Ordering::Relaxed) + usize::from(admin) {
            return Err(MysqlError::too_many_connections());
        }
        self.usage.peak.fetch_max(total, Ordering::Relaxed);
        Ok(guard)
    }
}

/// A taken slot, given back on drop.
#[derive(Debug)]
pub struct SlotGuard(Arc<Slots>);

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.0.used.fetch_sub(1, Ordering::SeqCst);
        self.0.usage.used.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One account's counts.
#[derive(Debug)]
struct Counts {
    connections: u32,
    hour_started: Instant,
    connections_this_hour: u32,
    queries_this_hour: u32,
    updates_this_hour: u32,
}

impl Counts {
    /// Starts the hour again once it is over.
    fn roll(&mut self, now: Instant) {
        if now.duration_since(self.hour_started) >= HOUR {
            self.hour_started = now;
            self.connections_this_hour = 0;
            self.queries_this_hour = 0;
            self.updates_this_hour = 0;
        }
    }
}

/// Per-account connection counts; see the module documentation.
#[derive(Debug, Default)]
pub struct UserConnections {
    /// The global `max_user_connections` (0: none; -1: no account without
    /// its own limit may log in).
    pub global_max: AtomicI64,
    accounts: Mutex<HashMap<(String, String), Counts>>,
}

impl UserConnections {
    /// Counts a login of the account `(user, host)` (`name` as errors show
    /// it), or refuses it with ER 1203 / ER 1226.
    pub fn login(
        self: &Arc<Self>,
        key: (String, String),
        limits: AccountLimits,
        admin: bool,
    ) -> Result<UserGuard, MysqlError> {
        let now = Instant::now();
        let mut accounts = self.accounts.lock();
        let counts = accounts.entry(key.clone()).or_insert_with(|| Counts {
            connections: 0,
            hour_started: now,
            connections_this_hour: 0,
            queries_this_hour: 0,
            updates_this_hour: 0,
        });
        counts.connections += 1;
        let guard = UserGuard {
            users: self.clone(),
            key: key.clone(),
            limits,
        };
        let user = key.0.as_str();
        let global = self.global_max.load(Ordering::Relaxed);
        if global != 0
            && limits.user_connections == 0
            && i64::from(counts.connections) > global
            && !admin
        {
            drop(accounts);
            return Err(MysqlError::too_many_user_connections(user));
        }
        counts.roll(now);
        if limits.user_connections != 0
            && i64::from(limits.user_connections) < i64::from(counts.connections)
        {
            drop(accounts);
            return Err(MysqlError::user_limit_reached(
                user,
                "max_user_connections",
                i64::from(limits.user_connections),
            ));
        }
        if limits.connections_per_hour != 0
            && limits.connections_per_hour <= counts.connections_this_hour
        {
            drop(accounts);
            return Err(MysqlError::user_limit_reached(
                user,
                "max_connections_per_hour",
                i64::from(limits.connections_per_hour),
            ));
        }
        counts.connections_this_hour += 1;
        Ok(guard)
    }

    /// FLUSH USER_RESOURCES: the per-hour counts start again.
    pub fn flush(&self) {
        let now = Instant::now();
        for counts in self.accounts.lock().values_mut() {
            counts.hour_started = now;
            counts.connections_this_hour = 0;
            counts.queries_this_hour = 0;
            counts.updates_this_hour = 0;
        }
    }
}

/// An account's counted connection; also checks its statements.
#[derive(Debug)]
pub struct UserGuard {
    users: Arc<UserConnections>,
    key: (String, String),
    limits: AccountLimits,
}

impl UserGuard {
    /// True when the account has a per-hour statement limit (then every
    /// statement goes through [`UserGuard::statement`]).
    pub fn limits_statements(&self) -> bool {
        self.limits.queries_per_hour != 0 || self.limits.updates_per_hour != 0
    }

    /// Counts a statement (`writes`: it changes data), or refuses it with
    /// ER 1226, as MariaDB's `check_mqh`.
    pub fn statement(&self, writes: bool) -> Result<(), SqlError> {
        let mut accounts = self.users.accounts.lock();
        let Some(counts) = accounts.get_mut(&self.key) else {
            return Ok(());
        };
        counts.roll(Instant::now());
        let limit = |resource: &str, value: u32| {
            let e = MysqlError::user_limit_reached(&self.key.0, resource, i64::from(value));
            SqlError::new(e.code, e.message)
        };
        if self.limits.queries_per_hour != 0 {
            let before = counts.queries_this_hour;
            counts.queries_this_hour = before.saturating_add(1);
            if before >= self.limits.queries_per_hour {
                return Err(limit("max_queries_per_hour", self.limits.queries_per_hour));
            }
        }
        if writes && self.limits.updates_per_hour != 0 {
            let before = counts.updates_this_hour;
            counts.updates_this_hour = before.saturating_add(1);
            if before >= self.limits.updates_per_hour {
                return Err(limit("max_updates_per_hour", self.limits.updates_per_hour));
            }
        }
        Ok(())
    }
}

impl Drop for UserGuard {
    fn drop(&mut self) {
        let mut accounts = self.users.accounts.lock();
        if let Some(counts) = accounts.get_mut(&self.key) {
            counts.connections = counts.connections.saturating_sub(1);
            // An account with no connection and nothing counted this hour
            // is forgotten.
            if counts.connections == 0 && counts.connections_this_hour == 0 {
                accounts.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_admin_slot_and_the_limit() {
        let usage = Arc::new(Usage::default());
        let slots = Slots::new(1, usage.clone());
        let extra = Slots::new(1, usage.clone());
        let a = slots.take(false);
        assert!(a.is_ok());
        assert_eq!(slots.take(false).map(|_| ()).map_err(|e| e.code), Err(1040));
        let admin = slots.take(true);
        assert!(admin.is_ok());
        assert_eq!(slots.take(true).map(|_| ()).map_err(|e| e.code), Err(1040));
        drop(admin);
        let on_extra = extra.take(false);
        assert!(on_extra.is_ok(), "the extra group has its own limit");
        drop(on_extra);
        drop(a);
        assert_eq!(slots.used.load(Ordering::Relaxed), 0);
        assert_eq!(usage.used.load(Ordering::Relaxed), 0);
        assert_eq!(usage.peak(), 2, "refused logins are not counted");
    }

    #[test]
    fn user_limits_as_mariadb_counts_them() {
        let users = Arc::new(UserConnections::default());
        let key = ("lim".to_owned(), "%".to_owned());
        let limits = AccountLimits {
            user_connections: 1,
            connections_per_hour: 2,
            queries_per_hour: 2,
            updates_per_hour: 1,
            ..AccountLimits::default()
        };
        let first = users.login(key.clone(), limits, false);
        assert!(first.is_ok());
        let second = users.login(key.clone(), limits, false).map(|_| ());
        assert_eq!(
            second.map_err(|e| e.message),
            Err(
                "User 'lim' has exceeded the 'max_user_connections' resource (current value: 1)"
                    .to_owned()
            )
        );
        let Ok(first) = first else { return };
        assert!(first.statement(true).is_ok());
        assert_eq!(first.statement(true).map_err(|e| e.code()), Err(1226));
        assert!(first.statement(false).is_err(), "third statement of two");
        drop(first);
        // The per-hour connection count stays after the disconnect.
        assert!(users.login(key.clone(), limits, false).is_ok());
        users.global_max.store(1, Ordering::Relaxed);
        let other = ("o".to_owned(), "%".to_owned());
        let _one = users.login(other.clone(), AccountLimits::default(), false);
        let two = users.login(other.clone(), AccountLimits::default(), false);
        assert_eq!(two.map(|_| ()).map_err(|e| e.code), Err(1203));
        assert!(users.login(other, AccountLimits::default(), true).is_ok());
    }
}
