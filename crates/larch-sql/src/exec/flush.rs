//! `FLUSH ...` statements and the global read lock of `FLUSH TABLES WITH
//! READ LOCK` (also what COM_REFRESH runs, through the same statements).
//!
//! - `FLUSH TABLES [t, ...]`, `LOGS` (and the named logs), `PRIVILEGES`,
//!   `HOSTS`, `STATUS`, `USER_RESOURCES`, `OPTIMIZER_COSTS`: succeed. Larch
//!   keeps no table cache to close, no binary or relay log to rotate, no
//!   host cache, and reads accounts from the catalog at each login, so
//!   there is nothing to do; the redo log is made durable for `LOGS`.
//! - `FLUSH TABLES WITH READ LOCK`: takes the global read lock
//!   ([`GlobalReadLock`]): statements that change data or the schema in
//!   other sessions wait until every holder released it (`UNLOCK TABLES`,
//!   or the holder's session ends), at most `lock_wait_timeout` seconds
//!   (then 1205), and so does the COMMIT of a transaction that changed
//!   rows; the holder's own writes fail with 1223. Unlike MariaDB, taking
//!   the lock does not wait for write statements already running (they
//!   checked it before they started; each checks it once, cheaply). Several sessions
//!   may hold it at once, as in MariaDB.
//! - `FLUSH TABLES ... FOR EXPORT` is refused (1235): Larch has no
//!   transportable tablespaces.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use sqlparser::ast;

use crate::error::SqlError;
use crate::parse::Statement;
use crate::result::QueryResult;
use crate::session::Session;

/// The sessions holding the global read lock.
#[derive(Debug, Default)]
pub(crate) struct GlobalReadLock {
    holders: Mutex<HashSet<u64>>,
    /// `holders.len()`, read without the mutex by every statement.
    held: AtomicUsize,
    released: Condvar,
    /// Sessions inside LOCK TABLES (they cannot take the global lock).
    locked_tables: Mutex<HashSet<u64>>,
}

impl GlobalReadLock {
    fn acquire(&self, session: u64) {
        let mut h = self.holders.lock();
        h.insert(session);
        self.held.store(h.len(), Ordering::SeqCst);
    }

    fn release(&self, session: u64) {
        let mut h = self.holders.lock();
        if h.remove(&session) {
            self.held.store(h.len(), Ordering::SeqCst);
            if h.is_empty() {
                self.released.notify_all();
            }
        }
    }

    fn held_by(&self, session: u64) -> bool {
        self.holders.lock().contains(&session)
    }

    /// Waits until no other session holds the lock, at most `timeout`.
    fn wait_free(&self, session: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut h = self.holders.lock();
        while h.iter().any(|&x| x != session) {
            if self.released.wait_until(&mut h, deadline).timed_out() {
                return !h.iter().any(|&x| x != session);
            }
        }
        true
    }
}

/// `FLUSH ...`.
pub(crate) fn execute(s: &mut Session, stmt: &ast::Statement) -> Result<QueryResult, SqlError> {
    let ast::Statement::Flush {
        object_type,
        read_lock,
        export,
        ..
    } = stmt
    else {
        return Err(SqlError::not_supported("this FLUSH"));
    };
    match object_type {
        ast::FlushType::Tables if *export => {
            Err(SqlError::not_supported("FLUSH TABLES ... FOR EXPORT"))
        }
        ast::FlushType::Tables if *read_lock => {
            if s.db.read_lock.locked_tables.lock().contains(&s.id()) {
                return Err(SqlError::new(
                    1192,
                    "Can't execute the given command because you have active locked tables or an active transaction",
                ));
            }
            // FLUSH commits the open transaction, as every FLUSH does.
            if s.in_transaction() {
                s.commit()?;
            }
            s.db.read_lock.acquire(s.id());
            Ok(QueryResult::ok())
        }
        ast::FlushType::Logs | ast::FlushType::EngineLogs => {
            let log = s.db.storage().pool().log();
            let lsn = log.current_lsn();
            larch_engine::io::blocking::blocking(|| log.flush_up_to(lsn))?;
            Ok(QueryResult::ok())
        }
        _ => Ok(QueryResult::ok()),
    }
}

/// `UNLOCK TABLES` (and the end of a session): releases the global read
/// lock and ends LOCK TABLES.
pub(crate) fn unlock_tables(s: &Session) {
    s.db.read_lock.locked_tables.lock().remove(&s.id());
    s.db.read_lock.release(s.id());
}

/// `LOCK TABLES`: remembered so that FLUSH TABLES WITH READ LOCK refuses.
pub(crate) fn lock_tables(s: &Session) {
    s.db.read_lock.locked_tables.lock().insert(s.id());
}

/// True for statements the global read lock holds back.
fn writes(stmt: &Statement) -> bool {
    use ast::Statement as S;
    match stmt {
        Statement::Sql(st) => {
            !matches!(
                st.as_ref(),
                S::Query(_)
                    | S::Explain { .. }
                    | S::ExplainTable { .. }
                    | S::Set(_)
                    | S::Use(_)
                    | S::StartTransaction { .. }
                    | S::Commit { .. }
                    | S::Rollback { .. }
                    | S::Savepoint { .. }
                    | S::ReleaseSavepoint { .. }
                    | S::Kill { .. }
                    | S::LockTables { .. }
                    | S::UnlockTables
                    | S::Flush { .. }
            ) && !st.to_string().starts_with("SHOW")
        }
        Statement::LoadData(_)
        | Statement::AlterTableKeys { .. }
        | Statement::AlterTableEngine { .. }
        | Statement::AlterTable(_)
        | Statement::CreateFulltextIndex { .. } => true,
        Statement::TableMaintenance { op, .. } => {
            matches!(
                op,
                crate::parse::MaintenanceOp::Optimize | crate::parse::MaintenanceOp::Repair
            )
        }
        Statement::SetStatement { inner, .. } => writes(inner),
        _ => false,
    }
}

/// True for a statement that commits a transaction which changed rows.
fn commits_changes(s: &Session, stmt: &Statement) -> bool {
    let changed = s.txn.as_ref().is_some_and(|t| t.ctx.undo_records() > 0);
    changed
        && match stmt {
            Statement::Sql(st) => matches!(
                st.as_ref(),
                ast::Statement::Commit { .. } | ast::Statement::StartTransaction { .. }
            ),
            Statement::StartTransaction { .. } => true,
            _ => false,
        }
}

/// Called before every statement: a write waits while another session
/// holds the global read lock, and fails in the session that holds it.
pub(crate) fn wait_for_writes(s: &Session, stmt: &Statement) -> Result<(), SqlError> {
    let lock = &s.db.read_lock;
    if lock.held.load(Ordering::SeqCst) == 0 {
        return Ok(());
    }
    if commits_changes(s, stmt) {
        // A COMMIT of changed rows waits too (the holder's own cannot
        // exist: taking the lock committed its transaction).
        if lock.held_by(s.id()) {
            return Ok(());
        }
    } else if !writes(stmt) {
        return Ok(());
    }
    if lock.held_by(s.id()) {
        return Err(SqlError::new(
            1223,
            "Can't execute the query because you have a conflicting read lock",
        ));
    }
    let timeout = Duration::from_secs(s.int_var("lock_wait_timeout").max(0) as u64);
    let free = larch_engine::io::blocking::blocking(|| lock.wait_free(s.id(), timeout));
    if free {
        Ok(())
    } else {
        Err(SqlError::new(
            1205,
            "Lock wait timeout exceeded; try restarting transaction",
        ))
    }
}
