//! Where a stored program's text ends: [`inside_body`] tells the statement
//! splitter whether a `;` falls inside the body of a compound statement.
//!
//! A statement is a stored program when it starts with `CREATE [OR REPLACE]
//! [DEFINER = ...] [AGGREGATE] PROCEDURE | FUNCTION | TRIGGER | EVENT` or with
//! `BEGIN NOT ATOMIC`. Its blocks are counted by keyword: `BEGIN`, `CASE`,
//! `LOOP` always open one, `IF`, `WHILE` and `REPEAT` only where a
//! statement starts (after `;`, `BEGIN`, `THEN`, `ELSE`, `DO`, `LOOP`,
//! `REPEAT`, a label's `:`, or the routine header), so that the functions
//! `IF()` and `REPEAT()` and `IF [NOT] EXISTS` are not taken for blocks
//! (MariaDB's `FOR ... DO ... END FOR` loop is not supported); `END` closes one and swallows the keyword after
//! it (`END IF`, `END LOOP`, ...). Quoted text is skipped; comments were
//! blanked by the splitter before.

/// True when `piece` (a statement's text up to a `;`, comments blanked)
/// is a stored program whose body has an open block at its end.
pub(super) fn inside_body(piece: &[u8]) -> bool {
    let tokens = tokens(piece);
    if !is_program_head(&tokens) {
        return false;
    }
    let mut depth: i64 = 0;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let prev = if i == 0 { None } else { Some(&tokens[i - 1]) };
        if let Tok::Word(w) = t {
            match w.as_str() {
                "BEGIN" | "CASE" => depth += 1,
                "LOOP" => depth += 1,
                "IF" | "WHILE" | "REPEAT" if statement_start(prev) => depth += 1,
                "END" => {
                    depth -= 1;
                    if let Some(Tok::Word(n)) = tokens.get(i + 1) {
                        if matches!(
                            n.as_str(),
                            "IF" | "CASE" | "LOOP" | "WHILE" | "REPEAT" | "FOR"
                        ) {
                            i += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    depth > 0
}

#[derive(Debug, PartialEq)]
enum Tok {
    /// An unquoted word, upper case.
    Word(String),
    /// A quoted string or identifier.
    Quoted,
    Punct(u8),
}

fn statement_start(prev: Option<&Tok>) -> bool {
    match prev {
        None => true,
        Some(Tok::Punct(b';' | b':' | b')')) | Some(Tok::Quoted) => true,
        Some(Tok::Word(w)) => matches!(
            w.as_str(),
            "BEGIN"
                | "THEN"
                | "ELSE"
                | "DO"
                | "LOOP"
                | "REPEAT"
                | "ATOMIC"
                | "DETERMINISTIC"
                | "SQL"
                | "DATA"
                | "INVOKER"
                | "DEFINER"
                | "ROW"
        ),
        _ => false,
    }
}

fn is_program_head(t: &[Tok]) -> bool {
    let word = |i: usize| match t.get(i) {
        Some(Tok::Word(w)) => w.as_str(),
        _ => "",
    };
    if word(0) == "BEGIN" && word(1) == "NOT" && word(2) == "ATOMIC" {
        return true;
    }
    if word(0) != "CREATE" {
        return false;
    }
    for i in 1..t.len().min(16) {
        match word(i) {
            "PROCEDURE" | "FUNCTION" | "TRIGGER" | "EVENT" => return true,
            "TABLE" | "VIEW" | "INDEX" | "DATABASE" | "SCHEMA" | "USER" | "ROLE" | "SEQUENCE"
            | "SERVER" => return false,
            _ => {}
        }
    }
    false
}

/// Words, quoted items and punctuation of `s` (numbers count as words).
fn tokens(s: &[u8]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'\'' || b == b'"' || b == b'`' {
            i += 1;
            while i < s.len() {
                if s[i] == b'\\' && b != b'`' {
                    i += 2;
                    continue;
                }
                if s[i] == b {
                    if s.get(i + 1) == Some(&b) {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
            out.push(Tok::Quoted);
        } else if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80 {
            let start = i;
            while i < s.len()
                && (s[i].is_ascii_alphanumeric() || s[i] == b'_' || s[i] == b'$' || s[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Tok::Word(
                String::from_utf8_lossy(&s[start..i]).to_ascii_uppercase(),
            ));
        } else if b == b'@' {
            // `@var` and `user@host`: one word, never a keyword.
            i += 1;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_' || s[i] == b'@') {
                i += 1;
            }
            out.push(Tok::Word("@".into()));
        } else {
            out.push(Tok::Punct(b));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::inside_body;

    fn open(s: &str) -> bool {
        inside_body(s.as_bytes())
    }

    #[test]
    fn blocks_are_counted() {
        assert!(open("CREATE PROCEDURE p() BEGIN SELECT 1"));
        assert!(!open("CREATE PROCEDURE p() BEGIN SELECT 1; END"));
        assert!(open(
            "CREATE DEFINER=`root`@`localhost` PROCEDURE p() BEGIN IF a THEN SELECT 1; END IF"
        ));
        assert!(!open(
            "create function f() returns int begin if (a) then return if(1,2,3); end if; return repeat('a', 2); end"
        ));
        assert!(open(
            "CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW BEGIN SET NEW.a = 1"
        ));
        assert!(!open("CREATE TABLE t (a int)"));
        assert!(!open("SELECT 1"));
        assert!(open("BEGIN NOT ATOMIC DECLARE c CURSOR FOR SELECT 1"));
        assert!(!open("CREATE PROCEDURE p() l: LOOP LEAVE l; END LOOP l"));
        assert!(open(
            "CREATE PROCEDURE p() BEGIN SELECT CASE WHEN 1 THEN 'a;' END"
        ));
    }
}
