//! Date and time functions and interval arithmetic (`DATE_ADD`, `DATE_SUB`,
//! `d + INTERVAL n unit`). The session time zone is UTC: NOW() is the
//! statement's start time in UTC and UNIX_TIMESTAMP/FROM_UNIXTIME convert
//! with it. Results outside years 1..9999 are NULL with warning 1441, as in
//! MySQL; dates with zero parts take no part in arithmetic (NULL).

use larch_engine::record::value::{Date, DateTime, Decimal, Value};

use super::convert::{to_date, to_datetime, to_num, to_str, to_time, Num};
use super::{EvalContext, Func};
use crate::error::{code, SqlError};
use crate::value::store::decimal_to_i128;
use crate::value::temporal::{self, date_days, date_format, datetime_from_micros, datetime_micros};

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Units of INTERVAL expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

impl IntervalUnit {
    /// True for the units of one field (MICROSECOND .. YEAR), whose
    /// amount is a number; a compound unit's is text.
    pub fn is_single(self) -> bool {
        use IntervalUnit::*;
        matches!(
            self,
            Microsecond | Second | Minute | Hour | Day | Week | Month | Quarter | Year
        )
    }

    /// The unit of `FIRST [TO LAST]` as sqlparser splits MySQL's compound units.
    pub fn from_fields(first: &str, last: Option<&str>) -> Option<IntervalUnit> {
        use IntervalUnit::*;
        let f = first.to_ascii_uppercase();
        let l = last.map(str::to_ascii_uppercase);
        Some(
            match (
                f.trim_end_matches('S'),
                l.as_deref().map(|s| s.trim_end_matches('S')),
            ) {
                ("MICROSECOND", None) => Microsecond,
                ("SECOND", None) => Second,
                ("MINUTE", None) => Minute,
                ("HOUR", None) => Hour,
                ("DAY", None) => Day,
                ("WEEK", None) => Week,
                ("MONTH", None) => Month,
                ("QUARTER", None) => Quarter,
                ("YEAR", None) => Year,
                ("SECOND", Some("MICROSECOND")) => SecondMicrosecond,
                ("MINUTE", Some("MICROSECOND")) => MinuteMicrosecond,
                ("MINUTE", Some("SECOND")) => MinuteSecond,
                ("HOUR", Some("MICROSECOND")) => HourMicrosecond,
                ("HOUR", Some("SECOND")) => HourSecond,
                ("HOUR", Some("MINUTE")) => HourMinute,
                ("DAY", Some("MICROSECOND")) => DayMicrosecond,
                ("DAY", Some("SECOND")) => DaySecond,
                ("DAY", Some("MINUTE")) => DayMinute,
                ("DAY", Some("HOUR")) => DayHour,
                ("YEAR", Some("MONTH")) => YearMonth,
                _ => return None,
            },
        )
    }

    /// True for units below a day (the result of a DATE operand is a DATETIME).
    /// WEEK, MONTH, QUARTER, YEAR and YEAR_MONTH: the units a TIME does
    /// not move by.
    pub fn is_weeks_or_longer(self) -> bool {
        matches!(
            self,
            IntervalUnit::Week
                | IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
                | IntervalUnit::YearMonth
        )
    }

    pub fn has_time(self) -> bool {
        !matches!(
            self,
            IntervalUnit::Day
                | IntervalUnit::Week
                | IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
                | IntervalUnit::YearMonth
        )
    }
}

/// An interval as (months, microseconds).
/// The integer a string starts with (0 for none), with MariaDB's 1292
/// "Truncated incorrect INTEGER value" when anything else follows.
fn integer_prefix(s: &str, ctx: &mut EvalContext<'_>) -> i128 {
    let t = s.trim_start();
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let n = rest[..digits].bytes().fold(0i128, |a, d| {
        a.saturating_mul(10).saturating_add(i128::from(d - b'0'))
    });
    if digits == 0 || !rest[digits..].trim_end().is_empty() {
        ctx.warn(
            crate::error::code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect INTEGER value: '{s}'"),
        );
    }
    if neg {
        -n
    } else {
        n
    }
}

fn interval_parts(
    amount: &Value,
    unit: IntervalUnit,
    ctx: &mut EvalContext<'_>,
) -> Option<(i64, i64)> {
    use IntervalUnit::*;
    let simple = |mult: i64, ctx: &mut EvalContext<'_>| -> Option<i64> {
        if mult != 1_000_000 {
            if let Value::Str(_) | Value::Bytes(_) = amount {
                // A string counts whole units: its integer prefix, as
                // MariaDB's val_int() reads it ('1.9' DAY is 1 day, '1e2'
                // DAY 1 day), with 1292 for what is left over.
                return i64::try_from(integer_prefix(&to_str(amount), ctx))
                    .ok()?
                    .checked_mul(mult);
            }
        }
        let n = to_num(amount, ctx);
        if mult == 1_000_000 {
            // Seconds may carry a fraction.
            let d = n.to_decimal();
            let us = decimal_to_i128(&super::decimal::mul(&d, &Decimal::from_i128(1_000_000, 0))?);
            return i64::try_from(us).ok();
        }
        i64::try_from(n.to_i128()).ok()?.checked_mul(mult)
    };
    match unit {
        Microsecond => Some((0, simple(1, ctx)?)),
        Second => Some((0, simple(1_000_000, ctx)?)),
        Minute => Some((0, simple(60_000_000, ctx)?)),
        Hour => Some((0, simple(3_600_000_000, ctx)?)),
        Day => Some((0, simple(MICROS_PER_DAY, ctx)?)),
        Week => Some((0, simple(7 * MICROS_PER_DAY, ctx)?)),
        Month => Some((simple(1, ctx)?, 0)),
        Quarter => Some((simple(3, ctx)?, 0)),
        Year => Some((simple(12, ctx)?, 0)),
        _ => {
            // Compound units: numbers separated by anything, right-aligned to
            // the unit's fields.
            let s = to_str(amount);
            let t = s.trim();
            let neg = t.starts_with('-');
            let mut nums: Vec<i64> = t
                .split(|c: char| !c.is_ascii_digit())
                .filter(|p| !p.is_empty())
                .map(|p| p.parse::<i64>().unwrap_or(0))
                .collect();
            let fields: &[i64] = match unit {
                SecondMicrosecond => &[1_000_000, 1],
                MinuteMicrosecond => &[60_000_000, 1_000_000, 1],
                MinuteSecond => &[60_000_000, 1_000_000],
                HourMicrosecond => &[3_600_000_000, 60_000_000, 1_000_000, 1],
                HourSecond => &[3_600_000_000, 60_000_000, 1_000_000],
                HourMinute => &[3_600_000_000, 60_000_000],
                DayMicrosecond => &[MICROS_PER_DAY, 3_600_000_000, 60_000_000, 1_000_000, 1],
                DaySecond => &[MICROS_PER_DAY, 3_600_000_000, 60_000_000, 1_000_000],
                DayMinute => &[MICROS_PER_DAY, 3_600_000_000, 60_000_000],
                DayHour => &[MICROS_PER_DAY, 3_600_000_000],
                _ => &[12, 1], // YearMonth, in months
            };
            if nums.len() > fields.len() {
                return None;
            }
            // A microsecond field written with fewer than six digits is a fraction.
            if unit != YearMonth && fields.last() == Some(&1) && nums.len() == fields.len() {
                if let Some(frac) = t.rsplit(|c: char| !c.is_ascii_digit()).next() {
                    if !frac.is_empty() && frac.len() < 6 {
                        if let Some(last) = nums.last_mut() {
                            *last *= 10i64.pow(6 - frac.len() as u32);
                        }
                    }
                }
            }
            let skip = fields.len() - nums.len();
            let mut total = 0i64;
            for (n, m) in nums.drain(..).zip(&fields[skip..]) {
                total = total.checked_add(n.checked_mul(*m)?)?;
            }
            let total = if neg { -total } else { total };
            Some(if unit == YearMonth {
                (total, 0)
            } else {
                (0, total)
            })
        }
    }
}

fn add_months(dt: &DateTime, months: i64) -> Option<DateTime> {
    let m0 = (i64::from(dt.date.year) * 12 + i64::from(dt.date.month) - 1).checked_add(months)?;
    let year = m0.div_euclid(12);
    let month = (m0.rem_euclid(12) + 1) as u32;
    if !(0..=9999).contains(&year) {
        return None;
    }
    let day = u32::from(dt.date.day).min(temporal::days_in_month(year as u32, month));
    Some(DateTime {
        date: Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        },
        ..*dt
    })
}

fn overflow(ctx: &mut EvalContext<'_>) -> Value {
    ctx.warn(1441, "Datetime function: datetime field overflow");
    Value::Null
}

/// `date ± INTERVAL amount unit`.
pub(super) fn date_add(
    d: &Value,
    amount: &Value,
    unit: IntervalUnit,
    subtract: bool,
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    if d.is_null() || amount.is_null() {
        return Ok(Value::Null);
    }
    let Some((months, micros)) = interval_parts(amount, unit, ctx) else {
        return Ok(Value::Null);
    };
    let (months, micros) = if subtract {
        (-months, -micros)
    } else {
        (months, micros)
    };
    if let Value::Time(t) = d {
        // A TIME moves by days and smaller units only (not weeks: MariaDB's
        // "time field overflow" and NULL), within ±838:59:59.
        let months_unit = unit.is_weeks_or_longer();
        const TIME_MAX: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;
        return Ok(match t.checked_add(micros) {
            Some(r) if !months_unit && r.abs() <= TIME_MAX => Value::Time(r),
            _ => {
                ctx.warn(1441, "Datetime function: time field overflow");
                Value::Null
            }
        });
    }
    // A DATE, or a string or integer without a time part (902 is
    // 2000-09-02), stays a date for day units.
    let date_only = !unit.has_time()
        && match d {
            Value::Date(_) => true,
            Value::Str(_) | Value::Bytes(_) => {
                temporal::parse_datetime(&to_str(d)).is_some_and(|p| !p.has_time)
            }
            Value::Int(_) | Value::UInt(_) => to_str(d)
                .parse::<u64>()
                .ok()
                .and_then(|n| temporal::datetime_from_number(n, 0, true))
                .is_some_and(|p| !p.has_time),
            _ => false,
        };
    let Some(dt) = to_datetime(d, ctx) else {
        return Ok(Value::Null);
    };
    if dt.date.month == 0 || dt.date.day == 0 {
        return Ok(Value::Null);
    }
    let Some(dt) = add_months(&dt, months) else {
        return Ok(overflow(ctx));
    };
    let Some(us) = datetime_micros(&dt).and_then(|u| u.checked_add(micros)) else {
        return Ok(overflow(ctx));
    };
    match datetime_from_micros(us).filter(|r| r.date.year >= 1) {
        Some(r) if date_only => Ok(Value::Date(r.date)),
        Some(r) => Ok(Value::Datetime(r)),
        None => Ok(overflow(ctx)),
    }
}

fn cut_fsp(dt: DateTime, fsp: u8) -> DateTime {
    let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
    DateTime {
        micros: dt.micros - dt.micros % unit,
        ..dt
    }
}

fn fsp_arg(v: &[Value], ctx: &mut EvalContext<'_>) -> Result<u8, SqlError> {
    match v.first() {
        None | Some(Value::Null) => Ok(0),
        Some(x) => {
            let n = to_num(x, ctx).to_i128();
            u8::try_from(n).ok().filter(|n| *n <= 6).ok_or_else(|| {
                SqlError::new(
                    1426,
                    format!("Too big precision {n} specified for 'now'. Maximum is 6"),
                )
            })
        }
    }
}

/// Evaluates a date/time function (arguments non-NULL unless noted).
pub(super) fn call(f: Func, v: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    let time_of = |dt: &DateTime| {
        (i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second)) * 1_000_000
            + i64::from(dt.micros)
    };
    Ok(match f {
        Func::Now | Func::UtcTimestamp => Value::Datetime(cut_fsp(ctx.now, fsp_arg(v, ctx)?)),
        Func::CurDate => Value::Date(ctx.now.date),
        Func::CurTime => Value::Time(time_of(&cut_fsp(ctx.now, fsp_arg(v, ctx)?))),
        Func::Date => to_date(&v[0], ctx).map_or(Value::Null, Value::Date),
        Func::Time => to_time(&v[0], ctx).map_or(Value::Null, Value::Time),
        Func::Year | Func::Month | Func::Day => match to_date(&v[0], ctx) {
            Some(d) => Value::Int(i64::from(match f {
                Func::Year => d.year,
                Func::Month => u16::from(d.month),
                _ => u16::from(d.day),
            })),
            None => Value::Null,
        },
        Func::Hour | Func::Minute | Func::Second => match to_time(&v[0], ctx) {
            Some(us) => {
                let s = us.unsigned_abs() / 1_000_000;
                Value::Int(match f {
                    Func::Hour => s / 3600,
                    Func::Minute => s / 60 % 60,
                    _ => s % 60,
                } as i64)
            }
            None => Value::Null,
        },
        Func::DayOfWeek | Func::DayOfYear => {
            match to_date(&v[0], ctx).and_then(|d| Some((d, date_days(&d)?))) {
                Some((d, days)) => Value::Int(if f == Func::DayOfWeek {
                    temporal::weekday(days) as i64 + 1
                } else {
                    days - temporal::days_from_civil(i64::from(d.year), 1, 1) + 1
                }),
                None => Value::Null,
            }
        }
        Func::DateFormat => {
            let fmt = to_str(&v[1]);
            match to_datetime(&v[0], ctx).and_then(|dt| date_format(&dt, &fmt)) {
                Some(s) => Value::Str(s),
                None => Value::Null,
            }
        }
        Func::DateDiff => {
            let a = to_date(&v[0], ctx).and_then(|d| date_days(&d));
            let b = to_date(&v[1], ctx).and_then(|d| date_days(&d));
            match (a, b) {
                (Some(a), Some(b)) => Value::Int(a - b),
                _ => Value::Null,
            }
        }
        Func::UnixTimestamp => match v.first() {
            None => Value::Int(ctx.now_micros.div_euclid(1_000_000)),
            Some(Value::Null) => Value::Null,
            Some(x) => match to_datetime(x, ctx).and_then(|dt| datetime_micros(&dt)) {
                Some(us) if (0..=i64::from(i32::MAX) * 1_000_000).contains(&us) => {
                    // The fraction keeps the digits the argument's type has
                    // (the hidden second argument the compiler adds).
                    seconds_with_digits(us, v.get(1))
                }
                _ => Value::Null,
            },
        },
        Func::FromUnixtime => {
            let n = to_num(&v[0], ctx);
            let us = match &n {
                Num::Dbl(f) => (f * 1e6).round() as i128,
                other => {
                    let d = other.to_decimal();
                    decimal_to_i128(
                        &super::decimal::mul(&d, &Decimal::from_i128(1_000_000, 0))
                            .unwrap_or_else(Decimal::zero),
                    )
                }
            };
            if us < 0 || us > i128::from(i32::MAX) * 1_000_000 + 999_999 {
                return Ok(Value::Null);
            }
            match datetime_from_micros(us as i64) {
                Some(dt) if v.len() > 1 => {
                    date_format(&dt, &to_str(&v[1])).map_or(Value::Null, Value::Str)
                }
                Some(dt) => Value::Datetime(dt),
                None => Value::Null,
            }
        }
        _ => {
            return Err(SqlError::new(
                code::UNKNOWN,
                format!("{f:?} is not a date function"),
            ))
        }
    })
}

/// Microseconds `us` as seconds with the fractional digits `digits` asks
/// for (the hidden argument the compiler adds from the argument's type; 6
/// without it): an integer for 0 digits, else a DECIMAL.
pub(super) fn seconds_with_digits(us: i64, digits: Option<&Value>) -> Value {
    let digits = match digits {
        Some(Value::Int(n)) => (*n).clamp(0, 6) as u8,
        _ => 6,
    };
    if digits == 0 {
        Value::Int(us / 1_000_000)
    } else {
        Value::Decimal(Decimal::from_i128(i128::from(us), 6).rescale(digits))
    }
}
