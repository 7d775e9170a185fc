//! Structural verification of a B+tree (`larch check`, tests).
//!
//! Checks, for every node reachable from the root: page type, a layout that
//! stays inside the page (`Node::layout_problem`, checked before any entry
//! is read) and index id;
//! levels decreasing by one towards the leaves; keys strictly increasing within a
//! node and inside the bounds the ancestors impose (the key of entry 0 of an
//! internal node routes everything below its successor, so only leaf keys and
//! later separators are bound-checked); free-space accounting (heap top, garbage
//! and live entries add up, nothing overlaps the slot directory); no empty node
//! except a leaf root; and sibling links: at every level the prev/next chain
//! visits exactly the nodes in key order.

use super::node::{Node, BODY};
use super::{BTree, MAX_HEIGHT};
use crate::buffer::{BufferPool, Latch};
use crate::error::Result;
use crate::page::{PageHeader, PageType, FIL_NULL};

/// A child page with the key bounds its parent imposes.
type ChildBounds = (u32, Option<Vec<u8>>, Option<Vec<u8>>);

struct Walk<'a> {
    tree: &'a BTree,
    pool: &'a BufferPool,
    problems: Vec<String>,
    /// Page numbers per level, in key order.
    levels: Vec<Vec<u32>>,
}

/// Verifies the tree. The tree must not change meanwhile. Returns problems found.
pub fn check(tree: &BTree, pool: &BufferPool) -> Result<Vec<String>> {
    let mut w = Walk {
        tree,
        pool,
        problems: Vec::new(),
        levels: Vec::new(),
    };
    let height = {
        let g = pool.fix(tree.page(tree.root), Latch::Shared)?;
        Node(g.data()).level()
    };
    w.levels = vec![Vec::new(); height as usize + 1];
    w.node(tree.root, height, None, None, 0)?;
    for (level, pages) in w.levels.iter().enumerate() {
        for (i, &p) in pages.iter().enumerate() {
            let g = pool.fix(tree.page(p), Latch::Shared)?;
            let h = PageHeader(g.data());
            let want_prev = if i == 0 { FIL_NULL } else { pages[i - 1] };
            let want_next = pages.get(i + 1).copied().unwrap_or(FIL_NULL);
            if h.prev() != want_prev || h.next() != want_next {
                w.problems.push(format!(
                    "page {p} (level {level}): sibling links prev={} next={}, expected prev={} next={}",
                    link(h.prev()),
                    link(h.next()),
                    link(want_prev),
                    link(want_next)
                ));
            }
        }
    }
    Ok(w.problems)
}

fn link(p: u32) -> String {
    if p == FIL_NULL {
        "none".into()
    } else {
        p.to_string()
    }
}

impl Walk<'_> {
    fn node(
        &mut self,
        page: u32,
        level: u16,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        depth: usize,
    ) -> Result<()> {
        if depth > MAX_HEIGHT {
            self.problems
                .push(format!("page {page}: tree deeper than {MAX_HEIGHT}"));
            return Ok(());
        }
        let g = self.pool.fix(self.tree.page(page), Latch::Shared)?;
        let d = g.data();
        let n = Node(d);
        let mut bad = |m: String| self.problems.push(format!("page {page}: {m}"));
        if PageHeader(d).page_type() != Some(PageType::Index) {
            bad("not an index page".into());
            return Ok(());
        }
        // Nothing below reads past the page or the heap.
        if let Some(problem) = n.layout_problem() {
            bad(format!("node layout: {problem}"));
            return Ok(());
        }
        if n.index_id() != self.tree.index_id {
            bad(format!(
                "index id {} instead of {}",
                n.index_id(),
                self.tree.index_id
            ));
        }
        if n.level() != level {
            bad(format!("level {} where {level} was expected", n.level()));
            return Ok(());
        }
        if let Some(l) = self.levels.get_mut(level as usize) {
            l.push(page);
        }
        if n.is_empty() && !(page == self.tree.root && level == 0) {
            bad("empty node".into());
            return Ok(());
        }
        // Space accounting.
        let live: usize = (0..n.len()).map(|i| n.entry(i).heap_size()).sum();
        if n.heap_top() < BODY || n.heap_top() - BODY != live + n.garbage() {
            bad(format!(
                "heap accounting: top {} - body {BODY} != live {live} + garbage {}",
                n.heap_top(),
                n.garbage()
            ));
        }
        if !n.is_empty() && n.heap_top() > n.slot_pos(n.len() - 1) {
            bad("entry heap overlaps the slot directory".into());
        }
        for i in 0..n.len() {
            let off = crate::page::bytes::get_u16(d, n.slot_pos(i)) as usize;
            if off < BODY || off >= n.heap_top() {
                bad(format!("slot {i} points outside the heap ({off})"));
                return Ok(());
            }
        }
        // Key order and bounds.
        for i in 0..n.len() {
            let k = n.key(i);
            if i > 0 && n.key(i - 1) >= k {
                bad(format!("keys {} and {} out of order", i - 1, i));
            }
            let bounded = level == 0 || i > 0;
            if bounded && lo.is_some_and(|lo| k < lo) {
                bad(format!("key {i} below the lower bound set by the parent"));
            }
            if hi.is_some_and(|hi| k >= hi) {
                bad(format!(
                    "key {i} at or above the upper bound set by the parent"
                ));
            }
        }
        if level == 0 {
            return Ok(());
        }
        let children: Vec<ChildBounds> = (0..n.len())
            .map(|i| {
                let child_lo = if i == 0 {
                    lo.map(<[u8]>::to_vec)
                } else {
                    Some(n.key(i).to_vec())
                };
                let child_hi = if i + 1 < n.len() {
                    Some(n.key(i + 1).to_vec())
                } else {
                    hi.map(<[u8]>::to_vec)
                };
                (n.entry(i).child(), child_lo, child_hi)
            })
            .collect();
        drop(g);
        for (child, clo, chi) in children {
            self.node(child, level - 1, clo.as_deref(), chi.as_deref(), depth + 1)?;
        }
        Ok(())
    }
}
