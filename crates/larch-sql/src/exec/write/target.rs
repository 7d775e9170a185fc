//! The part of a write's target table that comes from its dictionary entry
//! ([`TargetMeta`]: the decoded SQL metadata, the compiled CHECK
//! constraints, generated columns and DEFAULT expressions, the name errors
//! use), derived once and kept by the session
//! (`session::plans::TargetCache`) while the catalog's table generation, the
//! session's settings and the current database stay those it was derived
//! under, and while the open table is the one it was derived from. The
//! caller has opened (and metadata-locked) the table first.

use std::sync::{Arc, Weak};

use larch_engine::table::Table;

use crate::ddl::TableMeta;
use crate::error::SqlError;
use crate::session::Session;

/// What a write derives from its table's dictionary entry: decoded once
/// and kept by the session while the dictionary and the session's settings
/// stay the same (`session::plans`).
pub(crate) struct TargetMeta {
    /// The table these were derived from (weak: a kept entry keeps no
    /// table open).
    table: Weak<Table>,
    /// The table as errors name it.
    pub(super) name: String,
    pub(super) meta: Arc<TableMeta>,
    pub(super) checks: Arc<crate::ddl::Checks>,
    pub(super) generated: Arc<crate::ddl::GeneratedColumns>,
    pub(super) defaults: Arc<crate::ddl::ColumnDefaults>,
}

/// The [`TargetMeta`] of the open table `db`.`t`, kept or derived now.
pub(super) fn target_meta(
    s: &Session,
    db: &str,
    t: &str,
    table: &Arc<Table>,
) -> Result<Arc<TargetMeta>, SqlError> {
    let kept = s.targets.borrow().get(db, t, |key| s.plan_valid(key));
    if let Some(kept) = kept.filter(|k| std::ptr::eq(k.table.as_ptr(), Arc::as_ptr(table))) {
        return Ok(kept);
    }
    let key = s.plan_key();
    let entry =
        s.db.catalog()
            .table_entry(db, t)
            .ok_or_else(|| SqlError::no_such_table(db, t))?;
    let meta = TableMeta::decode(&entry.sql_meta, &entry.def)?;
    let name = s.visible_table_name(db, t);
    let checks = crate::ddl::Checks::compile(s, db, &name, table.def(), &meta)?;
    let generated = crate::ddl::GeneratedColumns::compile(s, table.def(), &meta)?;
    let defaults = crate::ddl::ColumnDefaults::compile(table.def(), &meta)?;
    let derived = Arc::new(TargetMeta {
        table: Arc::downgrade(table),
        name,
        meta: Arc::new(meta),
        checks: Arc::new(checks),
        generated: Arc::new(generated),
        defaults: Arc::new(defaults),
    });
    s.targets.borrow_mut().put(db, t, key, derived.clone());
    Ok(derived)
}
