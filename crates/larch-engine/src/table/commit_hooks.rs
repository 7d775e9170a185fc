//! Work a table asks to run when a transaction that changed it commits.
//!
//! Owns [`CommitParticipant`], [`RowChange`] and the transaction's list of
//! pending changes. A table opened with a participant (its FULLTEXT indexes,
//! kept by `crate::fts`, which sits above this module and implements the
//! trait) records every row it inserts or deletes, and every update that
//! changes a column the participant watches, in the writing transaction
//! ([`TxnContext`]). At commit the transaction hands each participant its
//! changes:
//!
//! 1. [`CommitParticipant::before_commit`], in the transaction, before its
//!    commit record: writes that must commit or roll back with it (InnoDB's
//!    `fts_commit`: the `DELETED` rows, the doc id map). It may hold a lock
//!    until step 2, inside the returned [`AfterCommit`].
//! 2. [`AfterCommit::after_commit`], once the transaction is committed:
//!    work that must only ever see committed data (adding the documents to
//!    the full-text cache). It cannot fail the commit; an error is logged,
//!    and the next start rebuilds what it missed.
//!
//! Participants run in [`CommitParticipant::order`] order, so two
//! transactions that commit changes to the same tables take the
//! participants' locks in the same order. A failure in step 1 rolls the
//! whole transaction back and is returned by the commit.
//!
//! A rollback drops every pending change; a rollback to a savepoint (or of
//! one statement) drops the changes recorded after it: each change carries
//! the number of undo records the transaction had written when it was made.
//! Internal writers (no transaction) record nothing: whoever fills a table
//! internally builds its FULLTEXT indexes itself.

use std::sync::Arc;

use super::{RowRef, TxnContext};
use crate::error::Result;

/// A row change a participant is told about. `before` is the row's address
/// before the change (`None` for an insert), `after` its address after it
/// (`None` for a delete); an update that moves the row (a primary key change)
/// is recorded as a delete and an insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowChange {
    pub before: Option<RowRef>,
    pub after: Option<RowRef>,
}

/// What a table's participant does at commit (see the module doc).
pub trait CommitParticipant: Send + Sync + std::fmt::Debug {
    /// A total order over participants (the table's undo identity).
    fn order(&self) -> (u32, u32);
    /// The columns whose update is a change for this participant.
    fn watched_columns(&self) -> &[usize];
    /// Step 1: in `ctx`'s transaction, before the commit record. `changes`
    /// are in the order they were made.
    fn before_commit(
        &self,
        ctx: &mut TxnContext,
        changes: Vec<RowChange>,
    ) -> Result<Box<dyn AfterCommit>>;
}

/// Step 2 of a participant's commit work.
pub trait AfterCommit: Send {
    fn after_commit(self: Box<Self>) -> Result<()>;
}

/// A transaction's recorded changes, in the order made.
#[derive(Debug, Default)]
pub(super) struct PendingChanges {
    changes: Vec<Pending>,
}

#[derive(Debug)]
struct Pending {
    participant: Arc<dyn CommitParticipant>,
    /// Undo records written when the change was recorded.
    undo_seq: u64,
    change: RowChange,
}

impl PendingChanges {
    pub(super) fn push(
        &mut self,
        participant: &Arc<dyn CommitParticipant>,
        undo_seq: u64,
        change: RowChange,
    ) {
        self.changes.push(Pending {
            participant: participant.clone(),
            undo_seq,
            change,
        });
    }

    /// Drops the changes a rollback to `undo_mark` undoes.
    pub(super) fn truncate_to(&mut self, undo_mark: u64) {
        self.changes.retain(|p| p.undo_seq <= undo_mark);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The changes grouped by participant, in participant order.
    pub(super) fn take_grouped(&mut self) -> Vec<(Arc<dyn CommitParticipant>, Vec<RowChange>)> {
        let mut groups: Vec<(Arc<dyn CommitParticipant>, Vec<RowChange>)> = Vec::new();
        for p in std::mem::take(&mut self.changes) {
            match groups
                .iter_mut()
                .find(|(g, _)| Arc::ptr_eq(g, &p.participant))
            {
                Some((_, list)) => list.push(p.change),
                None => groups.push((p.participant, vec![p.change])),
            }
        }
        groups.sort_by_key(|(g, _)| g.order());
        groups
    }
}

impl TxnContext {
    /// Records a row change for `participant` (nothing for internal
    /// writers).
    pub(super) fn note_change(
        &mut self,
        participant: &Arc<dyn CommitParticipant>,
        change: RowChange,
    ) {
        if self.is_internal() {
            return;
        }
        let seq = self.undo_records();
        self.pending.push(participant, seq, change);
    }

    /// Step 1 for every participant with changes; on success the returned
    /// work is step 2, to run after the commit.
    pub(super) fn run_before_commit(&mut self) -> Result<Vec<Box<dyn AfterCommit>>> {
        if self.pending.is_empty() {
            return Ok(Vec::new());
        }
        let groups = self.pending.take_grouped();
        let mut after = Vec::with_capacity(groups.len());
        for (participant, changes) in groups {
            after.push(participant.before_commit(self, changes)?);
        }
        Ok(after)
    }
}

/// Runs step 2 of every participant; errors are logged (see the module
/// doc).
pub(super) fn run_after_commit(after: Vec<Box<dyn AfterCommit>>) {
    for work in after {
        if let Err(e) = work.after_commit() {
            tracing::error!(error = %e, "post-commit work of a table failed; the next start redoes it");
        }
    }
}
