//! Regular expressions: `REGEXP` / `RLIKE` / `NOT REGEXP`, `REGEXP_LIKE`,
//! `REGEXP_REPLACE`, `REGEXP_SUBSTR` and `REGEXP_INSTR`, on the `regex`
//! crate (MariaDB uses PCRE2: the common syntax is the same; back
//! references and look-around are refused with 1139).
//!
//! As in MariaDB, matching is case-insensitive when the comparison
//! collation is (a `_ci` collation of the operands), case-sensitive for
//! binary strings and `_bin`/`_cs` collations; `REGEXP_LIKE`'s third
//! argument (`c`, `i`, `m`, `n`) overrides. NULL operands give NULL.
//! `REGEXP_REPLACE` replaces every match (an empty subject stays empty)
//! and reads `\N` in the replacement as group N; `REGEXP_SUBSTR` is ''
//! without a match, `REGEXP_INSTR` 0.
//! Compiled patterns are kept per thread (at most [`CACHE_SIZE`]).

use std::cell::RefCell;
use std::collections::HashMap;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;
use regex::{Regex, RegexBuilder};

use super::convert::to_bytes;
use super::func_more::More;
use super::EvalContext;
use crate::error::SqlError;

/// Most compiled patterns kept per thread.
const CACHE_SIZE: usize = 64;

thread_local! {
    static CACHE: RefCell<HashMap<(String, u8), Regex>> = RefCell::new(HashMap::new());
}

/// Flags of a compiled pattern.
const CASE_INSENSITIVE: u8 = 1;
const MULTI_LINE: u8 = 2;
const DOT_ALL: u8 = 4;

pub(super) fn call(
    m: More,
    v: &[Value],
    coll: Collation,
    _ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    if v.iter().take(2).any(Value::is_null) {
        return Ok(Value::Null);
    }
    let subject = text(&v[0]);
    let pattern = text(&v[1]);
    let mut flags = if case_insensitive(coll) {
        CASE_INSENSITIVE
    } else {
        0
    };
    if m == More::RegexpLike {
        if let Some(mt) = v.get(2) {
            if mt.is_null() {
                return Ok(Value::Null);
            }
            for c in text(mt).chars() {
                match c {
                    'c' => flags &= !CASE_INSENSITIVE,
                    'i' => flags |= CASE_INSENSITIVE,
                    'm' => flags |= MULTI_LINE,
                    'n' => flags |= DOT_ALL,
                    _ => return Err(SqlError::new(1210, "Incorrect arguments to regexp_like")),
                }
            }
        }
    }
    let re = compiled(&pattern, flags)?;
    Ok(match m {
        More::RegexpLike => Value::Int(i64::from(re.is_match(&subject))),
        More::RegexpSubstr => Value::Str(
            re.find(&subject)
                .map(|f| f.as_str().to_owned())
                .unwrap_or_default(),
        ),
        More::RegexpInstr => Value::Int(
            re.find(&subject)
                .map_or(0, |f| subject[..f.start()].chars().count() as i64 + 1),
        ),
        More::RegexpReplace => {
            if v[2].is_null() {
                return Ok(Value::Null);
            }
            // MariaDB leaves an empty subject as it is, though an empty
            // match would be found in it.
            if subject.is_empty() {
                return Ok(Value::Str(subject));
            }
            let replacement = replacement(&text(&v[2]));
            Value::Str(re.replace_all(&subject, replacement.as_str()).into_owned())
        }
        _ => Value::Null,
    })
}

fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => String::from_utf8_lossy(&to_bytes(other)).into_owned(),
    }
}

/// Case-insensitive collations (MariaDB matches with PCRE2_CASELESS then).
fn case_insensitive(coll: Collation) -> bool {
    let name = coll.name();
    name.ends_with("_ci")
}

fn compiled(pattern: &str, flags: u8) -> Result<Regex, SqlError> {
    let key = (pattern.to_owned(), flags);
    if let Some(re) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(re);
    }
    let re = RegexBuilder::new(pattern)
        .case_insensitive(flags & CASE_INSENSITIVE != 0)
        .multi_line(flags & MULTI_LINE != 0)
        .dot_matches_new_line(flags & DOT_ALL != 0)
        .build()
        .map_err(|e| {
            let msg = match e {
                regex::Error::Syntax(s) => s
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("error:"))
                    .map(|l| l.trim_start_matches("error:").trim().to_owned())
                    .unwrap_or(s),
                other => other.to_string(),
            };
            SqlError::new(1139, format!("Got error '{msg}' from regexp"))
        })?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            c.clear();
        }
        c.insert(key, re.clone());
    });
    Ok(re)
}

/// MariaDB's replacement text (`\N` is group N, `\\` a backslash) in the
/// `regex` crate's syntax (`${N}`, `$$`).
fn replacement(r: &str) -> String {
    let mut out = String::with_capacity(r.len() + 8);
    let mut chars = r.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => out.push_str("$$"),
            '\\' => match chars.peek().copied() {
                Some(d) if d.is_ascii_digit() => {
                    chars.next();
                    out.push_str("${");
                    out.push(d);
                    out.push('}');
                }
                Some(x) => {
                    chars.next();
                    if x == '$' {
                        out.push_str("$$");
                    } else {
                        out.push(x);
                    }
                }
                None => out.push('\\'),
            },
            other => out.push(other),
        }
    }
    out
}
