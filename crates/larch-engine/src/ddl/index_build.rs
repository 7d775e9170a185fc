//! [`build_indexes`]: fills any number of new, empty secondary index trees
//! from one scan of a table, inside one memory budget.
//!
//! 1. **Scan and sort.** The clustered index is read once
//!    ([`Table::new_index_entries`]); every row's entry in every new index
//!    goes into a [`SortBuffer`] of `budget` bytes shared by all the new
//!    indexes. A full buffer is sorted by (index, key) and written to a
//!    temporary file as one sorted run per index. With two or more
//!    `threads`, sorting and writing a full buffer happens on a second
//!    thread while the scan fills another buffer, so the scan never waits
//!    for the disk (two buffers: `2 x budget`).
//! 2. **Merge and build.** Each new index's runs are merged
//!    ([`super::merge`], whose read buffers also stay within `budget`) into
//!    one key-ordered stream that a [`BulkBuilder`] turns into the tree
//!    bottom-up, at `fill_factor`. A build whose entries all fit in the
//!    buffer writes no file: the sorted buffer feeds the builders directly.
//!    With several indexes, up to `threads` of them merge and build at once.
//!
//! A UNIQUE index's entries are checked as they stream into its builder:
//! equal key parts (none NULL) next to each other are a duplicate, error
//! 1062 naming the index and the values. In an online build (writers
//! running beside the scan) such a pair is only a suspicion, since the scan
//! may have read one of the rows while a transaction was changing it: it
//! goes into [`Suspects`], checked again against the finished index (up to
//! [`MAX_SUSPECTS`]; past that the build fails with 1062). Memory: `threads x budget` for
//! buffers, plus a page per level per tree being built, whatever the number
//! of indexes or rows.

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Mutex;

use super::merge::{merge_runs, MergeShape};
use super::run_file::{Run, RunWriter, TempFile};
use super::sort_buffer::SortBuffer;
use crate::btree::bulk::BulkBuilder;
use crate::btree::BTree;
use crate::error::{EngineError, Result};
use crate::table::index_keys::ENTRY_HAS_NULL;
use crate::table::{Table, TableLayout};

/// The smallest budget a build accepts (MySQL's floor for
/// `innodb_ddl_buffer_size`: 64 KiB).
pub const MIN_BUDGET: usize = 64 << 10;

/// How a build uses the machine.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Bytes of entries sorted in memory per thread
    /// (`innodb_ddl_buffer_size`).
    pub budget: usize,
    /// Threads that sort, merge and build (`innodb_ddl_threads`).
    pub threads: usize,
    /// Percentage of each page the builder fills (`innodb_fill_factor`).
    pub fill_factor: u32,
    /// Where sorted runs are written (`tmpdir`).
    pub tmpdir: PathBuf,
}

/// Entries of unique indexes that an online build's scan found twice,
/// `(target, entry key)`: the index change checks them again at its end.
#[derive(Debug, Default)]
pub struct Suspects {
    keys: Mutex<Vec<(usize, Vec<u8>)>>,
}

/// Suspected duplicates an online build keeps before it fails with 1062.
pub const MAX_SUSPECTS: usize = 4096;

impl Suspects {
    /// Keeps `key` of target `k`; false when the list is full.
    fn note(&self, k: usize, key: &[u8]) -> bool {
        let Ok(mut keys) = self.keys.lock() else {
            return false;
        };
        if keys.len() >= MAX_SUSPECTS {
            return false;
        }
        keys.push((k, key.to_vec()));
        true
    }

    pub fn into_keys(self) -> Vec<(usize, Vec<u8>)> {
        self.keys.into_inner().unwrap_or_default()
    }
}

/// One index to build: its position in the new layout's secondary indexes,
/// and its empty tree.
#[derive(Debug, Clone, Copy)]
pub struct NewIndex {
    pub position: usize,
    pub tree: BTree,
}

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Rows of the table read.
    pub rows: u64,
    /// Sorted runs written to temporary files (0: all sorted in memory).
    pub runs: u64,
    /// Entries written into each new index, in `NewIndex` order.
    pub entries: Vec<u64>,
}

/// See the module documentation.
pub fn build_indexes(
    table: &Table,
    layout: &TableLayout,
    targets: &[NewIndex],
    options: &BuildOptions,
    suspects: Option<&Suspects>,
    interrupted: &(dyn Fn() -> bool + Sync),
) -> Result<BuildStats> {
    let budget = options.budget.max(MIN_BUDGET);
    let threads = options.threads.max(1);
    let positions: Vec<usize> = targets.iter().map(|t| t.position).collect();
    let mut stats = BuildStats {
        entries: vec![0; targets.len()],
        ..BuildStats::default()
    };
    if targets.is_empty() {
        return Ok(stats);
    }
    let mut spill = Spill::new(targets.len(), options.tmpdir.clone());
    let mut buffer = SortBuffer::new(budget);
    let rows = if threads > 1 {
        scan_with_sorter(
            table,
            layout,
            &positions,
            budget,
            &mut buffer,
            &mut spill,
            interrupted,
        )?
    } else {
        table.new_index_entries(
            layout,
            &positions,
            interrupted,
            &mut |k, flags, key, value| {
                if !buffer.fits(key.len(), value.len()) {
                    spill.write(&mut buffer)?;
                }
                buffer.push(k, flags, key, value);
                Ok(())
            },
        )?
    };
    stats.rows = rows;
    if !spill.used() {
        // Everything fitted: the sorted buffer feeds the builders.
        buffer.sort();
        let mut sinks: Vec<IndexSink<'_>> = targets
            .iter()
            .enumerate()
            .map(|(k, t)| IndexSink::new(table, layout, (k, t), options.fill_factor, suspects))
            .collect::<Result<_>>()?;
        for e in buffer.entries() {
            sinks[usize::from(e.index)].push(e.flags, e.key, e.value)?;
        }
        for (k, sink) in sinks.into_iter().enumerate() {
            stats.entries[k] = sink.finish()?;
        }
        return Ok(stats);
    }
    spill.write(&mut buffer)?;
    drop(buffer);
    stats.runs = spill.runs.iter().map(|r| r.len() as u64).sum();
    // Merge and build, up to `threads` indexes at once, each within the
    // budget.
    let shape = MergeShape::within(budget);
    let work: Mutex<Vec<(usize, Vec<Run>)>> =
        Mutex::new(spill.runs.into_iter().enumerate().rev().collect());
    let results: Mutex<Vec<(usize, Result<u64>)>> = Mutex::new(Vec::new());
    let tmpdir = &options.tmpdir;
    std::thread::scope(|scope| {
        for _ in 0..threads.min(targets.len()) {
            scope.spawn(|| loop {
                let next = work.lock().map(|mut w| w.pop()).unwrap_or(None);
                let Some((k, runs)) = next else { break };
                let built = (|| {
                    let mut sink = IndexSink::new(
                        table,
                        layout,
                        (k, &targets[k]),
                        options.fill_factor,
                        suspects,
                    )?;
                    merge_runs(runs, shape, tmpdir, &mut |flags, key, value| {
                        sink.push(flags, key, value)
                    })?;
                    sink.finish()
                })();
                let failed = built.is_err();
                if let Ok(mut r) = results.lock() {
                    r.push((k, built));
                }
                if failed {
                    // The others stop at their next index.
                    if let Ok(mut w) = work.lock() {
                        w.clear();
                    }
                    break;
                }
            });
        }
    });
    let results = results
        .into_inner()
        .map_err(|_| EngineError::Internal("index build: a build thread panicked".into()))?;
    if results.len() < targets.len() {
        // A failure stopped the rest: report it.
        for (_, r) in results {
            r?;
        }
        return Err(EngineError::Internal(
            "index build: an index was not built".into(),
        ));
    }
    for (k, r) in results {
        stats.entries[k] = r?;
    }
    Ok(stats)
}

/// The scan on this thread, sorting and writing full buffers on another:
/// two buffers of `budget` bytes pass between them.
fn scan_with_sorter(
    table: &Table,
    layout: &TableLayout,
    positions: &[usize],
    budget: usize,
    buffer: &mut SortBuffer,
    spill: &mut Spill,
    interrupted: &(dyn Fn() -> bool + Sync),
) -> Result<u64> {
    let (to_sorter, full) = mpsc::sync_channel::<SortBuffer>(1);
    let (to_scanner, empty) = mpsc::sync_channel::<SortBuffer>(1);
    let sorter_gone = || EngineError::Internal("index build: the sort thread stopped".into());
    to_scanner
        .send(SortBuffer::new(budget))
        .map_err(|_| sorter_gone())?;
    std::thread::scope(|scope| {
        let sorter = scope.spawn(move || -> Result<()> {
            for mut b in full {
                spill.write(&mut b)?;
                if to_scanner.send(b).is_err() {
                    break;
                }
            }
            Ok(())
        });
        let scanned = table.new_index_entries(
            layout,
            positions,
            interrupted,
            &mut |k, flags, key, value| {
                if !buffer.fits(key.len(), value.len()) {
                    let next = empty.recv().map_err(|_| sorter_gone())?;
                    let filled = std::mem::replace(&mut *buffer, next);
                    to_sorter.send(filled).map_err(|_| sorter_gone())?;
                }
                buffer.push(k, flags, key, value);
                Ok(())
            },
        );
        drop(to_sorter);
        let sorted = sorter.join().unwrap_or_else(|_| {
            Err(EngineError::Internal(
                "index build: the sort thread panicked".into(),
            ))
        });
        // The sort thread's error is the cause when both failed.
        sorted.and(scanned)
    })
}

/// Sorted runs written so far: one temporary file, runs per index.
struct Spill {
    dir: PathBuf,
    /// The file and its length.
    file: Option<(std::sync::Arc<TempFile>, u64)>,
    runs: Vec<Vec<Run>>,
}

/// Write buffer of a spill.
const SPILL_WRITE_BUFFER: usize = 64 << 10;

impl Spill {
    fn new(indexes: usize, dir: PathBuf) -> Self {
        Self {
            dir,
            file: None,
            runs: vec![Vec::new(); indexes],
        }
    }

    fn used(&self) -> bool {
        self.file.is_some()
    }

    /// Sorts `buffer`, appends one run per index it holds, empties it.
    fn write(&mut self, buffer: &mut SortBuffer) -> Result<()> {
        if buffer.is_empty() {
            return Ok(());
        }
        buffer.sort();
        let (file, start) = match &self.file {
            Some((f, end)) => (f.clone(), *end),
            None => (TempFile::create(&self.dir)?, 0),
        };
        let mut w = RunWriter::new(file.clone(), start, SPILL_WRITE_BUFFER);
        let mut current: Option<u16> = None;
        for e in buffer.entries() {
            if current != Some(e.index) {
                if let Some(k) = current {
                    self.runs[usize::from(k)].push(w.end_run());
                }
                current = Some(e.index);
            }
            w.push(e.flags, e.key, e.value)?;
        }
        if let Some(k) = current {
            self.runs[usize::from(k)].push(w.end_run());
        }
        w.flush()?;
        self.file = Some((file, w.end()));
        buffer.clear();
        Ok(())
    }
}

/// One new index's tree being built from its entries in key order.
struct IndexSink<'a> {
    builder: BulkBuilder<'a>,
    table: &'a Table,
    layout: &'a TableLayout,
    position: usize,
    /// The index's place among the build's targets.
    target: usize,
    unique: bool,
    /// Key parts of the last entry without NULL (unique indexes).
    last: Option<Vec<u8>>,
    /// Where an online build keeps suspected duplicates.
    suspects: Option<&'a Suspects>,
}

impl<'a> IndexSink<'a> {
    fn new(
        table: &'a Table,
        layout: &'a TableLayout,
        (k, target): (usize, &NewIndex),
        fill_factor: u32,
        suspects: Option<&'a Suspects>,
    ) -> Result<Self> {
        Ok(Self {
            builder: BulkBuilder::new(target.tree, table.storage().pool(), fill_factor)?,
            table,
            layout,
            position: target.position,
            target: k,
            unique: layout.secondary[target.position].unique,
            last: None,
            suspects,
        })
    }

    fn push(&mut self, flags: u8, key: &[u8], value: &[u8]) -> Result<()> {
        if self.unique && flags & ENTRY_HAS_NULL == 0 {
            let (prefix, _) = self.layout.split_secondary_key(self.position, key)?;
            if self.last.as_deref() == Some(prefix)
                && !self.suspects.is_some_and(|s| s.note(self.target, key))
            {
                return Err(self
                    .table
                    .duplicate_in_new_index(self.layout, self.position, key));
            }
            let last = self.last.get_or_insert_with(Vec::new);
            last.clear();
            last.extend_from_slice(prefix);
        }
        self.builder.push(key, value)
    }

    fn finish(self) -> Result<u64> {
        self.builder.finish()
    }
}
