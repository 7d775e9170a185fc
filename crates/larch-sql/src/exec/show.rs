//! SHOW statements about the server: DATABASES, TABLES, VARIABLES, STATUS,
//! PROCESSLIST, ENGINES, WARNINGS/ERRORS, ENGINE INNODB STATUS. (SHOW
//! CREATE TABLE, COLUMNS and INDEX belong to `crate::ddl`.)
//!
//! `LIKE 'pattern'` filters on the first column (case-insensitively for
//! variable and status names, as MySQL does); `WHERE expr` is evaluated over
//! each row with the result's column names.

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
        S::ShowVariable { variable } => {
            let words: Vec<String> = variable
                .iter()
                .map(|i| i.value.to_ascii_uppercase())
                .collect();
            match words.first().map(String::as_str) {
                Some("ENGINES") => Ok(engines()),
                _ => return None,
            }
        }
        _ => return None,
    })
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
                clause: "where clause".into(),
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
        Vec::new()
    } else {
        s.db.catalog().tables(&db)?
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
                r.push(Value::Str("BASE TABLE".into()));
            }
            r
        })
        .collect();
    let mut set = RowSet { columns, rows };
    apply_filter(s, &mut set, filter_of(opts), false)?;
    Ok(QueryResult::Rows(set))
}

/// A variable's value as SHOW VARIABLES prints it (booleans as ON/OFF).
fn shown(def: &variables::VarDef, v: Value) -> Value {
    match (def.kind, v) {
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
    let c = &s.db.status;
    let n = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed).to_string();
    let threads = s.db.processes().len().to_string();
    let running =
        s.db.processes()
            .iter()
            .filter(|p| p.state.lock().command != "Sleep")
            .count()
            .to_string();
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
        ("Innodb_rows_deleted", n(&c.rows_deleted)),
        ("Innodb_rows_inserted", n(&c.rows_inserted)),
        ("Innodb_rows_read", n(&c.rows_read)),
        ("Innodb_rows_updated", n(&c.rows_updated)),
        ("Questions", n(&c.questions)),
        ("Queries", n(&c.questions)),
        ("Threads_connected", threads),
        ("Threads_running", running),
        ("Uptime", s.db.uptime_secs().to_string()),
    ];
    list.sort_by(|a, b| a.0.cmp(b.0));
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

fn engines() -> QueryResult {
    let row = |e: &str, sup: &str, c: &str, t: &str| {
        vec![
            Value::Str(e.into()),
            Value::Str(sup.into()),
            Value::Str(c.into()),
            Value::Str(t.into()),
            Value::Str(t.into()),
            Value::Str(t.into()),
        ]
    };
    rows(
        vec![
            ResultColumn::text("Engine", 64, false),
            ResultColumn::text("Support", 8, false),
            ResultColumn::text("Comment", 160, false),
            ResultColumn::text("Transactions", 3, true),
            ResultColumn::text("XA", 3, true),
            ResultColumn::text("Savepoints", 3, true),
        ],
        vec![row(
            "InnoDB",
            "DEFAULT",
            "Larch: transactions, row-level locking, foreign keys and encryption for tables",
            "YES",
        )],
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
    let storage = s.db.storage();
    let log = storage.log();
    format!(
        "\n=====================================\nLARCH INNODB MONITOR OUTPUT\n=====================================\n\
         ------------\nTRANSACTIONS\n------------\n\
         Trx id counter {}\nPurge done for trx's n:o < {}\nHistory list length 0\n\
         ---\nLOG\n---\nLog sequence number {}\n\
         ----------------------\nBUFFER POOL AND MEMORY\n----------------------\n\
         Buffer pool size   {}\n\
         ----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n",
        trx.next_trx_id(),
        trx.low_watermark(),
        log.current_lsn(),
        storage.pool().capacity(),
    )
}
