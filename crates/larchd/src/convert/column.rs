//! Column definitions of result columns, following what MariaDB sends for a
//! table column of the same type:
//!
//! | engine type | protocol type | charset | length | flags |
//! |---|---|---|---|---|
//! | `Int{1,2,3,4,8}` | TINY, SHORT, INT24, LONG, LONGLONG | 63 | display width | NUM, UNSIGNED |
//! | `Decimal(p,s)` | NEWDECIMAL | 63 | p + sign + point | NUM; decimals = s |
//! | `Float`, `Double` | FLOAT, DOUBLE | 63 | 12, 22 | NUM; decimals 31 |
//! | `Char`, `Binary` | STRING | collation / 63 | chars × mbmaxlen | BINARY for binary |
//! | `Varchar`, `Varbinary` | VAR_STRING | collation / 63 | chars × mbmaxlen | BINARY for binary |
//! | `Text`, `Blob` | BLOB | collation / 63 | max bytes | BLOB (+ BINARY) |
//! | `Date`, `Time`, `Datetime`, `Timestamp` | DATE, TIME, DATETIME, TIMESTAMP | 63 | 10, 10/19 + fsp | BINARY (+ TIMESTAMP); decimals = fsp |
//! | `Year` | YEAR | 63 | 4 | NUM, UNSIGNED, ZEROFILL |
//! | `Enum`, `Set` | STRING | 45 | longest member / all members | ENUM / SET |
//! | `Bit(n)` | BIT | 63 | n | UNSIGNED |
//! | `Uuid` | STRING | 45 | 36 × 4 | (none) |
//!
//! A computed string (no underlying column) is VAR_STRING, BLOB, MEDIUM_BLOB or
//! LONG_BLOB by its length in bytes, as MariaDB announces expressions.
//! A bare `NULL` is type NULL (63, length 0, BINARY NUM), and a table's
//! TIMESTAMP column is also UNSIGNED, as MariaDB sends them; a FLOAT(M,D) or
//! DOUBLE(M,D) column has length M and D decimals; a ZEROFILL column is
//! ZEROFILL and UNSIGNED, at least as long as its width;
//! plus NOT_NULL, PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY and AUTO_INCREMENT from
//! the result column. Character columns announce their utf8mb4 collation id
//! (45, 46, 224, ...); latin1 and utf8mb3 columns announce 45 because values
//! are always sent as utf8mb4 (the client's `character_set_results`).

use larch_engine::record::collation::{Charset, Collation};
use larch_engine::record::value::ColumnType as EType;
use larch_sql::result::ResultColumn;
use larch_wire::column::{BINARY_COLLATION, NOT_FIXED_DECIMALS, UTF8MB4_GENERAL_CI};
use larch_wire::{ColumnDef, ColumnFlags, ColumnType as WType};

/// Collation id sent for a character column.
fn collation_id(c: Collation) -> u16 {
    match (c.charset(), c) {
        (Charset::Binary, _) => BINARY_COLLATION,
        (Charset::Utf8mb4, Collation::Utf8mb4Bin) => 46,
        (Charset::Utf8mb4, Collation::Utf8mb4UnicodeCi) => 224,
        (Charset::Utf8mb4, Collation::Utf8mb4SwedishCi) => 232,
        (Charset::Utf8mb4, Collation::Utf8mb4EsperantoCi) => 241,
        // Values of latin1 and utf8mb3 columns are sent converted to utf8mb4,
        // announced as utf8mb4's default collation, as MariaDB does for a
        // column converted to `character_set_results`.
        _ => UTF8MB4_GENERAL_CI,
    }
}

/// Bytes per character as sent (UTF-8 for every non-binary column).
fn sent_mbmaxlen(c: Collation) -> u64 {
    match c.charset() {
        Charset::Binary => 1,
        Charset::Latin1 | Charset::Utf8mb4 | Charset::Utf8mb3 => 4,
    }
}

fn clamp_len(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The protocol type, charset, length, flags and decimals of an engine type.
fn describe_type(ty: &EType) -> (WType, u16, u32, ColumnFlags, u8) {
    use ColumnFlags as F;
    let num = F::NUM_FLAG | F::BINARY_FLAG;
    let temporal = F::BINARY_FLAG;
    match ty {
        EType::Int { bytes, unsigned } => {
            let (t, width) = match bytes {
                1 => (WType::MYSQL_TYPE_TINY, 4),
                2 => (WType::MYSQL_TYPE_SHORT, 6),
                3 => (WType::MYSQL_TYPE_INT24, 9),
                4 => (WType::MYSQL_TYPE_LONG, 11),
                _ => (WType::MYSQL_TYPE_LONGLONG, 20),
            };
            let flags = if *unsigned {
                num | F::UNSIGNED_FLAG
            } else {
                num
            };
            let width = if *unsigned && *bytes != 8 {
                width - 1
            } else {
                width
            };
            (t, BINARY_COLLATION, width, flags, 0)
        }
        EType::Decimal { precision, scale } => {
            let len = u32::from(*precision) + u32::from(*scale > 0) + 1;
            (
                WType::MYSQL_TYPE_NEWDECIMAL,
                BINARY_COLLATION,
                len,
                num,
                *scale,
            )
        }
        EType::Float => (
            WType::MYSQL_TYPE_FLOAT,
            BINARY_COLLATION,
            12,
            num,
            NOT_FIXED_DECIMALS,
        ),
        EType::Double => (
            WType::MYSQL_TYPE_DOUBLE,
            BINARY_COLLATION,
            22,
            num,
            NOT_FIXED_DECIMALS,
        ),
        EType::Char { len, collation }
        | EType::Varchar {
            max_len: len,
            collation,
        } => {
            let t = if matches!(ty, EType::Char { .. }) {
                WType::MYSQL_TYPE_STRING
            } else {
                WType::MYSQL_TYPE_VAR_STRING
            };
            let flags = if *collation == Collation::Binary {
                F::BINARY_FLAG
            } else {
                F::empty()
            };
            let len = clamp_len(u64::from(*len) * sent_mbmaxlen(*collation));
            (t, collation_id(*collation), len, flags, 0)
        }
        EType::Binary { len } => (
            WType::MYSQL_TYPE_STRING,
            BINARY_COLLATION,
            *len,
            F::BINARY_FLAG,
            0,
        ),
        EType::Varbinary { max_len } => (
            WType::MYSQL_TYPE_VAR_STRING,
            BINARY_COLLATION,
            *max_len,
            F::BINARY_FLAG,
            0,
        ),
        EType::Text { kind, collation } => {
            let mut flags = F::BLOB_FLAG;
            if *collation == Collation::Binary {
                flags |= F::BINARY_FLAG;
            }
            let len = clamp_len(kind.max_bytes() * sent_mbmaxlen(*collation));
            (
                WType::MYSQL_TYPE_BLOB,
                collation_id(*collation),
                len,
                flags,
                0,
            )
        }
        EType::Blob { kind } => (
            WType::MYSQL_TYPE_BLOB,
            BINARY_COLLATION,
            clamp_len(kind.max_bytes()),
            F::BLOB_FLAG | F::BINARY_FLAG,
            0,
        ),
        EType::Date => (WType::MYSQL_TYPE_DATE, BINARY_COLLATION, 10, temporal, 0),
        EType::Time { fsp } => (
            WType::MYSQL_TYPE_TIME,
            BINARY_COLLATION,
            10 + fsp_len(*fsp),
            temporal,
            *fsp,
        ),
        EType::Datetime { fsp } => (
            WType::MYSQL_TYPE_DATETIME,
            BINARY_COLLATION,
            19 + fsp_len(*fsp),
            temporal,
            *fsp,
        ),
        EType::Timestamp { fsp } => (
            WType::MYSQL_TYPE_TIMESTAMP,
            BINARY_COLLATION,
            19 + fsp_len(*fsp),
            temporal | F::TIMESTAMP_FLAG,
            *fsp,
        ),
        EType::Year => (
            WType::MYSQL_TYPE_YEAR,
            BINARY_COLLATION,
            4,
            F::NUM_FLAG | F::UNSIGNED_FLAG | F::ZEROFILL_FLAG,
            0,
        ),
        EType::Uuid => (
            WType::MYSQL_TYPE_STRING,
            UTF8MB4_GENERAL_CI,
            36 * 4,
            F::empty(),
            0,
        ),
        EType::Enum { values, .. } => {
            let longest = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
            let len = clamp_len(longest as u64 * 4);
            (
                WType::MYSQL_TYPE_STRING,
                UTF8MB4_GENERAL_CI,
                len,
                F::ENUM_FLAG,
                0,
            )
        }
        EType::Set { values, .. } => {
            let chars: usize = values.iter().map(|v| v.chars().count()).sum::<usize>()
                + values.len().saturating_sub(1);
            let len = clamp_len(chars as u64 * 4);
            (
                WType::MYSQL_TYPE_STRING,
                UTF8MB4_GENERAL_CI,
                len,
                F::SET_FLAG,
                0,
            )
        }
        EType::Bit { bits } => (
            WType::MYSQL_TYPE_BIT,
            BINARY_COLLATION,
            u32::from(*bits),
            F::UNSIGNED_FLAG,
            0,
        ),
    }
}

/// Display characters of `fsp` fractional digits (with the point).
fn fsp_len(fsp: u8) -> u32 {
    if fsp == 0 {
        0
    } else {
        u32::from(fsp) + 1
    }
}

/// The protocol type MariaDB gives a computed string of this type: by its
/// length in bytes as sent, VAR_STRING below 65,535, then BLOB,
/// MEDIUM_BLOB from 65,536 and LONG_BLOB from 16 MiB (a table's TEXT and
/// BLOB columns are BLOB whatever their size). `None` for other types.
fn computed_string_type(ty: &EType) -> Option<WType> {
    let bytes = match ty {
        EType::Varchar { max_len, collation } => u64::from(*max_len) * sent_mbmaxlen(*collation),
        EType::Varbinary { max_len } => u64::from(*max_len),
        // A TEXT class counts as many characters as its size in bytes.
        EType::Text { kind, collation } => kind.max_bytes() * sent_mbmaxlen(*collation),
        EType::Blob { kind } => kind.max_bytes(),
        _ => return None,
    };
    Some(match bytes {
        0..=65_534 => WType::MYSQL_TYPE_VAR_STRING,
        65_535 => WType::MYSQL_TYPE_BLOB,
        65_536..=16_777_215 => WType::MYSQL_TYPE_MEDIUM_BLOB,
        _ => WType::MYSQL_TYPE_LONG_BLOB,
    })
}

/// The column definition of a result column.
pub fn column_def(c: &ResultColumn) -> ColumnDef {
    use ColumnFlags as F;
    let (mut ty, charset, length, mut flags, decimals) = if c.null_literal {
        (
            WType::MYSQL_TYPE_NULL,
            BINARY_COLLATION,
            0,
            F::BINARY_FLAG | F::NUM_FLAG,
            0,
        )
    } else {
        describe_type(&c.ty)
    };
    // A computed column has no underlying column (also when read through
    // a derived table or a CTE).
    let computed = c.org_name.is_empty();
    if computed && !c.null_literal {
        if let Some(t) = computed_string_type(&c.ty) {
            ty = t;
        }
    }
    if c.unsigned_number {
        flags |= F::UNSIGNED_FLAG;
    }
    let (mut length, mut decimals) = (length, decimals);
    if let Some((m, d)) = c.fixed_real {
        // FLOAT(M,D) / DOUBLE(M,D): length M, D decimals.
        (length, decimals) = (m, d as u8);
    }
    if let Some(width) = c.zerofill {
        flags |= F::ZEROFILL_FLAG | F::UNSIGNED_FLAG;
        length = length.max(width);
    }
    if matches!(c.ty, EType::Timestamp { .. }) && !computed {
        // MariaDB marks a table's TIMESTAMP columns UNSIGNED (not a
        // computed TIMESTAMP).
        flags |= F::UNSIGNED_FLAG;
    }
    if !c.nullable {
        flags |= F::NOT_NULL_FLAG;
    }
    if c.primary_key {
        flags |= F::PRI_KEY_FLAG;
    }
    if c.unique_key {
        flags |= F::UNIQUE_KEY_FLAG;
    }
    if c.multiple_key {
        flags |= F::MULTIPLE_KEY_FLAG;
    }
    if c.auto_increment {
        flags |= F::AUTO_INCREMENT_FLAG;
    }
    ColumnDef {
        schema: c.schema.clone(),
        table: c.table.clone(),
        org_table: c.org_table.clone(),
        name: c.name.clone(),
        org_name: c.org_name.clone(),
        charset,
        length,
        column_type: ty,
        flags,
        decimals,
    }
}
