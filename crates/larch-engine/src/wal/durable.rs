//! Waiting for a commit to be durable without holding a thread: the
//! [`CommitFlusher`] thread and the [`DurableWait`] future.
//!
//! A server that runs statements on the worker threads of an async runtime
//! should not park a worker while the log is synced for a commit (that
//! means handing the worker's other connections to another thread for every
//! commit). Instead the statement returns once its commit is in the log
//! buffer (its locks are released then, as InnoDB releases them before the
//! log flush); the connection awaits [`RedoLog::durable`] before it answers
//! the client, and its worker serves other connections meanwhile.
//!
//! One flusher thread makes every requested LSN durable: it sleeps until a
//! wait asks for an LSN beyond `flushed_lsn`, then writes and syncs the log
//! up to the highest LSN asked for (`RedoLog::flush_up_to`, so the waits of
//! every commit since the last sync share one sync: group commit), and
//! wakes the waits it covered. A log that failed wakes every wait with the
//! failure.
//!
//! Without a running flusher (embedded use before the background threads
//! start, or after they stop) a wait syncs the log itself, on the polling
//! thread, so a wait always ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::{Condvar, Mutex};

use super::RedoLog;
use crate::error::Result;

/// The pending waits of a log (a field of [`RedoLog`]).
#[derive(Debug, Default)]
pub(crate) struct CommitWaits {
    state: Mutex<WaitState>,
    wake_flusher: Condvar,
}

#[derive(Debug, Default)]
struct WaitState {
    /// Highest LSN a wait asked for.
    target: u64,
    /// Tasks to wake once the log is durable up to their LSN.
    wakers: Vec<(u64, Waker)>,
    /// A flusher thread is serving the waits.
    flusher_running: bool,
    /// The flusher is asked to stop.
    stop: bool,
}

/// Resolves once every log record below `lsn` is durable (see the module
/// documentation); an error when the log failed.
#[derive(Debug)]
pub struct DurableWait {
    log: Arc<RedoLog>,
    lsn: u64,
}

impl RedoLog {
    /// A future that resolves when the log is durable up to `lsn`.
    pub fn durable(self: &Arc<Self>, lsn: u64) -> DurableWait {
        DurableWait {
            log: self.clone(),
            lsn,
        }
    }
}

impl Future for DurableWait {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let log = &self.log;
        let lsn = self.lsn;
        if log.flushed_lsn() >= lsn {
            return Poll::Ready(Ok(()));
        }
        log.check_writable()?;
        let waits = &log.commit_waits;
        let mut st = waits.state.lock();
        if !st.flusher_running {
            drop(st);
            return Poll::Ready(log.flush_up_to(lsn));
        }
        // Checked again under the lock: the flusher wakes under it.
        if log.flushed_lsn() >= lsn {
            return Poll::Ready(Ok(()));
        }
        match st
            .wakers
            .iter_mut()
            .find(|(l, w)| *l == lsn && w.will_wake(cx.waker()))
        {
            Some(_) => {}
            None => st.wakers.push((lsn, cx.waker().clone())),
        }
        if lsn > st.target {
            st.target = lsn;
            waits.wake_flusher.notify_one();
        }
        Poll::Pending
    }
}

/// The thread that serves [`DurableWait`]s (started with the other
/// background threads).
#[derive(Debug)]
pub struct CommitFlusher {
    log: Arc<RedoLog>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl CommitFlusher {
    /// Starts the flusher of `log`.
    pub fn start(log: Arc<RedoLog>) -> std::io::Result<CommitFlusher> {
        {
            let mut st = log.commit_waits.state.lock();
            st.flusher_running = true;
            st.stop = false;
        }
        let for_thread = log.clone();
        let handle = std::thread::Builder::new()
            .name("larch-log-flusher".into())
            .spawn(move || run(&for_thread));
        match handle {
            Ok(h) => Ok(CommitFlusher {
                log,
                handle: Some(h),
            }),
            Err(e) => {
                log.commit_waits.state.lock().flusher_running = false;
                Err(e)
            }
        }
    }

    /// Stops the thread; waits still pending are woken and finish by
    /// syncing the log themselves.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let waits = &self.log.commit_waits;
        let wakers = {
            let mut st = waits.state.lock();
            st.stop = true;
            st.flusher_running = false;
            waits.wake_flusher.notify_all();
            std::mem::take(&mut st.wakers)
        };
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        for (_, w) in wakers {
            w.wake();
        }
    }
}

impl Drop for CommitFlusher {
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.shutdown();
        }
    }
}

fn run(log: &RedoLog) {
    let waits = &log.commit_waits;
    let mut st = waits.state.lock();
    loop {
        if st.stop {
            return;
        }
        // Wake every wait the log already covers, whoever synced it (this
        // thread, or another flush such as the page cleaner's).
        let flushed = log.flushed_lsn();
        let failed = log.check_writable().is_err();
        let mut ready = Vec::new();
        st.wakers.retain(|(lsn, w)| {
            if failed || *lsn <= flushed {
                ready.push(w.clone());
                false
            } else {
                true
            }
        });
        if !ready.is_empty() {
            drop(st);
            for w in ready {
                w.wake();
            }
            st = waits.state.lock();
            continue;
        }
        if !failed && st.target > flushed {
            let target = st.target;
            drop(st);
            if let Err(e) = log.flush_up_to(target) {
                tracing::error!(error = %e, "commit flush failed");
            }
            st = waits.state.lock();
            continue;
        }
        // A wait that raises the target notifies; the timeout only bounds
        // the damage of a missed notification.
        waits
            .wake_flusher
            .wait_for(&mut st, std::time::Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    use super::CommitFlusher;
    use crate::config::EngineConfig;
    use crate::io::{SimVfs, Vfs};
    use crate::storage::Storage;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn storage() -> crate::error::Result<Storage> {
        let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
        let mut c = EngineConfig::new("/d");
        c.log_file_size = 8 << 20;
        c.undo_tablespaces = 0;
        Storage::open_or_create(c, vfs)
    }

    /// Writes redo (a new tablespace) so the log has something to sync;
    /// returns the log's end.
    fn append(s: &Storage, name: &str) -> crate::error::Result<u64> {
        s.create_tablespace(name)?;
        Ok(s.log().current_lsn())
    }

    #[test]
    fn a_wait_ends_once_the_flusher_synced_its_lsn() -> crate::error::Result<()> {
        let s = storage()?;
        let log = s.pool().log().clone();
        append(&s, "db/t1.ibd")?;
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let flusher = CommitFlusher::start(log.clone())
            .map_err(|e| crate::error::EngineError::io("spawn", std::path::Path::new("/d"), e))?;
        let target = log.current_lsn();
        let mut wait = std::pin::pin!(log.durable(target));
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
        flusher.stop();
        // Without a flusher a wait syncs the log itself.
        let more = append(&s, "db/t2.ibd")?;
        let mut wait = std::pin::pin!(log.durable(more));
        assert!(matches!(wait.as_mut().poll(&mut cx), Poll::Ready(Ok(()))));
        Ok(())
    }
}
