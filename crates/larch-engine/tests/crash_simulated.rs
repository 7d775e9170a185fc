//! Power-loss crash tests on the simulated file system.
//!
//! Each cycle runs the deterministic workload, then "pulls the plug": every write
//! not yet synced is dropped, kept, or torn at a sector boundary at random. The
//! reopened directory must hold exactly the state after some prefix of the
//! mini-transactions that includes every one reported durable, and `check` must
//! pass.

use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_engine::io::{SimFault, SimVfs, Vfs};
use larch_engine::page::PageSize;
use larch_engine::storage::workload::Workload;
use larch_engine::storage::Storage;
use larch_engine::Result;
use rand::{Rng, SeedableRng};

fn config(ps: PageSize, doublewrite: bool) -> EngineConfig {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(ps);
    c.buffer_pool_size = 40 * ps.bytes() as u64;
    c.log_file_size = 256 << 10;
    c.log_buffer_size = 256 << 10;
    c.undo_tablespaces = 1;
    c.doublewrite = doublewrite;
    c
}

fn run_cycles(ps: PageSize, cycles: u32, seed: u64) -> Result<()> {
    let vfs = SimVfs::with_seed(seed);
    let dyn_vfs: Arc<dyn Vfs> = Arc::new(vfs.clone());
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let space = {
        let s = Storage::create(config(ps, true), dyn_vfs.clone())?;
        let w = Workload::create(&s, "db/crash.ibd", 60)?;
        s.close()?;
        w.space
    };
    let mut next = 1u64;
    for cycle in 0..cycles {
        let s = Storage::open(config(ps, true), dyn_vfs.clone())?;
        let w = Workload::find(&s, space)?;
        let m = w.verify(&s).map_err(|e| {
            eprintln!("cycle {cycle} ps {ps}: {e}");
            e
        })?;
        assert!(
            m + 1 >= next,
            "cycle {cycle}: lost durable mtr {} (recovered {m})",
            next - 1
        );
        next = m + 1;
        let count = rng.random_range(1..300u64);
        let mut durable = m;
        for n in next..next + count {
            let end = w.run_mtr(&s, n)?;
            if rng.random_bool(0.3) {
                s.log().flush_up_to(end)?;
                durable = n;
            }
            if rng.random_bool(0.01) {
                s.pool().flush_list_batch(16, None)?;
                s.pool().checkpoint()?;
            }
        }
        next = durable + 1;
        s.abandon();
        match cycle % 3 {
            0 => vfs.crash(),
            1 => vfs.crash_drop_unsynced(),
            _ => vfs.crash_keep_all(),
        }
    }
    let s = Storage::open(config(ps, true), dyn_vfs)?;
    let report = s.check()?;
    assert!(report.is_clean(), "{:?}", report.problems());
    Ok(())
}

#[test]
fn power_loss_cycles_every_page_size() -> Result<()> {
    for (i, ps) in PageSize::ALL.into_iter().enumerate() {
        run_cycles(ps, 40, 1000 + i as u64)?;
    }
    Ok(())
}

#[test]
#[ignore = "long: run with --ignored"]
fn power_loss_cycles_long() -> Result<()> {
    for seed in 0..20u64 {
        for ps in PageSize::ALL {
            run_cycles(ps, 100, seed * 31 + u64::from(ps.get()))?;
        }
    }
    Ok(())
}

/// A page write torn in half at the crash point is restored from the
/// doublewrite buffer; without doublewrite the damage is detected and reported.
#[test]
fn torn_page_write_is_repaired_by_doublewrite() -> Result<()> {
    for doublewrite in [true, false] {
        let vfs = SimVfs::with_seed(5);
        let dyn_vfs: Arc<dyn Vfs> = Arc::new(vfs.clone());
        let ps = PageSize::K16;
        let s = Storage::create(config(ps, doublewrite), dyn_vfs.clone())?;
        let w = Workload::create(&s, "db/torn.ibd", 20)?;
        // Get every page onto disk and checkpointed, then dirty them again.
        s.flush_all()?;
        let mut last = 0;
        for n in 1..=200 {
            last = w.run_mtr(&s, n)?;
        }
        s.log().flush_up_to(last)?;
        // The next writes: a doublewrite batch (1 write), then in-place pages. Tear
        // the second in-place page write.
        let base = vfs.write_count();
        let torn_at = if doublewrite { 2 } else { 1 };
        vfs.set_fault(Some(SimFault::CrashAfterWrites {
            writes: torn_at,
            torn: true,
        }));
        let _ = s.pool().flush_list_batch(64, None);
        assert!(vfs.write_count() >= base, "writes happened");
        s.abandon();
        vfs.set_fault(None);
        let reopened = Storage::open(config(ps, doublewrite), dyn_vfs.clone());
        if doublewrite {
            let s = reopened?;
            assert_eq!(
                s.recovery_report().pages_restored.len(),
                1,
                "one torn page restored"
            );
            let w = Workload::find(&s, w.space)?;
            assert_eq!(w.verify(&s)?, 200);
            assert!(s.check()?.is_clean());
        } else {
            let msg = reopened.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains("torn") || msg.contains("checksum"), "{msg}");
            assert!(msg.contains("torn.ibd"), "the error names the file: {msg}");
        }
    }
    Ok(())
}

#[test]
fn failed_fsync_stops_writes_and_loses_nothing_committed() -> Result<()> {
    let vfs = SimVfs::with_seed(9);
    let dyn_vfs: Arc<dyn Vfs> = Arc::new(vfs.clone());
    let s = Storage::create(config(PageSize::K8, true), dyn_vfs.clone())?;
    let w = Workload::create(&s, "db/f.ibd", 10)?;
    for n in 1..=50 {
        let end = w.run_mtr(&s, n)?;
        s.log().flush_up_to(end)?;
    }
    vfs.set_fault(Some(SimFault::FailSync {
        path_contains: "ib_logfile".into(),
    }));
    let end = w.run_mtr(&s, 51)?;
    assert!(s.log().flush_up_to(end).is_err());
    vfs.set_fault(None);
    let after = w.run_mtr(&s, 52);
    assert!(
        matches!(after, Err(larch_engine::EngineError::WritesDisabled { .. })),
        "writes must be refused after a failed fsync: {after:?}"
    );
    s.abandon();
    vfs.crash();
    let s = Storage::open(config(PageSize::K8, true), dyn_vfs)?;
    let w = Workload::find(&s, w.space)?;
    assert!(w.verify(&s)? >= 50);
    Ok(())
}

#[test]
fn full_disk_is_a_clear_error() -> Result<()> {
    let vfs = SimVfs::with_seed(3);
    let dyn_vfs: Arc<dyn Vfs> = Arc::new(vfs.clone());
    let s = Storage::create(config(PageSize::K4, true), dyn_vfs.clone())?;
    vfs.set_fault(Some(SimFault::DiskFull { limit_bytes: 0 }));
    let err = s.create_tablespace("db/big.ibd").err();
    assert!(
        matches!(err, Some(larch_engine::EngineError::DiskFull { .. })),
        "{err:?}"
    );
    vfs.set_fault(None);
    let w = Workload::create(&s, "db/ok.ibd", 5)?;
    let end = w.run_mtr(&s, 1)?;
    s.log().flush_up_to(end)?;
    s.close()?;
    Ok(())
}

/// A failed write or sync of a data file (`.ibd`) stops all further writes
/// with an error naming the file, and loses nothing committed: the failed
/// pages keep the checkpoint behind them, so after a power loss recovery
/// replays them from the redo log.
#[test]
fn failed_data_file_write_or_sync_stops_writes_and_loses_nothing_committed() -> Result<()> {
    use larch_engine::EngineError;
    let cases = [
        ("write", true),
        ("write", false),
        ("sync", true),
        ("sync", false),
    ];
    for (k, (what, doublewrite)) in cases.into_iter().enumerate() {
        let ctx = format!("failed {what}, doublewrite={doublewrite}");
        let vfs = SimVfs::with_seed(40 + k as u64);
        let dyn_vfs: Arc<dyn Vfs> = Arc::new(vfs.clone());
        let s = Storage::create(config(PageSize::K8, doublewrite), dyn_vfs.clone())?;
        let w = Workload::create(&s, "db/f.ibd", 10)?;
        s.flush_all()?;
        // From here on every write (or sync) of the tablespace fails; the redo
        // log, the system tablespace and the doublewrite file are unaffected.
        let path_contains = ".ibd".to_string();
        vfs.set_fault(Some(if what == "write" {
            SimFault::FailWrites { path_contains }
        } else {
            SimFault::FailSync { path_contains }
        }));
        let first_change = s.log().current_lsn();
        // Committed and durable (the page cleaner may hit the fault meanwhile
        // and stop the writes early: then fewer are committed).
        let mut durable = 0;
        for n in 1..=50 {
            match w.run_mtr(&s, n).and_then(|end| s.log().flush_up_to(end)) {
                Ok(()) => durable = n,
                Err(EngineError::WritesDisabled { .. }) => break,
                Err(e) => return Err(e),
            }
        }
        let err = match s.flush_all() {
            Ok(()) => panic!("{ctx}: flushing to a failing data file succeeded"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("f.ibd"),
            "{ctx}: the error names the file: {err}"
        );
        // Every further change is refused, and says why.
        match w.run_mtr(&s, durable + 1) {
            Err(EngineError::WritesDisabled { reason }) => {
                assert!(reason.contains("f.ibd"), "{ctx}: {reason}");
                assert!(reason.contains(what), "{ctx}: {reason}");
            }
            other => panic!("{ctx}: a change after the failure was not refused: {other:?}"),
        }
        // No checkpoint passes a change that is not on disk.
        let _ = s.pool().checkpoint();
        assert!(
            s.log().checkpoint_lsn() <= first_change,
            "{ctx}: checkpoint {} passed the unwritten changes from {first_change}",
            s.log().checkpoint_lsn()
        );
        vfs.set_fault(None);
        s.abandon();
        vfs.crash();
        let s = Storage::open(config(PageSize::K8, doublewrite), dyn_vfs)?;
        let w = Workload::find(&s, w.space)?;
        let recovered = w.verify(&s)?;
        assert!(
            recovered >= durable,
            "{ctx}: durable mtr {durable} lost (recovered {recovered})"
        );
        assert!(s.check()?.is_clean(), "{ctx}");
        s.close()?;
    }
    Ok(())
}
