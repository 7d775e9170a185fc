//! AUTO_INCREMENT: lock-free interleaved allocation (InnoDB's
//! `innodb_autoinc_lock_mode=2`) that never hands out a value twice, even
//! across a crash.
//!
//! The counter lives in memory as two atomics: `next` (the next value to hand
//! out) and `bound` (every value below it may have been handed out). `bound`
//! is persisted as the table counter of the table's tablespace (page 0,
//! `space::TABLE_COUNTER`) through a mini-transaction *before* any value below
//! it is used: an allocation takes its values with one `fetch_add`, and only if
//! they pass `bound` does it take the persisting latch and log a new bound. The
//! bound's redo record therefore precedes the redo of every row that uses one
//! of its values, so if such a row survives a crash, the bound does too, and
//! the counter restarts at or above it. Values handed out to statements that
//! failed are not reused (as in InnoDB). The bound moves in steps of
//! [`RESERVE_STEP`] so single-row inserts log a bound change only every so
//! often; a crash may skip up to that many values (MySQL allows gaps), while
//! closing the table ([`AutoIncrement::settle`], on drop) writes the exact
//! next value, so a clean restart continues without a gap.
//!
//! Explicit values inserted by the user ([`Table::observe_auto_increment`])
//! push `next` past them, so later generated values never collide.
//!
//! Values may be spaced ([`AutoIncrementStep`], MySQL's
//! `auto_increment_increment` and `auto_increment_offset`): an allocation
//! then starts at the first value at or past `next` of the form
//! `offset + k * increment`, and leaves `next` where InnoDB leaves its
//! counter (`innobase_next_autoinc`), so `SHOW TABLE STATUS` and the values
//! of later statements, spaced or not, are InnoDB's.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use super::Table;
use crate::error::{EngineError, Result};
use crate::space;

/// Values reserved ahead of use by one persisted bound change.
pub const RESERVE_STEP: u64 = 64;

/// How generated values are spaced: `auto_increment_increment` and
/// `auto_increment_offset` (both 1 by default: consecutive values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoIncrementStep {
    /// Distance between two values (at least 1).
    pub increment: u64,
    /// The value the series starts from. As in MySQL, an offset above the
    /// increment is ignored where the counter moves past a value.
    pub offset: u64,
}

impl AutoIncrementStep {
    /// Consecutive values.
    pub const ONE: AutoIncrementStep = AutoIncrementStep {
        increment: 1,
        offset: 1,
    };

    /// A step; a 0 increment or offset counts as 1.
    pub fn new(increment: u64, offset: u64) -> AutoIncrementStep {
        AutoIncrementStep {
            increment: increment.max(1),
            offset: offset.max(1),
        }
    }

    /// The first value of the series at or past `v` (`v` itself for
    /// consecutive values). The arithmetic wraps as MySQL's does, so an
    /// offset above the increment gives `offset mod increment` series.
    pub fn align(self, v: u64) -> u64 {
        if self.increment <= 1 {
            return v;
        }
        let k = v
            .wrapping_sub(1)
            .wrapping_add(self.increment)
            .wrapping_sub(self.offset)
            / self.increment;
        let aligned = k.wrapping_mul(self.increment).wrapping_add(self.offset);
        // Past the end of the range: stay (the column's range check
        // reports it).
        if aligned < v {
            v
        } else {
            aligned
        }
    }

    /// Where the counter goes after `need` values starting at `current`
    /// were handed out, or after the explicit value `current` was stored
    /// (`need` 1): InnoDB's `innobase_next_autoinc`. `None` past `u64`.
    pub fn next_after(self, current: u64, need: u64) -> Option<u64> {
        let step = self.increment;
        let block = need.max(1).checked_mul(step)?;
        let offset = if self.offset > step { 0 } else { self.offset };
        let base = if current > offset {
            (current - offset) / step
        } else {
            (offset - current) / step
        };
        base.checked_mul(step)?
            .checked_add(block)?
            .checked_add(offset)
    }
}

fn exhausted() -> EngineError {
    EngineError::Internal("auto-increment values exhausted".into())
}

/// The in-memory state of a table's counter.
#[derive(Debug)]
pub(super) struct AutoIncrement {
    next: AtomicU64,
    bound: AtomicU64,
    persist: Mutex<()>,
}

impl AutoIncrement {
    /// The counter as persisted: continue at the bound (1 for a new table).
    pub(super) fn new(bound: u64) -> Self {
        let start = bound.max(1);
        Self {
            next: AtomicU64::new(start),
            bound: AtomicU64::new(start),
            persist: Mutex::new(()),
        }
    }
}

impl AutoIncrement {
    /// The value to persist when the table closes: every value handed out is
    /// below it. `None` when the persisted bound is already exact.
    pub(super) fn settle(&self) -> Option<u64> {
        let _persisting = self.persist.lock();
        let next = self.next.load(Ordering::Relaxed);
        (next != self.bound.load(Ordering::Acquire)).then(|| {
            self.bound.store(next, Ordering::Release);
            next
        })
    }
}

impl Table {
    fn autoinc(&self) -> Result<&AutoIncrement> {
        self.autoinc.as_ref().ok_or_else(|| {
            EngineError::Internal(format!(
                "table '{}' has no AUTO_INCREMENT column",
                self.layout.def.name
            ))
        })
    }

    /// Makes sure every value below `end` is covered by the persisted bound.
    fn reserve_up_to(&self, a: &AutoIncrement, end: u64) -> Result<()> {
        if a.bound.load(Ordering::Acquire) >= end {
            return Ok(());
        }
        let _persisting = a.persist.lock();
        if a.bound.load(Ordering::Acquire) >= end {
            return Ok(());
        }
        let new_bound = end.saturating_add(RESERVE_STEP);
        let mut mtr = self.storage.mtr()?;
        space::write_table_counter(&mut mtr, self.space, new_bound)?;
        mtr.commit()?;
        a.bound.store(new_bound, Ordering::Release);
        Ok(())
    }

    /// Takes `n` consecutive AUTO_INCREMENT values; returns the first. Never
    /// returns a value twice (also across crashes); concurrent callers get
    /// interleaved ranges without waiting for each other.
    pub fn allocate_auto_increment(&self, n: u64) -> Result<u64> {
        let a = self.autoinc()?;
        let n = n.max(1);
        let first = a.next.fetch_add(n, Ordering::Relaxed);
        let end = first.checked_add(n).ok_or_else(exhausted)?;
        self.reserve_up_to(a, end)?;
        Ok(first)
    }

    /// Takes `n` values spaced by `step` (`first`, `first + increment`,
    /// ...); returns the first. Like [`Table::allocate_auto_increment`],
    /// never returns a value twice.
    pub fn allocate_auto_increment_stepped(&self, n: u64, step: AutoIncrementStep) -> Result<u64> {
        if step.increment <= 1 {
            return self.allocate_auto_increment(n);
        }
        let a = self.autoinc()?;
        let mut current = a.next.load(Ordering::Relaxed);
        loop {
            let first = step.align(current);
            let end = step.next_after(first, n).ok_or_else(exhausted)?;
            match a
                .next
                .compare_exchange_weak(current, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.reserve_up_to(a, end)?;
                    return Ok(first);
                }
                Err(now) => current = now,
            }
        }
    }

    /// Records an explicit value stored in the AUTO_INCREMENT column, so that
    /// later generated values are above it. Negative or zero values are ignored.
    pub fn observe_auto_increment(&self, value: u64) -> Result<()> {
        self.observe_auto_increment_stepped(value, AutoIncrementStep::ONE)
    }

    /// [`Table::observe_auto_increment`] for values spaced by `step`: the
    /// counter moves to the value of the series after `value` (InnoDB's).
    pub fn observe_auto_increment_stepped(
        &self,
        value: u64,
        step: AutoIncrementStep,
    ) -> Result<()> {
        let Some(a) = self.autoinc.as_ref() else {
            return Ok(());
        };
        if value == 0 {
            return Ok(());
        }
        let end = if step.increment <= 1 {
            value.saturating_add(1)
        } else {
            step.next_after(value, 1).unwrap_or(u64::MAX)
        };
        a.next.fetch_max(end, Ordering::Relaxed);
        self.reserve_up_to(a, end)
    }

    /// The value the next allocation would return (`SHOW TABLE STATUS`'s
    /// `Auto_increment`), or `None` without an AUTO_INCREMENT column.
    pub fn auto_increment_next(&self) -> Option<u64> {
        self.autoinc
            .as_ref()
            .map(|a| a.next.load(Ordering::Relaxed))
    }

    /// `ALTER TABLE ... AUTO_INCREMENT = v`: the counter continues at `v` if
    /// that is above every value handed out (as InnoDB, it never goes back).
    pub fn raise_auto_increment(&self, v: u64) -> Result<()> {
        self.observe_auto_increment(v.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::AutoIncrementStep;

    #[test]
    fn spaced_values_follow_innodb_arithmetic() {
        let s = AutoIncrementStep::new(10, 1);
        assert_eq!(
            (s.align(1), s.align(2), s.align(11), s.align(12)),
            (1, 11, 11, 21)
        );
        // Two values from 1: 1 and 11, the counter goes to 21.
        assert_eq!(s.next_after(1, 2), Some(21));
        // An explicit 42: the counter goes to the series' value past it.
        assert_eq!(s.next_after(42, 1), Some(51));
        // An offset above the increment: offset mod increment, and ignored
        // where the counter moves.
        let s = AutoIncrementStep::new(2, 5);
        assert_eq!((s.align(1), s.align(6), s.align(222)), (1, 7, 223));
        assert_eq!(s.next_after(1, 3), Some(6));
        assert_eq!(s.next_after(221, 1), Some(222));
        // Consecutive values: no alignment, the counter moves by `need`.
        let one = AutoIncrementStep::ONE;
        assert_eq!((one.align(7), one.next_after(7, 3)), (7, Some(10)));
        assert_eq!(
            AutoIncrementStep::new(7, 3).next_after(u64::MAX - 2, 1),
            None
        );
    }
}
