//! The string functions of `Func::MathStr` (see `func_math` for the table):
//! CHAR, CHR, ORD, SHA1/SHA, SHA2, CRC32, FIELD, FIND_IN_SET, ELT, INSERT,
//! FORMAT, CONV, BIN, OCT, QUOTE, TO_BASE64, FROM_BASE64, BIT_COUNT,
//! MAKE_SET, EXPORT_SET, SOUNDEX, INET_ATON, INET_NTOA and UUID.
//!
//! MariaDB's rules followed here: CHAR(n, ...) gives the bytes of each
//! integer (as 32 bits, leading zero bytes dropped) and skips NULLs;
//! ORD is the first character's bytes as one number; SHA2 with a length
//! other than 0, 224, 256, 384 or 512 is NULL with warning 1583; FIELD
//! compares as strings when all its arguments are strings, else as
//! numbers, and is 0 for a NULL needle; INSERT and ELT count from 1 and
//! give the string unchanged (INSERT) or NULL (ELT) out of range; FORMAT
//! rounds DECIMAL and integers half up and doubles to even, at most 38
//! decimals, with the locale's separators (an unknown locale is en_US
//! with warning 1649); CONV reads the longest prefix of digits of its base
//! (bases 2 to 36, a negative base meaning signed) and is NULL for an
//! empty string or a bad base; QUOTE of NULL is the word NULL;
//! TO_BASE64 breaks lines after 76 characters and FROM_BASE64 skips
//! white space, NULL with warning 1958 for bad data; SOUNDEX keeps every
//! code (it is not cut to four characters); INET_ATON accepts short forms
//! (`127.1`); UUID is a version 1 UUID.

use std::cmp::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::compare::{compare, compare_num};
use super::convert::{to_bytes, to_f64, to_int, to_num, to_str, Num};
use super::func_math::MathStr;
use super::EvalContext;
use crate::error::SqlError;

/// A string result: text when valid UTF-8 and not `binary`, else bytes.
fn string_value(b: Vec<u8>, binary: bool) -> Value {
    if binary {
        return Value::Bytes(b);
    }
    match String::from_utf8(b) {
        Ok(s) => Value::Str(s),
        Err(e) => Value::Bytes(e.into_bytes()),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn call(
    m: MathStr,
    v: &[Value],
    coll: Collation,
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    use MathStr::*;
    let binary = |i: usize| matches!(v.get(i), Some(Value::Bytes(_)));
    Ok(match m {
        Char | Chr => {
            let mut out = Vec::new();
            for a in v.iter().filter(|a| !a.is_null()) {
                let n = to_int(a, ctx) as u32;
                let bytes = n.to_be_bytes();
                let skip = (n.leading_zeros() / 8).min(3) as usize;
                out.extend_from_slice(&bytes[skip..]);
            }
            string_value(out, m == Char)
        }
        Ord => {
            let b = to_bytes(&v[0]);
            let n = match &v[0] {
                Value::Bytes(_) => b.first().map_or(0, |&c| u64::from(c)),
                _ => {
                    let len = match b.first() {
                        Some(c) if *c >= 0xF0 => 4,
                        Some(c) if *c >= 0xE0 => 3,
                        Some(c) if *c >= 0xC0 => 2,
                        Some(_) => 1,
                        None => 0,
                    };
                    b.iter()
                        .take(len)
                        .fold(0u64, |acc, &c| (acc << 8) | u64::from(c))
                }
            };
            Value::Int(n as i64)
        }
        Sha1 => {
            use sha1::Digest;
            Value::Str(hex(&sha1::Sha1::digest(to_bytes(&v[0]))))
        }
        Sha2 => sha2(v, ctx),
        Crc32 => Value::UInt(u64::from(crc32(&to_bytes(&v[0])))),
        Field => field(v, coll, ctx),
        FindInSet => {
            let needle = to_str(&v[0]);
            let list = to_str(&v[1]);
            if needle.contains(',') || list.is_empty() {
                return Ok(Value::Int(0));
            }
            let needle = Value::Str(needle);
            let mut found = 0;
            for (i, item) in list.split(',').enumerate() {
                if compare(&Value::Str(item.to_owned()), &needle, coll, ctx)
                    == Some(Ordering::Equal)
                {
                    found = i as i64 + 1;
                    break;
                }
            }
            Value::Int(found)
        }
        Elt => {
            if v[0].is_null() {
                return Ok(Value::Null);
            }
            let n = to_int(&v[0], ctx);
            if n < 1 || n >= v.len() as i128 {
                Value::Null
            } else {
                v[n as usize].clone()
            }
        }
        Insert => insert(v, ctx),
        Format => super::func_number_text::format(v, ctx),
        Conv | Bin | Oct => {
            let (from, to) = match m {
                Conv => (to_int(&v[1], ctx), to_int(&v[2], ctx)),
                Bin => (10, 2),
                _ => (10, 8),
            };
            super::func_number_text::conv(&v[0], from, to)
        }
        Quote => match &v[0] {
            Value::Null => Value::Str("NULL".into()),
            x => {
                let mut out = vec![b'\''];
                for &c in &to_bytes(x) {
                    match c {
                        b'\\' | b'\'' => out.extend_from_slice(&[b'\\', c]),
                        0 => out.extend_from_slice(b"\\0"),
                        26 => out.extend_from_slice(b"\\Z"),
                        c => out.push(c),
                    }
                }
                out.push(b'\'');
                string_value(out, binary(0))
            }
        },
        ToBase64 => Value::Str(to_base64(&to_bytes(&v[0]))),
        FromBase64 => match from_base64(&to_bytes(&v[0])) {
            Ok(b) => Value::Bytes(b),
            Err(pos) => {
                ctx.warn(1958, format!("Bad base64 data as position {pos}"));
                Value::Null
            }
        },
        BitCount => {
            let n = match &v[0] {
                Value::Str(_) | Value::Bytes(_) => crate::value::store::decimal_to_i128(
                    &super::convert::str_to_decimal(&to_str(&v[0]), ctx),
                ),
                x => to_num(x, ctx).to_i128(),
            };
            let bits = if n < 0 {
                n.max(i128::from(i64::MIN)) as i64 as u64
            } else {
                n.min(i128::from(u64::MAX)) as u64
            };
            Value::Int(i64::from(bits.count_ones()))
        }
        MakeSet => {
            if v[0].is_null() {
                return Ok(Value::Null);
            }
            let bits = to_int(&v[0], ctx) as u64;
            let mut out: Vec<u8> = Vec::new();
            let mut first = true;
            for (i, a) in v[1..].iter().enumerate().take(64) {
                if bits & (1 << i) != 0 && !a.is_null() {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    out.extend(to_bytes(a));
                }
            }
            string_value(out, v[1..].iter().any(|a| matches!(a, Value::Bytes(_))))
        }
        ExportSet => {
            let bits = to_int(&v[0], ctx) as u64;
            let (on, off) = (to_bytes(&v[1]), to_bytes(&v[2]));
            let sep = v.get(3).map_or_else(|| b",".to_vec(), to_bytes);
            let n = v.get(4).map_or(64, |x| to_int(x, ctx));
            let n = if (0..=64).contains(&n) { n as u32 } else { 64 };
            let mut out = Vec::new();
            for i in 0..n {
                if i > 0 {
                    out.extend_from_slice(&sep);
                }
                out.extend_from_slice(if bits & (1 << i) != 0 { &on } else { &off });
            }
            string_value(out, v[1..].iter().any(|a| matches!(a, Value::Bytes(_))))
        }
        Soundex => Value::Str(soundex(&to_str(&v[0]))),
        InetAton => inet_aton(&to_str(&v[0])).map_or(Value::Null, Value::UInt),
        InetNtoa => {
            let n = to_int(&v[0], ctx);
            match u32::try_from(n) {
                Ok(n) => Value::Str(std::net::Ipv4Addr::from(n).to_string()),
                Err(_) => Value::Null,
            }
        }
        Uuid => Value::Str(uuid_v1()),
        _ => Value::Null,
    })
}

/// SHA2(str, bits).
fn sha2(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    use sha2::Digest;
    if v[0].is_null() {
        return Value::Null;
    }
    let bits = if v[1].is_null() {
        0
    } else {
        to_int(&v[1], ctx)
    };
    let data = to_bytes(&v[0]);
    let digest = match bits {
        0 | 256 => sha2::Sha256::digest(&data).to_vec(),
        224 => sha2::Sha224::digest(&data).to_vec(),
        384 => sha2::Sha384::digest(&data).to_vec(),
        512 => sha2::Sha512::digest(&data).to_vec(),
        _ => {
            ctx.warn(
                1583,
                "Incorrect parameters in the call to native function 'sha2'",
            );
            return Value::Null;
        }
    };
    Value::Str(hex(&digest))
}

/// The IEEE CRC-32 of `data`, as zlib computes it.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// FIELD(needle, item, ...): the position of the first item equal to the
/// needle, 0 if none (or the needle is NULL).
fn field(v: &[Value], coll: Collation, ctx: &mut EvalContext<'_>) -> Value {
    if v[0].is_null() {
        return Value::Int(0);
    }
    let is_str = |x: &Value| matches!(x, Value::Str(_) | Value::Bytes(_) | Value::Null);
    if v.iter().all(is_str) {
        for (i, x) in v[1..].iter().enumerate() {
            if !x.is_null() && compare(&v[0], x, coll, ctx) == Some(Ordering::Equal) {
                return Value::Int(i as i64 + 1);
            }
        }
        return Value::Int(0);
    }
    let as_num = |x: &Value, ctx: &mut EvalContext<'_>| match x {
        Value::Str(_) | Value::Bytes(_) => Num::Dbl(to_f64(x, ctx)),
        x => to_num(x, ctx),
    };
    let needle = as_num(&v[0], ctx);
    for (i, x) in v[1..].iter().enumerate() {
        if x.is_null() {
            continue;
        }
        let n = as_num(x, ctx);
        if compare_num(&needle, &n) == Ordering::Equal {
            return Value::Int(i as i64 + 1);
        }
    }
    Value::Int(0)
}

/// INSERT(str, pos, len, newstr), in characters (bytes for binary strings).
fn insert(v: &[Value], ctx: &mut EvalContext<'_>) -> Value {
    let pos = to_int(&v[1], ctx);
    let len = to_int(&v[2], ctx);
    let binary = matches!(v[0], Value::Bytes(_)) || matches!(v[3], Value::Bytes(_));
    let (units, new): (Vec<Vec<u8>>, Vec<u8>) = if binary {
        (
            to_bytes(&v[0]).into_iter().map(|b| vec![b]).collect(),
            to_bytes(&v[3]),
        )
    } else {
        (
            to_str(&v[0])
                .chars()
                .map(|c| c.to_string().into_bytes())
                .collect(),
            to_str(&v[3]).into_bytes(),
        )
    };
    let n = units.len() as i128;
    if pos < 1 || pos > n {
        return v[0].clone();
    }
    let start = pos - 1;
    let len = if len < 0 || len > n { n } else { len };
    let end = (start + len).min(n) as usize;
    let mut out: Vec<u8> = units[..start as usize].concat();
    out.extend_from_slice(&new);
    out.extend(units[end..].concat());
    string_value(out, binary)
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 with `=` padding and a line break after every 76 characters.
fn to_base64(data: &[u8]) -> String {
    let mut out = String::new();
    let mut line = 0;
    for chunk in data.chunks(3) {
        if line == 76 {
            out.push('\n');
            line = 0;
        }
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
        line += 4;
    }
    out
}

/// Decodes base64, skipping white space; `Err(position)` of bad data.
fn from_base64(src: &[u8]) -> Result<Vec<u8>, usize> {
    let value = |c: u8| BASE64.iter().position(|&x| x == c).map(|p| p as u32);
    let mut out = Vec::new();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < src.len() && src[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip(&mut i);
        if i >= src.len() {
            return Ok(out);
        }
        let mut n = 0u32;
        let mut pad = 0;
        for k in 0..4 {
            skip(&mut i);
            let Some(&c) = src.get(i) else { return Err(i) };
            if c == b'=' && k >= 2 {
                pad += 1;
            } else if pad > 0 {
                return Err(i);
            } else {
                n |= value(c).ok_or(i)? << (18 - 6 * k);
            }
            i += 1;
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
        if pad > 0 {
            skip(&mut i);
            return if i < src.len() { Err(i) } else { Ok(out) };
        }
    }
}

/// SOUNDEX(str): the first letter, then the codes of the later letters
/// (vowels and repeated codes skipped), padded to four characters.
fn soundex(s: &str) -> String {
    const CODES: &[u8; 26] = b"01230120022455012623010202";
    let is_alpha = |c: char| c.is_ascii_alphabetic() || u32::from(c) >= 0xC0;
    let code = |c: char| match c.to_ascii_uppercase() {
        u @ 'A'..='Z' => CODES[(u as u8 - b'A') as usize],
        _ => b'0',
    };
    let mut chars = s.chars().skip_while(|c| !is_alpha(*c));
    let Some(first) = chars.next() else {
        return String::new();
    };
    let mut out = String::new();
    out.push(first.to_ascii_uppercase());
    let mut last = code(first);
    for c in chars.filter(|c| is_alpha(*c)) {
        let k = code(c);
        if k != b'0' && k != last {
            out.push(k as char);
            last = k;
        }
    }
    while out.chars().count() < 4 {
        out.push('0');
    }
    out
}

/// INET_ATON(str): dotted numbers of at most 255 each, a short form's
/// last number filling the remaining bytes.
fn inet_aton(s: &str) -> Option<u64> {
    let mut result: u64 = 0;
    let mut byte: u64 = 0;
    let mut dots = 0;
    if s.is_empty() || s.ends_with('.') {
        return None;
    }
    for c in s.bytes() {
        match c {
            b'0'..=b'9' => {
                byte = byte * 10 + u64::from(c - b'0');
                if byte > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8) + byte;
                byte = 0;
            }
            _ => return None,
        }
    }
    if dots < 3 {
        result <<= 8 * (3 - dots);
    }
    Some((result << 8) + byte)
}

/// A version 1 UUID: the time in 100 ns steps since 1582-10-15 (made
/// unique in this server), a random clock sequence and node.
fn uuid_v1() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering as O};
    use std::sync::OnceLock;
    static LAST: AtomicU64 = AtomicU64::new(0);
    static NODE: OnceLock<(u16, u64)> = OnceLock::new();
    let (seq, node) = *NODE.get_or_init(|| {
        let r = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        (
            ((r >> 48) as u16 & 0x3FFF) | 0x8000,
            (r & 0xFFFF_FFFF_FFFF) | (1 << 40),
        )
    });
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| (d.as_nanos() / 100) as u64)
        + 0x01B2_1DD2_1381_4000;
    let mut prev = LAST.load(O::Relaxed);
    let t = loop {
        let t = now.max(prev + 1);
        match LAST.compare_exchange(prev, t, O::Relaxed, O::Relaxed) {
            Ok(_) => break t,
            Err(p) => prev = p,
        }
    };
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        t & 0xFFFF_FFFF,
        (t >> 32) & 0xFFFF,
        ((t >> 48) & 0x0FFF) | 0x1000,
        seq,
        node
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_match_mariadb() {
        assert_eq!(crc32(b"MySQL"), 3_259_397_556);
        assert_eq!(soundex("Quadratically"), "Q36324");
        assert_eq!(soundex("Tymczak"), "T520");
        assert_eq!(inet_aton("10.5"), Some(167_772_165));
        assert_eq!(inet_aton("1.2.3.4.5"), Some(4_328_719_365));
        assert_eq!(to_base64(b"abc"), "YWJj");
        assert_eq!(from_base64(b"YW Jj"), Ok(b"abc".to_vec()));
        assert_eq!(from_base64(b"YWJ"), Err(3));
        assert_eq!(uuid_v1().len(), 36);
    }
}
