//! Structure changes: the pessimistic path of inserts and deletes.
//!
//! The whole root-to-leaf path is latched exclusively in one mini-transaction
//! (and, for deletes, each node's left sibling under the same parent, latched
//! before the node itself so siblings are always latched left to right). Then:
//! - a node that cannot take an entry splits: the upper part moves to a new
//!   right sibling and a separator (the right node's first key) goes to the
//!   parent, recursively; an insert at the end of a node moves only the new entry
//!   (sequential inserts fill pages completely); a full root moves its entries to
//!   two new children and becomes one level higher (root raise), so the root page
//!   number never changes;
//! - a split does everything that can fail first ([`plan_split`] works out
//!   which nodes divide, [`reserve`] latches the siblings to relink and
//!   allocates and formats the new pages) and only then changes nodes: a
//!   changed mini-transaction cannot be taken back, so an allocation failing
//!   half way (a full disk) would lose an entry being replaced or leave a
//!   node its parent does not reference. A failed reservation frees the pages
//!   it got and leaves the tree as it was;
//! - a node that falls below a quarter full merges with its right sibling (or
//!   into its left one) when the two fit in one page; the parent loses an entry
//!   and may merge in turn; a root left with a single child takes over that
//!   child's entries (root lower).

use super::node::{self, Entry, Node};
use super::{segments_of, BTree, OnDuplicate, MAX_HEIGHT};
use crate::buffer::{BufferPool, Latch};
use crate::error::{EngineError, Result};
use crate::mtr::{Mtr, PageRef};
use crate::page::{self, PageType, FIL_NULL};
use crate::space::alloc;

/// A node on the latched path: the node, the index of the child taken, and the
/// child's left sibling under this node (latched, for deletes).
struct Step {
    node: PageRef,
    child_idx: usize,
}

/// Below this many used bytes a non-root node tries to merge.
pub(super) fn merge_threshold(pool: &BufferPool) -> usize {
    Node::capacity(pool.page_size().bytes()) / 4
}

fn capacity(mtr: &Mtr<'_>) -> usize {
    Node::capacity(mtr.page_size().bytes())
}

/// Latches the path to the leaf for `key` exclusively. For deletes, also the left
/// sibling of every node below the root (under the same parent), before the node.
fn latch_path(
    tree: &BTree,
    mtr: &mut Mtr<'_>,
    key: &[u8],
    with_left: bool,
) -> Result<(Vec<Step>, PageRef, Vec<Option<PageRef>>)> {
    let mut path = Vec::new();
    let mut lefts = vec![None];
    let mut r = tree.node_in_mtr(mtr, tree.root, Latch::Exclusive)?;
    for _ in 0..MAX_HEIGHT {
        let n = Node(mtr.data(r));
        if n.is_leaf() {
            return Ok((path, r, lefts));
        }
        if n.is_empty() {
            return Err(tree.corrupt(mtr.pool(), mtr.page_id(r).page, "empty internal node"));
        }
        let i = n.child_index(key);
        let child = n.entry(i).child();
        let left = if with_left && i > 0 {
            let l = n.entry(i - 1).child();
            Some(tree.node_in_mtr(mtr, l, Latch::Exclusive)?)
        } else {
            None
        };
        path.push(Step {
            node: r,
            child_idx: i,
        });
        lefts.push(left);
        r = tree.node_in_mtr(mtr, child, Latch::Exclusive)?;
    }
    Err(tree.corrupt(mtr.pool(), tree.root, "tree deeper than any real index"))
}

pub(super) fn insert_pessimistic(
    tree: &BTree,
    pool: &BufferPool,
    key: &[u8],
    value: &[u8],
    on_dup: OnDuplicate,
) -> Result<()> {
    let mut mtr = Mtr::start(pool)?;
    let (mut path, leaf, _) = latch_path(tree, &mut mtr, key, false)?;
    let n = Node(mtr.data(leaf));
    let (pos, replaced) = match n.search(key) {
        Ok(i) => {
            if on_dup == OnDuplicate::Error && !n.entry(i).is_deleted() {
                return Err(EngineError::DuplicateKey {
                    index_id: tree.index_id,
                });
            }
            (i, true)
        }
        Err(pos) => (pos, false),
    };
    let e = Entry {
        flags: 0,
        key: key.to_vec(),
        value: value.to_vec(),
    };
    // Every step that can fail comes before the first change: the pages the
    // split needs are allocated and the siblings it relinks latched. A
    // failure (a full disk) then leaves the tree as it was.
    let needs = plan_split(tree, &mtr, &path, leaf, pos, replaced, &e)?;
    let mut spare = match reserve(tree, &mut mtr, &path, leaf, &needs) {
        Ok(spare) => spare,
        Err(err) => {
            mtr.commit()?; // at most allocations undone by frees
            return Err(err);
        }
    };
    if replaced {
        node::remove_at(&mut mtr, leaf, pos);
    }
    insert_entry(tree, &mut mtr, &mut path, leaf, pos, e, &mut spare)?;
    if !spare.is_empty() {
        return Err(EngineError::Internal(format!(
            "index {}: a split used {} fewer pages than planned",
            tree.index_id,
            spare.len()
        )));
    }
    mtr.commit()?;
    Ok(())
}

/// One node a split will divide: its level, its right sibling (relinked to
/// the new node), and whether it is the root (which takes two new pages).
#[derive(Debug)]
struct SplitNeed {
    level: u16,
    sibling: Option<u32>,
    root: bool,
}

/// The nodes inserting `e` at `pos` of `leaf` (after removing the entry at
/// `pos` when `replaced`) will split, leaf first, computed without changing
/// anything: a node splits when the entry does not fit (what `make_room`
/// decides), and sends a separator (the right half's first key and a child
/// page number) to its parent.
fn plan_split(
    tree: &BTree,
    mtr: &Mtr<'_>,
    path: &[Step],
    leaf: PageRef,
    pos: usize,
    replaced: bool,
    e: &Entry,
) -> Result<Vec<SplitNeed>> {
    let cap = capacity(mtr);
    let mut needs = Vec::new();
    let (mut node_ref, mut pos, mut replaced) = (leaf, pos, replaced);
    let mut entry = e.clone();
    let mut up = path.len();
    loop {
        let n = Node(mtr.data(node_ref));
        let mut room = n.free_space() + n.garbage();
        let mut entries = n.entries();
        if replaced && pos < entries.len() {
            room += entries.remove(pos).heap_size() + 2;
        }
        if room >= entry.heap_size() + 2 {
            return Ok(needs);
        }
        let root = mtr.page_id(node_ref).page == tree.root;
        let next = page::PageHeader(mtr.data(node_ref)).next();
        needs.push(SplitNeed {
            level: n.level(),
            sibling: (!root && next != FIL_NULL).then_some(next),
            root,
        });
        if root {
            return Ok(needs);
        }
        if up == 0 {
            return Err(EngineError::Internal(format!(
                "index {}: a split below the root without a parent",
                tree.index_id
            )));
        }
        entries.insert(pos, entry);
        let s = split_point(&entries, pos, cap);
        up -= 1;
        entry = Entry {
            flags: 0,
            key: entries[s].key.clone(),
            value: vec![0; 4],
        };
        node_ref = path[up].node;
        pos = path[up].child_idx + 1;
        replaced = false;
    }
}

/// Latches the siblings the planned split relinks, then allocates and
/// formats its new pages, in the order [`insert_entry`] uses them. If an
/// allocation fails, the pages already allocated are freed again (in the
/// same mini-transaction) and the error is returned: nothing of the tree
/// changed.
fn reserve(
    tree: &BTree,
    mtr: &mut Mtr<'_>,
    path: &[Step],
    leaf: PageRef,
    needs: &[SplitNeed],
) -> Result<Vec<PageRef>> {
    if needs.is_empty() {
        return Ok(Vec::new());
    }
    for n in needs {
        if let Some(s) = n.sibling {
            tree.node_in_mtr(mtr, s, Latch::Exclusive)?;
        }
    }
    let root = path.first().map_or(leaf, |s| s.node);
    let (leaf_seg, nonleaf_seg) = segments_of(mtr.data(root));
    let mut pages: Vec<(u32, alloc::SegmentRef)> = Vec::new();
    let mut failed = None;
    'alloc: for n in needs {
        let seg = if n.level == 0 { leaf_seg } else { nonleaf_seg };
        for _ in 0..if n.root { 2 } else { 1 } {
            match alloc::alloc_segment_page(mtr, tree.space, seg) {
                Ok(p) => pages.push((p, seg)),
                Err(e) => {
                    failed = Some(e);
                    break 'alloc;
                }
            }
        }
    }
    let mut spare = Vec::with_capacity(pages.len());
    if failed.is_none() {
        for &(p, _) in &pages {
            match mtr.new_page(tree.page(p), PageType::Index) {
                Ok(pr) => spare.push(pr),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
    }
    if let Some(e) = failed {
        for &(p, seg) in pages.iter().rev() {
            alloc::free_segment_page(mtr, tree.space, seg, p)?;
        }
        return Err(e);
    }
    spare.reverse(); // popped from the end: leaf level first
    Ok(spare)
}

/// The next new node [`reserve`] prepared.
fn take_node(tree: &BTree, spare: &mut Vec<PageRef>) -> Result<PageRef> {
    spare.pop().ok_or_else(|| {
        EngineError::Internal(format!(
            "index {}: a split needs more pages than planned",
            tree.index_id
        ))
    })
}

fn free_node(tree: &BTree, mtr: &mut Mtr<'_>, root: PageRef, no: u32, level: u16) -> Result<()> {
    let (leaf_seg, nonleaf_seg) = segments_of(mtr.data(root));
    let seg = if level == 0 { leaf_seg } else { nonleaf_seg };
    alloc::free_segment_page(mtr, tree.space, seg, no)
}

fn set_link(mtr: &mut Mtr<'_>, p: PageRef, prev: Option<u32>, next: Option<u32>) {
    if let Some(v) = prev {
        mtr.write_u32(p, page::offset::PREV, v);
    }
    if let Some(v) = next {
        mtr.write_u32(p, page::offset::NEXT, v);
    }
}

/// Where to split `entries` (which no longer fit one node): an index `s` with
/// `entries[..s]` and `entries[s..]` each fitting.
fn split_point(entries: &[Entry], inserted_at: usize, cap: usize) -> usize {
    let n = entries.len();
    let size = |r: &[Entry]| r.iter().map(|e| e.heap_size() + 2).sum::<usize>();
    if inserted_at == n - 1 && size(&entries[..n - 1]) <= cap {
        return n - 1; // appending: the new entry starts the right node
    }
    let total = size(entries);
    let mut acc = 0;
    for (i, e) in entries.iter().enumerate() {
        acc += e.heap_size() + 2;
        if acc * 2 >= total {
            let s = (i + 1).clamp(1, n - 1);
            if size(&entries[..s]) <= cap && size(&entries[s..]) <= cap {
                return s;
            }
            return i.clamp(1, n - 1);
        }
    }
    n / 2
}

/// Inserts `e` at `pos` of `node`, splitting upwards as needed, with the
/// new pages from `spare` (see [`reserve`]); changes nothing that can fail.
fn insert_entry(
    tree: &BTree,
    mtr: &mut Mtr<'_>,
    path: &mut Vec<Step>,
    node_ref: PageRef,
    pos: usize,
    e: Entry,
    spare: &mut Vec<PageRef>,
) -> Result<()> {
    let need = e.heap_size() + 2;
    if node::make_room(mtr, node_ref, need) {
        node::insert_at(mtr, node_ref, pos, e.flags, &e.key, &e.value);
        return Ok(());
    }
    let cap = capacity(mtr);
    let n = Node(mtr.data(node_ref));
    let level = n.level();
    let mut entries = n.entries();
    entries.insert(pos, e);
    let s = split_point(&entries, pos, cap);
    let right_entries = entries.split_off(s);
    let no = mtr.page_id(node_ref).page;
    if no == tree.root {
        // Root raise: both halves move to new children.
        let l = take_node(tree, spare)?;
        let r = take_node(tree, spare)?;
        let (lno, rno) = (mtr.page_id(l).page, mtr.page_id(r).page);
        node::write_node(mtr, l, level, tree.index_id, &entries);
        node::write_node(mtr, r, level, tree.index_id, &right_entries);
        set_link(mtr, l, Some(FIL_NULL), Some(rno));
        set_link(mtr, r, Some(lno), Some(FIL_NULL));
        // The leftmost entry of an internal level has the empty key, below every
        // real key (keys smaller than any separator route to it).
        let root_entries = [
            Entry {
                flags: 0,
                key: Vec::new(),
                value: lno.to_le_bytes().to_vec(),
            },
            Entry {
                flags: 0,
                key: right_entries[0].key.clone(),
                value: rno.to_le_bytes().to_vec(),
            },
        ];
        node::write_node(mtr, node_ref, level + 1, tree.index_id, &root_entries);
        return Ok(());
    }
    if path.is_empty() {
        return Err(EngineError::Internal("split without a path".into()));
    }
    let r = take_node(tree, spare)?;
    let rno = mtr.page_id(r).page;
    let old_next = page::PageHeader(mtr.data(node_ref)).next();
    node::write_node(mtr, node_ref, level, tree.index_id, &entries);
    node::write_node(mtr, r, level, tree.index_id, &right_entries);
    set_link(mtr, r, Some(no), Some(old_next));
    set_link(mtr, node_ref, None, Some(rno));
    if old_next != FIL_NULL {
        let nx = tree.node_in_mtr(mtr, old_next, Latch::Exclusive)?;
        set_link(mtr, nx, Some(rno), None);
    }
    let step = path
        .pop()
        .ok_or_else(|| EngineError::Internal("split without a parent".into()))?;
    let sep = Entry {
        flags: 0,
        key: right_entries[0].key.clone(),
        value: rno.to_le_bytes().to_vec(),
    };
    insert_entry(tree, mtr, path, step.node, step.child_idx + 1, sep, spare)
}

pub(super) fn delete_pessimistic(tree: &BTree, pool: &BufferPool, key: &[u8]) -> Result<bool> {
    let mut mtr = Mtr::start(pool)?;
    let (mut path, leaf, mut lefts) = latch_path(tree, &mut mtr, key, true)?;
    let Ok(i) = Node(mtr.data(leaf)).search(key) else {
        return Ok(false);
    };
    node::remove_at(&mut mtr, leaf, i);
    rebalance(tree, &mut mtr, &mut path, &mut lefts, leaf)?;
    mtr.commit()?;
    Ok(true)
}

fn used(mtr: &Mtr<'_>, p: PageRef) -> usize {
    Node(mtr.data(p)).used_bytes()
}

/// Merges an underfull node with a sibling, then fixes the parent.
fn rebalance(
    tree: &BTree,
    mtr: &mut Mtr<'_>,
    path: &mut Vec<Step>,
    lefts: &mut Vec<Option<PageRef>>,
    node_ref: PageRef,
) -> Result<()> {
    let no = mtr.page_id(node_ref).page;
    if no == tree.root {
        return lower_root(tree, mtr, node_ref);
    }
    if used(mtr, node_ref) >= merge_threshold(mtr.pool()) {
        return Ok(());
    }
    let left = lefts.pop().flatten();
    let Some(step) = path.pop() else {
        return Ok(());
    };
    let parent = step.node;
    let root = path.first().map_or(parent, |s| s.node);
    let level = Node(mtr.data(node_ref)).level();
    // Merge when the two leave some room in one page; an empty node always goes.
    let fits = |mtr: &Mtr<'_>, a: PageRef, b: PageRef| {
        let (ua, ub) = (used(mtr, a), used(mtr, b));
        ua == 0 || ub == 0 || ua + ub <= capacity(mtr) - capacity(mtr) / 8
    };
    let parent_len = Node(mtr.data(parent)).len();
    // Prefer merging the right sibling into this node.
    if step.child_idx + 1 < parent_len {
        let rno = Node(mtr.data(parent)).entry(step.child_idx + 1).child();
        let r = tree.node_in_mtr(mtr, rno, Latch::Exclusive)?;
        if fits(mtr, node_ref, r) {
            merge_into_left(tree, mtr, root, node_ref, r, level)?;
            node::remove_at(mtr, parent, step.child_idx + 1);
            return rebalance(tree, mtr, path, lefts, parent);
        }
        return Ok(());
    }
    if let Some(l) = left {
        if fits(mtr, l, node_ref) {
            merge_into_left(tree, mtr, root, l, node_ref, level)?;
            node::remove_at(mtr, parent, step.child_idx);
            return rebalance(tree, mtr, path, lefts, parent);
        }
    }
    Ok(())
}

/// Moves every entry of `right` to the end of `left`, unlinks and frees `right`.
fn merge_into_left(
    tree: &BTree,
    mtr: &mut Mtr<'_>,
    root: PageRef,
    left: PageRef,
    right: PageRef,
    level: u16,
) -> Result<()> {
    let mut entries = Node(mtr.data(left)).entries();
    entries.extend(Node(mtr.data(right)).entries());
    node::write_node(mtr, left, level, tree.index_id, &entries);
    let next = page::PageHeader(mtr.data(right)).next();
    let lno = mtr.page_id(left).page;
    set_link(mtr, left, None, Some(next));
    if next != FIL_NULL {
        let nx = tree.node_in_mtr(mtr, next, Latch::Exclusive)?;
        set_link(mtr, nx, Some(lno), None);
    }
    let rno = mtr.page_id(right).page;
    free_node(tree, mtr, root, rno, level)
}

/// While the root is an internal node with one child, the child's entries move
/// up into the root and the child is freed.
fn lower_root(tree: &BTree, mtr: &mut Mtr<'_>, root: PageRef) -> Result<()> {
    for _ in 0..MAX_HEIGHT {
        let n = Node(mtr.data(root));
        if n.is_leaf() || n.len() != 1 {
            return Ok(());
        }
        let cno = n.entry(0).child();
        let c = tree.node_in_mtr(mtr, cno, Latch::Exclusive)?;
        let cn = Node(mtr.data(c));
        let (clevel, entries) = (cn.level(), cn.entries());
        node::write_node(mtr, root, clevel, tree.index_id, &entries);
        free_node(tree, mtr, root, cno, clevel)?;
    }
    Ok(())
}
