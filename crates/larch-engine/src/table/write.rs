//! Row changes: insert, update, delete across the clustered and secondary indexes.
//!
//! Order of work in every change made for a transaction (a [`TxnContext`]
//! with undo; `version` and `undo_entry` describe what readers and rollback
//! see):
//! 1. take the exclusive row lock on the clustered key (waiting, or failing
//!    with a lock wait timeout or deadlock error);
//! 2. check uniqueness: a live entry of another row is a duplicate once its
//!    writer has committed; an entry an active transaction wrote or
//!    delete-marked is waited for (a shared lock on that row), then checked
//!    again. Unique checks and the secondary inserts after them are serialized
//!    per table by a latch that is never held across a lock wait;
//! 3. append the undo record (the previous version), then write the clustered
//!    record stamped with the transaction id and the roll pointer, then the
//!    secondary entries (stamped too). Deletes only delete-mark; an update
//!    that changes a secondary key delete-marks the old entry and inserts (or
//!    un-marks) the new one. Purge removes what no snapshot needs.
//!
//! A statement that fails half-way leaves its earlier changes; the caller
//! rolls back to the statement's [`UndoMark`](super::UndoMark), as InnoDB
//! rolls back a failed statement.
//!
//! Internal writers ([`TxnContext::internal`]: DDL copies, the dictionary)
//! change records physically, without undo, delete-marks or locks.
//!
//! Readers go secondary -> clustered and re-check that the row version they
//! see still matches the entry, so the order in step 3 never shows them a
//! wrong row.

use std::ops::Bound;

use super::layout::encode_columns;
use super::version::trx_id_of;
use super::{Table, TxnContext};
use crate::error::{EngineError, Result};
use crate::lock::LockMode;
use crate::record::key::prefix_end;
use crate::record::overflow;
use crate::record::row::{
    encode_row, plan_external_for_entry, ColumnBytes, ExternRef, HiddenFields,
};
use crate::record::value::{format_time, ColumnType, Value};
use crate::txn::TrxStatus;

/// The prepared entry of one secondary index for one row.
pub(super) struct SecondaryEntry {
    /// Secondary key parts followed by the clustered key.
    pub key: Vec<u8>,
    /// The secondary key parts alone (the unique prefix).
    pub prefix_len: usize,
    pub has_null: bool,
    pub value: Vec<u8>,
}

/// A clustered record being written, with the off-page values it stored.
pub(super) struct NewRecord {
    pub bytes: Vec<u8>,
    /// Chains stored for this record (freed again if the write fails).
    pub stored: Vec<ExternRef>,
}

impl Table {
    /// Moves the AUTO_INCREMENT counter past the value `row` stores in the
    /// AUTO_INCREMENT column.
    pub(super) fn observe_explicit(&self, row: &[Value]) -> Result<()> {
        let Some(c) = self.layout.def.auto_increment else {
            return Ok(());
        };
        match row.get(c) {
            Some(Value::Int(i)) if *i > 0 => self.observe_auto_increment(*i as u64),
            Some(Value::UInt(u)) => self.observe_auto_increment(*u),
            _ => Ok(()),
        }
    }

    pub(super) fn has_unique_secondary(&self) -> bool {
        self.layout.secondary.iter().any(|s| s.unique)
    }

    pub(super) fn secondary_entries(
        &self,
        row: &[Value],
        clustered_key: &[u8],
        trx_id: u64,
    ) -> Result<Vec<SecondaryEntry>> {
        (0..self.layout.secondary.len())
            .map(|s| {
                let (mut key, has_null) = self.layout.secondary_prefix(s, row)?;
                let prefix_len = key.len();
                key.extend_from_slice(clustered_key);
                let value = self.layout.secondary_value(s, row, trx_id)?;
                Ok(SecondaryEntry {
                    key,
                    prefix_len,
                    has_null,
                    value,
                })
            })
            .collect()
    }

    /// Checks unique index `s` for another row than `own` with the secondary
    /// key of `e`: `Err` with 1062 for a duplicate, `Ok(Some(row))` when an
    /// entry's fate depends on an active transaction (lock `row` shared and
    /// check again), `Ok(None)` when the key is free.
    fn check_unique(
        &self,
        s: usize,
        e: &SecondaryEntry,
        row: &[Value],
        own: Option<&[u8]>,
        trx_id: u64,
    ) -> Result<Option<Vec<u8>>> {
        if !self.layout.secondary[s].unique || e.has_null {
            return Ok(None);
        }
        let prefix = &e.key[..e.prefix_len];
        let upper = match prefix_end(prefix) {
            Some(end) => Bound::Excluded(end),
            None => Bound::Unbounded,
        };
        let pool = self.storage.pool();
        let mut c = self.secondary[s].range(pool, Bound::Included(prefix.to_vec()), upper, false);
        while let Some(found) = c.next_entry()? {
            let other = &found.key[e.prefix_len..];
            if own.is_some_and(|o| other == o) {
                continue;
            }
            let stamp = trx_id_of(&found.value);
            let settled = stamp == trx_id || !self.is_active(stamp);
            match (found.is_deleted(), settled) {
                (true, true) => continue,
                (false, true) => {
                    let l = &self.layout.secondary[s];
                    return Err(self.duplicate(&l.key_columns, row, &l.name));
                }
                (_, false) => return Ok(Some(other.to_vec())),
            }
        }
        Ok(None)
    }

    /// Whether `trx` is a transaction that has not finished.
    pub(super) fn is_active(&self, trx: u64) -> bool {
        self.services
            .as_ref()
            .is_some_and(|s| trx != 0 && s.system.status(trx) == TrxStatus::Active)
    }

    /// Runs the unique checks of `entries` (indexes where `changed` says so)
    /// and returns holding the table's unique latch (if it has unique indexes),
    /// waiting for row locks between attempts without the latch.
    pub(super) fn unique_checked(
        &self,
        ctx: &mut TxnContext,
        entries: &[SecondaryEntry],
        changed: &[bool],
        row: &[Value],
        own: Option<&[u8]>,
    ) -> Result<Option<parking_lot::MutexGuard<'_, ()>>> {
        if !self.has_unique_secondary() {
            return Ok(None);
        }
        let trx_id = ctx.trx_id();
        loop {
            let guard = self.unique_latch.lock();
            let mut wait_for = None;
            for (s, e) in entries.iter().enumerate() {
                if !changed[s] {
                    continue;
                }
                if let Some(other) = self.check_unique(s, e, row, own, trx_id)? {
                    wait_for = Some(other);
                    break;
                }
            }
            let Some(other) = wait_for else {
                return Ok(Some(guard));
            };
            drop(guard);
            let _granted = self.lock_key(ctx, &other, LockMode::Shared, None)?;
        }
    }

    /// MySQL's 1062 error for the key over `columns` of `row`.
    pub(super) fn duplicate(&self, columns: &[usize], row: &[Value], key: &str) -> EngineError {
        let entry = columns
            .iter()
            .map(|&c| display_value(&self.layout.def.columns[c].ty, &row[c]))
            .collect::<Vec<_>>()
            .join("-");
        EngineError::DuplicateEntry {
            entry,
            key: key.to_string(),
        }
    }

    pub(super) fn duplicate_primary(&self, row: &[Value]) -> EngineError {
        self.duplicate(&self.layout.clustered.key_columns, row, "PRIMARY")
    }

    /// Encodes the clustered record of `row`, storing long columns off-page.
    /// `reuse` offers off-page values of the previous version (stored column
    /// index -> (bytes, reference)) that an unchanged column keeps.
    pub(super) fn build_record(
        &self,
        trx_id: u64,
        row: &[Value],
        key_len: usize,
        row_id: u64,
        reuse: &[(usize, Vec<u8>, ExternRef)],
    ) -> Result<NewRecord> {
        let c = &self.layout.clustered;
        let bytes = encode_columns(&self.layout.def, &c.stored, row)?;
        let lengths: Vec<Option<usize>> = bytes.iter().map(|b| b.as_ref().map(Vec::len)).collect();
        let external = plan_external_for_entry(&c.row, &lengths, key_len, self.layout.page_size)?;
        let pool = self.storage.pool();
        let mut refs: Vec<Option<ExternRef>> = vec![None; bytes.len()];
        let mut stored = Vec::new();
        for (i, b) in bytes.iter().enumerate() {
            let Some(b) = b.as_ref().filter(|_| external[i]) else {
                continue;
            };
            if let Some((_, _, r)) = reuse.iter().find(|(j, old, _)| *j == i && old == b) {
                refs[i] = Some(*r);
                continue;
            }
            match overflow::store(pool, self.space, self.blob_segment, b) {
                Ok(r) => {
                    refs[i] = Some(r);
                    stored.push(r);
                }
                Err(e) => {
                    self.free_chains(&stored);
                    return Err(e);
                }
            }
        }
        let cols: Vec<Option<ColumnBytes<'_>>> = bytes
            .iter()
            .zip(&refs)
            .map(|(b, r)| match (b, r) {
                (_, Some(r)) => Some(ColumnBytes::External(*r)),
                (Some(b), None) => Some(ColumnBytes::Inline(b)),
                (None, None) => None,
            })
            .collect();
        let hidden = HiddenFields {
            trx_id,
            roll_ptr: 0,
            row_id,
        };
        let mut out = Vec::new();
        if let Err(e) = encode_row(&c.row, &hidden, &cols, &mut out) {
            self.free_chains(&stored);
            return Err(e.into());
        }
        Ok(NewRecord { bytes: out, stored })
    }

    /// Frees off-page chains, logging (not failing) on error: the row change
    /// they belonged to is already decided, a leak is the worst outcome.
    pub(super) fn free_chains(&self, refs: &[ExternRef]) {
        for r in refs {
            if let Err(e) = overflow::free(self.storage.pool(), self.blob_segment, r) {
                tracing::warn!(error = %e, table = %self.layout.def.name, "could not free an off-page value");
            }
        }
    }
}

/// A value as MySQL prints it in "Duplicate entry '...'".
pub(super) fn display_value(ty: &ColumnType, v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) | Value::Bit(u) => u.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Str(s) => s.clone(),
        Value::Date(d) => d.to_string(),
        Value::Time(t) => format_time(*t),
        Value::Datetime(d) => d.to_string(),
        Value::Timestamp(t) => format!("{}", t.secs),
        Value::Year(y) => y.to_string(),
        Value::Enum(i) => match ty {
            ColumnType::Enum { values, .. } => values
                .get(usize::from(*i).wrapping_sub(1))
                .cloned()
                .unwrap_or_default(),
            _ => i.to_string(),
        },
        Value::Set(bits) => match ty {
            ColumnType::Set { values, .. } => values
                .iter()
                .enumerate()
                .filter(|(i, _)| bits >> i & 1 == 1)
                .map(|(_, m)| m.as_str())
                .collect::<Vec<_>>()
                .join(","),
            _ => bits.to_string(),
        },
    }
}
