//! Storing into temporal, YEAR, ENUM, SET and BIT columns (see the parent
//! module for the rules and messages).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Date, DateTime, Value, TIME_MAX_MICROS};

use super::super::temporal::{self, datetime_from_number, parse_datetime, parse_time};
use super::{f64_to_i128, store_int, value_to_string, Ctx};
use crate::error::{code, SqlError};
use crate::value::number::{parse_number_prefix, prefix_to_f64};

fn temporal_kind(ty: &ColumnType) -> &'static str {
    match ty {
        ColumnType::Date => "date",
        ColumnType::Time { .. } => "time",
        _ => "datetime",
    }
}

pub(super) fn store_datetime(
    c: &mut Ctx<'_, '_>,
    v: &Value,
    ty: &ColumnType,
) -> Result<Value, SqlError> {
    let parsed: Option<(DateTime, bool)> = match v {
        Value::Date(d) => Some((
            DateTime {
                date: *d,
                ..DateTime::default()
            },
            false,
        )),
        Value::Datetime(dt) => Some((*dt, false)),
        Value::Timestamp(ts) => Some((temporal::timestamp_to_datetime(ts), false)),
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            parse_datetime(&s).map(|p| (p.value, p.truncated))
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            let s = value_to_string(v);
            let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
            let micros = format!("{frac:0<6}")[..6].parse().unwrap_or(0);
            int.parse::<u64>()
                .ok()
                .and_then(|n| datetime_from_number(n, micros, true))
                .map(|p| {
                    if p.truncated {
                        // A date-only number's fraction is dropped (a note).
                        let m = c.truncated_msg();
                        c.note(code::WARN_DATA_TRUNCATED, m);
                    }
                    (p.value, false)
                })
        }
        _ => None,
    };
    let Some((mut dt, truncated)) = parsed else {
        c.incorrect(
            code::TRUNCATED_WRONG_VALUE,
            temporal_kind(ty),
            &value_to_string(v),
        )?;
        return Ok(zero_temporal(ty));
    };
    if truncated {
        c.truncated()?;
    }
    let fsp = crate::value::type_fsp(ty);
    let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
    dt.micros -= dt.micros % unit;
    Ok(match ty {
        ColumnType::Date => {
            if (dt.hour, dt.minute, dt.second, dt.micros) != (0, 0, 0, 0) {
                let m = c.truncated_msg();
                c.note(code::WARN_DATA_TRUNCATED, m);
            }
            Value::Date(dt.date)
        }
        ColumnType::Timestamp { .. } => match temporal::datetime_to_timestamp(&dt) {
            Some(ts) => Value::Timestamp(ts),
            None => {
                c.out_of_range()?;
                zero_temporal(ty)
            }
        },
        _ => Value::Datetime(dt),
    })
}

fn zero_temporal(ty: &ColumnType) -> Value {
    match ty {
        ColumnType::Date => Value::Date(Date::default()),
        ColumnType::Timestamp { .. } => Value::Timestamp(Default::default()),
        ColumnType::Time { .. } => Value::Time(0),
        _ => Value::Datetime(DateTime::default()),
    }
}

/// A number past 9999999 (HHHMMSS) as a TIME: MariaDB reads it as a
/// DATETIME number and keeps its time (a note), or stores 00:00:00 with
/// "Data truncated" when it is no date and time; `None` for other values.
/// Numbers past 99991231235959 and negative ones are out of range as times.
fn time_from_datetime_number(c: &mut Ctx<'_, '_>, v: &Value) -> Result<Option<i64>, SqlError> {
    if !matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_)
    ) {
        return Ok(None);
    }
    // A real too large for 14 digits (1e20) is out of TIME's range.
    if let Value::Double(f) = v {
        if f.abs() >= 1e14 {
            c.out_of_range()?;
            return Ok(Some(if *f < 0.0 {
                -TIME_MAX_MICROS
            } else {
                TIME_MAX_MICROS
            }));
        }
    }
    let text = value_to_string(v);
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let Ok(n) = int.parse::<u64>() else {
        return Ok(None);
    };
    if !(10_000_000..100_000_000_000_000).contains(&n) {
        return Ok(None);
    }
    let micros = format!("{frac:0<6}")[..6].parse().unwrap_or(0);
    match datetime_from_number(n, micros, true) {
        Some(p) => {
            let m = c.truncated_msg();
            c.note(code::WARN_DATA_TRUNCATED, m);
            Ok(Some(time_of(&p.value)))
        }
        None => {
            c.truncated()?;
            Ok(Some(0))
        }
    }
}

pub(super) fn store_time(c: &mut Ctx<'_, '_>, v: &Value, fsp: u8) -> Result<Value, SqlError> {
    if let Some(us) = time_from_datetime_number(c, v)? {
        let unit = 10i64.pow(6 - u32::from(fsp.min(6)));
        return Ok(Value::Time(us - us % unit));
    }
    let parsed = match v {
        Value::Time(us) => Some((*us, false, false)),
        Value::Datetime(dt) => Some((time_of(dt), false, false)),
        Value::Timestamp(ts) => Some((time_of(&temporal::timestamp_to_datetime(ts)), false, false)),
        Value::Date(_) => Some((0, false, false)),
        other => parse_time(&value_to_string(other)),
    };
    let Some((mut us, out_of_range, truncated)) = parsed else {
        c.incorrect(code::TRUNCATED_WRONG_VALUE, "time", &value_to_string(v))?;
        return Ok(Value::Time(0));
    };
    if out_of_range || us.abs() > TIME_MAX_MICROS {
        if c.t.strict {
            c.incorrect(code::TRUNCATED_WRONG_VALUE, "time", &value_to_string(v))?;
        }
        c.out_of_range()?;
        us = us.clamp(-TIME_MAX_MICROS, TIME_MAX_MICROS);
    } else if truncated {
        c.truncated()?;
    }
    let unit = 10i64.pow(6 - u32::from(fsp.min(6)));
    Ok(Value::Time(us - us % unit))
}

fn time_of(dt: &DateTime) -> i64 {
    (i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second)) * 1_000_000
        + i64::from(dt.micros)
}

pub(super) fn store_year(c: &mut Ctx<'_, '_>, v: &Value) -> Result<Value, SqlError> {
    let n: i128 = match v {
        Value::Year(y) => return Ok(Value::Year(*y)),
        Value::Date(d) => return Ok(Value::Year(d.year)),
        Value::Datetime(dt) => return Ok(Value::Year(dt.date.year)),
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            let p = parse_number_prefix(&s);
            if p.text.is_empty() {
                c.incorrect(code::TRUNCATED_WRONG_VALUE_FOR_FIELD, "integer", &s)?;
                return Ok(Value::Year(0));
            }
            if p.truncated {
                c.truncated()?;
            }
            let n = f64_to_i128(prefix_to_f64(&p));
            // A string zero means 2000; '0000', and a zero with text
            // after it ('0abc'), mean 0.
            if n == 0 && !p.truncated && p.text.trim_start_matches(['+', '-']).len() < 4 {
                return Ok(Value::Year(2000));
            }
            n
        }
        other => match store_int(c, other, 8, false)? {
            Value::Int(i) => i128::from(i),
            _ => 0,
        },
    };
    let y = match n {
        0 => 0,
        1..=69 => 2000 + n,
        70..=99 => 1900 + n,
        _ => n,
    };
    if y != 0 && !(1901..=2155).contains(&y) {
        c.out_of_range()?;
        return Ok(Value::Year(0));
    }
    Ok(Value::Year(y as u16))
}

fn member_index(members: &[String], s: &str, collation: Collation) -> Option<usize> {
    let s = s.trim_end_matches(' ');
    members
        .iter()
        .position(|m| collation.compare(m.trim_end_matches(' '), s).is_eq())
}

/// A number as ENUM and SET columns take it: DECIMAL, FLOAT and DOUBLE
/// values cut toward zero (MariaDB stores them through a double and a
/// `(longlong)` cast), integers as they are.
fn member_number(c: &mut Ctx<'_, '_>, v: &Value) -> Result<i128, SqlError> {
    Ok(match v {
        Value::Int(i) => i128::from(*i),
        Value::UInt(u) | Value::Bit(u) | Value::Set(u) => i128::from(*u),
        Value::Enum(i) => i128::from(*i),
        Value::Decimal(d) => f64_to_i128(d.to_string().parse::<f64>().unwrap_or(0.0).trunc()),
        Value::Double(f) => f64_to_i128(f.trunc()),
        Value::Float(f) => f64_to_i128(f64::from(*f).trunc()),
        other => match store_int(c, other, 8, false)? {
            Value::Int(i) => i128::from(i),
            _ => 0,
        },
    })
}

/// A string shorter than `max_len` (after trailing spaces are cut when
/// `trim`) as the number MariaDB reads from it when it names no member
/// ("for reading numbers with LOAD DATA", `strntoull`): leading white
/// space, an optional sign, then only digits. A minus sign negates in
/// two's complement (`'-1'` is every bit); too many digits read as none.
fn digits_number(s: &str, max_len: usize, trim: bool) -> Option<u64> {
    let s = if trim { s.trim_end_matches(' ') } else { s };
    if s.is_empty() || s.len() >= max_len {
        return None;
    }
    let body = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, digits) = match body.as_bytes().first() {
        Some(b'-') => (true, &body[1..]),
        Some(b'+') => (false, &body[1..]),
        _ => (false, body),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(if negative { n.wrapping_neg() } else { n })
}

/// DATE, DATETIME, TIMESTAMP and TIME values go into ENUM and SET columns
/// as their text, as MariaDB stores them (not as their numbers).
fn temporal_as_text(v: &Value) -> Option<Value> {
    matches!(
        v,
        Value::Date(_) | Value::Datetime(_) | Value::Timestamp(_) | Value::Time(_)
    )
    .then(|| Value::Str(value_to_string(v)))
}

pub(super) fn store_enum(
    c: &mut Ctx<'_, '_>,
    v: &Value,
    members: &[String],
    collation: Collation,
) -> Result<Value, SqlError> {
    if let Some(text) = temporal_as_text(v) {
        return store_enum(c, &text, members, collation);
    }
    let count = members.len() as i128;
    let idx: i128 = match v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            match member_index(members, &s, collation) {
                Some(i) => i as i128 + 1,
                None => digits_number(&s, 6, true).map_or(0, i128::from),
            }
        }
        Value::Enum(i) => i128::from(*i),
        other => member_number(c, other)?,
    };
    if (1..=count).contains(&idx) {
        return Ok(Value::Enum(idx as u16));
    }
    c.truncated()?;
    Ok(Value::Enum(0))
}

pub(super) fn store_set(
    c: &mut Ctx<'_, '_>,
    v: &Value,
    members: &[String],
    collation: Collation,
) -> Result<Value, SqlError> {
    if let Some(text) = temporal_as_text(v) {
        return store_set(c, &text, members, collation);
    }
    let n = members.len().min(64);
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    match v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            let mut bits = 0u64;
            let mut bad = false;
            for part in s.split(',').filter(|p| !p.is_empty()) {
                match member_index(members, part, collation) {
                    Some(i) if i < 64 => bits |= 1 << i,
                    _ => bad = true,
                }
            }
            if bits == 0 && !s.is_empty() {
                // No member named: the text may be the set's number.
                // Bits past the members are dropped, with 1265, as
                // MariaDB keeps the others ('10' of three members is 'b').
                return match digits_number(&s, 22, false) {
                    Some(u) => {
                        if u & !all != 0 {
                            c.truncated()?;
                        }
                        Ok(Value::Set(u & all))
                    }
                    None => {
                        c.truncated()?;
                        Ok(Value::Set(0))
                    }
                };
            }
            if bad {
                c.truncated()?;
            }
            Ok(Value::Set(bits))
        }
        Value::Set(b) => Ok(Value::Set(b & all)),
        other => {
            // A negative number keeps its two's complement bits.
            let u = member_number(c, other)? as i64 as u64;
            if u & !all != 0 {
                c.truncated()?;
            }
            Ok(Value::Set(u & all))
        }
    }
}

pub(super) fn store_bit(c: &mut Ctx<'_, '_>, v: &Value, bits: u8) -> Result<Value, SqlError> {
    let max = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let n: u64 = match v {
        Value::Bit(b) => *b,
        Value::Bytes(b) => {
            let b = &b[b.iter().take_while(|x| **x == 0).count()..];
            if b.len() > 8 {
                c.out_of_range()?;
                return Ok(Value::Bit(max));
            }
            b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x))
        }
        Value::Str(s) => {
            let b = s.as_bytes();
            if b.len() > 8 {
                c.out_of_range()?;
                return Ok(Value::Bit(max));
            }
            b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x))
        }
        // A negative integer is its 64 bits (all of them past the
        // column's width: out of range, the column's largest value).
        Value::Int(i) if *i < 0 => *i as u64,
        other => match store_int(c, other, 8, true)? {
            Value::UInt(u) => u,
            _ => 0,
        },
    };
    if n > max {
        c.out_of_range()?;
        return Ok(Value::Bit(max));
    }
    Ok(Value::Bit(n))
}

/// A UUID column takes a UUID's text, or a binary string of 16 bytes as the
/// UUID's bytes (MariaDB's binary form); the value is stored in its record
/// form (`larch_engine::record::uuid`). Text that is not a UUID is 1292 (in
/// non-strict mode a warning and NULL); a number or a temporal value cannot
/// be a UUID at all: 4078 (a warning and the nil UUID in non-strict mode).
pub(super) fn store_uuid(c: &mut Ctx<'_, '_>, v: &Value) -> Result<Value, SqlError> {
    use larch_engine::record::uuid;
    let bytes: &[u8] = match v {
        Value::Str(s) => s.as_bytes(),
        Value::Bytes(b) => b,
        other => {
            let t = c.t;
            let kind = match other {
                Value::Int(_) | Value::UInt(_) => "int",
                Value::Decimal(_) => "decimal",
                Value::Float(_) => "float",
                Value::Double(_) => "double",
                Value::Date(_) => "date",
                Value::Time(_) => "time",
                Value::Timestamp(_) => "timestamp",
                Value::Year(_) => "year",
                _ => "datetime",
            };
            c.issue(
                code::ILLEGAL_PARAMETER_DATA_TYPES,
                format!(
                    "Cannot cast '{kind}' as 'uuid' in assignment of `{}`.`{}`.`{}`",
                    t.db, t.table, t.column
                ),
            )?;
            c.incorrect(code::TRUNCATED_WRONG_VALUE, "uuid", &value_to_string(v))?;
            return Ok(Value::Bytes(vec![0; uuid::UUID_BYTES]));
        }
    };
    if let Value::Bytes(b) = v {
        if let Ok(m) = <&[u8; uuid::UUID_BYTES]>::try_from(b.as_slice()) {
            return Ok(Value::Bytes(uuid::to_record(m).to_vec()));
        }
    }
    match uuid::record_from_text(bytes) {
        Some(r) => Ok(Value::Bytes(r.to_vec())),
        None => {
            let shown = String::from_utf8_lossy(bytes).into_owned();
            c.incorrect(code::TRUNCATED_WRONG_VALUE, "uuid", &shown)?;
            Ok(Value::Null)
        }
    }
}
