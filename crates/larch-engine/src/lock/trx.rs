//! The per-transaction side of the lock manager: [`TrxLocks`] (owned by the
//! transaction, not shared) and the small shared part every lock entry points
//! to (`TrxShared`: counters, deadlock weight, the wait slot and condition
//! variable the owner parks on, targets given to it by gap inheritance).
//!
//! Invariants:
//! - every lock entry of the owner is on a target listed in `TrxLocks::held` or
//!   in `TrxShared::inherited` (release_all visits exactly those: O(locks held));
//! - `lock_structs` counts the owner's entries (granted and waiting) and
//!   `rows_locked` its granted entries that lock a record; both are changed only
//!   under the shard lock of the entry's queue;
//! - the wait slot's status moves `Idle -> Waiting` under the shard lock of the
//!   queue holding the waiting entry, and `Waiting -> Granted | Deadlock |
//!   Removed` under that same shard lock by whoever grants, aborts or removes the
//!   entry (lock order: detector mutex, then shard lock(s), then slot).
//!
//! Usage: `TrxLocks::new(owner)` when a transaction first locks, pass it by
//! `&mut` to every lock call, and end with `LockManager::release_all`.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use parking_lot::{Condvar, Mutex};

use super::types::{LockKind, LockMode, LockTarget, OwnerId};

/// Where a waiting owner stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WaitStatus {
    /// Not waiting.
    Idle,
    /// Parked on a waiting entry.
    Waiting,
    /// The entry was granted.
    Granted,
    /// The entry was removed: the owner is a deadlock victim.
    Deadlock,
    /// The entry was removed: its record was removed (gap inheritance).
    Removed,
}

/// The wait slot: what the owner waits for, guarded by `TrxShared::slot`.
#[derive(Debug)]
pub(super) struct WaitSlot {
    pub(super) status: WaitStatus,
    pub(super) target: Option<LockTarget>,
    pub(super) mode: LockMode,
    pub(super) kind: LockKind,
    pub(super) since: Option<Instant>,
}

/// The part of a transaction's lock state that lock entries (and so other
/// threads) reach.
#[derive(Debug)]
pub(super) struct TrxShared {
    pub(super) owner: OwnerId,
    pub(super) lock_structs: AtomicUsize,
    pub(super) rows_locked: AtomicUsize,
    pub(super) weight: AtomicU64,
    pub(super) slot: Mutex<WaitSlot>,
    pub(super) wake: Condvar,
    /// Targets where gap inheritance created entries for this owner.
    pub(super) inherited: Mutex<Vec<LockTarget>>,
}

impl TrxShared {
    /// Ends the owner's wait with `status` (called under the shard lock of the
    /// queue that held the waiting entry).
    pub(super) fn end_wait(&self, status: WaitStatus) {
        let mut slot = self.slot.lock();
        slot.status = status;
        self.wake.notify_one();
    }
}

/// A transaction's locks: pass it to every lock call of the transaction and
/// give it to `LockManager::release_all` at commit or rollback.
#[derive(Debug)]
pub struct TrxLocks {
    pub(super) shared: Arc<TrxShared>,
    /// One target per entry created by this owner's own calls (duplicates and
    /// stale targets are harmless: releasing them finds nothing).
    pub(super) held: Vec<LockTarget>,
}

impl TrxLocks {
    /// An empty lock set for `owner` (unique among live transactions).
    pub fn new(owner: OwnerId) -> TrxLocks {
        TrxLocks {
            shared: Arc::new(TrxShared {
                owner,
                lock_structs: AtomicUsize::new(0),
                rows_locked: AtomicUsize::new(0),
                weight: AtomicU64::new(0),
                slot: Mutex::new(WaitSlot {
                    status: WaitStatus::Idle,
                    target: None,
                    mode: LockMode::Shared,
                    kind: LockKind::RecordOnly,
                    since: None,
                }),
                wake: Condvar::new(),
                inherited: Mutex::new(Vec::new()),
            }),
            held: Vec::new(),
        }
    }

    /// The owner.
    pub fn owner(&self) -> OwnerId {
        self.shared.owner
    }

    /// Lock entries held or waited for (`INNODB_TRX.trx_lock_structs`).
    pub fn lock_structs(&self) -> usize {
        self.shared.lock_structs.load(Relaxed)
    }

    /// Granted entries that lock a record (`INNODB_TRX.trx_rows_locked`; like
    /// InnoDB's, a record locked twice, e.g. S then X, counts twice).
    pub fn rows_locked(&self) -> usize {
        self.shared.rows_locked.load(Relaxed)
    }

    /// A read-only handle on this transaction's lock counters and wait state,
    /// for another thread filling `INFORMATION_SCHEMA.INNODB_TRX`.
    pub fn stats_handle(&self) -> TrxLockStats {
        TrxLockStats(Arc::clone(&self.shared))
    }

    /// Forgets one listed entry on `target` (the one pushed last).
    pub(super) fn forget(&mut self, target: &LockTarget) {
        if let Some(i) = self.held.iter().rposition(|t| t == target) {
            self.held.swap_remove(i);
        }
    }
}

impl Drop for TrxLocks {
    fn drop(&mut self) {
        let n = self.lock_structs();
        if n > 0 {
            tracing::error!(
                owner = self.shared.owner.0,
                lock_structs = n,
                "lock set dropped without release_all: its locks stay until the server restarts"
            );
        }
    }
}

/// A read-only view of one transaction's lock counters and wait state.
#[derive(Debug, Clone)]
pub struct TrxLockStats(Arc<TrxShared>);

/// What an owner waits for.
#[derive(Debug, Clone)]
pub struct WaitingFor {
    pub target: LockTarget,
    pub mode: LockMode,
    pub kind: LockKind,
    /// `INNODB_TRX.trx_wait_started`.
    pub since: SystemTime,
}

impl TrxLockStats {
    /// The owner.
    pub fn owner(&self) -> OwnerId {
        self.0.owner
    }

    /// `trx_lock_structs`.
    pub fn lock_structs(&self) -> usize {
        self.0.lock_structs.load(Relaxed)
    }

    /// `trx_rows_locked`.
    pub fn rows_locked(&self) -> usize {
        self.0.rows_locked.load(Relaxed)
    }

    /// The lock the owner waits for, `None` when it does not wait
    /// (`trx_state` LOCK WAIT, `trx_wait_started`, `trx_requested_lock_id`).
    pub fn waiting_for(&self) -> Option<WaitingFor> {
        let slot = self.0.slot.lock();
        if slot.status != WaitStatus::Waiting {
            return None;
        }
        Some(WaitingFor {
            target: slot.target.clone()?,
            mode: slot.mode,
            kind: slot.kind,
            since: wall_clock(slot.since?),
        })
    }
}

/// The wall-clock time of an `Instant` in the past.
pub(super) fn wall_clock(at: Instant) -> SystemTime {
    let ago = Instant::now().saturating_duration_since(at);
    let now = SystemTime::now();
    now.checked_sub(ago).unwrap_or(now)
}
