//! What row operations run for: the engine-wide [`TransactionServices`]
//! (transaction system, undo store, lock manager, open-table registry) and
//! the per-transaction [`TxnContext`] (its `txn::Transaction`, undo log and
//! row locks), plus the [`ReadContext`] a read needs.
//!
//! A [`TxnContext`] is the unit the SQL layer begins, commits and rolls back:
//! - writes take an exclusive row lock on the clustered key first (waiting as
//!   `innodb_lock_wait_timeout` says), append an undo record, then change the
//!   clustered record (stamping the transaction id and the roll pointer to the
//!   undo record) and the secondary entries;
//! - [`TxnContext::commit`] takes a CSN, stores it in the undo log header
//!   (which moves a log with update records to the purge history), publishes
//!   the CSN, then releases the locks. The caller makes the redo durable;
//! - [`TxnContext::rollback`] and [`TxnContext::rollback_to`] apply the undo
//!   records newest first (`table::rollback`), then release the locks (full
//!   rollback only).
//!
//! Internal writers (DDL copying rows into a table nobody else sees, the data
//! dictionary) use [`TxnContext::internal`]: transaction id 0, no undo, no
//! locks.
//!
//! Observability: every [`TxnContext`] with services is listed, from
//! [`TxnContext::new`] until it is dropped, in the services' registry of
//! active transactions ([`TransactionServices::active_transactions`]): its
//! lock owner and lock counters ([`TrxLockStats`]), its undo records, its id,
//! and the connection and session slot the SQL layer gives it
//! ([`TxnContext::set_connection`]). That is what joins the transaction
//! system's `INNODB_TRX` rows (keyed by session slot) and the lock manager's
//! locks (keyed by owner) to transactions. Registration costs one shard mutex
//! and one small allocation per transaction, never anything per row.
//!
//! Invariants: a transaction's undo records are applied in reverse order by
//! exactly one thread (the owner, or recovery); the table registry holds weak
//! references, so a dropped table's undo records are skipped; a context is in
//! the active registry exactly while it exists (internal contexts never).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::RwLock;

use super::Table;
use crate::error::{EngineError, Result};
use crate::lock::{
    KeyRef, LockKind, LockManager, LockMode, LockOutcome, LockRequest, OwnerId, TrxLockStats,
    TrxLocks, WaitOptions, WaitPolicy,
};
use crate::storage::Storage;
use crate::txn::{ReadView, Transaction, TransactionSystem, TrxId, TrxSysOptions};
use crate::undo::{RollPtr, UndoLog, UndoStore};

/// Opens a table by (tablespace, clustered root).
pub type TableOpener = Box<dyn Fn(u32, u32) -> Option<Arc<Table>> + Send + Sync>;

/// Shards of the registry of active transaction contexts.
const ACTIVE_SHARDS: usize = 16;
/// `TrxObserved::slot` when the SQL layer did not say.
const NO_SLOT: u32 = u32::MAX;

/// One shard of the active-transaction registry, on its own cache line.
#[derive(Default)]
#[repr(align(64))]
struct ActiveShard(parking_lot::Mutex<HashMap<u64, Arc<TrxObserved>>>);

/// What other threads may read of one live [`TxnContext`] (shared between the
/// context and the registry; written only by the context's owner thread).
#[derive(Debug)]
struct TrxObserved {
    owner: OwnerId,
    locks: TrxLockStats,
    /// Undo records written (InnoDB's `trx->undo_no`), kept current by the
    /// owner after every append and partial rollback.
    undo_records: AtomicU64,
    /// The transaction id, 0 until the first write.
    trx_id: AtomicU64,
    /// The connection id (`trx_mysql_thread_id`), 0 if none was given.
    thread_id: AtomicU64,
    /// The session slot of the transaction system, [`NO_SLOT`] if unknown.
    slot: AtomicU32,
    /// Set while the whole transaction is being rolled back.
    rolling_back: AtomicBool,
}

/// One live transaction context, as [`TransactionServices::active_transactions`]
/// reports it (for `INFORMATION_SCHEMA.INNODB_TRX`, `INNODB_LOCKS`,
/// `INNODB_LOCK_WAITS` and `SHOW ENGINE INNODB STATUS`).
#[derive(Debug, Clone)]
pub struct ActiveTrx {
    /// The lock owner of the transaction (what `LockManager::snapshot` and
    /// `lock_waits` name).
    pub owner: OwnerId,
    /// The transaction id, 0 until the first write.
    pub trx_id: TrxId,
    /// The session slot (`TrxInfo::session`), if the SQL layer gave it.
    pub session_slot: Option<u32>,
    /// The connection id, if the SQL layer gave it.
    pub thread_id: Option<u64>,
    /// Undo records written (`trx_rows_modified`).
    pub undo_records: u64,
    /// True while the whole transaction is being rolled back.
    pub rolling_back: bool,
    /// The transaction's lock counters and wait (`trx_lock_structs`,
    /// `trx_rows_locked`, `trx_requested_lock_id`, `trx_wait_started`).
    pub locks: TrxLockStats,
}

/// Engine-wide services every table's row operations use.
pub struct TransactionServices {
    pub system: Arc<TransactionSystem>,
    pub undo: UndoStore,
    pub locks: LockManager,
    tables: RwLock<HashMap<(u32, u32), Weak<Table>>>,
    /// Opens a table that is not open yet (installed by the catalog).
    opener: RwLock<Option<TableOpener>>,
    next_owner: AtomicU64,
    /// Purge and recovered-rollback progress.
    pub purge: super::PurgeStats,
    /// Older versions read from undo by consistent reads (all time).
    pub(crate) versions_visited: AtomicU64,
    /// Held shared while a version chain is walked (consistent reads, a
    /// writer pruning), exclusively while undo pages are freed (rollback,
    /// purge): no walk reads a freed page.
    pub(crate) chain_guard: RwLock<()>,
    /// Versions pruned from chains (no live snapshot could see them).
    pub(crate) versions_pruned: AtomicU64,
    /// Live transaction contexts by lock owner, sharded by owner.
    active: Box<[ActiveShard]>,
}

impl std::fmt::Debug for TransactionServices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactionServices")
            .finish_non_exhaustive()
    }
}

impl TransactionServices {
    pub fn new(system: Arc<TransactionSystem>, undo: UndoStore, locks: LockManager) -> Arc<Self> {
        Arc::new(Self {
            system,
            undo,
            locks,
            tables: RwLock::new(HashMap::new()),
            opener: RwLock::new(None),
            purge: super::PurgeStats::default(),
            next_owner: AtomicU64::new(1),
            versions_visited: AtomicU64::new(0),
            chain_guard: RwLock::new(()),
            versions_pruned: AtomicU64::new(0),
            active: (0..ACTIVE_SHARDS).map(|_| ActiveShard::default()).collect(),
        })
    }

    /// Opens the transaction services of an open data directory: the undo
    /// store (recovering its logs), a transaction system whose ids continue
    /// above every id used before, and the lock manager. Returns the logs of
    /// transactions a crash left active; pass them to
    /// [`PurgeWorker::start`](super::PurgeWorker::start), which rolls them back.
    pub fn open(storage: &Arc<Storage>) -> Result<(Arc<Self>, Vec<UndoLog>)> {
        let (undo, recovered) = UndoStore::open(storage.clone())?;
        let next_id = (recovered.max_trx_id + 1).max(undo.trx_id_bound()).max(1);
        let mut options = TrxSysOptions::new(next_id, 1);
        options.recovered_active = recovered.active.iter().map(UndoLog::trx_id).collect();
        let system = TransactionSystem::with_options(options)?;
        let services = Self::new(system, undo, LockManager::new());
        let weak = Arc::downgrade(&services);
        services
            .system
            .set_id_persist_hook(move |bound| match weak.upgrade() {
                Some(s) => s.undo.persist_trx_id_bound(bound),
                None => Ok(()),
            })?;
        if !recovered.active.is_empty() {
            tracing::info!(
                transactions = recovered.active.len(),
                "transactions were active at the crash; rolling them back in the background"
            );
        }
        Ok((services, recovered.active))
    }

    /// Makes `table` findable by rollback and purge (by tablespace and
    /// clustered root, the identity undo records carry).
    pub fn register_table(&self, table: &Arc<Table>) {
        let id = table.undo_identity();
        let mut t = self.tables.write();
        t.retain(|_, w| w.strong_count() > 0);
        t.insert(id, Arc::downgrade(table));
    }

    /// Installs what opens a table by identity when it is not open (the
    /// catalog: rollback and purge after a restart meet tables no one opened).
    pub fn set_table_opener(&self, opener: TableOpener) {
        *self.opener.write() = Some(opener);
    }

    /// The table with this identity (opening it if needed), or `None` if it
    /// no longer exists.
    pub fn table(&self, space: u32, root: u32) -> Option<Arc<Table>> {
        if let Some(t) = self
            .tables
            .read()
            .get(&(space, root))
            .and_then(Weak::upgrade)
        {
            return Some(t);
        }
        let t = self
            .opener
            .read()
            .as_ref()
            .and_then(|open| open(space, root))?;
        self.register_table(&t);
        Some(t)
    }

    /// Older row versions consistent reads have rebuilt from undo so far.
    pub fn versions_visited(&self) -> u64 {
        self.versions_visited.load(Ordering::Relaxed)
    }

    /// Versions taken out of row version chains because no live snapshot
    /// could see them.
    pub fn versions_pruned(&self) -> u64 {
        self.versions_pruned.load(Ordering::Relaxed)
    }

    fn owner_id(&self) -> OwnerId {
        OwnerId(self.next_owner.fetch_add(1, Ordering::Relaxed))
    }

    fn active_shard(&self, owner: OwnerId) -> &ActiveShard {
        &self.active[(owner.0 % ACTIVE_SHARDS as u64) as usize]
    }

    fn register_active(&self, observed: &Arc<TrxObserved>) {
        self.active_shard(observed.owner)
            .0
            .lock()
            .insert(observed.owner.0, Arc::clone(observed));
    }

    fn unregister_active(&self, owner: OwnerId) {
        self.active_shard(owner).0.lock().remove(&owner.0);
    }

    /// Every live transaction context (begun with [`TxnContext::new`] and not
    /// yet dropped), by owner. Locks the registry's shards one at a time, so
    /// the list is consistent per transaction, not across them.
    pub fn active_transactions(&self) -> Vec<ActiveTrx> {
        let mut out = Vec::new();
        for shard in self.active.iter() {
            let map = shard.0.lock();
            out.extend(map.values().map(|o| {
                let slot = o.slot.load(Ordering::Relaxed);
                let thread = o.thread_id.load(Ordering::Relaxed);
                ActiveTrx {
                    owner: o.owner,
                    trx_id: o.trx_id.load(Ordering::Relaxed),
                    session_slot: (slot != NO_SLOT).then_some(slot),
                    thread_id: (thread != 0).then_some(thread),
                    undo_records: o.undo_records.load(Ordering::Relaxed),
                    rolling_back: o.rolling_back.load(Ordering::Relaxed),
                    locks: o.locks.clone(),
                }
            }));
        }
        out.sort_by_key(|a| a.owner);
        out
    }
}

/// How a read chooses the row version it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadContext {
    /// The snapshot of a consistent read; `None` reads the newest version
    /// (READ UNCOMMITTED, and the current reads of locking statements).
    pub view: Option<ReadView>,
}

impl ReadContext {
    /// The newest version of every row.
    pub const NEWEST: ReadContext = ReadContext { view: None };

    pub fn consistent(view: ReadView) -> Self {
        Self { view: Some(view) }
    }
}

/// A savepoint: the undo number to roll back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UndoMark(pub u64);

/// A transaction as row operations see it. See the module documentation.
pub struct TxnContext {
    services: Option<Arc<TransactionServices>>,
    trx: Option<Transaction>,
    undo: Option<UndoLog>,
    /// Row locks held (a mutex so locking reads can lock through `&self`;
    /// only the owner's thread takes it).
    locks: parking_lot::Mutex<Option<TrxLocks>>,
    owner: OwnerId,
    /// `innodb_lock_wait_timeout`.
    pub lock_wait_timeout: Duration,
    /// Set by KILL QUERY / KILL to end a lock wait.
    pub cancel: Arc<AtomicBool>,
    /// This context's entry in the services' active registry (`None` for
    /// internal writers).
    observed: Option<Arc<TrxObserved>>,
    /// Row changes tables asked to hear about at commit.
    pub(super) pending: super::commit_hooks::PendingChanges,
}

impl std::fmt::Debug for TxnContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TxnContext")
            .field("trx", &self.trx)
            .field("owner", &self.owner)
            .finish()
    }
}

impl TxnContext {
    /// A transaction of the engine's services around `trx`.
    pub fn new(services: &Arc<TransactionServices>, trx: Transaction) -> Self {
        let owner = services.owner_id();
        let locks = TrxLocks::new(owner);
        let observed = Arc::new(TrxObserved {
            owner,
            locks: locks.stats_handle(),
            undo_records: AtomicU64::new(0),
            trx_id: AtomicU64::new(trx.id().unwrap_or(0)),
            thread_id: AtomicU64::new(0),
            slot: AtomicU32::new(NO_SLOT),
            rolling_back: AtomicBool::new(false),
        });
        services.register_active(&observed);
        Self {
            locks: parking_lot::Mutex::new(Some(locks)),
            services: Some(services.clone()),
            trx: Some(trx),
            undo: None,
            owner,
            lock_wait_timeout: Duration::from_secs(50),
            cancel: Arc::new(AtomicBool::new(false)),
            observed: Some(observed),
            pending: Default::default(),
        }
    }

    /// Records the connection (`trx_mysql_thread_id`) and the transaction
    /// system's session slot (what `TransactionSystem::innodb_trx` keys its
    /// rows by) running this transaction, for
    /// [`TransactionServices::active_transactions`]. No effect on internal
    /// contexts.
    pub fn set_connection(&self, thread_id: u64, session_slot: u32) {
        if let Some(o) = &self.observed {
            o.thread_id.store(thread_id, Ordering::Relaxed);
            o.slot.store(session_slot, Ordering::Relaxed);
        }
    }

    /// Publishes the undo record count after it changed.
    fn publish_undo_records(&self) {
        if let Some(o) = &self.observed {
            o.undo_records.store(self.undo_records(), Ordering::Relaxed);
        }
    }

    /// Shows the transaction as rolling back (or not) from now on.
    fn publish_rolling_back(&self, on: bool) {
        if let Some(o) = &self.observed {
            o.rolling_back.store(on, Ordering::Relaxed);
        }
    }

    /// A writer outside any transaction: id 0, no undo, no locks (DDL filling
    /// a table no one else sees yet, the data dictionary).
    pub fn internal() -> Self {
        Self {
            services: None,
            trx: None,
            undo: None,
            locks: parking_lot::Mutex::new(None),
            owner: OwnerId(0),
            lock_wait_timeout: Duration::from_secs(50),
            cancel: Arc::new(AtomicBool::new(false)),
            observed: None,
            pending: Default::default(),
        }
    }

    /// The engine transaction (absent for [`internal`](Self::internal)).
    pub fn transaction(&self) -> Option<&Transaction> {
        self.trx.as_ref()
    }

    pub fn transaction_mut(&mut self) -> Option<&mut Transaction> {
        self.trx.as_mut()
    }

    pub fn is_internal(&self) -> bool {
        self.trx.is_none()
    }

    /// The transaction id (0 before the first write and for internal writers).
    pub fn trx_id(&self) -> TrxId {
        self.trx.as_ref().and_then(Transaction::id).unwrap_or(0)
    }

    /// The read context of the current statement: a consistent read at the
    /// transaction's isolation level.
    pub fn read_context(&mut self) -> ReadContext {
        ReadContext {
            view: self.trx.as_mut().and_then(Transaction::read_view),
        }
    }

    /// Undo records written so far (InnoDB's `trx_rows_modified` weight).
    pub fn undo_records(&self) -> u64 {
        self.undo.as_ref().map_or(0, UndoLog::next_undo_no)
    }

    /// The current savepoint.
    pub fn mark(&self) -> UndoMark {
        UndoMark(self.undo_records())
    }

    /// The id for a write (assigned at the first one).
    pub(super) fn id_for_write(&mut self) -> Result<TrxId> {
        let id = match self.trx.as_mut() {
            Some(t) => t.id_for_write()?,
            None => return Ok(0),
        };
        if let Some(o) = &self.observed {
            o.trx_id.store(id, Ordering::Relaxed);
        }
        Ok(id)
    }

    /// Appends an undo record for a change about to be made; returns its roll
    /// pointer (`RollPtr::NONE` for internal writers).
    pub(super) fn append_undo(&mut self, is_insert: bool, payload: &[u8]) -> Result<RollPtr> {
        let Some(services) = self.services.clone() else {
            return Ok(RollPtr::NONE);
        };
        let id = self.id_for_write()?;
        if self.undo.is_none() {
            self.undo = Some(services.undo.create_log(id)?);
        }
        let Some(log) = self.undo.as_mut() else {
            return Err(EngineError::Internal("undo log vanished".into()));
        };
        let (ptr, _) = services.undo.append(log, is_insert, payload)?;
        self.publish_undo_records();
        Ok(ptr)
    }

    /// Locks row `key` of the index identified by `index` in `mode`.
    pub(super) fn lock_record(
        &self,
        index: u64,
        key: &[u8],
        mode: LockMode,
        policy: Option<WaitPolicy>,
    ) -> Result<LockOutcome> {
        self.lock_entry(index, KeyRef::Key(key), mode, LockKind::RecordOnly, policy)
    }

    /// Takes a lock of `kind` on index entry `key` (or the index's supremum).
    pub(super) fn lock_entry(
        &self,
        index: u64,
        key: KeyRef<'_>,
        mode: LockMode,
        kind: LockKind,
        policy: Option<WaitPolicy>,
    ) -> Result<LockOutcome> {
        let mut guard = self.locks.lock();
        let (Some(services), Some(locks)) = (self.services.as_ref(), guard.as_mut()) else {
            return Ok(LockOutcome::Granted);
        };
        let policy = policy.unwrap_or(WaitPolicy::Wait {
            timeout: self.lock_wait_timeout,
        });
        let options = WaitOptions {
            policy,
            cancel: Some(&self.cancel),
            weight: self.undo.as_ref().map_or(0, UndoLog::next_undo_no),
        };
        let request = match key {
            KeyRef::Key(k) => LockRequest::new(index, k, mode, kind),
            KeyRef::Supremum => LockRequest::supremum(index, mode, kind),
        };
        services.locks.lock(locks, request, options)
    }

    /// The isolation level (REPEATABLE READ for internal writers).
    pub fn isolation(&self) -> crate::txn::IsolationLevel {
        self.trx.as_ref().map_or(
            crate::txn::IsolationLevel::RepeatableRead,
            Transaction::isolation,
        )
    }

    /// Commits: CSN into the undo log, publish, release locks. Returns the
    /// LSN the caller must make durable (0 if nothing was written).
    pub fn commit(mut self) -> Result<u64> {
        if self.trx.is_none() {
            return Ok(0);
        }
        let after = match self.run_before_commit() {
            Ok(after) => after,
            Err(e) => {
                if let Err(rb) = self.rollback() {
                    tracing::error!(error = %rb, "rollback after a failed commit step failed");
                }
                return Err(e);
            }
        };
        let Some(trx) = self.trx.take() else {
            return Ok(0);
        };
        let services = self.services.clone();
        let undo = self.undo.take();
        let mut lsn = 0;
        let r = trx.commit_with_csn(|csn| {
            if let (Some(s), Some(log)) = (services.as_ref(), undo) {
                lsn = s.undo.commit(log, csn)?;
            }
            Ok(())
        });
        self.release_locks();
        if r.is_ok() {
            super::commit_hooks::run_after_commit(after);
        }
        r.map(|_| lsn)
    }

    /// Rolls the whole transaction back and releases its locks.
    pub fn rollback(mut self) -> Result<()> {
        self.publish_rolling_back(true);
        self.pending = Default::default();
        let r = self.undo_back_to(0);
        if let (Some(s), Some(log)) = (self.services.as_ref(), self.undo.take()) {
            if r.is_ok() {
                let _no_walks = s.chain_guard.write();
                s.undo.discard(log)?;
            }
        }
        if let Some(trx) = self.trx.take() {
            trx.rollback();
        }
        self.release_locks();
        r
    }

    /// Rolls back the changes made after `mark` (savepoints, failed
    /// statements); locks stay.
    pub fn rollback_to(&mut self, mark: UndoMark) -> Result<()> {
        self.pending.truncate_to(mark.0);
        let r = self.undo_back_to(mark.0);
        self.publish_undo_records();
        r
    }

    fn undo_back_to(&mut self, to: u64) -> Result<()> {
        match (self.services.as_ref(), self.undo.as_mut()) {
            (Some(services), Some(log)) => super::rollback::roll_back_log(services, log, to),
            _ => Ok(()),
        }
    }

    /// Drops the transaction as a crash would: no rollback; its undo log
    /// stays active on disk for recovery to find.
    #[cfg(test)]
    pub(crate) fn abandon(mut self) {
        self.undo.take(); // the on-disk log stays in its slot, as after a crash
        self.trx.take();
    }

    fn release_locks(&mut self) {
        if let (Some(s), Some(l)) = (self.services.as_ref(), self.locks.get_mut().as_mut()) {
            s.locks.release_all(l);
        }
    }
}

impl Drop for TxnContext {
    fn drop(&mut self) {
        if self.trx.is_some() {
            self.publish_rolling_back(true);
            if let Err(e) = self.undo_back_to(0) {
                tracing::error!(error = %e, "rolling back a dropped transaction failed");
            } else if let (Some(s), Some(log)) = (self.services.as_ref(), self.undo.take()) {
                let _no_walks = s.chain_guard.write();
                if let Err(e) = s.undo.discard(log) {
                    tracing::warn!(error = %e, "could not free the undo log of a dropped transaction");
                }
            }
            if let Some(trx) = self.trx.take() {
                trx.rollback();
            }
        }
        self.release_locks();
        if let (Some(s), Some(o)) = (self.services.as_ref(), self.observed.take()) {
            s.unregister_active(o.owner);
        }
    }
}
