//! The full-text cache budget: when index caches are synced, by whom, and
//! when a writer waits.
//!
//! Owns [`CacheBudget`], the registry of every [`IndexCache`] of the server,
//! and [`SyncPolicy`], its limits:
//!
//! - **Soft limits** only *request* a background sync: a cache over
//!   `innodb_ft_cache_size` ([`SyncPolicy::cache_size`], default 8000000
//!   bytes), or any cache while the caches together hold more than
//!   `innodb_ft_total_cache_size` ([`SyncPolicy::total_cache_size`], default
//!   640000000) in bytes not already being synced.
//! - The background side picks the cache to sync: among the caches that are
//!   not being synced and are over the per-index limit (or any, while the
//!   total is over its limit), the largest first, then the one dirty the
//!   longest (the oldest first add since its last sync).
//! - **Hard limit**: [`HARD_LIMIT_FACTOR`] (2) times the total soft limit. A
//!   writer about to add to a cache waits while the total is above it, until
//!   finished syncs bring the total back to it or below. A writer never
//!   syncs: only a [`SyncJob`], handed out by [`CacheBudget::next_cache_to_sync`]
//!   to a background task, can take a cache's contents. This fixes InnoDB's
//!   failure where, with many FULLTEXT tables, every DML statement over the
//!   total limit ran a foreground "SYNC index".
//!
//! Invariants: each registered cache's charged size equals its
//! [`IndexCache::size`] (writers and syncs update it under the cache's lock);
//! the total is the sum of the charged sizes; at most one sync per cache at a
//! time. A writer checks the hard limit before it adds, so the total can pass
//! the hard limit by at most one document per concurrent writer.
//!
//! Lock order: a cache's mutex, then the budget's state mutex; nobody waits
//! on a condition while holding a cache's mutex. Memory is accounted here
//! alone: the engine has no global memory-accounting module yet, so the
//! budget is self-contained and [`CacheBudget::total`] is what a future
//! account would read.
//!
//! Use: the commit path calls [`CacheBudget::add_doc`] / [`delete_doc`]; one
//! or more sync tasks loop on [`CacheBudget::next_cache_to_sync`],
//! [`SyncJob::take`], write the batch to the index tables, and
//! [`CacheBudget::finished_sync`]; [`CacheBudget::shutdown`] ends the loop
//! and releases waiting writers.
//!
//! [`delete_doc`]: CacheBudget::delete_doc

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use super::cache::{IndexCache, SyncBatch};
use super::stopwords::StopwordSet;
use super::tokenizer::Token;
use crate::{EngineError, Result};

/// Default `innodb_ft_cache_size`.
pub const DEFAULT_CACHE_SIZE: usize = 8_000_000;
/// Default `innodb_ft_total_cache_size`.
pub const DEFAULT_TOTAL_CACHE_SIZE: usize = 640_000_000;
/// The hard limit is this many times `innodb_ft_total_cache_size`.
pub const HARD_LIMIT_FACTOR: usize = 2;

/// The cache limits, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncPolicy {
    /// Per-index soft limit (`innodb_ft_cache_size`).
    pub cache_size: usize,
    /// Soft limit of all caches together (`innodb_ft_total_cache_size`).
    pub total_cache_size: usize,
}

impl Default for SyncPolicy {
    fn default() -> Self {
        SyncPolicy {
            cache_size: DEFAULT_CACHE_SIZE,
            total_cache_size: DEFAULT_TOTAL_CACHE_SIZE,
        }
    }
}

impl SyncPolicy {
    /// The limits from the server variables, checked against MariaDB's
    /// ranges (`innodb_ft_cache_size` 1600000..=2^40,
    /// `innodb_ft_total_cache_size` 32000000..=1600000000).
    pub fn from_variables(cache_size: u64, total_cache_size: u64) -> Result<Self> {
        let check = |name: &str, v: u64, lo: u64, hi: u64| {
            if (lo..=hi).contains(&v) {
                usize::try_from(v).map_err(|_| EngineError::Config(format!("{name}={v}")))
            } else {
                Err(EngineError::Config(format!(
                    "{name}={v} is outside {lo}..={hi}"
                )))
            }
        };
        Ok(SyncPolicy {
            cache_size: check("innodb_ft_cache_size", cache_size, 1_600_000, 1 << 40)?,
            total_cache_size: check(
                "innodb_ft_total_cache_size",
                total_cache_size,
                32_000_000,
                1_600_000_000,
            )?,
        })
    }

    /// The total above which writers wait.
    pub fn hard_limit(&self) -> usize {
        self.total_cache_size.saturating_mul(HARD_LIMIT_FACTOR)
    }
}

/// An index cache registered with a budget. Readers (queries) see it through
/// [`RegisteredCache::read`]; only the budget's writer calls and a
/// [`SyncJob`] change it.
#[derive(Debug)]
pub struct RegisteredCache {
    id: u64,
    cache: Mutex<IndexCache>,
}

impl RegisteredCache {
    /// The id the budget knows the cache by.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Runs `f` on the cache under its lock (for lookups).
    pub fn read<R>(&self, f: impl FnOnce(&IndexCache) -> R) -> R {
        f(&self.cache.lock())
    }
}

/// Counters for monitoring and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BudgetStats {
    /// Bytes charged now.
    pub total: usize,
    /// Largest total seen.
    pub peak_total: usize,
    /// Writers that had to wait (counted once per wait).
    pub writer_waits: u64,
    /// Writers waiting now.
    pub waiting_writers: usize,
    /// The smallest total a writer found when it began to wait (always
    /// above the hard limit).
    pub lowest_total_at_wait: Option<usize>,
    /// Times a writer's add passed a soft limit and woke the sync side.
    pub sync_requests: u64,
    /// Sync jobs handed out and finished.
    pub syncs_started: u64,
    pub syncs_finished: u64,
    /// Bytes freed by finished syncs.
    pub bytes_synced: u64,
}

#[derive(Debug)]
struct Entry {
    cache: Arc<RegisteredCache>,
    size: usize,
    syncing: bool,
    /// Clock value of the first charge since the cache was last synced.
    dirty_since: Option<u64>,
}

#[derive(Debug, Default)]
struct State {
    caches: HashMap<u64, Entry>,
    total: usize,
    clock: u64,
    next_id: u64,
    shutdown: bool,
    stats: BudgetStats,
}

/// A background sync of one cache, from [`CacheBudget::next_cache_to_sync`]
/// to [`CacheBudget::finished_sync`]. Every job must reach
/// `finished_sync`: until then its cache is not picked again and its frozen
/// bytes stay charged. When writing the batch fails, the task retries with
/// the same [`SyncBatch`] (a cheap shared handle) before finishing.
#[derive(Debug)]
#[must_use = "a sync job must be passed to CacheBudget::finished_sync"]
pub struct SyncJob {
    cache: Arc<RegisteredCache>,
}

impl SyncJob {
    /// The cache being synced.
    pub fn cache(&self) -> &Arc<RegisteredCache> {
        &self.cache
    }

    /// Freezes the cache's contents for writing to the index tables. The
    /// cache keeps serving lookups from them (and stays charged) until
    /// [`CacheBudget::finished_sync`].
    pub fn take(&mut self) -> Result<SyncBatch> {
        self.cache.cache.lock().take_for_sync()
    }
}

/// The registry and budget of all index caches (see the module doc).
#[derive(Debug)]
pub struct CacheBudget {
    policy: SyncPolicy,
    state: Mutex<State>,
    /// Mirror of the total, read without the lock on the writer fast path.
    total: AtomicUsize,
    /// Signalled when a sync may be needed (or on shutdown).
    work: Condvar,
    /// Signalled when the total drops (or on shutdown).
    room: Condvar,
}

impl CacheBudget {
    /// An empty budget.
    pub fn new(policy: SyncPolicy) -> Self {
        CacheBudget {
            policy,
            state: Mutex::new(State::default()),
            total: AtomicUsize::new(0),
            work: Condvar::new(),
            room: Condvar::new(),
        }
    }

    /// The limits.
    pub fn policy(&self) -> SyncPolicy {
        self.policy
    }

    /// Bytes charged to all caches now.
    pub fn total(&self) -> usize {
        self.total.load(Ordering::Acquire)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> BudgetStats {
        self.state.lock().stats
    }

    /// Adds a cache (a new FULLTEXT index, or one loaded at start-up).
    pub fn register(&self, cache: IndexCache) -> Arc<RegisteredCache> {
        let mut st = self.state.lock();
        st.next_id += 1;
        let size = cache.size();
        let rc = Arc::new(RegisteredCache {
            id: st.next_id,
            cache: Mutex::new(cache),
        });
        let entry = Entry {
            cache: Arc::clone(&rc),
            size: 0,
            syncing: false,
            dirty_since: None,
        };
        st.caches.insert(rc.id, entry);
        self.charge(&mut st, rc.id, size);
        rc
    }

    /// Removes a cache (its index was dropped); its bytes leave the total.
    pub fn unregister(&self, cache: &RegisteredCache) {
        let mut st = self.state.lock();
        if let Some(e) = st.caches.remove(&cache.id) {
            st.total -= e.size;
            self.total.store(st.total, Ordering::Release);
            st.stats.total = st.total;
            self.room.notify_all();
        }
    }

    /// Writer path: adds a committed document to `cache`. Waits first while
    /// the total is above the hard limit; never syncs.
    pub fn add_doc(
        &self,
        cache: &RegisteredCache,
        doc_id: u64,
        tokens: &[Token],
        stopwords: &StopwordSet,
    ) -> Result<()> {
        self.wait_for_room();
        let mut c = cache.cache.lock();
        let r = c.add_doc(doc_id, tokens, stopwords);
        self.recharge(cache, &c)?;
        r
    }

    /// Writer path: records a deleted document; false if already recorded.
    pub fn delete_doc(&self, cache: &RegisteredCache, doc_id: u64) -> Result<bool> {
        self.wait_for_room();
        let mut c = cache.cache.lock();
        let added = c.delete_doc(doc_id);
        self.recharge(cache, &c)?;
        Ok(added)
    }

    /// Sync side: waits until a cache needs a sync and hands it out, or
    /// returns `None` after [`CacheBudget::shutdown`].
    pub fn next_cache_to_sync(&self) -> Option<SyncJob> {
        let mut st = self.state.lock();
        loop {
            if st.shutdown {
                return None;
            }
            if let Some(job) = self.start_sync(&mut st) {
                return Some(job);
            }
            self.work.wait(&mut st);
        }
    }

    /// Sync side: [`CacheBudget::next_cache_to_sync`] without waiting.
    pub fn try_next_cache_to_sync(&self) -> Option<SyncJob> {
        let mut st = self.state.lock();
        self.start_sync(&mut st)
    }

    /// A job for `cache` whatever its size (a forced sync: OPTIMIZE,
    /// shutdown, tests), or `None` while it is being synced or is not
    /// registered.
    pub fn sync_job_for(&self, cache: &RegisteredCache) -> Option<SyncJob> {
        let mut st = self.state.lock();
        let e = st.caches.get_mut(&cache.id)?;
        if e.syncing {
            return None;
        }
        e.syncing = true;
        let cache = Arc::clone(&e.cache);
        st.stats.syncs_started += 1;
        Some(SyncJob { cache })
    }

    /// True after [`CacheBudget::shutdown`].
    pub fn is_shut_down(&self) -> bool {
        self.state.lock().shutdown
    }

    /// True when no cache needs a sync and none is being synced.
    pub fn is_settled(&self) -> bool {
        let st = self.state.lock();
        self.pick(&st).is_none() && !st.caches.values().any(|e| e.syncing)
    }

    /// Sync side: the job's batch is in the index tables. Drops the frozen
    /// contents, uncharges them, wakes waiting writers; returns the bytes
    /// freed (0 if the job never took a batch).
    pub fn finished_sync(&self, job: SyncJob) -> Result<usize> {
        let mut c = job.cache.cache.lock();
        let freed = if c.is_syncing() { c.finish_sync()? } else { 0 };
        let mut st = self.state.lock();
        let now = st.clock;
        if let Some(e) = st.caches.get_mut(&job.cache.id) {
            e.syncing = false;
            e.dirty_since = None;
            if c.size() > 0 {
                e.dirty_since = Some(now);
            }
        }
        st.stats.syncs_finished += 1;
        st.stats.bytes_synced += freed as u64;
        self.charge(&mut st, job.cache.id, c.size());
        self.room.notify_all();
        self.work.notify_all();
        Ok(freed)
    }

    /// Ends the sync loop and releases every waiting writer (they proceed
    /// over the limit).
    pub fn shutdown(&self) {
        self.state.lock().shutdown = true;
        self.work.notify_all();
        self.room.notify_all();
    }

    fn wait_for_room(&self) {
        let hard = self.policy.hard_limit();
        if self.total.load(Ordering::Acquire) <= hard {
            return;
        }
        let mut st = self.state.lock();
        if st.total <= hard || st.shutdown {
            return;
        }
        let total = st.total;
        let s = &mut st.stats;
        s.writer_waits += 1;
        s.waiting_writers += 1;
        s.lowest_total_at_wait = Some(s.lowest_total_at_wait.map_or(total, |l| l.min(total)));
        self.work.notify_all();
        while st.total > hard && !st.shutdown {
            self.room.wait(&mut st);
        }
        st.stats.waiting_writers -= 1;
    }

    /// Charges `cache`'s current size; called with the cache locked.
    fn recharge(&self, cache: &RegisteredCache, c: &MutexGuard<'_, IndexCache>) -> Result<()> {
        let mut st = self.state.lock();
        if !st.caches.contains_key(&cache.id) {
            return Err(EngineError::Internal(format!(
                "full-text cache {} is not registered",
                cache.id
            )));
        }
        self.charge(&mut st, cache.id, c.size());
        Ok(())
    }

    fn charge(&self, st: &mut State, id: u64, size: usize) {
        st.clock += 1;
        let clock = st.clock;
        let Some(e) = st.caches.get_mut(&id) else {
            return;
        };
        let old = std::mem::replace(&mut e.size, size);
        if size > 0 && e.dirty_since.is_none() {
            e.dirty_since = Some(clock);
        }
        let over_index = size > self.policy.cache_size && !e.syncing;
        st.total = st.total - old + size;
        self.total.store(st.total, Ordering::Release);
        st.stats.total = st.total;
        st.stats.peak_total = st.stats.peak_total.max(st.total);
        if size > old && (over_index || st.total > self.policy.total_cache_size) {
            st.stats.sync_requests += 1;
            self.work.notify_one();
        }
    }

    /// The cache to sync next (see the module doc), if any.
    fn pick(&self, st: &State) -> Option<u64> {
        let pending: usize = st
            .caches
            .values()
            .filter(|e| !e.syncing)
            .map(|e| e.size)
            .sum();
        let over_total = pending > self.policy.total_cache_size;
        st.caches
            .iter()
            .filter(|(_, e)| {
                !e.syncing && e.size > 0 && (over_total || e.size > self.policy.cache_size)
            })
            .max_by_key(|(id, e)| {
                (
                    e.size,
                    std::cmp::Reverse(e.dirty_since.unwrap_or(u64::MAX)),
                    std::cmp::Reverse(**id),
                )
            })
            .map(|(id, _)| *id)
    }

    fn start_sync(&self, st: &mut State) -> Option<SyncJob> {
        let id = self.pick(st)?;
        let e = st.caches.get_mut(&id)?;
        e.syncing = true;
        let cache = Arc::clone(&e.cache);
        st.stats.syncs_started += 1;
        Some(SyncJob { cache })
    }
}

#[cfg(test)]
#[path = "sync_tests.rs"]
mod tests;
