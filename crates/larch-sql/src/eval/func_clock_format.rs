//! STR_TO_DATE(text, format), as MariaDB's `extract_date_time` reads text:
//! spaces before each field are skipped, numeric fields take at most their
//! width of digits (%Y four, %j three, others two, %f six), a two-digit
//! year is 20xx below 70 and 19xx else, %h/%I/%l with %p read a 12-hour
//! clock, month and weekday names are matched case-insensitively, and the
//! text may end before the format does. Text that does not match is NULL
//! with warning 1411; text left over warns 1292. The result is a DATE, a
//! TIME or a DATETIME by the fields the format has ([`format_kind`]); zero
//! and impossible days (2013-02-31) are kept, as in MariaDB.

use larch_engine::record::value::{Date, DateTime, Value};

use super::convert::to_str;
use super::func_more::{date_of_day_number, day_number};
use super::EvalContext;
use crate::error::code;
use crate::value::temporal::{MONTHS, WEEKDAYS};

/// What a format string yields: date fields, time fields, fractional seconds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FormatKind {
    pub date: bool,
    pub time: bool,
    pub fraction: bool,
}

/// The fields a STR_TO_DATE format has.
pub fn format_kind(fmt: &str) -> FormatKind {
    let mut k = FormatKind::default();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next() {
            Some(
                'Y' | 'y' | 'm' | 'c' | 'd' | 'e' | 'M' | 'b' | 'j' | 'a' | 'W' | 'D' | 'U' | 'u'
                | 'V' | 'v' | 'X' | 'x' | 'w',
            ) => k.date = true,
            Some('H' | 'k' | 'h' | 'I' | 'l' | 'i' | 's' | 'S' | 'p' | 'T' | 'r') => k.time = true,
            Some('f') => {
                k.time = true;
                k.fraction = true;
            }
            Some(_) => {}
            None => break,
        }
    }
    k
}

/// The fields read from the text.
#[derive(Default)]
struct Fields {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
    year_day: i64,
    twelve_hour: bool,
    pm: bool,
}

/// %T and %r written out.
fn expand(fmt: &str) -> String {
    let mut out = String::with_capacity(fmt.len());
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('T') => out.push_str("%H:%i:%s"),
            Some('r') => out.push_str("%I:%i:%S %p"),
            Some(s) => {
                out.push('%');
                out.push(s);
            }
            None => out.push('%'),
        }
    }
    out
}

/// A two-digit year: 20xx below 70, 19xx else.
fn two_digit_year(y: i64) -> i64 {
    match y {
        y if y < 70 => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    }
}

/// Up to `width` digits at `*pos`; `None` when there is none.
fn number(v: &[u8], pos: &mut usize, width: usize) -> Option<(i64, usize)> {
    let start = *pos;
    let mut n = 0i64;
    while *pos < v.len() && *pos - start < width && v[*pos].is_ascii_digit() {
        n = n * 10 + i64::from(v[*pos] - b'0');
        *pos += 1;
    }
    let len = *pos - start;
    (len > 0).then_some((n, len))
}

/// The index in `names` of the word at `*pos` (its full name or first
/// three letters, any case).
fn word(v: &[u8], pos: &mut usize, names: &[&str]) -> Option<usize> {
    let start = *pos;
    while *pos < v.len() && v[*pos].is_ascii_alphabetic() {
        *pos += 1;
    }
    let w = std::str::from_utf8(&v[start..*pos]).ok()?;
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(w) || (w.len() == 3 && n[..3].eq_ignore_ascii_case(w)))
}

/// Reads `v` by `fmt`; `None` when it does not match, else the fields and
/// whether text other than spaces was left over.
fn extract(v: &[u8], fmt: &[u8]) -> Option<(Fields, bool)> {
    let mut f = Fields::default();
    let (mut fi, mut vi) = (0, 0);
    while fi < fmt.len() && vi < v.len() {
        while vi < v.len() && v[vi].is_ascii_whitespace() {
            vi += 1;
        }
        if vi >= v.len() {
            break;
        }
        if fmt[fi] == b'%' && fi + 1 < fmt.len() {
            fi += 1;
            match fmt[fi] {
                b'Y' => {
                    let (n, len) = number(v, &mut vi, 4)?;
                    f.year = if len <= 2 { two_digit_year(n) } else { n };
                }
                b'y' => f.year = two_digit_year(number(v, &mut vi, 2)?.0),
                b'm' | b'c' => f.month = number(v, &mut vi, 2)?.0,
                b'd' | b'e' => f.day = number(v, &mut vi, 2)?.0,
                b'H' | b'k' => f.hour = number(v, &mut vi, 2)?.0,
                b'h' | b'I' | b'l' => {
                    f.hour = number(v, &mut vi, 2)?.0;
                    f.twelve_hour = true;
                }
                b'i' => f.minute = number(v, &mut vi, 2)?.0,
                b's' | b'S' => f.second = number(v, &mut vi, 2)?.0,
                b'f' => {
                    let (n, len) = number(v, &mut vi, 6)?;
                    f.micros = n * 10i64.pow(6 - len as u32);
                }
                b'j' => f.year_day = number(v, &mut vi, 3)?.0,
                b'p' => {
                    let am_pm = v.get(vi..vi + 2)?;
                    if !f.twelve_hour {
                        return None;
                    }
                    if am_pm.eq_ignore_ascii_case(b"PM") {
                        f.pm = true;
                    } else if !am_pm.eq_ignore_ascii_case(b"AM") {
                        return None;
                    }
                    vi += 2;
                }
                b'M' | b'b' => f.month = word(v, &mut vi, &MONTHS)? as i64 + 1,
                b'a' | b'W' => {
                    word(v, &mut vi, &WEEKDAYS)?;
                }
                other => {
                    if v[vi] != other {
                        return None;
                    }
                    vi += 1;
                }
            }
        } else if !fmt[fi].is_ascii_whitespace() {
            if fmt[fi] != v[vi] {
                return None;
            }
            vi += 1;
        }
        fi += 1;
    }
    let left_over = v[vi.min(v.len())..]
        .iter()
        .any(|b| !b.is_ascii_whitespace());
    Some((f, left_over))
}

/// Checks and completes the fields read: day of year, the 12-hour clock,
/// the ranges of months, days and times.
fn settle(mut f: Fields) -> Option<Fields> {
    if f.year_day > 0 {
        let d = date_of_day_number(day_number(f.year, 1, 1) + f.year_day - 1);
        if d.year == 0 {
            return None;
        }
        f.year = i64::from(d.year);
        f.month = i64::from(d.month);
        f.day = i64::from(d.day);
    }
    if f.twelve_hour {
        if !(1..=12).contains(&f.hour) {
            return None;
        }
        f.hour = f.hour % 12 + if f.pm { 12 } else { 0 };
    }
    let fits = f.year <= 9999 && f.month <= 12 && f.day <= 31;
    (fits && f.hour <= 23 && f.minute <= 59 && f.second <= 59).then_some(f)
}

/// STR_TO_DATE of non-NULL arguments.
pub(super) fn str_to_date(text: &Value, fmt: &Value, ctx: &mut EvalContext<'_>) -> Value {
    let (s, fmt) = (to_str(text), to_str(fmt));
    let kind = format_kind(&fmt);
    let Some((f, left_over)) =
        extract(s.as_bytes(), expand(&fmt).as_bytes()).and_then(|(f, l)| Some((settle(f)?, l)))
    else {
        ctx.warn(
            code::WRONG_VALUE_FOR_TYPE,
            format!("Incorrect datetime value: '{s}' for function str_to_date"),
        );
        return Value::Null;
    };
    let date = Date {
        year: f.year as u16,
        month: f.month as u8,
        day: f.day as u8,
    };
    let (value, name) = match (kind.date, kind.time) {
        (true, false) => (Value::Date(date), "date"),
        (false, true) => (
            Value::Time(((f.hour * 60 + f.minute) * 60 + f.second) * 1_000_000 + f.micros),
            "time",
        ),
        _ => (
            Value::Datetime(DateTime {
                date,
                hour: f.hour as u8,
                minute: f.minute as u8,
                second: f.second as u8,
                micros: f.micros as u32,
            }),
            "datetime",
        ),
    };
    if left_over {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect {name} value: '{s}'"),
        );
    }
    value
}
