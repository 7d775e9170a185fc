//! SHOW CREATE PROCEDURE | FUNCTION and SHOW PROCEDURE | FUNCTION STATUS,
//! in MariaDB's column layout, and the rows of
//! INFORMATION_SCHEMA.ROUTINES.
//!
//! The CREATE text is rebuilt as MariaDB rebuilds it: `CREATE
//! DEFINER=`u`@`h` PROCEDURE `name`(params)[ RETURNS type]`, a newline,
//! one indented line per characteristic that differs from the default (data
//! access, `DETERMINISTIC`, `SQL SECURITY INVOKER`, `COMMENT '...'`), then
//! the body as written.

use larch_engine::catalog::ProgramKind;
use larch_engine::record::value::Value;
use sqlparser::ast;

use super::super::head::{create_definer_clause, definer_text, quote_ident, Context};
use super::super::show_filter::ShowFilter;
use super::{does_not_exist, kind_word, name_of, RoutineDef};
use crate::error::SqlError;
use crate::parse::routine::DataAccess;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The CREATE statement of a routine, as SHOW CREATE prints it.
pub(crate) fn create_text(name: &str, def: &RoutineDef) -> String {
    let mut out = format!(
        "{} {} {}({})",
        create_definer_clause(&def.definer),
        kind_word(def.kind),
        quote_ident(name),
        def.params_text
    );
    if def.kind == ProgramKind::Function {
        out.push_str(" RETURNS ");
        out.push_str(&def.returns_text);
    }
    out.push('\n');
    match def.access {
        DataAccess::NoSql => out.push_str("    NO SQL\n"),
        DataAccess::ReadsSqlData => out.push_str("    READS SQL DATA\n"),
        DataAccess::ModifiesSqlData => out.push_str("    MODIFIES SQL DATA\n"),
        DataAccess::ContainsSql => {}
    }
    if def.deterministic {
        out.push_str("    DETERMINISTIC\n");
    }
    if def.invoker {
        out.push_str("    SQL SECURITY INVOKER\n");
    }
    if !def.comment.is_empty() {
        out.push_str("    COMMENT ");
        out.push_str(&quote_string(&def.comment));
        out.push('\n');
    }
    out.push_str(&def.body_text);
    out
}

/// SHOW CREATE PROCEDURE | FUNCTION name.
pub(super) fn show_create(
    s: &Session,
    kind: ProgramKind,
    name: &ast::ObjectName,
) -> Result<QueryResult, SqlError> {
    let (db, n) = name_of(s, name)?;
    let Some(e) = s.db.catalog().program(&db, kind, &n) else {
        return Err(does_not_exist(kind, &db, &n));
    };
    let def = RoutineDef::decode(&e.definition)?;
    let (first, create) = match kind {
        ProgramKind::Function => ("Function", "Create Function"),
        _ => ("Procedure", "Create Procedure"),
    };
    let mut columns = vec![
        ResultColumn::text(first, 64, false),
        ResultColumn::text("sql_mode", 64, false),
        ResultColumn::text(create, 1024, true),
    ];
    columns.extend(Context::columns());
    let mut row = vec![
        Value::Str(e.name.clone()),
        Value::Str(def.context.sql_mode.clone()),
        Value::Str(create_text(&e.name, &def)),
    ];
    row.extend(def.context.values());
    Ok(QueryResult::Rows(RowSet {
        columns,
        rows: vec![row],
    }))
}

fn datetime_text(micros: i64) -> String {
    let dt = crate::value::temporal::datetime_from_micros(micros - micros % 1_000_000)
        .unwrap_or_default();
    crate::value::format_datetime(&dt, 0)
}

/// SHOW PROCEDURE | FUNCTION STATUS [LIKE 'p' | WHERE expr].
pub(super) fn show_status(
    s: &Session,
    kind: ProgramKind,
    like: Option<&str>,
    filter: Option<&ast::Expr>,
) -> Result<QueryResult, SqlError> {
    let columns: Vec<ResultColumn> = crate::exec::show::ROUTINE_STATUS_COLUMNS
        .iter()
        .map(|n| ResultColumn::text(*n, 64, false))
        .collect();
    let show = ShowFilter::new(crate::exec::show::ROUTINE_STATUS_COLUMNS, like, filter)?;
    let mut rows = Vec::new();
    for e in s.db.catalog().programs(None, kind) {
        if !crate::privileges::check::sees_database(s, &e.schema) {
            continue;
        }
        if !show.name_matches(&e.name) {
            continue;
        }
        let def = RoutineDef::decode(&e.definition)?;
        let mut row = vec![
            Value::Str(e.schema.clone()),
            Value::Str(e.name.clone()),
            Value::Str(kind_word(kind).into()),
            Value::Str(definer_text(&def.definer)),
            Value::Str(datetime_text(def.modified)),
            Value::Str(datetime_text(def.created)),
            Value::Str(if def.invoker { "INVOKER" } else { "DEFINER" }.into()),
            Value::Str(def.comment.clone()),
        ];
        row.extend(def.context.values());
        if show.row_matches(s, &row)? {
            rows.push(row);
        }
    }
    Ok(QueryResult::Rows(RowSet { columns, rows }))
}

/// The empty list of SHOW PACKAGE [BODY] STATUS.
pub(super) fn empty_status() -> QueryResult {
    QueryResult::Rows(RowSet {
        columns: crate::exec::show::ROUTINE_STATUS_COLUMNS
            .iter()
            .map(|n| ResultColumn::text(*n, 64, false))
            .collect(),
        rows: Vec::new(),
    })
}
