//! [`Session`] (one per connection, owning a slot) and [`Transaction`] (one at a
//! time per session: lazily assigned id, isolation level, read-only flag,
//! snapshot), the context object that undo state and locks will join.
//!
//! Snapshot rules, as InnoDB's: READ UNCOMMITTED never takes one; READ
//! COMMITTED takes one at the first consistent read of each statement and
//! closes it at [`Transaction::end_statement`]; REPEATABLE READ and SERIALIZABLE
//! take one at the first consistent read and keep it to the end of the
//! transaction, or take it at [`Session::begin`] with
//! [`TrxOptions::with_consistent_snapshot`] (ignored at the other levels, like
//! `START TRANSACTION WITH CONSISTENT SNAPSHOT`).
//!
//! A read-only transaction (`START TRANSACTION READ ONLY`) or an autocommit
//! non-locking SELECT never takes an id and never touches shared state beyond
//! its own slot and one load each of the published CSN and the scan horizon;
//! asking it for a write id fails (MySQL error 1792 for the former). Dropping a
//! transaction that was not committed rolls it back.
//!
//! The slot is held by an `Arc` shared by the session and its open transaction,
//! and returned to the free list when both are gone, so a slot is never reused
//! while a transaction still writes to it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::slots::{SlotInfo, SlotRef};
use super::{Csn, IsolationLevel, ReadView, TransactionSystem, TrxId, TrxRunState};
use crate::error::{EngineError, Result};

/// How a transaction starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrxOptions {
    pub isolation: IsolationLevel,
    /// `START TRANSACTION READ ONLY`: writes fail with MySQL error 1792.
    pub read_only: bool,
    /// A SELECT without FOR UPDATE/FOR SHARE under autocommit: the whole
    /// transaction is that one read.
    pub autocommit_non_locking: bool,
    /// `WITH CONSISTENT SNAPSHOT`: take the snapshot at the start.
    pub consistent_snapshot: bool,
}

impl TrxOptions {
    /// A read-write transaction.
    pub fn read_write(isolation: IsolationLevel) -> Self {
        Self {
            isolation,
            ..Self::default()
        }
    }

    /// `START TRANSACTION READ ONLY`.
    pub fn read_only(isolation: IsolationLevel) -> Self {
        Self {
            isolation,
            read_only: true,
            ..Self::default()
        }
    }

    /// An autocommit non-locking SELECT.
    pub fn autocommit_select(isolation: IsolationLevel) -> Self {
        Self {
            isolation,
            autocommit_non_locking: true,
            ..Self::default()
        }
    }

    /// Adds `WITH CONSISTENT SNAPSHOT`.
    pub fn with_consistent_snapshot(self) -> Self {
        Self {
            consistent_snapshot: true,
            ..self
        }
    }
}

/// A session's slot; freed when the last holder is dropped.
struct SlotLease {
    sys: Arc<TransactionSystem>,
    slot: SlotRef,
    in_trx: AtomicBool,
}

impl Drop for SlotLease {
    fn drop(&mut self) {
        self.sys.slots.release(&self.slot);
    }
}

/// One connection's registration with the transaction system.
pub struct Session {
    lease: Arc<SlotLease>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Session(slot {})", self.slot_index())
    }
}

impl Session {
    pub(super) fn new(sys: Arc<TransactionSystem>, slot: SlotRef) -> Self {
        Self {
            lease: Arc::new(SlotLease {
                sys,
                slot,
                in_trx: AtomicBool::new(false),
            }),
        }
    }

    /// The slot index (stable for the session's life; reused after it).
    pub fn slot_index(&self) -> u32 {
        self.lease.slot.index()
    }

    /// The transaction system.
    pub fn system(&self) -> &Arc<TransactionSystem> {
        &self.lease.sys
    }

    #[cfg(test)]
    pub(super) fn lease_slot(&self) -> SlotRef {
        self.lease.slot.clone()
    }

    /// Starts a transaction. Fails if the session already has one open.
    pub fn begin(&mut self, options: TrxOptions) -> Result<Transaction> {
        // `&mut self`: no other `begin` on this session runs concurrently; the
        // flag is cleared by the transaction when it ends, on any thread.
        if self.lease.in_trx.load(Ordering::Acquire) {
            return Err(EngineError::Internal(format!(
                "session slot {} already has an open transaction",
                self.slot_index()
            )));
        }
        self.lease.in_trx.store(true, Ordering::Relaxed);
        let slot = self.lease.slot.slot();
        slot.begin(&SlotInfo::for_begin(&options));
        let mut trx = Transaction {
            lease: self.lease.clone(),
            id: 0,
            options,
            snapshot: None,
            finished: false,
        };
        if options.consistent_snapshot
            && matches!(
                options.isolation,
                IsolationLevel::RepeatableRead | IsolationLevel::Serializable
            )
        {
            trx.open_snapshot();
        }
        Ok(trx)
    }
}

/// An open transaction. See the module documentation.
pub struct Transaction {
    lease: Arc<SlotLease>,
    /// 0 until the first write.
    id: TrxId,
    options: TrxOptions,
    snapshot: Option<Csn>,
    finished: bool,
}

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("id", &self.id)
            .field("options", &self.options)
            .field("snapshot", &self.snapshot)
            .finish()
    }
}

impl Transaction {
    /// The id, if the transaction has written.
    pub fn id(&self) -> Option<TrxId> {
        (self.id != 0).then_some(self.id)
    }

    pub fn options(&self) -> &TrxOptions {
        &self.options
    }

    pub fn isolation(&self) -> IsolationLevel {
        self.options.isolation
    }

    /// The CSN of the open snapshot, if any.
    pub fn snapshot(&self) -> Option<Csn> {
        self.snapshot
    }

    /// The transaction system.
    pub fn system(&self) -> &Arc<TransactionSystem> {
        &self.lease.sys
    }

    /// The id to stamp on a write, assigned at the first call. Fails with
    /// [`EngineError::ReadOnlyTransaction`] in a read-only transaction.
    pub fn id_for_write(&mut self) -> Result<TrxId> {
        if self.id != 0 {
            return Ok(self.id);
        }
        if self.options.read_only {
            return Err(EngineError::ReadOnlyTransaction);
        }
        if self.options.autocommit_non_locking {
            return Err(EngineError::Internal(
                "an autocommit non-locking SELECT cannot write".into(),
            ));
        }
        let id = self.lease.sys.assign_id()?;
        self.id = id;
        self.lease.slot.slot().set_trx_id(id);
        Ok(id)
    }

    /// The view for a consistent read in the current statement, opening the
    /// snapshot if the isolation level wants one now; `None` at READ
    /// UNCOMMITTED (read the newest version).
    pub fn read_view(&mut self) -> Option<ReadView> {
        if self.options.isolation == IsolationLevel::ReadUncommitted {
            return None;
        }
        let snapshot = match self.snapshot {
            Some(s) => s,
            None => self.open_snapshot(),
        };
        Some(ReadView::new(snapshot, self.id))
    }

    /// Ends a statement: at READ COMMITTED, closes its snapshot.
    pub fn end_statement(&mut self) {
        if self.options.isolation == IsolationLevel::ReadCommitted {
            self.close_snapshot();
        }
    }

    /// Records what the transaction is doing, for `INNODB_TRX`.
    pub fn set_run_state(&self, state: TrxRunState) {
        self.lease.slot.slot().set_state(state);
    }

    /// Commits. Returns the CSN, or `None` if the transaction never wrote.
    /// When it returns, every snapshot opened afterwards sees the commit.
    pub fn commit(self) -> Result<Option<Csn>> {
        self.commit_with(|| {})
    }

    /// [`commit`](Self::commit) with a pause between taking the CSN and
    /// recording it (for tests).
    pub(super) fn commit_with(mut self, pause: impl FnOnce()) -> Result<Option<Csn>> {
        let csn = if self.id != 0 {
            self.set_run_state(TrxRunState::Committing);
            Some(self.lease.sys.commit_id_with(self.id, pause))
        } else {
            None
        };
        self.end();
        Ok(csn)
    }

    /// Commits, calling `record` with the CSN after it is taken and before it
    /// is published (the undo layer stores it in the transaction's log
    /// there). The CSN is published even if `record` fails, so later commits
    /// are not held up; the error is returned.
    pub fn commit_with_csn(
        mut self,
        record: impl FnOnce(Csn) -> Result<()>,
    ) -> Result<Option<Csn>> {
        if self.id == 0 {
            self.end();
            return Ok(None);
        }
        self.set_run_state(TrxRunState::Committing);
        let mut outcome = Ok(());
        let csn = self
            .lease
            .sys
            .commit_id_with_csn(self.id, |csn| outcome = record(csn));
        self.end();
        outcome.map(|()| Some(csn))
    }

    /// Rolls back: marks the transaction rolled back once its changes are
    /// undone (the undo layer will do that first).
    pub fn rollback(mut self) {
        self.rollback_in_place();
    }

    fn rollback_in_place(&mut self) {
        if self.id != 0 {
            self.set_run_state(TrxRunState::RollingBack);
            self.lease.sys.rollback_id(self.id);
        }
        self.end();
    }

    fn open_snapshot(&mut self) -> Csn {
        let s = self.lease.sys.open_snapshot(self.lease.slot.slot());
        self.snapshot = Some(s);
        s
    }

    fn close_snapshot(&mut self) {
        if self.snapshot.take().is_some() {
            TransactionSystem::close_snapshot(self.lease.slot.slot());
        }
    }

    fn end(&mut self) {
        self.close_snapshot();
        self.lease.slot.slot().end();
        self.finished = true;
        self.lease.in_trx.store(false, Ordering::Release);
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if !self.finished {
            self.rollback_in_place();
        }
    }
}
