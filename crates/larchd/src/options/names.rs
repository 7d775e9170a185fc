//! The option names `larchd` knows: its own, the engine's, the MariaDB
//! options it accepts and ignores, and the `--help` text.

/// Options the server itself reads.
pub const SERVER_OPTIONS: &[&str] = &[
    "port",
    "bind_address",
    "socket",
    "skip_networking",
    "max_connections",
    "log_error",
    "pid_file",
    "max_allowed_packet",
    "wait_timeout",
    "thread_handling",
    "basedir",
    "ssl",
    "ssl_cert",
    "ssl_key",
    "ssl_ca",
    "extra_port",
    "max_unauthenticated_connections",
    "max_unauthenticated_per_host",
    "secure_file_priv",
    "console",
    "user",
    "help",
    "verbose",
    "version",
];

/// Options the engine reads (`EngineConfig::from_options`).
pub const ENGINE_OPTIONS: &[&str] = &[
    "datadir",
    "innodb_page_size",
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_log_buffer_size",
    "innodb_flush_log_at_trx_commit",
    "innodb_doublewrite",
    "innodb_flush_method",
    "innodb_old_blocks_pct",
    "innodb_old_blocks_time",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_max_dirty_pages_pct",
    "innodb_read_ahead_threshold",
    "innodb_undo_tablespaces",
];

/// Options commonly found in MariaDB configurations (Debian's `50-server.cnf`,
/// Docker images, benchmark scripts) that are not server or engine options:
/// those naming a settable SQL system variable (`sql_mode`,
/// `innodb_lock_wait_timeout`, `innodb_sort_buffer_size` ...) set its global
/// value at start-up (`globals`); the rest tune features Larch does not have
/// (binary log, query cache, MyISAM, plugins, TLS cipher lists and
/// requirements, replication, performance schema) and are accepted and
/// ignored.
pub const IGNORED_OPTIONS: &[&str] = &[
    "skip_name_resolve",
    "skip_grant_tables",
    "skip_show_database",
    "skip_slave_start",
    "skip_replica_start",
    "external_locking",
    "symbolic_links",
    "name_resolve",
    "character_set_server",
    "collation_server",
    "character_sets_dir",
    "init_connect",
    "skip_character_set_client_handshake",
    "character_set_client_handshake",
    "sql_mode",
    "default_storage_engine",
    "default_time_zone",
    "explicit_defaults_for_timestamp",
    "lower_case_table_names",
    "transaction_isolation",
    "lock_wait_timeout",
    "interactive_timeout",
    "connect_timeout",
    "net_read_timeout",
    "net_write_timeout",
    "max_connect_errors",
    "max_user_connections",
    "extra_max_connections",
    "connection_control_failed_connections_threshold",
    "connection_control_min_connection_delay",
    "connection_control_max_connection_delay",
    "back_log",
    "thread_cache_size",
    "thread_stack",
    "table_open_cache",
    "table_definition_cache",
    "open_files_limit",
    "tmpdir",
    "lc_messages",
    "lc_messages_dir",
    "log_bin",
    "log_basename",
    "binlog_format",
    "sync_binlog",
    "expire_logs_days",
    "binlog_expire_logs_seconds",
    "max_binlog_size",
    "log_slave_updates",
    "server_id",
    "general_log",
    "general_log_file",
    "slow_query_log",
    "slow_query_log_file",
    "long_query_time",
    "log_warnings",
    "log_queries_not_using_indexes",
    "query_cache_type",
    "query_cache_size",
    "query_cache_limit",
    "key_buffer_size",
    "myisam_recover_options",
    "myisam_sort_buffer_size",
    "aria_pagecache_buffer_size",
    "max_heap_table_size",
    "tmp_table_size",
    "sort_buffer_size",
    "join_buffer_size",
    "read_buffer_size",
    "read_rnd_buffer_size",
    "bulk_insert_buffer_size",
    "performance_schema",
    "userstat",
    "event_scheduler",
    "local_infile",
    "plugin_load_add",
    "plugin_dir",
    "ssl_cipher",
    "require_secure_transport",
    "innodb_file_per_table",
    "innodb_buffer_pool_instances",
    "innodb_log_files_in_group",
    "innodb_autoinc_lock_mode",
    "innodb_stats_on_metadata",
    "innodb_flush_neighbors",
    "innodb_adaptive_hash_index",
    "innodb_use_native_aio",
    "innodb_fast_shutdown",
    "innodb_lock_wait_timeout",
    "innodb_sort_buffer_size",
    "innodb_ddl_buffer_size",
    "innodb_ddl_threads",
    "innodb_online_alter_log_max_size",
    "innodb_fill_factor",
    "innodb_open_files",
    "innodb_file_format",
    "innodb_large_prefix",
    "innodb_strict_mode",
    "innodb_purge_threads",
    "innodb_read_io_threads",
    "innodb_write_io_threads",
    "innodb_thread_concurrency",
    "innodb_buffer_pool_dump_at_shutdown",
    "innodb_buffer_pool_load_at_startup",
    "innodb_checksum_algorithm",
    "innodb_snapshot_isolation",
];

/// The usage text of `--help`.
pub const USAGE: &str = "\
Usage: larchd [OPTIONS]

Starts the Larch server: a MySQL/MariaDB-compatible database server.
Options use mysqld syntax: --name=value or --name value; dashes and
underscores are interchangeable; --loose-, --skip-, --enable- and
--disable- prefixes are understood.

  --defaults-file=FILE        read options from FILE first, groups [mysqld],
                              [server], [mariadb], [larchd]
  --defaults-extra-file=FILE  read FILE after --defaults-file
  --datadir=DIR               data directory (default ./data; created with the
                              `test` database on first start)
  --port=N                    TCP port (default 3306; 0 picks a free port,
                              printed in the ready line)
  --bind-address=ADDR[,ADDR]  addresses to listen on (default 127.0.0.1;
                              `*` or `::` for every address)
  --socket=PATH               Unix socket (default <datadir>/larchd.sock)
  --skip-networking           listen on the Unix socket only
  --max-connections=N         most logged-in client connections (default
                              151; one more for SUPER / CONNECTION ADMIN)
  --extra-port=N              a second TCP port with its own limit (default 0:
                              none), --extra-max-connections=N (default 1)
  --max-unauthenticated-connections=N
                              connections not logged in yet (default 1000),
  --max-unauthenticated-per-host=N
                              and from one host (default 100): past them the
                              oldest is closed
  --secure-file-priv=DIR      where INTO OUTFILE and LOAD DATA INFILE may
                              touch files (default <datadir>/files/)
  --max-allowed-packet=SIZE   largest client packet (default 16M)
  --wait-timeout=SECONDS      idle time before a connection is closed (28800)
  --thread-handling=MODE      one-thread-per-connection (default): each
                              connection runs on a thread of its own, up to
                              --thread-cache-size (256) idle ones kept for
                              new connections; pool-of-threads: connections
                              share one worker thread per CPU
  --log-error[=FILE]          error log (default stderr; bare: <datadir>/larchd.err)
  --pid-file=FILE             pid file (default <datadir>/larchd.pid)
  --basedir=DIR               shown as @@basedir
  --ssl-cert=FILE             server certificate chain (PEM): TLS is offered
                              to TCP clients (rustls; TLS 1.2 and 1.3); without
                              it, the data directory's ca.pem, server-cert.pem
                              and server-key.pem, generated at first start
  --ssl-key=FILE              its private key (PEM; default: the --ssl-cert file)
  --ssl-ca=FILE               CA certificates (PEM) to verify client
                              certificates with, when clients send one
  --skip-ssl                  do not offer TLS
  --innodb-page-size=SIZE     4k, 8k, 16k (default), 32k, 64k; fixed at creation
  --innodb-buffer-pool-size=SIZE
  --innodb-log-file-size=SIZE
  --innodb-log-buffer-size=SIZE
  --innodb-flush-log-at-trx-commit=0|1|2
  --innodb-doublewrite=ON|OFF
  --innodb-flush-method=fsync|O_DSYNC|O_DIRECT|O_DIRECT_NO_FSYNC
  --innodb-io-capacity=N, --innodb-io-capacity-max=N
  --innodb-max-dirty-pages-pct=PCT, --innodb-old-blocks-pct=PCT,
  --innodb-old-blocks-time=MS, --innodb-read-ahead-threshold=N,
  --innodb-undo-tablespaces=N
  -?, --help                  this text (with --verbose: the ignored options)
  -V, --version               the version

Relative --socket, --pid-file, --log-error and --ssl-* paths are inside
the data directory. SIGTERM, SIGINT or the SQL statement SHUTDOWN stop the server
cleanly. LARCH_LOG sets the diagnostic log filter (default warn).
";
