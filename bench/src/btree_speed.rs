//! Speed figures of the B+tree: point lookups, sequential and random inserts,
//! range scans and bulk builds, on the clustered tree of the `sbtest` shape
//! ([`crate::btree_sbtest`]) in a real data directory.
//!
//! Every table lives in its own file-per-table tablespace, created untimed
//! before a run and dropped after it, so each insert or build run starts from an
//! empty tree. The buffer pool holds the whole table (the binary sizes it), so
//! no figure here waits for a page read; the lookup notes report the pages read
//! during the runs (warm-up included) to show it. Inserts are mini-transactions whose redo is written by
//! the background log writer: no row waits for `fdatasync` (no transaction
//! commits here), but every row pays for its redo record, and the page cleaner
//! flushes dirty pages in the background as it would under load.

use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::time::Instant;

use larch_engine::btree::bulk::BulkBuilder;
use larch_engine::btree::{BTree, OnDuplicate};
use larch_engine::storage::Storage;

use crate::btree_sbtest::{shuffled_ids, EncodedRows, SplitMix64};
use larch_bench::harness::{median, repeat, run_parallel, spread, Mode, Report, Result};

/// `innodb_fill_factor` default: pages filled up to 100% (less 1/16 kept free).
pub const FILL_FACTOR: u32 = 100;
/// Rows per short range scan.
const SHORT_SCAN_ROWS: usize = 100;

/// A tablespace holding one clustered tree.
pub struct Table<'s> {
    storage: &'s Storage,
    pub space: u32,
    pub tree: BTree,
}

impl<'s> Table<'s> {
    /// Creates tablespace `name` with an empty tree (index id 1).
    pub fn create(storage: &'s Storage, name: &str) -> Result<Self> {
        let space = storage.create_tablespace(name)?;
        let tree = BTree::create(storage.pool(), space, 1)?;
        Ok(Self {
            storage,
            space,
            tree,
        })
    }

    /// Drops the tablespace (its pages leave the buffer pool).
    pub fn drop_space(self) -> Result<()> {
        self.storage.drop_tablespace(self.space)?;
        Ok(())
    }
}

/// Builds `tree` from rows `1..=n` with [`BulkBuilder`]; returns the seconds.
pub fn bulk_load(storage: &Storage, tree: BTree, rows: &EncodedRows, n: u64) -> Result<f64> {
    let t0 = Instant::now();
    let mut b = BulkBuilder::new(tree, storage.pool(), FILL_FACTOR)?;
    for id in 1..=n {
        b.push(rows.key(id), rows.value(id))?;
    }
    let count = b.finish()?;
    let secs = t0.elapsed().as_secs_f64();
    if count != n {
        return Err(format!("bulk build took {count} of {n} rows").into());
    }
    Ok(secs)
}

/// Inserts `ids` in that order; returns the seconds.
fn insert_ids(storage: &Storage, tree: BTree, rows: &EncodedRows, ids: &[u64]) -> Result<f64> {
    let pool = storage.pool();
    let t0 = Instant::now();
    for &id in ids {
        tree.insert(pool, rows.key(id), rows.value(id), OnDuplicate::Error)?;
    }
    Ok(t0.elapsed().as_secs_f64())
}

fn pages_read(storage: &Storage) -> u64 {
    storage.pool().stats().reads.load(Ordering::Relaxed)
}

/// Point lookups with 1 and 2 threads on `tree` (rows `1..=n`, resident).
pub fn run_lookups(
    report: &mut Report,
    mode: Mode,
    storage: &Storage,
    tree: BTree,
    rows: &EncodedRows,
    n: u64,
) -> Result<()> {
    let pool = storage.pool();
    for threads in [1usize, 2] {
        // Every thread looks up every row once, in its own random order.
        let orders: Vec<Vec<u64>> = (0..threads)
            .map(|i| shuffled_ids(n, 0x100 + i as u64))
            .collect();
        let expected: Vec<usize> = orders
            .iter()
            .map(|o| o.iter().map(|&id| rows.value(id).len()).sum())
            .collect();
        let reads0 = pages_read(storage);
        let secs = repeat(mode, || {
            let (secs, found) = run_parallel(threads, |i| {
                let mut bytes = 0usize;
                for &id in &orders[i] {
                    let f = tree
                        .get(pool, rows.key(id))?
                        .ok_or_else(|| format!("row {id} not found"))?;
                    bytes += f.value.len();
                }
                Ok(bytes)
            })?;
            if found != expected {
                return Err("lookups returned values of the wrong sizes".into());
            }
            Ok(secs)
        })?;
        let reads = pages_read(storage) - reads0;
        let ns: Vec<f64> = secs.iter().map(|s| s * 1e9 / n as f64).collect();
        let ops: Vec<f64> = secs
            .iter()
            .map(|s| (threads as u64 * n) as f64 / s)
            .collect();
        report.add(
            format!("btree.lookup.{threads}t"),
            median(&ns),
            "ns/op",
            format!(
                "random keys, {n} rows, per thread; {}; {reads} pages read",
                spread(&ns)
            ),
        );
        report.add(
            format!("btree.lookup.{threads}t.total"),
            median(&ops),
            "ops/s",
            format!("{threads} thread(s) together; {}", spread(&ops)),
        );
    }
    Ok(())
}

/// A full forward scan and many short scans of [`SHORT_SCAN_ROWS`] rows.
pub fn run_scans(
    report: &mut Report,
    mode: Mode,
    storage: &Storage,
    tree: BTree,
    rows: &EncodedRows,
    n: u64,
) -> Result<()> {
    let pool = storage.pool();
    let full = repeat(mode, || {
        let t0 = Instant::now();
        let mut c = tree.range(pool, Bound::Unbounded, Bound::Unbounded, false);
        let mut count = 0u64;
        while let Some(e) = c.next_entry()? {
            count += (!e.value.is_empty()) as u64;
        }
        let secs = t0.elapsed().as_secs_f64();
        if count != n {
            return Err(format!("full scan returned {count} of {n} rows").into());
        }
        Ok(n as f64 / secs)
    })?;
    report.add(
        "btree.scan.full",
        median(&full),
        "rows/s",
        format!("forward cursor over {n} rows; {}", spread(&full)),
    );
    let scans = mode.pick(1000, 5000);
    let last_start = n.saturating_sub(SHORT_SCAN_ROWS as u64).max(1);
    let mut rng = SplitMix64::new(0x5ca9);
    let starts: Vec<u64> = (0..scans).map(|_| rng.below(last_start) + 1).collect();
    let short = repeat(mode, || {
        let t0 = Instant::now();
        let mut count = 0usize;
        for &id in &starts {
            let from = Bound::Included(rows.key(id).to_vec());
            let mut c = tree.range(pool, from, Bound::Unbounded, false);
            for _ in 0..SHORT_SCAN_ROWS {
                if c.next_entry()?.is_none() {
                    break;
                }
                count += 1;
            }
        }
        let secs = t0.elapsed().as_secs_f64();
        if count != scans * SHORT_SCAN_ROWS.min(n as usize) {
            return Err(format!("short scans returned {count} rows").into());
        }
        Ok(secs)
    })?;
    let rps: Vec<f64> = short
        .iter()
        .map(|s| (scans * SHORT_SCAN_ROWS) as f64 / s)
        .collect();
    let us: Vec<f64> = short.iter().map(|s| s * 1e6 / scans as f64).collect();
    report.add(
        "btree.scan.short",
        median(&rps),
        "rows/s",
        format!(
            "{scans} scans of {SHORT_SCAN_ROWS} rows from random keys; {}",
            spread(&rps)
        ),
    );
    report.add(
        "btree.scan.short.latency",
        median(&us),
        "us/scan",
        format!(
            "one scan of {SHORT_SCAN_ROWS} rows (search + copy); {}",
            spread(&us)
        ),
    );
    Ok(())
}

/// Sequential and random inserts of rows `1..=n` into an empty tree.
pub fn run_inserts(
    report: &mut Report,
    mode: Mode,
    storage: &Storage,
    rows: &EncodedRows,
    n: u64,
) -> Result<()> {
    let sequential: Vec<u64> = (1..=n).collect();
    let random = shuffled_ids(n, 0x1a5e);
    for (name, ids, what) in [
        ("sequential", &sequential, "ascending ids"),
        ("random", &random, "ids in random order"),
    ] {
        let mut run = 0;
        let rate = repeat(mode, || {
            run += 1;
            let t = Table::create(storage, &format!("bench/insert_{name}_{run}.ibd"))?;
            let secs = insert_ids(storage, t.tree, rows, ids)?;
            t.drop_space()?;
            Ok(n as f64 / secs)
        })?;
        report.add(
            format!("btree.insert.{name}"),
            median(&rate),
            "rows/s",
            format!(
                "{n} rows ({what}) into an empty tree, one thread; {}",
                spread(&rate)
            ),
        );
    }
    Ok(())
}

/// Bulk builds of rows `1..=n` into an empty tree.
pub fn run_bulk(
    report: &mut Report,
    mode: Mode,
    storage: &Storage,
    rows: &EncodedRows,
    n: u64,
) -> Result<()> {
    let mut run = 0;
    let rate = repeat(mode, || {
        run += 1;
        let t = Table::create(storage, &format!("bench/bulk_{run}.ibd"))?;
        let secs = bulk_load(storage, t.tree, rows, n)?;
        t.drop_space()?;
        Ok(n as f64 / secs)
    })?;
    report.add(
        "btree.bulk_build",
        median(&rate),
        "rows/s",
        format!(
            "BulkBuilder, fill factor {FILL_FACTOR}, {n} sorted rows; {}",
            spread(&rate)
        ),
    );
    Ok(())
}
