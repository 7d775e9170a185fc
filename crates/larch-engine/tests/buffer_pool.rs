//! Buffer pool behaviour: LRU midpoint insertion, `innodb_old_blocks_time`,
//! linear read-ahead, eviction with write-back, concurrent fixing.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::time::Duration;

use larch_engine::buffer::Latch;
use larch_engine::config::EngineConfig;
use larch_engine::io::{SimVfs, Vfs};
use larch_engine::page::{bytes, PageId, PageSize, PageType, HEADER_SIZE};
use larch_engine::space::alloc;
use larch_engine::storage::Storage;
use larch_engine::Result;

fn config(frames: u64, old_blocks_time_ms: u32) -> EngineConfig {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K16);
    c.buffer_pool_size = frames * 16384;
    c.log_file_size = 4 << 20;
    c.undo_tablespaces = 0;
    c.old_blocks_time_ms = old_blocks_time_ms;
    c
}

/// Creates a tablespace with `n` initialised pages; returns (space, pages).
fn make_pages(s: &Storage, n: usize) -> Result<(u32, Vec<u32>)> {
    let space = s.create_tablespace("db/t.ibd")?;
    let mut pages = Vec::new();
    while pages.len() < n {
        let mut mtr = s.mtr()?;
        for _ in 0..32.min(n - pages.len()) {
            let p = alloc::alloc_page(&mut mtr, space)?;
            let r = mtr.new_page(PageId::new(space, p), PageType::Test)?;
            mtr.write_u64(r, HEADER_SIZE, 0);
            pages.push(p);
        }
        mtr.commit()?;
    }
    s.flush_all()?;
    Ok((space, pages))
}

fn touch(s: &Storage, space: u32, p: u32) -> Result<()> {
    let g = s.pool().fix(PageId::new(space, p), Latch::Shared)?;
    std::hint::black_box(g.data()[HEADER_SIZE]);
    Ok(())
}

#[test]
fn a_full_scan_does_not_evict_the_hot_set() -> Result<()> {
    // old_blocks_time = 0: a second access promotes; a scan touches pages once.
    // (Read-ahead off: with old_blocks_time = 0 InnoDB, too, promotes read-ahead
    // pages on their first access, which is why the default is 1000 ms.)
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let mut c = config(200, 0);
    c.read_ahead_threshold = 0;
    let s = Storage::create(c.clone(), vfs.clone())?;
    let (space, pages) = make_pages(&s, 1200)?;
    s.close()?;
    let s = Storage::open(c, vfs)?;
    // A full pool first, as in production; then the hot set is established.
    for &p in &pages[1000..1200] {
        touch(&s, space, p)?;
    }
    let hot = &pages[..30];
    for _ in 0..3 {
        for &p in hot {
            touch(&s, space, p)?;
        }
    }
    for &p in &pages[30..1000] {
        touch(&s, space, p)?;
    }
    let resident = hot
        .iter()
        .filter(|&&p| s.pool().contains(PageId::new(space, p)))
        .count();
    assert_eq!(
        resident,
        hot.len(),
        "hot pages survive a scan of 6x the pool"
    );
    let (len, old) = s.pool().lru_lengths();
    assert!(
        old * 100 / len >= 30 && old * 100 / len <= 40,
        "old sublist {old}/{len} near 37%"
    );
    Ok(())
}

#[test]
fn old_blocks_time_keeps_rapid_rereads_of_a_scan_old() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = Storage::create(config(200, 1000), vfs.clone())?;
    let (space, pages) = make_pages(&s, 800)?;
    s.close()?;
    let s = Storage::open(config(200, 1000), vfs)?;
    for &p in &pages[600..800] {
        touch(&s, space, p)?;
    }
    let hot = &pages[..30];
    for &p in hot {
        touch(&s, space, p)?;
    }
    // Older than innodb_old_blocks_time: the next access makes them young.
    std::thread::sleep(Duration::from_millis(1100));
    for &p in hot {
        touch(&s, space, p)?;
        assert!(
            !s.pool().is_old(PageId::new(space, p)),
            "page {p} made young"
        );
    }
    // A scan that reads each page several times in quick succession (rows of a
    // page) must not be promoted, so the hot set survives.
    for &p in &pages[30..600] {
        for _ in 0..4 {
            touch(&s, space, p)?;
        }
    }
    for &p in hot {
        assert!(
            s.pool().contains(PageId::new(space, p)),
            "hot page {p} evicted by the scan"
        );
    }
    Ok(())
}

#[test]
fn linear_read_ahead_fetches_the_next_extent() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = Storage::create(config(400, 0), vfs.clone())?;
    let (space, pages) = make_pages(&s, 300)?;
    s.close()?;
    let s = Storage::open(config(400, 0), vfs)?;
    // Extent 2 (pages 128..192 at 16k) must be all workload pages.
    assert!(
        (128..256).all(|p| pages.contains(&p)),
        "pages are contiguous"
    );
    for p in 128..192 {
        touch(&s, space, p)?;
    }
    let mut waited = 0;
    while s.pool().stats().read_ahead.load(SeqCst) < 64 && waited < 200 {
        std::thread::sleep(Duration::from_millis(10));
        waited += 1;
    }
    assert!(s.pool().stats().read_ahead.load(SeqCst) >= 64);
    assert!((192..256).all(|p| s.pool().contains(PageId::new(space, p))));
    let reads_before = s.pool().stats().reads.load(SeqCst);
    for p in 192..256 {
        touch(&s, space, p)?;
    }
    // Touching the read-ahead extent costs no synchronous read for its pages
    // (the last page may trigger the next read-ahead, which is asynchronous).
    assert!(s.pool().stats().reads.load(SeqCst) - reads_before <= 64);
    Ok(())
}

#[test]
fn concurrent_updates_through_a_small_pool_lose_nothing() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = Arc::new(Storage::create(config(64, 0), vfs.clone())?);
    let (space, pages) = make_pages(&s, 300)?;
    let pages = Arc::new(pages);
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let (s, pages) = (s.clone(), pages.clone());
            std::thread::spawn(move || -> Result<()> {
                let mut x = t.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                for _ in 0..3000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let p = pages[(x % pages.len() as u64) as usize];
                    if x % 3 == 0 {
                        touch(&s, space, p)?;
                        continue;
                    }
                    let mut mtr = s.mtr()?;
                    let r = mtr.page(PageId::new(space, p), Latch::Exclusive)?;
                    let v = bytes::get_u64(mtr.data(r), HEADER_SIZE);
                    mtr.write_u64(r, HEADER_SIZE, v + 1);
                    mtr.commit()?;
                }
                Ok(())
            })
        })
        .collect();
    let mut increments = 0u64;
    for (t, h) in threads.into_iter().enumerate() {
        h.join()
            .map_err(|_| larch_engine::EngineError::Internal("thread panicked".into()))??;
        let mut x = (t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for _ in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 != 0 {
                increments += 1;
            }
        }
    }
    assert!(
        s.pool().stats().evictions.load(SeqCst) > 0,
        "the pool had to evict"
    );
    assert!(
        s.pool().stats().pages_flushed.load(SeqCst) > 0,
        "dirty pages were written back"
    );
    assert_eq!(s.pool().fixed_frames(), 0, "no fix leaked");
    let sum = |s: &Storage| -> Result<u64> {
        let mut total = 0;
        for &p in pages.iter() {
            let g = s.pool().fix(PageId::new(space, p), Latch::Shared)?;
            total += bytes::get_u64(g.data(), HEADER_SIZE);
        }
        Ok(total)
    };
    assert_eq!(sum(&s)?, increments);
    match Arc::try_unwrap(s) {
        Ok(s) => s.close()?,
        Err(_) => panic!("storage still shared"),
    }
    let s = Storage::open(config(64, 0), vfs)?;
    assert_eq!(
        sum(&s)?,
        increments,
        "every increment is on disk after a clean shutdown"
    );
    assert!(s.check()?.is_clean());
    Ok(())
}

/// A page damaged on disk is never served: fixing it fails with an error that
/// names the file, the space and the page, the bad image is not left in the
/// pool (fixing it again reads and fails again), and the other pages of the
/// tablespace are still served.
#[test]
fn a_corrupt_page_is_refused_and_not_cached() -> Result<()> {
    use larch_engine::io::OpenOptions;
    use larch_engine::EngineError;
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    // No doublewrite: it would repair the page from its copy at start-up.
    let mut c = config(64, 0);
    c.doublewrite = false;
    let s = Storage::create(c.clone(), vfs.clone())?;
    let (space, pages) = make_pages(&s, 8)?;
    s.close()?;
    let bad = PageId::new(space, pages[3]);
    {
        let f = vfs.open(std::path::Path::new("/d/db/t.ibd"), OpenOptions::existing())?;
        let off = u64::from(bad.page) * 16384 + HEADER_SIZE as u64 + 100;
        let mut b = [0u8; 1];
        f.read_at(&mut b, off)?;
        f.write_at(&[b[0] ^ 0x20], off)?;
        f.sync_data()?;
    }
    let s = Storage::open(c, vfs)?;
    for attempt in 0..2 {
        match s.pool().fix(bad, Latch::Shared) {
            Ok(_) => panic!("attempt {attempt}: the corrupt page was served"),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    matches!(e, EngineError::Corruption { page, .. } if page == bad),
                    "{msg}"
                );
                assert!(msg.contains("/d/db/t.ibd"), "names the file: {msg}");
                assert!(
                    msg.contains(&format!("space {space}"))
                        && msg.contains(&format!("page {}", bad.page)),
                    "names space and page: {msg}"
                );
            }
        }
        assert!(!s.pool().contains(bad), "the bad image is not cached");
    }
    assert_eq!(s.pool().fixed_frames(), 0, "no fix leaked");
    for &p in pages.iter().filter(|&&p| p != bad.page) {
        touch(&s, space, p)?;
    }
    let report = s.check()?;
    assert!(
        report
            .problems()
            .iter()
            .any(|p| p.contains("t.ibd") && p.contains(&format!("page {}", bad.page))),
        "{:?}",
        report.problems()
    );
    Ok(())
}

/// Waits up to a minute for `done`, checking every 10 ms.
fn wait_until(what: &str, mut done: impl FnMut() -> Result<bool>) -> Result<()> {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !done()? {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

/// Dirty pages reach their files and the checkpoint follows with no explicit
/// flush or checkpoint: the page cleaner does both.
#[test]
fn the_page_cleaner_writes_dirty_pages_and_checkpoints() -> Result<()> {
    use larch_engine::io::OpenOptions;
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = Storage::create(config(64, 0), vfs.clone())?;
    let (space, pages) = make_pages(&s, 20)?;
    let flushed_before = s.pool().stats().pages_flushed.load(SeqCst);
    for (i, &p) in pages.iter().enumerate() {
        let mut mtr = s.mtr()?;
        let r = mtr.page(PageId::new(space, p), Latch::Exclusive)?;
        mtr.write_u64(r, HEADER_SIZE, 1000 + i as u64);
        mtr.commit()?;
    }
    let end = s.log().current_lsn();
    assert!(s.log().checkpoint_lsn() < end);
    let file = vfs.open(
        std::path::Path::new("/d/db/t.ibd"),
        OpenOptions::read_only(),
    )?;
    let mut buf = vec![0u8; 16384];
    wait_until("the changed pages reach the file", || {
        for (i, &p) in pages.iter().enumerate() {
            file.read_at(&mut buf, u64::from(p) * 16384)?;
            if bytes::get_u64(&buf, HEADER_SIZE) != 1000 + i as u64 {
                return Ok(false);
            }
        }
        Ok(true)
    })?;
    wait_until("a checkpoint past the changes", || {
        Ok(s.log().checkpoint_lsn() >= end)
    })?;
    assert!(
        s.pool().stats().pages_flushed.load(SeqCst) - flushed_before >= pages.len() as u64,
        "the cleaner wrote the pages"
    );
    assert_eq!(s.pool().dirty_pages(), 0);
    s.close()?;
    Ok(())
}

/// Under a sustained write load that writes the redo log around several times,
/// with no explicit flush or checkpoint, the checkpoint keeps up: its age never
/// exceeds the log's capacity, and every change is recovered after a crash.
#[test]
fn checkpoint_age_stays_within_the_log_under_sustained_writes() -> Result<()> {
    use larch_engine::storage::workload::Workload;
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K8);
    c.buffer_pool_size = 64 * 8192;
    c.log_file_size = 256 << 10;
    c.log_buffer_size = 256 << 10;
    c.undo_tablespaces = 0;
    let s = Arc::new(Storage::create(c.clone(), vfs.clone())?);
    let w = Workload::create(&s, "db/load.ibd", 40)?;
    let cap = s.log().capacity();
    let (start, first_checkpoint) = (s.log().current_lsn(), s.log().checkpoint_lsn());
    // The load runs in its own thread so that a log that never frees space
    // (writers waiting for a checkpoint nobody takes) fails the test instead of
    // hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    let load = {
        let (s, w) = (s.clone(), w.clone());
        std::thread::spawn(move || {
            let run = || -> Result<(u64, u64)> {
                let mut n = 0;
                let mut max_age = 0;
                while s.log().current_lsn() - start < 4 * cap {
                    n += 1;
                    w.run_mtr(&s, n)?;
                    max_age = max_age.max(s.log().checkpoint_age());
                }
                let end = s.log().current_lsn();
                s.log().flush_up_to(end)?;
                Ok((n, max_age))
            };
            let _ = tx.send(run());
        })
    };
    let (n, max_age) = match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(r) => r?,
        Err(_) => panic!("the write load stalled: no checkpoint freed log space"),
    };
    load.join()
        .map_err(|_| larch_engine::EngineError::Internal("load thread panicked".into()))?;
    assert!(
        max_age <= cap,
        "checkpoint age {max_age} exceeded the log capacity {cap}"
    );
    assert!(
        s.log().checkpoint_lsn() >= first_checkpoint + 2 * cap,
        "checkpoints advanced with the load"
    );
    match Arc::try_unwrap(s) {
        Ok(s) => s.abandon(),
        Err(_) => panic!("storage still shared"),
    }
    sim.crash();
    let s = Storage::open(c, vfs)?;
    let w = Workload::find(&s, w.space)?;
    assert_eq!(w.verify(&s)?, n, "every change recovered");
    Ok(())
}
