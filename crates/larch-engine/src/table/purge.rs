//! Purge: the background work that removes what no snapshot can see any
//! more, and the rollback of transactions a crash left unfinished.
//!
//! A committed transaction's undo log joins the history (the undo store keeps
//! it in commit order). Once the oldest live snapshot sees the transaction
//! (its CSN is at or below every live and future snapshot), nobody needs the
//! versions its undo records hold, so purge, for each record:
//! - delete-mark: removes the clustered record if it is still delete-marked by
//!   this transaction, with its secondary entries, and frees its off-page
//!   values;
//! - update: removes the secondary entries of the previous version that are
//!   delete-marked with a stamp every snapshot sees, and frees the off-page
//!   values the update stopped referencing;
//! - insert: nothing (the record is the current version);
//!
//! then frees the log. Purge takes the row's exclusive lock around each
//! record, so it never races a writer of that row (a writer re-inserting over
//! a delete-marked record, or a rollback restoring one).
//!
//! The [`PurgeWorker`] thread first rolls back the transactions recovered as
//! active after a crash (newest change first, as a live rollback does), so
//! the server opens at once while that runs; readers meanwhile see those
//! transactions' changes as uncommitted and read the previous versions.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::undo_entry::{RowUndo, UndoKind};
use super::version::{created_of, trx_id_of};
use super::{Table, TransactionServices};
use crate::error::{EngineError, Result};
use crate::lock::{LockKind, LockMode, LockRequest, OwnerId, WaitOptions, WaitPolicy};
use crate::txn::{Csn, TrxStatus};
use crate::undo::{UndoLog, UndoRecord};

/// Undo records read per batch.
const BATCH: usize = 64;
/// Pause when there is nothing to purge.
const IDLE: Duration = Duration::from_millis(20);
/// The lock owner purge uses (transactions' owners count up from 1).
const PURGE_OWNER: OwnerId = OwnerId(u64::MAX);

/// Purge progress counters.
#[derive(Debug, Default)]
pub struct PurgeStats {
    pub logs_purged: AtomicU64,
    /// Logs purged ahead of their turn because no version chain reached them.
    pub logs_purged_early: AtomicU64,
    pub records_purged: AtomicU64,
    pub rows_removed: AtomicU64,
    /// Transactions recovered as active and rolled back.
    pub recovered_rolled_back: AtomicU64,
    /// Recovered transactions still to roll back.
    pub recovered_pending: AtomicU64,
}

/// The purge thread. Stops (and joins) on drop or [`PurgeWorker::stop`].
pub struct PurgeWorker {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for PurgeWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PurgeWorker").finish_non_exhaustive()
    }
}

impl PurgeWorker {
    /// Starts the thread: rolls back `recovered` first, then purges forever.
    pub fn start(services: Arc<TransactionServices>, recovered: Vec<UndoLog>) -> Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        services
            .purge
            .recovered_pending
            .store(recovered.len() as u64, Ordering::Relaxed);
        let handle = std::thread::Builder::new()
            .name("larch-purge".into())
            .spawn(move || run(&services, recovered, &s2))
            .map_err(|e| EngineError::Internal(format!("cannot start the purge thread: {e}")))?;
        Ok(Self {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the thread and waits for it.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            if h.join().is_err() {
                tracing::error!("the purge thread panicked");
            }
        }
    }
}

/// Rolls back `recovered` (what [`TransactionServices::open`] returned) on
/// a purge worker and waits until every log is rolled back (tests).
#[cfg(test)]
pub(crate) fn roll_back_recovered_now(
    services: &Arc<TransactionServices>,
    recovered: Vec<crate::undo::UndoLog>,
) -> Result<()> {
    let mut worker = PurgeWorker::start(services.clone(), recovered)?;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while services.purge.recovered_pending.load(Ordering::Relaxed) > 0 {
        if std::time::Instant::now() > deadline {
            return Err(EngineError::Internal(
                "recovered rollback did not finish".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    worker.stop();
    Ok(())
}

impl Drop for PurgeWorker {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run(services: &TransactionServices, recovered: Vec<UndoLog>, stop: &AtomicBool) {
    for log in recovered {
        if stop.load(Ordering::Acquire) {
            return; // the next start rolls it back
        }
        let id = log.trx_id();
        match rollback_recovered(services, log) {
            Ok(()) => {
                services
                    .purge
                    .recovered_rolled_back
                    .fetch_add(1, Ordering::Relaxed);
                tracing::info!(trx_id = id, "rolled back a transaction recovered as active");
            }
            Err(e) => {
                tracing::error!(trx_id = id, error = %e, "could not roll back a recovered transaction; the next start retries");
            }
        }
        services
            .purge
            .recovered_pending
            .fetch_sub(1, Ordering::Relaxed);
    }
    while !stop.load(Ordering::Acquire) {
        let r = purge_one_log(services, stop)
            .and_then(|in_order| Ok(purge_unreachable_log(services, stop)? || in_order));
        match r {
            Ok(true) => {}
            Ok(false) => std::thread::sleep(IDLE),
            Err(e) => {
                tracing::error!(error = %e, "purge failed; retrying");
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

/// Rolls back a transaction recovered as active, then frees its log.
fn rollback_recovered(services: &TransactionServices, mut log: UndoLog) -> Result<()> {
    let id = log.trx_id();
    super::rollback::roll_back_log(services, &mut log, 0)?;
    {
        let _no_walks = services.chain_guard.write();
        services.undo.discard(log)?;
    }
    services.system.rollback_recovered(id)
}

/// Purges the oldest history log if every snapshot sees its transaction.
/// Returns false when there was none.
pub(crate) fn purge_one_log(services: &TransactionServices, stop: &AtomicBool) -> Result<bool> {
    let view = services.system.purge_view();
    let Some(log) = services.undo.oldest_history(view.snapshot())? else {
        return Ok(false);
    };
    let unneeded = |_created: u64, stamp: u64| services.system.is_visible(&view, stamp);
    purge_log(services, log, &unneeded, stop)?;
    Ok(true)
}

/// Purges the oldest log that no version chain reaches any more, ahead of
/// its turn in the history (see `UndoStore::forget_record`). Its changes are
/// purged as usual, except that a delete-marked secondary entry goes only if
/// no live snapshot lies between the entry's creation and its delete-mark
/// (snapshots outside that span skip it by its stamps). Returns false when
/// there was none.
pub(crate) fn purge_unreachable_log(
    services: &TransactionServices,
    stop: &AtomicBool,
) -> Result<bool> {
    let Some(log) = services.undo.unreachable_history() else {
        return Ok(false);
    };
    let sys = &services.system;
    let live = sys.live_snapshots();
    let unneeded = |created: u64, stamp: u64| {
        let csn_of = |id: u64| -> Option<Csn> {
            if id < sys.low_watermark() {
                return Some(0);
            }
            match sys.status(id) {
                TrxStatus::Committed(c) => Some(c),
                TrxStatus::Forgotten => Some(0),
                TrxStatus::Active | TrxStatus::RolledBack => None,
            }
        };
        match (csn_of(created), csn_of(stamp)) {
            (Some(lo), Some(hi)) => !live.csns.iter().any(|&s| s >= lo && s < hi),
            _ => false,
        }
    };
    purge_log(services, log, &unneeded, stop)?;
    services
        .purge
        .logs_purged_early
        .fetch_add(1, Ordering::Relaxed);
    Ok(true)
}

/// Purges every record of `log`, then frees it. `unneeded(created, stamp)`
/// says whether a delete-marked secondary entry with those stamps may go.
fn purge_log(
    services: &TransactionServices,
    log: crate::undo::HistoryLog,
    unneeded: &dyn Fn(u64, u64) -> bool,
    stop: &AtomicBool,
) -> Result<()> {
    let mut from = 0;
    let mut locks = crate::lock::TrxLocks::new(PURGE_OWNER);
    loop {
        let batch = services.undo.history_records(&log, from, BATCH)?;
        let Some(last) = batch.last().map(|r| r.undo_no) else {
            break;
        };
        for rec in &batch {
            purge_record(services, &mut locks, log.trx_id, rec, unneeded, stop)?;
            services
                .purge
                .records_purged
                .fetch_add(1, Ordering::Relaxed);
        }
        from = last + 1;
    }
    {
        let _no_pruner_reads = services.chain_guard.write();
        services.undo.free_history(log)?;
    }
    services.purge.logs_purged.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

fn purge_record(
    services: &TransactionServices,
    locks: &mut crate::lock::TrxLocks,
    trx_id: u64,
    rec: &UndoRecord,
    unneeded: &dyn Fn(u64, u64) -> bool,
    stop: &AtomicBool,
) -> Result<()> {
    let u = RowUndo::decode(&rec.payload)?;
    if u.kind == UndoKind::Insert {
        return Ok(());
    }
    let Some(mut table) = services.table(u.space, u.root) else {
        return Ok(()); // dropped table
    };
    loop {
        let options = WaitOptions {
            policy: WaitPolicy::Wait {
                timeout: Duration::from_secs(1),
            },
            cancel: Some(stop),
            weight: 0,
        };
        let request = LockRequest::new(
            table.lock_index(),
            &u.key,
            LockMode::Exclusive,
            LockKind::RecordOnly,
        );
        let r = services.locks.lock(locks, request, options);
        match r {
            Ok(_) => break,
            Err(_) if !stop.load(Ordering::Acquire) => continue, // a long writer: wait on
            Err(e) => return Err(e),
        }
    }
    // A table whose indexes changed meanwhile is purged through the one
    // opened with its new definition (the same rows, under the same lock).
    let r = loop {
        match table.purge_change(trx_id, &u, unneeded) {
            Ok(None) => match services.table(u.space, u.root) {
                Some(t) if !Arc::ptr_eq(&t, &table) => table = t,
                _ => break Ok(false),
            },
            Ok(Some(removed)) => break Ok(removed),
            Err(e) => break Err(e),
        }
    };
    services.locks.release_all(locks);
    if r.as_ref().is_ok_and(|&removed| removed) {
        services.purge.rows_removed.fetch_add(1, Ordering::Relaxed);
    }
    r.map(|_| ())
}

impl Table {
    /// Purges one change of committed transaction `trx_id` (the caller holds
    /// the row lock). Returns true if the row's record was removed, `None`
    /// if this open table was retired (see [`Table::retire`]).
    fn purge_change(
        &self,
        trx_id: u64,
        u: &RowUndo,
        unneeded: &dyn Fn(u64, u64) -> bool,
    ) -> Result<Option<bool>> {
        let current = self.retired.read();
        if *current {
            return Ok(None);
        }
        self.purge_current(trx_id, u, unneeded).map(Some)
    }

    fn purge_current(
        &self,
        trx_id: u64,
        u: &RowUndo,
        unneeded: &dyn Fn(u64, u64) -> bool,
    ) -> Result<bool> {
        let pool = self.storage.pool();
        let purge_entries = |row: &[crate::record::value::Value]| -> Result<()> {
            for (s, e) in self.secondary_entries(row, &u.key, 0)?.iter().enumerate() {
                let tree = &self.secondary[s];
                if let Some(f) = tree.get(pool, &e.key)? {
                    if f.deleted && unneeded(created_of(&f.value), trx_id_of(&f.value)) {
                        self.inherit_gaps(s + 1, &e.key)?;
                        tree.delete(pool, &e.key)?;
                    }
                }
            }
            Ok(())
        };
        match u.kind {
            UndoKind::Insert => Ok(false),
            UndoKind::Update => {
                let old_row = self.decode_full(&u.key, &u.old_value)?;
                purge_entries(&old_row)?;
                self.free_chains(&u.dropped);
                Ok(false)
            }
            UndoKind::DeleteMark => {
                let Some(cur) = self.clustered.get(pool, &u.key)? else {
                    return Ok(false);
                };
                if !cur.deleted || trx_id_of(&cur.value) != trx_id {
                    return Ok(false); // re-inserted since, or not ours
                }
                let (row, external) = self.decode_with_external(&u.key, &cur.value)?;
                purge_entries(&row)?;
                self.inherit_gaps(super::CLUSTERED, &u.key)?;
                self.clustered.delete(pool, &u.key)?;
                let refs: Vec<_> = external.iter().map(|(_, _, r)| *r).collect();
                self.free_chains(&refs);
                Ok(true)
            }
        }
    }

    /// Every column of a clustered record value.
    fn decode_full(&self, key: &[u8], value: &[u8]) -> Result<Vec<crate::record::value::Value>> {
        Ok(self.decode_with_external(key, value)?.0)
    }
}

/// Purges until the history holds nothing every snapshot sees (tests and
/// shutdown). Returns the logs purged.
pub fn purge_all(services: &TransactionServices) -> Result<u64> {
    let stop = AtomicBool::new(false);
    let mut n = 0;
    while purge_one_log(services, &stop)? || purge_unreachable_log(services, &stop)? {
        n += 1;
    }
    Ok(n)
}
