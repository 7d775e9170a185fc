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
//!   of an interrupted CREATE or DROP and is dropped ([`Catalog::open`] logs it);
//! - DDL that changes several rows (a copying ALTER or TRUNCATE putting its
//!   rebuilt table in place, a RENAME of several tables) writes what it will
//!   do to the DDL log first, and the next start completes it ([`ddl_log`]).
//!
//! Concurrency: DDL is serialized by one mutex; lookups take a read lock on the
//! cache only. Tables are opened on first use and stay open (an evicting cache
//! comes with the many-tables work). Names compare exactly, as MySQL with
//! `lower_case_table_names=0` on Linux.

pub mod codec;
mod databases;
mod ddl_log;
#[cfg(test)]
mod fulltext_tests;
#[cfg(test)]
mod index_tests;
mod indexes;
mod load;
#[cfg(test)]
mod online_index_tests;
mod routines;
mod system;
mod tables;
#[cfg(test)]
mod tests;
mod triggers;
mod views;

pub use ddl_log::{LoggedDdl, RenameStep};
pub use indexes::{match_indexes, IndexChange, IndexChangeBuild};
pub use routines::{ProgramEntry, ProgramKind};
pub use triggers::TriggerEntry;
pub use views::ViewEntry;

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::error::{EngineError, Result};
use crate::fts::service::FulltextService;
use crate::fts::table_fulltext::TableFulltext;
use crate::record::value::Value;
use crate::storage::Storage;
use crate::table::{
    RowRef, Table, TableCheck, TableDef, TableRoots, TransactionServices, TxnContext,
};

/// Row kinds in the dictionary table.
const KIND_DATABASE: u64 = 1;
const KIND_TABLE: u64 = 2;
const KIND_VIEW: u64 = 3;
/// A stored procedure, function or trigger (see [`routines`]).
const KIND_PROGRAM: u64 = 4;
/// A trigger (see [`triggers`]).
const KIND_TRIGGER: u64 = 5;
/// A DDL log entry (see [`ddl_log`]).
const KIND_DDL_LOG: u64 = 6;
/// A named system object (see [`system`]); a high number leaves room for
/// more schema object kinds.
const KIND_SYSTEM: u64 = 16;

/// Longest database or table name (MySQL's NAME_CHAR_LEN).
pub const MAX_NAME_CHARS: usize = 64;

fn schema_err(errno: u16, message: String) -> EngineError {
    EngineError::Schema { errno, message }
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
    /// The FULLTEXT indexes of open tables that have some, by dictionary
    /// id. They outlive a reopen of their table with other secondary
    /// indexes (their caches move to the new open table).
    open_fulltext: BTreeMap<u64, Arc<TableFulltext>>,
    /// System objects by name: (dictionary id, bytes).
    system: BTreeMap<String, (u64, Vec<u8>)>,
    /// DDL log entries found at load (id, bytes), until recovery applies them.
    ddl_log: Vec<(u64, Vec<u8>)>,
    /// Scratch tables (dictionary id) and their DDL log entry's id.
    scratch: BTreeMap<u64, u64>,
    /// Bumped by every change of a table's entry (create, drop, rename,
    /// metadata), so caches derived from the entries know they are stale.
    tables_generation: u64,
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
    /// Full-text search: the cache budget, settings and sync task of every
    /// FULLTEXT index.
    fulltext: Arc<FulltextService>,
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
    /// The storage the catalog lives in.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    pub(super) fn row(
        id: u64,
        kind: u64,
        schema: &str,
        name: &str,
        def: Vec<u8>,
        meta: &[u8],
    ) -> Vec<Value> {
        vec![
            Value::UInt(id),
            Value::UInt(kind),
            Value::Str(schema.to_string()),
            Value::Str(name.to_string()),
            Value::Bytes(def),
            Value::Bytes(meta.to_vec()),
        ]
    }

    pub(super) fn row_ref(&self, id: u64) -> Result<RowRef> {
        self.dictionary.row_ref(&[Value::UInt(id)])
    }

    /// Writes a dictionary row (its id is `row[0]`) in one mini-transaction,
    /// replacing the row of that id when `replace` (else inserting it), and
    /// makes the change durable before returning.
    pub(super) fn write_row(&self, row: &[Value], replace: bool) -> Result<()> {
        let mut ctx = TxnContext::internal();
        if replace {
            let id = match row.first() {
                Some(Value::UInt(id)) => *id,
                _ => return Err(EngineError::Internal("dictionary row without an id".into())),
            };
            self.dictionary.update(&mut ctx, &self.row_ref(id)?, row)?;
        } else {
            self.dictionary.insert(&mut ctx, row)?;
        }
        self.storage.make_durable()
    }

    /// Deletes the dictionary row `id` durably.
    pub(super) fn delete_row(&self, id: u64) -> Result<()> {
        self.dictionary
            .delete(&mut TxnContext::internal(), &self.row_ref(id)?)?;
        self.storage.make_durable()
    }
}
