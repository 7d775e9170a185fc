//! Background threads of the buffer pool: the page cleaner and read-ahead.
//!
//! The page cleaner wakes every second (every 10 ms under pressure) and
//! - writes and syncs the redo log (`innodb_flush_log_at_trx_commit` 0 and 2);
//! - keeps some frames free by evicting clean pages from the LRU tail and writing
//!   dirty ones there;
//! - flushes the oldest dirty pages: `innodb_io_capacity` pages a second normally,
//!   `innodb_io_capacity_max` when the dirty share exceeds
//!   `innodb_max_dirty_pages_pct` or the checkpoint age exceeds half the log;
//! - writes a checkpoint.
//!
//! The read-ahead thread reads whole extents that linear read-ahead asked for.
//! The commit flusher (`wal::durable`) makes commits durable for waits that
//! do not hold a thread.

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::pool::BufferPool;
use crate::page::PageId;
use crate::wal::CommitFlusher;

/// Handles of the background threads; [`BackgroundThreads::stop`] joins them.
pub struct BackgroundThreads {
    stop: Arc<AtomicBool>,
    wake: Arc<(Mutex<bool>, Condvar)>,
    handles: Vec<JoinHandle<()>>,
    flusher: Option<CommitFlusher>,
}

impl std::fmt::Debug for BackgroundThreads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BackgroundThreads({})", self.handles.len())
    }
}

impl BackgroundThreads {
    /// Starts the page cleaner and the read-ahead thread for `pool`.
    pub fn start(pool: Arc<BufferPool>) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let wake = Arc::new((Mutex::new(false), Condvar::new()));
        let (tx, rx) = sync_channel::<PageId>(64);
        *pool.read_ahead_tx.lock() = Some(tx);
        let mut handles = Vec::new();
        let flusher = Some(CommitFlusher::start(pool.log().clone())?);
        {
            let (pool, stop, wake) = (pool.clone(), stop.clone(), wake.clone());
            handles.push(
                std::thread::Builder::new()
                    .name("larch-page-cleaner".into())
                    .spawn(move || page_cleaner(&pool, &stop, &wake))?,
            );
        }
        {
            let stop = stop.clone();
            handles.push(
                std::thread::Builder::new()
                    .name("larch-read-ahead".into())
                    .spawn(move || read_ahead(&pool, &stop, rx))?,
            );
        }
        Ok(Self {
            stop,
            wake,
            handles,
            flusher,
        })
    }

    /// Asks the page cleaner to run now.
    pub fn wake(&self) {
        let (m, cv) = &*self.wake;
        *m.lock() = true;
        cv.notify_all();
    }

    /// Stops and joins the threads.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(f) = self.flusher.take() {
            f.stop();
        }
        self.stop.store(true, SeqCst);
        self.wake();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for BackgroundThreads {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn page_cleaner(pool: &BufferPool, stop: &AtomicBool, wake: &(Mutex<bool>, Condvar)) {
    let cfg = pool.config.clone();
    let frames = pool.capacity();
    let free_target = (frames / 32).clamp(4, 1024);
    let mut last_log_flush = Instant::now();
    while !stop.load(SeqCst) {
        let log = pool.log();
        let cap = log.capacity();
        let age = log.checkpoint_age();
        let dirty = pool.dirty_pages();
        let dirty_pct = dirty as f64 * 100.0 / frames as f64;
        let pressure = age > cap / 2 || dirty_pct > cfg.max_dirty_pages_pct;
        if last_log_flush.elapsed() >= Duration::from_secs(1) {
            if let Err(e) = log.background_flush() {
                tracing::error!(error = %e, "background redo flush failed");
            }
            last_log_flush = Instant::now();
        }
        let r = pool.lru_maintenance(free_target).and_then(|_| {
            let per_round = if pressure {
                cfg.io_capacity_max as usize / 100 + 1
            } else {
                cfg.io_capacity as usize
            };
            pool.flush_list_batch(per_round, None)?;
            pool.checkpoint()
        });
        if let Err(e) = r {
            tracing::error!(error = %e, "page cleaner failed");
        }
        let (m, cv) = wake;
        let mut woken = m.lock();
        if !*woken && !stop.load(SeqCst) {
            let pause = if pressure {
                Duration::from_millis(10)
            } else {
                Duration::from_millis(1000)
            };
            cv.wait_for(&mut woken, pause);
        }
        *woken = false;
    }
}

fn read_ahead(pool: &BufferPool, stop: &AtomicBool, rx: Receiver<PageId>) {
    while !stop.load(SeqCst) {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(first) => pool.read_ahead_extent(first),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
