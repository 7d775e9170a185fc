//! [`Cursor`]: range scans that hold no latch between calls.
//!
//! A refill latches one leaf (shared), copies every entry of that leaf that lies
//! in the range past the last returned key, and releases it; the next refill
//! searches again from the root for the key after the last one returned. So a
//! long scan never blocks writers for longer than one leaf copy, and concurrent
//! splits and merges cannot invalidate it. Forward scans may step to the right
//! sibling while holding the current leaf (latch order is left to right);
//! backward scans never latch leftwards: they search again below the last key
//! returned, or below the leaf's lower fence (its separator in the parent) when
//! the leaf holds nothing in range.
//!
//! The copied entries live in one byte buffer the cursor reuses (the batch):
//! [`Cursor::next_ref`] lends each entry from it as an [`EntryRef`], so a scan
//! allocates nothing per entry once the buffer has grown to a leaf's size.
//! [`Cursor::next_entry`] returns an owned copy for callers that keep entries.
//! Invariant: the batch holds entries in scan order, all in range; the bound
//! the next refill starts from is moved past the batch's last key only when
//! the batch is used up (that key is still in the buffer then).
//!
//! Entries are returned with their flags: delete-marked entries are included and
//! the caller (MVCC) decides what they mean.

use std::ops::Bound;

use super::node::{Entry, EntryRef, Node};
use super::{BTree, MAX_HEIGHT};
use crate::buffer::{BufferPool, Latch, PageGuard};
use crate::error::Result;
use crate::page::{PageHeader, FIL_NULL};

/// See the module documentation.
pub struct Cursor<'p> {
    tree: BTree,
    pool: &'p BufferPool,
    from: Bound<Vec<u8>>,
    to: Bound<Vec<u8>>,
    reverse: bool,
    /// Key and value bytes of the batch's entries, back to back.
    bytes: Vec<u8>,
    /// The batch's entries, in scan order, as spans of `bytes`.
    spans: Vec<Span>,
    /// Next entry of `spans` to lend.
    next: usize,
    done: bool,
    /// Most entries one refill copies (a lookup of the next key needs one).
    batch_limit: usize,
}

impl<'p> Cursor<'p> {
    pub(super) fn new(
        tree: BTree,
        pool: &'p BufferPool,
        from: Bound<Vec<u8>>,
        to: Bound<Vec<u8>>,
        reverse: bool,
    ) -> Self {
        Self {
            tree,
            pool,
            from,
            to,
            reverse,
            bytes: Vec::new(),
            spans: Vec::new(),
            next: 0,
            done: false,
            batch_limit: usize::MAX,
        }
    }

    /// Copies at most `n` entries (at least 1) per leaf visit: for callers
    /// that want only the first few entries of a long range.
    pub fn limit_batch(mut self, n: usize) -> Self {
        self.batch_limit = n.max(1);
        self
    }

    /// The next entry in range, owned, or `None` at the end.
    pub fn next_entry(&mut self) -> Result<Option<Entry>> {
        Ok(self.next_ref()?.map(Entry::from_ref))
    }

    /// The next entry in range, lent from the cursor's copy of its leaf, or
    /// `None` at the end. The entry is valid until the next call.
    pub fn next_ref(&mut self) -> Result<Option<EntryRef<'_>>> {
        if self.next == self.spans.len() && !self.done {
            self.resume_past_batch();
            self.bytes.clear();
            self.spans.clear();
            self.next = 0;
            if self.reverse {
                self.refill_backward()?;
            } else {
                self.refill_forward()?;
            }
        }
        let Some(span) = self.spans.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        Ok(Some(span.entry(&self.bytes)))
    }

    /// Moves the bound the next refill starts from past the last entry of
    /// the batch (if any): the range shrinks past the last returned key.
    fn resume_past_batch(&mut self) {
        let Some(last) = self.spans.last() else {
            return;
        };
        let key = last.key(&self.bytes);
        let bound = if self.reverse {
            &mut self.to
        } else {
            &mut self.from
        };
        match bound {
            Bound::Excluded(k) => {
                k.clear();
                k.extend_from_slice(key);
            }
            _ => *bound = Bound::Excluded(key.to_vec()),
        }
    }

    /// Appends a copy of `e` to the batch.
    fn push(&mut self, e: EntryRef<'_>) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(e.key);
        self.bytes.extend_from_slice(e.value);
        self.spans.push(Span {
            flags: e.flags,
            start,
            key_len: e.key.len(),
            value_len: e.value.len(),
        });
    }

    fn in_upper(&self, key: &[u8]) -> bool {
        match &self.to {
            Bound::Included(k) => key <= k.as_slice(),
            Bound::Excluded(k) => key < k.as_slice(),
            Bound::Unbounded => true,
        }
    }

    fn in_lower(&self, key: &[u8]) -> bool {
        match &self.from {
            Bound::Included(k) => key >= k.as_slice(),
            Bound::Excluded(k) => key > k.as_slice(),
            Bound::Unbounded => true,
        }
    }

    fn refill_forward(&mut self) -> Result<()> {
        let start: &[u8] = match &self.from {
            Bound::Included(k) | Bound::Excluded(k) => k,
            Bound::Unbounded => &[],
        };
        let mut leaf = self.tree.leaf_shared(self.pool, start)?;
        loop {
            let n = Node(leaf.data());
            // The first entry in range by binary search; then entries up to
            // the first one past the upper bound (the last entry of the leaf
            // decides whether any is).
            let first = match &self.from {
                Bound::Unbounded => 0,
                Bound::Included(k) => n.search(k).unwrap_or_else(|i| i),
                Bound::Excluded(k) => n.search(k).map_or_else(|i| i, |i| i + 1),
            };
            let all_in = n.is_empty() || self.in_upper(n.key(n.len() - 1));
            for i in first..n.len() {
                if self.spans.len() >= self.batch_limit {
                    break;
                }
                let e = n.entry(i);
                if !all_in && !self.in_upper(e.key) {
                    self.done = true;
                    break;
                }
                self.push(e);
            }
            if !self.spans.is_empty() || self.done {
                return Ok(());
            }
            let next = PageHeader(leaf.data()).next();
            if next == FIL_NULL {
                self.done = true;
                return Ok(());
            }
            let g = self.tree.fix_node(self.pool, next, Latch::Shared)?;
            leaf = g;
        }
    }

    /// Descends to the leaf holding the largest key below (or at) the upper
    /// bound. Also returns the leaf's lower fence: the separator on the path
    /// below which no key of this leaf lies (`None` on the leftmost path).
    fn leaf_for_upper(&self) -> Result<(PageGuard<'p>, Option<Vec<u8>>)> {
        let mut g = self
            .tree
            .fix_node(self.pool, self.tree.root, Latch::Shared)?;
        let mut fence: Option<Vec<u8>> = None;
        for _ in 0..MAX_HEIGHT {
            let n = Node(g.data());
            if n.is_leaf() {
                return Ok((g, fence));
            }
            let i = match &self.to {
                Bound::Unbounded => n.len() - 1,
                Bound::Included(k) => n.child_index(k),
                Bound::Excluded(k) => match n.search(k) {
                    Ok(i) | Err(i) => i.saturating_sub(1),
                },
            };
            if i > 0 {
                fence = Some(n.key(i).to_vec());
            }
            let c = self
                .tree
                .fix_node(self.pool, n.entry(i).child(), Latch::Shared)?;
            g = c;
        }
        Err(self
            .tree
            .corrupt(self.pool, self.tree.root, "tree deeper than any real index"))
    }

    fn refill_backward(&mut self) -> Result<()> {
        for _ in 0..1_000_000 {
            let (leaf, fence) = self.leaf_for_upper()?;
            let n = Node(leaf.data());
            for i in (0..n.len()).rev() {
                if self.spans.len() >= self.batch_limit {
                    break;
                }
                let e = n.entry(i);
                if !self.in_upper(e.key) {
                    continue;
                }
                if !self.in_lower(e.key) {
                    self.done = true;
                    break;
                }
                self.push(e);
            }
            if !self.spans.is_empty() || self.done {
                return Ok(());
            }
            // Nothing at or below the bound in this leaf: continue below its
            // lower fence (strictly smaller keys route to the leaf on its left).
            match fence {
                Some(f) => self.to = Bound::Excluded(f),
                None => {
                    self.done = true;
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// One entry of a cursor's batch: its flags and where its key and value lie
/// in the batch's bytes (the value right after the key).
#[derive(Debug, Clone, Copy)]
struct Span {
    flags: u8,
    start: usize,
    key_len: usize,
    value_len: usize,
}

impl Span {
    fn key<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[self.start..self.start + self.key_len]
    }

    fn entry<'b>(&self, bytes: &'b [u8]) -> EntryRef<'b> {
        let value_at = self.start + self.key_len;
        EntryRef {
            flags: self.flags,
            key: &bytes[self.start..value_at],
            value: &bytes[value_at..value_at + self.value_len],
        }
    }
}
