//! Connections that have not logged in yet: bounded apart from the logged-in
//! ones, so that clients which connect and then send nothing cannot keep
//! one that authenticates out.
//!
//! Every connection registers here from its greeting until its login ends
//! (in success or failure), through a [`Ticket`]. Two limits hold, both
//! dynamic ([`Admission::set_limits`]):
//!
//! - at most `total` connections in the handshake phase at once;
//! - at most `per_host` of them from one client host.
//!
//! A newcomer is always let in: when it goes over a limit, the *oldest*
//! connection still in the handshake phase (from the same host, for the
//! per-host limit) is closed instead ([`ConnectionControl::kill_connection`]
//! shuts its socket down; its thread sees end-of-file). A client that
//! authenticates needs its connection only for a few round trips, so only a
//! flood of `per_host` new connections within those milliseconds could
//! push it out, and a flood from one host never touches other hosts'
//! handshakes. Each connection is also bounded in time by
//! `connect_timeout` ([`crate::timeouts`]).
//!
//! Invariant: an entry exists exactly while its ticket lives and it was not
//! evicted; `by_host` counts the entries of each host.

use crate::session::ConnectionControl;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Default of the total limit.
pub const DEFAULT_MAX_HANDSHAKES: usize = 1000;
/// Default of the per-host limit.
pub const DEFAULT_MAX_HANDSHAKES_PER_HOST: usize = 100;

/// The registry of connections in the handshake phase; see the module
/// documentation.
#[derive(Debug)]
pub struct Admission {
    total: AtomicUsize,
    per_host: AtomicUsize,
    /// Connections closed to make room (`Aborted_connects` counts them
    /// too, when their handshake fails).
    evicted: AtomicU64,
    next: AtomicU64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// In arrival order.
    pending: VecDeque<Pending>,
    by_host: HashMap<String, usize>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("pending", &self.pending.len())
            .finish()
    }
}

struct Pending {
    seq: u64,
    host: String,
    control: Arc<ConnectionControl>,
}

impl Default for Admission {
    fn default() -> Self {
        Admission::new(DEFAULT_MAX_HANDSHAKES, DEFAULT_MAX_HANDSHAKES_PER_HOST)
    }
}

impl Admission {
    /// A registry with the given limits (0 is taken as 1).
    pub fn new(total: usize, per_host: usize) -> Admission {
        Admission {
            total: AtomicUsize::new(total.max(1)),
            per_host: AtomicUsize::new(per_host.max(1)),
            evicted: AtomicU64::new(0),
            next: AtomicU64::new(1),
            state: Mutex::new(State::default()),
        }
    }

    /// Changes the limits; they apply from the next connection on.
    pub fn set_limits(&self, total: usize, per_host: usize) {
        self.total.store(total.max(1), Ordering::Relaxed);
        self.per_host.store(per_host.max(1), Ordering::Relaxed);
    }

    /// Connections in the handshake phase now.
    pub fn pending(&self) -> usize {
        self.state.lock().pending.len()
    }

    /// Connections closed so far to make room for newer ones.
    pub fn evicted(&self) -> u64 {
        self.evicted.load(Ordering::Relaxed)
    }

    /// Registers a connection from `host` entering the handshake, closing
    /// the oldest ones beyond the limits.
    pub fn admit(&self, host: &str, control: Arc<ConnectionControl>) -> Ticket<'_> {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let mut victims = Vec::new();
        {
            let mut st = self.state.lock();
            st.pending.push_back(Pending {
                seq,
                host: host.to_owned(),
                control,
            });
            let count = {
                let c = st.by_host.entry(host.to_owned()).or_insert(0);
                *c += 1;
                *c
            };
            if count > self.per_host.load(Ordering::Relaxed) {
                if let Some(i) = st.pending.iter().position(|p| p.host == host) {
                    victims.extend(st.remove_at(i));
                }
            }
            while st.pending.len() > self.total.load(Ordering::Relaxed) {
                victims.extend(st.remove_at(0));
            }
        }
        for v in victims {
            self.evicted.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(host = %v.host, "closing the oldest unauthenticated connection");
            v.control.kill_connection();
        }
        Ticket {
            admission: self,
            seq,
        }
    }
}

impl State {
    fn remove_at(&mut self, i: usize) -> Option<Pending> {
        let p = self.pending.remove(i)?;
        if let Some(c) = self.by_host.get_mut(&p.host) {
            *c -= 1;
            if *c == 0 {
                self.by_host.remove(&p.host);
            }
        }
        Some(p)
    }
}

/// A connection's place in the handshake phase; dropping it (at the end of
/// the login) frees the place.
#[derive(Debug)]
pub struct Ticket<'a> {
    admission: &'a Admission,
    seq: u64,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let mut st = self.admission.state.lock();
        if let Some(i) = st.pending.iter().position(|p| p.seq == self.seq) {
            st.remove_at(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_of_a_host_makes_room_and_others_stay() {
        let a = Admission::new(10, 2);
        let c: Vec<Arc<ConnectionControl>> = (0..4).map(|_| Arc::default()).collect();
        let t0 = a.admit("10.0.0.1", c[0].clone());
        let _t1 = a.admit("10.0.0.2", c[1].clone());
        let _t2 = a.admit("10.0.0.1", c[2].clone());
        assert!(!c[0].connection_killed());
        let _t3 = a.admit("10.0.0.1", c[3].clone());
        assert!(c[0].connection_killed(), "the oldest of the host goes");
        assert!(!c[1].connection_killed() && !c[2].connection_killed());
        assert_eq!(a.pending(), 3);
        drop(t0);
        assert_eq!(a.pending(), 3, "an evicted ticket frees nothing twice");
        assert_eq!(a.evicted(), 1);
    }

    #[test]
    fn the_total_limit_closes_the_oldest() {
        let a = Admission::new(2, 10);
        let c: Vec<Arc<ConnectionControl>> = (0..3).map(|_| Arc::default()).collect();
        let tickets: Vec<_> = c
            .iter()
            .enumerate()
            .map(|(i, c)| a.admit(&format!("h{i}"), c.clone()))
            .collect();
        assert!(c[0].connection_killed());
        assert!(!c[2].connection_killed());
        drop(tickets);
        assert_eq!(a.pending(), 0);
    }
}
