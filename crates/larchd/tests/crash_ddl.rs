//! Crash safety of copying DDL through the real server: `kill -9` at
//! points spread over a copying ALTER TABLE and a TRUNCATE; after restart
//! the table is there under its name with the old definition and rows or
//! the new ones, never missing, no `#sql-` table is left in the
//! dictionary, no `.ibd` file belongs to no table, and the tables check
//! clean.

mod support;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, Larchd, Res};

const ROWS: i64 = 20_000;

/// Every `.ibd` file under the data directory's `test` folder.
fn table_files(datadir: &std::path::Path) -> Result<Vec<String>, std::io::Error> {
    let mut files: Vec<String> = std::fs::read_dir(datadir.join("test"))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ibd"))
        .collect();
    files.sort();
    Ok(files)
}

/// After a restart: the tables `t` and `u` exist with their rows, nothing
/// else is in `test`, and both check clean. Returns the columns of `t`.
fn check_after_restart(
    conn: &mut mysql::Conn,
    datadir: &std::path::Path,
) -> Result<usize, Box<dyn std::error::Error>> {
    let tables: Vec<String> = conn.query(
        "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'test' ORDER BY 1",
    )?;
    assert_eq!(
        tables,
        vec!["t".to_string(), "u".to_string()],
        "tables after the crash"
    );
    let rows: Option<i64> = conn.query_first("SELECT COUNT(*) FROM test.t")?;
    assert_eq!(rows, Some(ROWS), "rows of t after the crash");
    let sum: Option<i64> = conn.query_first("SELECT SUM(id) FROM test.t WHERE v LIKE 'row-%'")?;
    assert_eq!(
        sum,
        Some(ROWS * (ROWS + 1) / 2),
        "values of t after the crash"
    );
    let u: Option<i64> = conn.query_first("SELECT COUNT(*) FROM test.u")?;
    assert!(
        matches!(u, Some(0) | Some(3)),
        "rows of u after the crash: {u:?}"
    );
    for t in ["test.t", "test.u"] {
        let check: Vec<(String, String, String, String)> =
            conn.query(format!("CHECK TABLE {t}"))?;
        assert!(
            check.iter().any(|r| r.3 == "OK"),
            "CHECK TABLE {t}: {check:?}"
        );
    }
    // A table keeps its file across renames, so the names say little; the
    // count says no file was left without a table.
    let files = table_files(datadir)?;
    assert_eq!(files.len(), 2, "table files after the crash: {files:?}");
    let columns: Option<i64> = conn.query_first(
        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 't'",
    )?;
    Ok(usize::try_from(columns.unwrap_or(0))?)
}

#[test]
fn kill_9_during_copying_alter_and_truncate_leaves_old_or_new_table() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let mut server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    conn.query_drop("CREATE TABLE test.t (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL, KEY (v))")?;
    conn.query_drop("CREATE TABLE test.u (id INT PRIMARY KEY)")?;
    for chunk in (1..=ROWS).collect::<Vec<_>>().chunks(1000) {
        let values: Vec<String> = chunk.iter().map(|i| format!("({i}, 'row-{i}')")).collect();
        conn.query_drop(format!("INSERT INTO test.t VALUES {}", values.join(",")))?;
    }
    // How long one uncrashed copy takes, to spread the crashes over it.
    let started = Instant::now();
    conn.query_drop("ALTER TABLE test.t ADD COLUMN c0 INT NOT NULL DEFAULT 7")?;
    let copy = started.elapsed().max(Duration::from_millis(20));
    let mut columns = check_after_restart(&mut conn, &datadir)?;
    assert_eq!(columns, 3);
    drop(conn);

    let mut outcomes = (0, 0);
    for round in 1..=6u32 {
        let mut conn = server.connect()?;
        conn.query_drop("INSERT INTO test.u VALUES (1), (2), (3)")?;
        // The ALTER adds a column; a TRUNCATE of u runs beside it.
        let alter = format!("ALTER TABLE test.t ADD COLUMN c{round} INT NOT NULL DEFAULT {round}");
        let mut other = server.connect()?;
        let worker = std::thread::spawn(move || {
            let a = conn.query_drop(alter);
            (a, conn)
        });
        let truncate = std::thread::spawn(move || other.query_drop("TRUNCATE TABLE test.u"));
        std::thread::sleep(copy * round / 5);
        server.crash()?;
        let _ = worker.join();
        let _ = truncate.join();

        server = Larchd::start(&datadir, &[])?;
        let mut conn = server.connect()?;
        let now = check_after_restart(&mut conn, &datadir)?;
        assert!(
            now == columns || now == columns + 1,
            "round {round}: {columns} -> {now} columns"
        );
        if now == columns {
            outcomes.0 += 1;
        } else {
            outcomes.1 += 1;
            let added: Option<i64> =
                conn.query_first(format!("SELECT SUM(c{round}) FROM test.t"))?;
            assert_eq!(
                added,
                Some(ROWS * i64::from(round)),
                "round {round}: the new column's values"
            );
        }
        columns = now;
        conn.query_drop("DELETE FROM test.u")?;
    }
    // Nothing here forces which side of the swap each crash fell on; that
    // every round left a whole table is the point.
    eprintln!("copy {copy:?}, crashes before/after the swap: {outcomes:?}");
    assert_eq!(outcomes.0 + outcomes.1, 6);
    Ok(())
}
