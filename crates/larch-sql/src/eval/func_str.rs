//! String functions. Arguments are non-NULL here unless the function handles
//! NULL itself (CONCAT_WS). A result is a binary string (`Value::Bytes`) when
//! an argument is one, as in MySQL; positions and lengths count characters of
//! text and bytes of binary strings. LOCATE/INSTR/STRCMP follow the collation
//! (case-insensitive for `_ci`); REPLACE is always case-sensitive.

use std::cmp::Ordering;

use larch_engine::record::collation::{Charset, Collation};
use larch_engine::record::value::Value;

use super::convert::{to_bytes, to_int, to_num, to_str, Num};
use super::like::same_char;
use super::{EvalContext, Func};
use crate::error::SqlError;

/// Longest string a function builds (MariaDB's default `max_allowed_packet`, 16 MiB).
pub const MAX_RESULT_BYTES: usize = 16 << 20;

fn any_binary(v: &[Value]) -> bool {
    v.iter().any(|x| matches!(x, Value::Bytes(_)))
}

/// Character-or-byte units of a string value.
enum Units {
    Chars(Vec<char>),
    Bytes(Vec<u8>),
}

impl Units {
    fn of(v: &Value) -> Units {
        match v {
            Value::Bytes(b) => Units::Bytes(b.clone()),
            other => Units::Chars(to_str(other).chars().collect()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Units::Chars(c) => c.len(),
            Units::Bytes(b) => b.len(),
        }
    }

    fn slice(&self, from: usize, to: usize) -> Value {
        let to = to.min(self.len());
        let from = from.min(to);
        match self {
            Units::Chars(c) => Value::Str(c[from..to].iter().collect()),
            Units::Bytes(b) => Value::Bytes(b[from..to].to_vec()),
        }
    }
}

fn string_result(s: Vec<u8>, binary: bool) -> Value {
    if binary {
        Value::Bytes(s)
    } else {
        Value::Str(
            String::from_utf8(s)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        )
    }
}

fn too_big(ctx: &mut EvalContext<'_>, f: &str) -> Value {
    ctx.warn(
        1301,
        format!(
            "Result of {f}() was larger than max_allowed_packet ({MAX_RESULT_BYTES}) - truncated"
        ),
    );
    Value::Null
}

/// 1-based character position of `needle` in `hay` at or after `from`
/// (1-based), 0 when absent. In a utf8mb4 collation MariaDB's `my_instr_mb`
/// compares the needle with as many bytes of the haystack as the needle
/// has, so a match must also be of the same length in bytes:
/// INSTR('e', 'é') is 0 though 'e' = 'é' in utf8mb4_general_ci.
fn locate(needle: &[char], hay: &[char], from: usize, coll: Collation) -> usize {
    if from == 0 || from > hay.len() + 1 {
        return 0;
    }
    if needle.is_empty() {
        return from;
    }
    let utf8_len = |cs: &[char]| cs.iter().map(|c| c.len_utf8()).sum::<usize>();
    let by_bytes = matches!(coll.charset(), Charset::Utf8mb4 | Charset::Utf8mb3);
    (from - 1..=hay.len().saturating_sub(needle.len()))
        .find(|&i| {
            i + needle.len() <= hay.len()
                && needle
                    .iter()
                    .zip(&hay[i..])
                    .all(|(a, b)| same_char(*a, *b, coll))
                && (!by_bytes || utf8_len(&hay[i..i + needle.len()]) == utf8_len(needle))
        })
        .map_or(0, |i| i + 1)
}

fn trim_str(s: &str, rem: &str, kind: u8) -> String {
    if rem.is_empty() {
        return s.to_string();
    }
    let mut t = s;
    if kind != 2 {
        while let Some(r) = t.strip_prefix(rem) {
            t = r;
        }
    }
    if kind != 1 {
        while let Some(r) = t.strip_suffix(rem) {
            t = r;
        }
    }
    t.to_string()
}

fn pad(ctx: &mut EvalContext<'_>, v: &[Value], left: bool) -> Value {
    let len = to_int(&v[1], ctx);
    if len < 0 {
        return Value::Null;
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    if len > MAX_RESULT_BYTES {
        return too_big(ctx, if left { "lpad" } else { "rpad" });
    }
    let s: Vec<char> = to_str(&v[0]).chars().collect();
    if len <= s.len() {
        return Value::Str(s[..len].iter().collect());
    }
    let p: Vec<char> = to_str(&v[2]).chars().collect();
    if p.is_empty() {
        return Value::Null;
    }
    let fill: String = p.iter().cycle().take(len - s.len()).collect();
    let s: String = s.into_iter().collect();
    Value::Str(if left { fill + &s } else { s + &fill })
}

/// Evaluates a string function; `None` when `f` is not one.
pub(super) fn call(
    f: Func,
    v: &[Value],
    coll: Collation,
    ctx: &mut EvalContext<'_>,
) -> Result<Option<Value>, SqlError> {
    let binary = any_binary(v);
    Ok(Some(match f {
        Func::Concat => {
            let mut out = Vec::new();
            for x in v {
                out.extend_from_slice(&to_bytes(x));
                if out.len() > MAX_RESULT_BYTES {
                    return Ok(Some(too_big(ctx, "concat")));
                }
            }
            string_result(out, binary)
        }
        Func::ConcatWs => {
            if v[0].is_null() {
                return Ok(Some(Value::Null));
            }
            let sep = to_bytes(&v[0]);
            let parts: Vec<Vec<u8>> = v[1..]
                .iter()
                .filter(|x| !x.is_null())
                .map(to_bytes)
                .collect();
            string_result(parts.join(&sep[..]), binary)
        }
        Func::Length => Value::Int(match &v[0] {
            Value::Str(s) if coll.charset() == Charset::Latin1 => s.chars().count() as i64,
            other => to_bytes(other).len() as i64,
        }),
        Func::CharLength => Value::Int(Units::of(&v[0]).len() as i64),
        Func::Upper | Func::Lower => match &v[0] {
            Value::Bytes(b) => Value::Bytes(b.clone()),
            other => {
                let s = to_str(other);
                Value::Str(change_case(&s, f == Func::Upper))
            }
        },
        Func::Substring => {
            let u = Units::of(&v[0]);
            let pos = to_int(&v[1], ctx);
            let len = if v.len() > 2 {
                to_int(&v[2], ctx)
            } else {
                i128::MAX
            };
            let n = u.len() as i128;
            let start = if pos > 0 {
                pos - 1
            } else if pos < 0 {
                n + pos
            } else {
                return Ok(Some(u.slice(0, 0)));
            };
            if start < 0 || start >= n || len <= 0 {
                u.slice(0, 0)
            } else {
                let end = start.saturating_add(len).min(n);
                u.slice(start as usize, end as usize)
            }
        }
        Func::Left | Func::Right => {
            let u = Units::of(&v[0]);
            let n = usize::try_from(to_int(&v[1], ctx).max(0))
                .unwrap_or(usize::MAX)
                .min(u.len());
            if f == Func::Left {
                u.slice(0, n)
            } else {
                u.slice(u.len() - n, u.len())
            }
        }
        Func::Trim(kind) => {
            let rem = if v.len() > 1 {
                to_str(&v[1])
            } else {
                " ".to_string()
            };
            let r = trim_str(&to_str(&v[0]), &rem, kind);
            string_result(r.into_bytes(), binary)
        }
        Func::Replace => {
            let (s, from, to) = (to_str(&v[0]), to_str(&v[1]), to_str(&v[2]));
            let r = if from.is_empty() {
                s
            } else {
                s.replace(&from, &to)
            };
            if r.len() > MAX_RESULT_BYTES {
                return Ok(Some(too_big(ctx, "replace")));
            }
            string_result(r.into_bytes(), binary)
        }
        Func::Lpad => pad(ctx, v, true),
        Func::Rpad => pad(ctx, v, false),
        Func::Repeat => {
            let n = usize::try_from(to_int(&v[1], ctx).max(0)).unwrap_or(usize::MAX);
            let b = to_bytes(&v[0]);
            if b.len().saturating_mul(n) > MAX_RESULT_BYTES {
                return Ok(Some(too_big(ctx, "repeat")));
            }
            string_result(b.repeat(n), binary)
        }
        Func::Reverse => match Units::of(&v[0]) {
            Units::Chars(c) => Value::Str(c.into_iter().rev().collect()),
            Units::Bytes(mut b) => {
                b.reverse();
                Value::Bytes(b)
            }
        },
        Func::Locate | Func::Instr => {
            let (needle, hay) = if f == Func::Locate {
                (&v[0], &v[1])
            } else {
                (&v[1], &v[0])
            };
            let from = if v.len() > 2 { to_int(&v[2], ctx) } else { 1 };
            let c = coll;
            let n: Vec<char> = to_str(needle).chars().collect();
            let h: Vec<char> = to_str(hay).chars().collect();
            Value::Int(locate(&n, &h, usize::try_from(from.max(0)).unwrap_or(0), c) as i64)
        }
        Func::Hex => match &v[0] {
            // A string, and a temporal value's text (HEX(DATE'2020-01-01')
            // is 323032302D30312D3031).
            Value::Str(_)
            | Value::Bytes(_)
            | Value::Date(_)
            | Value::Datetime(_)
            | Value::Timestamp(_)
            | Value::Time(_) => {
                Value::Str(to_bytes(&v[0]).iter().map(|b| format!("{b:02X}")).collect())
            }
            other => {
                let n = match to_num(other, ctx) {
                    Num::UInt(u) => i128::from(u),
                    n => n.to_i128(),
                };
                let u = if n < 0 {
                    n as i64 as u64
                } else {
                    u64::try_from(n).unwrap_or(u64::MAX)
                };
                Value::Str(format!("{u:X}"))
            }
        },
        Func::Unhex => {
            let s = to_str(&v[0]);
            let s = if s.len() % 2 == 1 { format!("0{s}") } else { s };
            let bytes: Option<Vec<u8>> = (0..s.len())
                .step_by(2)
                .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
                .collect();
            bytes.map_or(Value::Null, Value::Bytes)
        }
        Func::Md5 => Value::Str(super::md5::md5_hex(&to_bytes(&v[0]))),
        Func::Password => Value::Str(crate::privileges::native_hash(&to_bytes(&v[0]))),
        Func::Ascii => Value::Int(i64::from(to_bytes(&v[0]).first().copied().unwrap_or(0))),
        Func::Space => {
            let n = usize::try_from(to_int(&v[0], ctx).max(0)).unwrap_or(usize::MAX);
            if n > MAX_RESULT_BYTES {
                return Ok(Some(too_big(ctx, "space")));
            }
            Value::Str(" ".repeat(n))
        }
        Func::Strcmp => {
            let o = if coll == Collation::Binary {
                to_bytes(&v[0]).cmp(&to_bytes(&v[1]))
            } else {
                coll.compare(&to_str(&v[0]), &to_str(&v[1]))
            };
            Value::Int(match o {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            })
        }
        _ => return Ok(None),
    }))
}

/// UPPER / LOWER as MariaDB's case tables map characters: one character
/// to one, so a character whose full mapping is longer stays ('ß' for
/// UPPER, not 'SS'); 'İ' lowers to 'i'.
fn change_case(s: &str, upper: bool) -> String {
    s.chars()
        .map(|ch| {
            let mapped: Vec<char> = if upper {
                ch.to_uppercase().collect()
            } else {
                ch.to_lowercase().collect()
            };
            match mapped.as_slice() {
                [one] => *one,
                _ if !upper && ch == '\u{130}' => 'i',
                _ => ch,
            }
        })
        .collect()
}
