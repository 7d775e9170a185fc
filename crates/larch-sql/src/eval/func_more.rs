//! More built-in functions: BIT_LENGTH, SUBSTRING_INDEX, the user-level
//! locks (GET_LOCK and its family, see [`crate::user_locks`]), the REGEXP_*
//! functions (see `regexp`), and the calendar
//! functions TO_DAYS, FROM_DAYS, LAST_DAY, DAYNAME, MONTHNAME, WEEKDAY,
//! QUARTER, WEEK, YEARWEEK, WEEKOFYEAR (see `week`) and MICROSECOND, with
//! MariaDB's day numbers (`calc_daynr`: day 1 is 0000-01-01,
//! year 0 is not a leap year), NULL for NULL arguments and for dates these
//! functions cannot use (zero dates, and zero months for LAST_DAY, DAYNAME).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{Date, Value};

use super::convert::{to_bytes, to_date, to_f64, to_int};
use super::{func_str, EvalContext, Func};
use crate::error::SqlError;
use crate::value::temporal::{days_in_month, MONTHS, WEEKDAYS};

/// The functions of this module (`Func::More`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum More {
    BitLength,
    SubstringIndex,
    ToDays,
    FromDays,
    LastDay,
    DayName,
    MonthName,
    Weekday,
    Quarter,
    /// WEEK(date[, mode]).
    Week,
    /// YEARWEEK(date[, mode]).
    YearWeek,
    /// WEEKOFYEAR(date): WEEK(date, 3).
    WeekOfYear,
    /// MICROSECOND(time): the fraction of a second, in microseconds.
    Microsecond,
    GetLock,
    ReleaseLock,
    IsFreeLock,
    IsUsedLock,
    ReleaseAllLocks,
    RegexpLike,
    RegexpReplace,
    RegexpSubstr,
    RegexpInstr,
}

/// The function of an upper-case name with its (min, max) argument counts.
pub(super) fn lookup(upper: &str) -> Option<(More, usize, usize)> {
    use More::*;
    Some(match upper {
        "BIT_LENGTH" => (BitLength, 1, 1),
        "SUBSTRING_INDEX" => (SubstringIndex, 3, 3),
        "TO_DAYS" => (ToDays, 1, 1),
        "FROM_DAYS" => (FromDays, 1, 1),
        "LAST_DAY" => (LastDay, 1, 1),
        "DAYNAME" => (DayName, 1, 1),
        "MONTHNAME" => (MonthName, 1, 1),
        "WEEKDAY" => (Weekday, 1, 1),
        "QUARTER" => (Quarter, 1, 1),
        "WEEK" => (Week, 1, 2),
        "YEARWEEK" => (YearWeek, 1, 2),
        "WEEKOFYEAR" => (WeekOfYear, 1, 1),
        "MICROSECOND" => (Microsecond, 1, 1),
        "GET_LOCK" => (GetLock, 2, 2),
        "RELEASE_LOCK" => (ReleaseLock, 1, 1),
        "IS_FREE_LOCK" => (IsFreeLock, 1, 1),
        "IS_USED_LOCK" => (IsUsedLock, 1, 1),
        "RELEASE_ALL_LOCKS" => (ReleaseAllLocks, 0, 0),
        "REGEXP_LIKE" => (RegexpLike, 2, 3),
        "REGEXP_REPLACE" => (RegexpReplace, 3, 3),
        "REGEXP_SUBSTR" => (RegexpSubstr, 2, 2),
        "REGEXP_INSTR" => (RegexpInstr, 2, 2),
        _ => return None,
    })
}

/// The largest day number (9999-12-31).
const MAX_DAY_NUMBER: i64 = 3_652_424;

/// MariaDB's day number of a date (`calc_daynr`), 0 for the zero date.
pub fn day_number(year: i64, month: i64, day: i64) -> i64 {
    if year == 0 && month == 0 {
        return 0;
    }
    let mut delsum = 365 * year + 31 * (month - 1) + day;
    let mut y = year;
    if month <= 2 {
        y -= 1;
    } else {
        delsum -= (month * 4 + 23) / 10;
    }
    // C's truncating division, as MariaDB computes it.
    let temp = ((y / 100 + 1) * 3) / 4;
    delsum + y / 4 - temp
}

fn days_in_year(year: i64) -> i64 {
    if year & 3 == 0 && (year % 100 != 0 || (year % 400 == 0 && year != 0)) {
        366
    } else {
        365
    }
}

/// The date of a day number (`get_date_from_daynr`); the zero date below
/// day 366 and above 9999-12-31.
pub fn date_of_day_number(daynr: i64) -> Date {
    let zero = Date {
        year: 0,
        month: 0,
        day: 0,
    };
    if !(366..=MAX_DAY_NUMBER).contains(&daynr) {
        return zero;
    }
    let mut year = daynr * 100 / 36525;
    let temp = (((year - 1) / 100 + 1) * 3) / 4;
    let mut day_of_year = (daynr - year * 365) - (year - 1) / 4 + temp;
    let mut in_year = days_in_year(year);
    while day_of_year > in_year {
        day_of_year -= in_year;
        year += 1;
        in_year = days_in_year(year);
    }
    let mut leap_day = 0;
    if in_year == 366 && day_of_year > 31 + 28 {
        day_of_year -= 1;
        if day_of_year == 31 + 28 {
            leap_day = 1;
        }
    }
    let mut month = 1;
    while month < 12 && day_of_year > i64::from(days_in_month(2001, month)) {
        day_of_year -= i64::from(days_in_month(2001, month));
        month += 1;
    }
    Date {
        year: year as u16,
        month: month as u8,
        day: (day_of_year + leap_day) as u8,
    }
}

/// A date with a month and a day (not the zero date, not `2001-00-05`).
fn full_date(v: &Value, ctx: &mut EvalContext<'_>) -> Option<Date> {
    to_date(v, ctx).filter(|d| d.month != 0 && d.day != 0)
}

pub(super) fn call(
    m: More,
    v: &[Value],
    coll: Collation,
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    let day_nr = |d: &Date| day_number(i64::from(d.year), i64::from(d.month), i64::from(d.day));
    Ok(match m {
        More::GetLock
        | More::ReleaseLock
        | More::IsFreeLock
        | More::IsUsedLock
        | More::ReleaseAllLocks => return user_lock(m, v, ctx),
        More::RegexpLike | More::RegexpReplace | More::RegexpSubstr | More::RegexpInstr => {
            return super::regexp::call(m, v, coll, ctx)
        }
        More::BitLength => match func_str::call(Func::Length, v, coll, ctx)? {
            Some(Value::Int(n)) => Value::Int(n * 8),
            _ => Value::Null,
        },
        More::SubstringIndex => substring_index(&v[0], &v[1], to_int(&v[2], ctx)),
        More::ToDays => match to_date(&v[0], ctx) {
            Some(d) if d.month != 0 => Value::Int(day_nr(&d)),
            _ => Value::Null,
        },
        More::FromDays => {
            let n = to_int(&v[0], ctx);
            Value::Date(date_of_day_number(i64::try_from(n).unwrap_or(if n < 0 {
                i64::MIN
            } else {
                i64::MAX
            })))
        }
        // The month must be known; a zero day is any day of it.
        More::LastDay => match to_date(&v[0], ctx).filter(|d| d.month != 0) {
            Some(d) => Value::Date(Date {
                day: days_in_month(u32::from(d.year), u32::from(d.month)) as u8,
                ..d
            }),
            None => Value::Null,
        },
        More::DayName | More::Weekday => match full_date(&v[0], ctx) {
            // Day 1 (0000-01-01) was a Saturday in MariaDB's calendar.
            Some(d) => {
                let wd = (day_nr(&d) + 5).rem_euclid(7) as usize;
                if m == More::Weekday {
                    Value::Int(wd as i64)
                } else {
                    // `wd` counts from Monday; the table starts on Sunday.
                    Value::Str(WEEKDAYS[(wd + 1) % 7].to_owned())
                }
            }
            None => Value::Null,
        },
        More::MonthName => match to_date(&v[0], ctx) {
            Some(d) if d.month != 0 => Value::Str(MONTHS[usize::from(d.month) - 1].to_owned()),
            _ => Value::Null,
        },
        More::Quarter => match to_date(&v[0], ctx) {
            Some(d) => Value::Int((i64::from(d.month) + 2) / 3),
            None => Value::Null,
        },
        More::Week | More::YearWeek | More::WeekOfYear => {
            // A NULL mode is mode 0, as MariaDB reads it.
            let mode = match v.get(1) {
                Some(x) if !x.is_null() => to_int(x, ctx),
                _ if m == More::WeekOfYear => 3,
                _ => 0,
            };
            let date = if v[0].is_null() {
                None
            } else {
                full_date(&v[0], ctx)
            };
            match date {
                Some(d) if m == More::YearWeek => {
                    let (week, year) = super::week::week(&d, super::week::behaviour(mode) | 2);
                    Value::Int(year * 100 + week)
                }
                Some(d) => Value::Int(super::week::week(&d, super::week::behaviour(mode)).0),
                None => Value::Null,
            }
        }
        More::Microsecond => match super::convert::to_time(&v[0], ctx) {
            Some(us) => Value::Int((us.unsigned_abs() % 1_000_000) as i64),
            None => Value::Null,
        },
    })
}

/// SUBSTRING_INDEX(str, delim, count): the part of `str` before the
/// count-th `delim` (from the right when count is negative), compared
/// byte for byte (case-sensitive) as MariaDB does.
fn substring_index(s: &Value, delim: &Value, count: i128) -> Value {
    let binary = matches!(s, Value::Bytes(_)) || matches!(delim, Value::Bytes(_));
    let hay = to_bytes(s);
    let needle = to_bytes(delim);
    let out: &[u8] = if needle.is_empty() || count == 0 {
        &[]
    } else {
        let starts: Vec<usize> = {
            let mut at = Vec::new();
            let mut i = 0;
            while i + needle.len() <= hay.len() {
                if hay[i..].starts_with(&needle) {
                    at.push(i);
                    i += needle.len();
                } else {
                    i += 1;
                }
            }
            at
        };
        let n = count.unsigned_abs();
        if n > starts.len() as u128 {
            &hay
        } else if count > 0 {
            &hay[..starts[n as usize - 1]]
        } else {
            &hay[starts[starts.len() - n as usize] + needle.len()..]
        }
    };
    if binary {
        Value::Bytes(out.to_vec())
    } else {
        Value::Str(String::from_utf8_lossy(out).into_owned())
    }
}

/// GET_LOCK and its family, on the statement's server-wide lock table.
fn user_lock(m: More, v: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    let (locks, conn) = crate::user_locks::current();
    if m == More::ReleaseAllLocks {
        return Ok(Value::UInt(locks.release_all(conn)));
    }
    let name = match v.first() {
        Some(Value::Null) | None => return Ok(Value::Null),
        Some(n) => String::from_utf8_lossy(&to_bytes(n)).into_owned(),
    };
    if name.is_empty() {
        return Ok(Value::Null);
    }
    Ok(match m {
        More::GetLock => {
            let timeout = match v.get(1) {
                Some(Value::Null) | None => {
                    ctx.warn(
                        1411,
                        "Incorrect timeout value: 'NULL' for function get_lock",
                    );
                    return Ok(Value::Null);
                }
                Some(t) => to_f64(t, ctx),
            };
            let kill = ctx.kill;
            Value::Int(i64::from(locks.get(conn, &name, timeout, kill)?))
        }
        More::ReleaseLock => match locks.release(conn, &name)? {
            Some(mine) => Value::Int(i64::from(mine)),
            None => Value::Null,
        },
        More::IsFreeLock => Value::Int(i64::from(locks.holder(&name)?.is_none())),
        More::IsUsedLock => locks.holder(&name)?.map_or(Value::Null, Value::UInt),
        _ => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::super::convert::to_str;
    use super::*;

    #[test]
    fn day_numbers_match_mariadb() {
        assert_eq!(day_number(1970, 1, 1), 719_528);
        assert_eq!(day_number(0, 1, 1), 1);
        assert_eq!(day_number(9999, 12, 31), MAX_DAY_NUMBER);
        for n in [366, 367, 719_528, 730_000, 738_000, MAX_DAY_NUMBER] {
            let d = date_of_day_number(n);
            assert_eq!(
                day_number(i64::from(d.year), i64::from(d.month), i64::from(d.day)),
                n
            );
        }
        assert_eq!(date_of_day_number(365).year, 0);
    }

    #[test]
    fn substring_index_counts_from_either_end() {
        let s = Value::Str("www.mariadb.org".into());
        let d = Value::Str(".".into());
        let text = |v: Value| to_str(&v);
        assert_eq!(text(substring_index(&s, &d, 2)), "www.mariadb");
        assert_eq!(text(substring_index(&s, &d, -2)), "mariadb.org");
        assert_eq!(text(substring_index(&s, &d, 5)), "www.mariadb.org");
        assert_eq!(text(substring_index(&s, &d, 0)), "");
        assert_eq!(text(substring_index(&s, &Value::Str("".into()), 1)), "");
    }
}
