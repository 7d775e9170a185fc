//! Transaction isolation through SQL sessions: the classic anomalies at each
//! isolation level with InnoDB's outcomes (which anomalies occur, which
//! statements block or fail), lock wait timeouts, deadlocks and locking reads.

mod support;

use std::time::{Duration, Instant};

use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use support::{one, TestDb, R};

struct Env(TestDb);

impl Env {
    /// A database with `t(id INT PRIMARY KEY, v INT, KEY(v))` holding
    /// (1,10), (2,20), (3,30).
    fn new() -> R<Env> {
        Ok(Env(TestDb::new(&[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY kv (v))",
            "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
        ])?))
    }

    fn session(&self) -> R<Session> {
        self.0.session(50)
    }

    /// A session at `level` with a short lock wait timeout.
    fn at(&self, level: &str) -> R<Session> {
        let mut s = self.0.session(1)?;
        s.execute(&format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))?;
        Ok(s)
    }
}

fn code(r: Result<QueryResult, larch_sql::error::SqlError>) -> Option<u16> {
    r.err().map(|e| e.code())
}

const LEVELS: [&str; 3] = ["READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ"];

#[test]
fn dirty_reads_happen_only_at_read_uncommitted() -> R<()> {
    for level in LEVELS {
        let env = Env::new()?;
        let mut w = env.at("REPEATABLE READ")?;
        let mut r = env.at(level)?;
        w.execute("BEGIN")?;
        w.execute("UPDATE t SET v = 11 WHERE id = 1")?;
        w.execute("INSERT INTO t VALUES (4, 40)")?;
        let v = one(&mut r, "SELECT v FROM t WHERE id = 1")?;
        let n = one(&mut r, "SELECT COUNT(*) FROM t")?;
        let by_index = one(&mut r, "SELECT COUNT(*) FROM t WHERE v >= 11")?;
        if level == "READ UNCOMMITTED" {
            assert_eq!(
                (v.as_str(), n.as_str(), by_index.as_str()),
                ("11", "4", "4"),
                "{level}"
            );
        } else {
            assert_eq!(
                (v.as_str(), n.as_str(), by_index.as_str()),
                ("10", "3", "2"),
                "{level}"
            );
        }
        w.execute("ROLLBACK")?;
        assert_eq!(one(&mut r, "SELECT v FROM t WHERE id = 1")?, "10");
    }
    Ok(())
}

#[test]
fn repeatable_read_keeps_its_snapshot_read_committed_does_not() -> R<()> {
    for level in ["READ COMMITTED", "REPEATABLE READ"] {
        let env = Env::new()?;
        let mut r = env.at(level)?;
        let mut w = env.at("REPEATABLE READ")?;
        r.execute("BEGIN")?;
        assert_eq!(one(&mut r, "SELECT v FROM t WHERE id = 2")?, "20");
        assert_eq!(one(&mut r, "SELECT COUNT(*) FROM t WHERE v > 15")?, "2");
        // Non-repeatable read, phantom and read skew candidates, committed.
        w.execute("UPDATE t SET v = 21 WHERE id = 2")?;
        w.execute("INSERT INTO t VALUES (5, 50)")?;
        w.execute("BEGIN")?;
        w.execute("UPDATE t SET v = v - 5 WHERE id = 1")?;
        w.execute("UPDATE t SET v = v + 5 WHERE id = 3")?;
        w.execute("COMMIT")?;
        let v = one(&mut r, "SELECT v FROM t WHERE id = 2")?;
        let phantoms = one(&mut r, "SELECT COUNT(*) FROM t WHERE v > 15")?;
        let total = one(&mut r, "SELECT SUM(v) FROM t WHERE id IN (1, 3)")?;
        if level == "REPEATABLE READ" {
            assert_eq!((v.as_str(), phantoms.as_str()), ("20", "2"));
        } else {
            assert_eq!((v.as_str(), phantoms.as_str()), ("21", "3"));
        }
        assert_eq!(
            total, "40",
            "{level}: the transfer is seen whole or not at all"
        );
        r.execute("COMMIT")?;
        assert_eq!(one(&mut r, "SELECT v FROM t WHERE id = 2")?, "21");
    }
    Ok(())
}

#[test]
fn writers_of_one_row_wait_for_each_other_and_no_update_is_lost() -> R<()> {
    for level in LEVELS {
        let env = Env::new()?;
        let mut a = env.at(level)?;
        let mut b = env.at(level)?;
        a.execute("BEGIN")?;
        a.execute("UPDATE t SET v = v + 1 WHERE id = 1")?;
        b.execute("BEGIN")?;
        b.execute("UPDATE t SET v = v + 100 WHERE id = 2")?;
        // Dirty write: b waits for a's row lock and times out (1205); only
        // the statement is rolled back, b's earlier change stays.
        let started = Instant::now();
        assert_eq!(
            code(b.execute("UPDATE t SET v = v + 1 WHERE id = 1")),
            Some(1205)
        );
        assert!(started.elapsed() >= Duration::from_millis(900));
        assert!(b.in_transaction());
        a.execute("COMMIT")?;
        // Lost update: the increment reads the committed value once locked.
        b.execute("UPDATE t SET v = v + 1 WHERE id = 1")?;
        b.execute("COMMIT")?;
        let mut c = env.session()?;
        assert_eq!(
            one(&mut c, "SELECT v FROM t WHERE id = 1")?,
            "12",
            "{level}"
        );
        assert_eq!(
            one(&mut c, "SELECT v FROM t WHERE id = 2")?,
            "120",
            "{level}"
        );
    }
    Ok(())
}

#[test]
fn a_blocked_writer_proceeds_when_the_holder_commits() -> R<()> {
    let env = Env::new()?;
    let mut a = env.at("REPEATABLE READ")?;
    a.execute("BEGIN")?;
    a.execute("UPDATE t SET v = 15 WHERE id = 1")?;
    let mut b = env.session()?;
    b.execute("SET SESSION innodb_lock_wait_timeout = 20")?;
    let waiter = std::thread::spawn(move || -> R<(u128, String)> {
        let started = Instant::now();
        b.execute("UPDATE t SET v = v * 2 WHERE id = 1")?;
        Ok((
            started.elapsed().as_millis(),
            one(&mut b, "SELECT v FROM t WHERE id = 1")?,
        ))
    });
    std::thread::sleep(Duration::from_millis(300));
    a.execute("COMMIT")?;
    let (waited, v) = waiter.join().map_err(|_| "waiter panicked")??;
    assert!(waited >= 250, "the update waited {waited} ms");
    assert_eq!(v, "30");
    Ok(())
}

#[test]
fn write_skew_is_allowed_at_repeatable_read_as_in_innodb() -> R<()> {
    let env = Env::new()?;
    let mut a = env.at("REPEATABLE READ")?;
    let mut b = env.at("REPEATABLE READ")?;
    a.execute("BEGIN")?;
    b.execute("BEGIN")?;
    assert_eq!(
        one(&mut a, "SELECT SUM(v) FROM t WHERE id IN (1, 2)")?,
        "30"
    );
    assert_eq!(
        one(&mut b, "SELECT SUM(v) FROM t WHERE id IN (1, 2)")?,
        "30"
    );
    a.execute("UPDATE t SET v = 0 WHERE id = 1")?;
    b.execute("UPDATE t SET v = 0 WHERE id = 2")?;
    a.execute("COMMIT")?;
    b.execute("COMMIT")?;
    let mut c = env.session()?;
    assert_eq!(one(&mut c, "SELECT SUM(v) FROM t WHERE id IN (1, 2)")?, "0");
    Ok(())
}

#[test]
fn a_deadlock_rolls_back_one_whole_transaction_with_1213() -> R<()> {
    let env = Env::new()?;
    let mut a = env.session()?;
    let mut b = env.session()?;
    for s in [&mut a, &mut b] {
        s.execute("SET SESSION innodb_lock_wait_timeout = 20")?;
        s.execute("BEGIN")?;
    }
    a.execute("UPDATE t SET v = 11 WHERE id = 1")?;
    b.execute("UPDATE t SET v = 22 WHERE id = 2")?;
    b.execute("INSERT INTO t VALUES (7, 70)")?;
    let waiter = std::thread::spawn(move || -> (Session, Option<u16>) {
        let r = a.execute("UPDATE t SET v = 12 WHERE id = 2");
        (a, r.err().map(|e| e.code()))
    });
    std::thread::sleep(Duration::from_millis(300));
    let here = code(b.execute("UPDATE t SET v = 21 WHERE id = 1"));
    if here == Some(1213) {
        assert!(
            !b.in_transaction(),
            "the victim's transaction is rolled back"
        );
    }
    let (mut a, there) = waiter.join().map_err(|_| "waiter panicked")?;
    assert!(
        (here == Some(1213)) ^ (there == Some(1213)),
        "exactly one victim: {here:?} {there:?}"
    );
    for s in [&mut a, &mut b] {
        if s.in_transaction() {
            s.execute("COMMIT")?;
        }
    }
    let mut c = env.session()?;
    let n7 = one(&mut c, "SELECT COUNT(*) FROM t WHERE id = 7")?;
    if here == Some(1213) {
        assert_eq!(n7, "0", "the victim's insert is gone");
        assert_eq!(one(&mut c, "SELECT v FROM t WHERE id = 2")?, "12");
    } else {
        assert_eq!(n7, "1");
        assert_eq!(one(&mut c, "SELECT v FROM t WHERE id = 1")?, "21");
    }
    Ok(())
}

#[test]
fn locking_reads_block_skip_or_fail_at_once() -> R<()> {
    let env = Env::new()?;
    let mut a = env.at("REPEATABLE READ")?;
    let mut b = env.at("REPEATABLE READ")?;
    a.execute("BEGIN")?;
    assert_eq!(
        one(&mut a, "SELECT v FROM t WHERE id = 1 FOR UPDATE")?,
        "10"
    );
    b.execute("BEGIN")?;
    // A plain read does not wait; a locking one does.
    assert_eq!(one(&mut b, "SELECT v FROM t WHERE id = 1")?, "10");
    assert_eq!(
        code(b.execute("SELECT v FROM t WHERE id = 1 FOR UPDATE")),
        Some(1205)
    );
    assert_eq!(
        code(b.execute("SELECT v FROM t WHERE id = 1 LOCK IN SHARE MODE")),
        Some(1205)
    );
    let started = Instant::now();
    assert!(code(b.execute("SELECT v FROM t WHERE id = 1 FOR UPDATE NOWAIT")).is_some());
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "NOWAIT does not wait"
    );
    assert_eq!(
        one(&mut b, "SELECT COUNT(*) FROM t FOR UPDATE SKIP LOCKED")?,
        "2",
        "the locked row is skipped"
    );
    // Shared locks are compatible with each other.
    a.execute("COMMIT")?;
    b.execute("COMMIT")?;
    a.execute("BEGIN")?;
    b.execute("BEGIN")?;
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3 FOR SHARE")?, "30");
    assert_eq!(one(&mut b, "SELECT v FROM t WHERE id = 3 FOR SHARE")?, "30");
    assert_eq!(
        code(b.execute("UPDATE t SET v = 31 WHERE id = 3")),
        Some(1205)
    );
    a.execute("COMMIT")?;
    b.execute("UPDATE t SET v = 31 WHERE id = 3")?;
    b.execute("COMMIT")?;
    Ok(())
}

#[test]
fn duplicate_keys_wait_for_the_inserting_transaction() -> R<()> {
    let env = Env::new()?;
    let mut a = env.at("REPEATABLE READ")?;
    let mut b = env.at("REPEATABLE READ")?;
    a.execute("BEGIN")?;
    a.execute("INSERT INTO t VALUES (9, 90)")?;
    // The same key from another transaction waits: a may still roll back.
    assert_eq!(code(b.execute("INSERT INTO t VALUES (9, 91)")), Some(1205));
    a.execute("ROLLBACK")?;
    b.execute("BEGIN")?;
    b.execute("INSERT INTO t VALUES (9, 91)")?;
    assert_eq!(code(a.execute("INSERT INTO t VALUES (9, 92)")), Some(1205));
    let mut c = env.session()?;
    assert_eq!(one(&mut c, "SELECT COUNT(*) FROM t WHERE id = 9")?, "0");
    b.execute("COMMIT")?;
    assert_eq!(one(&mut c, "SELECT v FROM t WHERE id = 9")?, "91");
    assert_eq!(code(a.execute("INSERT INTO t VALUES (9, 93)")), Some(1062));
    Ok(())
}

#[test]
fn locking_reads_are_phantom_free_at_repeatable_read_only() -> R<()> {
    for level in ["READ COMMITTED", "REPEATABLE READ"] {
        let env = Env::new()?;
        let mut a = env.at(level)?;
        let mut b = env.at(level)?;
        a.execute("BEGIN")?;
        let range = "SELECT COUNT(*) FROM t WHERE v BETWEEN 15 AND 35 FOR UPDATE";
        assert_eq!(one(&mut a, range)?, "2");
        // Far below the range: the gap (-inf, 10) is not locked.
        b.execute("INSERT INTO t VALUES (6, 5)")?;
        let inside = code(b.execute("INSERT INTO t VALUES (4, 25)"));
        let above = code(b.execute("INSERT INTO t VALUES (5, 100)"));
        if level == "REPEATABLE READ" {
            assert_eq!((inside, above), (Some(1205), Some(1205)), "gaps are locked");
            assert_eq!(one(&mut a, range)?, "2", "no phantom");
        } else {
            assert_eq!(
                (inside, above),
                (None, None),
                "no gap locks at READ COMMITTED"
            );
            assert_eq!(one(&mut a, range)?, "3", "a phantom, as InnoDB shows it");
        }
        a.execute("COMMIT")?;
        b.execute("INSERT INTO t VALUES (8, 26)")?;
        // Locking a missing key locks the gap where it would go.
        a.execute("BEGIN")?;
        assert_eq!(
            one(&mut a, "SELECT COUNT(*) FROM t WHERE id = 50 FOR UPDATE")?,
            "0"
        );
        let missing = code(b.execute("INSERT INTO t VALUES (50, 1)"));
        if level == "REPEATABLE READ" {
            assert_eq!(missing, Some(1205));
        } else {
            assert_eq!(missing, None);
        }
        a.execute("COMMIT")?;
    }
    Ok(())
}

#[test]
fn serializable_reads_lock_inside_transactions_only() -> R<()> {
    let env = Env::new()?;
    let mut a = env.at("SERIALIZABLE")?;
    let mut b = env.at("REPEATABLE READ")?;
    a.execute("BEGIN")?;
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t WHERE v > 15")?, "2");
    assert_eq!(
        code(b.execute("UPDATE t SET v = 21 WHERE id = 2")),
        Some(1205)
    );
    assert_eq!(code(b.execute("INSERT INTO t VALUES (7, 70)")), Some(1205));
    // Rows and gaps a did not read are free ((11, 1) would go into the gap
    // before (20, 2), which a's next-key lock covers, as in InnoDB).
    b.execute("UPDATE t SET v = 5 WHERE id = 1")?;
    assert_eq!(
        code(b.execute("UPDATE t SET v = 11 WHERE id = 1")),
        Some(1205)
    );
    a.execute("COMMIT")?;
    b.execute("UPDATE t SET v = 21 WHERE id = 2")?;
    // An autocommit SELECT at SERIALIZABLE is a consistent read: no waiting.
    b.execute("BEGIN")?;
    b.execute("UPDATE t SET v = 22 WHERE id = 2")?;
    let started = Instant::now();
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 2")?, "21");
    assert!(started.elapsed() < Duration::from_millis(500));
    b.execute("COMMIT")?;
    Ok(())
}
