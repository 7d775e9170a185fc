//! A source value readied for a column by what MariaDB knows of its source
//! (a SELECT's column, a VALUES expression), beyond the value itself:
//!
//! - An ENUM or SET value going into a numeric column (integers, DECIMAL,
//!   FLOAT, DOUBLE, YEAR, BIT) is its number, the member's index or the
//!   set's bits, not its text (MariaDB's `Field_enum::save_in_field`).
//! - A DATETIME, TIMESTAMP or TIME value going into a string column is its
//!   text with the source's fractional digits ('06:53:45.0' from a
//!   DATETIME(1)).
//! - A TIME going into a DATE, DATETIME or TIMESTAMP column is that time on
//!   the current date ([`time_on_date`]).
//! - A hexadecimal or bit literal (`0x31`, `b'110001'`) going into a numeric
//!   column is its number, 49, not its bytes '1' ([`hex_number`], MariaDB's
//!   `Item_hex_hybrid::save_in_field`); `X'31'` is a string (see
//!   `parse::hex_strings`).

use larch_engine::record::value::{ColumnType, Date, DateTime, Value};

use crate::value::temporal::{datetime_from_micros, datetime_micros};
use crate::value::{format_datetime, format_time, temporal};

/// `v` (of the source type `from`) as it goes into a column of type `to`.
pub(super) fn ready_for_column(v: Value, from: &ColumnType, to: &ColumnType) -> Value {
    match (&v, from) {
        (Value::Str(text), ColumnType::Enum { values, .. }) if is_numeric(to) => values
            .iter()
            .position(|m| m == text)
            .map_or(v, |i| Value::UInt(i as u64 + 1)),
        (Value::Str(text), ColumnType::Set { values, .. }) if is_numeric(to) => {
            set_bits(text, values).map_or(v, Value::UInt)
        }
        (Value::Datetime(dt), ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp })
            if is_string(to) =>
        {
            Value::Str(format_datetime(dt, *fsp))
        }
        (Value::Timestamp(ts), ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp })
            if is_string(to) =>
        {
            Value::Str(format_datetime(&temporal::timestamp_to_datetime(ts), *fsp))
        }
        (Value::Time(us), ColumnType::Time { fsp }) if is_string(to) => {
            Value::Str(format_time(*us, *fsp))
        }
        _ => v,
    }
}

/// The bits of a SET value's text (`None` when a part is no member).
fn set_bits(text: &str, members: &[String]) -> Option<u64> {
    let mut bits = 0u64;
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let i = members.iter().position(|m| m == part)?;
        bits |= 1u64.checked_shl(i as u32)?;
    }
    Some(bits)
}

/// Columns whose value is a number (MariaDB's INT, DECIMAL and REAL
/// result types).
fn is_numeric(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int { .. }
            | ColumnType::Decimal { .. }
            | ColumnType::Float
            | ColumnType::Double
            | ColumnType::Year
            | ColumnType::Bit { .. }
    )
}

/// Character and byte string columns (JSON included).
fn is_string(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Char { .. }
            | ColumnType::Varchar { .. }
            | ColumnType::Binary { .. }
            | ColumnType::Varbinary { .. }
            | ColumnType::Text { .. }
            | ColumnType::Blob { .. }
    )
}

/// The TIME `us` (microseconds, maybe past a day or negative) on the date
/// `today`, as MariaDB turns a TIME into a DATETIME: 38:30:57 is
/// 14:30:57 of the next day.
pub(super) fn time_on_date(us: i64, today: Date) -> Value {
    let midnight = DateTime {
        date: today,
        ..DateTime::default()
    };
    datetime_micros(&midnight)
        .and_then(|m| m.checked_add(us))
        .and_then(datetime_from_micros)
        .map_or(Value::Time(us), Value::Datetime)
}

/// The number a hexadecimal or bit literal `e` stores as in a column of
/// type `to`, when `to` is numeric (integers, YEAR, BIT, DECIMAL, FLOAT,
/// DOUBLE); `None` otherwise. Literals longer than 8 bytes are the largest
/// number (the store then reports it out of range).
pub(crate) fn hex_number(e: &sqlparser::ast::Expr, v: &Value, to: &ColumnType) -> Option<Value> {
    use sqlparser::ast;
    let literal = matches!(
        e,
        ast::Expr::Value(x) if matches!(
            x.value,
            ast::Value::HexStringLiteral(_) | ast::Value::SingleQuotedByteStringLiteral(_)
        )
    );
    let numeric = matches!(
        to,
        ColumnType::Int { .. }
            | ColumnType::Year
            | ColumnType::Bit { .. }
            | ColumnType::Decimal { .. }
            | ColumnType::Float
            | ColumnType::Double
    );
    match v {
        Value::Bytes(b) if literal && numeric => Some(Value::UInt(if b.len() <= 8 {
            b.iter().fold(0u64, |n, &x| (n << 8) | u64::from(x))
        } else {
            u64::MAX
        })),
        _ => None,
    }
}
