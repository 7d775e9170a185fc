//! Row reads: point reads by [`RowRef`] and range scans over any index.
//!
//! Every read returns the row versions its [`ReadContext`] sees (`version`).
//! A scan of a secondary index is covering when every requested column can be
//! produced by the entry alone (`SecondaryLayout::covers`) and the entry's
//! transaction stamp is visible to the snapshot; otherwise the entry is
//! followed to its clustered row, whose visible version is returned only if it
//! has that secondary key (an update may have moved the row to another key).
//!
//! Range bounds are key prefixes in the index's own order: `lower` and `upper`
//! hold values for the leading key parts (a descending part's order is reversed,
//! as in the index).

use std::ops::Bound;

use super::layout::column_value;
use super::version::{created_of, trx_id_of};
use super::{ReadContext, RowRef, Table, TxnContext, CLUSTERED};
use crate::btree::Cursor;
use crate::error::{EngineError, Result};
use crate::lock::{KeyRef, LockKind, LockMode, LockOutcome, WaitPolicy};
use crate::record::key::{encode_key_prefix, prefix_end, KeyPart};
use crate::record::overflow;
use crate::record::row::{ColumnBytes, ExternRef, RowView};
use crate::record::value::Value;
use crate::txn::IsolationLevel;

/// A range of an index, as bounds on leading key values.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRange {
    pub lower: Bound<Vec<Value>>,
    pub upper: Bound<Vec<Value>>,
}

impl KeyRange {
    /// The whole index.
    pub fn all() -> Self {
        Self {
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        }
    }

    /// Every entry whose leading key values equal `values`.
    pub fn eq(values: Vec<Value>) -> Self {
        Self {
            lower: Bound::Included(values.clone()),
            upper: Bound::Included(values),
        }
    }

    /// Encodes the bounds as byte bounds of keys over `parts`.
    fn encode(&self, parts: &[KeyPart]) -> Result<EncodedRange> {
        let enc = |v: &Vec<Value>| -> Result<Vec<u8>> {
            let mut b = Vec::new();
            encode_key_prefix(parts, v, &mut b)?;
            Ok(b)
        };
        let mut empty = false;
        let lower = match &self.lower {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(v) => Bound::Included(enc(v)?),
            Bound::Excluded(v) => match prefix_end(&enc(v)?) {
                Some(end) => Bound::Included(end),
                None => {
                    empty = !v.is_empty();
                    Bound::Unbounded
                }
            },
        };
        let upper = match &self.upper {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(v) => match prefix_end(&enc(v)?) {
                Some(end) => Bound::Excluded(end),
                None => Bound::Unbounded,
            },
            Bound::Excluded(v) => Bound::Excluded(enc(v)?),
        };
        Ok(EncodedRange {
            lower,
            upper,
            empty,
        })
    }
}

/// Byte bounds of a [`KeyRange`]; `empty` when nothing can lie in it.
struct EncodedRange {
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    empty: bool,
}

/// Off-page values of a record: (stored column index, value bytes, chain).
pub(super) type OffPageValues = Vec<(usize, Vec<u8>, ExternRef)>;

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
    lock: Option<ScanLock<'t>>,
}

/// How a locking scan locks (see `gap`).
struct ScanLock<'t> {
    ctx: &'t TxnContext,
    mode: LockMode,
    policy: Option<WaitPolicy>,
    /// Lock the gaps (REPEATABLE READ, SERIALIZABLE).
    gaps: bool,
    /// A unique equality lookup: a found row is locked alone.
    point: bool,
    found: bool,
    /// The range's upper end in the index's byte order, for the gap beyond it.
    upper: Bound<Vec<u8>>,
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

impl RowCursor<'_> {
    /// True when the scan is answered from the secondary index alone.
    pub fn is_covering(&self) -> bool {
        self.covering
    }

    /// The next row: its address and the requested column values.
    pub fn next_row(&mut self) -> Result<Option<(RowRef, Vec<Value>)>> {
        if self.lock.is_some() {
            return self.next_locked_row();
        }
        let Some(cursor) = self.cursor.as_mut() else {
            return Ok(None);
        };
        let t = self.table;
        let view = self.read.view.as_ref();
        while let Some(e) = cursor.next_entry()? {
            if self.index == CLUSTERED {
                let deleted = e.is_deleted();
                let Some(value) = t.visible_version(view, &e.key, e.value, deleted)? else {
                    continue;
                };
                let row = t.decode_row(&e.key, &value, Some(&self.columns))?;
                return Ok(Some((RowRef(e.key), project(row, &self.columns))));
            }
            let s = self.index - 1;
            let (_, clustered_key) = t.layout.split_secondary_key(s, &e.key)?;
            let at = RowRef(clustered_key.to_vec());
            if !t.stamp_visible(view, created_of(&e.value)) {
                continue; // the entry was created after the snapshot
            }
            let settled = t.stamp_visible(view, trx_id_of(&e.value));
            if settled && e.is_deleted() {
                continue;
            }
            if settled && self.covering {
                let mut out = vec![None; t.layout.def.columns.len()];
                t.layout
                    .decode_secondary(s, &e.key, &e.value, &mut out, Some(&self.want))?;
                return Ok(Some((at, project(out, &self.columns))));
            }
            let Some(found) = t.clustered.get(t.storage.pool(), &at.0)? else {
                continue; // purged meanwhile
            };
            let Some(value) = t.visible_version(view, &at.0, found.value, found.deleted)? else {
                continue;
            };
            let full = t.decode_row(&at.0, &value, None)?;
            let full: Vec<Value> = full.into_iter().map(|v| v.unwrap_or(Value::Null)).collect();
            let (prefix, _) = t.layout.secondary_prefix(s, &full)?;
            if !e.key.starts_with(&prefix) || e.key.len() != prefix.len() + at.0.len() {
                continue; // this version of the row has another key
            }
            return Ok(Some((
                at,
                self.columns.iter().map(|&c| full[c].clone()).collect(),
            )));
        }
        self.cursor = None;
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

impl Table {
    /// Decodes a clustered entry into one slot per column; with `only`, just
    /// those columns (others stay `None`, and their off-page values are not read).
    pub(super) fn decode_row(
        &self,
        key: &[u8],
        value: &[u8],
        only: Option<&[usize]>,
    ) -> Result<Vec<Option<Value>>> {
        let l = &self.layout;
        let mut out = vec![None; l.def.columns.len()];
        l.decode_clustered_key(key, &mut out)?;
        let view = RowView::parse(&l.clustered.row, value)?;
        let pool = self.storage.pool();
        for (i, &col) in l.clustered.stored.iter().enumerate() {
            if only.is_some_and(|o| !o.contains(&col)) {
                continue;
            }
            let ext = match view.column(i) {
                Some(ColumnBytes::External(r)) => Some(overflow::read(pool, &r)?),
                _ => None,
            };
            out[col] = Some(column_value(&l.def.columns[col], &view, i, ext.as_deref())?);
        }
        Ok(out)
    }

    /// Decodes a whole clustered record, also returning its off-page values
    /// (stored column index, bytes, reference) for an update or delete.
    pub(super) fn decode_with_external(
        &self,
        key: &[u8],
        value: &[u8],
    ) -> Result<(Vec<Value>, OffPageValues)> {
        let l = &self.layout;
        let mut out = vec![None; l.def.columns.len()];
        l.decode_clustered_key(key, &mut out)?;
        let view = RowView::parse(&l.clustered.row, value)?;
        let pool = self.storage.pool();
        let mut external = Vec::new();
        for (i, &col) in l.clustered.stored.iter().enumerate() {
            let ext = match view.column(i) {
                Some(ColumnBytes::External(r)) => {
                    let bytes = overflow::read(pool, &r)?;
                    external.push((i, bytes, r));
                    external.last().map(|(_, b, _)| b.as_slice())
                }
                _ => None,
            };
            out[col] = Some(column_value(&l.def.columns[col], &view, i, ext)?);
        }
        let row = out
            .into_iter()
            .enumerate()
            .map(|(c, v)| {
                v.ok_or_else(|| {
                    EngineError::Internal(format!(
                        "column {c} of table '{}' is neither in the key nor in the record",
                        l.def.name
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((row, external))
    }

    /// The row at `at`, all columns, or `None`.
    pub fn get(&self, read: &ReadContext, at: &RowRef) -> Result<Option<Vec<Value>>> {
        let Some(found) = self.clustered.get(self.storage.pool(), &at.0)? else {
            return Ok(None);
        };
        let Some(value) =
            self.visible_version(read.view.as_ref(), &at.0, found.value, found.deleted)?
        else {
            return Ok(None);
        };
        let row = self.decode_row(&at.0, &value, None)?;
        Ok(Some(
            row.into_iter().map(|v| v.unwrap_or(Value::Null)).collect(),
        ))
    }

    /// A locking scan (`SELECT ... FOR UPDATE` / `FOR SHARE`, the current read
    /// of UPDATE and DELETE): like [`scan`](Self::scan), but every row is
    /// locked in `mode` as it is read (with next-key and gap locks at
    /// REPEATABLE READ and SERIALIZABLE, see `gap`) and returned in its newest
    /// version. Rows SKIP LOCKED passes over are not returned.
    #[allow(clippy::too_many_arguments)]
    pub fn scan_locking<'t>(
        &'t self,
        ctx: &'t TxnContext,
        index: usize,
        range: &KeyRange,
        reverse: bool,
        columns: Option<&[usize]>,
        mode: LockMode,
        policy: Option<WaitPolicy>,
    ) -> Result<RowCursor<'t>> {
        let mut c = self.scan(&ReadContext::NEWEST, index, range, reverse, columns)?;
        let l = &self.layout;
        let (parts, unique) = if index == CLUSTERED {
            (&l.clustered.parts, !l.clustered.hidden_row_id)
        } else {
            let sl = &l.secondary[index - 1];
            (&sl.parts, sl.unique)
        };
        let point = unique
            && match (&range.lower, &range.upper) {
                (Bound::Included(a), Bound::Included(b)) => {
                    a == b && a.len() == parts.len() && !a.iter().any(Value::is_null)
                }
                _ => false,
            };
        let gaps = !matches!(
            ctx.isolation(),
            IsolationLevel::ReadCommitted | IsolationLevel::ReadUncommitted
        );
        let upper = if parts.is_empty() {
            Bound::Unbounded
        } else {
            range.encode(parts)?.upper
        };
        c.lock = Some(ScanLock {
            ctx,
            mode,
            policy,
            gaps,
            point,
            found: false,
            upper,
        });
        Ok(c)
    }

    /// Estimated number of entries of index `index` ([`CLUSTERED`] or 1 +
    /// secondary number) in `range`, from a few page reads
    /// (`BTree::estimate_range`); delete-marked entries count.
    pub fn estimate_rows(&self, index: usize, range: &KeyRange) -> Result<u64> {
        let l = &self.layout;
        let (tree, parts) = if index == CLUSTERED {
            (&self.clustered, &l.clustered.parts)
        } else {
            match (self.secondary.get(index - 1), l.secondary.get(index - 1)) {
                (Some(t), Some(sl)) => (t, &sl.parts),
                _ => {
                    return Err(EngineError::Internal(format!(
                        "table '{}' has no index number {index}",
                        l.def.name
                    )))
                }
            }
        };
        let all = range.lower == Bound::Unbounded && range.upper == Bound::Unbounded;
        if parts.is_empty() && !all {
            return Err(EngineError::Internal(format!(
                "table '{}' has no primary key to bound a range by",
                l.def.name
            )));
        }
        let r = if all {
            EncodedRange {
                lower: Bound::Unbounded,
                upper: Bound::Unbounded,
                empty: false,
            }
        } else {
            range.encode(parts)?
        };
        if r.empty {
            return Ok(0);
        }
        let pool = self.storage.pool();
        tree.estimate_range(pool, as_slice(&r.lower), as_slice(&r.upper))
    }

    /// Scans index `index` ([`CLUSTERED`] or 1 + secondary number) over
    /// `range`, returning `columns` (all columns when `None`).
    pub fn scan(
        &self,
        read: &ReadContext,
        index: usize,
        range: &KeyRange,
        reverse: bool,
        columns: Option<&[usize]>,
    ) -> Result<RowCursor<'_>> {
        let l = &self.layout;
        let ncols = l.def.columns.len();
        let columns: Vec<usize> = match columns {
            Some(c) => {
                if let Some(&bad) = c.iter().find(|&&c| c >= ncols) {
                    return Err(EngineError::Internal(format!(
                        "column {bad} does not exist in table '{}'",
                        l.def.name
                    )));
                }
                c.to_vec()
            }
            None => (0..ncols).collect(),
        };
        let (tree, parts, covering) = if index == CLUSTERED {
            (&self.clustered, &l.clustered.parts, false)
        } else {
            let s = index - 1;
            let Some(sl) = l.secondary.get(s) else {
                return Err(EngineError::Internal(format!(
                    "table '{}' has no index number {index}",
                    l.def.name
                )));
            };
            let covering = columns.iter().all(|&c| sl.covers[c]);
            (&self.secondary[s], &sl.parts, covering)
        };
        if parts.is_empty() && (range.lower != Bound::Unbounded || range.upper != Bound::Unbounded)
        {
            return Err(EngineError::Internal(format!(
                "table '{}' has no primary key to bound a scan by",
                l.def.name
            )));
        }
        let r = range.encode(parts)?;
        let cursor = (!r.empty).then(|| tree.range(self.storage.pool(), r.lower, r.upper, reverse));
        Ok(RowCursor {
            table: self,
            index,
            cursor,
            want: {
                let mut w = vec![false; ncols];
                for &c in &columns {
                    w[c] = true;
                }
                w
            },
            columns,
            covering,
            read: *read,
            lock: None,
        })
    }
}

fn as_slice(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v),
        Bound::Excluded(v) => Bound::Excluded(v),
    }
}
