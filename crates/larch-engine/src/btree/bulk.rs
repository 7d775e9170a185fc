//! [`BulkBuilder`]: builds a B+tree bottom-up from sorted input.
//!
//! Used by index builds and by loads into empty tables: entries arrive in key
//! order and fill leaf pages left to right up to `innodb_fill_factor` percent;
//! each finished page is written in its own mini-transaction, linked to its left
//! neighbour, and its first key goes to the level above, which fills the same
//! way. At the end the single page of the top level is written into the tree's
//! root page, so the root page number never changes. No page is split or read
//! back, and no entry is inserted twice.

use super::node::{self, Entry, Node};
use super::{segments_of, BTree};
use crate::buffer::{BufferPool, Latch};
use crate::error::{EngineError, Result};
use crate::mtr::Mtr;
use crate::page::{self, PageType, FIL_NULL};
use crate::space::alloc;

struct Level {
    entries: Vec<Entry>,
    bytes: usize,
    /// The last page written at this level.
    prev: u32,
}

/// See the module documentation.
pub struct BulkBuilder<'p> {
    tree: BTree,
    pool: &'p BufferPool,
    fill_bytes: usize,
    levels: Vec<Level>,
    last_key: Option<Vec<u8>>,
    count: u64,
}

impl<'p> BulkBuilder<'p> {
    /// Starts a build into `tree`, which must be empty. `fill_factor` is a
    /// percentage (10..=100) as `innodb_fill_factor`.
    pub fn new(tree: BTree, pool: &'p BufferPool, fill_factor: u32) -> Result<Self> {
        let g = tree.fix_node(pool, tree.root, Latch::Shared)?;
        let n = Node(g.data());
        if !n.is_leaf() || !n.is_empty() {
            return Err(EngineError::Internal(
                "bulk build into a non-empty tree".into(),
            ));
        }
        let cap = Node::capacity(pool.page_size().bytes());
        // As InnoDB, even at 100% keep 1/16 of a page free for later updates.
        let pct = fill_factor.clamp(10, 100) as usize;
        let fill_bytes = (cap * pct / 100).min(cap - cap / 16);
        Ok(Self {
            tree,
            pool,
            fill_bytes,
            levels: Vec::new(),
            last_key: None,
            count: 0,
        })
    }

    /// Adds the next entry; keys must be strictly increasing.
    pub fn push(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let max = BTree::max_entry_bytes(self.pool);
        if key.len() + value.len() > max {
            return Err(EngineError::KeyTooLong { max });
        }
        if self.last_key.as_deref().is_some_and(|k| k >= key) {
            return Err(EngineError::Internal(
                "bulk build input is not in strictly increasing key order".into(),
            ));
        }
        self.last_key = Some(key.to_vec());
        self.count += 1;
        self.add(
            0,
            Entry {
                flags: 0,
                key: key.to_vec(),
                value: value.to_vec(),
            },
        )
    }

    fn add(&mut self, level: usize, e: Entry) -> Result<()> {
        if self.levels.len() <= level {
            self.levels.push(Level {
                entries: Vec::new(),
                bytes: 0,
                prev: FIL_NULL,
            });
        }
        let size = e.heap_size() + 2;
        let l = &self.levels[level];
        if !l.entries.is_empty() && l.bytes + size > self.fill_bytes {
            self.flush_page(level)?;
        }
        let l = &mut self.levels[level];
        l.bytes += size;
        l.entries.push(e);
        Ok(())
    }

    /// Writes the pending page of `level` as a new page and sends its first key up.
    fn flush_page(&mut self, level: usize) -> Result<()> {
        let entries = std::mem::take(&mut self.levels[level].entries);
        self.levels[level].bytes = 0;
        let prev = self.levels[level].prev;
        let mut mtr = Mtr::start(self.pool)?;
        let root = self
            .tree
            .node_in_mtr(&mut mtr, self.tree.root, Latch::Exclusive)?;
        let (leaf_seg, nonleaf_seg) = segments_of(mtr.data(root));
        let seg = if level == 0 { leaf_seg } else { nonleaf_seg };
        let no = alloc::alloc_segment_page(&mut mtr, self.tree.space, seg)?;
        let p = mtr.new_page(self.tree.page(no), PageType::Index)?;
        node::write_node(&mut mtr, p, level as u16, self.tree.index_id, &entries);
        mtr.write_u32(p, page::offset::PREV, prev);
        mtr.write_u32(p, page::offset::NEXT, FIL_NULL);
        if prev != FIL_NULL {
            let pp = self.tree.node_in_mtr(&mut mtr, prev, Latch::Exclusive)?;
            mtr.write_u32(pp, page::offset::NEXT, no);
        }
        mtr.commit()?;
        // The leftmost entry of an internal level gets the empty key (below all).
        let first = if prev == FIL_NULL {
            Vec::new()
        } else {
            entries.first().map(|e| e.key.clone()).unwrap_or_default()
        };
        self.levels[level].prev = no;
        self.add(
            level + 1,
            Entry {
                flags: 0,
                key: first,
                value: no.to_le_bytes().to_vec(),
            },
        )
    }

    /// Finishes the build; returns the number of entries.
    pub fn finish(mut self) -> Result<u64> {
        let mut level = 0;
        while level < self.levels.len() {
            let is_top = level + 1 == self.levels.len() && self.levels[level].prev == FIL_NULL;
            if is_top {
                let entries = std::mem::take(&mut self.levels[level].entries);
                let mut mtr = Mtr::start(self.pool)?;
                let root = self
                    .tree
                    .node_in_mtr(&mut mtr, self.tree.root, Latch::Exclusive)?;
                node::write_node(&mut mtr, root, level as u16, self.tree.index_id, &entries);
                mtr.commit()?;
                break;
            }
            if !self.levels[level].entries.is_empty() {
                self.flush_page(level)?;
            }
            level += 1;
        }
        Ok(self.count)
    }
}
