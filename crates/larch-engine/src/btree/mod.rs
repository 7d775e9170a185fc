//! B+trees: clustered and secondary indexes over memcomparable keys.
//!
//! A [`BTree`] maps byte-string keys (encoded so that byte order is SQL order,
//! see `record::key`) to byte-string values: rows for a clustered index, a
//! transaction stamp and covering values for a secondary index. Keys are unique;
//! a secondary index makes its keys unique by appending the primary key.
//!
//! Structure: node pages ([`node`]) linked to their siblings at every level; the
//! root page never moves (an index is found by its root page number); leaves and
//! internal nodes are allocated from two segments whose references live in the
//! root page, as in InnoDB. Each entry has a delete-mark flag for MVCC.
//!
//! Concurrency (latch coupling):
//! - reads descend with shared latches, holding at most a parent and a child;
//! - a change first tries the optimistic path: shared latches down to the leaf's
//!   parent, an exclusive latch on the leaf, and the change only if it needs no
//!   split or merge;
//! - otherwise the pessimistic path latches the whole root-to-leaf path
//!   exclusively in one mini-transaction and splits or merges
//!   ([`modify`]), raising or lowering the root as needed;
//! - siblings are latched left to right only; cursors ([`cursor`]) never keep
//!   latches between calls: they remember the last key and search again.
//!
//! Every change is a mini-transaction, so the tree is crash-safe.

pub mod bulk;
pub mod check;
pub mod cursor;
mod estimate;
mod modify;
pub mod node;
mod statistics;

use std::ops::Bound;

pub use cursor::Cursor;
pub use statistics::PrefixCounts;

use crate::buffer::{BufferPool, Latch, PageGuard};
use crate::error::{EngineError, Result};
use crate::mtr::{Mtr, PageRef};
use crate::page::{PageHeader, PageId, PageType};
use crate::space::alloc::{self, SegmentRef};
use node::{Entry, Node, FLAG_DELETED};

/// Deepest tree supported (far beyond any real index).
const MAX_HEIGHT: usize = 32;

/// A B+tree index: its tablespace, root page and index id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BTree {
    pub space: u32,
    pub root: u32,
    pub index_id: u64,
}

/// A value found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub value: Vec<u8>,
    pub deleted: bool,
}

/// What [`BTree::insert`] does when the key exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDuplicate {
    /// Fail with [`EngineError::DuplicateKey`] (a delete-marked entry is replaced).
    Error,
    /// Replace the value (and clear a delete mark).
    Replace,
}

impl BTree {
    /// Creates an empty tree in `space`: two segments and a root leaf.
    pub fn create(pool: &BufferPool, space: u32, index_id: u64) -> Result<Self> {
        let mut mtr = Mtr::start(pool)?;
        let leaf_seg = alloc::create_segment(&mut mtr, space)?;
        let nonleaf_seg = alloc::create_segment(&mut mtr, space)?;
        let root = alloc::alloc_segment_page(&mut mtr, space, nonleaf_seg)?;
        let p = mtr.new_page(PageId::new(space, root), PageType::Index)?;
        node::write_node(&mut mtr, p, 0, index_id, &[]);
        mtr.write_bytes(p, node::LEAF_SEGMENT, &leaf_seg.to_bytes());
        mtr.write_bytes(p, node::NONLEAF_SEGMENT, &nonleaf_seg.to_bytes());
        mtr.write_u16(p, node::NODE_FLAGS, node::NODE_ROOT);
        mtr.commit()?;
        Ok(Self {
            space,
            root,
            index_id,
        })
    }

    /// Opens the tree whose root is `root`, checking that it is an index root.
    pub fn open(pool: &BufferPool, space: u32, root: u32) -> Result<Self> {
        let g = pool.fix(PageId::new(space, root), Latch::Shared)?;
        let h = crate::page::PageHeader(g.data());
        if h.page_type() != Some(PageType::Index) || !Node(g.data()).is_root() {
            return Err(EngineError::Corruption {
                path: pool.spaces().path_of(&pool.spaces().get(space)?.name),
                page: PageId::new(space, root),
                reason: "not a B+tree root page".into(),
            });
        }
        Ok(Self {
            space,
            root,
            index_id: Node(g.data()).index_id(),
        })
    }

    pub(crate) fn page(&self, no: u32) -> PageId {
        PageId::new(self.space, no)
    }

    /// Largest key + value accepted.
    pub fn max_entry_bytes(pool: &BufferPool) -> usize {
        node::max_entry_bytes(pool.page_size().bytes()) - node::ENTRY_HEADER
    }

    fn check_size(&self, pool: &BufferPool, key: &[u8], value: &[u8]) -> Result<()> {
        let max = Self::max_entry_bytes(pool);
        if key.len() + value.len() > max || key.len() > u16::MAX as usize {
            return Err(EngineError::KeyTooLong { max });
        }
        Ok(())
    }

    /// Descends with shared latch coupling to the leaf for `key`.
    pub(crate) fn leaf_shared<'p>(
        &self,
        pool: &'p BufferPool,
        key: &[u8],
    ) -> Result<PageGuard<'p>> {
        let mut g = self.fix_node(pool, self.root, Latch::Shared)?;
        for _ in 0..MAX_HEIGHT {
            let n = Node(g.data());
            if n.is_leaf() {
                return Ok(g);
            }
            if n.is_empty() {
                return Err(self.corrupt(pool, g.id().page, "empty internal node"));
            }
            let child = n.entry(n.child_index(key)).child();
            let c = self.fix_node(pool, child, Latch::Shared)?;
            g = c; // the parent guard drops here, after the child is latched
        }
        Err(self.corrupt(pool, self.root, "tree deeper than any real index"))
    }

    /// Fixes page `page` of the tree as a node: a page of another type
    /// there is corruption (the buffer pool checked the layout of node
    /// pages it read, not that a tree's link leads to one).
    pub(crate) fn fix_node<'p>(
        &self,
        pool: &'p BufferPool,
        page: u32,
        latch: Latch,
    ) -> Result<PageGuard<'p>> {
        let g = pool.fix(self.page(page), latch)?;
        self.expect_node(pool, page, g.data())?;
        Ok(g)
    }

    /// [`BTree::fix_node`] in a mini-transaction.
    pub(crate) fn node_in_mtr(
        &self,
        mtr: &mut Mtr<'_>,
        page: u32,
        latch: Latch,
    ) -> Result<PageRef> {
        let r = mtr.page(self.page(page), latch)?;
        self.expect_node(mtr.pool(), page, mtr.data(r))?;
        Ok(r)
    }

    fn expect_node(&self, pool: &BufferPool, page: u32, data: &[u8]) -> Result<()> {
        if PageHeader(data).page_type() == Some(PageType::Index) {
            return Ok(());
        }
        Err(self.corrupt(pool, page, "the page is not a B+tree node"))
    }

    pub(crate) fn corrupt(&self, pool: &BufferPool, page: u32, reason: &str) -> EngineError {
        EngineError::Corruption {
            path: pool
                .spaces()
                .get(self.space)
                .map(|s| pool.spaces().path_of(&s.name))
                .unwrap_or_default(),
            page: self.page(page),
            reason: format!("index {}: {reason}", self.index_id),
        }
    }

    /// Point lookup.
    pub fn get(&self, pool: &BufferPool, key: &[u8]) -> Result<Option<Found>> {
        let g = self.leaf_shared(pool, key)?;
        let n = Node(g.data());
        Ok(n.search(key).ok().map(|i| {
            let e = n.entry(i);
            Found {
                value: e.value.to_vec(),
                deleted: e.is_deleted(),
            }
        }))
    }

    /// Latches the leaf for `key` exclusively in `mtr` (optimistic path): shared
    /// coupling down to the parent, then the leaf.
    fn leaf_exclusive(
        &self,
        pool: &BufferPool,
        mtr: &mut Mtr<'_>,
        key: &[u8],
    ) -> Result<crate::mtr::PageRef> {
        let root = self.fix_node(pool, self.root, Latch::Shared)?;
        if Node(root.data()).is_leaf() {
            drop(root);
            let mut r = self.node_in_mtr(mtr, self.root, Latch::Exclusive)?;
            // The root may have been raised between the two latches. The mtr
            // keeps its root latch (it cannot release one), so descend from it
            // exclusively: top-down order, and only in this rare race.
            for _ in 0..MAX_HEIGHT {
                let n = Node(mtr.data(r));
                if n.is_leaf() {
                    return Ok(r);
                }
                if n.is_empty() {
                    return Err(self.corrupt(pool, mtr.page_id(r).page, "empty internal node"));
                }
                let child = n.entry(n.child_index(key)).child();
                r = self.node_in_mtr(mtr, child, Latch::Exclusive)?;
            }
            return Err(self.corrupt(pool, self.root, "tree deeper than any real index"));
        }
        let mut parent = root;
        for _ in 0..MAX_HEIGHT {
            let n = Node(parent.data());
            if n.is_empty() {
                return Err(self.corrupt(pool, parent.id().page, "empty internal node"));
            }
            let child = n.entry(n.child_index(key)).child();
            if n.level() == 1 {
                let r = self.node_in_mtr(mtr, child, Latch::Exclusive)?;
                drop(parent);
                return Ok(r);
            }
            let c = self.fix_node(pool, child, Latch::Shared)?;
            parent = c;
        }
        Err(self.corrupt(pool, self.root, "tree deeper than any real index"))
    }

    /// Inserts `key` -> `value`.
    pub fn insert(
        &self,
        pool: &BufferPool,
        key: &[u8],
        value: &[u8],
        on_dup: OnDuplicate,
    ) -> Result<()> {
        self.check_size(pool, key, value)?;
        {
            let mut mtr = Mtr::start(pool)?;
            let leaf = self.leaf_exclusive(pool, &mut mtr, key)?;
            let n = Node(mtr.data(leaf));
            let need = node::ENTRY_HEADER + key.len() + value.len() + 2;
            match n.search(key) {
                Ok(i) => {
                    let e = n.entry(i);
                    if on_dup == OnDuplicate::Error && !e.is_deleted() {
                        return Err(EngineError::DuplicateKey {
                            index_id: self.index_id,
                        });
                    }
                    if e.value.len() == value.len() {
                        node::overwrite_value(&mut mtr, leaf, i, value);
                        node::set_flags(&mut mtr, leaf, i, 0);
                        mtr.commit()?;
                        return Ok(());
                    }
                    let old = e.heap_size() + 2;
                    if n.free_space() + n.garbage() + old >= need {
                        node::remove_at(&mut mtr, leaf, i);
                        node::make_room(&mut mtr, leaf, need);
                        node::insert_at(&mut mtr, leaf, i, 0, key, value);
                        mtr.commit()?;
                        return Ok(());
                    }
                }
                Err(pos) => {
                    if node::make_room(&mut mtr, leaf, need) {
                        node::insert_at(&mut mtr, leaf, pos, 0, key, value);
                        mtr.commit()?;
                        return Ok(());
                    }
                }
            }
            mtr.commit()?; // nothing changed; releases the latches
        }
        modify::insert_pessimistic(self, pool, key, value, on_dup)
    }

    /// Replaces the value of an existing `key` and sets its delete mark, in one
    /// mini-transaction when the length is unchanged (the common case: a
    /// delete-mark rewriting the hidden fields). Returns false if absent.
    pub fn rewrite(
        &self,
        pool: &BufferPool,
        key: &[u8],
        value: &[u8],
        deleted: bool,
    ) -> Result<bool> {
        let flags = if deleted { FLAG_DELETED } else { 0 };
        {
            let mut mtr = Mtr::start(pool)?;
            let leaf = self.leaf_exclusive(pool, &mut mtr, key)?;
            let n = Node(mtr.data(leaf));
            let Ok(i) = n.search(key) else {
                return Ok(false);
            };
            if n.entry(i).value.len() == value.len() {
                node::overwrite_value(&mut mtr, leaf, i, value);
                node::set_flags(&mut mtr, leaf, i, flags);
                mtr.commit()?;
                return Ok(true);
            }
            mtr.commit()?;
        }
        self.insert(pool, key, value, OnDuplicate::Replace)?;
        if deleted {
            self.set_delete_mark(pool, key, true)?;
        }
        Ok(true)
    }

    /// Writes `value` for `key` with the delete mark `deleted`, keeping the
    /// last `tail` bytes of the value already stored (secondary entries keep
    /// the stamp of the transaction that created them this way). An absent
    /// key is inserted with `value` as given, unless `deleted` (then nothing
    /// is written). Returns whether the key existed.
    pub fn upsert_keeping_tail(
        &self,
        pool: &BufferPool,
        key: &[u8],
        value: &[u8],
        deleted: bool,
        tail: usize,
    ) -> Result<bool> {
        let flags = if deleted { FLAG_DELETED } else { 0 };
        let merged = {
            let mut mtr = Mtr::start(pool)?;
            let leaf = self.leaf_exclusive(pool, &mut mtr, key)?;
            let n = Node(mtr.data(leaf));
            match n.search(key) {
                Err(_) => {
                    mtr.commit()?;
                    if deleted {
                        return Ok(false);
                    }
                    self.insert(pool, key, value, OnDuplicate::Replace)?;
                    return Ok(false);
                }
                Ok(i) => {
                    let old = n.entry(i).value;
                    let mut merged = value.to_vec();
                    if old.len() >= tail && merged.len() >= tail {
                        let at = merged.len() - tail;
                        merged[at..].copy_from_slice(&old[old.len() - tail..]);
                    }
                    if old.len() == merged.len() {
                        node::overwrite_value(&mut mtr, leaf, i, &merged);
                        node::set_flags(&mut mtr, leaf, i, flags);
                        mtr.commit()?;
                        return Ok(true);
                    }
                    mtr.commit()?;
                    merged
                }
            }
        };
        self.rewrite(pool, key, &merged, deleted)?;
        Ok(true)
    }

    /// Sets or clears the delete mark of `key`. Returns false if absent.
    pub fn set_delete_mark(&self, pool: &BufferPool, key: &[u8], deleted: bool) -> Result<bool> {
        let mut mtr = Mtr::start(pool)?;
        let leaf = self.leaf_exclusive(pool, &mut mtr, key)?;
        let Ok(i) = Node(mtr.data(leaf)).search(key) else {
            return Ok(false);
        };
        node::set_flags(&mut mtr, leaf, i, if deleted { FLAG_DELETED } else { 0 });
        mtr.commit()?;
        Ok(true)
    }

    /// Removes `key` (purge, or a non-MVCC delete). Returns false if absent.
    pub fn delete(&self, pool: &BufferPool, key: &[u8]) -> Result<bool> {
        {
            let mut mtr = Mtr::start(pool)?;
            let leaf = self.leaf_exclusive(pool, &mut mtr, key)?;
            let n = Node(mtr.data(leaf));
            let Ok(i) = n.search(key) else {
                return Ok(false);
            };
            let after = n.used_bytes() - n.entry(i).heap_size() - 2;
            let is_root = mtr.page_id(leaf).page == self.root;
            if is_root || after >= modify::merge_threshold(pool) {
                node::remove_at(&mut mtr, leaf, i);
                mtr.commit()?;
                return Ok(true);
            }
            mtr.commit()?;
        }
        modify::delete_pessimistic(self, pool, key)
    }

    /// A cursor over `range` in key order (or reverse order).
    pub fn range<'p>(
        &self,
        pool: &'p BufferPool,
        from: Bound<Vec<u8>>,
        to: Bound<Vec<u8>>,
        reverse: bool,
    ) -> Cursor<'p> {
        Cursor::new(*self, pool, from, to, reverse)
    }

    /// Frees every page of the tree. The tree must not be used afterwards.
    pub fn drop_tree(self, pool: &BufferPool) -> Result<()> {
        let (leaf, nonleaf) = self.segments(pool)?;
        for seg in [leaf, nonleaf] {
            loop {
                let mut mtr = Mtr::start(pool)?;
                let done = alloc::drop_segment_step(&mut mtr, self.space, seg)?;
                mtr.commit()?;
                if done {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The leaf and non-leaf segments (from the root page).
    pub fn segments(&self, pool: &BufferPool) -> Result<(SegmentRef, SegmentRef)> {
        let g = self.fix_node(pool, self.root, Latch::Shared)?;
        Ok(segments_of(g.data()))
    }

    /// Every entry in key order (tests and tools).
    pub fn entries(&self, pool: &BufferPool) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        let mut c = self.range(pool, Bound::Unbounded, Bound::Unbounded, false);
        while let Some(e) = c.next_entry()? {
            out.push(e);
        }
        Ok(out)
    }
}

pub(crate) fn segments_of(root: &[u8]) -> (SegmentRef, SegmentRef) {
    let mut a = [0u8; 6];
    let mut b = [0u8; 6];
    a.copy_from_slice(&root[node::LEAF_SEGMENT..node::LEAF_SEGMENT + 6]);
    b.copy_from_slice(&root[node::NONLEAF_SEGMENT..node::NONLEAF_SEGMENT + 6]);
    (SegmentRef::from_bytes(a), SegmentRef::from_bytes(b))
}

#[cfg(test)]
mod cursor_tests;
#[cfg(test)]
mod split_fault_tests;
#[cfg(test)]
mod tests;
