//! Larch's own parser for the statements sqlparser's MySqlDialect cannot parse
//! (the list is in the parse module docs). It recognises them from their
//! leading words and parses them with sqlparser's `Parser` primitives, so
//! identifiers, strings, expressions and error positions behave exactly as in
//! the statements sqlparser parses.

use sqlparser::ast::{self, ObjectName};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use super::Statement;

/// ANALYZE / CHECK / OPTIMIZE / REPAIR TABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceOp {
    Analyze,
    Check,
    Optimize,
    Repair,
}

/// What `SHOW ENGINE name ...` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShowEngineKind {
    Status,
    Mutex,
}

/// What LOAD DATA does with rows whose key already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadDuplicates {
    /// The default: an error (a warning with LOCAL).
    Error,
    Replace,
    Ignore,
}

/// The field and line format shared by LOAD DATA and SELECT ... INTO
/// OUTFILE: `[{FIELDS | COLUMNS} [TERMINATED BY s] [[OPTIONALLY] ENCLOSED
/// BY c] [ESCAPED BY c]] [LINES [STARTING BY s] [TERMINATED BY s]]`, with
/// MySQL's defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct FileFormat {
    /// Default `"\t"`.
    pub fields_terminated_by: String,
    /// Default empty (no enclosing character).
    pub fields_enclosed_by: String,
    pub fields_optionally_enclosed: bool,
    /// Default `"\\"`.
    pub fields_escaped_by: String,
    /// Default empty.
    pub lines_starting_by: String,
    /// Default `"\n"`.
    pub lines_terminated_by: String,
}

impl Default for FileFormat {
    fn default() -> Self {
        FileFormat {
            fields_terminated_by: "\t".into(),
            fields_enclosed_by: String::new(),
            fields_optionally_enclosed: false,
            fields_escaped_by: "\\".into(),
            lines_starting_by: String::new(),
            lines_terminated_by: "\n".into(),
        }
    }
}

/// `LOAD DATA [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t
/// [CHARACTER SET cs] [FIELDS ...] [LINES ...] (see [`FileFormat`])
/// [IGNORE n {LINES | ROWS}] [(column or @var, ...)] [SET col = expr, ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadData {
    pub local: bool,
    pub file: String,
    pub duplicates: LoadDuplicates,
    pub table: ObjectName,
    pub charset: Option<String>,
    pub format: FileFormat,
    pub ignore_lines: u64,
    /// Target columns or `@user_variables`; empty means all columns in order.
    pub columns: Vec<ast::Ident>,
    pub set: Vec<ast::Assignment>,
}

/// The upper-cased unquoted word at token position `n` (whitespace skipped).
fn word_at(p: &Parser, n: usize) -> Option<String> {
    match p.peek_nth_token(n).token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

/// Consumes the next token if it is the unquoted word `w`.
fn word(p: &mut Parser, w: &str) -> bool {
    match &p.peek_token_ref().token {
        Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w) => {
            p.next_token();
            true
        }
        _ => false,
    }
}

fn expect_word(p: &mut Parser, w: &str) -> Result<(), ParserError> {
    if word(p, w) {
        Ok(())
    } else {
        p.expected(w, p.peek_token())
    }
}

/// Number of tokens of an object name starting at position `n`
/// (`a` or `a.b`), 0 when none starts there.
fn name_len(p: &Parser, n: usize) -> usize {
    if !matches!(p.peek_nth_token(n).token, Token::Word(_)) {
        return 0;
    }
    let mut len = 1;
    while p.peek_nth_token(n + len).token == Token::Period
        && matches!(p.peek_nth_token(n + len + 1).token, Token::Word(_))
    {
        len += 2;
    }
    len
}

/// Parses the statement if it is one of Larch's own; `None` hands it to
/// sqlparser.
pub(super) fn parse_extra(p: &mut Parser) -> Option<Result<Statement, ParserError>> {
    let w0 = word_at(p, 0)?;
    let w1 = word_at(p, 1);
    let w2 = word_at(p, 2);
    let at_end = |n: usize| p.peek_nth_token(n).token == Token::EOF;
    let r = match (w0.as_str(), w1.as_deref()) {
        ("BEGIN", None) if at_end(1) => begin(p),
        ("BEGIN", Some("WORK")) if at_end(2) => begin(p),
        ("START", Some("TRANSACTION")) => start_transaction(p),
        ("ALTER", Some("TABLE")) => {
            let n = 2 + name_len(p, 2);
            match (word_at(p, n).as_deref(), word_at(p, n + 1).as_deref()) {
                (Some("DISABLE" | "ENABLE"), Some("KEYS")) if at_end(n + 2) => alter_keys(p),
                _ => super::alter::parse(p),
            }
        }
        ("ALTER", Some("ONLINE")) if w2.as_deref() == Some("TABLE") => super::alter::parse(p),
        ("CREATE", Some("FULLTEXT")) if w2.as_deref() == Some("INDEX") => fulltext_index(p),
        (
            "ANALYZE" | "CHECK" | "OPTIMIZE" | "REPAIR",
            Some("TABLE" | "NO_WRITE_TO_BINLOG" | "LOCAL"),
        ) => maintenance(p),
        ("LOAD", Some("DATA")) => load_data(p).map(|l| Statement::LoadData(Box::new(l))),
        ("SHOW", Some("ENGINE")) => show_engine(p),
        ("SHOW", Some("WARNINGS" | "ERRORS" | "COUNT")) => show_warnings(p),
        ("SHOW", Some("CREATE")) if matches!(w2.as_deref(), Some("DATABASE" | "SCHEMA")) => {
            show_create_database(p)
        }
        ("SET", Some("GLOBAL" | "SESSION" | "LOCAL")) if w2.as_deref() == Some("TRANSACTION") => {
            set_transaction(p)
        }
        ("SET", Some("CHARSET")) => set_charset(p),
        ("SET", Some("CHARACTER")) if w2.as_deref() == Some("SET") => set_charset(p),
        ("DO", _) => {
            p.next_token();
            p.parse_comma_separated(Parser::parse_expr)
                .map(Statement::Do)
        }
        ("PREPARE", Some(_)) => super::sql_prepared::prepare(p),
        ("EXECUTE", Some(_)) => super::sql_prepared::execute(p),
        ("DEALLOCATE", Some("PREPARE")) | ("DROP", Some("PREPARE")) => {
            super::sql_prepared::deallocate(p)
        }
        ("FLUSH", Some(w)) if flush_table(p, w) => flush_tables(p),
        ("LOCK", Some("TABLES")) => super::lock_tables::parse(p),
        ("KILL", _) if !at_end(1) => kill(p),
        ("SHUTDOWN", _) => {
            p.next_token();
            Ok(Statement::Shutdown)
        }
        _ => return None,
    };
    Some(r)
}

/// `KILL [HARD | SOFT] [CONNECTION | QUERY] expr`. `KILL QUERY ID` and
/// `KILL USER` are left to sqlparser (a syntax error there).
fn kill(p: &mut Parser) -> Result<Statement, ParserError> {
    let mut n = 1;
    if matches!(word_at(p, n).as_deref(), Some("HARD" | "SOFT")) {
        n += 1;
    }
    let query_only = match word_at(p, n).as_deref() {
        Some("QUERY") => {
            n += 1;
            true
        }
        Some("CONNECTION") => {
            n += 1;
            false
        }
        _ => false,
    };
    if matches!(word_at(p, n).as_deref(), Some("ID" | "USER"))
        && !matches!(p.peek_nth_token(n + 1).token, Token::EOF | Token::SemiColon)
    {
        return p.expected("a thread id", p.peek_nth_token(n));
    }
    for _ in 0..n {
        p.next_token();
    }
    let id = p.parse_expr()?;
    Ok(Statement::Kill { query_only, id })
}

/// `SET GLOBAL|SESSION TRANSACTION modes` (sqlparser drops the scope).
fn set_transaction(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    let global = word_at(p, 0).as_deref() == Some("GLOBAL");
    p.next_token();
    p.next_token();
    let modes = p.parse_transaction_modes()?;
    Ok(Statement::SetTransaction { global, modes })
}

fn begin(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    word(p, "WORK");
    Ok(Statement::StartTransaction {
        read_only: None,
        consistent_snapshot: false,
    })
}

fn start_transaction(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    p.next_token();
    let mut read_only = None;
    let mut consistent_snapshot = false;
    if matches!(p.peek_token_ref().token, Token::EOF | Token::SemiColon) {
        return Ok(Statement::StartTransaction {
            read_only,
            consistent_snapshot,
        });
    }
    loop {
        if word(p, "READ") {
            if word(p, "ONLY") {
                read_only = Some(true);
            } else {
                expect_word(p, "WRITE")?;
                read_only = Some(false);
            }
        } else if word(p, "WITH") {
            expect_word(p, "CONSISTENT")?;
            expect_word(p, "SNAPSHOT")?;
            consistent_snapshot = true;
        } else {
            return p.expected(
                "READ ONLY, READ WRITE or WITH CONSISTENT SNAPSHOT",
                p.peek_token(),
            );
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(Statement::StartTransaction {
        read_only,
        consistent_snapshot,
    })
}

fn alter_keys(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    p.next_token();
    let table = p.parse_object_name(false)?;
    let enable = word(p, "ENABLE");
    if !enable {
        expect_word(p, "DISABLE")?;
    }
    expect_word(p, "KEYS")?;
    Ok(Statement::AlterTableKeys { table, enable })
}

fn fulltext_index(p: &mut Parser) -> Result<Statement, ParserError> {
    for _ in 0..3 {
        p.next_token();
    }
    let name = p.parse_identifier()?;
    expect_word(p, "ON")?;
    let table = p.parse_object_name(false)?;
    p.expect_token(&Token::LParen)?;
    let columns = p.parse_comma_separated(Parser::parse_identifier)?;
    p.expect_token(&Token::RParen)?;
    Ok(Statement::CreateFulltextIndex {
        name,
        table,
        columns,
    })
}

fn maintenance(p: &mut Parser) -> Result<Statement, ParserError> {
    let op = match word_at(p, 0).as_deref() {
        Some("ANALYZE") => MaintenanceOp::Analyze,
        Some("CHECK") => MaintenanceOp::Check,
        Some("OPTIMIZE") => MaintenanceOp::Optimize,
        _ => MaintenanceOp::Repair,
    };
    p.next_token();
    let _ = word(p, "NO_WRITE_TO_BINLOG") || word(p, "LOCAL");
    expect_word(p, "TABLE")?;
    let tables = p.parse_comma_separated(|p| p.parse_object_name(false))?;
    // CHECK/REPAIR options (QUICK, EXTENDED, ...) and ANALYZE's PERSISTENT FOR
    // are accepted and ignored.
    while let Token::Word(_) = p.peek_token_ref().token {
        p.next_token();
    }
    Ok(Statement::TableMaintenance { op, tables })
}

fn show_engine(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    p.next_token();
    let engine = p.parse_identifier()?.value;
    let kind = if word(p, "STATUS") {
        ShowEngineKind::Status
    } else {
        expect_word(p, "MUTEX")?;
        ShowEngineKind::Mutex
    };
    Ok(Statement::ShowEngine { engine, kind })
}

fn show_warnings(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    let count_only = word(p, "COUNT");
    if count_only {
        p.expect_token(&Token::LParen)?;
        p.expect_token(&Token::Mul)?;
        p.expect_token(&Token::RParen)?;
    }
    let errors = word(p, "ERRORS");
    if !errors {
        expect_word(p, "WARNINGS")?;
    }
    let mut limit = None;
    if !count_only && word(p, "LIMIT") {
        let first = p.parse_literal_uint()?;
        limit = Some(if p.consume_token(&Token::Comma) {
            (first, p.parse_literal_uint()?)
        } else if word(p, "OFFSET") {
            (p.parse_literal_uint()?, first)
        } else {
            (0, first)
        });
    }
    Ok(Statement::ShowWarnings {
        errors,
        count_only,
        limit,
    })
}

fn show_create_database(p: &mut Parser) -> Result<Statement, ParserError> {
    for _ in 0..3 {
        p.next_token();
    }
    let if_not_exists = word(p, "IF");
    if if_not_exists {
        expect_word(p, "NOT")?;
        expect_word(p, "EXISTS")?;
    }
    let name = p.parse_identifier()?;
    Ok(Statement::ShowCreateDatabase {
        name,
        if_not_exists,
    })
}

fn set_charset(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    if !word(p, "CHARSET") {
        p.next_token();
        p.next_token();
    }
    let charset = if word(p, "DEFAULT") {
        None
    } else {
        Some(match p.peek_token().token {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => {
                p.next_token();
                s
            }
            _ => p.parse_identifier()?.value,
        })
    };
    Ok(Statement::SetCharset { charset })
}

fn load_data(p: &mut Parser) -> Result<LoadData, ParserError> {
    p.next_token();
    p.next_token();
    let _ = word(p, "LOW_PRIORITY") || word(p, "CONCURRENT");
    let local = word(p, "LOCAL");
    expect_word(p, "INFILE")?;
    let file = p.parse_literal_string()?;
    let duplicates = if word(p, "REPLACE") {
        LoadDuplicates::Replace
    } else if word(p, "IGNORE") {
        LoadDuplicates::Ignore
    } else {
        LoadDuplicates::Error
    };
    expect_word(p, "INTO")?;
    expect_word(p, "TABLE")?;
    let table = p.parse_object_name(false)?;
    let mut l = LoadData {
        local,
        file,
        duplicates,
        table,
        charset: None,
        format: FileFormat::default(),
        ignore_lines: 0,
        columns: Vec::new(),
        set: Vec::new(),
    };
    if word(p, "CHARACTER") {
        expect_word(p, "SET")?;
        l.charset = Some(p.parse_identifier()?.value);
    } else if word(p, "CHARSET") {
        l.charset = Some(p.parse_identifier()?.value);
    }
    l.format = file_format(p)?;
    if word(p, "IGNORE") {
        l.ignore_lines = p.parse_literal_uint()?;
        if !word(p, "LINES") {
            expect_word(p, "ROWS")?;
        }
    }
    if p.consume_token(&Token::LParen) && !p.consume_token(&Token::RParen) {
        l.columns = p.parse_comma_separated(Parser::parse_identifier)?;
        p.expect_token(&Token::RParen)?;
    }
    if word(p, "SET") {
        l.set = p.parse_comma_separated(Parser::parse_assignment)?;
    }
    Ok(l)
}

/// `[{FIELDS | COLUMNS} ...] [LINES ...]` (see [`FileFormat`]).
pub(super) fn file_format(p: &mut Parser) -> Result<FileFormat, ParserError> {
    let mut f = FileFormat::default();
    if word(p, "FIELDS") || word(p, "COLUMNS") {
        loop {
            if word(p, "TERMINATED") {
                expect_word(p, "BY")?;
                f.fields_terminated_by = p.parse_literal_string()?;
            } else if word(p, "OPTIONALLY") {
                expect_word(p, "ENCLOSED")?;
                expect_word(p, "BY")?;
                f.fields_optionally_enclosed = true;
                f.fields_enclosed_by = p.parse_literal_string()?;
            } else if word(p, "ENCLOSED") {
                expect_word(p, "BY")?;
                f.fields_enclosed_by = p.parse_literal_string()?;
            } else if word(p, "ESCAPED") {
                expect_word(p, "BY")?;
                f.fields_escaped_by = p.parse_literal_string()?;
            } else {
                break;
            }
        }
    }
    if word(p, "LINES") {
        loop {
            if word(p, "STARTING") {
                expect_word(p, "BY")?;
                f.lines_starting_by = p.parse_literal_string()?;
            } else if word(p, "TERMINATED") {
                expect_word(p, "BY")?;
                f.lines_terminated_by = p.parse_literal_string()?;
            } else {
                break;
            }
        }
    }
    Ok(f)
}

/// True for `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] TABLE[S] ...` (sqlparser knows
/// only TABLES, and takes any word after it for a table name).
fn flush_table(p: &Parser, w1: &str) -> bool {
    match w1 {
        "TABLE" | "TABLES" => true,
        "NO_WRITE_TO_BINLOG" | "LOCAL" => {
            matches!(word_at(p, 2).as_deref(), Some("TABLE" | "TABLES"))
        }
        _ => false,
    }
}

/// `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] TABLE[S] [t, ...] [WITH READ LOCK [AND
/// DISABLE CHECKPOINT] | FOR EXPORT]`, as sqlparser's FLUSH TABLES (Larch
/// has no checkpoint to hold back: the redo log is its own).
fn flush_tables(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    let location = if word(p, "NO_WRITE_TO_BINLOG") {
        Some(ast::FlushLocation::NoWriteToBinlog)
    } else if word(p, "LOCAL") {
        Some(ast::FlushLocation::Local)
    } else {
        None
    };
    if !word(p, "TABLES") {
        expect_word(p, "TABLE")?;
    }
    let mut tables = Vec::new();
    if matches!(p.peek_token_ref().token, Token::Word(_))
        && word_at(p, 0).as_deref() != Some("WITH")
        && word_at(p, 0).as_deref() != Some("FOR")
    {
        tables = p.parse_comma_separated(|p| p.parse_object_name(false))?;
    }
    let mut read_lock = false;
    let mut export = false;
    if word(p, "WITH") {
        expect_word(p, "READ")?;
        expect_word(p, "LOCK")?;
        read_lock = true;
        if word(p, "AND") {
            expect_word(p, "DISABLE")?;
            expect_word(p, "CHECKPOINT")?;
        }
    } else if word(p, "FOR") {
        expect_word(p, "EXPORT")?;
        export = true;
    }
    Ok(Statement::Sql(Box::new(ast::Statement::Flush {
        object_type: ast::FlushType::Tables,
        location,
        channel: None,
        read_lock,
        export,
        tables,
    })))
}
