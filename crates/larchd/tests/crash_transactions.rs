//! Crash safety of transactions through the real server: `kill -9` while
//! many transactions commit and others are open; after restart every
//! acknowledged commit is there, nothing uncommitted is visible (the crash's
//! open transactions are rolled back from their undo logs), and the tables
//! check clean.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, Larchd, Res};

const ACCOUNTS: i64 = 10;
const WRITERS: usize = 6;
const OPEN: i64 = 3;

#[test]
fn kill_9_keeps_commits_and_rolls_back_open_transactions() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    conn.query_drop("CREATE TABLE test.acct (id INT PRIMARY KEY, bal INT NOT NULL, KEY (bal))")?;
    conn.query_drop(
        "CREATE TABLE test.log (w INT, seq INT, note VARCHAR(200), PRIMARY KEY (w, seq))",
    )?;
    for id in 1..=ACCOUNTS {
        conn.exec_drop("INSERT INTO test.acct VALUES (?, 100)", (id,))?;
    }
    for id in 0..OPEN {
        conn.exec_drop("INSERT INTO test.acct VALUES (?, 0)", (100 + id,))?;
    }

    // Transactions left open at the crash: they changed rows and wrote log
    // entries no one may see afterwards.
    let mut open = Vec::new();
    for id in 0..OPEN {
        let mut c = server.connect()?;
        c.query_drop("BEGIN")?;
        c.exec_drop(
            "UPDATE test.acct SET bal = bal + 1000 WHERE id = ?",
            (100 + id,),
        )?;
        c.exec_drop("INSERT INTO test.log VALUES (?, 0, 'open')", (1000 + id,))?;
        if id == 0 {
            c.exec_drop("DELETE FROM test.acct WHERE id = ?", (ACCOUNTS,))?;
        }
        open.push(c);
    }

    // Writers move money between accounts 1..ACCOUNTS-1 and log each commit
    // the server acknowledged.
    let stop = Arc::new(AtomicBool::new(false));
    let acked: Arc<Mutex<Vec<(usize, i64)>>> = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();
    for w in 0..WRITERS {
        let mut c = server.connect()?;
        let (stop, acked) = (stop.clone(), acked.clone());
        threads.push(std::thread::spawn(move || {
            let mut seq = 0i64;
            while !stop.load(Ordering::Relaxed) {
                seq += 1;
                let from = (seq + w as i64) % (ACCOUNTS - 1) + 1;
                let to = (from + 1 + w as i64 % 3) % (ACCOUNTS - 1) + 1;
                let r = (|| -> mysql::Result<()> {
                    c.query_drop("BEGIN")?;
                    c.exec_drop("UPDATE test.acct SET bal = bal - 1 WHERE id = ?", (from,))?;
                    c.exec_drop("UPDATE test.acct SET bal = bal + 1 WHERE id = ?", (to,))?;
                    c.exec_drop(
                        "INSERT INTO test.log VALUES (?, ?, REPEAT('x', 150))",
                        (w, seq),
                    )?;
                    c.query_drop("COMMIT")
                })();
                match r {
                    Ok(()) => acked.lock().map(|mut a| a.push((w, seq))).unwrap_or(()),
                    Err(_) => {
                        // A deadlock victim is rolled back; a dead server ends the loop.
                        if c.query_drop("ROLLBACK").is_err() {
                            return;
                        }
                    }
                }
            }
        }));
    }
    std::thread::sleep(Duration::from_millis(1500));
    server.crash()?;
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    drop(open);
    let acked = acked.lock().map(|a| a.clone()).unwrap_or_default();
    assert!(
        acked.len() > 20,
        "only {} commits before the crash",
        acked.len()
    );

    let server = Larchd::start(&datadir, &[])?;
    let mut conn = server.connect()?;
    let total: Option<i64> = conn.query_first(format!(
        "SELECT SUM(bal) FROM test.acct WHERE id <= {ACCOUNTS}"
    ))?;
    assert_eq!(total, Some(100 * ACCOUNTS), "money was created or lost");
    let opened: Option<i64> =
        conn.query_first("SELECT COUNT(*) FROM test.acct WHERE bal >= 1000")?;
    assert_eq!(opened, Some(0), "an uncommitted update survived");
    let logged: Option<i64> =
        conn.query_first("SELECT COUNT(*) FROM test.log WHERE note = 'open'")?;
    assert_eq!(logged, Some(0), "an uncommitted insert survived");
    let present: Option<i64> = conn.query_first(format!(
        "SELECT COUNT(*) FROM test.acct WHERE id = {ACCOUNTS}"
    ))?;
    assert_eq!(present, Some(1), "an uncommitted delete survived");
    let rows: Vec<(i64, i64)> = conn.query("SELECT w, seq FROM test.log")?;
    for (w, seq) in &acked {
        assert!(
            rows.contains(&(*w as i64, *seq)),
            "acknowledged commit ({w}, {seq}) is missing"
        );
    }
    // Once the background rollback is done the tables check clean and the
    // rows the open transactions touched can be changed again.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ok = ["test.acct", "test.log"].iter().all(|t| {
            conn.query::<(String, String, String, String), _>(format!("CHECK TABLE {t}"))
                .map(|r| r.iter().any(|row| row.3 == "OK"))
                .unwrap_or(false)
        });
        let free = conn
            .query_drop("UPDATE test.acct SET bal = bal WHERE id >= 100")
            .is_ok();
        if ok && free {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "tables did not check clean after recovery"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}
