//! ORDER BY over more rows than `sort_buffer_size` holds, as MariaDB's
//! filesort does it: the rows held are sorted and written to a temporary
//! file (a run) whenever they outgrow the buffer, and the runs are merged.
//!
//! A run holds each row's output values followed by its sort-key values,
//! so the merge compares keys without evaluating anything again. Runs are
//! in arrival order and the merge takes, of equal keys, the row of the
//! earlier run: the order is the one a stable sort of all rows gives, as
//! in memory. More than [`FAN_IN`] runs are first merged [`FAN_IN`] at a
//! time into longer runs (`Sort_merge_passes` counts these passes), so the
//! open files stay few. Each run is a [`SpillFile`], gone with the
//! statement, and counted in `Created_tmp_files` (a sort makes no
//! temporary table, as in MariaDB).
//!
//! Invariants: every row of a run has the same number of values (outputs
//! then keys); a run is sorted by [`order::compare_keys`].

use std::cmp::Ordering;
use std::path::PathBuf;
use std::sync::atomic::Ordering as Counter;
use std::sync::Arc;

use larch_engine::record::value::Value;

use super::order::{self, SortKey};
use crate::database::Database;
use crate::error::SqlError;
use crate::eval::EvalContext;
use crate::exec::rows::check_killed;
use crate::exec::spill_file::{SpillFile, SpillReader};
use crate::session::Session;

/// Runs merged at once.
const FAN_IN: usize = 32;

/// The smallest sort buffer (MariaDB's minimum `sort_buffer_size`).
const MIN_BUFFER: usize = 32 * 1024;

/// One row of a run: its sort-key values and its output values.
pub(super) type SortedRow = (Vec<Value>, Vec<Value>);

/// The runs of one ORDER BY; see the module documentation.
pub(super) struct SortRuns {
    /// Bytes of rows held before a run is written (`sort_buffer_size`).
    limit: usize,
    /// `tmpdir`.
    dir: PathBuf,
    db: Arc<Database>,
    /// The statement's kill flag, checked as merged rows come.
    kill: Arc<std::sync::atomic::AtomicBool>,
    runs: Vec<SpillFile>,
    keys: usize,
}

impl SortRuns {
    /// No runs yet, under the session's `sort_buffer_size` and `tmpdir`,
    /// for `keys` sort keys.
    pub(super) fn new(s: &Session, keys: usize) -> SortRuns {
        let limit = usize::try_from(s.int_var("sort_buffer_size"))
            .unwrap_or(usize::MAX)
            .max(MIN_BUFFER);
        SortRuns {
            limit,
            dir: s.tmpdir(),
            db: s.db.clone(),
            kill: s.process.kill_query.clone(),
            runs: Vec::new(),
            keys,
        }
    }

    /// Bytes of rows to hold before writing a run.
    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    /// True when no run was written (the rows all fit in memory).
    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Writes a sorted run.
    pub(super) fn write_run(&mut self, run: Vec<SortedRow>) -> Result<(), SqlError> {
        let mut file = self.new_file()?;
        let mut row = Vec::new();
        for (keys, out) in run {
            row.clear();
            row.extend(out);
            row.extend(keys);
            file.write_row(&row)?;
        }
        self.runs.push(file);
        Ok(())
    }

    fn new_file(&self) -> Result<SpillFile, SqlError> {
        let file = SpillFile::create(&self.dir)?;
        self.db
            .status
            .created_tmp_files
            .fetch_add(1, Counter::Relaxed);
        Ok(file)
    }

    /// Merges the runs written and `last` (sorted, in memory, after
    /// them), handing each output row in order to `out` until it returns
    /// false.
    pub(super) fn merge(
        mut self,
        last: Vec<SortedRow>,
        keys: &[SortKey],
        ctx: &mut EvalContext<'_>,
        out: &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError> {
        // Passes until the runs can be merged at once.
        while self.runs.len() > FAN_IN {
            let mut longer = Vec::with_capacity(self.runs.len().div_ceil(FAN_IN));
            let mut runs = std::mem::take(&mut self.runs).into_iter().peekable();
            while runs.peek().is_some() {
                let group: Vec<Head> = runs
                    .by_ref()
                    .take(FAN_IN)
                    .map(|f| f.into_reader().map(Head::file))
                    .collect::<Result<_, _>>()?;
                let mut file = self.new_file()?;
                let mut row = Vec::new();
                merge_heads(group, self.keys, keys, &self.kill, ctx, &mut |(k, o)| {
                    row.clear();
                    row.extend(o);
                    row.extend(k);
                    file.write_row(&row)?;
                    Ok(true)
                })?;
                longer.push(file);
            }
            self.db
                .status
                .sort_merge_passes
                .fetch_add(1, Counter::Relaxed);
            self.runs = longer;
        }
        let mut heads: Vec<Head> = self
            .runs
            .into_iter()
            .map(|f| f.into_reader().map(Head::file))
            .collect::<Result<_, _>>()?;
        heads.push(Head::Memory(last.into_iter()));
        self.db
            .status
            .sort_merge_passes
            .fetch_add(1, Counter::Relaxed);
        merge_heads(heads, self.keys, keys, &self.kill, ctx, &mut |(_, o)| {
            out(o)
        })
    }
}

/// Sorts a run by its keys (stable).
pub(super) fn sort_run(run: &mut [SortedRow], keys: &[SortKey], ctx: &mut EvalContext<'_>) {
    run.sort_by(|a, b| order::compare_keys(&a.0, &b.0, keys, ctx));
}

/// Where a merge reads one run.
enum Head {
    File(SpillReader),
    Memory(std::vec::IntoIter<SortedRow>),
}

impl Head {
    fn file(reader: SpillReader) -> Head {
        Head::File(reader)
    }

    /// The run's next row (`n_keys` key values at the end of a file row).
    fn next(&mut self, n_keys: usize) -> Result<Option<SortedRow>, SqlError> {
        match self {
            Head::Memory(rows) => Ok(rows.next()),
            Head::File(reader) => {
                let mut row = Vec::new();
                if !reader.next_row(&mut row)? {
                    return Ok(None);
                }
                let keys = row.split_off(row.len().saturating_sub(n_keys));
                Ok(Some((keys, row)))
            }
        }
    }
}

/// Merges sorted runs: a binary heap of the runs' current rows, ordered by
/// key and then by run (the earlier run first among equal keys).
fn merge_heads(
    mut runs: Vec<Head>,
    n_keys: usize,
    keys: &[SortKey],
    kill: &std::sync::atomic::AtomicBool,
    ctx: &mut EvalContext<'_>,
    out: &mut dyn FnMut(SortedRow) -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    // (row, run it came from), kept as a min-heap.
    let mut heap: Vec<(SortedRow, usize)> = Vec::with_capacity(runs.len());
    for (i, run) in runs.iter_mut().enumerate() {
        if let Some(row) = run.next(n_keys)? {
            heap.push((row, i));
        }
    }
    let mut less = |a: &(SortedRow, usize), b: &(SortedRow, usize), ctx: &mut EvalContext<'_>| {
        match order::compare_keys(&a.0 .0, &b.0 .0, keys, ctx) {
            Ordering::Equal => a.1 < b.1,
            o => o == Ordering::Less,
        }
    };
    for i in (0..heap.len() / 2).rev() {
        sift_down(&mut heap, i, &mut less, ctx);
    }
    while !heap.is_empty() {
        check_killed(kill)?;
        let run = heap[0].1;
        let row = match runs[run].next(n_keys)? {
            Some(next) => std::mem::replace(&mut heap[0].0, next),
            None => heap.swap_remove(0).0,
        };
        if !heap.is_empty() {
            sift_down(&mut heap, 0, &mut less, ctx);
        }
        if !out(row)? {
            break;
        }
    }
    Ok(())
}

/// Restores the min-heap order below `i`.
fn sift_down<T>(
    heap: &mut [T],
    mut i: usize,
    less: &mut impl FnMut(&T, &T, &mut EvalContext<'_>) -> bool,
    ctx: &mut EvalContext<'_>,
) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut least = i;
        if l < heap.len() && less(&heap[l], &heap[least], ctx) {
            least = l;
        }
        if r < heap.len() && less(&heap[r], &heap[least], ctx) {
            least = r;
        }
        if least == i {
            return;
        }
        heap.swap(i, least);
        i = least;
    }
}
