//! Larch with real MySQL/MariaDB clients:
//!
//! - the server metadata dump tools read (INFORMATION_SCHEMA tables, SHOW
//!   TABLE STATUS / TRIGGERS / VARIABLES, SET forms) through the `mysql`
//!   crate;
//! - a `mariadb-dump` round trip: a dump file in mariadb-dump 10.11's format
//!   (`fixtures/shop-dump.sql`: every column type, quotes, backslashes,
//!   UTF-8, BLOBs with every byte value, NULLs, secondary and unique keys,
//!   AUTO_INCREMENT, plus `_binary '...'` and hex literals as MySQL's
//!   mysqldump and `--hex-blob` write them) is loaded with the `mariadb`
//!   client, dumped again with `mariadb-dump`, loaded into a second server,
//!   and every table and row compared;
//! - sysbench 1.0.20 smoke runs of every bundled OLTP workload in both
//!   prepared-statement modes, one thread (`sysbench_concurrency.rs` runs
//!   `oltp_read_write` with eight).
//!
//! The tests that need `mariadb`, `mariadb-dump` or `sysbench` print why
//! and return early when the binary is missing
//! (`crates/larchd/scripts/install-test-deps.sh` installs them).

mod support;

use std::path::Path;

use mysql::prelude::Queryable;
use mysql::Value as V;
use support::clients::{comparable, counter, dump, installed, load, sysbench, sysbench_args};
use support::{server_error, tempdir, Larchd, Res};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shop-dump.sql");

/// A table's name, SHOW CREATE TABLE text and rows.
type TableCopy = (String, String, Vec<Vec<V>>);

/// Every table of `db`: its SHOW CREATE TABLE text and all its rows in
/// primary key order (text protocol: the values exactly as sent).
fn snapshot(
    conn: &mut mysql::Conn,
    db: &str,
) -> Result<Vec<TableCopy>, Box<dyn std::error::Error>> {
    let tables: Vec<String> = conn.query(format!("SHOW TABLES FROM `{db}`"))?;
    let mut out = Vec::new();
    for t in tables {
        let create: Option<(String, String)> =
            conn.query_first(format!("SHOW CREATE TABLE `{db}`.`{t}`"))?;
        let create = create.ok_or("no SHOW CREATE TABLE row")?.1;
        let rows: Vec<mysql::Row> = conn.query(format!("SELECT * FROM `{db}`.`{t}` ORDER BY 1"))?;
        let rows = rows.into_iter().map(|r| r.unwrap()).collect();
        out.push((t, create, rows));
    }
    Ok(out)
}

fn hex(conn: &mut mysql::Conn, sql: &str) -> Result<Option<String>, Box<dyn std::error::Error>> {
    Ok(conn.query_first::<Option<String>, _>(sql)?.flatten())
}

/// Checks that the fixture's values arrived as written.
fn check_loaded(conn: &mut mysql::Conn, db: &str) -> Res {
    let q = |c: &str, id: u32| format!("SELECT {c} FROM `{db}`.types WHERE id = {id}");
    assert_eq!(
        hex(conn, &q("HEX(bl)", 1))?.as_deref(),
        Some("00FF0A0D5C2701801A")
    );
    assert_eq!(hex(conn, &q("HEX(vb)", 1))?.as_deref(), Some("0000FF"));
    assert_eq!(hex(conn, &q("HEX(bn)", 1))?.as_deref(), Some("6100FF"));
    assert_eq!(hex(conn, &q("HEX(bn)", 3))?.as_deref(), Some("000000"));
    assert_eq!(hex(conn, &q("bt + 0", 1))?.as_deref(), Some("513"));
    assert_eq!(hex(conn, &q("bt + 0", 5))?.as_deref(), Some("1023"));
    assert_eq!(
        hex(conn, &q("vc", 1))?.as_deref(),
        Some("it's a \\ \"quote\"")
    );
    assert_eq!(hex(conn, &q("vl", 1))?.as_deref(), Some("café"));
    assert_eq!(
        hex(conn, &q("tx", 1))?.as_deref(),
        Some("line1\nline2\ttab\r\u{1a}€")
    );
    assert_eq!(hex(conn, &q("mt", 1))?.as_deref(), Some("😀 emoji"));
    assert_eq!(hex(conn, &q("ch", 3))?.as_deref(), Some("é€中"));
    assert_eq!(hex(conn, &q("LENGTH(tx)", 5))?.as_deref(), Some("4800"));
    assert_eq!(hex(conn, &q("dc", 1))?.as_deref(), Some("-12345678.9012"));
    assert_eq!(
        hex(conn, &q("bu", 1))?.as_deref(),
        Some("18446744073709551615")
    );
    assert_eq!(hex(conn, &q("tm", 1))?.as_deref(), Some("-838:59:59"));
    assert_eq!(
        hex(conn, &q("dt", 5))?.as_deref(),
        Some("9999-12-31 23:59:59.999")
    );
    assert_eq!(hex(conn, &q("en", 1))?.as_deref(), Some("it's"));
    assert_eq!(hex(conn, &q("st", 5))?.as_deref(), Some("red,green,blue"));
    assert_eq!(hex(conn, &q("tx", 2))?, None);
    let all: String = (0u8..=255).map(|b| format!("{b:02X}")).collect();
    assert_eq!(hex(conn, &q("HEX(bl)", 5))?.as_deref(), Some(all.as_str()));
    let legacy = |id: u32| format!("SELECT HEX(b) FROM `{db}`.legacy_bin WHERE id = {id}");
    assert_eq!(hex(conn, &legacy(1))?.as_deref(), Some("00FF00275C221A0A"));
    assert_eq!(hex(conn, &legacy(2))?.as_deref(), Some("00FF41"));
    assert_eq!(hex(conn, &legacy(3))?.as_deref(), Some("DEADBEEF"));
    assert_eq!(hex(conn, &legacy(4))?.as_deref(), Some(all.as_str()));
    assert_eq!(
        conn.query_first::<i64, _>(format!("SELECT COUNT(*) FROM `{db}`.orders"))?,
        Some(3)
    );
    assert_eq!(
        conn.query_first::<i64, _>(format!("SELECT COUNT(*) FROM `{db}`.empty_one"))?,
        Some(0)
    );
    Ok(())
}

#[test]
fn mariadb_dump_round_trip() -> Res {
    if !installed("mariadb_dump_round_trip", "mariadb")
        || !installed("mariadb_dump_round_trip", "mariadb-dump")
    {
        return Ok(());
    }
    let dir = tempdir()?;
    let a = Larchd::start(&dir.path().join("a"), &[])?;
    let mut ca = a.connect()?;
    ca.query_drop("CREATE DATABASE shop")?;
    load(&a, "shop", Path::new(FIXTURE))?;
    check_loaded(&mut ca, "shop")?;
    let original = snapshot(&mut ca, "shop")?;
    assert_eq!(original.len(), 4);

    // The server's own dump, in the default format and in another one.
    let first = dump(&a, &["shop"])?;
    let first_path = dir.path().join("first.sql");
    std::fs::write(&first_path, &first)?;
    let other = dump(
        &a,
        &[
            "--single-transaction",
            "--events",
            "--hex-blob",
            "--complete-insert",
            "--skip-extended-insert",
            "--order-by-primary",
            "shop",
        ],
    )?;
    let other_path = dir.path().join("other.sql");
    std::fs::write(&other_path, &other)?;
    assert!(
        other.windows(12).any(|w| w == b",0x00FF0A0D5"),
        "--hex-blob wrote no hex literal"
    );

    // Loaded into a second server, both dumps give the same tables and rows.
    let b = Larchd::start(&dir.path().join("b"), &[])?;
    let mut cb = b.connect()?;
    cb.query_drop("CREATE DATABASE shop")?;
    cb.query_drop("CREATE DATABASE shop_other")?;
    load(&b, "shop", &first_path)?;
    load(&b, "shop_other", &other_path)?;
    for db in ["shop", "shop_other"] {
        let copy = snapshot(&mut cb, db)?;
        assert_eq!(copy.len(), original.len(), "{db}");
        for (o, c) in original.iter().zip(&copy) {
            assert_eq!(o.0, c.0, "{db}: table names");
            assert_eq!(o.1, c.1, "{db}.{}: SHOW CREATE TABLE", o.0);
            assert_eq!(o.2.len(), c.2.len(), "{db}.{}: row count", o.0);
            for (ro, rc) in o.2.iter().zip(&c.2) {
                assert_eq!(ro, rc, "{db}.{}: row", o.0);
            }
        }
        check_loaded(&mut cb, db)?;
    }
    // Dumping the copy gives the same file.
    let second = dump(&b, &["shop"])?;
    assert!(
        comparable(&first) == comparable(&second),
        "the dump of the reloaded copy differs:\n{}",
        String::from_utf8_lossy(&second)
    );
    // AUTO_INCREMENT counters came along.
    cb.query_drop("INSERT INTO shop.types (vc) VALUES ('next')")?;
    assert_eq!(cb.last_insert_id(), 6);
    cb.query_drop("INSERT INTO shop.orders (customer, placed) VALUES ('cy', NOW())")?;
    assert_eq!(cb.last_insert_id(), 104);

    // A whole-server dump reloads too.
    let all = dump(&a, &["--all-databases"])?;
    let all_path = dir.path().join("all.sql");
    std::fs::write(&all_path, &all)?;
    let c = Larchd::start(&dir.path().join("c"), &[])?;
    load(&c, "test", &all_path)?;
    let mut cc = c.connect()?;
    assert_eq!(snapshot(&mut cc, "shop")?, original);
    Ok(())
}

/// Name, extra, generation expression, data type, character and numeric
/// length, key of an information_schema.COLUMNS row.
type ColumnFacts = (
    String,
    String,
    Option<String>,
    String,
    Option<u64>,
    Option<u64>,
    String,
);

/// What dump tools and drivers read from the server, checked through the
/// `mysql` crate (no external program needed).
#[test]
fn server_metadata_for_dump_tools() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut c = mysql::Conn::new(server.opts().db_name(Some("test")))?;
    c.query_drop(
        "CREATE TABLE t (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         name VARCHAR(20) NOT NULL DEFAULT 'x', price DECIMAL(8,2), note TEXT, \
         UNIQUE KEY uk_name (name), KEY k_price (price)) COMMENT='c'",
    )?;
    c.query_drop("INSERT INTO t (name) VALUES ('a'), ('b')")?;

    // Variables mariadb-dump sets and reads.
    c.query_drop("SET SQL_QUOTE_SHOW_CREATE=1")?;
    c.query_drop("SET SESSION character_set_results = 'binary'")?;
    c.query_drop("SET SESSION character_set_results = 'utf8mb4'")?;
    c.query_drop("/*M!100100 SET @@MAX_STATEMENT_TIME=0.000000 */")?;
    c.query_drop("/*M!100100 SET WAIT_TIMEOUT=DEFAULT */")?;
    c.query_drop("set optimizer_switch='semijoin=off'")?;
    c.query_drop("set optimizer_switch=default")?;
    let switch: Option<String> = c.query_first("SELECT @@optimizer_switch")?;
    assert!(switch.is_some_and(|s| s.contains("semijoin=on")));
    let v: Option<String> = c.query_first("select @@collation_database")?;
    assert_eq!(v.as_deref(), Some("utf8mb4_general_ci"));
    let v: Option<String> = c.query_first("select @@note_verbosity")?;
    assert_eq!(v.as_deref(), Some("basic,explain"));
    let v: Option<String> = c.query_first("SELECT @@GLOBAL.GTID_BINLOG_POS")?;
    assert_eq!(v.as_deref(), Some(""));
    let gtid: Vec<(String, String)> = c.query("SHOW VARIABLES LIKE 'gtid\\_mode'")?;
    assert!(gtid.is_empty());
    let mst: Vec<(String, String)> = c.query("SHOW VARIABLES LIKE 'max_statement_time'")?;
    assert_eq!(mst, vec![("max_statement_time".into(), "0.000000".into())]);
    // A user variable on the right of SET is read, not taken as a word.
    c.query_drop("SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO'")?;
    c.query_drop("SET @saved_cs_client = @@character_set_client")?;
    c.query_drop("SET character_set_client = latin1")?;
    c.query_drop("SET character_set_client = @saved_cs_client")?;
    c.query_drop("SET SQL_MODE=@OLD_SQL_MODE")?;
    let v: Option<(String, String)> = c.query_first("SELECT @@sql_mode, @@character_set_client")?;
    assert_eq!(
        v,
        Some((
            "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
                .into(),
            "utf8mb4".into()
        ))
    );

    // SHOW forms.
    let status: Vec<mysql::Row> = c.query("SHOW TABLE STATUS LIKE 't'")?;
    assert_eq!(status.len(), 1);
    let cols = status[0].columns_ref();
    assert_eq!(cols.len(), 20);
    assert_eq!(cols[0].name_str(), "Name");
    assert_eq!(cols[10].name_str(), "Auto_increment");
    assert_eq!(status[0].get::<String, _>(0).as_deref(), Some("t"));
    assert_eq!(status[0].get::<String, _>(1).as_deref(), Some("InnoDB"));
    assert_eq!(status[0].get::<u64, _>(10), Some(3));
    assert_eq!(
        status[0].get::<String, _>(14).as_deref(),
        Some("utf8mb4_general_ci")
    );
    assert_eq!(status[0].get::<String, _>(17).as_deref(), Some("c"));
    let none: Vec<mysql::Row> = c.query("SHOW TABLE STATUS FROM test LIKE 'nope%'")?;
    assert!(none.is_empty());
    let some: Vec<mysql::Row> =
        c.query("SHOW TABLE STATUS WHERE Name LIKE 't' AND Engine IS NOT NULL")?;
    assert_eq!(some.len(), 1);
    let triggers: Vec<mysql::Row> = c.query("SHOW TRIGGERS LIKE 't'")?;
    assert!(triggers.is_empty());
    let events: Vec<mysql::Row> = c.query("SHOW EVENTS")?;
    assert!(events.is_empty());
    let funcs: Vec<mysql::Row> = c.query("SHOW FUNCTION STATUS LIKE 'f%'")?;
    assert!(funcs.is_empty());
    let master: Vec<mysql::Row> = c.query("SHOW MASTER STATUS")?;
    assert!(master.is_empty());
    let fields: Vec<mysql::Row> = c.query("SHOW FIELDS FROM t")?;
    assert_eq!(fields.len(), 4);
    let colls: Vec<mysql::Row> = c.query("SHOW COLLATION LIKE 'utf8mb4%'")?;
    assert!(colls.len() >= 3);
    let sets: Vec<mysql::Row> = c.query("SHOW CHARACTER SET")?;
    assert!(sets.len() >= 3);
    let err = c
        .query_drop("SHOW CREATE TRIGGER tr")
        .err()
        .ok_or("SHOW CREATE TRIGGER of nothing succeeded")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1360));
    let is_tables: Vec<String> = c.query("SHOW TABLES FROM information_schema LIKE 'T%'")?;
    assert!(is_tables.contains(&"TRIGGERS".to_owned()), "{is_tables:?}");

    // INFORMATION_SCHEMA tables with MariaDB's columns.
    let expected_columns: &[(&str, usize)] = &[
        ("SCHEMATA", 6),
        ("TABLES", 23),
        ("COLUMNS", 22),
        ("STATISTICS", 17),
        ("FILES", 38),
        ("PARTITIONS", 25),
        ("ROUTINES", 31),
        ("TRIGGERS", 22),
        ("EVENTS", 24),
        ("VIEWS", 11),
        ("PARAMETERS", 16),
        ("KEY_COLUMN_USAGE", 12),
        ("TABLE_CONSTRAINTS", 6),
        ("REFERENTIAL_CONSTRAINTS", 11),
        ("CHECK_CONSTRAINTS", 6),
        ("CHARACTER_SETS", 4),
        ("COLLATIONS", 6),
        ("ENGINES", 6),
        ("PLUGINS", 13),
        ("PROCESSLIST", 19),
        ("GLOBAL_STATUS", 2),
        ("SESSION_VARIABLES", 2),
        ("USER_PRIVILEGES", 4),
    ];
    for (table, n) in expected_columns {
        let stmt = c.prep(format!("SELECT * FROM information_schema.{table}"))?;
        assert_eq!(stmt.num_columns() as usize, *n, "{table}");
        let _: Vec<mysql::Row> = c.exec(&stmt, ())?;
    }
    for table in ["FILES", "ROUTINES", "TRIGGERS", "EVENTS", "VIEWS"] {
        let n: Option<i64> =
            c.query_first(format!("SELECT COUNT(*) FROM INFORMATION_SCHEMA.{table}"))?;
        assert_eq!(n, Some(0), "{table}");
    }
    let part: Vec<(String, Option<String>)> = c.query(
        "SELECT TABLE_NAME, PARTITION_NAME FROM INFORMATION_SCHEMA.PARTITIONS \
         WHERE TABLE_SCHEMA = 'test'",
    )?;
    assert_eq!(part, vec![("t".to_owned(), None)]);
    let columns: Vec<ColumnFacts> = c.query(
        "select column_name, extra, generation_expression, data_type, \
             character_maximum_length, numeric_precision, column_key \
             from information_schema.columns where table_schema=database() and table_name='t' \
             order by ordinal_position",
    )?;
    assert_eq!(
        columns,
        vec![
            (
                "id".into(),
                "auto_increment".into(),
                None,
                "int".into(),
                None,
                Some(10),
                "PRI".into()
            ),
            (
                "name".into(),
                "".into(),
                None,
                "varchar".into(),
                Some(20),
                None,
                "UNI".into()
            ),
            (
                "price".into(),
                "".into(),
                None,
                "decimal".into(),
                None,
                Some(8),
                "MUL".into()
            ),
            (
                "note".into(),
                "".into(),
                None,
                "text".into(),
                Some(65535),
                None,
                "".into()
            ),
        ]
    );
    let defaults: Vec<Option<String>> = c.query(
        "SELECT COLUMN_DEFAULT FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
    )?;
    assert_eq!(
        defaults,
        vec![
            None,
            Some("'x'".into()),
            Some("NULL".into()),
            Some("NULL".into())
        ]
    );
    let t: Option<(String, String, Option<u64>, String)> = c.query_first(
        "SELECT engine, table_type, auto_increment, table_comment FROM INFORMATION_SCHEMA.TABLES \
         WHERE table_schema = DATABASE() AND table_name = 't'",
    )?;
    assert_eq!(
        t,
        Some(("InnoDB".into(), "BASE TABLE".into(), Some(3), "c".into()))
    );
    // Names compare case-insensitively, as in MariaDB (utf8mb3_general_ci).
    let keys: Vec<(String, String, i64)> = c.query(
        "SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS \
         WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 't' ORDER BY INDEX_NAME",
    )?;
    assert_eq!(
        keys,
        vec![
            ("k_price".into(), "price".into(), 1),
            ("PRIMARY".into(), "id".into(), 0),
            ("uk_name".into(), "name".into(), 0),
        ]
    );
    let schemata: Vec<String> =
        c.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME")?;
    assert_eq!(
        schemata,
        vec!["information_schema".to_owned(), "test".to_owned()]
    );
    let v: Option<String> = c.query_first(
        "SELECT VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES \
         WHERE VARIABLE_NAME = 'AUTOCOMMIT'",
    )?;
    assert_eq!(v.as_deref(), Some("ON"));
    Ok(())
}

/// Prepare, run in both prepared-statement modes, cleanup: each workload of
/// `workloads` on a fresh server.
fn sysbench_workloads(test: &str, workloads: &[&str]) -> Res {
    if !installed(test, "sysbench") {
        return Ok(());
    }
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    server.connect()?.query_drop("CREATE DATABASE sbtest")?;
    let common = sysbench_args(&server, "sbtest", 500);
    for w in workloads {
        // bulk_insert inserts the same keys on every run: a fresh table each.
        let fresh_per_run = *w == "bulk_insert";
        if !fresh_per_run {
            sysbench(w, &common, &["prepare"])?;
        }
        for mode in ["auto", "disable"] {
            if fresh_per_run {
                sysbench(w, &common, &["prepare"])?;
            }
            let report = sysbench(
                w,
                &common,
                &[
                    "--threads=1",
                    "--time=2",
                    &format!("--db-ps-mode={mode}"),
                    "run",
                ],
            )?;
            let context = format!("{w} --db-ps-mode={mode}:\n{report}");
            assert_eq!(counter(&report, "ignored errors:"), Some(0), "{context}");
            assert_eq!(counter(&report, "reconnects:"), Some(0), "{context}");
            let events = counter(&report, "total number of events:").unwrap_or(0);
            assert!(events > 0, "no events in {context}");
            println!("sysbench {w} --db-ps-mode={mode}: {events} events in 2 s");
            if fresh_per_run {
                sysbench(w, &common, &["cleanup"])?;
            }
        }
        if !fresh_per_run {
            sysbench(w, &common, &["cleanup"])?;
        }
    }
    // The server is still healthy and the tables are gone.
    let mut conn = server.connect()?;
    let left: Vec<String> = conn.query("SHOW TABLES FROM sbtest")?;
    assert!(left.is_empty(), "{left:?}");
    Ok(())
}

#[test]
fn sysbench_read_workloads() -> Res {
    sysbench_workloads(
        "sysbench_read_workloads",
        &[
            "oltp_read_only",
            "oltp_point_select",
            "select_random_points",
            "select_random_ranges",
            "oltp_read_write",
        ],
    )
}

#[test]
fn sysbench_write_workloads() -> Res {
    sysbench_workloads(
        "sysbench_write_workloads",
        &[
            "oltp_update_index",
            "oltp_update_non_index",
            "oltp_insert",
            "oltp_delete",
            "oltp_write_only",
            "bulk_insert",
        ],
    )
}
