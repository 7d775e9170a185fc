//! MySQL's implicit conversions during evaluation: any value read as a number,
//! a double, an integer, a string, a datetime or a truth value, with the
//! warnings MySQL raises (1292 "Truncated incorrect DOUBLE value: 'x'",
//! "Truncated incorrect INTEGER value", "Incorrect datetime value").

use larch_engine::record::value::{ColumnType, Date, DateTime, Decimal, Value, TIME_MAX_MICROS};

use super::decimal;
use super::EvalContext;
use crate::error::code;
use crate::value::number::{parse_number_prefix, prefix_to_decimal, prefix_to_f64};
use crate::value::store::{decimal_to_i128, f64_to_decimal, f64_to_i128, value_to_string};
use crate::value::temporal::{self, datetime_from_number, parse_datetime, parse_time};

/// A number in one of MySQL's numeric evaluation types.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    Int(i64),
    UInt(u64),
    Dec(Decimal),
    Dbl(f64),
}

impl Num {
    /// The number as a value.
    pub fn into_value(self) -> Value {
        match self {
            Num::Int(i) => Value::Int(i),
            Num::UInt(u) => Value::UInt(u),
            Num::Dec(d) => Value::Decimal(d),
            Num::Dbl(f) => Value::Double(f),
        }
    }

    pub fn to_f64(&self) -> f64 {
        match self {
            Num::Int(i) => *i as f64,
            Num::UInt(u) => *u as f64,
            Num::Dec(d) => decimal::to_f64(d),
            Num::Dbl(f) => *f,
        }
    }

    pub fn to_decimal(&self) -> Decimal {
        match self {
            Num::Int(i) => Decimal::from_i128(i128::from(*i), 0),
            Num::UInt(u) => Decimal::from_i128(i128::from(*u), 0),
            Num::Dec(d) => d.clone(),
            Num::Dbl(f) => f64_to_decimal(*f).unwrap_or_else(Decimal::zero),
        }
    }

    /// Rounded to an integer (decimals half away from zero, doubles to even).
    pub fn to_i128(&self) -> i128 {
        match self {
            Num::Int(i) => i128::from(*i),
            Num::UInt(u) => i128::from(*u),
            Num::Dec(d) => decimal_to_i128(d),
            Num::Dbl(f) => f64_to_i128(*f),
        }
    }

    pub fn is_zero(&self) -> bool {
        match self {
            Num::Int(i) => *i == 0,
            Num::UInt(u) => *u == 0,
            Num::Dec(d) => d.is_zero(),
            Num::Dbl(f) => *f == 0.0,
        }
    }
}

fn dt_number(dt: &DateTime) -> Num {
    let d = &dt.date;
    let n = i64::from(d.year) * 10_000_000_000
        + i64::from(d.month) * 100_000_000
        + i64::from(d.day) * 1_000_000
        + i64::from(dt.hour) * 10_000
        + i64::from(dt.minute) * 100
        + i64::from(dt.second);
    if dt.micros == 0 {
        Num::Int(n)
    } else {
        Num::Dec(Decimal::from_i128(
            i128::from(n) * 1_000_000 + i128::from(dt.micros),
            6,
        ))
    }
}

/// Reads a string as a number (a double when it has a fraction or exponent,
/// else an integer), warning about anything left over.
pub fn str_to_num(s: &str, ctx: &mut EvalContext<'_>) -> Num {
    let p = parse_number_prefix(s);
    if p.truncated {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect DOUBLE value: '{s}'"),
        );
    }
    Num::Dbl(prefix_to_f64(&p))
}

/// Reads a string as a DECIMAL, as MariaDB does when it compares a string
/// with an integer: 1292 "Truncated incorrect DECIMAL value" for anything
/// left over; beyond DECIMAL's 65 digits, 1916 and 1292 and the largest
/// DECIMAL of its sign.
pub fn str_to_decimal(s: &str, ctx: &mut EvalContext<'_>) -> Decimal {
    let p = parse_number_prefix(s);
    let d = prefix_to_decimal(&p);
    if d.is_none() {
        ctx.warn(
            code::DATA_OVERFLOW,
            "Got overflow when converting '' to DECIMAL. Value truncated",
        );
    }
    if p.truncated || d.is_none() {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect DECIMAL value: '{s}'"),
        );
    }
    d.unwrap_or_else(|| {
        let negative = p.text.starts_with('-');
        Decimal::from_parts(negative, &[9; 65], 0).unwrap_or_else(|_| Decimal::zero())
    })
}

/// Any non-NULL value as a number (strings become doubles, temporal values
/// their `YYYYMMDDhhmmss` numbers, ENUM its index, SET and BIT their bits).
pub fn to_num(v: &Value, ctx: &mut EvalContext<'_>) -> Num {
    match v {
        Value::Null => Num::Int(0),
        Value::Int(i) => Num::Int(*i),
        Value::UInt(u) | Value::Set(u) | Value::Bit(u) => Num::UInt(*u),
        Value::Enum(i) => Num::UInt(u64::from(*i)),
        Value::Decimal(d) => Num::Dec(d.clone()),
        Value::Float(f) => Num::Dbl(f64::from(*f)),
        Value::Double(f) => Num::Dbl(*f),
        Value::Str(s) => str_to_num(s, ctx),
        Value::Bytes(b) => str_to_num(&String::from_utf8_lossy(b), ctx),
        Value::Date(d) => {
            Num::Int(i64::from(d.year) * 10_000 + i64::from(d.month) * 100 + i64::from(d.day))
        }
        Value::Datetime(dt) => dt_number(dt),
        Value::Timestamp(ts) => dt_number(&temporal::timestamp_to_datetime(ts)),
        Value::Time(us) => {
            let s = us.unsigned_abs() / 1_000_000;
            let n = (s / 3600 * 10_000 + s / 60 % 60 * 100 + s % 60) as i64;
            let frac = us.unsigned_abs() % 1_000_000;
            let n = if *us < 0 { -n } else { n };
            if frac == 0 {
                Num::Int(n)
            } else {
                let m = i128::from(n.abs()) * 1_000_000 + i128::from(frac);
                Num::Dec(Decimal::from_i128(if *us < 0 { -m } else { m }, 6))
            }
        }
        Value::Year(y) => Num::Int(i64::from(*y)),
    }
}

/// A value as a double.
pub fn to_f64(v: &Value, ctx: &mut EvalContext<'_>) -> f64 {
    to_num(v, ctx).to_f64()
}

/// A value as an integer for a function argument (lengths, positions):
/// strings read as integers with MySQL's "Truncated incorrect INTEGER value".
pub fn to_int(v: &Value, ctx: &mut EvalContext<'_>) -> i128 {
    match v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            let p = parse_number_prefix(&s);
            if p.truncated {
                ctx.warn(
                    code::TRUNCATED_WRONG_VALUE,
                    format!("Truncated incorrect INTEGER value: '{s}'"),
                );
            }
            if p.is_real {
                prefix_to_decimal(&p).map_or(0, |d| decimal_to_i128(&d))
            } else {
                p.text.parse::<i128>().unwrap_or(0)
            }
        }
        other => to_num(other, ctx).to_i128(),
    }
}

/// The string form of a value (bytes read as UTF-8, invalid sequences replaced).
pub fn to_str(v: &Value) -> String {
    value_to_string(v)
}

/// The bytes of a value's string form.
pub fn to_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b.clone(),
        other => value_to_string(other).into_bytes(),
    }
}

/// A value as a datetime (dates at midnight, TIME on today's date); strings and
/// numbers that are no datetime warn (1292) and give `None`.
pub fn to_datetime(v: &Value, ctx: &mut EvalContext<'_>) -> Option<DateTime> {
    match v {
        Value::Null => None,
        Value::Date(d) => Some(DateTime {
            date: *d,
            ..DateTime::default()
        }),
        Value::Datetime(dt) => Some(*dt),
        Value::Timestamp(ts) => Some(temporal::timestamp_to_datetime(ts)),
        Value::Time(us) => {
            let today = temporal::date_days(&ctx.now.date)?;
            temporal::datetime_from_micros(today * 86_400_000_000 + us)
        }
        // A BIT value is its bytes here, as in MariaDB (b'0' is '\0', no date).
        Value::Bit(bits) => {
            let bytes = bits.to_be_bytes();
            let first = bytes.iter().position(|b| *b != 0).unwrap_or(7);
            to_datetime(&Value::Bytes(bytes[first..].to_vec()), ctx)
        }
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            match parse_datetime(&s) {
                Some(p) => {
                    if p.truncated {
                        ctx.warn(
                            code::TRUNCATED_WRONG_VALUE,
                            format!("Truncated incorrect datetime value: '{s}'"),
                        );
                    }
                    Some(p.value)
                }
                None => {
                    ctx.warn(
                        code::TRUNCATED_WRONG_VALUE,
                        format!("Incorrect datetime value: '{s}'"),
                    );
                    None
                }
            }
        }
        other => number_to_datetime(other, ctx, true),
    }
}

/// A number as a datetime (MariaDB's number_to_datetime: `231` is
/// 2000-02-31's YYMMDD, `20240102030405` a datetime), warning 1292 when it
/// is none. `check_days` refuses a day past its month's end; a number
/// compared with a date keeps it (2000-02-31 sorts before 2000-03-01).
pub(crate) fn number_to_datetime(
    other: &Value,
    ctx: &mut EvalContext<'_>,
    check_days: bool,
) -> Option<DateTime> {
    let n = to_num(other, ctx);
    let d = n.to_decimal();
    let int = decimal::cut(&d, 0, false);
    let micros = decimal::sub(&d, &int)
        .map(|f| {
            decimal_to_i128(
                &decimal::mul(&f, &Decimal::from_i128(1_000_000, 0)).unwrap_or_else(Decimal::zero),
            )
        })
        .unwrap_or(0);
    // A negative number is no datetime, however small (-0.5).
    let negative = d.is_negative() && !d.is_zero();
    let r = u64::try_from(decimal_to_i128(&int))
        .ok()
        .filter(|_| !negative)
        .and_then(|n| datetime_from_number(n, micros as u32, check_days))
        .map(|p| {
            if p.truncated {
                ctx.note(
                    code::TRUNCATED_WRONG_VALUE,
                    format!(
                        "Truncated incorrect date value: '{}'",
                        value_to_string(other)
                    ),
                );
            }
            p.value
        });
    if r.is_none() {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Incorrect datetime value: '{}'", value_to_string(other)),
        );
    }
    r
}

/// A value as a date (the datetime's date part).
pub fn to_date(v: &Value, ctx: &mut EvalContext<'_>) -> Option<Date> {
    to_datetime(v, ctx).map(|dt| dt.date)
}

/// A value as TIME microseconds.
pub fn to_time(v: &Value, ctx: &mut EvalContext<'_>) -> Option<i64> {
    match v {
        Value::Null => None,
        Value::Time(us) => Some(*us),
        Value::Datetime(_) | Value::Timestamp(_) | Value::Date(_) => {
            let dt = to_datetime(v, ctx)?;
            Some(
                (i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second))
                    * 1_000_000
                    + i64::from(dt.micros),
            )
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            number_to_time(v, ctx)
        }
        other => {
            let s = value_to_string(other);
            match parse_time(&s) {
                Some((us, out_of_range, truncated)) => {
                    if out_of_range || truncated {
                        ctx.warn(
                            code::TRUNCATED_WRONG_VALUE,
                            format!("Truncated incorrect time value: '{s}'"),
                        );
                    }
                    Some(us)
                }
                None => {
                    ctx.warn(
                        code::TRUNCATED_WRONG_VALUE,
                        format!("Incorrect time value: '{s}'"),
                    );
                    None
                }
            }
        }
    }
}

/// The digits and scale of the number a date, time, YEAR, ENUM, SET or
/// BIT value is in arithmetic (20240229 for a DATE; a TIME(2) keeps two
/// fractional digits): SUM, AVG, ABS and unary minus of them are DECIMAL,
/// as in MariaDB. `None` for other types.
pub(crate) fn number_digits(t: &ColumnType) -> Option<(u8, u8)> {
    Some(match t {
        ColumnType::Date => (8, 0),
        ColumnType::Time { fsp } => (7 + fsp, *fsp),
        ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => (14 + fsp, *fsp),
        ColumnType::Year => (4, 0),
        ColumnType::Enum { .. } => (1, 0),
        ColumnType::Set { .. } => (3, 0),
        ColumnType::Bit { bits } => (*bits, 0),
        _ => return None,
    })
}

/// A number as TIME microseconds, as MariaDB reads one (`number_to_time`):
/// a positive number of 8 to 14 digits is a date or datetime, whose time
/// part it takes (TIME(20240229) is 00:00:00; NULL when it is no date);
/// otherwise `HHHMMSS[.ffffff]`, NULL when the minutes or seconds pass 59,
/// held at ±838:59:59.999999 past TIME's range (1292 either way).
fn number_to_time(v: &Value, ctx: &mut EvalContext<'_>) -> Option<i64> {
    let (negative, int_part, micros) = match v {
        Value::Int(i) => (*i < 0, u128::from(i.unsigned_abs()), 0),
        Value::UInt(u) => (false, u128::from(*u), 0),
        Value::Decimal(d) => {
            let whole = decimal::cut(d, 0, false);
            let fraction = decimal::sub(d, &whole).unwrap_or_else(Decimal::zero);
            let micros = decimal::mul(&fraction, &Decimal::from_i128(1_000_000, 0))
                .map_or(0, |m| {
                    decimal_to_i128(&decimal::cut(&m, 0, false)).unsigned_abs()
                });
            (
                d.is_negative(),
                decimal_to_i128(&whole).unsigned_abs(),
                micros as u32,
            )
        }
        Value::Double(_) | Value::Float(_) => {
            let f = match v {
                Value::Float(f) => f64::from(*f),
                Value::Double(f) => *f,
                _ => 0.0,
            };
            if f.is_nan() {
                return None;
            }
            let a = f.abs();
            // `as` holds the float at u128's bounds.
            let whole = a.trunc();
            (f < 0.0, whole as u128, ((a - whole) * 1e6) as u32)
        }
        _ => return None,
    };
    let text = || value_to_string(v);
    let incorrect = |ctx: &mut EvalContext<'_>| {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Incorrect time value: '{}'", text()),
        );
        None
    };
    if !negative && (10_000_000..100_000_000_000_000).contains(&int_part) {
        return match datetime_from_number(int_part as u64, micros, true) {
            Some(p) => Some(
                (i64::from(p.value.hour) * 3600
                    + i64::from(p.value.minute) * 60
                    + i64::from(p.value.second))
                    * 1_000_000
                    + i64::from(p.value.micros),
            ),
            None => incorrect(ctx),
        };
    }
    let (minutes, seconds) = ((int_part / 100 % 100) as i64, (int_part % 100) as i64);
    if minutes > 59 || seconds > 59 {
        return incorrect(ctx);
    }
    let hours = int_part / 10_000;
    let us = if hours > 838 {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect time value: '{}'", text()),
        );
        TIME_MAX_MICROS
    } else {
        (hours as i64 * 3600 + minutes * 60 + seconds) * 1_000_000 + i64::from(micros)
    };
    Some(if negative { -us } else { us })
}

/// A string compared with a TIME, as TIME microseconds: what is no time
/// compares as 00:00:00, with MariaDB's "Truncated incorrect time value".
pub fn to_time_for_comparison(v: &Value, ctx: &mut EvalContext<'_>) -> i64 {
    let s = value_to_string(v);
    match parse_time(&s) {
        Some((us, false, false)) => us,
        parsed => {
            ctx.warn(
                code::TRUNCATED_WRONG_VALUE,
                format!("Truncated incorrect time value: '{s}'"),
            );
            parsed.map_or(0, |(us, _, _)| us)
        }
    }
}

/// SQL truth of a value: `None` for NULL, else non-zero.
pub fn truth(v: &Value, ctx: &mut EvalContext<'_>) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        other => Some(!to_num(other, ctx).is_zero()),
    }
}

/// Value of a boolean result (1 / 0 / NULL).
pub fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(i64::from(b)),
    }
}
