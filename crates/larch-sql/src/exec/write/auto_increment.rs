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
//! - With `auto_increment_increment` above 1, values are spaced by it and
//!   start from `auto_increment_offset` (an interval of N values spans
//!   N increments), and an explicit value moves the next one to the next
//!   value of the series past it, as MariaDB's `compute_next_insert_id`.
//!
//! Values come from the table's counter (`Table::allocate_auto_increment`),
//! which never hands out a value twice; concurrent statements interleave.

use larch_engine::table::{AutoIncrementStep, Table};

use crate::error::SqlError;
use crate::session::Session;

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
    /// The session's spacing, read at the statement's first value.
    step: Option<AutoIncrementStep>,
}

/// The session's `auto_increment_increment` and `auto_increment_offset`.
fn session_step(s: &Session) -> AutoIncrementStep {
    let var = |name: &str| u64::try_from(s.int_var(name)).unwrap_or(1);
    AutoIncrementStep::new(
        var("auto_increment_increment"),
        var("auto_increment_offset"),
    )
}

/// The value of the series after `v` (MariaDB's `compute_next_insert_id`).
fn next_in_series(v: u64, step: AutoIncrementStep) -> u64 {
    if step.increment <= 1 {
        v.saturating_add(1)
    } else {
        step.align(v.saturating_add(1))
    }
}

impl AutoIncrementRun {
    /// A run for a statement that writes `estimate` rows (0 when unknown).
    pub(crate) fn new(estimate: u64) -> AutoIncrementRun {
        AutoIncrementRun {
            estimate,
            ..AutoIncrementRun::default()
        }
    }

    fn step_of(&mut self, s: &Session) -> AutoIncrementStep {
        *self.step.get_or_insert_with(|| session_step(s))
    }

    /// The value for a row that asks for one.
    pub(crate) fn take(&mut self, s: &Session, table: &Table) -> Result<u64, SqlError> {
        let step = self.step_of(s);
        if self.next != 0 && self.next < self.end {
            let v = self.next;
            self.next = v.saturating_add(step.increment);
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
            table.observe_auto_increment_stepped(self.next - 1, step)?;
        }
        let first = table.allocate_auto_increment_stepped(self.left, step)?;
        self.intervals += 1;
        self.next = first.saturating_add(step.increment);
        self.end = first.saturating_add(self.left.saturating_mul(step.increment));
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

    /// A row carries the explicit value `value`: later values come after
    /// it (the table's counter moves past it in the series as InnoDB's
    /// does).
    pub(crate) fn explicit(
        &mut self,
        s: &Session,
        table: &Table,
        value: u64,
    ) -> Result<(), SqlError> {
        let step = self.step_of(s);
        if self.next != 0 && value >= self.next {
            self.next = next_in_series(value, step);
        }
        if step.increment > 1 {
            table.observe_auto_increment_stepped(value, step)?;
        }
        Ok(())
    }
}
