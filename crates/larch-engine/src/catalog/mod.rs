//! The data dictionary: databases and tables, stored in an engine table in the
//! system tablespace, with an in-memory cache of definitions and open tables.
//!
//! Storage: one dictionary table (`DICTIONARY_DEF`) whose root page is recorded
//! in the system page. Each database and each table is ONE row, keyed by a
//! dictionary id that never changes:
//! `(id, kind, schema, name, definition, sql_meta)`, where `definition` is the
//! engine's [`TableDef`] and index roots ([`codec`]) and `sql_meta` is an opaque
//! byte string the SQL layer keeps there (defaults, auto-increment, comments,
//! the original DDL text). Every DDL step on the dictionary is therefore a
//! single B+tree change in a single mini-transaction, which is atomic under
//! crash recovery; a long definition goes off-page first, and a crash before
//! the row change only leaks those pages.
//!
//! Crash-safe DDL without undo (the transaction issue replaces the reconciling
//! step with transactional DDL):
//! - CREATE TABLE creates the tablespace and its trees, then inserts the row
//!   and flushes the redo log: the table exists exactly when the row does;
//! - DROP TABLE deletes the row (durably), then drops the tablespace;
//! - RENAME TABLE rewrites the row in place (same key), one atomic change;
//! - at start-up, a file-per-table tablespace no row refers to is the remnant
//!   of an interrupted CREATE or DROP and is dropped ([`Catalog::open`] logs it).
//!
//! Concurrency: DDL is serialized by one mutex; lookups take a read lock on the
//! cache only. Tables are opened on first use and stay open (an evicting cache
//! comes with the many-tables work). Names compare exactly, as MySQL with
//! `lower_case_table_names=0` on Linux.

pub mod codec;
mod routines;
mod system;
#[cfg(test)]
mod tests;
mod triggers;
mod views;

pub use routines::{ProgramEntry, ProgramKind};
pub use triggers::TriggerEntry;
pub use views::ViewEntry;

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::error::{EngineError, Result};
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, LobKind, Value};
use crate::space::SYSTEM_SPACE;
use crate::storage::Storage;
use crate::table::{
    ColumnDef, IndexDef, KeyRange, ReadContext, RowRef, Table, TableCheck, TableDef, TableRoots,
    TransactionServices, TxnContext, CLUSTERED,
};

/// Row kinds in the dictionary table.
const KIND_DATABASE: u64 = 1;
const KIND_TABLE: u64 = 2;
const KIND_VIEW: u64 = 3;
/// A stored procedure, function or trigger (see [`routines`]).
const KIND_PROGRAM: u64 = 4;
/// A trigger (see [`triggers`]).
const KIND_TRIGGER: u64 = 5;
/// A named system object (see [`system`]); a high number leaves room for
/// more schema object kinds.
const KIND_SYSTEM: u64 = 16;

/// Longest database or table name (MySQL's NAME_CHAR_LEN).
pub const MAX_NAME_CHARS: usize = 64;

fn schema_err(errno: u16, message: String) -> EngineError {
    EngineError::Schema { errno, message }
}

/// The dictionary table's own definition.
fn dictionary_def() -> TableDef {
    let name = |n: &str| {
        ColumnDef::new(
            n,
            ColumnType::Varchar {
                max_len: 256,
                collation: Collation::Utf8mb4Bin,
            },
        )
    };
    let blob = |n: &str| {
        ColumnDef::new(
            n,
            ColumnType::Blob {
                kind: LobKind::Long,
            },
        )
    };
    TableDef {
        name: "larch_dictionary".into(),
        columns: vec![
            ColumnDef::new(
                "id",
                ColumnType::Int {
                    bytes: 8,
                    unsigned: true,
                },
            ),
            ColumnDef::new(
                "kind",
                ColumnType::Int {
                    bytes: 1,
                    unsigned: true,
                },
            ),
            name("schema_name"),
            name("name"),
            blob("definition"),
            blob("sql_meta"),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![],
        auto_increment: None,
    }
}

/// A table known to the dictionary.
#[derive(Debug, Clone)]
pub struct TableEntry {
    /// Dictionary id (stable across renames).
    pub id: u64,
    pub schema: String,
    pub name: String,
    pub def: TableDef,
    pub roots: TableRoots,
    /// The SQL layer's metadata for the table.
    pub sql_meta: Vec<u8>,
}

#[derive(Debug, Clone)]
struct DatabaseEntry {
    id: u64,
    sql_meta: Vec<u8>,
}

#[derive(Default)]
struct Cache {
    next_id: u64,
    databases: BTreeMap<String, DatabaseEntry>,
    tables: BTreeMap<(String, String), TableEntry>,
    views: BTreeMap<(String, String), ViewEntry>,
    programs: BTreeMap<routines::ProgramKey, ProgramEntry>,
    triggers: BTreeMap<triggers::TriggerKey, TriggerEntry>,
    open: BTreeMap<u64, Arc<Table>>,
    /// System objects by name: (dictionary id, bytes).
    system: BTreeMap<String, (u64, Vec<u8>)>,
}

/// What [`Catalog::check_tables`] found.
#[derive(Debug, Clone, Default)]
pub struct DictionaryCheck {
    /// `db.table` and its check, in name order.
    pub tables: Vec<(String, TableCheck)>,
    /// Tablespaces no table refers to.
    pub orphans: Vec<String>,
}

/// The data dictionary of an open data directory. See the module documentation.
pub struct Catalog {
    storage: Arc<Storage>,
    /// Attached to every user table opened (versioned reads, undo, locks).
    services: std::sync::OnceLock<Arc<TransactionServices>>,
    dictionary: Table,
    cache: RwLock<Cache>,
    ddl: Mutex<()>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.cache.read();
        f.debug_struct("Catalog")
            .field("databases", &c.databases.len())
            .field("tables", &c.tables.len())
            .finish()
    }
}

fn check_name(kind: &str, name: &str) -> Result<()> {
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.ends_with(' ') {
        return Err(schema_err(
            if kind == "database" { 1102 } else { 1103 },
            format!(
                "Incorrect {} name '{name}'",
                if kind == "database" {
                    "database"
                } else {
                    "table"
                }
            ),
        ));
    }
    Ok(())
}

/// A file-system-safe form of a name: ASCII letters, digits and `_` stay,
/// every other character becomes `@` and its code point in 4 hex digits (as
/// MySQL's file name encoding does for most characters).
pub fn file_name_of(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            out.push(ch);
        } else {
            let mut units = [0u16; 2];
            for u in ch.encode_utf16(&mut units) {
                out.push_str(&format!("@{u:04x}"));
            }
        }
    }
    out
}

impl Catalog {
    /// Opens the dictionary of `storage`, creating it in a new data directory,
    /// and drops tablespaces no table refers to (remnants of interrupted DDL).
    pub fn open(storage: Arc<Storage>) -> Result<Catalog> {
        let catalog = Self::load_dictionary(storage)?;
        for id in catalog.orphan_spaces()? {
            let name = catalog.storage.spaces().get(id)?.name.clone();
            tracing::warn!(space = id, file = %name, "dropping a tablespace no table refers to (left by an interrupted CREATE or DROP TABLE)");
            catalog.storage.drop_tablespace(id)?;
        }
        Ok(catalog)
    }

    /// Opens the dictionary for verification only: nothing is created or
    /// dropped. `None` when the data directory has no dictionary yet.
    pub fn open_for_check(storage: Arc<Storage>) -> Result<Option<Catalog>> {
        if storage.dictionary_root()?.is_none() {
            return Ok(None);
        }
        Self::load_dictionary(storage).map(Some)
    }

    fn load_dictionary(storage: Arc<Storage>) -> Result<Catalog> {
        let dictionary = match storage.dictionary_root()? {
            Some(root) => Table::open(
                &storage,
                dictionary_def(),
                &TableRoots {
                    space: SYSTEM_SPACE,
                    clustered: root,
                    secondary: vec![],
                },
            )?,
            None => {
                let t = Table::create(&storage, dictionary_def(), SYSTEM_SPACE)?;
                storage.set_dictionary_root(t.roots().clustered)?;
                t
            }
        };
        let catalog = Catalog {
            storage,
            services: std::sync::OnceLock::new(),
            dictionary,
            cache: RwLock::new(Cache::default()),
            ddl: Mutex::new(()),
        };
        catalog.load()?;
        Ok(catalog)
    }

    fn load(&self) -> Result<()> {
        let mut cache = Cache {
            next_id: 1,
            ..Cache::default()
        };
        let mut c = self.dictionary.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            false,
            None,
        )?;
        while let Some((_, row)) = c.next_row()? {
            let (id, kind, schema, name, def, meta) = match row.as_slice() {
                [Value::UInt(id), Value::UInt(kind), Value::Str(s), Value::Str(n), Value::Bytes(d), Value::Bytes(m)] => {
                    (*id, *kind, s.clone(), n.clone(), d, m.clone())
                }
                _ => {
                    return Err(EngineError::Internal(format!(
                        "dictionary row of unexpected shape: {row:?}"
                    )))
                }
            };
            cache.next_id = cache.next_id.max(id + 1);
            match kind {
                KIND_DATABASE => {
                    cache
                        .databases
                        .insert(name, DatabaseEntry { id, sql_meta: meta });
                }
                KIND_TABLE => {
                    let (def, roots) = codec::decode(def)?;
                    cache.tables.insert(
                        (schema.clone(), name.clone()),
                        TableEntry {
                            id,
                            schema,
                            name,
                            def,
                            roots,
                            sql_meta: meta,
                        },
                    );
                }
                KIND_VIEW => {
                    cache.views.insert(
                        (schema.clone(), name.clone()),
                        ViewEntry {
                            id,
                            schema,
                            name,
                            definition: def.clone(),
                        },
                    );
                }
                KIND_PROGRAM => {
                    let kind = meta
                        .first()
                        .and_then(|b| ProgramKind::from_byte(*b))
                        .ok_or_else(|| {
                            EngineError::Internal(format!(
                                "dictionary row {id} has no program kind"
                            ))
                        })?;
                    cache.programs.insert(
                        routines::key(&schema, kind, &name),
                        ProgramEntry {
                            id,
                            kind,
                            schema,
                            name,
                            definition: def.clone(),
                        },
                    );
                }
                KIND_TRIGGER => {
                    let table = String::from_utf8(meta).map_err(|_| {
                        EngineError::Internal(format!("dictionary row {id} has a bad table name"))
                    })?;
                    cache.triggers.insert(
                        (schema.clone(), name.clone()),
                        TriggerEntry {
                            id,
                            schema,
                            name,
                            table,
                            definition: def.clone(),
                        },
                    );
                }
                KIND_SYSTEM => {
                    cache.system.insert(name, (id, meta));
                }
                _ => {
                    return Err(EngineError::Internal(format!(
                        "dictionary row {id} has unknown kind {kind}"
                    )))
                }
            }
        }
        *self.cache.write() = cache;
        Ok(())
    }

    /// File-per-table tablespaces that no table refers to.
    pub fn orphan_spaces(&self) -> Result<Vec<u32>> {
        let used: Vec<u32> = self
            .cache
            .read()
            .tables
            .values()
            .map(|t| t.roots.space)
            .collect();
        let first_user_space = self.storage.config().undo_tablespaces + 1;
        Ok(self
            .storage
            .spaces()
            .ids()
            .into_iter()
            .filter(|id| *id >= first_user_space && !used.contains(id))
            .collect())
    }

    /// `CHECK TABLE` of every table (see [`Table::check`]), in name order, plus
    /// a problem for every tablespace no table refers to.
    pub fn check_tables(&self) -> Result<DictionaryCheck> {
        let names: Vec<(String, String)> = self.cache.read().tables.keys().cloned().collect();
        let mut out = Vec::with_capacity(names.len());
        for (schema, name) in names {
            let report = self.table(&schema, &name)?.check()?;
            out.push((format!("{schema}.{name}"), report));
        }
        let mut orphans = Vec::new();
        for id in self.orphan_spaces()? {
            let file = self.storage.spaces().get(id)?.name.clone();
            orphans.push(format!("tablespace {id} ('{file}') belongs to no table"));
        }
        Ok(DictionaryCheck {
            tables: out,
            orphans,
        })
    }

    /// The storage the catalog lives in.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    fn row(id: u64, kind: u64, schema: &str, name: &str, def: Vec<u8>, meta: &[u8]) -> Vec<Value> {
        vec![
            Value::UInt(id),
            Value::UInt(kind),
            Value::Str(schema.to_string()),
            Value::Str(name.to_string()),
            Value::Bytes(def),
            Value::Bytes(meta.to_vec()),
        ]
    }

    fn row_ref(&self, id: u64) -> Result<RowRef> {
        self.dictionary.row_ref(&[Value::UInt(id)])
    }

    /// Creates a database (error 1007 if it exists).
    pub fn create_database(&self, name: &str, sql_meta: &[u8]) -> Result<()> {
        check_name("database", name)?;
        let _ddl = self.ddl.lock();
        if self.cache.read().databases.contains_key(name) {
            return Err(schema_err(
                1007,
                format!("Can't create database '{name}'; database exists"),
            ));
        }
        let id = self.cache.read().next_id;
        let dir = self.storage.spaces().path_of(&file_name_of(name));
        self.storage.spaces().vfs().create_dir_all(&dir)?;
        self.dictionary.insert(
            &mut TxnContext::internal(),
            &Self::row(id, KIND_DATABASE, "", name, Vec::new(), sql_meta),
        )?;
        self.storage.make_durable()?;
        let mut c = self.cache.write();
        c.next_id = id + 1;
        c.databases.insert(
            name.to_string(),
            DatabaseEntry {
                id,
                sql_meta: sql_meta.to_vec(),
            },
        );
        Ok(())
    }

    /// Drops a database and every table, view and stored program in it (error 1008 if it
    /// does not exist). Returns the names of the dropped tables.
    pub fn drop_database(&self, name: &str) -> Result<Vec<String>> {
        let tables = self.tables(name)?;
        self.drop_programs_of(name)?;
        self.drop_triggers_of(name)?;
        for v in self.views(name) {
            self.drop_view(name, &v)?;
        }
        for t in &tables {
            self.drop_table(name, t)?;
        }
        let _ddl = self.ddl.lock();
        let Some(db) = self.cache.read().databases.get(name).cloned() else {
            return Err(schema_err(
                1008,
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        };
        self.dictionary
            .delete(&mut TxnContext::internal(), &self.row_ref(db.id)?)?;
        self.storage.make_durable()?;
        self.cache.write().databases.remove(name);
        Ok(tables)
    }

    /// Every database name, sorted.
    pub fn databases(&self) -> Vec<String> {
        self.cache.read().databases.keys().cloned().collect()
    }

    /// True when the database exists.
    pub fn has_database(&self, name: &str) -> bool {
        self.cache.read().databases.contains_key(name)
    }

    /// The SQL layer's metadata of a database.
    pub fn database_meta(&self, name: &str) -> Option<Vec<u8>> {
        self.cache
            .read()
            .databases
            .get(name)
            .map(|d| d.sql_meta.clone())
    }

    fn unknown_database(name: &str) -> EngineError {
        schema_err(1049, format!("Unknown database '{name}'"))
    }

    /// Table names of a database, sorted (error 1049 if it does not exist).
    pub fn tables(&self, schema: &str) -> Result<Vec<String>> {
        let c = self.cache.read();
        if !c.databases.contains_key(schema) {
            return Err(Self::unknown_database(schema));
        }
        Ok(c.tables
            .keys()
            .filter(|(s, _)| s == schema)
            .map(|(_, n)| n.clone())
            .collect())
    }

    /// Attaches the transaction services to user tables opened from now on.
    /// Call before any user table is opened.
    pub fn set_services(&self, services: Arc<TransactionServices>) {
        if self.services.set(services).is_err() {
            tracing::warn!("the catalog's transaction services were already set");
        }
    }

    /// Wraps a user table, with the services attached and registered.
    fn attach(&self, table: Table) -> Arc<Table> {
        match self.services.get() {
            Some(s) => {
                let t = Arc::new(table.with_services(s));
                s.register_table(&t);
                t
            }
            None => Arc::new(table),
        }
    }

    /// The table whose clustered index is `root` in tablespace `space` (what
    /// undo records name), opened if needed.
    pub fn table_by_identity(&self, space: u32, root: u32) -> Option<Arc<Table>> {
        let (schema, name) = self
            .cache
            .read()
            .tables
            .values()
            .find(|e| e.roots.space == space && e.roots.clustered == root)
            .map(|e| (e.schema.clone(), e.name.clone()))?;
        self.table(&schema, &name).ok()
    }

    /// The dictionary entry of a table, if it exists.
    pub fn table_entry(&self, schema: &str, name: &str) -> Option<TableEntry> {
        self.cache
            .read()
            .tables
            .get(&(schema.to_string(), name.to_string()))
            .cloned()
    }

    /// The open table `schema.name` (error 1146 if it does not exist).
    pub fn table(&self, schema: &str, name: &str) -> Result<Arc<Table>> {
        let key = (schema.to_string(), name.to_string());
        let id = {
            let c = self.cache.read();
            let Some(e) = c.tables.get(&key) else {
                return Err(schema_err(
                    1146,
                    format!("Table '{schema}.{name}' doesn't exist"),
                ));
            };
            if let Some(t) = c.open.get(&e.id) {
                return Ok(t.clone());
            }
            e.id
        };
        let mut c = self.cache.write();
        if let Some(t) = c.open.get(&id) {
            return Ok(t.clone());
        }
        let e = c
            .tables
            .get(&key)
            .filter(|e| e.id == id)
            .cloned()
            .ok_or_else(|| schema_err(1146, format!("Table '{schema}.{name}' doesn't exist")))?;
        let t = self.attach(Table::open(&self.storage, e.def, &e.roots)?);
        c.open.insert(id, t.clone());
        Ok(t)
    }

    /// Creates a table in its own tablespace (errors 1049, 1050, and the
    /// definition errors of [`TableDef::validate`]).
    pub fn create_table(&self, schema: &str, def: TableDef, sql_meta: &[u8]) -> Result<Arc<Table>> {
        check_name("table", &def.name)?;
        let name = def.name.clone();
        let _ddl = self.ddl.lock();
        let id = {
            let c = self.cache.read();
            if !c.databases.contains_key(schema) {
                return Err(Self::unknown_database(schema));
            }
            let key = (schema.to_string(), name.clone());
            if c.tables.contains_key(&key) || c.views.contains_key(&key) {
                return Err(schema_err(1050, format!("Table '{name}' already exists")));
            }
            c.next_id
        };
        let file = self.free_file_name(schema, &name, id);
        let table = Table::create_file_per_table(&self.storage, def.clone(), &file)?;
        let roots = table.roots();
        let row = Self::row(
            id,
            KIND_TABLE,
            schema,
            &name,
            codec::encode(&def, &roots)?,
            sql_meta,
        );
        if let Err(e) = self
            .dictionary
            .insert(&mut TxnContext::internal(), &row)
            .and_then(|_| self.storage.make_durable())
        {
            drop(table);
            if let Err(drop_err) = self.storage.drop_tablespace(roots.space) {
                tracing::warn!(error = %drop_err, "could not remove the tablespace of a failed CREATE TABLE");
            }
            return Err(e);
        }
        let table = self.attach(table);
        let mut c = self.cache.write();
        c.next_id = id + 1;
        c.tables.insert(
            (schema.to_string(), name.clone()),
            TableEntry {
                id,
                schema: schema.to_string(),
                name,
                def,
                roots,
                sql_meta: sql_meta.to_vec(),
            },
        );
        c.open.insert(id, table.clone());
        Ok(table)
    }

    /// `<db>/<table>.ibd`, or with the dictionary id appended when a renamed
    /// table still uses that file name.
    fn free_file_name(&self, schema: &str, name: &str, id: u64) -> String {
        let base = format!("{}/{}", file_name_of(schema), file_name_of(name));
        let plain = format!("{base}.ibd");
        let vfs = self.storage.spaces().vfs();
        if vfs.exists(&self.storage.spaces().path_of(&plain)) {
            format!("{base}@@{id}.ibd")
        } else {
            plain
        }
    }

    /// Drops a table and its tablespace (error 1051 if it does not exist).
    pub fn drop_table(&self, schema: &str, name: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let Some(e) = self.cache.read().tables.get(&key).cloned() else {
            return Err(schema_err(1051, format!("Unknown table '{schema}.{name}'")));
        };
        self.dictionary
            .delete(&mut TxnContext::internal(), &self.row_ref(e.id)?)?;
        self.storage.make_durable()?;
        {
            let mut c = self.cache.write();
            c.tables.remove(&key);
            c.open.remove(&e.id);
        }
        self.storage.drop_tablespace(e.roots.space)
    }

    /// Renames a table, possibly into another database (errors 1049, 1050, 1146).
    pub fn rename_table(
        &self,
        schema: &str,
        name: &str,
        new_schema: &str,
        new_name: &str,
    ) -> Result<()> {
        check_name("table", new_name)?;
        if self.is_view(schema, name) {
            return self.rename_view(schema, name, new_schema, new_name);
        }
        let _ddl = self.ddl.lock();
        let (e, id) = {
            let c = self.cache.read();
            let Some(e) = c
                .tables
                .get(&(schema.to_string(), name.to_string()))
                .cloned()
            else {
                return Err(schema_err(
                    1146,
                    format!("Table '{schema}.{name}' doesn't exist"),
                ));
            };
            if !c.databases.contains_key(new_schema) {
                return Err(Self::unknown_database(new_schema));
            }
            let new_key = (new_schema.to_string(), new_name.to_string());
            if c.tables.contains_key(&new_key) || c.views.contains_key(&new_key) {
                return Err(schema_err(
                    1050,
                    format!("Table '{new_name}' already exists"),
                ));
            }
            let id = e.id;
            (e, id)
        };
        let mut def = e.def.clone();
        def.name = new_name.to_string();
        let row = Self::row(
            id,
            KIND_TABLE,
            new_schema,
            new_name,
            codec::encode(&def, &e.roots)?,
            &e.sql_meta,
        );
        self.dictionary
            .update(&mut TxnContext::internal(), &self.row_ref(id)?, &row)?;
        self.storage.make_durable()?;
        let mut c = self.cache.write();
        c.tables.remove(&(schema.to_string(), name.to_string()));
        c.tables.insert(
            (new_schema.to_string(), new_name.to_string()),
            TableEntry {
                schema: new_schema.to_string(),
                name: new_name.to_string(),
                def,
                ..e
            },
        );
        Ok(())
    }

    /// Replaces the SQL layer's metadata of a table (one atomic change).
    pub fn set_table_meta(&self, schema: &str, name: &str, sql_meta: &[u8]) -> Result<()> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let Some(e) = self.cache.read().tables.get(&key).cloned() else {
            return Err(schema_err(
                1146,
                format!("Table '{schema}.{name}' doesn't exist"),
            ));
        };
        let row = Self::row(
            e.id,
            KIND_TABLE,
            schema,
            name,
            codec::encode(&e.def, &e.roots)?,
            sql_meta,
        );
        self.dictionary
            .update(&mut TxnContext::internal(), &self.row_ref(e.id)?, &row)?;
        self.storage.make_durable()?;
        if let Some(t) = self.cache.write().tables.get_mut(&key) {
            t.sql_meta = sql_meta.to_vec();
        }
        Ok(())
    }
}
