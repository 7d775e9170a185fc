//! SHOW statements about the server: DATABASES, TABLES, TABLE STATUS,
//! VARIABLES, STATUS, PROCESSLIST, ENGINES, PLUGINS, COLLATION, CHARACTER
//! SET, GRANTS, WARNINGS/ERRORS, ENGINE INNODB STATUS, OPEN TABLES (from the
//! metadata locks), and the objects Larch
//! does not have yet (TRIGGERS, EVENTS, FUNCTION/PROCEDURE/PACKAGE STATUS:
//! empty results with MariaDB's columns; SHOW CREATE
//! TRIGGER/FUNCTION/PROCEDURE/EVENT: MariaDB's "does not exist"
//! errors), and the binary log (MASTER/BINARY LOG STATUS: empty, as with
//! `log_bin` off; BINARY LOGS: error 1381). (SHOW CREATE TABLE, COLUMNS and
//! INDEX belong to `crate::ddl`.)
//!
//! SHOW CREATE VIEW (and SHOW CREATE TABLE of a view) is `views`.
//!
//! `LIKE 'pattern'` filters on the first column (case-insensitively for
//! variable and status names, as MySQL does); `WHERE expr` is evaluated over
//! each row with the result's column names.
//!
//! sqlparser reads the SHOW forms it does not know as a list of words and
//! drops their string literals and anything after `=`; for those forms the
//! `FROM db` and `LIKE`/`WHERE` parts are read again from the statement's
//! text ([`show_tail`]).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::{self};
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

mod objects;
mod server;
mod views;

use objects::*;
/// The columns of SHOW TRIGGERS and SHOW PROCEDURE|FUNCTION STATUS, also
/// used by the stored programs' own listings.
pub(crate) use objects::{ROUTINE_STATUS_COLUMNS, TRIGGER_COLUMNS};
use server::*;
pub(super) use server::{engine, warnings};
pub(crate) use server::{shown, status_list, ENGINES, PLUGINS};

/// Runs a SHOW this module owns; `None` for other statements.
pub(super) fn execute(
    s: &mut Session,
    stmt: &ast::Statement,
) -> Option<Result<QueryResult, SqlError>> {
    use ast::Statement as S;
    Some(match stmt {
        S::ShowDatabases { show_options, .. } | S::ShowSchemas { show_options, .. } => {
            databases(s, show_options)
        }
        S::ShowTables {
            full, show_options, ..
        } => tables(s, *full, show_options),
        S::ShowVariables { filter, global, .. } => variables_rows(s, *global, filter.as_ref()),
        S::ShowStatus { filter, global, .. } => status(s, *global, filter.as_ref()),
        S::ShowProcessList { full } => processlist(s, *full),
        S::ShowCollation { filter } => collations(s, filter.as_ref()),
        S::ShowCharset(c) => charsets(s, c.filter.as_ref()),
        S::ShowCreate {
            obj_type: ast::ShowCreateObject::View,
            obj_name,
        } => views::show_create_view(s, obj_name),
        S::ShowCreate {
            obj_type: ast::ShowCreateObject::Table,
            obj_name,
        } if views::name_of(s, obj_name).is_ok_and(|(db, t)| {
            s.temporary_table(&db, &t).is_none() && s.db.catalog().is_view(&db, &t)
        }) =>
        {
            views::show_create_view(s, obj_name)
        }
        S::ShowCreate { obj_type, obj_name } => {
            return show_create_other(s, *obj_type, obj_name);
        }
        S::ShowVariable { variable } => {
            let words: Vec<String> = variable
                .iter()
                .filter(|i| i.quote_style.is_none())
                .map(|i| i.value.to_ascii_uppercase())
                .collect();
            let w: Vec<&str> = words.iter().map(String::as_str).collect();
            match w.as_slice() {
                ["ENGINES", ..] | ["STORAGE", "ENGINES", ..] => Ok(engines()),
                ["TABLE", "STATUS", ..] => table_status(s),
                ["TRIGGERS", ..] => empty_listing(s, TRIGGER_COLUMNS, true),
                ["EVENTS", ..] => empty_listing(s, EVENT_COLUMNS, true),
                ["FUNCTION" | "PROCEDURE", "STATUS", ..]
                | ["PACKAGE", "STATUS", ..]
                | ["PACKAGE", "BODY", "STATUS", ..] => {
                    empty_listing(s, ROUTINE_STATUS_COLUMNS, false)
                }
                ["OPEN", "TABLES", ..] => objects::open_tables(s),
                ["MASTER" | "BINLOG", "STATUS", ..] | ["BINARY", "LOG", "STATUS", ..] => {
                    Ok(rows(text_columns(BINLOG_STATUS_COLUMNS), Vec::new()))
                }
                ["MASTER" | "BINARY", "LOGS", ..] => {
                    Err(SqlError::new(1381, "You are not using binary logging"))
                }
                ["PLUGINS", ..] => plugins(s),
                ["GRANTS", ..] => grants(s),
                _ => return None,
            }
        }
        _ => return None,
    })
}

fn text_columns(names: &[&str]) -> Vec<ResultColumn> {
    names
        .iter()
        .map(|n| ResultColumn::text(*n, 64, true))
        .collect()
}

fn rows(columns: Vec<ResultColumn>, rows: Vec<Vec<Value>>) -> QueryResult {
    QueryResult::Rows(RowSet { columns, rows })
}

fn filter_of(opts: &ast::ShowStatementOptions) -> Option<&ast::ShowStatementFilter> {
    match &opts.filter_position {
        Some(ast::ShowStatementFilterPosition::Infix(f))
        | Some(ast::ShowStatementFilterPosition::Suffix(f)) => Some(f),
        None => None,
    }
}

/// Keeps the rows the filter accepts.
fn apply_filter(
    s: &Session,
    set: &mut RowSet,
    filter: Option<&ast::ShowStatementFilter>,
    case_insensitive: bool,
) -> Result<(), SqlError> {
    match filter {
        None => Ok(()),
        Some(ast::ShowStatementFilter::Like(p) | ast::ShowStatementFilter::NoKeyword(p))
        | Some(ast::ShowStatementFilter::ILike(p)) => {
            let coll = if case_insensitive {
                Collation::Utf8mb4GeneralCi
            } else {
                Collation::Utf8mb4Bin
            };
            set.rows.retain(|r| match r.first() {
                Some(Value::Str(name)) => eval::like(name, p, '\\', coll),
                _ => false,
            });
            Ok(())
        }
        Some(ast::ShowStatementFilter::Where(e)) => {
            let names: Vec<(String, eval::ExprType)> = set
                .columns
                .iter()
                .map(|c| {
                    (
                        c.name.to_ascii_lowercase(),
                        eval::ExprType {
                            ty: c.ty.clone(),
                            nullable: c.nullable,
                            decimals: None,
                        },
                    )
                })
                .collect();
            let resolve = |parts: &[ast::Ident]| {
                let last = parts.last()?.value.to_ascii_lowercase();
                names
                    .iter()
                    .position(|(n, _)| *n == last)
                    .map(|i| (i, names[i].1.clone()))
            };
            let opts = eval::CompileOptions {
                collation: Collation::Utf8mb4GeneralCi,
                clause: "WHERE".into(),
            };
            let c = eval::compile(e, &resolve, &opts)?;
            let mut ctx = s.eval_context(&[]);
            let mut kept = Vec::new();
            for r in std::mem::take(&mut set.rows) {
                if crate::exec::rows::truthy(&c.eval(&r, &mut ctx)?) {
                    kept.push(r);
                }
            }
            set.rows = kept;
            Ok(())
        }
    }
}
