//! Waiting for a commit to be durable as a future: [`DurableWait`], the
//! group commit it takes part in, and the [`CommitFlusher`] thread.
//!
//! A commit returns once its log records are in the log buffer (its locks
//! are released then, as InnoDB releases them before the log flush); the
//! connection awaits [`RedoLog::durable`] before it answers the client.
//!
//! Group commit, as InnoDB's: the first wait that finds no sync under way
//! becomes the leader and syncs the log on its own thread
//! ([`RedoLog::flush_up_to`]: everything in the log buffer, so every commit
//! copied in by then shares the sync); waits that come while it syncs
//! register and sleep. When the leader is done it wakes the waits its sync
//! covered and hands the lead to the waiting one with the highest LSN (it
//! syncs again at once, for all the commits that came during the first
//! sync). No other thread is involved, so a commit costs no wake-up of a
//! helper thread and the leader none at all.
//!
//! Who may lead: a wait polled on a thread without a blocking hook
//! ([`crate::io::blocking`]): a connection's own thread, or embedded use.
//! Such a thread waits for nothing else meanwhile. A wait polled on the
//! worker of a shared runtime (a thread with a hook) should not park that
//! worker for a sync: it registers instead, and the [`CommitFlusher`] thread
//! syncs for it (sleeping until a wait asks for an LSN beyond `flushed_lsn`,
//! then syncing up to the highest LSN asked for) and wakes it. Without a
//! running flusher (before the background threads start, or after they stop)
//! every wait may lead, so a wait always ends. A log that failed wakes every
//! wait with the failure.
//!
//! Invariants: at most one wait leads at a time (`Lead::Syncing`), or one
//! waiting wait has been handed the lead and not yet taken it
//! (`Lead::Handed`); while any registered wait may lead and is not covered,
//! the lead is held or handed, so no wait sleeps with nobody to sync for it
//! (a handed wait that is dropped passes the lead on).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::{Condvar, Mutex};

use super::RedoLog;
use crate::error::Result;
use crate::io::blocking;

/// The pending waits of a log (a field of [`RedoLog`]).
#[derive(Debug, Default)]
pub(crate) struct CommitWaits {
    state: Mutex<WaitState>,
    wake_flusher: Condvar,
}

/// Who syncs for the waits that may lead (see the module documentation).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// Nobody: the next wait that may lead takes the lead.
    #[default]
    Free,
    /// A wait is syncing the log on its thread.
    Syncing,
    /// The wait with this id was woken to take the lead.
    Handed(u64),
}

#[derive(Debug)]
struct Waiter {
    lsn: u64,
    id: u64,
    /// The wait may lead (else the flusher thread syncs for it).
    may_lead: bool,
    waker: Waker,
}

#[derive(Debug, Default)]
struct WaitState {
    /// Highest LSN a wait served by the flusher thread asked for.
    target: u64,
    /// Tasks to wake once the log is durable up to their LSN.
    waiters: Vec<Waiter>,
    lead: Lead,
    /// Last id given to a registered wait.
    last_id: u64,
    /// A flusher thread is serving the waits.
    flusher_running: bool,
    /// The flusher is asked to stop.
    stop: bool,
}

impl WaitState {
    /// Takes the wakers of the waits the log covers (all when it failed),
    /// and, with the lead free, hands it to the waiting wait that may lead
    /// with the highest LSN (its waker is among those returned).
    fn release(&mut self, flushed: u64, failed: bool) -> Vec<Waker> {
        let mut wake = Vec::new();
        self.waiters.retain(|w| {
            if failed || w.lsn <= flushed {
                wake.push(w.waker.clone());
                false
            } else {
                true
            }
        });
        if self.lead == Lead::Free {
            if let Some(next) = self
                .waiters
                .iter()
                .filter(|w| w.may_lead)
                .max_by_key(|w| w.lsn)
            {
                self.lead = Lead::Handed(next.id);
                wake.push(next.waker.clone());
            }
        }
        wake
    }
}

/// Resolves once every log record below `lsn` is durable (see the module
/// documentation); an error when the log failed.
#[derive(Debug)]
pub struct DurableWait {
    log: Arc<RedoLog>,
    lsn: u64,
    /// Id of this wait once registered (0: never registered).
    id: u64,
}

impl RedoLog {
    /// A future that resolves when the log is durable up to `lsn`.
    pub fn durable(self: &Arc<Self>, lsn: u64) -> DurableWait {
        DurableWait {
            log: self.clone(),
            lsn,
            id: 0,
        }
    }
}

impl Future for DurableWait {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = self.get_mut();
        let log = this.log.clone();
        let lsn = this.lsn;
        if this.id == 0 && log.flushed_lsn() >= lsn {
            return Poll::Ready(Ok(()));
        }
        log.check_writable()?;
        let waits = &log.commit_waits;
        let mut st = waits.state.lock();
        let id = this.id;
        if id != 0 {
            st.waiters.retain(|w| w.id != id);
            if st.lead == Lead::Handed(id) {
                st.lead = Lead::Free;
            }
        }
        // Checked again under the lock: wakers are taken under it.
        if log.flushed_lsn() >= lsn {
            // Done; a lead handed to this wait goes to the next one.
            let wake = st.release(log.flushed_lsn(), false);
            this.id = 0;
            drop(st);
            wake_all(wake);
            return Poll::Ready(Ok(()));
        }
        let may_lead = !st.flusher_running || !blocking::thread_has_hook();
        if may_lead && st.lead == Lead::Free {
            st.lead = Lead::Syncing;
            drop(st);
            this.id = 0;
            let r = blocking::blocking(|| log.flush_up_to(lsn));
            let mut st = waits.state.lock();
            st.lead = Lead::Free;
            let failed = log.check_writable().is_err();
            let wake = st.release(log.flushed_lsn(), failed);
            drop(st);
            wake_all(wake);
            return Poll::Ready(r);
        }
        if this.id == 0 {
            st.last_id += 1;
            this.id = st.last_id;
        }
        st.waiters.push(Waiter {
            lsn,
            id: this.id,
            may_lead,
            waker: cx.waker().clone(),
        });
        if !may_lead && lsn > st.target {
            st.target = lsn;
            waits.wake_flusher.notify_one();
        }
        Poll::Pending
    }
}

impl Drop for DurableWait {
    fn drop(&mut self) {
        if self.id == 0 {
            return;
        }
        let id = self.id;
        let log = &self.log;
        let mut st = log.commit_waits.state.lock();
        st.waiters.retain(|w| w.id != id);
        if st.lead == Lead::Handed(id) {
            st.lead = Lead::Free;
            let failed = log.check_writable().is_err();
            let wake = st.release(log.flushed_lsn(), failed);
            drop(st);
            wake_all(wake);
        }
    }
}

fn wake_all(wakers: Vec<Waker>) {
    for w in wakers {
        w.wake();
    }
}

/// The thread that serves the [`DurableWait`]s that may not lead (started
/// with the other background threads).
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
            st.waiters.drain(..).map(|w| w.waker).collect::<Vec<_>>()
        };
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        wake_all(wakers);
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
        let ready = st.release(flushed, failed);
        if !ready.is_empty() {
            drop(st);
            wake_all(ready);
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
