//! Cardinality estimates: how many entries lie in a key range, from a few
//! page reads (InnoDB's `btr_estimate_n_rows_in_range`), for the planner and
//! for the row counts SQL shows (`TABLE_ROWS`, `EXPLAIN`'s `rows`).
//!
//! The two bounds are followed down from the root together while they route
//! to the same child. At the leaf the entries between them are counted. At
//! the level where they part, the children between the two routes count as
//! whole subtrees and the two edge children as half one each, and a subtree's
//! size is the product of the node sizes on one path from the middle child
//! down to a leaf. Delete-marked entries count (purge removes them soon), so
//! the figure is an estimate, never a count: it takes `height` page reads
//! with shared latches (parent held while the child is latched), whatever
//! the size of the range.

use std::ops::Bound;

use super::node::Node;
use super::{BTree, MAX_HEIGHT};
use crate::buffer::{BufferPool, Latch};
use crate::error::Result;

impl BTree {
    /// Estimated number of entries with keys between `from` and `to`.
    pub fn estimate_range(
        &self,
        pool: &BufferPool,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<u64> {
        let mut g = self.fix_node(pool, self.root, Latch::Shared)?;
        for _ in 0..MAX_HEIGHT {
            let n = Node(g.data());
            let len = n.len();
            if n.is_leaf() {
                let lo = match from {
                    Bound::Unbounded => 0,
                    Bound::Included(k) => n.search(k).unwrap_or_else(|i| i),
                    Bound::Excluded(k) => n.search(k).map_or_else(|i| i, |i| i + 1),
                };
                let hi = match to {
                    Bound::Unbounded => len,
                    Bound::Included(k) => n.search(k).map_or_else(|i| i, |i| i + 1),
                    Bound::Excluded(k) => n.search(k).unwrap_or_else(|i| i),
                };
                return Ok(hi.saturating_sub(lo) as u64);
            }
            if len == 0 {
                return Ok(0);
            }
            let lo = match from {
                Bound::Unbounded => 0,
                Bound::Included(k) | Bound::Excluded(k) => n.child_index(k),
            };
            let hi = match to {
                Bound::Unbounded => len - 1,
                Bound::Included(k) | Bound::Excluded(k) => n.child_index(k),
            };
            if hi < lo {
                return Ok(0);
            }
            if lo == hi {
                let child = self.fix_node(pool, n.entry(lo).child(), Latch::Shared)?;
                g = child;
                continue;
            }
            // The routes part here: hi - lo - 1 whole subtrees and two halves.
            let middle = n.entry((lo + hi) / 2).child();
            let per_subtree = self.subtree_size(pool, middle)?;
            let subtrees = (hi - lo - 1) as f64 + 1.0;
            return Ok((subtrees * per_subtree).round() as u64);
        }
        Ok(0)
    }

    /// Estimated entries under node `page`: the product of the node sizes
    /// along the path through each node's middle child.
    fn subtree_size(&self, pool: &BufferPool, page: u32) -> Result<f64> {
        let mut size = 1.0f64;
        let mut g = self.fix_node(pool, page, Latch::Shared)?;
        for _ in 0..MAX_HEIGHT {
            let n = Node(g.data());
            size *= n.len() as f64;
            if n.is_leaf() || n.is_empty() {
                return Ok(size);
            }
            let child = self.fix_node(pool, n.entry(n.len() / 2).child(), Latch::Shared)?;
            g = child;
        }
        Ok(size)
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Bound;
    use std::sync::Arc;

    use crate::btree::{BTree, OnDuplicate};
    use crate::buffer::BufferPool;
    use crate::config::EngineConfig;
    use crate::error::Result;
    use crate::io::{SimVfs, Vfs};
    use crate::page::PageSize;
    use crate::storage::Storage;

    fn key(i: u32) -> Vec<u8> {
        i.to_be_bytes().to_vec()
    }

    /// Within a factor of two (plus a little for tiny ranges).
    fn within(estimate: u64, actual: u64) -> bool {
        let (e, a) = (estimate as f64, actual as f64);
        e >= a * 0.5 - 4.0 && e <= a * 2.0 + 4.0
    }

    fn check(pool: &BufferPool, t: &BTree, keys: &[u32]) -> Result<()> {
        let n = keys.len() as u32;
        let all = t.estimate_range(pool, Bound::Unbounded, Bound::Unbounded)?;
        assert!(within(all, u64::from(n)), "whole tree: {all} for {n}");
        let max = keys.iter().copied().max().unwrap_or(0) + 1;
        for (lo, hi) in [
            (0, max / 10),
            (max / 3, max / 2),
            (max / 2, max / 2 + 5),
            (max - 1, max + 10),
        ] {
            let (a, b) = (key(lo), key(hi));
            let e = t.estimate_range(pool, Bound::Included(&a), Bound::Excluded(&b))?;
            let actual = keys.iter().filter(|&&k| k >= lo && k < hi).count() as u64;
            assert!(within(e, actual), "[{lo}, {hi}): {e} for {actual} of {n}");
        }
        let (a, b) = (key(max + 5), key(max + 50));
        let e = t.estimate_range(pool, Bound::Included(&a), Bound::Included(&b))?;
        assert_eq!(e, 0, "a range past the last key");
        Ok(())
    }

    #[test]
    fn estimates_follow_the_entry_count_in_single_and_multi_level_trees() -> Result<()> {
        let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
        let mut c = EngineConfig::new("/d");
        c.page_size = Some(PageSize::K4);
        c.buffer_pool_size = 512 * 4096;
        c.log_file_size = 8 << 20;
        c.undo_tablespaces = 0;
        let s = Storage::open_or_create(c, vfs)?;
        for (scrambled, space_name) in [(false, "db/seq.ibd"), (true, "db/rand.ibd")] {
            let space = s.create_tablespace(space_name)?;
            let t = BTree::create(s.pool(), space, 1)?;
            let empty = t.estimate_range(s.pool(), Bound::Unbounded, Bound::Unbounded)?;
            assert_eq!(empty, 0);
            let mut keys = Vec::new();
            for target in [40u32, 2_000, 30_000] {
                while (keys.len() as u32) < target {
                    let i = keys.len() as u32;
                    // Keys 0..30,000 in a scrambled order leave pages part full.
                    let k = if scrambled {
                        (u64::from(i) * 7_919 % 30_011) as u32
                    } else {
                        i
                    };
                    t.insert(s.pool(), &key(k), &[7u8; 40], OnDuplicate::Error)?;
                    keys.push(k);
                }
                check(s.pool(), &t, &keys)?;
            }
        }
        Ok(())
    }
}
