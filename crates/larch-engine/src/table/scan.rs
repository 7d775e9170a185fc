//! [`RowCursor`]: the rows of an index range, one at a time, as a read view
//! (or a locking read) sees them.
//!
//! [`RowCursor::next_into`] is the scan's hot path: the B+tree cursor lends
//! each entry from its copy of the leaf (`btree::Cursor::next_ref`), a
//! clustered record whose newest version the view sees is decoded in place
//! (no copy of the record), only the requested columns are decoded, into a
//! slot buffer the cursor reuses, and the values are moved into the caller's
//! row. So a row costs no allocation beyond the values themselves (a string
//! column's text). [`RowCursor::next_row`] returns owned rows for callers
//! that keep them.
//!
//! MVCC, per entry: a clustered record whose writer the view does not see is
//! rebuilt from undo (`Table::visible_version`); a delete-marked record the
//! view sees is skipped. A secondary entry created after the snapshot is
//! skipped; one whose stamp the view sees answers alone when the scan is
//! covering (and is skipped if delete-marked); any other is followed to its
//! clustered row, whose visible version counts only if it still has the
//! entry's key. Locking scans lock each entry and read its newest version.

use std::ops::Bound;

use super::version::{created_of, trx_id_of};
use super::{ReadContext, RowRef, Table, TxnContext, CLUSTERED};
use crate::btree::Cursor;
use crate::error::Result;
use crate::lock::{KeyRef, LockKind, LockMode, LockOutcome, WaitPolicy};
use crate::record::value::Value;

/// A scan's cursor: rows in index order (or reverse), holding no latch between
/// calls.
pub struct RowCursor<'t> {
    table: &'t Table,
    index: usize,
    cursor: Option<Cursor<'t>>,
    /// Columns returned, in this order.
    columns: Vec<usize>,
    covering: bool,
    /// Per table column: is it in `columns`?
    want: Vec<bool>,
    read: ReadContext,
    /// Set for locking reads: rows are locked as they are read, and read in
    /// their newest version.
    pub(super) lock: Option<ScanLock<'t>>,
    /// The address of the row last returned by `next_into`.
    key: Vec<u8>,
    /// One slot per table column, reused for every row's decoding; the
    /// wanted slots are moved out (left `None`) as each row is returned.
    slots: Vec<Option<Value>>,
}

/// How a locking scan locks (see `gap`).
pub(super) struct ScanLock<'t> {
    pub ctx: &'t TxnContext,
    pub mode: LockMode,
    pub policy: Option<WaitPolicy>,
    /// Lock the gaps (REPEATABLE READ, SERIALIZABLE).
    pub gaps: bool,
    /// A unique equality lookup: a found row is locked alone.
    pub point: bool,
    pub found: bool,
    /// The range's upper end in the index's byte order, for the gap beyond it.
    pub upper: Bound<Vec<u8>>,
}

impl std::fmt::Debug for RowCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowCursor")
            .field("index", &self.index)
            .field("columns", &self.columns)
            .field("covering", &self.covering)
            .finish()
    }
}

/// Moves the wanted values out of the decoding slots into `row`.
fn move_wanted(slots: &mut [Option<Value>], columns: &[usize], row: &mut [Value]) {
    for &c in columns {
        row[c] = slots[c].take().unwrap_or(Value::Null);
    }
}

impl<'t> RowCursor<'t> {
    /// A cursor over `cursor`'s entries of index `index` returning `columns`
    /// (valid column numbers of `table`); `covering` when a secondary
    /// index's entries give every one of them.
    pub(super) fn new(
        table: &'t Table,
        index: usize,
        cursor: Option<Cursor<'t>>,
        columns: Vec<usize>,
        covering: bool,
        read: ReadContext,
    ) -> Self {
        let ncols = table.layout.def.columns.len();
        let mut want = vec![false; ncols];
        for &c in &columns {
            want[c] = true;
        }
        Self {
            table,
            index,
            cursor,
            columns,
            covering,
            want,
            read,
            lock: None,
            key: Vec::new(),
            slots: vec![None; ncols],
        }
    }

    /// True when the scan is answered from the secondary index alone.
    pub fn is_covering(&self) -> bool {
        self.covering
    }

    /// The next row: its address and the requested column values, in the
    /// order they were requested.
    pub fn next_row(&mut self) -> Result<Option<(RowRef, Vec<Value>)>> {
        if self.lock.is_some() {
            return self.next_locked_row();
        }
        let mut row = vec![Value::Null; self.table.layout.def.columns.len()];
        let Some(at) = self.next_into(&mut row)? else {
            return Ok(None);
        };
        let at = RowRef(at.to_vec());
        Ok(Some((
            at,
            self.columns.iter().map(|&c| row[c].clone()).collect(),
        )))
    }

    /// The next row, written into `row` (one slot per table column: the
    /// requested columns are overwritten, the others left as they are);
    /// returns the row's address (its clustered key), valid until the next
    /// call, or `None` at the end.
    pub fn next_into(&mut self, row: &mut [Value]) -> Result<Option<&[u8]>> {
        if self.lock.is_some() {
            let Some((at, vals)) = self.next_locked_row()? else {
                return Ok(None);
            };
            for (&c, v) in self.columns.iter().zip(vals) {
                row[c] = v;
            }
            self.key = at.0;
            return Ok(Some(&self.key));
        }
        let Self {
            table: t,
            index,
            cursor: cursor_slot,
            columns,
            covering,
            want,
            read,
            key,
            slots,
            ..
        } = self;
        let t: &Table = t;
        let Some(cursor) = cursor_slot.as_mut() else {
            return Ok(None);
        };
        let view = read.view.as_ref();
        while let Some(e) = cursor.next_ref()? {
            if *index == CLUSTERED {
                let Some(value) = t.visible_version_ref(view, e.key, e.value, e.is_deleted())?
                else {
                    continue;
                };
                t.decode_row_into(e.key, &value, Some(want), slots)?;
                move_wanted(slots, columns, row);
                key.clear();
                key.extend_from_slice(e.key);
                return Ok(Some(key));
            }
            let s = *index - 1;
            if !t.stamp_visible(view, created_of(e.value)) {
                continue; // the entry was created after the snapshot
            }
            let settled = t.stamp_visible(view, trx_id_of(e.value));
            if settled && e.is_deleted() {
                continue;
            }
            let (_, clustered_key) = t.layout.split_secondary_key(s, e.key)?;
            if settled && *covering {
                t.layout
                    .decode_secondary(s, e.key, e.value, slots, Some(want))?;
                move_wanted(slots, columns, row);
                key.clear();
                key.extend_from_slice(clustered_key);
                return Ok(Some(key));
            }
            let Some(found) = t.clustered.get(t.storage.pool(), clustered_key)? else {
                continue; // purged meanwhile
            };
            let Some(value) = t.visible_version(view, clustered_key, found.value, found.deleted)?
            else {
                continue;
            };
            let full = t.decode_row(clustered_key, &value, None)?;
            let full: Vec<Value> = full.into_iter().map(|v| v.unwrap_or(Value::Null)).collect();
            let (prefix, _) = t.layout.secondary_prefix(s, &full)?;
            if !e.key.starts_with(&prefix) || e.key.len() != prefix.len() + clustered_key.len() {
                continue; // this version of the row has another key
            }
            for &c in columns.iter() {
                row[c] = full[c].clone();
            }
            key.clear();
            key.extend_from_slice(clustered_key);
            return Ok(Some(key));
        }
        *cursor_slot = None;
        Ok(None)
    }
}

impl RowCursor<'_> {
    /// [`next_row`](Self::next_row) of a locking scan.
    fn next_locked_row(&mut self) -> Result<Option<(RowRef, Vec<Value>)>> {
        let t = self.table;
        let pool = t.storage.pool();
        let (Some(cursor), Some(l)) = (self.cursor.as_mut(), self.lock.as_mut()) else {
            return Ok(None);
        };
        let index_id = t.index_lock_id(self.index);
        let tree = t.index_tree(self.index);
        let kind = if l.gaps && !l.point {
            LockKind::NextKey
        } else {
            LockKind::RecordOnly
        };
        while let Some(e) = cursor.next_entry()? {
            let outcome =
                l.ctx
                    .lock_entry(index_id, KeyRef::Key(&e.key), l.mode, kind, l.policy)?;
            if outcome == LockOutcome::Skipped {
                continue;
            }
            // The key exists (a unique lookup needs no gap lock beyond it).
            l.found = true;
            // The newest state, now that no one else can change it.
            let Some(f) = tree.get(pool, &e.key)?.filter(|f| !f.deleted) else {
                continue;
            };
            if self.index == CLUSTERED {
                let row = t.decode_row(&e.key, &f.value, Some(&self.columns))?;
                return Ok(Some((RowRef(e.key), project(row, &self.columns))));
            }
            let s = self.index - 1;
            let (_, clustered_key) = t.layout.split_secondary_key(s, &e.key)?;
            let at = RowRef(clustered_key.to_vec());
            let outcome = l.ctx.lock_record(t.lock_index(), &at.0, l.mode, l.policy)?;
            if outcome == LockOutcome::Skipped {
                continue;
            }
            let Some(found) = t.clustered.get(pool, &at.0)?.filter(|f| !f.deleted) else {
                continue;
            };
            let full = t.decode_row(&at.0, &found.value, None)?;
            let full: Vec<Value> = full.into_iter().map(|v| v.unwrap_or(Value::Null)).collect();
            let (prefix, _) = t.layout.secondary_prefix(s, &full)?;
            if !e.key.starts_with(&prefix) || e.key.len() != prefix.len() + at.0.len() {
                continue;
            }
            return Ok(Some((
                at,
                self.columns.iter().map(|&c| full[c].clone()).collect(),
            )));
        }
        self.cursor = None;
        if l.gaps && !(l.point && l.found) {
            // The gap after the range: no insert may land there either.
            let next = t.successor(
                self.index,
                match &l.upper {
                    Bound::Unbounded => return lock_supremum(l, index_id),
                    Bound::Included(u) => Bound::Excluded(u.clone()),
                    Bound::Excluded(u) => Bound::Included(u.clone()),
                },
            )?;
            let target = next.as_deref().map_or(KeyRef::Supremum, KeyRef::Key);
            let _granted =
                l.ctx
                    .lock_entry(index_id, target, l.mode, LockKind::GapOnly, l.policy)?;
        }
        Ok(None)
    }
}

fn lock_supremum(l: &ScanLock<'_>, index_id: u64) -> Result<Option<(RowRef, Vec<Value>)>> {
    let _granted = l.ctx.lock_entry(
        index_id,
        KeyRef::Supremum,
        l.mode,
        LockKind::GapOnly,
        l.policy,
    )?;
    Ok(None)
}

fn project(row: Vec<Option<Value>>, columns: &[usize]) -> Vec<Value> {
    columns
        .iter()
        .map(|&c| row[c].clone().unwrap_or(Value::Null))
        .collect()
}
