//! Tests of versioned rows: snapshots read the versions they should, rollback
//! (whole, to a savepoint, and after a crash) restores rows and every index,
//! purge removes what no snapshot needs, and row locks serialize writers.

use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::config::EngineConfig;
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, Value};
use crate::txn::{IsolationLevel, Session, TrxOptions};

fn storage(vfs: Arc<dyn Vfs>) -> Result<Arc<Storage>> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K4);
    c.buffer_pool_size = 512 * 4096;
    c.log_file_size = 16 << 20;
    c.undo_tablespaces = 2;
    Ok(Arc::new(Storage::open_or_create(c, vfs)?))
}

const INT: ColumnType = ColumnType::Int {
    bytes: 4,
    unsigned: false,
};

/// id INT PK, k INT, name VARCHAR(20) UNIQUE; KEY k(k).
fn def() -> TableDef {
    TableDef {
        name: "t".into(),
        columns: vec![
            ColumnDef::new("id", INT),
            ColumnDef::new("k", INT),
            ColumnDef::new(
                "name",
                ColumnType::Varchar {
                    max_len: 20,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![
            IndexDef::on("k", &[1], false),
            IndexDef::on("u_name", &[2], true),
        ],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

fn row(id: i64, k: i64, name: &str) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k), Value::Str(name.into())]
}

struct Env {
    storage: Arc<Storage>,
    services: Arc<TransactionServices>,
    table: Arc<Table>,
}

impl Env {
    fn new(vfs: Arc<dyn Vfs>) -> Result<Env> {
        let storage = storage(vfs)?;
        let (services, recovered) = TransactionServices::open(&storage)?;
        assert!(recovered.is_empty());
        let t = Table::create_file_per_table(&storage, def(), "test/t.ibd")?;
        let table = Arc::new(t.with_services(&services));
        services.register_table(&table);
        Ok(Env {
            storage,
            services,
            table,
        })
    }

    fn session(&self) -> Result<Session> {
        self.services.system.register_session()
    }

    fn begin(&self, s: &mut Session, iso: IsolationLevel) -> Result<TxnContext> {
        let trx = s.begin(TrxOptions::read_write(iso))?;
        Ok(TxnContext::new(&self.services, trx))
    }

    fn at(&self, id: i64) -> Result<RowRef> {
        self.table.row_ref(&[Value::Int(id)])
    }

    /// Every row by primary key, as `read` sees them.
    fn rows(&self, read: &ReadContext) -> Result<Vec<Vec<Value>>> {
        let mut c = self
            .table
            .scan(read, CLUSTERED, &KeyRange::all(), false, None)?;
        let mut out = Vec::new();
        while let Some((_, r)) = c.next_row()? {
            out.push(r);
        }
        Ok(out)
    }

    /// (k, id) pairs through index k, covering or not.
    fn by_k(&self, read: &ReadContext, covering: bool) -> Result<Vec<(Value, Value)>> {
        let cols: &[usize] = if covering { &[1, 0] } else { &[1, 0, 2] };
        let mut c = self
            .table
            .scan(read, 1, &KeyRange::all(), false, Some(cols))?;
        assert_eq!(c.is_covering(), covering);
        let mut out = Vec::new();
        while let Some((_, r)) = c.next_row()? {
            out.push((r[0].clone(), r[1].clone()));
        }
        Ok(out)
    }

    fn load(&self, n: i64) -> Result<()> {
        let mut s = self.session()?;
        let mut t = self.begin(&mut s, IsolationLevel::RepeatableRead)?;
        for i in 1..=n {
            self.table.insert(&mut t, &row(i, i, &format!("n{i}")))?;
        }
        t.commit()?;
        Ok(())
    }

    /// Entries of index `index` (1 + secondary number), delete-marked ones included.
    fn index_entries(&self, index: usize) -> Result<usize> {
        let tree = &self.table.secondary[index - 1];
        let pool = self.storage.pool();
        let mut c = tree.range(pool, Bound::Unbounded, Bound::Unbounded, false);
        let mut n = 0;
        while c.next_entry()?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    fn assert_healthy(&self) -> Result<()> {
        let c = self.table.check()?;
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        Ok(())
    }
}

#[test]
fn a_snapshot_keeps_reading_the_versions_it_started_with() -> Result<()> {
    let env = Env::new(Arc::new(SimVfs::new()))?;
    env.load(5)?;
    let mut rs = env.session()?;
    let mut reader = rs.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let snap = ReadContext {
        view: reader.read_view(),
    };
    let before = env.rows(&snap)?;
    let before_k = env.by_k(&snap, true)?;
    assert_eq!(before.len(), 5);

    let mut ws = env.session()?;
    let mut w = env.begin(&mut ws, IsolationLevel::RepeatableRead)?;
    env.table.update(&mut w, &env.at(1)?, &row(1, 100, "n1"))?;
    env.table.delete(&mut w, &env.at(2)?)?;
    env.table.insert(&mut w, &row(9, 9, "n9"))?;
    // Uncommitted: invisible to the snapshot, visible to the writer itself.
    assert_eq!(env.rows(&snap)?, before);
    let own = w.read_context();
    assert_eq!(env.rows(&own)?.len(), 5);
    w.commit()?;

    assert_eq!(env.rows(&snap)?, before, "committed later: still invisible");
    assert_eq!(env.by_k(&snap, true)?, before_k, "covering index read");
    assert_eq!(
        env.by_k(&snap, false)?,
        before_k,
        "index read with row lookups"
    );
    assert!(env.services.versions_visited() > 0);
    assert_eq!(
        env.table.get(&snap, &env.at(1)?)?,
        Some(row(1, 1, "n1")),
        "point read of the old version"
    );

    let fresh = {
        let mut s2 = env.session()?;
        let mut r2 = s2.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
        let v = ReadContext {
            view: r2.read_view(),
        };
        let rows = env.rows(&v)?;
        let k = env.by_k(&v, true)?;
        r2.commit()?;
        (rows, k)
    };
    let ids: Vec<Value> = fresh.0.iter().map(|r| r[0].clone()).collect();
    assert_eq!(
        ids,
        [1, 3, 4, 5, 9].map(Value::Int).to_vec(),
        "a new snapshot sees the commit"
    );
    assert_eq!(fresh.0[0], row(1, 100, "n1"));
    assert_eq!(fresh.1.last(), Some(&(Value::Int(100), Value::Int(1))));
    reader.commit()?;
    env.assert_healthy()
}

#[test]
fn rollback_restores_rows_and_every_index() -> Result<()> {
    let env = Env::new(Arc::new(SimVfs::new()))?;
    env.load(6)?;
    let original = env.rows(&ReadContext::NEWEST)?;
    let mut s = env.session()?;
    let mut t = env.begin(&mut s, IsolationLevel::RepeatableRead)?;
    env.table
        .update(&mut t, &env.at(1)?, &row(1, 50, "renamed"))?;
    env.table.delete(&mut t, &env.at(2)?)?;
    env.table.insert(&mut t, &row(20, 20, "n20"))?;
    env.table.update(&mut t, &env.at(3)?, &row(30, 3, "n3"))?; // primary key change
                                                               // Re-insert over the row this transaction deleted, with another name.
    env.table.insert(&mut t, &row(2, 7, "again"))?;
    t.rollback()?;
    assert_eq!(env.rows(&ReadContext::NEWEST)?, original);
    env.assert_healthy()?;
    // The unique name freed by the rollback of "renamed" is still taken by row 1.
    let mut t = env.begin(&mut s, IsolationLevel::RepeatableRead)?;
    let e = env.table.insert(&mut t, &row(40, 1, "N1")).err();
    assert!(
        matches!(e, Some(EngineError::DuplicateEntry { .. })),
        "{e:?}"
    );
    // Savepoints: roll back part of a transaction, commit the rest.
    env.table.insert(&mut t, &row(40, 40, "n40"))?;
    let mark = t.mark();
    env.table.insert(&mut t, &row(41, 41, "n41"))?;
    env.table
        .update(&mut t, &env.at(40)?, &row(40, 400, "n40"))?;
    env.table.delete(&mut t, &env.at(4)?)?;
    t.rollback_to(mark)?;
    t.commit()?;
    let now = env.rows(&ReadContext::NEWEST)?;
    assert_eq!(now.len(), 7);
    assert!(now.contains(&row(40, 40, "n40")));
    assert!(now.contains(&row(4, 4, "n4")));
    assert!(!now.iter().any(|r| r[0] == Value::Int(41)));
    env.assert_healthy()
}

#[test]
fn purge_removes_deleted_rows_once_no_snapshot_needs_them() -> Result<()> {
    let env = Env::new(Arc::new(SimVfs::new()))?;
    env.load(60)?;
    let mut rs = env.session()?;
    let mut reader = rs.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let snap = ReadContext {
        view: reader.read_view(),
    };
    let mut s = env.session()?;
    let mut t = env.begin(&mut s, IsolationLevel::RepeatableRead)?;
    for i in (1..=60).step_by(2) {
        env.table.delete(&mut t, &env.at(i)?)?;
    }
    for i in (2..=20).step_by(2) {
        env.table
            .update(&mut t, &env.at(i)?, &row(i, i + 1000, &format!("m{i}")))?;
    }
    t.commit()?;
    assert!(env.services.undo.history_len() >= 1);
    assert_eq!(
        purge_all(&env.services)?,
        0,
        "the snapshot still needs them"
    );
    assert_eq!(env.rows(&snap)?.len(), 60);
    assert_eq!(env.by_k(&snap, true)?.len(), 60);
    reader.commit()?;

    assert!(purge_all(&env.services)? >= 1);
    assert_eq!(env.services.undo.history_len(), 0);
    let entries = |tree: &crate::btree::BTree| -> Result<usize> {
        Ok(tree.entries(env.storage.pool())?.len())
    };
    assert_eq!(entries(env.table.clustered_tree())?, 30, "records removed");
    for i in 0..2 {
        let tree = env.table.secondary_tree(i).copied();
        let tree = tree.ok_or_else(|| EngineError::Internal("index".into()))?;
        assert_eq!(entries(&tree)?, 30, "old and deleted entries removed");
    }
    assert_eq!(env.rows(&ReadContext::NEWEST)?.len(), 30);
    env.assert_healthy()
}

#[test]
fn row_locks_make_writers_wait_time_out_and_detect_deadlocks() -> Result<()> {
    let env = Arc::new(Env::new(Arc::new(SimVfs::new()))?);
    env.load(3)?;
    let mut s1 = env.session()?;
    let mut s2 = env.session()?;
    let mut t1 = env.begin(&mut s1, IsolationLevel::RepeatableRead)?;
    let mut t2 = env.begin(&mut s2, IsolationLevel::RepeatableRead)?;
    t2.lock_wait_timeout = Duration::from_millis(200);
    env.table.update(&mut t1, &env.at(1)?, &row(1, 10, "n1"))?;
    let started = Instant::now();
    let e = env
        .table
        .update(&mut t2, &env.at(1)?, &row(1, 20, "n1"))
        .err();
    assert!(
        e.as_ref()
            .is_some_and(|e| e.to_string().contains("Lock wait timeout")),
        "{e:?}"
    );
    assert!(started.elapsed() >= Duration::from_millis(150));
    // Another row is free.
    env.table.update(&mut t2, &env.at(2)?, &row(2, 20, "n2"))?;
    // t1 now waits for row 2 (held by t2) in a thread; t2 asks for row 1: a cycle.
    t2.lock_wait_timeout = Duration::from_secs(20);
    t1.lock_wait_timeout = Duration::from_secs(20);
    let env2 = env.clone();
    let waiter = std::thread::spawn(move || -> Result<bool> {
        let r = env2
            .at(2)
            .and_then(|at| env2.table.update(&mut t1, &at, &row(2, 30, "n2")));
        match r {
            Err(EngineError::Deadlock) => {
                t1.rollback()?;
                Ok(true)
            }
            Err(e) => Err(e),
            Ok(_) => {
                t1.commit()?;
                Ok(false)
            }
        }
    });
    std::thread::sleep(Duration::from_millis(200));
    let r2 = env.table.update(&mut t2, &env.at(1)?, &row(1, 40, "n1"));
    let deadlocked_here = matches!(r2, Err(EngineError::Deadlock));
    if deadlocked_here {
        t2.rollback()?;
    } else {
        r2?;
        t2.commit()?;
    }
    let deadlocked_there = waiter
        .join()
        .map_err(|_| EngineError::Internal("waiter panicked".into()))??;
    assert!(
        deadlocked_here ^ deadlocked_there,
        "exactly one victim: here {deadlocked_here}, there {deadlocked_there}"
    );
    let v1 = env.table.get(&ReadContext::NEWEST, &env.at(1)?)?;
    let v2 = env.table.get(&ReadContext::NEWEST, &env.at(2)?)?;
    if deadlocked_here {
        assert_eq!((v1, v2), (Some(row(1, 10, "n1")), Some(row(2, 30, "n2"))));
    } else {
        assert_eq!((v1, v2), (Some(row(1, 40, "n1")), Some(row(2, 20, "n2"))));
    }
    env.assert_healthy()
}

#[test]
fn recovery_rolls_back_what_a_crash_left_uncommitted() -> Result<()> {
    let sim = Arc::new(SimVfs::new());
    let vfs: Arc<dyn Vfs> = sim.clone();
    let (committed, roots) = {
        let env = Env::new(vfs.clone())?;
        env.load(20)?;
        let mut s = env.session()?;
        let mut done = env.begin(&mut s, IsolationLevel::RepeatableRead)?;
        env.table
            .update(&mut done, &env.at(5)?, &row(5, 55, "five"))?;
        done.commit()?;
        let committed = env.rows(&ReadContext::NEWEST)?;
        let mut s2 = env.session()?;
        let mut open = env.begin(&mut s2, IsolationLevel::RepeatableRead)?;
        env.table
            .update(&mut open, &env.at(1)?, &row(1, 11, "one"))?;
        env.table.delete(&mut open, &env.at(2)?)?;
        env.table.insert(&mut open, &row(21, 21, "n21"))?;
        env.table
            .update(&mut open, &env.at(3)?, &row(33, 3, "n3"))?;
        env.storage.make_durable()?;
        let roots = env.table.roots();
        open.abandon(); // the crash: no rollback runs
        let Env {
            storage,
            services,
            table,
        } = env;
        drop(table);
        drop(services);
        Arc::into_inner(storage)
            .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
            .abandon();
        sim.crash();
        (committed, roots)
    };
    let storage = storage(vfs)?;
    let (services, recovered) = TransactionServices::open(&storage)?;
    assert_eq!(recovered.len(), 1);
    let table = Arc::new(Table::open(&storage, def(), &roots)?.with_services(&services));
    services.register_table(&table);
    // Before the rollback, readers see the committed versions.
    let mut s = services.system.register_session()?;
    let mut r = s.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let snap = ReadContext {
        view: r.read_view(),
    };
    let mut c = table.scan(&snap, CLUSTERED, &KeyRange::all(), false, None)?;
    let mut seen = Vec::new();
    while let Some((_, row)) = c.next_row()? {
        seen.push(row);
    }
    drop(c);
    assert_eq!(seen, committed);
    r.commit()?;
    let mut worker = PurgeWorker::start(services.clone(), recovered)?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while services
        .purge
        .recovered_pending
        .load(std::sync::atomic::Ordering::Relaxed)
        > 0
    {
        assert!(
            Instant::now() < deadline,
            "recovered rollback did not finish"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    worker.stop();
    let mut c = table.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?;
    let mut now = Vec::new();
    while let Some((_, row)) = c.next_row()? {
        now.push(row);
    }
    drop(c);
    assert_eq!(now, committed);
    let check = table.check()?;
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    Ok(())
}

#[test]
fn an_old_snapshot_reads_a_hot_row_in_a_bounded_number_of_steps() -> Result<()> {
    const UPDATES: i64 = 100_000;
    /// Purge runs this often during the updates, as the purge thread would.
    const PURGE_EVERY: i64 = 1_000;
    let env = Env::new(Arc::new(SimVfs::new()))?;
    env.load(3)?;
    let pages_before = env.services.undo.undo_pages();
    let mut rs = env.session()?;
    let mut reader = rs.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let snap = ReadContext {
        view: reader.read_view(),
    };
    assert_eq!(env.table.get(&snap, &env.at(2)?)?, Some(row(2, 2, "n2")));
    // A second reader that opens its snapshot half-way keeps its version too.
    let mut ms = env.session()?;
    let mut middle = None;
    let mut ws = env.session()?;
    for i in 1..=UPDATES {
        let mut w = env.begin(&mut ws, IsolationLevel::RepeatableRead)?;
        env.table
            .update(&mut w, &env.at(2)?, &row(2, 1000 + i, "n2"))?;
        w.commit()?;
        if i % PURGE_EVERY == 0 {
            // Undo stays bounded while the snapshots are held: the logs of the
            // versions pruned from the chain are purged ahead of their turn,
            // with the index entries their versions had.
            purge_all(&env.services)?;
            let pages = env.services.undo.undo_pages();
            assert!(
                pages <= pages_before + 8,
                "after {i} updates under two snapshots: {pages} undo pages ({pages_before} before)"
            );
            assert!(env.services.undo.history_len() <= 4);
            let entries = env.index_entries(1)?;
            assert!(
                entries <= 3 + 4,
                "index k holds {entries} entries after {i} updates"
            );
        }
        if i == UPDATES / 2 {
            let mut t = ms.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
            let v = ReadContext {
                view: t.read_view(),
            };
            middle = Some((t, v));
        }
    }
    assert!(env.services.versions_pruned() >= (UPDATES - 10) as u64);
    let before = env.services.versions_visited();
    assert_eq!(env.table.get(&snap, &env.at(2)?)?, Some(row(2, 2, "n2")));
    let visited = env.services.versions_visited() - before;
    assert!(visited <= 4, "the old snapshot walked {visited} versions");
    let (mt, mv) = middle.ok_or_else(|| EngineError::Internal("no middle reader".into()))?;
    let before = env.services.versions_visited();
    assert_eq!(
        env.table.get(&mv, &env.at(2)?)?,
        Some(row(2, 1000 + UPDATES / 2, "n2"))
    );
    assert!(env.services.versions_visited() - before <= 4);
    // Covering and non-covering scans of the secondary index agree, and the
    // old snapshot skips the thousands of entries created after it by their
    // creation stamps instead of checking each against the clustered row.
    let before = env.services.versions_visited();
    let covering = env.by_k(&snap, true)?;
    let walked = env.services.versions_visited() - before;
    assert!(walked <= 4, "the covering scan walked {walked} versions");
    assert_eq!(covering, env.by_k(&snap, false)?);
    assert!(env
        .by_k(&snap, true)?
        .contains(&(Value::Int(2), Value::Int(2))));
    mt.commit()?;
    reader.commit()?;
    // With the snapshots gone, purge frees the history and its undo pages.
    purge_all(&env.services)?;
    assert_eq!(env.services.undo.history_len(), 0);
    let pages_after = env.services.undo.undo_pages();
    assert!(
        pages_after <= pages_before + 4,
        "undo pages: {pages_before} before, {pages_after} after purge"
    );
    env.assert_healthy()
}

mod scan_tests;
