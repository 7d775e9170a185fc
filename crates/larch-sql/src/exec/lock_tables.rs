//! `LOCK TABLES` and `UNLOCK TABLES` (the rules of locked tables mode are in
//! `crate::metadata_locks::locked_tables`).
//!
//! LOCK TABLES releases the session's earlier table locks, commits its open
//! transaction, resolves every name (a view brings its base tables, nested
//! views included, in the view's mode; temporary tables are not locked: they
//! are private anyway), then takes all the metadata locks together: READ is
//! `ReadOnly`, READ LOCAL `SharedRead` (other sessions may still write, as
//! with InnoDB), `[LOW_PRIORITY] WRITE` `NoReadWrite`. A missing table is
//! 1146, checked again once the locks are held (a DROP may have run while
//! LOCK TABLES waited).
//!
//! UNLOCK TABLES commits the open transaction when tables were locked, leaves
//! locked tables mode and releases the global read lock of FLUSH TABLES WITH
//! READ LOCK.

use std::ops::ControlFlow;

use sqlparser::ast;

use crate::error::SqlError;
use crate::metadata_locks::{LockedTable, Mode};
use crate::parse::{LockKind, LockTableItem};
use crate::result::QueryResult;
use crate::session::Session;

use super::names;

/// Views nest at most this deep when their base tables are collected.
const MAX_VIEW_DEPTH: usize = 64;

fn mode_of(kind: LockKind) -> Mode {
    match kind {
        LockKind::Read => Mode::ReadOnly,
        LockKind::ReadLocal => Mode::SharedRead,
        LockKind::Write => Mode::NoReadWrite,
    }
}

/// True when `db`.`table` is a table or a view.
fn exists(s: &Session, db: &str, table: &str) -> bool {
    s.db.catalog().table_entry(db, table).is_some() || s.db.catalog().is_view(db, table)
}

/// The base tables (and nested views) of the view `db`.`name`, added to
/// `out` as implicit entries.
fn view_tables(
    s: &Session,
    db: &str,
    name: &str,
    write: bool,
    depth: usize,
    out: &mut Vec<LockedTable>,
) -> Result<(), SqlError> {
    let Some(entry) = s.db.catalog().view(db, name) else {
        return Ok(());
    };
    if depth > MAX_VIEW_DEPTH {
        return Err(super::select::view::invalid(db, name));
    }
    let def = crate::ddl::ViewDef::decode(&entry.definition)?;
    let mut query = super::select::view::parse_select(&def.select)
        .map_err(|_| super::select::view::invalid(db, name))?;
    super::select::view::qualify(&mut query, db);
    let mut relations = Vec::new();
    let _ = ast::visit_relations(&query, |r: &ast::ObjectName| {
        let parts: Vec<String> =
            r.0.iter()
                .filter_map(|p| p.as_ident())
                .map(|i| i.value.clone())
                .collect();
        if let [d, t] = parts.as_slice() {
            relations.push((d.clone(), t.clone()));
        }
        ControlFlow::<()>::Continue(())
    });
    for (d, t) in relations {
        if names::is_virtual_database(&d) || out.iter().any(|e| e.db == d && e.table == t) {
            continue;
        }
        out.push(LockedTable {
            db: d.clone(),
            table: t.clone(),
            alias: t.clone(),
            write,
            implicit: true,
        });
        view_tables(s, &d, &t, write, depth + 1, out)?;
    }
    Ok(())
}

/// `LOCK TABLES t [[AS] alias] lock_type, ...`.
pub(crate) fn lock(s: &mut Session, items: &[LockTableItem]) -> Result<QueryResult, SqlError> {
    s.leave_lock_tables();
    s.commit()?;
    let mut entries = Vec::with_capacity(items.len());
    let mut wanted = Vec::with_capacity(items.len());
    let mut implicit = Vec::new();
    for item in items {
        let (db, table) = names::table_name(s, &item.name)?;
        if crate::session::temporary::is_hidden(&table) {
            continue;
        }
        if names::is_virtual_database(&db) {
            return Err(SqlError::new(
                1044,
                format!(
                    "Access denied for user '{}'@'{}' to database '{db}'",
                    s.account.user, s.account.host
                ),
            ));
        }
        if !exists(s, &db, &table) {
            return Err(SqlError::no_such_table(&db, &table));
        }
        let mode = mode_of(item.kind);
        let write = item.kind == LockKind::Write;
        let mut base = Vec::new();
        view_tables(s, &db, &table, write, 0, &mut base)?;
        for b in &base {
            wanted.push((b.db.clone(), b.table.clone(), mode));
        }
        implicit.extend(base);
        wanted.push((db.clone(), table.clone(), mode));
        entries.push(LockedTable {
            alias: item
                .alias
                .as_ref()
                .map_or_else(|| table.clone(), |a| a.value.clone()),
            db,
            table,
            write,
            implicit: false,
        });
    }
    entries.extend(implicit);
    if entries.is_empty() {
        // Only temporary tables: nothing to lock, but the session is in
        // locked tables mode all the same.
        s.enter_lock_tables(entries, &[])?;
        return Ok(QueryResult::ok());
    }
    s.enter_lock_tables(entries, &wanted)?;
    // A DROP or RENAME may have run while LOCK TABLES waited.
    if let Some((db, table, _)) = wanted.iter().find(|(d, t, _)| !exists(s, d, t)) {
        s.leave_lock_tables();
        return Err(SqlError::no_such_table(db, table));
    }
    Ok(QueryResult::ok())
}

/// `UNLOCK TABLES`.
pub(crate) fn unlock(s: &mut Session) -> Result<QueryResult, SqlError> {
    if s.in_lock_tables() {
        let committed = s.commit();
        s.leave_lock_tables();
        committed?;
    }
    super::flush::release_read_lock(s);
    Ok(QueryResult::ok())
}
