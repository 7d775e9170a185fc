//! The session's open transaction: begin, commit, rollback, savepoints and
//! statement atomicity, on the engine's [`TxnContext`] (undo logs, row locks,
//! snapshots).
//!
//! A transaction takes its engine `Transaction` (id at the first write, CSN
//! at commit) from the session's slot of the transaction system. Commit makes
//! the transaction's redo durable per `innodb_flush_log_at_trx_commit` before
//! it reports success. ROLLBACK, ROLLBACK TO SAVEPOINT and a statement that
//! fails half-way apply the engine's undo records (statement atomicity, as
//! InnoDB gives: a multi-row INSERT that hits a duplicate at row 3 leaves
//! nothing of rows 1-2). A deadlock victim's whole transaction is rolled
//! back, as InnoDB does; a lock wait timeout rolls back the statement, or the
//! transaction with `innodb_rollback_on_timeout`.

use std::time::Duration;

use larch_engine::table::{ReadContext, TxnContext, UndoMark};
use larch_engine::txn::TrxOptions;

use super::Session;
use crate::error::SqlError;

/// See the module documentation.
#[derive(Debug)]
pub(crate) struct OpenTransaction {
    pub ctx: TxnContext,
    /// Opened by BEGIN / START TRANSACTION or with autocommit off (as opposed
    /// to the implicit transaction of one autocommit statement).
    pub explicit: bool,
    /// Savepoint names and the undo mark of each.
    pub savepoints: Vec<(String, UndoMark)>,
    /// READ ONLY: a write fails with 1792.
    pub read_only: bool,
}

impl Session {
    /// Starts an explicit transaction (BEGIN / START TRANSACTION), committing
    /// an open one first as MySQL does.
    pub(crate) fn begin(
        &mut self,
        read_only: Option<bool>,
        consistent_snapshot: bool,
    ) -> Result<(), SqlError> {
        self.commit()?;
        // BEGIN ends LOCK TABLES (the global read lock stays).
        self.leave_lock_tables();
        let isolation = self
            .next_isolation
            .take()
            .unwrap_or_else(|| self.isolation());
        let next_read_only = self.next_read_only.take();
        let read_only = read_only
            .or(next_read_only)
            .unwrap_or_else(|| self.read_only_var());
        let mut options = if read_only {
            TrxOptions::read_only(isolation)
        } else {
            TrxOptions::read_write(isolation)
        };
        if consistent_snapshot {
            options = options.with_consistent_snapshot();
        }
        let trx = self.trx_session.begin(options)?;
        self.txn = Some(OpenTransaction {
            ctx: self.engine_context(trx),
            explicit: true,
            savepoints: Vec::new(),
            read_only,
        });
        Ok(())
    }

    /// The transaction a statement runs in: the open one, or a new implicit
    /// one (explicit when autocommit is off).
    pub(crate) fn statement_transaction(&mut self) -> Result<&mut OpenTransaction, SqlError> {
        if self.txn.is_none() {
            let isolation = self.next_isolation.unwrap_or_else(|| self.isolation());
            let read_only = self.next_read_only.unwrap_or_else(|| self.read_only_var());
            let explicit = !self.autocommit();
            if explicit {
                self.next_isolation = None;
                self.next_read_only = None;
            }
            let options = if read_only {
                TrxOptions::read_only(isolation)
            } else {
                TrxOptions::read_write(isolation)
            };
            let trx = self.trx_session.begin(options)?;
            self.txn = Some(OpenTransaction {
                ctx: self.engine_context(trx),
                explicit,
                savepoints: Vec::new(),
                read_only,
            });
        }
        self.txn
            .as_mut()
            .ok_or_else(|| SqlError::new(1105, "no transaction"))
    }

    /// The engine context of a new transaction, with the session's lock wait
    /// timeout and KILL flag, labelled with the connection id and session slot
    /// for INNODB_TRX, INNODB_LOCKS and SHOW ENGINE INNODB STATUS.
    fn engine_context(&self, trx: larch_engine::txn::Transaction) -> TxnContext {
        let mut ctx = TxnContext::new(self.db.services(), trx);
        ctx.set_connection(self.process.id, self.trx_session.slot_index());
        ctx.lock_wait_timeout = self.lock_wait_timeout();
        ctx.cancel = self.process.kill_query.clone();
        ctx
    }

    /// The savepoint a statement starts at (opening the statement's
    /// transaction if needed).
    pub(crate) fn statement_mark(&mut self) -> Result<UndoMark, SqlError> {
        let timeout = self.lock_wait_timeout();
        let t = self.statement_transaction()?;
        t.ctx.lock_wait_timeout = timeout;
        Ok(t.ctx.mark())
    }

    fn lock_wait_timeout(&self) -> Duration {
        Duration::from_secs(self.lock_wait_timeout_secs())
    }

    /// Ends a statement: an implicit transaction commits when the statement
    /// succeeded and rolls back when it failed; in an explicit transaction a
    /// failed statement reverts only its own changes (back to `mark`), unless
    /// the error ends the whole transaction (deadlock; lock wait timeout with
    /// `innodb_rollback_on_timeout`).
    pub(crate) fn end_statement(
        &mut self,
        error: Option<&SqlError>,
        mark: UndoMark,
    ) -> Result<(), SqlError> {
        if self.triggers.depth > 0 {
            // A statement of a trigger: the firing statement ends the
            // transaction's statement; a failed one reverts only itself.
            if let (Some(_), Some(t)) = (error, self.txn.as_mut()) {
                t.ctx.rollback_to(mark)?;
            }
            return Ok(());
        }
        let rollback_on_timeout = self.rollback_on_timeout_var();
        let whole =
            error.is_some_and(|e| e.code() == 1213 || (e.code() == 1205 && rollback_on_timeout));
        let Some(t) = self.txn.as_mut() else {
            return Ok(());
        };
        if t.explicit && !whole {
            if let Some(trx) = t.ctx.transaction_mut() {
                trx.end_statement();
            }
            if error.is_some() {
                t.ctx.rollback_to(mark)?;
            }
            return Ok(());
        }
        // The end of an implicit transaction uses up what `SET TRANSACTION`
        // set for the next one, except when the statement was refused as
        // read-only before it changed anything (as in MariaDB).
        if error.is_none_or(|e| e.code() != crate::error::code::READ_ONLY_TRANSACTION) {
            self.next_isolation = None;
            self.next_read_only = None;
        }
        if error.is_none() {
            self.commit()
        } else {
            self.rollback();
            Ok(())
        }
    }

    /// Sets up how a query statement reads: in the open transaction's
    /// snapshot, or (autocommit) in a snapshot of its own that
    /// [`end_read`](Self::end_read) closes; with autocommit off, a SELECT opens
    /// the transaction, as in MySQL.
    pub(crate) fn begin_read(&mut self) -> Result<(), SqlError> {
        if self.txn.is_none() && self.autocommit() {
            let isolation = self.next_isolation.unwrap_or_else(|| self.isolation());
            let mut trx = self
                .trx_session
                .begin(TrxOptions::autocommit_select(isolation))?;
            self.read = ReadContext {
                view: trx.read_view(),
            };
            self.reader = Some(trx);
            return Ok(());
        }
        let t = self.statement_transaction()?;
        self.read = t.ctx.read_context();
        Ok(())
    }

    /// True when plain reads must lock: SERIALIZABLE inside a transaction
    /// (autocommit off or BEGIN), as InnoDB does.
    pub(crate) fn serializable_reads(&self) -> bool {
        let level = match self.txn.as_ref() {
            Some(t) => t.ctx.isolation(),
            None => self.next_isolation.unwrap_or_else(|| self.isolation()),
        };
        level == larch_engine::txn::IsolationLevel::Serializable
            && (self.txn.as_ref().is_some_and(|t| t.explicit) || !self.autocommit())
    }

    /// Ends what [`begin_read`](Self::begin_read) set up.
    pub(crate) fn end_read(&mut self) {
        self.read = ReadContext::NEWEST;
        if let Some(trx) = self.reader.take() {
            if let Err(e) = trx.commit() {
                tracing::warn!(error = %e, "closing a read-only statement's snapshot failed");
            }
        }
        if let Some(trx) = self.txn.as_mut().and_then(|t| t.ctx.transaction_mut()) {
            trx.end_statement();
        }
    }

    /// Puts the session back in order after a statement panicked (its
    /// panic is caught and becomes its error): the statement's snapshot and
    /// locking mode end, and its changes are rolled back as a failed
    /// statement's are: back to `mark` (where the transaction open before
    /// the statement stood), or the whole transaction when the statement
    /// opened it. What nested parts of the statement changed in the session
    /// (the account and database of a routine, the execution state) their
    /// guards have put back while the panic unwound.
    pub(crate) fn recover_from_panic(&mut self, mark: Option<UndoMark>) {
        self.end_read();
        self.locking = None;
        match (mark, self.txn.as_mut()) {
            (Some(mark), Some(t)) => {
                if let Err(e) = t.ctx.rollback_to(mark) {
                    tracing::error!(error = %e, "rolling back a panicked statement failed; rolling back its transaction");
                    self.rollback();
                }
            }
            (None, Some(_)) => self.rollback(),
            (_, None) => {}
        }
    }

    /// COMMIT: makes the transaction durable and ends it.
    pub(crate) fn commit(&mut self) -> Result<(), SqlError> {
        let Some(t) = self.txn.take() else {
            return Ok(());
        };
        let committed = t.ctx.commit();
        self.metadata_locks.get_mut().release_shared();
        let lsn = committed?;
        if lsn != 0 {
            let log = self.db.storage().log();
            let target = log.current_lsn().max(lsn);
            if self.defer_durability && log.flush_at_commit() == 1 {
                // The caller awaits the sync before it answers the client.
                log.check_writable()?;
                self.durable_lsn = self.durable_lsn.max(target);
            } else {
                log.flush_for_commit(target)?;
            }
        }
        Ok(())
    }

    /// ROLLBACK: reverts and ends the transaction.
    pub(crate) fn rollback(&mut self) {
        if let Some(t) = self.txn.take() {
            if let Err(e) = t.ctx.rollback() {
                tracing::error!(error = %e, "rollback incomplete; recovery finishes it at the next start");
            }
        }
        self.metadata_locks.get_mut().release_shared();
    }

    /// SAVEPOINT name (replacing one of the same name); outside a
    /// transaction with autocommit on (and outside a trigger) it succeeds
    /// and keeps nothing, as in MariaDB.
    pub(crate) fn savepoint(&mut self, name: &str) -> Result<(), SqlError> {
        if !self.in_transaction() && self.autocommit() && self.triggers.depth == 0 {
            return Ok(());
        }
        let t = self.statement_transaction()?;
        let at = t.ctx.mark();
        t.savepoints.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        t.savepoints.push((name.to_owned(), at));
        Ok(())
    }

    fn savepoint_index(&self, name: &str) -> Result<usize, SqlError> {
        self.txn
            .as_ref()
            .and_then(|t| {
                t.savepoints
                    .iter()
                    .position(|(n, _)| n.eq_ignore_ascii_case(name))
            })
            .ok_or_else(|| SqlError::new(1305, format!("SAVEPOINT {name} does not exist")))
    }

    /// ROLLBACK TO SAVEPOINT name: reverts the changes made after it and
    /// forgets later savepoints.
    pub(crate) fn rollback_to_savepoint(&mut self, name: &str) -> Result<(), SqlError> {
        let i = self.savepoint_index(name)?;
        if let Some(t) = self.txn.as_mut() {
            let keep = t.savepoints[i].1;
            t.savepoints.truncate(i + 1);
            t.ctx.rollback_to(keep)?;
        }
        Ok(())
    }

    /// RELEASE SAVEPOINT name.
    pub(crate) fn release_savepoint(&mut self, name: &str) -> Result<(), SqlError> {
        let i = self.savepoint_index(name)?;
        if let Some(t) = self.txn.as_mut() {
            t.savepoints.truncate(i);
        }
        Ok(())
    }
}
