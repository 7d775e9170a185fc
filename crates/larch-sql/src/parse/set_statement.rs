//! MariaDB's `SET STATEMENT var = value [, var = value ...] FOR statement`:
//! the assignments are parsed as a `SET` (the word STATEMENT blanked out, so
//! error positions stay those of the text as sent) and the statement after
//! the first `FOR` outside parentheses as a statement of its own.

use sqlparser::ast;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{byte_offset, parse_one, Statement};
use crate::error::SqlError;

/// `Some` when `tokens` (of `text`) start with `SET STATEMENT`.
pub(super) fn parse(
    text: &str,
    original: &str,
    tokens: &[TokenWithSpan],
) -> Option<Result<Statement, SqlError>> {
    let mut words = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)));
    let is_word = |t: Option<&TokenWithSpan>, w: &str| matches!(t.map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    if !is_word(words.next(), "SET") {
        return None;
    }
    let statement = words.next()?;
    if !is_word(Some(statement), "STATEMENT") {
        return None;
    }
    Some(parse_parts(text, original, tokens, statement))
}

fn parse_parts(
    text: &str,
    original: &str,
    tokens: &[TokenWithSpan],
    statement: &TokenWithSpan,
) -> Result<Statement, SqlError> {
    let kw_start = byte_offset(text, statement.span.start);
    let kw_end = byte_offset(text, statement.span.end);
    let mut depth = 0i32;
    let mut for_at = None;
    for t in tokens
        .iter()
        .filter(|t| t.span.start > statement.span.start)
    {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w)
                if depth == 0 && w.quote_style.is_none() && w.value.eq_ignore_ascii_case("FOR") =>
            {
                for_at = Some((
                    byte_offset(text, t.span.start),
                    byte_offset(text, t.span.end),
                ));
                break;
            }
            _ => {}
        }
    }
    let set_end = for_at.map_or(text.len(), |(start, _)| start);
    let same = original.len() == text.len();
    let mut set_text = String::with_capacity(set_end);
    set_text.push_str(&text[..kw_start]);
    set_text.extend(std::iter::repeat_n(' ', kw_end - kw_start));
    set_text.push_str(&text[kw_end..set_end]);
    let set_original = if same {
        &original[..set_end]
    } else {
        &set_text
    };
    let set = match parse_one(&set_text, set_original) {
        Ok(Statement::Sql(s)) => match *s {
            ast::Statement::Set(set) if assignments_ok(&set) => set,
            _ => return Err(near(&text[kw_end..])),
        },
        Ok(_) => return Err(near(&text[kw_end..])),
        Err(SqlError::Syntax { near: n, .. }) if n.is_empty() => {
            return Err(near(&text[set_end..]))
        }
        Err(e) => return Err(e),
    };
    let Some((_, for_end)) = for_at else {
        return Err(near(""));
    };
    let inner_text = &text[for_end..];
    let inner_original = if same {
        &original[for_end..]
    } else {
        inner_text
    };
    let inner = parse_one(inner_text, inner_original)?;
    Ok(Statement::SetStatement {
        set: Box::new(set),
        inner: Box::new(inner),
    })
}

/// Only session variables, without a scope word: `GLOBAL x`, `@@global.x`
/// and `@user` variables are syntax errors.
fn assignments_ok(set: &ast::Set) -> bool {
    let ok = |scope: &Option<ast::ContextModifier>, name: &ast::ObjectName| {
        let first = name
            .0
            .first()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.to_ascii_lowercase())
            .unwrap_or_default();
        let user_var = first.starts_with('@') && !first.starts_with("@@");
        let global = first.starts_with("@@global");
        scope.is_none() && !user_var && !global
    };
    match set {
        ast::Set::SingleAssignment {
            scope,
            hivevar: false,
            variable,
            values,
        } => values.len() == 1 && ok(scope, variable),
        ast::Set::MultipleAssignments { assignments } => {
            assignments.iter().all(|a| ok(&a.scope, &a.name))
        }
        _ => false,
    }
}

/// A syntax error near `rest` (cut to 80 bytes as MariaDB does).
fn near(rest: &str) -> SqlError {
    SqlError::Syntax {
        near: super::near_text(rest.trim()),
        line: 1,
    }
}
