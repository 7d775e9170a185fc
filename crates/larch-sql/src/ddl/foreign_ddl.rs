//! FOREIGN KEY rules of CREATE TABLE and ALTER TABLE, and what other DDL
//! must respect because of constraints, as MariaDB 10.11 with InnoDB:
//!
//! - A constraint as written ([`FkSpec`]) is resolved once every key of
//!   the statement is known ([`add_pending`]): column counts must match
//!   (1239); the child's columns get an index (`keys`); SET DEFAULT, SET
//!   NULL on a NOT NULL column, a missing referenced table (unless
//!   `foreign_key_checks = 0`), a missing referenced column, incompatible
//!   types or no index of the parent starting with the referenced columns
//!   are 1005 `Can't create table ... (errno: 150 "Foreign key constraint
//!   is incorrectly formed")`; with `foreign_key_checks = 0` ALTER reports
//!   the missing index as 1822; a temporary table cannot have one (150);
//!   a duplicate name is errno 121.
//! - ALTER TABLE ADD FOREIGN KEY checks the rows already there (1452)
//!   unless `foreign_key_checks = 0`; DROP FOREIGN KEY name (1091 when
//!   there is none).
//! - Dropping an index a constraint needs (in the child or the parent) is
//!   1553, dropping a referencing column 1828.
//! - What DDL on a referenced parent does (DROP, TRUNCATE, CREATE OR
//!   REPLACE, DROP DATABASE, renamed tables and columns) is in
//!   `ddl::foreign_parent`.

use larch_engine::record::value::ColumnType;
use larch_engine::table::TableDef;
use sqlparser::ast;

use super::foreign::{generated_number, FkAction, ForeignKey};
use super::work::{KeyKind, Work};

pub(super) use super::foreign_parent::{
    after_column_renames, after_rename, check_drop_table, check_truncate, renamed_columns,
};
pub(crate) use super::foreign_parent::{check_drop_database, referenced_from_other_databases};
use crate::error::{SqlError, Warning};
use crate::session::Session;

/// A FOREIGN KEY as written.
#[derive(Debug, Clone)]
pub(super) struct FkSpec {
    pub name: Option<String>,
    pub columns: Vec<String>,
    pub ref_table: ast::ObjectName,
    pub ref_columns: Vec<String>,
    pub on_delete: Option<ast::ReferentialAction>,
    pub on_update: Option<ast::ReferentialAction>,
}

impl FkSpec {
    /// The constraint of `FOREIGN KEY` in CREATE TABLE or ALTER TABLE ADD.
    /// Its name is the CONSTRAINT name, else the index name after FOREIGN
    /// KEY (as MariaDB's grammar does).
    pub fn from_ast(fk: &ast::ForeignKeyConstraint) -> FkSpec {
        FkSpec {
            name: fk
                .name
                .as_ref()
                .or(fk.index_name.as_ref())
                .map(|i| i.value.clone()),
            columns: fk.columns.iter().map(|c| c.value.clone()).collect(),
            ref_table: fk.foreign_table.clone(),
            ref_columns: fk
                .referred_columns
                .iter()
                .map(|c| c.value.clone())
                .collect(),
            on_delete: fk.on_delete,
            on_update: fk.on_update,
        }
    }
}

/// 1005 with InnoDB's errno 150.
fn incorrectly_formed(db: &str, table: &str) -> SqlError {
    SqlError::new(
        1005,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}

/// Why InnoDB refused a constraint, for the warning 150 it raises.
enum Refusal<'a> {
    Temporary,
    SetNullOnNotNull(&'a str),
    NoParentTable(&'a str, &'a str),
    NoColumn(&'a str),
    Types(&'a str, &'a str),
    NoIndex,
}

/// 1005 errno 150 for `spec` of `owner`; for CREATE TABLE with the
/// conditions MariaDB raises around it: warning 150 saying why before it,
/// warning 1215 after it.
fn refused(owner: &Owner<'_>, spec: &FkSpec, why: Refusal<'_>) -> SqlError {
    let error = incorrectly_formed(owner.db, owner.table);
    if owner.alter {
        return error;
    }
    let cols = spec.columns.join(", ");
    let detail = match why {
        Refusal::Temporary => {
            "with foreign key constraint failed. Temporary tables can't have foreign key constraints."
                .to_string()
        }
        Refusal::SetNullOnNotNull(c) => format!(
            "with foreign key ({cols}) constraint failed. You have defined a SET NULL condition but column '{c}' is defined as NOT NULL."
        ),
        Refusal::NoParentTable(db, t) => format!(
            "with foreign key ({cols}) constraint failed. Referenced table `{db}`.`{t}` not found in the data dictionary."
        ),
        Refusal::NoColumn(c) => {
            format!("foreign key ({cols}) constraint failed. Column {c} was not found.")
        }
        Refusal::Types(c, p) => format!(
            "with foreign key ({cols}) constraint failed. Field type or character set for column '{c}' does not match referenced column '{p}'."
        ),
        Refusal::NoIndex => format!(
            "with foreign key ({cols}) constraint failed. There is no index in the referenced table where the referenced columns appear as the first columns."
        ),
    };
    SqlError::WithConditions {
        error: Box::new(error),
        before: vec![Warning::warn(
            150,
            format!("Create  table `{}`.`{}` {detail}", owner.db, owner.table),
        )],
        after: vec![Warning::warn(
            1215,
            format!("Cannot add foreign key constraint for `{}`", owner.table),
        )],
    }
}

/// True when `foreign_key_checks` is on.
pub(crate) fn checks_on(s: &Session) -> bool {
    s.int_var("foreign_key_checks") != 0
}

/// Where the constraints of a statement go.
pub(super) struct Owner<'a> {
    /// The table's database and its name as errors show it.
    pub db: &'a str,
    pub table: &'a str,
    /// ALTER TABLE (rather than CREATE TABLE).
    pub alter: bool,
    pub temporary: bool,
}

/// Resolves the constraints `specs` of the statement into `w.foreign`
/// (see the module documentation for the rules).
pub(super) fn add_pending(
    s: &Session,
    w: &mut Work,
    owner: &Owner<'_>,
    specs: Vec<FkSpec>,
) -> Result<(), SqlError> {
    for spec in specs {
        let fk = resolve(s, w, owner, spec)?;
        w.foreign.push(fk);
    }
    Ok(())
}

fn action(a: Option<ast::ReferentialAction>) -> Option<FkAction> {
    use ast::ReferentialAction as R;
    Some(match a {
        None | Some(R::Restrict) => FkAction::Restrict,
        Some(R::Cascade) => FkAction::Cascade,
        Some(R::SetNull) => FkAction::SetNull,
        Some(R::NoAction) => FkAction::NoAction,
        Some(R::SetDefault) => return None,
    })
}

fn resolve(s: &Session, w: &Work, owner: &Owner<'_>, spec: FkSpec) -> Result<ForeignKey, SqlError> {
    let bad = || incorrectly_formed(owner.db, owner.table);
    if spec.columns.len() != spec.ref_columns.len() || spec.columns.is_empty() {
        return Err(SqlError::new(
            1239,
            format!(
                "Incorrect foreign key definition for '{}': Key reference and table reference don't match",
                spec.name.as_deref().unwrap_or("foreign key without name")
            ),
        ));
    }
    if owner.temporary {
        return Err(refused(owner, &spec, Refusal::Temporary));
    }
    let (Some(on_delete), Some(on_update)) = (action(spec.on_delete), action(spec.on_update))
    else {
        return Err(bad());
    };
    let mut ids = Vec::with_capacity(spec.columns.len());
    for c in &spec.columns {
        let Some(pos) = w.col_pos(c) else {
            return Err(SqlError::new(
                1072,
                format!("Key column '{c}' doesn't exist in table"),
            ));
        };
        let col = &w.cols[pos];
        if (on_delete == FkAction::SetNull || on_update == FkAction::SetNull) && !col.def.nullable {
            return Err(refused(owner, &spec, Refusal::SetNullOnNotNull(c)));
        }
        ids.push(col.id);
    }
    // An unqualified parent is in the child's database (as InnoDB has it),
    // whatever the current database.
    let (ref_db, ref_table) = match spec.ref_table.0.as_slice() {
        [p] if p.as_ident().is_some() => (
            owner.db.to_string(),
            p.as_ident().map(|i| i.value.clone()).unwrap_or_default(),
        ),
        _ => super::table_name_as_written(s, &spec.ref_table)?,
    };
    let self_reference = ref_db == owner.db && ref_table == owner.table;
    let child_types: Vec<&ColumnType> = ids
        .iter()
        .filter_map(|&id| w.col_by_id(id).map(|c| &c.def.ty))
        .collect();
    let missing_index = || {
        if owner.alter && !checks_on(s) {
            SqlError::new(
                1822,
                format!(
                    "Failed to add the foreign key constraint. Missing index for constraint '{}' in the referenced table '{ref_table}'",
                    spec.name.as_deref().unwrap_or("")
                ),
            )
        } else {
            refused(owner, &spec, Refusal::NoIndex)
        }
    };
    let mut ref_columns = Vec::with_capacity(ids.len());
    if self_reference {
        let mut ref_ids = Vec::new();
        for ((c, ty), child) in spec.ref_columns.iter().zip(&child_types).zip(&spec.columns) {
            let pos = w
                .col_pos(c)
                .ok_or_else(|| refused(owner, &spec, Refusal::NoColumn(c)))?;
            if !compatible(ty, &w.cols[pos].def.ty) {
                return Err(refused(owner, &spec, Refusal::Types(child, c)));
            }
            ref_ids.push(w.cols[pos].id);
            ref_columns.push(w.cols[pos].def.name.clone());
        }
        let indexed = w.keys.iter().any(|k| {
            k.kind != KeyKind::Fulltext
                && k.parts.len() >= ref_ids.len()
                && k.parts
                    .iter()
                    .zip(&ref_ids)
                    .all(|(p, id)| p.col == *id && p.prefix.is_none())
        });
        if !indexed {
            return Err(missing_index());
        }
    } else {
        match s.db.catalog().table_entry(&ref_db, &ref_table) {
            None if checks_on(s) => {
                return Err(refused(
                    owner,
                    &spec,
                    Refusal::NoParentTable(&ref_db, &ref_table),
                ))
            }
            None => ref_columns = spec.ref_columns.clone(),
            Some(parent) => {
                let mut positions = Vec::new();
                for ((c, ty), child) in spec.ref_columns.iter().zip(&child_types).zip(&spec.columns)
                {
                    let pos = parent
                        .def
                        .columns
                        .iter()
                        .position(|pc| pc.name.eq_ignore_ascii_case(c))
                        .ok_or_else(|| refused(owner, &spec, Refusal::NoColumn(c)))?;
                    if !compatible(ty, &parent.def.columns[pos].ty) {
                        return Err(refused(owner, &spec, Refusal::Types(child, c)));
                    }
                    positions.push(pos);
                    ref_columns.push(parent.def.columns[pos].name.clone());
                }
                if index_for(&parent.def, &positions).is_none() {
                    return Err(missing_index());
                }
            }
        }
    }
    let name = match spec.name {
        Some(n) => {
            super::check_identifier(&n, super::Ident::Index)?;
            let taken_elsewhere =
                s.db.foreign_keys
                    .name_taken(s.db.catalog(), owner.db, &n, owner.table);
            if taken_elsewhere || w.foreign.iter().any(|f| f.name.eq_ignore_ascii_case(&n)) {
                return Err(SqlError::new(
                    1005,
                    format!(
                        "Can't create table `{}`.`{}` (errno: 121 \"Duplicate key on write or update\")",
                        owner.db, owner.table
                    ),
                ));
            }
            n
        }
        None => {
            let next = w
                .foreign
                .iter()
                .filter_map(|f| generated_number(owner.table, &f.name))
                .max()
                .unwrap_or(0)
                + 1;
            format!("{}_ibfk_{next}", owner.table)
        }
    };
    Ok(ForeignKey {
        name,
        columns: ids,
        ref_db,
        ref_table,
        ref_columns,
        on_delete,
        on_update,
    })
}

/// The engine number (0 clustered, 1 + n secondary n) of an index of `def`
/// whose leading whole-column parts are `positions`, in order.
pub(crate) fn index_for(def: &TableDef, positions: &[usize]) -> Option<usize> {
    let starts = |idx: &larch_engine::table::IndexDef| {
        idx.columns.len() >= positions.len()
            && idx
                .columns
                .iter()
                .zip(positions)
                .all(|(c, &p)| c.column == p && c.prefix_len.is_none())
    };
    if def.primary_key.as_ref().is_some_and(starts) {
        return Some(0);
    }
    def.secondary.iter().position(starts).map(|i| i + 1)
}

/// InnoDB's compatibility of a referencing and a referenced column:
/// integers of the same size and sign, character strings of the same
/// character set (of any length), binary strings, otherwise the same kind
/// of type.
fn compatible(a: &ColumnType, b: &ColumnType) -> bool {
    use ColumnType as T;
    let charset = |t: &ColumnType| match t {
        T::Char { collation, .. } | T::Varchar { collation, .. } => Some(collation.charset()),
        T::Binary { .. } | T::Varbinary { .. } => {
            Some(larch_engine::record::collation::Collation::Binary.charset())
        }
        _ => None,
    };
    match (a, b) {
        (
            T::Int {
                bytes: x,
                unsigned: u,
            },
            T::Int {
                bytes: y,
                unsigned: v,
            },
        ) => x == y && u == v,
        _ => match (charset(a), charset(b)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => std::mem::discriminant(a) == std::mem::discriminant(b),
            _ => false,
        },
    }
}

/// ALTER TABLE DROP FOREIGN KEY `name` (1091 when there is none).
pub(super) fn drop_foreign_key(w: &mut Work, name: &str) -> Result<(), SqlError> {
    let before = w.foreign.len();
    w.foreign.retain(|f| !f.name.eq_ignore_ascii_case(name));
    if w.foreign.len() == before {
        return Err(super::cant_drop("FOREIGN KEY", name));
    }
    Ok(())
}

/// After ALTER TABLE changed columns of `w` (the table `db`.`table`, whose
/// definition was `original`): 1830 when a SET NULL constraint's column
/// became NOT NULL, 1832 when a referencing column and 1833 when a column
/// other tables reference changed to a type the constraint cannot use.
pub(super) fn check_altered_columns(
    s: &Session,
    w: &Work,
    original: &TableDef,
    db: &str,
    table: &str,
) -> Result<(), SqlError> {
    let old_type = |c: &super::work::WCol| c.origin.and_then(|o| original.columns.get(o));
    for fk in &w.foreign {
        let set_null = fk.on_delete == FkAction::SetNull || fk.on_update == FkAction::SetNull;
        for c in fk.columns.iter().filter_map(|&id| w.col_by_id(id)) {
            if set_null && !c.def.nullable {
                return Err(SqlError::new(
                    1830,
                    format!(
                        "Column '{}' cannot be NOT NULL: needed in a foreign key constraint '{}' SET NULL",
                        c.def.name, fk.name
                    ),
                ));
            }
            if old_type(c).is_some_and(|o| !compatible(&o.ty, &c.def.ty)) && checks_on(s) {
                return Err(SqlError::new(
                    1832,
                    format!(
                        "Cannot change column '{}': used in a foreign key constraint '{}'",
                        c.def.name, fk.name
                    ),
                ));
            }
        }
    }
    if !checks_on(s) {
        return Ok(());
    }
    for child in s.db.foreign_keys.children(s.db.catalog(), db, table) {
        for name in &child.fk.ref_columns {
            let Some(c) = w.col_pos(name).map(|p| &w.cols[p]) else {
                continue;
            };
            if old_type(c).is_some_and(|o| !compatible(&o.ty, &c.def.ty)) {
                return Err(SqlError::new(
                    1833,
                    format!(
                        "Cannot change column '{}': used in a foreign key constraint '{}' of table '{}.{}'",
                        c.def.name, child.fk.name, child.db, child.table
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// 1828 when column `pos` of `w` is a referencing column.
pub(super) fn check_drop_column(w: &Work, pos: usize) -> Result<(), SqlError> {
    let col = &w.cols[pos];
    match w.foreign.iter().find(|f| f.columns.contains(&col.id)) {
        Some(fk) => Err(SqlError::new(
            1828,
            format!(
                "Cannot drop column '{}': needed in a foreign key constraint '{}'",
                col.def.name, fk.name
            ),
        )),
        None => Ok(()),
    }
}

/// 1553 when an index of the original table that is gone from `w` was the
/// one a constraint needs: the child's index over its referencing columns,
/// or the parent's over the referenced ones (for every table referencing
/// `db`.`table`, this one included).
pub(super) fn check_dropped_indexes(
    s: &Session,
    w: &Work,
    original: &TableDef,
    db: &str,
    table: &str,
) -> Result<(), SqlError> {
    let covered = |ids: &[usize]| {
        w.keys.iter().any(|k| {
            k.kind != KeyKind::Fulltext
                && k.parts.len() >= ids.len()
                && k.parts
                    .iter()
                    .zip(ids)
                    .all(|(p, id)| p.col == *id && p.prefix.is_none())
        })
    };
    let mut needed: Vec<Vec<usize>> = w.foreign.iter().map(|f| f.columns.clone()).collect();
    for child in s.db.foreign_keys.children(s.db.catalog(), db, table) {
        if child.db == db && child.table == table {
            continue;
        }
        let ids: Option<Vec<usize>> = child
            .fk
            .ref_columns
            .iter()
            .map(|c| {
                let pos = w.col_pos(c)?;
                Some(w.cols[pos].id)
            })
            .collect();
        if let Some(ids) = ids {
            needed.push(ids);
        }
    }
    for fk in w
        .foreign
        .iter()
        .filter(|f| f.ref_db == db && f.ref_table == table)
    {
        let ids: Option<Vec<usize>> = fk
            .ref_columns
            .iter()
            .map(|c| Some(w.cols[w.col_pos(c)?].id))
            .collect();
        if let Some(ids) = ids {
            needed.push(ids);
        }
    }
    for ids in needed {
        if covered(&ids) {
            continue;
        }
        // Name the original index that served these columns.
        let positions: Vec<usize> = ids.clone();
        let name = index_for(original, &positions)
            .map(|i| match i {
                0 => "PRIMARY".to_string(),
                n => original.secondary[n - 1].name.clone(),
            })
            .unwrap_or_default();
        return Err(SqlError::new(
            1553,
            format!("Cannot drop index '{name}': needed in a foreign key constraint"),
        ));
    }
    Ok(())
}

/// ALTER TABLE ADD FOREIGN KEY: the rows of `db`.`table` must satisfy the
/// constraints `added` of the new definition `fin` (1452), unless
/// `foreign_key_checks = 0`.
pub(super) fn verify_added(
    s: &Session,
    db: &str,
    table: &str,
    fin: &super::work::Finished,
    added: &[String],
) -> Result<(), SqlError> {
    if added.is_empty() || !checks_on(s) {
        return Ok(());
    }
    let fks: Vec<&ForeignKey> = fin
        .meta
        .foreign_keys
        .iter()
        .filter(|f| added.contains(&f.name))
        .collect();
    let t = s.db.catalog().table(db, table)?;
    let shown = s.visible_table_name(db, table);
    crate::exec::write::foreign::verify_existing(s, db, &shown, &t, &fin.def, &fin.origin, &fks)
}
