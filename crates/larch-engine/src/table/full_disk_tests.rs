//! A full disk in the middle of an UPDATE that moves rows: values that grow
//! (B+tree splits, up to a root raise), values that go off-page (overflow
//! pages), primary keys that change (a delete-mark and an insert elsewhere)
//! and secondary keys that change. The disk fills at the N-th page
//! allocation, for every N until the statement succeeds; after each failed
//! attempt (statement rolled back with the disk still full, and again after
//! a restart, or after a crash that left the transaction to recovery) every
//! row must be there with its old value, and the table, the tablespaces and
//! the undo logs must check clean.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::config::EngineConfig;
use crate::io::{SimFault, SimVfs, Vfs};
use crate::page::PageSize;
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, Value};
use crate::space::alloc;
use crate::txn::{IsolationLevel, Session, TrxOptions};
use crate::undo::UndoLog;

const ROWS: i64 = 48;

/// id INT PK, k INT, v VARCHAR(4000); KEY k(k).
fn def() -> TableDef {
    let int = ColumnType::Int {
        bytes: 4,
        unsigned: false,
    };
    TableDef {
        name: "f".into(),
        columns: vec![
            ColumnDef::new("id", int.clone()),
            ColumnDef::new("k", int),
            ColumnDef::new(
                "v",
                ColumnType::Varchar {
                    max_len: 4000,
                    collation: Collation::Latin1SwedishCi,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![IndexDef::on("k", &[1], false)],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

/// (k, v) by id.
type Model = BTreeMap<i64, (i64, String)>;

fn value(id: i64, len: usize, fill: char) -> String {
    let mut s = format!("{id:04}");
    s.extend(std::iter::repeat_n(fill, len - 4));
    s
}

/// What the UPDATE makes of row `id`: every sixth value goes off-page,
/// every sixth row moves to a new primary key (and secondary key), the
/// others grow in place, every third changing its secondary key too.
fn updated(id: i64, k: i64) -> (i64, i64, String) {
    match id % 6 {
        0 => (id, k, value(id, 3600, 'L')),
        1 => (id + 1000, k + 100, value(id, 950, 'M')),
        2 => (id, k + 1, value(id, 950, 'G')),
        _ => (id, k, value(id, 950, 'G')),
    }
}

struct Env {
    storage: Arc<Storage>,
    services: Arc<TransactionServices>,
    table: Arc<Table>,
    session: Session,
}

fn config() -> EngineConfig {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K4);
    c.buffer_pool_size = 1024 * 4096;
    c.log_file_size = 16 << 20;
    c.undo_tablespaces = 1;
    c
}

impl Env {
    /// Opens (or creates) the directory; with `roots`, the existing table.
    /// Returns the transactions recovery must roll back.
    fn open(vfs: Arc<dyn Vfs>, roots: Option<&TableRoots>) -> Result<(Env, Vec<UndoLog>)> {
        let storage = Arc::new(Storage::open_or_create(config(), vfs)?);
        let (services, recovered) = TransactionServices::open(&storage)?;
        let t = match roots {
            Some(r) => Table::open(&storage, def(), r)?,
            None => Table::create_file_per_table(&storage, def(), "test/f.ibd")?,
        };
        let table = Arc::new(t.with_services(&services));
        services.register_table(&table);
        let session = services.system.register_session()?;
        let env = Env {
            storage,
            services,
            table,
            session,
        };
        Ok((env, recovered))
    }

    fn begin(&mut self) -> Result<TxnContext> {
        let trx = self
            .session
            .begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        Ok(TxnContext::new(&self.services, trx))
    }

    fn rows(&self) -> Result<Model> {
        let mut c = self.table.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            false,
            None,
        )?;
        let mut out = Model::new();
        while let Some((_, r)) = c.next_row()? {
            match r.as_slice() {
                [Value::Int(id), Value::Int(k), Value::Str(v)] => {
                    out.insert(*id, (*k, v.clone()));
                }
                other => panic!("unexpected row {other:?}"),
            }
        }
        Ok(out)
    }

    /// The rows are `model` and every check is clean.
    fn verify(&self, model: &Model, when: &str) -> Result<()> {
        let rows = self.rows()?;
        let missing: Vec<_> = model.keys().filter(|id| !rows.contains_key(id)).collect();
        assert!(missing.is_empty(), "{when}: rows {missing:?} lost");
        for (id, want) in model {
            assert_eq!(rows.get(id), Some(want), "{when}: row {id} changed");
        }
        assert_eq!(rows.len(), model.len(), "{when}: extra rows");
        let c = self.table.check()?;
        assert!(c.problems.is_empty(), "{when}: {:?}", c.problems);
        let report = self.storage.check()?;
        assert!(report.is_clean(), "{when}: {:?}", report.problems());
        let undo = crate::undo::check_undo(&self.storage)?;
        assert!(undo.is_clean(), "{when}: {:?}", undo.problems);
        Ok(())
    }

    /// The UPDATE, one row at a time, in primary-key order.
    fn update_all(&self, t: &mut TxnContext, model: &Model) -> Result<()> {
        for (&id, (k, _)) in model.range(..1000) {
            let (new_id, new_k, v) = updated(id, *k);
            let at = self.table.row_ref(&[Value::Int(id)])?;
            let row = [Value::Int(new_id), Value::Int(new_k), Value::Str(v)];
            if self.table.update(t, &at, &row)?.is_none() {
                return Err(EngineError::Internal(format!("row {id} vanished")));
            }
        }
        Ok(())
    }

    /// A simulated crash: the log is made durable, nothing else is written.
    fn crash(self, sim: &SimVfs) -> Result<TableRoots> {
        self.storage.make_durable()?;
        let roots = self.table.roots();
        let Env {
            storage,
            services,
            table,
            session,
        } = self;
        drop((table, session, services));
        Arc::into_inner(storage)
            .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
            .abandon();
        sim.crash();
        Ok(roots)
    }

    /// Reopens after [`Env::crash`] and lets recovery roll back what it finds.
    fn restart(sim: &SimVfs, roots: &TableRoots) -> Result<Env> {
        let (env, recovered) = Env::open(Arc::new(sim.clone()), Some(roots))?;
        let pending = recovered.len();
        let mut worker = PurgeWorker::start(env.services.clone(), recovered)?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let rolled_back = || {
            env.services
                .purge
                .recovered_rolled_back
                .load(std::sync::atomic::Ordering::Relaxed)
        };
        while rolled_back() < pending as u64 {
            assert!(
                Instant::now() < deadline,
                "recovery rollback did not finish"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        worker.stop();
        Ok(env)
    }
}

fn load(env: &mut Env) -> Result<Model> {
    let mut model = Model::new();
    let mut t = env.begin()?;
    for id in 1..=ROWS {
        let (k, v) = (id % 10, value(id, 300, 'o'));
        env.table.insert(
            &mut t,
            &[Value::Int(id), Value::Int(k), Value::Str(v.clone())],
        )?;
        model.insert(id, (k, v));
    }
    t.commit()?;
    crate::table::purge_all(&env.services)?;
    Ok(model)
}

fn expect_disk_full(r: Result<()>, n: u64) {
    match r {
        Err(EngineError::DiskFull { .. }) => {}
        other => panic!("allocation {n}: expected a full disk, got {other:?}"),
    }
}

/// The disk fills at the N-th page allocation of the UPDATE, for every N
/// until it succeeds, each time on the same freshly loaded table.
#[test]
fn an_update_that_moves_rows_fails_whole_at_every_allocation() -> Result<()> {
    let mut n = 0u64;
    loop {
        let sim = SimVfs::new();
        let (mut env, _) = Env::open(Arc::new(sim.clone()), None)?;
        let model = load(&mut env)?;
        // The statement fails at allocation n; the disk stays full while
        // the statement and then the transaction roll back.
        let mut t = env.begin()?;
        let mark = t.mark();
        alloc::fail_allocations_after(Some(n));
        let r = env.update_all(&mut t, &model);
        if r.is_ok() {
            alloc::fail_allocations_after(None);
            t.commit()?;
            let mut after = Model::new();
            for (&id, (k, _)) in &model {
                let (id, k, v) = updated(id, *k);
                after.insert(id, (k, v));
            }
            env.verify(&after, "updated")?;
            break;
        }
        let rolled = t.rollback_to(mark);
        let ended = t.rollback();
        alloc::fail_allocations_after(None);
        expect_disk_full(r, n);
        rolled?;
        ended?;
        env.verify(&model, &format!("allocation {n}, rolled back"))?;
        let roots = env.crash(&sim)?;
        env = Env::restart(&sim, &roots)?;
        env.verify(&model, &format!("allocation {n}, restarted"))?;

        // Again (the tree kept the pages the first attempt split off, so it
        // may now get further or even succeed), then a crash before any
        // rollback: recovery rolls the transaction back.
        let mut t = env.begin()?;
        alloc::fail_allocations_after(Some(n));
        let r = env.update_all(&mut t, &model);
        alloc::fail_allocations_after(None);
        if r.is_err() {
            expect_disk_full(r, n);
        }
        t.abandon();
        let roots = env.crash(&sim)?;
        let env = Env::restart(&sim, &roots)?;
        env.verify(&model, &format!("allocation {n}, recovered"))?;
        n += 1;
        assert!(n < 1000, "the UPDATE never succeeded");
    }
    assert!(n >= 10, "only {n} allocations: the UPDATE moved too little");
    Ok(())
}

/// The reported case on a simulated disk: rows of 960 characters inserted
/// until the disk is full, then an UPDATE growing each to 1000 fails with a
/// full disk; no row may be lost, with the disk still full, after a restart
/// on the full disk, and after a restart with space freed.
#[test]
fn an_update_on_a_full_disk_loses_no_row() -> Result<()> {
    let sim = SimVfs::new();
    let (mut env, _) = Env::open(Arc::new(sim.clone()), None)?;
    sim.set_fault(Some(SimFault::DiskFull {
        limit_bytes: sim.used_bytes() + (3 << 20),
    }));
    let mut model = Model::new();
    for id in 1.. {
        let v = value(id, 960, char::from(b'a' + (id % 26) as u8));
        let mut t = env.begin()?;
        let row = [Value::Int(id), Value::Int(id % 10), Value::Str(v.clone())];
        match env.table.insert(&mut t, &row) {
            Ok(_) => {
                t.commit()?;
                model.insert(id, (id % 10, v));
            }
            Err(EngineError::DiskFull { .. }) => {
                t.rollback()?;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    assert!(model.len() > 100, "{} rows", model.len());
    env.verify(&model, "filled")?;
    let mut t = env.begin()?;
    let mark = t.mark();
    let mut r = Ok(());
    for (&id, (k, _)) in &model {
        let at = env.table.row_ref(&[Value::Int(id)])?;
        let row = [Value::Int(id), Value::Int(*k), Value::Str("z".repeat(1000))];
        r = env.table.update(&mut t, &at, &row).map(|_| ());
        if r.is_err() {
            break;
        }
    }
    expect_disk_full(r, 0);
    t.rollback_to(mark)?;
    t.rollback()?;
    env.verify(&model, "failed UPDATE rolled back")?;
    let roots = env.crash(&sim)?;
    let env = Env::restart(&sim, &roots)?;
    env.verify(&model, "restarted on the full disk")?;
    let roots = env.crash(&sim)?;
    sim.set_fault(None);
    let env = Env::restart(&sim, &roots)?;
    env.verify(&model, "restarted with space")?;
    Ok(())
}
