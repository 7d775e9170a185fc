//! CREATE DATABASE, DROP DATABASE, SHOW CREATE DATABASE.
//!
//! DROP DATABASE of a database some of whose tables are referenced by
//! FOREIGN KEYs of other databases' tables (with `foreign_key_checks` on)
//! does what MariaDB does: it drops the views and the other tables, keeps
//! the referenced tables, the routines and the database, and fails with
//! 1451.
//!
//! A database's SQL metadata (its default character set and collation) is
//! kept in the catalog's `sql_meta` bytes as `charset\0collation`.

use sqlparser::ast;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::names;
use crate::error::{SqlError, Warning};
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// A new database's default collation: its CHARACTER SET / COLLATE options
/// resolved against the server's (`collation_server`), as MariaDB does.
fn database_default_collation(
    s: &Session,
    charset: Option<&str>,
    collate: Option<&str>,
) -> Result<Collation, SqlError> {
    let server = match s.var_by_name("collation_server") {
        Value::Str(c) => Collation::from_name(&c),
        _ => None,
    }
    .unwrap_or(Collation::Utf8mb4GeneralCi);
    crate::ddl::resolve_collation(charset, collate, server)
}

pub(super) fn create_database(
    s: &mut Session,
    name: &ast::ObjectName,
    if_not_exists: bool,
    charset: Option<&str>,
    collate: Option<&str>,
) -> Result<QueryResult, SqlError> {
    s.commit()?;
    let name = names::object_last(name);
    let db = s.db.clone();
    let _ddl = db.ddl_lock.lock();
    if s.db.catalog().has_database(&name) || names::is_virtual_database(&name) {
        if if_not_exists {
            s.push_warning(Warning::note(
                1007,
                format!("Can't create database '{name}'; database exists"),
            ));
            return Ok(QueryResult::ok());
        }
        return Err(SqlError::new(
            1007,
            format!("Can't create database '{name}'; database exists"),
        ));
    }
    let collation = database_default_collation(s, charset, collate)?;
    let meta = format!("{}\0{}", collation.charset().name(), collation.name());
    s.db.catalog().create_database(&name, meta.as_bytes())?;
    Ok(QueryResult::affected(1))
}

pub(super) fn drop_database(
    s: &mut Session,
    names_list: &[ast::ObjectName],
    if_exists: bool,
) -> Result<QueryResult, SqlError> {
    s.commit()?;
    let Some(name) = names_list.first().map(names::object_last) else {
        return Err(SqlError::new(1064, "DROP DATABASE needs a name"));
    };
    let db = s.db.clone();
    let _ddl = lock_database_tables(s, &db, &name)?;
    if !s.db.catalog().has_database(&name) {
        if if_exists {
            s.push_warning(Warning::note(
                1008,
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
            return Ok(QueryResult::ok());
        }
        return Err(SqlError::new(
            1008,
            format!("Can't drop database '{name}'; database doesn't exist"),
        ));
    }
    if let Err(e) = crate::ddl::foreign_ddl::check_drop_database(s, &name) {
        drop_unreferenced(s, &name)?;
        return Err(e);
    }
    let dropped = s.db.catalog().drop_database(&name)?;
    if s.current_db.as_deref() == Some(name.as_str()) {
        s.current_db = None;
    }
    Ok(QueryResult::affected(dropped.len() as u64))
}

/// DROP DATABASE when tables of other databases reference some of its
/// tables, as MariaDB does it: its views and every table no other database
/// references (with their triggers) are dropped, one by one, each drop
/// durable on its own; the referenced tables, the stored routines and the
/// database stay, and the statement fails with 1451.
fn drop_unreferenced(s: &mut Session, name: &str) -> Result<(), SqlError> {
    let keep = crate::ddl::foreign_ddl::referenced_from_other_databases(s, name)?;
    let db = s.db.clone();
    let catalog = db.catalog();
    for v in catalog.views(name) {
        catalog.drop_view(name, &v)?;
    }
    for t in catalog.tables(name)? {
        if keep.contains(&t) {
            continue;
        }
        crate::exec::trigger::table_dropped(s, name, &t)?;
        catalog.drop_table(name, &t)?;
    }
    Ok(())
}

pub(super) fn show_create_database(
    s: &mut Session,
    name: &str,
    if_not_exists: bool,
) -> Result<QueryResult, SqlError> {
    let meta =
        s.db.catalog()
            .database_meta(name)
            .ok_or_else(|| SqlError::unknown_database(name))?;
    let text = String::from_utf8_lossy(&meta).into_owned();
    let mut parts = text.split('\0');
    let charset = parts.next().filter(|c| !c.is_empty()).unwrap_or("utf8mb4");
    let collation = parts.next().unwrap_or("utf8mb4_general_ci");
    let guard = if if_not_exists {
        "/*!32312 IF NOT EXISTS*/ "
    } else {
        ""
    };
    let create = format!(
        "CREATE DATABASE {guard}`{}` /*!40100 DEFAULT CHARACTER SET {charset} COLLATE {collation} */",
        name.replace('`', "``")
    );
    Ok(QueryResult::Rows(RowSet {
        columns: vec![
            ResultColumn::text("Database", 64, false),
            ResultColumn::text("Create Database", 1024, false),
        ],
        rows: vec![vec![Value::Str(name.to_owned()), Value::Str(create)]],
    }))
}

/// Takes the exclusive metadata locks of every table of database `name`,
/// then the DDL lock. Metadata locks are never waited for under the DDL lock,
/// so when a table appeared meanwhile, the DDL lock is let go and the new
/// table's lock taken too.
fn lock_database_tables<'d>(
    s: &Session,
    database: &'d crate::database::Database,
    name: &str,
) -> Result<parking_lot::MutexGuard<'d, ()>, SqlError> {
    loop {
        let listed = |catalog: &larch_engine::catalog::Catalog| -> Vec<(String, String)> {
            if !catalog.has_database(name) {
                return Vec::new();
            }
            catalog
                .tables(name)
                .unwrap_or_default()
                .into_iter()
                .map(|t| (name.to_owned(), t))
                .collect()
        };
        s.lock_tables_exclusive(&listed(database.catalog()))?;
        let guard = database.ddl_lock.lock();
        let now = listed(database.catalog());
        if now.iter().all(|n| s.holds_exclusive(&n.0, &n.1)) {
            return Ok(guard);
        }
    }
}
