//! System variables: the names MySQL/MariaDB clients, drivers and tools read
//! and set, their scope, type, default and limits.
//!
//! A variable is global-only, session-only, or both (a session starts with the
//! global value). Values are engine [`Value`]s: integers and booleans as
//! `Int`/`UInt` (`@@autocommit` is 1, as in MySQL), everything else as `Str`.
//! Engine settings (`innodb_*`, `datadir`) are read-only and come from the
//! open engine's configuration. Setting a variable checks its type and range
//! with MySQL's errors: 1193 unknown, 1238 read-only, 1228/1229 wrong scope,
//! 1231 bad value, 1232 wrong type.

use larch_engine::record::value::Value;

use crate::database::{Database, SERVER_VERSION};
use crate::error::SqlError;

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    Both,
}

/// The type of a variable's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ON/OFF, 1/0, TRUE/FALSE.
    Bool,
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// Any string.
    Str,
    /// One of the listed names (case-insensitive, stored as listed).
    Enum(&'static [&'static str]),
    /// A comma-separated set of the listed names (`sql_mode`).
    Set(&'static [&'static str]),
    /// A number of seconds with a fraction in `0..=max` (stored as a DOUBLE,
    /// e.g. `max_statement_time`).
    Seconds { max: i64 },
}

/// One system variable.
#[derive(Debug, Clone, Copy)]
pub struct VarDef {
    pub name: &'static str,
    pub scope: Scope,
    pub kind: Kind,
    pub read_only: bool,
    /// The default as text (`None`: computed from the engine in `default_value`).
    pub default: Option<&'static str>,
}

const fn v(name: &'static str, scope: Scope, kind: Kind, default: &'static str) -> VarDef {
    VarDef {
        name,
        scope,
        kind,
        read_only: false,
        default: Some(default),
    }
}

const fn ro(name: &'static str, kind: Kind, default: &'static str) -> VarDef {
    VarDef {
        name,
        scope: Scope::Global,
        kind,
        read_only: true,
        default: Some(default),
    }
}

/// Read-only, computed from the engine or server.
const fn engine(name: &'static str, kind: Kind) -> VarDef {
    VarDef {
        name,
        scope: Scope::Global,
        kind,
        read_only: true,
        default: None,
    }
}

const U32: Kind = Kind::Int {
    min: 0,
    max: u32::MAX as i64,
};
const I64: Kind = Kind::Int {
    min: 0,
    max: i64::MAX,
};
const ISOLATION: Kind = Kind::Enum(&[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
]);

/// sql_mode members MariaDB 10.11 knows.
pub const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// `innodb_version`: the MariaDB release Larch's InnoDB stands for.
const INNODB_VERSION: &str = "10.11.99";

/// MariaDB 10.11's default optimizer_switch (accepted and shown; Larch's
/// planner has no such switches).
const OPTIMIZER_SWITCH: &str = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on,index_merge_sort_intersection=off,engine_condition_pushdown=off,index_condition_pushdown=on,derived_merge=on,derived_with_keys=on,firstmatch=on,loosescan=on,materialization=on,in_to_exists=on,semijoin=on,partial_match_rowid_merge=on,partial_match_table_scan=on,subquery_cache=on,mrr=off,mrr_cost_based=off,mrr_sort_keys=off,outer_join_with_cache=on,semijoin_with_cache=on,join_cache_incremental=on,join_cache_hashed=on,join_cache_bka=on,optimize_join_buffer_size=on,table_elimination=on,extended_keys=on,exists_to_in=on,orderby_uses_equalities=on,condition_pushdown_for_derived=on,split_materialized=on,condition_pushdown_for_subquery=on,rowid_filter=on,condition_pushdown_from_having=on,not_null_range_scan=off,hash_join_cardinality=off,cset_narrowing=off";

/// MariaDB 10.11's default sql_mode.
pub const DEFAULT_SQL_MODE: &str =
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

use Scope::{Both, Global, Session};

/// Every variable, sorted by name (binary search in [`lookup`]).
static VARIABLES: &[VarDef] = &[
    v(
        "auto_increment_increment",
        Both,
        Kind::Int { min: 1, max: 65535 },
        "1",
    ),
    v(
        "auto_increment_offset",
        Both,
        Kind::Int { min: 1, max: 65535 },
        "1",
    ),
    v("autocommit", Both, Kind::Bool, "1"),
    engine("basedir", Kind::Str),
    v("big_tables", Both, Kind::Bool, "0"),
    engine("bind_address", Kind::Str),
    v(
        "binlog_format",
        Both,
        Kind::Enum(&["MIXED", "STATEMENT", "ROW"]),
        "MIXED",
    ),
    v("character_set_client", Both, Kind::Str, "utf8mb4"),
    v("character_set_connection", Both, Kind::Str, "utf8mb4"),
    v("character_set_database", Both, Kind::Str, "utf8mb4"),
    v("character_set_filesystem", Both, Kind::Str, "binary"),
    v("character_set_results", Both, Kind::Str, "utf8mb4"),
    v("character_set_server", Both, Kind::Str, "utf8mb4"),
    ro("character_set_system", Kind::Str, "utf8mb3"),
    v("check_constraint_checks", Both, Kind::Bool, "1"),
    v(
        "collation_connection",
        Both,
        Kind::Str,
        "utf8mb4_general_ci",
    ),
    v("collation_database", Both, Kind::Str, "utf8mb4_general_ci"),
    v("collation_server", Both, Kind::Str, "utf8mb4_general_ci"),
    v(
        "completion_type",
        Both,
        Kind::Enum(&["NO_CHAIN", "CHAIN", "RELEASE"]),
        "NO_CHAIN",
    ),
    v(
        "connect_timeout",
        Global,
        Kind::Int {
            min: 2,
            max: 31_536_000,
        },
        "10",
    ),
    engine("datadir", Kind::Str),
    v("default_storage_engine", Both, Kind::Str, "InnoDB"),
    v("default_tmp_storage_engine", Both, Kind::Str, ""),
    v(
        "default_week_format",
        Both,
        Kind::Int { min: 0, max: 7 },
        "0",
    ),
    v(
        "div_precision_increment",
        Both,
        Kind::Int { min: 0, max: 30 },
        "4",
    ),
    v("enforce_storage_engine", Both, Kind::Str, ""),
    ro("error_count", Kind::Str, "0"),
    v(
        "event_scheduler",
        Global,
        Kind::Enum(&["OFF", "ON", "DISABLED"]),
        "OFF",
    ),
    v("explicit_defaults_for_timestamp", Both, Kind::Bool, "1"),
    v("foreign_key_checks", Both, Kind::Bool, "1"),
    v("general_log", Global, Kind::Bool, "0"),
    v(
        "group_concat_max_len",
        Both,
        Kind::Int {
            min: 4,
            max: i64::MAX,
        },
        "1048576",
    ),
    ro("gtid_binlog_pos", Kind::Str, ""),
    ro("gtid_binlog_state", Kind::Str, ""),
    ro("gtid_current_pos", Kind::Str, ""),
    v("gtid_domain_id", Both, U32, "0"),
    v("gtid_slave_pos", Global, Kind::Str, ""),
    v("gtid_strict_mode", Global, Kind::Bool, "0"),
    ro("have_openssl", Kind::Str, "NO"),
    ro("have_ssl", Kind::Str, "DISABLED"),
    engine("hostname", Kind::Str),
    v("identity", Session, I64, "0"),
    v("init_connect", Global, Kind::Str, ""),
    v("innodb_adaptive_hash_index", Global, Kind::Bool, "0"),
    ro("innodb_autoinc_lock_mode", U32, "1"),
    engine("innodb_buffer_pool_size", I64),
    v(
        "innodb_default_row_format",
        Global,
        Kind::Enum(&["redundant", "compact", "dynamic"]),
        "dynamic",
    ),
    engine("innodb_doublewrite", Kind::Bool),
    ro("innodb_file_per_table", Kind::Bool, "1"),
    engine("innodb_flush_log_at_trx_commit", U32),
    engine("innodb_flush_method", Kind::Str),
    v(
        "innodb_ft_max_token_size",
        Global,
        Kind::Int { min: 10, max: 84 },
        "84",
    ),
    v(
        "innodb_ft_min_token_size",
        Global,
        Kind::Int { min: 0, max: 16 },
        "3",
    ),
    engine("innodb_io_capacity", U32),
    engine("innodb_io_capacity_max", U32),
    v(
        "innodb_lock_wait_timeout",
        Both,
        Kind::Int {
            min: 0,
            max: 100_000_000,
        },
        "50",
    ),
    engine("innodb_log_buffer_size", I64),
    engine("innodb_log_file_size", I64),
    engine("innodb_old_blocks_pct", U32),
    engine("innodb_old_blocks_time", U32),
    engine("innodb_page_size", U32),
    engine("innodb_read_ahead_threshold", U32),
    ro("innodb_rollback_on_timeout", Kind::Bool, "0"),
    v("innodb_sort_buffer_size", Global, I64, "1048576"),
    v("innodb_stats_on_metadata", Global, Kind::Bool, "0"),
    v("innodb_strict_mode", Both, Kind::Bool, "1"),
    engine("innodb_undo_tablespaces", U32),
    ro("innodb_version", Kind::Str, INNODB_VERSION),
    v("insert_id", Session, I64, "0"),
    v(
        "interactive_timeout",
        Both,
        Kind::Int {
            min: 1,
            max: 31_536_000,
        },
        "28800",
    ),
    v("join_buffer_size", Both, I64, "262144"),
    v("last_insert_id", Session, I64, "0"),
    v("lc_messages", Both, Kind::Str, "en_US"),
    v("lc_time_names", Both, Kind::Str, "en_US"),
    ro("license", Kind::Str, "Apache-2.0"),
    v("local_infile", Global, Kind::Bool, "1"),
    ro("log_bin", Kind::Bool, "0"),
    v("log_bin_trust_function_creators", Global, Kind::Bool, "0"),
    v(
        "long_query_time",
        Both,
        Kind::Seconds { max: 31_536_000 },
        "10.000000",
    ),
    ro("lower_case_file_system", Kind::Bool, "0"),
    ro("lower_case_table_names", U32, "0"),
    v(
        "max_allowed_packet",
        Both,
        Kind::Int {
            min: 1024,
            max: 1_073_741_824,
        },
        "16777216",
    ),
    engine("max_connections", U32),
    v(
        "max_error_count",
        Both,
        Kind::Int { min: 0, max: 65535 },
        "64",
    ),
    v("max_execution_time", Both, U32, "0"),
    v("max_heap_table_size", Both, I64, "16777216"),
    v(
        "max_sort_length",
        Both,
        Kind::Int {
            min: 8,
            max: 8_388_608,
        },
        "1024",
    ),
    v(
        "max_statement_time",
        Both,
        Kind::Seconds { max: 31_536_000 },
        "0.000000",
    ),
    v(
        "net_buffer_length",
        Both,
        Kind::Int {
            min: 1024,
            max: 1_048_576,
        },
        "16384",
    ),
    v(
        "net_read_timeout",
        Both,
        Kind::Int {
            min: 1,
            max: 31_536_000,
        },
        "30",
    ),
    v(
        "net_write_timeout",
        Both,
        Kind::Int {
            min: 1,
            max: 31_536_000,
        },
        "60",
    ),
    v(
        "note_verbosity",
        Both,
        Kind::Set(&["basic", "unusual", "explain"]),
        "basic,explain",
    ),
    v("old_mode", Both, Kind::Str, "UTF8_IS_UTF8MB3"),
    v("optimizer_switch", Both, Kind::Str, OPTIMIZER_SWITCH),
    ro("performance_schema", Kind::Bool, "0"),
    engine("pid_file", Kind::Str),
    engine("port", U32),
    v("profiling", Both, Kind::Bool, "0"),
    ro("protocol_version", U32, "10"),
    v("query_cache_size", Global, I64, "1048576"),
    v(
        "query_cache_type",
        Both,
        Kind::Enum(&["OFF", "ON", "DEMAND"]),
        "OFF",
    ),
    v("read_buffer_size", Both, I64, "131072"),
    v("read_only", Global, Kind::Bool, "0"),
    ro("secure_file_priv", Kind::Str, ""),
    v("server_id", Both, U32, "1"),
    ro("skip_name_resolve", Kind::Bool, "0"),
    ro("skip_networking", Kind::Bool, "0"),
    v("slow_query_log", Global, Kind::Bool, "0"),
    engine("socket", Kind::Str),
    v("sort_buffer_size", Both, I64, "2097152"),
    v("sql_auto_is_null", Both, Kind::Bool, "0"),
    v("sql_big_selects", Both, Kind::Bool, "1"),
    v("sql_buffer_result", Both, Kind::Bool, "0"),
    v("sql_if_exists", Both, Kind::Bool, "0"),
    v("sql_log_bin", Both, Kind::Bool, "1"),
    v("sql_mode", Both, Kind::Set(SQL_MODES), DEFAULT_SQL_MODE),
    v("sql_notes", Both, Kind::Bool, "1"),
    v("sql_quote_show_create", Both, Kind::Bool, "1"),
    v("sql_safe_updates", Both, Kind::Bool, "0"),
    v("sql_select_limit", Both, I64, "18446744073709551615"),
    v("sql_warnings", Both, Kind::Bool, "0"),
    v("storage_engine", Both, Kind::Str, "InnoDB"),
    ro("system_time_zone", Kind::Str, "UTC"),
    v(
        "system_versioning_alter_history",
        Both,
        Kind::Enum(&["ERROR", "KEEP"]),
        "ERROR",
    ),
    v("system_versioning_insert_history", Both, Kind::Bool, "0"),
    v("table_open_cache", Global, U32, "2000"),
    v(
        "thread_handling",
        Global,
        Kind::Str,
        "one-thread-per-connection",
    ),
    v("time_zone", Both, Kind::Str, "SYSTEM"),
    v("timestamp", Session, Kind::Str, "0"),
    v("tmp_table_size", Both, I64, "16777216"),
    ro("tmpdir", Kind::Str, "/tmp"),
    v("transaction_isolation", Both, ISOLATION, "REPEATABLE-READ"),
    v("transaction_read_only", Both, Kind::Bool, "0"),
    v("tx_isolation", Both, ISOLATION, "REPEATABLE-READ"),
    v("tx_read_only", Both, Kind::Bool, "0"),
    v("unique_checks", Both, Kind::Bool, "1"),
    v(
        "updatable_views_with_limit",
        Both,
        Kind::Enum(&["NO", "YES"]),
        "YES",
    ),
    ro("version", Kind::Str, SERVER_VERSION),
    ro("version_comment", Kind::Str, "Larch"),
    ro("version_compile_machine", Kind::Str, std::env::consts::ARCH),
    ro("version_compile_os", Kind::Str, "Linux"),
    v(
        "wait_timeout",
        Both,
        Kind::Int {
            min: 1,
            max: 31_536_000,
        },
        "28800",
    ),
    ro("warning_count", Kind::Str, "0"),
];

/// The definition of `name` (case-insensitive).
pub fn lookup(name: &str) -> Option<&'static VarDef> {
    let lower = name.to_ascii_lowercase();
    VARIABLES
        .binary_search_by(|d| d.name.cmp(lower.as_str()))
        .ok()
        .map(|i| &VARIABLES[i])
}

/// Every variable, in name order.
pub fn all() -> &'static [VarDef] {
    VARIABLES
}

/// The aliases that must change together (`tx_isolation` is the old name).
pub fn alias_of(name: &str) -> Option<&'static str> {
    match name {
        "tx_isolation" => Some("transaction_isolation"),
        "transaction_isolation" => Some("tx_isolation"),
        "tx_read_only" => Some("transaction_read_only"),
        "transaction_read_only" => Some("tx_read_only"),
        _ => None,
    }
}

/// The default value of a variable.
pub fn default_value(def: &VarDef, db: &Database) -> Value {
    if let Some(text) = def.default {
        return parse_default(def.kind, text);
    }
    let c = db.storage().config();
    let int = |n: u64| Value::UInt(n);
    match def.name {
        "datadir" => Value::Str(format!("{}/", db.storage().datadir().display())),
        "innodb_buffer_pool_size" => int(c.buffer_pool_size),
        "innodb_doublewrite" => int(u64::from(c.doublewrite)),
        "innodb_flush_log_at_trx_commit" => int(u64::from(c.flush_log_at_trx_commit)),
        "innodb_flush_method" => Value::Str(c.flush_method.name().to_owned()),
        "innodb_io_capacity" => int(u64::from(c.io_capacity)),
        "innodb_io_capacity_max" => int(u64::from(c.io_capacity_max)),
        "innodb_log_buffer_size" => int(c.log_buffer_size),
        "innodb_log_file_size" => int(c.log_file_size),
        "innodb_old_blocks_pct" => int(u64::from(c.old_blocks_pct)),
        "innodb_old_blocks_time" => int(u64::from(c.old_blocks_time_ms)),
        "innodb_page_size" => int(u64::from(db.storage().page_size().get())),
        "innodb_read_ahead_threshold" => int(u64::from(c.read_ahead_threshold)),
        "innodb_undo_tablespaces" => int(u64::from(c.undo_tablespaces)),
        "port" => int(0),
        "max_connections" => int(151),
        "hostname" => Value::Str(hostname()),
        _ => Value::Str(String::new()),
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "localhost".to_owned())
}

fn parse_default(kind: Kind, text: &str) -> Value {
    match kind {
        Kind::Seconds { .. } => Value::Double(text.parse().unwrap_or(0.0)),
        Kind::Bool | Kind::Int { .. } => text
            .parse::<u64>()
            .map(Value::UInt)
            .unwrap_or_else(|_| Value::Str(text.to_owned())),
        _ => Value::Str(text.to_owned()),
    }
}

fn wrong_value(name: &str, shown: &str) -> SqlError {
    SqlError::new(
        1231,
        format!("Variable '{name}' can't be set to the value of '{shown}'"),
    )
}

fn wrong_type(name: &str) -> SqlError {
    SqlError::new(
        1232,
        format!("Incorrect argument type to variable '{name}'"),
    )
}

/// Checks `value` for `def` and converts it to the stored form.
pub fn normalize(def: &VarDef, value: Value) -> Result<Value, SqlError> {
    let name = def.name;
    let text = |v: &Value| -> Option<String> {
        match v {
            Value::Str(s) => Some(s.clone()),
            Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    };
    match def.kind {
        Kind::Bool => {
            let b = match &value {
                Value::Int(0) | Value::UInt(0) => false,
                Value::Int(1) | Value::UInt(1) => true,
                Value::Int(n) => return Err(wrong_value(name, &n.to_string())),
                Value::UInt(n) => return Err(wrong_value(name, &n.to_string())),
                Value::Null => return Err(wrong_value(name, "NULL")),
                v => match text(v).map(|s| s.to_ascii_uppercase()).as_deref() {
                    Some("ON" | "TRUE") => true,
                    Some("OFF" | "FALSE") => false,
                    Some(other) => return Err(wrong_value(name, other)),
                    None => return Err(wrong_type(name)),
                },
            };
            Ok(Value::UInt(u64::from(b)))
        }
        Kind::Int { min, max } => {
            let n: i128 = match &value {
                Value::Int(n) => i128::from(*n),
                Value::UInt(n) => i128::from(*n),
                Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
                    return Err(wrong_type(name))
                }
                Value::Str(s) if s.eq_ignore_ascii_case("default") => {
                    return Ok(parse_default(def.kind, def.default.unwrap_or("0")))
                }
                _ => return Err(wrong_type(name)),
            };
            // MySQL clamps out-of-range integers (with warning 1292).
            let clamped = n.clamp(i128::from(min), i128::from(max));
            Ok(if clamped < 0 {
                Value::Int(clamped as i64)
            } else {
                Value::UInt(clamped as u64)
            })
        }
        Kind::Seconds { max } => {
            let n: f64 = match &value {
                Value::Int(n) => *n as f64,
                Value::UInt(n) => *n as f64,
                Value::Double(d) => *d,
                Value::Float(f) => f64::from(*f),
                Value::Decimal(_) => crate::value::store::value_to_string(&value)
                    .parse()
                    .map_err(|_| wrong_type(name))?,
                _ => return Err(wrong_type(name)),
            };
            if n.is_nan() {
                return Err(wrong_type(name));
            }
            Ok(Value::Double(n.clamp(0.0, max as f64)))
        }
        Kind::Str => match &value {
            Value::Null => Ok(Value::Str(String::new())),
            Value::Int(n) => Ok(Value::Str(n.to_string())),
            Value::UInt(n) => Ok(Value::Str(n.to_string())),
            v => text(v).map(Value::Str).ok_or_else(|| wrong_type(name)),
        },
        Kind::Enum(names) => {
            let chosen = match &value {
                Value::Int(n) if *n >= 0 && (*n as usize) < names.len() => names[*n as usize],
                Value::UInt(n) if (*n as usize) < names.len() => names[*n as usize],
                Value::Null => return Err(wrong_value(name, "NULL")),
                v => {
                    let s = text(v).ok_or_else(|| wrong_type(name))?;
                    let up = s.replace(' ', "-");
                    *names
                        .iter()
                        .find(|n| n.eq_ignore_ascii_case(&up))
                        .ok_or_else(|| wrong_value(name, &s))?
                }
            };
            Ok(Value::Str(chosen.to_owned()))
        }
        Kind::Set(names) => {
            let s = match &value {
                Value::Null => return Err(wrong_value(name, "NULL")),
                Value::Int(_) | Value::UInt(_) => {
                    let bits = match value {
                        Value::Int(n) => n as u64,
                        Value::UInt(n) => n,
                        _ => 0,
                    };
                    let picked: Vec<&str> = names
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i < 64 && bits & (1 << i) != 0)
                        .map(|(_, n)| *n)
                        .collect();
                    return Ok(Value::Str(picked.join(",")));
                }
                v => text(v).ok_or_else(|| wrong_type(name))?,
            };
            let mut picked: Vec<&str> = Vec::new();
            for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let member = names
                    .iter()
                    .find(|n| n.eq_ignore_ascii_case(part))
                    .ok_or_else(|| wrong_value(name, part))?;
                for m in expand_mode(member) {
                    if !picked.contains(&m) {
                        picked.push(m);
                    }
                }
            }
            picked.sort_by_key(|m| names.iter().position(|n| n == m));
            Ok(Value::Str(picked.join(",")))
        }
    }
}

/// Combination modes stand for several members (MariaDB keeps the name too).
fn expand_mode(mode: &'static str) -> Vec<&'static str> {
    match mode {
        "TRADITIONAL" => vec![
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "TRADITIONAL",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ],
        "ANSI" => vec![
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "ANSI",
        ],
        m => vec![m],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in VARIABLES.windows(2) {
            assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
        }
        assert!(lookup("AUTOCOMMIT").is_some());
        assert!(lookup("no_such_variable").is_none());
    }

    #[test]
    fn values_are_checked_as_mysql_does() {
        let ac = lookup("autocommit").expect("autocommit");
        assert_eq!(
            normalize(ac, Value::Str("off".into())).ok(),
            Some(Value::UInt(0))
        );
        assert_eq!(
            normalize(ac, Value::Int(2)).map_err(|e| e.code()),
            Err(1231)
        );
        let iso = lookup("transaction_isolation").expect("isolation");
        assert_eq!(
            normalize(iso, Value::Str("read-committed".into())).ok(),
            Some(Value::Str("READ-COMMITTED".into()))
        );
        let mode = lookup("sql_mode").expect("sql_mode");
        assert_eq!(
            normalize(mode, Value::Str("no_zero_date,strict_trans_tables".into())).ok(),
            Some(Value::Str("STRICT_TRANS_TABLES,NO_ZERO_DATE".into()))
        );
        assert_eq!(
            normalize(mode, Value::Str("bogus".into())).map_err(|e| e.code()),
            Err(1231)
        );
        let mst = lookup("max_statement_time").expect("max_statement_time");
        assert_eq!(normalize(mst, Value::Int(5)).ok(), Some(Value::Double(5.0)));
        assert_eq!(
            normalize(mst, Value::Str("x".into())).map_err(|e| e.code()),
            Err(1232)
        );
        let notes = lookup("note_verbosity").expect("note_verbosity");
        assert_eq!(
            normalize(notes, Value::Str("EXPLAIN,basic".into())).ok(),
            Some(Value::Str("basic,explain".into()))
        );
        let wait = lookup("wait_timeout").expect("wait_timeout");
        assert_eq!(normalize(wait, Value::Int(0)).ok(), Some(Value::UInt(1)));
        assert_eq!(
            normalize(wait, Value::Str("x".into())).map_err(|e| e.code()),
            Err(1232)
        );
    }
}
