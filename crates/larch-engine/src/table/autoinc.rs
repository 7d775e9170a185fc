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

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use super::Table;
use crate::error::{EngineError, Result};
use crate::space;

/// Values reserved ahead of use by one persisted bound change.
pub const RESERVE_STEP: u64 = 64;

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
        let end = first
            .checked_add(n)
            .ok_or_else(|| EngineError::Internal("auto-increment values exhausted".into()))?;
        self.reserve_up_to(a, end)?;
        Ok(first)
    }

    /// Records an explicit value stored in the AUTO_INCREMENT column, so that
    /// later generated values are above it. Negative or zero values are ignored.
    pub fn observe_auto_increment(&self, value: u64) -> Result<()> {
        let Some(a) = self.autoinc.as_ref() else {
            return Ok(());
        };
        if value == 0 {
            return Ok(());
        }
        let end = value.saturating_add(1);
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
