//! The connection timeouts, as MariaDB applies them to its sockets:
//! `connect_timeout` for every read and write of the handshake,
//! `wait_timeout` while a connection waits for its next command,
//! `net_read_timeout` for the reads inside a command and
//! `net_write_timeout` for every write after the handshake.
//!
//! [`GlobalTimeouts`] holds the server's values: set from the start-up
//! configuration, changed while the server runs (`SET GLOBAL`, through
//! [`crate::Server::set_timeout`]); a connection reads them at every
//! command, so existing connections follow a change as new ones do.
//! [`SessionTimeouts`] are the values a session set for itself
//! (`SET SESSION net_write_timeout = 5`), which [`crate::SqlSession::timeouts`]
//! reports after every command and which apply to that connection only.
//!
//! Invariant: a limit of `None` means "wait for ever"; the stored form is
//! milliseconds with 0 for `None`, so a value is one relaxed atomic load.
//! Applied to connections served with blocking socket calls
//! ([`crate::blocking`]); the pool's connections follow `wait_timeout` only.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Which timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutKind {
    /// `connect_timeout`: the handshake.
    Connect,
    /// `wait_timeout`: an idle connection waiting for a command.
    Wait,
    /// `net_read_timeout`: a read inside a command.
    NetRead,
    /// `net_write_timeout`: a write.
    NetWrite,
}

/// The values a session set for itself; `None` for each one that follows
/// the server's (global) value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionTimeouts {
    /// The session's `wait_timeout`.
    pub wait: Option<Duration>,
    /// The session's `net_read_timeout`.
    pub net_read: Option<Duration>,
    /// The session's `net_write_timeout`.
    pub net_write: Option<Duration>,
}

/// The timeouts of one command of one connection: the session's values
/// where it set them, the server's otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CommandTimeouts {
    pub(crate) wait: Option<Duration>,
    pub(crate) net_read: Option<Duration>,
    pub(crate) net_write: Option<Duration>,
}

/// The server's timeouts; see the module documentation.
#[derive(Debug, Default)]
pub struct GlobalTimeouts {
    connect: AtomicU64,
    wait: AtomicU64,
    net_read: AtomicU64,
    net_write: AtomicU64,
}

fn to_millis(limit: Option<Duration>) -> u64 {
    match limit {
        // A limit under a millisecond still limits.
        Some(d) => u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1),
        None => 0,
    }
}

fn from_millis(ms: u64) -> Option<Duration> {
    (ms != 0).then(|| Duration::from_millis(ms))
}

impl GlobalTimeouts {
    /// The four values.
    pub(crate) fn new(
        connect: Option<Duration>,
        wait: Option<Duration>,
        net_read: Option<Duration>,
        net_write: Option<Duration>,
    ) -> Self {
        GlobalTimeouts {
            connect: AtomicU64::new(to_millis(connect)),
            wait: AtomicU64::new(to_millis(wait)),
            net_read: AtomicU64::new(to_millis(net_read)),
            net_write: AtomicU64::new(to_millis(net_write)),
        }
    }

    fn slot(&self, kind: TimeoutKind) -> &AtomicU64 {
        match kind {
            TimeoutKind::Connect => &self.connect,
            TimeoutKind::Wait => &self.wait,
            TimeoutKind::NetRead => &self.net_read,
            TimeoutKind::NetWrite => &self.net_write,
        }
    }

    /// The current value of `kind`.
    pub fn get(&self, kind: TimeoutKind) -> Option<Duration> {
        from_millis(self.slot(kind).load(Ordering::Relaxed))
    }

    /// Changes `kind` for the next commands of every connection (and the
    /// next handshakes, for `Connect`).
    pub fn set(&self, kind: TimeoutKind, limit: Option<Duration>) {
        self.slot(kind).store(to_millis(limit), Ordering::Relaxed);
    }

    /// A command's timeouts: `session`'s values, else these.
    pub(crate) fn for_command(&self, session: SessionTimeouts) -> CommandTimeouts {
        CommandTimeouts {
            wait: session.wait.or_else(|| self.get(TimeoutKind::Wait)),
            net_read: session.net_read.or_else(|| self.get(TimeoutKind::NetRead)),
            net_write: session
                .net_write
                .or_else(|| self.get(TimeoutKind::NetWrite)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_values_win_and_global_changes_show() {
        let g = GlobalTimeouts::new(
            Some(Duration::from_secs(10)),
            Some(Duration::from_secs(28_800)),
            Some(Duration::from_secs(30)),
            Some(Duration::from_secs(60)),
        );
        let none = SessionTimeouts::default();
        assert_eq!(g.for_command(none).net_read, Some(Duration::from_secs(30)));
        g.set(TimeoutKind::NetRead, Some(Duration::from_secs(2)));
        g.set(TimeoutKind::Wait, None);
        let t = g.for_command(none);
        assert_eq!(t.net_read, Some(Duration::from_secs(2)));
        assert_eq!(t.wait, None);
        let own = SessionTimeouts {
            net_write: Some(Duration::from_secs(5)),
            ..SessionTimeouts::default()
        };
        let t = g.for_command(own);
        assert_eq!(t.net_write, Some(Duration::from_secs(5)));
        assert_eq!(t.net_read, Some(Duration::from_secs(2)));
        assert_eq!(g.get(TimeoutKind::Connect), Some(Duration::from_secs(10)));
        g.set(TimeoutKind::Connect, Some(Duration::from_micros(10)));
        assert_eq!(g.get(TimeoutKind::Connect), Some(Duration::from_millis(1)));
    }
}
