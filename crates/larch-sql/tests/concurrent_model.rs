//! Model-based concurrency test: random transfers between accounts run in
//! parallel sessions (locking reads, rollbacks, deadlock retries) while
//! readers check consistent snapshots; afterwards every committed change is
//! explained by the history the transactions logged, in one serial order per
//! account, and nothing of a rolled-back transaction remains.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::result::QueryResult;
use larch_sql::session::Session;

type R<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const ACCOUNTS: i64 = 8;
const WRITERS: u64 = 4;

fn ints(s: &mut Session, sql: &str) -> R<Vec<Vec<i64>>> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => set
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(&set.columns)
                    .map(|(v, c)| {
                        let b = larch_sql::value::to_text(v, &c.ty).ok_or("NULL")?;
                        Ok(String::from_utf8_lossy(&b).parse::<i64>()?)
                    })
                    .collect::<R<Vec<i64>>>()
            })
            .collect(),
        other => Err(format!("expected rows from {sql}, got {other:?}").into()),
    }
}

/// One transfer; `Ok(false)` when it rolled back on purpose.
fn transfer(s: &mut Session, rng: &mut u64, writer: u64, seq: u64) -> R<bool> {
    let mut next = || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    };
    let a = (next() % ACCOUNTS as u64) as i64 + 1;
    let b = (a + (next() % (ACCOUNTS as u64 - 1)) as i64) % ACCOUNTS + 1;
    let amount = (next() % 50) as i64 + 1;
    let abort = next() % 5 == 0;
    s.execute("BEGIN")?;
    for (acct, delta) in [(a, -amount), (b, amount)] {
        let row = ints(
            s,
            &format!("SELECT ver, bal FROM acct WHERE id = {acct} FOR UPDATE"),
        )?;
        let [ver, _bal] = row.first().map(|r| [r[0], r[1]]).ok_or("missing account")?;
        s.execute(&format!(
            "UPDATE acct SET ver = ver + 1, bal = bal + {delta} WHERE id = {acct}"
        ))?;
        s.execute(&format!(
            "INSERT INTO hist VALUES ({writer}, {seq}, {acct}, {ver}, {delta})"
        ))?;
    }
    if abort {
        s.execute("ROLLBACK")?;
        return Ok(false);
    }
    s.execute("COMMIT")?;
    Ok(true)
}

#[test]
fn concurrent_transfers_are_explained_by_their_history() -> R<()> {
    let dir = tempfile::tempdir()?;
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let session = |db: &Arc<Database>| -> R<Session> {
        let mut s = db.new_session(0, "root", "localhost")?;
        s.use_database("test")?;
        s.execute("SET SESSION innodb_lock_wait_timeout = 10")?;
        Ok(s)
    };
    let mut s = session(&db)?;
    s.execute("CREATE TABLE acct (id INT PRIMARY KEY, ver INT NOT NULL, bal INT NOT NULL)")?;
    s.execute(
        "CREATE TABLE hist (w INT, seq INT, acct INT, ver INT, delta INT, \
         PRIMARY KEY (w, seq, acct), KEY (acct, ver))",
    )?;
    for id in 1..=ACCOUNTS {
        s.execute(&format!("INSERT INTO acct VALUES ({id}, 0, 1000)"))?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicU64::new(0));
    let deadlocks = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for w in 0..WRITERS {
        let mut s = session(&db)?;
        let (stop, committed, deadlocks) = (stop.clone(), committed.clone(), deadlocks.clone());
        threads.push(std::thread::spawn(move || -> R<()> {
            let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ (w + 1);
            let mut seq = 0;
            while !stop.load(Ordering::Relaxed) {
                seq += 1;
                match transfer(&mut s, &mut rng, w, seq) {
                    Ok(true) => {
                        committed.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(e) if e.to_string().contains("Deadlock") => {
                        deadlocks.fetch_add(1, Ordering::Relaxed);
                        assert!(!s.in_transaction(), "a deadlock ends the transaction");
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }));
    }
    // Readers: every snapshot sees the money in full.
    let mut reader = session(&db)?;
    reader.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")?;
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut snapshots = 0;
    while Instant::now() < deadline {
        reader.execute("BEGIN")?;
        let a = ints(&mut reader, "SELECT SUM(bal) FROM acct")?;
        std::thread::sleep(Duration::from_millis(20));
        let b = ints(&mut reader, "SELECT SUM(bal), COUNT(*) FROM acct")?;
        reader.execute("COMMIT")?;
        assert_eq!(a[0][0], 1000 * ACCOUNTS, "a snapshot saw half a transfer");
        assert_eq!(b[0], vec![1000 * ACCOUNTS, ACCOUNTS]);
        snapshots += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().map_err(|_| "writer panicked")??;
    }
    let n = committed.load(Ordering::Relaxed);
    assert!(n > 20, "only {n} transfers committed");
    assert!(snapshots > 10);

    // The serial model: per account, the logged versions are 0, 1, 2, ...
    // each exactly once, and replaying the deltas gives the balance.
    let accounts = ints(&mut s, "SELECT id, ver, bal FROM acct ORDER BY id")?;
    let hist = ints(
        &mut s,
        "SELECT acct, ver, delta FROM hist ORDER BY acct, ver",
    )?;
    assert_eq!(
        hist.len() as u64,
        2 * n,
        "history rows of committed transfers only"
    );
    let mut by_acct: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    for h in &hist {
        by_acct.entry(h[0]).or_default().push((h[1], h[2]));
    }
    for a in &accounts {
        let (id, ver, bal) = (a[0], a[1], a[2]);
        let h = by_acct.remove(&id).unwrap_or_default();
        let versions: Vec<i64> = h.iter().map(|x| x.0).collect();
        assert_eq!(
            versions,
            (0..ver).collect::<Vec<_>>(),
            "account {id}: lost or doubled update"
        );
        let replayed = 1000 + h.iter().map(|x| x.1).sum::<i64>();
        assert_eq!(
            replayed, bal,
            "account {id}: balance not explained by its history"
        );
    }
    let check = ints(&mut s, "SELECT COUNT(*) FROM hist WHERE ver < 0")?;
    assert_eq!(check[0][0], 0);
    eprintln!(
        "{n} transfers committed, {} deadlocks retried, {snapshots} snapshots checked",
        deadlocks.load(Ordering::Relaxed)
    );
    Ok(())
}
