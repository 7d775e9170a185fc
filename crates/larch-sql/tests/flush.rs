//! FLUSH statements: the global read lock of `FLUSH TABLES WITH READ LOCK`
//! holds other sessions' writes until `UNLOCK TABLES` (or the holder's
//! end), refuses the holder's own writes and times out per
//! `lock_wait_timeout`; the other FLUSH forms succeed; FOR EXPORT is refused.

mod support;

use std::time::{Duration, Instant};

use support::{one, TestDb, R};

/// Polls until another session waits for the global read lock (the
/// processlist shows "Waiting for backup lock").
fn wait_for_backup_lock(s: &mut larch_sql::session::Session) -> R<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let n = one(
            s,
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
             WHERE STATE = 'Waiting for backup lock'",
        )?;
        if n != "0" {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err("no session waited for the global read lock".into())
}

#[test]
fn global_read_lock_holds_writes() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT)"])?;
    let mut a = t.session(50)?;
    let mut b = t.session(50)?;
    a.execute("FLUSH TABLES WITH READ LOCK")?;
    // Reads go on; the holder's own writes are refused.
    assert_eq!(one(&mut b, "SELECT COUNT(*) FROM t")?, "0");
    let e = a
        .execute("INSERT INTO t VALUES (1)")
        .err()
        .ok_or("no error")?;
    assert_eq!(
        (e.code(), e.to_string().as_str()),
        (
            1223,
            "Can't execute the query because you have a conflicting read lock"
        )
    );
    // Another session's write waits for UNLOCK TABLES.
    let writer = std::thread::spawn(move || -> R<()> {
        b.execute("INSERT INTO t VALUES (2)")?;
        Ok(())
    });
    wait_for_backup_lock(&mut a)?;
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t")?, "0");
    a.execute("UNLOCK TABLES")?;
    writer.join().map_err(|_| "writer panicked")??;
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t")?, "1");
    // The COMMIT of a transaction that changed rows waits as well.
    let mut d = t.session(50)?;
    d.execute("BEGIN")?;
    d.execute("INSERT INTO t VALUES (5)")?;
    a.execute("FLUSH TABLES WITH READ LOCK")?;
    let committer = std::thread::spawn(move || -> R<()> {
        d.execute("COMMIT")?;
        Ok(())
    });
    wait_for_backup_lock(&mut a)?;
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t")?, "1");
    a.execute("UNLOCK TABLES")?;
    committer.join().map_err(|_| "committer panicked")??;
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t")?, "2");
    // lock_wait_timeout bounds the wait; the lock ends with its session.
    a.execute("FLUSH TABLES WITH READ LOCK")?;
    let mut c = t.session(50)?;
    c.execute("SET lock_wait_timeout = 1")?;
    let e = c
        .execute("CREATE TABLE u (a INT)")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1205);
    drop(a);
    c.execute("INSERT INTO t VALUES (3)")?;
    Ok(())
}

#[test]
fn other_flush_forms() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT)"])?;
    let mut s = t.session(50)?;
    for sql in [
        "FLUSH TABLES",
        "FLUSH TABLES t",
        "FLUSH LOGS",
        "FLUSH PRIVILEGES",
        "FLUSH STATUS",
        "FLUSH HOSTS",
        "FLUSH NO_WRITE_TO_BINLOG TABLES",
        "FLUSH TABLE t",
        "FLUSH LOCAL TABLE t, t",
    ] {
        s.execute(sql)?;
    }
    let e = s
        .execute("FLUSH TABLES t FOR EXPORT")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1235);
    // Inside LOCK TABLES the global read lock is refused; FLUSH commits
    // an open transaction.
    s.execute("LOCK TABLES t WRITE")?;
    let e = s
        .execute("FLUSH TABLES WITH READ LOCK")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1192);
    s.execute("UNLOCK TABLES")?;
    s.execute("BEGIN")?;
    s.execute("INSERT INTO t VALUES (1)")?;
    s.execute("FLUSH TABLE t WITH READ LOCK")?;
    s.execute("UNLOCK TABLES")?;
    s.execute("ROLLBACK")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "1");
    Ok(())
}
