//! Conversions between the SQL layer's engine types and the protocol's:
//! result columns to column definitions, row values to protocol values (text
//! and binary protocol), prepared-statement parameters back to engine values,
//! stored account secrets to credentials, and SQL errors to ERR packets.
//!
//! Values: in the text protocol every value is the text
//! `larch_sql::value::to_text` renders (MySQL's exact formats, so FLOAT and
//! DOUBLE print as MySQL prints them); in the binary protocol values keep
//! their type (integers, floats, temporal structs), DECIMAL, ENUM, SET and
//! BIT travel as bytes (BIT big-endian over `ceil(n/8)` bytes, as MySQL).
//! TIMESTAMP values are shown in UTC, as `to_text` does.
//!
//! Column definitions are in `column` (the type mapping table is there).

mod column;
#[cfg(test)]
mod tests;

pub use column::column_def;

use larch_engine::record::value::{self as ev, ColumnType as EType, Value as EValue};
use larch_sql::result::ResultColumn;
use larch_sql::SqlError;
use larch_wire::{ColumnType as WType, Credential, MysqlError};
use larch_wire::{Date as WDate, DateTime as WDateTime, Time as WTime, Value as WValue};

/// A SQL-layer error as the client sees it.
pub fn mysql_error(e: &SqlError) -> MysqlError {
    MysqlError::new(e.code(), e.sqlstate(), e.message())
}

/// The credential for an account's stored secret: empty is an empty
/// `mysql_native_password`; 20 raw bytes are `SHA1(SHA1(password))`; text
/// `*<40 hex>` is MySQL's native `authentication_string`; `$A$...` is a
/// `caching_sha2_password` crypt string. Anything else matches no password.
pub fn credential(stored: &[u8]) -> Option<Credential> {
    if stored.is_empty() {
        return Some(Credential::NativePassword(None));
    }
    if let Ok(hash) = <[u8; 20]>::try_from(stored) {
        if !stored.starts_with(b"*") {
            return Some(Credential::NativePassword(Some(hash)));
        }
    }
    let text = std::str::from_utf8(stored).ok()?;
    if text.starts_with('*') {
        Credential::native_from_hex(text)
    } else if text.starts_with("$A$") {
        Credential::caching_sha2_from_auth_string(text)
    } else {
        None
    }
}

/// A value for the text protocol: MySQL's text form as bytes, as result
/// column `c` shows it (fixed decimals, ZEROFILL).
pub fn text_value(v: &EValue, c: &ResultColumn) -> WValue {
    match larch_sql::value::column_text(v, c) {
        None => WValue::Null,
        Some(bytes) => WValue::Bytes(bytes),
    }
}

/// [`text_value`] (or, for the binary protocol, [`binary_value`]) of a
/// value the caller gives up: a string or byte string moves into the
/// protocol value instead of being copied, where the result would be those
/// same bytes.
pub fn owned_value(v: EValue, c: &ResultColumn, wire: WType, binary: bool) -> WValue {
    let as_bytes = !binary || !converts_strings(wire);
    match v {
        EValue::Str(s) if as_bytes => WValue::Bytes(s.into_bytes()),
        EValue::Bytes(b) if as_bytes => WValue::Bytes(b),
        v if binary => binary_value(&v, &c.ty, wire),
        v => text_value(&v, c),
    }
}

/// True for the binary protocol's column types into which [`fit`] turns a
/// string value (numbers and temporal types); strings stay bytes in the
/// others.
fn converts_strings(wire: WType) -> bool {
    use WType::*;
    matches!(
        wire,
        MYSQL_TYPE_TINY
            | MYSQL_TYPE_SHORT
            | MYSQL_TYPE_INT24
            | MYSQL_TYPE_LONG
            | MYSQL_TYPE_LONGLONG
            | MYSQL_TYPE_YEAR
            | MYSQL_TYPE_FLOAT
            | MYSQL_TYPE_DOUBLE
            | MYSQL_TYPE_DATE
            | MYSQL_TYPE_DATETIME
            | MYSQL_TYPE_TIMESTAMP
            | MYSQL_TYPE_TIME
    )
}

fn wire_date(d: &ev::Date) -> WDate {
    WDate {
        year: d.year,
        month: d.month,
        day: d.day,
    }
}

fn wire_datetime(dt: &ev::DateTime) -> WDateTime {
    WDateTime {
        date: wire_date(&dt.date),
        hour: dt.hour,
        minute: dt.minute,
        second: dt.second,
        micros: dt.micros,
    }
}

fn wire_time(us: i64) -> WTime {
    let m = us.unsigned_abs();
    let secs = m / 1_000_000;
    WTime {
        negative: us < 0,
        hours: u32::try_from(secs / 3600).unwrap_or(u32::MAX),
        minutes: (secs / 60 % 60) as u8,
        seconds: (secs % 60) as u8,
        micros: (m % 1_000_000) as u32,
    }
}

/// A value for the binary protocol, in a column announced as `wire` (the
/// protocol type of [`column_def`] for `ty`).
pub fn binary_value(v: &EValue, ty: &EType, wire: WType) -> WValue {
    let natural = match v {
        EValue::Null => return WValue::Null,
        EValue::Int(i) => WValue::Int(*i),
        EValue::UInt(u) => WValue::UInt(*u),
        EValue::Float(f) => WValue::Float(*f),
        EValue::Double(d) => WValue::Double(*d),
        EValue::Year(y) => WValue::UInt(u64::from(*y)),
        EValue::Date(d) => WValue::Date(wire_date(d)),
        EValue::Datetime(dt) => WValue::DateTime(wire_datetime(dt)),
        EValue::Timestamp(ts) => WValue::DateTime(wire_datetime(
            &larch_sql::value::temporal::timestamp_to_datetime(ts),
        )),
        EValue::Time(us) => WValue::Time(wire_time(*us)),
        EValue::Decimal(_) => {
            let text = larch_sql::value::to_text(v, ty).unwrap_or_default();
            WValue::Decimal(String::from_utf8_lossy(&text).into_owned())
        }
        EValue::Bytes(_) | EValue::Str(_) | EValue::Enum(_) | EValue::Set(_) | EValue::Bit(_) => {
            match larch_sql::value::to_text(v, ty) {
                None => WValue::Null,
                Some(bytes) => WValue::Bytes(bytes),
            }
        }
    };
    fit(natural, wire, v, ty)
}

/// Makes `value` encodable in a column of protocol type `wire` (a value whose
/// kind differs from its column's, e.g. a string in an integer column of an
/// expression, is converted through its text form, as MySQL would).
fn fit(value: WValue, wire: WType, v: &EValue, ty: &EType) -> WValue {
    use WType::*;
    let text = || {
        larch_sql::value::to_text(v, ty)
            .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
            .unwrap_or_default()
    };
    match wire {
        MYSQL_TYPE_TINY | MYSQL_TYPE_SHORT | MYSQL_TYPE_INT24 | MYSQL_TYPE_LONG
        | MYSQL_TYPE_LONGLONG | MYSQL_TYPE_YEAR => match value {
            WValue::Int(_) | WValue::UInt(_) => value,
            WValue::Float(f) => WValue::Int(f.round() as i64),
            WValue::Double(d) => WValue::Int(d.round() as i64),
            _ => {
                let t = text();
                t.parse::<i64>()
                    .map(WValue::Int)
                    .or_else(|_| t.parse::<u64>().map(WValue::UInt))
                    .or_else(|_| t.parse::<f64>().map(|d| WValue::Int(d.round() as i64)))
                    .unwrap_or(WValue::Int(0))
            }
        },
        MYSQL_TYPE_FLOAT | MYSQL_TYPE_DOUBLE => match value {
            WValue::Float(_) | WValue::Double(_) | WValue::Int(_) | WValue::UInt(_) => value,
            _ => WValue::Double(text().parse::<f64>().unwrap_or(0.0)),
        },
        MYSQL_TYPE_DATE | MYSQL_TYPE_DATETIME | MYSQL_TYPE_TIMESTAMP => match value {
            WValue::Date(_) | WValue::DateTime(_) => value,
            _ => WValue::DateTime(WDateTime::default()),
        },
        MYSQL_TYPE_TIME => match value {
            WValue::Time(_) => value,
            _ => WValue::Time(WTime::default()),
        },
        // Strings, blobs, decimals, enum, set, bit: any value encodes as text.
        _ => value,
    }
}

/// An engine value for a prepared-statement parameter. Strings that are
/// valid UTF-8 become character strings (the client sent them in its
/// character set, utf8mb4 for every client Larch serves); other bytes stay
/// binary.
pub fn param_value(v: &WValue) -> EValue {
    match v {
        WValue::Null => EValue::Null,
        WValue::Int(i) => EValue::Int(*i),
        WValue::UInt(u) => EValue::UInt(*u),
        WValue::Float(f) => EValue::Float(*f),
        WValue::Double(d) => EValue::Double(*d),
        WValue::Decimal(text) => match ev::Decimal::parse(text) {
            Ok(d) => EValue::Decimal(d),
            Err(_) => EValue::Str(text.clone()),
        },
        WValue::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => EValue::Str(s.to_owned()),
            Err(_) => EValue::Bytes(b.clone()),
        },
        WValue::Date(d) => EValue::Date(ev::Date {
            year: d.year,
            month: d.month,
            day: d.day,
        }),
        WValue::DateTime(dt) => EValue::Datetime(ev::DateTime {
            date: ev::Date {
                year: dt.date.year,
                month: dt.date.month,
                day: dt.date.day,
            },
            hour: dt.hour,
            minute: dt.minute,
            second: dt.second,
            micros: dt.micros,
        }),
        WValue::Time(t) => {
            let secs = i64::from(t.hours) * 3600 + i64::from(t.minutes) * 60 + i64::from(t.seconds);
            let us = secs * 1_000_000 + i64::from(t.micros);
            EValue::Time(if t.negative { -us } else { us })
        }
    }
}
