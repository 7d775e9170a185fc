//! [`Session`]: one client's state (a connection of `larchd`, or an embedded
//! user) and the entry points that run SQL text and prepared statements.
//!
//! A session holds its current database, session and user variables, the
//! open transaction, the warnings of the last statement (SHOW WARNINGS),
//! `LAST_INSERT_ID()`, and its prepared statements. Statements run one at a
//! time; `exec` dispatches each parsed statement to the module that executes
//! it. Multi-statement text runs until the first error (MySQL's rule): the
//! results before it are returned together with that error.
//!
//! Transactions: with `autocommit` on, every statement is its own
//! transaction; `BEGIN`/`START TRANSACTION` (or autocommit off) opens one that
//! lasts until COMMIT or ROLLBACK (see `transaction`).

pub mod client_io;
mod diagnostics;
mod execution_state;
pub(crate) use execution_state::ExecutionState;
pub(crate) mod plans;
mod settings;
pub mod sql_prepared;
pub(crate) mod temporary;
mod time_limit;
use settings::HotVars;
pub mod transaction;
pub mod variables;

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use larch_engine::lock::{LockMode, WaitPolicy};
use larch_engine::record::value::Value;
use larch_engine::table::ReadContext;
use larch_engine::txn::{IsolationLevel, Session as TrxSession};

use crate::database::{Database, ProcessEntry, SERVER_VERSION};
use crate::error::{Level, SqlError, Warning};
use crate::eval;
use crate::parse::{ParsedStatement, Statement, StatementCache};
use crate::result::{PreparedDescription, QueryResult};
use transaction::OpenTransaction;

/// Text statements cached per session.
const STATEMENT_CACHE_ENTRIES: usize = 64;

/// A prepared statement.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub statement: Arc<Statement>,
    pub text: Arc<str>,
    pub params: usize,
}

/// The results of a query text: one per statement that ran, and the error
/// that stopped the text, if any.
#[derive(Debug, Default)]
pub struct QueryOutcome {
    pub results: Vec<QueryResult>,
    pub error: Option<SqlError>,
}

/// See the module documentation.
pub struct Session {
    pub(crate) db: Arc<Database>,
    pub(crate) process: Arc<ProcessEntry>,
    pub(crate) current_db: Option<String>,
    /// The account the session runs as, with its cached privileges.
    pub(crate) account: crate::privileges::SessionAccount,
    /// The global values of the moment the session started (or was reset):
    /// what a variable the session did not set reads, as in MariaDB.
    globals: crate::database::GlobalValues,
    /// The values this session's own `SET [SESSION]` gave.
    vars: HashMap<&'static str, Value>,
    /// Variables every statement reads, decoded once; cleared by every SET.
    hot: HotVars,
    /// Commits leave their log flush to the caller ([`Session::take_durable_wait`]).
    pub(crate) defer_durability: bool,
    /// The log must be durable up to here before the client hears of the
    /// commits made since the last [`Session::take_durable_wait`].
    pub(crate) durable_lsn: u64,
    pub(crate) user_vars: crate::eval::uservar::UserVariables,
    pub(crate) last_insert_id: u64,
    /// Diagnostics of the last statement that produced any (SHOW WARNINGS).
    pub(crate) warnings: Vec<Warning>,
    /// `warnings` are the previous statement's, kept by a statement that
    /// reads no tables until it raises a condition (`diagnostics`).
    pub(crate) warnings_stale: bool,
    pub(crate) trx_session: TrxSession,
    pub(crate) txn: Option<OpenTransaction>,
    /// How the current statement reads rows: its snapshot (or newest).
    pub(crate) read: ReadContext,
    /// Set while a locking statement runs (SELECT ... FOR UPDATE / FOR SHARE,
    /// the current read of UPDATE and DELETE): rows are locked as they are read.
    pub(crate) locking: Option<(LockMode, Option<WaitPolicy>)>,
    /// The engine transaction of an autocommit SELECT, for its snapshot.
    pub(crate) reader: Option<larch_engine::txn::Transaction>,
    /// `SET TRANSACTION ...` without GLOBAL/SESSION: the next transaction only.
    pub(crate) next_isolation: Option<IsolationLevel>,
    /// `SET TRANSACTION READ ONLY | READ WRITE` without GLOBAL/SESSION.
    pub(crate) next_read_only: Option<bool>,
    pub(crate) prepared: HashMap<u32, Prepared>,
    /// SQL-level prepared statements by lower-case name (`sql_prepared`).
    pub(crate) named: HashMap<String, Prepared>,
    /// Prepared statements of this session counted in `Prepared_stmt_count`.
    pub(crate) counted_prepared: usize,
    /// The session's temporary tables.
    pub(crate) temporary: temporary::TemporaryTables,
    /// Shared metadata locks of the tables the transaction opened; released
    /// when it ends (`crate::metadata_locks`).
    pub(crate) metadata_locks: std::cell::RefCell<crate::metadata_locks::SessionLocks>,
    cache: StatementCache,
    /// The statement running at the top level (what `plans` are keyed by).
    pub(crate) statement: Option<Arc<Statement>>,
    /// Compiled SELECT blocks of the statements run repeatedly.
    pub(crate) plans: std::cell::RefCell<plans::StatementPlans<crate::exec::select::KeptPlan>>,
    /// Decoded metadata of the tables written to.
    pub(crate) targets: std::cell::RefCell<plans::TargetCache<crate::exec::write::TargetMeta>>,
    /// How the columns of the tables read show (fixed decimals, ZEROFILL).
    pub(crate) shown_columns:
        std::cell::RefCell<plans::TargetCache<Vec<crate::exec::select::ColumnDisplay>>>,
    /// Rows found by the last SELECT (FOUND_ROWS()) and affected by the last
    /// statement (ROW_COUNT()).
    pub(crate) found_rows: u64,
    pub(crate) row_count: i64,
    /// Result sets of the SELECTs a CALL ran, sent before its final OK.
    pub(crate) routine_results: Vec<QueryResult>,
    /// Running triggers and the tables their firing statements change.
    pub(crate) triggers: crate::exec::trigger::TriggerState,
    /// Set while an INSERT, REPLACE, UPDATE or LOAD DATA runs in strict mode
    /// without IGNORE (MariaDB's `abort_on_warning`): with
    /// ERROR_FOR_DIVISION_BY_ZERO, division by zero in anything it evaluates
    /// is error 1365 (`settings::eval_context`).
    pub(crate) strict_statement: bool,
    /// Set when the client asked for CLIENT_FOUND_ROWS (affected rows of an
    /// UPDATE count matched rows).
    pub client_found_rows: bool,
    /// The TLS protocol version of the client connection (`Ssl_version`),
    /// empty when the connection is not encrypted; set by the server.
    pub ssl_version: String,
    /// The TLS cipher of the client connection (`Ssl_cipher`), empty when
    /// the connection is not encrypted; set by the server.
    pub ssl_cipher: String,
    /// Called before each statement with whether it changes data; its
    /// error fails the statement (the server's per-account limits:
    /// `MAX_QUERIES_PER_HOUR`, `MAX_UPDATES_PER_HOUR`, error 1226).
    pub statement_hook: Option<StatementHook>,
    /// What the nested parts of the running statement share.
    pub(crate) execution: ExecutionState,
}

/// See [`Session::statement_hook`].
pub type StatementHook = Box<dyn Fn(bool) -> Result<(), SqlError> + Send + Sync>;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.process.id)
            .field("db", &self.current_db)
            .finish()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.prepared.clear();
        self.named.clear();
        self.count_prepared();
        crate::exec::flush::release_read_lock(self);
        self.leave_lock_tables();
        self.rollback();
        self.drop_temporary_tables();
        self.db.unregister(self.process.id);
    }
}

impl Session {
    pub(crate) fn new(db: Arc<Database>, process: Arc<ProcessEntry>) -> Result<Session, SqlError> {
        let trx_session = db.transactions().register_session()?;
        let account = match db.login_account(&process.user, &process.host) {
            Some(a) => crate::privileges::SessionAccount::new(&a.user, &a.host),
            None => crate::privileges::SessionAccount::new(&process.user, &process.host),
        };
        let globals = db.global_values();
        let session = Session {
            db,
            process,
            current_db: None,
            account,
            globals,
            vars: HashMap::new(),
            hot: HotVars::default(),
            defer_durability: false,
            durable_lsn: 0,
            user_vars: Default::default(),
            last_insert_id: 0,
            warnings: Vec::new(),
            warnings_stale: false,
            trx_session,
            txn: None,
            read: ReadContext::NEWEST,
            locking: None,
            reader: None,
            next_isolation: None,
            next_read_only: None,
            prepared: HashMap::new(),
            named: HashMap::new(),
            counted_prepared: 0,
            temporary: temporary::TemporaryTables::default(),
            metadata_locks: Default::default(),
            cache: StatementCache::new(STATEMENT_CACHE_ENTRIES),
            statement: None,
            plans: Default::default(),
            targets: Default::default(),
            shown_columns: Default::default(),
            found_rows: 0,
            row_count: 0,
            routine_results: Vec::new(),
            triggers: Default::default(),
            strict_statement: false,
            client_found_rows: false,
            ssl_version: String::new(),
            ssl_cipher: String::new(),
            statement_hook: None,
            execution: ExecutionState::default(),
        };
        Ok(session)
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }

    /// The account the session runs as: `(user, host pattern)`.
    pub fn account(&self) -> (&str, &str) {
        (&self.account.user, &self.account.host)
    }

    /// The connection id (`CONNECTION_ID()`).
    pub fn id(&self) -> u64 {
        self.process.id
    }

    /// The current database.
    pub fn current_database(&self) -> Option<&str> {
        self.current_db.as_deref()
    }

    /// `USE db` / COM_INIT_DB: error 1044 without a privilege on it, 1049
    /// for an unknown database.
    pub fn use_database(&mut self, name: &str) -> Result<(), SqlError> {
        crate::privileges::check::use_database(self, name)?;
        let name = crate::exec::names::resolve_database(&self.db, name)?;
        self.current_db = Some(name.clone());
        self.process.state.lock().db = Some(name);
        Ok(())
    }

    /// True inside an explicit transaction (SERVER_STATUS_IN_TRANS).
    pub fn in_transaction(&self) -> bool {
        self.txn.as_ref().is_some_and(|t| t.explicit)
    }

    /// `@@autocommit`.
    pub fn autocommit(&self) -> bool {
        self.autocommit_var()
    }

    /// Warnings and notes of the last statement (for the OK packet's count).
    pub fn warning_count(&self) -> u16 {
        if self.warnings_stale {
            return 0;
        }
        let n = self
            .warnings
            .iter()
            .filter(|w| w.level != Level::Error)
            .count();
        u16::try_from(n).unwrap_or(u16::MAX)
    }

    /// True once `KILL CONNECTION` targeted this session.
    pub fn killed(&self) -> bool {
        self.process.kill_connection.load(Ordering::SeqCst)
    }

    /// Installs what `KILL` calls to wake this connection.
    pub fn set_kill_hook(&self, hook: Box<dyn Fn(bool) + Send + Sync>) {
        *self.process.kill_hook.lock() = Some(hook);
    }

    /// Runs a query text (COM_QUERY): every statement in order until the first
    /// error.
    pub fn query(&mut self, sql: &[u8]) -> QueryOutcome {
        let mut outcome = QueryOutcome::default();
        let statements = match self.parse_query(sql) {
            Ok(s) => s,
            Err(e) => {
                outcome.error = Some(e);
                return outcome;
            }
        };
        for p in statements {
            let r = self.run_statement(&p.statement, &p.text, &[]);
            outcome.results.append(&mut self.routine_results);
            match r {
                Ok(r) => outcome.results.push(r),
                Err(e) => {
                    outcome.error = Some(e);
                    break;
                }
            }
        }
        outcome
    }

    /// Parses a query text (through the statement cache); a syntax error
    /// is recorded for SHOW WARNINGS.
    fn parse_query(&mut self, sql: &[u8]) -> Result<Vec<ParsedStatement>, SqlError> {
        let parsed = match std::str::from_utf8(sql) {
            Ok(text) => self.parse_cached(text),
            Err(_) => crate::parse::parse_with_text(&crate::parse::bytes_to_text(sql)),
        };
        if let Err(e) = &parsed {
            self.record_error(e);
        }
        parsed
    }

    /// Runs one statement's text and returns its result (convenience for
    /// embedded use and tests: a text with several statements is refused).
    pub fn execute(&mut self, sql: &str) -> Result<QueryResult, SqlError> {
        let mut out = self.query(sql.as_bytes());
        if let Some(e) = out.error {
            return Err(e);
        }
        match out.results.len() {
            1 => out.results.pop().ok_or_else(SqlError::empty_query),
            _ => Err(SqlError::new(1064, "execute() takes one statement")),
        }
    }

    fn parse_cached(&mut self, text: &str) -> Result<Vec<ParsedStatement>, SqlError> {
        // One cached statement is the common case (sysbench, drivers); texts
        // with several statements go through the full parse that keeps each
        // statement's text.
        match self.cache.parse(text) {
            Ok(stmts) if stmts.len() == 1 => Ok(vec![ParsedStatement {
                statement: stmts[0].clone(),
                text: text.trim().to_string(),
            }]),
            Ok(_) => crate::parse::parse_with_text(text),
            Err(e) => Err(e),
        }
    }

    /// COM_STMT_PREPARE.
    pub fn prepare(&mut self, stmt_id: u32, sql: &[u8]) -> Result<PreparedDescription, SqlError> {
        let text = crate::parse::bytes_to_text(sql);
        let replaces = self.prepared.contains_key(&stmt_id);
        let (p, description) = self.contain_panic(&text, |s| s.prepare_text(&text, replaces))?;
        self.db
            .status
            .prepared
            .stmt_prepare
            .fetch_add(1, Ordering::Relaxed);
        self.prepared.insert(stmt_id, p);
        self.count_prepared();
        Ok(description)
    }

    /// COM_STMT_EXECUTE with the decoded parameters.
    pub fn execute_prepared(
        &mut self,
        stmt_id: u32,
        params: &[Value],
    ) -> Result<QueryResult, SqlError> {
        self.execute_prepared_with(stmt_id, params, None)
    }

    /// [`Session::execute_prepared`] with the client, which a SELECT may
    /// hand its rows to while it runs (see [`client_io`]).
    pub fn execute_prepared_with(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        io: Option<&mut dyn client_io::ClientIo>,
    ) -> Result<QueryResult, SqlError> {
        let Some(p) = self.prepared.get(&stmt_id).cloned() else {
            return Err(SqlError::new(
                1243,
                format!(
                    "Unknown prepared statement handler ({stmt_id}) given to mysqld_stmt_execute"
                ),
            ));
        };
        if params.len() != p.params {
            return Err(SqlError::new(
                1210,
                "Incorrect arguments to mysqld_stmt_execute",
            ));
        }
        self.db
            .status
            .prepared
            .stmt_execute
            .fetch_add(1, Ordering::Relaxed);
        self.run_statement_with(&p.statement, &p.text, params, io)
    }

    /// Lets the caller make commits durable: a commit then returns once its
    /// log records are in the log buffer (its locks already released, as
    /// InnoDB releases them before the log flush), and the caller awaits
    /// [`take_durable_wait`](Self::take_durable_wait) before it reports the
    /// result, so no thread is parked for the flush. Off by default: a
    /// commit syncs the log before it returns (embedded use).
    pub fn defer_durability(&mut self, on: bool) {
        self.defer_durability = on;
    }

    /// The wait the caller must finish before reporting the statements run
    /// since the last call (`None` when they committed nothing not yet
    /// durable). See [`defer_durability`](Self::defer_durability).
    pub fn take_durable_wait(&mut self) -> Option<larch_engine::wal::DurableWait> {
        let lsn = std::mem::take(&mut self.durable_lsn);
        let log = self.db.storage().pool().log();
        (lsn > log.flushed_lsn()).then(|| log.durable(lsn))
    }

    /// COM_STMT_CLOSE.
    pub fn close_prepared(&mut self, stmt_id: u32) {
        if self.prepared.remove(&stmt_id).is_some() {
            self.db
                .status
                .prepared
                .stmt_close
                .fetch_add(1, Ordering::Relaxed);
        }
        self.count_prepared();
    }

    /// COM_RESET_CONNECTION: rolls back, forgets variables and statements.
    pub fn reset(&mut self) {
        self.rollback();
        self.leave_lock_tables();
        crate::exec::flush::release_read_lock(self);
        self.drop_temporary_tables();
        self.globals = self.db.global_values();
        self.vars.clear();
        self.hot.clear();
        self.user_vars.clear();
        self.prepared.clear();
        self.named.clear();
        self.count_prepared();
        self.plans.get_mut().clear();
        self.targets.get_mut().clear();
        self.warnings.clear();
        self.warnings_stale = false;
        self.last_insert_id = 0;
        self.next_isolation = None;
        self.next_read_only = None;
    }

    pub(crate) fn run_statement(
        &mut self,
        stmt: &Arc<Statement>,
        text: &str,
        params: &[Value],
    ) -> Result<QueryResult, SqlError> {
        self.run_statement_with(stmt, text, params, None)
    }

    /// [`Session::run_statement`] with the client of `query_with`.
    fn run_statement_with(
        &mut self,
        stmt: &Arc<Statement>,
        text: &str,
        params: &[Value],
        io: Option<&mut dyn client_io::ClientIo>,
    ) -> Result<QueryResult, SqlError> {
        let outer = self.statement.replace(stmt.clone());
        let r = self.run_top_statement(stmt, text, params, io);
        self.statement = outer;
        r
    }

    fn run_top_statement(
        &mut self,
        stmt: &Statement,
        text: &str,
        params: &[Value],
        io: Option<&mut dyn client_io::ClientIo>,
    ) -> Result<QueryResult, SqlError> {
        self.db.status.questions.fetch_add(1, Ordering::Relaxed);
        if let Some(hook) = &self.statement_hook {
            hook(crate::exec::flush::writes(stmt))?;
        }
        self.process.kill_query.store(false, Ordering::SeqCst);
        self.process.interrupted_by.store(0, Ordering::SeqCst);
        self.arm_time_limit(stmt);
        {
            let mut st = self.process.state.lock();
            st.command = "Query";
            // The processlist shows the first 1000 characters.
            st.info = Some(if text.len() <= 1000 {
                text.to_owned()
            } else {
                text.chars().take(1000).collect()
            });
            st.since = Some(std::time::Instant::now());
        }
        diagnostics::statement_starts(self, stmt);
        // A statement run inside another (EXECUTE in a routine) decides its
        // own strictness; the outer one's comes back even after a panic.
        let outer_strict = std::mem::replace(&mut self.strict_statement, false);
        let result = self.contain_panic(text, |s| client_io::execute(s, stmt, params, io));
        self.strict_statement = outer_strict;
        self.disarm_time_limit();
        let result = result.map_err(|e| self.interruption_error(e));
        {
            let mut st = self.process.state.lock();
            st.command = "Sleep";
            st.info = None;
            st.since = Some(std::time::Instant::now());
        }
        self.prune_lock_tables();
        let locks = self.metadata_locks.get_mut();
        locks.release_exclusive(&self.db.metadata_locks);
        if self.txn.is_none() {
            locks.release_shared();
        }
        let result = result.map_err(|e| self.qualify_unknown_function(e));
        if let Err(e) = &result {
            self.record_error(e);
        }
        self.note_row_count(&result);
        result
    }

    /// Keeps what ROW_COUNT() reads after a statement that ended with
    /// `result`: its affected rows, -1 after a result set or an error.
    pub(crate) fn note_row_count(&mut self, result: &Result<QueryResult, SqlError>) {
        self.row_count = match result {
            Ok(QueryResult::Ok(info)) => i64::try_from(info.affected_rows).unwrap_or(i64::MAX),
            Ok(QueryResult::Rows(_)) | Err(_) => -1,
        };
    }

    /// Runs `f`, turning a panic into error 1105 after putting the session
    /// back in order ([`Session::recover_from_panic`]; the changes of the
    /// statement `text` are rolled back).
    fn contain_panic<T>(
        &mut self,
        text: &str,
        f: impl FnOnce(&mut Session) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        // Where the open transaction stood: a statement that panics is
        // rolled back to here.
        let mark = self.txn.as_ref().map(|t| t.ctx.mark());
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self))).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(statement = text, panic = what, "statement panicked");
            self.recover_from_panic(mark);
            Err(SqlError::new(1105, format!("Internal error: {what}")))
        })
    }

    /// MariaDB names an unknown function with the current database, as the
    /// stored function it looked for: `FUNCTION test.f does not exist`.
    fn qualify_unknown_function(&self, e: SqlError) -> SqlError {
        match (&e, &self.current_db) {
            (SqlError::Mysql { code, message }, Some(db))
                if *code == crate::error::code::SP_DOES_NOT_EXIST =>
            {
                match message
                    .strip_prefix("FUNCTION ")
                    .and_then(|m| m.strip_suffix(" does not exist"))
                {
                    Some(name) if !name.contains('.') => {
                        SqlError::new(*code, format!("FUNCTION {db}.{name} does not exist"))
                    }
                    _ => e,
                }
            }
            _ => e,
        }
    }

    /// What a plan built now is valid for (`plans`).
    pub(crate) fn plan_key(&self) -> plans::PlanKey {
        plans::PlanKey {
            generation: self.db.catalog().tables_generation(),
            settings: self.hot.epoch(),
            user_var_types: self.user_vars.types_generation(),
            db: self.current_db.clone(),
        }
    }

    /// True when a plan built under `key` is valid now.
    pub(crate) fn plan_valid(&self, key: &plans::PlanKey) -> bool {
        key.matches(
            self.db.catalog().tables_generation(),
            self.hot.epoch(),
            self.user_vars.types_generation(),
            self.current_db.as_deref(),
        )
    }

    /// The statement's error, after the conditions it raised before it
    /// (and between those MariaDB raises with it, `WithConditions`).
    fn record_error(&mut self, e: &SqlError) {
        let (before, after) = match e {
            SqlError::WithConditions { before, after, .. } => (&before[..], &after[..]),
            _ => (&[][..], &[][..]),
        };
        for w in before {
            self.push_warning(w.clone());
        }
        self.push_warning(Warning {
            level: Level::Error,
            code: e.code(),
            message: e.message(),
        });
        for w in after {
            self.push_warning(w.clone());
        }
    }

    /// Adds a diagnostic to the current statement's list.
    pub(crate) fn push_warning(&mut self, w: Warning) {
        if std::mem::take(&mut self.warnings_stale) {
            self.warnings.clear();
        }
        if self.warnings.len() < eval::MAX_WARNINGS {
            self.warnings.push(w);
        }
    }
}
