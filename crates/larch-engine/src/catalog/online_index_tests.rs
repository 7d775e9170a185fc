//! Online index builds ([`Catalog::begin_index_change`] with an online
//! log): transactions insert, update, delete and roll back beside the scan
//! and between the build and its end, and the new indexes hold exactly one
//! live entry per row afterwards; a duplicate written beside the build and
//! a log past its limit fail the change and leave the table as it was.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::tests::{def, open, row};
use super::*;
use crate::ddl::{BuildOptions, MIN_BUDGET};
use crate::io::{SimVfs, Vfs};
use crate::table::{IndexColumn, IndexDef, KeyRange, ReadContext, TransactionServices, TxnContext};
use crate::txn::{IsolationLevel, TrxOptions};

fn options() -> BuildOptions {
    BuildOptions {
        budget: MIN_BUDGET,
        threads: 2,
        fill_factor: 90,
        tmpdir: std::env::temp_dir(),
    }
}

fn never() -> bool {
    false
}

/// A catalog with transactions, holding `d.t` (id, c1, c2, c3; index on
/// c1) with `rows` committed rows: c2 is `k<id>` (unique), c3 `g<id % 10>`.
fn loaded(rows: i64) -> Result<(Catalog, Arc<TransactionServices>)> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let c = open(&vfs)?;
    let (services, _) = TransactionServices::open(c.storage())?;
    c.set_services(services.clone());
    c.create_database("d", b"")?;
    let t = c.create_table("d", def("t", 4), b"m0")?;
    let mut s = services.system.register_session()?;
    let trx = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let mut ctx = TxnContext::new(&services, trx);
    for id in 0..rows {
        t.insert(&mut ctx, &shaped(id, &format!("k{id}"), id % 10))?;
    }
    ctx.commit()?;
    Ok((c, services))
}

fn shaped(id: i64, c2: &str, g: i64) -> Vec<Value> {
    let mut r = row(id, 4);
    r[2] = Value::Str(c2.to_string());
    r[3] = Value::Str(format!("g{g}"));
    r
}

/// The definition with a unique index on c2 and one on (c3 DESC, id).
fn with_new_indexes() -> TableDef {
    let mut new = def("t", 4);
    new.secondary.push(IndexDef {
        name: "u2".into(),
        columns: vec![IndexColumn::new(2)],
        unique: true,
    });
    new.secondary.push(IndexDef {
        name: "g".into(),
        columns: vec![
            IndexColumn {
                column: 3,
                descending: true,
                prefix_len: None,
            },
            IndexColumn::new(0),
        ],
        unique: false,
    });
    new
}

/// Runs transactions of random inserts, updates and deletes against `d.t`
/// until `stop`, rolling one in four back. Returns the committed ones.
fn write_until(
    c: &Catalog,
    services: &Arc<TransactionServices>,
    seed: u64,
    stop: &AtomicBool,
    at_least: u64,
) -> Result<u64> {
    let t = c.table("d", "t")?;
    let mut s = services.system.register_session()?;
    let mut x = seed;
    let mut next = || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 33
    };
    let (mut committed, mut n) = (0u64, 0u64);
    while committed < at_least || !stop.load(Ordering::SeqCst) {
        let trx = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        let mut ctx = TxnContext::new(services, trx);
        let mut outcome = Ok(());
        for _ in 0..1 + next() % 4 {
            n += 1;
            let id = (next() % 24_000) as i64;
            let at = t.row_ref(&[Value::Int(id)])?;
            let unique = format!("w{seed}-{n}");
            outcome = match next() % 3 {
                0 => t.insert(&mut ctx, &shaped(id, &unique, n as i64)).map(drop),
                1 => t
                    .update(&mut ctx, &at, &shaped(id, &unique, n as i64))
                    .map(drop),
                _ => t.delete(&mut ctx, &at).map(drop),
            };
            if outcome.is_err() {
                break;
            }
        }
        match outcome {
            Ok(()) => {}
            // The other writer holds the row: give this transaction up.
            Err(
                EngineError::DuplicateEntry { .. }
                | EngineError::Deadlock
                | EngineError::LockWaitTimeout,
            ) => {
                ctx.rollback()?;
                continue;
            }
            Err(e) => return Err(e),
        }
        if next() % 4 == 0 {
            ctx.rollback()?;
        } else {
            ctx.commit()?;
            committed += 1;
        }
    }
    Ok(committed)
}

/// Every live row has its entry in every index and no index has more.
fn assert_indexes_agree(c: &Catalog) -> Result<()> {
    let t = c.table("d", "t")?;
    let check = t.check()?;
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    let report = c.storage().check()?;
    assert!(report.is_clean(), "{report:?}");
    // Reading through the new unique index gives every row.
    let mut scan = t.scan(&ReadContext::NEWEST, 2, &KeyRange::all(), false, Some(&[0]))?;
    let mut n = 0u64;
    while scan.next_row()?.is_some() {
        n += 1;
    }
    assert_eq!(n, check.rows);
    Ok(())
}

#[test]
fn writers_beside_an_online_build_reach_the_new_indexes() -> Result<()> {
    let (c, services) = loaded(20_000)?;
    let mut build = c.begin_index_change("d", "t", with_new_indexes(), Some(64 << 20))?;
    let stop = AtomicBool::new(false);
    let (built, committed) = std::thread::scope(|scope| {
        let writers: Vec<_> = (1..=2)
            .map(|seed| {
                let (c, services, stop) = (&c, &services, &stop);
                scope.spawn(move || write_until(c, services, seed, stop, 50))
            })
            .collect();
        let built = build.build(&options(), &never);
        stop.store(true, Ordering::SeqCst);
        let committed: Result<u64> = writers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(EngineError::Internal("writer panicked".into())))
            })
            .sum();
        (built, committed)
    });
    built?;
    assert!(committed? >= 100);
    // Changes after the build's replay passes, before the end.
    let stop = AtomicBool::new(true);
    write_until(&c, &services, 3, &stop, 20)?;
    let change = build.finish(b"m1", &never)?;
    assert_eq!(change.built, vec!["u2".to_string(), "g".to_string()]);
    assert!(change.replayed > 0, "{change:?}");
    assert_indexes_agree(&c)?;
    assert_eq!(
        c.table_entry("d", "t").map(|e| e.def),
        Some(with_new_indexes())
    );
    // The unique index is enforced from now on.
    let t = c.table("d", "t")?;
    let mut s = services.system.register_session()?;
    let trx = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let mut ctx = TxnContext::new(&services, trx);
    let taken = match t
        .scan(&ReadContext::NEWEST, 2, &KeyRange::all(), false, None)?
        .next_row()?
    {
        Some((_, r)) => r[2].clone(),
        None => return Err(EngineError::Internal("empty index".into())),
    };
    let mut dup = shaped(90_000, "", 0);
    dup[2] = taken;
    assert!(matches!(
        t.insert(&mut ctx, &dup),
        Err(EngineError::DuplicateEntry { ref key, .. }) if key == "u2"
    ));
    ctx.rollback()?;
    Ok(())
}

#[test]
fn a_duplicate_written_beside_an_online_build_fails_it() -> Result<()> {
    let (c, services) = loaded(500)?;
    let before = c.table_entry("d", "t").map(|e| (e.def, e.roots));
    let mut build = c.begin_index_change("d", "t", with_new_indexes(), Some(64 << 20))?;
    build.build(&options(), &never)?;
    // Row 7 takes row 3's c2: the scan never saw it, the log did.
    let t = c.table("d", "t")?;
    let mut s = services.system.register_session()?;
    let trx = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let mut ctx = TxnContext::new(&services, trx);
    t.update(&mut ctx, &t.row_ref(&[Value::Int(7)])?, &shaped(7, "k3", 7))?;
    ctx.commit()?;
    drop(t);
    match build.finish(b"m1", &never) {
        Err(EngineError::DuplicateEntry { entry, key }) => {
            assert_eq!((entry.as_str(), key.as_str()), ("k3", "u2"));
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    assert_eq!(c.table_entry("d", "t").map(|e| (e.def, e.roots)), before);
    let report = c.storage().check()?;
    assert!(report.is_clean(), "{report:?}");
    // A duplicate the change undoes in time is no duplicate.
    let mut build = c.begin_index_change("d", "t", with_new_indexes(), Some(64 << 20))?;
    build.build(&options(), &never)?;
    let t = c.table("d", "t")?;
    let trx = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let mut ctx = TxnContext::new(&services, trx);
    t.update(&mut ctx, &t.row_ref(&[Value::Int(7)])?, &shaped(7, "k7", 7))?;
    ctx.commit()?;
    drop(t);
    build.finish(b"m1", &never)?;
    assert_indexes_agree(&c)
}

#[test]
fn a_log_past_its_limit_fails_the_build_with_1799() -> Result<()> {
    let (c, services) = loaded(200)?;
    let before = c.table_entry("d", "t").map(|e| (e.def, e.roots));
    let mut build = c.begin_index_change("d", "t", with_new_indexes(), Some(65_536))?;
    let stop = AtomicBool::new(true);
    write_until(&c, &services, 9, &stop, 400)?;
    match build.build(&options(), &never) {
        Err(EngineError::Schema {
            errno: 1799,
            message,
        }) => {
            assert!(
                message.starts_with("Creating index 'u2' required more than"),
                "{message}"
            );
        }
        other => panic!("expected 1799, got {other:?}"),
    }
    drop(build);
    assert_eq!(c.table_entry("d", "t").map(|e| (e.def, e.roots)), before);
    let report = c.storage().check()?;
    assert!(report.is_clean(), "{report:?}");
    Ok(())
}
