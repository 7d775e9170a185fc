//! Index builds let other sessions use the table (`ddl::index_change`):
//! with LOCK=NONE (the default) a transaction writes the table while the
//! build runs, and the build waits for it at its end, so its changes reach
//! the new indexes; with LOCK=SHARED a transaction reads the table while
//! writers wait.

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use larch_sql::session::Session;
use support::{one, rows, show_create, TestDb, R};

fn loaded() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, c INT, d VARCHAR(30))",
        "SET SESSION max_recursive_iterations = 100000",
        "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000) \
         SELECT i, i % 101, CONCAT('d', i) FROM n",
    ])
}

/// Polls until `sql` answers something other than "0".
fn wait_until(s: &mut Session, sql: &str, what: &str) -> R<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if one(s, sql)? != "0" {
            return Ok(());
        }
        thread::sleep(Duration::from_millis(1));
    }
    Err(format!("timed out waiting for {what}").into())
}

/// Starts `alter` on its own session; returns when it is running, with
/// the channel that hears of its end and its thread.
fn start_alter(
    t: &TestDb,
    watcher: &mut Session,
    alter: &'static str,
) -> R<(mpsc::Receiver<()>, thread::JoinHandle<R<()>>)> {
    let mut ddl = t.session(50)?;
    ddl.execute("SET SESSION innodb_ddl_buffer_size = 65536")?;
    let (done_tx, done_rx) = mpsc::channel();
    let handle = thread::spawn(move || -> R<()> {
        let r = ddl.execute(alter);
        let _ = done_tx.send(());
        r.map(|_| ()).map_err(|e| e.to_string().into())
    });
    wait_until(
        watcher,
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'ALTER TABLE t %'",
        "the ALTER to start",
    )?;
    Ok((done_rx, handle))
}

const WAITING: &str = "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
                       WHERE STATE = 'Waiting for table metadata lock'";

#[test]
fn a_transaction_writes_while_an_index_builds_and_its_rows_are_indexed() -> R<()> {
    let t = loaded()?;
    let mut watcher = t.session(50)?;
    let mut writer = t.session(50)?;
    let (done, alter) = start_alter(
        &t,
        &mut watcher,
        "ALTER TABLE t ADD INDEX ic (c), ADD UNIQUE INDEX ud (d)",
    )?;
    // These run beside the build (a build holding the table exclusively
    // would make them wait for its end, and then it could not be waiting
    // for this transaction below).
    writer.execute("BEGIN")?;
    writer.execute("INSERT INTO t VALUES (100001, 500, 'new row')")?;
    writer.execute("UPDATE t SET c = 600, d = CONCAT(d, '!') WHERE id <= 10")?;
    writer.execute("DELETE FROM t WHERE id BETWEEN 20 AND 29")?;
    // The build's end waits for the open transaction.
    wait_until(
        &mut watcher,
        WAITING,
        "the ALTER to wait for the transaction",
    )?;
    assert!(
        done.recv_timeout(Duration::from_millis(200)).is_err(),
        "the ALTER must wait for the open transaction"
    );
    // Other DDL does not wait for the build.
    let mut other = t.session(50)?;
    other.execute("CREATE TABLE u (x INT)")?;
    other.execute("CREATE TEMPORARY TABLE tmp (x INT)")?;
    writer.execute("INSERT INTO t VALUES (100002, 500, 'another')")?;
    writer.execute("COMMIT")?;
    alter.join().map_err(|_| "alter thread panicked")??;
    assert_eq!(
        rows(&mut watcher, "CHECK TABLE t")?,
        vec![vec!["test.t", "check", "status", "OK"]]
    );
    let create = show_create(&mut watcher, "t")?;
    assert!(create.contains("KEY `ic` (`c`)"), "{create}");
    assert!(create.contains("UNIQUE KEY `ud` (`d`)"), "{create}");
    assert_eq!(one(&mut watcher, "SELECT COUNT(*) FROM t")?, "49992");
    assert_eq!(
        one(&mut watcher, "SELECT COUNT(*) FROM t FORCE INDEX (ud)")?,
        "49992"
    );
    assert_eq!(
        rows(
            &mut watcher,
            "SELECT id, d FROM t FORCE INDEX (ic) WHERE c IN (500, 600) ORDER BY id"
        )?
        .len(),
        12
    );
    assert_eq!(
        one(
            &mut watcher,
            "SELECT id FROM t FORCE INDEX (ud) WHERE d = 'd3!'"
        )?,
        "3"
    );
    assert_eq!(
        one(
            &mut watcher,
            "SELECT COUNT(*) FROM t FORCE INDEX (ud) WHERE d = 'd3'"
        )?,
        "0"
    );
    // The unique index holds from now on.
    assert_eq!(
        support::code(&mut watcher, "INSERT INTO t VALUES (100003, 1, 'd50')"),
        1062
    );
    Ok(())
}

#[test]
fn lock_shared_lets_a_transaction_read_while_writers_wait() -> R<()> {
    let t = loaded()?;
    let mut watcher = t.session(50)?;
    let mut reader = t.session(50)?;
    let (done, alter) = start_alter(
        &t,
        &mut watcher,
        "ALTER TABLE t ADD INDEX ic (c), LOCK=SHARED",
    )?;
    reader.execute("BEGIN")?;
    assert_eq!(
        one(&mut reader, "SELECT COUNT(*) FROM t WHERE id < 100")?,
        "99"
    );
    wait_until(&mut watcher, WAITING, "the ALTER to wait for the reader")?;
    assert!(done.recv_timeout(Duration::from_millis(200)).is_err());
    // A writer waits for the ALTER (which waits for the reader): it gives
    // up after its lock_wait_timeout.
    let mut writer = t.session(50)?;
    writer.execute("SET SESSION lock_wait_timeout = 1")?;
    assert_eq!(
        support::code(&mut writer, "INSERT INTO t VALUES (100001, 1, 'x')"),
        1205
    );
    reader.execute("COMMIT")?;
    alter.join().map_err(|_| "alter thread panicked")??;
    assert_eq!(
        rows(&mut watcher, "CHECK TABLE t")?,
        vec![vec!["test.t", "check", "status", "OK"]]
    );
    Ok(())
}
