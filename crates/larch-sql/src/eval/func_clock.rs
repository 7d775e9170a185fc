//! Clock arithmetic functions: TIMESTAMPDIFF (TIMESTAMPADD compiles to
//! DATE_ADD), TIME_TO_SEC, SEC_TO_TIME, TIMEDIFF, ADDTIME, SUBTIME,
//! MAKEDATE, MAKETIME, TO_SECONDS, PERIOD_ADD, PERIOD_DIFF, UTC_DATE and
//! UTC_TIME (STR_TO_DATE is in `func_clock_format`), with MariaDB 10.11's rules:
//! - a TIME result beyond ±838:59:59 is clamped with warning 1292
//!   "Truncated incorrect time value: 'h:mm:ss'";
//! - TIMESTAMPDIFF counts whole months by calendar (a month is complete when
//!   the later day and time of day reach the earlier's) and smaller units
//!   from the exact difference, truncated toward zero;
//! - TIMEDIFF of a DATETIME and a TIME is NULL; a string argument is a
//!   DATETIME when it has a date and a time part, else a TIME;
//! - two-digit years of MAKEDATE and PERIOD_* are 20xx below 70, 19xx else.

use larch_engine::record::value::{DateTime, Decimal, Value};

/// 838:59:59 in microseconds: where the functions here hold a TIME result
/// (MariaDB's `check_time_range` for a result of no fractional digits).
const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;

use super::convert::{to_datetime, to_int, to_num, to_str, to_time};
use super::func_more::{date_of_day_number, day_number};
use super::{decimal, EvalContext, Func};
use crate::error::{code, SqlError};
use crate::value::store::decimal_to_i128;
use crate::value::temporal::{datetime_from_micros, datetime_micros, parse_datetime};

/// The functions of this module (`Func::Clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    /// TIMESTAMPDIFF(unit, a, b): the compiler passes the unit as a first
    /// integer argument (an index of [`UNITS`]).
    TimestampDiff,
    /// TIME_TO_SEC(t): the compiler adds the result's fractional digits
    /// as a hidden second argument.
    TimeToSec,
    SecToTime,
    TimeDiff,
    AddTime,
    SubTime,
    MakeDate,
    MakeTime,
    ToSeconds,
    PeriodAdd,
    PeriodDiff,
    UtcDate,
    UtcTime,
    /// STR_TO_DATE(text, format) (see `func_clock_format`).
    StrToDate,
}

/// The function of an upper-case name with its (min, max) argument counts.
pub(super) fn lookup(upper: &str) -> Option<(Clock, usize, usize)> {
    use Clock::*;
    Some(match upper {
        "TIME_TO_SEC" => (TimeToSec, 1, 1),
        "SEC_TO_TIME" => (SecToTime, 1, 1),
        "TIMEDIFF" => (TimeDiff, 2, 2),
        "ADDTIME" => (AddTime, 2, 2),
        "SUBTIME" => (SubTime, 2, 2),
        "MAKEDATE" => (MakeDate, 2, 2),
        "MAKETIME" => (MakeTime, 3, 3),
        "TO_SECONDS" => (ToSeconds, 1, 1),
        "PERIOD_ADD" => (PeriodAdd, 2, 2),
        "PERIOD_DIFF" => (PeriodDiff, 2, 2),
        "UTC_DATE" => (UtcDate, 0, 0),
        "UTC_TIME" => (UtcTime, 0, 1),
        "STR_TO_DATE" => (StrToDate, 2, 2),
        _ => return None,
    })
}

/// TIMESTAMPDIFF's units, in the order of their index.
pub const UNITS: [&str; 9] = [
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
];

/// The index in [`UNITS`] of a unit name (with or without `SQL_TSI_`).
pub fn unit_index(name: &str) -> Option<usize> {
    let upper = name.to_ascii_uppercase();
    let bare = upper.strip_prefix("SQL_TSI_").unwrap_or(&upper);
    UNITS.iter().position(|u| *u == bare)
}

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Evaluates a function of this module (arguments non-NULL).
pub(super) fn call(c: Clock, v: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    Ok(match c {
        Clock::TimestampDiff => timestamp_diff(v, ctx),
        Clock::TimeToSec => time_to_sec(v, ctx),
        Clock::SecToTime => sec_to_time(&v[0], ctx),
        Clock::TimeDiff => time_diff(&v[0], &v[1], ctx),
        Clock::AddTime | Clock::SubTime => add_time(&v[0], &v[1], c == Clock::SubTime, ctx),
        Clock::MakeDate => make_date(&v[0], &v[1], ctx),
        Clock::MakeTime => make_time(v, ctx),
        Clock::ToSeconds => match to_datetime(&v[0], ctx) {
            Some(dt) if dt.date.month > 0 && dt.date.day > 0 => {
                let d = &dt.date;
                let days = day_number(i64::from(d.year), i64::from(d.month), i64::from(d.day));
                Value::Int(days * 86_400 + seconds_of_day(&dt))
            }
            _ => Value::Null,
        },
        Clock::PeriodAdd => {
            let (period, add) = (to_int(&v[0], ctx), to_int(&v[1], ctx));
            if period == 0 {
                // MariaDB: the zero period stays 0 whatever is added.
                Value::Int(0)
            } else {
                Value::Int(month_to_period(period_to_month(period) + add) as i64)
            }
        }
        Clock::PeriodDiff => Value::Int(
            (period_to_month(to_int(&v[0], ctx)) - period_to_month(to_int(&v[1], ctx))) as i64,
        ),
        Clock::UtcDate => super::func_time::call(Func::CurDate, v, ctx)?,
        Clock::UtcTime => super::func_time::call(Func::CurTime, v, ctx)?,
        Clock::StrToDate => super::func_clock_format::str_to_date(&v[0], &v[1], ctx),
    })
}

fn seconds_of_day(dt: &DateTime) -> i64 {
    i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second)
}

/// `h:mm:ss` of a TIME in microseconds, as MariaDB's warnings show it.
fn hms(us: i64) -> String {
    let s = us.unsigned_abs() / 1_000_000;
    let sign = if us < 0 { "-" } else { "" };
    format!("{sign}{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A TIME result within ±838:59:59, warning when it was beyond.
fn clamp_time(us: i64, ctx: &mut EvalContext<'_>) -> Value {
    if us.abs() <= TIME_MAX_MICROS {
        return Value::Time(us);
    }
    ctx.warn(
        code::TRUNCATED_WRONG_VALUE,
        format!("Truncated incorrect time value: '{}'", hms(us)),
    );
    Value::Time(TIME_MAX_MICROS * us.signum())
}

fn timestamp_diff(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let unit = match &v[0] {
        Value::Int(i) => *i as usize,
        _ => 0,
    };
    let (Some(a), Some(b)) = (to_datetime(&v[1], ctx), to_datetime(&v[2], ctx)) else {
        return Value::Null;
    };
    let (Some(ua), Some(ub)) = (datetime_micros(&a), datetime_micros(&b)) else {
        return Value::Null;
    };
    let diff = ub - ua;
    let n = match UNITS.get(unit).copied().unwrap_or("MICROSECOND") {
        "MICROSECOND" => diff,
        "SECOND" => diff / 1_000_000,
        "MINUTE" => diff / 60_000_000,
        "HOUR" => diff / 3_600_000_000,
        "DAY" => diff / MICROS_PER_DAY,
        "WEEK" => diff / (7 * MICROS_PER_DAY),
        unit => {
            let sign = if diff < 0 { -1 } else { 1 };
            let (beg, end) = if diff < 0 { (&b, &a) } else { (&a, &b) };
            let months = whole_months(beg, end) * sign;
            match unit {
                "MONTH" => months,
                "QUARTER" => months / 3,
                _ => months / 12,
            }
        }
    };
    Value::Int(n)
}

/// Whole calendar months from `beg` to the later `end`.
fn whole_months(beg: &DateTime, end: &DateTime) -> i64 {
    let (yb, mb, db) = (
        i64::from(beg.date.year),
        i64::from(beg.date.month),
        beg.date.day,
    );
    let (ye, me, de) = (
        i64::from(end.date.year),
        i64::from(end.date.month),
        end.date.day,
    );
    let mut months = (ye - yb) * 12 + me - mb;
    let (tb, te) = (
        (seconds_of_day(beg), beg.micros),
        (seconds_of_day(end), end.micros),
    );
    if de < db || (de == db && te < tb) {
        months -= 1;
    }
    months
}

fn time_to_sec(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let Some(us) = time_or_time_of_day(&v[0], ctx) else {
        return Value::Null;
    };
    super::func_time::seconds_with_digits(us, v.get(1))
}

/// The time of a value: a TIME, or the time of day of a datetime (a string
/// with a date part is read as a datetime).
fn time_or_time_of_day(v: &Value, ctx: &mut EvalContext<'_>) -> Option<i64> {
    match temporal_of(v, ctx)? {
        Temporal::Time(us) => Some(us),
        Temporal::Datetime(dt) => Some(seconds_of_day(&dt) * 1_000_000 + i64::from(dt.micros)),
    }
}

fn sec_to_time(x: &Value, ctx: &mut EvalContext<'_>) -> Value {
    let d = to_num(x, ctx).to_decimal();
    let us = decimal::mul(&d, &Decimal::from_i128(1_000_000, 0))
        .map(|m| decimal::cut(&m, 0, false))
        .map_or(i128::MAX, |m| decimal_to_i128(&m));
    if us.abs() > i128::from(TIME_MAX_MICROS) {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect seconds value: '{}'", to_str(x)),
        );
        return Value::Time(if us < 0 {
            -TIME_MAX_MICROS
        } else {
            TIME_MAX_MICROS
        });
    }
    Value::Time(us as i64)
}

/// A temporal argument of TIMEDIFF, ADDTIME and SUBTIME.
enum Temporal {
    Time(i64),
    Datetime(DateTime),
}

/// Reads a value as a DATETIME or a TIME as MariaDB does for TIMEDIFF and
/// ADDTIME: temporal values by their type, strings by their form (a date
/// and a time part make a DATETIME), numbers as TIME.
fn temporal_of(v: &Value, ctx: &mut EvalContext<'_>) -> Option<Temporal> {
    match v {
        Value::Time(us) => Some(Temporal::Time(*us)),
        Value::Date(_) | Value::Datetime(_) | Value::Timestamp(_) => {
            to_datetime(v, ctx).map(Temporal::Datetime)
        }
        Value::Str(_) | Value::Bytes(_) => {
            let s = to_str(v);
            let t = s.trim();
            let dated = t.contains(['-', '/']) && !t.starts_with('-') && t.contains([' ', 'T']);
            match parse_datetime(t).filter(|p| dated && p.has_time && !p.truncated) {
                Some(p) => Some(Temporal::Datetime(p.value)),
                None => to_time(v, ctx).map(Temporal::Time),
            }
        }
        other => to_time(other, ctx).map(Temporal::Time),
    }
}

fn time_diff(a: &Value, b: &Value, ctx: &mut EvalContext<'_>) -> Value {
    let (Some(a), Some(b)) = (temporal_of(a, ctx), temporal_of(b, ctx)) else {
        return Value::Null;
    };
    let diff = match (a, b) {
        (Temporal::Time(x), Temporal::Time(y)) => x - y,
        (Temporal::Datetime(x), Temporal::Datetime(y)) => {
            match (datetime_micros(&x), datetime_micros(&y)) {
                (Some(x), Some(y)) => x - y,
                _ => return Value::Null,
            }
        }
        _ => return Value::Null,
    };
    clamp_time(diff, ctx)
}

fn add_time(a: &Value, b: &Value, subtract: bool, ctx: &mut EvalContext<'_>) -> Value {
    let textual = matches!(a, Value::Str(_) | Value::Bytes(_));
    let Some(first) = temporal_of(a, ctx) else {
        return Value::Null;
    };
    let Some(delta) = to_time(b, ctx) else {
        return Value::Null;
    };
    let delta = if subtract { -delta } else { delta };
    let result = match first {
        Temporal::Time(t) => clamp_time(t + delta, ctx),
        Temporal::Datetime(dt) => match datetime_micros(&dt)
            .and_then(|us| datetime_from_micros(us + delta))
            .filter(|r| r.date.year >= 1)
        {
            Some(r) => Value::Datetime(r),
            None => return Value::Null,
        },
    };
    if textual {
        // A string argument gives a string: a fraction only when there is one.
        return Value::Str(to_str(&result));
    }
    result
}

fn make_date(year: &Value, day: &Value, ctx: &mut EvalContext<'_>) -> Value {
    let (year, day) = (to_int(year, ctx), to_int(day, ctx));
    if day <= 0 || !(0..=9999).contains(&year) {
        return Value::Null;
    }
    let year = match year {
        y if y < 70 => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    };
    let daynr = day_number(year as i64, 1, 1) + (day as i64).min(4_000_000) - 1;
    let d = date_of_day_number(daynr);
    if d.year == 0 {
        Value::Null
    } else {
        Value::Date(d)
    }
}

fn make_time(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let hour = to_int(&v[0], ctx);
    let minute = to_int(&v[1], ctx);
    let seconds = to_num(&v[2], ctx).to_decimal();
    let us = decimal::mul(&seconds, &Decimal::from_i128(1_000_000, 0))
        .map(|m| decimal_to_i128(&decimal::cut(&m, 0, false)))
        .unwrap_or(-1);
    if !(0..60).contains(&minute) || !(0..60_000_000).contains(&us) {
        return Value::Null;
    }
    let hour_us = hour.unsigned_abs().min(1_000_000) as i64 * 3_600_000_000;
    let total = hour_us + minute as i64 * 60_000_000 + us as i64;
    clamp_time(if hour < 0 { -total } else { total }, ctx)
}

/// A period (YYMM or YYYYMM) as a month count (`convert_period_to_month`).
fn period_to_month(period: i128) -> i128 {
    if period == 0 {
        return 0;
    }
    let year = full_year(period / 100);
    year * 12 + period % 100 - 1
}

/// A month count as a YYYYMM period (`convert_month_to_period`).
fn month_to_period(month: i128) -> i128 {
    if month == 0 {
        return 0;
    }
    let year = full_year(month / 12);
    year * 100 + month % 12 + 1
}

/// A two-digit year as MariaDB reads it in periods: 00-69 are 2000-2069,
/// 70-99 are 1970-1999; longer years stay.
fn full_year(y: i128) -> i128 {
    match y {
        y if y < 70 => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    }
}
