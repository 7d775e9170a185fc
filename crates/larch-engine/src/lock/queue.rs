//! One target's lock queue and the compatibility rules.
//!
//! A queue lists the entries (granted and waiting) of every owner on one
//! target, in arrival order. [`has_to_wait`] is InnoDB's
//! `lock_rec_has_to_wait`; [`Queue::blocking`] applies it with InnoDB's queue
//! rule: a request waits for every conflicting *granted* entry of another owner
//! and for every conflicting *earlier waiting* entry of another owner, unless
//! the requester already holds a granted entry on the target (then later
//! waiters cannot starve it).
//!
//! Invariants (all under the shard lock of the queue):
//! - a queue in the lock table is never empty (the last removal drops it);
//! - an owner has at most one waiting entry per queue (it waits for one lock at
//!   a time), and a waiting entry is granted as soon as nothing blocks it
//!   ([`Queue::grant_waiters`] runs after every removal);
//! - every entry added or removed updates its owner's counters and the shard's
//!   memory count ([`ENTRY_BYTES`] each), so both return to zero when the
//!   entries are gone.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use super::trx::{TrxShared, WaitStatus};
use super::types::{LockKind, LockMode, LockTarget, MapKey, OwnerId, RecordKey};

/// Bytes accounted per entry.
pub(super) const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// Bytes accounted per queue, besides its key bytes and entries.
pub(super) const QUEUE_BYTES: usize =
    std::mem::size_of::<MapKey>() + std::mem::size_of::<Queue>() + 2 * std::mem::size_of::<usize>();

/// True when a request `(mode, kind)` must wait for an entry `(held_mode,
/// held_kind)` of another owner on the same target (InnoDB's
/// `lock_rec_has_to_wait`; on the supremum every request but insert intention
/// is a gap request by then).
pub fn has_to_wait(
    mode: LockMode,
    kind: LockKind,
    held_mode: LockMode,
    held_kind: LockKind,
) -> bool {
    if !mode.conflicts_with(held_mode) {
        return false;
    }
    match kind {
        // Gap locks are purely inhibitive: they never wait.
        LockKind::GapOnly => false,
        // An insert waits for any lock on the gap, whatever its mode.
        LockKind::InsertIntention => held_kind.has_gap(),
        // Record parts conflict by mode; gaps and insert intentions block no
        // record request.
        LockKind::RecordOnly | LockKind::NextKey => held_kind.has_record(),
    }
}

/// One owner's lock (or lock request) on a target.
#[derive(Debug)]
pub(super) struct Entry {
    pub(super) owner: OwnerId,
    pub(super) mode: LockMode,
    pub(super) kind: LockKind,
    /// `None` once granted; when the wait started otherwise.
    pub(super) waiting_since: Option<Instant>,
    pub(super) trx: Arc<TrxShared>,
}

impl Entry {
    pub(super) fn new(
        trx: &Arc<TrxShared>,
        mode: LockMode,
        kind: LockKind,
        waiting: bool,
    ) -> Entry {
        Entry {
            owner: trx.owner,
            mode,
            kind,
            waiting_since: waiting.then(Instant::now),
            trx: Arc::clone(trx),
        }
    }

    pub(super) fn is_granted(&self) -> bool {
        self.waiting_since.is_none()
    }
}

/// The entries, inline while there is one (the uncontended case allocates
/// nothing but the queue's key).
#[derive(Debug)]
enum Entries {
    One(Entry),
    Many(Vec<Entry>),
}

/// The lock queue of one target.
#[derive(Debug)]
pub(super) struct Queue {
    /// The target (sharing the key bytes with the table's key).
    pub(super) target: LockTarget,
    entries: Entries,
}

impl Queue {
    /// A queue holding `first`; accounts the queue and the entry.
    pub(super) fn new(target: LockTarget, first: Entry, memory: &AtomicUsize) -> Queue {
        memory.fetch_add(Self::own_bytes(&target), Relaxed);
        let queue = Queue {
            target,
            entries: Entries::One(first),
        };
        queue.account_added(0, memory);
        queue
    }

    /// Bytes of the queue itself (without its entries).
    pub(super) fn own_bytes(target: &LockTarget) -> usize {
        QUEUE_BYTES + target.key.bytes().map_or(0, <[u8]>::len)
    }

    /// The entries in arrival order.
    pub(super) fn entries(&self) -> &[Entry] {
        match &self.entries {
            Entries::One(e) => std::slice::from_ref(e),
            Entries::Many(v) => v,
        }
    }

    fn entries_mut(&mut self) -> &mut [Entry] {
        match &mut self.entries {
            Entries::One(e) => std::slice::from_mut(e),
            Entries::Many(v) => v,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    fn is_supremum(&self) -> bool {
        matches!(self.target.key, RecordKey::Supremum)
    }

    /// True when `owner` holds a granted entry here.
    fn holds_granted(&self, owner: OwnerId) -> bool {
        self.entries()
            .iter()
            .any(|e| e.owner == owner && e.is_granted())
    }

    /// True when `owner` already holds granted entries covering `(mode,
    /// kind)`: the record part by a record entry at least as strong, the gap
    /// part by a gap entry at least as strong (insert intentions cover nothing).
    pub(super) fn covers(&self, owner: OwnerId, mode: LockMode, kind: LockKind) -> bool {
        let mine = || {
            self.entries().iter().filter(move |e| {
                e.owner == owner
                    && e.is_granted()
                    && e.kind != LockKind::InsertIntention
                    && e.mode.covers(mode)
            })
        };
        let record = !kind.has_record() || mine().any(|e| e.kind.has_record());
        let gap = !kind.has_gap() || mine().any(|e| e.kind.has_gap());
        record && gap
    }

    /// The entries of other owners that a request `(owner, mode, kind)` at
    /// `position` (an existing waiting entry's index, or `len` for a new
    /// request) must wait for.
    pub(super) fn blocking(
        &self,
        owner: OwnerId,
        mode: LockMode,
        kind: LockKind,
        position: usize,
    ) -> impl Iterator<Item = &Entry> + '_ {
        let holds = self.holds_granted(owner);
        self.entries()
            .iter()
            .enumerate()
            .filter(move |(j, e)| {
                e.owner != owner
                    && (e.is_granted() || (*j < position && !holds))
                    && has_to_wait(mode, kind, e.mode, e.kind)
            })
            .map(|(_, e)| e)
    }

    /// The index of `owner`'s waiting entry.
    pub(super) fn waiting_index(&self, owner: OwnerId) -> Option<usize> {
        self.entries()
            .iter()
            .position(|e| e.owner == owner && !e.is_granted())
    }

    /// Appends `entry`, accounting it.
    pub(super) fn push(&mut self, entry: Entry, memory: &AtomicUsize) {
        let taken = std::mem::replace(&mut self.entries, Entries::Many(Vec::new()));
        self.entries = match taken {
            Entries::One(first) => {
                let mut v = Vec::with_capacity(4);
                v.push(first);
                v.push(entry);
                Entries::Many(v)
            }
            Entries::Many(mut v) => {
                v.push(entry);
                Entries::Many(v)
            }
        };
        self.account_added(self.entries().len() - 1, memory);
    }

    fn counts_row(&self, e: &Entry) -> bool {
        e.is_granted() && e.kind.has_record() && !self.is_supremum()
    }

    fn account_added(&self, i: usize, memory: &AtomicUsize) {
        if let Some(e) = self.entries().get(i) {
            memory.fetch_add(ENTRY_BYTES, Relaxed);
            e.trx.lock_structs.fetch_add(1, Relaxed);
            if self.counts_row(e) {
                e.trx.rows_locked.fetch_add(1, Relaxed);
            }
        }
    }

    fn account_removed(&self, e: &Entry, memory: &AtomicUsize) {
        memory.fetch_sub(ENTRY_BYTES, Relaxed);
        e.trx.lock_structs.fetch_sub(1, Relaxed);
        if self.counts_row(e) {
            e.trx.rows_locked.fetch_sub(1, Relaxed);
        }
    }

    /// Removes and returns the entry at `i`, accounting it (does not regrant).
    pub(super) fn remove(&mut self, i: usize, memory: &AtomicUsize) -> Option<Entry> {
        let removed = if let Entries::Many(v) = &mut self.entries {
            (i < v.len()).then(|| v.remove(i))
        } else if i == 0 {
            match std::mem::replace(&mut self.entries, Entries::Many(Vec::new())) {
                Entries::One(e) => Some(e),
                Entries::Many(_) => None,
            }
        } else {
            None
        }?;
        self.account_removed(&removed, memory);
        Some(removed)
    }

    /// Removes every entry of `owner`; returns how many.
    pub(super) fn remove_owner(&mut self, owner: OwnerId, memory: &AtomicUsize) -> usize {
        let mut removed = 0;
        while let Some(i) = self.entries().iter().rposition(|e| e.owner == owner) {
            if self.remove(i, memory).is_some() {
                removed += 1;
            }
        }
        removed
    }

    /// Removes every entry, accounting them; returns them in order.
    pub(super) fn drain(&mut self, memory: &AtomicUsize) -> Vec<Entry> {
        let taken = std::mem::replace(&mut self.entries, Entries::Many(Vec::new()));
        let all = match taken {
            Entries::One(e) => vec![e],
            Entries::Many(v) => v,
        };
        for e in &all {
            self.account_removed(e, memory);
        }
        all
    }

    /// Grants, in queue order, every waiting entry that nothing blocks any
    /// more, and wakes its owner. Returns how many were granted.
    pub(super) fn grant_waiters(&mut self) -> usize {
        let mut granted = 0;
        for i in 0..self.entries().len() {
            let grant = match self.entries().get(i) {
                Some(e) if !e.is_granted() => {
                    self.blocking(e.owner, e.mode, e.kind, i).next().is_none()
                }
                _ => false,
            };
            if grant {
                let supremum = self.is_supremum();
                if let Some(e) = self.entries_mut().get_mut(i) {
                    e.waiting_since = None;
                    if e.kind.has_record() && !supremum {
                        e.trx.rows_locked.fetch_add(1, Relaxed);
                    }
                    e.trx.end_wait(WaitStatus::Granted);
                    granted += 1;
                }
            }
        }
        granted
    }
}
