//! What each JSON function does, MariaDB's way: finding (`JSON_EXTRACT`,
//! `JSON_VALUE`, `JSON_QUERY`, `JSON_SEARCH`, ...), building
//! (`JSON_OBJECT`, `JSON_ARRAY`, `JSON_MERGE_*`), changing (`JSON_SET`,
//! `JSON_INSERT`, `JSON_REPLACE`, `JSON_REMOVE`, `JSON_ARRAY_*`) and the
//! printed forms. Invalid documents and paths give NULL with a warning.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::document::{self, escape, unescape, Json, ParseError};
use super::path::{locate_mut, Path, PathError, Step};
use super::{JsonCall, JsonFunc};
use crate::error::SqlError;
use crate::eval::convert::{to_int, to_str};
use crate::eval::like::LikePattern;
use crate::eval::EvalContext;

type R = Result<Value, SqlError>;

pub(super) fn call(c: JsonCall, v: &[Value], ctx: &mut EvalContext<'_>) -> R {
    use JsonFunc as F;
    let f = c.func;
    if !f.takes_nulls() && v.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    // A NULL document makes every function NULL (JSON_MERGE_PATCH reads it
    // only where an object patch is merged into it).
    if v.first().is_some_and(Value::is_null) && !matches!(f, F::Object | F::Array | F::MergePatch) {
        return Ok(Value::Null);
    }
    match f {
        F::Valid => Ok(int(parse_doc(ctx, f, 1, &v[0], true).is_some())),
        F::Type => Ok(doc(ctx, f, &v[0]).map_or(Value::Null, |d| text(d.type_name()))),
        F::Extract => extract(ctx, f, v),
        F::Value => {
            let Some((d, p)) = doc_and_path(ctx, f, v) else {
                return Ok(Value::Null);
            };
            Ok(p.find(&d)
                .into_iter()
                .find(|j| j.is_scalar())
                .map_or(Value::Null, scalar_value))
        }
        F::Query => {
            let Some((d, p)) = doc_and_path(ctx, f, v) else {
                return Ok(Value::Null);
            };
            let source = to_str(&v[0]);
            Ok(p.find(&d)
                .into_iter()
                .find(|j| !j.is_scalar())
                .map_or(Value::Null, |j| Value::Str(j.source_text(&source))))
        }
        F::Unquote => Ok(Value::Str(unquote(&to_str(&v[0])))),
        F::NumberOf => {
            let text = to_str(&v[0]);
            Ok(match document::parse(&text) {
                Ok(Json::Bool(b)) => int(b),
                Ok(Json::String(raw)) => Value::Str(unescape(&raw)),
                _ => Value::Str(text),
            })
        }
        F::Quote => Ok(Value::Str(format!("\"{}\"", escape(&to_str(&v[0]))))),
        F::Object => {
            if v.len() % 2 != 0 {
                return Err(SqlError::wrong_param_count(f.name()));
            }
            let members = v
                .chunks(2)
                .enumerate()
                .map(|(i, kv)| (escape(&to_str(&kv[0])), sql_to_json(c, 2 * i + 1, &kv[1])))
                .collect();
            Ok(json_text(&Json::Object(members, None)))
        }
        F::Array => {
            let items = v
                .iter()
                .enumerate()
                .map(|(i, x)| sql_to_json(c, i, x))
                .collect();
            Ok(json_text(&Json::Array(items, None)))
        }
        F::Length => {
            let Some(d) = doc(ctx, f, &v[0]) else {
                return Ok(Value::Null);
            };
            let target = match v.get(1) {
                None => Some(&d),
                Some(p) => {
                    let Some(p) = path(ctx, f, 2, p, false) else {
                        return Ok(Value::Null);
                    };
                    p.find(&d).into_iter().next()
                }
            };
            Ok(target.map_or(Value::Null, |t| {
                Value::Int(match t {
                    Json::Array(items, _) => items.len() as i64,
                    Json::Object(m, _) => m.len() as i64,
                    _ => 1,
                })
            }))
        }
        F::Depth => Ok(doc(ctx, f, &v[0]).map_or(Value::Null, |d| Value::Int(d.depth() as i64))),
        F::Keys => keys(ctx, f, v),
        F::Contains => contains(ctx, f, v),
        F::ContainsPath => contains_path(ctx, f, v),
        F::Exists => {
            let Some((d, p)) = doc_and_path(ctx, f, v) else {
                return Ok(Value::Null);
            };
            Ok(int(!p.find(&d).is_empty()))
        }
        F::Set | F::Insert | F::Replace | F::ArrayAppend | F::ArrayInsert => change(c, ctx, v),
        F::Remove => remove(ctx, f, v),
        F::MergePreserve | F::MergePatch => merge(ctx, f, v),
        F::Search => search(ctx, f, v),
        F::Compact => Ok(doc(ctx, f, &v[0]).map_or(Value::Null, |d| Value::Str(d.to_compact()))),
        F::Loose => Ok(doc(ctx, f, &v[0]).map_or(Value::Null, |d| Value::Str(d.to_text()))),
        F::Detailed => {
            let indent = match v.get(1) {
                Some(n) => to_int(n, ctx).clamp(0, 31) as usize,
                None => 4,
            };
            Ok(doc(ctx, f, &v[0]).map_or(Value::Null, |d| Value::Str(detailed(&d, indent))))
        }
        F::Equals => {
            let (Some(a), Some(b)) = (doc(ctx, f, &v[0]), parse_doc(ctx, f, 2, &v[1], false))
            else {
                return Ok(Value::Null);
            };
            Ok(int(a.equals(&b)))
        }
    }
}

fn int(b: bool) -> Value {
    Value::Int(i64::from(b))
}

fn text(s: &str) -> Value {
    Value::Str(s.to_owned())
}

fn json_text(j: &Json) -> Value {
    Value::Str(j.to_text())
}

/// The document in argument 1.
fn doc(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &Value) -> Option<Json> {
    parse_doc(ctx, f, 1, v, false)
}

/// Parses argument `n` (1-based, for messages); NULL with a warning (a note
/// for JSON_VALID) when it is not JSON.
fn parse_doc(
    ctx: &mut EvalContext<'_>,
    f: JsonFunc,
    n: usize,
    v: &Value,
    note: bool,
) -> Option<Json> {
    let s = to_str(v);
    match document::parse(&s) {
        Ok(j) => Some(j),
        Err(e) => {
            let name = f.name();
            let (code, msg) = match e {
                ParseError::Syntax(p) => (
                    4038,
                    format!(
                        "Syntax error in JSON text in argument {n} to function '{name}' at position {p}"
                    ),
                ),
                ParseError::UnexpectedEnd => (
                    4037,
                    format!("Unexpected end of JSON text in argument {n} to function '{name}'"),
                ),
                ParseError::Depth(p) => (
                    4040,
                    format!(
                        "Limit of {} on JSON nested structures depth is reached in argument {n} to function '{name}' at position {p}",
                        document::MAX_DEPTH
                    ),
                ),
            };
            if note {
                ctx.note(code, msg);
            } else {
                ctx.warn(code, msg);
            }
            None
        }
    }
}

/// Parses path argument `n` (1-based); NULL with a warning when it is no
/// path, or when it has wildcards and `plain` paths are required.
fn path(ctx: &mut EvalContext<'_>, f: JsonFunc, n: usize, v: &Value, plain: bool) -> Option<Path> {
    let name = f.name();
    match Path::parse(&to_str(v)) {
        Ok(p) if plain && p.has_wildcard() => {
            ctx.warn(
                4044,
                format!("Wildcards or range in JSON path not allowed in argument {n} to function '{name}'"),
            );
            None
        }
        Ok(p) => Some(p),
        Err(PathError::Syntax(p)) => {
            ctx.warn(
                4042,
                format!("Syntax error in JSON path in argument {n} to function '{name}' at position {p}"),
            );
            None
        }
        Err(PathError::Depth(p)) => {
            ctx.warn(
                4043,
                format!(
                    "Limit of {} on JSON path depth is reached in argument {n} to function '{name}' at position {p}",
                    super::path::MAX_PATH_DEPTH
                ),
            );
            None
        }
    }
}

fn doc_and_path(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> Option<(Json, Path)> {
    let d = doc(ctx, f, &v[0])?;
    // JSON_VALUE names one value: a wildcard is 4044 (JSON_QUERY takes one).
    let p = path(ctx, f, 2, &v[1], f == JsonFunc::Value)?;
    Some((d, p))
}

/// A SQL value as JSON: JSON from another JSON function as it is, NULL as
/// null, numbers as numbers, everything else as a string.
pub(super) fn sql_to_json(c: JsonCall, i: usize, v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(n) if c.is_bool_arg(i) => Json::Bool(*n != 0),
        Value::UInt(n) if c.is_bool_arg(i) => Json::Bool(*n != 0),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            Json::Number(to_str(v))
        }
        other => {
            let s = to_str(other);
            if c.is_json_arg(i) {
                if let Ok(j) = document::parse(&s) {
                    return j;
                }
            }
            Json::string(&s)
        }
    }
}

/// A scalar as JSON_VALUE returns it: strings unescaped, null as NULL.
fn scalar_value(j: &Json) -> Value {
    match j {
        Json::Null => Value::Null,
        Json::String(s) => Value::Str(unescape(s)),
        other => Value::Str(other.to_text()),
    }
}

/// JSON_UNQUOTE: the text of a JSON string, anything else unchanged.
fn unquote(s: &str) -> String {
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        if let Ok(Json::String(raw)) = document::parse(s) {
            return unescape(&raw);
        }
    }
    s.to_owned()
}

fn extract(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    let Some(d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    let mut paths = Vec::with_capacity(v.len() - 1);
    for (i, p) in v[1..].iter().enumerate() {
        let Some(p) = path(ctx, f, i + 2, p, false) else {
            return Ok(Value::Null);
        };
        paths.push(p);
    }
    let wrap = paths.len() > 1 || paths.iter().any(Path::has_wildcard);
    let found: Vec<Json> = paths.iter().flat_map(|p| p.find(&d)).cloned().collect();
    Ok(match (wrap, found.len()) {
        (_, 0) => Value::Null,
        (false, _) => json_text(&found[0]),
        (true, _) => json_text(&Json::Array(found, None)),
    })
}

fn keys(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    let Some(d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    let target = match v.get(1) {
        None => Some(&d),
        Some(p) => match path(ctx, f, 2, p, false) {
            Some(p) => p.find(&d).into_iter().next(),
            None => return Ok(Value::Null),
        },
    };
    let Some(Json::Object(members, _)) = target else {
        return Ok(Value::Null);
    };
    let mut names: Vec<Json> = Vec::new();
    for (k, _) in members {
        let key = Json::String(k.clone());
        if !names.iter().any(|n| n.equals(&key)) {
            names.push(key);
        }
    }
    Ok(json_text(&Json::Array(names, None)))
}

/// True when `candidate` is contained in `target` (MariaDB's
/// JSON_CONTAINS: arrays contain what one of their elements contains,
/// objects contain objects whose members they contain).
fn contained(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Array(items, _), Json::Array(wanted, _)) => {
            wanted.iter().all(|w| items.iter().any(|t| contained(t, w)))
        }
        (Json::Array(items, _), other) => items.iter().any(|t| contained(t, other)),
        (Json::Object(..), Json::Object(wanted, _)) => wanted
            .iter()
            .all(|(k, w)| target.member(&unescape(k)).is_some_and(|t| contained(t, w))),
        (a, b) => a.is_scalar() && b.is_scalar() && a.equals(b),
    }
}

fn contains(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    let Some(d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    let Some(candidate) = parse_doc(ctx, f, 2, &v[1], false) else {
        return Ok(Value::Null);
    };
    let target = match v.get(2) {
        None => Some(&d),
        Some(p) => match path(ctx, f, 3, p, false) {
            Some(p) => p.find(&d).into_iter().next(),
            None => return Ok(Value::Null),
        },
    };
    Ok(target.map_or(Value::Null, |t| int(contained(t, &candidate))))
}

/// Reads the 'one' / 'all' argument; NULL with a warning for anything else.
fn one_or_all(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &Value) -> Option<bool> {
    let s = to_str(v);
    if s.eq_ignore_ascii_case("one") {
        Some(true)
    } else if s.eq_ignore_ascii_case("all") {
        Some(false)
    } else {
        ctx.warn(
            4046,
            format!(
                "Argument 2 to function '{}' must be \"one\" or \"all\".",
                f.name()
            ),
        );
        None
    }
}

fn contains_path(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    let Some(d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    let Some(one) = one_or_all(ctx, f, &v[1]) else {
        return Ok(Value::Null);
    };
    let mut hits = Vec::new();
    for (i, p) in v[2..].iter().enumerate() {
        let Some(p) = path(ctx, f, i + 3, p, false) else {
            return Ok(Value::Null);
        };
        hits.push(!p.find(&d).is_empty());
    }
    Ok(int(if one {
        hits.iter().any(|&h| h)
    } else {
        hits.iter().all(|&h| h)
    }))
}

/// JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_ARRAY_APPEND and
/// JSON_ARRAY_INSERT: (path, value) pairs applied in order.
fn change(c: JsonCall, ctx: &mut EvalContext<'_>, v: &[Value]) -> R {
    let f = c.func;
    if v.len() % 2 == 0 {
        return Err(SqlError::wrong_param_count(f.name()));
    }
    let Some(mut d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    for (pair, kv) in v[1..].chunks(2).enumerate() {
        let arg = 2 + 2 * pair;
        if kv[0].is_null() {
            return Ok(Value::Null);
        }
        let Some(p) = path(ctx, f, arg, &kv[0], true) else {
            return Ok(Value::Null);
        };
        let value = sql_to_json(c, arg, &kv[1]);
        let steps = &p.steps;
        match f {
            JsonFunc::ArrayAppend => {
                // A path the document lacks makes the result NULL
                // (MariaDB's, where MySQL skips it).
                let Some(t) = locate_mut(&mut d, steps) else {
                    return Ok(Value::Null);
                };
                match t {
                    Json::Array(items, span) => {
                        items.push(value);
                        *span = None;
                    }
                    other => {
                        let old = std::mem::replace(other, Json::Null);
                        *other = Json::Array(vec![old, value], None);
                    }
                }
            }
            JsonFunc::ArrayInsert => {
                let Some((Step::Element(i), parent)) = steps.split_last() else {
                    ctx.warn(
                        4044,
                        format!(
                            "Wildcards or range in JSON path not allowed in argument {arg} to function '{}'",
                            f.name()
                        ),
                    );
                    return Ok(Value::Null);
                };
                if let Some(Json::Array(items, span)) = locate_mut(&mut d, parent) {
                    let at = i.resolve(items.len()).unwrap_or(0).min(items.len());
                    items.insert(at, value);
                    *span = None;
                }
            }
            _ => {
                if let Some(t) = locate_mut(&mut d, steps) {
                    if f != JsonFunc::Insert {
                        *t = value;
                    }
                    continue;
                }
                if f == JsonFunc::Replace {
                    continue;
                }
                let Some((last, parent)) = steps.split_last() else {
                    continue;
                };
                match (last, locate_mut(&mut d, parent)) {
                    (Step::Member(k), Some(Json::Object(m, span))) => {
                        m.push((escape(k), value));
                        *span = None;
                    }
                    (Step::Element(_), Some(Json::Array(items, span))) => {
                        items.push(value);
                        *span = None;
                    }
                    // `$.scalar[n]` past element 0 wraps the value in an array.
                    (Step::Element(_), Some(other)) => {
                        let old = std::mem::replace(other, Json::Null);
                        *other = Json::Array(vec![old, value], None);
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(json_text(&d))
}

fn remove(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    let Some(mut d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    for (i, p) in v[1..].iter().enumerate() {
        let Some(p) = path(ctx, f, i + 2, p, true) else {
            return Ok(Value::Null);
        };
        let Some((last, parent)) = p.steps.split_last() else {
            ctx.warn(
                4044,
                format!(
                    "Wildcards or range in JSON path not allowed in argument {} to function '{}'",
                    i + 2,
                    f.name()
                ),
            );
            return Ok(Value::Null);
        };
        match (last, locate_mut(&mut d, parent)) {
            (Step::Member(k), Some(Json::Object(m, span))) => {
                if let Some(at) = m.iter().position(|(key, _)| unescape(key) == *k) {
                    m.remove(at);
                    *span = None;
                }
            }
            (Step::Element(e), Some(Json::Array(items, span))) => {
                if let Some(at) = e.resolve(items.len()).filter(|&at| at < items.len()) {
                    items.remove(at);
                    *span = None;
                }
            }
            _ => {}
        }
    }
    Ok(json_text(&d))
}

fn merge(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    if f == JsonFunc::MergePatch {
        return merge_patches(ctx, f, v);
    }
    let mut acc: Option<Json> = None;
    for (i, x) in v.iter().enumerate() {
        let Some(next) = parse_doc(ctx, f, i + 1, x, false) else {
            return Ok(Value::Null);
        };
        acc = Some(match acc {
            None => next,
            Some(a) if f == JsonFunc::MergePatch => merge_patch(a, next),
            Some(a) => merge_preserve(a, next),
        });
    }
    Ok(acc.map_or(Value::Null, |j| json_text(&j)))
}

/// JSON_MERGE_PATCH as MariaDB applies its patches in turn: a patch that
/// is no object replaces what came before (which is then never read, so a
/// NULL or invalid first document does not matter); an object patch is
/// merged into it, and into a NULL gives NULL.
fn merge_patches(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    enum Target {
        /// Argument `i`, not read yet.
        Unread(usize),
        Doc(Json),
        Null,
    }
    let mut acc = Target::Unread(0);
    for (i, x) in v.iter().enumerate().skip(1) {
        if x.is_null() {
            return Ok(Value::Null);
        }
        let Some(patch) = parse_doc(ctx, f, i + 1, x, false) else {
            return Ok(Value::Null);
        };
        if !matches!(patch, Json::Object(..)) {
            acc = Target::Doc(patch);
            continue;
        }
        let target = match acc {
            Target::Unread(j) if v[j].is_null() => Target::Null,
            Target::Unread(j) => match parse_doc(ctx, f, j + 1, &v[j], false) {
                Some(d) => Target::Doc(d),
                None => return Ok(Value::Null),
            },
            other => other,
        };
        acc = match target {
            Target::Doc(d) => Target::Doc(merge_patch(d, patch)),
            _ => Target::Null,
        };
    }
    Ok(match acc {
        Target::Doc(d) => json_text(&d),
        Target::Unread(j) => {
            parse_doc(ctx, f, j + 1, &v[j], false).map_or(Value::Null, |d| json_text(&d))
        }
        Target::Null => Value::Null,
    })
}

fn merge_preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut am, _), Json::Object(bm, _)) => {
            for (k, bv) in bm {
                let key = unescape(&k);
                match am.iter().position(|(ak, _)| unescape(ak) == key) {
                    Some(at) => {
                        let av = std::mem::replace(&mut am[at].1, Json::Null);
                        am[at].1 = merge_preserve(av, bv);
                    }
                    None => am.push((k, bv)),
                }
            }
            Json::Object(am, None)
        }
        (a, b) => {
            let mut items = match a {
                Json::Array(items, _) => items,
                other => vec![other],
            };
            match b {
                Json::Array(more, _) => items.extend(more),
                other => items.push(other),
            }
            Json::Array(items, None)
        }
    }
}

/// RFC 7396: members of the patch replace, null members remove.
fn merge_patch(a: Json, b: Json) -> Json {
    let Json::Object(bm, _) = b else {
        return b;
    };
    let mut am = match a {
        Json::Object(am, _) => am,
        _ => Vec::new(),
    };
    for (k, bv) in bm {
        let key = unescape(&k);
        let at = am.iter().position(|(ak, _)| unescape(ak) == key);
        match (at, bv) {
            (Some(at), Json::Null) => {
                am.remove(at);
            }
            (None, Json::Null) => {}
            (Some(at), bv) => {
                let av = std::mem::replace(&mut am[at].1, Json::Null);
                am[at].1 = merge_patch(av, bv);
            }
            (None, bv) => am.push((k, merge_patch(Json::Null, bv))),
        }
    }
    Json::Object(am, None)
}

fn search(ctx: &mut EvalContext<'_>, f: JsonFunc, v: &[Value]) -> R {
    if v[0].is_null() || v[1].is_null() || v[2].is_null() {
        return Ok(Value::Null);
    }
    let Some(d) = doc(ctx, f, &v[0]) else {
        return Ok(Value::Null);
    };
    let Some(one) = one_or_all(ctx, f, &v[1]) else {
        return Ok(Value::Null);
    };
    let pattern = to_str(&v[2]);
    let esc = match v.get(3) {
        Some(Value::Null) | None => '\\',
        Some(e) => to_str(e).chars().next().unwrap_or('\\'),
    };
    let mut scopes = Vec::new();
    for (i, p) in v.iter().enumerate().skip(4) {
        if p.is_null() {
            return Ok(Value::Null);
        }
        let Some(p) = path(ctx, f, i + 1, p, false) else {
            return Ok(Value::Null);
        };
        scopes.push(p);
    }
    let pattern = LikePattern::new(&pattern, esc, Collation::Utf8mb4GeneralCi);
    let mut found = Vec::new();
    // Strings by their content; numbers, booleans and null by their text,
    // as MariaDB's json_search matches every scalar.
    walk(&d, &mut String::from("$"), &mut |at, j| {
        let text = match j {
            Json::String(s) => unescape(s),
            Json::Number(n) => n.clone(),
            Json::Bool(b) => b.to_string(),
            Json::Null => "null".to_owned(),
            _ => return,
        };
        if pattern.matches(&text) {
            found.push(at.to_owned());
        }
    });
    // Keep the matches inside one of the paths given.
    if !scopes.is_empty() {
        found.retain(|at| {
            let Ok(p) = Path::parse(at) else { return false };
            scopes.iter().any(|s| within(&s.steps, &p.steps))
        });
    }
    if one {
        found.truncate(1);
    }
    Ok(match found.len() {
        0 => Value::Null,
        1 => json_text(&Json::string(&found[0])),
        _ => json_text(&Json::Array(
            found.iter().map(|s| Json::string(s)).collect(),
            None,
        )),
    })
}

/// Calls `visit` with the path and value of every value in document order.
fn walk(j: &Json, at: &mut String, visit: &mut dyn FnMut(&str, &Json)) {
    visit(at, j);
    let len = at.len();
    match j {
        Json::Array(items, _) => {
            for (i, item) in items.iter().enumerate() {
                at.push_str(&format!("[{i}]"));
                walk(item, at, visit);
                at.truncate(len);
            }
        }
        Json::Object(m, _) => {
            for (k, item) in m {
                let key = unescape(k);
                if !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
                {
                    at.push('.');
                    at.push_str(&key);
                } else {
                    at.push_str(&format!(".\"{k}\""));
                }
                walk(item, at, visit);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// True when concrete path `p` lies at or under a place `scope` matches.
fn within(scope: &[Step], p: &[Step]) -> bool {
    match (scope.split_first(), p.split_first()) {
        (None, _) => true,
        (Some((Step::AnyDepth, rest)), _) => {
            within(rest, p) || p.split_first().is_some_and(|(_, more)| within(scope, more))
        }
        (Some(_), None) => false,
        (Some((s, rest)), Some((step, more))) => {
            let here = match (s, step) {
                (Step::Member(a), Step::Member(b)) => a == b,
                (Step::AnyMember, Step::Member(_)) | (Step::AnyElement, Step::Element(_)) => true,
                (Step::Element(a), Step::Element(b)) => a == b,
                (Step::Range(a, b), Step::Element(super::path::Index::At(i))) => {
                    matches!((a, b), (super::path::Index::At(x), super::path::Index::At(y)) if x <= i && i <= y)
                }
                _ => false,
            };
            here && within(rest, more)
        }
    }
}

/// MariaDB's JSON_DETAILED layout: a container that is a member value
/// starts on its own line under its key; containers of one scalar stay on
/// one line.
fn detailed(j: &Json, indent: usize) -> String {
    let mut out = String::new();
    write_detailed(j, indent, 0, &mut out);
    out
}

fn write_detailed(j: &Json, indent: usize, level: usize, out: &mut String) {
    let pad = |n: usize| " ".repeat(indent * n);
    let inline = |j: &Json| match j {
        Json::Array(items, _) => items.len() <= 1 && items.iter().all(Json::is_scalar),
        Json::Object(m, _) => m.is_empty(),
        _ => true,
    };
    if inline(j) {
        out.push_str(&j.to_text());
        return;
    }
    match j {
        Json::Array(items, _) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&pad(level + 1));
                write_detailed(item, indent, level + 1, out);
            }
            out.push('\n');
            out.push_str(&pad(level));
            out.push(']');
        }
        Json::Object(m, _) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&pad(level + 1));
                out.push('"');
                out.push_str(k);
                out.push_str("\": ");
                if !inline(item) {
                    out.push('\n');
                    out.push_str(&pad(level + 1));
                }
                write_detailed(item, indent, level + 1, out);
            }
            out.push('\n');
            out.push_str(&pad(level));
            out.push('}');
        }
        other => out.push_str(&other.to_text()),
    }
}
