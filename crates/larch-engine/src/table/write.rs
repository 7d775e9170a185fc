//! Row changes: insert, update, delete across the clustered and secondary indexes.
//!
//! Order of work in every change (see the module doc of `table` for what the
//! transaction system adds):
//! 1. latch the row stripes of every clustered key involved (ascending stripe
//!    order), then the table's unique latch if a unique secondary is checked;
//! 2. check uniqueness and prepare every entry: nothing has changed yet, so an
//!    error leaves no trace;
//! 3. write the clustered index first, then the secondary indexes; free the
//!    off-page values a change replaced last.
//!
//! Readers go secondary -> clustered and re-check that the row still matches
//! the entry, so the order in step 3 never shows them a wrong row.

use std::ops::Bound;

use parking_lot::MutexGuard;

use super::layout::encode_columns;
use super::{RowRef, Table, TxnContext};
use crate::btree::OnDuplicate;
use crate::error::{EngineError, Result};
use crate::record::key::prefix_end;
use crate::record::overflow;
use crate::record::row::{
    encode_row, plan_external_for_entry, ColumnBytes, ExternRef, HiddenFields, RowView,
    SECONDARY_STAMP_LEN,
};
use crate::record::value::{format_time, ColumnType, Value};

/// Row latch stripes per table.
pub(super) const ROW_STRIPES: usize = 64;

/// The prepared entry of one secondary index for one row.
struct SecondaryEntry {
    /// Secondary key parts followed by the clustered key.
    key: Vec<u8>,
    /// The secondary key parts alone (the unique prefix).
    prefix_len: usize,
    has_null: bool,
    value: Vec<u8>,
}

/// A clustered record being written, with the off-page values it stored.
struct NewRecord {
    bytes: Vec<u8>,
    /// Chains stored for this record (freed again if the write fails).
    stored: Vec<ExternRef>,
}

fn stripe_of(key: &[u8]) -> usize {
    // FNV-1a: cheap and spreads adjacent keys.
    let h = key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (h % ROW_STRIPES as u64) as usize
}

impl Table {
    /// Latches the stripes of `keys` in ascending order.
    fn latch_rows(&self, keys: &[&[u8]]) -> Vec<MutexGuard<'_, ()>> {
        let mut stripes: Vec<usize> = keys.iter().map(|k| stripe_of(k)).collect();
        stripes.sort_unstable();
        stripes.dedup();
        stripes
            .into_iter()
            .map(|s| self.row_latches[s].lock())
            .collect()
    }

    /// Moves the AUTO_INCREMENT counter past the value `row` stores in the
    /// AUTO_INCREMENT column.
    fn observe_explicit(&self, row: &[Value]) -> Result<()> {
        let Some(c) = self.layout.def.auto_increment else {
            return Ok(());
        };
        match row.get(c) {
            Some(Value::Int(i)) if *i > 0 => self.observe_auto_increment(*i as u64),
            Some(Value::UInt(u)) => self.observe_auto_increment(*u),
            _ => Ok(()),
        }
    }

    fn has_unique_secondary(&self) -> bool {
        self.layout.secondary.iter().any(|s| s.unique)
    }

    fn secondary_entries(
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

    /// Fails with a duplicate-entry error if unique index `s` holds a live entry
    /// with the secondary key of `e` for another row than `own`.
    fn check_unique(
        &self,
        s: usize,
        e: &SecondaryEntry,
        row: &[Value],
        own: Option<&[u8]>,
    ) -> Result<()> {
        if !self.layout.secondary[s].unique || e.has_null {
            return Ok(());
        }
        let prefix = &e.key[..e.prefix_len];
        let upper = match prefix_end(prefix) {
            Some(end) => Bound::Excluded(end),
            None => Bound::Unbounded,
        };
        let pool = self.storage.pool();
        let mut c = self.secondary[s].range(pool, Bound::Included(prefix.to_vec()), upper, false);
        while let Some(found) = c.next_entry()? {
            if found.is_deleted() {
                continue;
            }
            if own.is_some_and(|o| found.key[e.prefix_len..] == *o) {
                continue;
            }
            let l = &self.layout.secondary[s];
            return Err(self.duplicate(&l.key_columns, row, &l.name));
        }
        Ok(())
    }

    /// MySQL's 1062 error for the key over `columns` of `row`.
    fn duplicate(&self, columns: &[usize], row: &[Value], key: &str) -> EngineError {
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

    fn duplicate_primary(&self, row: &[Value]) -> EngineError {
        self.duplicate(&self.layout.clustered.key_columns, row, "PRIMARY")
    }

    /// Encodes the clustered record of `row`, storing long columns off-page.
    /// `reuse` offers off-page values of the previous version (stored column
    /// index -> (bytes, reference)) that an unchanged column keeps.
    fn build_record(
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
    fn free_chains(&self, refs: &[ExternRef]) {
        for r in refs {
            if let Err(e) = overflow::free(self.storage.pool(), self.blob_segment, r) {
                tracing::warn!(error = %e, table = %self.layout.def.name, "could not free an off-page value");
            }
        }
    }

    /// Inserts `row` (one value per column). Fails with 1062 on a duplicate
    /// primary or unique key, leaving the table unchanged.
    pub fn insert(&self, ctx: &TxnContext, row: &[Value]) -> Result<RowRef> {
        self.layout.check_arity(row)?;
        self.observe_explicit(row)?;
        let row_id = if self.layout.clustered.hidden_row_id {
            self.allocate_row_id()?
        } else {
            0
        };
        let key = self.layout.clustered_key(row, row_id)?;
        let entries = self.secondary_entries(row, &key, ctx.trx_id)?;
        let _rows = self.latch_rows(&[&key]);
        let _unique = self
            .has_unique_secondary()
            .then(|| self.unique_latch.lock());
        for (s, e) in entries.iter().enumerate() {
            self.check_unique(s, e, row, None)?;
        }
        let rec = self.build_record(ctx.trx_id, row, key.len(), row_id, &[])?;
        let pool = self.storage.pool();
        if let Err(e) = self
            .clustered
            .insert(pool, &key, &rec.bytes, OnDuplicate::Error)
        {
            self.free_chains(&rec.stored);
            return Err(match e {
                EngineError::DuplicateKey { .. } => self.duplicate_primary(row),
                e => e,
            });
        }
        for (s, e) in entries.iter().enumerate() {
            self.secondary[s].insert(pool, &e.key, &e.value, OnDuplicate::Error)?;
        }
        Ok(RowRef(key))
    }

    /// Replaces the row at `at` by `new_row`. Returns the row's new address
    /// (it moves when the primary key changes), or `None` if there is no row at
    /// `at`. Fails with 1062 on a duplicate key, leaving the table unchanged.
    pub fn update(
        &self,
        ctx: &TxnContext,
        at: &RowRef,
        new_row: &[Value],
    ) -> Result<Option<RowRef>> {
        self.layout.check_arity(new_row)?;
        self.observe_explicit(new_row)?;
        let hidden = self.layout.clustered.hidden_row_id;
        let row_id = if hidden { row_id_of(&at.0) } else { 0 };
        let new_key = self.layout.clustered_key(new_row, row_id)?;
        let _rows = self.latch_rows(&[&at.0, &new_key]);
        let pool = self.storage.pool();
        let Some(found) = self.clustered.get(pool, &at.0)?.filter(|f| !f.deleted) else {
            return Ok(None);
        };
        let (old_row, old_external) = self.decode_with_external(&at.0, &found.value)?;
        let old_entries = self.secondary_entries(&old_row, &at.0, ctx.trx_id)?;
        let new_entries = self.secondary_entries(new_row, &new_key, ctx.trx_id)?;
        let _unique = self
            .has_unique_secondary()
            .then(|| self.unique_latch.lock());
        for (s, e) in new_entries.iter().enumerate() {
            if e.key[..e.prefix_len] != old_entries[s].key[..old_entries[s].prefix_len] {
                self.check_unique(s, e, new_row, Some(&at.0))?;
            }
        }
        let moved = new_key != at.0;
        if moved
            && self
                .clustered
                .get(pool, &new_key)?
                .is_some_and(|f| !f.deleted)
        {
            return Err(self.duplicate_primary(new_row));
        }
        let rec = self.build_record(ctx.trx_id, new_row, new_key.len(), row_id, &old_external)?;
        let written = if moved {
            self.clustered
                .insert(pool, &new_key, &rec.bytes, OnDuplicate::Error)
                .and_then(|()| self.clustered.delete(pool, &at.0).map(|_| ()))
        } else {
            self.clustered
                .insert(pool, &at.0, &rec.bytes, OnDuplicate::Replace)
        };
        if let Err(e) = written {
            self.free_chains(&rec.stored);
            return Err(e);
        }
        for (s, (old, new)) in old_entries.iter().zip(&new_entries).enumerate() {
            let tree = &self.secondary[s];
            if old.key != new.key {
                tree.delete(pool, &old.key)?;
                tree.insert(pool, &new.key, &new.value, OnDuplicate::Error)?;
            } else if old.value[SECONDARY_STAMP_LEN..] != new.value[SECONDARY_STAMP_LEN..] {
                tree.insert(pool, &new.key, &new.value, OnDuplicate::Replace)?;
            }
        }
        let kept: Vec<ExternRef> = RowView::parse(&self.layout.clustered.row, &rec.bytes)?
            .external_columns()
            .map(|(_, r)| r)
            .collect();
        let freed: Vec<ExternRef> = old_external
            .iter()
            .map(|(_, _, r)| *r)
            .filter(|r| !kept.contains(r))
            .collect();
        self.free_chains(&freed);
        Ok(Some(RowRef(new_key)))
    }

    /// Deletes the row at `at`. Returns false if there is none.
    pub fn delete(&self, ctx: &TxnContext, at: &RowRef) -> Result<bool> {
        let _rows = self.latch_rows(&[&at.0]);
        let pool = self.storage.pool();
        let Some(found) = self.clustered.get(pool, &at.0)?.filter(|f| !f.deleted) else {
            return Ok(false);
        };
        let (old_row, old_external) = self.decode_with_external(&at.0, &found.value)?;
        let entries = self.secondary_entries(&old_row, &at.0, ctx.trx_id)?;
        if !self.clustered.delete(pool, &at.0)? {
            return Ok(false);
        }
        for (s, e) in entries.iter().enumerate() {
            self.secondary[s].delete(pool, &e.key)?;
        }
        let refs: Vec<ExternRef> = old_external.iter().map(|(_, _, r)| *r).collect();
        self.free_chains(&refs);
        Ok(true)
    }
}

/// The hidden row id in a clustered key of a table without a primary key.
fn row_id_of(key: &[u8]) -> u64 {
    key.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b))
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
            ColumnType::Enum { values } => values
                .get(usize::from(*i).wrapping_sub(1))
                .cloned()
                .unwrap_or_default(),
            _ => i.to_string(),
        },
        Value::Set(bits) => match ty {
            ColumnType::Set { values } => values
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
