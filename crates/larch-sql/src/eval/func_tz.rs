//! CONVERT_TZ, TIME_FORMAT, GET_FORMAT and TIMESTAMP(expr[, time]), with
//! MariaDB 10.11's rules:
//! - CONVERT_TZ's zones are offsets `+hh:mm` (at least 4 characters, any
//!   number of hour digits, from -12:59 to +13:00), `SYSTEM` (Larch's
//!   system zone is UTC) or names of the zoneinfo database (`tzfile`);
//!   anything else is NULL. A datetime outside TIMESTAMP's range
//!   (1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC) comes back
//!   unchanged; a zero date, a date with zero parts or no datetime at all
//!   is NULL with warning 1292;
//! - TIME_FORMAT formats a TIME with DATE_FORMAT's hour, minute, second,
//!   fraction and AM/PM specifiers; a date specifier (or an empty format)
//!   makes it NULL, and an unknown specifier is its letter;
//! - GET_FORMAT's first argument is a keyword (the compiler passes it as
//!   an integer) and its second a standard's name, matched without case;
//! - TIMESTAMP(expr) is a DATETIME, TIMESTAMP(expr, time) that plus the time.

use std::sync::Arc;

use larch_engine::record::value::{DateTime, Value};

use super::convert::{to_datetime, to_str, to_time};
use super::func_more::{date_of_day_number, day_number};
use super::tzfile::{find_zone, Zone};
use super::EvalContext;
use crate::error::code;
use crate::value::temporal::{date_is_valid, datetime_from_micros, datetime_micros};

/// A zone of CONVERT_TZ.
enum Tz {
    /// A fixed offset in seconds (SYSTEM is the offset 0).
    Offset(i64),
    Named(Arc<Zone>),
}

impl Tz {
    fn to_utc(&self, local: i64) -> i64 {
        match self {
            Tz::Offset(off) => local - off,
            Tz::Named(z) => z.local_to_utc(local),
        }
    }

    fn to_local(&self, utc: i64) -> i64 {
        match self {
            Tz::Offset(off) => utc + off,
            Tz::Named(z) => utc + z.offset_at(utc),
        }
    }
}

/// MariaDB's `str_to_offset`: `+hh:mm` or `-hh:mm` in seconds.
fn parse_offset(s: &[u8]) -> Option<i64> {
    if s.len() < 4 {
        return None;
    }
    let negative = match s[0] {
        b'+' => false,
        b'-' => true,
        _ => return None,
    };
    let mut i = 1;
    let number = |i: &mut usize| {
        let mut n: i64 = 0;
        while *i < s.len() && s[*i].is_ascii_digit() {
            n = n.saturating_mul(10).saturating_add(i64::from(s[*i] - b'0'));
            *i += 1;
        }
        n
    };
    let hours = number(&mut i);
    if i + 1 >= s.len() || s[i] != b':' {
        return None;
    }
    i += 1;
    let minutes = number(&mut i);
    if i != s.len() {
        return None;
    }
    let mut offset = hours
        .saturating_mul(60)
        .saturating_add(minutes)
        .saturating_mul(60);
    if negative {
        offset = -offset;
    }
    if minutes > 59 || offset < -13 * 3600 + 1 || offset > 13 * 3600 {
        return None;
    }
    Some(offset)
}

fn find_tz(v: &Value) -> Option<Tz> {
    let name = super::convert::to_bytes(v);
    if let Some(off) = parse_offset(&name) {
        return Some(Tz::Offset(off));
    }
    if name.eq_ignore_ascii_case(b"SYSTEM") {
        return Some(Tz::Offset(0));
    }
    find_zone(std::str::from_utf8(&name).ok()?).map(Tz::Named)
}

/// Seconds since 1970 of a datetime's whole seconds.
fn epoch_seconds(dt: &DateTime) -> Option<i64> {
    datetime_micros(dt).map(|us| us.div_euclid(1_000_000))
}

/// MariaDB's `validate_timestamp_range` of a local datetime.
fn in_timestamp_years(dt: &DateTime) -> bool {
    let (y, m, d) = (dt.date.year, dt.date.month, dt.date.day);
    (1969..=2038).contains(&y)
        && !(y == 2038 && (m > 1 || d > 19))
        && !(y == 1969 && (m < 12 || d < 31))
}

/// CONVERT_TZ(dt, from, to).
pub(super) fn convert_tz(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let (Some(from), Some(to)) = (find_tz(&v[1]), find_tz(&v[2])) else {
        return Value::Null;
    };
    let Some(dt) = to_datetime(&v[0], ctx) else {
        return Value::Null;
    };
    let d = &dt.date;
    if d.month == 0 || d.day == 0 || !date_is_valid(d) {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Incorrect datetime value: '{}'", to_str(&v[0])),
        );
        return Value::Null;
    }
    if !in_timestamp_years(&dt) {
        return Value::Datetime(dt);
    }
    let Some(local) = epoch_seconds(&dt) else {
        return Value::Datetime(dt);
    };
    let utc = from.to_utc(local);
    if !(1..=i64::from(i32::MAX)).contains(&utc) {
        return Value::Datetime(dt);
    }
    let shown = to.to_local(utc) * 1_000_000 + i64::from(dt.micros);
    datetime_from_micros(shown).map_or(Value::Datetime(dt), Value::Datetime)
}

/// TIME_FORMAT(time, format).
pub(super) fn time_format(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let Some(us) = to_time(&v[0], ctx) else {
        return Value::Null;
    };
    let format = to_str(&v[1]);
    if format.is_empty() {
        return Value::Null;
    }
    let total = us.unsigned_abs();
    let secs = total / 1_000_000;
    let (hour, minute, second) = (secs / 3600, secs / 60 % 60, secs % 60);
    let micros = total % 1_000_000;
    let hour12 = (hour % 24 + 11) % 12 + 1;
    let am_pm = if hour % 24 < 12 { "AM" } else { "PM" };
    let mut out = String::with_capacity(format.len() + 8);
    if us < 0 {
        out.push('-');
    }
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' || chars.peek().is_none() {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else { break };
        let piece = match spec {
            'H' => format!("{hour:02}"),
            'k' => hour.to_string(),
            'h' | 'I' => format!("{hour12:02}"),
            'l' => hour12.to_string(),
            'i' => format!("{minute:02}"),
            'S' | 's' => format!("{second:02}"),
            'f' => format!("{micros:06}"),
            'p' => am_pm.to_owned(),
            'r' => format!("{hour12:02}:{minute:02}:{second:02} {am_pm}"),
            'T' => format!("{hour:02}:{minute:02}:{second:02}"),
            'M' | 'b' | 'W' | 'a' | 'D' | 'Y' | 'y' | 'm' | 'c' | 'd' | 'e' | 'j' | 'U' | 'u'
            | 'V' | 'v' | 'X' | 'x' | 'w' => return Value::Null,
            other => other.to_string(),
        };
        out.push_str(&piece);
    }
    Value::Str(out)
}

/// GET_FORMAT's kinds, in the order of the compiler's integer.
pub const FORMAT_KINDS: [&str; 4] = ["DATE", "TIME", "DATETIME", "TIMESTAMP"];

/// GET_FORMAT(kind, standard): `kind` is an index of [`FORMAT_KINDS`].
pub(super) fn get_format(kind: i128, standard: &Value) -> Value {
    let standard = to_str(standard).to_ascii_uppercase();
    let at = ["EUR", "USA", "JIS", "ISO", "INTERNAL"]
        .iter()
        .position(|s| *s == standard);
    let Some(at) = at else {
        return Value::Null;
    };
    let formats: [&str; 5] = match kind {
        0 => ["%d.%m.%Y", "%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%Y%m%d"],
        1 => ["%H.%i.%s", "%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H%i%s"],
        _ => [
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y%m%d%H%i%s",
        ],
    };
    Value::Str(formats[at].to_owned())
}

/// TIMESTAMP(expr) and TIMESTAMP(expr, time): the time is read as an
/// `INTERVAL DAY TO SECOND` (no 838-hour limit) and added by MariaDB's
/// day numbers (so `2024-00-00` plus an hour is `2023-11-30 01:00:00`);
/// a result in year 0 or after 9999 is NULL.
pub(super) fn timestamp(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let Some(dt) = to_datetime(&v[0], ctx) else {
        return Value::Null;
    };
    if !date_is_valid(&dt.date) {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Incorrect datetime value: '{}'", to_str(&v[0])),
        );
        return Value::Null;
    }
    let Some(add) = v.get(1) else {
        return Value::Datetime(dt);
    };
    let Some(delta) = interval(add, ctx) else {
        return Value::Null;
    };
    let d = &dt.date;
    let day = day_number(i64::from(d.year), i64::from(d.month), i64::from(d.day));
    if day == 0 {
        return Value::Null;
    }
    let seconds = i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second);
    let total = (i128::from(day) * 86_400 + i128::from(seconds)) * 1_000_000
        + i128::from(dt.micros)
        + i128::from(delta);
    let (days, rest) = (total.div_euclid(DAY_US), total.rem_euclid(DAY_US) as i64);
    if !(366..=3_652_424).contains(&days) {
        return Value::Null;
    }
    let secs = rest / 1_000_000;
    Value::Datetime(DateTime {
        date: date_of_day_number(days as i64),
        hour: (secs / 3600) as u8,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micros: (rest % 1_000_000) as u32,
    })
}

const DAY_US: i128 = 86_400_000_000;

/// A value as MariaDB's `Interval_DDhhmmssff`, in microseconds: a TIME,
/// or text or a number as `[-][D ]hh:mm:ss[.ffffff]` or `[-]hhmmss[.ff]`.
/// Dates and datetimes are none (warning 1292).
fn interval(v: &Value, ctx: &mut EvalContext<'_>) -> Option<i64> {
    let text = match v {
        Value::Time(us) => return Some(*us),
        Value::Date(_) | Value::Datetime(_) | Value::Timestamp(_) => None,
        other => Some(to_str(other)),
    };
    let parsed = text.as_deref().and_then(interval_text);
    let shown = to_str(v);
    match parsed {
        Some((us, truncated)) => {
            if truncated {
                ctx.warn(
                    code::TRUNCATED_WRONG_VALUE,
                    format!("Truncated incorrect INTERVAL DAY TO SECOND value: '{shown}'"),
                );
            }
            Some(us)
        }
        None => {
            ctx.warn(
                code::TRUNCATED_WRONG_VALUE,
                format!("Incorrect INTERVAL DAY TO SECOND value: '{shown}'"),
            );
            None
        }
    }
}

/// Parses `[-][D ]h[:m[:s]][.f]` or `[-]hhmmss[.f]`: (microseconds,
/// whether text followed).
fn interval_text(s: &str) -> Option<(i64, bool)> {
    let t = s.trim_start();
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let b = body.as_bytes();
    let digits_at = |i: usize| {
        b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let number = |i: usize, n: usize| -> u64 { body[i..i + n].parse().unwrap_or(u64::MAX) };
    let lead = digits_at(0);
    if lead == 0 || b.get(lead) == Some(&b'-') {
        return None;
    }
    let mut i = 0;
    let mut days = 0u64;
    if b.get(lead) == Some(&b' ') && digits_at(lead + 1) > 0 {
        days = number(0, lead);
        i = lead + 1;
    }
    let n = digits_at(i);
    let (h, m, sec);
    if b.get(i + n) == Some(&b':') {
        let mut parts = vec![number(i, n)];
        i += n;
        while parts.len() < 3 && b.get(i) == Some(&b':') && digits_at(i + 1) > 0 {
            let k = digits_at(i + 1);
            parts.push(number(i + 1, k));
            i += 1 + k;
        }
        h = parts[0];
        m = parts.get(1).copied().unwrap_or(0);
        sec = parts.get(2).copied().unwrap_or(0);
    } else {
        let v = number(i, n);
        (h, m, sec) = (v / 10_000, v / 100 % 100, v % 100);
        i += n;
    }
    let mut frac = 0u64;
    if b.get(i) == Some(&b'.') {
        let k = digits_at(i + 1);
        let f = &body[i + 1..i + 1 + k];
        let six: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
        frac = six.parse().unwrap_or(0);
        i += 1 + k;
    }
    if m > 59 || sec > 59 || h > 100_000_000 || days > 100_000_000 {
        return None;
    }
    let total = ((days * 24 + h) * 3600 + m * 60 + sec) * 1_000_000 + frac;
    let us = i64::try_from(total).ok()?;
    Some((if neg { -us } else { us }, !body[i..].trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_mariadbs_str_to_offset() {
        assert_eq!(parse_offset(b"+05:30"), Some(19_800));
        assert_eq!(parse_offset(b"-12:59"), Some(-46_740));
        assert_eq!(parse_offset(b"+13:00"), Some(46_800));
        assert_eq!(parse_offset(b"+:30"), Some(1_800));
        assert_eq!(parse_offset(b"+005:30"), Some(19_800));
        assert_eq!(parse_offset(b"+05:3"), Some(18_180));
        for bad in [
            "+13:01", "-13:00", "+05:60", "+05:30 ", "05:30", "+5:", "+1",
        ] {
            assert_eq!(parse_offset(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn intervals_read_as_day_to_second() {
        let h = 3_600_000_000;
        assert_eq!(interval_text("900:00:00"), Some((900 * h, false)));
        assert_eq!(interval_text("-1 01:00:00"), Some((-25 * h, false)));
        assert_eq!(interval_text("2 03:00"), Some((51 * h, false)));
        assert_eq!(
            interval_text("20240101"),
            Some((2024 * h + 61_000_000, false))
        );
        assert_eq!(interval_text("1.5"), Some((1_500_000, false)));
        assert_eq!(interval_text("01:00:00x"), Some((h, true)));
        for bad in ["abc", "-", "2024-01-01 10:00:00", "10:60:00"] {
            assert_eq!(interval_text(bad), None, "{bad}");
        }
    }
}
