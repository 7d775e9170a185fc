//! [`CommitTable`]: transaction id -> state (active, committed with a CSN, rolled
//! back), readable without locks.
//!
//! The table is a ring of `capacity` entries (a power of two) plus an ordered
//! overflow map. Entry `slot(id)` holds `(id, state)` for the most recently
//! registered id that maps to it. Consecutive ids map to entries on different
//! cache lines (`slot` spreads the low two bits over the ring), so transactions
//! registered and committed at the same time by different threads do not share a
//! line.
//!
//! Why a ring: ids are assigned densely and in increasing order, and nearly
//! every id a reader asks about is recent (the low watermark answers for the old
//! ones), so "the last `capacity` ids" is the working set and a direct-mapped
//! array finds it with one index computation and three loads, with no hashing,
//! no pointer chasing and no lock. Why the overflow map: a transaction that stays
//! active (or whose commit is still newer than some live snapshot) while
//! `capacity` newer ids are registered would be overwritten; registering the new
//! id moves the old one into the map first. That is the slow path for
//! long-running transactions only, and it is a `RwLock`-protected `BTreeMap` so
//! that dropping everything below the low watermark is one `split_off`.
//!
//! Entry protocol. The id word's top bit is a writer lock. Writers (register,
//! finish) are rare, short and never block while holding it: they set the bit by
//! compare-and-swap, write the state, and clear the bit by storing the entry's id
//! (release stores). Readers load (acquire) the id word, the state, and the id
//! word again, and accept the state only when both id loads are equal and
//! unlocked: ids in an entry only grow, and a reader that read a state written
//! after the lock was taken also sees the locked (or a newer) id word, so equal
//! words mean the state was read while the entry belonged to that id (a seqlock
//! whose version is the id itself). Lock order: entry, then map.
//!
//! A committer stores `committed(csn)` with a release store before it publishes
//! the CSN, and a reader loads the published CSN (acquire) before the state, so
//! a reader whose snapshot includes the CSN sees the committed state.
//!
//! What is forgotten: when a new id takes an entry, the old id is dropped instead
//! of moved if it is rolled back (no version written by it remains) or committed
//! with a CSN at or below the snapshot floor (every live and future snapshot sees
//! it). An id that is in neither place is therefore either such a transaction,
//! or one that was finished before the engine started (below the recovery
//! boundary), or one whose id has been taken but not yet registered; only the
//! low-watermark walk can meet the last kind and [`CommitTable::walk_status`]
//! reports it separately.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Acquire, Ordering::Release, Ordering::SeqCst};

use parking_lot::RwLock;

use super::csn::wait_until;
use super::{Csn, TrxId};

const LOCKED: u64 = 1 << 63;
const ACTIVE: u64 = 0;
const ROLLED_BACK: u64 = 1;
const COMMITTED: u64 = 1 << 63;

/// The state of a transaction as the commit table knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrxStatus {
    /// Registered and not finished (also while committing, before its state is
    /// stored, and while rolling back).
    Active,
    /// Committed with this CSN (it may not be published yet).
    Committed(Csn),
    /// Rolled back completely: none of its versions remain.
    RolledBack,
    /// No longer tracked: committed with a CSN at or below every live and future
    /// snapshot, rolled back, or finished before the engine started.
    Forgotten,
}

/// The state word: `ACTIVE`, `ROLLED_BACK` or `COMMITTED | csn`.
pub(crate) fn encode(status: TrxStatus) -> u64 {
    match status {
        TrxStatus::Active | TrxStatus::Forgotten => ACTIVE,
        TrxStatus::RolledBack => ROLLED_BACK,
        TrxStatus::Committed(csn) => COMMITTED | csn,
    }
}

fn decode(word: u64) -> TrxStatus {
    match word {
        ACTIVE => TrxStatus::Active,
        ROLLED_BACK => TrxStatus::RolledBack,
        w => TrxStatus::Committed(w & !COMMITTED),
    }
}

#[repr(align(16))]
struct Entry {
    id: AtomicU64,
    state: AtomicU64,
}

/// See the module documentation.
pub(crate) struct CommitTable {
    entries: Box<[Entry]>,
    /// log2 of the entry count.
    bits: u32,
    overflow: RwLock<BTreeMap<TrxId, u64>>,
    /// Ids below this were assigned before the engine started and are never
    /// registered in the ring (those still active are in the overflow map).
    boundary: TrxId,
}

impl CommitTable {
    /// A table with `capacity` ring entries (rounded up to a power of two, at
    /// least 4); `boundary` is the first id this run will assign, and
    /// `recovered_active` are ids below it that were active at the crash.
    pub(crate) fn new(capacity: usize, boundary: TrxId, recovered_active: &[TrxId]) -> Self {
        let n = capacity.max(4).next_power_of_two();
        let overflow = recovered_active.iter().map(|&id| (id, ACTIVE)).collect();
        Self {
            entries: (0..n)
                .map(|_| Entry {
                    id: AtomicU64::new(0),
                    state: AtomicU64::new(ACTIVE),
                })
                .collect(),
            bits: n.trailing_zeros(),
            overflow: RwLock::new(overflow),
            boundary,
        }
    }

    /// Ring entry of `id`: its low two bits pick a quarter of the ring, the rest
    /// the position inside it. A bijection on any `capacity` consecutive ids.
    fn entry(&self, id: TrxId) -> &Entry {
        let quarter = self.bits - 2;
        let idx = ((id & 3) << quarter) | ((id >> 2) & ((1u64 << quarter) - 1));
        &self.entries[idx as usize]
    }

    /// Sets the entry's lock bit; returns the id it held.
    fn lock(e: &Entry) -> TrxId {
        let mut held = 0;
        wait_until(|| {
            let w = e.id.load(SeqCst);
            if w & LOCKED != 0 {
                return false;
            }
            held = w;
            e.id.compare_exchange(w, w | LOCKED, SeqCst, SeqCst).is_ok()
        });
        held
    }

    /// Records `id` as active. Called once per id, before the transaction writes
    /// anything. `floor` is a CSN at or below every live and future snapshot: an
    /// evicted transaction committed at or below it is forgotten, not moved.
    pub(crate) fn register(&self, id: TrxId, floor: Csn) {
        let e = self.entry(id);
        let old = Self::lock(e);
        if old != 0 {
            let keep = match decode(e.state.load(SeqCst)) {
                TrxStatus::Active => true,
                TrxStatus::Committed(csn) => csn > floor,
                TrxStatus::RolledBack | TrxStatus::Forgotten => false,
            };
            if keep {
                self.overflow.write().insert(old, e.state.load(SeqCst));
            }
        }
        e.state.store(ACTIVE, Release);
        e.id.store(id, Release);
    }

    /// Stores the final state of a registered (or recovered) transaction.
    pub(crate) fn finish(&self, id: TrxId, status: TrxStatus) {
        let word = encode(status);
        let e = self.entry(id);
        let held = Self::lock(e);
        if held == id {
            e.state.store(word, Release);
        } else {
            // Moved to the overflow map when a newer id took the entry (or a
            // recovered transaction that never had one).
            self.overflow.write().insert(id, word);
        }
        e.id.store(held, Release);
    }

    /// The state of `id`, without locks when `id` is in the ring.
    pub(crate) fn status(&self, id: TrxId) -> TrxStatus {
        let e = self.entry(id);
        let mut found = None;
        wait_until(|| {
            let w1 = e.id.load(Acquire);
            if w1 & LOCKED != 0 {
                return false;
            }
            let state = e.state.load(Acquire);
            if e.id.load(Acquire) != w1 {
                return false;
            }
            if w1 == id {
                found = Some(decode(state));
            }
            true
        });
        if let Some(status) = found {
            return status;
        }
        self.overflow
            .read()
            .get(&id)
            .map_or(TrxStatus::Forgotten, |&w| decode(w))
    }

    /// Like [`status`](Self::status), but `None` for an id at or above the
    /// recovery boundary that is not registered yet (its entry still holds an
    /// older id): the low-watermark walk must stop there.
    pub(crate) fn walk_status(&self, id: TrxId) -> Option<TrxStatus> {
        if id >= self.boundary {
            let held = self.entry(id).id.load(SeqCst) & !LOCKED;
            if held < id {
                return None;
            }
        }
        Some(self.status(id))
    }

    /// Drops overflow entries below `watermark`, and, when `full`, also those
    /// that are rolled back or committed at or below `floor`. Returns how many
    /// entries remain.
    pub(crate) fn prune_overflow(&self, watermark: TrxId, floor: Csn, full: bool) -> usize {
        if self.overflow.read().is_empty() {
            return 0;
        }
        let mut map = self.overflow.write();
        let kept = map.split_off(&watermark);
        *map = kept;
        if full {
            map.retain(|_, w| match decode(*w) {
                TrxStatus::Active => true,
                TrxStatus::Committed(csn) => csn > floor,
                TrxStatus::RolledBack | TrxStatus::Forgotten => false,
            });
        }
        map.len()
    }

    /// Entries in the overflow map.
    pub(crate) fn overflow_len(&self) -> usize {
        self.overflow.read().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn entry_mapping_is_a_bijection_over_a_window() {
        let t = CommitTable::new(64, 1, &[]);
        for start in [1u64, 5, 1000, (1 << 48) - 100] {
            let seen: HashSet<*const Entry> = (start..start + 64)
                .map(|id| t.entry(id) as *const Entry)
                .collect();
            assert_eq!(seen.len(), 64);
        }
        // Consecutive ids land 16 entries (256 bytes) apart.
        let a = t.entry(8) as *const Entry as usize;
        let b = t.entry(9) as *const Entry as usize;
        assert_eq!(b.abs_diff(a), 16 * std::mem::size_of::<Entry>());
    }

    #[test]
    fn states_round_trip() {
        let t = CommitTable::new(8, 1, &[]);
        t.register(1, 0);
        t.register(2, 0);
        t.register(3, 0);
        assert_eq!(t.status(1), TrxStatus::Active);
        t.finish(1, TrxStatus::Committed(7));
        t.finish(2, TrxStatus::RolledBack);
        assert_eq!(t.status(1), TrxStatus::Committed(7));
        assert_eq!(t.status(2), TrxStatus::RolledBack);
        assert_eq!(t.status(3), TrxStatus::Active);
        assert_eq!(t.walk_status(4), None, "4 is not registered yet");
        assert_eq!(t.walk_status(3), Some(TrxStatus::Active));
    }

    #[test]
    fn eviction_moves_live_transactions_and_forgets_finished_ones() {
        let t = CommitTable::new(4, 1, &[]);
        for id in 1..=4 {
            t.register(id, 0);
        }
        t.finish(2, TrxStatus::Committed(10));
        t.finish(3, TrxStatus::Committed(20));
        t.finish(4, TrxStatus::RolledBack);
        // Ids 5..=8 take the entries of 1..=4; the floor is 10.
        for id in 5..=8 {
            t.register(id, 10);
        }
        assert_eq!(t.status(1), TrxStatus::Active, "active: moved");
        assert_eq!(
            t.status(2),
            TrxStatus::Forgotten,
            "committed at the floor: forgotten"
        );
        assert_eq!(
            t.status(3),
            TrxStatus::Committed(20),
            "newer than the floor: moved"
        );
        assert_eq!(t.status(4), TrxStatus::Forgotten, "rolled back: forgotten");
        assert_eq!(t.overflow_len(), 2);
        // Finishing an evicted transaction updates the map.
        t.finish(1, TrxStatus::Committed(30));
        assert_eq!(t.status(1), TrxStatus::Committed(30));
        assert_eq!(t.status(5), TrxStatus::Active);
        // Pruning: below the watermark, then by the floor.
        assert_eq!(t.prune_overflow(2, 0, false), 1);
        assert_eq!(t.status(1), TrxStatus::Forgotten);
        assert_eq!(t.prune_overflow(2, 19, true), 1);
        assert_eq!(t.prune_overflow(2, 20, true), 0);
        assert_eq!(t.status(3), TrxStatus::Forgotten);
    }

    #[test]
    fn recovered_transactions_live_in_the_map() {
        let t = CommitTable::new(8, 100, &[10, 50]);
        assert_eq!(t.status(10), TrxStatus::Active);
        assert_eq!(
            t.walk_status(11),
            Some(TrxStatus::Forgotten),
            "finished before the crash"
        );
        t.finish(10, TrxStatus::RolledBack);
        assert_eq!(t.status(10), TrxStatus::RolledBack);
        assert_eq!(t.walk_status(100), None);
    }
}
