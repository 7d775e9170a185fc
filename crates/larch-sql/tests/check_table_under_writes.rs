//! CHECK TABLE while other sessions write the table: the check holds the
//! table as LOCK TABLES ... READ does, so rows changing under it are never
//! reported as corruption (they were: splits and moved entries showed as
//! broken sibling links and missing entries), and the writers go on once
//! it is done.

mod support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

use support::{rows, TestDb, R};

#[test]
fn check_table_beside_writers_reports_no_corruption() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(60), KEY (k), KEY (c))",
        "SET SESSION max_recursive_iterations = 100000",
        "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) \
         SELECT i, i % 1000, REPEAT(CHAR(65 + i % 26), 1 + i % 50) FROM n",
    ])?;
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let writers: Vec<_> = (0..2u64)
        .map(|w| -> R<_> {
            let mut s = t.session(50)?;
            let (stop, done) = (stop.clone(), done.clone());
            Ok(thread::spawn(move || -> R<()> {
                let mut n = w;
                while !stop.load(Ordering::SeqCst) {
                    n += 2;
                    let id = n % 7_500 + 1;
                    let sql = match n % 4 {
                        0 => format!(
                            "INSERT IGNORE INTO t VALUES ({id}, {n}, REPEAT('z', {}))",
                            n % 60
                        ),
                        1 => format!("DELETE FROM t WHERE id = {id}"),
                        _ => format!("UPDATE t SET k = k + 7, c = CONCAT(c, 'x') WHERE id = {id}"),
                    };
                    s.execute(&sql).map_err(|e| e.to_string())?;
                    done.fetch_add(1, Ordering::SeqCst);
                }
                Ok(())
            }))
        })
        .collect::<R<_>>()?;
    let mut checker = t.session(50)?;
    let mut checks = 0;
    while checks < 5 || done.load(Ordering::SeqCst) < 300 {
        assert_eq!(
            rows(&mut checker, "CHECK TABLE t")?,
            vec![vec!["test.t", "check", "status", "OK"]],
            "after {} writes",
            done.load(Ordering::SeqCst)
        );
        checks += 1;
        // Writers wait while a check runs: let them go on between checks.
        thread::sleep(std::time::Duration::from_millis(20));
        if checks > 10_000 {
            break;
        }
    }
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        w.join().map_err(|_| "writer panicked")??;
    }
    assert!(done.load(Ordering::SeqCst) >= 300);
    Ok(())
}
