//! Dates and times as MySQL reads, computes and prints them: the proleptic
//! Gregorian calendar ([`days_from_civil`], [`civil_from_days`]), parsing of
//! date, datetime and time strings and numbers in every form MySQL accepts
//! (`'2024-01-05'`, `'24/1/5 7.30'`, `'20240105073000.5'`, `20240105`,
//! `'1 10:00:00'`, `'-838:59:59'`), interval arithmetic and `DATE_FORMAT`.
//!
//! Dates may have zero parts (`'0000-00-00'`, `'2024-00-00'`): MariaDB's default
//! sql_mode allows them. Such dates cannot take part in arithmetic (the result
//! is NULL, as in MySQL). Day-of-month validity is checked (`'2024-02-30'` is
//! invalid). TIMESTAMP values are seconds since the epoch shown in UTC (the
//! session time zone is UTC until time zones are supported).

use larch_engine::record::value::{Date, DateTime, Timestamp, TIME_MAX_MICROS};

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day number from [`days_from_civil`].
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days in a month of a year.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// True for a date MySQL accepts (zero parts allowed, days checked).
pub fn date_is_valid(d: &Date) -> bool {
    d.year <= 9999
        && d.month <= 12
        && d.day <= 31
        && (d.month == 0
            || d.day == 0
            || u32::from(d.day) <= days_in_month(u32::from(d.year), u32::from(d.month)))
}

/// Day number of a date without zero parts.
pub fn date_days(d: &Date) -> Option<i64> {
    if d.month == 0 || d.day == 0 {
        return None;
    }
    Some(days_from_civil(
        i64::from(d.year),
        u32::from(d.month),
        u32::from(d.day),
    ))
}

/// The date of a day number, if it is within years 0..=9999.
pub fn date_from_days(days: i64) -> Option<Date> {
    let (y, m, d) = civil_from_days(days);
    Some(Date {
        year: u16::try_from(y).ok().filter(|y| *y <= 9999)?,
        month: m as u8,
        day: d as u8,
    })
}

/// Microseconds since 1970-01-01 00:00:00 of a datetime without zero parts.
pub fn datetime_micros(dt: &DateTime) -> Option<i64> {
    let days = date_days(&dt.date)?;
    let secs = i64::from(dt.hour) * 3600 + i64::from(dt.minute) * 60 + i64::from(dt.second);
    Some(days * MICROS_PER_DAY + secs * 1_000_000 + i64::from(dt.micros))
}

/// The datetime of a microsecond count from [`datetime_micros`].
pub fn datetime_from_micros(us: i64) -> Option<DateTime> {
    let days = us.div_euclid(MICROS_PER_DAY);
    let rest = us.rem_euclid(MICROS_PER_DAY);
    let secs = rest / 1_000_000;
    Some(DateTime {
        date: date_from_days(days)?,
        hour: (secs / 3600) as u8,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micros: (rest % 1_000_000) as u32,
    })
}

/// A TIMESTAMP shown as a UTC datetime (the zero timestamp is the zero datetime).
pub fn timestamp_to_datetime(ts: &Timestamp) -> DateTime {
    if ts.secs == 0 {
        return DateTime::default();
    }
    datetime_from_micros(i64::from(ts.secs) * 1_000_000 + i64::from(ts.micros)).unwrap_or_default()
}

/// A UTC datetime as a TIMESTAMP, if it is in TIMESTAMP's range.
pub fn datetime_to_timestamp(dt: &DateTime) -> Option<Timestamp> {
    if *dt == DateTime::default() {
        return Some(Timestamp::default());
    }
    let us = datetime_micros(dt)?;
    let secs = u32::try_from(us.div_euclid(1_000_000)).ok()?;
    (1..=larch_engine::record::value::TIMESTAMP_MAX_SECS)
        .contains(&secs)
        .then_some(Timestamp {
            secs,
            micros: us.rem_euclid(1_000_000) as u32,
        })
}

/// Result of reading a temporal string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParsedDateTime {
    pub value: DateTime,
    /// True when the text had a time part.
    pub has_time: bool,
    /// Number of fractional digits written (0..=6).
    pub frac_digits: u8,
    /// True when text was left over (MySQL warns and uses what it read).
    pub truncated: bool,
}

/// Expands a two-digit year as MySQL does (70..=99 -> 19xx, else 20xx).
fn two_digit_year(y: u32) -> u32 {
    if y < 70 {
        2000 + y
    } else {
        1900 + y
    }
}

/// Reads a fraction "ddd" into microseconds (rounding beyond six digits is
/// truncation, as MySQL does with its default TIME_ROUND_FRACTIONAL off).
fn read_frac(digits: &str) -> (u32, u8) {
    let n = digits.len().min(6);
    let mut v: u32 = digits[..n]
        .bytes()
        .fold(0, |a, b| a * 10 + u32::from(b - b'0'));
    for _ in n..6 {
        v *= 10;
    }
    (v, n as u8)
}

/// Parses a date or datetime string (see the module docs). `None` when the
/// text is not a valid date.
pub fn parse_datetime(s: &str) -> Option<ParsedDateTime> {
    parse_datetime_days(s, true)
}

/// [`parse_datetime`] where any day up to 31 is a date (`2024-02-30`), as
/// MariaDB reads a string compared with a date: it compares after
/// 2024-02-29 and before 2024-03-01.
pub fn parse_datetime_any_day(s: &str) -> Option<ParsedDateTime> {
    parse_datetime_days(s, false)
}

fn parse_datetime_days(s: &str, check_days: bool) -> Option<ParsedDateTime> {
    let t = s.trim();
    let b = t.as_bytes();
    let mut parts: Vec<(u32, usize)> = Vec::new(); // (value, digit count)
    let mut i = 0;
    let mut frac = (0u32, 0u8);
    let mut truncated = false;
    // The leading run of digits decides between the delimited and the compact form.
    let lead = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if lead == 0 {
        return None;
    }
    if lead >= 6
        && lead != 7
        && (lead == b.len() || b[lead] == b'.' || b[lead].is_ascii_whitespace())
    {
        let digits = &t[..lead];
        let (date_len, year_len) = match lead {
            6 => (6, 2),
            8 => (8, 4),
            12 => (12, 2),
            14 => (14, 4),
            _ => return None,
        };
        let num = |a: usize, n: usize| digits[a..a + n].parse::<u32>().ok();
        let mut y = num(0, year_len)?;
        if year_len == 2 {
            y = two_digit_year(y);
        }
        let mo = num(year_len, 2)?;
        let d = num(year_len + 2, 2)?;
        let (mut h, mut mi, mut se) = (0, 0, 0);
        let has_time = date_len > 8 || (date_len == 12 && year_len == 2);
        if date_len >= 12 {
            h = num(year_len + 4, 2)?;
            mi = num(year_len + 6, 2)?;
            se = num(year_len + 8, 2)?;
        }
        let rest = &t[lead..];
        if let Some(f) = rest.strip_prefix('.') {
            let n = f.bytes().take_while(u8::is_ascii_digit).count();
            frac = read_frac(&f[..n]);
            truncated = f.len() > n;
        } else {
            truncated = !rest.trim().is_empty();
        }
        return build(y, mo, d, h, mi, se, frac, has_time, truncated, check_days);
    }
    // Delimited form: up to 6 numbers separated by punctuation; 'T' or spaces
    // between date and time; '.' before the fraction after the seconds.
    while i < b.len() && parts.len() < 6 {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            break;
        }
        let v: u32 = t[start..i].parse().ok()?;
        parts.push((v, i - start));
        if parts.len() == 6 {
            break;
        }
        // Skip one run of delimiters (date parts: punctuation; then space/T).
        // A space inside the date ('1 02:03:04', '2001 02 03') is no date.
        if parts.len() < 3 && b.get(i).is_some_and(u8::is_ascii_whitespace) {
            return None;
        }
        let dstart = i;
        while i < b.len()
            && !b[i].is_ascii_digit()
            && (b[i].is_ascii_punctuation()
                || b[i].is_ascii_whitespace()
                || (parts.len() == 3 && b[i] == b'T'))
        {
            i += 1;
        }
        if i == dstart {
            break;
        }
    }
    if i < b.len() && b[i] == b'.' && parts.len() == 6 {
        let f = &t[i + 1..];
        let n = f.bytes().take_while(u8::is_ascii_digit).count();
        frac = read_frac(&f[..n]);
        i += 1 + n;
    }
    truncated |= !t[i..].trim().is_empty();
    if parts.len() < 3 {
        return None;
    }
    // Only a two-digit year is expanded ('1-02-03' is the year 1).
    let mut y = parts[0].0;
    if parts[0].1 == 2 {
        y = two_digit_year(y);
    }
    let get = |k: usize| parts.get(k).map_or(0, |p| p.0);
    build(
        y,
        get(1),
        get(2),
        get(3),
        get(4),
        get(5),
        frac,
        parts.len() > 3,
        truncated,
        check_days,
    )
}

#[allow(clippy::too_many_arguments)]
fn build(
    y: u32,
    mo: u32,
    d: u32,
    h: u32,
    mi: u32,
    se: u32,
    frac: (u32, u8),
    has_time: bool,
    truncated: bool,
    check_days: bool,
) -> Option<ParsedDateTime> {
    if h > 23 || mi > 59 || se > 59 {
        return None;
    }
    let date = Date {
        year: u16::try_from(y).ok()?,
        month: u8::try_from(mo).ok()?,
        day: u8::try_from(d).ok()?,
    };
    let valid = if check_days {
        date_is_valid(&date)
    } else {
        date.year <= 9999 && date.month <= 12 && date.day <= 31
    };
    if !valid {
        return None;
    }
    Some(ParsedDateTime {
        value: DateTime {
            date,
            hour: h as u8,
            minute: mi as u8,
            second: se as u8,
            micros: frac.0,
        },
        has_time,
        frac_digits: frac.1,
        truncated,
    })
}

/// A number read as a date or datetime, by MariaDB's rules
/// (`number_to_datetime`): `YYMMDD` (years 2000-2069 below 700101, else
/// 1970-1999), `YYYYMMDD` from 10000101, `YYMMDDhhmmss`, and
/// `YYYYMMDDhhmmss` from 10000101000000; 0 is the zero date. `None` for
/// numbers in none of these ranges (1, 100, 9999999, ...) and invalid
/// dates, which MariaDB refuses (1292) or turns into NULL. A fraction of a
/// number that is a date only (`506.986`) is dropped, and `truncated` says
/// so (MariaDB's note "Truncated incorrect date value"). Without
/// `check_days` a day up to 31 is a date in any month (`20000231`).
pub fn datetime_from_number(
    int_part: u64,
    micros: u32,
    check_days: bool,
) -> Option<ParsedDateTime> {
    const YY_PART_YEAR: u64 = 70;
    let n = int_part;
    let (nr, has_time) = if n == 0 || n >= 10_000_101_000_000 {
        (n, true)
    } else if n < 101 {
        return None;
    } else if n <= (YY_PART_YEAR - 1) * 10_000 + 1231 {
        ((n + 20_000_000) * 1_000_000, false)
    } else if n < YY_PART_YEAR * 10_000 + 101 {
        return None;
    } else if n <= 991_231 {
        ((n + 19_000_000) * 1_000_000, false)
    } else if n < 10_000_101 {
        return None;
    } else if n <= 99_991_231 {
        (n * 1_000_000, false)
    } else if n < 101_000_000 {
        return None;
    } else if n <= (YY_PART_YEAR - 1) * 10_000_000_000 + 1_231_235_959 {
        (n + 20_000_000_000_000, true)
    } else if n < YY_PART_YEAR * 10_000_000_000 + 101_000_000 {
        return None;
    } else if n <= 991_231_235_959 {
        (n + 19_000_000_000_000, true)
    } else {
        (n, true)
    };
    if nr == 0 {
        return Some(ParsedDateTime {
            value: DateTime::default(),
            has_time: false,
            frac_digits: 0,
            truncated: false,
        });
    }
    let (date, time) = (nr / 1_000_000, nr % 1_000_000);
    let parsed = build(
        u32::try_from(date / 10_000).ok()?,
        (date % 10_000 / 100) as u32,
        (date % 100) as u32,
        (time / 10_000) as u32,
        (time % 10_000 / 100) as u32,
        (time % 100) as u32,
        (if has_time { micros } else { 0 }, 0),
        has_time,
        !has_time && micros != 0,
        check_days,
    )?;
    if parsed.value.date.year > 9999 {
        return None;
    }
    Some(parsed)
}

/// The time of a delimited datetime text (`YYYY-MM-DD hh:mm:ss`) that is
/// no valid datetime, as MariaDB reads it as a TIME: a day past its month's
/// end (`2024-02-30`, up to 31) still gives the time; a month past 12 or a
/// time part out of range (`24:00:00`, `23:61:00`) is no time at all
/// (`Some(None)`). `None` when the text is not of that shape.
fn delimited_datetime_time(t: &str) -> Option<Option<(i64, bool, bool)>> {
    let b = t.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let y = digits(0);
    if !(2..=4).contains(&y) || b.get(y) != Some(&b'-') {
        return None;
    }
    let m = digits(y + 1);
    if !(1..=2).contains(&m) || b.get(y + 1 + m) != Some(&b'-') {
        return None;
    }
    let day_at = y + m + 2;
    let d = digits(day_at);
    if !(1..=2).contains(&d) || !matches!(b.get(day_at + d), Some(b' ' | b'T')) {
        return None;
    }
    let day: u32 = t[day_at..day_at + d].parse().ok()?;
    if day > 31 {
        return Some(None);
    }
    // The same text on the month's first day: valid exactly when the
    // month and the time part are.
    let first = format!("{}01{}", &t[..day_at], &t[day_at + d..]);
    Some(parse_datetime(&first).filter(|p| p.has_time).map(|p| {
        let v = &p.value;
        let us = (i64::from(v.hour) * 3600 + i64::from(v.minute) * 60 + i64::from(v.second))
            * 1_000_000
            + i64::from(v.micros);
        (us, false, p.truncated)
    }))
}

/// Parses a TIME string into signed microseconds, clamped to ±838:59:59.
/// Returns `(micros, out_of_range, truncated)`; `None` when it is no time.
pub fn parse_time(s: &str) -> Option<(i64, bool, bool)> {
    let t = s.trim();
    // A full datetime string: its time part. A text whose first number
    // ends in `:`, `.` or a blank is a time ('01:00:00.000000', '10.5',
    // '1 10:00'), never a date, unless that number is longer than a time's
    // HHHMMSS ('20240101103000.25' is a datetime, as in MariaDB).
    let lead = t.bytes().take_while(u8::is_ascii_digit).count();
    let date_shaped = lead > 7
        || !matches!(
            t.bytes().find(|c| !c.is_ascii_digit()),
            Some(b':' | b'.' | b' ')
        );
    if let Some(p) = parse_datetime(t).filter(|p| date_shaped && p.has_time && t.len() > 10) {
        let v = &p.value;
        let us = (i64::from(v.hour) * 3600 + i64::from(v.minute) * 60 + i64::from(v.second))
            * 1_000_000
            + i64::from(v.micros);
        return Some((us, false, p.truncated));
    }
    if date_shaped && t.len() > 10 {
        if let Some(valid) = delimited_datetime_time(t) {
            return valid;
        }
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let b = body.as_bytes();
    let mut nums: Vec<u64> = Vec::new();
    let mut i = 0;
    let mut days = 0u64;
    let mut frac = 0u32;
    let lead = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if lead == 0 {
        return None;
    }
    let (h, m, sec);
    if lead < b.len() && b[lead] == b' ' && b.get(lead + 1).is_some_and(u8::is_ascii_digit) {
        days = body[..lead].parse().ok()?;
        i = lead + 1;
    } else if starts_with_exponent(body[lead..].trim_start()) {
        return None;
    }
    if !body[i..].contains(':') {
        // Compact HHMMSS / MMSS / SS.
        let n = body[i..].bytes().take_while(u8::is_ascii_digit).count();
        let v: u64 = body[i..i + n].parse().ok()?;
        h = v / 10000;
        m = v / 100 % 100;
        sec = v % 100;
        i += n;
    } else {
        while i < b.len() && nums.len() < 3 {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if st == i {
                break;
            }
            nums.push(body[st..i].parse().ok()?);
            if i < b.len() && b[i] == b':' && nums.len() < 3 {
                i += 1;
            } else {
                break;
            }
        }
        h = nums.first().copied().unwrap_or(0);
        m = nums.get(1).copied().unwrap_or(0);
        sec = nums.get(2).copied().unwrap_or(0);
    }
    if i < b.len() && b[i] == b'.' {
        let f = &body[i + 1..];
        let n = f.bytes().take_while(u8::is_ascii_digit).count();
        frac = read_frac(&f[..n]).0;
        i += 1 + n;
    }
    if m > 59 || sec > 59 || starts_with_exponent(&body[i..]) {
        return None;
    }
    let truncated = !body[i..].trim().is_empty();
    let total =
        ((days * 24 + h).min(10_000) * 3600 + m * 60 + sec) as i64 * 1_000_000 + i64::from(frac);
    let clamped = total.min(TIME_MAX_MICROS);
    let us = if neg { -clamped } else { clamped };
    Some((us, total > TIME_MAX_MICROS, truncated))
}

/// Whether a text starts with a number's exponent (`e2`, `E+2`, `e-2`): a
/// time text whose number goes on so ('1e2', '12:30:01e5', '1 e2') is no
/// time in MariaDB (NULL, "Incorrect time value"), never a truncated one.
fn starts_with_exponent(rest: &str) -> bool {
    let b = rest.as_bytes();
    let digit_at = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
    matches!(b.first(), Some(b'e' | b'E'))
        && (digit_at(1) || (matches!(b.get(1), Some(b'+' | b'-')) && digit_at(2)))
}

/// English month names, January first.
pub(crate) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// English day names, Sunday first.
pub(crate) const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Day of the week, 0 = Sunday.
pub fn weekday(days: i64) -> usize {
    (days + 4).rem_euclid(7) as usize
}

/// MySQL's `DATE_FORMAT` (week specifiers `%U %u %V %v %X %x` follow MySQL's
/// WEEK() modes 0, 1, 2 and 3). `None` for dates with zero parts when a
/// specifier needs the calendar.
pub fn date_format(dt: &DateTime, fmt: &str) -> Option<String> {
    let mut out = String::with_capacity(fmt.len() + 8);
    let mut chars = fmt.chars();
    let days = date_days(&dt.date);
    let (y, mo, d) = (dt.date.year, dt.date.month, dt.date.day);
    let hour12 = if dt.hour % 12 == 0 { 12 } else { dt.hour % 12 };
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else { break };
        match spec {
            'Y' => out.push_str(&format!("{y:04}")),
            'y' => out.push_str(&format!("{:02}", y % 100)),
            'm' => out.push_str(&format!("{mo:02}")),
            'c' => out.push_str(&mo.to_string()),
            'M' => out.push_str(MONTHS.get(usize::from(mo).checked_sub(1)?)?),
            'b' => out.push_str(&MONTHS.get(usize::from(mo).checked_sub(1)?)?[..3]),
            'd' => out.push_str(&format!("{d:02}")),
            'e' => out.push_str(&d.to_string()),
            'D' => {
                let suffix = match (d % 10, d % 100) {
                    (_, 11..=13) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                out.push_str(&format!("{d}{suffix}"));
            }
            'H' => out.push_str(&format!("{:02}", dt.hour)),
            'k' => out.push_str(&dt.hour.to_string()),
            'h' | 'I' => out.push_str(&format!("{hour12:02}")),
            'l' => out.push_str(&hour12.to_string()),
            'i' => out.push_str(&format!("{:02}", dt.minute)),
            'S' | 's' => out.push_str(&format!("{:02}", dt.second)),
            'f' => out.push_str(&format!("{:06}", dt.micros)),
            'p' => out.push_str(if dt.hour < 12 { "AM" } else { "PM" }),
            'r' => out.push_str(&format!(
                "{hour12:02}:{:02}:{:02} {}",
                dt.minute,
                dt.second,
                if dt.hour < 12 { "AM" } else { "PM" }
            )),
            'T' => out.push_str(&format!("{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second)),
            'W' => out.push_str(WEEKDAYS[weekday(days?)]),
            'a' => out.push_str(&WEEKDAYS[weekday(days?)][..3]),
            'w' => out.push_str(&weekday(days?).to_string()),
            'j' => {
                let jan1 = days_from_civil(i64::from(y), 1, 1);
                out.push_str(&format!("{:03}", days? - jan1 + 1));
            }
            'U' => out.push_str(&format!("{:02}", week(days?, i64::from(y), false, false).1)),
            'u' => out.push_str(&format!("{:02}", week(days?, i64::from(y), true, false).1)),
            'V' => out.push_str(&format!("{:02}", week(days?, i64::from(y), false, true).1)),
            'v' => out.push_str(&format!("{:02}", week(days?, i64::from(y), true, true).1)),
            'X' => out.push_str(&format!("{:04}", week(days?, i64::from(y), false, true).0)),
            'x' => out.push_str(&format!("{:04}", week(days?, i64::from(y), true, true).0)),
            other => out.push(other),
        }
    }
    Some(out)
}

/// MySQL's week number: `monday_first` picks the first weekday; `wrap` (modes
/// 2/3) counts days before the first week as the last week of the previous year
/// (mode 3 is ISO 8601: week 1 has at least four days). Returns (year, week).
pub fn week(days: i64, year: i64, monday_first: bool, wrap: bool) -> (i64, i64) {
    let first_weekday = |y: i64| -> (i64, i64) {
        let jan1 = days_from_civil(y, 1, 1);
        let wd = weekday(jan1) as i64; // 0 = Sunday
        let wd = if monday_first { (wd + 6) % 7 } else { wd };
        // ISO (Monday first + wrap): week 1 contains January 4th.
        let start = if monday_first && wrap {
            if wd <= 3 {
                jan1 - wd
            } else {
                jan1 + 7 - wd
            }
        } else if wd == 0 {
            jan1
        } else {
            jan1 + 7 - wd
        };
        (jan1, start)
    };
    let (_, start) = first_weekday(year);
    if days < start {
        if !wrap {
            return (year, 0);
        }
        let (_, prev_start) = first_weekday(year - 1);
        return (year - 1, (days - prev_start) / 7 + 1);
    }
    let w = (days - start) / 7 + 1;
    if wrap && monday_first {
        let (_, next_start) = first_weekday(year + 1);
        if days >= next_start {
            return (year + 1, 1);
        }
    }
    (year, w)
}
