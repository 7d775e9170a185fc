//! `ALTER [ONLINE] TABLE [IF EXISTS] name op, ...`, parsed operation by
//! operation: the operations are cut at top-level commas, each is rewritten
//! when MySQL/MariaDB syntax lacks in sqlparser has an equivalent, and parsed
//! by sqlparser's own `parse_alter_table_operation` on its tokens (spans
//! kept, so error positions are those of the statement). What sqlparser has
//! no AST for becomes an [`AlterOp`] of Larch's own:
//!
//! - `DROP KEY k` is `DROP INDEX k`; `ADD [COLUMN] IF NOT EXISTS` sets the
//!   flag sqlparser's MySQL parsing drops; `ADD [COLUMN] [IF NOT EXISTS]
//!   (a INT, b INT, INDEX (a))` is one ADD per element; `RENAME name` is
//!   `RENAME TO name`;
//! - `DROP INDEX|KEY|FOREIGN KEY IF EXISTS`, `MODIFY|CHANGE [COLUMN] IF
//!   EXISTS` ([`AlterOp::IfExists`]) and `ADD [CONSTRAINT [c]] {INDEX | KEY |
//!   UNIQUE | FULLTEXT | SPATIAL | FOREIGN KEY} IF NOT EXISTS`
//!   ([`AlterOp::IfNotExists`]);
//! - `RENAME INDEX|KEY a TO b`, table options (`ENGINE`, `[DEFAULT] CHARSET`,
//!   `COLLATE`, `COMMENT`, `ROW_FORMAT`, MariaDB's `PAGE_CHECKSUM`, ...),
//!   `CONVERT TO CHARACTER SET cs [COLLATE c]` and `FORCE`.
//!
//! The statement stays a sqlparser `AlterTable` when every operation has a
//! sqlparser AST, is `Statement::AlterTableEngine` when it is only `ENGINE=x`,
//! and is [`Statement::AlterTable`] otherwise.

use sqlparser::ast::{self, AlterTableOperation, Ident, ObjectName, SqlOption};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Span, Token, TokenWithSpan};

use super::attrs::{mariadb_option, upper};
use super::Statement;

static DIALECT: super::dialect::LarchDialect = super::dialect::LarchDialect::MYSQL;

/// An ALTER TABLE with operations sqlparser has no AST for.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterTable {
    pub name: ObjectName,
    /// `ALTER TABLE IF EXISTS`.
    pub if_exists: bool,
    /// In statement order.
    pub operations: Vec<AlterOp>,
}

/// One operation of [`AlterTable`].
#[derive(Debug, Clone, PartialEq)]
pub enum AlterOp {
    /// An operation with a sqlparser AST: runs as in a sqlparser ALTER TABLE.
    Sql(AlterTableOperation),
    /// `IF EXISTS` where sqlparser's AST has no flag: `DropIndex` (DROP
    /// INDEX|KEY), `DropForeignKey`, `ModifyColumn`, `ChangeColumn`. When the
    /// index / foreign key / column does not exist, the operation is skipped
    /// with a note (1091 for DROP, 1054 for MODIFY/CHANGE) instead of failing.
    IfExists(AlterTableOperation),
    /// `IF NOT EXISTS` on an `AddConstraint` (an index, unique key, fulltext,
    /// spatial or foreign key): skipped with note 1061 (duplicate key name)
    /// when a key of that name exists.
    IfNotExists(AlterTableOperation),
    /// `RENAME INDEX|KEY old TO new` (1176 when `old` does not exist, 1061 when
    /// `new` does).
    RenameIndex { old: Ident, new: Ident },
    /// Table options, in the form CREATE TABLE's `table_options` holds them:
    /// `ENGINE` as `NamedParenthesizedList`, `COMMENT` as `SqlOption::Comment`,
    /// the others (`[DEFAULT] CHARSET`/`CHARACTER SET`, `[DEFAULT] COLLATE`,
    /// `ROW_FORMAT`, `AUTO_INCREMENT` after another option, MariaDB's
    /// `PAGE_CHECKSUM`, ...) as `KeyValue`.
    Options(Vec<SqlOption>),
    /// `CONVERT TO CHARACTER SET cs [COLLATE c]` (`charset` is `None` for
    /// DEFAULT, the database's): every character column gets `cs`.
    ConvertTo {
        charset: Option<String>,
        collate: Option<String>,
    },
    /// `FORCE`: a rebuild.
    Force,
}

/// First words of a table option (besides `DEFAULT CHARSET|CHARACTER|COLLATE`,
/// `DATA|INDEX DIRECTORY` and MariaDB's options).
const OPTION_WORDS: [&str; 23] = [
    "ENGINE",
    "CHARSET",
    "CHARACTER",
    "COLLATE",
    "COMMENT",
    "ROW_FORMAT",
    "KEY_BLOCK_SIZE",
    "PACK_KEYS",
    "STATS_AUTO_RECALC",
    "STATS_PERSISTENT",
    "STATS_SAMPLE_PAGES",
    "CHECKSUM",
    "DELAY_KEY_WRITE",
    "MAX_ROWS",
    "MIN_ROWS",
    "AVG_ROW_LENGTH",
    "INSERT_METHOD",
    "COMPRESSION",
    "ENCRYPTION",
    "TABLESPACE",
    "CONNECTION",
    "PASSWORD",
    "UNION",
];

/// Words that start a key or constraint after ADD.
const CONSTRAINT_WORDS: [&str; 9] = [
    "INDEX",
    "KEY",
    "UNIQUE",
    "PRIMARY",
    "FULLTEXT",
    "SPATIAL",
    "CONSTRAINT",
    "FOREIGN",
    "CHECK",
];

/// Parses an `ALTER [ONLINE] TABLE` statement (the parser is at ALTER).
pub(super) fn parse(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    if upper(Some(&p.peek_token())).as_deref() == Some("ONLINE") {
        p.next_token();
    }
    p.expect_keyword(Keyword::TABLE)?;
    let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = p.parse_object_name(false)?;
    let mut toks = Vec::new();
    let end = loop {
        let t = p.peek_token();
        if matches!(t.token, Token::EOF | Token::SemiColon) {
            break t.span;
        }
        p.next_token();
        toks.push(t);
    };
    let mut ops = Vec::new();
    if !toks.is_empty() {
        for (slice, end) in split(&toks, end) {
            ops.extend(operation(slice, end)?);
        }
    }
    Ok(build(name, if_exists, ops))
}

/// The statement for parsed operations (see module docs).
fn build(name: ObjectName, if_exists: bool, ops: Vec<AlterOp>) -> Statement {
    if let [AlterOp::Options(o)] = ops.as_slice() {
        if let [SqlOption::NamedParenthesizedList(l)] = o.as_slice() {
            if let Some(engine) = l.name.as_ref().filter(|_| {
                !if_exists && l.values.is_empty() && l.key.value.eq_ignore_ascii_case("ENGINE")
            }) {
                return Statement::AlterTableEngine {
                    table: name,
                    engine: engine.value.clone(),
                };
            }
        }
    }
    let sql: Vec<AlterTableOperation> = ops
        .iter()
        .filter_map(|o| match o {
            AlterOp::Sql(x) => Some(x.clone()),
            _ => None,
        })
        .collect();
    if sql.len() == ops.len() {
        let at = ast::AlterTable {
            name,
            if_exists,
            only: false,
            operations: sql,
            location: None,
            on_cluster: None,
            table_type: None,
            end_token: ast::helpers::attached_token::AttachedToken::empty(),
        };
        return Statement::Sql(Box::new(at.into()));
    }
    Statement::AlterTable(Box::new(AlterTable {
        name,
        if_exists,
        operations: ops,
    }))
}

/// Cuts `toks` at top-level commas; each piece comes with the span of what
/// ends it (the comma, or `end`).
fn split(toks: &[TokenWithSpan], end: Span) -> Vec<(&[TokenWithSpan], Span)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (k, t) in toks.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                out.push((&toks[start..k], t.span));
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push((&toks[start..], end));
    out
}

/// Index of the `)` matching the `(` at `open`.
pub(super) fn matching_paren(toks: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// A parser over `slice`, ended by an EOF token at `end`.
fn sub(slice: &[TokenWithSpan], end: Span) -> Parser<'static> {
    let mut v = Vec::with_capacity(slice.len() + 1);
    v.extend_from_slice(slice);
    v.push(TokenWithSpan {
        token: Token::EOF,
        span: end,
    });
    Parser::new(&DIALECT)
        .with_recursion_limit(super::RECURSION_LIMIT)
        .with_tokens_with_locations(v)
}

fn expect_end(p: &mut Parser) -> Result<(), ParserError> {
    if p.peek_token_ref().token == Token::EOF {
        Ok(())
    } else {
        p.expected(", or end of statement", p.peek_token())
    }
}

/// sqlparser's parse of one operation.
fn sub_op(slice: &[TokenWithSpan], end: Span) -> Result<AlterTableOperation, ParserError> {
    let mut p = sub(slice, end);
    let op = p.parse_alter_table_operation()?;
    expect_end(&mut p)?;
    Ok(op)
}

fn with_word(at: &TokenWithSpan, w: &str) -> TokenWithSpan {
    TokenWithSpan {
        token: Token::make_word(w, None),
        span: at.span,
    }
}

/// Removes `words` found at `at`; true when they were there.
fn strip(t: &mut Vec<TokenWithSpan>, at: usize, words: &[&str]) -> bool {
    let found = words
        .iter()
        .enumerate()
        .all(|(k, w)| upper(t.get(at + k)).as_deref() == Some(*w));
    if found {
        t.drain(at..at + words.len());
    }
    found
}

/// sqlparser's parse of `t`, wrapped by `wrap` when `guarded`.
fn guarded(
    t: &[TokenWithSpan],
    end: Span,
    guarded: bool,
    wrap: fn(AlterTableOperation) -> AlterOp,
) -> Result<Vec<AlterOp>, ParserError> {
    let op = sub_op(t, end)?;
    Ok(vec![if guarded { wrap(op) } else { AlterOp::Sql(op) }])
}

/// True for `name` or `db.name`.
fn is_bare_name(t: &[TokenWithSpan]) -> bool {
    let w = |k: usize| matches!(t.get(k).map(|x| &x.token), Some(Token::Word(_)));
    match t.len() {
        1 => w(0),
        3 => w(0) && t[1].token == Token::Period && w(2),
        _ => false,
    }
}

/// One operation (more for `ADD (...)`).
fn operation(slice: &[TokenWithSpan], end: Span) -> Result<Vec<AlterOp>, ParserError> {
    let w = |k: usize| upper(slice.get(k));
    let (w0, w1) = (w(0), w(1));
    match (w0.as_deref(), w1.as_deref()) {
        (Some("DROP"), Some("INDEX" | "KEY")) => {
            let mut t = slice.to_vec();
            t[1] = with_word(&t[1], "INDEX");
            let g = strip(&mut t, 2, &["IF", "EXISTS"]);
            guarded(&t, end, g, AlterOp::IfExists)
        }
        (Some("DROP"), Some("FOREIGN")) => {
            let mut t = slice.to_vec();
            let g = strip(&mut t, 3, &["IF", "EXISTS"]);
            guarded(&t, end, g, AlterOp::IfExists)
        }
        (Some("MODIFY" | "CHANGE"), _) => {
            let mut t = slice.to_vec();
            let at = if w1.as_deref() == Some("COLUMN") {
                2
            } else {
                1
            };
            let g = strip(&mut t, at, &["IF", "EXISTS"]);
            guarded(&t, end, g, AlterOp::IfExists)
        }
        (Some("ADD"), _) => add(slice, end),
        (Some("RENAME"), Some("INDEX" | "KEY")) => {
            let mut p = sub(&slice[2..], end);
            let old = p.parse_identifier()?;
            p.expect_keyword(Keyword::TO)?;
            let new = p.parse_identifier()?;
            expect_end(&mut p)?;
            Ok(vec![AlterOp::RenameIndex { old, new }])
        }
        (Some("RENAME"), _)
            if !matches!(w1.as_deref(), Some("TO" | "AS" | "COLUMN"))
                && is_bare_name(&slice[1..]) =>
        {
            let mut t = slice.to_vec();
            t.insert(1, with_word(&slice[1], "TO"));
            Ok(vec![AlterOp::Sql(sub_op(&t, end)?)])
        }
        (Some("CONVERT"), Some("TO")) => convert(slice, end),
        (Some("FORCE"), _) => match slice.get(1) {
            None => Ok(vec![AlterOp::Force]),
            Some(t) => sub(&slice[1..], end).expected(", or end of statement", t.clone()),
        },
        _ if is_options(slice) => options(slice, end),
        _ => Ok(vec![AlterOp::Sql(sub_op(slice, end)?)]),
    }
}

/// `ADD ...`: a column, a key or constraint, or a parenthesized list of them.
fn add(slice: &[TokenWithSpan], end: Span) -> Result<Vec<AlterOp>, ParserError> {
    let mut t = slice.to_vec();
    let k = if upper(t.get(1)).as_deref() == Some("COLUMN") {
        2
    } else {
        1
    };
    let column_if = strip(&mut t, k, &["IF", "NOT", "EXISTS"]);
    if t.get(k).map(|x| &x.token) != Some(&Token::LParen) {
        return Ok(vec![add_one(&t, end, column_if)?]);
    }
    let Some(close) = matching_paren(&t, k) else {
        let p = sub(&[], end);
        return p.expected(")", p.peek_token());
    };
    if let Some(after) = t.get(close + 1) {
        return sub(&t[close + 1..], end).expected(", or end of statement", after.clone());
    }
    let mut ops = Vec::new();
    for (item, item_end) in split(&t[k + 1..close], t[close].span) {
        let mut one = Vec::with_capacity(item.len() + 1);
        one.push(t[0].clone());
        one.extend_from_slice(item);
        ops.push(add_one(&one, item_end, column_if)?);
    }
    Ok(ops)
}

/// `ADD <column definition | key | constraint>` (IF NOT EXISTS of a column
/// already taken out and given as `column_if`).
fn add_one(t: &[TokenWithSpan], end: Span, column_if: bool) -> Result<AlterOp, ParserError> {
    let first = upper(t.get(1)).unwrap_or_default();
    if CONSTRAINT_WORDS.contains(&first.as_str()) {
        let mut t = t.to_vec();
        let stop = t
            .iter()
            .position(|x| x.token == Token::LParen)
            .unwrap_or(t.len());
        let at = (1..stop).find(|&a| {
            ["IF", "NOT", "EXISTS"]
                .iter()
                .enumerate()
                .all(|(j, w)| upper(t.get(a + j)).as_deref() == Some(*w))
        });
        let g = at.is_some_and(|a| strip(&mut t, a, &["IF", "NOT", "EXISTS"]));
        let op = sub_op(&t, end)?;
        return Ok(if g || column_if {
            AlterOp::IfNotExists(op)
        } else {
            AlterOp::Sql(op)
        });
    }
    let mut op = sub_op(t, end)?;
    if let AlterTableOperation::AddColumn { if_not_exists, .. } = &mut op {
        *if_not_exists |= column_if;
    }
    Ok(AlterOp::Sql(op))
}

/// `CONVERT TO {CHARACTER SET | CHARSET} {name | DEFAULT} [COLLATE name]`.
fn convert(slice: &[TokenWithSpan], end: Span) -> Result<Vec<AlterOp>, ParserError> {
    let mut p = sub(&slice[2..], end);
    if !p.parse_keywords(&[Keyword::CHARACTER, Keyword::SET]) {
        p.expect_keyword(Keyword::CHARSET)?;
    }
    let charset = if p.parse_keyword(Keyword::DEFAULT) {
        None
    } else {
        Some(name_or_string(&mut p)?)
    };
    let collate = if p.parse_keyword(Keyword::COLLATE) {
        Some(name_or_string(&mut p)?)
    } else {
        None
    };
    expect_end(&mut p)?;
    Ok(vec![AlterOp::ConvertTo { charset, collate }])
}

fn name_or_string(p: &mut Parser) -> Result<String, ParserError> {
    let t = p.next_token();
    match t.token {
        Token::Word(w) => Ok(w.value),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
        _ => p.expected("a character set or collation name", t),
    }
}

/// True when `slice` is table options (an `AUTO_INCREMENT [=] n` alone is
/// sqlparser's operation).
fn is_options(slice: &[TokenWithSpan]) -> bool {
    let w1 = upper(slice.get(1));
    match upper(slice.first()).as_deref() {
        Some("DEFAULT") => matches!(w1.as_deref(), Some("CHARSET" | "CHARACTER" | "COLLATE")),
        Some("DATA" | "INDEX") => w1.as_deref() == Some("DIRECTORY"),
        Some("AUTO_INCREMENT") => slice.len() > 3,
        Some(w) if OPTION_WORDS.contains(&w) => true,
        _ => mariadb_option(slice, 0).is_some(),
    }
}

/// Table options, separated by blanks or nothing.
fn options(slice: &[TokenWithSpan], end: Span) -> Result<Vec<AlterOp>, ParserError> {
    let mut t = slice.to_vec();
    let mut extra = Vec::new();
    let mut k = 0;
    while k < t.len() {
        let key_position = k == 0 || t[k - 1].token != Token::Eq;
        match mariadb_option(&t, k).filter(|_| key_position) {
            Some((o, n)) => {
                extra.push(o);
                t.drain(k..k + n);
            }
            None => {
                // ENGINE [=] 'name' is ENGINE [=] name.
                if let Token::SingleQuotedString(s) = &t[k].token {
                    let engine_before = |j: usize| upper(t.get(j)).as_deref() == Some("ENGINE");
                    if (k >= 1 && engine_before(k - 1))
                        || (k >= 2 && t[k - 1].token == Token::Eq && engine_before(k - 2))
                    {
                        t[k] = with_word(&t[k], &s.clone());
                    }
                }
                k += 1;
            }
        }
    }
    let mut p = sub(&t, end);
    let mut opts = p.parse_plain_options()?;
    expect_end(&mut p)?;
    opts.append(&mut extra);
    Ok(vec![AlterOp::Options(opts)])
}
