//! `SELECT ... INTO` (MariaDB's two positions: before FROM, or at the end of
//! the statement): `INTO @v1, @v2`, `INTO OUTFILE 'file' [CHARACTER SET cs]
//! [FIELDS ...] [LINES ...]` and `INTO DUMPFILE 'file'`.
//!
//! sqlparser knows only PostgreSQL's `SELECT INTO table`, so the clause is
//! cut out of the token stream before sqlparser sees the statement
//! ([`extract`]): the first unquoted `INTO` at parenthesis depth 0 of a
//! statement that starts with SELECT, WITH or `(`. The rest parses as an
//! ordinary query; the clause's tokens (with their original positions, so
//! syntax errors point at the right place) are parsed by [`parse_target`].
//! `parse_one` joins the two into `Statement::SelectInto`.

use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::extra::FileFormat;

/// Where `SELECT ... INTO` sends its rows.
#[derive(Debug, Clone, PartialEq)]
pub enum IntoTarget {
    /// `@v1, @v2, ...` (lower-case names without `@`).
    Variables(Vec<String>),
    /// `OUTFILE 'file' ...`.
    Outfile {
        file: String,
        charset: Option<String>,
        format: FileFormat,
    },
    /// `DUMPFILE 'file'`.
    Dumpfile(String),
    /// Variables of which at least one is a stored program's local
    /// variable (a plain name).
    Locals(Vec<IntoVar>),
}

/// A variable of `INTO` with locals.
#[derive(Debug, Clone, PartialEq)]
pub enum IntoVar {
    /// `@name` (lower case).
    User(String),
    /// A local variable's name as written.
    Local(String),
}

fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

fn is_blank(t: &Token) -> bool {
    matches!(t, Token::Whitespace(_))
}

/// Cuts the INTO clause out of `tokens` and returns its tokens (without
/// the INTO word); `None` when the statement has none.
pub(super) fn extract(tokens: &mut Vec<TokenWithSpan>) -> Option<Vec<TokenWithSpan>> {
    let first = tokens.iter().position(|t| !is_blank(&t.token))?;
    let starts_query = matches!(tokens[first].token, Token::LParen)
        || is_word(&tokens[first].token, "SELECT")
        || is_word(&tokens[first].token, "WITH");
    if !starts_query {
        return None;
    }
    let mut depth = 0i32;
    let mut at = None;
    for (i, t) in tokens.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            tok if depth == 0 && is_word(tok, "INTO") => {
                at = Some(i);
                break;
            }
            _ => {}
        }
    }
    let at = at?;
    let end = clause_end(tokens, at + 1);
    let clause: Vec<TokenWithSpan> = tokens.drain(at..end).skip(1).collect();
    Some(clause)
}

/// The index just after the INTO clause that starts at `i`.
fn clause_end(tokens: &[TokenWithSpan], mut i: usize) -> usize {
    let next = |mut i: usize| {
        while i < tokens.len() && is_blank(&tokens[i].token) {
            i += 1;
        }
        i
    };
    i = next(i);
    let Some(first) = tokens.get(i) else {
        return i;
    };
    if is_word(&first.token, "OUTFILE") || is_word(&first.token, "DUMPFILE") {
        // The file name and the format words and strings that follow.
        let mut end = i + 1;
        let mut j = next(end);
        let mut after_charset = false;
        while let Some(t) = tokens.get(j) {
            let option = [
                "CHARACTER",
                "SET",
                "CHARSET",
                "FIELDS",
                "COLUMNS",
                "TERMINATED",
                "OPTIONALLY",
                "ENCLOSED",
                "ESCAPED",
                "BY",
                "LINES",
                "STARTING",
            ]
            .iter()
            .any(|w| is_word(&t.token, w));
            let string = matches!(
                t.token,
                Token::SingleQuotedString(_)
                    | Token::DoubleQuotedString(_)
                    | Token::HexStringLiteral(_)
            );
            let charset_name = after_charset && matches!(t.token, Token::Word(_));
            if !(option || string || charset_name) {
                break;
            }
            after_charset = is_word(&t.token, "SET") || is_word(&t.token, "CHARSET");
            end = j + 1;
            j = next(end);
        }
        return end;
    }
    // @v1, @v2, ...
    let mut end = i;
    let mut j = i;
    loop {
        match tokens.get(j) {
            // `@v` or a stored program's local variable.
            Some(t) if matches!(&t.token, Token::Word(_)) => {
                end = j + 1;
            }
            _ => return end.max(i + 1),
        }
        let c = next(end);
        if tokens.get(c).map(|t| &t.token) != Some(&Token::Comma) {
            return end;
        }
        j = next(c + 1);
    }
}

/// Parses the clause tokens [`extract`] returned.
pub(super) fn parse_target(p: &mut Parser) -> Result<IntoTarget, ParserError> {
    let word = |p: &mut Parser, w: &str| {
        if is_word(&p.peek_token_ref().token, w) {
            p.next_token();
            true
        } else {
            false
        }
    };
    if word(p, "OUTFILE") {
        let file = p.parse_literal_string()?;
        let mut charset = None;
        if word(p, "CHARACTER") {
            if !word(p, "SET") {
                return p.expected("SET", p.peek_token());
            }
            charset = Some(p.parse_identifier()?.value);
        } else if word(p, "CHARSET") {
            charset = Some(p.parse_identifier()?.value);
        }
        let format = super::extra::file_format(p)?;
        return Ok(IntoTarget::Outfile {
            file,
            charset,
            format,
        });
    }
    if word(p, "DUMPFILE") {
        return Ok(IntoTarget::Dumpfile(p.parse_literal_string()?));
    }
    let mut vars = Vec::new();
    let mut targets = Vec::new();
    loop {
        let t = p.next_token();
        match &t.token {
            Token::Word(w) if w.value.starts_with('@') && w.value.len() > 1 => {
                let name = w.value[1..].trim_matches(['`', '\'', '"']);
                vars.push(name.to_ascii_lowercase());
                targets.push(IntoVar::User(name.to_ascii_lowercase()));
            }
            Token::Word(w) if !w.value.is_empty() => {
                targets.push(IntoVar::Local(w.value.clone()));
            }
            _ => {
                return Err(ParserError::ParserError(format!(
                    "Expected: a user variable, found: {} at Line: {}, Column: {}",
                    t.token, t.span.start.line, t.span.start.column
                )))
            }
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    if targets.len() != vars.len() {
        return Ok(IntoTarget::Locals(targets));
    }
    Ok(IntoTarget::Variables(vars))
}

/// The query of a parsed statement that can take an INTO clause.
pub(super) fn query_of(s: super::Statement) -> Option<Box<ast::Query>> {
    match s {
        super::Statement::Sql(st) => match *st {
            ast::Statement::Query(q) => Some(q),
            _ => None,
        },
        _ => None,
    }
}
