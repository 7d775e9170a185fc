//! Tests of [`DurableWait`](super::DurableWait) and the
//! [`CommitFlusher`](super::CommitFlusher): the flusher serving waits on
//! shared workers, group commit led by the waits themselves (who syncs, who
//! is woken, how many syncs), and the lead passed on when a wait is dropped.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use super::durable::{CommitFlusher, DurableWait};
use super::file::FIRST_LSN;
use super::{LogFile, RedoLog};
use crate::io::{blocking, SimVfs};

struct Count(AtomicUsize);
impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A wait polled on a thread with a blocking hook (a shared worker) does
/// not sync itself: it sleeps until the flusher thread did. Without a
/// flusher, it syncs itself.
#[test]
fn a_wait_on_a_shared_worker_ends_once_the_flusher_synced_its_lsn() -> crate::error::Result<()> {
    let old_hook = blocking::set_thread_hook(Some(run_inline));
    let r = flusher_serves_hooked_waits();
    blocking::set_thread_hook(old_hook);
    r
}

fn run_inline(f: &mut dyn FnMut()) {
    f();
}

fn flusher_serves_hooked_waits() -> crate::error::Result<()> {
    let (_vfs, log) = bare_log()?;
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let flusher = CommitFlusher::start(log.clone())
        .map_err(|e| crate::error::EngineError::io("spawn", Path::new("/d"), e))?;
    let target = commit(&log, b"on a shared worker")?;
    let syncs = log.stats().syncs.load(Ordering::SeqCst);
    let mut wait = std::pin::pin!(log.durable(target));
    assert!(wait.as_mut().poll(&mut cx).is_pending());
    let mut spins = 0;
    loop {
        match wait.as_mut().poll(&mut cx) {
            Poll::Ready(r) => {
                r?;
                break;
            }
            Poll::Pending => {
                spins += 1;
                assert!(spins < 10_000, "the flusher never made the log durable");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }
    assert!(log.flushed_lsn() >= target);
    assert!(
        count.0.load(Ordering::SeqCst) >= 1,
        "the flusher woke the wait"
    );
    assert!(log.stats().syncs.load(Ordering::SeqCst) > syncs);
    flusher.stop();
    // Without a flusher a wait syncs the log itself.
    let more = commit(&log, b"no flusher")?;
    let mut wait = std::pin::pin!(log.durable(more));
    assert!(matches!(wait.as_mut().poll(&mut cx), Poll::Ready(Ok(()))));
    assert!(log.flushed_lsn() >= more);
    Ok(())
}

/// A bare log on a simulated disk, and the disk.
fn bare_log() -> crate::error::Result<(Arc<SimVfs>, Arc<RedoLog>)> {
    let vfs = Arc::new(SimVfs::new());
    let file = LogFile::create(&*vfs, Path::new("/ib_logfile0"), 8 << 20, false)?;
    let cp = file.read_checkpoint()?;
    let log = RedoLog::new(file, FIRST_LSN, cp, 2, 1 << 20, 1);
    log.write_checkpoint(FIRST_LSN)?;
    Ok((vfs, Arc::new(log)))
}

/// Appends a commit's block; returns its end LSN.
fn commit(log: &RedoLog, body: &[u8]) -> crate::error::Result<u64> {
    let (s, e) = log.append(body)?;
    log.close(s, e);
    Ok(e)
}

/// A wait with its own wake counter.
struct Polled {
    wait: Pin<Box<DurableWait>>,
    woken: Arc<Count>,
    waker: Waker,
}

impl Polled {
    fn new(log: &Arc<RedoLog>, lsn: u64) -> Polled {
        let woken = Arc::new(Count(AtomicUsize::new(0)));
        Polled {
            wait: Box::pin(log.durable(lsn)),
            waker: Waker::from(woken.clone()),
            woken,
        }
    }

    fn poll(&mut self) -> Poll<crate::error::Result<()>> {
        let mut cx = Context::from_waker(&self.waker);
        self.wait.as_mut().poll(&mut cx)
    }

    fn woken(&self) -> usize {
        self.woken.0.load(Ordering::SeqCst)
    }
}

/// Starts a commit on another thread whose wait leads, and returns once it
/// is inside its (held) sync.
fn leader_in_sync(
    vfs: &Arc<SimVfs>,
    log: &Arc<RedoLog>,
) -> std::thread::JoinHandle<crate::error::Result<()>> {
    vfs.hold_syncs("ib_logfile");
    let leader = {
        let log = log.clone();
        std::thread::spawn(move || -> crate::error::Result<()> {
            let lsn = commit(&log, b"leader")?;
            let mut w = Polled::new(&log, lsn);
            match w.poll() {
                Poll::Ready(r) => r,
                Poll::Pending => Err(crate::error::EngineError::Internal(
                    "the first wait did not lead".into(),
                )),
            }
        })
    };
    assert!(
        vfs.wait_for_held_syncs(1, Duration::from_secs(60)),
        "the leading wait never synced"
    );
    leader
}

fn join(h: std::thread::JoinHandle<crate::error::Result<()>>) -> crate::error::Result<()> {
    h.join()
        .map_err(|_| crate::error::EngineError::Internal("leader thread panicked".into()))?
}

/// Group commit led by the waits (the flusher thread running, but the waits
/// on threads without a hook): the first wait syncs on its own thread, the
/// three that come during its sync sleep; then the one with the highest LSN
/// is handed the lead and syncs once for all three. Four commits, two
/// syncs, and the flusher thread synced nothing.
#[test]
fn waits_lead_the_group_commit_and_hand_the_lead_on() -> crate::error::Result<()> {
    let (vfs, log) = bare_log()?;
    let flusher = CommitFlusher::start(log.clone())
        .map_err(|e| crate::error::EngineError::io("spawn", Path::new("/d"), e))?;
    let syncs = log.stats().syncs.load(Ordering::SeqCst);
    let leader = leader_in_sync(&vfs, &log);
    let mut followers = Vec::new();
    for i in 0..3u8 {
        let lsn = commit(&log, &[i; 100])?;
        let mut w = Polled::new(&log, lsn);
        assert!(w.poll().is_pending(), "a wait during a sync sleeps");
        followers.push(w);
    }
    vfs.release_syncs();
    join(leader)?;
    // The leader's sync did not cover the followers (they were copied in
    // after its write): only the last one, with the highest LSN, is woken,
    // to lead.
    let woken: Vec<usize> = followers.iter().map(Polled::woken).collect();
    assert_eq!(woken, vec![0, 0, 1]);
    assert_eq!(log.stats().syncs.load(Ordering::SeqCst), syncs + 1);
    let mut last = followers
        .pop()
        .ok_or_else(|| crate::error::EngineError::Internal("no follower".into()))?;
    assert!(matches!(last.poll(), Poll::Ready(Ok(()))));
    assert_eq!(log.stats().syncs.load(Ordering::SeqCst), syncs + 2);
    // Its sync covered the others: woken, and done without a sync.
    for w in &mut followers {
        assert_eq!(w.woken(), 1);
        assert!(matches!(w.poll(), Poll::Ready(Ok(()))));
    }
    assert_eq!(log.stats().syncs.load(Ordering::SeqCst), syncs + 2);
    flusher.stop();
    Ok(())
}

/// A wait handed the lead and then dropped (its connection went away)
/// passes the lead to the next waiting one, which then syncs for itself.
#[test]
fn a_dropped_wait_passes_the_lead_on() -> crate::error::Result<()> {
    let (vfs, log) = bare_log()?;
    let leader = leader_in_sync(&vfs, &log);
    let first_lsn = commit(&log, b"first")?;
    let mut first = Polled::new(&log, first_lsn);
    let second_lsn = commit(&log, b"second")?;
    let mut second = Polled::new(&log, second_lsn);
    assert!(first.poll().is_pending());
    assert!(second.poll().is_pending());
    vfs.release_syncs();
    join(leader)?;
    assert_eq!((first.woken(), second.woken()), (0, 1));
    drop(second);
    assert_eq!(first.woken(), 1, "the lead went to the remaining wait");
    assert!(matches!(first.poll(), Poll::Ready(Ok(()))));
    assert!(log.flushed_lsn() >= first_lsn);
    Ok(())
}
