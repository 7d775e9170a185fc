//! The AUTO_INCREMENT values one INSERT, REPLACE or LOAD DATA hands out, in
//! the intervals InnoDB reserves them (`innodb_autoinc_lock_mode=1`), so
//! that the values rows get, the gaps a statement leaves and the counter
//! after it are MariaDB's:
//!
//! - The first interval is as long as the statement's row count when it is
//!   known (INSERT ... VALUES of N rows reserves N; CREATE TABLE ... SELECT
//!   the rows its SELECT gave, where MariaDB takes the optimizer's estimate
//!   of them), else one value; each
//!   later interval of the statement is twice the previous one (2, 4, ...,
//!   at most 65,535), or what is left of the first count while rows remain.
//! - A value whose row did not go in (INSERT IGNORE on a duplicate, a failed
//!   CHECK) is handed to the next row.
//! - An explicit value at or past the next value moves the next value past
//!   it.
//! - Values reserved and not used are gaps: the next statement continues
//!   after the interval.
//!
//! Values come from the table's counter (`Table::allocate_auto_increment`),
//! which never hands out a value twice; concurrent statements interleave.

use larch_engine::table::Table;

use crate::error::SqlError;

/// Most values one interval reserves (MariaDB's `AUTO_INC_DEFAULT_NB_MAX`).
const MAX_INTERVAL: u64 = 65_535;

/// The statement's AUTO_INCREMENT state.
#[derive(Debug, Default)]
pub(crate) struct AutoIncrementRun {
    /// The next value of the current interval.
    next: u64,
    /// The end (exclusive) of the current interval.
    end: u64,
    /// Intervals reserved so far.
    intervals: u32,
    /// Rows the statement will write, when known (0: unknown).
    estimate: u64,
    /// Rows left of the last reservation's count (InnoDB's
    /// `n_autoinc_rows`): a new interval is that long while it is not 0.
    left: u64,
}

impl AutoIncrementRun {
    /// A run for a statement that writes `estimate` rows (0 when unknown).
    pub(crate) fn new(estimate: u64) -> AutoIncrementRun {
        AutoIncrementRun {
            estimate,
            ..AutoIncrementRun::default()
        }
    }

    /// The value for a row that asks for one.
    pub(crate) fn take(&mut self, table: &Table) -> Result<u64, SqlError> {
        if self.next != 0 && self.next < self.end {
            let v = self.next;
            self.next += 1;
            return Ok(v);
        }
        if self.left == 0 {
            self.left = if self.intervals == 0 {
                self.estimate.max(1)
            } else {
                (1u64 << self.intervals.min(16)).min(MAX_INTERVAL)
            };
        }
        if self.next != 0 {
            // After an explicit value: continue at or above it.
            table.observe_auto_increment(self.next - 1)?;
        }
        let first = table.allocate_auto_increment(self.left)?;
        self.intervals += 1;
        self.next = first + 1;
        self.end = first.saturating_add(self.left);
        Ok(first)
    }

    /// A row's value, taken or explicit, was written (or tried).
    pub(crate) fn row_done(&mut self) {
        self.left = self.left.saturating_sub(1);
    }

    /// `value`, taken for a row that did not go in, goes to the next row.
    pub(crate) fn give_back(&mut self, value: u64) {
        self.next = value;
    }

    /// A row carries the explicit value `value`.
    pub(crate) fn explicit(&mut self, value: u64) {
        if self.next != 0 && value >= self.next {
            self.next = value.saturating_add(1);
        }
    }
}
