//! Transactions and row locks made observable as in MariaDB 10.11, through
//! in-process SQL sessions: `INFORMATION_SCHEMA.INNODB_TRX`, `INNODB_LOCKS`
//! and `INNODB_LOCK_WAITS` while one session waits for another's row lock,
//! the `Innodb_row_lock_*` and `Innodb_deadlocks` status counters, per
//! transaction lock and undo counts, purge progress and undo use, and `SHOW
//! ENGINE INNODB STATUS`.

mod support;

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use larch_sql::session::Session;
use support::{query, rows, TestDb, R};

struct Env(TestDb);

impl Env {
    /// A database with `t(id INT PRIMARY KEY, v INT)` holding (1,10), (2,20),
    /// (3,30).
    fn new() -> R<Env> {
        Ok(Env(TestDb::new(&[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
        ])?))
    }

    /// A session in `test` with a lock wait timeout long enough for the test
    /// to look at the wait.
    fn session(&self) -> R<Session> {
        self.0.session(30)
    }
}

/// The single row of `sql`.
fn row(s: &mut Session, sql: &str) -> R<Vec<String>> {
    let mut r = rows(s, sql)?;
    match r.len() {
        1 => Ok(r.remove(0)),
        n => Err(format!("{sql}: {n} rows: {r:?}").into()),
    }
}

fn connection_id(s: &mut Session) -> R<u64> {
    Ok(row(s, "SELECT CONNECTION_ID()")?[0].parse()?)
}

/// A global status counter.
fn status(s: &mut Session, name: &str) -> R<u64> {
    let r = row(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    Ok(r[1].parse()?)
}

/// The INNODB_TRX row of connection `thread` (selected columns), if any.
fn trx_of(s: &mut Session, thread: u64, columns: &str) -> R<Option<Vec<String>>> {
    let mut r = rows(
        s,
        &format!(
            "SELECT {columns} FROM information_schema.INNODB_TRX \
             WHERE trx_mysql_thread_id = {thread}"
        ),
    )?;
    Ok(match r.len() {
        0 => None,
        1 => Some(r.remove(0)),
        n => return Err(format!("{n} INNODB_TRX rows for thread {thread}: {r:?}").into()),
    })
}

/// Polls until `thread`'s transaction is in LOCK WAIT.
fn wait_for_lock_wait(s: &mut Session, thread: u64) -> R<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if trx_of(s, thread, "trx_state")?.is_some_and(|r| r[0] == "LOCK WAIT") {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("thread {thread} never showed LOCK WAIT").into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `sql` on `s` in a thread (it is expected to block).
fn spawn(mut s: Session, sql: &'static str) -> JoinHandle<(Session, Option<u16>)> {
    std::thread::spawn(move || {
        let r = s.execute(sql);
        (s, r.err().map(|e| e.code()))
    })
}

fn join(h: JoinHandle<(Session, Option<u16>)>) -> R<(Session, Option<u16>)> {
    h.join().map_err(|_| "the waiting session panicked".into())
}

const TRX_COLUMNS: [&str; 22] = [
    "trx_id",
    "trx_state",
    "trx_started",
    "trx_requested_lock_id",
    "trx_wait_started",
    "trx_weight",
    "trx_mysql_thread_id",
    "trx_query",
    "trx_operation_state",
    "trx_tables_in_use",
    "trx_tables_locked",
    "trx_lock_structs",
    "trx_lock_memory_bytes",
    "trx_rows_locked",
    "trx_rows_modified",
    "trx_concurrency_tickets",
    "trx_isolation_level",
    "trx_unique_checks",
    "trx_foreign_key_checks",
    "trx_last_foreign_key_error",
    "trx_is_read_only",
    "trx_autocommit_non_locking",
];

#[test]
fn the_tables_have_mariadbs_columns() -> R<()> {
    let env = Env::new()?;
    let mut s = env.session()?;
    let (names, rows) = query(&mut s, "SELECT * FROM information_schema.INNODB_TRX")?;
    assert_eq!(names, TRX_COLUMNS);
    assert!(
        rows.is_empty(),
        "the query's own snapshot is no InnoDB transaction: {rows:?}"
    );
    let (names, rows) = query(&mut s, "SELECT * FROM information_schema.INNODB_LOCKS")?;
    assert_eq!(
        names,
        [
            "lock_id",
            "lock_trx_id",
            "lock_mode",
            "lock_type",
            "lock_table",
            "lock_index",
            "lock_space",
            "lock_page",
            "lock_rec",
            "lock_data"
        ]
    );
    assert!(rows.is_empty(), "no waits, no locks shown: {rows:?}");
    let (names, rows) = query(&mut s, "SELECT * FROM information_schema.INNODB_LOCK_WAITS")?;
    assert_eq!(
        names,
        [
            "requesting_trx_id",
            "requested_lock_id",
            "blocking_trx_id",
            "blocking_lock_id"
        ]
    );
    assert!(rows.is_empty());
    let tables = rows_of_show_tables(&mut s)?;
    for t in ["INNODB_LOCKS", "INNODB_LOCK_WAITS", "INNODB_TRX"] {
        assert!(tables.iter().any(|n| n == t), "{t} in {tables:?}");
    }
    for v in [
        "Innodb_deadlocks",
        "Innodb_row_lock_current_waits",
        "Innodb_row_lock_time",
        "Innodb_row_lock_time_avg",
        "Innodb_row_lock_time_max",
        "Innodb_row_lock_waits",
    ] {
        assert_eq!(status(&mut s, v)?, 0, "{v}");
    }
    Ok(())
}

fn rows_of_show_tables(s: &mut Session) -> R<Vec<String>> {
    Ok(rows(s, "SHOW TABLES FROM information_schema")?
        .into_iter()
        .map(|mut r| r.remove(0))
        .collect())
}

#[test]
fn a_session_blocked_on_a_row_lock_shows_up_everywhere() -> R<()> {
    let env = Env::new()?;
    let mut a = env.session()?;
    let mut b = env.session()?;
    let mut c = env.session()?;
    let (a_id, b_id) = (connection_id(&mut a)?, connection_id(&mut b)?);

    a.execute("BEGIN")?;
    a.execute("UPDATE t SET v = 11 WHERE id = 1")?;
    let a_row = trx_of(
        &mut c,
        a_id,
        "trx_id, trx_state, trx_requested_lock_id, trx_rows_locked, \
         trx_rows_modified, trx_lock_structs, trx_weight, trx_tables_locked, \
         trx_isolation_level, trx_query",
    )?
    .ok_or("a's transaction is in INNODB_TRX")?;
    let a_trx = a_row[0].clone();
    assert_eq!(
        a_row[1..],
        [
            "RUNNING",
            "NULL",
            "1",
            "1",
            "1",
            "2",
            "1",
            "REPEATABLE READ",
            "NULL"
        ]
    );

    let waiter = spawn(b, "UPDATE t SET v = 12 WHERE id = 1");
    wait_for_lock_wait(&mut c, b_id)?;

    let b_row = trx_of(
        &mut c,
        b_id,
        "trx_id, trx_state, trx_requested_lock_id, trx_wait_started IS NOT NULL, trx_query, \
         trx_rows_locked, trx_lock_structs, trx_tables_in_use",
    )?
    .ok_or("b's transaction is in INNODB_TRX")?;
    let (b_trx, requested) = (b_row[0].clone(), b_row[2].clone());
    assert_eq!(b_row[1], "LOCK WAIT");
    assert_ne!(requested, "NULL");
    assert!(
        requested.starts_with(&format!("{b_trx}:")),
        "{requested} names {b_trx}"
    );
    assert_eq!(
        b_row[3..],
        ["1", "UPDATE t SET v = 12 WHERE id = 1", "0", "1", "0"]
    );

    let waits = rows(&mut c, "SELECT * FROM information_schema.INNODB_LOCK_WAITS")?;
    assert_eq!(waits.len(), 1, "{waits:?}");
    let w = &waits[0];
    assert_eq!(
        (w[0].as_str(), w[1].as_str(), w[2].as_str()),
        (b_trx.as_str(), requested.as_str(), a_trx.as_str())
    );
    let blocking = w[3].clone();
    assert!(blocking.starts_with(&format!("{a_trx}:")), "{blocking}");

    let mut locks = rows(
        &mut c,
        "SELECT lock_id, lock_trx_id, lock_mode, lock_type, lock_table, lock_index, \
         lock_space IS NOT NULL, lock_page, lock_rec, lock_data \
         FROM information_schema.INNODB_LOCKS",
    )?;
    assert_eq!(locks.len(), 2, "{locks:?}");
    locks.sort_by_key(|l| l[0] != requested);
    for (l, (id, trx)) in locks
        .iter()
        .zip([(&requested, &b_trx), (&blocking, &a_trx)])
    {
        assert_eq!(
            l[..],
            [
                id.as_str(),
                trx.as_str(),
                "X",
                "RECORD",
                "`test`.`t`",
                "PRIMARY",
                "1",
                "NULL",
                "NULL",
                "1"
            ]
        );
    }

    assert_eq!(status(&mut c, "Innodb_row_lock_current_waits")?, 1);
    assert_eq!(status(&mut c, "Innodb_row_lock_waits")?, 1);

    let monitor = row(&mut c, "SHOW ENGINE INNODB STATUS")?[2].clone();
    for needle in [
        format!("---TRANSACTION {a_trx}, ACTIVE "),
        "1 row lock(s), undo log entries 1".to_owned(),
        format!("MySQL thread id {a_id}, localhost root"),
        format!("---TRANSACTION {b_trx}, ACTIVE "),
        format!("MySQL thread id {b_id}, localhost root\nUPDATE t SET v = 12 WHERE id = 1"),
        "LOCK WAIT 1 lock struct(s)".to_owned(),
        "SEC FOR THIS LOCK TO BE GRANTED:\nRECORD LOCKS space id ".to_owned(),
        format!(
            "index PRIMARY of table `test`.`t` trx id {b_trx} \
             lock_mode X locks rec but not gap waiting\nRecord lock, key (1)"
        ),
        "row lock waits 1 (1 now)".to_owned(),
        "LIST OF TRANSACTIONS FOR EACH SESSION:".to_owned(),
    ] {
        assert!(monitor.contains(&needle), "{needle:?} in\n{monitor}");
    }

    std::thread::sleep(Duration::from_millis(50));
    a.execute("COMMIT")?;
    let (mut b, failed) = join(waiter)?;
    assert_eq!(failed, None);
    assert_eq!(row(&mut b, "SELECT v FROM t WHERE id = 1")?, ["12"]);

    assert_eq!(status(&mut c, "Innodb_row_lock_current_waits")?, 0);
    assert_eq!(status(&mut c, "Innodb_row_lock_waits")?, 1);
    let total = status(&mut c, "Innodb_row_lock_time")?;
    assert!(total >= 50, "waited {total} ms");
    assert_eq!(status(&mut c, "Innodb_row_lock_time_max")?, total);
    assert_eq!(status(&mut c, "Innodb_row_lock_time_avg")?, total);
    assert!(rows(&mut c, "SELECT * FROM information_schema.INNODB_LOCK_WAITS")?.is_empty());
    assert!(rows(&mut c, "SELECT * FROM information_schema.INNODB_LOCKS")?.is_empty());
    assert_eq!(trx_of(&mut c, a_id, "trx_id")?, None);
    assert_eq!(trx_of(&mut c, b_id, "trx_id")?, None);
    Ok(())
}

#[test]
fn rows_locked_and_modified_follow_the_transactions_work() -> R<()> {
    let env = Env::new()?;
    let mut s = env.session()?;
    let mut c = env.session()?;
    let id = connection_id(&mut s)?;
    let cols = "trx_rows_locked, trx_rows_modified, trx_lock_structs, trx_weight, \
                trx_tables_locked, trx_state, trx_lock_memory_bytes > 0";
    s.execute("BEGIN")?;
    assert_eq!(
        trx_of(&mut c, id, cols)?.ok_or("open")?,
        ["0", "0", "0", "0", "0", "RUNNING", "0"]
    );
    s.execute("UPDATE t SET v = v + 1 WHERE id IN (1, 2)")?;
    assert_eq!(
        trx_of(&mut c, id, cols)?.ok_or("open")?,
        ["2", "2", "2", "4", "1", "RUNNING", "1"]
    );
    s.execute("INSERT INTO t VALUES (4, 40)")?;
    s.execute("SAVEPOINT sp")?;
    s.execute("DELETE FROM t WHERE id = 3")?;
    s.execute("UPDATE t SET v = 0 WHERE id = 3")?; // nothing: deleted
    assert_eq!(
        trx_of(&mut c, id, cols)?.ok_or("open")?,
        ["4", "4", "4", "8", "1", "RUNNING", "1"]
    );
    s.execute("ROLLBACK TO SAVEPOINT sp")?;
    // The undo records after the savepoint are gone; its locks stay.
    assert_eq!(
        trx_of(&mut c, id, "trx_rows_locked, trx_rows_modified")?.ok_or("open")?,
        ["4", "3"]
    );
    // A second table counts as a second locked table.
    c.execute("CREATE TABLE u (k INT PRIMARY KEY)")?;
    s.execute("INSERT INTO u VALUES (1)")?;
    assert_eq!(
        trx_of(&mut c, id, "trx_tables_locked, trx_rows_modified")?.ok_or("open")?,
        ["2", "4"]
    );
    s.execute("COMMIT")?;
    assert_eq!(trx_of(&mut c, id, "trx_id")?, None);
    Ok(())
}

#[test]
fn a_deadlock_is_counted() -> R<()> {
    let env = Env::new()?;
    let mut a = env.session()?;
    let mut b = env.session()?;
    let mut c = env.session()?;
    let a_id = connection_id(&mut a)?;
    assert_eq!(status(&mut c, "Innodb_deadlocks")?, 0);
    a.execute("BEGIN")?;
    b.execute("BEGIN")?;
    a.execute("UPDATE t SET v = 11 WHERE id = 1")?;
    b.execute("UPDATE t SET v = 22 WHERE id = 2")?;
    let waiter = spawn(a, "UPDATE t SET v = 12 WHERE id = 2");
    wait_for_lock_wait(&mut c, a_id)?;
    let here = b
        .execute("UPDATE t SET v = 21 WHERE id = 1")
        .err()
        .map(|e| e.code());
    let (mut a, there) = join(waiter)?;
    assert!(
        (here == Some(1213)) ^ (there == Some(1213)),
        "exactly one victim: {here:?} {there:?}"
    );
    assert_eq!(status(&mut c, "Innodb_deadlocks")?, 1);
    assert_eq!(status(&mut c, "Innodb_row_lock_current_waits")?, 0);
    assert!(status(&mut c, "Innodb_row_lock_waits")? >= 2);
    let monitor = row(&mut c, "SHOW ENGINE INNODB STATUS")?[2].clone();
    assert!(monitor.contains("; deadlocks 1;"), "{monitor}");
    for s in [&mut a, &mut b] {
        if s.in_transaction() {
            s.execute("COMMIT")?;
        }
    }
    Ok(())
}

#[test]
fn lock_data_shows_the_locked_key() -> R<()> {
    let env = Env::new()?;
    let mut a = env.session()?;
    let mut b = env.session()?;
    let mut c = env.session()?;
    let b_id = connection_id(&mut b)?;
    a.execute("CREATE TABLE pair (x INT, y VARCHAR(10) COLLATE utf8mb4_bin, PRIMARY KEY (x, y))")?;
    a.execute("CREATE TABLE heap (x INT)")?;
    a.execute("INSERT INTO pair VALUES (1, 'it''s')")?;
    a.execute("INSERT INTO heap VALUES (5)")?;
    let cases: [(&'static str, &'static str, &str, &str); 2] = [
        (
            "UPDATE pair SET x = 1 WHERE x = 1",
            "UPDATE pair SET x = 1 WHERE x = 1",
            "`test`.`pair`|PRIMARY",
            "1, 'it''s'",
        ),
        (
            "UPDATE heap SET x = 6",
            "UPDATE heap SET x = 7",
            "`test`.`heap`|GEN_CLUST_INDEX",
            "0x",
        ),
    ];
    for (hold, wait, table_index, data) in cases {
        a.execute("BEGIN")?;
        a.execute(hold)?;
        let waiter = spawn(b, wait);
        wait_for_lock_wait(&mut c, b_id)?;
        let locks = rows(
            &mut c,
            "SELECT CONCAT(lock_table, '|', lock_index), lock_data \
             FROM information_schema.INNODB_LOCKS",
        )?;
        assert_eq!(locks.len(), 2, "{locks:?}");
        for l in &locks {
            assert_eq!(l[0], table_index);
            assert!(l[1].starts_with(data), "{} starts with {data}", l[1]);
        }
        a.execute("COMMIT")?;
        let (back, failed) = join(waiter)?;
        assert_eq!(failed, None);
        b = back;
    }
    Ok(())
}

#[test]
fn a_long_rollback_shows_rolling_back() -> R<()> {
    let env = Env::new()?;
    let mut s = env.session()?;
    let mut c = env.session()?;
    let id = connection_id(&mut s)?;
    s.execute("CREATE TABLE big (k INT PRIMARY KEY, pad VARCHAR(100))")?;
    s.execute("BEGIN")?;
    let pad = "x".repeat(100);
    for chunk in 0..30 {
        let values: Vec<String> = (0..1000)
            .map(|i| format!("({}, '{pad}')", chunk * 1000 + i))
            .collect();
        s.execute(&format!("INSERT INTO big VALUES {}", values.join(",")))?;
    }
    assert_eq!(
        trx_of(&mut c, id, "trx_rows_modified")?.ok_or("open")?,
        ["30000"]
    );
    // Polls while the rollback runs (a few hundred milliseconds).
    let rollback = spawn(s, "ROLLBACK");
    let mut seen = Vec::new();
    while !rollback.is_finished() {
        if let Some(r) = trx_of(&mut c, id, "trx_state")? {
            if seen.last() != Some(&r[0]) {
                seen.push(r[0].clone());
            }
        }
    }
    let (_, failed) = join(rollback)?;
    assert_eq!(failed, None);
    assert!(seen.iter().any(|s| s == "ROLLING BACK"), "{seen:?}");
    assert_eq!(trx_of(&mut c, id, "trx_state")?, None);
    Ok(())
}

/// Waits (bounded) until `done` holds for the status counters, polling.
fn wait_status(s: &mut Session, what: &str, done: impl Fn(&mut Session) -> R<bool>) -> R<()> {
    let t0 = Instant::now();
    while !done(s)? {
        if t0.elapsed() > Duration::from_secs(60) {
            return Err(format!("timed out waiting for {what}").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

#[test]
fn purge_progress_and_undo_use_are_visible() -> R<()> {
    let env = Env::new()?;
    let mut reader = env.session()?;
    let mut writer = env.session()?;
    let mut watcher = env.session()?;
    reader.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")?;
    assert_eq!(row(&mut reader, "SELECT v FROM t WHERE id = 2")?, ["20"]);
    let early_before = status(&mut watcher, "Innodb_purged_undo_logs_early")?;
    for i in 0..300 {
        writer.execute(&format!("UPDATE t SET v = {i} WHERE id = 2"))?;
    }
    // The versions between the snapshot and the newest are purged while the
    // snapshot is still open, so the history and the undo stay small.
    wait_status(&mut watcher, "early purge", |w| {
        Ok(status(w, "Innodb_purged_undo_logs_early")? >= early_before + 290)
    })?;
    assert!(status(&mut watcher, "Innodb_history_list_length")? <= 10);
    assert!(status(&mut watcher, "Innodb_undo_pages")? <= 10);
    let text = row(&mut watcher, "SHOW ENGINE INNODB STATUS")?[2].clone();
    assert!(text.contains("ahead of their turn"), "{text}");
    assert_eq!(row(&mut reader, "SELECT v FROM t WHERE id = 2")?, ["20"]);
    reader.execute("COMMIT")?;
    // With the snapshot closed, purge empties the history.
    wait_status(&mut watcher, "an empty history", |w| {
        Ok(status(w, "Innodb_history_list_length")? == 0)
    })?;
    assert!(status(&mut watcher, "Innodb_purged_undo_logs")? >= 300);
    assert!(status(&mut watcher, "Innodb_purged_undo_records")? >= 300);
    Ok(())
}
