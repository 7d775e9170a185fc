//! The table of system variables Larch implements: their scope, type,
//! default and read-only-ness, as MariaDB 10.11 defines them.

use super::{engine, ro, v, Kind, Scope, VarDef};
use crate::database::SERVER_VERSION;

pub(super) const U32: Kind = Kind::Int {
    min: 0,
    max: u32::MAX as i64,
};
pub(super) const I64: Kind = Kind::Int {
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
pub(super) static VARIABLES: &[VarDef] = &[
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
        Kind::Enum(&["OFF", "ON", "DISABLED", "ORIGINAL"]),
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
    // MariaDB's meaning: linked with OpenSSL (Larch's TLS is rustls).
    ro("have_openssl", Kind::Str, "NO"),
    // YES once the server loaded a certificate (a server fact).
    ro("have_ssl", Kind::Str, "DISABLED"),
    engine("hostname", Kind::Str),
    v("identity", Session, I64, "0"),
    v("init_connect", Global, Kind::Str, ""),
    v("innodb_adaptive_hash_index", Global, Kind::Bool, "0"),
    ro("innodb_autoinc_lock_mode", U32, "1"),
    engine("innodb_buffer_pool_size", I64),
    // Index builds (`larch_engine::ddl`): the sort memory per build thread
    // (MySQL 8.0's variable; MariaDB sorts in innodb_sort_buffer_size
    // per index) and the build threads.
    v(
        "innodb_ddl_buffer_size",
        Both,
        Kind::Int {
            min: 65_536,
            max: u32::MAX as i64,
        },
        "1048576",
    ),
    v(
        "innodb_ddl_threads",
        Both,
        Kind::Int { min: 1, max: 64 },
        "2",
    ),
    v(
        "innodb_default_row_format",
        Global,
        Kind::Enum(&["redundant", "compact", "dynamic"]),
        "dynamic",
    ),
    engine("innodb_doublewrite", Kind::Bool),
    // Larch always gives a table its own file; the setting is kept and shown
    // (MariaDB's default ON is what Larch does).
    v("innodb_file_per_table", Global, Kind::Bool, "1"),
    v(
        "innodb_fill_factor",
        Global,
        Kind::Int { min: 10, max: 100 },
        "100",
    ),
    engine("innodb_flush_log_at_trx_commit", U32),
    engine("innodb_flush_method", Kind::Str),
    // A table's `db/name` (`INFORMATION_SCHEMA.INNODB_FT_*`), checked when set.
    v("innodb_ft_aux_table", Global, Kind::Str, "\\N"),
    ro(
        "innodb_ft_cache_size",
        Kind::Int {
            min: 1_600_000,
            max: 80_000_000,
        },
        "8000000",
    ),
    v("innodb_ft_enable_diag_print", Global, Kind::Bool, "0"),
    v("innodb_ft_enable_stopword", Both, Kind::Bool, "1"),
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
    v(
        "innodb_ft_num_word_optimize",
        Global,
        Kind::Int {
            min: 1000,
            max: 10_000,
        },
        "2000",
    ),
    v(
        "innodb_ft_result_cache_limit",
        Global,
        Kind::Int {
            min: 1_000_000,
            max: 4_294_967_295,
        },
        "2000000000",
    ),
    // `db/name` of a stopword table (`ddl::stopwords`), checked when set.
    v("innodb_ft_server_stopword_table", Global, Kind::Str, "\\N"),
    ro(
        "innodb_ft_sort_pll_degree",
        Kind::Int { min: 1, max: 16 },
        "2",
    ),
    ro(
        "innodb_ft_total_cache_size",
        Kind::Int {
            min: 32_000_000,
            max: 1_600_000_000,
        },
        "640000000",
    ),
    v("innodb_ft_user_stopword_table", Both, Kind::Str, "\\N"),
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
    v(
        "innodb_online_alter_log_max_size",
        Global,
        Kind::Int {
            min: 65_536,
            max: i64::MAX,
        },
        "134217728",
    ),
    v("innodb_optimize_fulltext_only", Global, Kind::Bool, "0"),
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
    engine("log_error", Kind::Str),
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
    // Iterations of a recursive WITH element before it stops with warning
    // 1931 (exec/select/cte.rs).
    v(
        "max_recursive_iterations",
        Both,
        Kind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        "1000",
    ),
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
        "max_sp_recursion_depth",
        Both,
        Kind::Int { min: 0, max: 255 },
        "0",
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
    // The server's TLS files (server facts), empty without TLS.
    ro("ssl_ca", Kind::Str, ""),
    ro("ssl_cert", Kind::Str, ""),
    ro("ssl_key", Kind::Str, ""),
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
    ro(
        "thread_handling",
        Kind::Enum(&["one-thread-per-connection", "no-threads", "pool-of-threads"]),
        "one-thread-per-connection",
    ),
    v("time_zone", Both, Kind::Str, "SYSTEM"),
    // The session's clock: 0 follows the system clock (read as the current
    // time), anything else fixes NOW() and friends (see `Session::now_micros`).
    v(
        "timestamp",
        Session,
        Kind::Seconds { max: 2_147_483_647 },
        "0.000000",
    ),
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
    // The server's TLS library (a server fact).
    ro("version_ssl_library", Kind::Str, ""),
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
