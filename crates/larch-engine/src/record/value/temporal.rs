//! Dates and times: [`Date`], [`DateTime`], [`Timestamp`] and TIME (signed
//! microseconds, printed by [`format_time`]), their limits ([`TIME_MAX_MICROS`],
//! [`TIMESTAMP_MAX_SECS`]), calendar validity, and their fixed-width memcomparable
//! row encodings (MySQL's DATE, TIME2, DATETIME2 and TIMESTAMP2 layouts).

use std::fmt;

use super::{
    bad_temporal, corrupt, encode_value, get_be, mismatch, out_of_range, put_be, ColumnType, Value,
    ValueError,
};

/// Largest TIME magnitude, 838:59:59.999999, in microseconds (a TIME with
/// fewer fractional digits holds 838:59:59 and its largest fraction).
pub const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;
/// Largest TIMESTAMP second ('2038-01-19 03:14:07' UTC).
pub const TIMESTAMP_MAX_SECS: u32 = i32::MAX as u32;

/// A calendar date; zero parts are allowed ('0000-00-00', '2024-00-00').
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A DATETIME value (no time zone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    /// 0..=999_999.
    pub micros: u32,
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:02}:{:02}:{:02}.{:06}",
            self.date, self.hour, self.minute, self.second, self.micros
        )
    }
}

/// A TIMESTAMP value: UTC seconds since the epoch; `secs == 0` is the zero
/// timestamp '0000-00-00 00:00:00'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp {
    pub secs: u32,
    /// 0..=999_999.
    pub micros: u32,
}

/// Formats a TIME value as `[-]hhh:mm:ss.ffffff`.
pub fn format_time(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    let secs = m / 1_000_000;
    format!(
        "{sign}{:02}:{:02}:{:02}.{:06}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        m % 1_000_000
    )
}

/// Bytes of the fractional-second part for `fsp` digits (MySQL's TIME2 layout).
pub(super) fn frac_bytes(fsp: u8) -> usize {
    usize::from(fsp).div_ceil(2)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn date_is_valid(d: &Date) -> bool {
    d.year <= 9999
        && d.month <= 12
        && d.day <= 31
        && (d.month == 0 || d.day == 0 || d.day <= days_in_month(d.year, d.month))
}

/// True when `micros` has no digits beyond `fsp`.
fn fits_fsp(micros: u64, fsp: u8) -> bool {
    micros % 10u64.pow(6 - u32::from(fsp.min(6))) == 0
}

fn put_frac(micros: u32, fsp: u8, out: &mut Vec<u8>) {
    match frac_bytes(fsp) {
        0 => {}
        1 => out.push((micros / 10_000) as u8),
        2 => put_be(u64::from(micros / 100), 2, out),
        _ => put_be(u64::from(micros), 3, out),
    }
}

fn get_frac(bytes: &[u8]) -> u32 {
    let v = get_be(bytes) as u32;
    match bytes.len() {
        0 => 0,
        1 => v * 10_000,
        2 => v * 100,
        _ => v,
    }
}

/// MySQL's DATETIME2 bias (the packed value is stored as a signed 40-bit number).
const DATETIME_OFFSET: u64 = 0x80_0000_0000;

/// DATE: `(year * 16 + month) * 32 + day` in 3 bytes.
pub(super) fn encode_date(ty: &ColumnType, v: &Value, out: &mut Vec<u8>) -> Result<(), ValueError> {
    let Value::Date(d) = v else {
        return Err(mismatch(ty, v));
    };
    if !date_is_valid(d) {
        return Err(bad_temporal(ty, d));
    }
    let packed = (u64::from(d.year) * 16 + u64::from(d.month)) * 32 + u64::from(d.day);
    put_be(packed, 3, out);
    Ok(())
}

/// TIME(fsp): signed units of 10^-fsp seconds, biased, in `3 + frac_bytes(fsp)` bytes.
pub(super) fn encode_time(
    ty: &ColumnType,
    fsp: u8,
    v: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    let Value::Time(us) = *v else {
        return Err(mismatch(ty, v));
    };
    if !(-TIME_MAX_MICROS..=TIME_MAX_MICROS).contains(&us) {
        return Err(out_of_range(ty, format_time(us)));
    }
    if !fits_fsp(us.unsigned_abs(), fsp) {
        return Err(bad_temporal(ty, format_time(us)));
    }
    let width = 3 + frac_bytes(fsp);
    let units = us / 10i64.pow(6 - u32::from(fsp));
    let biased = (units + (1i64 << (width * 8 - 1))) as u64;
    put_be(biased, width, out);
    Ok(())
}

/// DATETIME(fsp): MySQL's packed DATETIME2 in 5 bytes, then the fraction.
pub(super) fn encode_datetime(
    ty: &ColumnType,
    fsp: u8,
    v: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    let Value::Datetime(dt) = v else {
        return Err(mismatch(ty, v));
    };
    if !date_is_valid(&dt.date)
        || dt.hour > 23
        || dt.minute > 59
        || dt.second > 59
        || dt.micros > 999_999
        || !fits_fsp(u64::from(dt.micros), fsp)
    {
        return Err(bad_temporal(ty, dt));
    }
    let d = &dt.date;
    let ym = u64::from(d.year) * 13 + u64::from(d.month);
    let ymd = (ym << 5) | u64::from(d.day);
    let hms = (u64::from(dt.hour) << 12) | (u64::from(dt.minute) << 6) | u64::from(dt.second);
    put_be(((ymd << 17) | hms) + DATETIME_OFFSET, 5, out);
    put_frac(dt.micros, fsp, out);
    Ok(())
}

/// TIMESTAMP(fsp): the seconds in 4 bytes, then the fraction.
pub(super) fn encode_timestamp(
    ty: &ColumnType,
    fsp: u8,
    v: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    let Value::Timestamp(ts) = *v else {
        return Err(mismatch(ty, v));
    };
    if ts.secs > TIMESTAMP_MAX_SECS || ts.micros > 999_999 || (ts.secs == 0 && ts.micros != 0) {
        return Err(out_of_range(ty, format!("{}.{:06}", ts.secs, ts.micros)));
    }
    if !fits_fsp(u64::from(ts.micros), fsp) {
        return Err(bad_temporal(ty, format!("{}.{:06}", ts.secs, ts.micros)));
    }
    put_be(u64::from(ts.secs), 4, out);
    put_frac(ts.micros, fsp, out);
    Ok(())
}

/// Decodes [`encode_date`]; `bytes` has the fixed width.
pub(super) fn decode_date(ty: &ColumnType, bytes: &[u8]) -> Result<Value, ValueError> {
    let p = get_be(bytes);
    let d = Date {
        year: (p >> 9) as u16,
        month: ((p >> 5) & 15) as u8,
        day: (p & 31) as u8,
    };
    if !date_is_valid(&d) {
        return Err(corrupt(ty, "invalid date"));
    }
    Ok(Value::Date(d))
}

/// Decodes [`encode_time`]; `bytes` has the fixed width.
pub(super) fn decode_time(ty: &ColumnType, fsp: u8, bytes: &[u8]) -> Result<Value, ValueError> {
    let width = bytes.len();
    let units = get_be(bytes) as i64 - (1i64 << (width * 8 - 1));
    let us = units * 10i64.pow(6 - u32::from(fsp));
    if us.abs() > TIME_MAX_MICROS {
        return Err(corrupt(ty, "time out of range"));
    }
    Ok(Value::Time(us))
}

/// Decodes [`encode_datetime`]; `bytes` has the fixed width.
pub(super) fn decode_datetime(ty: &ColumnType, bytes: &[u8]) -> Result<Value, ValueError> {
    let packed = get_be(&bytes[..5])
        .checked_sub(DATETIME_OFFSET)
        .ok_or_else(|| corrupt(ty, "negative datetime"))?;
    let ymd = packed >> 17;
    let ym = ymd >> 5;
    let dt = DateTime {
        date: Date {
            year: (ym / 13) as u16,
            month: (ym % 13) as u8,
            day: (ymd & 31) as u8,
        },
        hour: ((packed >> 12) & 31) as u8,
        minute: ((packed >> 6) & 63) as u8,
        second: (packed & 63) as u8,
        micros: get_frac(&bytes[5..]),
    };
    let v = Value::Datetime(dt);
    // Re-encoding checks every field.
    encode_value(ty, &v, &mut Vec::new()).map_err(|_| corrupt(ty, "invalid datetime"))?;
    Ok(v)
}

/// Decodes [`encode_timestamp`]; `bytes` has the fixed width.
pub(super) fn decode_timestamp(ty: &ColumnType, bytes: &[u8]) -> Result<Value, ValueError> {
    let v = Value::Timestamp(Timestamp {
        secs: get_be(&bytes[..4]) as u32,
        micros: get_frac(&bytes[4..]),
    });
    encode_value(ty, &v, &mut Vec::new()).map_err(|_| corrupt(ty, "invalid timestamp"))?;
    Ok(v)
}
