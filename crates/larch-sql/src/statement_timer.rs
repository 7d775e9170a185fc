//! Statement time limits: `max_statement_time` (MariaDB's, in seconds, for
//! every statement a client sends, the account's `MAX_STATEMENT_TIME` when
//! the session sets none) and `max_execution_time` (MySQL's, in
//! milliseconds, for read-only SELECT).
//!
//! A statement that has a limit is *armed*: the [`StatementTimer`] keeps its
//! deadline and, once it passes, interrupts the statement the way `KILL
//! QUERY` does (the session's `kill_query` flag, which scans, sorts, lock
//! waits and `SLEEP` check) and records why, so the session reports MariaDB's
//! 1969 or MySQL's 3024 instead of 1317.
//!
//! Invariants:
//! - One thread per [`Database`](crate::database::Database), started with the
//!   first armed statement, waits for the earliest deadline; it holds the
//!   processes weakly, so a closed connection is simply skipped.
//! - Every arm and every disarm takes a fresh token from the process
//!   ([`ProcessEntry::timer_token`]); a deadline fires only while its token
//!   is still the process's, so a deadline left from an earlier statement
//!   (or from before `SET STATEMENT max_statement_time = ... FOR` re-armed
//!   it) never interrupts a later one.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::database::ProcessEntry;
use crate::error::SqlError;

/// Why a statement was interrupted (kept in [`ProcessEntry::interrupted_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Interruption {
    /// `KILL QUERY`, `KILL CONNECTION` or a client that went away: 1317.
    Kill = 0,
    /// `max_statement_time` passed: 1969.
    StatementTime = 1,
    /// `max_execution_time` passed: 3024.
    ExecutionTime = 2,
}

impl Interruption {
    /// Reads the reason a process records.
    pub(crate) fn of(cell: &AtomicU8) -> Interruption {
        match cell.load(Ordering::SeqCst) {
            1 => Interruption::StatementTime,
            2 => Interruption::ExecutionTime,
            _ => Interruption::Kill,
        }
    }

    /// The error a statement interrupted for this reason ends with, given
    /// the error it stopped with: a 1317 of a time limit becomes the limit's
    /// own error; any other error is kept.
    pub(crate) fn error(self, stopped: SqlError) -> SqlError {
        if stopped.code() != 1317 {
            return stopped;
        }
        match self {
            Interruption::Kill => stopped,
            Interruption::StatementTime => SqlError::new(
                1969,
                "Query execution was interrupted (max_statement_time exceeded)",
            ),
            Interruption::ExecutionTime => SqlError::new(
                3024,
                "Query execution was interrupted, maximum statement execution time exceeded",
            ),
        }
    }
}

/// One armed deadline.
struct Deadline {
    at: Instant,
    token: u64,
    why: Interruption,
    process: Weak<ProcessEntry>,
}

/// The fewest queued deadlines at which ended ones are dropped.
const PRUNE_MIN: usize = 1024;

impl Deadline {
    /// True while the statement it was armed for still runs.
    fn is_current(&self) -> bool {
        self.process
            .upgrade()
            .is_some_and(|p| p.timer_token.load(Ordering::SeqCst) == self.token)
    }
}

impl PartialEq for Deadline {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.token == other.token
    }
}
impl Eq for Deadline {}
impl PartialOrd for Deadline {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Deadline {
    /// Reversed, so the heap's top is the earliest deadline.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.at.cmp(&self.at).then(other.token.cmp(&self.token))
    }
}

#[derive(Default)]
struct Pending {
    deadlines: BinaryHeap<Deadline>,
    /// When the heap holds this many deadlines, those of statements that
    /// ended are dropped (a statement's deadline stays queued after it
    /// ends; under a long limit they would pile up).
    prune_at: usize,
    started: bool,
    /// Set when the database closes: the thread ends.
    closed: bool,
}

/// The deadlines of the statements running with a time limit.
#[derive(Default)]
pub struct StatementTimer {
    shared: Arc<(Mutex<Pending>, Condvar)>,
}

impl std::fmt::Debug for StatementTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatementTimer").finish_non_exhaustive()
    }
}

impl StatementTimer {
    /// Interrupts the statement `process` runs under `token` once `limit`
    /// has passed, unless the token changed by then.
    pub(crate) fn arm(
        &self,
        process: &Arc<ProcessEntry>,
        token: u64,
        limit: Duration,
        why: Interruption,
    ) {
        let at = Instant::now().checked_add(limit);
        let Some(at) = at else {
            return;
        };
        let (pending, wake) = &*self.shared;
        let mut p = pending.lock();
        if p.deadlines.len() >= p.prune_at {
            p.deadlines.retain(Deadline::is_current);
            p.prune_at = (p.deadlines.len() * 2).max(PRUNE_MIN);
        }
        p.deadlines.push(Deadline {
            at,
            token,
            why,
            process: Arc::downgrade(process),
        });
        if !p.started {
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new()
                .name("larch-statement-timer".into())
                .spawn(move || run(&shared));
            // Without the thread no deadline fires; the statement runs
            // unlimited rather than failing.
            p.started = spawned.is_ok();
        }
        wake.notify_one();
    }
}

impl Drop for StatementTimer {
    fn drop(&mut self) {
        let (pending, wake) = &*self.shared;
        pending.lock().closed = true;
        wake.notify_one();
    }
}

/// The timer thread: fires each deadline when it comes, until the database
/// closes.
fn run(shared: &(Mutex<Pending>, Condvar)) {
    let (pending, wake) = shared;
    let mut p = pending.lock();
    while !p.closed {
        let now = Instant::now();
        while p.deadlines.peek().is_some_and(|d| d.at <= now) {
            if let Some(due) = p.deadlines.pop() {
                fire(&due);
            }
        }
        match p.deadlines.peek().map(|d| d.at) {
            Some(at) => {
                wake.wait_until(&mut p, at);
            }
            None => wake.wait(&mut p),
        }
    }
}

/// Interrupts the statement a deadline belongs to, if it still runs.
fn fire(due: &Deadline) {
    if !due.is_current() {
        return;
    }
    let Some(process) = due.process.upgrade() else {
        return;
    };
    process
        .interrupted_by
        .store(due.why as u8, Ordering::SeqCst);
    process.kill_query.store(true, Ordering::SeqCst);
    let hook = process.kill_hook.lock();
    if let Some(hook) = hook.as_ref() {
        hook(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::database::ProcessState;
    use std::sync::atomic::{AtomicBool, AtomicU64};

    fn process() -> Arc<ProcessEntry> {
        Arc::new(ProcessEntry {
            id: 1,
            user: "u".into(),
            host: "h".into(),
            started: Instant::now(),
            state: Mutex::new(ProcessState::default()),
            kill_query: Arc::new(AtomicBool::new(false)),
            kill_connection: AtomicBool::new(false),
            interrupted_by: AtomicU8::new(0),
            timer_token: AtomicU64::new(0),
            kill_hook: Mutex::new(None),
            running_write: AtomicBool::new(false),
        })
    }

    #[test]
    fn a_deadline_fires_only_for_its_statement() {
        let timer = StatementTimer::default();
        let p = process();
        // An ended statement's deadline does not stop the next one.
        timer.arm(
            &p,
            1,
            Duration::from_millis(20),
            Interruption::StatementTime,
        );
        p.timer_token.store(2, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(100));
        assert!(!p.kill_query.load(Ordering::SeqCst));
        // The running statement's deadline stops it and says why.
        timer.arm(
            &p,
            2,
            Duration::from_millis(20),
            Interruption::ExecutionTime,
        );
        let waited = Instant::now();
        while !p.kill_query.load(Ordering::SeqCst) && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(p.kill_query.load(Ordering::SeqCst));
        assert_eq!(
            Interruption::of(&p.interrupted_by),
            Interruption::ExecutionTime
        );
        let e = Interruption::ExecutionTime
            .error(SqlError::new(1317, "Query execution was interrupted"));
        assert_eq!(e.code(), 3024);
    }

    #[test]
    fn ended_statements_leave_no_pile_of_deadlines() {
        let timer = StatementTimer::default();
        let p = process();
        // 100,000 statements under a one-hour limit, each ended at once.
        for token in 1..=100_000u64 {
            p.timer_token.store(token, Ordering::SeqCst);
            timer.arm(
                &p,
                token,
                Duration::from_secs(3600),
                Interruption::StatementTime,
            );
        }
        let queued = timer.shared.0.lock().deadlines.len();
        assert!(queued <= 2 * PRUNE_MIN, "{queued} deadlines queued");
    }
}
