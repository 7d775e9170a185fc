//! `CREATE [OR REPLACE] [ALGORITHM = a] [DEFINER = user] [SQL SECURITY s]
//! VIEW [IF NOT EXISTS] name [(columns)] AS select [WITH [CASCADED | LOCAL]
//! CHECK OPTION]` and `ALTER [ALGORITHM = a] [DEFINER = user] [SQL SECURITY
//! s] VIEW name [(columns)] AS select [WITH ... CHECK OPTION]`.
//!
//! sqlparser knows neither MariaDB's ALTER VIEW options nor `WITH CHECK
//! OPTION`, so the header is read here from the tokens and the SELECT is
//! parsed on its own (by [`super::parse_one`], so its unnamed items get
//! their names as written). The SELECT's text as written is kept: it is
//! what the dictionary stores. Statements that are not view DDL (CREATE
//! TABLE, CREATE DEFINER=... TRIGGER, ...) are left to the other parsers.

use sqlparser::ast;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{byte_offset, parse_one, syntax_error, Statement};
use crate::error::SqlError;

/// A parsed CREATE VIEW or ALTER VIEW.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewStatement {
    /// ALTER VIEW (the view must exist; it is replaced).
    pub alter: bool,
    pub or_replace: bool,
    pub if_not_exists: bool,
    /// `UNDEFINED`, `MERGE` or `TEMPTABLE`, upper case.
    pub algorithm: Option<String>,
    /// `(user, host)`; `None` for the current user.
    pub definer: Option<(String, String)>,
    /// `DEFINER` or `INVOKER`, upper case.
    pub security: Option<String>,
    pub name: ast::ObjectName,
    /// The explicit column list (empty when there is none).
    pub columns: Vec<String>,
    pub query: Box<ast::Query>,
    /// The SELECT as written.
    pub select_text: String,
    /// `CASCADED` or `LOCAL` for WITH CHECK OPTION.
    pub check: Option<String>,
}

fn is_kw(t: Option<&&TokenWithSpan>, kw: &str) -> bool {
    matches!(t.map(|t| &t.token), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
}

fn word_of(t: Option<&&TokenWithSpan>) -> Option<String> {
    match t.map(|t| &t.token) {
        Some(Token::Word(w)) => Some(w.value.clone()),
        _ => None,
    }
}

/// The view statement in `tokens`, or `None` when it is not one.
pub(super) fn parse(
    text: &str,
    original: &str,
    tokens: &[TokenWithSpan],
) -> Option<Result<Statement, SqlError>> {
    let words: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let alter = if is_kw(words.first(), "CREATE") {
        false
    } else if is_kw(words.first(), "ALTER") {
        true
    } else {
        return None;
    };
    let mut i = 1;
    let mut or_replace = false;
    if !alter && is_kw(words.get(1), "OR") && is_kw(words.get(2), "REPLACE") {
        or_replace = true;
        i = 3;
    }
    let mut algorithm = None;
    let mut definer = None;
    let mut security = None;
    let err_at = |i: usize| -> SqlError {
        match words.get(i) {
            Some(t) => syntax_error(text, original, t.span.start),
            None => syntax_error(
                text,
                original,
                sqlparser::tokenizer::Location { line: 0, column: 0 },
            ),
        }
    };
    loop {
        if is_kw(words.get(i), "ALGORITHM") {
            if !matches!(words.get(i + 1).map(|t| &t.token), Some(Token::Eq)) {
                return Some(Err(err_at(i + 1)));
            }
            let a = word_of(words.get(i + 2)).map(|w| w.to_ascii_uppercase());
            match a.as_deref() {
                Some("UNDEFINED" | "MERGE" | "TEMPTABLE") => algorithm = a,
                _ => return Some(Err(err_at(i + 2))),
            }
            i += 3;
        } else if is_kw(words.get(i), "DEFINER") {
            if !matches!(words.get(i + 1).map(|t| &t.token), Some(Token::Eq)) {
                return Some(Err(err_at(i + 1)));
            }
            let start = i + 2;
            let mut end = start;
            while end < words.len()
                && !is_kw(words.get(end), "SQL")
                && !is_kw(words.get(end), "VIEW")
                && !is_kw(words.get(end), "ALGORITHM")
            {
                end += 1;
            }
            let (Some(first), Some(stop)) = (words.get(start), words.get(end)) else {
                return None;
            };
            let a = byte_offset(text, first.span.start);
            let b = byte_offset(text, stop.span.start);
            definer = user_of(text.get(a..b).unwrap_or_default());
            i = end;
        } else if is_kw(words.get(i), "SQL") && is_kw(words.get(i + 1), "SECURITY") {
            let s = word_of(words.get(i + 2)).map(|w| w.to_ascii_uppercase());
            match s.as_deref() {
                Some("DEFINER" | "INVOKER") => security = s,
                _ => return Some(Err(err_at(i + 2))),
            }
            i += 3;
        } else {
            break;
        }
    }
    if !is_kw(words.get(i), "VIEW") {
        return None;
    }
    i += 1;
    Some(parse_rest(
        text, original, &words, i, alter, or_replace, algorithm, definer, security,
    ))
}

/// `user@host` as written (quoted or not; `CURRENT_USER[()]` is `None`).
fn user_of(spec: &str) -> Option<(String, String)> {
    let spec = spec.trim();
    let upper = spec.to_ascii_uppercase();
    if upper == "CURRENT_USER" || upper == "CURRENT_USER()" {
        return None;
    }
    let unquote = |p: &str| {
        let p = p.trim();
        p.strip_prefix(['`', '\'', '"'])
            .and_then(|x| x.strip_suffix(['`', '\'', '"']))
            .unwrap_or(p)
            .to_string()
    };
    match spec.rsplit_once('@') {
        Some((u, h)) => Some((unquote(u), unquote(h))),
        None => Some((unquote(spec), "%".to_string())),
    }
}

#[allow(clippy::too_many_arguments)]
fn parse_rest(
    text: &str,
    original: &str,
    words: &[&TokenWithSpan],
    mut i: usize,
    alter: bool,
    or_replace: bool,
    algorithm: Option<String>,
    definer: Option<(String, String)>,
    security: Option<String>,
) -> Result<Statement, SqlError> {
    let err_at = |i: usize| -> SqlError {
        match words.get(i) {
            Some(t) => syntax_error(text, original, t.span.start),
            None => syntax_error(
                text,
                original,
                sqlparser::tokenizer::Location { line: 0, column: 0 },
            ),
        }
    };
    let mut if_not_exists = false;
    if !alter
        && is_kw(words.get(i), "IF")
        && is_kw(words.get(i + 1), "NOT")
        && is_kw(words.get(i + 2), "EXISTS")
    {
        if_not_exists = true;
        i += 3;
    }
    let mut parts = Vec::new();
    loop {
        let Some(w) = word_of(words.get(i)) else {
            return Err(err_at(i));
        };
        parts.push(ast::Ident::new(w));
        i += 1;
        if matches!(words.get(i).map(|t| &t.token), Some(Token::Period)) {
            i += 1;
        } else {
            break;
        }
    }
    let name = ast::ObjectName::from(parts);
    let mut columns = Vec::new();
    if matches!(words.get(i).map(|t| &t.token), Some(Token::LParen)) {
        i += 1;
        loop {
            let Some(w) = word_of(words.get(i)) else {
                return Err(err_at(i));
            };
            columns.push(w);
            i += 1;
            match words.get(i).map(|t| &t.token) {
                Some(Token::Comma) => i += 1,
                Some(Token::RParen) => {
                    i += 1;
                    break;
                }
                _ => return Err(err_at(i)),
            }
        }
    }
    if !is_kw(words.get(i), "AS") {
        return Err(err_at(i));
    }
    i += 1;
    // The end of the SELECT: before `;`s and WITH [CASCADED|LOCAL] CHECK OPTION.
    let mut end = words.len();
    while end > i && matches!(words[end - 1].token, Token::SemiColon) {
        end -= 1;
    }
    let mut check = None;
    if end >= i + 3 && is_kw(words.get(end - 1), "OPTION") && is_kw(words.get(end - 2), "CHECK") {
        let mut w = end - 3;
        let mut kind = "CASCADED".to_string();
        if is_kw(words.get(w), "CASCADED") || is_kw(words.get(w), "LOCAL") {
            kind = word_of(words.get(w))
                .unwrap_or_default()
                .to_ascii_uppercase();
            w = w.saturating_sub(1);
        }
        if w >= i && is_kw(words.get(w), "WITH") {
            check = Some(kind);
            end = w;
        }
    }
    let Some(first) = words.get(i) else {
        return Err(err_at(i));
    };
    let a = byte_offset(text, first.span.start);
    let b = match words.get(end) {
        Some(t) => byte_offset(text, t.span.start),
        None => text.len(),
    };
    let sub_text = text.get(a..b).unwrap_or_default();
    let sub_original = if original.len() == text.len() {
        original.get(a..b).unwrap_or(sub_text)
    } else {
        sub_text
    };
    let query = match parse_one(sub_text, sub_original)? {
        Statement::Sql(s) => match *s {
            ast::Statement::Query(q) => q,
            _ => return Err(err_at(i)),
        },
        _ => return Err(err_at(i)),
    };
    Ok(Statement::View(Box::new(ViewStatement {
        alter,
        or_replace,
        if_not_exists,
        algorithm,
        definer,
        security,
        name,
        columns,
        query,
        select_text: sub_text.trim().to_string(),
        check,
    })))
}
