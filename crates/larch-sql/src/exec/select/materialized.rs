//! The rows of a derived table (a subquery in FROM), materialized to be
//! read as a source: held in memory up to the statement's in-memory
//! temporary table size (MariaDB's `min(tmp_table_size,
//! max_heap_table_size)`), else moved to a temporary file in `tmpdir`, as
//! MariaDB moves a heap temporary table to disk.
//!
//! [`Materializer`] takes the rows while the subquery runs (its block
//! hands them over in batches where it can, see `RowStream`) and the last
//! ones at the end; it gives [`Materialized`] rows, read in the order
//! they came, as often as the join needs (each scan of a file reads it
//! from the first row, apart from any other scan).
//!
//! Invariant: once a file is started every later row goes to it, so the
//! file holds all rows in order and nothing stays in memory.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use larch_engine::record::value::Value;

use super::groups::SpillPolicy;
use crate::error::SqlError;
use crate::exec::rows::check_killed;
use crate::exec::spill_file::{value_bytes, SpillFile, SpilledRows};

/// Bytes a held row takes besides its values (its vector, the list's
/// slot and the allocator's rounding).
const ROW_OVERHEAD: usize = 48;

/// Rows to be read again; see the module documentation. A clone shares
/// the rows (a WITH element read by several references).
#[derive(Clone)]
pub(crate) enum Materialized {
    Memory(Arc<Vec<Vec<Value>>>),
    Disk(SpilledRows),
}

impl From<Vec<Vec<Value>>> for Materialized {
    fn from(rows: Vec<Vec<Value>>) -> Materialized {
        Materialized::Memory(Arc::new(rows))
    }
}

impl Materialized {
    /// How many rows there are.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Materialized::Memory(rows) => rows.len() as u64,
            Materialized::Disk(d) => d.rows(),
        }
    }

    /// Hands each row, in order, to `visit` (a copy it may take values
    /// from) until `visit` returns false; false when it did. A set `kill`
    /// (KILL QUERY, a statement time limit) stops the scan with 1317.
    pub(crate) fn scan(
        &self,
        kill: &AtomicBool,
        visit: &mut dyn FnMut(&mut Vec<Value>) -> Result<bool, SqlError>,
    ) -> Result<bool, SqlError> {
        let killed = || check_killed(kill);
        match self {
            Materialized::Memory(rows) => {
                for r in rows.iter() {
                    killed()?;
                    if !visit(&mut r.clone())? {
                        return Ok(false);
                    }
                }
            }
            Materialized::Disk(d) => {
                let mut reader = d.reader();
                let mut row = Vec::new();
                while reader.next_row(&mut row)? {
                    killed()?;
                    if !visit(&mut row)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}

/// Gathers a subquery's rows into [`Materialized`] rows.
pub(crate) struct Materializer {
    policy: SpillPolicy,
    held: Vec<Vec<Value>>,
    /// Estimated bytes of `held`.
    bytes: usize,
    file: Option<SpillFile>,
}

impl Materializer {
    pub(super) fn new(policy: SpillPolicy) -> Materializer {
        Materializer {
            policy,
            held: Vec::new(),
            bytes: 0,
            file: None,
        }
    }

    /// Takes one row, next in order.
    pub(super) fn push(&mut self, row: Vec<Value>) -> Result<(), SqlError> {
        match &mut self.file {
            Some(file) => file.write_row(&row),
            None => {
                self.bytes += row_bytes(&row);
                self.held.push(row);
                if self.bytes > self.policy.limit {
                    // Moves the rows held to a new file.
                    self.take(&mut Vec::new())?;
                }
                Ok(())
            }
        }
    }

    /// Takes the rows out of `rows`, next in order.
    pub(super) fn take(&mut self, rows: &mut Vec<Vec<Value>>) -> Result<(), SqlError> {
        if self.file.is_none() {
            self.bytes += rows.iter().map(|r| row_bytes(r)).sum::<usize>();
            self.held.append(rows);
            if self.bytes <= self.policy.limit {
                return Ok(());
            }
            let status = &self.policy.db.status;
            status
                .created_tmp_disk_tables
                .fetch_add(1, Ordering::Relaxed);
            status.created_tmp_files.fetch_add(1, Ordering::Relaxed);
            self.file = Some(SpillFile::create(&self.policy.dir)?);
            // The held rows go first, then every later row.
            std::mem::swap(rows, &mut self.held);
            self.held = Vec::new();
            self.bytes = 0;
        }
        if let Some(file) = &mut self.file {
            for r in rows.drain(..) {
                file.write_row(&r)?;
            }
        }
        Ok(())
    }

    /// The rows, `last` (the query's final rows) after the ones taken.
    pub(super) fn finish(mut self, mut last: Vec<Vec<Value>>) -> Result<Materialized, SqlError> {
        self.take(&mut last)?;
        match self.file {
            Some(file) => Ok(Materialized::Disk(file.into_rows()?)),
            None => Ok(self.held.into()),
        }
    }
}

fn row_bytes(row: &[Value]) -> usize {
    ROW_OVERHEAD + row.iter().map(value_bytes).sum::<usize>()
}
