//! JSON documents: the tree the JSON functions work on, the parser that
//! builds it from text with MariaDB's errors, and the text forms it prints.
//!
//! Scalars keep their text as written: a number is printed exactly as it
//! appeared (`8.437e-5` stays so) and a string keeps its escapes, which is
//! what MariaDB's functions return. Containers remember the span of text
//! they were parsed from, so `JSON_QUERY` can return that text unchanged;
//! containers built or changed by a function have no span and are printed
//! in MariaDB's form (`{"a": 1, "b": [2, 3]}`: `", "` between members and
//! `": "` after keys). Object members keep their order, duplicates included
//! (MariaDB keeps them too; lookups take the first).
//!
//! Errors carry what MariaDB reports: a syntax error with the position
//! after the offending character (4038), an unexpected end (4037), or
//! nesting deeper than [`MAX_DEPTH`] (4040, the position after the opening
//! bracket that went too deep).

use std::fmt::Write as _;

/// Deepest nesting of arrays and objects a document may have.
pub const MAX_DEPTH: usize = 32;

/// A parsed or built JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string's content between the quotes, escapes as written.
    String(String),
    /// Elements, and the text span they were parsed from.
    Array(Vec<Json>, Option<(usize, usize)>),
    /// Members (escaped key, value) in order, and the parsed span.
    Object(Vec<(String, Json)>, Option<(usize, usize)>),
}

/// Why a text is not a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    /// A character that cannot come here; the position after it.
    Syntax(usize),
    /// The text ended inside a value.
    UnexpectedEnd,
    /// Nested deeper than [`MAX_DEPTH`]; the position after the bracket.
    Depth(usize),
}

/// Parses a whole text as one JSON value.
pub fn parse(text: &str) -> Result<Json, ParseError> {
    let mut p = Parser {
        b: text.as_bytes(),
        pos: 0,
    };
    let v = p.value(0)?;
    p.skip_ws();
    if p.pos < p.b.len() {
        return Err(ParseError::Syntax(p.pos + 1));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self
            .b
            .get(self.pos)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Result<u8, ParseError> {
        self.skip_ws();
        self.b
            .get(self.pos)
            .copied()
            .ok_or(ParseError::UnexpectedEnd)
    }

    fn bad(&self) -> ParseError {
        ParseError::Syntax(self.pos + 1)
    }

    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => Ok(Json::String(self.string()?)),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.bad()),
        }
    }

    /// `true`, `false` or `null`; a misspelling is an error at its start.
    fn word(&mut self, w: &str, v: Json) -> Result<Json, ParseError> {
        let start = self.pos;
        for &c in w.as_bytes() {
            match self.b.get(self.pos) {
                None => return Err(ParseError::UnexpectedEnd),
                Some(&x) if x == c => self.pos += 1,
                Some(_) => return Err(ParseError::Syntax(start + 1)),
            }
        }
        Ok(v)
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.pos;
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.b.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - s
        };
        match self.b.get(self.pos) {
            None => return Err(ParseError::UnexpectedEnd),
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            Some(_) => return Err(self.bad()),
        }
        if self.b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.end_or_bad());
            }
        }
        if matches!(self.b.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.end_or_bad());
            }
        }
        let text = String::from_utf8_lossy(&self.b[start..self.pos]).into_owned();
        Ok(Json::Number(text))
    }

    fn end_or_bad(&self) -> ParseError {
        if self.pos >= self.b.len() {
            ParseError::UnexpectedEnd
        } else {
            self.bad()
        }
    }

    /// A string at the current `"`: its content with escapes as written.
    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.b.get(self.pos) {
                None => return Err(ParseError::UnexpectedEnd),
                Some(b'"') => break,
                Some(b'\\') => {
                    self.pos += 1;
                    match self.b.get(self.pos) {
                        None => return Err(ParseError::UnexpectedEnd),
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1
                        }
                        Some(b'u') => {
                            self.pos += 1;
                            for _ in 0..4 {
                                match self.b.get(self.pos) {
                                    None => return Err(ParseError::UnexpectedEnd),
                                    Some(c) if c.is_ascii_hexdigit() => self.pos += 1,
                                    Some(_) => return Err(self.bad()),
                                }
                            }
                        }
                        Some(_) => return Err(self.bad()),
                    }
                }
                Some(&c) if c < 0x20 => return Err(self.bad()),
                Some(_) => self.pos += 1,
            }
        }
        let s = String::from_utf8_lossy(&self.b[start..self.pos]).into_owned();
        self.pos += 1;
        Ok(s)
    }

    fn open(&mut self, depth: usize) -> Result<usize, ParseError> {
        let start = self.pos;
        self.pos += 1;
        if depth + 1 >= MAX_DEPTH {
            return Err(ParseError::Depth(self.pos));
        }
        Ok(start)
    }

    fn array(&mut self, depth: usize) -> Result<Json, ParseError> {
        let start = self.open(depth)?;
        let mut items = Vec::new();
        if self.peek()? == b']' {
            self.pos += 1;
            return Ok(Json::Array(items, Some((start, self.pos))));
        }
        loop {
            items.push(self.value(depth + 1)?);
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Ok(Json::Array(items, Some((start, self.pos))));
                }
                _ => return Err(self.bad()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, ParseError> {
        let start = self.open(depth)?;
        let mut members = Vec::new();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Ok(Json::Object(members, Some((start, self.pos))));
        }
        loop {
            if self.peek()? != b'"' {
                return Err(self.bad());
            }
            let key = self.string()?;
            if self.peek()? != b':' {
                return Err(self.bad());
            }
            self.pos += 1;
            members.push((key, self.value(depth + 1)?));
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(Json::Object(members, Some((start, self.pos))));
                }
                _ => return Err(self.bad()),
            }
        }
    }
}

/// Escapes `s` for use between JSON quotes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The text a string's escaped content stands for.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let unit = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                // A surrogate pair spells one character in two escapes.
                if (0xD800..0xDC00).contains(&unit) {
                    let rest = chars.as_str();
                    if let Some(low) = rest
                        .strip_prefix("\\u")
                        .and_then(|r| r.get(..4))
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .filter(|l| (0xDC00..0xE000).contains(l))
                    {
                        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        chars = rest[6..].chars();
                        continue;
                    }
                }
                out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

impl Json {
    /// A string value holding `s`.
    pub fn string(s: &str) -> Json {
        Json::String(escape(s))
    }

    /// MariaDB's name of the value's type (JSON_TYPE).
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Number(n) if n.contains(['.', 'e', 'E']) => "DOUBLE",
            Json::Number(_) => "INTEGER",
            Json::String(_) => "STRING",
            Json::Array(..) => "ARRAY",
            Json::Object(..) => "OBJECT",
        }
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(..) | Json::Object(..))
    }

    /// Forgets the parsed span of this container (it is being changed).
    pub fn touch(&mut self) {
        match self {
            Json::Array(_, span) | Json::Object(_, span) => *span = None,
            _ => {}
        }
    }

    /// The value of the first member named `key` (escaped form compared
    /// after unescaping both).
    pub fn member(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m, _) => m.iter().find(|(k, _)| unescape(k) == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value printed in MariaDB's form.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(true) => out.push_str("true"),
            Json::Bool(false) => out.push_str("false"),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            Json::Array(items, _) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Object(members, _) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\": ");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The value's text: the parsed text of an unchanged container from
    /// `source`, otherwise MariaDB's printed form.
    pub fn source_text(&self, source: &str) -> String {
        match self {
            Json::Array(_, Some((a, b))) | Json::Object(_, Some((a, b))) => source
                .get(*a..*b)
                .map_or_else(|| self.to_text(), str::to_owned),
            _ => self.to_text(),
        }
    }

    /// Printed with no spaces at all (JSON_COMPACT).
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Json::Array(items, _) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_compact(out);
                }
                out.push(']');
            }
            Json::Object(members, _) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\":");
                    v.write_compact(out);
                }
                out.push('}');
            }
            other => other.write(out),
        }
    }

    /// Nesting depth (JSON_DEPTH): 1 for scalars and empty containers.
    pub fn depth(&self) -> u64 {
        match self {
            Json::Array(items, _) if !items.is_empty() => {
                1 + items.iter().map(Json::depth).max().unwrap_or(0)
            }
            Json::Object(m, _) if !m.is_empty() => {
                1 + m.iter().map(|(_, v)| v.depth()).max().unwrap_or(0)
            }
            _ => 1,
        }
    }

    /// Equality of JSON values: numbers by value, strings after unescaping,
    /// objects as unordered sets of members.
    pub fn equals(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Number(a), Json::Number(b)) => match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => x == y,
                _ => a == b,
            },
            (Json::String(a), Json::String(b)) => a == b || unescape(a) == unescape(b),
            (Json::Array(a, _), Json::Array(b, _)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (Json::Object(a, _), Json::Object(b, _)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| other.member(&unescape(k)).is_some_and(|w| v.equals(w)))
            }
            (a, b) => a == b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_in_mariadb_form() {
        let j = parse(r#" {"a":1, "b" : [true,null,"x\"y"], "c":{}} "#).expect("valid");
        assert_eq!(
            j.to_text(),
            r#"{"a": 1, "b": [true, null, "x\"y"], "c": {}}"#
        );
        assert_eq!(j.to_compact(), r#"{"a":1,"b":[true,null,"x\"y"],"c":{}}"#);
        assert_eq!(parse("8.437e-5").expect("number").to_text(), "8.437e-5");
        assert_eq!(
            j.member("b")
                .map(|b| b.source_text(r#" {"a":1, "b" : [true,null,"x\"y"], "c":{}} "#)),
            Some(r#"[true,null,"x\"y"]"#.to_string())
        );
    }

    #[test]
    fn errors_carry_mariadb_positions() {
        assert_eq!(parse(r#""string"}"#), Err(ParseError::Syntax(9)));
        assert_eq!(parse("string"), Err(ParseError::Syntax(1)));
        assert_eq!(parse(""), Err(ParseError::UnexpectedEnd));
        assert_eq!(parse("[1, 2"), Err(ParseError::UnexpectedEnd));
        assert_eq!(parse(&"[".repeat(1000)), Err(ParseError::Depth(32)));
        assert_eq!(parse(&r#"{"a":"#.repeat(1000)), Err(ParseError::Depth(156)));
        assert_eq!(parse("01"), Err(ParseError::Syntax(2)));
    }

    #[test]
    fn strings_unescape_and_compare() {
        assert_eq!(unescape(r#"a\"b\u00e9\ud83d\ude0a"#), "a\"bé😊");
        assert_eq!(escape("a\"b\n"), r#"a\"b\n"#);
        let a = parse(r#"{"x": 1.0, "y": "\u0041"}"#).expect("valid");
        let b = parse(r#"{"y": "A", "x": 1}"#).expect("valid");
        assert!(a.equals(&b));
        assert_eq!(parse("[[1], {}]").expect("valid").depth(), 3);
    }
}
