//! The entries a table's rows give in indexes it does not have yet: what an
//! index build ([`crate::ddl`]) reads.
//!
//! [`Table::new_index_entries`] walks the clustered index once and, for
//! every row that exists in its newest version (delete-marked records are
//! skipped: purge removes them), produces its entry in each requested
//! secondary index of a new layout of the same table. An entry is exactly
//! what an insert would write (`layout.rs`): the key parts, then the
//! clustered key; the value carries the covered columns and two stamps.
//! The writer stamp is the clustered record's transaction id, so a
//! snapshot that cannot see that version reads the row through the
//! clustered index, as it would after any insert; the creation stamp is 0
//! (the entry exists for every snapshot, as the row does).

use super::layout::TableLayout;
use super::version::trx_id_of;
use super::Table;
use crate::error::{EngineError, Result};
use crate::record::value::Value;

/// Flag of an entry: a key part is NULL (never a duplicate).
pub const ENTRY_HAS_NULL: u8 = 1;

impl Table {
    /// Calls `sink(k, flags, key, value)` with the entry of every row in
    /// secondary index `positions[k]` of `layout` (a layout of this table
    /// with the same columns and primary key), in clustered key order.
    /// `interrupted` is polled between rows (true ends the walk with
    /// [`EngineError::QueryInterrupted`]). Returns the rows walked.
    pub fn new_index_entries(
        &self,
        layout: &TableLayout,
        positions: &[usize],
        interrupted: &dyn Fn() -> bool,
        sink: &mut dyn FnMut(u16, u8, &[u8], &[u8]) -> Result<()>,
    ) -> Result<u64> {
        if layout.def.columns != self.layout.def.columns
            || layout.def.primary_key != self.layout.def.primary_key
        {
            return Err(EngineError::Internal(
                "index build: the new layout changes the table's columns or primary key".into(),
            ));
        }
        let ncols = layout.def.columns.len();
        // Only the columns the new entries hold are decoded.
        let mut want = vec![false; ncols];
        for &s in positions {
            let l = &layout.secondary[s];
            for &c in l.key_columns.iter().chain(&l.carried) {
                want[c] = true;
            }
        }
        let mut slots: Vec<Option<Value>> = vec![None; ncols];
        let mut row: Vec<Value> = vec![Value::Null; ncols];
        let mut key = Vec::new();
        let mut rows = 0u64;
        let pool = self.storage.pool();
        let mut cursor = self.clustered.range(
            pool,
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        );
        while let Some(e) = cursor.next_ref()? {
            if e.is_deleted() {
                continue;
            }
            if rows % 256 == 0 && interrupted() {
                return Err(EngineError::QueryInterrupted);
            }
            rows += 1;
            self.decode_row_into(e.key, e.value, Some(&want), &mut slots)?;
            for (v, s) in row.iter_mut().zip(slots.iter_mut()) {
                *v = s.take().unwrap_or(Value::Null);
            }
            let writer = trx_id_of(e.value);
            for (k, &s) in positions.iter().enumerate() {
                let (prefix, has_null) = layout.secondary_prefix(s, &row)?;
                key.clear();
                key.extend_from_slice(&prefix);
                key.extend_from_slice(e.key);
                let value = layout.secondary_value_stamped(s, &row, writer, 0)?;
                let flags = if has_null { ENTRY_HAS_NULL } else { 0 };
                sink(k as u16, flags, &key, &value)?;
            }
        }
        Ok(rows)
    }
}

impl Table {
    /// MySQL's 1062 error for the entry `key` of secondary index `s` of
    /// `layout` (a unique index of a build that met a second entry with the
    /// same key parts): "Duplicate entry '<key values>' for key '<index>'",
    /// the values read from the row the entry points to.
    pub fn duplicate_in_new_index(
        &self,
        layout: &TableLayout,
        s: usize,
        key: &[u8],
    ) -> EngineError {
        let found = (|| -> Result<Vec<Value>> {
            let (_, clustered_key) = layout.split_secondary_key(s, key)?;
            let pool = self.storage.pool();
            let Some(f) = self.clustered.get(pool, clustered_key)? else {
                return Err(EngineError::Internal("index build: a row vanished".into()));
            };
            let mut slots: Vec<Option<Value>> = vec![None; layout.def.columns.len()];
            self.decode_row_into(clustered_key, &f.value, None, &mut slots)?;
            Ok(slots
                .into_iter()
                .map(|v| v.unwrap_or(Value::Null))
                .collect())
        })();
        match found {
            Ok(row) => {
                let l = &layout.secondary[s];
                self.duplicate(&l.key_columns, &row, &l.name)
            }
            Err(e) => e,
        }
    }
}
