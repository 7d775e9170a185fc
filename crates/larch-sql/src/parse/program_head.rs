//! The parts of stored-program statements that routines and triggers
//! share: `CREATE [OR REPLACE] [DEFINER = user]` ([`create_head`]), `IF NOT
//! EXISTS` after the object keyword (1221 with OR REPLACE), the `LIKE
//! 'pattern' | WHERE expr` of their SHOW statements, and the end of a
//! statement (an optional `;`, then nothing).

use sqlparser::ast;
use sqlparser::tokenizer::Token;

use super::routine_cursor::Cursor;
use super::Statement;
use crate::error::SqlError;

/// `CREATE [OR REPLACE] [DEFINER = user]`: `(or_replace, definer)`, the
/// definer `None` for the current user.
pub(crate) fn create_head(c: &mut Cursor) -> Result<(bool, Option<(String, String)>), SqlError> {
    c.expect_kw("CREATE")?;
    let or_replace = c.eat_seq(&["OR", "REPLACE"]);
    let mut definer = None;
    if c.eat("DEFINER") {
        c.expect_token(&Token::Eq)?;
        definer = definer_of(c)?;
    }
    Ok((or_replace, definer))
}

/// `[IF NOT EXISTS]` (1221 together with OR REPLACE).
pub(crate) fn if_not_exists(c: &mut Cursor, or_replace: bool) -> Result<bool, SqlError> {
    let if_not_exists = c.eat_seq(&["IF", "NOT", "EXISTS"]);
    if or_replace && if_not_exists {
        return Err(SqlError::new(
            1221,
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    Ok(if_not_exists)
}

/// A SHOW statement's `LIKE 'pattern'` or `WHERE expr`.
pub(crate) type LikeOrWhere = (Option<String>, Option<Box<ast::Expr>>);

/// `[LIKE 'pattern' | WHERE expr]`.
pub(crate) fn like_or_where(c: &mut Cursor) -> Result<LikeOrWhere, SqlError> {
    let (mut like, mut filter) = (None, None);
    if c.eat("LIKE") {
        like = Some(c.string()?);
    } else if c.eat("WHERE") {
        filter = Some(Box::new(c.expr()?));
    }
    Ok((like, filter))
}

/// The statement `r` as `wrap` makes it when only an optional `;` follows.
pub(crate) fn finish<T>(
    c: &mut Cursor,
    r: Result<T, SqlError>,
    wrap: impl FnOnce(T) -> Statement,
) -> Result<Statement, SqlError> {
    r.and_then(|s| {
        c.eat_token(&Token::SemiColon);
        if c.at_end() {
            Ok(wrap(s))
        } else {
            Err(c.error())
        }
    })
}

/// `user@host`, `'user'@'host'`, `CURRENT_USER[()]`.
fn definer_of(c: &mut Cursor) -> Result<Option<(String, String)>, SqlError> {
    if c.eat("CURRENT_USER") {
        if c.eat_token(&Token::LParen) {
            c.expect_token(&Token::RParen)?;
        }
        return Ok(None);
    }
    let part = |c: &mut Cursor| -> Result<String, SqlError> {
        match c.peek() {
            Some(Token::Word(w)) => {
                let v = w.value.clone();
                c.i += 1;
                Ok(v)
            }
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                let v = s.clone();
                c.i += 1;
                Ok(v)
            }
            _ => Err(c.error()),
        }
    };
    let user = part(c)?;
    // The tokenizer reads `root@localhost` as one word and `@'h'` as a word.
    if let Some((u, h)) = user.split_once('@') {
        // `user@'host'`: the word ends at `@`, the host is the next token.
        if h.is_empty() {
            if let Some(Token::SingleQuotedString(h) | Token::DoubleQuotedString(h)) = c.peek() {
                let h = h.clone();
                c.i += 1;
                return Ok(Some((unquote(u), h)));
            }
        }
        return Ok(Some((unquote(u), unquote(h))));
    }
    match c.peek() {
        Some(Token::Word(w)) if w.value.starts_with('@') => {
            let h = unquote(&w.value[1..]);
            c.i += 1;
            if h.is_empty() {
                // `@` alone: the host is the next token.
                return Ok(Some((user, part(c)?)));
            }
            Ok(Some((user, h)))
        }
        Some(Token::AtSign) => {
            c.i += 1;
            let h = part(c)?;
            Ok(Some((user, h)))
        }
        _ => Ok(Some((user, "%".into()))),
    }
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    s.strip_prefix(['`', '\'', '"'])
        .and_then(|x| x.strip_suffix(['`', '\'', '"']))
        .unwrap_or(s)
        .to_string()
}
