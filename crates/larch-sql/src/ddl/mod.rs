//! Table DDL and the statements that describe tables, with MySQL's
//! (MariaDB 10.11's) semantics, errors and output formats.
//!
//! Owns: `CREATE TABLE` (column types, NULL/NOT NULL, DEFAULT, ON UPDATE,
//! AUTO_INCREMENT, COMMENT, keys, table options, `LIKE`), `DROP TABLE`,
//! `TRUNCATE`, `RENAME TABLE`, `CREATE/DROP INDEX`, `ALTER TABLE` (columns,
//! keys, renames, defaults, several operations at once), Larch's `ALTER TABLE
//! ... ENGINE`, `DISABLE/ENABLE KEYS`, `CREATE FULLTEXT INDEX` and
//! `ANALYZE/CHECK/OPTIMIZE/REPAIR TABLE`, and `SHOW CREATE TABLE`, `SHOW
//! [FULL] COLUMNS`, `DESCRIBE` and `SHOW INDEX`.
//!
//! Layout:
//! - [`meta`]: [`TableMeta`], the SQL layer's part of a table definition
//!   (defaults, comments, display widths, options, FULLTEXT keys), stored in
//!   the catalog's `sql_meta` bytes next to the engine's `TableDef`;
//! - `types`: SQL data types to engine column types; `column`: one column
//!   definition with its options; `keys`: key definitions; `work`: the table
//!   being defined or altered ([`work::Work`]), which turns into a `TableDef`
//!   and a `TableMeta` with MySQL's key order and default key names;
//! - `view` (CREATE/ALTER/DROP VIEW) and `view_def` (a view's stored
//!   definition and its SHOW CREATE VIEW text);
//! - `create`, `alter`, `tables` (DROP, TRUNCATE, RENAME), `rebuild` (the
//!   copying rebuild behind ALTER and TRUNCATE), `maintenance`, `show`,
//!   `render` (type text, defaults and quoting as MariaDB prints them).
//!
//! Invariants: every DDL commits the session's open transaction first (as
//! MySQL does) and runs under the database's `ddl_lock`; a table's
//! `TableMeta` always has one `ColumnMeta` per engine column; names of
//! databases and tables are case-sensitive, names of columns and keys are not.
//!
//! FOREIGN KEY constraints: `foreign` (the definition), `foreign_ddl`
//! (the DDL rules), `foreign_parent` (DDL on referenced tables), `foreign_index` (constraints by referenced table);
//! enforced by `exec::write::foreign`. Not (yet) built: FULLTEXT indexes
//! (recorded in the metadata).
//! Temporary tables are real tables under a hidden name
//! (`session::temporary`).
//!
//! Usage: the executor calls [`execute`] for sqlparser statements and
//! [`execute_extra`] for Larch's own; both return `None` for statements that
//! are not theirs.

mod alter;
mod alter_ops;
mod check;
mod column;
mod create;
mod create_select;
mod defaults;
mod doc_id;
pub mod foreign;
pub(crate) mod foreign_ddl;
pub(crate) mod foreign_index;
mod foreign_parent;
pub(crate) mod generated;
mod index_change;
mod keys;
mod maintenance;
pub mod meta;
mod rebuild;
mod render;
pub(crate) mod show;
pub(crate) mod stopwords;
mod tables;
#[cfg(test)]
mod tests;
pub(crate) mod types;
mod view;
mod view_def;
mod work;

use sqlparser::ast;

use crate::error::SqlError;
use crate::parse::Statement;
use crate::result::QueryResult;
use crate::session::Session;

pub(crate) use check::Checks;
pub(crate) use defaults::ColumnDefaults;
pub use foreign::{FkAction, ForeignKey};
pub use foreign_index::ForeignKeyIndex;
pub(crate) use generated::GeneratedColumns;
pub use meta::{ColumnMeta, Generation, TableMeta};
pub use render::{column_type_text, extra_for_show};
pub(crate) use types::resolve_collation;
pub(crate) use view::as_table as view_as_table;
pub(crate) use view_def::ViewDef;

/// Longest name of a column, index or table (MySQL's NAME_CHAR_LEN).
const MAX_NAME_CHARS: usize = 64;

/// Runs a table DDL or table-describing statement; `None` when `stmt` is not
/// one of this module's.
pub fn execute(s: &mut Session, stmt: &ast::Statement) -> Option<Result<QueryResult, SqlError>> {
    use ast::Statement as S;
    Some(match stmt {
        S::CreateTable(ct) => create::create_table(s, ct),
        S::CreateIndex(ci) => alter::create_index(s, ci),
        S::AlterTable(at) => alter::alter_table(s, at),
        S::Drop {
            object_type: ast::ObjectType::Table,
            if_exists,
            names,
            temporary,
            ..
        } => tables::drop_tables(s, names, *if_exists, *temporary),
        S::Drop {
            object_type: ast::ObjectType::View,
            if_exists,
            names,
            ..
        } => view::drop(s, names, *if_exists),
        S::Drop {
            object_type: ast::ObjectType::Index,
            if_exists,
            names,
            table: Some(table),
            ..
        } => alter::drop_index(s, names, table, *if_exists),
        S::Truncate(t) => tables::truncate(s, t),
        S::RenameTable(r) => tables::rename(s, r),
        S::ShowCreate {
            obj_type: ast::ShowCreateObject::Table,
            obj_name,
        } => show::show_create_table(s, obj_name),
        S::ShowColumns {
            full, show_options, ..
        } => show::show_columns(s, *full, show_options),
        S::ExplainTable { table_name, .. } => show::describe(s, table_name),
        S::ShowVariable { variable } if show::is_show_index(variable) => {
            show::show_index(s, variable)
        }
        _ => return None,
    })
}

/// Runs one of Larch's own table statements (`AlterTableKeys`,
/// `AlterTableEngine`, `CreateFulltextIndex`, `TableMaintenance`); `None` for
/// the others.
pub fn execute_extra(s: &mut Session, stmt: &Statement) -> Option<Result<QueryResult, SqlError>> {
    Some(match stmt {
        Statement::AlterTableKeys { table, enable: _ } => maintenance::alter_keys(s, table),
        Statement::AlterTableEngine { table, engine } => alter::alter_engine(s, table, engine),
        Statement::CreateFulltextIndex {
            name,
            table,
            columns,
        } => alter::create_fulltext_index(s, name, table, columns),
        Statement::TableMaintenance { op, tables } => maintenance::run(s, *op, tables),
        Statement::AlterTable(at) => alter::alter_table_extended(s, at),
        Statement::View(v) => view::create(s, v),
        _ => return None,
    })
}

/// `(database, table)` of a table name: `db.t`, or `t` in the current
/// database (1046 without one); the hidden name of a temporary table of the
/// session.
pub(crate) fn table_name(
    s: &Session,
    name: &ast::ObjectName,
) -> Result<(String, String), SqlError> {
    let (db, t) = table_name_as_written(s, name)?;
    match s.temporary_table(&db, &t) {
        Some(hidden) => {
            let hidden = hidden.to_owned();
            Ok((db, hidden))
        }
        None => Ok((db, t)),
    }
}

/// Like [`table_name`], without looking at temporary tables.
pub(crate) fn table_name_as_written(
    s: &Session,
    name: &ast::ObjectName,
) -> Result<(String, String), SqlError> {
    let parts: Vec<&str> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.as_str())
        .collect();
    match parts.as_slice() {
        [t] if parts.len() == name.0.len() => {
            let db = s.current_db.clone().ok_or_else(SqlError::no_database)?;
            Ok((db, (*t).to_string()))
        }
        [db, t] if parts.len() == name.0.len() => Ok(((*db).to_string(), (*t).to_string())),
        _ => Err(SqlError::new(
            1103,
            format!("Incorrect table name '{name}'"),
        )),
    }
}

/// The dictionary entry of an existing table (1146 when there is none).
pub(crate) fn table_entry(
    s: &Session,
    db: &str,
    table: &str,
) -> Result<larch_engine::catalog::TableEntry, SqlError> {
    s.db.catalog()
        .table_entry(db, table)
        .ok_or_else(|| SqlError::no_such_table(db, table))
}

/// The entry of a table and its decoded metadata.
pub(crate) fn table_with_meta(
    s: &Session,
    db: &str,
    table: &str,
) -> Result<(larch_engine::catalog::TableEntry, TableMeta), SqlError> {
    let e = table_entry(s, db, table)?;
    let meta = TableMeta::decode(&e.sql_meta, &e.def)?;
    Ok((e, meta))
}

/// 1166 for an empty name or one ending in a space, 1059 for a name longer
/// than 64 characters.
pub(crate) fn check_identifier(name: &str, what: Ident) -> Result<(), SqlError> {
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(SqlError::new(
            1059,
            format!("Identifier name '{name}' is too long"),
        ));
    }
    if name.is_empty() || name.ends_with(' ') {
        let (code, kind) = match what {
            Ident::Column => (1166, "column"),
            Ident::Index => (1280, "index"),
        };
        return Err(SqlError::new(
            code,
            format!("Incorrect {kind} name '{name}'"),
        ));
    }
    Ok(())
}

/// What an identifier names (for [`check_identifier`]'s error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ident {
    Column,
    Index,
}

/// 1067 Invalid default value for 'c'.
pub(crate) fn invalid_default(column: &str) -> SqlError {
    SqlError::new(1067, format!("Invalid default value for '{column}'"))
}

/// 1091 in MariaDB's wording: ``Can't DROP COLUMN `c`; check that it exists``.
pub(crate) fn cant_drop(kind: &str, name: &str) -> SqlError {
    SqlError::new(
        1091,
        format!("Can't DROP {kind} `{name}`; check that it exists"),
    )
}

/// A syntax error (1064) near `text`.
pub(crate) fn syntax_error(text: impl Into<String>) -> SqlError {
    SqlError::Syntax {
        near: text.into(),
        line: 1,
    }
}
