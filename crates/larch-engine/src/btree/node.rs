//! B+tree node pages: layout, entry access and logged mutations.
//!
//! ```text
//! offset size field (after the 40-byte page header; prev/next = siblings)
//!  40     2  level          0 = leaf
//!  42     2  n_entries
//!  44     2  heap_top       first free byte after the entry heap
//!  46     2  garbage        bytes of removed entries not yet reclaimed
//!  48     8  index_id
//!  56     6  leaf segment       (root page only)
//!  62     6  non-leaf segment   (root page only)
//!  68     2  node flags     bit 0: this page is the root of its tree
//!  70     2  reserved
//!  72   ...  entry heap, growing up
//!       ...  free space
//!  end-2n    slot directory: n u16 offsets of entries in key order, growing down
//!            from the trailer (slot i at end - 2(i+1))
//! entry:  flags u8 | key_len u16 | value_len u16 | key | value
//! ```
//!
//! Leaf values are the caller's bytes; internal-node values are a child page
//! number (u32). In an internal node entry `i` routes keys in
//! `[key_i, key_{i+1})`, and keys below `key_0` go to entry 0 too. The leftmost
//! node of every internal level has the empty key as entry 0 ("minus
//! infinity": every real key is longer), so separators stay ordered however
//! small the keys that arrive later.
//! Every change is made through the mini-transaction, so it is logged.

use crate::mtr::{Mtr, PageRef};
use crate::page::{bytes, PageHeader, PageType, HEADER_SIZE, TRAILER_SIZE};

pub const LEVEL: usize = HEADER_SIZE;
pub const N_ENTRIES: usize = HEADER_SIZE + 2;
pub const HEAP_TOP: usize = HEADER_SIZE + 4;
pub const GARBAGE: usize = HEADER_SIZE + 6;
pub const INDEX_ID: usize = HEADER_SIZE + 8;
pub const LEAF_SEGMENT: usize = HEADER_SIZE + 16;
pub const NONLEAF_SEGMENT: usize = HEADER_SIZE + 22;
pub const NODE_FLAGS: usize = HEADER_SIZE + 28;
/// Node flag: the page is the root of its tree (lets `larch check` find trees).
pub const NODE_ROOT: u16 = 1;
/// First byte of the entry heap.
pub const BODY: usize = HEADER_SIZE + 32;
/// Bytes of an entry header.
pub const ENTRY_HEADER: usize = 5;
/// Entry flag: delete-marked.
pub const FLAG_DELETED: u8 = 1;

/// An entry read from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef<'a> {
    pub flags: u8,
    pub key: &'a [u8],
    pub value: &'a [u8],
}

impl EntryRef<'_> {
    pub fn is_deleted(&self) -> bool {
        self.flags & FLAG_DELETED != 0
    }
    /// Child page of an internal-node entry.
    pub fn child(&self) -> u32 {
        bytes::get_u32(self.value, 0)
    }
    /// Bytes the entry takes in the heap.
    pub fn heap_size(&self) -> usize {
        ENTRY_HEADER + self.key.len() + self.value.len()
    }
}

/// An owned entry (for rebuilding pages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub flags: u8,
    pub key: Vec<u8>,
    pub value: Vec<u8>,
}

impl Entry {
    /// True when the entry carries the delete mark.
    pub fn is_deleted(&self) -> bool {
        self.flags & FLAG_DELETED != 0
    }
    pub fn heap_size(&self) -> usize {
        ENTRY_HEADER + self.key.len() + self.value.len()
    }
    pub fn from_ref(e: EntryRef<'_>) -> Self {
        Self {
            flags: e.flags,
            key: e.key.to_vec(),
            value: e.value.to_vec(),
        }
    }
}

/// Read-only view of a node page.
#[derive(Clone, Copy)]
pub struct Node<'a>(pub &'a [u8]);

/// The buffer pool's content check ([`crate::buffer::pool::ContentCheck`])
/// for B+tree node pages: why a node page read from disk cannot be read
/// safely ([`Node::layout_problem`]); other pages pass.
pub fn node_page_problem(page: &[u8]) -> Option<String> {
    if PageHeader(page).page_type() != Some(PageType::Index) {
        return None;
    }
    Node(page)
        .layout_problem()
        .map(|problem| format!("B+tree node layout: {problem}"))
}

impl<'a> Node<'a> {
    pub fn level(&self) -> u16 {
        bytes::get_u16(self.0, LEVEL)
    }
    pub fn is_leaf(&self) -> bool {
        self.level() == 0
    }
    pub fn len(&self) -> usize {
        bytes::get_u16(self.0, N_ENTRIES) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn heap_top(&self) -> usize {
        bytes::get_u16(self.0, HEAP_TOP) as usize
    }
    pub fn garbage(&self) -> usize {
        bytes::get_u16(self.0, GARBAGE) as usize
    }
    pub fn index_id(&self) -> u64 {
        bytes::get_u64(self.0, INDEX_ID)
    }
    pub fn is_root(&self) -> bool {
        bytes::get_u16(self.0, NODE_FLAGS) & NODE_ROOT != 0
    }
    fn end(&self) -> usize {
        self.0.len() - TRAILER_SIZE
    }
    /// Offset of slot `i` in the slot directory.
    pub fn slot_pos(&self, i: usize) -> usize {
        self.end() - 2 * (i + 1)
    }
    /// Contiguous free bytes between heap and slot directory.
    pub fn free_space(&self) -> usize {
        self.slot_pos(self.len()) + 2 - self.heap_top()
    }
    /// Bytes used by live entries and their slots.
    pub fn used_bytes(&self) -> usize {
        self.heap_top() - BODY - self.garbage() + 2 * self.len()
    }
    /// Why the node's layout cannot be read safely, if it cannot: an entry
    /// count, heap top, garbage count, slot or entry length that points
    /// outside the page or the heap. A page that passed its checksum can
    /// still be wrong this way only if a bug wrote it; readers that must
    /// never fail on such a page (the structural check) ask this first, as
    /// [`Node::entry`] and [`Node::key`] trust the page.
    pub fn layout_problem(&self) -> Option<String> {
        let end = self.end();
        let (n, top) = (self.len(), self.heap_top());
        if BODY + 2 * n > end {
            return Some(format!("{n} entries cannot fit the page"));
        }
        if top < BODY || top + 2 * n > end {
            return Some(format!(
                "heap top {top} outside the heap (body {BODY}, slots from {})",
                end - 2 * n
            ));
        }
        if self.garbage() > top - BODY {
            return Some(format!("garbage {} exceeds the heap", self.garbage()));
        }
        for i in 0..n {
            let off = bytes::get_u16(self.0, self.slot_pos(i)) as usize;
            if off < BODY || off + ENTRY_HEADER > top {
                return Some(format!("slot {i} points at {off}, outside the heap"));
            }
            let klen = bytes::get_u16(self.0, off + 1) as usize;
            let vlen = bytes::get_u16(self.0, off + 3) as usize;
            if off + ENTRY_HEADER + klen + vlen > top {
                return Some(format!(
                    "entry {i} at {off} ({klen}-byte key, {vlen}-byte value) runs past the heap top {top}"
                ));
            }
        }
        None
    }
    /// Entry `i` (in key order). The caller keeps `i < len()`.
    pub fn entry(&self, i: usize) -> EntryRef<'a> {
        let off = bytes::get_u16(self.0, self.slot_pos(i)) as usize;
        let klen = bytes::get_u16(self.0, off + 1) as usize;
        let vlen = bytes::get_u16(self.0, off + 3) as usize;
        let k = off + ENTRY_HEADER;
        EntryRef {
            flags: self.0[off],
            key: &self.0[k..k + klen],
            value: &self.0[k + klen..k + klen + vlen],
        }
    }
    /// The key of entry `i` (reads only the key, for searches).
    pub fn key(&self, i: usize) -> &'a [u8] {
        let off = bytes::get_u16(self.0, self.slot_pos(i)) as usize;
        let klen = bytes::get_u16(self.0, off + 1) as usize;
        let k = off + ENTRY_HEADER;
        &self.0[k..k + klen]
    }
    /// Binary search: `Ok(i)` if entry `i` has `key`, else `Err(insert position)`.
    pub fn search(&self, key: &[u8]) -> Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }
    /// Internal node: index of the child entry that routes `key`.
    pub fn child_index(&self, key: &[u8]) -> usize {
        match self.search(key) {
            Ok(i) => i,
            Err(0) => 0,
            Err(i) => i - 1,
        }
    }
    /// Every entry, owned.
    pub fn entries(&self) -> Vec<Entry> {
        (0..self.len())
            .map(|i| Entry::from_ref(self.entry(i)))
            .collect()
    }
    /// Bytes available for entries (heap + slots) in an empty node.
    pub fn capacity(page_size: usize) -> usize {
        page_size - TRAILER_SIZE - BODY
    }
}

/// The largest entry (header, key and value) a node accepts: at least two fit.
pub fn max_entry_bytes(page_size: usize) -> usize {
    Node::capacity(page_size) / 2 - 2 - 16
}

/// Writes a whole node image: header fields and `entries` in order. Used for new
/// pages, splits, merges and reorganisation.
pub fn write_node(mtr: &mut Mtr<'_>, p: PageRef, level: u16, index_id: u64, entries: &[Entry]) {
    let ps = mtr.data(p).len();
    let end = ps - TRAILER_SIZE;
    let mut heap = Vec::with_capacity(entries.iter().map(Entry::heap_size).sum());
    let mut slots = vec![0u8; 2 * entries.len()];
    for (i, e) in entries.iter().enumerate() {
        let off = BODY + heap.len();
        heap.push(e.flags);
        heap.extend_from_slice(&(e.key.len() as u16).to_le_bytes());
        heap.extend_from_slice(&(e.value.len() as u16).to_le_bytes());
        heap.extend_from_slice(&e.key);
        heap.extend_from_slice(&e.value);
        // Slot i lives at end - 2(i+1): the slot array is stored reversed.
        let s = slots.len() - 2 * (i + 1);
        slots[s..s + 2].copy_from_slice(&(off as u16).to_le_bytes());
    }
    let heap_top = BODY + heap.len();
    mtr.write_u16(p, LEVEL, level);
    mtr.write_u16(p, N_ENTRIES, entries.len() as u16);
    mtr.write_u16(p, HEAP_TOP, heap_top as u16);
    mtr.write_u16(p, GARBAGE, 0);
    mtr.write_u64(p, INDEX_ID, index_id);
    mtr.write_bytes(p, BODY, &heap);
    mtr.write_bytes(p, end - slots.len(), &slots);
}

/// Inserts an entry at position `pos`. The caller checked that
/// `free_space() >= heap_size + 2` (after [`reorganize`] if needed).
pub fn insert_at(mtr: &mut Mtr<'_>, p: PageRef, pos: usize, flags: u8, key: &[u8], value: &[u8]) {
    let n = Node(mtr.data(p));
    let (len, top) = (n.len(), n.heap_top());
    let first_slot = n.slot_pos(len); // where the new last slot goes
    let mut e = Vec::with_capacity(ENTRY_HEADER + key.len() + value.len());
    e.push(flags);
    e.extend_from_slice(&(key.len() as u16).to_le_bytes());
    e.extend_from_slice(&(value.len() as u16).to_le_bytes());
    e.extend_from_slice(key);
    e.extend_from_slice(value);
    mtr.write_bytes(p, top, &e);
    // Slots pos..len move down by one slot (towards lower addresses).
    let moved = len - pos;
    if moved > 0 {
        mtr.memmove(p, first_slot, first_slot + 2, 2 * moved);
    }
    let slot = Node(mtr.data(p)).slot_pos(pos);
    mtr.write_u16(p, slot, top as u16);
    mtr.write_u16(p, HEAP_TOP, (top + e.len()) as u16);
    mtr.write_u16(p, N_ENTRIES, (len + 1) as u16);
}

/// Removes entry `pos`; its bytes become garbage.
pub fn remove_at(mtr: &mut Mtr<'_>, p: PageRef, pos: usize) {
    let n = Node(mtr.data(p));
    let (len, size, garbage) = (n.len(), n.entry(pos).heap_size(), n.garbage());
    let last_slot = n.slot_pos(len - 1);
    let moved = len - 1 - pos;
    if moved > 0 {
        mtr.memmove(p, last_slot + 2, last_slot, 2 * moved);
    }
    mtr.write_u16(p, N_ENTRIES, (len - 1) as u16);
    mtr.write_u16(p, GARBAGE, (garbage + size) as u16);
}

/// Sets or clears flags of entry `pos` in place.
pub fn set_flags(mtr: &mut Mtr<'_>, p: PageRef, pos: usize, flags: u8) {
    let n = Node(mtr.data(p));
    let off = bytes::get_u16(n.0, n.slot_pos(pos)) as usize;
    mtr.write_u8(p, off, flags);
}

/// Overwrites the value of entry `pos` with one of the same length.
pub fn overwrite_value(mtr: &mut Mtr<'_>, p: PageRef, pos: usize, value: &[u8]) {
    let n = Node(mtr.data(p));
    let off = bytes::get_u16(n.0, n.slot_pos(pos)) as usize;
    let klen = bytes::get_u16(n.0, off + 1) as usize;
    mtr.write_bytes(p, off + ENTRY_HEADER + klen, value);
}

/// Compacts the heap so all garbage becomes free space.
pub fn reorganize(mtr: &mut Mtr<'_>, p: PageRef) {
    let n = Node(mtr.data(p));
    let (level, id, entries) = (n.level(), n.index_id(), n.entries());
    write_node(mtr, p, level, id, &entries);
}

/// Makes room for `need` bytes (entry + slot) if compaction can; true if it fits.
pub fn make_room(mtr: &mut Mtr<'_>, p: PageRef, need: usize) -> bool {
    let n = Node(mtr.data(p));
    if n.free_space() >= need {
        return true;
    }
    if n.free_space() + n.garbage() >= need {
        reorganize(mtr, p);
        return true;
    }
    false
}
