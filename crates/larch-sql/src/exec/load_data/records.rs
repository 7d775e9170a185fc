//! The record reader of LOAD DATA: splits a byte stream into records of
//! fields by a [`FileFormat`], streaming (a bounded buffer, never the whole
//! file).
//!
//! Rules (MySQL's `READ_INFO`):
//! - a record starts after the next `LINES STARTING BY` prefix (when one is
//!   set; text before it is skipped) and ends at `LINES TERMINATED BY` or
//!   at the end of the input; fields are split at `FIELDS TERMINATED BY`;
//! - a field that starts with the `ENCLOSED BY` character runs to the next
//!   enclosing character followed by a terminator (or the end); a doubled
//!   enclosing character inside it is one character;
//! - the `ESCAPED BY` character makes the next character literal, except
//!   `0` (NUL), `b`, `n`, `r`, `t`, `Z` (Ctrl-Z); a field that is exactly
//!   escape + `N` is NULL, and so is the unenclosed word `NULL` when there
//!   is no escape character;
//! - an empty final line (the input ends with the line terminator) is no
//!   record.

use std::io::Read;

use crate::parse::FileFormat;

/// Bytes read from the source at a time.
const CHUNK: usize = 1 << 16;

/// One field: `None` is NULL.
pub(crate) type Field = Option<Vec<u8>>;

/// See the module documentation.
pub(crate) struct RecordReader<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    field_term: Vec<u8>,
    line_term: Vec<u8>,
    line_start: Vec<u8>,
    enclose: Option<u8>,
    escape: Option<u8>,
}

impl<R: Read> RecordReader<R> {
    pub(crate) fn new(src: R, f: &FileFormat) -> RecordReader<R> {
        RecordReader {
            src,
            buf: Vec::with_capacity(CHUNK * 2),
            pos: 0,
            eof: false,
            field_term: f.fields_terminated_by.as_bytes().to_vec(),
            line_term: f.lines_terminated_by.as_bytes().to_vec(),
            line_start: f.lines_starting_by.as_bytes().to_vec(),
            enclose: f.fields_enclosed_by.as_bytes().first().copied(),
            escape: f.fields_escaped_by.as_bytes().first().copied(),
        }
    }

    /// Makes at least `n` bytes available from `pos` unless the input ends.
    fn fill(&mut self, n: usize) -> std::io::Result<()> {
        while self.buf.len() - self.pos < n && !self.eof {
            if self.pos > 0 && self.pos >= self.buf.len() / 2 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            let old = self.buf.len();
            self.buf.resize(old + CHUNK, 0);
            let got = loop {
                match self.src.read(&mut self.buf[old..]) {
                    Ok(k) => break k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.buf.truncate(old);
                        return Err(e);
                    }
                }
            };
            self.buf.truncate(old + got);
            if got == 0 {
                self.eof = true;
            }
        }
        Ok(())
    }

    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        self.fill(1)?;
        Ok(self.buf.get(self.pos).copied())
    }

    /// True (and consumed) when the input continues with `pat`.
    fn eat(&mut self, pat: &[u8]) -> std::io::Result<bool> {
        if pat.is_empty() {
            return Ok(false);
        }
        if self.buf.get(self.pos) != Some(&pat[0]) {
            self.fill(1)?;
            if self.buf.get(self.pos) != Some(&pat[0]) {
                return Ok(false);
            }
        }
        self.fill(pat.len())?;
        if self.buf[self.pos..].starts_with(pat) {
            self.pos += pat.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// True when the input continues with `pat` (not consumed).
    fn at(&mut self, pat: &[u8]) -> std::io::Result<bool> {
        if pat.is_empty() {
            return Ok(false);
        }
        self.fill(pat.len())?;
        Ok(self.buf[self.pos..].starts_with(pat))
    }

    fn at_end(&mut self) -> std::io::Result<bool> {
        Ok(self.peek()?.is_none())
    }

    /// Reads the next record into `fields`; false at the end of the input.
    pub(crate) fn next_record(&mut self, fields: &mut Vec<Field>) -> std::io::Result<bool> {
        fields.clear();
        if !self.line_start.is_empty() {
            let start = self.line_start.clone();
            loop {
                if self.at_end()? {
                    return Ok(false);
                }
                if self.eat(&start)? {
                    break;
                }
                self.pos += 1;
            }
        }
        if self.at_end()? {
            return Ok(false);
        }
        loop {
            let (field, line_end) = self.field()?;
            fields.push(field);
            if line_end {
                return Ok(true);
            }
        }
    }

    /// One field and whether the record ended after it.
    fn field(&mut self) -> std::io::Result<(Field, bool)> {
        let mut out = Vec::new();
        let line_term = std::mem::take(&mut self.line_term);
        let field_term = std::mem::take(&mut self.field_term);
        let r = self.field_inner(&mut out, &field_term, &line_term);
        self.line_term = line_term;
        self.field_term = field_term;
        let (enclosed, line_end) = r?;
        let null = if enclosed {
            false
        } else {
            match self.escape {
                Some(e) => out.len() == 2 && out[0] == e && out[1] == b'N',
                None => out == b"NULL",
            }
        };
        Ok((
            if null {
                None
            } else {
                Some(unescape(&out, self.escape))
            },
            line_end,
        ))
    }

    /// Appends `b` so that [`unescape`] keeps it as it is.
    fn push_literal(&self, out: &mut Vec<u8>, b: u8) {
        if let Some(e) = self.escape {
            out.push(e);
        }
        out.push(b);
    }

    /// Reads raw field bytes (escapes kept, for [`unescape`]); returns
    /// whether it was enclosed and whether the record ended.
    fn field_inner(
        &mut self,
        out: &mut Vec<u8>,
        field_term: &[u8],
        line_term: &[u8],
    ) -> std::io::Result<(bool, bool)> {
        let first = self.peek()?;
        let enclosed = self.enclose.is_some() && first == self.enclose;
        if enclosed {
            self.pos += 1;
        }
        loop {
            let Some(b) = self.peek()? else {
                return Ok((enclosed, true));
            };
            if Some(b) == self.escape {
                self.fill(2)?;
                out.push(b);
                self.pos += 1;
                if let Some(&n) = self.buf.get(self.pos) {
                    out.push(n);
                    self.pos += 1;
                }
                continue;
            }
            if enclosed {
                if Some(b) == self.enclose {
                    self.pos += 1;
                    // A doubled enclosing character is one character.
                    if self.peek()? == Some(b) {
                        self.pos += 1;
                        self.push_literal(out, b);
                        continue;
                    }
                    if self.eat(field_term)? {
                        return Ok((true, false));
                    }
                    if self.eat(line_term)? || self.at_end()? {
                        return Ok((true, true));
                    }
                    self.push_literal(out, b);
                    continue;
                }
                out.push(b);
                self.pos += 1;
                continue;
            }
            if self.at(field_term)? {
                self.pos += field_term.len();
                return Ok((false, false));
            }
            if self.eat(line_term)? {
                return Ok((false, true));
            }
            out.push(b);
            self.pos += 1;
        }
    }
}

/// Resolves escape sequences (`\n`, `\0`, `\\`, ...) of a raw field.
fn unescape(raw: &[u8], escape: Option<u8>) -> Vec<u8> {
    let Some(e) = escape else {
        return raw.to_vec();
    };
    if !raw.contains(&e) {
        return raw.to_vec();
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == e && i + 1 < raw.len() {
            out.push(match raw[i + 1] {
                b'0' => 0,
                b'b' => 8,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'Z' => 26,
                c => c,
            });
            i += 2;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(input: &str, f: &FileFormat) -> Vec<Vec<Option<String>>> {
        let mut r = RecordReader::new(input.as_bytes(), f);
        let mut out = Vec::new();
        let mut fields = Vec::new();
        while r.next_record(&mut fields).unwrap_or(false) {
            out.push(
                fields
                    .iter()
                    .map(|f| f.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()))
                    .collect(),
            );
        }
        out
    }

    fn s(x: &str) -> Option<String> {
        Some(x.to_owned())
    }

    #[test]
    fn tab_separated_with_escapes() {
        let f = FileFormat::default();
        let got = records("1\ta\\tb\n2\t\\N\n3\tx\\\\y\\nz\n", &f);
        assert_eq!(
            got,
            vec![
                vec![s("1"), s("a\tb")],
                vec![s("2"), None],
                vec![s("3"), s("x\\y\nz")],
            ]
        );
    }

    #[test]
    fn enclosed_csv_with_crlf_and_prefix() {
        let f = FileFormat {
            fields_terminated_by: ",".into(),
            fields_enclosed_by: "\"".into(),
            fields_optionally_enclosed: true,
            lines_terminated_by: "\r\n".into(),
            ..FileFormat::default()
        };
        let got = records(
            "1,\"a,b\"\r\n2,\"say \"\"hi\"\"\"\r\n3,\"multi\r\nline\"",
            &f,
        );
        assert_eq!(
            got,
            vec![
                vec![s("1"), s("a,b")],
                vec![s("2"), s("say \"hi\"")],
                vec![s("3"), s("multi\r\nline")],
            ]
        );
        let f = FileFormat {
            lines_starting_by: "xxx".into(),
            fields_terminated_by: ",".into(),
            ..FileFormat::default()
        };
        assert_eq!(
            records("xxx1,2\nno prefix here\nab xxx3,4\n", &f),
            vec![vec![s("1"), s("2")], vec![s("3"), s("4")]]
        );
    }

    #[test]
    fn null_word_without_escape_and_long_input() {
        let f = FileFormat {
            fields_escaped_by: String::new(),
            ..FileFormat::default()
        };
        assert_eq!(records("NULL\tNULLx\n", &f), vec![vec![None, s("NULLx")]]);
        let big: String = (0..50_000).map(|i| format!("{i}\tvalue {i}\n")).collect();
        let got = records(&big, &FileFormat::default());
        assert_eq!(got.len(), 50_000);
        assert_eq!(got[49_999], vec![s("49999"), s("value 49999")]);
    }
}
