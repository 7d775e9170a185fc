//! Column types and values, and their exact row-storage encoding.
//!
//! This module owns [`ColumnType`] (MySQL's column types as used in practice, with
//! their parameters), [`Value`] (one SQL value, exact: no type loses precision) and
//! the compact encoding of one non-NULL value for row storage ([`encode_value`],
//! [`decode_value`]). NULL is not encoded here: the row format keeps a null bitmap,
//! and it also stores the length of every variable-length value.
//!
//! Invariants:
//! - [`ColumnType::fixed_len`] types always encode to exactly that many bytes; the
//!   others encode to the raw value bytes (strings in the column's character set).
//! - Encoding applies MySQL's storage conversions (CHAR drops trailing spaces,
//!   BINARY pads with 0x00, excess trailing spaces are cut, DECIMAL rounds to the
//!   column scale, a DOUBLE value stored in FLOAT rounds to single precision), so
//!   `decode_value(encode_value(v)) == normalize_value(v)`, and equals `v` for a
//!   value already in canonical form.
//! - The encodings of integer, DECIMAL, temporal, YEAR, ENUM, SET and BIT values are
//!   fixed-width and memcomparable (byte order = SQL order); `record::key` reuses them.
//!
//! Errors are [`ValueError`]s; the SQL layer maps them to MySQL error codes with
//! [`ValueError::mysql_errno`] (out of range 1264, incorrect value 1366 or 1292,
//! data too long 1406). Byte layouts are in `docs/key-encoding.md`.

use std::fmt;

use crate::record::collation::Collation;

mod compare;
mod decimal;
mod string;
mod temporal;
#[cfg(test)]
mod tests;

pub use compare::{compare_values, normalize_value};
pub use decimal::{decimal_bin_size, Decimal, DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE};
pub use temporal::{format_time, Date, DateTime, Timestamp, TIMESTAMP_MAX_SECS, TIME_MAX_MICROS};

use decimal::{decode_decimal, encode_decimal};
use string::{encode_binary_string, encode_text};
use temporal::{
    decode_date, decode_datetime, decode_time, decode_timestamp, encode_date, encode_datetime,
    encode_time, encode_timestamp, frac_bytes,
};

/// Errors of value validation, encoding and decoding.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// The value does not fit the column's range (MySQL 1264).
    #[error("Out of range value for {ty}: {value}")]
    OutOfRange { ty: String, value: String },
    /// The value is not valid for the type, e.g. a character latin1 lacks (1366).
    #[error("Incorrect {ty} value: '{value}'")]
    BadValue { ty: String, value: String },
    /// An invalid date, time or datetime (MySQL 1292).
    #[error("Incorrect {ty} value: '{value}'")]
    BadTemporal { ty: String, value: String },
    /// The value is longer than the column allows (MySQL 1406).
    #[error("Data too long for {ty}: {len} > {max}")]
    TooLong { ty: String, len: u64, max: u64 },
    /// A value of the wrong kind for the column (a caller bug).
    #[error("a {value} value cannot be stored in a {ty} column")]
    TypeMismatch { ty: String, value: &'static str },
    /// The column type's parameters are invalid.
    #[error("invalid column type: {0}")]
    InvalidType(String),
    /// Encoded bytes are malformed.
    #[error("corrupt encoded value: {0}")]
    Corrupt(String),
    /// The operation is not possible (e.g. decoding a non-reversible key part).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl ValueError {
    /// The MySQL error code the SQL layer reports, if the error is a user error.
    pub fn mysql_errno(&self) -> Option<u16> {
        match self {
            ValueError::OutOfRange { .. } => Some(1264),
            ValueError::BadValue { .. } => Some(1366),
            ValueError::BadTemporal { .. } => Some(1292),
            ValueError::TooLong { .. } => Some(1406),
            _ => None,
        }
    }
}

/// Size class of TEXT and BLOB columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LobKind {
    /// TINYTEXT / TINYBLOB: up to 255 bytes.
    Tiny,
    /// TEXT / BLOB: up to 65,535 bytes.
    Text,
    /// MEDIUMTEXT / MEDIUMBLOB: up to 16,777,215 bytes.
    Medium,
    /// LONGTEXT / LONGBLOB: up to 4,294,967,295 bytes.
    Long,
}

impl LobKind {
    /// Maximum value length in bytes.
    pub fn max_bytes(self) -> u64 {
        match self {
            LobKind::Tiny => 0xFF,
            LobKind::Text => 0xFFFF,
            LobKind::Medium => 0xFF_FFFF,
            LobKind::Long => 0xFFFF_FFFF,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            LobKind::Tiny => "TINY",
            LobKind::Text => "",
            LobKind::Medium => "MEDIUM",
            LobKind::Long => "LONG",
        }
    }
}

/// A column type with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// TINYINT (1), SMALLINT (2), MEDIUMINT (3), INT (4), BIGINT (8).
    Int { bytes: u8, unsigned: bool },
    /// DECIMAL(precision 1..=65, scale 0..=30, scale <= precision).
    Decimal { precision: u8, scale: u8 },
    /// FLOAT (single precision).
    Float,
    /// DOUBLE.
    Double,
    /// CHAR(len) in characters (0..=255). With [`Collation::Binary`] it is BINARY.
    Char { len: u32, collation: Collation },
    /// VARCHAR(max_len) in characters. With [`Collation::Binary`] it is VARBINARY.
    Varchar { max_len: u32, collation: Collation },
    /// BINARY(len) in bytes (0..=255), padded with 0x00.
    Binary { len: u32 },
    /// VARBINARY(max_len) in bytes.
    Varbinary { max_len: u32 },
    /// TINYTEXT..LONGTEXT. With [`Collation::Binary`] it is a BLOB.
    Text { kind: LobKind, collation: Collation },
    /// TINYBLOB..LONGBLOB.
    Blob { kind: LobKind },
    /// DATE, '0000-00-00' and '1000-01-01'..'9999-12-31'.
    Date,
    /// TIME(fsp), -838:59:59..838:59:59.
    Time { fsp: u8 },
    /// DATETIME(fsp).
    Datetime { fsp: u8 },
    /// TIMESTAMP(fsp): seconds since the epoch (UTC).
    Timestamp { fsp: u8 },
    /// YEAR: 0 or 1901..=2155.
    Year,
    /// ENUM: 1..=65535 members, named in `collation` (it decides which
    /// text is which member and how the values compare with text; the
    /// stored value is the member number either way).
    Enum {
        values: Vec<String>,
        collation: Collation,
    },
    /// SET: 0..=64 members, named in `collation` (as for ENUM).
    Set {
        values: Vec<String>,
        collation: Collation,
    },
    /// BIT(bits 1..=64).
    Bit { bits: u8 },
    /// MariaDB's UUID: 16 bytes, stored in MariaDB's record order (see
    /// [`uuid`](super::uuid)) so that byte order is MariaDB's UUID order.
    Uuid,
}

impl ColumnType {
    /// Checks the type's parameters against MySQL's limits.
    pub fn validate(&self) -> Result<(), ValueError> {
        let bad = |m: String| Err(ValueError::InvalidType(m));
        match self {
            ColumnType::Int { bytes, .. } if !matches!(bytes, 1 | 2 | 3 | 4 | 8) => {
                bad(format!("integer width {bytes}"))
            }
            ColumnType::Decimal { precision, scale }
                if *precision == 0
                    || *precision > DECIMAL_MAX_PRECISION
                    || *scale > DECIMAL_MAX_SCALE
                    || scale > precision =>
            {
                bad(format!("DECIMAL({precision},{scale})"))
            }
            ColumnType::Char { len, .. } | ColumnType::Binary { len } if *len > 255 => {
                bad(format!("{self} is longer than 255"))
            }
            ColumnType::Varchar { .. } | ColumnType::Varbinary { .. }
                if self.max_storage_bytes() > 0xFFFF =>
            {
                bad(format!("{self} is longer than 65535 bytes"))
            }
            ColumnType::Time { fsp }
            | ColumnType::Datetime { fsp }
            | ColumnType::Timestamp { fsp }
                if *fsp > 6 =>
            {
                bad(format!("fractional second precision {fsp}"))
            }
            ColumnType::Enum { values, .. } if values.is_empty() || values.len() > 0xFFFF => {
                bad(format!("ENUM with {} members", values.len()))
            }
            ColumnType::Set { values, .. } if values.len() > 64 => {
                bad(format!("SET with {} members", values.len()))
            }
            ColumnType::Bit { bits } if *bits == 0 || *bits > 64 => bad(format!("BIT({bits})")),
            _ => Ok(()),
        }
    }

    /// The collation of a character string type (`None` for other types).
    pub fn collation(&self) -> Option<Collation> {
        match self {
            ColumnType::Char { collation, .. }
            | ColumnType::Varchar { collation, .. }
            | ColumnType::Text { collation, .. } => Some(*collation),
            _ => None,
        }
    }

    /// The collation of an ENUM's or SET's member names; `None` for other
    /// types. (Not [`ColumnType::collation`]: their values are member
    /// numbers, and keys order them by number.)
    pub fn member_collation(&self) -> Option<Collation> {
        match self {
            ColumnType::Enum { collation, .. } | ColumnType::Set { collation, .. } => {
                Some(*collation)
            }
            _ => None,
        }
    }

    /// True for types whose values are [`Value::Bytes`] and compare as bytes:
    /// BINARY, VARBINARY, BLOB, and CHAR/VARCHAR/TEXT with the `binary` collation.
    pub fn is_binary_string(&self) -> bool {
        matches!(
            self,
            ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. }
        ) || self.collation() == Some(Collation::Binary)
    }

    /// True for character string types with a non-binary collation ([`Value::Str`]).
    pub fn is_text(&self) -> bool {
        matches!(self.collation(), Some(c) if c != Collation::Binary)
    }

    /// Width of the row encoding if it is fixed.
    pub fn fixed_len(&self) -> Option<usize> {
        Some(match self {
            ColumnType::Int { bytes, .. } => usize::from(*bytes),
            ColumnType::Decimal { precision, scale } => decimal_bin_size(*precision, *scale),
            ColumnType::Float => 4,
            ColumnType::Double => 8,
            ColumnType::Binary { len }
            | ColumnType::Char {
                len,
                collation: Collation::Binary,
            } => *len as usize,
            ColumnType::Date => 3,
            ColumnType::Time { fsp } => 3 + frac_bytes(*fsp),
            ColumnType::Datetime { fsp } => 5 + frac_bytes(*fsp),
            ColumnType::Timestamp { fsp } => 4 + frac_bytes(*fsp),
            ColumnType::Year => 1,
            ColumnType::Enum { values, .. } => enum_width(values.len()),
            ColumnType::Set { values, .. } => set_width(values.len()),
            ColumnType::Bit { bits } => usize::from(*bits).div_ceil(8),
            ColumnType::Uuid => super::uuid::UUID_BYTES,
            _ => return None,
        })
    }

    /// Largest row encoding of a value of this type, in bytes (MySQL's maximum
    /// byte length of the column: characters times the charset's `mbmaxlen`).
    pub fn max_storage_bytes(&self) -> usize {
        if let Some(n) = self.fixed_len() {
            return n;
        }
        let mb = |c: &Collation| c.charset().max_bytes_per_char();
        match self {
            ColumnType::Char { len, collation } => *len as usize * mb(collation),
            ColumnType::Varchar { max_len, collation } => *max_len as usize * mb(collation),
            ColumnType::Varbinary { max_len } => *max_len as usize,
            ColumnType::Text { kind, .. } | ColumnType::Blob { kind } => kind.max_bytes() as usize,
            _ => 0,
        }
    }

    /// Most characters (text) or bytes (binary strings) a string value can hold.
    pub fn max_chars(&self) -> Option<u64> {
        match self {
            ColumnType::Char { len, .. } | ColumnType::Binary { len } => Some(u64::from(*len)),
            ColumnType::Varchar { max_len, .. } | ColumnType::Varbinary { max_len } => {
                Some(u64::from(*max_len))
            }
            ColumnType::Text { kind, .. } | ColumnType::Blob { kind } => Some(kind.max_bytes()),
            _ => None,
        }
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let coll = |f: &mut fmt::Formatter<'_>, c: &Collation| {
            if *c == Collation::Binary {
                Ok(())
            } else {
                write!(f, " COLLATE {}", c.name())
            }
        };
        match self {
            ColumnType::Int { bytes, unsigned } => {
                let name = match bytes {
                    1 => "TINYINT",
                    2 => "SMALLINT",
                    3 => "MEDIUMINT",
                    4 => "INT",
                    _ => "BIGINT",
                };
                write!(f, "{name}{}", if *unsigned { " UNSIGNED" } else { "" })
            }
            ColumnType::Decimal { precision, scale } => write!(f, "DECIMAL({precision},{scale})"),
            ColumnType::Float => write!(f, "FLOAT"),
            ColumnType::Double => write!(f, "DOUBLE"),
            ColumnType::Char { len, collation } if *collation == Collation::Binary => {
                write!(f, "BINARY({len})")
            }
            ColumnType::Char { len, collation } => {
                write!(f, "CHAR({len})")?;
                coll(f, collation)
            }
            ColumnType::Varchar { max_len, collation } if *collation == Collation::Binary => {
                write!(f, "VARBINARY({max_len})")
            }
            ColumnType::Varchar { max_len, collation } => {
                write!(f, "VARCHAR({max_len})")?;
                coll(f, collation)
            }
            ColumnType::Binary { len } => write!(f, "BINARY({len})"),
            ColumnType::Varbinary { max_len } => write!(f, "VARBINARY({max_len})"),
            ColumnType::Text { kind, collation } if *collation == Collation::Binary => {
                write!(f, "{}BLOB", kind.prefix())
            }
            ColumnType::Text { kind, collation } => {
                write!(f, "{}TEXT", kind.prefix())?;
                coll(f, collation)
            }
            ColumnType::Blob { kind } => write!(f, "{}BLOB", kind.prefix()),
            ColumnType::Date => write!(f, "DATE"),
            ColumnType::Time { fsp } => write!(f, "TIME({fsp})"),
            ColumnType::Datetime { fsp } => write!(f, "DATETIME({fsp})"),
            ColumnType::Timestamp { fsp } => write!(f, "TIMESTAMP({fsp})"),
            ColumnType::Year => write!(f, "YEAR"),
            ColumnType::Enum { values, .. } => write!(f, "ENUM({} members)", values.len()),
            ColumnType::Set { values, .. } => write!(f, "SET({} members)", values.len()),
            ColumnType::Bit { bits } => write!(f, "BIT({bits})"),
            ColumnType::Uuid => write!(f, "UUID"),
        }
    }
}

/// One SQL value. Strings of text columns are [`Value::Str`] (their collation
/// comes from the column type); binary strings are [`Value::Bytes`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    /// Signed integer columns (and any integer that fits the column).
    Int(i64),
    /// Unsigned integer columns.
    UInt(u64),
    Decimal(Decimal),
    Float(f32),
    Double(f64),
    /// BINARY, VARBINARY, BLOB kinds.
    Bytes(Vec<u8>),
    /// CHAR, VARCHAR, TEXT kinds.
    Str(String),
    Date(Date),
    /// TIME as signed microseconds, within ±[`TIME_MAX_MICROS`].
    Time(i64),
    Datetime(DateTime),
    Timestamp(Timestamp),
    /// 0 or 1901..=2155.
    Year(u16),
    /// 1-based member index; 0 is MySQL's '' error member.
    Enum(u16),
    /// Member bitmap (bit i = member i + 1).
    Set(u64),
    Bit(u64),
}

impl Value {
    /// True for NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The variant's name, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) => "integer",
            Value::UInt(_) => "unsigned integer",
            Value::Decimal(_) => "decimal",
            Value::Float(_) => "float",
            Value::Double(_) => "double",
            Value::Bytes(_) => "bytes",
            Value::Str(_) => "string",
            Value::Date(_) => "date",
            Value::Time(_) => "time",
            Value::Datetime(_) => "datetime",
            Value::Timestamp(_) => "timestamp",
            Value::Year(_) => "year",
            Value::Enum(_) => "enum",
            Value::Set(_) => "set",
            Value::Bit(_) => "bit",
        }
    }
}

fn mismatch(ty: &ColumnType, v: &Value) -> ValueError {
    ValueError::TypeMismatch {
        ty: ty.to_string(),
        value: v.kind(),
    }
}

fn out_of_range(ty: &ColumnType, value: impl fmt::Display) -> ValueError {
    ValueError::OutOfRange {
        ty: ty.to_string(),
        value: value.to_string(),
    }
}

fn bad_temporal(ty: &ColumnType, value: impl fmt::Display) -> ValueError {
    ValueError::BadTemporal {
        ty: ty.to_string(),
        value: value.to_string(),
    }
}

fn corrupt(ty: &ColumnType, what: &str) -> ValueError {
    ValueError::Corrupt(format!("{ty}: {what}"))
}

fn enum_width(members: usize) -> usize {
    if members <= 0xFF {
        1
    } else {
        2
    }
}

fn set_width(members: usize) -> usize {
    match members.div_ceil(8) {
        0 => 1,
        n @ 1..=4 => n,
        _ => 8,
    }
}

/// Appends the low `width` bytes of `v`, big-endian.
fn put_be(v: u64, width: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.to_be_bytes()[8 - width..]);
}

fn get_be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Encodes a non-NULL value for row storage (see the module docs). Fixed-width
/// types write exactly [`ColumnType::fixed_len`] bytes; strings write their bytes.
pub fn encode_value(ty: &ColumnType, v: &Value, out: &mut Vec<u8>) -> Result<(), ValueError> {
    ty.validate()?;
    match ty {
        ColumnType::Int { bytes, unsigned } => {
            let n = match *v {
                Value::Int(i) => i128::from(i),
                Value::UInt(u) => i128::from(u),
                _ => return Err(mismatch(ty, v)),
            };
            let bits = u32::from(*bytes) * 8;
            let (lo, hi) = if *unsigned {
                (0, (1i128 << bits) - 1)
            } else {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            };
            if n < lo || n > hi {
                return Err(out_of_range(ty, n));
            }
            let biased = if *unsigned { n } else { n - lo };
            put_be(biased as u64, usize::from(*bytes), out);
        }
        ColumnType::Decimal { precision, scale } => {
            let Value::Decimal(d) = v else {
                return Err(mismatch(ty, v));
            };
            encode_decimal(ty, *precision, *scale, d, out)?;
        }
        ColumnType::Float => {
            let f = match *v {
                Value::Float(f) => f,
                Value::Double(d) => d as f32,
                _ => return Err(mismatch(ty, v)),
            };
            if !f.is_finite() {
                return Err(out_of_range(ty, f));
            }
            out.extend_from_slice(&f.to_le_bytes());
        }
        ColumnType::Double => {
            let d = match *v {
                Value::Double(d) => d,
                Value::Float(f) => f64::from(f),
                _ => return Err(mismatch(ty, v)),
            };
            if !d.is_finite() {
                return Err(out_of_range(ty, d));
            }
            out.extend_from_slice(&d.to_le_bytes());
        }
        _ if ty.is_binary_string() => encode_binary_string(ty, v, out)?,
        ColumnType::Char { collation, .. }
        | ColumnType::Varchar { collation, .. }
        | ColumnType::Text { collation, .. } => encode_text(ty, collation, v, out)?,
        ColumnType::Date => encode_date(ty, v, out)?,
        ColumnType::Time { fsp } => encode_time(ty, *fsp, v, out)?,
        ColumnType::Datetime { fsp } => encode_datetime(ty, *fsp, v, out)?,
        ColumnType::Timestamp { fsp } => encode_timestamp(ty, *fsp, v, out)?,
        ColumnType::Year => {
            let y = match *v {
                Value::Year(y) => u64::from(y),
                _ => return Err(mismatch(ty, v)),
            };
            if y != 0 && !(1901..=2155).contains(&y) {
                return Err(out_of_range(ty, y));
            }
            out.push(if y == 0 { 0 } else { (y - 1900) as u8 });
        }
        ColumnType::Enum { values, .. } => {
            let Value::Enum(i) = *v else {
                return Err(mismatch(ty, v));
            };
            if usize::from(i) > values.len() {
                return Err(out_of_range(ty, i));
            }
            put_be(u64::from(i), enum_width(values.len()), out);
        }
        ColumnType::Set { values, .. } => {
            let Value::Set(bits) = *v else {
                return Err(mismatch(ty, v));
            };
            if values.len() < 64 && bits >> values.len() != 0 {
                return Err(out_of_range(ty, bits));
            }
            put_be(bits, set_width(values.len()), out);
        }
        ColumnType::Bit { bits } => {
            let b = match *v {
                Value::Bit(b) | Value::UInt(b) => b,
                _ => return Err(mismatch(ty, v)),
            };
            if *bits < 64 && b >> bits != 0 {
                return Err(out_of_range(ty, b));
            }
            put_be(b, usize::from(*bits).div_ceil(8), out);
        }
        ColumnType::Uuid => match v {
            Value::Bytes(b) if b.len() == super::uuid::UUID_BYTES => out.extend_from_slice(b),
            _ => return Err(mismatch(ty, v)),
        },
        // Binary strings were handled above.
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            return Err(mismatch(ty, v))
        }
    }
    Ok(())
}

/// Decodes a value written by [`encode_value`].
pub fn decode_value(ty: &ColumnType, bytes: &[u8]) -> Result<Value, ValueError> {
    ty.validate()?;
    if let Some(width) = ty.fixed_len() {
        if bytes.len() != width {
            return Err(corrupt(
                ty,
                &format!("{} bytes, expected {width}", bytes.len()),
            ));
        }
    }
    let v = match ty {
        ColumnType::Int { bytes: w, unsigned } => {
            let raw = get_be(bytes);
            if *unsigned {
                Value::UInt(raw)
            } else {
                let bias = 1i128 << (u32::from(*w) * 8 - 1);
                Value::Int((i128::from(raw) - bias) as i64)
            }
        }
        ColumnType::Decimal { precision, scale } => {
            Value::Decimal(decode_decimal(ty, *precision, *scale, bytes)?)
        }
        ColumnType::Float => {
            let a: [u8; 4] = bytes.try_into().map_err(|_| corrupt(ty, "width"))?;
            Value::Float(f32::from_le_bytes(a))
        }
        ColumnType::Double => {
            let a: [u8; 8] = bytes.try_into().map_err(|_| corrupt(ty, "width"))?;
            Value::Double(f64::from_le_bytes(a))
        }
        _ if ty.is_binary_string() => {
            if bytes.len() as u64 > ty.max_chars().unwrap_or(0) {
                return Err(corrupt(ty, "too long"));
            }
            Value::Bytes(bytes.to_vec())
        }
        ColumnType::Char { collation, .. }
        | ColumnType::Varchar { collation, .. }
        | ColumnType::Text { collation, .. } => Value::Str(collation.charset().decode(bytes)?),
        ColumnType::Date => decode_date(ty, bytes)?,
        ColumnType::Time { fsp } => decode_time(ty, *fsp, bytes)?,
        ColumnType::Datetime { .. } => decode_datetime(ty, bytes)?,
        ColumnType::Timestamp { .. } => decode_timestamp(ty, bytes)?,
        ColumnType::Year => Value::Year(match bytes[0] {
            0 => 0,
            b => 1900 + u16::from(b),
        }),
        ColumnType::Enum { values, .. } => {
            let i = get_be(bytes);
            if i > values.len() as u64 {
                return Err(corrupt(ty, "enum index out of range"));
            }
            Value::Enum(i as u16)
        }
        ColumnType::Set { values, .. } => {
            let bits = get_be(bytes);
            if values.len() < 64 && bits >> values.len() != 0 {
                return Err(corrupt(ty, "set member out of range"));
            }
            Value::Set(bits)
        }
        ColumnType::Bit { bits } => {
            let b = get_be(bytes);
            if *bits < 64 && b >> bits != 0 {
                return Err(corrupt(ty, "bit value out of range"));
            }
            Value::Bit(b)
        }
        ColumnType::Uuid => Value::Bytes(bytes.to_vec()),
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            return Err(corrupt(ty, "unreachable binary string"))
        }
    };
    Ok(v)
}
