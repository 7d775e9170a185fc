//! The engine-wide full-text service: the cache budget, the start-up
//! settings, and the background task that syncs caches to the word tables.
//!
//! Owns [`FulltextService`]. Every open [`FulltextIndex`] is known to it by
//! its cache's id, so the sync task can turn a [`SyncJob`] handed out by the
//! [`CacheBudget`] into writes: the frozen batch goes to the index's word
//! tables in the task's own transaction ([`FulltextIndex::write_batch`]),
//! which commits, and only then does the budget drop the frozen part. A
//! failed write is rolled back and retried with the same batch after a
//! pause, so the cache never loses a document; at shutdown the task stops
//! and whatever was not synced is re-read at the next start
//! ([`super::table_fulltext`]).
//!
//! Writers never run a sync (see [`super::sync`]): only this task, or an
//! explicit [`FulltextService::sync_now`] (OPTIMIZE, tests), does.
//!
//! The sync commit is not flushed on its own: if a crash loses it, it also
//! loses the synced doc id it raised, and the documents come back from the
//! table at the next start.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use crate::error::{EngineError, Result};
use crate::fts::index::FulltextIndex;
use crate::fts::sync::{CacheBudget, SyncJob, SyncPolicy};
use crate::fts::table_fulltext::FulltextSettings;
use crate::table::{TransactionServices, TxnContext};
use crate::txn::{IsolationLevel, Session, TrxOptions};

/// Pause before retrying a failed sync.
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// See the module doc.
#[derive(Debug)]
pub struct FulltextService {
    budget: Arc<CacheBudget>,
    settings: FulltextSettings,
    /// Open indexes by cache id.
    indexes: Mutex<HashMap<u64, Weak<FulltextIndex>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl FulltextService {
    /// A service with `policy`'s cache limits and `settings`; no task runs
    /// until [`FulltextService::start`].
    pub fn new(policy: SyncPolicy, settings: FulltextSettings) -> Arc<FulltextService> {
        Arc::new(FulltextService {
            budget: Arc::new(CacheBudget::new(policy)),
            settings,
            indexes: Mutex::new(HashMap::new()),
            worker: Mutex::new(None),
        })
    }

    /// The cache budget every index registers with.
    pub fn budget(&self) -> &Arc<CacheBudget> {
        &self.budget
    }

    /// The start-up settings.
    pub fn settings(&self) -> &FulltextSettings {
        &self.settings
    }

    /// Makes `index` known to the sync task.
    pub fn register(&self, index: &Arc<FulltextIndex>) {
        let mut m = self.indexes.lock();
        m.retain(|_, w| w.strong_count() > 0);
        m.insert(index.cache().id(), Arc::downgrade(index));
    }

    fn index_of(&self, job: &SyncJob) -> Option<Arc<FulltextIndex>> {
        self.indexes
            .lock()
            .get(&job.cache().id())
            .and_then(Weak::upgrade)
    }

    /// Starts the sync task.
    pub fn start(self: &Arc<Self>, services: Arc<TransactionServices>) -> Result<()> {
        let mut session = services.system.register_session()?;
        let me = Arc::downgrade(self);
        let budget = self.budget.clone();
        let handle = std::thread::Builder::new()
            .name("larch-fts-sync".into())
            .spawn(move || {
                while let Some(job) = budget.next_cache_to_sync() {
                    let Some(service) = me.upgrade() else {
                        let _ = budget.finished_sync(job);
                        break;
                    };
                    if let Err(e) = service.run_job(&services, &mut session, job) {
                        tracing::error!(error = %e, "full-text sync failed");
                    }
                }
            })
            .map_err(|e| {
                EngineError::Internal(format!("cannot start the full-text sync task: {e}"))
            })?;
        *self.worker.lock() = Some(handle);
        Ok(())
    }

    /// Stops the sync task (documents not synced are re-read at the next
    /// start) and releases waiting writers.
    pub fn shutdown(&self) {
        self.budget.shutdown();
        if let Some(h) = self.worker.lock().take() {
            if h.join().is_err() {
                tracing::error!("the full-text sync task panicked");
            }
        }
    }

    /// Syncs `index`'s whole cache now, in a transaction of `session`;
    /// returns false if a sync of it was already running.
    pub fn sync_now(
        &self,
        services: &Arc<TransactionServices>,
        session: &mut Session,
        index: &FulltextIndex,
    ) -> Result<bool> {
        let Some(job) = self.budget.sync_job_for(index.cache()) else {
            return Ok(false);
        };
        self.write_job(services, session, index, job)?;
        Ok(true)
    }

    fn run_job(
        &self,
        services: &Arc<TransactionServices>,
        session: &mut Session,
        job: SyncJob,
    ) -> Result<()> {
        match self.index_of(&job) {
            Some(index) => self.write_job(services, session, &index, job),
            // The index was dropped: nothing to write.
            None => self.budget.finished_sync(job).map(|_| ()),
        }
    }

    /// Writes a job's batch (retrying until it commits or the service shuts
    /// down) and reports it finished.
    fn write_job(
        &self,
        services: &Arc<TransactionServices>,
        session: &mut Session,
        index: &FulltextIndex,
        mut job: SyncJob,
    ) -> Result<()> {
        let batch = match job.take() {
            Ok(b) => b,
            Err(e) => {
                self.budget.finished_sync(job)?;
                return Err(e);
            }
        };
        loop {
            let trx = session.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
            let mut ctx = TxnContext::new(services, trx);
            let written = index.write_batch(&mut ctx, &batch);
            let r = match written {
                Ok(()) => ctx.commit().map(|_| ()),
                Err(e) => {
                    if let Err(rb) = ctx.rollback() {
                        tracing::error!(error = %rb, "rollback of a failed full-text sync failed");
                    }
                    Err(e)
                }
            };
            match r {
                Ok(()) => break,
                Err(e) if self.budget.is_shut_down() => {
                    // The documents come back from the table at the next start.
                    self.budget.finished_sync(job)?;
                    return Err(e);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "full-text sync failed; retrying");
                    std::thread::sleep(RETRY_PAUSE);
                }
            }
        }
        self.budget.finished_sync(job)?;
        Ok(())
    }
}

impl Drop for FulltextService {
    fn drop(&mut self) {
        self.budget.shutdown();
    }
}
