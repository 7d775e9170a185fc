//! Creating, reopening and checking data directories at every page size.

use std::sync::Arc;

use larch_engine::buffer::Latch;
use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, SimVfs, Vfs};
use larch_engine::page::{PageId, PageSize};
use larch_engine::storage::workload::Workload;
use larch_engine::storage::Storage;
use larch_engine::{EngineError, Result};

fn config(dir: &str, ps: PageSize) -> EngineConfig {
    let mut c = EngineConfig::new(dir);
    c.page_size = Some(ps);
    c.buffer_pool_size = 64 * ps.bytes() as u64;
    c.log_file_size = 1 << 20;
    c.log_buffer_size = 256 << 10;
    c.undo_tablespaces = 2;
    c
}

#[test]
fn create_reopen_check_at_every_page_size() -> Result<()> {
    for ps in PageSize::ALL {
        let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
        let s = Storage::create(config("/d", ps), vfs.clone())?;
        let w = Workload::create(&s, "db/t1.ibd", 80)?;
        for n in 1..=400 {
            s.run_mtr_for_test(&w, n)?;
        }
        let report = s.check()?;
        assert!(report.is_clean(), "{:?}", report.problems());
        assert_eq!(report.spaces.len(), 4, "system, 2 undo, one table");
        s.close()?;
        // Reopen without naming a page size: the directory's is used.
        let mut c = config("/d", ps);
        c.page_size = None;
        let s = Storage::open(c, vfs.clone())?;
        assert_eq!(s.page_size(), ps);
        let w = Workload::find(&s, w.space)?;
        assert_eq!(w.pages.len(), 80);
        assert_eq!(w.verify(&s)?, 400);
        assert_eq!(
            s.recovery_report().blocks,
            0,
            "clean shutdown leaves nothing to replay"
        );
        s.close()?;
    }
    Ok(())
}

trait RunForTest {
    fn run_mtr_for_test(&self, w: &Workload, n: u64) -> Result<()>;
}
impl RunForTest for Storage {
    fn run_mtr_for_test(&self, w: &Workload, n: u64) -> Result<()> {
        let end = w.run_mtr(self, n)?;
        self.log().flush_up_to(end)
    }
}

#[test]
fn wrong_page_size_refuses_to_start_naming_both() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    Storage::create(config("/d", PageSize::K4), vfs.clone())?.close()?;
    let err = Storage::open(config("/d", PageSize::K16), vfs.clone()).err();
    let msg = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.contains("uses page size 4096, but the start-up parameter is innodb-page-size=16384"),
        "{msg}"
    );
    Ok(())
}

#[test]
fn real_files_and_directory_lock() -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| EngineError::io("tmp", "tmp", e))?;
    let d = dir.path().join("data");
    let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
    let mut c = config(&d.to_string_lossy(), PageSize::K16);
    c.flush_method = larch_engine::config::FlushMethod::ODirect;
    let s = Storage::create(c.clone(), vfs.clone())?;
    let second = Storage::open(c.clone(), vfs.clone());
    assert!(
        matches!(second, Err(EngineError::DataDir { ref reason, .. }) if reason.contains("in use")),
        "a second open of a locked directory must fail"
    );
    let space = s.create_tablespace("test/t.ibd")?;
    assert!(d.join("test/t.ibd").exists());
    {
        let mut mtr = s.mtr()?;
        let r = mtr.page(PageId::new(space, 0), Latch::Shared)?;
        assert_eq!(mtr.page_id(r), PageId::new(space, 0));
        mtr.commit()?;
    }
    s.drop_tablespace(space)?;
    assert!(!d.join("test/t.ibd").exists());
    s.close()?;
    let s = Storage::open(c, vfs)?;
    assert!(!s.spaces().contains(space));
    assert!(s.check()?.is_clean());
    Ok(())
}

#[test]
fn missing_directory_and_garbage_files_are_clear_errors() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let err = Storage::open(config("/nowhere", PageSize::K16), vfs.clone()).err();
    assert!(matches!(err, Some(EngineError::DataDir { .. })));
    Storage::create(config("/d", PageSize::K8), vfs.clone())?.close()?;
    // Truncate the redo log header.
    let f = vfs.open(
        std::path::Path::new("/d/ib_logfile0"),
        larch_engine::io::OpenOptions::existing(),
    )?;
    f.truncate(100)?;
    f.sync_all()?;
    let err = Storage::open(config("/d", PageSize::K8), vfs.clone()).err();
    let msg = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.contains("ib_logfile0") && msg.contains("100 bytes"),
        "{msg}"
    );
    Ok(())
}

/// A crash at any write of the creation of a data directory leaves one that
/// the next start creates again (it never opens half made, and never refuses
/// to start), while a complete one opens with its data.
#[test]
fn a_crash_during_creation_is_started_over() -> Result<()> {
    let ps = PageSize::K4;
    // Writes the creation makes, counted on a clean run.
    let clean = SimVfs::new();
    let s = Storage::create(config("/d", ps), Arc::new(clean.clone()))?;
    let total = clean.write_count();
    s.close()?;
    assert!(total > 3, "creation writes {total} times");
    let step = (total / 12).max(1);
    for at in (0..total).step_by(step as usize) {
        let sim = SimVfs::new();
        let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
        sim.set_fault(Some(larch_engine::io::SimFault::CrashAfterWrites {
            writes: at,
            torn: true,
        }));
        match Storage::create(config("/d", ps), vfs.clone()) {
            Ok(s) => s.abandon(),
            Err(_) => sim.crash(),
        }
        sim.set_fault(None);
        if Storage::exists(&*vfs, "/d".as_ref()) {
            // Complete before the crash: it opens as it is.
            let s = Storage::open(config("/d", ps), vfs.clone())?;
            assert!(s.check()?.is_clean(), "crash after write {at}");
            s.close()?;
            continue;
        }
        if vfs.exists("/d/ibdata1".as_ref()) {
            let e = Storage::open(config("/d", ps), vfs.clone()).err();
            assert!(
                matches!(&e, Some(EngineError::DataDir { reason, .. }) if reason.contains("interrupted")),
                "crash after write {at}: {e:?}"
            );
        }
        let s = Storage::open_or_create(config("/d", ps), vfs.clone())?;
        let w = Workload::create(&s, "db/t1.ibd", 20)?;
        s.run_mtr_for_test(&w, 1)?;
        assert!(s.check()?.is_clean(), "crash after write {at}");
        s.close()?;
        assert!(Storage::exists(&*vfs, "/d".as_ref()));
    }
    Ok(())
}

fn truncate(vfs: &dyn Vfs, path: &str, len: u64) -> Result<()> {
    let f = vfs.open(
        std::path::Path::new(path),
        larch_engine::io::OpenOptions::existing(),
    )?;
    f.truncate(len)?;
    f.sync_all()
}

/// A tablespace file cut short is a clear error that names the file: a page
/// past its end is refused with the file, space and page, `check` reports the
/// pages the space header counts but the file lacks, and a system tablespace
/// cut short refuses to open.
#[test]
fn truncated_tablespace_is_a_clear_error_naming_the_file() -> Result<()> {
    let ps = PageSize::K8;
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = Storage::create(config("/d", ps), vfs.clone())?;
    let w = Workload::create(&s, "db/t1.ibd", 80)?;
    for n in 1..=100 {
        s.run_mtr_for_test(&w, n)?;
    }
    s.close()?;
    let last = w.pages.iter().copied().max().unwrap_or(0);
    assert!(last >= 4, "the workload reaches past page 4");

    truncate(&*vfs, "/d/db/t1.ibd", 4 * ps.bytes() as u64)?;
    let s = Storage::open(config("/d", ps), vfs.clone())?;
    let missing = PageId::new(w.space, last);
    match s.pool().fix(missing, Latch::Shared) {
        Ok(_) => panic!("a page past the end of the file was served"),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                matches!(e, EngineError::Corruption { page, .. } if page == missing),
                "{msg}"
            );
            assert!(
                msg.contains("/d/db/t1.ibd") && msg.contains("past the end of the file"),
                "{msg}"
            );
            assert!(msg.contains(&format!("page {last}")), "{msg}");
        }
    }
    assert!(!s.pool().contains(missing));
    let report = s.check()?;
    let problems = report.problems();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("db/t1.ibd:") && p.contains("the file has only 4 pages")),
        "{problems:?}"
    );
    s.close()?;

    truncate(&*vfs, "/d/ibdata1", ps.bytes() as u64)?;
    let err = Storage::open(config("/d", ps), vfs.clone()).err();
    let msg = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.contains("/d/ibdata1"),
        "the error names the file: {msg}"
    );
    Ok(())
}
