//! DROP TABLE, TRUNCATE TABLE and RENAME TABLE.
//!
//! - `DROP TABLE [IF EXISTS] t1, t2 ...` drops every table that exists; the
//!   missing ones are error 1051 naming all of them (`Unknown table
//!   'db.t1,db.t2'`), or a note naming them with IF EXISTS. A view is
//!   not dropped: 1965 `'db.v' is a view` (a note with IF EXISTS). A temporary
//!   table of the session is dropped first (`DROP TEMPORARY TABLE` drops
//!   only those), without ending the transaction.
//! - `TRUNCATE [TABLE] t` replaces the table by an empty one with the same
//!   definition (the AUTO_INCREMENT counter starts again at 1): the new table
//!   is created under a temporary name and swapped in (`Catalog::replace_table`), so
//!   a crash leaves the old table or the empty one, never neither.
//! - `RENAME TABLE a TO b [, c TO d ...]` checks every step first (1146 for a
//!   missing source, 1050 for an existing target, 1049 for a missing target
//!   database, in statement order, so `a TO tmp, b TO a, tmp TO b` swaps),
//!   then renames them one after the other (undoing the done ones if a
//!   later one fails), the names they end with logged first
//!   ([`larch_engine::catalog::Catalog::log_renames`]) so that a crash in
//!   between leaves all of them renamed. Renames may move a table to another
//!   database.
//! - FOREIGN KEYs (`foreign_ddl`): a parent another table references is not
//!   dropped (1451) or truncated (1701) while `foreign_key_checks` is on;
//!   a rename carries the constraints that reference the table.

use std::collections::BTreeSet;

use sqlparser::ast;

use super::rebuild::temp_name;
use super::{table_entry, table_name, table_name_as_written};
use crate::error::{SqlError, Warning};
use crate::result::QueryResult;
use crate::session::Session;

/// One rename: (database, table) from and to.
type Step = ((String, String), (String, String));

/// The last part of a dotted name.
pub(super) fn last_part(name: &ast::ObjectName) -> String {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
        .unwrap_or_default()
}

/// DROP [TEMPORARY] TABLE [IF EXISTS] names.
pub(super) fn drop_tables(
    s: &mut Session,
    names: &[ast::ObjectName],
    if_exists: bool,
    temporary: bool,
) -> Result<QueryResult, SqlError> {
    let written = names
        .iter()
        .map(|n| table_name_as_written(s, n))
        .collect::<Result<Vec<_>, _>>()?;
    // Dropping only temporary tables does not end the transaction.
    if !temporary
        && written
            .iter()
            .any(|(db, t)| s.temporary_table(db, t).is_none())
    {
        s.commit()?;
    }
    if !temporary {
        s.lock_tables_exclusive(&written)?;
    }
    let database = s.db.clone();
    let catalog = database.catalog();
    let _ddl = database.ddl_lock.lock();
    let mut missing = Vec::new();
    let mut refused = None;
    let views = super::view::views_among(s, &written);
    for (db, t) in &written {
        if let Some(hidden) = s.temporary_table(db, t).map(str::to_owned) {
            catalog.drop_table(db, &hidden)?;
            s.remove_temporary_table(db, t);
            continue;
        }
        if !temporary && views.contains(&format!("{db}.{t}")) {
            continue;
        }
        if temporary || catalog.table_entry(db, t).is_none() {
            missing.push(format!("{db}.{t}"));
            continue;
        }
        // A parent another table still references stays; the others go.
        if let Err(e) = super::foreign_ddl::check_drop_table(s, db, t) {
            refused.get_or_insert(e);
            continue;
        }
        crate::exec::trigger::table_dropped(s, db, t)?;
        catalog.drop_table(db, t)?;
    }
    if let Some(e) = refused {
        return Err(e);
    }
    // A view is not dropped by DROP TABLE: 1965 'db.v' is a view.
    if let Some(v) = views.first().filter(|_| !temporary) {
        if !if_exists {
            return Err(SqlError::new(1965, format!("'{v}' is a view")));
        }
        for v in &views {
            s.push_warning(Warning::note(1965, format!("'{v}' is a view")));
        }
    }
    if missing.is_empty() {
        return Ok(QueryResult::ok());
    }
    // One note (or error) naming every missing table, as MariaDB reports it.
    if if_exists {
        s.push_warning(Warning::note(
            1051,
            format!("Unknown table '{}'", missing.join(",")),
        ));
        return Ok(QueryResult::ok());
    }
    Err(SqlError::new(
        1051,
        format!("Unknown table '{}'", missing.join(",")),
    ))
}

/// TRUNCATE [TABLE] t.
pub(super) fn truncate(s: &mut Session, t: &ast::Truncate) -> Result<QueryResult, SqlError> {
    s.commit()?;
    let database = s.db.clone();
    let catalog = database.catalog();
    for target in &t.table_names {
        let (db, name) = table_name(s, &target.name)?;
        s.lock_tables_exclusive(&[(db.clone(), name.clone())])?;
        let _ddl = database.ddl_lock.lock();
        let entry = table_entry(s, &db, &name)?;
        super::foreign_ddl::check_truncate(s, &db, &name)?;
        let tmp = temp_name(catalog, &db, "truncate");
        let mut def = entry.def.clone();
        def.name = tmp.clone();
        drop(catalog.create_scratch_table(&db, def, &entry.sql_meta)?);
        catalog.replace_table((&db, &name), (&db, &tmp), &name)?;
    }
    Ok(QueryResult::ok())
}

/// RENAME TABLE a TO b [, ...].
pub(super) fn rename(s: &mut Session, pairs: &[ast::RenameTable]) -> Result<QueryResult, SqlError> {
    let mut steps = Vec::with_capacity(pairs.len());
    for p in pairs {
        steps.push((
            table_name_as_written(s, &p.old_name)?,
            table_name_as_written(s, &p.new_name)?,
        ));
    }
    if steps
        .iter()
        .any(|(from, _)| s.temporary_table(&from.0, &from.1).is_some())
    {
        return rename_temporary(s, &steps);
    }
    s.commit()?;
    let names: Vec<(String, String)> = steps
        .iter()
        .flat_map(|(from, to)| [from.clone(), to.clone()])
        .collect();
    s.lock_tables_exclusive(&names)?;
    let database = s.db.clone();
    let catalog = database.catalog();
    let _ddl = database.ddl_lock.lock();
    // Check the whole sequence against the names it produces.
    let mut existing: BTreeSet<(String, String)> = BTreeSet::new();
    for db in catalog.databases() {
        for t in catalog.tables(&db)? {
            existing.insert((db.clone(), t));
        }
        for v in catalog.views(&db) {
            existing.insert((db.clone(), v));
        }
    }
    for (from, to) in &steps {
        if !existing.remove(from) {
            return Err(SqlError::no_such_table(&from.0, &from.1));
        }
        if !catalog.has_database(&to.0) {
            return Err(SqlError::unknown_database(&to.0));
        }
        if !existing.insert(to.clone()) {
            return Err(SqlError::table_exists(&to.1));
        }
        crate::exec::trigger::check_rename(s, (&from.0, &from.1), (&to.0, &to.1))?;
    }
    let logged = catalog.log_renames(
        &steps
            .iter()
            .map(|(f, t)| ((f.0.as_str(), f.1.as_str()), (t.0.as_str(), t.1.as_str())))
            .collect::<Vec<_>>(),
    )?;
    let renamed = rename_in_order(s, &steps);
    catalog.end_logged_ddl(logged)?;
    renamed?;
    Ok(QueryResult::ok())
}

/// The renames of RENAME TABLE one after the other, each with its triggers
/// and the foreign keys that name it; a failing step undoes the earlier ones.
fn rename_in_order(s: &Session, steps: &[Step]) -> Result<(), SqlError> {
    let catalog = s.db.catalog();
    let mut done: Vec<&Step> = Vec::new();
    for step in steps {
        let (from, to) = step;
        let renamed = catalog
            .rename_table(&from.0, &from.1, &to.0, &to.1)
            .map_err(SqlError::from)
            .and_then(|()| {
                crate::exec::trigger::table_renamed(s, (&from.0, &from.1), (&to.0, &to.1))
            });
        if let Err(e) = renamed {
            for (f, t) in done.iter().rev() {
                if let Err(u) = catalog
                    .rename_table(&t.0, &t.1, &f.0, &f.1)
                    .map_err(SqlError::from)
                    .and_then(|()| {
                        crate::exec::trigger::table_renamed(s, (&t.0, &t.1), (&f.0, &f.1))
                    })
                {
                    tracing::error!(error = %u.message(), "could not undo a rename of a failed RENAME TABLE");
                }
            }
            return Err(e);
        }
        super::foreign_ddl::after_rename(s, (&from.0, &from.1), (&to.0, &to.1))?;
        done.push(step);
    }
    Ok(())
}

/// RENAME TABLE of temporary tables: the session's names change, the
/// hidden tables stay (every source must be a temporary table of the
/// session, renamed within its database).
fn rename_temporary(s: &mut Session, steps: &[Step]) -> Result<QueryResult, SqlError> {
    for (from, to) in steps {
        if from.0 != to.0 {
            return Err(SqlError::not_supported(
                "RENAME TABLE of a temporary table to another database",
            ));
        }
        if s.temporary_table(&to.0, &to.1).is_some() {
            return Err(SqlError::table_exists(&to.1));
        }
        let Some(hidden) = s.remove_temporary_table(&from.0, &from.1) else {
            return Err(SqlError::no_such_table(&from.0, &from.1));
        };
        s.add_temporary_table(&to.0, &to.1, hidden);
    }
    Ok(QueryResult::ok())
}
