//! The lock of one table name: its lock modes, the 64-bit lock word that
//! counts their holders, and waiting for a mode with a deadline.
//!
//! Word layout (low bits first): holders of [`Mode::SharedRead`] (24 bits),
//! of [`Mode::SharedWrite`] (20 bits), of [`Mode::ReadOnly`] (12 bits), then
//! one bit each for a granted [`Mode::NoReadWrite`] and [`Mode::Exclusive`],
//! one for [`Mode::SharedUpgradable`] (bit 60), and two *pending* bits: a strong request (NoReadWrite or Exclusive) waits,
//! a ReadOnly request waits. The numbers of such waiters are kept under the
//! waiters' mutex, which is also what sets and clears the pending bits.
//!
//! Granting a mode is one compare-and-swap of the word when nothing blocks
//! it; releasing it is one atomic subtraction, followed by a wake-up only when
//! a pending bit says someone may wait for exactly that count to drain. A
//! full counter makes the request wait, as if the table were busy.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::database::ProcessEntry;
use crate::error::{code, SqlError};

const SR_ONE: u64 = 1;
const SR_MASK: u64 = (1 << 24) - 1;
const SW_ONE: u64 = 1 << 24;
const SW_MASK: u64 = ((1 << 20) - 1) << 24;
const RO_ONE: u64 = 1 << 44;
const RO_MASK: u64 = ((1 << 12) - 1) << 44;
const NO_READ_WRITE: u64 = 1 << 56;
const EXCLUSIVE: u64 = 1 << 57;
/// A NoReadWrite or Exclusive request waits.
const PENDING_STRONG: u64 = 1 << 58;
/// A ReadOnly request waits.
const PENDING_READ_ONLY: u64 = 1 << 59;
const SHARED_UPGRADABLE: u64 = 1 << 60;
const HELD: u64 = SR_MASK | SW_MASK | RO_MASK | NO_READ_WRITE | EXCLUSIVE | SHARED_UPGRADABLE;
/// How often a waiter checks its deadline and the KILL flag.
const WAIT_TICK: Duration = Duration::from_millis(100);
/// The processlist state of a waiting connection, as MySQL shows it.
pub(crate) const WAIT_STATE: &str = "Waiting for table metadata lock";

/// The metadata lock modes (MySQL's names in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Mode {
    /// A statement reads the table (SHARED_READ); also `LOCK TABLES ...
    /// READ LOCAL`, which lets other sessions write (InnoDB).
    SharedRead,
    /// A statement writes the table (SHARED_WRITE).
    SharedWrite,
    /// `LOCK TABLES ... READ` (SHARED_READ_ONLY): nobody writes the table.
    ReadOnly,
    /// `LOCK TABLES ... WRITE` (SHARED_NO_READ_WRITE): nobody else uses it.
    NoReadWrite,
    /// DDL (EXCLUSIVE).
    Exclusive,
    /// An online ALTER between its exclusive moments (SHARED_UPGRADABLE):
    /// others read and write the table, no other DDL or LOCK TABLES WRITE
    /// gets it. Only reached from Exclusive ([`TableLock::downgrade`]).
    SharedUpgradable,
}

impl Mode {
    /// The word's unit for one holder of this mode.
    fn one(self) -> u64 {
        match self {
            Mode::SharedRead => SR_ONE,
            Mode::SharedWrite => SW_ONE,
            Mode::ReadOnly => RO_ONE,
            Mode::NoReadWrite => NO_READ_WRITE,
            Mode::Exclusive => EXCLUSIVE,
            Mode::SharedUpgradable => SHARED_UPGRADABLE,
        }
    }

    /// This mode's holder count (or bit) in the word.
    fn mask(self) -> u64 {
        match self {
            Mode::SharedRead => SR_MASK,
            Mode::SharedWrite => SW_MASK,
            Mode::ReadOnly => RO_MASK,
            Mode::NoReadWrite => NO_READ_WRITE,
            Mode::Exclusive => EXCLUSIVE,
            Mode::SharedUpgradable => SHARED_UPGRADABLE,
        }
    }

    /// Granted modes this one cannot be granted with.
    fn conflicts(self) -> u64 {
        match self {
            Mode::SharedRead => NO_READ_WRITE | EXCLUSIVE,
            Mode::SharedWrite => RO_MASK | NO_READ_WRITE | EXCLUSIVE,
            Mode::ReadOnly => SW_MASK | NO_READ_WRITE | EXCLUSIVE,
            Mode::NoReadWrite | Mode::Exclusive => HELD,
            Mode::SharedUpgradable => SHARED_UPGRADABLE | NO_READ_WRITE | EXCLUSIVE,
        }
    }

    /// Pending requests that keep a new request of this mode out (unless
    /// its session already holds metadata locks): the waiting request would
    /// otherwise starve behind a stream of short statements.
    fn yields_to(self) -> u64 {
        match self {
            Mode::SharedRead | Mode::ReadOnly => PENDING_STRONG,
            Mode::SharedWrite => PENDING_STRONG | PENDING_READ_ONLY,
            Mode::NoReadWrite | Mode::Exclusive | Mode::SharedUpgradable => 0,
        }
    }

    /// The pending bit a waiting request of this mode sets (0: none).
    fn pending_bit(self) -> u64 {
        match self {
            Mode::ReadOnly => PENDING_READ_ONLY,
            Mode::NoReadWrite | Mode::Exclusive => PENDING_STRONG,
            Mode::SharedRead | Mode::SharedWrite | Mode::SharedUpgradable => 0,
        }
    }

    /// True when holding `self` gives everything `other` gives the holder.
    pub(crate) fn covers(self, other: Mode) -> bool {
        match self {
            Mode::SharedRead => other == Mode::SharedRead,
            Mode::SharedWrite => matches!(other, Mode::SharedRead | Mode::SharedWrite),
            Mode::ReadOnly => matches!(other, Mode::SharedRead | Mode::ReadOnly),
            Mode::SharedUpgradable => {
                matches!(
                    other,
                    Mode::SharedRead | Mode::SharedWrite | Mode::SharedUpgradable
                )
            }
            Mode::NoReadWrite | Mode::Exclusive => true,
        }
    }

    /// True when other sessions cannot hold the table at all.
    pub(crate) fn is_exclusive(self) -> bool {
        matches!(self, Mode::NoReadWrite | Mode::Exclusive)
    }
}

/// Numbers of waiting requests that set a pending bit.
#[derive(Debug, Default)]
struct Waiting {
    strong: u32,
    read_only: u32,
}

/// The lock of one table name.
#[derive(Debug)]
pub(crate) struct TableLock {
    pub(super) db: String,
    pub(super) table: String,
    pub(super) word: AtomicU64,
    waiting: Mutex<Waiting>,
    changed: Condvar,
}

impl TableLock {
    pub(super) fn new(db: &str, table: &str) -> TableLock {
        TableLock {
            db: db.to_owned(),
            table: table.to_owned(),
            word: AtomicU64::new(0),
            waiting: Mutex::new(Waiting::default()),
            changed: Condvar::new(),
        }
    }

    pub(crate) fn is(&self, db: &str, table: &str) -> bool {
        self.db == db && self.table == table
    }

    /// Grants `mode` if nothing blocks it now; `bypass` ignores pending
    /// requests (the session holds other locks, or the request waited).
    pub(super) fn try_grant(&self, mode: Mode, bypass: bool) -> bool {
        let blockers = mode.conflicts() | if bypass { 0 } else { mode.yields_to() };
        let (one, mask) = (mode.one(), mode.mask());
        let mut w = self.word.load(Ordering::Acquire);
        loop {
            if w & blockers != 0 || w & mask == mask {
                return false;
            }
            match self
                .word
                .compare_exchange_weak(w, w + one, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    /// Releases one holder of `mode`, waking waiters that may now go.
    pub(super) fn release(&self, mode: Mode) {
        let after = self.word.fetch_sub(mode.one(), Ordering::AcqRel) - mode.one();
        let wake = match mode {
            Mode::SharedRead | Mode::SharedWrite => {
                after & mode.mask() == 0 && after & (PENDING_STRONG | PENDING_READ_ONLY) != 0
            }
            // Shared requests may wait for these without a pending bit.
            Mode::ReadOnly | Mode::NoReadWrite | Mode::Exclusive | Mode::SharedUpgradable => true,
        };
        if wake {
            self.wake();
        }
    }

    /// Number of locks held on the table, in all modes.
    pub(crate) fn in_use(&self) -> u64 {
        let w = self.word.load(Ordering::Acquire);
        [
            Mode::SharedRead,
            Mode::SharedWrite,
            Mode::ReadOnly,
            Mode::NoReadWrite,
            Mode::Exclusive,
            Mode::SharedUpgradable,
        ]
        .iter()
        .map(|m| (w & m.mask()) / m.one())
        .sum()
    }

    /// True while a waiting request has set a pending bit.
    #[cfg(test)]
    pub(super) fn is_pending(&self) -> bool {
        self.word.load(Ordering::Acquire) & (PENDING_STRONG | PENDING_READ_ONLY) != 0
    }

    /// Wakes every waiter. Taking the mutex orders this after a waiter's
    /// check of the lock word (which it makes holding the mutex).
    pub(super) fn wake(&self) {
        let _guard = self.waiting.lock();
        self.changed.notify_all();
    }

    /// Waits until `mode` is granted, the deadline passes (1205) or the
    /// statement is killed (1317). A waiting NoReadWrite, Exclusive or
    /// ReadOnly request sets its pending bit while it waits.
    pub(super) fn wait(&self, mode: Mode, bypass: bool, until: &WaitLimit) -> Result<(), SqlError> {
        let bypass = bypass || mode.pending_bit() != 0;
        self.wait_for(mode, || self.try_grant(mode, bypass), until)
    }

    /// Lets go of the exclusive hold of this session's DDL down to `to`
    /// (SharedUpgradable: others read and write; ReadOnly: others read),
    /// so that they run while the DDL works; [`upgrade`](Self::upgrade)
    /// takes it back.
    pub(crate) fn downgrade(&self, to: Mode) {
        self.word.fetch_add(to.one(), Ordering::AcqRel);
        self.word.fetch_sub(EXCLUSIVE, Ordering::AcqRel);
        self.wake();
    }

    /// Turns the hold `from` (given by [`downgrade`](Self::downgrade)) back
    /// into Exclusive once every other holder has gone, waiting as an
    /// Exclusive request does (new statements yield to it). On an error
    /// (1205, 1317) the caller still holds `from`.
    pub(crate) fn upgrade(&self, from: Mode, until: &WaitLimit) -> Result<(), SqlError> {
        let try_upgrade = || {
            let mut w = self.word.load(Ordering::Acquire);
            loop {
                if w & HELD != from.one() {
                    return false;
                }
                let to = w - from.one() + EXCLUSIVE;
                match self
                    .word
                    .compare_exchange_weak(w, to, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => return true,
                    Err(now) => w = now,
                }
            }
        };
        if try_upgrade() {
            return Ok(());
        }
        self.wait_for(Mode::Exclusive, try_upgrade, until)
    }

    /// Waits until `grant` succeeds, setting the pending bit of `mode`
    /// meanwhile; see [`wait`](Self::wait).
    fn wait_for(
        &self,
        mode: Mode,
        grant: impl Fn() -> bool,
        until: &WaitLimit,
    ) -> Result<(), SqlError> {
        let shown = until
            .process
            .as_ref()
            .map(|p| p.state.lock().wait_state.replace(WAIT_STATE));
        let pending = mode.pending_bit();
        let waited = larch_engine::io::blocking::blocking(|| {
            let mut guard = self.waiting.lock();
            if pending != 0 {
                match mode {
                    Mode::ReadOnly => guard.read_only += 1,
                    _ => guard.strong += 1,
                }
                self.word.fetch_or(pending, Ordering::AcqRel);
            }
            let result = loop {
                if grant() {
                    break Ok(());
                }
                if let Err(e) = until.check() {
                    break Err(e);
                }
                let tick = until.deadline.saturating_duration_since(Instant::now());
                self.changed.wait_for(&mut guard, tick.min(WAIT_TICK));
            };
            if pending != 0 {
                let left = match mode {
                    Mode::ReadOnly => {
                        guard.read_only -= 1;
                        guard.read_only
                    }
                    _ => {
                        guard.strong -= 1;
                        guard.strong
                    }
                };
                if left == 0 {
                    self.word.fetch_and(!pending, Ordering::AcqRel);
                }
                // Requests that yielded to this one may go now.
                self.changed.notify_all();
            }
            result
        });
        if let (Some(p), Some(before)) = (&until.process, shown) {
            p.state.lock().wait_state = before;
        }
        waited
    }
}

/// How long a metadata lock wait may last, and what cancels it.
#[derive(Debug)]
pub(crate) struct WaitLimit {
    pub deadline: Instant,
    pub cancel: Arc<AtomicBool>,
    /// The waiting connection: its processlist state names the wait.
    pub process: Option<Arc<ProcessEntry>>,
}

impl WaitLimit {
    pub(crate) fn check(&self) -> Result<(), SqlError> {
        if self.cancel.load(Ordering::SeqCst) {
            return Err(SqlError::new(
                code::QUERY_INTERRUPTED,
                "Query execution was interrupted",
            ));
        }
        if Instant::now() >= self.deadline {
            return Err(SqlError::new(
                code::LOCK_WAIT_TIMEOUT,
                "Lock wait timeout exceeded; try restarting transaction",
            ));
        }
        Ok(())
    }
}
