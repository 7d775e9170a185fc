//! [`RowView`]: a parsed, validated record whose columns are found in O(1).
//! Parsing checks every length against the layout, so a damaged record is an
//! error here and never a wrong value later.

use std::ops::Range;

use super::{
    get_be, ColumnBytes, ColumnRef, ExternRef, HiddenFields, RowError, RowKind, RowLayout,
    EXTERN_FLAG, ROLL_PTR_LEN, ROLL_PTR_OFFSET, ROW_ID_LEN, ROW_ID_OFFSET, TRX_ID_LEN,
    TRX_ID_OFFSET,
};

/// Where one column sits in a parsed record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Null,
    Inline { off: u32, len: u32 },
    External { off: u32 },
}

/// A parsed, validated record. Column accessors are O(1).
#[derive(Debug, Clone)]
pub struct RowView<'a> {
    bytes: &'a [u8],
    kind: RowKind,
    slots: Vec<Slot>,
}

fn malformed(msg: impl Into<String>) -> RowError {
    RowError::Malformed(msg.into())
}

impl<'a> RowView<'a> {
    /// Parses and validates `bytes` as a record of `layout`.
    pub fn parse(layout: &RowLayout, bytes: &'a [u8]) -> Result<Self, RowError> {
        let n = bytes.len();
        let hidden = layout.hidden_len();
        let bitmap_len = layout.null_bitmap_len();
        let mut pos = hidden + bitmap_len;
        if n < pos {
            return Err(malformed(format!(
                "{n} bytes, shorter than its {hidden} hidden and {bitmap_len} null-bitmap bytes"
            )));
        }
        let bitmap = &bytes[hidden..hidden + bitmap_len];
        let nullable = layout.nullable_count();
        if nullable % 8 != 0 {
            let last = bitmap[bitmap_len - 1];
            if last >> (nullable % 8) != 0 {
                return Err(malformed(format!(
                    "null bitmap byte {last:#04x} has bits set beyond its {nullable} columns"
                )));
            }
        }
        // First pass: nulls and lengths (the length header is contiguous).
        let mut slots = Vec::with_capacity(layout.columns.len());
        let mut k = 0;
        for (i, c) in layout.columns.iter().enumerate() {
            if c.nullable {
                let null = bitmap[k / 8] & (1 << (k % 8)) != 0;
                k += 1;
                if null {
                    slots.push(Slot::Null);
                    continue;
                }
            }
            let slot = match c.length_header_len() {
                0 => Slot::Inline {
                    off: 0,
                    len: c.fixed_len.unwrap_or(0),
                },
                1 => {
                    let len = *bytes
                        .get(pos)
                        .ok_or_else(|| malformed(format!("length of column {i} is cut off")))?;
                    pos += 1;
                    if u32::from(len) > c.max_len {
                        return Err(malformed(format!(
                            "column {i} has length {len}, above its maximum {}",
                            c.max_len
                        )));
                    }
                    Slot::Inline {
                        off: 0,
                        len: u32::from(len),
                    }
                }
                _ => {
                    let h = bytes
                        .get(pos..pos + 2)
                        .map(get_be)
                        .ok_or_else(|| malformed(format!("length of column {i} is cut off")))?
                        as u16;
                    pos += 2;
                    let len = u32::from(h & !EXTERN_FLAG);
                    if h & EXTERN_FLAG != 0 {
                        if !c.can_be_external() || layout.kind == RowKind::Secondary {
                            return Err(malformed(format!(
                                "column {i} is marked off-page but cannot be"
                            )));
                        }
                        if len as usize != ExternRef::ENCODED_LEN {
                            return Err(malformed(format!(
                                "off-page column {i} has a {len}-byte pointer, not 20"
                            )));
                        }
                        Slot::External { off: 0 }
                    } else {
                        if len > c.max_len {
                            return Err(malformed(format!(
                                "column {i} has length {len}, above its maximum {}",
                                c.max_len
                            )));
                        }
                        Slot::Inline { off: 0, len }
                    }
                }
            };
            slots.push(slot);
        }
        // Second pass: data offsets.
        for (i, s) in slots.iter_mut().enumerate() {
            let (len, off) = match s {
                Slot::Null => continue,
                Slot::Inline { off, len } => (*len as usize, off),
                Slot::External { off } => (ExternRef::ENCODED_LEN, off),
            };
            if pos + len > n {
                return Err(malformed(format!(
                    "column {i} ({len} bytes at {pos}) runs past the {n}-byte record"
                )));
            }
            *off = pos as u32;
            pos += len;
        }
        if pos != n {
            return Err(malformed(format!(
                "{} trailing bytes after the last column (record {n} bytes, columns end at {pos})",
                n - pos
            )));
        }
        Ok(Self {
            bytes,
            kind: layout.kind,
            slots,
        })
    }

    /// The whole record.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn kind(&self) -> RowKind {
        self.kind
    }

    /// Transaction id (clustered) or transaction stamp (secondary).
    pub fn trx_id(&self) -> u64 {
        get_be(&self.bytes[TRX_ID_OFFSET..TRX_ID_OFFSET + TRX_ID_LEN])
    }

    /// Roll pointer; 0 for secondary entries, which have none.
    pub fn roll_ptr(&self) -> u64 {
        match self.kind {
            RowKind::Clustered { .. } => {
                get_be(&self.bytes[ROLL_PTR_OFFSET..ROLL_PTR_OFFSET + ROLL_PTR_LEN])
            }
            RowKind::Secondary => 0,
        }
    }

    /// Hidden row id, if the layout has one.
    pub fn row_id(&self) -> Option<u64> {
        match self.kind {
            RowKind::Clustered {
                hidden_row_id: true,
            } => Some(get_be(
                &self.bytes[ROW_ID_OFFSET..ROW_ID_OFFSET + ROW_ID_LEN],
            )),
            _ => None,
        }
    }

    /// All hidden fields (absent ones are 0).
    pub fn hidden(&self) -> HiddenFields {
        HiddenFields {
            trx_id: self.trx_id(),
            roll_ptr: self.roll_ptr(),
            row_id: self.row_id().unwrap_or(0),
        }
    }

    /// Number of columns.
    pub fn column_count(&self) -> usize {
        self.slots.len()
    }

    /// True if column `i` is NULL (or out of range).
    pub fn is_null(&self, i: usize) -> bool {
        matches!(self.slots.get(i), None | Some(Slot::Null))
    }

    /// Column `i`: `None` when NULL (or `i` out of range).
    pub fn column(&self, i: usize) -> Option<ColumnRef<'a>> {
        match *self.slots.get(i)? {
            Slot::Null => None,
            Slot::Inline { off, len } => {
                let (o, l) = (off as usize, len as usize);
                Some(ColumnBytes::Inline(&self.bytes[o..o + l]))
            }
            Slot::External { off } => {
                let o = off as usize;
                let mut b = [0u8; ExternRef::ENCODED_LEN];
                b.copy_from_slice(&self.bytes[o..o + ExternRef::ENCODED_LEN]);
                Some(ColumnBytes::External(ExternRef::from_bytes(&b)))
            }
        }
    }

    /// Byte range of column `i`'s stored bytes in the record (the inline value
    /// or the 20-byte pointer); `None` when NULL. For in-place updates of
    /// fixed-width columns through a mini-transaction.
    pub fn column_range(&self, i: usize) -> Option<Range<usize>> {
        match *self.slots.get(i)? {
            Slot::Null => None,
            Slot::Inline { off, len } => Some(off as usize..(off + len) as usize),
            Slot::External { off } => Some(off as usize..off as usize + ExternRef::ENCODED_LEN),
        }
    }

    /// The off-page columns: (column index, pointer).
    pub fn external_columns(&self) -> impl Iterator<Item = (usize, ExternRef)> + '_ {
        (0..self.slots.len()).filter_map(|i| match self.column(i) {
            Some(ColumnBytes::External(r)) => Some((i, r)),
            _ => None,
        })
    }

    /// True if any column is stored off-page.
    pub fn has_external(&self) -> bool {
        self.slots
            .iter()
            .any(|s| matches!(s, Slot::External { .. }))
    }
}
