//! Temporary tables: `CREATE TEMPORARY TABLE` makes a table only its session
//! sees, which shadows a permanent table of the same name and goes away when
//! the session ends.
//!
//! A temporary table is a real table of its database under a hidden name
//! ([`HIDDEN_PREFIX`], the connection id and a counter); the session maps
//! `(database, name)` to it. Name resolution (`exec::names::table_name`,
//! `ddl::table_name`) goes through [`Session::temporary_table`], so every
//! statement of the session reaches the temporary table first; other
//! sessions never get the mapping, and SHOW TABLES and INFORMATION_SCHEMA
//! skip hidden names. The session drops its temporary tables when it ends
//! (and on COM_RESET_CONNECTION); tables left behind by a server that
//! stopped without that are dropped when the data directory is opened
//! ([`drop_leftovers`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use larch_engine::catalog::Catalog;

use super::Session;

/// How the names of the tables the SQL layer makes for itself start
/// (temporary tables, the work tables of a rebuild): MariaDB's `#sql-`
/// behind [`crate::parse::INTERNAL_NAME_MARK`], so that no statement can
/// name one (a user's table may well be called `#sql-x`, as in MariaDB).
pub(crate) const HIDDEN_TABLE_PREFIX: &str = "\u{1}#sql-";

/// How hidden temporary table names start
/// (`<HIDDEN_TABLE_PREFIX>temp-<connection>-<n>`).
pub(crate) const HIDDEN_PREFIX: &str = "\u{1}#sql-temp-";

/// Numbers hidden names.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// True for names no statement lists: temporary tables and the work tables
/// of a rebuild ([`HIDDEN_TABLE_PREFIX`]).
pub(crate) fn is_hidden(name: &str) -> bool {
    name.starts_with(HIDDEN_TABLE_PREFIX)
}

/// A session's temporary tables: `(database, name)` to the hidden name.
#[derive(Debug, Default)]
pub(crate) struct TemporaryTables {
    map: HashMap<(String, String), String>,
}

impl Session {
    /// The hidden name of temporary table `db.name`, if the session has one.
    pub(crate) fn temporary_table(&self, db: &str, name: &str) -> Option<&str> {
        if self.temporary.map.is_empty() {
            return None;
        }
        self.temporary
            .map
            .get(&(db.to_owned(), name.to_owned()))
            .map(String::as_str)
    }

    /// The name statements use for table `db.table`: a temporary table's own
    /// name for its hidden one, any other name unchanged.
    pub(crate) fn visible_table_name(&self, db: &str, table: &str) -> String {
        self.temporary
            .map
            .iter()
            .find(|((d, _), hidden)| d == db && hidden.as_str() == table)
            .map_or_else(|| table.to_owned(), |((_, name), _)| name.clone())
    }

    /// True when `db.table` (a resolved name) is one of the session's
    /// temporary tables.
    pub(crate) fn is_temporary(&self, db: &str, table: &str) -> bool {
        self.temporary
            .map
            .iter()
            .any(|((d, _), hidden)| d == db && hidden == table)
    }

    /// A fresh hidden name for a temporary table of `db` (not registered
    /// until [`Session::add_temporary_table`]).
    pub(crate) fn new_hidden_name(&self, db: &str) -> String {
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let name = format!("{HIDDEN_PREFIX}{}-{n}", self.process.id);
            if self.db.catalog().table_entry(db, &name).is_none() {
                return name;
            }
        }
    }

    /// Registers temporary table `db.name`, stored as `hidden`.
    pub(crate) fn add_temporary_table(&mut self, db: &str, name: &str, hidden: String) {
        self.temporary
            .map
            .insert((db.to_owned(), name.to_owned()), hidden);
    }

    /// Forgets temporary table `db.name` (after it was dropped).
    pub(crate) fn remove_temporary_table(&mut self, db: &str, name: &str) -> Option<String> {
        self.temporary.map.remove(&(db.to_owned(), name.to_owned()))
    }

    /// Drops every temporary table of the session.
    pub(crate) fn drop_temporary_tables(&mut self) {
        let database = self.db.clone();
        for ((db, _), hidden) in std::mem::take(&mut self.temporary.map) {
            let _ddl = database.ddl_lock.lock();
            if let Err(e) = database.catalog().drop_table(&db, &hidden) {
                tracing::warn!(db, table = hidden, error = %e, "dropping a temporary table failed");
            }
        }
    }
}

/// Drops the temporary tables of sessions that ended without dropping them
/// (the server stopped).
pub(crate) fn drop_leftovers(catalog: &Catalog) {
    for db in catalog.databases() {
        for t in catalog.tables(&db).unwrap_or_default() {
            if t.starts_with(HIDDEN_PREFIX) {
                if let Err(e) = catalog.drop_table(&db, &t) {
                    tracing::warn!(db, table = t, error = %e, "dropping a temporary table failed");
                }
            }
        }
    }
}
