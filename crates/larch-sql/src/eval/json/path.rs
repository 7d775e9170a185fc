//! JSON paths as MariaDB reads them: `$` followed by steps `.key`,
//! `."quoted key"`, `.*`, `[n]`, `[last]`, `[last-n]`, `[n to m]`, `[*]`
//! and `**` (any depth, zero levels included), with an optional `lax` or
//! `strict` prefix. Finding returns every match in document order;
//! changing functions take paths without wildcards or ranges and reach
//! the place they change with [`locate_mut`].

use super::document::{unescape, Json};

/// Deepest path MariaDB accepts (4043 beyond).
pub const MAX_PATH_DEPTH: usize = 32;

/// An array position in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Index {
    /// From the start.
    At(usize),
    /// `last - n`.
    FromLast(usize),
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Member(String),
    AnyMember,
    Element(Index),
    Range(Index, Index),
    AnyElement,
    AnyDepth,
}

/// Why a path text is not a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathError {
    /// Syntax error; the position after the offending character.
    Syntax(usize),
    /// Deeper than [`MAX_PATH_DEPTH`]; the position reached.
    Depth(usize),
}

/// A parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    pub steps: Vec<Step>,
}

impl Path {
    /// True when the path may match more than one place.
    pub fn has_wildcard(&self) -> bool {
        self.steps.iter().any(|s| {
            matches!(
                s,
                Step::AnyMember | Step::AnyElement | Step::AnyDepth | Step::Range(..)
            )
        })
    }

    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Path, PathError> {
        let b = text.as_bytes();
        let mut pos = 0;
        let ws = |pos: &mut usize| {
            while b.get(*pos).is_some_and(u8::is_ascii_whitespace) {
                *pos += 1;
            }
        };
        ws(&mut pos);
        for prefix in ["lax", "strict"] {
            if text[pos..].starts_with(prefix)
                && b.get(pos + prefix.len())
                    .is_some_and(u8::is_ascii_whitespace)
            {
                pos += prefix.len();
                ws(&mut pos);
            }
        }
        if b.get(pos) != Some(&b'$') {
            return Err(PathError::Syntax(pos + 1));
        }
        pos += 1;
        let mut steps = Vec::new();
        loop {
            ws(&mut pos);
            let Some(&c) = b.get(pos) else { break };
            if steps.len() >= MAX_PATH_DEPTH {
                return Err(PathError::Depth(pos));
            }
            match c {
                b'.' => {
                    pos += 1;
                    ws(&mut pos);
                    match b.get(pos) {
                        Some(b'*') => {
                            pos += 1;
                            steps.push(Step::AnyMember);
                        }
                        Some(b'"') => {
                            let start = pos + 1;
                            let mut end = start;
                            while end < b.len() && b[end] != b'"' {
                                if b[end] == b'\\' {
                                    end += 1;
                                }
                                end += 1;
                            }
                            if end >= b.len() {
                                return Err(PathError::Syntax(b.len() + 1));
                            }
                            steps.push(Step::Member(unescape(&text[start..end])));
                            pos = end + 1;
                        }
                        _ => {
                            let start = pos;
                            while b.get(pos).is_some_and(|&c| {
                                c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
                            }) {
                                pos += 1;
                            }
                            if pos == start {
                                return Err(PathError::Syntax(pos + 1));
                            }
                            steps.push(Step::Member(text[start..pos].to_owned()));
                        }
                    }
                }
                b'[' => {
                    pos += 1;
                    ws(&mut pos);
                    if b.get(pos) == Some(&b'*') {
                        pos += 1;
                        ws(&mut pos);
                        if b.get(pos) != Some(&b']') {
                            return Err(PathError::Syntax(pos + 1));
                        }
                        pos += 1;
                        steps.push(Step::AnyElement);
                        continue;
                    }
                    let from = index(text, &mut pos)?;
                    ws(&mut pos);
                    let step = if text[pos..].starts_with("to")
                        && b.get(pos + 2).is_some_and(u8::is_ascii_whitespace)
                    {
                        pos += 2;
                        ws(&mut pos);
                        let to = index(text, &mut pos)?;
                        ws(&mut pos);
                        Step::Range(from, to)
                    } else {
                        Step::Element(from)
                    };
                    if b.get(pos) != Some(&b']') {
                        return Err(PathError::Syntax(pos + 1));
                    }
                    pos += 1;
                    steps.push(step);
                }
                b'*' if b.get(pos + 1) == Some(&b'*') => {
                    pos += 2;
                    // `**` must lead somewhere.
                    ws(&mut pos);
                    if pos >= b.len() {
                        return Err(PathError::Syntax(pos + 1));
                    }
                    steps.push(Step::AnyDepth);
                }
                _ => return Err(PathError::Syntax(pos + 1)),
            }
        }
        Ok(Path { steps })
    }

    /// Every value the path matches, in document order.
    pub fn find<'j>(&self, doc: &'j Json) -> Vec<&'j Json> {
        let mut out = Vec::new();
        find_from(&self.steps, doc, &mut out);
        out
    }
}

/// Reads `n`, `last` or `last - n` at `pos`.
fn index(text: &str, pos: &mut usize) -> Result<Index, PathError> {
    let b = text.as_bytes();
    let number = |pos: &mut usize| -> Result<usize, PathError> {
        let start = *pos;
        while b.get(*pos).is_some_and(u8::is_ascii_digit) {
            *pos += 1;
        }
        text[start..*pos]
            .parse::<usize>()
            .map_err(|_| PathError::Syntax(*pos + 1))
    };
    if text[*pos..].starts_with("last") {
        *pos += 4;
        while b.get(*pos).is_some_and(u8::is_ascii_whitespace) {
            *pos += 1;
        }
        if b.get(*pos) == Some(&b'-') {
            *pos += 1;
            while b.get(*pos).is_some_and(u8::is_ascii_whitespace) {
                *pos += 1;
            }
            return Ok(Index::FromLast(number(pos)?));
        }
        return Ok(Index::FromLast(0));
    }
    Ok(Index::At(number(pos)?))
}

impl Index {
    /// The position in an array of `len` elements (None before the start).
    pub fn resolve(self, len: usize) -> Option<usize> {
        match self {
            Index::At(n) => Some(n),
            Index::FromLast(n) => len.checked_sub(1 + n),
        }
    }
}

fn find_from<'j>(steps: &[Step], v: &'j Json, out: &mut Vec<&'j Json>) {
    let Some((step, rest)) = steps.split_first() else {
        if !out.iter().any(|o| std::ptr::eq(*o, v)) {
            out.push(v);
        }
        return;
    };
    match (step, v) {
        // Every member of that name: MariaDB keeps duplicate keys.
        (Step::Member(k), Json::Object(m, _)) => {
            for (_, child) in m.iter().filter(|(key, _)| unescape(key) == *k) {
                find_from(rest, child, out);
            }
        }
        (Step::AnyMember, Json::Object(m, _)) => {
            for (_, child) in m {
                find_from(rest, child, out);
            }
        }
        (Step::Element(i), Json::Array(items, _)) => {
            if let Some(child) = i.resolve(items.len()).and_then(|i| items.get(i)) {
                find_from(rest, child, out);
            }
        }
        // A scalar or object is treated as a one-element array (`$[0]`).
        (Step::Element(i), other) if i.resolve(1) == Some(0) => find_from(rest, other, out),
        (Step::Range(a, b), Json::Array(items, _)) => {
            let len = items.len();
            if let (Some(a), Some(b)) = (a.resolve(len), b.resolve(len)) {
                for child in items.iter().take(b.saturating_add(1)).skip(a) {
                    find_from(rest, child, out);
                }
            }
        }
        (Step::AnyElement, Json::Array(items, _)) => {
            for child in items {
                find_from(rest, child, out);
            }
        }
        (Step::AnyDepth, _) => {
            // Zero levels, then every descendant.
            find_from(rest, v, out);
            match v {
                Json::Array(items, _) => {
                    for child in items {
                        find_from(steps, child, out);
                    }
                }
                Json::Object(m, _) => {
                    for (_, child) in m {
                        find_from(steps, child, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// The value at a wildcard-free path, for changing it.
pub fn locate_mut<'j>(doc: &'j mut Json, steps: &[Step]) -> Option<&'j mut Json> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(doc);
    };
    doc.touch();
    match (step, doc) {
        (Step::Member(k), Json::Object(m, _)) => {
            let (_, child) = m.iter_mut().find(|(key, _)| unescape(key) == *k)?;
            locate_mut(child, rest)
        }
        (Step::Element(i), Json::Array(items, _)) => {
            let i = i.resolve(items.len())?;
            locate_mut(items.get_mut(i)?, rest)
        }
        (Step::Element(i), other) if i.resolve(1) == Some(0) => locate_mut(other, rest),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::json::document::parse;

    fn texts(doc: &str, path: &str) -> Vec<String> {
        let d = parse(doc).expect("document");
        let p = Path::parse(path).expect("path");
        p.find(&d).iter().map(|v| v.to_text()).collect()
    }

    #[test]
    fn paths_match_like_mariadb() {
        assert_eq!(texts(r#"{"a": {"b": 1}}"#, "$.a.b"), ["1"]);
        assert_eq!(texts("[10, 20, [30, 40]]", "$[2][*]"), ["30", "40"]);
        assert_eq!(texts("[1]", "$[0][0]"), ["1"]);
        assert!(texts("[1]", "$[1][0]").is_empty());
        assert_eq!(texts("[1]", "$**[0]"), ["1"]);
        assert_eq!(texts("[1, 2, 3, 4]", "$[last]"), ["4"]);
        assert_eq!(texts("[1, 2, 3, 4]", "$[last-1]"), ["3"]);
        assert_eq!(texts("[1, 2, 3, 4]", "$[1 to 2]"), ["2", "3"]);
        assert_eq!(texts(r#"{"a b": 5}"#, r#"$."a b""#), ["5"]);
        assert_eq!(texts(r#"[{"k": 1}, {"x": {"k": 2}}]"#, "$**.k"), ["1", "2"]);
        assert_eq!(Path::parse("a"), Err(PathError::Syntax(1)));
        assert_eq!(Path::parse("$."), Err(PathError::Syntax(3)));
        assert!(matches!(
            Path::parse(&format!("${}", ".k".repeat(1000))),
            Err(PathError::Depth(_))
        ));
    }
}
