//! Rollback: applying one undo record, which puts a row back as it was before
//! the change the record describes.
//!
//! The record is applied only if the change landed: the clustered record must
//! still carry the rolling-back transaction's id and this record's roll
//! pointer (a crash between the undo append and the clustered write leaves
//! nothing to undo). Secondary entries are restored first and the clustered
//! record last, so applying a record twice (a crash during rollback, then
//! recovery's rollback) finds the clustered record restored and stops.
//!
//! Secondary entries the transaction created are removed; entries it
//! delete-marked or rewrote get the previous version's state back, stamped
//! with the previous version's writer: that transaction committed no earlier
//! than whoever last stamped the entry before, so every snapshot that sees the
//! new stamp also saw the entry in this state (at worst a reader falls back to
//! the clustered version walk more often than needed).

use super::layout::SECONDARY_CREATED_LEN as CREATED;
use super::undo_entry::{RowUndo, UndoKind};
use super::version::{roll_ptr_of, trx_id_of};
use super::{Table, TransactionServices, CLUSTERED};
use crate::error::Result;
use crate::record::row::ExternRef;
use crate::record::value::Value;
use crate::undo::{RollPtr, UndoLog, UndoRecord};

/// Undo records read per batch.
const BATCH: usize = 64;

/// Rolls `log` back to undo number `to` (0: everything), newest record
/// first, truncating the log behind each applied batch.
pub(super) fn roll_back_log(
    services: &TransactionServices,
    log: &mut UndoLog,
    to: u64,
) -> Result<()> {
    let trx_id = log.trx_id();
    while log.next_undo_no() > to {
        let batch = services.undo.newest_records(log, to, BATCH)?;
        let Some(last) = batch.last().map(|r| r.undo_no) else {
            break;
        };
        for rec in &batch {
            apply(services, trx_id, rec)?;
        }
        let _no_walks = services.chain_guard.write();
        services.undo.truncate(log, last)?;
    }
    Ok(())
}

/// Applies `rec`, an undo record of transaction `trx_id`.
pub(super) fn apply(services: &TransactionServices, trx_id: u64, rec: &UndoRecord) -> Result<()> {
    let u = RowUndo::decode(&rec.payload)?;
    let Some(table) = services.table(u.space, u.root) else {
        return Ok(()); // the table was dropped: nothing of it to restore
    };
    table.undo_change(trx_id, rec.ptr, &u)
}

impl Table {
    /// Restores the row `u` names (see the module documentation).
    pub(crate) fn undo_change(&self, trx_id: u64, ptr: RollPtr, u: &RowUndo) -> Result<()> {
        let pool = self.storage.pool();
        let Some(cur) = self.clustered.get(pool, &u.key)? else {
            return Ok(());
        };
        if trx_id_of(&cur.value) != trx_id || roll_ptr_of(&cur.value) != ptr {
            return Ok(());
        }
        let (cur_row, cur_external) = self.decode_with_external(&u.key, &cur.value)?;
        let cur_refs: Vec<ExternRef> = cur_external.iter().map(|(_, _, r)| *r).collect();
        match u.kind {
            UndoKind::Insert => {
                for (s, e) in self
                    .secondary_entries(&cur_row, &u.key, 0)?
                    .iter()
                    .enumerate()
                {
                    self.inherit_gaps(s + 1, &e.key)?;
                    self.secondary[s].delete(pool, &e.key)?;
                }
                self.inherit_gaps(CLUSTERED, &u.key)?;
                self.clustered.delete(pool, &u.key)?;
                self.log_online(&u.key, Some(&cur_row), None, 0);
                self.free_chains(&cur_refs);
            }
            UndoKind::Update | UndoKind::DeleteMark => {
                let (old_row, old_external) = self.decode_with_external(&u.key, &u.old_value)?;
                self.restore_entries(u, &cur_row, &old_row)?;
                self.clustered
                    .rewrite(pool, &u.key, &u.old_value, u.old_deleted)?;
                self.log_online(
                    &u.key,
                    (!cur.deleted).then_some(cur_row.as_slice()),
                    (!u.old_deleted).then_some(old_row.as_slice()),
                    trx_id_of(&u.old_value),
                );
                let old_refs: Vec<ExternRef> = old_external.iter().map(|(_, _, r)| *r).collect();
                let created: Vec<ExternRef> = cur_refs
                    .into_iter()
                    .filter(|r| !old_refs.contains(r))
                    .collect();
                self.free_chains(&created);
            }
        }
        Ok(())
    }

    /// Puts the secondary entries of the row back from `cur_row` (the
    /// version being undone) to `old_row`.
    fn restore_entries(&self, u: &RowUndo, cur_row: &[Value], old_row: &[Value]) -> Result<()> {
        let pool = self.storage.pool();
        let writer = trx_id_of(&u.old_value);
        let old = self.secondary_entries(old_row, &u.key, writer)?;
        let cur = self.secondary_entries(cur_row, &u.key, writer)?;
        for (s, (o, c)) in old.iter().zip(&cur).enumerate() {
            let tree = &self.secondary[s];
            if o.key != c.key {
                if u.preexisting.get(s).copied().unwrap_or(false) {
                    tree.upsert_keeping_tail(pool, &c.key, &c.value, true, CREATED)?;
                } else {
                    self.inherit_gaps(s + 1, &c.key)?;
                    tree.delete(pool, &c.key)?;
                }
            }
            let changed = o.key != c.key || o.value != c.value || u.kind == UndoKind::DeleteMark;
            if !changed && !u.old_deleted {
                continue;
            }
            // An entry recreated here gets creation stamp 0 (unknown, older
            // than every snapshot); an existing one keeps its own.
            let mut value = o.value.clone();
            let at = value.len().saturating_sub(CREATED);
            value[at..].fill(0);
            tree.upsert_keeping_tail(pool, &o.key, &value, u.old_deleted, CREATED)?;
        }
        Ok(())
    }
}
