//! How a table's rows map onto B+tree entries: which columns form each index
//! key, which live in the clustered record, which a secondary entry carries.
//!
//! Clustered index (one entry per row):
//! - key: the memcomparable encoding of the primary key (`record::key`), or the
//!   6-byte big-endian hidden row id when the table has no primary key;
//! - value: a compact clustered record (`record::row`) holding every column that
//!   cannot be recovered from the key: the non-key columns and the key columns
//!   whose key part is not reversible (`_ci` strings, PAD SPACE `_bin` strings,
//!   prefix parts). Reversible key columns are decoded from the key, so the
//!   sysbench table stores `id` once.
//!
//! Secondary index (one entry per row):
//! - key: the secondary key parts followed by the clustered key (so entries are
//!   unique and every entry names its row);
//! - value: a secondary record: the 6-byte transaction stamp (the last
//!   transaction that wrote, marked or un-marked the entry), then the *carried*
//!   columns, the full values of non-reversible, non-prefix key columns (of the
//!   secondary and of the primary key), so that a covering read returns stored
//!   values (original case, trailing spaces) without a clustered lookup; then
//!   the 6-byte *creation stamp* ([`SECONDARY_CREATED_LEN`]): the transaction
//!   that inserted the entry (0 when unknown), kept by every later rewrite, so
//!   that a snapshot older than the entry skips it without a clustered lookup.
//!
//! [`SecondaryLayout::covers`] says which table columns a secondary entry alone
//! can produce.

use crate::error::{EngineError, Result};
use crate::page::PageSize;
use crate::record::key::{
    decode_part, encode_key, key_len_upper_bound, part_len, split_key_prefix, KeyPart,
};
use crate::record::row::{
    check_worst_case, ColumnBytes, ColumnLayout, HiddenFields, RowKind, RowLayout, RowView,
    ROW_ID_LEN,
};
use crate::record::value::{decode_value, encode_value, Value};

use super::schema::{ColumnDef, IndexDef, TableDef};

/// Bytes of the creation stamp at the end of a secondary entry value.
pub const SECONDARY_CREATED_LEN: usize = 6;

/// The clustered index of a table.
#[derive(Debug, Clone)]
pub struct ClusteredLayout {
    /// Primary key parts (empty with a hidden row id).
    pub parts: Vec<KeyPart>,
    /// Table column of each key part.
    pub key_columns: Vec<usize>,
    /// Key parts whose column value is decoded from the key.
    pub from_key: Vec<bool>,
    /// Table columns stored in the record, in storage order.
    pub stored: Vec<usize>,
    /// The record layout of `stored`.
    pub row: RowLayout,
    pub hidden_row_id: bool,
}

/// One secondary index.
#[derive(Debug, Clone)]
pub struct SecondaryLayout {
    pub name: String,
    pub unique: bool,
    pub parts: Vec<KeyPart>,
    /// Table column of each key part.
    pub key_columns: Vec<usize>,
    /// Table columns carried in the entry value, in storage order.
    pub carried: Vec<usize>,
    /// The entry value layout of `carried`.
    pub value: RowLayout,
    /// Per table column: can an entry alone produce its value?
    pub covers: Vec<bool>,
}

/// Every index layout of a table, derived from its definition.
#[derive(Debug, Clone)]
pub struct TableLayout {
    pub def: TableDef,
    pub page_size: PageSize,
    pub clustered: ClusteredLayout,
    pub secondary: Vec<SecondaryLayout>,
}

/// The record layout of one column.
pub fn column_layout(c: &ColumnDef, may_be_external: bool) -> ColumnLayout {
    let mut l = match c.ty.fixed_len() {
        Some(n) => ColumnLayout::fixed(n as u32),
        None => {
            let max = u32::try_from(c.ty.max_storage_bytes()).unwrap_or(u32::MAX);
            if may_be_external {
                ColumnLayout::long(max)
            } else {
                ColumnLayout::variable(max)
            }
        }
    };
    l.nullable = c.nullable;
    l
}

fn corrupt_entry(what: String) -> EngineError {
    EngineError::Internal(format!("index entry does not match its table: {what}"))
}

impl TableLayout {
    /// Validates `def` for `page_size` and derives its layouts. Fails like
    /// MySQL's `CREATE TABLE` (1060, 1061, 1069-1072, 1089, 1170, 1171, 1071 key
    /// too long, 1118 row size too large).
    pub fn new(def: TableDef, page_size: PageSize) -> Result<Self> {
        def.validate(page_size)?;
        let clustered = Self::clustered_layout(&def);
        let key_bound = if clustered.hidden_row_id {
            ROW_ID_LEN
        } else {
            key_len_upper_bound(&clustered.parts)
        };
        check_worst_case(&clustered.row, key_bound, page_size)?;
        let secondary = def
            .secondary
            .iter()
            .map(|idx| Self::secondary_layout(&def, &clustered, idx))
            .collect();
        Ok(Self {
            def,
            page_size,
            clustered,
            secondary,
        })
    }

    fn clustered_layout(def: &TableDef) -> ClusteredLayout {
        let (parts, key_columns) = match &def.primary_key {
            Some(pk) => (
                def.key_parts(pk),
                pk.columns.iter().map(|c| c.column).collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let from_key: Vec<bool> = parts.iter().map(KeyPart::is_reversible).collect();
        let stored: Vec<usize> = (0..def.columns.len())
            .filter(|c| {
                !key_columns
                    .iter()
                    .zip(&from_key)
                    .any(|(k, &rev)| k == c && rev)
            })
            .collect();
        let row = RowLayout::new(
            stored
                .iter()
                .map(|&c| column_layout(&def.columns[c], true))
                .collect(),
            RowKind::Clustered {
                hidden_row_id: def.primary_key.is_none(),
            },
        );
        ClusteredLayout {
            parts,
            key_columns,
            from_key,
            stored,
            row,
            hidden_row_id: def.primary_key.is_none(),
        }
    }

    fn secondary_layout(
        def: &TableDef,
        clustered: &ClusteredLayout,
        idx: &IndexDef,
    ) -> SecondaryLayout {
        let parts = def.key_parts(idx);
        let key_columns: Vec<usize> = idx.columns.iter().map(|c| c.column).collect();
        let mut covers = vec![false; def.columns.len()];
        let mut carried = Vec::new();
        let all = parts
            .iter()
            .zip(&key_columns)
            .chain(clustered.parts.iter().zip(&clustered.key_columns));
        for (part, &col) in all {
            if part.is_reversible() {
                covers[col] = true;
            } else if part.prefix_len.is_none() && !carried.contains(&col) {
                carried.push(col);
            }
        }
        carried.retain(|&c| !covers[c]);
        for &c in &carried {
            covers[c] = true;
        }
        let value = RowLayout::new(
            carried
                .iter()
                .map(|&c| column_layout(&def.columns[c], false))
                .collect(),
            RowKind::Secondary,
        );
        SecondaryLayout {
            name: idx.name.clone(),
            unique: idx.unique,
            parts,
            key_columns,
            carried,
            value,
            covers,
        }
    }

    /// Checks that `row` has one value per column.
    pub fn check_arity(&self, row: &[Value]) -> Result<()> {
        if row.len() != self.def.columns.len() {
            return Err(crate::record::row::RowError::ColumnCount {
                expected: self.def.columns.len(),
                got: row.len(),
            }
            .into());
        }
        Ok(())
    }

    /// The clustered key of `row` (`row_id` for tables without a primary key).
    pub fn clustered_key(&self, row: &[Value], row_id: u64) -> Result<Vec<u8>> {
        let c = &self.clustered;
        if c.hidden_row_id {
            return Ok(row_id.to_be_bytes()[8 - ROW_ID_LEN..].to_vec());
        }
        let values: Vec<Value> = c.key_columns.iter().map(|&k| row[k].clone()).collect();
        let mut key = Vec::new();
        encode_key(&c.parts, &values, &mut key)?;
        Ok(key)
    }

    /// The encoded secondary key parts of `row` for index `s` (without the
    /// clustered key), and whether any part is NULL (no uniqueness then).
    pub fn secondary_prefix(&self, s: usize, row: &[Value]) -> Result<(Vec<u8>, bool)> {
        let l = &self.secondary[s];
        let values: Vec<Value> = l.key_columns.iter().map(|&k| row[k].clone()).collect();
        let has_null = values.iter().any(Value::is_null);
        let mut key = Vec::new();
        encode_key(&l.parts, &values, &mut key)?;
        Ok((key, has_null))
    }

    /// The value of secondary index `s` for `row`, stamped with `trx_id` (as
    /// writer and as creator).
    pub fn secondary_value(&self, s: usize, row: &[Value], trx_id: u64) -> Result<Vec<u8>> {
        self.secondary_value_stamped(s, row, trx_id, trx_id)
    }

    /// The value of secondary index `s` for `row`, with writer stamp
    /// `writer` and creation stamp `created` (an index build's entries are
    /// created for every snapshot, written by their row's last writer).
    pub fn secondary_value_stamped(
        &self,
        s: usize,
        row: &[Value],
        writer: u64,
        created: u64,
    ) -> Result<Vec<u8>> {
        let l = &self.secondary[s];
        let trx_id = writer;
        let bytes = encode_columns(&self.def, &l.carried, row)?;
        let cols: Vec<Option<ColumnBytes<'_>>> = bytes
            .iter()
            .map(|b| b.as_deref().map(ColumnBytes::Inline))
            .collect();
        let hidden = HiddenFields {
            trx_id,
            ..HiddenFields::default()
        };
        let mut out = Vec::new();
        crate::record::row::encode_row(&l.value, &hidden, &cols, &mut out)?;
        out.extend_from_slice(&(created & crate::record::row::MAX_48).to_be_bytes()[2..]);
        Ok(out)
    }

    /// Splits a secondary entry key into its secondary part and the clustered key.
    pub fn split_secondary_key<'k>(&self, s: usize, key: &'k [u8]) -> Result<(&'k [u8], &'k [u8])> {
        let ranges = split_key_prefix(&self.secondary[s].parts, key)?;
        let end = ranges.last().map_or(0, |r| r.end);
        Ok(key.split_at(end))
    }

    /// Decodes the columns a secondary entry covers into `out` (one slot per
    /// table column; uncovered columns are left as they are). With `want`
    /// (one flag per table column), only the wanted columns are decoded.
    pub fn decode_secondary(
        &self,
        s: usize,
        key: &[u8],
        value: &[u8],
        out: &mut [Option<Value>],
        want: Option<&[bool]>,
    ) -> Result<()> {
        let l = &self.secondary[s];
        let wanted = |c: &usize| want.is_none_or(|w| w.get(*c).copied().unwrap_or(false));
        let (sec, clustered_key) = self.split_secondary_key(s, key)?;
        decode_key_columns(&l.parts, &l.key_columns, sec, out, want)?;
        if self.clustered.key_columns.iter().any(wanted) {
            self.decode_clustered_key(clustered_key, out)?;
        }
        if !l.carried.iter().any(wanted) {
            return Ok(());
        }
        let Some(record) = value
            .len()
            .checked_sub(SECONDARY_CREATED_LEN)
            .map(|n| &value[..n])
        else {
            return Err(corrupt_entry(format!(
                "secondary value of {} bytes",
                value.len()
            )));
        };
        let view = RowView::parse(&l.value, record)?;
        for (i, &c) in l.carried.iter().enumerate() {
            out[c] = Some(column_value(&self.def.columns[c], &view, i, None)?);
        }
        Ok(())
    }

    /// Decodes the reversible primary key columns of a clustered key into `out`.
    pub fn decode_clustered_key(&self, key: &[u8], out: &mut [Option<Value>]) -> Result<()> {
        self.decode_clustered_key_wanted(key, out, None)
    }

    /// [`decode_clustered_key`](Self::decode_clustered_key) of the wanted
    /// columns only (`want`: one flag per table column; `None`: all).
    pub fn decode_clustered_key_wanted(
        &self,
        key: &[u8],
        out: &mut [Option<Value>],
        want: Option<&[bool]>,
    ) -> Result<()> {
        let c = &self.clustered;
        if c.hidden_row_id {
            if key.len() != ROW_ID_LEN {
                return Err(corrupt_entry(format!("row id of {} bytes", key.len())));
            }
            return Ok(());
        }
        decode_key_columns(&c.parts, &c.key_columns, key, out, want)
    }
}

/// Decodes each reversible part of `key` into its column's slot (with
/// `want`, only the wanted columns). Allocates nothing but the values
/// (the hot path of every clustered scan).
fn decode_key_columns(
    parts: &[KeyPart],
    columns: &[usize],
    key: &[u8],
    out: &mut [Option<Value>],
    want: Option<&[bool]>,
) -> Result<()> {
    let mut pos = 0;
    let mut flipped = Vec::new();
    for (part, &col) in parts.iter().zip(columns) {
        let n = part_len(part, &key[pos..])?;
        let enc = &key[pos..pos + n];
        pos += n;
        if !part.is_reversible() || want.is_some_and(|w| !w.get(col).copied().unwrap_or(false)) {
            continue;
        }
        out[col] = Some(if part.descending {
            flipped.clear();
            flipped.extend(enc.iter().map(|b| !b));
            decode_part(part, &flipped)?
        } else {
            decode_part(part, enc)?
        });
    }
    if pos != key.len() {
        return Err(corrupt_entry(format!(
            "key of {} bytes has extra bytes",
            key.len()
        )));
    }
    Ok(())
}

/// Row-encodes the values of `columns` (`None` for NULL).
pub fn encode_columns(
    def: &TableDef,
    columns: &[usize],
    row: &[Value],
) -> Result<Vec<Option<Vec<u8>>>> {
    columns
        .iter()
        .map(|&c| {
            let v = &row[c];
            if v.is_null() {
                return Ok(None);
            }
            let mut b = Vec::new();
            encode_value(&def.columns[c].ty, v, &mut b)?;
            Ok(Some(b))
        })
        .collect()
}

/// The value of stored column `i` of a parsed record (`external` supplies the
/// bytes of an off-page column).
pub fn column_value(
    col: &ColumnDef,
    view: &RowView<'_>,
    i: usize,
    external: Option<&[u8]>,
) -> Result<Value> {
    match view.column(i) {
        None => Ok(Value::Null),
        Some(ColumnBytes::Inline(b)) => Ok(decode_value(&col.ty, b)?),
        Some(ColumnBytes::External(_)) => match external {
            Some(b) => Ok(decode_value(&col.ty, b)?),
            None => Err(corrupt_entry(format!(
                "off-page column '{}' without its value",
                col.name
            ))),
        },
    }
}
