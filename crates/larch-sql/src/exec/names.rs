//! Database and table names as MySQL resolves them: `db.t` or `t` in the
//! current database; names are case-sensitive (`lower_case_table_names=0`);
//! a temporary table of the session resolves to its hidden name.
//! Errors: 1046 (no database selected), 1049 (unknown database), 1146 (no
//! such table).

use std::sync::Arc;

use larch_engine::table::Table;
use sqlparser::ast;

use crate::database::Database;
use crate::error::SqlError;
use crate::session::Session;

/// The last part of a dotted name (`db.t` -> `t`).
pub(crate) fn object_last(name: &ast::ObjectName) -> String {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
        .unwrap_or_default()
}

/// `(database, table)` of a table name.
pub(crate) fn table_name(
    s: &Session,
    name: &ast::ObjectName,
) -> Result<(String, String), SqlError> {
    let parts: Vec<String> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.clone())
        .collect();
    let (db, t) = match parts.as_slice() {
        [t] => {
            let db = s.current_db.clone().ok_or_else(SqlError::no_database)?;
            (db, t.clone())
        }
        [db, t] => (db.clone(), t.clone()),
        _ => {
            return Err(SqlError::new(
                1103,
                format!("Incorrect table name '{name}'"),
            ))
        }
    };
    // A temporary table of the session shadows the permanent one.
    match s.temporary_table(&db, &t) {
        Some(hidden) => {
            let hidden = hidden.to_owned();
            Ok((db, hidden))
        }
        None => Ok((db, t)),
    }
}

/// The named database, or 1049.
pub(crate) fn resolve_database(db: &Database, name: &str) -> Result<String, SqlError> {
    if db.catalog().has_database(name) || is_virtual_database(name) {
        Ok(name.to_owned())
    } else {
        Err(SqlError::unknown_database(name))
    }
}

/// Databases that exist without the catalog (information_schema).
pub(crate) fn is_virtual_database(name: &str) -> bool {
    name.eq_ignore_ascii_case("information_schema")
}

/// Opens a table, with 1146 when it does not exist (1049 is not used here:
/// MySQL reports a missing table in a missing database as 1146 too).
/// `alias` is the name the statement uses it by (`None`: not checked) and
/// `write` says whether the statement changes its rows: together they pick
/// the metadata lock, and under LOCK TABLES they are checked against the
/// locked tables (1100, 1099).
pub(crate) fn open_table(
    s: &Session,
    db: &str,
    table: &str,
    alias: Option<&str>,
    write: bool,
) -> Result<Arc<Table>, SqlError> {
    // The metadata lock comes first: the table found is then the one the
    // transaction keeps until it ends.
    s.lock_table_for(db, table, alias, write)?;
    // The catalog answers 1146 itself; no copy of the dictionary entry.
    s.db.catalog().table(db, table).map_err(|e| {
        s.unlock_missing_table(db, table);
        e.into()
    })
}
