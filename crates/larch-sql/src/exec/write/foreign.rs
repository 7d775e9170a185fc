//! FOREIGN KEY enforcement on row writes, as InnoDB does it.
//!
//! [`ForeignKeys`] is loaded once per statement for its target table: the
//! table's own constraints (it is their child) and the constraints of every
//! table that references it (it is their parent, found through
//! `ddl::foreign_index`).
//!
//! - A child row written with a non-NULL key whose referencing columns
//!   changed must find its parent row ([`ForeignKeys::verify_parents`]):
//!   the parent index is read with a shared lock on the row found (InnoDB's
//!   S lock, so a concurrent delete of that parent waits for this
//!   transaction) in its newest committed version. No parent is error 1452
//!   naming the constraint; with IGNORE it is a warning and the row is
//!   skipped. A row of a self-referencing table may reference itself.
//! - After a parent row is deleted, or its referenced columns changed
//!   ([`parent_deleted`], [`parent_updated`]), its child rows are found by a
//!   locking read of the child's index: RESTRICT / NO ACTION fail with
//!   1451, CASCADE deletes them or gives them the new key, SET NULL nulls
//!   their referencing columns, each change applying the child's own
//!   constraints in turn, to a depth of 15 (deeper is InnoDB's error 193).
//! - `foreign_key_checks = 0` turns all of it off.
//!
//! All changes happen in the statement's transaction, so a failure reverts
//! the cascaded changes with the statement.

use std::sync::Arc;

use larch_engine::lock::LockMode;
use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, ReadContext, RowRef, Table, TableDef, CLUSTERED};

use crate::ddl::foreign_ddl::{checks_on, index_for};
use crate::ddl::foreign_index::ChildKey;
use crate::ddl::{ForeignKey, TableMeta};
use crate::error::{SqlError, Warning};
use crate::session::Session;

/// Rows found: address and engine values.
type Found = Vec<(RowRef, Vec<Value>)>;

/// InnoDB's limit on nested cascades.
const MAX_CASCADE_DEPTH: usize = 15;

/// The constraints a statement's target table takes part in.
#[derive(Default)]
pub(crate) struct ForeignKeys {
    db: String,
    table: String,
    /// Constraints of this table (as a child) and the names of their
    /// referencing columns.
    own: Vec<(ForeignKey, Vec<String>)>,
    /// Constraints referencing this table, with the positions of their
    /// referenced columns in this table.
    children: Vec<(ChildKey, Vec<usize>)>,
}

impl ForeignKeys {
    /// The constraints of `db`.`table` (stored name; `def` and `meta` its
    /// definition).
    pub fn load(
        s: &Session,
        db: &str,
        table: &str,
        def: &TableDef,
        meta: &TableMeta,
    ) -> ForeignKeys {
        let own: Vec<(ForeignKey, Vec<String>)> = meta
            .foreign_keys
            .iter()
            .map(|fk| (fk.clone(), fk.column_names(def)))
            .collect();
        let catalog = s.db.catalog();
        let children = if s.db.foreign_keys.has_children(catalog, db, table) {
            s.db.foreign_keys
                .children(catalog, db, table)
                .into_iter()
                .filter_map(|c| {
                    let pos =
                        c.fk.ref_columns
                            .iter()
                            .map(|n| {
                                def.columns
                                    .iter()
                                    .position(|col| col.name.eq_ignore_ascii_case(n))
                            })
                            .collect::<Option<Vec<usize>>>()?;
                    Some((c, pos))
                })
                .collect()
        } else {
            Vec::new()
        };
        ForeignKeys {
            db: db.to_owned(),
            table: table.to_owned(),
            own,
            children,
        }
    }

    /// Loads the constraints of table `db`.`table` from the dictionary.
    fn of_table(s: &Session, db: &str, table: &str) -> Result<ForeignKeys, SqlError> {
        let e =
            s.db.catalog()
                .table_entry(db, table)
                .ok_or_else(|| SqlError::no_such_table(db, table))?;
        let meta = TableMeta::decode(&e.sql_meta, &e.def)?;
        Ok(ForeignKeys::load(s, db, table, &e.def, &meta))
    }

    /// Checks that `new` (engine values of every column) has a parent row
    /// for each constraint whose key is non-NULL and, when `old` is given
    /// (an UPDATE), changed. `Ok(false)` when a parent is missing and
    /// `ignore` made that a warning.
    pub fn verify_parents(
        &self,
        s: &Session,
        old: Option<&[Value]>,
        new: &[Value],
        ignore: bool,
        warnings: &mut Vec<Warning>,
    ) -> Result<bool, SqlError> {
        if self.own.is_empty() || !checks_on(s) {
            return Ok(true);
        }
        for (fk, names) in &self.own {
            let key: Vec<Value> = fk.columns.iter().map(|&c| new[c].clone()).collect();
            if key.iter().any(Value::is_null) {
                continue;
            }
            if let Some(old) = old {
                if fk.columns.iter().all(|&c| old[c] == new[c]) {
                    continue;
                }
            }
            if self.references_itself(fk, new, &key) || parent_exists(s, fk, &key)? {
                continue;
            }
            let msg = format!(
                "Cannot add or update a child row: a foreign key constraint fails (`{}`.`{}`, {})",
                self.db,
                s.visible_table_name(&self.db, &self.table),
                fk.clause(names, &self.db)
            );
            if ignore {
                warnings.push(Warning::warn(1452, msg));
                return Ok(false);
            }
            return Err(SqlError::new(1452, msg));
        }
        Ok(true)
    }

    /// True when `fk` references this table and `row` itself holds `key`
    /// in the referenced columns.
    fn references_itself(&self, fk: &ForeignKey, row: &[Value], key: &[Value]) -> bool {
        if !fk.references(&self.db, &self.table) {
            return false;
        }
        self.children
            .iter()
            .find(|(c, _)| c.fk.name == fk.name && c.db == self.db && c.table == self.table)
            .is_some_and(|(_, pos)| pos.iter().zip(key).all(|(&p, k)| &row[p] == k))
    }

    /// True when some table references this one, whether or not checks
    /// are on (MariaDB's `referenced_by_foreign_key`).
    pub fn is_referenced(&self) -> bool {
        !self.children.is_empty()
    }

    /// True when some table references this one (and checks are on).
    pub fn has_children(&self, s: &Session) -> bool {
        !self.children.is_empty() && checks_on(s)
    }
}

/// True when the parent table of `fk` has a row whose referenced columns
/// are `key`, read with a shared lock in its newest committed version.
fn parent_exists(s: &Session, fk: &ForeignKey, key: &[Value]) -> Result<bool, SqlError> {
    let Ok(parent) = s.db.catalog().table(&fk.ref_db, &fk.ref_table) else {
        return Ok(false);
    };
    let def = parent.def();
    let Some(positions) = fk
        .ref_columns
        .iter()
        .map(|n| {
            def.columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
        })
        .collect::<Option<Vec<usize>>>()
    else {
        return Ok(false);
    };
    let Some(index) = index_for(def, &positions) else {
        return Ok(false);
    };
    Ok(!find_rows(s, &parent, index, &positions, key, LockMode::Shared, true)?.is_empty())
}

/// The rows of `table` whose columns `positions` equal `key`, read through
/// `index` with locks of `mode` (`first`: stop at the first).
fn find_rows(
    s: &Session,
    table: &Arc<Table>,
    index: usize,
    positions: &[usize],
    key: &[Value],
    mode: LockMode,
    first: bool,
) -> Result<Found, SqlError> {
    let ncols = table.def().columns.len();
    let mut row = vec![Value::Null; ncols];
    let mut out = Vec::new();
    let range = KeyRange::eq(key.to_vec());
    // Outside a transaction (ALTER TABLE checking rows) nothing is locked.
    let mut cursor = match s.txn.as_ref() {
        Some(t) => table.scan_locking(&t.ctx, index, &range, false, None, mode, None)?,
        None => table.scan(&ReadContext::NEWEST, index, &range, false, None)?,
    };
    while let Some(at) = cursor.next_into(&mut row)? {
        // The range may be wider than the key (a collation folds values
        // together, or the index is the clustered one of a scan).
        if index == CLUSTERED && positions.iter().zip(key).any(|(&p, k)| &row[p] != k) {
            continue;
        }
        out.push((RowRef(at.to_vec()), row.clone()));
        if first {
            break;
        }
    }
    Ok(out)
}

/// The child rows of constraint `child` whose key is `key`, locked in
/// `mode`.
fn child_rows(
    s: &Session,
    child: &ChildKey,
    key: &[Value],
    mode: LockMode,
) -> Result<(Arc<Table>, Found), SqlError> {
    let table = s.db.catalog().table(&child.db, &child.table)?;
    let found = match index_for(table.def(), &child.fk.columns) {
        Some(index) => find_rows(s, &table, index, &child.fk.columns, key, mode, false)?,
        None => Vec::new(),
    };
    Ok((table, found))
}

/// 1451 for a parent change that `child` refuses.
fn parent_refused(child: &ChildKey) -> SqlError {
    SqlError::new(
        1451,
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails (`{}`.`{}`, {})",
            child.db,
            child.table,
            child.clause()
        ),
    )
}

/// InnoDB's error 193 for cascades nested too deep.
fn too_deep(child: &ChildKey) -> SqlError {
    SqlError::new(
        1030,
        format!(
            "Got error 193 '`{}`.`{}`, {}' from InnoDB",
            child.db,
            child.table,
            child.clause()
        ),
    )
}

/// Applies the ON DELETE actions of the tables referencing `fks`'s table
/// after its row `old` (engine values) was deleted.
pub(crate) fn parent_deleted(
    s: &mut Session,
    fks: &ForeignKeys,
    old: &[Value],
    depth: usize,
) -> Result<(), SqlError> {
    parent_changed(s, fks, old, None, depth)
}

/// Applies the ON UPDATE actions of the tables referencing `fks`'s table
/// after its row `old` became `new` (engine values).
pub(crate) fn parent_updated(
    s: &mut Session,
    fks: &ForeignKeys,
    old: &[Value],
    new: &[Value],
    depth: usize,
) -> Result<(), SqlError> {
    parent_changed(s, fks, old, Some(new), depth)
}

/// One cascade step: after the row `old` of `fks`'s table was deleted
/// (`new` is `None`) or became `new`, each referencing constraint whose key
/// changed applies its ON DELETE / ON UPDATE action to the child rows of
/// the old key (RESTRICT / NO ACTION: 1451; CASCADE: delete them or give
/// them the new key; SET NULL), each child change cascading in turn.
fn parent_changed(
    s: &mut Session,
    fks: &ForeignKeys,
    old: &[Value],
    new: Option<&[Value]>,
    depth: usize,
) -> Result<(), SqlError> {
    if !fks.has_children(s) {
        return Ok(());
    }
    for (child, pos) in &fks.children {
        if new.is_some_and(|new| pos.iter().all(|&p| old[p] == new[p])) {
            continue;
        }
        let key: Vec<Value> = pos.iter().map(|&p| old[p].clone()).collect();
        if key.iter().any(Value::is_null) {
            continue;
        }
        let action = match new {
            Some(_) => child.fk.on_update,
            None => child.fk.on_delete,
        };
        let mode = if action.restricts() {
            LockMode::Shared
        } else {
            LockMode::Exclusive
        };
        let (table, rows) = child_rows(s, child, &key, mode)?;
        if rows.is_empty() {
            continue;
        }
        if action.restricts() {
            return Err(parent_refused(child));
        }
        if depth >= MAX_CASCADE_DEPTH {
            return Err(too_deep(child));
        }
        let cascade = action == crate::ddl::FkAction::Cascade;
        let grandchildren = ForeignKeys::of_table(s, &child.db, &child.table)?;
        for (at, row) in rows {
            if cascade && new.is_none() {
                if table.delete(super::txn_ctx(s)?, &at)? {
                    parent_changed(s, &grandchildren, &row, None, depth + 1)?;
                }
                continue;
            }
            let mut changed = row.clone();
            for (&c, &p) in child.fk.columns.iter().zip(pos) {
                changed[c] = match new {
                    Some(new) if cascade => new[p].clone(),
                    _ => Value::Null,
                };
            }
            table.update(super::txn_ctx(s)?, &at, &changed)?;
            parent_changed(s, &grandchildren, &row, Some(&changed), depth + 1)?;
        }
    }
    Ok(())
}

/// Checks the rows of `table` (engine values, as `rows` yields them)
/// against the constraints `fks` of the table's new definition `def`
/// (ALTER TABLE ADD FOREIGN KEY): 1452 for the first row without parent.
/// `origin` maps a column of `def` to its position in the rows.
pub(crate) fn verify_existing(
    s: &Session,
    db: &str,
    table_name: &str,
    table: &Table,
    def: &TableDef,
    origin: &[Option<usize>],
    fks: &[&ForeignKey],
) -> Result<(), SqlError> {
    let ncols = table.def().columns.len();
    let mut row = vec![Value::Null; ncols];
    let mut cursor = table.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?;
    while cursor.next_into(&mut row)?.is_some() {
        for fk in fks {
            let Some(key) = fk
                .columns
                .iter()
                .map(|&c| origin.get(c).copied().flatten().map(|o| row[o].clone()))
                .collect::<Option<Vec<Value>>>()
            else {
                continue;
            };
            if key.iter().any(Value::is_null) {
                continue;
            }
            let own_row = fk.ref_db == db && fk.ref_table == table_name && {
                fk.ref_columns.iter().zip(&key).all(|(n, k)| {
                    table
                        .def()
                        .columns
                        .iter()
                        .position(|c| c.name.eq_ignore_ascii_case(n))
                        .is_some_and(|p| &row[p] == k)
                })
            };
            if own_row || parent_exists(s, fk, &key)? {
                continue;
            }
            return Err(SqlError::new(
                1452,
                format!(
                    "Cannot add or update a child row: a foreign key constraint fails (`{db}`.`{table_name}`, {})",
                    fk.clause(&fk.column_names(def), db)
                ),
            ));
        }
    }
    Ok(())
}
