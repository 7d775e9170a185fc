//! Storing a value into a column: MySQL's conversion of any value to the column
//! type, with strict-mode errors or non-strict clamping and warnings.
//!
//! [`store`] returns the value in the engine's representation for the column
//! type (`Value::Int` for signed integer columns, `Value::Decimal` rounded to the
//! column scale, `Value::Str` for text, `Value::Date` ...). What goes wrong is
//! reported with MySQL's numbers and wording (checked against MariaDB 10.11):
//! - 1264 "Out of range value for column 'c' at row N": numbers beyond the
//!   type, YEAR outside 1901..2155, TIME beyond ±838:59:59 (non-strict), FLOAT
//!   beyond its range, BIT wider than the column;
//! - 1366 "Incorrect integer|decimal|double|string value: 'x' for column
//!   `db`.`t`.`c` at row N": a string with no number, bytes that are not valid
//!   UTF-8, characters latin1 cannot hold;
//! - 1265 "Data truncated for column 'c' at row N": a number followed by other
//!   text ('12abc'), an unknown ENUM/SET member, a bad date in non-strict mode,
//!   a string cut to the column length in non-strict mode (a note when only
//!   spaces or fractional digits of a DECIMAL are cut);
//! - 1406 "Data too long for column 'c' at row N": strings (strict mode);
//! - 1292 "Incorrect date|datetime|time value: 'x' for column `db`.`t`.`c` at
//!   row N": temporal strings that are not dates (strict mode).
//!
//! In strict mode each of these (except notes) is an error; otherwise the value
//! is clamped or cut, and the warning is pushed.

use larch_engine::record::collation::Charset;
use larch_engine::record::value::{ColumnType, DateTime, Decimal, Value};

use super::number::{format_double, parse_number_prefix, prefix_to_decimal, prefix_to_f64};
use super::temporal;
use super::{format_datetime, format_time};
use crate::error::{code, Level, SqlError, Warning};

mod kinds;

use kinds::{store_bit, store_datetime, store_enum, store_set, store_time, store_uuid, store_year};

/// Where a value goes: for messages, and whether errors are strict.
#[derive(Debug, Clone, Copy)]
pub struct StoreTarget<'a> {
    pub db: &'a str,
    pub table: &'a str,
    pub column: &'a str,
    /// 1-based row number of the statement.
    pub row: u64,
    /// STRICT_TRANS_TABLES / STRICT_ALL_TABLES in effect.
    pub strict: bool,
}

struct Ctx<'a, 'w> {
    t: &'a StoreTarget<'a>,
    warnings: &'w mut Vec<Warning>,
}

impl Ctx<'_, '_> {
    /// Reports a problem: an error in strict mode, else a warning.
    fn issue(&mut self, code: u16, message: String) -> Result<(), SqlError> {
        if self.t.strict {
            return Err(SqlError::new(code, message));
        }
        self.warnings.push(Warning::warn(code, message));
        Ok(())
    }

    fn note(&mut self, code: u16, message: String) {
        self.warnings.push(Warning {
            level: Level::Note,
            code,
            message,
        });
    }

    fn out_of_range(&mut self) -> Result<(), SqlError> {
        let m = format!(
            "Out of range value for column '{}' at row {}",
            self.t.column, self.t.row
        );
        self.issue(code::WARN_DATA_OUT_OF_RANGE, m)
    }

    fn truncated_msg(&self) -> String {
        format!(
            "Data truncated for column '{}' at row {}",
            self.t.column, self.t.row
        )
    }

    fn truncated(&mut self) -> Result<(), SqlError> {
        let m = self.truncated_msg();
        self.issue(code::WARN_DATA_TRUNCATED, m)
    }

    fn incorrect(&mut self, code: u16, kind: &str, value: &str) -> Result<(), SqlError> {
        let t = self.t;
        let m = format!(
            "Incorrect {kind} value: '{value}' for column `{}`.`{}`.`{}` at row {}",
            t.db, t.table, t.column, t.row
        );
        self.issue(code, m)
    }
}

/// Converts `v` for storage in a column of type `ty` (see the module docs).
/// NULL stays NULL (NOT NULL is the caller's check).
pub fn store(
    v: &Value,
    ty: &ColumnType,
    target: &StoreTarget<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let mut c = Ctx {
        t: target,
        warnings,
    };
    match ty {
        ColumnType::Int { bytes, unsigned } => store_int(&mut c, v, *bytes, *unsigned),
        ColumnType::Decimal { precision, scale } => store_decimal(&mut c, v, *precision, *scale),
        ColumnType::Float | ColumnType::Double => {
            store_real(&mut c, v, matches!(ty, ColumnType::Float))
        }
        ColumnType::Date | ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => {
            store_datetime(&mut c, v, ty)
        }
        ColumnType::Time { fsp } => store_time(&mut c, v, *fsp),
        ColumnType::Year => store_year(&mut c, v),
        ColumnType::Enum { values, collation } => store_enum(&mut c, v, values, *collation),
        ColumnType::Set { values, collation } => store_set(&mut c, v, values, *collation),
        ColumnType::Bit { bits } => store_bit(&mut c, v, *bits),
        ColumnType::Uuid => store_uuid(&mut c, v),
        _ if ty.is_binary_string() => store_bytes(&mut c, v, ty),
        _ => store_text(&mut c, v, ty),
    }
}

/// Stores `v` into a DECIMAL, FLOAT or DOUBLE column declared UNSIGNED: a
/// negative number is out of range and the column gets 0. MariaDB checks
/// the sign before it rounds, so -0.001 is out of range too.
pub fn store_unsigned(
    v: &Value,
    ty: &ColumnType,
    target: &StoreTarget<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    if !is_negative_number(v) {
        return store(v, ty, target, warnings);
    }
    let mut c = Ctx {
        t: target,
        warnings,
    };
    c.out_of_range()?;
    store(&Value::Int(0), ty, target, c.warnings)
}

/// Whether `v` is a number below zero (a string by its leading number).
fn is_negative_number(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i < 0,
        Value::Decimal(d) => d.is_negative() && !d.is_zero(),
        Value::Double(f) => *f < 0.0,
        Value::Float(f) => *f < 0.0,
        // A negative TIME is a negative number (-471959.221).
        Value::Time(us) => *us < 0,
        Value::Str(_) | Value::Bytes(_) => {
            let text = value_to_string(v);
            let p = parse_number_prefix(&text);
            p.text.starts_with('-') && prefix_to_f64(&p) != 0.0
        }
        _ => false,
    }
}

/// The text of a value as MySQL converts it to a string.
pub fn value_to_string(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) | Value::Bit(u) | Value::Set(u) => u.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Float(f) => super::number::format_float(*f),
        Value::Double(d) => format_double(*d),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Str(s) => s.clone(),
        Value::Date(d) => d.to_string(),
        Value::Datetime(dt) => format_datetime(dt, if dt.micros == 0 { 0 } else { 6 }),
        Value::Timestamp(ts) => {
            let dt = temporal::timestamp_to_datetime(ts);
            format_datetime(&dt, if dt.micros == 0 { 0 } else { 6 })
        }
        Value::Time(us) => format_time(*us, if us % 1_000_000 == 0 { 0 } else { 6 }),
        Value::Year(y) => format!("{y:04}"),
        Value::Enum(i) => i.to_string(),
    }
}

/// Temporal values as MySQL's numbers (20240105, 20240105073000, 73000).
fn temporal_number(v: &Value) -> Option<i128> {
    let dt_num = |dt: &DateTime| {
        let d = &dt.date;
        i128::from(d.year) * 10_000_000_000
            + i128::from(d.month) * 100_000_000
            + i128::from(d.day) * 1_000_000
            + i128::from(dt.hour) * 10_000
            + i128::from(dt.minute) * 100
            + i128::from(dt.second)
    };
    Some(match v {
        Value::Date(d) => {
            i128::from(d.year) * 10_000 + i128::from(d.month) * 100 + i128::from(d.day)
        }
        Value::Datetime(dt) => dt_num(dt),
        Value::Timestamp(ts) => dt_num(&temporal::timestamp_to_datetime(ts)),
        Value::Time(us) => {
            let s = us.unsigned_abs() / 1_000_000;
            let n = i128::from(s / 3600 * 10_000 + s / 60 % 60 * 100 + s % 60);
            if *us < 0 {
                -n
            } else {
                n
            }
        }
        Value::Year(y) => i128::from(*y),
        _ => return None,
    })
}

/// Temporal values as MySQL's numbers with their microseconds
/// (19820913151241.46 for '1982-09-13 15:12:41.46'), as DOUBLE and
/// DECIMAL columns take them.
fn temporal_decimal(v: &Value) -> Option<Decimal> {
    let n = temporal_number(v)?;
    let micros = match v {
        Value::Datetime(dt) => dt.micros,
        Value::Timestamp(ts) => temporal::timestamp_to_datetime(ts).micros,
        Value::Time(us) => (us.unsigned_abs() % 1_000_000) as u32,
        _ => 0,
    };
    let sign = if n < 0 || matches!(v, Value::Time(us) if *us < 0) {
        -1
    } else {
        1
    };
    let scaled = n.abs() * 1_000_000 + i128::from(micros);
    Some(Decimal::from_i128(sign * scaled, 6).rescale(trimmed_scale(micros)))
}

/// Digits of `micros` (a fraction of six digits) without trailing zeros.
fn trimmed_scale(micros: u32) -> u8 {
    let mut m = micros;
    let mut scale = 6u8;
    while scale > 0 && m % 10 == 0 {
        m /= 10;
        scale -= 1;
    }
    scale
}

fn store_int(c: &mut Ctx<'_, '_>, v: &Value, bytes: u8, unsigned: bool) -> Result<Value, SqlError> {
    let n: i128 = match v {
        Value::Int(i) => i128::from(*i),
        Value::UInt(u) | Value::Bit(u) | Value::Set(u) => i128::from(*u),
        Value::Enum(i) => i128::from(*i),
        Value::Decimal(d) => decimal_to_i128(d),
        Value::Double(f) => f64_to_i128(*f),
        Value::Float(f) => f64_to_i128(f64::from(*f)),
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            let p = parse_number_prefix(&s);
            if p.text.is_empty() {
                c.incorrect(code::TRUNCATED_WRONG_VALUE_FOR_FIELD, "integer", &s)?;
                0
            } else {
                if p.truncated {
                    c.truncated()?;
                }
                if p.is_real {
                    prefix_to_decimal(&p)
                        .map_or_else(|| f64_to_i128(prefix_to_f64(&p)), |d| decimal_to_i128(&d))
                } else {
                    p.text
                        .parse::<i128>()
                        .unwrap_or(if p.text.starts_with('-') {
                            i128::MIN
                        } else {
                            i128::MAX
                        })
                }
            }
        }
        other => temporal_number(other).unwrap_or(0),
    };
    let bits = u32::from(bytes) * 8;
    let (lo, hi) = if unsigned {
        (0i128, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    };
    let clamped = n.clamp(lo, hi);
    if clamped != n {
        c.out_of_range()?;
    }
    Ok(if unsigned {
        Value::UInt(clamped as u64)
    } else {
        Value::Int(clamped as i64)
    })
}

/// Rounds half away from zero to an integer (saturating).
pub fn decimal_to_i128(d: &Decimal) -> i128 {
    let r = d.rescale(0);
    let digits = r.coefficient();
    if digits.len() > 38 {
        return if r.is_negative() {
            i128::MIN
        } else {
            i128::MAX
        };
    }
    let m = digits.iter().fold(0i128, |a, &x| a * 10 + i128::from(x));
    if r.is_negative() {
        -m
    } else {
        m
    }
}

/// Rounds half to even (MySQL's `rint`), saturating.
pub fn f64_to_i128(f: f64) -> i128 {
    if f.is_nan() {
        0
    } else {
        f.round_ties_even() as i128
    }
}

/// An exact decimal of a double (its shortest round-trip digits).
pub fn f64_to_decimal(f: f64) -> Option<Decimal> {
    if !f.is_finite() {
        return None;
    }
    prefix_to_decimal(&parse_number_prefix(&format!("{f:e}")))
}

fn store_decimal(
    c: &mut Ctx<'_, '_>,
    v: &Value,
    precision: u8,
    scale: u8,
) -> Result<Value, SqlError> {
    let d = match v {
        Value::Decimal(d) => Some(d.clone()),
        Value::Int(i) => Some(Decimal::from_i128(i128::from(*i), 0)),
        Value::UInt(u) | Value::Bit(u) | Value::Set(u) => {
            Some(Decimal::from_i128(i128::from(*u), 0))
        }
        Value::Enum(i) => Some(Decimal::from_i128(i128::from(*i), 0)),
        Value::Double(f) => f64_to_decimal(*f),
        Value::Float(f) => f64_to_decimal(f64::from(*f)),
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            let p = parse_number_prefix(&s);
            if p.text.is_empty() {
                c.incorrect(code::TRUNCATED_WRONG_VALUE_FOR_FIELD, "decimal", &s)?;
                Some(Decimal::zero())
            } else {
                if p.truncated {
                    c.truncated()?;
                }
                prefix_to_decimal(&p)
            }
        }
        other => temporal_decimal(other),
    };
    let max_int = usize::from(precision - scale);
    let d = match d {
        Some(d) => d,
        None => {
            c.out_of_range()?;
            return Ok(Value::Decimal(decimal_max(max_int, scale, false)));
        }
    };
    let r = d.rescale(scale);
    if r != d {
        let m = c.truncated_msg();
        c.note(code::WARN_DATA_TRUNCATED, m);
    }
    let int_digits = r.coefficient().len().saturating_sub(usize::from(scale));
    if int_digits > max_int {
        c.out_of_range()?;
        return Ok(Value::Decimal(decimal_max(max_int, scale, r.is_negative())));
    }
    Ok(Value::Decimal(r))
}

fn decimal_max(int_digits: usize, scale: u8, negative: bool) -> Decimal {
    let digits = vec![9u8; int_digits + usize::from(scale)];
    Decimal::from_parts(negative, &digits, scale).unwrap_or_else(|_| Decimal::zero())
}

fn store_real(c: &mut Ctx<'_, '_>, v: &Value, float: bool) -> Result<Value, SqlError> {
    let f = real_of(c, v)?;
    let limit = if float { f64::from(f32::MAX) } else { f64::MAX };
    let f = if f.is_nan() {
        c.out_of_range()?;
        0.0
    } else if f.abs() > limit {
        c.out_of_range()?;
        limit.copysign(f)
    } else {
        f
    };
    Ok(real_value(f, float))
}

fn real_value(f: f64, float: bool) -> Value {
    if float {
        Value::Float(f as f32)
    } else {
        Value::Double(f)
    }
}

/// Stores `v` into a FLOAT(M,D) or DOUBLE(M,D) column (`float` for FLOAT),
/// as MariaDB's `truncate_double` does: the value is rounded to D decimals
/// (its fraction half to even at the D-th digit) before a FLOAT narrows it,
/// and held within ±(10^(M-D) - 10^-D); beyond that bound, or for an
/// UNSIGNED column below zero, it is out of range (1264) and takes the
/// bound (0 for UNSIGNED).
pub fn store_fixed_real(
    v: &Value,
    float: bool,
    (m, d): (u32, u32),
    unsigned: bool,
    target: &StoreTarget<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let mut c = Ctx {
        t: target,
        warnings,
    };
    if unsigned && is_negative_number(v) {
        c.out_of_range()?;
        return Ok(real_value(0.0, float));
    }
    let (r, out_of_range) = super::number::fit_fixed(real_of(&mut c, v)?, (m, d), unsigned);
    if out_of_range {
        c.out_of_range()?;
    }
    Ok(real_value(r, float))
}

/// The double a value gives when it is stored in a FLOAT or DOUBLE
/// column (1366/1265 for a string that is no number or has text after it).
fn real_of(c: &mut Ctx<'_, '_>, v: &Value) -> Result<f64, SqlError> {
    Ok(match v {
        Value::Double(f) => *f,
        Value::Float(f) => f64::from(*f),
        Value::Int(i) => *i as f64,
        Value::UInt(u) | Value::Bit(u) | Value::Set(u) => *u as f64,
        Value::Enum(i) => f64::from(*i),
        Value::Decimal(d) => d.to_string().parse().unwrap_or(0.0),
        Value::Str(_) | Value::Bytes(_) => {
            let s = value_to_string(v);
            let p = parse_number_prefix(&s);
            if p.text.is_empty() {
                c.incorrect(code::TRUNCATED_WRONG_VALUE_FOR_FIELD, "double", &s)?;
            } else if p.truncated {
                c.truncated()?;
            }
            prefix_to_f64(&p)
        }
        other => temporal_decimal(other).map_or(0.0, |d| d.to_string().parse().unwrap_or(0.0)),
    })
}

/// Cuts `s` to `max` units (characters, or bytes when `bytes`), applying the
/// length rules; returns the string to store.
fn fit_length(
    c: &mut Ctx<'_, '_>,
    s: String,
    max: u64,
    bytes_of: impl Fn(char) -> u64,
) -> Result<String, SqlError> {
    let mut used = 0u64;
    let mut cut = s.len();
    for (i, ch) in s.char_indices() {
        used += bytes_of(ch);
        if used > max {
            cut = i;
            break;
        }
    }
    if cut == s.len() {
        return Ok(s);
    }
    let msg = c.truncated_msg();
    if s[cut..].bytes().all(|b| b == b' ') {
        c.note(code::WARN_DATA_TRUNCATED, msg);
    } else if c.t.strict {
        return Err(SqlError::new(
            code::DATA_TOO_LONG,
            format!(
                "Data too long for column '{}' at row {}",
                c.t.column, c.t.row
            ),
        ));
    } else {
        c.warnings
            .push(Warning::warn(code::WARN_DATA_TRUNCATED, msg));
    }
    Ok(s[..cut].to_string())
}

/// The first six bytes of a value as MariaDB shows them in 1366
/// (`convert_to_printable`): printable ASCII as it is, others as `\xNN`,
/// then `...` when more follow.
fn hex_escape(b: &[u8]) -> String {
    let mut s: String = b
        .iter()
        .take(6)
        .map(|&x| match x {
            0x20..=0x7F => char::from(x).to_string(),
            _ => format!("\\x{x:02X}"),
        })
        .collect();
    if b.len() > 6 {
        s.push_str("...");
    }
    s
}

fn store_text(c: &mut Ctx<'_, '_>, v: &Value, ty: &ColumnType) -> Result<Value, SqlError> {
    let mut s = match v {
        Value::Bytes(b) => match String::from_utf8(b.clone()) {
            Ok(s) => s,
            Err(e) => {
                let bad = &b[e.utf8_error().valid_up_to()..];
                c.incorrect(
                    code::TRUNCATED_WRONG_VALUE_FOR_FIELD,
                    "string",
                    &hex_escape(bad),
                )?;
                String::from_utf8_lossy(b).replace('\u{FFFD}', "?")
            }
        },
        other => value_to_string(other),
    };
    let charset = ty.collation().map_or(Charset::Utf8mb4, |c| c.charset());
    if let Some((i, ch)) = s.char_indices().find(|(_, ch)| !charset.can_hold(*ch)) {
        let mut buf = [0u8; 4];
        let tail = format!("{}{}", ch.encode_utf8(&mut buf), &s[i + ch.len_utf8()..]);
        c.incorrect(
            code::TRUNCATED_WRONG_VALUE_FOR_FIELD,
            "string",
            &hex_escape(tail.as_bytes()),
        )?;
        // A character the column cannot hold is stored as '?', as MariaDB
        // converts from the connection's utf8mb4.
        let mut kept = String::with_capacity(s.len());
        for ch in s.chars() {
            if charset.can_hold(ch) {
                kept.push(ch);
            } else {
                kept.push('?');
            }
        }
        s = kept;
    }
    let (max, by_bytes) = match ty {
        ColumnType::Char { len, .. } => (u64::from(*len), false),
        ColumnType::Varchar { max_len, .. } => (u64::from(*max_len), false),
        ColumnType::Text { kind, .. } => (kind.max_bytes(), true),
        _ => (u64::MAX, false),
    };
    let latin1 = charset == Charset::Latin1;
    let s = fit_length(c, s, max, |ch| {
        if !by_bytes || latin1 {
            1
        } else {
            ch.len_utf8() as u64
        }
    })?;
    Ok(Value::Str(s))
}

fn store_bytes(c: &mut Ctx<'_, '_>, v: &Value, ty: &ColumnType) -> Result<Value, SqlError> {
    let b = match v {
        Value::Bytes(b) => b.clone(),
        other => value_to_string(other).into_bytes(),
    };
    let max = ty.max_chars().unwrap_or(u64::MAX);
    if b.len() as u64 <= max {
        return Ok(Value::Bytes(b));
    }
    let cut = usize::try_from(max).unwrap_or(usize::MAX);
    if c.t.strict {
        return Err(SqlError::new(
            code::DATA_TOO_LONG,
            format!(
                "Data too long for column '{}' at row {}",
                c.t.column, c.t.row
            ),
        ));
    }
    c.truncated()?;
    Ok(Value::Bytes(b[..cut].to_vec()))
}
