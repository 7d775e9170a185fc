//! SHOW statements about the server: VARIABLES, STATUS, PROCESSLIST, ENGINES,
//! PLUGINS, COLLATION, CHARACTER SET, GRANTS, WARNINGS/ERRORS and ENGINE
//! INNODB STATUS.

use std::sync::atomic::Ordering;

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::{Level, SqlError};
use crate::eval::{self, VarScope};
use crate::parse::ShowEngineKind;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::variables::{self, Scope};
use crate::session::Session;

use super::objects::show_tail;
use super::{apply_filter, rows, text_columns};

/// SHOW COLLATION [LIKE | WHERE].
pub(super) fn collations(
    s: &mut Session,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    use crate::exec::select::information_schema::COLLATIONS;
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
pub(super) fn charsets(
    s: &mut Session,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    use crate::exec::select::information_schema::CHARSETS;
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
pub(super) fn plugins(s: &mut Session) -> Result<QueryResult, SqlError> {
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
pub(super) fn grants(s: &mut Session) -> Result<QueryResult, SqlError> {
    crate::exec::grants::show(s, None)
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

pub(super) fn variables_rows(
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

pub(super) fn status(
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
        ("Created_tmp_disk_tables", n(&c.created_tmp_disk_tables)),
        ("Created_tmp_files", n(&c.created_tmp_files)),
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
        ("Sort_merge_passes", n(&c.sort_merge_passes)),
        ("Queries", n(&c.questions)),
        ("Ssl_cipher", s.ssl_cipher.clone()),
        ("Ssl_version", s.ssl_version.clone()),
        ("Threads_connected", threads),
        ("Threads_running", running),
        ("Uptime", s.db.uptime_secs().to_string()),
    ];
    list.extend(c.prepared.status());
    // The server's own counts (threads, accepted connections) replace the
    // SQL layer's.
    let from_server = s.db.server_hooks().status();
    list.retain(|(name, _)| !from_server.iter().any(|(n, _)| n == name));
    list.extend(from_server);
    list.sort_by(|a, b| a.0.cmp(b.0));
    list
}

pub(super) fn processlist(s: &mut Session, full: bool) -> Result<QueryResult, SqlError> {
    let mut out = Vec::new();
    for p in s.db.processes() {
        if !crate::privileges::check::sees_process(s, &p) {
            continue;
        }
        let st = p.state.lock().clone();
        let time = st.since.map_or(0, |t| t.elapsed().as_secs());
        let state = st.state_text();
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
            Value::Str(state.into()),
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

pub(super) fn engines() -> QueryResult {
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

pub(crate) fn warnings(
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

pub(crate) fn engine(
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

pub(super) fn innodb_status(s: &Session) -> String {
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
        crate::exec::select::innodb_tables::monitor_transactions(s),
        log.current_lsn(),
        storage.pool().capacity(),
    )
}
