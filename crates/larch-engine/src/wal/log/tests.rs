//! Tests of the redo log on the simulated file system: concurrent appends scan
//! back, commits during a sync share the next one, what power loss keeps, wrap
//! around behind checkpoints, `innodb_flush_log_at_trx_commit` modes, and a
//! failed sync stopping writes.

use super::*;
use crate::io::{SimVfs, Vfs};
use crate::wal::file::FIRST_LSN;
use crate::wal::scan::LogScanner;
use std::path::Path;
use std::sync::Arc;

fn new_log(vfs: &dyn Vfs, capacity: u64, buffer: u64) -> Result<RedoLog> {
    let file = LogFile::create(vfs, Path::new("/ib_logfile0"), capacity, false)?;
    let cp = file.read_checkpoint()?;
    let log = RedoLog::new(file, FIRST_LSN, cp, 2, buffer, 1);
    log.write_checkpoint(FIRST_LSN)?;
    Ok(log)
}

#[test]
fn concurrent_appends_and_flushes_scan_back() -> Result<()> {
    let vfs = SimVfs::new();
    let log = Arc::new(new_log(&vfs, 8 << 20, 256 << 10)?);
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || -> Result<()> {
                for i in 0..500u32 {
                    let body = vec![t; 1 + (i as usize * 31) % 700];
                    let (s, e) = log.append(&body)?;
                    log.close(s, e);
                    if i % 10 == 0 {
                        log.flush_up_to(e)?;
                        assert!(log.flushed_lsn() >= e);
                    }
                }
                Ok(())
            })
        })
        .collect();
    for t in threads {
        t.join()
            .map_err(|_| EngineError::Internal("thread".into()))??;
    }
    let end = log.current_lsn();
    log.flush_up_to(end)?;
    assert_eq!(log.flushed_lsn(), end);
    let file = LogFile::open(&vfs, Path::new("/ib_logfile0"), false, true)?;
    let scan = LogScanner::new(&file, FIRST_LSN);
    let mut n = 0;
    let mut counts = [0u32; 4];
    for block in scan {
        let block = block?;
        counts[block.records[0] as usize] += 1;
        assert!(block.records.iter().all(|&b| b == block.records[0]));
        n += 1;
    }
    assert_eq!(n, 2000);
    assert_eq!(counts, [500; 4]);
    Ok(())
}

/// Commits that arrive while a sync is in progress queue behind it and then
/// share one sync: 1 + FOLLOWERS commits cost two syncs, not one each. The
/// first sync is held by the simulated disk until every follower is waiting,
/// so the outcome does not depend on how the threads are scheduled.
#[test]
fn commits_during_a_sync_share_the_next_one() -> Result<()> {
    const FOLLOWERS: usize = 8;
    let limit = std::time::Duration::from_secs(60);
    let vfs = SimVfs::new();
    let log = Arc::new(new_log(&vfs, 8 << 20, 256 << 10)?);
    let syncs_before = log.stats().syncs.load(SeqCst);
    let waits_before = log.stats().flush_waits.load(SeqCst);
    vfs.hold_syncs("ib_logfile");
    // The leader writes its block and blocks in the sync.
    let leader = {
        let log = log.clone();
        std::thread::spawn(move || -> Result<u64> {
            let (s, e) = log.append(b"leader")?;
            log.close(s, e);
            log.flush_up_to(e)?;
            Ok(e)
        })
    };
    assert!(vfs.wait_for_held_syncs(1, limit), "the leader never synced");
    // Followers append behind the leader's write, then flush all at once.
    let barrier = Arc::new(std::sync::Barrier::new(FOLLOWERS));
    let followers: Vec<_> = (0..FOLLOWERS)
        .map(|i| {
            let (log, barrier) = (log.clone(), barrier.clone());
            std::thread::spawn(move || -> Result<u64> {
                let (s, e) = log.append(&[i as u8; 100])?;
                log.close(s, e);
                barrier.wait();
                log.flush_up_to(e)?;
                Ok(e)
            })
        })
        .collect();
    // Every follower queues behind the held sync (none can sync itself).
    let deadline = std::time::Instant::now() + limit;
    while log.stats().flush_waits.load(SeqCst) - waits_before < FOLLOWERS as u64 {
        assert!(
            std::time::Instant::now() < deadline,
            "followers did not queue behind the leader's sync"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert_eq!(log.stats().syncs.load(SeqCst), syncs_before);
    vfs.release_syncs();
    let mut ends = vec![leader
        .join()
        .map_err(|_| EngineError::Internal("leader".into()))??];
    for f in followers {
        ends.push(
            f.join()
                .map_err(|_| EngineError::Internal("follower".into()))??,
        );
    }
    let max_end = ends.iter().copied().max().unwrap_or(0);
    assert!(log.flushed_lsn() >= max_end, "every commit is durable");
    let syncs = log.stats().syncs.load(SeqCst) - syncs_before;
    assert!(
        syncs < 1 + FOLLOWERS as u64,
        "group commit: {} commits took {syncs} syncs",
        1 + FOLLOWERS
    );
    assert_eq!(syncs, 2, "the leader's sync, then one for all followers");
    Ok(())
}

#[test]
fn unsynced_blocks_are_lost_at_power_loss_synced_ones_are_not() -> Result<()> {
    let vfs = SimVfs::with_seed(7);
    let log = new_log(&vfs, 1 << 20, 256 << 10)?;
    let (s1, e1) = log.append(b"durable")?;
    log.close(s1, e1);
    log.flush_up_to(e1)?;
    let (s2, e2) = log.append(b"volatile")?;
    log.close(s2, e2);
    log.write_out(e2)?;
    drop(log);
    vfs.crash_drop_unsynced();
    let file = LogFile::open(&vfs, Path::new("/ib_logfile0"), false, true)?;
    let blocks: Vec<_> = LogScanner::new(&file, FIRST_LSN).collect::<Result<_>>()?;
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].records, b"durable");
    Ok(())
}

#[test]
fn log_wraps_when_checkpoints_advance() -> Result<()> {
    let vfs = SimVfs::new();
    let log = new_log(&vfs, 64 << 10, 256 << 10)?;
    let body = vec![9u8; 1000];
    let mut last = 0;
    for _ in 0..500 {
        let (s, e) = log.append(&body)?;
        log.close(s, e);
        log.flush_up_to(e)?;
        // Pretend every page is flushed: checkpoint right behind the end.
        log.write_checkpoint(s)?;
        last = e;
    }
    assert!(last - FIRST_LSN > 4 * (64 << 10), "wrapped several times");
    let file = LogFile::open(&vfs, Path::new("/ib_logfile0"), false, true)?;
    let cp = file.read_checkpoint()?;
    let blocks: Vec<_> = LogScanner::new(&file, cp.lsn).collect::<Result<_>>()?;
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].end, last);
    Ok(())
}

#[test]
fn flush_log_at_trx_commit_modes() -> Result<()> {
    for mode in [0u8, 1, 2] {
        let vfs = SimVfs::new();
        let file = LogFile::create(&vfs, Path::new("/ib_logfile0"), 1 << 20, false)?;
        let cp = file.read_checkpoint()?;
        let log = RedoLog::new(file, FIRST_LSN, cp, 2, 256 << 10, mode);
        log.write_checkpoint(FIRST_LSN)?;
        let syncs = log.stats().syncs.load(SeqCst);
        let (s, e) = log.append(b"commit")?;
        log.close(s, e);
        log.flush_for_commit(e)?;
        let (written, flushed) = (log.written_lsn() >= e, log.flushed_lsn() >= e);
        match mode {
            0 => assert!(
                !written && !flushed,
                "mode 0 leaves it to the once-a-second flush"
            ),
            1 => assert!(written && flushed && log.stats().syncs.load(SeqCst) > syncs),
            _ => assert!(
                written && !flushed,
                "mode 2 writes to the OS without syncing"
            ),
        }
        log.background_flush()?;
        assert!(
            log.flushed_lsn() >= e,
            "the background flush makes it durable"
        );
    }
    Ok(())
}

#[test]
fn failed_sync_disables_writes() -> Result<()> {
    let vfs = SimVfs::new();
    let log = new_log(&vfs, 1 << 20, 256 << 10)?;
    vfs.set_fault(Some(crate::io::SimFault::FailSync {
        path_contains: "ib_logfile".into(),
    }));
    let (s, e) = log.append(b"x")?;
    log.close(s, e);
    assert!(log.flush_up_to(e).is_err());
    vfs.set_fault(None);
    assert!(matches!(
        log.flush_up_to(e),
        Err(EngineError::WritesDisabled { .. })
    ));
    assert!(log.check_writable().is_err());
    Ok(())
}
