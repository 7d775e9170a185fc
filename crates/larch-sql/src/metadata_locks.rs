//! Metadata locks: a table's definition does not change under a transaction
//! that uses it, and LOCK TABLES keeps other sessions off its tables (MySQL's
//! MDL, with the modes Larch needs; [`Mode`] and the lock word are in
//! `table_lock`, locked tables mode in `locked_tables`).
//!
//! - **SharedRead / SharedWrite**: taken by every statement that opens a
//!   table (for reading, or for changing its rows), before it looks the table
//!   up in the catalog, and held by the session until its transaction ends
//!   (the statement's end in autocommit). They share the table with each
//!   other.
//! - **ReadOnly** (`LOCK TABLES ... READ`): shares the table with readers,
//!   keeps writers out; **NoReadWrite** (`LOCK TABLES ... WRITE`) keeps every
//!   other session out. Both are held until UNLOCK TABLES (or the session's
//!   end, or BEGIN, or the next LOCK TABLES).
//! - **SharedUpgradable**: what an online ALTER (an index build with
//!   `LOCK=NONE`) holds between its two exclusive moments
//!   ([`Session::downgrade_exclusive`]): other sessions read and write the
//!   table; other DDL and LOCK TABLES WRITE wait. `LOCK=SHARED` holds
//!   ReadOnly there instead.
//! - **Exclusive**: taken by DDL (ALTER, DROP, TRUNCATE, RENAME, CREATE) on
//!   every name it touches, after it has committed the session's own
//!   transaction; it waits until no other session holds the table and keeps
//!   new statements out until the DDL ends. A copying ALTER therefore never
//!   misses a row written during its copy, and a DROP never pulls a table from
//!   under an open transaction.
//!
//! Fairness: a waiting Exclusive or NoReadWrite request makes new requests of
//! the shared modes wait, and a waiting ReadOnly request makes new
//! SharedWrite requests wait (so DDL and LOCK TABLES are not starved by a
//! stream of short statements), except those of a session that already holds
//! metadata locks: its transaction may be what the waiting request waits for.
//!
//! Deadlock freedom: DDL and LOCK TABLES take their whole set together
//! ([`MetadataLocks::acquire_set`]): one by one without waiting, and when one
//! is busy they let the others go and wait for that one alone, holding none.
//! A session in locked tables mode takes no further table locks, and DDL
//! holders wait for nothing else. A statement of a session that holds locks
//! waits only for *granted* ReadOnly, NoReadWrite or Exclusive locks, whose
//! holders do not wait for it, so no cycle of waits forms through these
//! locks. Waits end with 1205 after `lock_wait_timeout` seconds and with 1317
//! on `KILL QUERY`; the processlist shows "Waiting for table metadata lock".
//!
//! Cost: granting a statement lock is one compare-and-swap of the table's
//! lock word and releasing it one atomic subtraction; the mutex and condition
//! variable are used only when someone waits. Lock objects live in a map by
//! database and table name; DDL removes a name's entry when nobody else
//! refers to it.

mod locked_tables;
mod table_lock;

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::RwLock;

use crate::error::SqlError;

pub(crate) use locked_tables::{LockedTable, LockedTables};
pub(crate) use table_lock::{Mode, TableLock, WaitLimit};

/// The server's metadata locks; see the module documentation.
#[derive(Debug, Default)]
pub struct MetadataLocks {
    /// Database name, then table name.
    tables: RwLock<HashMap<String, HashMap<String, Arc<TableLock>>>>,
}

/// A name's lock with the mode a session holds it in.
pub(crate) type Held = (Arc<TableLock>, Mode);

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

    /// Drops the entry of `lock` if nobody else refers to it (called after
    /// the caller released its lock). New references are only made through
    /// the map, which is write-locked here, so the count cannot grow meanwhile.
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

    /// `(database, table, locks held)` of every name with a lock object, in
    /// `db` only when given (SHOW OPEN TABLES).
    pub(crate) fn open_tables(&self, db: Option<&str>) -> Vec<(String, String, u64)> {
        let map = self.tables.read();
        let mut out: Vec<(String, String, u64)> = map
            .iter()
            .filter(|(d, _)| db.is_none_or(|x| x == d.as_str()))
            .flat_map(|(d, tables)| {
                tables
                    .iter()
                    .map(move |(t, l)| (d.clone(), t.clone(), l.in_use()))
            })
            .collect();
        out.sort();
        out
    }

    /// Takes exclusive locks on every name of `names` (duplicates allowed).
    fn exclusive(
        &self,
        names: &[(String, String)],
        until: &WaitLimit,
    ) -> Result<Vec<Arc<TableLock>>, SqlError> {
        let wanted: Vec<(String, String, Mode)> = names
            .iter()
            .map(|(d, t)| (d.clone(), t.clone(), Mode::Exclusive))
            .collect();
        Ok(self
            .acquire_set(&wanted, until)?
            .into_iter()
            .map(|(l, _)| l)
            .collect())
    }

    /// Takes every lock of `wanted` (a name listed twice gets the stronger
    /// mode) all together, waiting while holding none of them: when one is
    /// busy it lets the others go and waits for that one alone, then tries
    /// the rest again keeping it. See the module documentation.
    pub(crate) fn acquire_set(
        &self,
        wanted: &[(String, String, Mode)],
        until: &WaitLimit,
    ) -> Result<Vec<Held>, SqlError> {
        let mut sorted: Vec<(&str, &str, Mode)> = wanted
            .iter()
            .map(|(d, t, m)| (d.as_str(), t.as_str(), *m))
            .collect();
        // Strongest mode last per name, then keep it.
        sorted.sort_unstable();
        let mut merged: Vec<(&str, &str, Mode)> = Vec::with_capacity(sorted.len());
        for (d, t, m) in sorted {
            match merged.last_mut() {
                Some(last) if last.0 == d && last.1 == t => last.2 = strongest(last.2, m),
                _ => merged.push((d, t, m)),
            }
        }
        let locks: Vec<Held> = merged
            .iter()
            .map(|(d, t, m)| (self.entry(d, t), *m))
            .collect();
        // `held` is a prefix of `locks` in order; `waited` is a lock taken by
        // waiting, which may lie beyond the prefix.
        let mut waited: Option<usize> = None;
        loop {
            let mut busy = None;
            let mut held = Vec::with_capacity(locks.len());
            for (i, (l, m)) in locks.iter().enumerate() {
                if waited == Some(i) || l.try_grant(*m, false) {
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
                locks[i].0.release(locks[i].1);
            }
            if let Some(w) = waited.take().filter(|&w| w > b) {
                locks[w].0.release(locks[w].1);
            }
            let (lock, mode) = &locks[b];
            lock.wait(*mode, false, until)?;
            waited = Some(b);
        }
    }
}

/// The mode that gives both `a` and `b` (a name listed twice in LOCK TABLES).
fn strongest(a: Mode, b: Mode) -> Mode {
    if a.covers(b) {
        a
    } else if b.covers(a) {
        b
    } else {
        // ReadOnly and SharedWrite: only NoReadWrite keeps both promises.
        Mode::NoReadWrite
    }
}

/// The metadata locks a session holds: statement locks until its
/// transaction ends, exclusive ones (DDL) until its statement ends, and
/// those of LOCK TABLES until UNLOCK TABLES.
#[derive(Debug, Default)]
pub(crate) struct SessionLocks {
    shared: Vec<Held>,
    exclusive: Vec<Arc<TableLock>>,
    /// Set between LOCK TABLES and UNLOCK TABLES.
    pub(crate) tables: Option<LockedTables>,
}

impl SessionLocks {
    fn holds(&self, db: &str, table: &str, mode: Mode) -> bool {
        self.shared
            .iter()
            .any(|(l, m)| m.covers(mode) && l.is(db, table))
            || self.exclusive.iter().any(|l| l.is(db, table))
    }

    /// Takes a statement lock (`SharedRead` or `SharedWrite`) on
    /// `db`.`table` unless this session holds the table in a mode that
    /// covers it already.
    fn acquire_shared(
        &mut self,
        locks: &MetadataLocks,
        db: &str,
        table: &str,
        mode: Mode,
        until: impl FnOnce() -> WaitLimit,
    ) -> Result<(), SqlError> {
        if self.holds(db, table, mode) {
            return Ok(());
        }
        let lock = locks.entry(db, table);
        let bypass = !self.shared.is_empty() || !self.exclusive.is_empty();
        if !lock.try_grant(mode, bypass) {
            lock.wait(mode, bypass, &until())?;
        }
        self.shared.push((lock, mode));
        Ok(())
    }

    /// Releases the statement locks of a table that turned out not to exist
    /// (no lock object is kept for names nobody has).
    fn release_missing(&mut self, locks: &MetadataLocks, db: &str, table: &str) {
        while let Some(i) = self.shared.iter().position(|(l, _)| l.is(db, table)) {
            let (lock, mode) = self.shared.swap_remove(i);
            lock.release(mode);
            locks.forget(lock);
        }
    }

    /// Releases the statement locks (the transaction ended).
    pub(crate) fn release_shared(&mut self) {
        for (lock, mode) in self.shared.drain(..) {
            lock.release(mode);
        }
    }

    /// Releases the exclusive locks (the DDL statement ended), forgetting
    /// lock objects nobody else refers to.
    pub(crate) fn release_exclusive(&mut self, locks: &MetadataLocks) {
        for lock in std::mem::take(&mut self.exclusive) {
            lock.release(Mode::Exclusive);
            locks.forget(lock);
        }
    }
}

impl Drop for SessionLocks {
    fn drop(&mut self) {
        self.release_shared();
        for lock in self.exclusive.drain(..) {
            lock.release(Mode::Exclusive);
        }
        if let Some(t) = self.tables.take() {
            t.release();
        }
    }
}

impl crate::session::Session {
    /// How long this session's metadata lock waits may last
    /// (`lock_wait_timeout`), cancelled by `KILL QUERY`.
    pub(crate) fn metadata_wait_limit(&self) -> WaitLimit {
        let secs = self.int_var("lock_wait_timeout").max(0) as u64;
        WaitLimit {
            deadline: Instant::now() + Duration::from_secs(secs),
            cancel: self.process.kill_query.clone(),
            process: Some(self.process.clone()),
        }
    }

    /// Takes the metadata lock of a table the statement reads (views: the
    /// view's name), kept until the transaction ends; see
    /// [`lock_table_for`](Self::lock_table_for).
    pub(crate) fn lock_table_shared(&self, db: &str, table: &str) -> Result<(), SqlError> {
        self.lock_table_for(db, table, None, false)
    }

    /// Takes the metadata lock of a table the statement opens (`SharedRead`,
    /// or `SharedWrite` when it changes rows), kept until the transaction
    /// ends. Under LOCK TABLES no lock is taken: the table must be one the
    /// session locked, under `alias` when given (1100), and locked for
    /// writing when the statement writes (1099). The session's temporary
    /// tables (hidden names) are private and take none.
    pub(crate) fn lock_table_for(
        &self,
        db: &str,
        table: &str,
        alias: Option<&str>,
        write: bool,
    ) -> Result<(), SqlError> {
        if crate::session::temporary::is_hidden(table) {
            return Ok(());
        }
        let mut held = self.metadata_locks.borrow_mut();
        if let Some(t) = &held.tables {
            return t.check_use(db, table, alias, write);
        }
        let mode = if write {
            Mode::SharedWrite
        } else {
            Mode::SharedRead
        };
        held.acquire_shared(&self.db.metadata_locks, db, table, mode, || {
            self.metadata_wait_limit()
        })
    }

    /// Lets go of the lock [`lock_table_for`](Self::lock_table_for) took for
    /// a table the catalog does not have.
    pub(crate) fn unlock_missing_table(&self, db: &str, table: &str) {
        self.metadata_locks
            .borrow_mut()
            .release_missing(&self.db.metadata_locks, db, table);
    }

    /// True when this session's DDL holds `db`.`table` exclusively (or
    /// LOCK TABLES ... WRITE holds it, which keeps every other session out).
    pub(crate) fn holds_exclusive(&self, db: &str, table: &str) -> bool {
        let held = self.metadata_locks.borrow();
        held.exclusive.iter().any(|l| l.is(db, table))
            || held
                .tables
                .as_ref()
                .is_some_and(|t| t.holds_exclusive(db, table))
    }

    /// Takes the exclusive metadata locks of a DDL statement on `names`, held
    /// until the statement ends. The DDL has committed the session's
    /// transaction first, so the session waits holding no lock another wait
    /// could depend on (CREATE TABLE ... SELECT holds the shared locks of its
    /// sources, which block only DDL that waits for nothing it holds).
    /// Under LOCK TABLES, a name the session locked must be locked WRITE
    /// (which already keeps everyone else out; READ: 1099), and an existing
    /// table it did not lock is refused (1100).
    pub(crate) fn lock_tables_exclusive(&self, names: &[(String, String)]) -> Result<(), SqlError> {
        let wanted: Vec<(String, String)> = {
            let mut held = self.metadata_locks.borrow_mut();
            let mut wanted = Vec::new();
            for (d, t) in names {
                if crate::session::temporary::is_hidden(t)
                    || held.exclusive.iter().any(|l| l.is(d, t))
                {
                    continue;
                }
                if let Some(locked) = &mut held.tables {
                    let exists = self.db.catalog().table_entry(d, t).is_some()
                        || self.db.catalog().is_view(d, t);
                    if locked.check_ddl(d, t, exists)? {
                        continue;
                    }
                }
                wanted.push((d.clone(), t.clone()));
            }
            wanted
        };
        if wanted.is_empty() {
            return Ok(());
        }
        {
            // The statement's own shared lock on a name it now changes (CREATE
            // OR REPLACE TABLE t ... SELECT FROM t) would block it: give it up.
            let mut held = self.metadata_locks.borrow_mut();
            held.shared.retain(|(l, m)| {
                let own = wanted.iter().any(|(d, t)| l.is(d, t));
                if own {
                    l.release(*m);
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

/// The exclusive metadata lock of a DDL statement let down to a weaker
/// mode while the statement works ([`Session::downgrade_exclusive`]).
/// [`upgrade`](Self::upgrade) takes it back; dropped without that, the
/// weaker hold is released and the statement holds the table no more.
pub(crate) struct Downgraded<'s> {
    session: &'s crate::session::Session,
    lock: Arc<TableLock>,
    mode: Mode,
    upgraded: bool,
}

impl Downgraded<'_> {
    /// Waits until every other session has left the table, then holds it
    /// exclusively again (1205 after `lock_wait_timeout`, 1317 on KILL).
    pub(crate) fn upgrade(&mut self) -> Result<(), SqlError> {
        self.lock
            .upgrade(self.mode, &self.session.metadata_wait_limit())?;
        self.upgraded = true;
        Ok(())
    }
}

impl Drop for Downgraded<'_> {
    fn drop(&mut self) {
        if self.upgraded {
            return;
        }
        let mut held = self.session.metadata_locks.borrow_mut();
        if let Some(i) = held
            .exclusive
            .iter()
            .position(|l| Arc::ptr_eq(l, &self.lock))
        {
            held.exclusive.swap_remove(i);
        }
        drop(held);
        self.lock.release(self.mode);
    }
}

/// A statement's ReadOnly hold of one table
/// ([`Session::hold_table_read_only`]), released when dropped.
pub(crate) struct ReadOnlyHold {
    lock: Arc<TableLock>,
}

impl Drop for ReadOnlyHold {
    fn drop(&mut self) {
        self.lock.release(Mode::ReadOnly);
    }
}

impl crate::session::Session {
    /// Holds `db`.`table` so that nobody writes it until the hold is
    /// dropped (ReadOnly, as LOCK TABLES ... READ), waiting at most `patience`
    /// (and `lock_wait_timeout`) for the transactions that wrote it to end.
    /// The session has no open transaction (the caller committed it).
    /// `None` when the wait ran out, under LOCK TABLES (the session's own
    /// locks decide) and for temporary tables; 1317 on KILL.
    pub(crate) fn hold_table_read_only(
        &self,
        db: &str,
        table: &str,
        patience: Duration,
    ) -> Result<Option<ReadOnlyHold>, SqlError> {
        if crate::session::temporary::is_hidden(table)
            || self.metadata_locks.borrow().tables.is_some()
        {
            return Ok(None);
        }
        let wanted = [(db.to_owned(), table.to_owned(), Mode::ReadOnly)];
        let mut until = self.metadata_wait_limit();
        until.deadline = until.deadline.min(Instant::now() + patience);
        match self.db.metadata_locks.acquire_set(&wanted, &until) {
            Ok(mut got) => Ok(got.pop().map(|(lock, _)| ReadOnlyHold { lock })),
            Err(e) if e.code() == crate::error::code::LOCK_WAIT_TIMEOUT => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Lets other sessions use `db`.`table`, which this session's DDL holds
    /// exclusively, in what `mode` allows (SharedUpgradable: reads and
    /// writes; ReadOnly: reads). `None` when the session does not hold it
    /// exclusively through its own DDL lock (LOCK TABLES ... WRITE: the
    /// table stays its own).
    pub(crate) fn downgrade_exclusive(
        &self,
        db: &str,
        table: &str,
        mode: Mode,
    ) -> Option<Downgraded<'_>> {
        let held = self.metadata_locks.borrow();
        if held.tables.is_some() {
            return None;
        }
        let lock = held.exclusive.iter().find(|l| l.is(db, table))?.clone();
        drop(held);
        lock.downgrade(mode);
        Some(Downgraded {
            session: self,
            lock,
            mode,
            upgraded: false,
        })
    }
}

#[cfg(test)]
mod tests;
