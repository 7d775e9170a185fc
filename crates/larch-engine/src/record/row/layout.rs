//! Column and row layouts: how each column is stored (nullable, fixed or
//! variable width, may it go off-page) and which kind of B+tree value a row is
//! (clustered record with or without a hidden row id, or secondary entry value).

use super::{
    RowError, MAX_INLINE_LEN, ROLL_PTR_LEN, ROW_ID_LEN, SECONDARY_STAMP_LEN, SHORT_COLUMN_MAX,
    TRX_ID_LEN,
};

/// How one column is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnLayout {
    /// The column may be NULL (it gets a bit in the null bitmap).
    pub nullable: bool,
    /// `Some(n)`: every non-null value is exactly `n` bytes and has no length
    /// header (integers, dates, fixed-width binary). `None`: variable length.
    pub fixed_len: Option<u32>,
    /// Longest encoded value in bytes (variable-length columns). Decides the
    /// length-header width: 1 byte up to 255, else 2 bytes.
    pub max_len: u32,
    /// TEXT/BLOB/long VARCHAR kinds: the value may be stored off-page.
    /// Ignored for fixed-length columns and for `max_len <= 255`.
    pub may_be_external: bool,
}

impl ColumnLayout {
    /// A NOT NULL fixed-width column.
    pub const fn fixed(len: u32) -> Self {
        Self {
            nullable: false,
            fixed_len: Some(len),
            max_len: len,
            may_be_external: false,
        }
    }

    /// A NOT NULL variable-length column kept inline.
    pub const fn variable(max_len: u32) -> Self {
        Self {
            nullable: false,
            fixed_len: None,
            max_len,
            may_be_external: false,
        }
    }

    /// A NOT NULL TEXT/BLOB-like column that may be stored off-page.
    pub const fn long(max_len: u32) -> Self {
        Self {
            nullable: false,
            fixed_len: None,
            max_len,
            may_be_external: true,
        }
    }

    /// The same column, nullable.
    pub const fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }

    /// Bytes of this column's entry in the length header (0 for fixed columns).
    pub const fn length_header_len(&self) -> usize {
        match self.fixed_len {
            Some(_) => 0,
            None if self.max_len <= SHORT_COLUMN_MAX => 1,
            None => 2,
        }
    }

    /// True if values of this column can be stored off-page.
    pub const fn can_be_external(&self) -> bool {
        self.fixed_len.is_none() && self.max_len > SHORT_COLUMN_MAX && self.may_be_external
    }
}

/// Which kind of B+tree value a layout describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A clustered-index record: transaction id and roll pointer, plus a hidden
    /// row id when the table has no primary key.
    Clustered { hidden_row_id: bool },
    /// A secondary-index entry value: a 6-byte transaction stamp, then the
    /// columns the entry carries (for covering reads), never off-page.
    Secondary,
}

impl RowKind {
    /// Bytes of the hidden fields at the start of the value.
    pub const fn hidden_len(self) -> usize {
        match self {
            RowKind::Clustered {
                hidden_row_id: true,
            } => TRX_ID_LEN + ROLL_PTR_LEN + ROW_ID_LEN,
            RowKind::Clustered {
                hidden_row_id: false,
            } => TRX_ID_LEN + ROLL_PTR_LEN,
            RowKind::Secondary => SECONDARY_STAMP_LEN,
        }
    }
}

/// The columns of a record, in storage order, and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowLayout {
    pub columns: Vec<ColumnLayout>,
    pub kind: RowKind,
}

impl RowLayout {
    pub fn new(columns: Vec<ColumnLayout>, kind: RowKind) -> Self {
        Self { columns, kind }
    }

    /// Number of nullable columns (bits in the null bitmap).
    pub fn nullable_count(&self) -> usize {
        self.columns.iter().filter(|c| c.nullable).count()
    }

    /// Bytes of the null bitmap.
    pub fn null_bitmap_len(&self) -> usize {
        self.nullable_count().div_ceil(8)
    }

    /// Bytes of the hidden fields.
    pub fn hidden_len(&self) -> usize {
        self.kind.hidden_len()
    }

    /// Checks the layout is representable: fixed widths and inline maxima fit
    /// the format.
    pub fn validate(&self) -> Result<(), RowError> {
        for (i, c) in self.columns.iter().enumerate() {
            if let Some(n) = c.fixed_len {
                if n as usize > MAX_INLINE_LEN {
                    return Err(RowError::InvalidLayout(format!(
                        "column {i}: fixed length {n} exceeds {MAX_INLINE_LEN} bytes"
                    )));
                }
            }
        }
        Ok(())
    }
}
