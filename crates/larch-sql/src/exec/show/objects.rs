//! SHOW listings of schema objects: DATABASES, TABLES, TABLE STATUS, the
//! objects Larch does not have yet (TRIGGERS, EVENTS, routine status, OPEN
//! TABLES) and SHOW CREATE of the non-table objects.

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

use super::{apply_filter, filter_of, rows, text_columns};

pub(crate) const TRIGGER_COLUMNS: &[&str] = &[
    "Trigger",
    "Event",
    "Table",
    "Statement",
    "Timing",
    "Created",
    "sql_mode",
    "Definer",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];

pub(super) const EVENT_COLUMNS: &[&str] = &[
    "Db",
    "Name",
    "Definer",
    "Time zone",
    "Type",
    "Execute at",
    "Interval value",
    "Interval field",
    "Starts",
    "Ends",
    "Status",
    "Originator",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];

pub(crate) const ROUTINE_STATUS_COLUMNS: &[&str] = &[
    "Db",
    "Name",
    "Type",
    "Definer",
    "Modified",
    "Created",
    "Security_type",
    "Comment",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];

pub(super) const OPEN_TABLES_COLUMNS: &[&str] = &["Database", "Table", "In_use", "Name_locked"];

pub(super) const BINLOG_STATUS_COLUMNS: &[&str] =
    &["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"];

/// The `[FROM|IN db] [LIKE 'pattern' | WHERE expr]` tail of a SHOW form
/// sqlparser reads as words, parsed again from the statement's text.
pub(super) fn show_tail(
    s: &Session,
) -> Result<(Option<String>, Option<ast::ShowStatementFilter>), SqlError> {
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::tokenizer::{Token, Tokenizer};
    let text = s.process.state.lock().info.clone().unwrap_or_default();
    let dialect = MySqlDialect {};
    let tokens: Vec<Token> = Tokenizer::new(&dialect, &text)
        .tokenize()
        .map_err(|e| SqlError::new(1064, e.to_string()))?
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let word = |t: &Token, kw: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw));
    let mut db = None;
    let mut filter = None;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if (word(t, "FROM") || word(t, "IN")) && db.is_none() {
            if let Some(Token::Word(w)) = tokens.get(i + 1) {
                db = Some(w.value.clone());
                i += 2;
                continue;
            }
        } else if word(t, "LIKE") {
            if let Some(Token::SingleQuotedString(p) | Token::DoubleQuotedString(p)) =
                tokens.get(i + 1)
            {
                filter = Some(ast::ShowStatementFilter::Like(p.clone()));
            }
            break;
        } else if word(t, "WHERE") {
            let rest: Vec<Token> = tokens[i + 1..]
                .iter()
                .filter(|t| !matches!(t, Token::SemiColon))
                .cloned()
                .collect();
            let expr = sqlparser::parser::Parser::new(&dialect)
                .with_tokens(rest)
                .parse_expr()
                .map_err(|e| SqlError::new(1064, e.to_string()))?;
            filter = Some(ast::ShowStatementFilter::Where(expr));
            break;
        }
        i += 1;
    }
    Ok((db, filter))
}

/// A SHOW listing of objects Larch does not have: no rows (the database,
/// when given, must exist; `needs_db`: without one, the current database).
pub(super) fn empty_listing(
    s: &mut Session,
    columns: &[&str],
    needs_db: bool,
) -> Result<QueryResult, SqlError> {
    let (db, _) = show_tail(s)?;
    match db {
        Some(d) => {
            crate::exec::names::resolve_database(&s.db, &d)?;
        }
        None if needs_db && s.current_db.is_none() => {
            return Err(SqlError::no_database());
        }
        None => {}
    }
    Ok(rows(text_columns(columns), Vec::new()))
}

/// SHOW OPEN TABLES [FROM db] [LIKE | WHERE]: the tables that have a
/// metadata lock object (used since the server started or since their last
/// DDL), with `In_use` the number of metadata locks held on them now
/// (statements' transactions, LOCK TABLES, DDL).
pub(super) fn open_tables(s: &mut Session) -> Result<QueryResult, SqlError> {
    let (db, filter) = show_tail(s)?;
    if let Some(d) = &db {
        crate::exec::names::resolve_database(&s.db, d)?;
    }
    let catalog = s.db.catalog();
    let rows =
        s.db.metadata_locks
            .open_tables(db.as_deref())
            .into_iter()
            .filter(|(d, t, _)| catalog.table_entry(d, t).is_some())
            .filter(|(_, t, _)| match &filter {
                Some(ast::ShowStatementFilter::Like(p)) => crate::eval::like(
                    t,
                    p,
                    '\\',
                    larch_engine::record::collation::Collation::Utf8mb4Bin,
                ),
                _ => true,
            })
            .map(|(d, t, n)| {
                vec![
                    Value::Str(d),
                    Value::Str(t),
                    Value::Str(n.to_string()),
                    Value::Str("0".into()),
                ]
            })
            .collect();
    let mut set = RowSet {
        columns: text_columns(OPEN_TABLES_COLUMNS),
        rows,
    };
    if let Some(w @ ast::ShowStatementFilter::Where(_)) = &filter {
        apply_filter(s, &mut set, Some(w), false)?;
    }
    Ok(QueryResult::Rows(set))
}

/// SHOW TABLE STATUS [FROM db] [LIKE | WHERE].
pub(super) fn table_status(s: &mut Session) -> Result<QueryResult, SqlError> {
    let (db, filter) = show_tail(s)?;
    let db = match db {
        Some(d) => d,
        None => s.current_db.clone().ok_or_else(SqlError::no_database)?,
    };
    let db = crate::exec::names::resolve_database(&s.db, &db)?;
    let rows = if crate::exec::names::is_virtual_database(&db) {
        Vec::new()
    } else {
        crate::exec::select::information_schema::table_status_rows(s, &db)?
    };
    let mut set = RowSet {
        columns: crate::exec::select::information_schema::table_status_columns(),
        rows,
    };
    apply_filter(s, &mut set, filter.as_ref(), false)?;
    Ok(QueryResult::Rows(set))
}

/// SHOW CREATE TRIGGER | FUNCTION | PROCEDURE | EVENT | VIEW (SHOW CREATE
/// TABLE belongs to `crate::ddl`): Larch has none of these objects.
pub(super) fn show_create_other(
    s: &mut Session,
    kind: ast::ShowCreateObject,
    name: &ast::ObjectName,
) -> Option<Result<QueryResult, SqlError>> {
    use ast::ShowCreateObject as O;
    let last = crate::exec::names::object_last(name);
    Some(Err(match kind {
        O::Table => return None,
        O::Trigger => SqlError::new(1360, "Trigger does not exist"),
        O::Function => SqlError::new(1305, format!("FUNCTION {last} does not exist")),
        O::Procedure => SqlError::new(1305, format!("PROCEDURE {last} does not exist")),
        O::Event => SqlError::new(1539, format!("Unknown event '{last}'")),
        O::View => {
            let db = match name.0.len() {
                1 => match s.current_db.clone() {
                    Some(d) => d,
                    None => return Some(Err(SqlError::no_database())),
                },
                _ => name.0[0]
                    .as_ident()
                    .map(|i| i.value.clone())
                    .unwrap_or_default(),
            };
            if s.db.catalog().table_entry(&db, &last).is_some() {
                SqlError::new(1347, format!("'{db}.{last}' is not of type 'VIEW'"))
            } else {
                SqlError::new(1146, format!("Table '{db}.{last}' doesn't exist"))
            }
        }
    }))
}

pub(super) fn databases(
    s: &mut Session,
    opts: &ast::ShowStatementOptions,
) -> Result<QueryResult, SqlError> {
    let mut names = s.db.catalog().databases();
    names.push("information_schema".into());
    names.sort();
    names.retain(|d| crate::privileges::check::sees_database(s, d));
    let mut set = RowSet {
        columns: vec![ResultColumn::text("Database", 64, false)],
        rows: names.into_iter().map(|n| vec![Value::Str(n)]).collect(),
    };
    apply_filter(s, &mut set, filter_of(opts), false)?;
    Ok(QueryResult::Rows(set))
}

pub(super) fn tables(
    s: &mut Session,
    full: bool,
    opts: &ast::ShowStatementOptions,
) -> Result<QueryResult, SqlError> {
    let db = match opts.show_in.as_ref().and_then(|i| i.parent_name.as_ref()) {
        Some(n) => crate::exec::names::object_last(n),
        None => s.current_db.clone().ok_or_else(SqlError::no_database)?,
    };
    let db = crate::exec::names::resolve_database(&s.db, &db)?;
    let names = if crate::exec::names::is_virtual_database(&db) {
        crate::exec::select::information_schema::TABLE_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect()
    } else {
        let mut names = s.db.catalog().tables(&db)?;
        names.retain(|n| !crate::session::temporary::is_hidden(n));
        names.retain(|n| crate::privileges::check::sees_table(s, &db, n));
        names.extend(s.db.catalog().views(&db));
        names.sort();
        names
    };
    let mut columns = vec![ResultColumn::text(format!("Tables_in_{db}"), 64, false)];
    if full {
        columns.push(ResultColumn::text("Table_type", 64, false));
    }
    let rows = names
        .into_iter()
        .map(|n| {
            let mut r = vec![Value::Str(n.clone())];
            if full {
                let kind = if crate::exec::names::is_virtual_database(&db) {
                    "SYSTEM VIEW"
                } else if s.db.catalog().is_view(&db, &n) {
                    "VIEW"
                } else {
                    "BASE TABLE"
                };
                r.push(Value::Str(kind.into()));
            }
            r
        })
        .collect();
    let mut set = RowSet { columns, rows };
    apply_filter(s, &mut set, filter_of(opts), false)?;
    Ok(QueryResult::Rows(set))
}
