//! Index statistics from a sample of leaf pages: the number of distinct key
//! prefixes (InnoDB's `n_diff`, shown as `CARDINALITY`) and the pages an
//! index occupies (`DATA_LENGTH` / `INDEX_LENGTH`).
//!
//! Sampling follows InnoDB's transient statistics: at most `sample_pages`
//! leaves are read. When the tree has no more leaves than that, every leaf
//! is read in key order (left to right along the sibling links) and the
//! counts are exact. Otherwise the leaves are spread evenly over the key
//! space (each descent follows a fraction of the way through every node),
//! the distinct prefixes are counted inside each sampled leaf, and the ratio
//! of distinct prefixes to entries in the sample is scaled to the estimated
//! entry count of the whole tree. Delete-marked entries are skipped (purge
//! removes them). Latching is the readers' usual coupling: shared latches,
//! a parent held while its child is latched, at most two pages at a time.

use super::node::Node;
use super::{BTree, MAX_HEIGHT};
use crate::buffer::{BufferPool, Latch, PageGuard};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::page::{PageHeader, FIL_NULL};
use crate::space::alloc;

/// Distinct-prefix counts of an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixCounts {
    /// Estimated live entries in the tree.
    pub entries: u64,
    /// `distinct[k]`: estimated number of distinct values of the first
    /// `k + 1` key parts.
    pub distinct: Vec<u64>,
}

impl BTree {
    /// Pages allocated to the tree: both segments, including the off-page
    /// (overflow) chains stored in the leaf segment.
    pub fn allocated_pages(&self, pool: &BufferPool) -> Result<u64> {
        let (leaf, nonleaf) = self.segments(pool)?;
        let mut mtr = Mtr::start(pool)?;
        let leaves = alloc::segment_page_count(&mut mtr, self.space, leaf)?;
        let internal = alloc::segment_page_count(&mut mtr, self.space, nonleaf)?;
        mtr.commit()?;
        Ok(u64::from(leaves) + u64::from(internal))
    }

    /// Counts distinct prefixes of the first `parts` key parts from at most
    /// `sample_pages` leaves. `boundaries(key, out)` writes into `out` the
    /// byte length of each of the key's first `parts` prefixes (shorter when
    /// the key cannot be split, which counts as distinct).
    pub fn prefix_counts(
        &self,
        pool: &BufferPool,
        parts: usize,
        sample_pages: usize,
        boundaries: &dyn Fn(&[u8], &mut Vec<usize>),
    ) -> Result<PrefixCounts> {
        let sample_pages = sample_pages.max(1);
        let mut tally = Tally::new(parts);
        let leaves = self.estimate_leaves(pool)?;
        if leaves <= sample_pages as f64 {
            // Few leaves: read them all in order, so the counts are exact.
            let mut g = self.leftmost_leaf(pool)?;
            for _ in 0..=sample_pages {
                tally.add_leaf(Node(g.data()), true, boundaries);
                let next = PageHeader(g.data()).next();
                if next == FIL_NULL {
                    return Ok(tally.exact());
                }
                g = self.fix_node(pool, next, Latch::Shared)?;
            }
            // The tree grew past the estimate meanwhile: scale what was read.
            let total =
                self.estimate_range(pool, std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)?;
            return Ok(tally.scaled(total));
        }
        for i in 0..sample_pages {
            let fraction = (i as f64 + 0.5) / sample_pages as f64;
            let g = self.leaf_at(pool, fraction)?;
            tally.add_leaf(Node(g.data()), false, boundaries);
        }
        let total =
            self.estimate_range(pool, std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)?;
        Ok(tally.scaled(total))
    }

    /// Estimated number of leaves: the product of the internal node sizes on
    /// the path through each node's middle child.
    fn estimate_leaves(&self, pool: &BufferPool) -> Result<f64> {
        let mut leaves = 1.0f64;
        let mut g = self.fix_node(pool, self.root, Latch::Shared)?;
        for _ in 0..MAX_HEIGHT {
            let n = Node(g.data());
            if n.is_leaf() || n.is_empty() {
                break;
            }
            leaves *= n.len() as f64;
            let child = self.fix_node(pool, n.entry(n.len() / 2).child(), Latch::Shared)?;
            g = child;
        }
        Ok(leaves)
    }

    fn leftmost_leaf<'p>(&self, pool: &'p BufferPool) -> Result<PageGuard<'p>> {
        self.leaf_at(pool, 0.0)
    }

    /// The leaf found by following `fraction` (0 to 1) of the way through
    /// every node on the way down.
    fn leaf_at<'p>(&self, pool: &'p BufferPool, fraction: f64) -> Result<PageGuard<'p>> {
        let mut g = self.fix_node(pool, self.root, Latch::Shared)?;
        let mut f = fraction.clamp(0.0, 1.0);
        for _ in 0..MAX_HEIGHT {
            let n = Node(g.data());
            if n.is_leaf() || n.is_empty() {
                break;
            }
            let scaled = f * n.len() as f64;
            let i = (scaled as usize).min(n.len() - 1);
            f = (scaled - i as f64).clamp(0.0, 1.0);
            let child = self.fix_node(pool, n.entry(i).child(), Latch::Shared)?;
            g = child;
        }
        Ok(g)
    }
}

/// Running counts over the sampled leaves.
struct Tally {
    entries: u64,
    distinct: Vec<u64>,
    /// The previous live key, carried across leaves only when they are read
    /// in order (an exact count).
    previous: Option<Vec<u8>>,
    previous_bounds: Vec<usize>,
    bounds: Vec<usize>,
}

impl Tally {
    fn new(parts: usize) -> Self {
        Tally {
            entries: 0,
            distinct: vec![0; parts],
            previous: None,
            previous_bounds: Vec::with_capacity(parts),
            bounds: Vec::with_capacity(parts),
        }
    }

    fn add_leaf(
        &mut self,
        n: Node<'_>,
        in_order: bool,
        boundaries: &dyn Fn(&[u8], &mut Vec<usize>),
    ) {
        if !in_order {
            self.previous = None;
        }
        for i in 0..n.len() {
            let e = n.entry(i);
            if e.is_deleted() {
                continue;
            }
            self.entries += 1;
            self.bounds.clear();
            boundaries(e.key, &mut self.bounds);
            for (k, d) in self.distinct.iter_mut().enumerate() {
                let same = match (
                    &self.previous,
                    self.bounds.get(k),
                    self.previous_bounds.get(k),
                ) {
                    (Some(prev), Some(&b), Some(&pb)) => b == pb && prev[..pb] == e.key[..b],
                    _ => false,
                };
                if !same {
                    *d += 1;
                }
            }
            match &mut self.previous {
                Some(prev) => {
                    prev.clear();
                    prev.extend_from_slice(e.key);
                }
                None => self.previous = Some(e.key.to_vec()),
            }
            std::mem::swap(&mut self.previous_bounds, &mut self.bounds);
        }
    }

    fn exact(self) -> PrefixCounts {
        PrefixCounts {
            entries: self.entries,
            distinct: self.distinct,
        }
    }

    /// Scales the sample's distinct-to-entries ratio to `total` entries.
    fn scaled(self, total: u64) -> PrefixCounts {
        let total = total.max(self.entries);
        let distinct = self
            .distinct
            .iter()
            .map(|&d| {
                if self.entries == 0 {
                    0
                } else {
                    ((d as f64 / self.entries as f64) * total as f64).round() as u64
                }
            })
            .collect();
        PrefixCounts {
            entries: total,
            distinct,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::btree::{BTree, OnDuplicate};
    use crate::config::EngineConfig;
    use crate::error::Result;
    use crate::io::{SimVfs, Vfs};
    use crate::page::PageSize;
    use crate::storage::Storage;

    /// Keys of two 4-byte parts: `a` then `b`.
    fn key(a: u32, b: u32) -> Vec<u8> {
        let mut k = a.to_be_bytes().to_vec();
        k.extend_from_slice(&b.to_be_bytes());
        k
    }

    fn split(key: &[u8], out: &mut Vec<usize>) {
        if key.len() >= 8 {
            out.extend([4, 8]);
        }
    }

    fn storage() -> Result<Storage> {
        let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
        let mut c = EngineConfig::new("/d");
        c.page_size = Some(PageSize::K4);
        c.buffer_pool_size = 512 * 4096;
        c.log_file_size = 8 << 20;
        c.undo_tablespaces = 0;
        Storage::open_or_create(c, vfs)
    }

    #[test]
    fn small_trees_are_counted_exactly_and_large_ones_estimated() -> Result<()> {
        let s = storage()?;
        let space = s.create_tablespace("db/t.ibd")?;
        let tree = BTree::create(s.pool(), space, 1)?;
        // 40 distinct values of `a`, each with 5 rows.
        for a in 0..40u32 {
            for b in 0..5u32 {
                tree.insert(s.pool(), &key(a, b), &[1u8; 20], OnDuplicate::Error)?;
            }
        }
        let c = tree.prefix_counts(s.pool(), 2, 8, &split)?;
        assert_eq!(c.entries, 200);
        assert_eq!(c.distinct, vec![40, 200], "a small tree is read whole");

        // Many leaves: 2,000 values of `a` with 10 rows each.
        let big = BTree::create(s.pool(), space, 2)?;
        for a in 0..2_000u32 {
            for b in 0..10u32 {
                big.insert(s.pool(), &key(a, b), &[2u8; 40], OnDuplicate::Error)?;
            }
        }
        let c = big.prefix_counts(s.pool(), 2, 8, &split)?;
        let within = |e: u64, actual: u64| e * 2 >= actual && e <= actual * 2;
        assert!(within(c.entries, 20_000), "entries {}", c.entries);
        assert!(within(c.distinct[0], 2_000), "distinct a {}", c.distinct[0]);
        assert!(
            within(c.distinct[1], 20_000),
            "distinct (a,b) {}",
            c.distinct[1]
        );
        let pages = big.allocated_pages(s.pool())?;
        // 20,000 entries of 53 bytes + slot on 4k pages: at least 250 leaves.
        assert!(pages >= 250, "pages {pages}");
        assert!(tree.allocated_pages(s.pool())? >= 1);
        Ok(())
    }

    #[test]
    fn delete_marked_entries_are_not_counted() -> Result<()> {
        let s = storage()?;
        let space = s.create_tablespace("db/d.ibd")?;
        let tree = BTree::create(s.pool(), space, 1)?;
        for a in 0..10u32 {
            tree.insert(s.pool(), &key(a, 0), &[1u8; 8], OnDuplicate::Error)?;
        }
        for a in 0..4u32 {
            assert!(tree.set_delete_mark(s.pool(), &key(a, 0), true)?);
        }
        let c = tree.prefix_counts(s.pool(), 2, 8, &split)?;
        assert_eq!(c.entries, 6);
        assert_eq!(c.distinct, vec![6, 6]);
        Ok(())
    }
}
