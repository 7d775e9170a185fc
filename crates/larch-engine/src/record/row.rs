//! The compact row format: how a row's already-encoded column bytes, plus the
//! hidden transaction fields, become the value bytes of a B+tree entry.
//!
//! This module owns the byte layout of clustered-index records and of
//! secondary-index entry values (full tables in `docs/row-format.md`). It knows
//! nothing about SQL types: each column arrives as bytes produced by the value
//! encoder, described only by a [`ColumnLayout`] (nullable? fixed width? maximum
//! length? may it live off-page?). The B+tree stores the bytes; the delete mark
//! lives in the B+tree entry header, not here.
//!
//! Clustered record (all integers big-endian):
//! ```text
//! [trx_id 6][roll_ptr 7][row_id 6, only with a hidden row id]
//! [null bitmap: ceil(nullable columns / 8)]
//! [length header: per non-null variable-length column, in column order:
//!    1 byte if max_len <= 255, else 2 bytes: bit 15 = off-page, bits 0..14 = length]
//! [column data, in column order; NULL columns take no bytes;
//!    an off-page column stores a 20-byte ExternRef]
//! ```
//! A secondary entry value is `[trx stamp 6]` followed by the same bitmap,
//! length header and data for the columns it carries (possibly none).
//!
//! Invariants:
//! - a record is self-delimiting given its layout: [`RowView::parse`] accepts a
//!   byte string only if every length agrees and nothing is left over, unused
//!   null-bitmap bits are zero, and off-page columns are exactly 20 bytes;
//! - only variable-length columns with `max_len > 255` and `may_be_external`
//!   can be off-page (the flag lives in the 2-byte length), and only in
//!   clustered records;
//! - the hidden fields sit at fixed offsets ([`TRX_ID_OFFSET`],
//!   [`ROLL_PTR_OFFSET`], [`ROW_ID_OFFSET`], [`SECONDARY_STAMP_OFFSET`]) so the
//!   B+tree and MVCC code can rewrite them in place through a mini-transaction
//!   (`mtr.write_bytes(page, value_start + TRX_ID_OFFSET, &encode_trx_id(id)?)`);
//! - a record the size policy ([`max_record_bytes`]) accepted is at most
//!   32,652 bytes, so every inline length fits the 15-bit length field.
//!
//! Usage: `plan_external` decides which long columns go off-page, the caller
//! stores those with `record::overflow::store`, then [`encode_row`] builds the
//! bytes with [`ColumnBytes::External`] for them; readers [`RowView::parse`]
//! the bytes and fetch off-page values with `record::overflow::read`.

mod layout;
mod size;
#[cfg(test)]
mod tests;
mod view;

pub use layout::{ColumnLayout, RowKind, RowLayout};
pub use view::RowView;

pub use size::{
    check_worst_case, max_record_bytes, plan_external, plan_external_for_entry, record_len,
    EXTERN_MIN_LEN, MIN_RECORDS_PER_PAGE, PAGE_OVERHEAD, RECORD_OVERHEAD,
};

/// Bytes of the transaction id in a clustered record.
pub const TRX_ID_LEN: usize = 6;
/// Bytes of the roll pointer in a clustered record.
pub const ROLL_PTR_LEN: usize = 7;
/// Bytes of the hidden row id (tables without a primary key).
pub const ROW_ID_LEN: usize = 6;
/// Bytes of the transaction stamp at the start of a secondary entry value.
pub const SECONDARY_STAMP_LEN: usize = 6;

/// Offset of the transaction id in a clustered record.
pub const TRX_ID_OFFSET: usize = 0;
/// Offset of the roll pointer in a clustered record.
pub const ROLL_PTR_OFFSET: usize = TRX_ID_LEN;
/// Offset of the hidden row id in a clustered record that has one.
pub const ROW_ID_OFFSET: usize = TRX_ID_LEN + ROLL_PTR_LEN;
/// Offset of the transaction stamp in a secondary entry value.
pub const SECONDARY_STAMP_OFFSET: usize = 0;

/// Columns with `max_len` up to this use a 1-byte length; longer ones 2 bytes.
pub const SHORT_COLUMN_MAX: u32 = 255;
/// Largest inline column in a 2-byte length (15 bits).
pub const MAX_INLINE_LEN: usize = 0x7fff;
/// Off-page flag in a 2-byte length.
const EXTERN_FLAG: u16 = 0x8000;

/// Largest value of a 6-byte field.
pub const MAX_48: u64 = (1 << 48) - 1;
/// Largest value of the 7-byte roll pointer.
pub const MAX_56: u64 = (1 << 56) - 1;

/// The hidden fields of a record. `row_id` is used only by clustered layouts
/// with a hidden row id; secondary entries use `trx_id` as their stamp and
/// ignore the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HiddenFields {
    /// Id of the transaction that last changed the record (48 bits).
    pub trx_id: u64,
    /// Pointer to the undo record of the previous version (56 bits).
    pub roll_ptr: u64,
    /// Hidden row id (48 bits).
    pub row_id: u64,
}

/// Where an off-page value lives: the first page of its overflow chain and its
/// length (20 bytes in a record: space, first page, offset, length; big-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExternRef {
    /// Tablespace holding the chain.
    pub space: u32,
    /// First page of the chain.
    pub first_page: u32,
    /// Byte offset in the first page where the chain's data header starts
    /// (always `HEADER_SIZE` today; kept for InnoDB parity and future packing).
    pub offset: u32,
    /// Length of the whole value in bytes.
    pub len: u64,
}

impl ExternRef {
    /// Bytes of the encoded form.
    pub const ENCODED_LEN: usize = 20;

    /// Big-endian encoding stored in records.
    pub fn to_bytes(&self) -> [u8; 20] {
        let mut b = [0u8; 20];
        b[0..4].copy_from_slice(&self.space.to_be_bytes());
        b[4..8].copy_from_slice(&self.first_page.to_be_bytes());
        b[8..12].copy_from_slice(&self.offset.to_be_bytes());
        b[12..20].copy_from_slice(&self.len.to_be_bytes());
        b
    }

    /// Decodes [`ExternRef::to_bytes`].
    pub fn from_bytes(b: &[u8; 20]) -> Self {
        let mut u4 = [0u8; 4];
        let mut u8b = [0u8; 8];
        u4.copy_from_slice(&b[0..4]);
        let space = u32::from_be_bytes(u4);
        u4.copy_from_slice(&b[4..8]);
        let first_page = u32::from_be_bytes(u4);
        u4.copy_from_slice(&b[8..12]);
        let offset = u32::from_be_bytes(u4);
        u8b.copy_from_slice(&b[12..20]);
        Self {
            space,
            first_page,
            offset,
            len: u64::from_be_bytes(u8b),
        }
    }
}

/// One column's stored form: the value itself, or a pointer to it off-page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnBytes<'a> {
    Inline(&'a [u8]),
    External(ExternRef),
}

/// A column as read back from a record (same shape as [`ColumnBytes`]).
pub type ColumnRef<'a> = ColumnBytes<'a>;

impl<'a> ColumnBytes<'a> {
    /// The inline bytes, or `None` for an off-page column.
    pub fn inline(&self) -> Option<&'a [u8]> {
        match *self {
            ColumnBytes::Inline(b) => Some(b),
            ColumnBytes::External(_) => None,
        }
    }

    /// The off-page pointer, or `None` for an inline column.
    pub fn external(&self) -> Option<ExternRef> {
        match *self {
            ColumnBytes::Inline(_) => None,
            ColumnBytes::External(r) => Some(r),
        }
    }

    /// Length of the value (off-page: the whole value's length).
    pub fn value_len(&self) -> u64 {
        match self {
            ColumnBytes::Inline(b) => b.len() as u64,
            ColumnBytes::External(r) => r.len,
        }
    }
}

/// What can be wrong with a row. The SQL layer maps these with
/// [`RowError::mysql_code`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// The record cannot fit (MySQL error 1118).
    #[error("Row size too large. The maximum row size for the used table type, not counting BLOBs, is {max}. This includes storage overhead, check the manual. You have to change some columns to TEXT or BLOBs")]
    RowTooLarge { max: usize },
    /// The caller passed a different number of columns than the layout has.
    #[error("row has {got} columns but its layout has {expected}")]
    ColumnCount { expected: usize, got: usize },
    /// NULL given for a NOT NULL column.
    #[error("column {column} cannot be null")]
    NullNotAllowed { column: usize },
    /// A fixed-width column got another number of bytes.
    #[error("column {column} is fixed-length {expected} bytes, got {got}")]
    WrongLength {
        column: usize,
        expected: u32,
        got: usize,
    },
    /// A value is longer than the column's maximum.
    #[error("column {column}: {len} bytes exceed its maximum of {max}")]
    ColumnTooLong { column: usize, len: u64, max: u32 },
    /// An off-page pointer for a column that cannot be stored off-page.
    #[error("column {column} cannot be stored off-page")]
    ExternalNotAllowed { column: usize },
    /// An inline value too long for the length header (plan it off-page).
    #[error("column {column}: {len} bytes cannot be stored inline (at most {MAX_INLINE_LEN})")]
    InlineTooLong { column: usize, len: usize },
    /// A hidden field value does not fit its width.
    #[error("hidden field {field} value {value} does not fit in {bytes} bytes")]
    HiddenFieldOverflow {
        field: &'static str,
        value: u64,
        bytes: usize,
    },
    /// Stored bytes do not form a record of the layout (corruption, or the
    /// wrong layout).
    #[error("malformed record: {0}")]
    Malformed(String),
    /// The layout itself cannot be represented.
    #[error("invalid row layout: {0}")]
    InvalidLayout(String),
}

impl RowError {
    /// MySQL error number and SQLSTATE.
    pub fn mysql_code(&self) -> (u16, &'static str) {
        match self {
            // ER_TOO_BIG_ROWSIZE
            RowError::RowTooLarge { .. } => (1118, "42000"),
            // ER_BAD_NULL_ERROR
            RowError::NullNotAllowed { .. } => (1048, "23000"),
            // ER_DATA_TOO_LONG
            RowError::ColumnTooLong { .. } => (1406, "22001"),
            // ER_GET_ERRNO ("Got error ... from storage engine")
            RowError::Malformed(_) => (1030, "HY000"),
            // ER_UNKNOWN_ERROR: caller bugs
            _ => (1105, "HY000"),
        }
    }

    /// True when the error means stored bytes cannot be trusted.
    pub fn is_corruption(&self) -> bool {
        matches!(self, RowError::Malformed(_))
    }
}

fn put_be(out: &mut Vec<u8>, v: u64, bytes: usize) {
    out.extend_from_slice(&v.to_be_bytes()[8 - bytes..]);
}

fn get_be(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn be_array<const N: usize>(field: &'static str, v: u64, max: u64) -> Result<[u8; N], RowError> {
    if v > max {
        return Err(RowError::HiddenFieldOverflow {
            field,
            value: v,
            bytes: N,
        });
    }
    let mut a = [0u8; N];
    a.copy_from_slice(&v.to_be_bytes()[8 - N..]);
    Ok(a)
}

/// The 6 stored bytes of a transaction id (or secondary stamp).
pub fn encode_trx_id(trx_id: u64) -> Result<[u8; TRX_ID_LEN], RowError> {
    be_array("trx_id", trx_id, MAX_48)
}

/// The 7 stored bytes of a roll pointer.
pub fn encode_roll_ptr(roll_ptr: u64) -> Result<[u8; ROLL_PTR_LEN], RowError> {
    be_array("roll_ptr", roll_ptr, MAX_56)
}

/// The 6 stored bytes of a hidden row id.
pub fn encode_row_id(row_id: u64) -> Result<[u8; ROW_ID_LEN], RowError> {
    be_array("row_id", row_id, MAX_48)
}

/// Offset of the transaction id in a clustered record.
pub const fn trx_id_offset() -> usize {
    TRX_ID_OFFSET
}
/// Offset of the roll pointer in a clustered record.
pub const fn roll_ptr_offset() -> usize {
    ROLL_PTR_OFFSET
}
/// Offset of the hidden row id (clustered layouts with `hidden_row_id`).
pub const fn row_id_offset() -> usize {
    ROW_ID_OFFSET
}

fn field_mut<'b>(
    record: &'b mut [u8],
    off: usize,
    len: usize,
    what: &str,
) -> Result<&'b mut [u8], RowError> {
    let n = record.len();
    record.get_mut(off..off + len).ok_or_else(|| {
        RowError::Malformed(format!(
            "{n}-byte record has no {what} at [{off}, {})",
            off + len
        ))
    })
}

/// Rewrites the transaction id of a clustered record in memory.
pub fn set_trx_id(record: &mut [u8], trx_id: u64) -> Result<(), RowError> {
    let b = encode_trx_id(trx_id)?;
    field_mut(record, TRX_ID_OFFSET, TRX_ID_LEN, "trx_id")?.copy_from_slice(&b);
    Ok(())
}

/// Rewrites the roll pointer of a clustered record in memory.
pub fn set_roll_ptr(record: &mut [u8], roll_ptr: u64) -> Result<(), RowError> {
    let b = encode_roll_ptr(roll_ptr)?;
    field_mut(record, ROLL_PTR_OFFSET, ROLL_PTR_LEN, "roll_ptr")?.copy_from_slice(&b);
    Ok(())
}

/// Rewrites the hidden row id of a clustered record that has one.
pub fn set_row_id(record: &mut [u8], row_id: u64) -> Result<(), RowError> {
    let b = encode_row_id(row_id)?;
    field_mut(record, ROW_ID_OFFSET, ROW_ID_LEN, "row_id")?.copy_from_slice(&b);
    Ok(())
}

/// The transaction stamp of a secondary entry value (0 = visible to all).
pub fn secondary_stamp(entry_value: &[u8]) -> Result<u64, RowError> {
    entry_value
        .get(SECONDARY_STAMP_OFFSET..SECONDARY_STAMP_OFFSET + SECONDARY_STAMP_LEN)
        .map(get_be)
        .ok_or_else(|| {
            RowError::Malformed(format!(
                "secondary entry value of {} bytes has no 6-byte stamp",
                entry_value.len()
            ))
        })
}

/// Rewrites the transaction stamp of a secondary entry value in memory. For a
/// change on a page use `mtr.write_bytes(page, value_start +
/// SECONDARY_STAMP_OFFSET, &encode_trx_id(stamp)?)`.
pub fn set_secondary_stamp(entry_value: &mut [u8], stamp: u64) -> Result<(), RowError> {
    let b = encode_trx_id(stamp)?;
    field_mut(
        entry_value,
        SECONDARY_STAMP_OFFSET,
        SECONDARY_STAMP_LEN,
        "stamp",
    )?
    .copy_from_slice(&b);
    Ok(())
}

/// Validates one column value against its layout; returns the bytes it takes
/// in the data area.
fn check_column(
    kind: RowKind,
    i: usize,
    c: &ColumnLayout,
    v: &Option<ColumnBytes<'_>>,
) -> Result<usize, RowError> {
    match v {
        None if c.nullable => Ok(0),
        None => Err(RowError::NullNotAllowed { column: i }),
        Some(ColumnBytes::Inline(b)) => {
            match c.fixed_len {
                Some(n) if b.len() != n as usize => {
                    return Err(RowError::WrongLength {
                        column: i,
                        expected: n,
                        got: b.len(),
                    })
                }
                Some(_) => {}
                None if b.len() as u64 > u64::from(c.max_len) => {
                    return Err(RowError::ColumnTooLong {
                        column: i,
                        len: b.len() as u64,
                        max: c.max_len,
                    })
                }
                None if c.max_len > SHORT_COLUMN_MAX && b.len() > MAX_INLINE_LEN => {
                    return Err(RowError::InlineTooLong {
                        column: i,
                        len: b.len(),
                    })
                }
                None => {}
            }
            Ok(b.len())
        }
        Some(ColumnBytes::External(r)) => {
            if !c.can_be_external() || kind == RowKind::Secondary {
                return Err(RowError::ExternalNotAllowed { column: i });
            }
            if r.len > u64::from(c.max_len) {
                return Err(RowError::ColumnTooLong {
                    column: i,
                    len: r.len,
                    max: c.max_len,
                });
            }
            Ok(ExternRef::ENCODED_LEN)
        }
    }
}

/// Appends the record for `columns` (one entry per layout column, `None` =
/// NULL) to `out`. On error `out` is left as it was. Does not apply the page
/// size policy: call [`plan_external`] first and pass off-page columns as
/// [`ColumnBytes::External`].
pub fn encode_row(
    layout: &RowLayout,
    hidden: &HiddenFields,
    columns: &[Option<ColumnBytes<'_>>],
    out: &mut Vec<u8>,
) -> Result<(), RowError> {
    if columns.len() != layout.columns.len() {
        return Err(RowError::ColumnCount {
            expected: layout.columns.len(),
            got: columns.len(),
        });
    }
    let kind = layout.kind;
    let mut hidden_bytes = [0u8; TRX_ID_LEN + ROLL_PTR_LEN + ROW_ID_LEN];
    hidden_bytes[TRX_ID_OFFSET..TRX_ID_OFFSET + TRX_ID_LEN]
        .copy_from_slice(&encode_trx_id(hidden.trx_id)?);
    if let RowKind::Clustered { hidden_row_id } = kind {
        hidden_bytes[ROLL_PTR_OFFSET..ROLL_PTR_OFFSET + ROLL_PTR_LEN]
            .copy_from_slice(&encode_roll_ptr(hidden.roll_ptr)?);
        if hidden_row_id {
            hidden_bytes[ROW_ID_OFFSET..ROW_ID_OFFSET + ROW_ID_LEN]
                .copy_from_slice(&encode_row_id(hidden.row_id)?);
        }
    }
    let mut total = kind.hidden_len() + layout.null_bitmap_len();
    for (i, (c, v)) in layout.columns.iter().zip(columns).enumerate() {
        total += check_column(kind, i, c, v)?;
        if v.is_some() {
            total += c.length_header_len();
        }
    }
    let start = out.len();
    out.reserve(total);
    out.extend_from_slice(&hidden_bytes[..kind.hidden_len()]);
    // Null bitmap: bit k (LSB first within each byte) for the k-th nullable column.
    let bitmap_at = out.len();
    out.resize(bitmap_at + layout.null_bitmap_len(), 0);
    let mut k = 0;
    for (c, v) in layout.columns.iter().zip(columns) {
        if c.nullable {
            if v.is_none() {
                out[bitmap_at + k / 8] |= 1 << (k % 8);
            }
            k += 1;
        }
    }
    // Length header.
    for (c, v) in layout.columns.iter().zip(columns) {
        let Some(v) = v else { continue };
        match (c.length_header_len(), v) {
            (0, _) => {}
            (1, ColumnBytes::Inline(b)) => out.push(b.len() as u8),
            (_, ColumnBytes::Inline(b)) => put_be(out, b.len() as u64, 2),
            (_, ColumnBytes::External(_)) => put_be(
                out,
                u64::from(EXTERN_FLAG) | ExternRef::ENCODED_LEN as u64,
                2,
            ),
        }
    }
    // Data.
    for v in columns.iter().flatten() {
        match v {
            ColumnBytes::Inline(b) => out.extend_from_slice(b),
            ColumnBytes::External(r) => out.extend_from_slice(&r.to_bytes()),
        }
    }
    debug_assert_eq!(out.len() - start, total);
    Ok(())
}
