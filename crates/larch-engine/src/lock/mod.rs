//! The row lock manager: record, gap, next-key and insert-intention locks with
//! InnoDB's compatibility rules, waits with timeout / NOWAIT / SKIP LOCKED /
//! KILL, deadlock detection with a victim, gap inheritance when a record is
//! removed, and the counters behind `INNODB_TRX`, `INNODB_LOCKS`,
//! `INNODB_LOCK_WAITS` and the `Innodb_row_lock_*` status variables. The rules
//! are written up in `docs/locking.md`.
//!
//! What it owns:
//! - **identity**: a lock is on a [`LockTarget`]: an index id and the entry's
//!   memcomparable key bytes, or the index's supremum (end-of-index
//!   pseudo-record, gap locks only). A gap lock on a record covers the open
//!   interval between its predecessor in the index and it;
//! - **the lock table**: [`DEFAULT_SHARDS`] shards, each a mutex over a map
//!   from target to queue (`queue`). A grant without conflict locks one shard
//!   and allocates only the key (when the target has no queue yet; the owner's
//!   list of targets shares it and grows amortised);
//! - **compatibility** ([`has_to_wait`], InnoDB's `lock_rec_has_to_wait`): gap
//!   parts never conflict with each other; an insert intention waits for any
//!   gap or next-key lock of another owner (held or waited for), and an insert
//!   intention blocks nobody (one granted without waiting keeps no entry, as in
//!   InnoDB); record parts conflict unless both are shared. An owner never
//!   conflicts with itself, and a request its granted locks already cover is
//!   [`LockOutcome::AlreadyHeld`] without a new entry;
//! - **queue rule**: a record request also waits behind earlier waiting
//!   requests of other owners it conflicts with, unless its owner already holds
//!   a granted lock on the target (so S -> X upgrades are granted when no other
//!   owner holds a conflicting lock);
//! - **waits** ([`WaitPolicy`]): the requester parks on its own condition
//!   variable until its entry is granted, its wait times out (MySQL 1205), the
//!   caller's KILL flag is set (polled every [`WAIT_POLL`]; 1317), it is chosen
//!   as a deadlock victim (1213) or its record is removed
//!   ([`LockOutcome::RecordRemoved`]). A wait that ends without the lock removes
//!   its waiting entry. `NOWAIT` fails with `EngineError::LockNoWait`: MariaDB
//!   (whose clients our users run) reports NOWAIT as `ER_LOCK_WAIT_TIMEOUT`
//!   1205 "Lock wait timeout exceeded; try restarting transaction", not
//!   MySQL 8's 3572, and so does this variant's message and code;
//! - **deadlocks** (`deadlock`): searched when a wait is about to start, under
//!   one global mutex; the lightest owner of the cycle by the caller-supplied
//!   weight is the victim, the requester on ties;
//! - **release**: [`LockManager::release_all`] drops an owner's locks in
//!   O(locks held) and grants the waiters that became compatible, in queue
//!   order; [`LockManager::release_record`] drops one record lock (READ
//!   COMMITTED's early release of rows that did not match);
//! - **gap inheritance** ([`LockManager::inherit_gap`]): when a record is
//!   physically removed, its gap and next-key locks (held or waited for) become
//!   granted gap locks of the same owners and modes on the next record.
//!
//! Invariants: see `queue` (queue contents, counters, memory) and `trx` (wait
//! slot transitions, where an owner's entries are listed). Lock order: the
//! detector mutex, then shard locks (two only in `inherit_gap`, in index
//! order), then an owner's wait slot or inherited list.
//!
//! Usage: one `LockManager` per engine (behind an `Arc`); one [`TrxLocks`] per
//! transaction that locks (`TrxLocks::new(owner)`); every lock call is
//! `manager.lock(&mut trx_locks, LockRequest::new(index_id, key, mode, kind),
//! WaitOptions::wait(timeout).with_cancel(&killed).with_weight(weight))`; at
//! commit or rollback `manager.release_all(&mut trx_locks)`. A deadlock error
//! means the caller must roll the transaction back. This module uses only `std`,
//! `parking_lot` and `tracing`.

mod deadlock;
mod observe;
mod queue;
mod trx;
mod types;

#[cfg(test)]
mod release_tests;
#[cfg(test)]
mod stress_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

pub use observe::{LockInfo, LockStats, LockWaitInfo, OwnerLockStats};
pub use queue::has_to_wait;
pub use trx::{TrxLockStats, TrxLocks, WaitingFor};
pub use types::{
    KeyRef, LockKind, LockMode, LockOutcome, LockRequest, LockTarget, OwnerId, RecordKey,
    TargetRef, WaitOptions, WaitPolicy,
};

use crate::error::{EngineError, Result};
use queue::{Entry, Queue};
use trx::{TrxShared, WaitSlot, WaitStatus};
use types::{MapKey, TargetParts};

/// Shards of the lock table.
pub const DEFAULT_SHARDS: usize = 64;
/// A waiter checks its KILL flag at least this often.
pub const WAIT_POLL: Duration = Duration::from_millis(50);

type LockMap = HashMap<MapKey, Queue>;

/// One shard of the lock table, on its own cache lines.
#[repr(align(128))]
struct Shard {
    map: Mutex<LockMap>,
    /// Bytes accounted for this shard's queues and entries.
    memory: AtomicUsize,
}

/// Global counters (touched only by waits, never by uncontended grants).
#[derive(Debug, Default)]
struct Counters {
    current_waits: AtomicU64,
    total_waits: AtomicU64,
    wait_micros: AtomicU64,
    max_wait_micros: AtomicU64,
    deadlocks: AtomicU64,
    timeouts: AtomicU64,
}

/// Why a wait ends without the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EndReason {
    Timeout,
    Interrupted,
    Deadlock,
}

/// The row lock manager. See the module documentation.
pub struct LockManager {
    shards: Box<[Shard]>,
    /// Serialises deadlock searches.
    detector: Mutex<()>,
    counters: Counters,
}

impl std::fmt::Debug for LockManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LockManager")
            .field("shards", &self.shards.len())
            .field("counters", &self.counters)
            .finish()
    }
}

impl Default for LockManager {
    fn default() -> Self {
        Self::new()
    }
}

impl LockManager {
    /// A manager with [`DEFAULT_SHARDS`] shards.
    pub fn new() -> LockManager {
        Self::with_shards(DEFAULT_SHARDS)
    }

    /// A manager with `shards` shards (at least one).
    pub fn with_shards(shards: usize) -> LockManager {
        let shards = (0..shards.max(1))
            .map(|_| Shard {
                map: Mutex::new(HashMap::new()),
                memory: AtomicUsize::new(0),
            })
            .collect();
        LockManager {
            shards,
            detector: Mutex::new(()),
            counters: Counters::default(),
        }
    }

    fn shard_index(&self, target: &dyn TargetParts) -> usize {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let (index_id, key) = target.parts();
        let mut h = index_id.wrapping_mul(K);
        match key {
            None => h = (h ^ 0x5350).wrapping_mul(K),
            Some(key) => {
                h = (h ^ key.len() as u64).wrapping_mul(K);
                for chunk in key.chunks(8) {
                    let mut b = [0u8; 8];
                    b[..chunk.len()].copy_from_slice(chunk);
                    h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
                }
            }
        }
        ((h ^ (h >> 29)) % self.shards.len() as u64) as usize
    }

    fn shard_for(&self, target: &dyn TargetParts) -> &Shard {
        &self.shards[self.shard_index(target)]
    }

    /// Removes the queue of `target` when it has no entries left.
    fn drop_if_empty(map: &mut LockMap, target: &dyn TargetParts, memory: &AtomicUsize) {
        if map.get(target).is_some_and(Queue::is_empty) {
            if let Some(q) = map.remove(target) {
                memory.fetch_sub(Queue::own_bytes(&q.target), Relaxed);
            }
        }
    }

    /// Locks `request.target` for `trx`'s owner.
    ///
    /// Returns [`LockOutcome::Granted`] (a new entry), `AlreadyHeld` (covered by
    /// the owner's granted locks; nothing added), `Skipped` (SKIP LOCKED and it
    /// would wait) or `RecordRemoved` (the record was removed while waiting:
    /// re-position and retry). Errors: `EngineError::LockWaitTimeout`,
    /// `LockNoWait`, `Deadlock` (roll the transaction back) and
    /// `QueryInterrupted`. A record-only request on a supremum locks nothing
    /// and is granted; a next-key request on it is a gap request.
    pub fn lock(
        &self,
        trx: &mut TrxLocks,
        request: LockRequest<'_>,
        options: WaitOptions<'_>,
    ) -> Result<LockOutcome> {
        let LockRequest { target, mode, kind } = request.normalized();
        if target.is_supremum() && kind == LockKind::RecordOnly {
            return Ok(LockOutcome::Granted);
        }
        let owner = trx.owner();
        trx.shared.weight.store(options.weight, Relaxed);
        let shard = self.shard_for(&target);
        let mut map = shard.map.lock();
        let Some(queue) = map.get_mut(&target as &dyn TargetParts) else {
            if kind == LockKind::InsertIntention {
                return Ok(LockOutcome::Granted);
            }
            let owned = target.to_target();
            let first = Entry::new(&trx.shared, mode, kind, false);
            let queue = Queue::new(owned.clone(), first, &shard.memory);
            map.insert(MapKey(owned.clone()), queue);
            drop(map);
            trx.held.push(owned);
            return Ok(LockOutcome::Granted);
        };
        if kind != LockKind::InsertIntention && queue.covers(owner, mode, kind) {
            return Ok(LockOutcome::AlreadyHeld);
        }
        let position = queue.entries().len();
        if queue.blocking(owner, mode, kind, position).next().is_none() {
            if kind == LockKind::InsertIntention {
                return Ok(LockOutcome::Granted);
            }
            queue.push(Entry::new(&trx.shared, mode, kind, false), &shard.memory);
            let held = queue.target.clone();
            drop(map);
            trx.held.push(held);
            return Ok(LockOutcome::Granted);
        }
        let timeout = match options.policy {
            WaitPolicy::NoWait => return Err(EngineError::LockNoWait),
            WaitPolicy::SkipLocked => return Ok(LockOutcome::Skipped),
            WaitPolicy::Wait { timeout } => timeout,
        };
        queue.push(Entry::new(&trx.shared, mode, kind, true), &shard.memory);
        let waited_on = queue.target.clone();
        *trx.shared.slot.lock() = WaitSlot {
            status: WaitStatus::Waiting,
            target: Some(waited_on.clone()),
            mode,
            kind,
            since: Some(Instant::now()),
        };
        drop(map);
        trx.held.push(waited_on.clone());
        let result = crate::io::blocking::blocking(|| {
            self.wait(&trx.shared, &waited_on, timeout, options.cancel)
        });
        if !matches!(result, Ok(LockOutcome::Granted)) {
            trx.forget(&waited_on);
        }
        result
    }

    /// Runs one wait of `me` for its waiting entry on `target`: deadlock check,
    /// park, and the counters.
    fn wait(
        &self,
        me: &Arc<TrxShared>,
        target: &LockTarget,
        timeout: Duration,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<LockOutcome> {
        let started = Instant::now();
        self.counters.current_waits.fetch_add(1, Relaxed);
        self.counters.total_waits.fetch_add(1, Relaxed);
        let result = match self.check_deadlock(me, target) {
            Some(done) => done,
            None => self.park(me, target, started, timeout, cancel),
        };
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.counters.wait_micros.fetch_add(micros, Relaxed);
        self.counters.max_wait_micros.fetch_max(micros, Relaxed);
        self.counters.current_waits.fetch_sub(1, Relaxed);
        let mut slot = me.slot.lock();
        slot.status = WaitStatus::Idle;
        slot.target = None;
        slot.since = None;
        result
    }

    /// Parks until the wait of `me` ends one way or another.
    fn park(
        &self,
        me: &Arc<TrxShared>,
        target: &LockTarget,
        started: Instant,
        timeout: Duration,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<LockOutcome> {
        let deadline = started.checked_add(timeout);
        let reason = {
            let mut slot = me.slot.lock();
            loop {
                match slot.status {
                    WaitStatus::Granted => return Ok(LockOutcome::Granted),
                    WaitStatus::Deadlock => return Err(EngineError::Deadlock),
                    WaitStatus::Removed => return Ok(LockOutcome::RecordRemoved),
                    WaitStatus::Idle | WaitStatus::Waiting => {}
                }
                if cancel.is_some_and(|c| c.load(Relaxed)) {
                    break EndReason::Interrupted;
                }
                let remaining = match deadline {
                    Some(d) => d.saturating_duration_since(Instant::now()),
                    None => WAIT_POLL,
                };
                if remaining.is_zero() {
                    break EndReason::Timeout;
                }
                let _ = me.wake.wait_for(&mut slot, remaining.min(WAIT_POLL));
            }
        };
        self.end_wait(me, target, reason)
    }

    /// Ends the wait of `me` on `target` without the lock, unless it was
    /// granted, aborted or removed meanwhile (then reports that).
    fn end_wait(
        &self,
        me: &Arc<TrxShared>,
        target: &LockTarget,
        reason: EndReason,
    ) -> Result<LockOutcome> {
        let shard = self.shard_for(target);
        let mut map = shard.map.lock();
        let status = me.slot.lock().status;
        match status {
            WaitStatus::Granted => return Ok(LockOutcome::Granted),
            WaitStatus::Deadlock => return Err(EngineError::Deadlock),
            WaitStatus::Removed => return Ok(LockOutcome::RecordRemoved),
            WaitStatus::Idle | WaitStatus::Waiting => {}
        }
        if let Some(queue) = map.get_mut(target as &dyn TargetParts) {
            if let Some(i) = queue.waiting_index(me.owner) {
                queue.remove(i, &shard.memory);
                queue.grant_waiters();
            }
        }
        Self::drop_if_empty(&mut map, target, &shard.memory);
        drop(map);
        match reason {
            EndReason::Timeout => {
                self.counters.timeouts.fetch_add(1, Relaxed);
                Err(EngineError::LockWaitTimeout)
            }
            EndReason::Interrupted => Err(EngineError::QueryInterrupted),
            EndReason::Deadlock => {
                self.counters.deadlocks.fetch_add(1, Relaxed);
                tracing::info!(victim = me.owner.0, "deadlock: rolling back the requester");
                Err(EngineError::Deadlock)
            }
        }
    }

    /// Releases every lock of `trx`'s owner and grants the waiters that became
    /// compatible, in queue order. O(locks held).
    pub fn release_all(&self, trx: &mut TrxLocks) {
        let owner = trx.owner();
        let mut held = std::mem::take(&mut trx.held);
        self.release_targets(owner, &held);
        held.clear();
        trx.held = held;
        // Gap inheritance may have moved entries of this owner to targets it
        // never asked for; it lists them under the shard locks, so draining
        // until empty after the own targets finds them all.
        loop {
            let inherited = std::mem::take(&mut *trx.shared.inherited.lock());
            if inherited.is_empty() {
                break;
            }
            self.release_targets(owner, &inherited);
        }
    }

    /// Removes `owner`'s entries on `targets`, locking each shard once per run
    /// of consecutive targets in it.
    fn release_targets(&self, owner: OwnerId, targets: &[LockTarget]) {
        let mut i = 0;
        while let Some(first) = targets.get(i) {
            let idx = self.shard_index(first);
            let shard = &self.shards[idx];
            let mut map = shard.map.lock();
            while let Some(t) = targets.get(i) {
                if self.shard_index(t) != idx {
                    break;
                }
                if let Some(queue) = map.get_mut(t as &dyn TargetParts) {
                    if queue.remove_owner(owner, &shard.memory) > 0 {
                        queue.grant_waiters();
                    }
                }
                Self::drop_if_empty(&mut map, t, &shard.memory);
                i += 1;
            }
        }
    }

    /// Releases one granted lock of exactly `request`'s mode and kind (READ
    /// COMMITTED's early release of a row a scan locked but that did not
    /// match). Call it only after a lock call that returned `Granted` (not
    /// `AlreadyHeld`). Returns false when there was no such lock.
    pub fn release_record(&self, trx: &mut TrxLocks, request: LockRequest<'_>) -> bool {
        let LockRequest { target, mode, kind } = request.normalized();
        let owner = trx.owner();
        let shard = self.shard_for(&target);
        let mut map = shard.map.lock();
        let Some(queue) = map.get_mut(&target as &dyn TargetParts) else {
            return false;
        };
        let Some(i) = queue
            .entries()
            .iter()
            .rposition(|e| e.owner == owner && e.is_granted() && e.mode == mode && e.kind == kind)
        else {
            return false;
        };
        queue.remove(i, &shard.memory);
        queue.grant_waiters();
        let released = queue.target.clone();
        Self::drop_if_empty(&mut map, &target, &shard.memory);
        drop(map);
        trx.forget(&released);
        true
    }

    /// A record `removed_key` of index `index_id` was physically removed
    /// (purge, rollback of an insert): every gap or next-key lock held or
    /// waited for on it becomes a granted gap lock, same owner and mode, on
    /// `next_key` (the record after it, or the supremum), as InnoDB's
    /// `lock_rec_inherit_to_gap`. All entries on the removed record are
    /// dropped; its waiters are woken with [`LockOutcome::RecordRemoved`].
    /// (InnoDB also turns record-only locks of REPEATABLE READ transactions
    /// into gap locks here; see `docs/locking.md`.)
    pub fn inherit_gap(
        &self,
        index_id: u64,
        removed_key: &[u8],
        next_key: KeyRef<'_>,
    ) -> Result<()> {
        let from = TargetRef::key(index_id, removed_key);
        let to = TargetRef {
            index_id,
            key: next_key,
        };
        if from == to {
            return Err(EngineError::Internal(
                "inherit_gap: the removed record cannot be its own successor".into(),
            ));
        }
        let (fi, ti) = (self.shard_index(&from), self.shard_index(&to));
        if !self.shards[fi]
            .map
            .lock()
            .contains_key(&from as &dyn TargetParts)
        {
            return Ok(());
        }
        let (mut from_map, mut to_guard) = if fi == ti {
            (self.shards[fi].map.lock(), None)
        } else if fi < ti {
            let f = self.shards[fi].map.lock();
            (f, Some(self.shards[ti].map.lock()))
        } else {
            let t = self.shards[ti].map.lock();
            (self.shards[fi].map.lock(), Some(t))
        };
        let Some(mut removed) = from_map.remove(&from as &dyn TargetParts) else {
            return Ok(());
        };
        let (from_mem, to_mem) = (&self.shards[fi].memory, &self.shards[ti].memory);
        from_mem.fetch_sub(Queue::own_bytes(&removed.target), Relaxed);
        let entries = removed.drain(from_mem);
        let to_map: &mut LockMap = match &mut to_guard {
            Some(t) => t,
            None => &mut from_map,
        };
        let mut added = false;
        for e in entries {
            if e.kind.has_gap() {
                match to_map.get_mut(&to as &dyn TargetParts) {
                    Some(q) => {
                        if !q.covers(e.owner, e.mode, LockKind::GapOnly) {
                            q.push(Entry::new(&e.trx, e.mode, LockKind::GapOnly, false), to_mem);
                            e.trx.inherited.lock().push(q.target.clone());
                            added = true;
                        }
                    }
                    None => {
                        let owned = to.to_target();
                        let first = Entry::new(&e.trx, e.mode, LockKind::GapOnly, false);
                        let q = Queue::new(owned.clone(), first, to_mem);
                        to_map.insert(MapKey(owned.clone()), q);
                        e.trx.inherited.lock().push(owned);
                    }
                }
            }
            if !e.is_granted() {
                e.trx.end_wait(WaitStatus::Removed);
            }
        }
        // New granted gap locks give the heir's waiters new blockers; a cycle
        // may have closed without a wait starting, so search from them.
        let waiters: Vec<Arc<TrxShared>> = match to_map.get(&to as &dyn TargetParts) {
            Some(q) if added => q
                .entries()
                .iter()
                .filter(|e| !e.is_granted())
                .map(|e| Arc::clone(&e.trx))
                .collect(),
            _ => Vec::new(),
        };
        drop(to_guard);
        drop(from_map);
        if !waiters.is_empty() {
            self.recheck_waiters(&waiters);
        }
        Ok(())
    }
}
