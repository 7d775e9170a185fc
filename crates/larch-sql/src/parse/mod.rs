//! Statement parsing: query text in, [`Statement`]s out, syntax errors as
//! MySQL's 1064.
//!
//! `sqlparser`'s `MySqlDialect` does most of the work. [`parse`] first splits the
//! text into statements and resolves comments ([`split`]), then tokenizes each
//! statement with sqlparser's tokenizer, applies a few token rewrites for MySQL
//! syntax sqlparser lacks, lets Larch's own small parser ([`extra`]) take the
//! statements sqlparser cannot parse, and hands the rest to sqlparser.
//!
//! Gaps of sqlparser 0.63 (MySqlDialect), checked against every statement kind
//! the SQL layer must accept, and how they are closed:
//! - token rewrites: `SELECT ... LOCK IN SHARE MODE` (becomes `FOR SHARE`), the
//!   infix `MOD` operator (becomes `%`), compound interval units such as
//!   `INTERVAL '1:2' HOUR_MINUTE` (become `HOUR TO MINUTE`), multi-table
//!   `UPDATE t1, t2 SET ...` (the comma join becomes `CROSS JOIN`), `EXPLAIN
//!   EXTENDED|PARTITIONS` (the word is dropped), `CREATE|DROP SCHEMA` (becomes
//!   `DATABASE`: sqlparser's SCHEMA is PostgreSQL's), `DESC[RIBE] t col|'pat'`
//!   (becomes `SHOW COLUMNS FROM t LIKE 'col'`, as MySQL runs it), `UPDATE
//!   IGNORE` (becomes SQLite's `UPDATE OR IGNORE`), `LOCK |
//!   UNLOCK TABLE` (becomes `TABLES`), a column's `CHARSET x` in CREATE
//!   TABLE (becomes `CHARACTER SET x`), `SET @a := 1` (becomes `=`; other
//!   `:=` are assignment expressions), `x REGEXP NULL` (becomes `REGEXP
//!   (NULL)`: sqlparser reads the NULL as in `NOT NULL`), a generated
//!   column's `AS (expr) PERSISTENT` (becomes `STORED`);
//! - `X'...'` literals in expressions become `_binary X'...'`: a binary
//!   string, where `0x...` is a hexadecimal number ([`hex_strings`]);
//! - result column names: unaliased items of the first SELECT are named by
//!   their text as written ([`names`]);
//! - column attributes and table options of CREATE/ALTER TABLE ([`attrs`]):
//!   `ZEROFILL` (implies UNSIGNED; becomes `ColumnOption::DialectSpecific`
//!   `[ZEROFILL]`, the form sqlparser gives AUTO_INCREMENT), `SIGNED`,
//!   UNSIGNED after NUMERIC/FIXED/INT1..INT8/MIDDLEINT/FLOAT4/FLOAT8 (renamed
//!   to their standard types), the string attribute `BINARY` (becomes
//!   `DialectSpecific [BINARY]`: the `_bin` collation of the column's
//!   character set), `ASCII` / `UNICODE` (`CHARACTER SET latin1 | ucs2`), and
//!   MariaDB's table options `PAGE_CHECKSUM`, `TRANSACTIONAL`,
//!   `PAGE_COMPRESSED`, ... and back-quoted engine-defined ones (`KeyValue`
//!   table options);
//! - ALTER TABLE ([`alter`], operation by operation on sqlparser's operation
//!   parser): `DROP KEY`, `ADD [COLUMN] IF NOT EXISTS` (sqlparser drops the
//!   flag for MySQL), `ADD [COLUMN] (a INT, b INT, ...)`, `RENAME name`
//!   (without TO) and `ALTER ONLINE TABLE` stay sqlparser ASTs; `DROP
//!   INDEX|KEY|FOREIGN KEY IF EXISTS`, `MODIFY|CHANGE IF EXISTS`, `ADD
//!   INDEX|KEY|UNIQUE|FOREIGN KEY|CONSTRAINT ... IF NOT EXISTS`, `RENAME
//!   INDEX|KEY a TO b`, table options (`COMMENT`, `[DEFAULT] CHARSET`,
//!   `COLLATE`, `ROW_FORMAT`, `ENGINE` with other operations, ...), `CONVERT
//!   TO CHARACTER SET` and `FORCE` make a [`Statement::AlterTable`];
//! - Larch's own statements ([`Statement`] variants other than `Sql`):
//!   `START TRANSACTION [READ ONLY | READ WRITE | WITH CONSISTENT SNAPSHOT]`
//!   (and `BEGIN [WORK]`, so one variant covers both), `ALTER TABLE t
//!   DISABLE|ENABLE KEYS`, `ALTER TABLE t ENGINE=x`, the ALTER TABLE above,
//!   `CREATE FULLTEXT INDEX`, `ANALYZE|CHECK|OPTIMIZE|REPAIR TABLE t, ...`,
//!   `LOAD DATA [LOCAL] INFILE`, `SHOW ENGINE x STATUS|MUTEX`, `SHOW
//!   [COUNT(*)] WARNINGS|ERRORS [LIMIT]` (sqlparser drops the count and
//!   limit), `SHOW CREATE DATABASE`, `SET CHARACTER SET | CHARSET`, `DO
//!   expr`, `SHUTDOWN`, `LOCK TABLES` with qualified names ([`lock_tables`]),
//!   `SET STATEMENT ... FOR statement`
//!   ([`set_statement`]), `CREATE [OR REPLACE] ... VIEW` and `ALTER ... VIEW`
//!   with MariaDB's options and `WITH [CASCADED|LOCAL] CHECK OPTION` ([`view`]),
//!   account and privilege statements ([`account`]), `PREPARE` / `EXECUTE
//!   [IMMEDIATE]` / `DEALLOCATE PREPARE` ([`sql_prepared`]), and `SELECT ...
//!   INTO @vars | OUTFILE | DUMPFILE` ([`select_into`], cut out of the tokens
//!   before sqlparser).
//!
//! What sqlparser parses and Larch keeps as is: all sysbench statements, DDL
//! (CREATE/DROP DATABASE, CREATE TABLE with every column type, FULLTEXT KEY and
//! table options, CREATE TABLE LIKE, DROP TABLE, RENAME TABLE, TRUNCATE,
//! CREATE/DROP INDEX, ALTER TABLE ADD/DROP/MODIFY/CHANGE/RENAME), DML (INSERT
//! multi-row / SELECT / ON DUPLICATE KEY UPDATE / IGNORE / SET, REPLACE, UPDATE
//! and DELETE with ORDER BY/LIMIT, multi-table UPDATE with JOIN and DELETE),
//! SELECT (joins, subqueries, UNION, FOR UPDATE/SHARE), BEGIN/COMMIT/ROLLBACK,
//! SAVEPOINT, ROLLBACK TO, RELEASE, SET (variables, NAMES, TRANSACTION),
//! USE, SHOW (DATABASES, TABLES, COLUMNS, INDEX, CREATE TABLE, VARIABLES,
//! STATUS, ENGINES, PROCESSLIST), UNLOCK TABLES, EXPLAIN, KILL [QUERY |
//! CONNECTION], FLUSH, and mysqldump's executable comments.
//!
//! Known leftovers: the infix `MOD` rewrite looks only at the previous token,
//! so `year MOD 4` with a keyword-named column must be written `` `year` MOD 4 ``;
//! `ALTER IGNORE TABLE` and `ALTER TABLE
//! ... ORDER BY` are not parsed. Of mariadb-dump's output, what Larch has no
//! feature for does not parse: `PARTITION BY`, `WITH SYSTEM VERSIONING` and
//! `AS ROW START|END` columns, MariaDB's `CREATE SEQUENCE` options,
//! triggers and events, and
//! `--compatible=ansi` dumps (double-quoted identifiers).
//!
//! Syntax errors: the position sqlparser reports becomes MySQL's "near '...'"
//! text (the rest of the statement from the offending token, at most 80 bytes:
//! longer text is cut to 77 bytes and "...") and the line counted from the
//! statement's first non-blank character. Repeated texts can skip all of this
//! through [`StatementCache`].

pub mod account;
mod alter;
mod attrs;
mod cache;
mod clauses;
mod compound;
pub mod depth;
pub mod dialect;
mod extra;
mod hex_strings;
mod join_commas;
mod lock_tables;
mod names;
mod print;
mod program_head;
mod raw_bytes;
mod rewrite;
pub mod routine;
pub mod routine_ast;
pub mod routine_body;
pub(crate) mod routine_cursor;
pub mod select_into;
mod set_statement;
pub mod split;
mod sql_prepared;
#[cfg(test)]
mod tests;
pub mod trigger;
mod view;

pub(crate) use print::sql_text;
use raw_bytes::invalid_identifier;
pub use raw_bytes::{bytes_to_text, is_raw_byte, raw_bytes};

use sqlparser::ast;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, Tokenizer};

pub use alter::{AlterOp, AlterTable};
pub use attrs::CTAS_DUPLICATES;
pub use cache::StatementCache;
pub use extra::{FileFormat, LoadData, LoadDuplicates, MaintenanceOp, ShowEngineKind};
pub use lock_tables::{LockKind, LockTableItem};
pub use select_into::IntoTarget;
pub use view::ViewStatement;

use crate::error::SqlError;

/// How deeply sqlparser may recurse (its parser grows its stack on the
/// heap, so this only bounds the work): beyond it, 1436 as MariaDB gives for
/// statements that nest too deeply. The statement's nesting is bounded more
/// tightly afterwards ([`depth`]).
const RECURSION_LIMIT: usize = 4_000;

/// One parsed statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// A statement sqlparser parsed (after Larch's token rewrites).
    Sql(Box<ast::Statement>),
    /// `BEGIN [WORK]` / `START TRANSACTION [modes]`.
    StartTransaction {
        /// `Some(true)` for READ ONLY, `Some(false)` for READ WRITE.
        read_only: Option<bool>,
        /// WITH CONSISTENT SNAPSHOT.
        consistent_snapshot: bool,
    },
    /// `ALTER TABLE t DISABLE KEYS` / `ENABLE KEYS` (no-ops, as for InnoDB).
    AlterTableKeys {
        table: ast::ObjectName,
        enable: bool,
    },
    /// `ALTER TABLE t ENGINE [=] name` alone (a table rebuild).
    AlterTableEngine {
        table: ast::ObjectName,
        engine: String,
    },
    /// `ALTER [ONLINE] TABLE` with an operation sqlparser has no AST for
    /// (table options, `CONVERT TO CHARACTER SET`, `FORCE`, `RENAME INDEX`,
    /// MariaDB's `IF [NOT] EXISTS` on keys and MODIFY/CHANGE): see
    /// [`AlterOp`]. Operations that have one are [`AlterOp::Sql`].
    AlterTable(Box<AlterTable>),
    /// `CREATE FULLTEXT INDEX name ON t (columns)`.
    CreateFulltextIndex {
        name: ast::Ident,
        table: ast::ObjectName,
        columns: Vec<ast::Ident>,
    },
    /// `ANALYZE | CHECK | OPTIMIZE | REPAIR TABLE t, ...`.
    TableMaintenance {
        op: MaintenanceOp,
        tables: Vec<ast::ObjectName>,
    },
    /// `LOAD DATA [LOCAL] INFILE ...`.
    LoadData(Box<LoadData>),
    /// `SHOW ENGINE name STATUS | MUTEX`.
    ShowEngine {
        engine: String,
        kind: ShowEngineKind,
    },
    /// `SHOW [COUNT(*)] WARNINGS | ERRORS [LIMIT [offset,] count]`.
    ShowWarnings {
        errors: bool,
        count_only: bool,
        /// `(offset, row count)`.
        limit: Option<(u64, u64)>,
    },
    /// `SHOW CREATE DATABASE | SCHEMA [IF NOT EXISTS] name`.
    ShowCreateDatabase {
        name: ast::Ident,
        if_not_exists: bool,
    },
    /// `SET GLOBAL | SESSION TRANSACTION modes` (without a scope, sqlparser's
    /// `SET TRANSACTION` applies to the next transaction only).
    SetTransaction {
        global: bool,
        modes: Vec<ast::TransactionMode>,
    },
    /// `SET CHARACTER SET name | DEFAULT` (`None` for DEFAULT).
    SetCharset { charset: Option<String> },
    /// `DO expr, ...`.
    Do(Vec<ast::Expr>),
    /// `SHUTDOWN`.
    Shutdown,
    /// `KILL [HARD | SOFT] [CONNECTION | QUERY] expr` (sqlparser takes
    /// only a number where MariaDB takes any expression).
    Kill { query_only: bool, id: ast::Expr },
    /// `LOCK TABLE[S] t [[AS] alias] READ [LOCAL] | [LOW_PRIORITY] WRITE, ...`.
    LockTables(Vec<LockTableItem>),
    /// `CREATE [OR REPLACE] ... VIEW` / `ALTER ... VIEW` ([`view`]).
    View(Box<ViewStatement>),
    /// `SET STATEMENT var = value, ... FOR statement` (session variables
    /// set for one statement and restored after it).
    SetStatement {
        set: Box<ast::Set>,
        inner: Box<Statement>,
    },
    /// Accounts and privileges: CREATE/ALTER/DROP/RENAME USER, SET
    /// PASSWORD, GRANT, REVOKE, SHOW GRANTS ([`account`]).
    Account(Box<account::AccountStatement>),
    /// `PREPARE name FROM expr` (lower-case name).
    Prepare { name: String, source: ast::Expr },
    /// `EXECUTE name [USING expr, ...]`.
    Execute { name: String, using: Vec<ast::Expr> },
    /// `EXECUTE IMMEDIATE expr [USING expr, ...]`.
    ExecuteImmediate {
        source: ast::Expr,
        using: Vec<ast::Expr>,
    },
    /// `{DEALLOCATE | DROP} PREPARE name`.
    Deallocate { name: String },
    /// `SELECT ... INTO @vars | OUTFILE 'f' | DUMPFILE 'f'` ([`select_into`]).
    SelectInto {
        query: Box<ast::Query>,
        into: Box<IntoTarget>,
    },
    /// Stored procedures and functions: CREATE, DROP, ALTER, CALL, SHOW
    /// ([`routine`]).
    Routine(Box<routine::RoutineStatement>),
    /// Triggers: CREATE, DROP, SHOW ([`trigger`]).
    Trigger(Box<trigger::TriggerStatement>),
}

/// A statement with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedStatement {
    /// Shared: a cached parse is handed out without copying the tree.
    pub statement: std::sync::Arc<Statement>,
    /// The statement's text as sent (comments included, no trailing `;`).
    pub text: String,
}

/// Parses a query text that may hold several statements. An empty query (only
/// blanks and comments) is error 1065.
pub fn parse(sql: &str) -> Result<Vec<Statement>, SqlError> {
    Ok(parse_with_text(sql)?
        .into_iter()
        .map(|p| std::sync::Arc::try_unwrap(p.statement).unwrap_or_else(|a| (*a).clone()))
        .collect())
}

/// Parses a query given as bytes (COM_QUERY). Bytes that are not UTF-8, as
/// mysqldump writes BLOB data inside string literals, are carried through the
/// parser as private-use characters (U+10FF00 + byte); [`raw_bytes`] turns a
/// literal holding them back into the original bytes.
pub fn parse_bytes(sql: &[u8]) -> Result<Vec<Statement>, SqlError> {
    match std::str::from_utf8(sql) {
        Ok(s) => parse(s),
        Err(_) => parse(&bytes_to_text(sql)),
    }
}

/// Like [`parse`], keeping each statement's original text (for the process
/// list, the slow log and error messages).
pub fn parse_with_text(sql: &str) -> Result<Vec<ParsedStatement>, SqlError> {
    let pieces = split::split_statements(sql);
    if pieces.is_empty() {
        return Err(SqlError::empty_query());
    }
    let mut out = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let original = &sql[piece.start..piece.start + piece.text.len()];
        let statement = parse_one(&piece.text, original)?;
        out.push(ParsedStatement {
            statement: std::sync::Arc::new(statement),
            text: original.trim().to_string(),
        });
    }
    Ok(out)
}

/// Where a text to parse comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A client, a stored definition or anything else a user wrote: names
    /// holding [`INTERNAL_NAME_MARK`] are refused.
    User,
    /// A text the planner built itself (a correlated subquery's template),
    /// which may hold internal names.
    Planner,
}

/// The character that starts every name the SQL layer makes for its own
/// use (correlated-subquery markers, aggregate slots, `VALUES()` slots).
/// No statement from outside may spell it in an identifier ([`Origin`]),
/// so no user-written name can reach an internal path.
pub const INTERNAL_NAME_MARK: char = '\u{1}';

/// A syntax error at the first identifier of `tokens` that holds
/// [`INTERNAL_NAME_MARK`] (U+0001), if any; 1300 for a quoted identifier
/// holding bytes that are not UTF-8, as MariaDB refuses it. MariaDB
/// accepts any character but U+0000 in a quoted identifier; Larch keeps
/// U+0001 for its own names (docs/sql-compatibility.md).
fn refuse_internal_names(
    text: &str,
    original: &str,
    tokens: &[sqlparser::tokenizer::TokenWithSpan],
) -> Result<(), SqlError> {
    for t in tokens {
        if let Token::Word(w) = &t.token {
            if w.value.contains(INTERNAL_NAME_MARK) {
                return Err(syntax_error(text, original, t.span.start));
            }
            if w.quote_style.is_some() && w.value.chars().any(is_raw_byte) {
                return Err(invalid_identifier(&w.value));
            }
        }
    }
    Ok(())
}

/// Parses one statement's executable text (from [`split::split_statements`]);
/// `original` is the same span of the query as sent, for error messages.
fn parse_one(text: &str, original: &str) -> Result<Statement, SqlError> {
    parse_one_from(text, original, Origin::User)
}

/// [`parse_one`] for a text of the given origin.
fn parse_one_from(text: &str, original: &str, origin: Origin) -> Result<Statement, SqlError> {
    if let Some(r) = account::parse(text, original) {
        return r;
    }
    let dialect = MySqlDialect {};
    let tokens = Tokenizer::new(&dialect, text)
        .with_unescape(true)
        .tokenize_with_location()
        .map_err(|e| syntax_error(text, original, e.location))?;
    if origin == Origin::User {
        refuse_internal_names(text, original, &tokens)?;
    }
    if let Some(r) = set_statement::parse(text, original, &tokens) {
        return r;
    }
    if let Some(r) = trigger::parse(text, original, &tokens) {
        return r;
    }
    if let Some(r) = routine::parse(text, original, &tokens) {
        return r;
    }
    if let Some(r) = view::parse(text, original, &tokens) {
        return r;
    }
    let parsed = parse_tokens(text, original, tokens);
    if parsed.is_err() {
        // A second try for comma joins inside parentheses.
        let again = Tokenizer::new(&dialect, text)
            .with_unescape(true)
            .tokenize_with_location()
            .ok()
            .and_then(|t| join_commas::rewrite(&t));
        if let Some(Ok(s)) = again.map(|t| parse_tokens(text, original, t)) {
            return Ok(s);
        }
    }
    parsed
}

/// Operators in a row (at one parenthesis level) from which a statement is
/// parsed on a thread of its own with [`LONG_CHAIN_STACK`]: sqlparser
/// builds such a chain as a tree as deep as it is long, and drops it
/// recursively when the statement turns out to be wrong.
const LONG_CHAIN: usize = 2_000;
/// Parentheses nested this deep also send a statement to that thread: the
/// parse, the depth check and taking apart a statement that fails it all
/// recurse once or more per level (nested subqueries overflowed an 8 MiB
/// connection stack at 1,000 levels).
const DEEP_NESTING: usize = 64;
/// Stack of the thread a statement with a long operator chain is parsed on
/// (reserved address space: only what the parse touches is used).
const LONG_CHAIN_STACK: usize = 1 << 30;

/// Parses a statement's tokens with sqlparser after Larch's rewrites.
fn parse_tokens(
    text: &str,
    original: &str,
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Result<Statement, SqlError> {
    let (chain, nesting) = chain_and_nesting(&tokens);
    if chain < LONG_CHAIN && nesting < DEEP_NESTING {
        return parse_tokens_here(text, original, tokens);
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("larch-parse".into())
            .stack_size(LONG_CHAIN_STACK)
            .spawn_scoped(scope, move || parse_tokens_here(text, original, tokens))
            .map_err(|e| {
                SqlError::new(
                    crate::error::code::UNKNOWN,
                    format!("cannot start a parser thread: {e}"),
                )
            })?
            .join()
            .unwrap_or_else(|_| Err(depth::stack_overrun()))
    })
}

/// The most binary operators in a row at one parenthesis level (a comma or
/// a parenthesis ends a row), and the deepest parenthesis nesting.
fn chain_and_nesting(tokens: &[sqlparser::tokenizer::TokenWithSpan]) -> (usize, usize) {
    let mut runs: Vec<usize> = vec![0];
    let mut longest = 0;
    let mut deepest = 0;
    for t in tokens {
        match &t.token {
            Token::LParen => {
                runs.push(0);
                deepest = deepest.max(runs.len() - 1);
            }
            Token::RParen => {
                if runs.len() > 1 {
                    runs.pop();
                }
            }
            Token::Comma => {
                if let Some(r) = runs.last_mut() {
                    *r = 0;
                }
            }
            Token::Whitespace(_)
            | Token::Word(_)
            | Token::Number(..)
            | Token::SingleQuotedString(_) => {
                // Operands (and the keyword operators AND, OR, XOR, DIV...).
                if let Token::Word(w) = &t.token {
                    if w.quote_style.is_none()
                        && matches!(
                            w.keyword,
                            sqlparser::keywords::Keyword::AND
                                | sqlparser::keywords::Keyword::OR
                                | sqlparser::keywords::Keyword::XOR
                                | sqlparser::keywords::Keyword::DIV
                        )
                    {
                        if let Some(r) = runs.last_mut() {
                            *r += 1;
                            longest = longest.max(*r);
                        }
                    }
                }
            }
            _ => {
                if let Some(r) = runs.last_mut() {
                    *r += 1;
                    longest = longest.max(*r);
                }
            }
        }
    }
    (longest, deepest)
}

/// [`parse_tokens`] on the calling thread.
fn parse_tokens_here(
    text: &str,
    original: &str,
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Result<Statement, SqlError> {
    let dialect = dialect::LarchDialect::default();
    let items = names::select_items(&tokens, text);
    let mut tokens = tokens;
    hex_strings::introduce_binary(&mut tokens, text);
    let mut tokens = attrs::rewrite(rewrite::rewrite(tokens));
    let into = select_into::extract(&mut tokens);
    let create_options = attrs::take_create_options(&mut tokens);
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let result = match extra::parse_extra(&mut parser) {
        Some(r) => r,
        None => parser
            .parse_statement()
            .map(|s| Statement::Sql(Box::new(s))),
    }
    .and_then(|mut s| {
        while parser.consume_token(&Token::SemiColon) {}
        let next = parser.peek_token();
        if next.token == Token::EOF {
            attrs::fix(&mut s, create_options);
            if let (Statement::Sql(st), Some(items)) = (&mut s, &items) {
                names::apply(st, items, text);
            }
            match into {
                Some(clause) => with_into(s, clause),
                None => Ok(s),
            }
        } else {
            parser.expected("end of statement", next)
        }
    });
    let mut statement = result.map_err(|e| match &e {
        ParserError::RecursionLimitExceeded => depth::stack_overrun(),
        ParserError::ParserError(m) | ParserError::TokenizerError(m) => {
            let loc = location_in_message(m).unwrap_or_else(|| parser.peek_token().span.start);
            syntax_error(text, original, loc)
        }
    })?;
    depth::bound(&mut statement)?;
    clauses::check(&mut statement)?;
    Ok(statement)
}

/// Joins a query and the INTO clause [`select_into::extract`] cut out of it.
fn with_into(
    s: Statement,
    clause: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Result<Statement, ParserError> {
    let mut p = Parser::new(&dialect::LarchDialect::MYSQL).with_tokens_with_locations(clause);
    let into = select_into::parse_target(&mut p)?;
    let next = p.peek_token();
    if next.token != Token::EOF {
        return p.expected("end of INTO clause", next);
    }
    match select_into::query_of(s) {
        Some(query) => Ok(Statement::SelectInto {
            query,
            into: Box::new(into),
        }),
        None => Err(ParserError::ParserError(
            "Expected: a query before INTO at Line: 0, Column: 0".into(),
        )),
    }
}

/// Reads sqlparser's " at Line: L, Column: C" suffix.
fn location_in_message(msg: &str) -> Option<Location> {
    let at = msg.rfind(" at Line: ")?;
    let rest = &msg[at + " at Line: ".len()..];
    let (line, col) = rest.split_once(", Column: ")?;
    let line = line.trim().parse().ok()?;
    let column = col.trim().parse().ok()?;
    Some(Location { line, column })
}

/// Builds MySQL's 1064 error for an error at `loc` (1-based line and column in
/// characters of `text`; line 0 means the end of the statement). `original` has
/// the same byte positions as `text` (see [`split`]).
fn syntax_error(text: &str, original: &str, loc: Location) -> SqlError {
    let offset = if loc.line == 0 {
        original.trim_end().len()
    } else {
        byte_offset(text, loc)
    };
    let offset = if original.is_char_boundary(offset) {
        offset
    } else {
        original.len()
    };
    let near = near_text(original[offset..].trim_end());
    // Lines count from the statement's first non-blank character.
    let first = original.len() - original.trim_start().len();
    let line = 1 + original[first..offset.max(first)].matches('\n').count() as u64;
    SqlError::Syntax { near, line }
}

/// Byte offset of a 1-based (line, column-in-characters) location.
fn byte_offset(text: &str, loc: Location) -> usize {
    let mut line = 1;
    let mut col = 1;
    for (i, c) in text.char_indices() {
        if line == loc.line && col == loc.column {
            return i;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    text.len()
}

/// The "near '...'" text of a syntax error: `rest` cut to 80 bytes (77 and
/// `...`), as MariaDB cuts it.
pub(crate) fn near_text(rest: &str) -> String {
    if rest.len() > 80 {
        let mut cut = 77;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &rest[..cut])
    } else {
        rest.to_string()
    }
}

/// The query of a text the planner built (`None` when it is no single
/// query): unlike every other entry point, names holding
/// [`INTERNAL_NAME_MARK`] are allowed.
pub(crate) fn parse_query(text: &str) -> Option<ast::Query> {
    let piece = split::split_statements(text).into_iter().next()?;
    let original = &text[piece.start..piece.start + piece.text.len()];
    match parse_one_from(&piece.text, original, Origin::Planner).ok()? {
        Statement::Sql(st) => match *st {
            ast::Statement::Query(q) => Some(*q),
            _ => None,
        },
        _ => None,
    }
}

/// Parses one expression kept as text (a column's DEFAULT, a CHECK
/// constraint) the way it would be read inside a SELECT list.
pub(crate) fn parse_expression(text: &str) -> Result<ast::Expr, SqlError> {
    let statements = parse(&format!("SELECT {text}"))?;
    let expr = match statements.first() {
        Some(Statement::Sql(st)) => match st.as_ref() {
            ast::Statement::Query(q) => match q.body.as_ref() {
                ast::SetExpr::Select(sel) if statements.len() == 1 => {
                    match sel.projection.as_slice() {
                        [ast::SelectItem::UnnamedExpr(e)
                        | ast::SelectItem::ExprWithAlias { expr: e, .. }] => Some(e.clone()),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    expr.ok_or_else(|| SqlError::Syntax {
        near: near_text(text),
        line: 1,
    })
}
