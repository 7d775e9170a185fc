//! GET_LOCK and its family with MariaDB 10.0+ semantics: server-wide named
//! locks, re-entrant per connection, timeouts in seconds, 1/0/NULL results,
//! released by RELEASE_ALL_LOCKS and at disconnect; a waiting GET_LOCK is
//! woken by the release and stopped by KILL QUERY.

mod support;

use std::time::{Duration, Instant};

use support::{one, rows, TestDb, R};

#[test]
fn locks_between_two_connections() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut a = t.session(50)?;
    let mut b = t.session(50)?;
    let a_id = one(&mut a, "SELECT CONNECTION_ID()")?;
    assert_eq!(
        rows(
            &mut a,
            "SELECT IS_FREE_LOCK('l1'), IS_USED_LOCK('l1'), RELEASE_LOCK('l1')"
        )?,
        vec![vec!["1", "NULL", "NULL"]]
    );
    assert_eq!(one(&mut a, "SELECT GET_LOCK('l1', 0)")?, "1");
    // Re-entrant: a second level.
    assert_eq!(one(&mut a, "SELECT GET_LOCK('l1', 0)")?, "1");
    assert_eq!(
        rows(&mut b, "SELECT IS_FREE_LOCK('l1'), IS_USED_LOCK('l1')")?,
        vec![vec!["0".to_string(), a_id.clone()]]
    );
    // Timeout: 0 after about the time asked.
    let start = Instant::now();
    assert_eq!(one(&mut b, "SELECT GET_LOCK('l1', 0.3)")?, "0");
    assert!(start.elapsed() >= Duration::from_millis(250));
    // Another connection cannot release it.
    assert_eq!(one(&mut b, "SELECT RELEASE_LOCK('l1')")?, "0");
    assert_eq!(one(&mut a, "SELECT RELEASE_LOCK('l1')")?, "1");
    assert_eq!(one(&mut b, "SELECT IS_FREE_LOCK('l1')")?, "0");
    assert_eq!(one(&mut a, "SELECT RELEASE_LOCK('l1')")?, "1");
    assert_eq!(one(&mut b, "SELECT IS_FREE_LOCK('l1')")?, "1");
    // NULL arguments.
    assert_eq!(
        rows(
            &mut a,
            "SELECT GET_LOCK(NULL, 0), GET_LOCK('x', NULL), IS_USED_LOCK(NULL)"
        )?,
        vec![vec!["NULL", "NULL", "NULL"]]
    );
    let long = "a".repeat(65);
    let e = a
        .execute(&format!("SELECT GET_LOCK('{long}', 0)"))
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.code(), 1059);
    // RELEASE_ALL_LOCKS counts every level.
    for sql in [
        "SELECT GET_LOCK('m1', 0)",
        "SELECT GET_LOCK('m1', 0)",
        "SELECT GET_LOCK('m2', 0)",
    ] {
        assert_eq!(one(&mut a, sql)?, "1");
    }
    assert_eq!(one(&mut a, "SELECT RELEASE_ALL_LOCKS()")?, "3");
    assert_eq!(one(&mut a, "SELECT RELEASE_ALL_LOCKS()")?, "0");
    // Disconnecting releases.
    assert_eq!(one(&mut a, "SELECT GET_LOCK('d', 0)")?, "1");
    drop(a);
    assert_eq!(one(&mut b, "SELECT GET_LOCK('d', 0)")?, "1");
    Ok(())
}

#[test]
fn waiting_get_lock_wakes_on_release_and_stops_on_kill() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut a = t.session(50)?;
    let a_id: u64 = one(&mut a, "SELECT CONNECTION_ID()")?.parse()?;
    let mut b = t.session(50)?;
    let b_id: u64 = one(&mut b, "SELECT CONNECTION_ID()")?.parse()?;
    assert_eq!(one(&mut a, "SELECT GET_LOCK('w', 0)")?, "1");
    // Negative timeout: wait until released.
    let waiter = std::thread::spawn(
        move || -> R<(String, Duration, larch_sql::session::Session)> {
            let start = Instant::now();
            let got = one(&mut b, "SELECT GET_LOCK('w', -1)")?;
            Ok((got, start.elapsed(), b))
        },
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(one(&mut a, "SELECT RELEASE_LOCK('w')")?, "1");
    let (got, waited, mut b) = waiter.join().map_err(|_| "waiter panicked")??;
    assert_eq!(got, "1");
    assert!(waited >= Duration::from_millis(250));
    assert_eq!(one(&mut a, "SELECT IS_USED_LOCK('w')")?, b_id.to_string());
    // KILL QUERY stops a waiter (here `a`, for the lock `b` holds) with 1317.
    let db = t.db.clone();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        db.kill(a_id, true)
    });
    let start = Instant::now();
    let e = a
        .execute("SELECT GET_LOCK('w', 30)")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.code(), 1317);
    assert!(start.elapsed() < Duration::from_secs(10));
    let _ = killer.join();
    let _ = b.execute("SELECT 1");
    Ok(())
}
