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
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::{does_not_exist, kind_word, name_of, RoutineDef};
use crate::error::SqlError;
use crate::eval::{CompileOptions, ExprType};
use crate::parse::routine::DataAccess;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

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
        "CREATE DEFINER={}@{} {} {}({})",
        quote_ident(&def.definer.0),
        quote_ident(&def.definer.1),
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
    Ok(QueryResult::Rows(RowSet {
        columns: vec![
            ResultColumn::text(first, 64, false),
            ResultColumn::text("sql_mode", 64, false),
            ResultColumn::text(create, 1024, true),
            ResultColumn::text("character_set_client", 32, false),
            ResultColumn::text("collation_connection", 64, false),
            ResultColumn::text("Database Collation", 64, false),
        ],
        rows: vec![vec![
            Value::Str(e.name.clone()),
            Value::Str(def.sql_mode.clone()),
            Value::Str(create_text(&e.name, &def)),
            Value::Str(def.charset_client.clone()),
            Value::Str(def.collation_connection.clone()),
            Value::Str(def.db_collation.clone()),
        ]],
    }))
}

fn datetime_text(micros: i64) -> String {
    let dt = crate::value::temporal::datetime_from_micros(micros - micros % 1_000_000)
        .unwrap_or_default();
    crate::value::format_datetime(&dt, 0)
}

const STATUS_COLUMNS: [&str; 11] = [
    "Db",
    "Name",
    "Type",
    "Definer",
    "Modified",
    "Created",
    "Security_type",
    "Comment",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];

/// SHOW PROCEDURE | FUNCTION STATUS [LIKE 'p' | WHERE expr].
pub(super) fn show_status(
    s: &Session,
    kind: ProgramKind,
    like: Option<&str>,
    filter: Option<&ast::Expr>,
) -> Result<QueryResult, SqlError> {
    let columns: Vec<ResultColumn> = STATUS_COLUMNS
        .iter()
        .map(|n| ResultColumn::text(*n, 64, false))
        .collect();
    let compiled = match filter {
        Some(f) => {
            let resolve = |ids: &[ast::Ident]| {
                let last = ids.last()?;
                let i = STATUS_COLUMNS
                    .iter()
                    .position(|c| c.eq_ignore_ascii_case(&last.value))?;
                Some((
                    i,
                    ExprType {
                        ty: ColumnType::Varchar {
                            max_len: 64,
                            collation: Collation::Utf8mb4GeneralCi,
                        },
                        nullable: false,
                    },
                ))
            };
            Some(crate::eval::compile(
                f,
                &resolve,
                &CompileOptions::default(),
            )?)
        }
        None => None,
    };
    let mut rows = Vec::new();
    for e in s.db.catalog().programs(None, kind) {
        if !crate::privileges::check::sees_database(s, &e.schema) {
            continue;
        }
        if let Some(p) = like {
            if !crate::eval::like(&e.name, p, '\\', Collation::Utf8mb4GeneralCi) {
                continue;
            }
        }
        let def = RoutineDef::decode(&e.definition)?;
        let row = vec![
            Value::Str(e.schema.clone()),
            Value::Str(e.name.clone()),
            Value::Str(kind_word(kind).into()),
            Value::Str(format!("{}@{}", def.definer.0, def.definer.1)),
            Value::Str(datetime_text(def.modified)),
            Value::Str(datetime_text(def.created)),
            Value::Str(if def.invoker { "INVOKER" } else { "DEFINER" }.into()),
            Value::Str(def.comment.clone()),
            Value::Str(def.charset_client.clone()),
            Value::Str(def.collation_connection.clone()),
            Value::Str(def.db_collation.clone()),
        ];
        if let Some(c) = &compiled {
            let mut ctx = s.eval_context(&[]);
            let v = c.eval(&row, &mut ctx)?;
            if !crate::eval::convert::truth(&v, &mut ctx).unwrap_or(false) {
                continue;
            }
        }
        rows.push(row);
    }
    Ok(QueryResult::Rows(RowSet { columns, rows }))
}

/// The empty list of SHOW PACKAGE [BODY] STATUS.
pub(super) fn empty_status() -> QueryResult {
    QueryResult::Rows(RowSet {
        columns: STATUS_COLUMNS
            .iter()
            .map(|n| ResultColumn::text(*n, 64, false))
            .collect(),
        rows: Vec::new(),
    })
}
