//! MariaDB settings that tune machinery Larch does not have: the optimizer's
//! join buffers, multi-range reads and search limits, engine-independent
//! histograms, InnoDB's statistics sampling, MyISAM's options, `.frm` files,
//! the table caches, thread caches, and sort and read buffers.
//!
//! MariaDB accepts them with these scopes, types, limits and defaults (as
//! its INFORMATION_SCHEMA.SYSTEM_VARIABLES shows them), and applications and
//! test suites set and restore them. Larch checks and keeps the values like
//! any other variable; none of them changes what a statement returns in
//! MariaDB either (only plans, timings and memory use), except where the
//! entry's comment says how Larch stands.

use super::table::{I64, U32};
use super::{ro, v, Kind, Scope, VarDef};

use Scope::{Both, Global};

const fn int(min: i64, max: i64) -> Kind {
    Kind::Int { min, max }
}

/// ALTER TABLE's algorithms (`alter_algorithm`).
const ALTER_ALGORITHMS: &[&str] = &["DEFAULT", "COPY", "INPLACE", "NOCOPY", "INSTANT"];

/// Sorted by name, disjoint from the main table.
pub(super) static TUNABLES: &[VarDef] = &[
    // Larch rebuilds a table for every ALTER TABLE and accepts any
    // ALGORITHM= clause the same way (ddl/alter.rs).
    v(
        "alter_algorithm",
        Both,
        Kind::Enum(ALTER_ALGORITHMS),
        "DEFAULT",
    ),
    v("bulk_insert_buffer_size", Both, I64, "8388608"),
    // MyISAM's concurrent inserts; Larch has no MyISAM tables.
    v(
        "concurrent_insert",
        Global,
        Kind::Enum(&["NEVER", "AUTO", "ALWAYS"]),
        "AUTO",
    ),
    v("eq_range_index_dive_limit", Both, U32, "200"),
    v("expensive_subquery_limit", Both, I64, "100"),
    // Larch loads no plugins or user-defined function libraries.
    ro("have_dynamic_loading", Kind::Str, "NO"),
    // Engine-independent histograms; Larch collects none.
    v("histogram_size", Both, int(0, 255), "254"),
    v(
        "histogram_type",
        Both,
        Kind::Enum(&["SINGLE_PREC_HB", "DOUBLE_PREC_HB", "JSON_HB"]),
        "DOUBLE_PREC_HB",
    ),
    v("host_cache_size", Global, int(0, 65_536), "279"),
    v("in_predicate_conversion_threshold", Both, U32, "1000"),
    // Larch stores ROW_FORMAT=COMPRESSED tables uncompressed and writable,
    // which is what the default OFF means.
    v("innodb_read_only_compressed", Global, Kind::Bool, "0"),
    // InnoDB's index statistics sampling (row estimates for the optimizer).
    v("innodb_stats_auto_recalc", Global, Kind::Bool, "1"),
    v(
        "innodb_stats_include_delete_marked",
        Global,
        Kind::Bool,
        "0",
    ),
    v(
        "innodb_stats_method",
        Global,
        Kind::Enum(&["nulls_equal", "nulls_unequal", "nulls_ignored"]),
        "nulls_equal",
    ),
    v("innodb_stats_persistent", Global, Kind::Bool, "1"),
    v(
        "innodb_stats_persistent_sample_pages",
        Global,
        int(1, u32::MAX as i64),
        "20",
    ),
    v("innodb_stats_traditional", Global, Kind::Bool, "1"),
    v(
        "innodb_stats_transient_sample_pages",
        Global,
        int(1, u32::MAX as i64),
        "8",
    ),
    v(
        "join_buffer_space_limit",
        Both,
        int(2048, i64::MAX),
        "2097152",
    ),
    v("join_cache_level", Both, int(0, 8), "2"),
    // MyISAM's key cache; Larch has no MyISAM tables.
    v("key_buffer_size", Global, I64, "134217728"),
    // Metadata-lock waits: Larch's DDL waits for no metadata locks.
    v("lock_wait_timeout", Both, int(0, 31_536_000), "86400"),
    // Sort and read buffers of the SQL layer.
    v("max_length_for_sort_data", Both, int(4, 8_388_608), "1024"),
    v(
        "max_prepared_stmt_count",
        Global,
        int(0, u32::MAX as i64),
        "16382",
    ),
    v(
        "mrr_buffer_size",
        Both,
        int(8192, i32::MAX as i64),
        "262144",
    ),
    v("myisam_data_pointer_size", Global, int(2, 7), "6"),
    v("optimizer_max_sel_arg_weight", Both, U32, "32000"),
    v("optimizer_prune_level", Both, int(0, 2), "2"),
    v("optimizer_search_depth", Both, int(0, 62), "62"),
    v(
        "optimizer_selectivity_sampling_limit",
        Both,
        int(10, u32::MAX as i64),
        "100",
    ),
    v("optimizer_use_condition_selectivity", Both, int(1, 5), "4"),
    v(
        "preload_buffer_size",
        Both,
        int(1024, 1_073_741_824),
        "32768",
    ),
    v(
        "query_alloc_block_size",
        Both,
        int(1024, u32::MAX as i64),
        "32768",
    ),
    v(
        "query_prealloc_size",
        Both,
        int(1024, u32::MAX as i64),
        "24576",
    ),
    v(
        "range_alloc_block_size",
        Both,
        int(4096, u32::MAX as i64),
        "4096",
    ),
    v(
        "read_rnd_buffer_size",
        Both,
        int(1, i32::MAX as i64),
        "262144",
    ),
    v("rowid_merge_buff_size", Both, I64, "8388608"),
    // Replication: Larch has no replicas to time out.
    v("slave_net_timeout", Global, int(1, 31_536_000), "60"),
    // Larch writes no .frm files.
    v("sync_frm", Global, Kind::Bool, "1"),
    // The server's caches of table definitions and open tables; Larch
    // keeps every table's definition in memory.
    v("table_definition_cache", Global, int(400, 2_097_152), "400"),
    ro("table_open_cache_instances", int(1, 64), "8"),
    // Connection threads and the host name cache; Larch serves connections
    // as tasks and resolves no host names.
    v("thread_cache_size", Global, int(0, 16_384), "256"),
    ro("thread_stack", int(131_072, i64::MAX), "299008"),
];
