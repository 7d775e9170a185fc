//! Space amplification of the `sbtest` table ([`crate::btree_sbtest`]): bytes
//! on disk and pages of the two trees per logical byte, after three kinds of
//! build.
//!
//! The table is one file-per-table tablespace holding the clustered tree and
//! the secondary tree on `k`, as in InnoDB. Builds:
//! - `sequential`: rows inserted in ascending id order (the clustered tree fills
//!   left to right; the secondary tree gets its keys in random order);
//! - `random`: rows inserted in random id order (both trees split at random);
//! - `bulk`: both trees built bottom-up by `BulkBuilder` from sorted input at
//!   fill factor 100, as an index build or a load into an empty table does.
//!
//! After the build every page is flushed. Figures: the tablespace file size
//! and its allocated blocks, the pages of the two trees (leaf + non-leaf, found
//! by walking them) and how full their leaves are; each is also given per
//! logical byte (188 bytes per row: the declared column sizes).

use std::os::unix::fs::MetadataExt;
use std::time::Instant;

use larch_engine::btree::bulk::BulkBuilder;
use larch_engine::btree::node::Node;
use larch_engine::btree::{BTree, OnDuplicate};
use larch_engine::buffer::Latch;
use larch_engine::page::PageId;
use larch_engine::storage::Storage;

use crate::btree_sbtest::{shuffled_ids, EncodedRows, Sbtest};
use crate::btree_speed::{bulk_load, FILL_FACTOR};
use larch_bench::harness::{fmt_value, Report, Result};

/// How a table was built.
#[derive(Debug, Clone, Copy)]
enum Build {
    Sequential,
    Random,
    Bulk,
}

impl Build {
    fn name(self) -> &'static str {
        match self {
            Build::Sequential => "sequential",
            Build::Random => "random",
            Build::Bulk => "bulk",
        }
    }
}

/// Pages of one tree, by walking it level by level.
#[derive(Debug, Default)]
struct TreeShape {
    leaf_pages: u64,
    nonleaf_pages: u64,
    /// Root level (0 = the root is a leaf).
    height: u16,
    /// Bytes of live entries and their slots in the leaves.
    leaf_used_bytes: u64,
}

impl TreeShape {
    fn pages(&self) -> u64 {
        self.leaf_pages + self.nonleaf_pages
    }
}

fn shape(storage: &Storage, tree: &BTree) -> Result<TreeShape> {
    let pool = storage.pool();
    let mut s = TreeShape::default();
    let mut level = vec![tree.root];
    loop {
        let mut next = Vec::new();
        let mut leaves = false;
        for &p in &level {
            let g = pool.fix(PageId::new(tree.space, p), Latch::Shared)?;
            let n = Node(g.data());
            if n.is_leaf() {
                leaves = true;
                s.leaf_used_bytes += n.used_bytes() as u64;
            } else {
                s.height = s.height.max(n.level());
                next.extend((0..n.len()).map(|i| n.entry(i).child()));
            }
        }
        if leaves {
            s.leaf_pages = level.len() as u64;
            return Ok(s);
        }
        s.nonleaf_pages += level.len() as u64;
        level = next;
    }
}

/// Builds the table one way; returns the two trees and the build seconds.
fn build(
    storage: &Storage,
    t: &Sbtest,
    rows: &EncodedRows,
    space: u32,
    how: Build,
) -> Result<(BTree, BTree, f64)> {
    let pool = storage.pool();
    let clustered = BTree::create(pool, space, 1)?;
    let secondary = BTree::create(pool, space, 2)?;
    let n = t.rows();
    let t0 = Instant::now();
    match how {
        Build::Sequential | Build::Random => {
            let ids: Vec<u64> = match how {
                Build::Random => shuffled_ids(n, 0x5ace),
                _ => (1..=n).collect(),
            };
            for id in ids {
                clustered.insert(pool, rows.key(id), rows.value(id), OnDuplicate::Error)?;
                secondary.insert(
                    pool,
                    &t.secondary_key(id)?,
                    &t.secondary_value(id)?,
                    OnDuplicate::Error,
                )?;
            }
        }
        Build::Bulk => {
            bulk_load(storage, clustered, rows, n)?;
            let mut keys = (1..=n)
                .map(|id| Ok((t.secondary_key(id)?, id)))
                .collect::<Result<Vec<(Vec<u8>, u64)>>>()?;
            keys.sort_unstable();
            let mut b = BulkBuilder::new(secondary, pool, FILL_FACTOR)?;
            for (k, id) in keys {
                b.push(&k, &t.secondary_value(id)?)?;
            }
            b.finish()?;
        }
    }
    Ok((clustered, secondary, t0.elapsed().as_secs_f64()))
}

/// Builds the table three ways and reports its size after each.
pub fn run(report: &mut Report, storage: &Storage, t: &Sbtest, rows: &EncodedRows) -> Result<()> {
    let n = t.rows();
    let logical = t.logical_bytes() as f64;
    let page = storage.page_size().bytes() as u64;
    let capacity = Node::capacity(page as usize) as f64;
    eprintln!(
        "  logical size: {n} rows x 188 B = {} MB; clustered value {:.1} B per row",
        fmt_value(logical / 1e6),
        rows.mean_value_len()
    );
    for how in [Build::Sequential, Build::Random, Build::Bulk] {
        let name = format!("bench/sbtest_{}.ibd", how.name());
        let space = storage.create_tablespace(&name)?;
        let (clustered, secondary, secs) = build(storage, t, rows, space, how)?;
        storage.flush_all()?;
        let path = storage.spaces().path_of(&name);
        let meta = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = meta.len() as f64;
        let allocated = (meta.blocks() * 512) as f64;
        let c = shape(storage, &clustered)?;
        let s = shape(storage, &secondary)?;
        let tree_bytes = ((c.pages() + s.pages()) * page) as f64;
        let p = format!("space.{}", how.name());
        report.add(
            format!("{p}.file_per_logical"),
            file / logical,
            "ratio",
            format!(
                "file {} MB ({} MB allocated) for {} MB logical; built in {:.1} s",
                fmt_value(file / 1e6),
                fmt_value(allocated / 1e6),
                fmt_value(logical / 1e6),
                secs
            ),
        );
        report.add(
            format!("{p}.trees_per_logical"),
            tree_bytes / logical,
            "ratio",
            format!(
                "{} pages in both trees = {} MB",
                c.pages() + s.pages(),
                fmt_value(tree_bytes / 1e6)
            ),
        );
        for (tree, sh) in [("clustered", &c), ("secondary", &s)] {
            report.add(
                format!("{p}.{tree}.pages"),
                sh.pages() as f64,
                "pages",
                format!(
                    "{} leaf + {} non-leaf, root level {}, leaves {:.1}% full",
                    sh.leaf_pages,
                    sh.nonleaf_pages,
                    sh.height,
                    100.0 * sh.leaf_used_bytes as f64 / (sh.leaf_pages as f64 * capacity)
                ),
            );
        }
        storage.drop_tablespace(space)?;
    }
    Ok(())
}
