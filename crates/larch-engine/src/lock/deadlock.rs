//! Deadlock detection, run by a requester just before it parks.
//!
//! The wait-for graph is never stored: an owner's edges are computed on demand
//! from the queue of the entry it waits on (its blockers: other owners'
//! conflicting granted entries and earlier conflicting waiting entries, by the
//! queue rule of `Queue::blocking`). A depth-first search from the requester
//! looks for a path back to it. Searches are serialised by the manager's
//! detector mutex, taken only when a wait starts; inside it the search locks
//! one shard at a time (lock order: detector, shard, wait slot).
//!
//! Why a cycle is never missed: every waiter enqueues its waiting entry before
//! it searches, so of the waits that close a cycle, the one whose search runs
//! last sees all the others' entries.
//!
//! Victim: the member of the cycle with the smallest weight, the requester on
//! ties (InnoDB's rule, its weight being undo records + locks). A victim other
//! than the requester has its waiting entry removed and is woken with the
//! deadlock error; then the search runs again, as the requester may be in
//! another cycle. The search is bounded like InnoDB's (depth 200, 1,000,000
//! steps); going past a bound counts as a deadlock with the requester as
//! victim.

use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use super::trx::{TrxShared, WaitStatus};
use super::types::{LockTarget, OwnerId, TargetParts};
use super::{EndReason, LockManager};
use crate::error::Result;
use crate::lock::LockOutcome;

/// Longest wait-for path searched.
pub(super) const MAX_DEPTH: usize = 200;
/// Most edges followed by one search.
pub(super) const MAX_STEPS: usize = 1_000_000;
/// Most victims aborted for one requester before it gives up itself.
const MAX_ROUNDS: usize = 64;

/// What one search found.
enum Search {
    /// The requester does not wait any more (granted or aborted meanwhile).
    NotWaiting,
    NoCycle,
    /// The owners on a cycle through the requester, the requester first.
    Cycle(Vec<Arc<TrxShared>>),
    /// A bound was exceeded.
    TooLong,
}

impl LockManager {
    /// Checks whether the wait of `me` on `target` (its waiting entry already
    /// enqueued) closes a cycle, and resolves it. Returns `Some` when the wait
    /// is over: the requester was chosen as victim (or was granted meanwhile).
    pub(super) fn check_deadlock(
        &self,
        me: &Arc<TrxShared>,
        target: &LockTarget,
    ) -> Option<Result<LockOutcome>> {
        let _serial = self.detector.lock();
        self.resolve(me, Some(target))
    }

    /// Searches again from owners that wait on a queue that just gained
    /// granted entries without anyone starting a wait (gap inheritance), and
    /// aborts a victim of any cycle found.
    pub(super) fn recheck_waiters(&self, waiters: &[Arc<TrxShared>]) {
        let _serial = self.detector.lock();
        for w in waiters {
            let _ = self.resolve(w, None);
        }
    }

    /// Resolves the cycles through `start`'s wait. `own_target` is `Some` when
    /// the calling thread is `start`'s (then a choice of `start` as victim ends
    /// its wait here, returned as `Some`); otherwise `start` is aborted like
    /// any other victim.
    fn resolve(
        &self,
        start: &Arc<TrxShared>,
        own_target: Option<&LockTarget>,
    ) -> Option<Result<LockOutcome>> {
        for _ in 0..MAX_ROUNDS {
            let victim = match self.search(start) {
                Search::NotWaiting | Search::NoCycle => return None,
                Search::TooLong => {
                    tracing::warn!(
                        owner = start.owner.0,
                        "deadlock search exceeded its bounds; rolling back the waiter it started from"
                    );
                    Arc::clone(start)
                }
                Search::Cycle(members) => {
                    choose_victim(&members).map_or_else(|| Arc::clone(start), Arc::clone)
                }
            };
            let is_start = victim.owner == start.owner;
            if let (true, Some(target)) = (is_start, own_target) {
                return Some(self.end_wait(start, target, EndReason::Deadlock));
            }
            if self.abort_waiter(&victim) {
                self.counters.deadlocks.fetch_add(1, Relaxed);
                tracing::info!(
                    searcher = start.owner.0,
                    victim = victim.owner.0,
                    "deadlock: rolling back the lightest transaction of the cycle"
                );
            }
            if is_start {
                return None;
            }
        }
        own_target.map(|target| self.end_wait(start, target, EndReason::Deadlock))
    }

    /// Depth-first search for a path of waits from `start` back to itself.
    fn search(&self, start: &Arc<TrxShared>) -> Search {
        struct Frame {
            node: Arc<TrxShared>,
            blockers: Vec<Arc<TrxShared>>,
            next: usize,
        }
        let Some(first) = self.blockers_of(start) else {
            return Search::NotWaiting;
        };
        let mut stack = vec![Frame {
            node: Arc::clone(start),
            blockers: first,
            next: 0,
        }];
        let mut visited: HashSet<OwnerId> = HashSet::new();
        visited.insert(start.owner);
        let mut steps = 0usize;
        while let Some(top) = stack.last_mut() {
            let Some(blocker) = top.blockers.get(top.next).cloned() else {
                stack.pop();
                continue;
            };
            top.next += 1;
            steps += 1;
            if steps > MAX_STEPS {
                return Search::TooLong;
            }
            if blocker.owner == start.owner {
                return Search::Cycle(stack.iter().map(|f| Arc::clone(&f.node)).collect());
            }
            if !visited.insert(blocker.owner) {
                continue;
            }
            if let Some(next) = self.blockers_of(&blocker) {
                if next.is_empty() {
                    continue;
                }
                if stack.len() >= MAX_DEPTH {
                    return Search::TooLong;
                }
                stack.push(Frame {
                    node: blocker,
                    blockers: next,
                    next: 0,
                });
            }
        }
        Search::NoCycle
    }

    /// The owners `node`'s waiting entry waits for (each once), or `None`
    /// when it does not wait.
    fn blockers_of(&self, node: &Arc<TrxShared>) -> Option<Vec<Arc<TrxShared>>> {
        let target = {
            let slot = node.slot.lock();
            if slot.status != WaitStatus::Waiting {
                return None;
            }
            slot.target.clone()?
        };
        let map = self.shard_for(&target).map.lock();
        let queue = map.get(&target as &dyn TargetParts)?;
        let i = queue.waiting_index(node.owner)?;
        let e = queue.entries().get(i)?;
        let mut out: Vec<Arc<TrxShared>> = Vec::new();
        for b in queue.blocking(e.owner, e.mode, e.kind, i) {
            if !out.iter().any(|o| o.owner == b.owner) {
                out.push(Arc::clone(&b.trx));
            }
        }
        Some(out)
    }

    /// Removes `victim`'s waiting entry and wakes it with the deadlock error.
    /// False when it no longer waits.
    fn abort_waiter(&self, victim: &Arc<TrxShared>) -> bool {
        let target = {
            let slot = victim.slot.lock();
            if slot.status != WaitStatus::Waiting {
                return false;
            }
            match slot.target.clone() {
                Some(t) => t,
                None => return false,
            }
        };
        let shard = self.shard_for(&target);
        let mut map = shard.map.lock();
        let Some(queue) = map.get_mut(&target as &dyn TargetParts) else {
            return false;
        };
        let Some(i) = queue.waiting_index(victim.owner) else {
            return false;
        };
        queue.remove(i, &shard.memory);
        queue.grant_waiters();
        victim.end_wait(WaitStatus::Deadlock);
        Self::drop_if_empty(&mut map, &target, &shard.memory);
        true
    }
}

/// The lightest member of the cycle, the requester (first) on ties.
fn choose_victim(cycle: &[Arc<TrxShared>]) -> Option<&Arc<TrxShared>> {
    let (first, rest) = cycle.split_first()?;
    let mut victim = first;
    let mut weight = first.weight.load(Relaxed);
    for m in rest {
        let w = m.weight.load(Relaxed);
        if w < weight {
            victim = m;
            weight = w;
        }
    }
    Some(victim)
}
