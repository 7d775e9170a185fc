//! The tables a session locked with LOCK TABLES, and the rules its
//! statements follow until UNLOCK TABLES (MySQL's "locked tables mode").
//!
//! - The session holds one metadata lock per table name for the whole
//!   period ([`Mode::ReadOnly`] for READ, [`Mode::SharedRead`] for READ
//!   LOCAL, [`Mode::NoReadWrite`] for WRITE; a table listed twice gets the
//!   stronger mode). Its statements take no further table locks.
//! - A statement may use only the tables locked, under the name they were
//!   locked by: a table locked with an alias is used by that alias, one
//!   locked without is used by its own name (alias comparison ignores case,
//!   as MySQL's); otherwise 1100. Writing a table locked for READ is 1099.
//! - The base tables of a locked view are locked with it (implicitly), in
//!   the view's mode; the view's query reaches them under any alias.
//! - DDL may change a table locked WRITE (the lock already keeps everyone
//!   else out), not one locked READ (1099) nor an existing table not locked
//!   (1100). A table the DDL dropped or renamed away leaves the set.
//! - Temporary tables are not concerned (their hidden names never reach here).

use super::{Held, MetadataLocks, Mode};
use crate::error::SqlError;
use crate::session::Session;

/// One table (or view) a LOCK TABLES statement named, or a base table of a
/// named view.
#[derive(Debug, Clone)]
pub(crate) struct LockedTable {
    pub db: String,
    pub table: String,
    /// The name statements use it by: the alias, else the table's name.
    pub alias: String,
    pub write: bool,
    /// Locked as a base table of a locked view.
    pub implicit: bool,
}

/// The LOCK TABLES state of a session.
#[derive(Debug)]
pub(crate) struct LockedTables {
    entries: Vec<LockedTable>,
    locks: Vec<Held>,
    /// A DDL statement changed a locked table: the set is checked against the
    /// catalog when the statement ends.
    ddl_ran: bool,
}

fn not_locked(name: &str) -> SqlError {
    SqlError::new(
        1100,
        format!("Table '{name}' was not locked with LOCK TABLES"),
    )
}

fn read_locked(name: &str) -> SqlError {
    SqlError::new(
        1099,
        format!("Table '{name}' was locked with a READ lock and can't be updated"),
    )
}

impl LockedTables {
    /// Whether a statement may use `db`.`table` under `alias` (`None`: by
    /// any name), for writing when `write`.
    pub(super) fn check_use(
        &self,
        db: &str,
        table: &str,
        alias: Option<&str>,
        write: bool,
    ) -> Result<(), SqlError> {
        let mut found = false;
        for e in &self.entries {
            if e.db != db || e.table != table {
                continue;
            }
            let by_name = match alias {
                Some(a) => e.implicit || e.alias.eq_ignore_ascii_case(a),
                None => true,
            };
            if by_name {
                if e.write || !write {
                    return Ok(());
                }
                found = true;
            }
        }
        let name = alias.unwrap_or(table);
        Err(if found {
            read_locked(name)
        } else {
            not_locked(name)
        })
    }

    /// True when the set holds `db`.`table` in a mode no other session can
    /// share.
    pub(super) fn holds_exclusive(&self, db: &str, table: &str) -> bool {
        self.locks
            .iter()
            .any(|(l, m)| m.is_exclusive() && l.is(db, table))
    }

    /// May DDL change `db`.`table`? `Ok(true)`: yes, and the set's lock
    /// already excludes everyone else; `Ok(false)`: the name is not locked
    /// and does not exist (CREATE), take an exclusive lock as usual.
    pub(super) fn check_ddl(
        &mut self,
        db: &str,
        table: &str,
        exists: bool,
    ) -> Result<bool, SqlError> {
        if self.holds_exclusive(db, table) {
            self.ddl_ran = true;
            return Ok(true);
        }
        if self.entries.iter().any(|e| e.db == db && e.table == table) {
            return Err(read_locked(table));
        }
        if exists {
            return Err(not_locked(table));
        }
        Ok(false)
    }

    /// Releases every lock of the set.
    pub(crate) fn release(self) {
        for (lock, mode) in self.locks {
            lock.release(mode);
        }
    }
}

impl Session {
    /// True between LOCK TABLES and UNLOCK TABLES.
    pub(crate) fn in_lock_tables(&self) -> bool {
        self.metadata_locks.borrow().tables.is_some()
    }

    /// LOCK TABLES: takes the metadata locks `wanted` all together (waiting
    /// while holding none, at most `lock_wait_timeout`) and enters locked
    /// tables mode with `entries`. The caller has released earlier table
    /// locks and committed the transaction.
    pub(crate) fn enter_lock_tables(
        &self,
        entries: Vec<LockedTable>,
        wanted: &[(String, String, Mode)],
    ) -> Result<(), SqlError> {
        let locks = self
            .db
            .metadata_locks
            .acquire_set(wanted, &self.metadata_wait_limit())?;
        let previous = self
            .metadata_locks
            .borrow_mut()
            .tables
            .replace(LockedTables {
                entries,
                locks,
                ddl_ran: false,
            });
        if let Some(p) = previous {
            p.release();
        }
        Ok(())
    }

    /// Leaves locked tables mode, releasing its locks; false when the session
    /// was not in it.
    pub(crate) fn leave_lock_tables(&self) -> bool {
        let taken = self.metadata_locks.borrow_mut().tables.take();
        match taken {
            Some(t) => {
                t.release();
                true
            }
            None => false,
        }
    }

    /// After a statement under LOCK TABLES that ran DDL on a locked table:
    /// tables that no longer exist (dropped, renamed) leave the set, and
    /// their locks are released.
    pub(crate) fn prune_lock_tables(&self) {
        let mut held = self.metadata_locks.borrow_mut();
        let Some(t) = held.tables.as_mut() else {
            return;
        };
        if !std::mem::take(&mut t.ddl_ran) {
            return;
        }
        let catalog = self.db.catalog();
        let exists = |db: &str, table: &str| {
            catalog.table_entry(db, table).is_some() || catalog.is_view(db, table)
        };
        t.entries.retain(|e| exists(&e.db, &e.table));
        let mut gone: Vec<Held> = Vec::new();
        t.locks.retain(|(l, m)| {
            let keep = exists(&l.db, &l.table);
            if !keep {
                gone.push((l.clone(), *m));
            }
            keep
        });
        drop(held);
        forget_all(&self.db.metadata_locks, gone);
    }
}

fn forget_all(locks: &MetadataLocks, gone: Vec<Held>) {
    for (lock, mode) in gone {
        lock.release(mode);
        locks.forget(lock);
    }
}
