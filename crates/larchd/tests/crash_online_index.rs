//! Crash safety of an online index build through the real server: writers
//! change the table while `ALTER TABLE ... ADD INDEX` (LOCK=NONE, the
//! default) builds, and `kill -9` lands at points spread over the build.
//! After the restart the table has its committed rows, the new indexes are
//! either all there or all absent, every index agrees with the rows
//! (CHECK TABLE compares each entry with the clustered index), and no file
//! is left behind.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, Larchd, Res};

const ROWS: i64 = 60_000;
const ALTER: &str = "ALTER TABLE test.w ADD INDEX kx (k), ADD UNIQUE INDEX vx (v)";

/// Autocommit inserts, updates and deletes until `stop` or an error (the
/// crash).
fn write(mut conn: mysql::Conn, seed: i64, stop: Arc<AtomicBool>) {
    let mut n = seed;
    while !stop.load(Ordering::SeqCst) {
        n += 7;
        let id = n % (ROWS * 2) + 1;
        let sql = match n % 3 {
            0 => format!("INSERT IGNORE INTO test.w VALUES ({id}, {n}, 'new-{id}')"),
            1 => format!("UPDATE test.w SET k = k + 1 WHERE id = {id}"),
            _ => format!("DELETE FROM test.w WHERE id = {id}"),
        };
        if conn.query_drop(sql).is_err() {
            return;
        }
    }
}

/// The new indexes are all there or all absent, and everything agrees.
/// Returns whether they are there.
fn check_after_restart(
    conn: &mut mysql::Conn,
    datadir: &std::path::Path,
) -> Result<bool, Box<dyn std::error::Error>> {
    let check: Vec<(String, String, String, String)> = conn.query("CHECK TABLE test.w")?;
    assert!(check.iter().any(|r| r.3 == "OK"), "CHECK TABLE: {check:?}");
    let keys: Vec<String> = conn.query(
        "SELECT DISTINCT INDEX_NAME FROM INFORMATION_SCHEMA.STATISTICS \
         WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'w' AND INDEX_NAME <> 'PRIMARY' ORDER BY 1",
    )?;
    let built = match keys.as_slice() {
        [] => false,
        [k, v] if k == "kx" && v == "vx" => true,
        other => panic!("indexes after the crash: {other:?}"),
    };
    let rows: Option<i64> = conn.query_first("SELECT COUNT(*) FROM test.w")?;
    if built {
        for ix in ["kx", "vx"] {
            let via: Option<i64> =
                conn.query_first(format!("SELECT COUNT(*) FROM test.w FORCE INDEX ({ix})"))?;
            assert_eq!(via, rows, "rows through {ix}");
        }
    }
    let files: Vec<String> = std::fs::read_dir(datadir.join("test"))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ibd"))
        .collect();
    assert_eq!(files.len(), 1, "table files after the crash: {files:?}");
    Ok(built)
}

#[test]
fn kill_9_during_an_online_index_build_with_writers_leaves_indexes_that_agree() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let mut server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    conn.query_drop(
        "CREATE TABLE test.w (id INT PRIMARY KEY, k INT NOT NULL, v VARCHAR(40) NOT NULL)",
    )?;
    for chunk in (1..=ROWS).collect::<Vec<_>>().chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|i| format!("({i}, {i}, 'row-{i}')"))
            .collect();
        conn.query_drop(format!("INSERT INTO test.w VALUES {}", values.join(",")))?;
    }
    // How long one uncrashed build takes with the writers beside it.
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..2)
        .map(|seed| {
            let c = server.connect()?;
            let stop = stop.clone();
            Ok(std::thread::spawn(move || write(c, seed * 1_000, stop)))
        })
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let started = Instant::now();
    conn.query_drop(ALTER)?;
    let build = started.elapsed().max(Duration::from_millis(20));
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        let _ = w.join();
    }
    assert!(check_after_restart(&mut conn, &datadir)?);
    conn.query_drop("ALTER TABLE test.w DROP INDEX kx, DROP INDEX vx")?;
    drop(conn);

    let mut outcomes = (0, 0);
    for round in 1..=4u32 {
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..2)
            .map(|seed| {
                let c = server.connect()?;
                let stop = stop.clone();
                Ok(std::thread::spawn(move || {
                    write(c, seed * 1_000 + i64::from(round), stop)
                }))
            })
            .collect::<Result<_, Box<dyn std::error::Error>>>()?;
        let mut ddl = server.connect()?;
        let alter = std::thread::spawn(move || ddl.query_drop(ALTER).map(|()| ddl));
        std::thread::sleep(build * round / 4);
        server.crash()?;
        stop.store(true, Ordering::SeqCst);
        for w in writers {
            let _ = w.join();
        }
        let _ = alter.join();

        server = Larchd::start(&datadir, &[])?;
        let mut conn = server.connect()?;
        if check_after_restart(&mut conn, &datadir)? {
            outcomes.1 += 1;
            conn.query_drop("ALTER TABLE test.w DROP INDEX kx, DROP INDEX vx")?;
        } else {
            outcomes.0 += 1;
        }
    }
    eprintln!("build {build:?}, crashes before/after the switch: {outcomes:?}");
    assert_eq!(outcomes.0 + outcomes.1, 4);
    Ok(())
}
