//! `FLUSH ...` statements and the global read lock of `FLUSH TABLES WITH
//! READ LOCK` (also what COM_REFRESH runs, through the same statements).
//!
//! - `FLUSH TABLES [t, ...]` (under LOCK TABLES the tables named must be
//!   locked WRITE: 1100, 1099), `LOGS` (and the named logs), `PRIVILEGES`,
//!   `HOSTS`, `STATUS`, `USER_RESOURCES`, `OPTIMIZER_COSTS`: succeed. Larch
//!   keeps no table cache to close, no binary or relay log to rotate, and
//!   reads accounts from the catalog at each login, so there is nothing to
//!   do; the redo log is made durable for `LOGS`; `HOSTS` and
//!   `USER_RESOURCES` reach the server (`server_hooks`: blocked hosts and
//!   login delays, per-hour account counters).
//! - `FLUSH TABLES t, ... WITH READ LOCK`: as `LOCK TABLES t READ, ...`
//!   (MariaDB's behaviour: those tables are read-locked, the session may use
//!   only them, until UNLOCK TABLES).
//! - `FLUSH TABLES WITH READ LOCK`: takes the global read lock
//!   ([`GlobalReadLock`]). It first waits for the write
//!   statements other sessions are running (each marks itself in its
//!   processlist entry while it runs, with one store; the lock is checked
//!   right after, so a statement either sees the lock or is waited for), at
//!   most `lock_wait_timeout` seconds (1205) or until KILL QUERY (1317),
//!   and gives the lock up again if it cannot have it. From its start,
//!   statements that change data or the schema in other sessions wait until
//!   every holder released it (`UNLOCK TABLES`, or the holder's session
//!   ends), with the same limits; once it is complete, so does the COMMIT of
//!   a transaction that changed rows (not before: that transaction's running
//!   statement may be what the lock waits for, as in MariaDB's two phases);
//!   the holder's own writes fail with 1223. Several sessions may hold it at
//!   once, as in MariaDB. Under LOCK TABLES it is refused (1192).
//! - `FLUSH TABLES ... FOR EXPORT` is refused (1235): Larch has no
//!   transportable tablespaces.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use sqlparser::ast;

use crate::error::SqlError;
use crate::metadata_locks::WaitLimit;
use crate::parse::{LockKind, LockTableItem, Statement};
use crate::result::QueryResult;
use crate::session::Session;

/// The sessions holding the global read lock.
#[derive(Debug, Default)]
pub(crate) struct GlobalReadLock {
    /// Holders, and whether each has its lock complete (it waited for the
    /// running writes): only complete locks hold COMMITs back.
    holders: Mutex<HashMap<u64, bool>>,
    /// `holders.len()`, read without the mutex by every statement.
    held: AtomicUsize,
    released: Condvar,
    /// Signalled (under `holders`) when a write statement ends while the
    /// lock is held or wanted.
    writes_done: Condvar,
}

impl GlobalReadLock {
    /// Takes the lock, not complete yet: new writes wait from now on.
    fn acquire(&self, session: u64) {
        let mut h = self.holders.lock();
        h.insert(session, false);
        self.held.store(h.len(), Ordering::SeqCst);
    }

    /// The running writes are done: COMMITs wait too from now on.
    fn complete(&self, session: u64) {
        if let Some(c) = self.holders.lock().get_mut(&session) {
            *c = true;
        }
    }

    fn release(&self, session: u64) {
        let mut h = self.holders.lock();
        if h.remove(&session).is_some() {
            self.held.store(h.len(), Ordering::SeqCst);
            self.released.notify_all();
        }
    }

    fn held_by(&self, session: u64) -> bool {
        self.holders.lock().contains_key(&session)
    }

    /// Waits until no other session holds the lock (`complete_only`: holds
    /// it complete), at most until `until` says (1205 at the deadline, 1317
    /// on KILL QUERY).
    fn wait_free(
        &self,
        session: u64,
        complete_only: bool,
        until: &WaitLimit,
    ) -> Result<(), SqlError> {
        let mut h = self.holders.lock();
        while h
            .iter()
            .any(|(&x, &complete)| x != session && (complete || !complete_only))
        {
            until.check()?;
            let tick = until.deadline.saturating_duration_since(Instant::now());
            self.released.wait_for(&mut h, tick.min(WAIT_TICK));
        }
        Ok(())
    }

    /// Waits until no other session runs a write statement.
    fn wait_writes(&self, s: &Session, until: &WaitLimit) -> Result<(), SqlError> {
        let mut h = self.holders.lock();
        loop {
            let running =
                s.db.processes()
                    .iter()
                    .any(|p| p.id != s.id() && p.running_write.load(Ordering::SeqCst));
            if !running {
                return Ok(());
            }
            until.check()?;
            let tick = until.deadline.saturating_duration_since(Instant::now());
            self.writes_done.wait_for(&mut h, tick.min(WAIT_TICK));
        }
    }
}

/// How often a waiter checks its deadline and the KILL flag.
const WAIT_TICK: Duration = Duration::from_millis(100);
/// The processlist state of a session waiting for the global read lock or
/// for the write statements it waits for, as MariaDB shows it.
const BACKUP_WAIT_STATE: &str = "Waiting for backup lock";

/// Runs `wait` with the processlist showing [`BACKUP_WAIT_STATE`].
fn waiting<T>(s: &Session, wait: impl FnOnce() -> T) -> T {
    let before = s.process.state.lock().wait_state.replace(BACKUP_WAIT_STATE);
    let r = larch_engine::io::blocking::blocking(wait);
    s.process.state.lock().wait_state = before;
    r
}

/// `FLUSH ...`.
pub(crate) fn execute(s: &mut Session, stmt: &ast::Statement) -> Result<QueryResult, SqlError> {
    let ast::Statement::Flush {
        object_type,
        read_lock,
        export,
        tables,
        ..
    } = stmt
    else {
        return Err(SqlError::not_supported("this FLUSH"));
    };
    match object_type {
        ast::FlushType::Tables if *export => {
            Err(SqlError::not_supported("FLUSH TABLES ... FOR EXPORT"))
        }
        ast::FlushType::Tables if *read_lock && !tables.is_empty() => {
            let items: Vec<LockTableItem> = tables
                .iter()
                .map(|t| LockTableItem {
                    name: t.clone(),
                    alias: None,
                    kind: LockKind::Read,
                })
                .collect();
            super::lock_tables::lock(s, &items)
        }
        ast::FlushType::Tables if *read_lock => {
            if s.in_lock_tables() {
                return Err(SqlError::new(
                    1192,
                    "Can't execute the given command because you have active locked tables or an active transaction",
                ));
            }
            // FLUSH commits the open transaction, as every FLUSH does.
            if s.in_transaction() {
                s.commit()?;
            }
            let lock = &s.db.read_lock;
            lock.acquire(s.id());
            let until = s.metadata_wait_limit();
            if let Err(e) = waiting(s, || lock.wait_writes(s, &until)) {
                lock.release(s.id());
                return Err(e);
            }
            lock.complete(s.id());
            Ok(QueryResult::ok())
        }
        ast::FlushType::Hosts => {
            s.db.server_hooks().flush("HOSTS");
            Ok(QueryResult::ok())
        }
        ast::FlushType::UserResources => {
            s.db.server_hooks().flush("USER_RESOURCES");
            Ok(QueryResult::ok())
        }
        ast::FlushType::Logs | ast::FlushType::EngineLogs => {
            let log = s.db.storage().pool().log();
            let lsn = log.current_lsn();
            larch_engine::io::blocking::blocking(|| log.flush_up_to(lsn))?;
            Ok(QueryResult::ok())
        }
        // Under LOCK TABLES, the tables named must be locked for writing
        // (1100, 1099), as MariaDB closes them.
        ast::FlushType::Tables if s.in_lock_tables() => {
            for t in tables {
                let (db, table) = super::names::table_name(s, t)?;
                s.lock_table_for(&db, &table, None, true)?;
            }
            Ok(QueryResult::ok())
        }
        _ => Ok(QueryResult::ok()),
    }
}

/// Releases the global read lock this session holds, if any (UNLOCK
/// TABLES, the session's end).
pub(crate) fn release_read_lock(s: &Session) {
    s.db.read_lock.release(s.id());
}

/// True for statements the global read lock holds back (and waits for).
pub(crate) fn writes(stmt: &Statement) -> bool {
    use ast::Statement as S;
    match stmt {
        Statement::Sql(st) => match st.as_ref() {
            S::Query(_) => false,
            S::Insert(_) | S::Update(_) | S::Delete(_) => true,
            S::Explain { .. }
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
            | S::Flush { .. } => false,
            other => !other.to_string().starts_with("SHOW"),
        },
        Statement::LoadData(_)
        | Statement::AlterTableKeys { .. }
        | Statement::AlterTableEngine { .. }
        | Statement::AlterTable(_)
        | Statement::CreateFulltextIndex { .. } => true,
        Statement::LockTables(items) => items
            .iter()
            .any(|i| i.kind == crate::parse::LockKind::Write),
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
/// Returns true when the statement is a write, marked as running for FLUSH
/// TABLES WITH READ LOCK: the caller ends the mark with [`end_write`].
pub(crate) fn wait_for_writes(s: &Session, stmt: &Statement) -> Result<bool, SqlError> {
    let lock = &s.db.read_lock;
    let write = writes(stmt);
    loop {
        if write {
            s.process.running_write.store(true, Ordering::SeqCst);
        }
        if lock.held.load(Ordering::SeqCst) == 0 {
            return Ok(write);
        }
        if write {
            end_write(s, true);
        } else if !commits_changes(s, stmt) {
            return Ok(false);
        }
        if lock.held_by(s.id()) {
            // The holder's own COMMIT cannot have changes to hold back:
            // taking the lock committed its transaction.
            if !write {
                return Ok(false);
            }
            return Err(SqlError::new(
                1223,
                "Can't execute the query because you have a conflicting read lock",
            ));
        }
        let until = s.metadata_wait_limit();
        waiting(s, || lock.wait_free(s.id(), !write, &until))?;
        if !write {
            return Ok(false);
        }
    }
}

/// Ends the running-write mark [`wait_for_writes`] set (`write` is what it
/// returned), waking a FLUSH TABLES WITH READ LOCK that waits for it.
pub(crate) fn end_write(s: &Session, write: bool) {
    if !write {
        return;
    }
    s.process.running_write.store(false, Ordering::SeqCst);
    let lock = &s.db.read_lock;
    if lock.held.load(Ordering::SeqCst) != 0 {
        let _guard = lock.holders.lock();
        lock.writes_done.notify_all();
    }
}
