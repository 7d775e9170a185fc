//! Comparisons with MySQL's coercions: strings under a collation, strings
//! against numbers as DECIMAL or DOUBLE, TIME against strings as times,
//! DATE/DATETIME/TIMESTAMP against strings and numbers as datetimes (a
//! value that is no datetime reads as the zero datetime with 1292), YEAR
//! against temporal values as `YYYY-00-00`, and the left side of BETWEEN/IN
//! read once as a number (`Probe`).

use std::cmp::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::convert::{self, to_num, to_str, Num};
use super::{CmpOp, EvalContext};
use crate::error::code;

pub(super) fn cmp_holds(op: CmpOp, o: Ordering) -> bool {
    match op {
        CmpOp::Eq | CmpOp::NullSafeEq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
    }
}

pub(super) fn is_temporal(v: &Value) -> bool {
    matches!(
        v,
        Value::Date(_) | Value::Datetime(_) | Value::Timestamp(_) | Value::Time(_)
    )
}

pub(super) fn is_stringish(v: &Value) -> bool {
    matches!(v, Value::Str(_) | Value::Bytes(_))
}

/// Compares two values with MySQL's coercions (`None` when either is NULL).
pub fn compare(
    a: &Value,
    b: &Value,
    coll: Collation,
    ctx: &mut EvalContext<'_>,
) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    Some(match (a, b) {
        (Value::Str(x), Value::Str(y)) => coll.compare(x, y),
        // A binary string meets text in the text's collation when the
        // text's coercibility won (a hex literal against a column).
        (x, y) if is_stringish(x) && is_stringish(y) => {
            if coll == Collation::Binary {
                convert::to_bytes(x).cmp(&convert::to_bytes(y))
            } else {
                coll.compare(&to_str(x), &to_str(y))
            }
        }
        (Value::Time(x), Value::Time(y)) => x.cmp(y),
        // A YEAR meets a temporal value as the datetime `YYYY-00-00
        // 00:00:00` (MariaDB's Field_year::get_date): against a TIME its
        // time of day, midnight, whatever the year.
        (Value::Year(_), Value::Time(t)) => 0.cmp(t),
        (Value::Time(t), Value::Year(_)) => t.cmp(&0),
        (Value::Year(y), d) if is_dated(d) => {
            year_as_datetime(*y).cmp(&convert::to_datetime(d, ctx)?)
        }
        (d, Value::Year(y)) if is_dated(d) => {
            convert::to_datetime(d, ctx)?.cmp(&year_as_datetime(*y))
        }
        (Value::Time(x), y) | (y, Value::Time(x)) if is_stringish(y) => {
            let t = convert::to_time_for_comparison(y, ctx);
            let o = x.cmp(&t);
            if matches!(a, Value::Time(_)) {
                o
            } else {
                o.reverse()
            }
        }
        (x, y)
            if (is_temporal(x) && (is_temporal(y) || is_stringish(y)))
                || (is_temporal(y) && is_stringish(x)) =>
        {
            let dx = datetime_for_comparison(x, ctx)?;
            let dy = datetime_for_comparison(y, ctx)?;
            dx.cmp(&dy)
        }
        // A DATE/DATETIME/TIMESTAMP meets a number: both compare as
        // datetimes, a number that is no datetime as the zero datetime
        // (231 is 2000-02-31, after 2000-02-29).
        (x, y) if is_dated(x) && is_number(y) => {
            let dx = convert::to_datetime(x, ctx)?;
            dx.cmp(&datetime_or_zero(y, ctx, false, true))
        }
        (x, y) if is_number(x) && is_dated(y) => {
            let dy = convert::to_datetime(y, ctx)?;
            datetime_or_zero(x, ctx, false, true).cmp(&dy)
        }
        (x, y) if is_stringish(x) && is_integer(y) => {
            let d = convert::str_to_decimal(&to_str(x), ctx);
            compare_num(&Num::Dec(d), &to_num(y, ctx))
        }
        (x, y) if is_integer(x) && is_stringish(y) => {
            let d = convert::str_to_decimal(&to_str(y), ctx);
            compare_num(&to_num(x, ctx), &Num::Dec(d))
        }
        _ => {
            let (x, y) = (to_num(a, ctx), to_num(b, ctx));
            compare_num(&x, &y)
        }
    })
}

/// A side of a temporal comparison as a datetime: a string that is no
/// datetime compares as the zero datetime, with MariaDB's "Truncated
/// incorrect datetime value".
fn datetime_for_comparison(
    v: &Value,
    ctx: &mut EvalContext<'_>,
) -> Option<larch_engine::record::value::DateTime> {
    if !is_stringish(v) {
        return convert::to_datetime(v, ctx);
    }
    let text = to_str(v);
    match crate::value::temporal::parse_datetime(&text) {
        Some(_) => convert::to_datetime(v, ctx),
        // A day the month lacks still compares in its place.
        None => match crate::value::temporal::parse_datetime_any_day(&text) {
            Some(p) if !p.truncated => Some(p.value),
            _ => {
                ctx.warn(
                    code::TRUNCATED_WRONG_VALUE,
                    format!("Truncated incorrect datetime value: '{text}'"),
                );
                Some(Default::default())
            }
        },
    }
}

/// A YEAR as the datetime it compares as with temporal values.
fn year_as_datetime(year: u16) -> larch_engine::record::value::DateTime {
    larch_engine::record::value::DateTime {
        date: larch_engine::record::value::Date {
            year,
            month: 0,
            day: 0,
        },
        ..Default::default()
    }
}

/// A DATE, DATETIME or TIMESTAMP value (not TIME).
fn is_dated(v: &Value) -> bool {
    matches!(v, Value::Date(_) | Value::Datetime(_) | Value::Timestamp(_))
}

fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_)
    )
}

pub(super) fn is_integer(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_))
}

/// The left side of BETWEEN or IN, read once as a number when it is a
/// string compared with numbers (MariaDB converts it once, so warns once):
/// as a DECIMAL against integers, as a DOUBLE against other numbers.
pub(super) struct Probe {
    value: Value,
    as_decimal: Option<Value>,
    as_double: Option<Value>,
}

impl Probe {
    pub(super) fn new(value: Value) -> Probe {
        Probe {
            value,
            as_decimal: None,
            as_double: None,
        }
    }

    /// The probe as it is compared with `other`.
    pub(super) fn against(&mut self, other: &Value, ctx: &mut EvalContext<'_>) -> &Value {
        if !is_stringish(&self.value) {
            return &self.value;
        }
        let text = || to_str(&self.value);
        match other {
            Value::Int(_) | Value::UInt(_) => self
                .as_decimal
                .get_or_insert_with(|| Value::Decimal(convert::str_to_decimal(&text(), ctx))),
            Value::Decimal(_) | Value::Double(_) | Value::Float(_) => self
                .as_double
                .get_or_insert_with(|| Value::Double(convert::str_to_num(&text(), ctx).to_f64())),
            _ => &self.value,
        }
    }
}

/// Numeric comparison: integers exactly, decimals exactly, else as doubles.
pub(super) fn compare_num(x: &Num, y: &Num) -> Ordering {
    match (x, y) {
        (Num::Dbl(_), _) | (_, Num::Dbl(_)) => x
            .to_f64()
            .partial_cmp(&y.to_f64())
            .unwrap_or(Ordering::Equal),
        (Num::Dec(_), _) | (_, Num::Dec(_)) => x.to_decimal().cmp(&y.to_decimal()),
        _ => x.to_i128().cmp(&y.to_i128()),
    }
}

/// A value as a datetime for LEAST and GREATEST: a TIME on today's date, a
/// string or number that is no datetime the zero datetime, with MariaDB's
/// 1292 "Truncated incorrect datetime value".
pub(crate) fn temporal_or_zero(
    v: &Value,
    ctx: &mut EvalContext<'_>,
) -> larch_engine::record::value::DateTime {
    datetime_or_zero(v, ctx, true, false)
}

/// [`temporal_or_zero`] for a comparison (a DATE()/CAST read fuzzily,
/// BETWEEN's operands): a day past its month's end, up to 31, is kept in
/// its place (`'2000-02-31'` and `20000231` are after 2000-02-29).
pub(crate) fn compared_datetime_or_zero(
    v: &Value,
    ctx: &mut EvalContext<'_>,
) -> larch_engine::record::value::DateTime {
    datetime_or_zero(v, ctx, true, true)
}

/// `v` read as a datetime, the zero datetime when it is none. Its reading's
/// warnings become one 1292 "Truncated incorrect datetime value" when there
/// is no datetime, or also for a datetime read with warnings when
/// `replace_all`; never an error, even in strict mode. With `any_day` a
/// day up to 31 is a date in any month, as MariaDB compares them.
fn datetime_or_zero(
    v: &Value,
    ctx: &mut EvalContext<'_>,
    replace_all: bool,
    any_day: bool,
) -> larch_engine::record::value::DateTime {
    let (kept, count) = (ctx.warnings.len(), ctx.warning_count);
    let strict = std::mem::replace(&mut ctx.warnings_are_errors, false);
    let dt = if any_day && is_number(v) {
        convert::number_to_datetime(v, ctx, false)
    } else if any_day && is_stringish(v) && invalid_day(&to_str(v)).is_some() {
        invalid_day(&to_str(v))
    } else {
        convert::to_datetime(v, ctx)
    };
    ctx.warnings_are_errors = strict;
    if ctx.warning_count > count && (replace_all || dt.is_none()) {
        ctx.warnings.truncate(kept);
        ctx.warning_count = count;
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect datetime value: '{}'", to_str(v)),
        );
    }
    dt.unwrap_or_default()
}

/// A datetime text whose only fault is a day its month lacks (up to 31):
/// that day, in its place.
fn invalid_day(text: &str) -> Option<larch_engine::record::value::DateTime> {
    if crate::value::temporal::parse_datetime(text).is_some() {
        return None;
    }
    crate::value::temporal::parse_datetime_any_day(text)
        .filter(|p| !p.truncated)
        .map(|p| p.value)
}

/// BETWEEN's operands as MariaDB compares them: when a DATE, DATETIME or
/// TIMESTAMP meets a number, all three compare as datetimes (a value that is
/// no datetime is the zero datetime, with 1292), not pair by pair.
pub(super) fn datetimes_if_mixed_with_numbers(
    vals: [Value; 3],
    ctx: &mut EvalContext<'_>,
) -> [Value; 3] {
    if !(vals.iter().any(is_dated) && vals.iter().any(is_number)) {
        return vals;
    }
    vals.map(|v| match v {
        Value::Null => Value::Null,
        v if is_dated(&v) => v,
        v => Value::Datetime(compared_datetime_or_zero(&v, ctx)),
    })
}
