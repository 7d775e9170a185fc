//! Row reads: point reads by [`RowRef`] and range scans over any index
//! (opened here, read through `scan::RowCursor`).
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
use super::scan::{RowCursor, ScanLock};
use super::{ReadContext, RowRef, Table, TxnContext, CLUSTERED};
use crate::btree::BTree;
use crate::error::{EngineError, Result};
use crate::lock::{LockMode, WaitPolicy};
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

impl Table {
    /// Decodes a clustered entry into one slot per column; with `only`, just
    /// those columns (others stay `None`, and their off-page values are not read).
    pub(super) fn decode_row(
        &self,
        key: &[u8],
        value: &[u8],
        only: Option<&[usize]>,
    ) -> Result<Vec<Option<Value>>> {
        let ncols = self.layout.def.columns.len();
        let want = only.map(|o| {
            let mut w = vec![false; ncols];
            for &c in o {
                if let Some(f) = w.get_mut(c) {
                    *f = true;
                }
            }
            w
        });
        let mut out = vec![None; ncols];
        self.decode_row_into(key, value, want.as_deref(), &mut out)?;
        Ok(out)
    }

    /// Decodes the wanted columns of a clustered entry into `out` (one slot
    /// per column; `want`: one flag per column, `None`: all). Slots of
    /// columns not wanted are left as they are.
    pub(super) fn decode_row_into(
        &self,
        key: &[u8],
        value: &[u8],
        want: Option<&[bool]>,
        out: &mut [Option<Value>],
    ) -> Result<()> {
        let l = &self.layout;
        l.decode_clustered_key_wanted(key, out, want)?;
        let view = RowView::parse(&l.clustered.row, value)?;
        let pool = self.storage.pool();
        for (i, &col) in l.clustered.stored.iter().enumerate() {
            if want.is_some_and(|w| !w[col]) {
                continue;
            }
            let ext = match view.column(i) {
                Some(ColumnBytes::External(r)) => Some(overflow::read(pool, &r)?),
                _ => None,
            };
            out[col] = Some(column_value(&l.def.columns[col], &view, i, ext.as_deref())?);
        }
        Ok(())
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

    /// The B+tree and key parts of index `index` ([`CLUSTERED`] or 1 +
    /// secondary number).
    pub(super) fn index_with_parts(&self, index: usize) -> Result<(&BTree, &[KeyPart])> {
        let l = &self.layout;
        if index == CLUSTERED {
            return Ok((&self.clustered, &l.clustered.parts));
        }
        match (self.secondary.get(index - 1), l.secondary.get(index - 1)) {
            (Some(t), Some(sl)) => Ok((t, &sl.parts)),
            _ => Err(EngineError::Internal(format!(
                "table '{}' has no index number {index}",
                l.def.name
            ))),
        }
    }

    /// Estimated number of entries of index `index` ([`CLUSTERED`] or 1 +
    /// secondary number) in `range`, from a few page reads
    /// (`BTree::estimate_range`); delete-marked entries count.
    pub fn estimate_rows(&self, index: usize, range: &KeyRange) -> Result<u64> {
        let l = &self.layout;
        let (tree, parts) = self.index_with_parts(index)?;
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
        Ok(RowCursor::new(
            self, index, cursor, columns, covering, *read,
        ))
    }
}

fn as_slice(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v),
        Bound::Excluded(v) => Bound::Excluded(v),
    }
}
