//! [`SortBuffer`]: index entries gathered in one block of memory, then
//! sorted by index and key.
//!
//! Entries of every index a build creates share the buffer, so one memory
//! budget covers any number of indexes. Each entry is appended to one byte
//! arena (`u16` index, `u8` flags, `u32` key length, `u32` value length,
//! key, value; little-endian), and its offset to a list that the sort
//! reorders; nothing is allocated per entry. The bytes counted against the
//! budget are the arena's plus 8 per offset. Both vectors keep their
//! capacity when the buffer is emptied, so a build allocates them once.

use std::cmp::Ordering;

/// Bytes before an entry's key in the arena.
const HEADER: usize = 2 + 1 + 4 + 4;
/// Bytes an entry's offset costs.
const OFFSET: usize = std::mem::size_of::<usize>();

/// Flag: a key part of the entry is NULL (no uniqueness check).
pub const FLAG_HAS_NULL: u8 = 1;

/// One entry as the buffer holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortEntry<'a> {
    /// The build's index number (0 for its first new index).
    pub index: u16,
    pub flags: u8,
    pub key: &'a [u8],
    pub value: &'a [u8],
}

/// See the module documentation.
#[derive(Debug)]
pub struct SortBuffer {
    arena: Vec<u8>,
    offsets: Vec<usize>,
    budget: usize,
}

impl SortBuffer {
    /// A buffer that holds `budget` bytes of entries (at least one entry,
    /// whatever its size).
    pub fn new(budget: usize) -> Self {
        Self {
            arena: Vec::with_capacity(budget.min(1 << 30)),
            offsets: Vec::new(),
            budget,
        }
    }

    /// Bytes counted against the budget.
    pub fn used(&self) -> usize {
        self.arena.len() + self.offsets.len() * OFFSET
    }

    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// True when an entry of these sizes fits beside those held (an empty
    /// buffer takes any entry).
    pub fn fits(&self, key_len: usize, value_len: usize) -> bool {
        self.is_empty() || self.used() + HEADER + key_len + value_len + OFFSET <= self.budget
    }

    /// Appends an entry (check [`SortBuffer::fits`] first to stay in the
    /// budget).
    pub fn push(&mut self, index: u16, flags: u8, key: &[u8], value: &[u8]) {
        self.offsets.push(self.arena.len());
        self.arena.extend_from_slice(&index.to_le_bytes());
        self.arena.push(flags);
        self.arena
            .extend_from_slice(&(key.len() as u32).to_le_bytes());
        self.arena
            .extend_from_slice(&(value.len() as u32).to_le_bytes());
        self.arena.extend_from_slice(key);
        self.arena.extend_from_slice(value);
    }

    /// Sorts the entries by index, then key bytes.
    pub fn sort(&mut self) {
        let arena = &self.arena;
        self.offsets
            .sort_unstable_by(|&a, &b| compare(&entry_at(arena, a), &entry_at(arena, b)));
    }

    /// The entries in their current order.
    pub fn entries(&self) -> impl Iterator<Item = SortEntry<'_>> + '_ {
        self.offsets.iter().map(|&o| entry_at(&self.arena, o))
    }

    /// Forgets every entry, keeping the memory.
    pub fn clear(&mut self) {
        self.arena.clear();
        self.offsets.clear();
    }
}

fn compare(a: &SortEntry<'_>, b: &SortEntry<'_>) -> Ordering {
    a.index.cmp(&b.index).then_with(|| a.key.cmp(b.key))
}

fn entry_at(arena: &[u8], at: usize) -> SortEntry<'_> {
    let u32_at = |o: usize| {
        let mut b = [0u8; 4];
        b.copy_from_slice(&arena[o..o + 4]);
        u32::from_le_bytes(b) as usize
    };
    let index = u16::from_le_bytes([arena[at], arena[at + 1]]);
    let flags = arena[at + 2];
    let key_len = u32_at(at + 3);
    let value_len = u32_at(at + 7);
    let key_at = at + HEADER;
    SortEntry {
        index,
        flags,
        key: &arena[key_at..key_at + key_len],
        value: &arena[key_at + key_len..key_at + key_len + value_len],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_index_then_key_within_the_budget() {
        let mut b = SortBuffer::new(200);
        let items: [(u16, &[u8], &[u8]); 4] = [
            (1, b"b", b"v1"),
            (0, b"zz", b""),
            (1, b"a", b"v2"),
            (0, b"a", b"x"),
        ];
        for (i, k, v) in items {
            assert!(b.fits(k.len(), v.len()));
            b.push(i, 0, k, v);
        }
        b.sort();
        let got: Vec<(u16, &[u8], &[u8])> =
            b.entries().map(|e| (e.index, e.key, e.value)).collect();
        assert_eq!(
            got,
            vec![
                (0, &b"a"[..], &b"x"[..]),
                (0, b"zz", b""),
                (1, b"a", b"v2"),
                (1, b"b", b"v1")
            ]
        );
        assert_eq!(b.used(), 4 * (HEADER + OFFSET) + 5 + 5);
        assert!(!b.fits(100, 100));
        b.clear();
        assert!(b.is_empty());
        assert!(b.fits(1000, 1000), "an empty buffer takes any entry");
    }
}
