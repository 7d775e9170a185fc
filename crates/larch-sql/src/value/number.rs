//! Numbers as MySQL reads and prints them: the numeric prefix of a string
//! ([`parse_number_prefix`], what `'12abc' + 1` uses), and DOUBLE/FLOAT text
//! ([`format_double`], [`format_float`]) in MySQL's `my_gcvt` style: the
//! shortest digits that read back to the same value, positional unless the
//! number is an integer of more than 15 digits or smaller than 1e-15, then
//! `d.ddde±N` without a plus sign (`1e20`, `1.5e-20`, `0.30000000000000004`).

use larch_engine::record::value::{Decimal, Value};

/// The numeric prefix of a string, as MySQL's string-to-number conversions
/// read it: leading whitespace, a sign, digits, a fraction and an exponent.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberPrefix<'a> {
    /// The prefix text (sign and digits; empty when there is no number).
    pub text: &'a str,
    /// True when the prefix has a fraction or an exponent.
    pub is_real: bool,
    /// True when characters other than trailing whitespace follow the prefix
    /// (or there was no number at all): MySQL then warns (1292).
    pub truncated: bool,
}

/// Splits the numeric prefix off `s` (see [`NumberPrefix`]).
pub fn parse_number_prefix(s: &str) -> NumberPrefix<'_> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    let mut is_real = false;
    if i < b.len() && b[i] == b'.' {
        let f = i + 1;
        let mut j = f;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if digits > 0 || j > f {
            digits += j - f;
            is_real = true;
            i = j;
        }
    }
    if digits > 0 && i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            is_real = true;
            i = j;
        }
    }
    if digits == 0 {
        return NumberPrefix {
            text: "",
            is_real: false,
            truncated: !s.trim().is_empty() || s.is_empty(),
        };
    }
    let rest = &s[i..];
    NumberPrefix {
        text: &s[start..i],
        is_real,
        truncated: !rest.bytes().all(|c| c.is_ascii_whitespace()),
    }
}

/// The prefix as a double (0 when there is none).
pub fn prefix_to_f64(p: &NumberPrefix<'_>) -> f64 {
    p.text.parse::<f64>().unwrap_or(0.0)
}

/// The prefix as an exact decimal (exponent applied), `None` when it has no
/// digits or needs more than 65 integer or 30 fractional digits.
pub fn prefix_to_decimal(p: &NumberPrefix<'_>) -> Option<Decimal> {
    let t = p.text;
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(k) => (&t[..k], t[k + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (neg, body) = match mant.as_bytes().first() {
        Some(b'-') => (true, &mant[1..]),
        Some(b'+') => (false, &mant[1..]),
        _ => (false, mant),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|c| c - b'0').collect();
    let mut scale = frac.len() as i64 - i64::from(exp);
    if scale < 0 {
        digits.extend(std::iter::repeat_n(
            0,
            usize::try_from(-scale).ok()?.min(100),
        ));
        scale = 0;
    }
    let d = Decimal::from_parts(neg, &digits, u8::try_from(scale.min(255)).ok()?).ok()?;
    let d = if d.scale() > 30 { d.rescale(30) } else { d };
    if d.coefficient().len() > 65 + usize::from(d.scale()) {
        return None;
    }
    Some(d)
}

/// The shortest decimal digits of `v` (no leading or trailing zeros) and the
/// position of the decimal point (value = 0.DIGITS × 10^decpt).
fn shortest_digits(v: f64, sig: Option<usize>) -> (String, i32) {
    let s = match sig {
        Some(n) => format!("{:.*e}", n.saturating_sub(1), v.abs()),
        None => format!("{:e}", v.abs()),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0').to_string();
    if digits.is_empty() {
        return ("0".into(), 1);
    }
    (digits, exp + 1)
}

fn gcvt(v: f64, sig: Option<usize>) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let (digits, decpt) = shortest_digits(v, sig);
    let len = digits.len() as i32;
    let sign = if v < 0.0 { "-" } else { "" };
    let exponential = (decpt > 15 && len <= decpt) || decpt < -14;
    if exponential {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        return format!("{sign}{first}{dot}{rest}e{}", decpt - 1);
    }
    if decpt <= 0 {
        format!(
            "{sign}0.{}{digits}",
            "0".repeat(decpt.unsigned_abs() as usize)
        )
    } else if decpt >= len {
        format!("{sign}{digits}{}", "0".repeat((decpt - len) as usize))
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        format!("{sign}{a}.{b}")
    }
}

/// A DOUBLE as MySQL prints it (shortest round-trip digits).
pub fn format_double(v: f64) -> String {
    gcvt(v, None)
}

/// `f` as a FLOAT(M,D) or DOUBLE(M,D) holds it (MariaDB's
/// `truncate_double`): rounded to D decimals (the fraction, half to even
/// at the D-th digit) and held within ±(10^(M-D) - 10^-D) (0 and up when
/// `unsigned`); true when it was beyond that bound (out of range). NaN is
/// 0 and out of range.
pub fn fit_fixed(f: f64, (m, d): (u32, u32), unsigned: bool) -> (f64, bool) {
    if f.is_nan() {
        return (0.0, true);
    }
    if unsigned && f < 0.0 {
        return (0.0, true);
    }
    let max = 10f64.powi(m.saturating_sub(d) as i32) - 10f64.powi(-(d as i32));
    let mut r = f;
    if r.is_finite() {
        let whole = r.floor();
        let scale = 10f64.powi(d as i32);
        r = whole + ((r - whole) * scale).round_ties_even() / scale;
    }
    if r > max {
        (max, true)
    } else if r < -max {
        (-max, true)
    } else {
        (r, false)
    }
}

/// A value of a FLOAT(M,D) or DOUBLE(M,D) column as MariaDB prints it
/// (`my_fcvt`): `decimals` digits after the point, where digits beyond the
/// shortest form that reads back as the same double are zeros
/// (DOUBLE(30,25) shows pi as 3.1415926535897930000000000) and a longer
/// shortest form (a FLOAT widened to a double) is rounded.
pub fn format_fixed(v: f64, decimals: u32) -> String {
    if !v.is_finite() {
        return format_double(v);
    }
    let d = decimals as usize;
    let (digits, decpt) = if v == 0.0 {
        ("0".to_owned(), 1)
    } else {
        shortest_digits(v, None)
    };
    let len = digits.len() as i32;
    if len - decpt > decimals as i32 {
        let s = format!("{v:.d$}");
        // No "-0.00": a value that rounds to zero shows unsigned.
        return match s.strip_prefix('-') {
            Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_owned(),
            _ => s,
        };
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let (int_part, frac) = if decpt <= 0 {
        (
            "0".to_owned(),
            format!("{}{digits}", "0".repeat(decpt.unsigned_abs() as usize)),
        )
    } else if decpt >= len {
        (
            format!("{digits}{}", "0".repeat((decpt - len) as usize)),
            String::new(),
        )
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        (a.to_owned(), b.to_owned())
    };
    if d == 0 {
        return format!("{sign}{int_part}");
    }
    format!("{sign}{int_part}.{frac:0<d$}")
}

/// A FLOAT as MySQL prints it (six significant digits).
pub fn format_float(v: f32) -> String {
    gcvt(f64::from(v), Some(6))
}

/// SQL truth of a WHERE, HAVING or ON result: NULL is false, a number is
/// true when it is not zero, a string by its numeric prefix, a temporal
/// value unless it is all zeros (`0000-00-00`, `00:00:00`: the number 0).
pub fn is_true(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Int(i) => *i != 0,
        Value::UInt(u) | Value::Bit(u) | Value::Set(u) => *u != 0,
        Value::Enum(i) => *i != 0,
        Value::Year(y) => *y != 0,
        Value::Double(d) => *d != 0.0,
        Value::Float(f) => *f != 0.0,
        Value::Decimal(d) => !d.is_zero(),
        Value::Str(s) => prefix_to_f64(&parse_number_prefix(s)) != 0.0,
        Value::Bytes(b) => prefix_to_f64(&parse_number_prefix(&String::from_utf8_lossy(b))) != 0.0,
        Value::Date(d) => (d.year, d.month, d.day) != (0, 0, 0),
        Value::Datetime(dt) => {
            (dt.date.year, dt.date.month, dt.date.day) != (0, 0, 0)
                || (dt.hour, dt.minute, dt.second, dt.micros) != (0, 0, 0, 0)
        }
        Value::Timestamp(ts) => (ts.secs, ts.micros) != (0, 0),
        Value::Time(us) => *us != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_like_mysql() {
        // Expected strings are MariaDB 10.11's output for the same values.
        let cases: [(f64, &str); 22] = [
            (1e20, "1e20"),
            (1e15, "1e15"),
            (1e14, "100000000000000"),
            (1.2345678901234568e17, "1.2345678901234568e17"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-4, "0.0001"),
            (1.5e-5, "0.000015"),
            (1e-7, "0.0000001"),
            (1.0 / 3.0, "0.3333333333333333"),
            (100.0, "100"),
            (-0.0, "0"),
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (5e-324, "5e-324"),
            (12345.678, "12345.678"),
            (123456789012345.6, "123456789012345.6"),
            (1234567890123456.8, "1234567890123456.8"),
            (1234567890123456.0, "1.234567890123456e15"),
            (1e-15, "0.000000000000001"),
            (1e-16, "1e-16"),
            (1.2345e-15, "0.0000000000000012345"),
            (-1e15, "-1e15"),
            (-1.5e-20, "-1.5e-20"),
        ];
        for (v, s) in cases {
            assert_eq!(format_double(v), s, "{v:e}");
        }
    }

    #[test]
    fn floats_print_six_digits() {
        assert_eq!(format_float(0.1), "0.1");
        assert_eq!(format_float(1.0 / 3.0), "0.333333");
        assert_eq!(format_float(123456789.0), "123457000");
        assert_eq!(format_float(3.4e38), "3.4e38");
        assert_eq!(format_float(1.5e-5), "0.000015");
    }

    #[test]
    fn numeric_prefixes() {
        let p = parse_number_prefix("  12abc");
        assert_eq!((p.text, p.is_real, p.truncated), ("12", false, true));
        let p = parse_number_prefix("-1.5e3 ");
        assert_eq!((p.text, p.is_real, p.truncated), ("-1.5e3", true, false));
        let p = parse_number_prefix("1e");
        assert_eq!((p.text, p.is_real, p.truncated), ("1", false, true));
        let p = parse_number_prefix(".5");
        assert_eq!((p.text, p.is_real), (".5", true));
        assert!(parse_number_prefix("abc").truncated);
        assert!(parse_number_prefix("").truncated);
        assert_eq!(prefix_to_f64(&parse_number_prefix("2.5x")), 2.5);
        let d = prefix_to_decimal(&parse_number_prefix("1.25e2")).map(|d| d.to_string());
        assert_eq!(d.as_deref(), Some("125"));
        let d = prefix_to_decimal(&parse_number_prefix("-12.5e-1")).map(|d| d.to_string());
        assert_eq!(d.as_deref(), Some("-1.25"));
    }
}
