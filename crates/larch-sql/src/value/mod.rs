//! Values between the engine and the client: the text MySQL sends for a value
//! in a text result set ([`to_text`]), and storing a value into a column type
//! with MySQL's strict and non-strict rules ([`store`]).
//!
//! Text forms (what `mysql` prints): integers in decimal; DECIMAL with exactly
//! the column's scale; DOUBLE with the shortest digits that read back exactly
//! and FLOAT with six significant digits, both in MySQL's `my_gcvt` layout
//! ([`number`]); DATE `YYYY-MM-DD`; DATETIME and TIMESTAMP `YYYY-MM-DD
//! HH:MM:SS` plus `fsp` fractional digits; TIME `[-]HH:MM:SS[.f]` (hours may
//! exceed 24); YEAR four digits; ENUM the member (index 0 is `''`); SET the
//! members joined by commas; BIT the big-endian bytes of its width. Strings are
//! their UTF-8 bytes; conversion to the client's character set is the
//! protocol's job.

pub mod number;
pub mod store;
pub mod temporal;
#[cfg(test)]
mod tests;

use larch_engine::record::value::{ColumnType, DateTime, Decimal, Value};

use crate::result::ResultColumn;

pub use store::{store, store_fixed_real, StoreTarget};

/// Fractional digits of the column type (0 when none).
pub fn type_fsp(ty: &ColumnType) -> u8 {
    match ty {
        ColumnType::Time { fsp } | ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => {
            *fsp
        }
        _ => 0,
    }
}

/// The fraction `.ffffff` cut to `fsp` digits (empty for fsp 0).
pub fn format_frac(micros: u32, fsp: u8) -> String {
    if fsp == 0 {
        return String::new();
    }
    let s = format!("{micros:06}");
    format!(".{}", &s[..usize::from(fsp.min(6))])
}

/// `YYYY-MM-DD HH:MM:SS[.f]`.
pub fn format_datetime(dt: &DateTime, fsp: u8) -> String {
    format!(
        "{} {:02}:{:02}:{:02}{}",
        dt.date,
        dt.hour,
        dt.minute,
        dt.second,
        format_frac(dt.micros, fsp)
    )
}

/// `[-]HH:MM:SS[.f]` of signed microseconds.
pub fn format_time(us: i64, fsp: u8) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let m = us.unsigned_abs();
    let secs = m / 1_000_000;
    format!(
        "{sign}{:02}:{:02}:{:02}{}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        format_frac((m % 1_000_000) as u32, fsp)
    )
}

/// A DECIMAL shown with exactly `scale` fractional digits.
pub fn format_decimal(d: &Decimal, scale: u8) -> String {
    if d.scale() == scale {
        d.to_string()
    } else {
        d.rescale(scale).to_string()
    }
}

/// The SET members of a bitmap, joined by commas.
pub fn set_text(bits: u64, members: &[String]) -> String {
    members
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && bits >> i & 1 == 1)
        .map(|(_, m)| m.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// True for the column types whose stored values expressions read as text:
/// ENUM and SET (their members), UUID (its canonical text).
pub fn read_as_text(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Enum { .. } | ColumnType::Set { .. } | ColumnType::Uuid
    )
}

/// A stored value of a column of type `ty` as expressions read it: the text
/// of ENUM, SET and UUID values ([`read_as_text`]), any other value as it is.
pub fn expression_value(v: &Value, ty: &ColumnType) -> Value {
    if v.is_null() || !read_as_text(ty) {
        return v.clone();
    }
    Value::Str(String::from_utf8_lossy(&to_text(v, ty).unwrap_or_default()).into_owned())
}

/// The text-protocol bytes of a value of result column `c`: [`to_text`],
/// with the D decimals of a FLOAT(M,D) or DOUBLE(M,D) column and the zeros
/// of a ZEROFILL column; `None` for NULL.
pub fn column_text(v: &Value, c: &ResultColumn) -> Option<Vec<u8>> {
    let text = match (v, c.fixed_real) {
        (Value::Double(d), Some((_, decimals))) => number::format_fixed(*d, decimals).into_bytes(),
        (Value::Float(f), Some((_, decimals))) => {
            number::format_fixed(f64::from(*f), decimals).into_bytes()
        }
        _ => to_text(v, &c.ty)?,
    };
    match c.zerofill {
        Some(width) if text.len() < width as usize => {
            let mut padded = vec![b'0'; width as usize - text.len()];
            padded.extend_from_slice(&text);
            Some(padded)
        }
        _ => Some(text),
    }
}

/// The text-protocol bytes of a value of column type `ty`; `None` for NULL.
pub fn to_text(v: &Value, ty: &ColumnType) -> Option<Vec<u8>> {
    let s = match v {
        Value::Null => return None,
        Value::Bytes(b) if matches!(ty, ColumnType::Uuid) => {
            return Some(
                larch_engine::record::uuid::text_of_record(b)
                    .map_or_else(|| b.clone(), String::into_bytes),
            )
        }
        Value::Bytes(b) => return Some(b.clone()),
        Value::Str(s) => return Some(s.as_bytes().to_vec()),
        Value::Bit(b) => {
            let width = match ty {
                ColumnType::Bit { bits } => usize::from(*bits).div_ceil(8).max(1),
                _ => 8,
            };
            return Some(b.to_be_bytes()[8 - width..].to_vec());
        }
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Decimal(d) => match ty {
            ColumnType::Decimal { scale, .. } => format_decimal(d, *scale),
            _ => d.to_string(),
        },
        Value::Float(f) => number::format_float(*f),
        Value::Double(d) => number::format_double(*d),
        // A DATE in a DATETIME or TIMESTAMP column (a branch of IFNULL,
        // COALESCE, CASE) shows as that type: midnight.
        Value::Date(d)
            if matches!(
                ty,
                ColumnType::Datetime { .. } | ColumnType::Timestamp { .. }
            ) =>
        {
            format_datetime(
                &DateTime {
                    date: *d,
                    ..Default::default()
                },
                type_fsp(ty),
            )
        }
        Value::Date(d) => d.to_string(),
        Value::Datetime(dt) => format_datetime(dt, type_fsp(ty)),
        Value::Timestamp(ts) => format_datetime(&temporal::timestamp_to_datetime(ts), type_fsp(ty)),
        Value::Time(us) => format_time(*us, type_fsp(ty)),
        Value::Year(y) => format!("{y:04}"),
        Value::Enum(i) => match ty {
            ColumnType::Enum { values, .. } => usize::from(*i)
                .checked_sub(1)
                .and_then(|k| values.get(k))
                .cloned()
                .unwrap_or_default(),
            _ => i.to_string(),
        },
        Value::Set(bits) => match ty {
            ColumnType::Set { values, .. } => set_text(*bits, values),
            _ => bits.to_string(),
        },
    };
    Some(s.into_bytes())
}
