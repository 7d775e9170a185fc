//! End-to-end SQL through `larchd` with tables: DDL, inserts with
//! AUTO_INCREMENT, every column type in the text and binary protocols with
//! its column metadata, prepared writes, `CLIENT_FOUND_ROWS`, transactions,
//! durability across a clean restart and a SIGKILL, and a long statement
//! (`SLEEP`) that neither stalls other connections nor survives `KILL QUERY`,
//! and commits answered only after their log sync.

mod support;

use mysql::consts::{ColumnFlags, ColumnType};
use mysql::prelude::Queryable;
use mysql::Value as V;
use support::{server_error, tempdir, Larchd, Res};

const TABLE: &str = "CREATE TABLE test.t (
    id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name VARCHAR(20) NOT NULL,
    price DECIMAL(10,2),
    made DATETIME(3),
    kind ENUM('a','b'),
    flags BIT(12),
    note TEXT,
    bin VARBINARY(8),
    y YEAR,
    d DATE,
    tm TIME,
    f FLOAT,
    dbl DOUBLE,
    u BIGINT UNSIGNED,
    UNIQUE KEY (name)
)";

const INSERT: &str = "INSERT INTO test.t (name, price, made, kind, flags, note, bin, y, d, tm, f, dbl, u) VALUES
    ('apple', 1.50, '2024-02-29 13:14:15.123', 'b', b'101000000001', 'crisp', X'00FF', 2024, '2024-01-31', '-01:02:03', 0.5, 1e100, 18446744073709551615),
    ('pear', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";

#[test]
fn tables_types_and_metadata_in_both_protocols() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = server.connect()?;
    conn.query_drop(TABLE)?;
    conn.query_drop(INSERT)?;
    assert_eq!(conn.affected_rows(), 2);
    assert_eq!(conn.last_insert_id(), 1);

    let sql = "SELECT id, name, price, made, kind, flags, note, bin, y, d, tm, f, dbl, u FROM test.t ORDER BY id";
    // Text protocol.
    let rows: Vec<mysql::Row> = conn.query(sql)?;
    assert_eq!(rows.len(), 2);
    let text: Vec<V> = rows[0].clone().unwrap();
    let expect_text = [
        "1",
        "apple",
        "1.50",
        "2024-02-29 13:14:15.123",
        "b",
        "\u{a}\u{1}",
        "crisp",
        "\0\u{ff}",
        "2024",
        "2024-01-31",
        "-01:02:03",
        "0.5",
        "1e100",
        "18446744073709551615",
    ];
    for (i, (got, want)) in text.iter().zip(expect_text).enumerate() {
        let want: Vec<u8> = if i == 5 {
            vec![0x0a, 0x01]
        } else if i == 7 {
            vec![0x00, 0xff]
        } else {
            want.as_bytes().to_vec()
        };
        assert_eq!(got, &V::Bytes(want), "column {i}");
    }
    assert!(rows[1].clone().unwrap()[2..].iter().all(|v| *v == V::NULL));

    let cols = rows[0].columns_ref();
    let id = &cols[0];
    assert_eq!(id.column_type(), ColumnType::MYSQL_TYPE_LONG);
    assert!(id.flags().contains(
        ColumnFlags::NOT_NULL_FLAG | ColumnFlags::PRI_KEY_FLAG | ColumnFlags::AUTO_INCREMENT_FLAG
    ));
    assert_eq!(id.table_str(), "t");
    assert_eq!(id.schema_str(), "test");
    assert!(cols[1].flags().contains(ColumnFlags::UNIQUE_KEY_FLAG));
    assert_eq!(cols[2].column_type(), ColumnType::MYSQL_TYPE_NEWDECIMAL);
    assert_eq!(cols[2].decimals(), 2);
    assert!(cols[4].flags().contains(ColumnFlags::ENUM_FLAG));
    assert_eq!(cols[5].column_type(), ColumnType::MYSQL_TYPE_BIT);
    assert!(cols[6].flags().contains(ColumnFlags::BLOB_FLAG));
    assert_eq!(cols[7].character_set(), 63);
    assert!(cols[13].flags().contains(ColumnFlags::UNSIGNED_FLAG));

    // Binary protocol.
    let stmt = conn.prep(format!("{sql} LIMIT ?"))?;
    let rows: Vec<mysql::Row> = conn.exec(&stmt, (1,))?;
    let bin: Vec<V> = rows[0].clone().unwrap();
    assert_eq!(bin[0], V::Int(1));
    assert_eq!(bin[1], V::Bytes(b"apple".to_vec()));
    assert_eq!(bin[2], V::Bytes(b"1.50".to_vec()));
    assert_eq!(bin[3], V::Date(2024, 2, 29, 13, 14, 15, 123_000));
    assert_eq!(bin[4], V::Bytes(b"b".to_vec()));
    assert_eq!(bin[5], V::Bytes(vec![0x0a, 0x01]));
    assert_eq!(bin[8], V::Int(2024));
    assert_eq!(bin[9], V::Date(2024, 1, 31, 0, 0, 0, 0));
    assert_eq!(bin[10], V::Time(true, 0, 1, 2, 3, 0));
    assert_eq!(bin[11], V::Float(0.5));
    assert_eq!(bin[12], V::Double(1e100));
    assert_eq!(bin[13], V::UInt(u64::MAX));

    // Errors from the data layer.
    let err = conn
        .query_drop("INSERT INTO test.t (name) VALUES ('apple')")
        .err()
        .ok_or("duplicate accepted")?;
    assert_eq!(
        server_error(&err).map(|e| (e.0, e.1)),
        Some((1062, "23000".to_owned()))
    );
    let err = conn
        .query_drop("SELECT * FROM test.nope")
        .err()
        .ok_or("no error")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1146));
    Ok(())
}

#[test]
fn prepared_writes_found_rows_and_transactions() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = mysql::Conn::new(server.opts().db_name(Some("test")))?;
    conn.query_drop("CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(10), at DATETIME)")?;
    let insert = conn.prep("INSERT INTO kv VALUES (?, ?, ?)")?;
    for k in 1..=3 {
        conn.exec_drop(
            &insert,
            (k, format!("v{k}"), V::Date(2020, 1, k as u8, 1, 2, 3, 0)),
        )?;
    }
    conn.exec_drop(&insert, (4, V::NULL, V::NULL))?;
    assert_eq!(
        conn.query_first::<i64, _>("SELECT COUNT(*) FROM kv")?,
        Some(4)
    );

    // Without CLIENT_FOUND_ROWS an UPDATE that changes nothing affects 0 rows.
    conn.query_drop("UPDATE kv SET v = 'v1' WHERE k = 1")?;
    assert_eq!(conn.affected_rows(), 0);
    let mut found = mysql::Conn::new(
        server
            .opts()
            .db_name(Some("test"))
            .additional_capabilities(mysql::consts::CapabilityFlags::CLIENT_FOUND_ROWS),
    )?;
    found.query_drop("UPDATE kv SET v = 'v1' WHERE k = 1")?;
    assert_eq!(found.affected_rows(), 1);

    // A rolled-back transaction leaves nothing; a committed one stays.
    conn.query_drop("BEGIN")?;
    conn.query_drop("INSERT INTO kv VALUES (10, 'x', NULL)")?;
    conn.query_drop("ROLLBACK")?;
    assert_eq!(
        conn.query_first::<i64, _>("SELECT COUNT(*) FROM kv WHERE k = 10")?,
        Some(0)
    );
    conn.query_drop("START TRANSACTION")?;
    conn.query_drop("DELETE FROM kv WHERE k = 4")?;
    conn.query_drop("COMMIT")?;
    assert_eq!(
        conn.query_first::<i64, _>("SELECT COUNT(*) FROM kv")?,
        Some(3)
    );
    let v: Option<String> = conn.exec_first("SELECT v FROM kv WHERE k = ?", (2,))?;
    assert_eq!(v.as_deref(), Some("v2"));
    Ok(())
}

#[test]
fn committed_data_survives_restart_and_sigkill() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let mut server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    conn.query_drop("CREATE DATABASE shop")?;
    conn.query_drop("CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))")?;
    conn.query_drop("INSERT INTO shop.items VALUES (1, 'one'), (2, 'two')")?;
    conn.query_drop("SHUTDOWN")?;
    assert!(server.wait()?.success());

    let server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    let names: Vec<String> = conn.query("SELECT name FROM shop.items ORDER BY id")?;
    assert_eq!(names, vec!["one".to_owned(), "two".to_owned()]);
    conn.query_drop("INSERT INTO shop.items VALUES (3, 'three')")?;
    drop(conn);
    server.crash()?;

    let server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    assert_eq!(
        conn.query_first::<i64, _>("SELECT COUNT(*) FROM shop.items")?,
        Some(3)
    );
    Ok(())
}

#[test]
fn long_statement_does_not_stall_others_and_can_be_killed() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut sleeper = server.connect()?;
    let victim = sleeper.connection_id();
    let started = std::time::Instant::now();
    let handle = std::thread::spawn(move || sleeper.query_first::<i64, _>("SELECT SLEEP(5)"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    // More clients than worker threads answer while the statement runs.
    let mut others = Vec::new();
    for _ in 0..4 {
        others.push(server.connect()?);
    }
    for c in &mut others {
        assert_eq!(c.query_first::<i64, _>("SELECT 1")?, Some(1));
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    if handle.is_finished() {
        let early = handle.join().map_err(|_| "sleeper panicked")?;
        return Err(format!("SELECT SLEEP(5) ended early: {early:?}").into());
    }
    others[0].query_drop(format!("KILL QUERY {victim}"))?;
    let result = handle.join().map_err(|_| "sleeper panicked")?;
    // As in MariaDB, the interrupted statement ends with 1317 (SLEEP's
    // own 1 never reaches the client).
    match result {
        Ok(v) => return Err(format!("SELECT SLEEP(5) answered {v:?} after KILL QUERY").into()),
        Err(e) => assert_eq!(server_error(&e).map(|e| e.0), Some(1317), "{e}"),
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    Ok(())
}

/// `Innodb_os_log_fsyncs` as the server reports it.
fn log_syncs(conn: &mut mysql::Conn) -> Result<u64, Box<dyn std::error::Error>> {
    let row: Option<(String, String)> =
        conn.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_os_log_fsyncs'")?;
    Ok(row.ok_or("no Innodb_os_log_fsyncs")?.1.parse()?)
}

#[test]
fn every_commit_is_synced_before_its_ok_and_concurrent_commits_share_syncs() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = server.connect()?;
    conn.query_drop("CREATE TABLE test.c (id INT PRIMARY KEY, n INT NOT NULL)")?;
    conn.query_drop("INSERT INTO test.c VALUES (1, 0)")?;
    // One client, one commit at a time: each OK comes after a sync that
    // covers its commit, so there are at least as many syncs as commits
    // (the once-a-second background flush adds a few at most).
    let before = log_syncs(&mut conn)?;
    let commits = 200u64;
    let update = conn.prep("UPDATE test.c SET n = n + 1 WHERE id = 1")?;
    for i in 0..commits {
        if i % 2 == 0 {
            conn.exec_drop(&update, ())?;
        } else {
            conn.query_drop("BEGIN")?;
            conn.query_drop("UPDATE test.c SET n = n + 1 WHERE id = 1")?;
            conn.query_drop("COMMIT")?;
        }
    }
    let synced = log_syncs(&mut conn)? - before;
    assert!(
        synced >= commits,
        "{synced} log syncs for {commits} acknowledged commits"
    );
    let n: Option<u64> = conn.query_first("SELECT n FROM test.c WHERE id = 1")?;
    assert_eq!(n, Some(commits));

    // Many clients committing at once: their commits share syncs (group
    // commit), and every one is acknowledged and applied.
    let clients = 8u64;
    let each = 50u64;
    for k in 0..clients {
        conn.exec_drop("INSERT INTO test.c VALUES (?, 0)", (k + 10,))?;
    }
    let before = log_syncs(&mut conn)?;
    let threads: Vec<_> = (0..clients)
        .map(|k| {
            let opts = server.opts();
            std::thread::spawn(move || -> Result<(), String> {
                let mut c = mysql::Conn::new(opts).map_err(|e| e.to_string())?;
                for _ in 0..each {
                    c.exec_drop("UPDATE test.c SET n = n + 1 WHERE id = ?", (k + 10,))
                        .map_err(|e| e.to_string())?;
                }
                Ok(())
            })
        })
        .collect();
    for t in threads {
        t.join().map_err(|_| "client thread panicked")??;
    }
    let synced = log_syncs(&mut conn)? - before;
    let total: Option<u64> = conn.query_first("SELECT SUM(n) FROM test.c WHERE id >= 10")?;
    assert_eq!(total, Some(clients * each));
    assert!(synced >= 1, "commits were synced");
    Ok(())
}
