//! LOCK TABLES and UNLOCK TABLES between sessions, as MariaDB gives them
//! with InnoDB: READ keeps other sessions' writes waiting, WRITE their
//! reads too, READ LOCAL neither; waits end with 1205 after
//! `lock_wait_timeout` or 1317 on KILL QUERY and show in the processlist;
//! the locking session uses only its tables, under their aliases (1100),
//! and writes only WRITE-locked ones (1099); DDL on locked tables; views
//! lock their base tables; implicit commits and releases (LOCK TABLES,
//! UNLOCK TABLES, BEGIN, the session's end, COM_RESET_CONNECTION); the
//! privilege; and FLUSH TABLES WITH READ LOCK waiting for running writes.

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

const WAIT_STATE: &str = "Waiting for table metadata lock";

/// Polls until some connection shows `state` in the processlist.
fn wait_for_state(s: &mut Session, state: &str) -> R<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let n = one(
            s,
            &format!("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = '{state}'"),
        )?;
        if n != "0" {
            return Ok(());
        }
        thread::sleep(Duration::from_millis(20));
    }
    Err(format!("no connection reached state '{state}'").into())
}

/// The error of a statement that must fail: code and message.
fn err(s: &mut Session, sql: &str) -> R<(u16, String)> {
    match s.execute(sql) {
        Ok(_) => Err(format!("expected an error from {sql}").into()),
        Err(e) => Ok((e.code(), e.message())),
    }
}

/// Runs `sql` in `s` on a thread; the receiver gets its error code (0: ok).
fn spawn(mut s: Session, sql: &'static str) -> (mpsc::Receiver<u16>, thread::JoinHandle<Session>) {
    let (tx, rx) = mpsc::channel();
    let h = thread::spawn(move || {
        let code = s.execute(sql).map(|_| 0).unwrap_or_else(|e| e.code());
        let _ = tx.send(code);
        s
    });
    (rx, h)
}

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO t VALUES (1, 10)",
        "CREATE TABLE u (id INT PRIMARY KEY)",
    ])
}

#[test]
fn read_lock_holds_writers_until_unlock_and_lets_readers_in() -> R<()> {
    let t = setup()?;
    let mut locker = t.session(50)?;
    locker.execute("LOCK TABLES t READ")?;
    let mut other = t.session(50)?;
    assert_eq!(one(&mut other, "SELECT v FROM t")?, "10");
    // SHOW OPEN TABLES counts the lock.
    assert_eq!(
        rows(&mut other, "SHOW OPEN TABLES FROM test LIKE 't'")?,
        vec![vec!["test", "t", "1", "0"]]
    );
    // Tables not locked are free.
    other.execute("INSERT INTO u VALUES (1)")?;
    other.execute("SET lock_wait_timeout = 1")?;
    let start = Instant::now();
    assert_eq!(err(&mut other, "UPDATE t SET v = 11")?.0, 1205);
    assert!(start.elapsed() >= Duration::from_millis(900));
    other.execute("SET lock_wait_timeout = 50")?;
    let (done, writer) = spawn(other, "INSERT INTO t VALUES (2, 20)");
    let mut watcher = t.session(50)?;
    wait_for_state(&mut watcher, WAIT_STATE)?;
    assert!(done.recv_timeout(Duration::from_millis(200)).is_err());
    // The locking session reads, and is refused writes.
    assert_eq!(one(&mut locker, "SELECT COUNT(*) FROM t")?, "1");
    assert_eq!(
        err(&mut locker, "DELETE FROM t")?,
        (
            1099,
            "Table 't' was locked with a READ lock and can't be updated".into()
        )
    );
    locker.execute("UNLOCK TABLES")?;
    assert_eq!(done.recv_timeout(Duration::from_secs(10))?, 0);
    writer.join().map_err(|_| "writer panicked")?;
    assert_eq!(one(&mut locker, "SELECT COUNT(*) FROM t")?, "2");
    Ok(())
}

#[test]
fn write_lock_holds_readers_and_kill_query_ends_the_wait() -> R<()> {
    let t = setup()?;
    let mut locker = t.session(50)?;
    locker.execute("LOCK TABLES t WRITE")?;
    locker.execute("INSERT INTO t VALUES (2, 20)")?;
    locker.execute("UPDATE t SET v = v + 1")?;
    assert_eq!(one(&mut locker, "SELECT SUM(v) FROM t")?, "32");
    let mut other = t.session(50)?;
    other.execute("SET lock_wait_timeout = 1")?;
    assert_eq!(err(&mut other, "SELECT * FROM t")?.0, 1205);
    other.execute("SET lock_wait_timeout = 50")?;
    let id: u64 = one(&mut other, "SELECT CONNECTION_ID()")?.parse()?;
    let (done, reader) = spawn(other, "SELECT * FROM t");
    let mut watcher = t.session(50)?;
    wait_for_state(&mut watcher, WAIT_STATE)?;
    // KILL takes an expression, as in MariaDB (fts_kill_query's form).
    watcher.execute(&format!("SET @id = {id}"))?;
    watcher.execute("KILL QUERY @id")?;
    assert_eq!(done.recv_timeout(Duration::from_secs(10))?, 1317);
    for (kill, message) in [
        ("KILL 'abc'", "Unknown thread id: 0"),
        (
            "KILL HARD QUERY 99999998 + 1",
            "Unknown thread id: 99999999",
        ),
        (
            "KILL CONNECTION -1",
            "Unknown thread id: 18446744073709551615",
        ),
    ] {
        assert_eq!(err(&mut watcher, kill)?, (1094, message.into()), "{kill}");
    }
    assert_eq!(err(&mut watcher, "KILL QUERY ID 5")?.0, 1064);
    let mut other = reader.join().map_err(|_| "reader panicked")?;
    // A waiting reader goes on at UNLOCK TABLES (which commits nothing
    // here: autocommit statements committed already).
    let (done, reader) = spawn(t.session(50)?, "SELECT COUNT(*) FROM t");
    wait_for_state(&mut watcher, WAIT_STATE)?;
    locker.execute("UNLOCK TABLES")?;
    assert_eq!(done.recv_timeout(Duration::from_secs(10))?, 0);
    reader.join().map_err(|_| "reader panicked")?;
    assert_eq!(one(&mut other, "SELECT SUM(v) FROM t")?, "32");
    Ok(())
}

#[test]
fn read_local_lets_other_sessions_write() -> R<()> {
    let t = setup()?;
    let mut locker = t.session(50)?;
    locker.execute("LOCK TABLES t READ LOCAL")?;
    let mut other = t.session(50)?;
    other.execute("SET lock_wait_timeout = 5")?;
    other.execute("INSERT INTO t VALUES (2, 20)")?;
    assert_eq!(err(&mut locker, "INSERT INTO t VALUES (3, 30)")?.0, 1099);
    // ...but DDL waits for it.
    other.execute("SET lock_wait_timeout = 1")?;
    assert_eq!(err(&mut other, "ALTER TABLE t ADD COLUMN w INT")?.0, 1205);
    locker.execute("UNLOCK TABLES")?;
    other.execute("ALTER TABLE t ADD COLUMN w INT")?;
    Ok(())
}

#[test]
fn locked_session_uses_only_its_tables_under_their_aliases() -> R<()> {
    let t = setup()?;
    let mut s = t.session(50)?;
    s.execute("CREATE TEMPORARY TABLE tmp (a INT)")?;
    s.execute("LOCK TABLES t READ")?;
    assert_eq!(
        err(&mut s, "SELECT * FROM u")?,
        (1100, "Table 'u' was not locked with LOCK TABLES".into())
    );
    assert_eq!(
        err(&mut s, "SELECT * FROM t AS x")?,
        (1100, "Table 'x' was not locked with LOCK TABLES".into())
    );
    assert_eq!(err(&mut s, "INSERT INTO u VALUES (1)")?.0, 1100);
    // Temporary tables are not concerned.
    s.execute("INSERT INTO tmp VALUES (1)")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM tmp")?, "1");
    s.execute("UNLOCK TABLES")?;

    // Locked under an alias: used by the alias only (any letter case).
    s.execute("LOCK TABLES t AS a READ, u WRITE")?;
    assert_eq!(
        err(&mut s, "SELECT * FROM t")?,
        (1100, "Table 't' was not locked with LOCK TABLES".into())
    );
    assert_eq!(one(&mut s, "SELECT v FROM t AS a")?, "10");
    assert_eq!(one(&mut s, "SELECT v FROM t AS A")?, "10");
    s.execute("INSERT INTO u SELECT id FROM t AS a")?;
    s.execute("UNLOCK TABLES")?;

    // The same table under two names, in two modes.
    s.execute("LOCK TABLES t WRITE, t AS t1 READ, test.u AS w READ")?;
    s.execute("INSERT INTO t SELECT id + 10, v FROM t AS t1")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "2");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM u AS w")?, "1");
    s.execute("UNLOCK TABLES")?;

    // LOCK TABLE (singular), LOW_PRIORITY WRITE, a missing table.
    s.execute("LOCK TABLE t LOW_PRIORITY WRITE")?;
    s.execute("UNLOCK TABLE")?;
    assert_eq!(
        err(&mut s, "LOCK TABLES t READ, nosuch WRITE")?,
        (1146, "Table 'test.nosuch' doesn't exist".into())
    );
    // A failed LOCK TABLES locks nothing.
    s.execute("INSERT INTO u VALUES (5)")?;
    Ok(())
}

#[test]
fn ddl_under_lock_tables() -> R<()> {
    let t = setup()?;
    let mut s = t.session(50)?;
    s.execute("LOCK TABLES t READ, u WRITE")?;
    assert_eq!(err(&mut s, "ALTER TABLE t ADD COLUMN w INT")?.0, 1099);
    assert_eq!(err(&mut s, "TRUNCATE TABLE t")?.0, 1099);
    assert_eq!(err(&mut s, "DROP TABLE t")?.0, 1099);
    assert_eq!(err(&mut s, "FLUSH TABLES t")?.0, 1099);
    s.execute("FLUSH TABLES u")?;
    s.execute("ALTER TABLE u ADD COLUMN w INT")?;
    s.execute("INSERT INTO u VALUES (1, 2)")?;
    s.execute("TRUNCATE TABLE u")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM u")?, "0");
    s.execute("UNLOCK TABLES")?;

    s.execute("CREATE TABLE other (a INT)")?;
    s.execute("LOCK TABLES u WRITE")?;
    assert_eq!(
        err(&mut s, "DROP TABLE other")?,
        (1100, "Table 'other' was not locked with LOCK TABLES".into())
    );
    // A dropped table leaves the set, and its lock is released.
    s.execute("DROP TABLE u")?;
    let mut o = t.session(50)?;
    o.execute("SET lock_wait_timeout = 5")?;
    o.execute("CREATE TABLE u (id INT)")?;
    s.execute("UNLOCK TABLES")?;
    Ok(())
}

#[test]
fn views_lock_their_base_tables() -> R<()> {
    let t = setup()?;
    let mut root = t.session(50)?;
    root.execute("CREATE VIEW v AS SELECT id, v FROM t WHERE v > 0")?;
    root.execute("CREATE VIEW vv AS SELECT id FROM v")?;
    let mut s = t.session(50)?;
    s.execute("LOCK TABLES vv READ")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM vv")?, "1");
    let mut o = t.session(50)?;
    o.execute("SET lock_wait_timeout = 1")?;
    assert_eq!(one(&mut o, "SELECT COUNT(*) FROM t")?, "1");
    assert_eq!(err(&mut o, "INSERT INTO t VALUES (5, 5)")?.0, 1205);
    s.execute("LOCK TABLES v WRITE")?;
    s.execute("INSERT INTO v VALUES (2, 20)")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v")?, "2");
    assert_eq!(err(&mut o, "SELECT * FROM t")?.0, 1205);
    s.execute("UNLOCK TABLES")?;
    assert_eq!(one(&mut o, "SELECT COUNT(*) FROM t")?, "2");
    Ok(())
}

#[test]
fn implicit_commits_and_releases() -> R<()> {
    let t = setup()?;
    let mut s = t.session(50)?;
    let mut o = t.session(50)?;
    o.execute("SET lock_wait_timeout = 5")?;
    // LOCK TABLES commits the open transaction.
    s.execute("BEGIN")?;
    s.execute("INSERT INTO u VALUES (1)")?;
    s.execute("LOCK TABLES t READ")?;
    assert_eq!(one(&mut o, "SELECT COUNT(*) FROM u")?, "1");
    // ...and releases the previous table locks.
    s.execute("LOCK TABLES u WRITE")?;
    o.execute("UPDATE t SET v = 12")?;
    // UNLOCK TABLES commits when tables were locked.
    s.execute("SET autocommit = 0")?;
    s.execute("INSERT INTO u VALUES (2)")?;
    s.execute("UNLOCK TABLES")?;
    s.execute("ROLLBACK")?;
    assert_eq!(one(&mut o, "SELECT COUNT(*) FROM u")?, "2");
    s.execute("SET autocommit = 1")?;
    // BEGIN releases table locks.
    s.execute("LOCK TABLES t WRITE")?;
    s.execute("BEGIN")?;
    assert_eq!(one(&mut o, "SELECT v FROM t")?, "12");
    s.execute("COMMIT")?;
    // COM_RESET_CONNECTION and the session's end release them.
    s.execute("LOCK TABLES t WRITE")?;
    s.reset();
    assert_eq!(one(&mut o, "SELECT v FROM t")?, "12");
    s.execute("LOCK TABLES t WRITE")?;
    drop(s);
    assert_eq!(one(&mut o, "SELECT v FROM t")?, "12");
    Ok(())
}

#[test]
fn lock_tables_needs_its_privilege_and_select() -> R<()> {
    let t = setup()?;
    let mut root = t.session(50)?;
    root.execute("CREATE USER lu@localhost")?;
    root.execute("GRANT SELECT ON test.* TO lu@localhost")?;
    let mut u = t.db.new_session(0, "lu", "localhost")?;
    u.use_database("test")?;
    assert_eq!(
        err(&mut u, "LOCK TABLES t READ")?,
        (
            1044,
            "Access denied for user 'lu'@'localhost' to database 'test'".into()
        )
    );
    root.execute("REVOKE SELECT ON test.* FROM lu@localhost")?;
    root.execute("GRANT LOCK TABLES ON test.* TO lu@localhost")?;
    root.execute("GRANT SELECT ON test.t TO lu@localhost")?;
    u.execute("LOCK TABLES t READ")?;
    assert_eq!(err(&mut u, "LOCK TABLES u READ")?.0, 1142);
    u.execute("UNLOCK TABLES")?;
    Ok(())
}

#[test]
fn dump_style_import_under_write_lock() -> R<()> {
    let t = setup()?;
    let mut s = t.session(50)?;
    s.execute("LOCK TABLES u WRITE")?;
    s.execute("ALTER TABLE u DISABLE KEYS")?;
    for chunk in 0..20 {
        let values: Vec<String> = (0..50).map(|i| format!("({})", chunk * 50 + i)).collect();
        s.execute(&format!("INSERT INTO u VALUES {}", values.join(",")))?;
    }
    s.execute("ALTER TABLE u ENABLE KEYS")?;
    s.execute("UNLOCK TABLES")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM u")?, "1000");
    Ok(())
}

#[test]
fn global_read_lock_waits_for_running_writes() -> R<()> {
    let t = setup()?;
    // A write statement that runs until `holder` ends its transaction.
    let mut holder = t.session(50)?;
    holder.execute("BEGIN")?;
    holder.execute("UPDATE t SET v = 11 WHERE id = 1")?;
    let (written, writer) = spawn(t.session(50)?, "UPDATE t SET v = 12 WHERE id = 1");
    let mut watcher = t.session(50)?;
    assert!(
        written.recv_timeout(Duration::from_millis(300)).is_err(),
        "the UPDATE waits for the row lock"
    );

    let mut flusher = t.session(50)?;
    flusher.execute("SET lock_wait_timeout = 1")?;
    assert_eq!(err(&mut flusher, "FLUSH TABLES WITH READ LOCK")?.0, 1205);
    // Not held after the failure: writes go on.
    watcher.execute("INSERT INTO u VALUES (1)")?;
    flusher.execute("SET lock_wait_timeout = 50")?;
    let id: u64 = one(&mut flusher, "SELECT CONNECTION_ID()")?.parse()?;
    let (flushed, flush) = spawn(flusher, "FLUSH TABLES WITH READ LOCK");
    wait_for_state(&mut watcher, "Waiting for backup lock")?;
    assert!(t.db.kill(id, true));
    assert_eq!(flushed.recv_timeout(Duration::from_secs(10))?, 1317);
    let flusher = flush.join().map_err(|_| "flush panicked")?;

    // While the lock waits for the running write, the holder's COMMIT goes
    // through (the lock is not complete yet); then the lock is granted.
    let (flushed, flush) = spawn(flusher, "FLUSH TABLES WITH READ LOCK");
    wait_for_state(&mut watcher, "Waiting for backup lock")?;
    holder.execute("COMMIT")?;
    assert_eq!(written.recv_timeout(Duration::from_secs(10))?, 0);
    assert_eq!(flushed.recv_timeout(Duration::from_secs(10))?, 0);
    writer.join().map_err(|_| "writer panicked")?;
    let mut flusher = flush.join().map_err(|_| "flush panicked")?;
    // Held: new writes wait.
    watcher.execute("SET lock_wait_timeout = 1")?;
    assert_eq!(err(&mut watcher, "INSERT INTO u VALUES (2)")?.0, 1205);
    assert_eq!(
        rows(&mut flusher, "SELECT v FROM t")?,
        vec![vec!["12".to_string()]]
    );
    flusher.execute("UNLOCK TABLES")?;
    watcher.execute("INSERT INTO u VALUES (2)")?;
    Ok(())
}

#[test]
fn flush_tables_list_with_read_lock_locks_those_tables() -> R<()> {
    let t = setup()?;
    let mut s = t.session(50)?;
    s.execute("FLUSH TABLES t WITH READ LOCK")?;
    assert_eq!(err(&mut s, "SELECT * FROM u")?.0, 1100);
    let mut o = t.session(50)?;
    o.execute("SET lock_wait_timeout = 1")?;
    o.execute("INSERT INTO u VALUES (1)")?;
    assert_eq!(err(&mut o, "INSERT INTO t VALUES (3, 3)")?.0, 1205);
    s.execute("UNLOCK TABLES")?;
    o.execute("INSERT INTO t VALUES (3, 3)")?;
    Ok(())
}
