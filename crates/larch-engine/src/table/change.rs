//! The public row changes, [`Table::insert`], [`Table::update`] and
//! [`Table::delete`], and row locking ([`Table::lock_row`]). The order of work
//! and what readers see are described in `write`; the helpers (entries,
//! unique checks, record building) live there.

use super::layout::SECONDARY_CREATED_LEN as CREATED;
use super::undo_entry::{RowUndo, UndoKind};
use super::version::{set_hidden, PrunedRecords};
use super::write::SecondaryEntry;
use super::{RowRef, Table, TxnContext};
use crate::btree::OnDuplicate;
use crate::error::{EngineError, Result};
use crate::lock::{LockMode, LockOutcome, WaitPolicy};
use crate::record::row::{ExternRef, RowView, SECONDARY_STAMP_LEN};
use crate::record::value::Value;

impl Table {
    /// The lock-table identity of the clustered index.
    pub(super) fn lock_index(&self) -> u64 {
        (u64::from(self.space) << 32) | u64::from(self.clustered.root)
    }

    pub(super) fn lock_key(
        &self,
        ctx: &TxnContext,
        key: &[u8],
        mode: LockMode,
        policy: Option<WaitPolicy>,
    ) -> Result<LockOutcome> {
        ctx.lock_record(self.lock_index(), key, mode, policy)
    }

    /// Locks the row at `at` for a locking read or before a change (`SELECT
    /// ... FOR UPDATE` / `FOR SHARE`, and the current read of UPDATE and
    /// DELETE). `policy` `None` waits up to the transaction's lock wait timeout.
    pub fn lock_row(
        &self,
        ctx: &TxnContext,
        at: &RowRef,
        mode: LockMode,
        policy: Option<WaitPolicy>,
    ) -> Result<LockOutcome> {
        self.lock_key(ctx, &at.0, mode, policy)
    }

    /// Inserts `row` (one value per column). Fails with 1062 on a duplicate
    /// primary or unique key; nothing of the row is written then.
    pub fn insert(&self, ctx: &mut TxnContext, row: &[Value]) -> Result<RowRef> {
        self.layout.check_arity(row)?;
        self.observe_explicit(row)?;
        let row_id = if self.layout.clustered.hidden_row_id {
            self.allocate_row_id()?
        } else {
            0
        };
        let key = self.layout.clustered_key(row, row_id)?;
        let (at, entries) = self.insert_at(ctx, row, key, row_id, None, None)?;
        self.note_change(ctx, None, Some(&at));
        // The second insert-intention check (see `gap`), with no latch held.
        self.insert_intentions(ctx, Some(&at.0), &entry_keys(&entries))?;
        Ok(at)
    }

    /// Inserts `row` under clustered key `key` and returns its address and
    /// secondary entries. `own` names the row an update is moving (its entries
    /// do not count as duplicates); `prechecked` holds the entries when the
    /// caller ran their unique checks and holds the unique latch.
    fn insert_at(
        &self,
        ctx: &mut TxnContext,
        row: &[Value],
        key: Vec<u8>,
        row_id: u64,
        own: Option<&[u8]>,
        prechecked: Option<Vec<SecondaryEntry>>,
    ) -> Result<(RowRef, Vec<SecondaryEntry>)> {
        let mvcc = !ctx.is_internal();
        let trx_id = ctx.id_for_write()?;
        let _granted = self.lock_key(ctx, &key, LockMode::Exclusive, None)?;
        let checked = prechecked.is_some();
        let entries = match prechecked {
            Some(e) => e,
            None => self.secondary_entries(row, &key, trx_id)?,
        };
        self.insert_intentions(ctx, Some(&key), &entry_keys(&entries))?;
        let all = vec![true; entries.len()];
        let _unique = if checked {
            None
        } else {
            self.unique_checked(ctx, &entries, &all, row, own)?
        };
        let pool = self.storage.pool();
        let existing = self.clustered.get(pool, &key)?;
        if existing.as_ref().is_some_and(|f| !f.deleted) {
            return Err(self.duplicate_primary(row));
        }
        let mut rec = self.build_record(trx_id, row, key.len(), row_id, &[])?;
        let mut pruned = PrunedRecords::default();
        let undo = match existing.filter(|_| mvcc) {
            None => RowUndo::insert(self.space, self.clustered.root, &key),
            Some(old) => {
                // Insert over a delete-marked record: an update of it, so the
                // deleted version stays reachable for older snapshots.
                let mut preexisting = Vec::with_capacity(entries.len());
                for (s, e) in entries.iter().enumerate() {
                    preexisting.push(self.secondary[s].get(pool, &e.key)?.is_some());
                }
                let dropped = external_refs(self, &old.value)?;
                let (old_value, skipped) = self.pruned_previous(old.value)?;
                pruned = skipped;
                RowUndo {
                    kind: UndoKind::Update,
                    old_deleted: true,
                    old_value,
                    preexisting,
                    dropped,
                    ..RowUndo::insert(self.space, self.clustered.root, &key)
                }
            }
        };
        let is_insert = undo.kind == UndoKind::Insert;
        let roll = match ctx.append_undo(is_insert, &undo.encode()) {
            Ok(r) => r,
            Err(e) => {
                self.free_chains(&rec.stored);
                return Err(e);
            }
        };
        set_hidden(&mut rec.bytes, trx_id, roll);
        let on_dup = if is_insert {
            OnDuplicate::Error
        } else {
            OnDuplicate::Replace
        };
        if let Err(e) = self.clustered.insert(pool, &key, &rec.bytes, on_dup) {
            self.free_chains(&rec.stored);
            return Err(match e {
                EngineError::DuplicateKey { .. } => self.duplicate_primary(row),
                e => e,
            });
        }
        self.release_pruned(pruned);
        for (s, e) in entries.iter().enumerate() {
            self.secondary[s].upsert_keeping_tail(pool, &e.key, &e.value, false, CREATED)?;
        }
        self.log_online(&key, None, Some(row), trx_id);
        Ok((RowRef(key), entries))
    }

    /// Replaces the row at `at` by `new_row`. Returns the row's new address
    /// (it moves when the primary key changes), or `None` if there is no row at
    /// `at`. Fails with 1062 on a duplicate key.
    pub fn update(
        &self,
        ctx: &mut TxnContext,
        at: &RowRef,
        new_row: &[Value],
    ) -> Result<Option<RowRef>> {
        self.layout.check_arity(new_row)?;
        self.observe_explicit(new_row)?;
        let hidden = self.layout.clustered.hidden_row_id;
        let row_id = if hidden { row_id_of(&at.0) } else { 0 };
        let new_key = self.layout.clustered_key(new_row, row_id)?;
        let trx_id = ctx.id_for_write()?;
        let _granted = self.lock_key(ctx, &at.0, LockMode::Exclusive, None)?;
        if new_key != at.0 {
            // A primary-key change: delete-mark the old key, insert the new.
            let _granted = self.lock_key(ctx, &new_key, LockMode::Exclusive, None)?;
            let pool = self.storage.pool();
            if self.clustered.get(pool, &at.0)?.is_none_or(|f| f.deleted) {
                return Ok(None);
            }
            if self
                .clustered
                .get(pool, &new_key)?
                .is_some_and(|f| !f.deleted)
            {
                return Err(self.duplicate_primary(new_row));
            }
            // Unique checks first: an internal writer has no undo to take the
            // delete back if the insert failed.
            let entries = self.secondary_entries(new_row, &new_key, trx_id)?;
            let all = vec![true; entries.len()];
            let guard = self.unique_checked(ctx, &entries, &all, new_row, Some(&at.0))?;
            if !self.delete(ctx, at)? {
                return Ok(None);
            }
            let r = self.insert_at(ctx, new_row, new_key, row_id, Some(&at.0), Some(entries));
            drop(guard);
            let (moved, entries) = r?;
            self.note_change(ctx, None, Some(&moved));
            self.insert_intentions(ctx, Some(&moved.0), &entry_keys(&entries))?;
            return Ok(Some(moved));
        }
        let pool = self.storage.pool();
        let Some(found) = self.clustered.get(pool, &at.0)?.filter(|f| !f.deleted) else {
            return Ok(None);
        };
        let (old_row, old_external) = self.decode_with_external(&at.0, &found.value)?;
        let watched_changed = self.participant().is_some_and(|p| {
            p.watched_columns()
                .iter()
                .any(|&c| old_row.get(c) != new_row.get(c))
        });
        let old_entries = self.secondary_entries(&old_row, &at.0, trx_id)?;
        let new_entries = self.secondary_entries(new_row, &at.0, trx_id)?;
        let changed: Vec<bool> = old_entries
            .iter()
            .zip(&new_entries)
            .map(|(o, n)| o.key[..o.prefix_len] != n.key[..n.prefix_len])
            .collect();
        let moved_entries: Vec<(usize, &[u8])> = old_entries
            .iter()
            .zip(&new_entries)
            .enumerate()
            .filter(|(_, (o, n))| o.key != n.key)
            .map(|(s, (_, n))| (s + 1, n.key.as_slice()))
            .collect();
        self.insert_intentions(ctx, None, &moved_entries)?;
        let unique = self.unique_checked(ctx, &new_entries, &changed, new_row, Some(&at.0))?;
        let mut rec = self.build_record(trx_id, new_row, at.0.len(), row_id, &old_external)?;
        let kept: Vec<ExternRef> = RowView::parse(&self.layout.clustered.row, &rec.bytes)?
            .external_columns()
            .map(|(_, r)| r)
            .collect();
        let dropped: Vec<ExternRef> = old_external
            .iter()
            .map(|(_, _, r)| *r)
            .filter(|r| !kept.contains(r))
            .collect();
        let mvcc = !ctx.is_internal();
        let mut pruned = PrunedRecords::default();
        if mvcc {
            let mut preexisting = Vec::with_capacity(new_entries.len());
            for (s, (o, n)) in old_entries.iter().zip(&new_entries).enumerate() {
                preexisting.push(o.key != n.key && self.secondary[s].get(pool, &n.key)?.is_some());
            }
            let (old_value, skipped) = self.pruned_previous(found.value)?;
            pruned = skipped;
            let undo = RowUndo {
                kind: UndoKind::Update,
                old_deleted: false,
                old_value,
                preexisting,
                dropped: dropped.clone(),
                ..RowUndo::insert(self.space, self.clustered.root, &at.0)
            };
            let roll = match ctx.append_undo(false, &undo.encode()) {
                Ok(r) => r,
                Err(e) => {
                    self.free_chains(&rec.stored);
                    return Err(e);
                }
            };
            set_hidden(&mut rec.bytes, trx_id, roll);
        }
        if let Err(e) = self
            .clustered
            .insert(pool, &at.0, &rec.bytes, OnDuplicate::Replace)
        {
            self.free_chains(&rec.stored);
            return Err(e);
        }
        self.release_pruned(pruned);
        for (s, (old, new)) in old_entries.iter().zip(&new_entries).enumerate() {
            let tree = &self.secondary[s];
            if old.key != new.key {
                if mvcc {
                    tree.upsert_keeping_tail(pool, &old.key, &old.value, true, CREATED)?;
                } else {
                    tree.delete(pool, &old.key)?;
                }
                tree.upsert_keeping_tail(pool, &new.key, &new.value, false, CREATED)?;
            } else if old.value[SECONDARY_STAMP_LEN..] != new.value[SECONDARY_STAMP_LEN..] {
                tree.upsert_keeping_tail(pool, &new.key, &new.value, false, CREATED)?;
            }
        }
        self.log_online(&at.0, Some(&old_row), Some(new_row), trx_id);
        if !mvcc {
            self.free_chains(&dropped);
        }
        drop(unique);
        if watched_changed {
            self.note_change(ctx, Some(at), Some(at));
        }
        self.insert_intentions(ctx, None, &moved_entries)?;
        Ok(Some(RowRef(at.0.clone())))
    }

    /// Deletes the row at `at` (a delete-mark that purge completes). Returns
    /// false if there is none.
    pub fn delete(&self, ctx: &mut TxnContext, at: &RowRef) -> Result<bool> {
        let trx_id = ctx.id_for_write()?;
        let _granted = self.lock_key(ctx, &at.0, LockMode::Exclusive, None)?;
        let pool = self.storage.pool();
        let Some(found) = self.clustered.get(pool, &at.0)?.filter(|f| !f.deleted) else {
            return Ok(false);
        };
        let (old_row, old_external) = self.decode_with_external(&at.0, &found.value)?;
        let entries: Vec<SecondaryEntry> = self.secondary_entries(&old_row, &at.0, trx_id)?;
        if ctx.is_internal() {
            if !self.clustered.delete(pool, &at.0)? {
                return Ok(false);
            }
            for (s, e) in entries.iter().enumerate() {
                self.secondary[s].delete(pool, &e.key)?;
            }
            self.log_online(&at.0, Some(&old_row), None, trx_id);
            let refs: Vec<ExternRef> = old_external.iter().map(|(_, _, r)| *r).collect();
            self.free_chains(&refs);
            return Ok(true);
        }
        let mut marked = found.value.clone();
        let (old_value, pruned) = self.pruned_previous(found.value)?;
        let undo = RowUndo {
            kind: UndoKind::DeleteMark,
            old_deleted: false,
            old_value,
            ..RowUndo::insert(self.space, self.clustered.root, &at.0)
        };
        let roll = ctx.append_undo(false, &undo.encode())?;
        set_hidden(&mut marked, trx_id, roll);
        self.clustered.rewrite(pool, &at.0, &marked, true)?;
        self.release_pruned(pruned);
        for (s, e) in entries.iter().enumerate() {
            self.secondary[s].upsert_keeping_tail(pool, &e.key, &e.value, true, CREATED)?;
        }
        self.log_online(&at.0, Some(&old_row), None, trx_id);
        self.note_change(ctx, Some(at), None);
        Ok(true)
    }

    /// Records a row change for the table's commit participant, if any.
    fn note_change(&self, ctx: &mut TxnContext, before: Option<&RowRef>, after: Option<&RowRef>) {
        if let Some(p) = self.participant.get() {
            ctx.note_change(
                p,
                super::RowChange {
                    before: before.cloned(),
                    after: after.cloned(),
                },
            );
        }
    }
}

/// `(index number, entry key)` of a row's secondary entries, for
/// [`Table::insert_intentions`].
fn entry_keys(entries: &[SecondaryEntry]) -> Vec<(usize, &[u8])> {
    entries
        .iter()
        .enumerate()
        .map(|(s, e)| (s + 1, e.key.as_slice()))
        .collect()
}

/// The off-page chains a clustered record value references.
pub(super) fn external_refs(t: &Table, value: &[u8]) -> Result<Vec<ExternRef>> {
    Ok(RowView::parse(&t.layout.clustered.row, value)?
        .external_columns()
        .map(|(_, r)| r)
        .collect())
}

/// The hidden row id in a clustered key of a table without a primary key.
pub(super) fn row_id_of(key: &[u8]) -> u64 {
    key.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b))
}
