//! What the server remembers of client hosts between connections: the
//! consecutive connection errors behind `max_connect_errors` (MariaDB's
//! host cache) and the consecutive failed logins behind the login delay (in
//! the spirit of MySQL's `connection_control` plugin).
//!
//! - A *connection error* is a handshake that did not end in a login
//!   attempt: the client closed or timed out before its handshake response,
//!   sent a malformed one, or failed the TLS handshake (MariaDB's
//!   `COUNT_HANDSHAKE_ERRORS`; wrong passwords do not count). A host with
//!   `max_connect_errors` of them in a row is refused with ER 1129
//!   (`ER_HOST_IS_BLOCKED`) before the greeting, until FLUSH HOSTS
//!   ([`HostGuard::flush`]). As in MariaDB, the loopback addresses
//!   `127.0.0.1` and `::1` and Unix-socket clients are never blocked.
//! - A *failed login* is an authentication refused with ER 1045. From the
//!   `threshold`-th consecutive failure of a host on, each further login
//!   from it (successful or not) first waits `(failures - threshold + 1) *
//!   min_delay`, at most `max_delay`; every host is subject to it.
//! - A successful login forgets the host (both counts).
//!
//! The table is bounded ([`MAX_HOSTS`]): past it, the entries without a
//! block are dropped.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Hosts remembered at most.
pub const MAX_HOSTS: usize = 100_000;

#[derive(Debug, Default, Clone, Copy)]
struct Entry {
    connect_errors: u64,
    failed_logins: u64,
}

/// See the module documentation.
#[derive(Debug)]
pub struct HostGuard {
    max_connect_errors: AtomicU64,
    threshold: AtomicU64,
    min_delay_ms: AtomicU64,
    max_delay_ms: AtomicU64,
    /// Logins delayed so far (`Connection_control_delay_generated`).
    delays: AtomicU64,
    entries: Mutex<HashMap<String, Entry>>,
}

impl Default for HostGuard {
    fn default() -> Self {
        HostGuard {
            max_connect_errors: AtomicU64::new(100),
            threshold: AtomicU64::new(3),
            min_delay_ms: AtomicU64::new(1000),
            max_delay_ms: AtomicU64::new(2_147_483_647),
            delays: AtomicU64::new(0),
            entries: Mutex::new(HashMap::new()),
        }
    }
}

/// Hosts that are never blocked: Unix sockets and the loopback addresses
/// MariaDB exempts.
fn exempt(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1" | "::ffff:127.0.0.1")
}

impl HostGuard {
    /// `max_connect_errors` (at least 1).
    pub fn set_max_connect_errors(&self, n: u64) {
        self.max_connect_errors.store(n.max(1), Ordering::Relaxed);
    }

    /// `connection_control_failed_connections_threshold` (0: no delay).
    pub fn set_threshold(&self, n: u64) {
        self.threshold.store(n, Ordering::Relaxed);
    }

    /// `connection_control_min_connection_delay` and `..._max_...`, in
    /// milliseconds.
    pub fn set_delays(&self, min_ms: Option<u64>, max_ms: Option<u64>) {
        if let Some(n) = min_ms {
            self.min_delay_ms.store(n, Ordering::Relaxed);
        }
        if let Some(n) = max_ms {
            self.max_delay_ms.store(n, Ordering::Relaxed);
        }
    }

    /// Logins delayed so far.
    pub fn delays_generated(&self) -> u64 {
        self.delays.load(Ordering::Relaxed)
    }

    /// True when `host` is blocked (ER 1129).
    pub fn is_blocked(&self, host: &str) -> bool {
        if exempt(host) {
            return false;
        }
        let max = self.max_connect_errors.load(Ordering::Relaxed);
        self.entries
            .lock()
            .get(host)
            .is_some_and(|e| e.connect_errors >= max)
    }

    fn update(&self, host: &str, f: impl FnOnce(&mut Entry)) {
        let mut entries = self.entries.lock();
        if entries.len() >= MAX_HOSTS && !entries.contains_key(host) {
            let max = self.max_connect_errors.load(Ordering::Relaxed);
            entries.retain(|_, e| e.connect_errors >= max);
        }
        f(entries.entry(host.to_owned()).or_default());
    }

    /// A handshake from `host` failed before a login was attempted.
    pub fn connect_error(&self, host: &str) {
        if !exempt(host) {
            self.update(host, |e| e.connect_errors += 1);
        }
    }

    /// A login from `host` was refused with ER 1045.
    pub fn login_failed(&self, host: &str) {
        self.update(host, |e| e.failed_logins += 1);
    }

    /// A login from `host` succeeded: forget it.
    pub fn login_succeeded(&self, host: &str) {
        let mut entries = self.entries.lock();
        if !entries.is_empty() {
            entries.remove(host);
        }
    }

    /// How long the next login from `host` waits before its
    /// authentication (`None`: not at all); counted as generated.
    pub fn login_delay(&self, host: &str) -> Option<Duration> {
        let threshold = self.threshold.load(Ordering::Relaxed);
        if threshold == 0 {
            return None;
        }
        let failures = {
            let entries = self.entries.lock();
            entries.get(host)?.failed_logins
        };
        if failures < threshold {
            return None;
        }
        let steps = failures - threshold + 1;
        let min = self.min_delay_ms.load(Ordering::Relaxed);
        let max = self.max_delay_ms.load(Ordering::Relaxed).max(min);
        self.delays.fetch_add(1, Ordering::Relaxed);
        Some(Duration::from_millis(steps.saturating_mul(min).min(max)))
    }

    /// FLUSH HOSTS: forgets every host (unblocks them, ends the delays).
    pub fn flush(&self) {
        self.entries.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_after_max_errors_until_flush_or_success() {
        let g = HostGuard::default();
        g.set_max_connect_errors(3);
        for _ in 0..2 {
            g.connect_error("10.0.0.1");
        }
        assert!(!g.is_blocked("10.0.0.1"));
        g.login_succeeded("10.0.0.1");
        for _ in 0..3 {
            g.connect_error("10.0.0.1");
            g.connect_error("127.0.0.1");
        }
        assert!(g.is_blocked("10.0.0.1"));
        assert!(!g.is_blocked("127.0.0.1"), "loopback is exempt");
        assert!(!g.is_blocked("10.0.0.2"));
        g.flush();
        assert!(!g.is_blocked("10.0.0.1"));
    }

    #[test]
    fn delays_grow_from_the_threshold_and_are_capped() {
        let g = HostGuard::default();
        g.set_threshold(2);
        g.set_delays(Some(100), Some(250));
        g.login_failed("h");
        assert_eq!(g.login_delay("h"), None);
        g.login_failed("h");
        assert_eq!(g.login_delay("h"), Some(Duration::from_millis(100)));
        g.login_failed("h");
        assert_eq!(g.login_delay("h"), Some(Duration::from_millis(200)));
        g.login_failed("h");
        assert_eq!(g.login_delay("h"), Some(Duration::from_millis(250)));
        g.login_succeeded("h");
        assert_eq!(g.login_delay("h"), None);
        assert_eq!(g.delays_generated(), 3);
    }
}
