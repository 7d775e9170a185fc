//! One thread per connection: [`ConnectionThreads`] runs each accepted
//! connection on an OS thread of its own (the listener serves it there with
//! blocking socket calls, [`crate::blocking`]), and keeps up to a number of finished
//! threads waiting for the next connection (MariaDB's
//! `thread_handling=one-thread-per-connection` with `thread_cache_size`).
//!
//! Why: a client waiting for its answer and the thread serving it then
//! hand the CPU to each other. The kernel wakes the connection's own thread
//! when a packet arrives and the client's thread when the answer goes out,
//! each a "sync" wake-up that usually stays on the waking CPU. A pool of
//! worker threads shared by all connections (the other mode, a
//! multi-threaded runtime) turns the same exchanges into wake-ups of
//! whichever worker waits on the I/O driver, often on the other CPU, and
//! clients preempted by workers that keep running: measured on 2 CPUs with
//! sysbench `oltp_point_select` at 16 client threads, the server spent
//! about 19 µs of CPU per query and the client 14-18 µs with the pool,
//! 10.5 µs and 5 µs with a thread per connection, and the throughput went
//! from about 55,000 to about 129,000 queries/s.
//!
//! Invariants:
//! - a connection's statements, waits (row locks, metadata locks, `SLEEP`,
//!   commits) and I/O all happen on its own thread, so a waiting statement
//!   never holds up another connection and nothing needs `block_in_place`;
//! - a thread keeps nothing of a connection for the next one (no runtime,
//!   no file descriptor);
//! - at most `cache` threads wait for work; a thread that finishes a
//!   connection beyond that ends;
//! - if a thread cannot be started (a resource limit), the connection is
//!   served as a task of the caller's runtime instead.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Stack size of a connection thread. Statements are bounded to what fits
/// (the SQL layer's `parse::depth` and `stack` guard fail deeper ones with
/// 1436); only the pages a statement touches are ever used.
const STACK_SIZE: usize = 8 << 20;

/// Work for a connection thread: serve one connection to its end.
pub type ConnectionJob = Box<dyn FnOnce() + Send + 'static>;

/// The threads serving connections, one each, and the idle ones cached for
/// the next connections. See the module documentation.
#[derive(Debug)]
pub struct ConnectionThreads {
    name: String,
    cache: AtomicUsize,
    /// Threads started so far (`Threads_created`).
    created: AtomicU64,
    state: Mutex<Queue>,
    ready: Condvar,
}

#[derive(Default)]
struct Queue {
    /// Jobs handed to idle threads, not taken yet.
    jobs: VecDeque<ConnectionJob>,
    /// Idle threads without a job promised to them.
    idle: usize,
    /// Threads that exist (busy or idle).
    threads: usize,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("jobs", &self.jobs.len())
            .field("idle", &self.idle)
            .field("threads", &self.threads)
            .finish()
    }
}

impl ConnectionThreads {
    /// Threads named `name`, keeping up to `cache` idle ones.
    pub fn new(name: &str, cache: usize) -> Arc<ConnectionThreads> {
        Arc::new(ConnectionThreads {
            name: name.to_owned(),
            cache: AtomicUsize::new(cache),
            created: AtomicU64::new(0),
            state: Mutex::new(Queue::default()),
            ready: Condvar::new(),
        })
    }

    /// How many idle threads are kept (`thread_cache_size`); a smaller
    /// value takes effect as threads finish their connections.
    pub fn set_cache_size(&self, cache: usize) {
        self.cache.store(cache, Ordering::Relaxed);
        // Idle threads beyond the new size end.
        self.ready.notify_all();
    }

    /// Threads started since the start (`Threads_created`: a connection
    /// served by a cached thread does not count).
    pub fn created(&self) -> u64 {
        self.created.load(Ordering::Relaxed)
    }

    /// Threads that exist, busy or idle.
    pub fn threads(&self) -> usize {
        self.lock().threads
    }

    /// Idle threads waiting for a connection.
    pub fn idle(&self) -> usize {
        let q = self.lock();
        q.idle
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on an idle thread, or on a new one. Gives the job back
    /// when no thread can be started.
    pub fn run(self: &Arc<Self>, job: ConnectionJob) -> Result<(), ConnectionJob> {
        {
            let mut q = self.lock();
            if q.idle > 0 {
                q.idle -= 1;
                q.jobs.push_back(job);
                drop(q);
                self.ready.notify_one();
                return Ok(());
            }
            q.threads += 1;
        }
        let threads = self.clone();
        // The job goes to the new thread through this slot, so it can be
        // taken back if the thread does not start.
        let slot = Arc::new(Mutex::new(Some(job)));
        let for_thread = slot.clone();
        let spawned = std::thread::Builder::new()
            .name(self.name.clone())
            .stack_size(STACK_SIZE)
            .spawn(move || {
                let first = for_thread.lock().unwrap_or_else(|e| e.into_inner()).take();
                drop(for_thread);
                threads.work(first);
            });
        match spawned {
            Ok(_) => {
                self.created.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot start a connection thread");
                self.lock().threads -= 1;
                let job = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                match job {
                    Some(job) => Err(job),
                    None => Ok(()),
                }
            }
        }
    }

    /// A connection thread: runs its first job, then waits for more while
    /// the cache has room.
    fn work(&self, first: Option<ConnectionJob>) {
        let mut next = first;
        loop {
            if let Some(job) = next.take() {
                // A panic ends the job, not the thread's bookkeeping.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
            let mut q = self.lock();
            if q.idle >= self.cache.load(Ordering::Relaxed) {
                q.threads -= 1;
                return;
            }
            q.idle += 1;
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    next = Some(job);
                    break;
                }
                // Beyond a cache made smaller: end, unless a job was
                // promised to this thread (then `jobs` is not empty).
                if q.idle > self.cache.load(Ordering::Relaxed) {
                    q.idle -= 1;
                    q.threads -= 1;
                    return;
                }
                q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !f() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn jobs_run_on_threads_that_are_then_reused() {
        let threads = ConnectionThreads::new("test-conn", 2);
        let (tx, rx) = mpsc::channel();
        // Three jobs that wait for each other run on three threads.
        let gate = Arc::new(std::sync::Barrier::new(3));
        for i in 0..3 {
            let (tx, gate) = (tx.clone(), gate.clone());
            let job: ConnectionJob = Box::new(move || {
                gate.wait();
                let _ = tx.send((i, std::thread::current().id()));
            });
            assert!(threads.run(job).is_ok());
        }
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(rx.recv_timeout(Duration::from_secs(10)).map(|(_, id)| id));
        }
        // Two stay cached, the third ends.
        wait_until("two idle threads", || {
            threads.idle() == 2 && threads.threads() == 2
        });
        // The next jobs reuse the cached threads: no new thread.
        for _ in 0..2 {
            let tx = tx.clone();
            let job: ConnectionJob = Box::new(move || {
                let _ = tx.send((9, std::thread::current().id()));
            });
            assert!(threads.run(job).is_ok());
        }
        for _ in 0..2 {
            let got = rx.recv_timeout(Duration::from_secs(10)).map(|(_, id)| id);
            assert!(got.is_ok() && ids.contains(&got), "a cached thread ran it");
        }
        wait_until("the threads idle again", || threads.idle() == 2);
        assert_eq!(threads.threads(), 2);
        assert_eq!(threads.created(), 3);
    }

    #[test]
    fn a_smaller_cache_ends_idle_threads_and_zero_keeps_none() {
        let threads = ConnectionThreads::new("test-conn", 4);
        let (tx, rx) = mpsc::channel();
        // Four jobs that wait for each other, so four threads exist.
        let gate = Arc::new(std::sync::Barrier::new(4));
        for _ in 0..4 {
            let (tx, gate) = (tx.clone(), gate.clone());
            assert!(threads
                .run(Box::new(move || {
                    gate.wait();
                    let _ = tx.send(());
                }))
                .is_ok());
        }
        for _ in 0..4 {
            assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        }
        wait_until("four idle threads", || threads.idle() == 4);
        threads.set_cache_size(1);
        wait_until("one idle thread", || {
            threads.idle() == 1 && threads.threads() == 1
        });
        threads.set_cache_size(0);
        wait_until("no thread", || threads.threads() == 0);
        // With no cache every job still runs, on a thread that then ends.
        let tx2 = tx.clone();
        assert!(threads
            .run(Box::new(move || {
                let _ = tx2.send(());
            }))
            .is_ok());
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        wait_until("no thread again", || threads.threads() == 0);
    }

    #[test]
    fn a_panicking_job_does_not_lose_its_thread() {
        let threads = ConnectionThreads::new("test-conn", 1);
        assert!(threads
            .run(Box::new(|| panic!(
                "a job panicked (expected in this test)"
            )))
            .is_ok());
        wait_until("the thread idle", || threads.idle() == 1);
        let (tx, rx) = mpsc::channel();
        assert!(threads
            .run(Box::new(move || {
                let _ = tx.send(());
            }))
            .is_ok());
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
    }
}
