//! SHOW statements about the server: DATABASES, TABLES, TABLE STATUS,
//! VARIABLES, STATUS, PROCESSLIST, ENGINES, PLUGINS, COLLATION, CHARACTER
//! SET, GRANTS, WARNINGS/ERRORS, ENGINE INNODB STATUS, and the objects Larch
//! does not have yet (TRIGGERS, EVENTS, FUNCTION/PROCEDURE/PACKAGE STATUS,
//! OPEN TABLES: empty results with MariaDB's columns; SHOW CREATE
//! TRIGGER/FUNCTION/PROCEDURE/EVENT/VIEW: MariaDB's "does not exist"
//! errors), and the binary log (MASTER/BINARY LOG STATUS: empty, as with
//! `log_bin` off; BINARY LOGS: error 1381). (SHOW CREATE TABLE, COLUMNS and
//! INDEX belong to `crate::ddl`.)
//!
//! `LIKE 'pattern'` filters on the first column (case-insensitively for
//! variable and status names, as MySQL does); `WHERE expr` is evaluated over
//! each row with the result's column names.
//!
//! sqlparser reads the SHOW forms it does not know as a list of words and
//! drops their string literals and anything after `=`; for those forms the
//! `FROM db` and `LIKE`/`WHERE` parts are read again from the statement's
//! text ([`show_tail`]).

use std::sync::atomic::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::{Level, SqlError};
use crate::eval::{self, VarScope};
use crate::parse::ShowEngineKind;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::variables::{self, Scope};
use crate::session::Session;

/// Runs a SHOW this module owns; `None` for other statements.
pub(super) fn execute(
    s: &mut Session,
    stmt: &ast::Statement,
) -> Option<Result<QueryResult, SqlError>> {
    use ast::Statement as S;
    Some(match stmt {
        S::ShowDatabases { show_options, .. } | S::ShowSchemas { show_options, .. } => {
            databases(s, show_options)
        }
        S::ShowTables {
            full, show_options, ..
        } => tables(s, *full, show_options),
        S::ShowVariables { filter, global, .. } => variables_rows(s, *global, filter.as_ref()),
        S::ShowStatus { filter, global, .. } => status(s, *global, filter.as_ref()),
        S::ShowProcessList { full } => processlist(s, *full),
        S::ShowCollation { filter } => collations(s, filter.as_ref()),
        S::ShowCharset(c) => charsets(s, c.filter.as_ref()),
        S::ShowCreate { obj_type, obj_name } => {
            return show_create_other(s, *obj_type, obj_name);
        }
        S::ShowVariable { variable } => {
            let words: Vec<String> = variable
                .iter()
                .filter(|i| i.quote_style.is_none())
                .map(|i| i.value.to_ascii_uppercase())
                .collect();
            let w: Vec<&str> = words.iter().map(String::as_str).collect();
            match w.as_slice() {
                ["ENGINES", ..] | ["STORAGE", "ENGINES", ..] => Ok(engines()),
                ["TABLE", "STATUS", ..] => table_status(s),
                ["TRIGGERS", ..] => empty_listing(s, TRIGGER_COLUMNS, true),
                ["EVENTS", ..] => empty_listing(s, EVENT_COLUMNS, true),
                ["FUNCTION" | "PROCEDURE", "STATUS", ..]
                | ["PACKAGE", "STATUS", ..]
                | ["PACKAGE", "BODY", "STATUS", ..] => {
                    empty_listing(s, ROUTINE_STATUS_COLUMNS, false)
                }
                ["OPEN", "TABLES", ..] => empty_listing(s, OPEN_TABLES_COLUMNS, false),
                ["MASTER" | "BINLOG", "STATUS", ..] | ["BINARY", "LOG", "STATUS", ..] => {
                    Ok(rows(text_columns(BINLOG_STATUS_COLUMNS), Vec::new()))
                }
                ["MASTER" | "BINARY", "LOGS", ..] => {
                    Err(SqlError::new(1381, "You are not using binary logging"))
                }
                ["PLUGINS", ..] => plugins(s),
                ["GRANTS", ..] => grants(s),
                _ => return None,
            }
        }
        _ => return None,
    })
}

fn text_columns(names: &[&str]) -> Vec<ResultColumn> {
    names
        .iter()
        .map(|n| ResultColumn::text(*n, 64, true))
        .collect()
}

const TRIGGER_COLUMNS: &[&str] = &[
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

const EVENT_COLUMNS: &[&str] = &[
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

const ROUTINE_STATUS_COLUMNS: &[&str] = &[
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

const OPEN_TABLES_COLUMNS: &[&str] = &["Database", "Table", "In_use", "Name_locked"];

const BINLOG_STATUS_COLUMNS: &[&str] = &["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"];

/// The `[FROM|IN db] [LIKE 'pattern' | WHERE expr]` tail of a SHOW form
/// sqlparser reads as words, parsed again from the statement's text.
fn show_tail(s: &Session) -> Result<(Option<String>, Option<ast::ShowStatementFilter>), SqlError> {
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
fn empty_listing(
    s: &mut Session,
    columns: &[&str],
    needs_db: bool,
) -> Result<QueryResult, SqlError> {
    let (db, _) = show_tail(s)?;
    match db {
        Some(d) => {
            super::names::resolve_database(&s.db, &d)?;
        }
        None if needs_db && s.current_db.is_none() => {
            return Err(SqlError::no_database());
        }
        None => {}
    }
    Ok(rows(text_columns(columns), Vec::new()))
}

/// SHOW TABLE STATUS [FROM db] [LIKE | WHERE].
fn table_status(s: &mut Session) -> Result<QueryResult, SqlError> {
    let (db, filter) = show_tail(s)?;
    let db = match db {
        Some(d) => d,
        None => s.current_db.clone().ok_or_else(SqlError::no_database)?,
    };
    let db = super::names::resolve_database(&s.db, &db)?;
    let rows = if super::names::is_virtual_database(&db) {
        Vec::new()
    } else {
        super::select::information_schema::table_status_rows(s, &db)?
    };
    let mut set = RowSet {
        columns: super::select::information_schema::table_status_columns(),
        rows,
    };
    apply_filter(s, &mut set, filter.as_ref(), false)?;
    Ok(QueryResult::Rows(set))
}

/// SHOW CREATE TRIGGER | FUNCTION | PROCEDURE | EVENT | VIEW (SHOW CREATE
/// TABLE belongs to `crate::ddl`): Larch has none of these objects.
fn show_create_other(
    s: &mut Session,
    kind: ast::ShowCreateObject,
    name: &ast::ObjectName,
) -> Option<Result<QueryResult, SqlError>> {
    use ast::ShowCreateObject as O;
    let last = super::names::object_last(name);
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

/// SHOW COLLATION [LIKE | WHERE].
fn collations(
    s: &mut Session,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    use super::select::information_schema::COLLATIONS;
    let mut columns = text_columns(&["Collation", "Charset"]);
    columns.push(ResultColumn::bigint("Id", true, true));
    columns.extend(text_columns(&["Default", "Compiled"]));
    columns.push(ResultColumn::bigint("Sortlen", true, false));
    let rows = COLLATIONS
        .iter()
        .map(|(name, cs, id, default, sortlen)| {
            vec![
                Value::Str((*name).into()),
                Value::Str((*cs).into()),
                Value::UInt(*id),
                Value::Str(if *default { "Yes" } else { "" }.into()),
                Value::Str("Yes".into()),
                Value::UInt(*sortlen),
            ]
        })
        .collect();
    let mut set = RowSet { columns, rows };
    apply_filter(s, &mut set, filter, true)?;
    Ok(QueryResult::Rows(set))
}

/// SHOW CHARACTER SET [LIKE | WHERE].
fn charsets(
    s: &mut Session,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    use super::select::information_schema::CHARSETS;
    let mut columns = text_columns(&["Charset", "Description", "Default collation"]);
    columns.push(ResultColumn::bigint("Maxlen", true, false));
    let rows = CHARSETS
        .iter()
        .map(|(name, coll, desc, maxlen)| {
            vec![
                Value::Str((*name).into()),
                Value::Str((*desc).into()),
                Value::Str((*coll).into()),
                Value::UInt(*maxlen),
            ]
        })
        .collect();
    let mut set = RowSet { columns, rows };
    apply_filter(s, &mut set, filter, true)?;
    Ok(QueryResult::Rows(set))
}

/// The plugins Larch has built in: name, version, type, description.
pub(crate) const PLUGINS: &[(&str, &str, &str, &str)] = &[
    (
        "mysql_native_password",
        "1.0",
        "AUTHENTICATION",
        "Native MySQL authentication",
    ),
    (
        "caching_sha2_password",
        "1.0",
        "AUTHENTICATION",
        "Caching SHA-2 authentication",
    ),
    (
        "InnoDB",
        "10.11",
        "STORAGE ENGINE",
        "Larch's transactional storage engine",
    ),
];

/// SHOW PLUGINS [LIKE | WHERE].
fn plugins(s: &mut Session) -> Result<QueryResult, SqlError> {
    let (_, filter) = show_tail(s)?;
    let columns = text_columns(&["Name", "Status", "Type", "Library", "License"]);
    let rows = PLUGINS
        .iter()
        .map(|(name, _, ty, _)| {
            vec![
                Value::Str((*name).into()),
                Value::Str("ACTIVE".into()),
                Value::Str((*ty).into()),
                Value::Null,
                Value::Str("Apache-2.0".into()),
            ]
        })
        .collect();
    let mut set = RowSet { columns, rows };
    apply_filter(s, &mut set, filter.as_ref(), false)?;
    Ok(QueryResult::Rows(set))
}

/// SHOW GRANTS [FOR CURRENT_USER[()]]: the built-in root account has every
/// privilege.
fn grants(s: &mut Session) -> Result<QueryResult, SqlError> {
    let user = s.process.user.clone();
    let host = "localhost";
    Ok(rows(
        vec![ResultColumn::text(
            format!("Grants for {user}@{host}"),
            1024,
            false,
        )],
        vec![vec![Value::Str(format!(
            "GRANT ALL PRIVILEGES ON *.* TO `{user}`@`{host}` WITH GRANT OPTION"
        ))]],
    ))
}

fn rows(columns: Vec<ResultColumn>, rows: Vec<Vec<Value>>) -> QueryResult {
    QueryResult::Rows(RowSet { columns, rows })
}

fn filter_of(opts: &ast::ShowStatementOptions) -> Option<&ast::ShowStatementFilter> {
    match &opts.filter_position {
        Some(ast::ShowStatementFilterPosition::Infix(f))
        | Some(ast::ShowStatementFilterPosition::Suffix(f)) => Some(f),
        None => None,
    }
}

/// Keeps the rows the filter accepts.
fn apply_filter(
    s: &Session,
    set: &mut RowSet,
    filter: Option<&ast::ShowStatementFilter>,
    case_insensitive: bool,
) -> Result<(), SqlError> {
    match filter {
        None => Ok(()),
        Some(ast::ShowStatementFilter::Like(p) | ast::ShowStatementFilter::NoKeyword(p))
        | Some(ast::ShowStatementFilter::ILike(p)) => {
            let coll = if case_insensitive {
                Collation::Utf8mb4GeneralCi
            } else {
                Collation::Utf8mb4Bin
            };
            set.rows.retain(|r| match r.first() {
                Some(Value::Str(name)) => eval::like(name, p, '\\', coll),
                _ => false,
            });
            Ok(())
        }
        Some(ast::ShowStatementFilter::Where(e)) => {
            let names: Vec<(String, eval::ExprType)> = set
                .columns
                .iter()
                .map(|c| {
                    (
                        c.name.to_ascii_lowercase(),
                        eval::ExprType {
                            ty: c.ty.clone(),
                            nullable: c.nullable,
                        },
                    )
                })
                .collect();
            let resolve = |parts: &[ast::Ident]| {
                let last = parts.last()?.value.to_ascii_lowercase();
                names
                    .iter()
                    .position(|(n, _)| *n == last)
                    .map(|i| (i, names[i].1.clone()))
            };
            let opts = eval::CompileOptions {
                collation: Collation::Utf8mb4GeneralCi,
                clause: "WHERE".into(),
            };
            let c = eval::compile(e, &resolve, &opts)?;
            let mut ctx = s.eval_context(&[]);
            let mut kept = Vec::new();
            for r in std::mem::take(&mut set.rows) {
                if super::rows::truthy(&c.eval(&r, &mut ctx)?) {
                    kept.push(r);
                }
            }
            set.rows = kept;
            Ok(())
        }
    }
}

fn databases(s: &mut Session, opts: &ast::ShowStatementOptions) -> Result<QueryResult, SqlError> {
    let mut names = s.db.catalog().databases();
    names.push("information_schema".into());
    names.sort();
    let mut set = RowSet {
        columns: vec![ResultColumn::text("Database", 64, false)],
        rows: names.into_iter().map(|n| vec![Value::Str(n)]).collect(),
    };
    apply_filter(s, &mut set, filter_of(opts), false)?;
    Ok(QueryResult::Rows(set))
}

fn tables(
    s: &mut Session,
    full: bool,
    opts: &ast::ShowStatementOptions,
) -> Result<QueryResult, SqlError> {
    let db = match opts.show_in.as_ref().and_then(|i| i.parent_name.as_ref()) {
        Some(n) => super::names::object_last(n),
        None => s.current_db.clone().ok_or_else(SqlError::no_database)?,
    };
    let db = super::names::resolve_database(&s.db, &db)?;
    let names = if super::names::is_virtual_database(&db) {
        super::select::information_schema::TABLE_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect()
    } else {
        let mut names = s.db.catalog().tables(&db)?;
        names.retain(|n| !crate::session::temporary::is_hidden(n));
        names
    };
    let mut columns = vec![ResultColumn::text(format!("Tables_in_{db}"), 64, false)];
    if full {
        columns.push(ResultColumn::text("Table_type", 64, false));
    }
    let rows = names
        .into_iter()
        .map(|n| {
            let mut r = vec![Value::Str(n)];
            if full {
                let kind = if super::names::is_virtual_database(&db) {
                    "SYSTEM VIEW"
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

/// A variable's value as SHOW VARIABLES prints it (booleans as ON/OFF,
/// seconds with six decimals).
pub(crate) fn shown(def: &variables::VarDef, v: Value) -> Value {
    match (def.kind, v) {
        (_, Value::Double(d)) => Value::Str(format!("{d:.6}")),
        (variables::Kind::Bool, Value::UInt(n)) => {
            Value::Str(if n != 0 { "ON" } else { "OFF" }.into())
        }
        (_, Value::UInt(n)) => Value::Str(n.to_string()),
        (_, Value::Int(n)) => Value::Str(n.to_string()),
        (_, v) => Value::Str(crate::value::store::value_to_string(&v)),
    }
}

fn variables_rows(
    s: &mut Session,
    global: bool,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    let mut out = Vec::new();
    for def in variables::all() {
        if !global && def.scope == Scope::Global && def.name == "error_count" {
            continue;
        }
        if global && def.scope == Scope::Session {
            continue;
        }
        let v = if global {
            s.db.global_value(def)
        } else {
            eval::Session::system_variable(&*s, def.name, VarScope::Default)?
        };
        out.push(vec![Value::Str(def.name.into()), shown(def, v)]);
    }
    let mut set = RowSet {
        columns: vec![
            ResultColumn::text("Variable_name", 64, false),
            ResultColumn::text("Value", 2048, false),
        ],
        rows: out,
    };
    apply_filter(s, &mut set, filter, true)?;
    Ok(QueryResult::Rows(set))
}

fn status(
    s: &mut Session,
    _global: bool,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    let list = status_list(s);
    let mut set = RowSet {
        columns: vec![
            ResultColumn::text("Variable_name", 64, false),
            ResultColumn::text("Value", 2048, false),
        ],
        rows: list
            .into_iter()
            .map(|(k, v)| vec![Value::Str(k.into()), Value::Str(v)])
            .collect(),
    };
    apply_filter(s, &mut set, filter, true)?;
    Ok(QueryResult::Rows(set))
}

/// The status counters, sorted by name (SHOW STATUS,
/// information_schema.GLOBAL_STATUS).
pub(crate) fn status_list(s: &Session) -> Vec<(&'static str, String)> {
    let c = &s.db.status;
    let n = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed).to_string();
    let threads = s.db.processes().len().to_string();
    let running =
        s.db.processes()
            .iter()
            .filter(|p| p.state.lock().command != "Sleep")
            .count()
            .to_string();
    let locks = s.db.services().locks.stats();
    let purge = &s.db.services().purge;
    let log_stats = s.db.storage().log().stats();
    let wait_ms = locks.total_wait_time.as_millis();
    let mut list: Vec<(&str, String)> = vec![
        ("Com_commit", n(&c.com_commit)),
        ("Com_delete", n(&c.com_delete)),
        ("Com_insert", n(&c.com_insert)),
        ("Com_rollback", n(&c.com_rollback)),
        ("Com_select", n(&c.com_select)),
        ("Com_update", n(&c.com_update)),
        ("Connections", n(&c.connections)),
        (
            "Innodb_buffer_pool_pages_total",
            s.db.storage().pool().capacity().to_string(),
        ),
        (
            "Innodb_page_size",
            s.db.storage().page_size().get().to_string(),
        ),
        (
            "Innodb_history_list_length",
            s.db.services().undo.history_len().to_string(),
        ),
        ("Innodb_deadlocks", locks.deadlocks.to_string()),
        ("Innodb_log_waits", n(&log_stats.waits)),
        ("Innodb_log_writes", n(&log_stats.writes)),
        ("Innodb_os_log_fsyncs", n(&log_stats.syncs)),
        ("Innodb_os_log_written", n(&log_stats.bytes_written)),
        ("Innodb_purged_undo_logs", n(&purge.logs_purged)),
        ("Innodb_purged_undo_logs_early", n(&purge.logs_purged_early)),
        ("Innodb_purged_undo_records", n(&purge.records_purged)),
        ("Innodb_purged_rows", n(&purge.rows_removed)),
        (
            "Innodb_undo_pages",
            s.db.services().undo.undo_pages().to_string(),
        ),
        (
            "Innodb_row_lock_current_waits",
            locks.current_waits.to_string(),
        ),
        ("Innodb_row_lock_time", wait_ms.to_string()),
        (
            "Innodb_row_lock_time_avg",
            wait_ms
                .checked_div(u128::from(locks.total_waits))
                .unwrap_or(0)
                .to_string(),
        ),
        (
            "Innodb_row_lock_time_max",
            locks.max_wait_time.as_millis().to_string(),
        ),
        ("Innodb_row_lock_waits", locks.total_waits.to_string()),
        ("Innodb_rows_deleted", n(&c.rows_deleted)),
        ("Innodb_rows_inserted", n(&c.rows_inserted)),
        ("Innodb_rows_read", n(&c.rows_read)),
        ("Innodb_rows_updated", n(&c.rows_updated)),
        ("Questions", n(&c.questions)),
        ("Queries", n(&c.questions)),
        ("Ssl_cipher", s.ssl_cipher.clone()),
        ("Ssl_version", s.ssl_version.clone()),
        ("Threads_connected", threads),
        ("Threads_running", running),
        ("Uptime", s.db.uptime_secs().to_string()),
    ];
    list.extend(c.prepared.status());
    list.sort_by(|a, b| a.0.cmp(b.0));
    list
}

fn processlist(s: &mut Session, full: bool) -> Result<QueryResult, SqlError> {
    let mut out = Vec::new();
    for p in s.db.processes() {
        let st = p.state.lock().clone();
        let time = st.since.map_or(0, |t| t.elapsed().as_secs());
        let info = st.info.map(|i| {
            if full {
                i
            } else {
                i.chars().take(100).collect()
            }
        });
        out.push(vec![
            Value::UInt(p.id),
            Value::Str(p.user.clone()),
            Value::Str(p.host.clone()),
            st.db.map_or(Value::Null, Value::Str),
            Value::Str(st.command.into()),
            Value::UInt(time),
            Value::Str(
                if st.command == "Query" {
                    "executing"
                } else {
                    ""
                }
                .into(),
            ),
            info.map_or(Value::Null, Value::Str),
            Value::Str("0.000".into()),
        ]);
    }
    Ok(rows(
        vec![
            ResultColumn::bigint("Id", true, false),
            ResultColumn::text("User", 128, false),
            ResultColumn::text("Host", 64, false),
            ResultColumn::text("db", 64, true),
            ResultColumn::text("Command", 16, false),
            ResultColumn::bigint("Time", false, false),
            ResultColumn::text("State", 64, true),
            ResultColumn::text("Info", 65535, true),
            ResultColumn::text("Progress", 10, false),
        ],
        out,
    ))
}

/// The storage engines: Engine, Support, Comment, Transactions, XA,
/// Savepoints.
pub(crate) const ENGINES: &[[&str; 6]] = &[[
    "InnoDB",
    "DEFAULT",
    "Larch: transactions, row-level locking, foreign keys and encryption for tables",
    "YES",
    "YES",
    "YES",
]];

fn engines() -> QueryResult {
    rows(
        vec![
            ResultColumn::text("Engine", 64, false),
            ResultColumn::text("Support", 8, false),
            ResultColumn::text("Comment", 160, false),
            ResultColumn::text("Transactions", 3, true),
            ResultColumn::text("XA", 3, true),
            ResultColumn::text("Savepoints", 3, true),
        ],
        ENGINES
            .iter()
            .map(|e| e.iter().map(|v| Value::Str((*v).into())).collect())
            .collect(),
    )
}

pub(super) fn warnings(
    s: &mut Session,
    errors: bool,
    count_only: bool,
    limit: Option<(u64, u64)>,
) -> Result<QueryResult, SqlError> {
    let list: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| !errors || w.level == Level::Error)
        .cloned()
        .collect();
    if count_only {
        let name = if errors {
            "@@session.error_count"
        } else {
            "@@session.warning_count"
        };
        return Ok(rows(
            vec![ResultColumn::bigint(name, true, false)],
            vec![vec![Value::UInt(list.len() as u64)]],
        ));
    }
    let (offset, count) = limit.unwrap_or((0, u64::MAX));
    let out = list
        .into_iter()
        .skip(offset as usize)
        .take(count.min(usize::MAX as u64) as usize)
        .map(|w| {
            vec![
                Value::Str(w.level.name().into()),
                Value::UInt(u64::from(w.code)),
                Value::Str(w.message),
            ]
        })
        .collect();
    Ok(rows(
        vec![
            ResultColumn::text("Level", 7, false),
            ResultColumn::computed(
                "Code",
                larch_engine::record::value::ColumnType::Int {
                    bytes: 4,
                    unsigned: true,
                },
                false,
            ),
            ResultColumn::text("Message", 512, false),
        ],
        out,
    ))
}

pub(super) fn engine(
    s: &mut Session,
    engine: &str,
    kind: ShowEngineKind,
) -> Result<QueryResult, SqlError> {
    if !engine.eq_ignore_ascii_case("innodb") {
        return Err(SqlError::new(
            1286,
            format!("Unknown storage engine '{engine}'"),
        ));
    }
    let text = match kind {
        ShowEngineKind::Status => innodb_status(s),
        ShowEngineKind::Mutex => String::new(),
    };
    Ok(rows(
        vec![
            ResultColumn::text("Type", 10, false),
            ResultColumn::text("Name", 10, false),
            ResultColumn::text("Status", 65535, false),
        ],
        vec![vec![
            Value::Str("InnoDB".into()),
            Value::Str(String::new()),
            Value::Str(text),
        ]],
    ))
}

fn innodb_status(s: &Session) -> String {
    let trx = s.db.transactions();
    let purge = &s.db.services().purge;
    let storage = s.db.storage();
    let log = storage.log();
    format!(
        "\n=====================================\nLARCH INNODB MONITOR OUTPUT\n=====================================\n\
         ------------\nTRANSACTIONS\n------------\n\
         Trx id counter {}\nPurge done for trx's n:o < {}\nHistory list length {}\n\
         Purged undo logs {} ({} ahead of their turn), undo records {}, rows removed {}\n\
         Undo pages in use {}\n{}\
         ---\nLOG\n---\nLog sequence number {}\n\
         ----------------------\nBUFFER POOL AND MEMORY\n----------------------\n\
         Buffer pool size   {}\n\
         ----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n",
        trx.next_trx_id(),
        trx.low_watermark(),
        s.db.services().undo.history_len(),
        purge.logs_purged.load(Ordering::Relaxed),
        purge.logs_purged_early.load(Ordering::Relaxed),
        purge.records_purged.load(Ordering::Relaxed),
        purge.rows_removed.load(Ordering::Relaxed),
        s.db.services().undo.undo_pages(),
        super::select::innodb_tables::monitor_transactions(s),
        log.current_lsn(),
        storage.pool().capacity(),
    )
}
