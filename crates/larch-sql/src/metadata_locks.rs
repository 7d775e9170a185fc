//! Metadata locks: a table's definition does not change under a transaction
//! that uses it (MySQL's MDL, reduced to the two modes Larch needs).
//!
//! - **Shared**: taken by every statement that opens a table (reads and
//!   writes), before it looks the table up in the catalog, and held by the
//!   session until its transaction ends (the statement's end in autocommit).
//! - **Exclusive**: taken by DDL (ALTER, DROP, TRUNCATE, RENAME, CREATE) on
//!   every name it touches, after it has committed the session's own
//!   transaction; it waits until no other session holds the table and keeps
//!   new statements out until the DDL ends. A copying ALTER therefore never
//!   misses a row written during its copy, and a DROP never pulls a table from
//!   under an open transaction. (Online DDL, which lets writes continue during
//!   the copy, is a later step.)
//!
//! Fairness: a pending exclusive request makes new shared requests wait
//! (writer preference, so DDL is not starved by a stream of short
//! statements), except those of a session that already holds metadata locks:
//! its transaction may be what the DDL waits for.
//!
//! Deadlock freedom: a DDL waits only while it holds no metadata lock (it
//! takes its set one by one without waiting, and when one is busy it lets the
//! others go and waits for that one alone), and a holder of an exclusive lock
//! is running DDL, which waits for nothing else. A shared request of a session
//! that holds locks waits only for a *granted* exclusive lock, so no cycle of
//! waits can form through these locks. Waits end with 1205 after
//! `lock_wait_timeout` seconds and with 1317 on `KILL QUERY`.
//!
//! Cost: granting and releasing a shared lock is one atomic update of the
//! table's lock word; the mutex and condition variable are used only when
//! someone waits. Lock objects live in a map by database and table name; DDL
//! removes a name's entry when nobody else refers to it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, RwLock};

use crate::database::ProcessEntry;
use crate::error::{code, SqlError};

/// Shared holders are counted in the low 32 bits of the lock word.
const SHARED_MASK: u64 = 0xFFFF_FFFF;
/// An exclusive lock is granted.
const EXCLUSIVE: u64 = 1 << 32;
/// One waiting exclusive request (counted from bit 33 up).
const EXCLUSIVE_WAITER: u64 = 1 << 33;
/// How often a waiter checks its deadline and the KILL flag.
const WAIT_TICK: Duration = Duration::from_millis(100);
/// The processlist state of a waiting connection, as MySQL shows it.
pub(crate) const WAIT_STATE: &str = "Waiting for table metadata lock";

/// The lock of one table name.
#[derive(Debug)]
pub(crate) struct TableLock {
    db: String,
    table: String,
    word: AtomicU64,
    waiters: Mutex<()>,
    changed: Condvar,
}

impl TableLock {
    fn new(db: &str, table: &str) -> TableLock {
        TableLock {
            db: db.to_owned(),
            table: table.to_owned(),
            word: AtomicU64::new(0),
            waiters: Mutex::new(()),
            changed: Condvar::new(),
        }
    }

    fn is(&self, db: &str, table: &str) -> bool {
        self.db == db && self.table == table
    }

    /// Grants a shared lock if nothing blocks it now.
    fn try_shared(&self, bypass_pending: bool) -> bool {
        let mut w = self.word.load(Ordering::Acquire);
        loop {
            let blocked = w & EXCLUSIVE != 0 || (!bypass_pending && w >= EXCLUSIVE_WAITER);
            if blocked || w & SHARED_MASK == SHARED_MASK {
                return false;
            }
            match self
                .word
                .compare_exchange_weak(w, w + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    /// Grants the exclusive lock if no one holds the table; `waiting` says
    /// whether this request is counted among the waiters.
    fn try_exclusive(&self, waiting: bool) -> bool {
        let mut w = self.word.load(Ordering::Acquire);
        loop {
            if w & (SHARED_MASK | EXCLUSIVE) != 0 {
                return false;
            }
            let next = if waiting { w - EXCLUSIVE_WAITER } else { w } | EXCLUSIVE;
            match self
                .word
                .compare_exchange_weak(w, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    fn release_shared(&self) {
        let before = self.word.fetch_sub(1, Ordering::AcqRel);
        if before & SHARED_MASK == 1 && before >= EXCLUSIVE_WAITER {
            self.wake();
        }
    }

    fn release_exclusive(&self) {
        self.word.fetch_and(!EXCLUSIVE, Ordering::AcqRel);
        self.wake();
    }

    /// Wakes every waiter. Taking the mutex orders this after a waiter's
    /// check of the lock word (which it makes holding the mutex).
    fn wake(&self) {
        let _guard = self.waiters.lock();
        self.changed.notify_all();
    }

    /// Waits until `grant` succeeds, the deadline passes (1205) or the
    /// statement is killed (1317).
    fn wait(&self, grant: impl Fn() -> bool, until: &WaitLimit) -> Result<(), SqlError> {
        let shown = until
            .process
            .as_ref()
            .map(|p| p.state.lock().wait_state.replace(WAIT_STATE));
        let waited = larch_engine::io::blocking::blocking(|| {
            let mut guard = self.waiters.lock();
            loop {
                if grant() {
                    return Ok(());
                }
                until.check()?;
                let tick = until.deadline.saturating_duration_since(Instant::now());
                self.changed.wait_for(&mut guard, tick.min(WAIT_TICK));
            }
        });
        if let (Some(p), Some(before)) = (&until.process, shown) {
            p.state.lock().wait_state = before;
        }
        waited
    }
}

/// How long a metadata lock wait may last, and what cancels it.
#[derive(Debug)]
pub(crate) struct WaitLimit {
    pub deadline: Instant,
    pub cancel: Arc<AtomicBool>,
    /// The waiting connection: its processlist state names the wait.
    pub process: Option<Arc<ProcessEntry>>,
}

impl WaitLimit {
    fn check(&self) -> Result<(), SqlError> {
        if self.cancel.load(Ordering::SeqCst) {
            return Err(SqlError::new(
                code::QUERY_INTERRUPTED,
                "Query execution was interrupted",
            ));
        }
        if Instant::now() >= self.deadline {
            return Err(SqlError::new(
                code::LOCK_WAIT_TIMEOUT,
                "Lock wait timeout exceeded; try restarting transaction",
            ));
        }
        Ok(())
    }
}

/// The server's metadata locks; see the module documentation.
#[derive(Debug, Default)]
pub struct MetadataLocks {
    /// Database name, then table name.
    tables: RwLock<HashMap<String, HashMap<String, Arc<TableLock>>>>,
}

impl MetadataLocks {
    /// The lock object of `db`.`table`, created on first use.
    fn entry(&self, db: &str, table: &str) -> Arc<TableLock> {
        if let Some(l) = self.tables.read().get(db).and_then(|t| t.get(table)) {
            return l.clone();
        }
        let mut map = self.tables.write();
        map.entry(db.to_owned())
            .or_default()
            .entry(table.to_owned())
            .or_insert_with(|| Arc::new(TableLock::new(db, table)))
            .clone()
    }

    /// Drops the entry of `lock` if nobody else refers to it (called by DDL
    /// after it released the lock). New references are only made through the
    /// map, which is write-locked here, so the count cannot grow meanwhile.
    fn forget(&self, lock: Arc<TableLock>) {
        let mut map = self.tables.write();
        if Arc::strong_count(&lock) > 2 || lock.word.load(Ordering::Acquire) != 0 {
            return;
        }
        if let Some(tables) = map.get_mut(&lock.db) {
            tables.remove(&lock.table);
            if tables.is_empty() {
                map.remove(&lock.db);
            }
        }
    }

    /// Number of table names with a lock object (for tests and memory use).
    pub fn entries(&self) -> usize {
        self.tables.read().values().map(HashMap::len).sum()
    }

    /// Takes exclusive locks on every name of `names` (duplicates allowed),
    /// waiting while holding none; see the module documentation.
    fn exclusive(
        &self,
        names: &[(String, String)],
        until: &WaitLimit,
    ) -> Result<Vec<Arc<TableLock>>, SqlError> {
        let mut wanted: Vec<(&str, &str)> = names
            .iter()
            .map(|(d, t)| (d.as_str(), t.as_str()))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let locks: Vec<Arc<TableLock>> = wanted.iter().map(|(d, t)| self.entry(d, t)).collect();
        // `held` is a prefix of `locks` in order; `waited` is a lock taken by
        // waiting, which may lie beyond the prefix.
        let mut waited: Option<usize> = None;
        loop {
            let mut busy = None;
            let mut held = Vec::with_capacity(locks.len());
            for (i, l) in locks.iter().enumerate() {
                if waited == Some(i) || l.try_exclusive(false) {
                    held.push(i);
                } else {
                    busy = Some(i);
                    break;
                }
            }
            let Some(b) = busy else {
                return Ok(locks);
            };
            for i in held {
                locks[i].release_exclusive();
            }
            if let Some(w) = waited.take().filter(|&w| w > b) {
                locks[w].release_exclusive();
            }
            let lock = &locks[b];
            lock.word.fetch_add(EXCLUSIVE_WAITER, Ordering::AcqRel);
            if let Err(e) = lock.wait(|| lock.try_exclusive(true), until) {
                lock.word.fetch_sub(EXCLUSIVE_WAITER, Ordering::AcqRel);
                // Shared requests that waited behind this one may go now.
                lock.wake();
                return Err(e);
            }
            waited = Some(b);
        }
    }
}

/// The metadata locks a session holds: shared ones until its transaction
/// ends, exclusive ones (DDL) until its statement ends.
#[derive(Debug, Default)]
pub(crate) struct SessionLocks {
    shared: Vec<Arc<TableLock>>,
    exclusive: Vec<Arc<TableLock>>,
}

impl SessionLocks {
    fn holds(&self, db: &str, table: &str) -> bool {
        self.shared
            .iter()
            .chain(&self.exclusive)
            .any(|l| l.is(db, table))
    }

    /// Takes a shared lock on `db`.`table` unless this session holds the
    /// table already (shared, or exclusively by its own DDL).
    fn acquire_shared(
        &mut self,
        locks: &MetadataLocks,
        db: &str,
        table: &str,
        until: impl FnOnce() -> WaitLimit,
    ) -> Result<(), SqlError> {
        if self.holds(db, table) {
            return Ok(());
        }
        let lock = locks.entry(db, table);
        let bypass = !self.shared.is_empty() || !self.exclusive.is_empty();
        if !lock.try_shared(bypass) {
            lock.wait(|| lock.try_shared(bypass), &until())?;
        }
        self.shared.push(lock);
        Ok(())
    }

    /// Releases the shared lock of a table that turned out not to exist (no
    /// lock object is kept for names nobody has).
    fn release_missing(&mut self, locks: &MetadataLocks, db: &str, table: &str) {
        if let Some(i) = self.shared.iter().position(|l| l.is(db, table)) {
            let lock = self.shared.swap_remove(i);
            lock.release_shared();
            locks.forget(lock);
        }
    }

    /// Releases the shared locks (the transaction ended).
    pub(crate) fn release_shared(&mut self) {
        for lock in self.shared.drain(..) {
            lock.release_shared();
        }
    }

    /// Releases the exclusive locks (the DDL statement ended), forgetting
    /// lock objects nobody else refers to.
    pub(crate) fn release_exclusive(&mut self, locks: &MetadataLocks) {
        for lock in std::mem::take(&mut self.exclusive) {
            lock.release_exclusive();
            locks.forget(lock);
        }
    }
}

impl Drop for SessionLocks {
    fn drop(&mut self) {
        self.release_shared();
        for lock in self.exclusive.drain(..) {
            lock.release_exclusive();
        }
    }
}

impl crate::session::Session {
    /// How long this session's metadata lock waits may last
    /// (`lock_wait_timeout`), cancelled by `KILL QUERY`.
    fn metadata_wait_limit(&self) -> WaitLimit {
        let secs = self.int_var("lock_wait_timeout").max(0) as u64;
        WaitLimit {
            deadline: Instant::now() + Duration::from_secs(secs),
            cancel: self.process.kill_query.clone(),
            process: Some(self.process.clone()),
        }
    }

    /// Takes the shared metadata lock of a table the statement opens, kept
    /// until the transaction ends. The session's temporary tables (hidden
    /// names) are private and take none.
    pub(crate) fn lock_table_shared(&self, db: &str, table: &str) -> Result<(), SqlError> {
        if crate::session::temporary::is_hidden(table) {
            return Ok(());
        }
        self.metadata_locks
            .borrow_mut()
            .acquire_shared(&self.db.metadata_locks, db, table, || {
                self.metadata_wait_limit()
            })
    }

    /// Lets go of the shared lock [`lock_table_shared`](Self::lock_table_shared)
    /// took for a table the catalog does not have.
    pub(crate) fn unlock_missing_table(&self, db: &str, table: &str) {
        self.metadata_locks
            .borrow_mut()
            .release_missing(&self.db.metadata_locks, db, table);
    }

    /// True when this session's DDL holds `db`.`table` exclusively.
    pub(crate) fn holds_exclusive(&self, db: &str, table: &str) -> bool {
        self.metadata_locks
            .borrow()
            .exclusive
            .iter()
            .any(|l| l.is(db, table))
    }

    /// Takes the exclusive metadata locks of a DDL statement on `names`, held
    /// until the statement ends. The DDL has committed the session's
    /// transaction first, so the session waits holding no lock another wait
    /// could depend on (CREATE TABLE ... SELECT holds the shared locks of its
    /// sources, which block only DDL that waits for nothing it holds).
    pub(crate) fn lock_tables_exclusive(&self, names: &[(String, String)]) -> Result<(), SqlError> {
        let wanted: Vec<(String, String)> = {
            let held = self.metadata_locks.borrow();
            names
                .iter()
                .filter(|(d, t)| {
                    !crate::session::temporary::is_hidden(t)
                        && !held.exclusive.iter().any(|l| l.is(d, t))
                })
                .cloned()
                .collect()
        };
        if wanted.is_empty() {
            return Ok(());
        }
        {
            // The statement's own shared lock on a name it now changes (CREATE
            // OR REPLACE TABLE t ... SELECT FROM t) would block it: give it up.
            let mut held = self.metadata_locks.borrow_mut();
            held.shared.retain(|l| {
                let own = wanted.iter().any(|(d, t)| l.is(d, t));
                if own {
                    l.release_shared();
                }
                !own
            });
        }
        let got = self
            .db
            .metadata_locks
            .exclusive(&wanted, &self.metadata_wait_limit())?;
        self.metadata_locks.borrow_mut().exclusive.extend(got);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
