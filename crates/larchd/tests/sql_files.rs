//! Through the real server: LOAD DATA LOCAL INFILE over the protocol (the
//! `mysql` crate's handler, with a thread per connection and with a pool of
//! threads, and the `mariadb` client, with and without `--local-infile`), results of a multi-statement query around it, SQL
//! prepared statements and SELECT ... INTO, the global read lock of FLUSH
//! TABLES WITH READ LOCK across connections and with `mariadb-dump`, and
//! COM_REFRESH from `mariadb-admin`.
//!
//! The tests that need `mariadb`, `mariadb-dump` or `mariadb-admin` print
//! why and return early when the program is missing.

mod support;

use std::io::Write;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::clients::{client, installed};
use support::{server_error, tempdir, Larchd, Res};

#[test]
fn load_data_local_through_the_protocol() -> Res {
    // A thread per connection (the default): the file is read with blocking
    // socket calls on the connection's thread.
    load_data_local(&[])
}

#[test]
fn load_data_local_with_a_pool_of_threads() -> Res {
    // Connections as tasks of the multi-threaded runtime: the file is read
    // through `block_in_place`.
    load_data_local(&["--thread-handling=pool-of-threads"])
}

fn load_data_local(args: &[&str]) -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), args)?;
    let rows = 100_000u32;
    let opts = server
        .opts()
        .local_infile_handler(Some(mysql::LocalInfileHandler::new(move |name, w| {
            if name == b"generated.txt" {
                for i in 0..rows {
                    writeln!(w, "{i}\tname {i}")?;
                }
            } else if name == b"dup.txt" {
                w.write_all(b"1\ta\n1\tb\n2\tc\n")?;
            }
            Ok(())
        })));
    let mut c = mysql::Conn::new(opts)?;
    c.query_drop("CREATE DATABASE d")?;
    c.query_drop("USE d")?;
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(30))")?;
    c.query_drop("LOAD DATA LOCAL INFILE 'generated.txt' INTO TABLE t")?;
    assert_eq!(c.affected_rows(), u64::from(rows));
    assert_eq!(
        c.info_str(),
        format!("Records: {rows}  Deleted: 0  Skipped: 0  Warnings: 0")
    );
    let n: Option<u32> = c.query_first("SELECT COUNT(*) FROM t")?;
    assert_eq!(n, Some(rows));
    // LOCAL behaves as IGNORE: duplicates are skipped with warnings.
    c.query_drop("CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(5))")?;
    c.query_drop("LOAD DATA LOCAL INFILE 'dup.txt' INTO TABLE u")?;
    assert_eq!(c.affected_rows(), 2);
    assert_eq!(
        c.info_str(),
        "Records: 3  Deleted: 0  Skipped: 1  Warnings: 1"
    );
    // In a multi-statement query the results before and after arrive in order.
    let mut sets = Vec::new();
    let mut r = c.query_iter(
        "SELECT 1; LOAD DATA LOCAL INFILE 'dup.txt' REPLACE INTO TABLE u; SELECT COUNT(*) FROM u",
    )?;
    while let Some(set) = r.iter() {
        let affected = set.affected_rows();
        let values: Vec<String> = set
            .map(|row| row.map(|r| format!("{:?}", r.unwrap())))
            .collect::<Result<_, _>>()?;
        sets.push((affected, values));
    }
    drop(r);
    assert_eq!(sets.len(), 3, "{sets:?}");
    // (1,a) and (2,c) are replaced by identical rows, in place, once each;
    // (1,b) is a delete and an insert: 4, as MariaDB 10.11 counts it.
    assert_eq!(sets[1].0, 4);
    assert!(
        sets[2].1[0].contains("\"2\"") || sets[2].1[0].contains("2"),
        "{sets:?}"
    );
    // An error in the middle of the file leaves the connection in step.
    c.query_drop("SET sql_mode = 'STRICT_ALL_TABLES'")?;
    let e = c
        .query_drop("LOAD DATA LOCAL INFILE 'generated.txt' INTO TABLE u (id, nope)")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(server_error(&e).map(|x| x.0), Some(1054), "{e}");
    let one: Option<u32> = c.query_first("SELECT 1")?;
    assert_eq!(one, Some(1));
    // local_infile = OFF refuses LOCAL.
    c.query_drop("SET GLOBAL local_infile = 0")?;
    let e = c
        .query_drop("LOAD DATA LOCAL INFILE 'dup.txt' INTO TABLE u")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(server_error(&e).map(|x| x.0), Some(1148), "{e}");
    c.query_drop("SET GLOBAL local_infile = 1")?;
    Ok(())
}

#[test]
fn mariadb_client_local_infile() -> Res {
    if !installed("mariadb_client_local_infile", "mariadb") {
        return Ok(());
    }
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut c = server.connect()?;
    c.query_drop("CREATE DATABASE d")?;
    c.query_drop("CREATE TABLE d.t (a INT, b TEXT)")?;
    let file = dir.path().join("in.csv");
    std::fs::write(&file, "1,\"x, y\"\n2,\\N\n3,\"line\nbreak\"\n")?;
    let sql = format!(
        "LOAD DATA LOCAL INFILE '{}' INTO TABLE d.t FIELDS TERMINATED BY ',' \
         OPTIONALLY ENCLOSED BY '\"'; SELECT COUNT(*) FROM d.t",
        file.display()
    );
    let out = client(
        "mariadb",
        &server,
        &["--local-infile=1", "-N", "-e", &sql],
        None,
    )?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "3");
    let got: Vec<(i32, Option<String>)> = c.query("SELECT a, b FROM d.t ORDER BY a")?;
    assert_eq!(
        got,
        vec![
            (1, Some("x, y".to_owned())),
            (2, None),
            (3, Some("line\nbreak".to_owned()))
        ]
    );
    // A client that does not offer LOCAL files is refused cleanly.
    let out = client("mariadb", &server, &["--local-infile=0", "-e", &sql], None)?;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1148") || err.contains("not allowed"), "{err}");
    let n: Option<u32> = c.query_first("SELECT COUNT(*) FROM d.t")?;
    assert_eq!(n, Some(3));
    Ok(())
}

#[test]
fn prepared_statements_and_select_into_over_the_wire() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut c = server.connect()?;
    c.query_drop("CREATE DATABASE d")?;
    c.query_drop("USE d")?;
    c.query_drop("CREATE TABLE t (a INT, b VARCHAR(10))")?;
    c.query_drop("PREPARE s FROM 'INSERT INTO t VALUES (?, ?)'")?;
    c.query_drop("SET @x = 'ex'")?;
    c.query_drop("EXECUTE s USING 1, @x")?;
    c.query_drop("EXECUTE s USING 2, 'why'")?;
    c.query_drop("PREPARE q FROM 'SELECT b FROM t WHERE a = ?'")?;
    let b: Option<String> = c.query_first("EXECUTE q USING 2")?;
    assert_eq!(b.as_deref(), Some("why"));
    let e = c
        .query_drop("EXECUTE nope")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(
        server_error(&e),
        Some((
            1243,
            "HY000".to_owned(),
            "Unknown prepared statement handler (nope) given to EXECUTE".to_owned()
        ))
    );
    c.query_drop("SELECT a, b INTO @a, @b FROM t WHERE a = 1")?;
    let ab: Option<(i32, String)> = c.query_first("SELECT @a, @b")?;
    assert_eq!(ab, Some((1, "ex".to_owned())));
    let e = c
        .query_drop("SELECT a INTO @a FROM t")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(
        server_error(&e).map(|x| (x.0, x.1)),
        Some((1172, "42000".to_owned()))
    );
    // The binary protocol prepares SELECT ... INTO too.
    let stmt = c.prep("SELECT b INTO @b FROM t WHERE a = ?")?;
    c.exec_drop(&stmt, (2,))?;
    let b: Option<String> = c.query_first("SELECT @b")?;
    assert_eq!(b.as_deref(), Some("why"));
    Ok(())
}

#[test]
fn read_lock_across_connections_and_refresh() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut a = server.connect()?;
    let mut b = server.connect()?;
    a.query_drop("CREATE DATABASE d")?;
    a.query_drop("CREATE TABLE d.t (x INT)")?;
    a.query_drop("FLUSH TABLES WITH READ LOCK")?;
    let writer = std::thread::spawn(move || -> Result<Duration, String> {
        let start = Instant::now();
        b.query_drop("INSERT INTO d.t VALUES (1)")
            .map_err(|e| e.to_string())?;
        Ok(start.elapsed())
    });
    std::thread::sleep(Duration::from_millis(400));
    let n: Option<u32> = a.query_first("SELECT COUNT(*) FROM d.t")?;
    assert_eq!(n, Some(0));
    a.query_drop("UNLOCK TABLES")?;
    let waited = writer.join().map_err(|_| "writer panicked")??;
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    if installed("read_lock_across_connections_and_refresh", "mariadb-dump") {
        for mode in ["--lock-tables", "--lock-all-tables", "--single-transaction"] {
            let out = client("mariadb-dump", &server, &[mode, "d"], None)?;
            assert!(
                out.status.success(),
                "{mode}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let dump = String::from_utf8_lossy(&out.stdout);
            assert!(dump.contains("INSERT INTO `t` VALUES"), "{mode}: {dump}");
        }
        // The dump released its lock: writes go on.
        a.query_drop("INSERT INTO d.t VALUES (2)")?;
    }
    if installed("read_lock_across_connections_and_refresh", "mariadb-admin") {
        for cmd in [
            "refresh",
            "flush-logs",
            "flush-tables",
            "flush-hosts",
            "flush-status",
        ] {
            let out = client("mariadb-admin", &server, &[cmd], None)?;
            assert!(
                out.status.success(),
                "{cmd}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let one: Option<u32> = a.query_first("SELECT 1")?;
    assert_eq!(one, Some(1));
    Ok(())
}
