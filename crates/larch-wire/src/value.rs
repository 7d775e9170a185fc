//! Values in results and prepared-statement parameters, and their encodings
//! in the text and binary protocols.
//!
//! [`Value`] stays close to MySQL's own types: integers keep their sign,
//! decimals travel as their exact text, temporal values are small structs.
//! One value maps to both protocols:
//!
//! - text protocol: every non-NULL value is a length-encoded string in
//!   MySQL's canonical format (`2024-01-31 12:00:00.5`, `-838:59:59`, ...);
//! - binary protocol: the encoding depends on the *column* type announced in
//!   the column definition (an `Int` in a `TINY` column is one byte, in a
//!   `LONGLONG` column eight), so [`encode_binary`] takes the column type and
//!   converts where MySQL would (numbers into string columns become text).
//!
//! [`decode_binary_param`] reads one `COM_STMT_EXECUTE` parameter from its
//! type byte, unsigned flag and bytes; it never panics on bad input.

use crate::column::ColumnType;
use mysql_common::io::{BufMutExt, ParseBuf};
use std::fmt::Write as _;

/// A calendar date (`DATE`); zero fields allowed as in MySQL's `0000-00-00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    /// Year, 0..=9999.
    pub year: u16,
    /// Month, 0..=12.
    pub month: u8,
    /// Day, 0..=31.
    pub day: u8,
}

/// A date and time of day with microseconds (`DATETIME`, `TIMESTAMP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    /// The date part.
    pub date: Date,
    /// Hour, 0..=23.
    pub hour: u8,
    /// Minute, 0..=59.
    pub minute: u8,
    /// Second, 0..=59.
    pub second: u8,
    /// Microseconds, 0..=999_999.
    pub micros: u32,
}

/// A signed time interval (`TIME`, range -838:59:59 to 838:59:59 in MySQL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time {
    /// True for negative intervals.
    pub negative: bool,
    /// Hours (may exceed 24).
    pub hours: u32,
    /// Minutes, 0..=59.
    pub minutes: u8,
    /// Seconds, 0..=59.
    pub seconds: u8,
    /// Microseconds, 0..=999_999.
    pub micros: u32,
}

/// One value of a result row or statement parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A signed integer (any integer column type).
    Int(i64),
    /// An unsigned integer (columns with `UNSIGNED_FLAG`).
    UInt(u64),
    /// A `FLOAT`.
    Float(f32),
    /// A `DOUBLE`.
    Double(f64),
    /// A `DECIMAL`, as its exact decimal text (e.g. `"-12.50"`).
    Decimal(String),
    /// Character or binary string data (`VARCHAR`, `BLOB`, `JSON`, ...).
    Bytes(Vec<u8>),
    /// A `DATE`.
    Date(Date),
    /// A `DATETIME` or `TIMESTAMP`.
    DateTime(DateTime),
    /// A `TIME`.
    Time(Time),
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Bytes(s.as_bytes().to_vec())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Bytes(s.into_bytes())
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::UInt(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Double(v)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

impl Value {
    /// True for SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The text-protocol representation (None for NULL); `decimals` is the
    /// column's decimals (fractional digits for floats and temporal types;
    /// 31 or more means "not fixed").
    pub fn to_text(&self, decimals: u8) -> Option<Vec<u8>> {
        let mut s = String::new();
        match self {
            Value::Null => return None,
            Value::Bytes(b) => return Some(b.clone()),
            Value::Int(v) => write!(s, "{v}").ok()?,
            Value::UInt(v) => write!(s, "{v}").ok()?,
            Value::Float(v) if decimals < 31 => {
                write!(s, "{:.*}", usize::from(decimals), v).ok()?
            }
            Value::Float(v) => write!(s, "{v}").ok()?,
            Value::Double(v) if decimals < 31 => {
                write!(s, "{:.*}", usize::from(decimals), v).ok()?
            }
            Value::Double(v) => write!(s, "{v}").ok()?,
            Value::Decimal(d) => s.push_str(d),
            Value::Date(d) => write_date(&mut s, d),
            Value::DateTime(dt) => {
                write_date(&mut s, &dt.date);
                let _ = write!(s, " {:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second);
                write_fraction(&mut s, dt.micros, decimals);
            }
            Value::Time(t) => {
                let sign = if t.negative { "-" } else { "" };
                let _ = write!(s, "{sign}{:02}:{:02}:{:02}", t.hours, t.minutes, t.seconds);
                write_fraction(&mut s, t.micros, decimals);
            }
        }
        Some(s.into_bytes())
    }
}

fn write_date(s: &mut String, d: &Date) {
    let _ = write!(s, "{:04}-{:02}-{:02}", d.year, d.month, d.day);
}

/// Appends `.ffffff` cut to the column's fractional digits; with "not fixed"
/// decimals (31+), only when there are microseconds.
fn write_fraction(s: &mut String, micros: u32, decimals: u8) {
    let digits = match decimals {
        0 => return,
        1..=6 => usize::from(decimals),
        7..=30 => 6,
        _ if micros == 0 => return,
        _ => 6,
    };
    let frac = format!("{:06}", micros.min(999_999));
    s.push('.');
    s.push_str(&frac[..digits]);
}

/// Error returned when a value cannot be encoded for its column type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError(pub String);

/// Appends `value` (not NULL: NULLs go in the row's null bitmap) in the
/// binary protocol encoding of a column of type `ty`.
pub fn encode_binary(out: &mut Vec<u8>, value: &Value, ty: ColumnType) -> Result<(), EncodeError> {
    use ColumnType::*;
    match ty {
        MYSQL_TYPE_TINY => out.push(int_bits(value, ty)? as u8),
        MYSQL_TYPE_SHORT | MYSQL_TYPE_YEAR => {
            out.extend_from_slice(&(int_bits(value, ty)? as u16).to_le_bytes())
        }
        MYSQL_TYPE_LONG | MYSQL_TYPE_INT24 => {
            out.extend_from_slice(&(int_bits(value, ty)? as u32).to_le_bytes())
        }
        MYSQL_TYPE_LONGLONG => out.extend_from_slice(&int_bits(value, ty)?.to_le_bytes()),
        MYSQL_TYPE_FLOAT => out.extend_from_slice(&(float_value(value, ty)? as f32).to_le_bytes()),
        MYSQL_TYPE_DOUBLE => out.extend_from_slice(&float_value(value, ty)?.to_le_bytes()),
        MYSQL_TYPE_DATE
        | MYSQL_TYPE_NEWDATE
        | MYSQL_TYPE_DATETIME
        | MYSQL_TYPE_TIMESTAMP
        | MYSQL_TYPE_DATETIME2
        | MYSQL_TYPE_TIMESTAMP2 => {
            let dt = match value {
                Value::Date(date) => DateTime {
                    date: *date,
                    ..DateTime::default()
                },
                Value::DateTime(dt) => *dt,
                other => return Err(mismatch(other, ty)),
            };
            encode_datetime(out, &dt);
        }
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => match value {
            Value::Time(t) => encode_time(out, t),
            other => return Err(mismatch(other, ty)),
        },
        MYSQL_TYPE_NULL => return Err(mismatch(value, ty)),
        // Strings, blobs, decimals, JSON, ENUM/SET, BIT, GEOMETRY, VECTOR.
        _ => {
            let text = value.to_text(31).unwrap_or_default();
            out.put_lenenc_str(&text);
        }
    }
    Ok(())
}

fn mismatch(value: &Value, ty: ColumnType) -> EncodeError {
    EncodeError(format!(
        "value {value:?} does not fit a column of type {ty:?}"
    ))
}

/// The 64-bit two's-complement pattern of an integer value (truncated by the
/// caller to the column width, as MySQL's binary protocol expects).
fn int_bits(value: &Value, ty: ColumnType) -> Result<u64, EncodeError> {
    match value {
        Value::Int(v) => Ok(*v as u64),
        Value::UInt(v) => Ok(*v),
        Value::Decimal(d) => d
            .parse::<i64>()
            .map(|v| v as u64)
            .or_else(|_| d.parse::<u64>())
            .map_err(|_| mismatch(value, ty)),
        other => Err(mismatch(other, ty)),
    }
}

fn float_value(value: &Value, ty: ColumnType) -> Result<f64, EncodeError> {
    match value {
        Value::Float(v) => Ok(f64::from(*v)),
        Value::Double(v) => Ok(*v),
        Value::Int(v) => Ok(*v as f64),
        Value::UInt(v) => Ok(*v as f64),
        Value::Decimal(d) => d.parse().map_err(|_| mismatch(value, ty)),
        other => Err(mismatch(other, ty)),
    }
}

fn encode_datetime(out: &mut Vec<u8>, dt: &DateTime) {
    let has_time = dt.hour != 0 || dt.minute != 0 || dt.second != 0;
    let len: u8 = if dt.micros != 0 {
        11
    } else if has_time {
        7
    } else if dt.date != Date::default() {
        4
    } else {
        0
    };
    out.push(len);
    if len >= 4 {
        out.extend_from_slice(&dt.date.year.to_le_bytes());
        out.extend_from_slice(&[dt.date.month, dt.date.day]);
    }
    if len >= 7 {
        out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
    }
    if len == 11 {
        out.extend_from_slice(&dt.micros.to_le_bytes());
    }
}

fn encode_time(out: &mut Vec<u8>, t: &Time) {
    let zero = t.hours == 0 && t.minutes == 0 && t.seconds == 0 && t.micros == 0;
    if zero {
        out.push(0);
        return;
    }
    out.push(if t.micros != 0 { 12 } else { 8 });
    out.push(u8::from(t.negative));
    out.extend_from_slice(&(t.hours / 24).to_le_bytes());
    out.extend_from_slice(&[(t.hours % 24) as u8, t.minutes, t.seconds]);
    if t.micros != 0 {
        out.extend_from_slice(&t.micros.to_le_bytes());
    }
}

/// Reads one binary-protocol parameter of type byte `ty` (with the unsigned
/// flag `unsigned`) from `buf`. Returns `None` on truncated data or an
/// unknown type byte.
pub fn decode_binary_param(ty: u8, unsigned: bool, buf: &mut ParseBuf<'_>) -> Option<Value> {
    use ColumnType::*;
    let ty = ColumnType::try_from(ty).ok()?;
    Some(match ty {
        MYSQL_TYPE_NULL => Value::Null,
        MYSQL_TYPE_TINY => {
            let b = buf.checked_eat_u8()?;
            int_value(unsigned, u64::from(b), i64::from(b as i8))
        }
        MYSQL_TYPE_SHORT | MYSQL_TYPE_YEAR => {
            let v = buf.checked_eat_u16_le()?;
            int_value(unsigned, u64::from(v), i64::from(v as i16))
        }
        MYSQL_TYPE_LONG | MYSQL_TYPE_INT24 => {
            let v = buf.checked_eat_u32_le()?;
            int_value(unsigned, u64::from(v), i64::from(v as i32))
        }
        MYSQL_TYPE_LONGLONG => {
            let v = buf.checked_eat_u64_le()?;
            int_value(unsigned, v, v as i64)
        }
        MYSQL_TYPE_FLOAT => Value::Float(buf.checked_eat_f32_le()?),
        MYSQL_TYPE_DOUBLE => Value::Double(buf.checked_eat_f64_le()?),
        MYSQL_TYPE_DECIMAL | MYSQL_TYPE_NEWDECIMAL => {
            let text = buf.checked_eat_lenenc_str()?;
            Value::Decimal(String::from_utf8(text.to_vec()).ok()?)
        }
        MYSQL_TYPE_DATE | MYSQL_TYPE_NEWDATE => {
            let dt = decode_datetime(buf)?;
            let no_time = dt.hour == 0 && dt.minute == 0 && dt.second == 0 && dt.micros == 0;
            if no_time {
                Value::Date(dt.date)
            } else {
                Value::DateTime(dt)
            }
        }
        MYSQL_TYPE_DATETIME
        | MYSQL_TYPE_TIMESTAMP
        | MYSQL_TYPE_DATETIME2
        | MYSQL_TYPE_TIMESTAMP2 => Value::DateTime(decode_datetime(buf)?),
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => Value::Time(decode_time(buf)?),
        MYSQL_TYPE_VARCHAR
        | MYSQL_TYPE_VAR_STRING
        | MYSQL_TYPE_STRING
        | MYSQL_TYPE_TINY_BLOB
        | MYSQL_TYPE_MEDIUM_BLOB
        | MYSQL_TYPE_LONG_BLOB
        | MYSQL_TYPE_BLOB
        | MYSQL_TYPE_JSON
        | MYSQL_TYPE_ENUM
        | MYSQL_TYPE_SET
        | MYSQL_TYPE_BIT
        | MYSQL_TYPE_GEOMETRY
        | MYSQL_TYPE_VECTOR => Value::Bytes(buf.checked_eat_lenenc_str()?.to_vec()),
        MYSQL_TYPE_TYPED_ARRAY | MYSQL_TYPE_UNKNOWN => return None,
    })
}

fn int_value(unsigned: bool, as_unsigned: u64, as_signed: i64) -> Value {
    if unsigned {
        Value::UInt(as_unsigned)
    } else {
        Value::Int(as_signed)
    }
}

fn decode_datetime(buf: &mut ParseBuf<'_>) -> Option<DateTime> {
    let len = buf.checked_eat_u8()?;
    let body = buf.checked_eat(usize::from(len))?;
    let mut dt = DateTime::default();
    match len {
        0 => {}
        4 | 7 | 11 => {
            dt.date = Date {
                year: u16::from_le_bytes([body[0], body[1]]),
                month: body[2],
                day: body[3],
            };
            if len >= 7 {
                (dt.hour, dt.minute, dt.second) = (body[4], body[5], body[6]);
            }
            if len == 11 {
                dt.micros = u32::from_le_bytes([body[7], body[8], body[9], body[10]]);
            }
        }
        _ => return None,
    }
    Some(dt)
}

fn decode_time(buf: &mut ParseBuf<'_>) -> Option<Time> {
    let len = buf.checked_eat_u8()?;
    let body = buf.checked_eat(usize::from(len))?;
    let mut t = Time::default();
    match len {
        0 => {}
        8 | 12 => {
            t.negative = body[0] != 0;
            let days = u32::from_le_bytes([body[1], body[2], body[3], body[4]]);
            t.hours = days.checked_mul(24)?.checked_add(u32::from(body[5]))?;
            (t.minutes, t.seconds) = (body[6], body[7]);
            if len == 12 {
                t.micros = u32::from_le_bytes([body[8], body[9], body[10], body[11]]);
            }
        }
        _ => return None,
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ColumnType::*;

    fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> DateTime {
        DateTime {
            date: Date {
                year: y,
                month: mo,
                day: d,
            },
            hour: h,
            minute: mi,
            second: s,
            micros: us,
        }
    }

    fn text(v: &Value, decimals: u8) -> String {
        String::from_utf8(v.to_text(decimals).unwrap_or_default()).unwrap_or_default()
    }

    #[test]
    fn text_forms_match_mysql() {
        assert_eq!(text(&Value::Int(-5), 0), "-5");
        assert_eq!(text(&Value::UInt(u64::MAX), 0), "18446744073709551615");
        assert_eq!(text(&Value::Double(1.5), 31), "1.5");
        assert_eq!(text(&Value::Double(1.5), 3), "1.500");
        assert_eq!(text(&Value::Decimal("-0.10".into()), 2), "-0.10");
        let v = Value::DateTime(dt(2024, 2, 29, 23, 5, 9, 120_000));
        assert_eq!(text(&v, 0), "2024-02-29 23:05:09");
        assert_eq!(text(&v, 3), "2024-02-29 23:05:09.120");
        assert_eq!(text(&v, 31), "2024-02-29 23:05:09.120000");
        let t = Time {
            negative: true,
            hours: 838,
            minutes: 59,
            seconds: 58,
            micros: 0,
        };
        assert_eq!(text(&Value::Time(t), 0), "-838:59:58");
        assert_eq!(Value::Null.to_text(0), None);
    }

    #[test]
    fn binary_encoding_follows_the_column_type() -> Result<(), EncodeError> {
        let mut out = Vec::new();
        encode_binary(&mut out, &Value::Int(-2), MYSQL_TYPE_TINY)?;
        encode_binary(&mut out, &Value::Int(-2), MYSQL_TYPE_SHORT)?;
        encode_binary(&mut out, &Value::UInt(7), MYSQL_TYPE_LONGLONG)?;
        assert_eq!(out, [0xfe, 0xfe, 0xff, 7, 0, 0, 0, 0, 0, 0, 0]);
        out.clear();
        encode_binary(&mut out, &Value::Int(42), MYSQL_TYPE_VAR_STRING)?;
        assert_eq!(out, b"\x0242");
        assert!(encode_binary(&mut out, &Value::from("x"), MYSQL_TYPE_LONG).is_err());
        Ok(())
    }

    #[test]
    fn params_round_trip_through_binary_encoding() -> Result<(), EncodeError> {
        let cases = [
            (Value::Int(-3), MYSQL_TYPE_TINY, false),
            (Value::UInt(250), MYSQL_TYPE_TINY, true),
            (Value::Int(-300), MYSQL_TYPE_SHORT, false),
            (Value::Int(-70_000), MYSQL_TYPE_LONG, false),
            (Value::UInt(u64::MAX), MYSQL_TYPE_LONGLONG, true),
            (Value::Float(0.25), MYSQL_TYPE_FLOAT, false),
            (Value::Double(-1e300), MYSQL_TYPE_DOUBLE, false),
            (
                Value::Decimal("123.4500".into()),
                MYSQL_TYPE_NEWDECIMAL,
                false,
            ),
            (Value::Bytes(vec![0, 255, 10]), MYSQL_TYPE_BLOB, false),
            (
                Value::Date(dt(2001, 1, 2, 0, 0, 0, 0).date),
                MYSQL_TYPE_DATE,
                false,
            ),
            (
                Value::DateTime(dt(2001, 1, 2, 3, 4, 5, 0)),
                MYSQL_TYPE_DATETIME,
                false,
            ),
            (
                Value::DateTime(dt(2001, 1, 2, 3, 4, 5, 6)),
                MYSQL_TYPE_TIMESTAMP,
                false,
            ),
            (
                Value::DateTime(DateTime::default()),
                MYSQL_TYPE_DATETIME,
                false,
            ),
            (
                Value::Time(Time {
                    negative: true,
                    hours: 100,
                    minutes: 2,
                    seconds: 3,
                    micros: 4,
                }),
                MYSQL_TYPE_TIME,
                false,
            ),
            (Value::Time(Time::default()), MYSQL_TYPE_TIME, false),
        ];
        for (value, ty, unsigned) in cases {
            let mut out = Vec::new();
            encode_binary(&mut out, &value, ty)?;
            let mut buf = ParseBuf(&out);
            let back = decode_binary_param(ty as u8, unsigned, &mut buf);
            assert_eq!(back.as_ref(), Some(&value), "type {ty:?}");
            assert!(buf.0.is_empty(), "type {ty:?} left bytes");
        }
        Ok(())
    }

    #[test]
    fn truncated_or_unknown_params_are_rejected() {
        assert_eq!(
            decode_binary_param(MYSQL_TYPE_LONG as u8, false, &mut ParseBuf(&[1, 2])),
            None
        );
        assert_eq!(
            decode_binary_param(0x55, false, &mut ParseBuf(&[1, 2, 3, 4])),
            None
        );
        assert_eq!(
            decode_binary_param(
                MYSQL_TYPE_DATETIME as u8,
                false,
                &mut ParseBuf(&[5, 1, 2, 3, 4, 5])
            ),
            None
        );
        assert_eq!(
            decode_binary_param(MYSQL_TYPE_BLOB as u8, false, &mut ParseBuf(&[9, 1])),
            None
        );
    }
}
