//! DDL on a table other tables reference (a FOREIGN KEY parent), as
//! InnoDB in MariaDB 10.11 handles it:
//!
//! - DROP TABLE of a parent that still has another child table is 1451
//!   (tables are dropped in statement order, so `DROP TABLE child, parent`
//!   works), and so are CREATE OR REPLACE TABLE of it and DROP DATABASE of
//!   its database when the child is in another database; TRUNCATE of it is
//!   1701; all unless `foreign_key_checks = 0`.
//! - RENAME TABLE of a parent makes its children reference the new name;
//!   a renamed child's generated names follow it (`old_ibfk_1` becomes
//!   `new_ibfk_1`). ALTER TABLE renaming a referenced column (CHANGE,
//!   RENAME COLUMN) renames it in the children's constraints.
//!
//! The children are found through `ddl::foreign_index`; their constraints
//! are rewritten in their metadata (`Catalog::set_table_meta`).

use larch_engine::table::TableDef;

use super::foreign::generated_number;
use super::foreign_ddl::checks_on;
use super::meta::TableMeta;
use super::work::Work;
use crate::error::SqlError;
use crate::session::Session;

/// The tables other than `db`.`table` itself that reference it.
fn other_children(s: &Session, db: &str, table: &str) -> Vec<super::foreign_index::ChildKey> {
    s.db.foreign_keys
        .children(s.db.catalog(), db, table)
        .into_iter()
        .filter(|c| !(c.db == db && c.table == table))
        .collect()
}

/// 1451 when `db`.`table` may not be dropped: another table references it
/// and `foreign_key_checks` is on.
pub(super) fn check_drop_table(s: &Session, db: &str, table: &str) -> Result<(), SqlError> {
    if checks_on(s) && !other_children(s, db, table).is_empty() {
        return Err(SqlError::new(
            1451,
            "Cannot delete or update a parent row: a foreign key constraint fails",
        ));
    }
    Ok(())
}

/// 1451 when database `db` may not be dropped: a table of another
/// database references one of its tables and `foreign_key_checks` is on
/// (references between its own tables go with it).
pub(crate) fn check_drop_database(s: &Session, db: &str) -> Result<(), SqlError> {
    if referenced_from_other_databases(s, db)?.is_empty() {
        return Ok(());
    }
    Err(SqlError::new(
        1451,
        "Cannot delete or update a parent row: a foreign key constraint fails",
    ))
}

/// The tables of `db` a table of another database references (none while
/// `foreign_key_checks` is off): DROP DATABASE keeps them.
pub(crate) fn referenced_from_other_databases(
    s: &Session,
    db: &str,
) -> Result<Vec<String>, SqlError> {
    if !checks_on(s) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for table in s.db.catalog().tables(db)? {
        let children = s.db.foreign_keys.children(s.db.catalog(), db, &table);
        if children.iter().any(|c| c.db != db) {
            out.push(table);
        }
    }
    Ok(out)
}

/// 1701 when `db`.`table` may not be truncated: another table references
/// it and `foreign_key_checks` is on.
pub(super) fn check_truncate(s: &Session, db: &str, table: &str) -> Result<(), SqlError> {
    if !checks_on(s) {
        return Ok(());
    }
    let Some(c) = other_children(s, db, table).into_iter().next() else {
        return Ok(());
    };
    let q = super::render::quote_ident;
    let cols: Vec<String> = c.column_names.iter().map(|n| q(n)).collect();
    let refs: Vec<String> = c.fk.ref_columns.iter().map(|n| q(n)).collect();
    Err(SqlError::new(
        1701,
        format!(
            "Cannot truncate a table referenced in a foreign key constraint ({}.{}, CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {}.{} ({}))",
            q(&c.db),
            q(&c.table),
            q(&c.fk.name),
            cols.join(", "),
            q(db),
            q(table),
            refs.join(", ")
        ),
    ))
}

/// After `from` was renamed to `to`: the constraints that referenced
/// `from` reference `to`, and the renamed table's generated constraint
/// names follow its new name.
pub(super) fn after_rename(
    s: &Session,
    from: (&str, &str),
    to: (&str, &str),
) -> Result<(), SqlError> {
    let catalog = s.db.catalog();
    let children = s.db.foreign_keys.children(catalog, from.0, from.1);
    let mut tables: Vec<(String, String)> = children
        .iter()
        .map(|c| {
            if (c.db.as_str(), c.table.as_str()) == from {
                (to.0.to_string(), to.1.to_string())
            } else {
                (c.db.clone(), c.table.clone())
            }
        })
        .collect();
    tables.push((to.0.to_string(), to.1.to_string()));
    tables.sort();
    tables.dedup();
    for (db, name) in tables {
        let Some(e) = catalog.table_entry(&db, &name) else {
            continue;
        };
        let mut meta = TableMeta::decode(&e.sql_meta, &e.def)?;
        let mut changed = false;
        for fk in &mut meta.foreign_keys {
            if fk.references(from.0, from.1) {
                fk.ref_db = to.0.to_string();
                fk.ref_table = to.1.to_string();
                changed = true;
            }
            if (db.as_str(), name.as_str()) == to && from.1 != to.1 {
                if let Some(n) = generated_number(from.1, &fk.name) {
                    fk.name = format!("{}_ibfk_{n}", to.1);
                    changed = true;
                }
            }
        }
        if changed {
            catalog.set_table_meta(&db, &name, &meta.encode())?;
        }
    }
    Ok(())
}

/// The columns ALTER TABLE renamed (CHANGE, RENAME COLUMN): `(old, new)`
/// names, from `w` and the table's definition before, `original`.
pub(super) fn renamed_columns(w: &Work, original: &TableDef) -> Vec<(String, String)> {
    w.cols
        .iter()
        .filter_map(|c| {
            let old = &original.columns.get(c.origin?)?.name;
            (*old != c.def.name).then(|| (old.clone(), c.def.name.clone()))
        })
        .collect()
}

/// After ALTER TABLE renamed columns of `db`.`table` (`renamed`, old and
/// new names): the constraints referencing them name the new columns, as
/// InnoDB renames them in its dictionary.
pub(super) fn after_column_renames(
    s: &Session,
    db: &str,
    table: &str,
    renamed: &[(String, String)],
) -> Result<(), SqlError> {
    if renamed.is_empty() {
        return Ok(());
    }
    let catalog = s.db.catalog();
    let mut tables: Vec<(String, String)> =
        s.db.foreign_keys
            .children(catalog, db, table)
            .into_iter()
            .map(|c| (c.db, c.table))
            .collect();
    tables.push((db.to_string(), table.to_string()));
    tables.sort();
    tables.dedup();
    for (child_db, child) in tables {
        let Some(e) = catalog.table_entry(&child_db, &child) else {
            continue;
        };
        let mut meta = TableMeta::decode(&e.sql_meta, &e.def)?;
        let mut changed = false;
        for fk in meta
            .foreign_keys
            .iter_mut()
            .filter(|f| f.references(db, table))
        {
            for name in &mut fk.ref_columns {
                if let Some((_, new)) = renamed.iter().find(|(o, _)| o.eq_ignore_ascii_case(name)) {
                    *name = new.clone();
                    changed = true;
                }
            }
        }
        if changed {
            catalog.set_table_meta(&child_db, &child, &meta.encode())?;
        }
    }
    Ok(())
}
