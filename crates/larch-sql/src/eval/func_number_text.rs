//! Numbers as text for `Func::MathStr`: FORMAT with its locales, and CONV
//! (with BIN and OCT) between bases.
//!
//! FORMAT rounds DECIMAL and integers half up and doubles to even, at most
//! 38 decimals, with the locale's separators (an unknown locale is en_US
//! with warning 1649). CONV reads the longest prefix of digits of its base
//! (bases 2 to 36, a negative base meaning signed) and is NULL for an empty
//! string or a bad base.

use larch_engine::record::value::Value;

use super::convert::{to_int, to_num, to_str, Num};
use super::EvalContext;

/// The locales FORMAT knows: (name, decimal point, thousands separator,
/// grouping of the first group and of the others).
const LOCALES: &[(&str, &str, &str, usize, usize)] = &[
    ("en_US", ".", ",", 3, 3),
    ("en_GB", ".", ",", 3, 3),
    ("en_AU", ".", ",", 3, 3),
    ("en_CA", ".", ",", 3, 3),
    ("en_IN", ".", ",", 3, 2),
    ("de_DE", ",", ".", 3, 3),
    ("de_AT", ",", "", 3, 3),
    ("de_CH", ".", "'", 3, 3),
    ("fr_FR", ",", "", 3, 3),
    ("fr_CA", ",", "", 3, 3),
    ("es_ES", ",", ".", 3, 3),
    ("es_MX", ".", ",", 3, 3),
    ("it_IT", ",", "", 3, 3),
    ("pt_BR", ",", "", 3, 3),
    ("pt_PT", ",", "", 3, 3),
    ("ru_RU", ",", " ", 3, 3),
    ("ja_JP", ".", ",", 3, 3),
    ("zh_CN", ".", ",", 3, 3),
    ("nl_NL", ",", "", 3, 3),
    ("sv_SE", ",", " ", 3, 3),
    ("pl_PL", ",", "", 3, 3),
    ("ko_KR", ".", ",", 3, 3),
];

/// FORMAT(x, d[, locale]).
pub(super) fn format(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    if v[0].is_null() || v[1].is_null() {
        return Value::Null;
    }
    let dec = to_int(&v[1], ctx).clamp(0, 38) as usize;
    let locale = match v.get(2) {
        None => LOCALES[0],
        Some(l) => {
            let name = if l.is_null() {
                "NULL".to_owned()
            } else {
                to_str(l)
            };
            match LOCALES.iter().find(|e| e.0.eq_ignore_ascii_case(&name)) {
                Some(e) => *e,
                None => {
                    ctx.warn(1649, format!("Unknown locale: '{name}'"));
                    LOCALES[0]
                }
            }
        }
    };
    let text = match to_num(&v[0], ctx) {
        Num::Dbl(x) => {
            let m = 10f64.powi(dec as i32);
            let y = x * m;
            let r = if y.is_finite() {
                y.round_ties_even() / m
            } else {
                x
            };
            let s = format!("{r}");
            let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
            let mut frac = frac.to_owned();
            frac.truncate(dec);
            while frac.len() < dec {
                frac.push('0');
            }
            format!("{int}.{frac}")
        }
        n => {
            let d = n.to_decimal().rescale(dec.min(30) as u8);
            let mut s = d.to_string();
            if dec > 30 {
                s.push_str(&"0".repeat(dec - 30));
            }
            if !s.contains('.') {
                s.push('.');
            }
            s
        }
    };
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let (negative, digits) = match int.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, int),
    };
    let zero = digits.bytes().chain(frac.bytes()).all(|c| c == b'0');
    let (_, point, sep, first, rest) = locale;
    // Group from the right: the first group, then the others.
    let mut groups: Vec<&str> = Vec::new();
    let mut end = digits.len();
    let mut size = first;
    while end > size {
        groups.push(&digits[end - size..end]);
        end -= size;
        size = rest;
    }
    groups.push(&digits[..end]);
    groups.reverse();
    let mut out = String::new();
    if negative && !zero {
        out.push('-');
    }
    out.push_str(&groups.join(sep));
    if dec > 0 {
        out.push_str(point);
        out.push_str(frac);
    }
    Value::Str(out)
}

/// CONV(n, from_base, to_base); BIN and OCT are CONV(n, 10, 2 or 8).
pub(super) fn conv(n: &Value, from: i128, to: i128) -> Value {
    let ok = |b: i128| (2..=36).contains(&b.abs());
    if !ok(from) || !ok(to) {
        return Value::Null;
    }
    let value: u64 = match n {
        Value::Bit(b) => *b,
        _ => {
            let s = to_str(n);
            if s.is_empty() {
                return Value::Null;
            }
            parse_base(&s, from.unsigned_abs() as u32, from < 0)
        }
    };
    let (negative, mut mag) = if to < 0 && (value as i64) < 0 {
        (true, (value as i64).unsigned_abs())
    } else {
        (false, value)
    };
    let base = to.unsigned_abs() as u64;
    let mut digits = Vec::new();
    loop {
        digits.push(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(mag % base) as usize]);
        mag /= base;
        if mag == 0 {
            break;
        }
    }
    if negative {
        digits.push(b'-');
    }
    digits.reverse();
    Value::Str(String::from_utf8(digits).unwrap_or_default())
}

/// The longest prefix of `s` in `base` (after spaces and a sign), as
/// `strtoull` (or `strtoll` when `signed`) reads it, saturating.
fn parse_base(s: &str, base: u32, signed: bool) -> u64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut acc: u64 = 0;
    let mut overflow = false;
    for c in t.chars() {
        let Some(d) = c.to_digit(base) else { break };
        match acc
            .checked_mul(u64::from(base))
            .and_then(|a| a.checked_add(u64::from(d)))
        {
            Some(a) => acc = a,
            None => overflow = true,
        }
    }
    if signed {
        let limit = if negative {
            1u64 << 63
        } else {
            i64::MAX as u64
        };
        if overflow || acc > limit {
            return if negative {
                i64::MIN as u64
            } else {
                i64::MAX as u64
            };
        }
        if negative {
            return (acc as i64).wrapping_neg() as u64;
        }
        acc
    } else if overflow {
        u64::MAX
    } else if negative {
        acc.wrapping_neg()
    } else {
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_prefix_reads_as_two_complement() {
        assert_eq!(parse_base("-17", 10, false), (-17i64) as u64);
    }
}
