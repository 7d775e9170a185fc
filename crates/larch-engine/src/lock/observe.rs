//! What the lock manager shows to operators: every lock
//! ([`LockManager::snapshot`], for `INFORMATION_SCHEMA.INNODB_LOCKS` /
//! `performance_schema.data_locks`), every waiter-blocker pair
//! ([`LockManager::lock_waits`], `INNODB_LOCK_WAITS`), per-owner counts and
//! waits ([`LockManager::owner_stats`], `INNODB_TRX`), and the global counters
//! ([`LockManager::stats`], the `Innodb_row_lock_*` and `Innodb_deadlocks`
//! status variables, lock memory).
//!
//! Each listing locks the shards one at a time, so it is consistent per target
//! but not across targets (as InnoDB's are only under its global lock mutex).
//! Order within a listing is unspecified.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime};

use super::queue::Queue;
use super::trx::{wall_clock, WaitingFor};
use super::types::{LockKind, LockMode, LockTarget, OwnerId, RecordKey};
use super::LockManager;

/// One lock (granted or waited for).
#[derive(Debug, Clone)]
pub struct LockInfo {
    pub owner: OwnerId,
    pub target: LockTarget,
    pub mode: LockMode,
    pub kind: LockKind,
    pub granted: bool,
    /// When the wait started, for a waiting lock.
    pub wait_started: Option<SystemTime>,
}

impl LockInfo {
    /// InnoDB's `lock_mode` text: "X", "S,GAP", "X,REC_NOT_GAP",
    /// "X,GAP,INSERT_INTENTION" (a gap lock on the supremum shows as the bare
    /// mode, as InnoDB stores it).
    pub fn mode_text(&self) -> String {
        lock_mode_text(self.mode, self.kind, &self.target)
    }

    /// True for a lock on the supremum (InnoDB's `lock_data` shows
    /// "supremum pseudo-record" for it).
    pub fn is_supremum(&self) -> bool {
        matches!(self.target.key, RecordKey::Supremum)
    }
}

/// One waiter-blocker pair: `waiting_owner` waits for its request on
/// `target` because of `blocking_owner`'s lock (granted, or an earlier waiting
/// request ahead of it in the queue).
#[derive(Debug, Clone)]
pub struct LockWaitInfo {
    pub target: LockTarget,
    pub waiting_owner: OwnerId,
    pub waiting_mode: LockMode,
    pub waiting_kind: LockKind,
    pub wait_started: SystemTime,
    pub blocking_owner: OwnerId,
    pub blocking_mode: LockMode,
    pub blocking_kind: LockKind,
    pub blocking_granted: bool,
}

/// One owner's locks, as `INNODB_TRX` shows them.
#[derive(Debug, Clone)]
pub struct OwnerLockStats {
    pub owner: OwnerId,
    /// `trx_lock_structs`: entries held or waited for.
    pub lock_structs: usize,
    /// `trx_rows_locked`: granted entries that lock a record.
    pub rows_locked: usize,
    /// `trx_state` LOCK WAIT, `trx_wait_started`, `trx_requested_lock_id`.
    pub waiting: Option<WaitingFor>,
}

/// Global counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockStats {
    /// `Innodb_row_lock_current_waits`.
    pub current_waits: u64,
    /// `Innodb_row_lock_waits`.
    pub total_waits: u64,
    /// `Innodb_row_lock_time`.
    pub total_wait_time: Duration,
    /// `Innodb_row_lock_time_max`.
    pub max_wait_time: Duration,
    /// `Innodb_deadlocks`.
    pub deadlocks: u64,
    /// Waits that ended with the lock wait timeout.
    pub timeouts: u64,
    /// Approximate bytes allocated by the lock table (keys, queues, entries).
    pub memory_bytes: usize,
}

/// InnoDB's `lock_mode` text of a lock.
pub(super) fn lock_mode_text(mode: LockMode, kind: LockKind, target: &LockTarget) -> String {
    let m = mode.as_str();
    match kind {
        LockKind::NextKey => m.to_string(),
        LockKind::GapOnly if matches!(target.key, RecordKey::Supremum) => m.to_string(),
        LockKind::GapOnly => format!("{m},GAP"),
        LockKind::RecordOnly => format!("{m},REC_NOT_GAP"),
        LockKind::InsertIntention => format!("{m},GAP,INSERT_INTENTION"),
    }
}

impl LockManager {
    /// Calls `f` on every queue, one shard lock at a time.
    fn for_each_queue(&self, mut f: impl FnMut(&Queue)) {
        for shard in self.shards.iter() {
            let map = shard.map.lock();
            for queue in map.values() {
                f(queue);
            }
        }
    }

    /// Every lock in the table.
    pub fn snapshot(&self) -> Vec<LockInfo> {
        let mut out = Vec::new();
        self.for_each_queue(|q| {
            for e in q.entries() {
                out.push(LockInfo {
                    owner: e.owner,
                    target: q.target.clone(),
                    mode: e.mode,
                    kind: e.kind,
                    granted: e.is_granted(),
                    wait_started: e.waiting_since.map(wall_clock),
                });
            }
        });
        out
    }

    /// Every (waiting request, lock it waits for) pair.
    pub fn lock_waits(&self) -> Vec<LockWaitInfo> {
        let mut out = Vec::new();
        self.for_each_queue(|q| {
            for (i, w) in q.entries().iter().enumerate() {
                let Some(since) = w.waiting_since else {
                    continue;
                };
                for b in q.blocking(w.owner, w.mode, w.kind, i) {
                    out.push(LockWaitInfo {
                        target: q.target.clone(),
                        waiting_owner: w.owner,
                        waiting_mode: w.mode,
                        waiting_kind: w.kind,
                        wait_started: wall_clock(since),
                        blocking_owner: b.owner,
                        blocking_mode: b.mode,
                        blocking_kind: b.kind,
                        blocking_granted: b.is_granted(),
                    });
                }
            }
        });
        out
    }

    /// Every owner with locks, with its counts and wait, computed from the
    /// table (owners' own counters: `TrxLocks::stats_handle`).
    pub fn owner_stats(&self) -> Vec<OwnerLockStats> {
        let mut by_owner: HashMap<OwnerId, OwnerLockStats> = HashMap::new();
        self.for_each_queue(|q| {
            let supremum = matches!(q.target.key, RecordKey::Supremum);
            for e in q.entries() {
                let s = by_owner.entry(e.owner).or_insert_with(|| OwnerLockStats {
                    owner: e.owner,
                    lock_structs: 0,
                    rows_locked: 0,
                    waiting: None,
                });
                s.lock_structs += 1;
                match e.waiting_since {
                    None if e.kind.has_record() && !supremum => s.rows_locked += 1,
                    None => {}
                    Some(since) => {
                        s.waiting = Some(WaitingFor {
                            target: q.target.clone(),
                            mode: e.mode,
                            kind: e.kind,
                            since: wall_clock(since),
                        });
                    }
                }
            }
        });
        let mut out: Vec<OwnerLockStats> = by_owner.into_values().collect();
        out.sort_by_key(|s| s.owner);
        out
    }

    /// The global counters.
    pub fn stats(&self) -> LockStats {
        let c = &self.counters;
        LockStats {
            current_waits: c.current_waits.load(Relaxed),
            total_waits: c.total_waits.load(Relaxed),
            total_wait_time: Duration::from_micros(c.wait_micros.load(Relaxed)),
            max_wait_time: Duration::from_micros(c.max_wait_micros.load(Relaxed)),
            deadlocks: c.deadlocks.load(Relaxed),
            timeouts: c.timeouts.load(Relaxed),
            memory_bytes: self.memory_bytes(),
        }
    }

    /// Approximate bytes allocated by the lock table: keys, queues and
    /// entries ("lock memory accounted"). Zero when no lock is held.
    pub fn memory_bytes(&self) -> usize {
        self.shards.iter().map(|s| s.memory.load(Relaxed)).sum()
    }
}
