//! The session's open transaction: begin, commit, rollback, savepoints, and
//! the row changes a rollback must revert.
//!
//! A transaction takes its engine [`Transaction`] (id at the first write,
//! CSN at commit) from the session's slot of the transaction system. Commit
//! makes the transaction's redo durable per `innodb_flush_log_at_trx_commit`
//! before it reports success.
//!
//! Rollback. Until the engine keeps undo logs (the transaction issue), the
//! SQL layer records every row change of the open transaction here
//! ([`RowChange`]) and reverts them in reverse order on ROLLBACK, ROLLBACK TO
//! SAVEPOINT and when a statement fails half-way (statement atomicity, as
//! InnoDB gives: a multi-row INSERT that hits a duplicate at row 3 leaves
//! nothing of rows 1-2). This is a logical, in-memory record: a crash in the
//! middle of a transaction leaves its durable part, and other sessions see
//! uncommitted rows. Engine undo logs replace it.

use std::sync::Arc;

use larch_engine::record::value::Value;
use larch_engine::table::{RowRef, Table, TxnContext};
use larch_engine::txn::{Transaction, TrxOptions};

use super::Session;
use crate::error::SqlError;

/// One row change, with what reverting it needs.
#[derive(Debug)]
pub(crate) enum RowChange {
    Inserted {
        table: Arc<Table>,
        at: RowRef,
    },
    Updated {
        table: Arc<Table>,
        /// Where the row is now.
        at: RowRef,
        old: Vec<Value>,
    },
    Deleted {
        table: Arc<Table>,
        old: Vec<Value>,
    },
}

/// See the module documentation.
#[derive(Debug)]
pub(crate) struct OpenTransaction {
    pub trx: Transaction,
    /// Opened by BEGIN / START TRANSACTION or with autocommit off (as opposed
    /// to the implicit transaction of one autocommit statement).
    pub explicit: bool,
    pub changes: Vec<RowChange>,
    /// Savepoint names and the number of changes made before each.
    pub savepoints: Vec<(String, usize)>,
}

impl OpenTransaction {
    /// Reverts changes back to the first `keep`.
    pub fn revert_to(&mut self, keep: usize) -> Result<(), SqlError> {
        let ctx = TxnContext {
            trx_id: self.trx.id().unwrap_or(0),
        };
        let mut first_error = None;
        while self.changes.len() > keep {
            let Some(change) = self.changes.pop() else {
                break;
            };
            let r = match change {
                RowChange::Inserted { table, at } => table.delete(&ctx, &at).map(|_| ()),
                RowChange::Updated { table, at, old } => table.update(&ctx, &at, &old).map(|_| ()),
                RowChange::Deleted { table, old } => table.insert(&ctx, &old).map(|_| ()),
            };
            if let Err(e) = r {
                tracing::error!(error = %e, "reverting a row change failed");
                first_error.get_or_insert(SqlError::from(e));
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Reverts everything and ends the transaction.
    pub fn rollback(mut self) {
        if let Err(e) = self.revert_to(0) {
            tracing::error!(error = %e, "rollback incomplete");
        }
        self.trx.rollback();
    }
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
        let isolation = self
            .next_isolation
            .take()
            .unwrap_or_else(|| self.isolation());
        let read_only = read_only.unwrap_or_else(|| self.bool_var("transaction_read_only"));
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
            trx,
            explicit: true,
            changes: Vec::new(),
            savepoints: Vec::new(),
        });
        Ok(())
    }

    /// The transaction a statement runs in: the open one, or a new implicit
    /// one (explicit when autocommit is off).
    pub(crate) fn statement_transaction(&mut self) -> Result<&mut OpenTransaction, SqlError> {
        if self.txn.is_none() {
            let isolation = self.next_isolation.unwrap_or_else(|| self.isolation());
            let explicit = !self.autocommit();
            if explicit {
                self.next_isolation = None;
            }
            let options = if self.bool_var("transaction_read_only") {
                TrxOptions::read_only(isolation)
            } else {
                TrxOptions::read_write(isolation)
            };
            let trx = self.trx_session.begin(options)?;
            self.txn = Some(OpenTransaction {
                trx,
                explicit,
                changes: Vec::new(),
                savepoints: Vec::new(),
            });
        }
        self.txn
            .as_mut()
            .ok_or_else(|| SqlError::new(1105, "no transaction"))
    }

    /// Ends a statement: an implicit transaction commits when the statement
    /// succeeded and rolls back when it failed; in an explicit transaction a
    /// failed statement reverts only its own changes (`mark` = changes before
    /// the statement).
    pub(crate) fn end_statement(&mut self, ok: bool, mark: usize) -> Result<(), SqlError> {
        let Some(t) = self.txn.as_mut() else {
            return Ok(());
        };
        if t.explicit {
            t.trx.end_statement();
            if !ok {
                t.revert_to(mark)?;
            }
            return Ok(());
        }
        if ok {
            self.commit()
        } else {
            self.rollback();
            Ok(())
        }
    }

    /// COMMIT: makes the transaction durable and ends it.
    pub(crate) fn commit(&mut self) -> Result<(), SqlError> {
        let Some(t) = self.txn.take() else {
            return Ok(());
        };
        let wrote = t.trx.id().is_some();
        t.trx.commit()?;
        if wrote {
            let log = self.db.storage().log();
            log.flush_for_commit(log.current_lsn())?;
        }
        Ok(())
    }

    /// ROLLBACK: reverts and ends the transaction.
    pub(crate) fn rollback(&mut self) {
        if let Some(t) = self.txn.take() {
            t.rollback();
        }
    }

    /// SAVEPOINT name (replacing one of the same name).
    pub(crate) fn savepoint(&mut self, name: &str) -> Result<(), SqlError> {
        let t = self.statement_transaction()?;
        let at = t.changes.len();
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
            t.revert_to(keep)?;
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
