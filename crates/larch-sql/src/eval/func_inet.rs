//! INET6_ATON, INET6_NTOA, IS_IPV4, IS_IPV6, IS_IPV4_COMPAT and
//! IS_IPV4_MAPPED, with the textual forms MariaDB 10.11 accepts
//! (`Inet4::ascii_to_ipv4`, `Inet6::ascii_to_ipv6`):
//! - IPv4 is four dot-separated groups of 1 to 3 decimal digits up to 255
//!   (leading zeros allowed), 7 to 15 characters; IPv6 is up to eight
//!   groups of 1 to 4 hex digits with at most one `::`, optionally ending
//!   in an IPv4 address, 2 to 39 characters; text stops at a NUL byte and
//!   anything else (spaces, zone ids, trailing garbage) is no address;
//! - INET6_ATON is 4 bytes for IPv4 and 16 for IPv6, NULL otherwise;
//!   INET6_NTOA takes only binary strings of 4 or 16 bytes (other strings
//!   and numbers are NULL) and writes IPv6 in lower case with the longest
//!   run of zero groups (even a single one) as `::`, and IPv4-compatible
//!   and IPv4-mapped addresses with a dotted tail;
//! - IS_IPV4_COMPAT and IS_IPV4_MAPPED take an address as 16 bytes or as
//!   IPv6 text; anything else is 0 with warning 1292 "Incorrect inet6
//!   value"; NULL is 0 for all four IS_ functions.

use larch_engine::record::value::Value;

use super::convert::to_bytes;
use super::EvalContext;
use crate::error::code;

/// The text up to a NUL byte, as MariaDB's parsers stop there.
fn until_nul(s: &[u8]) -> &[u8] {
    s.iter().position(|b| *b == 0).map_or(s, |n| &s[..n])
}

/// MariaDB's `ascii_to_ipv4`.
fn parse_ipv4(s: &[u8]) -> Option<[u8; 4]> {
    if s.len() < 7 || s.len() > 15 {
        return None;
    }
    let mut out = [0u8; 4];
    let (mut value, mut digits, mut dots) = (0u32, 0, 0);
    let mut last = 0u8;
    for &c in until_nul(s) {
        last = c;
        match c {
            b'0'..=b'9' => {
                digits += 1;
                value = value * 10 + u32::from(c - b'0');
                if digits > 3 || value > 255 {
                    return None;
                }
            }
            b'.' => {
                if digits == 0 || dots == 3 {
                    return None;
                }
                out[dots] = value as u8;
                dots += 1;
                value = 0;
                digits = 0;
            }
            _ => return None,
        }
    }
    if last == b'.' || dots != 3 {
        return None;
    }
    out[3] = value as u8;
    Some(out)
}

/// MariaDB's `ascii_to_ipv6`.
fn parse_ipv6(s: &[u8]) -> Option<[u8; 16]> {
    if s.len() < 2 || s.len() > 39 {
        return None;
    }
    let s = until_nul(s);
    let mut out = [0u8; 16];
    let mut p = 0;
    if s.first() == Some(&b':') {
        p = 1;
        if s.get(1) != Some(&b':') {
            return None;
        }
    }
    let mut dst = 0usize;
    let mut gap: Option<usize> = None;
    let mut group_start = p;
    let (mut chars, mut value) = (0, 0u16);
    while p < s.len() {
        let c = s[p];
        p += 1;
        if c == b':' {
            group_start = p;
            if chars == 0 {
                if gap.is_some() {
                    return None;
                }
                gap = Some(dst);
                continue;
            }
            if p >= s.len() || dst + 2 > 16 {
                return None;
            }
            out[dst..dst + 2].copy_from_slice(&value.to_be_bytes());
            dst += 2;
            chars = 0;
            value = 0;
        } else if c == b'.' {
            if dst + 4 > 16 {
                return None;
            }
            let v4 = parse_ipv4(&s[group_start..])?;
            out[dst..dst + 4].copy_from_slice(&v4);
            dst += 4;
            chars = 0;
            break;
        } else {
            let digit = (c as char).to_digit(16)? as u16;
            if chars >= 4 {
                return None;
            }
            value = value << 4 | digit;
            chars += 1;
        }
    }
    if chars > 0 {
        if dst + 2 > 16 {
            return None;
        }
        out[dst..dst + 2].copy_from_slice(&value.to_be_bytes());
        dst += 2;
    }
    if let Some(g) = gap {
        if dst == 16 {
            return None;
        }
        let moved = dst - g;
        out.copy_within(g..dst, 16 - moved);
        out[g..16 - moved].fill(0);
        dst = 16;
    }
    (dst == 16).then_some(out)
}

fn ipv4_text(b: &[u8]) -> String {
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// MariaDB's `Inet6::to_string`.
fn ipv6_text(b: &[u8; 16]) -> String {
    let words: Vec<u16> = b
        .chunks_exact(2)
        .map(|w| u16::from_be_bytes([w[0], w[1]]))
        .collect();
    // The longest run of zero words (the first of equal ones).
    let (mut gap_pos, mut gap_len) = (usize::MAX, 0);
    let mut i = 0;
    while i < 8 {
        if words[i] == 0 {
            let start = i;
            while i < 8 && words[i] == 0 {
                i += 1;
            }
            if i - start > gap_len {
                (gap_pos, gap_len) = (start, i - start);
            }
        } else {
            i += 1;
        }
    }
    let mut out = String::with_capacity(39);
    let mut i = 0;
    while i < 8 {
        if i == gap_pos {
            if i == 0 {
                out.push(':');
            }
            out.push(':');
            i += gap_len;
            continue;
        }
        if i == 6 && gap_pos == 0 && (gap_len == 6 || (gap_len == 5 && words[5] == 0xffff)) {
            out.push_str(&ipv4_text(&b[12..]));
            break;
        }
        out.push_str(&format!("{:x}", words[i]));
        if i != 7 {
            out.push(':');
        }
        i += 1;
    }
    out
}

/// INET6_ATON(text).
pub(super) fn inet6_aton(v: &Value) -> Value {
    let s = to_bytes(v);
    if let Some(b) = parse_ipv4(&s) {
        return Value::Bytes(b.to_vec());
    }
    parse_ipv6(&s).map_or(Value::Null, |b| Value::Bytes(b.to_vec()))
}

/// INET6_NTOA(bytes).
pub(super) fn inet6_ntoa(v: &Value) -> Value {
    let Value::Bytes(b) = v else {
        return Value::Null;
    };
    match b.len() {
        4 => Value::Str(ipv4_text(b)),
        16 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(b);
            Value::Str(ipv6_text(&a))
        }
        _ => Value::Null,
    }
}

/// IS_IPV4(text) and IS_IPV6(text).
pub(super) fn is_ip(v: &Value, six: bool) -> Value {
    if v.is_null() {
        return Value::Int(0);
    }
    let s = to_bytes(v);
    Value::Int(i64::from(if six {
        parse_ipv6(&s).is_some()
    } else {
        parse_ipv4(&s).is_some()
    }))
}

/// A value as MariaDB shows it in "Incorrect ... value" (`ErrConvString`):
/// bytes of a binary string that are not printable ASCII as `\xNN`,
/// control characters of text as `\NNNN`.
fn shown(v: &Value) -> String {
    match v {
        Value::Bytes(b) => b
            .iter()
            .map(|&c| {
                if (0x20..0x7f).contains(&c) {
                    char::from(c).to_string()
                } else {
                    format!("\\x{c:02X}")
                }
            })
            .collect(),
        other => super::convert::to_str(other)
            .chars()
            .map(|c| {
                if (c as u32) < 0x20 {
                    format!("\\{:04X}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    }
}

/// IS_IPV4_COMPAT(addr) and IS_IPV4_MAPPED(addr).
pub(super) fn is_ipv4_in_6(v: &Value, mapped: bool, ctx: &mut EvalContext<'_>) -> Value {
    let addr = match v {
        Value::Null => return Value::Int(0),
        Value::Bytes(b) => <[u8; 16]>::try_from(b.as_slice()).ok(),
        other => parse_ipv6(&to_bytes(other)),
    };
    let Some(a) = addr else {
        ctx.warn(
            code::TRUNCATED_WRONG_VALUE,
            format!("Incorrect inet6 value: '{}'", shown(v)),
        );
        return Value::Int(0);
    };
    let yes = if mapped {
        a[..10].iter().all(|b| *b == 0) && a[10] == 0xff && a[11] == 0xff
    } else {
        a[..12].iter().all(|b| *b == 0) && u32::from_be_bytes([a[12], a[13], a[14], a[15]]) > 1
    };
    Value::Int(i64::from(yes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(v: Value) -> String {
        match v {
            Value::Bytes(b) => b.iter().map(|x| format!("{x:02X}")).collect(),
            _ => "NULL".into(),
        }
    }

    #[test]
    fn texts_parse_as_mariadb_reads_them() {
        let aton = |s: &str| hex(inet6_aton(&Value::Str(s.into())));
        assert_eq!(aton("01.2.3.4"), "01020304");
        assert_eq!(aton("::ffff:1.2.3.4"), "00000000000000000000FFFF01020304");
        assert_eq!(aton("1:2:3:4:5:6:7::"), "00010002000300040005000600070000");
        assert_eq!(aton("::1:2:3:4:5:6:7"), "00000001000200030004000500060007");
        assert_eq!(aton("1::1.2.3.4"), "00010000000000000000000001020304");
        for bad in [
            "1.2.3.4x",
            "1.2.3",
            ":1::2",
            "::1:",
            "1::2::3",
            "00001::1",
            "1.2.3.4::",
        ] {
            assert_eq!(aton(bad), "NULL", "{bad}");
        }
        let ntoa = |h: &str| {
            let b: Vec<u8> = (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap_or(0))
                .collect();
            super::super::convert::to_str(&inet6_ntoa(&Value::Bytes(b)))
        };
        assert_eq!(ntoa("00010000000200030004000500060007"), "1::2:3:4:5:6:7");
        assert_eq!(ntoa("00010000000000020000000000030004"), "1::2:0:0:3:4");
        assert_eq!(ntoa("00000000000000000000FFFF00000102"), "::ffff:0.0.1.2");
        assert_eq!(ntoa("00000000000000000000000000000001"), "::1");
        assert_eq!(ntoa("00000000000000000000000000000000"), "::");
    }
}
