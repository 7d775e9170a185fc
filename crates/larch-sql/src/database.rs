//! [`Database`]: one open data directory as the SQL layer serves it, shared
//! by every session (connection) of a server or an embedded user.
//!
//! It owns the engine objects (storage, data dictionary, transaction services
//! and the purge thread),
//! the global values of system variables, the process list and the server's
//! status counters. Sessions are created with [`Database::new_session`].
//!
//! First start: a data directory without a dictionary gets the `test`
//! database, as MariaDB's installer creates it. Accounts and grants live in
//! [`crate::privileges::Acl`]; a data directory without stored accounts has
//! the built-in `root@localhost` (every privilege, empty password; loopback
//! TCP clients match `localhost`).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use larch_engine::catalog::Catalog;
use larch_engine::config::EngineConfig;
use larch_engine::io::OsVfs;
use larch_engine::record::value::Value;
use larch_engine::storage::Storage;
use larch_engine::table::{PurgeWorker, TransactionServices};
use larch_engine::txn::TransactionSystem;
use parking_lot::{Mutex, RwLock};

use crate::error::SqlError;
use crate::session::variables::{self, VarDef};
use crate::session::Session;

/// Version string reported by `VERSION()` and the handshake. Larch speaks
/// MariaDB 10.11's dialect, and drivers and frameworks tell MariaDB from
/// MySQL by "MariaDB" in this string (Django, SQLAlchemy, Connector/C):
/// without it they take a "10.11" server for MySQL and send MySQL 8 syntax.
/// The distribution part after it says Larch, as `@@version_comment` does.
pub const SERVER_VERSION: &str = "10.11.99-MariaDB-Larch";

/// Computes a `caching_sha2_password` crypt string for a password (installed
/// by the server, which owns that algorithm).
pub type Sha2Crypt = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The account a login matched (see [`Database::login_account`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginAccount {
    pub user: String,
    /// The account's host pattern.
    pub host: String,
    pub plugin: String,
    /// The stored secret (`*HEX`, `$A$...`, or empty for no password).
    pub auth: String,
    /// The `REQUIRE` clause and the resource limits.
    pub options: crate::privileges::options::AccountOptions,
    /// SUPER or CONNECTION ADMIN: may take the connection beyond
    /// `max_connections` and is not held to `max_user_connections`.
    pub admin: bool,
}

/// Called by `KILL` with `query_only`.
pub type KillHook = Box<dyn Fn(bool) + Send + Sync>;

/// What a session shows in `SHOW PROCESSLIST` and how `KILL` reaches it.
pub struct ProcessEntry {
    pub id: u64,
    pub user: String,
    pub host: String,
    pub started: Instant,
    /// Current database, command ("Sleep", "Query") and statement text.
    pub state: Mutex<ProcessState>,
    /// Set by `KILL QUERY` (and `KILL CONNECTION`): the running statement stops
    /// at its next row with error 1317.
    pub kill_query: Arc<AtomicBool>,
    /// Set by `KILL [CONNECTION]`: the connection closes after the statement.
    pub kill_connection: AtomicBool,
    /// Why `kill_query` was set: a time limit's [`Interruption`] tag (0:
    /// `KILL`); reset when a statement starts.
    ///
    /// [`Interruption`]: crate::statement_timer::Interruption
    pub(crate) interrupted_by: std::sync::atomic::AtomicU8,
    /// The token of the running statement's time limit; a new one with
    /// every arm and disarm (see [`crate::statement_timer`]).
    pub(crate) timer_token: AtomicU64,
    /// Called by `KILL` so a connection waiting for a client wakes up.
    pub kill_hook: Mutex<Option<KillHook>>,
    /// Set while the connection runs a statement that changes data or the
    /// schema: FLUSH TABLES WITH READ LOCK waits for it to end.
    pub(crate) running_write: AtomicBool,
}

impl std::fmt::Debug for ProcessEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessEntry")
            .field("id", &self.id)
            .field("user", &self.user)
            .field("host", &self.host)
            .finish()
    }
}

/// The changing part of a [`ProcessEntry`].
#[derive(Debug, Clone, Default)]
pub struct ProcessState {
    pub db: Option<String>,
    pub command: &'static str,
    pub info: Option<String>,
    pub since: Option<Instant>,
    /// What a running statement waits for (`Waiting for table metadata
    /// lock`), shown as the processlist state instead of `executing`.
    pub wait_state: Option<&'static str>,
}

impl ProcessState {
    /// The processlist `State`: what a running statement waits for, else
    /// `executing`; empty for an idle connection.
    pub fn state_text(&self) -> &'static str {
        match (self.command, self.wait_state) {
            ("Query", Some(waiting)) => waiting,
            ("Query", None) => "executing",
            _ => "",
        }
    }
}

/// Server-wide counters shown by `SHOW GLOBAL STATUS`.
#[derive(Debug, Default)]
pub struct StatusCounters {
    pub questions: AtomicU64,
    pub connections: AtomicU64,
    pub com_select: AtomicU64,
    pub com_insert: AtomicU64,
    pub com_update: AtomicU64,
    pub com_delete: AtomicU64,
    pub com_commit: AtomicU64,
    pub com_rollback: AtomicU64,
    pub rows_read: AtomicU64,
    pub rows_inserted: AtomicU64,
    pub rows_updated: AtomicU64,
    pub rows_deleted: AtomicU64,
    /// Statements whose groups or rows went to temporary files.
    pub created_tmp_disk_tables: AtomicU64,
    /// Temporary files created.
    pub created_tmp_files: AtomicU64,
    /// Merge passes over sorted runs (`exec::select::sort_runs`).
    pub sort_merge_passes: AtomicU64,
    /// Prepared statements (`session::sql_prepared`): `Com_stmt_*`,
    /// `Com_*_sql` and the `Prepared_stmt_count` gauge.
    pub prepared: crate::session::sql_prepared::PreparedCounters,
}

/// The values `SET GLOBAL` gave system variables, shared by the sessions
/// that started under them: `SET GLOBAL` makes a new map (copy on write), so
/// a session's copy never changes under it.
#[derive(Debug, Clone, Default)]
pub(crate) struct GlobalValues(Arc<HashMap<&'static str, Value>>);

impl GlobalValues {
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    fn contains_key(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

/// See the module documentation.
pub struct Database {
    storage: Arc<Storage>,
    catalog: Arc<Catalog>,
    services: Arc<TransactionServices>,
    /// The purge thread (stopped by [`Database::close`]).
    purge: Mutex<Option<PurgeWorker>>,
    /// The values `SET GLOBAL` gave. Replaced, never changed in place, by
    /// every `SET GLOBAL`: a session holds the map of the moment it started
    /// (see [`GlobalValues`]).
    globals: RwLock<GlobalValues>,
    processes: Mutex<BTreeMap<u64, Arc<ProcessEntry>>>,
    next_connection_id: AtomicU64,
    started: Instant,
    shutdown: AtomicBool,
    shutdown_hook: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
    /// Serialises DDL statements (the dictionary has its own lock; this one
    /// also covers the SQL layer's read-check-write of table metadata).
    pub(crate) ddl_lock: Mutex<()>,
    pub status: StatusCounters,
    /// Extra facts for variables the engine does not know (port, socket...).
    server_facts: RwLock<HashMap<&'static str, Value>>,
    /// GET_LOCK's named locks.
    pub(crate) user_locks: Arc<crate::user_locks::UserLocks>,
    /// Deadlines of statements run under `max_statement_time` or
    /// `max_execution_time`.
    pub(crate) statement_timer: crate::statement_timer::StatementTimer,
    /// Tables' metadata locks (DDL against open transactions).
    pub(crate) metadata_locks: Arc<crate::metadata_locks::MetadataLocks>,
    /// Accounts and grants.
    pub(crate) acl: crate::privileges::Acl,
    sha2_crypt: RwLock<Option<Sha2Crypt>>,
    /// FLUSH TABLES WITH READ LOCK (`exec::flush`).
    pub(crate) read_lock: crate::exec::flush::GlobalReadLock,
    /// FOREIGN KEY constraints by referenced table (`ddl::foreign_index`).
    pub(crate) foreign_keys: crate::ddl::ForeignKeyIndex,
    /// What the server plugs in (status variables, `SET GLOBAL` reactions).
    server_hooks: crate::server_hooks::ServerHooks,
    /// The table `innodb_ft_aux_table` names, by dictionary id.
    pub(crate) fulltext_aux_table: crate::exec::select::innodb_tables::AuxTable,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("datadir", self.storage.datadir())
            .field("catalog", &self.catalog)
            .finish()
    }
}

impl Database {
    /// Opens (creating on first use, recovering after a crash) the data
    /// directory of `config`.
    pub fn open(config: EngineConfig) -> Result<Arc<Database>, SqlError> {
        let storage = Arc::new(Storage::open_or_create(config, Arc::new(OsVfs::new()))?);
        Database::from_storage(storage)
    }

    /// Serves an already open storage.
    pub fn from_storage(storage: Arc<Storage>) -> Result<Arc<Database>, SqlError> {
        let fresh = storage.dictionary_root()?.is_none();
        let catalog = Arc::new(Catalog::open(storage.clone())?);
        if fresh && !catalog.has_database("test") {
            catalog.create_database("test", b"")?;
        }
        let (services, recovered) = TransactionServices::open(&storage)?;
        catalog.set_services(services.clone());
        let weak = Arc::downgrade(&catalog);
        services.set_table_opener(Box::new(move |space, root| {
            weak.upgrade()?.table_by_identity(space, root)
        }));
        let purge = PurgeWorker::start(services.clone(), recovered)?;
        catalog.fulltext().start(services.clone())?;
        crate::session::temporary::drop_leftovers(&catalog);
        let acl = crate::privileges::Acl::load(&catalog)?;
        Ok(Arc::new(Database {
            storage,
            catalog,
            services,
            purge: Mutex::new(Some(purge)),
            globals: RwLock::new(GlobalValues::default()),
            processes: Mutex::new(BTreeMap::new()),
            next_connection_id: AtomicU64::new(1),
            started: Instant::now(),
            shutdown: AtomicBool::new(false),
            shutdown_hook: Mutex::new(None),
            ddl_lock: Mutex::new(()),
            fulltext_aux_table: Default::default(),
            status: StatusCounters::default(),
            server_facts: RwLock::new(HashMap::new()),
            user_locks: Arc::default(),
            statement_timer: Default::default(),
            metadata_locks: Arc::default(),
            acl,
            sha2_crypt: RwLock::new(None),
            read_lock: Default::default(),
            foreign_keys: Default::default(),
            server_hooks: Default::default(),
        }))
    }

    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn transactions(&self) -> &Arc<TransactionSystem> {
        &self.services.system
    }

    /// The engine's transaction services (undo, locks, purge counters).
    pub fn services(&self) -> &Arc<TransactionServices> {
        &self.services
    }

    /// Table names that have a metadata lock object (held, waited for, or
    /// used by a transaction that has not ended).
    pub fn metadata_lock_entries(&self) -> usize {
        self.metadata_locks.entries()
    }

    /// Seconds since the database was opened (`Uptime`).
    pub fn uptime_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// The stored secret of the account a login of `user` from client host
    /// `host` uses (`None`: no account matches). See [`Self::login_account`].
    pub fn account(&self, user: &str, host: &str) -> Option<Vec<u8>> {
        self.login_account(user, host).map(|a| a.auth.into_bytes())
    }

    /// The account a login of `user` from client host `host` uses: the first
    /// matching one in MariaDB's order (most specific host first).
    pub fn login_account(&self, user: &str, host: &str) -> Option<LoginAccount> {
        let acl = self.acl.snapshot();
        acl.login(user, host).map(|a| LoginAccount {
            user: a.user.clone(),
            host: a.host.clone(),
            plugin: a.plugin.clone(),
            auth: a.auth.clone(),
            options: a.options.clone(),
            admin: a.global.contains(crate::privileges::Privs::SUPER)
                || a.global
                    .contains(crate::privileges::Privs::CONNECTION_ADMIN),
        })
    }

    /// Installs the `caching_sha2_password` hashing `CREATE USER ...
    /// IDENTIFIED WITH caching_sha2_password BY 'pw'` uses.
    pub fn set_sha2_crypt(&self, f: Sha2Crypt) {
        *self.sha2_crypt.write() = Some(f);
    }

    /// The `caching_sha2_password` crypt string of `password` (`None`: no
    /// hashing installed).
    pub(crate) fn sha2_crypt(&self, password: &str) -> Option<String> {
        self.sha2_crypt.read().as_ref().and_then(|f| f(password))
    }

    /// A new session for a logged-in client. `connection_id` 0 picks the next
    /// free id (embedded use); a server passes the id of its handshake. The
    /// session runs as the account a login of `user` from `host` matches (an
    /// unmatched name gets no privileges).
    pub fn new_session(
        self: &Arc<Self>,
        connection_id: u64,
        user: &str,
        host: &str,
    ) -> Result<Session, SqlError> {
        let id = if connection_id == 0 {
            self.next_connection_id.fetch_add(1, Ordering::Relaxed)
        } else {
            connection_id
        };
        let entry = Arc::new(ProcessEntry {
            id,
            user: user.to_owned(),
            host: host.to_owned(),
            started: Instant::now(),
            state: Mutex::new(ProcessState {
                command: "Sleep",
                ..ProcessState::default()
            }),
            kill_query: Arc::new(AtomicBool::new(false)),
            kill_connection: AtomicBool::new(false),
            interrupted_by: std::sync::atomic::AtomicU8::new(0),
            timer_token: AtomicU64::new(0),
            kill_hook: Mutex::new(None),
            running_write: AtomicBool::new(false),
        });
        self.processes.lock().insert(id, entry.clone());
        self.status.connections.fetch_add(1, Ordering::Relaxed);
        Session::new(self.clone(), entry)
    }

    pub(crate) fn unregister(&self, id: u64) {
        self.user_locks.release_all(id);
        self.processes.lock().remove(&id);
    }

    /// Every session, in id order.
    pub fn processes(&self) -> Vec<Arc<ProcessEntry>> {
        self.processes.lock().values().cloned().collect()
    }

    /// `KILL [QUERY] id`: false when there is no such session.
    pub fn kill(&self, id: u64, query_only: bool) -> bool {
        let Some(p) = self.processes.lock().get(&id).cloned() else {
            return false;
        };
        p.kill_query.store(true, Ordering::SeqCst);
        if !query_only {
            p.kill_connection.store(true, Ordering::SeqCst);
        }
        if let Some(hook) = p.kill_hook.lock().as_ref() {
            hook(query_only);
        }
        true
    }

    /// Installs what `SHUTDOWN` calls (a server stops accepting and exits).
    pub fn set_shutdown_hook(&self, hook: Box<dyn Fn() + Send + Sync>) {
        *self.shutdown_hook.lock() = Some(hook);
    }

    /// `SHUTDOWN`: marks the database as stopping and calls the hook.
    pub fn request_shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        if let Some(hook) = self.shutdown_hook.lock().as_ref() {
            hook();
        }
    }

    pub fn shutdown_requested(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Makes every committed change durable and writes dirty pages back, for
    /// a clean shutdown.
    pub fn close(&self) -> Result<(), SqlError> {
        if let Some(mut purge) = self.purge.lock().take() {
            purge.stop();
        }
        self.catalog.fulltext().shutdown();
        self.storage.flush_all()?;
        Ok(())
    }

    /// Sets a fact shown as a read-only global variable (`port`, `socket`,
    /// `bind_address`, `max_connections`...), or the start-up global value
    /// of a settable one the server reads itself (`wait_timeout`), for the
    /// server to fill in.
    pub fn set_server_fact(&self, name: &'static str, value: Value) {
        self.server_facts.write().insert(name, value);
    }

    /// The global value of the system variable `name` (`None`: no such
    /// variable), for the server to read its settings.
    pub fn global_variable(&self, name: &str) -> Option<Value> {
        variables::lookup(name).map(|def| self.global_value(def))
    }

    /// The global value of a system variable.
    pub(crate) fn global_value(&self, def: &VarDef) -> Value {
        if let Some(v) = self.globals.read().get(def.name) {
            return v.clone();
        }
        self.unset_global_value(def)
    }

    /// True when `SET GLOBAL` gave the variable its value.
    pub(crate) fn global_is_set(&self, name: &str) -> bool {
        self.globals.read().contains_key(name)
    }

    /// True when the server set the variable's value at start-up.
    pub(crate) fn server_fact_is_set(&self, name: &str) -> bool {
        self.server_facts.read().contains_key(name)
    }

    /// The global values of the moment, which a session copies when it
    /// starts (and again on COM_RESET_CONNECTION), as MariaDB copies
    /// `global_system_variables` into a new connection: a later `SET GLOBAL`
    /// reaches new sessions only.
    pub(crate) fn global_values(&self) -> GlobalValues {
        self.globals.read().clone()
    }

    /// The global value of a variable `SET GLOBAL` never set: what the
    /// server set at start-up, else the default.
    pub(crate) fn unset_global_value(&self, def: &VarDef) -> Value {
        if let Some(v) = self.server_facts.read().get(def.name) {
            return v.clone();
        }
        variables::default_value(def, self)
    }

    /// `SET GLOBAL name = value` (already checked against the definition).
    pub(crate) fn set_global(&self, def: &VarDef, value: Value) {
        {
            let mut globals = self.globals.write();
            Arc::make_mut(&mut globals.0).insert(def.name, value.clone());
        }
        self.server_hooks.global_set(def.name, &value);
    }

    /// The server's hooks: its status variables and its reactions to
    /// `SET GLOBAL` (see [`crate::server_hooks`]).
    pub fn server_hooks(&self) -> &crate::server_hooks::ServerHooks {
        &self.server_hooks
    }
}
