//! `LOCK TABLE[S] t [[AS] alias] lock_type, ...` with MySQL's lock types
//! (`READ [LOCAL]`, `[LOW_PRIORITY] WRITE`) and qualified names (`db.t`),
//! which sqlparser's MySqlDialect does not take. `UNLOCK TABLES` stays
//! sqlparser's.

use sqlparser::ast::{Ident, ObjectName};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use super::Statement;

/// The lock one table of LOCK TABLES asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    /// `READ`: other sessions may read, not write.
    Read,
    /// `READ LOCAL`: other sessions may read and write (InnoDB).
    ReadLocal,
    /// `[LOW_PRIORITY] WRITE`: other sessions may neither read nor write.
    Write,
}

/// One table of LOCK TABLES.
#[derive(Debug, Clone, PartialEq)]
pub struct LockTableItem {
    pub name: ObjectName,
    pub alias: Option<Ident>,
    pub kind: LockKind,
}

fn is_word(p: &Parser, n: usize, w: &str) -> bool {
    matches!(&p.peek_nth_token(n).token,
        Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

fn take_word(p: &mut Parser, w: &str) -> bool {
    let yes = is_word(p, 0, w);
    if yes {
        p.next_token();
    }
    yes
}

fn lock_kind(p: &mut Parser) -> Result<LockKind, ParserError> {
    if take_word(p, "READ") {
        return Ok(if take_word(p, "LOCAL") {
            LockKind::ReadLocal
        } else {
            LockKind::Read
        });
    }
    take_word(p, "LOW_PRIORITY");
    if take_word(p, "WRITE") {
        return Ok(LockKind::Write);
    }
    p.expected("READ or WRITE", p.peek_token())
}

fn item(p: &mut Parser) -> Result<LockTableItem, ParserError> {
    let name = p.parse_object_name(false)?;
    let explicit_as = take_word(p, "AS");
    let lock_word = ["READ", "WRITE", "LOW_PRIORITY"]
        .iter()
        .any(|w| is_word(p, 0, w));
    let alias = if explicit_as || !lock_word {
        Some(p.parse_identifier()?)
    } else {
        None
    };
    Ok(LockTableItem {
        name,
        alias,
        kind: lock_kind(p)?,
    })
}

/// Parses `LOCK TABLES ...` (the leading words not consumed yet; `LOCK
/// TABLE` was already rewritten to `TABLES`).
pub(super) fn parse(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    p.next_token();
    let items = p.parse_comma_separated(item)?;
    Ok(Statement::LockTables(items))
}
