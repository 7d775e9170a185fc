//! The sort of a spilled GROUP BY's rows ([`GroupedSort`]): by the ORDER
//! BY keys, or by the GROUP BY values when there is no ORDER BY (MariaDB
//! returns groups in that order).
//!
//! A GROUP BY spills its groups to partitions once they outgrow the
//! in-memory temporary table (`groups`), so it may finish more groups than
//! memory holds. Each finished group that passed HAVING comes here as it is
//! finished, already projected; only its sort-key values and output values
//! are kept:
//! - without LIMIT the rows go to sorted runs on disk past
//!   `sort_buffer_size` and are merged at the end (`sort_runs`), as a sort
//!   of plain rows does;
//! - with LIMIT only the first `offset + count` in order are kept: rows are
//!   sorted and cut back whenever twice as many (at least
//!   [`TOP_N_MIN_BATCH`]) are held.
//!
//! Rows arrive in the order `Groups::finish` finishes them (the groups held
//! in memory, then each partition's) and both ways keep rows of equal keys
//! in that order, so the answer is the one a stable sort of all the
//! finished rows in memory gives.

use larch_engine::record::value::Value;

use super::order::{sort_key_values, SortKey};
use super::sort_runs::{sort_run, SortRuns, SortedRow};
use crate::error::SqlError;
use crate::eval::EvalContext;
use crate::exec::spill_file::value_bytes;
use crate::session::Session;

/// With a LIMIT, rows held before they are sorted and cut back, at least.
const TOP_N_MIN_BATCH: usize = 1024;

/// See the module documentation.
pub(super) struct GroupedSort<'k> {
    keys: &'k [SortKey],
    /// Output values at the end of each finished row.
    n_out: usize,
    held: Vec<SortedRow>,
    how: How,
}

enum How {
    /// All rows, in runs past the sort buffer.
    Runs { runs: SortRuns, bytes: usize },
    /// The first `keep` rows in order.
    First { keep: usize },
}

impl<'k> GroupedSort<'k> {
    /// A sort by `keys` of finished rows carrying `n_out` output values at
    /// their end; `limit` is the block's `(offset, count)`.
    pub(super) fn new(
        s: &Session,
        keys: &'k [SortKey],
        n_out: usize,
        limit: Option<(u64, u64)>,
    ) -> GroupedSort<'k> {
        let how = match limit {
            Some((off, n)) => How::First {
                keep: usize::try_from(off.saturating_add(n)).unwrap_or(usize::MAX),
            },
            None => How::Runs {
                runs: SortRuns::new(s, keys.len()),
                bytes: 0,
            },
        };
        GroupedSort {
            keys,
            n_out,
            held: Vec::new(),
            how,
        }
    }

    /// Takes a finished row (its group's values, aggregates and outputs).
    pub(super) fn add(
        &mut self,
        mut row: Vec<Value>,
        ctx: &mut EvalContext<'_>,
    ) -> Result<(), SqlError> {
        let keys = sort_key_values(&row, self.keys, self.n_out, ctx)?;
        let out = row.split_off(row.len().saturating_sub(self.n_out));
        match &mut self.how {
            How::Runs { runs, bytes } => {
                *bytes += row_bytes(&keys) + row_bytes(&out);
                self.held.push((keys, out));
                if *bytes > runs.limit() {
                    *bytes = 0;
                    let mut run = std::mem::take(&mut self.held);
                    sort_run(&mut run, self.keys, ctx);
                    runs.write_run(run)?;
                }
            }
            How::First { keep } => {
                self.held.push((keys, out));
                if self.held.len() >= keep.saturating_mul(2).max(TOP_N_MIN_BATCH) {
                    sort_run(&mut self.held, self.keys, ctx);
                    self.held.truncate(*keep);
                }
            }
        }
        Ok(())
    }

    /// Hands the output rows in order to `out` until it returns false.
    pub(super) fn finish(
        mut self,
        ctx: &mut EvalContext<'_>,
        out: &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError> {
        sort_run(&mut self.held, self.keys, ctx);
        match self.how {
            How::Runs { runs, .. } if !runs.is_empty() => {
                runs.merge(self.held, self.keys, ctx, out)
            }
            How::Runs { .. } => each(self.held, out),
            How::First { keep } => {
                self.held.truncate(keep);
                each(self.held, out)
            }
        }
    }
}

/// The output values of `rows`, in order, to `out` until it returns false.
fn each(
    rows: Vec<SortedRow>,
    out: &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    for (_, row) in rows {
        if !out(row)? {
            break;
        }
    }
    Ok(())
}

/// Bytes held for `values` (for `sort_buffer_size`).
fn row_bytes(values: &[Value]) -> usize {
    std::mem::size_of::<Vec<Value>>() + values.iter().map(value_bytes).sum::<usize>()
}
