//! Splitting a query string into statements, and MySQL's comments.
//!
//! [`split_statements`] cuts a COM_QUERY text (possibly several statements) at
//! every `;` that is outside quotes (`'...'`, `"..."`, `` `...` ``, with backslash
//! escapes and doubled quotes) and outside comments. Each piece's text is
//! rewritten *byte for byte in place* so that positions in it are positions in
//! the original:
//! - plain comments (`-- `, `#`, `/* */`, optimizer hints `/*+ */`) become
//!   spaces (newlines are kept, so line numbers stay right);
//! - executable comments `/*! ... */`, `/*!NNNNN ... */` and MariaDB's
//!   `/*M!NNNNNN ... */` whose version runs on this server lose only their
//!   markers (the `/*!NNNNN` opener and the closing `*/` become spaces), so the
//!   inner text executes; those for a newer server are blanked whole. As in
//!   MariaDB, five-digit versions from 50700 to 99999 name MySQL-only features
//!   and never run.
//!
//! A `;` inside the body of a stored program (`CREATE PROCEDURE | FUNCTION |
//! TRIGGER | EVENT ... BEGIN ...; END`, `BEGIN NOT ATOMIC ... END`) does not
//! end the statement ([`super::compound`]).
//!
//! Pieces that are only whitespace after this are dropped. An unterminated
//! quote or comment runs to the end of the text (the parser then reports it).

/// The server version compared with executable comments (MariaDB 10.11.0).
pub const VERSION_ID: u32 = 101100;

/// One statement of a query text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The executable text: same length and byte positions as
    /// `original[start..start + text.len()]`, comments blanked.
    pub text: String,
    /// Byte offset of the piece in the original query.
    pub start: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Normal,
    Quoted(u8),
    LineComment,
    BlockComment,
}

/// Splits `sql` into statements (see the module docs).
pub fn split_statements(sql: &str) -> Vec<Piece> {
    let bytes = sql.as_bytes();
    let mut out = bytes.to_vec();
    let mut pieces = Vec::new();
    let mut state = State::Normal;
    let mut in_exec = false;
    let mut start = 0;
    let mut i = 0;
    let blank = |out: &mut [u8], from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        match state {
            State::Quoted(q) => {
                if b == b'\\' && q != b'`' {
                    i += 2;
                    continue;
                }
                if b == q {
                    if bytes.get(i + 1) == Some(&q) {
                        i += 2;
                        continue;
                    }
                    state = State::Normal;
                }
                i += 1;
            }
            State::LineComment => {
                if b == b'\n' {
                    state = State::Normal;
                } else {
                    out[i] = b' ';
                }
                i += 1;
            }
            State::BlockComment => {
                if b == b'*' && bytes.get(i + 1) == Some(&b'/') {
                    blank(&mut out, i, i + 2);
                    state = State::Normal;
                    i += 2;
                } else {
                    blank(&mut out, i, i + 1);
                    i += 1;
                }
            }
            State::Normal => match b {
                b'\'' | b'"' | b'`' => {
                    state = State::Quoted(b);
                    i += 1;
                }
                b'#' => {
                    state = State::LineComment;
                    out[i] = b' ';
                    i += 1;
                }
                b'-' if bytes.get(i + 1) == Some(&b'-')
                    && bytes
                        .get(i + 2)
                        .is_none_or(|c| c.is_ascii_whitespace() || *c < 0x20) =>
                {
                    state = State::LineComment;
                    blank(&mut out, i, i + 2);
                    i += 2;
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => match executable_comment(&bytes[i..]) {
                    Some((marker_len, true)) => {
                        blank(&mut out, i, i + marker_len);
                        in_exec = true;
                        i += marker_len;
                    }
                    _ => {
                        blank(&mut out, i, i + 2);
                        state = State::BlockComment;
                        i += 2;
                    }
                },
                b'*' if in_exec && bytes.get(i + 1) == Some(&b'/') => {
                    blank(&mut out, i, i + 2);
                    in_exec = false;
                    i += 2;
                }
                b';' if !in_exec && !super::compound::inside_body(&out[start..i]) => {
                    push_piece(&mut pieces, &out, start, i);
                    out[i] = b' ';
                    start = i + 1;
                    i += 1;
                }
                _ => i += 1,
            },
        }
    }
    push_piece(&mut pieces, &out, start, bytes.len());
    pieces
}

fn push_piece(pieces: &mut Vec<Piece>, out: &[u8], start: usize, end: usize) {
    let slice = &out[start..end];
    if slice.iter().all(|b| b.is_ascii_whitespace()) {
        return;
    }
    // Only whole comments (ASCII-blanked) and ASCII markers were replaced, so the
    // bytes are still UTF-8; the lossy conversion never substitutes.
    let text = String::from_utf8_lossy(slice).into_owned();
    pieces.push(Piece { text, start });
}

/// For text starting with `/*`: `Some((marker length, runs))` when it is an
/// executable comment (`/*!`, `/*!NNNNN`, `/*M!NNNNNN`), `None` for a plain one.
fn executable_comment(s: &[u8]) -> Option<(usize, bool)> {
    let (prefix, mariadb) = if s.starts_with(b"/*!") {
        (3, false)
    } else if s.starts_with(b"/*M!") {
        (4, true)
    } else {
        return None;
    };
    let digits = s[prefix..]
        .iter()
        .take(6)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return Some((prefix, true));
    }
    // MySQL reads exactly five digits; MariaDB also six.
    let digits = if digits >= 6 { 6 } else { digits.min(5) };
    let version: u32 = s[prefix..prefix + digits]
        .iter()
        .fold(0, |acc, b| acc * 10 + u32::from(b - b'0'));
    let runs =
        version <= VERSION_ID && (mariadb || digits == 6 || !(50700..=99999).contains(&version));
    Some((prefix + digits, runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(sql: &str) -> Vec<String> {
        split_statements(sql)
            .into_iter()
            .map(|p| p.text.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[test]
    fn splits_outside_quotes_and_comments() {
        assert_eq!(
            texts("select 'a;b', \"c;d\", `e;f`; select 2 -- x;y\n; # z;w\n select 3 /* ; */"),
            vec!["select 'a;b', \"c;d\", `e;f`", "select 2", "select 3"]
        );
        assert_eq!(
            texts("select 'it''s;', 'a\\';b'; x"),
            vec!["select 'it''s;', 'a\\';b'", "x"]
        );
        assert_eq!(texts(" ;; \n ; "), Vec::<String>::new());
        // `--` without a following space is not a comment.
        assert_eq!(texts("select 1--1"), vec!["select 1--1"]);
    }

    #[test]
    fn version_comments_run_by_version() {
        assert_eq!(
            texts("/*!40101 SET NAMES utf8mb4 */;"),
            vec!["SET NAMES utf8mb4"]
        );
        assert_eq!(
            texts("/*!40000 ALTER TABLE `t` DISABLE KEYS */;\nINSERT INTO t VALUES (1);"),
            vec!["ALTER TABLE `t` DISABLE KEYS", "INSERT INTO t VALUES (1)"]
        );
        assert_eq!(
            texts("select /*!50700 1, */ /*!50600 2, */ 3"),
            vec!["select 2, 3"]
        );
        assert_eq!(
            texts("select /*!99999 1, */ /*!100000 2, */ /*!110000 4, */ 3"),
            vec!["select 2, 3"]
        );
        assert_eq!(
            texts("select /*M!100000 2, */ /*M!999999 5, */ /*! 6, */ 3"),
            vec!["select 2, 6, 3"]
        );
        assert_eq!(
            texts("/*M!999999\\- enable the sandbox mode */\nselect 1"),
            vec!["select 1"]
        );
        assert_eq!(texts("select /*+ NO_INDEX(t) */ 1"), vec!["select 1"]);
    }

    #[test]
    fn positions_and_lines_are_preserved() {
        let sql = "select 1;\n/* c\n */ select\n 'é' x";
        let pieces = split_statements(sql);
        assert_eq!(pieces.len(), 2);
        let p = &pieces[1];
        assert_eq!(p.text.len(), sql.len() - p.start);
        assert_eq!(
            &sql[p.start + p.text.find("select").unwrap_or(0)..][..6],
            "select"
        );
        assert_eq!(p.text.matches('\n').count(), 3);
    }
}
