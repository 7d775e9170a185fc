//! Generated columns: `col type [GENERATED ALWAYS] AS (expr) [VIRTUAL |
//! STORED | PERSISTENT]`, as MariaDB has them.
//!
//! The expression is kept as text in the column's [`Generation`]
//! (`TableMeta`, MariaDB's printed form) and checked when a table
//! definition is finished ([`validate`]), with MariaDB's errors:
//!
//! - a column the expression names must exist (1054 `Unknown column 'x' in
//!   'GENERATED ALWAYS AS'`); it may be any ordinary column, earlier or
//!   later, or a generated column defined before it, never itself or a
//!   later generated column (4029 `Expression for field `c` is referring
//!   to uninitialized field `d``);
//! - subqueries, user variables, stored functions, aggregates and the
//!   functions whose result depends on the session or the moment (`now()`,
//!   `rand()`, `user()`, ...) are 1901 `Function or expression 'f()' cannot
//!   be used in the GENERATED ALWAYS AS clause of `c``; so is a STORED
//!   column that reads the AUTO_INCREMENT column;
//! - a PRIMARY KEY on a generated column is 1903.
//!
//! Invariant: every generated value in a row is the expression's result
//! over the row's other values. Writers compute the values of every
//! generated column ([`GeneratedColumns::fill`]) on each INSERT, REPLACE,
//! LOAD DATA, UPDATE and ON DUPLICATE KEY UPDATE row, in column order (so
//! a generated column sees the generated columns before it), and ALTER
//! TABLE recomputes them on every copied row. VIRTUAL values are
//! materialized in the row like STORED ones, which reads them as MariaDB
//! computes them as long as the expression is deterministic; that is why a
//! VIRTUAL column whose expression is not (MariaDB computes those on each
//! read) is refused with 1235. Indexes on generated columns, VIRTUAL or
//! STORED, are therefore ordinary indexes.

use std::ops::ControlFlow;

use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::TableDef;
use sqlparser::ast;

use super::meta::TableMeta;
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions, ExprType};
use crate::session::Session;

/// The clause errors name.
const CLAUSE: &str = "GENERATED ALWAYS AS";

/// Functions a generated column may not call, and the name MariaDB's
/// error gives them (aliases map to one name).
const NOT_ALLOWED: &[(&str, &str)] = &[
    ("now", "current_timestamp"),
    ("current_timestamp", "current_timestamp"),
    ("localtime", "current_timestamp"),
    ("localtimestamp", "current_timestamp"),
    ("sysdate", "sysdate"),
    ("curdate", "curdate"),
    ("current_date", "curdate"),
    ("curtime", "curtime"),
    ("current_time", "curtime"),
    ("utc_timestamp", "utc_timestamp"),
    ("utc_date", "utc_date"),
    ("utc_time", "utc_time"),
    ("unix_timestamp", "unix_timestamp"),
    ("rand", "rand"),
    ("uuid", "uuid"),
    ("uuid_short", "uuid_short"),
    ("sys_guid", "sys_guid"),
    ("user", "user"),
    ("session_user", "user"),
    ("system_user", "user"),
    ("current_user", "current_user"),
    ("current_role", "current_role"),
    ("database", "database"),
    ("schema", "database"),
    ("connection_id", "connection_id"),
    ("last_insert_id", "last_insert_id"),
    ("row_count", "row_count"),
    ("found_rows", "found_rows"),
    ("version", "version"),
    ("get_lock", "get_lock"),
    ("release_lock", "release_lock"),
    ("release_all_locks", "release_all_locks"),
    ("is_free_lock", "is_free_lock"),
    ("is_used_lock", "is_used_lock"),
    ("sleep", "sleep"),
    ("benchmark", "benchmark"),
    ("nextval", "nextval"),
    ("lastval", "lastval"),
    ("setval", "setval"),
    ("master_pos_wait", "master_pos_wait"),
    ("load_file", "load_file"),
    ("date_format", "date_format"),
    ("time_format", "time_format"),
    ("sum", "sum"),
    ("count", "count"),
    ("avg", "avg"),
    ("min", "min"),
    ("max", "max"),
    ("group_concat", "group_concat"),
    ("std", "std"),
    ("stddev", "std"),
    ("variance", "variance"),
    ("bit_and", "bit_and"),
    ("bit_or", "bit_or"),
    ("bit_xor", "bit_xor"),
    ("json_arrayagg", "json_arrayagg"),
    ("json_objectagg", "json_objectagg"),
];

/// Functions that are not deterministic (MariaDB allows them in a VIRTUAL
/// column that no index uses and computes them on every read).
const NON_DETERMINISTIC: &[&str] = &[
    "current_timestamp",
    "sysdate",
    "curdate",
    "curtime",
    "utc_timestamp",
    "utc_date",
    "utc_time",
    "unix_timestamp",
    "rand",
    "uuid",
    "uuid_short",
    "sys_guid",
    "user",
    "current_user",
    "current_role",
    "database",
    "connection_id",
    "last_insert_id",
    "row_count",
    "found_rows",
    "version",
    "date_format",
    "time_format",
];

/// 1901 for `what` in the expression of `column`.
fn not_allowed(what: &str, column: &str) -> SqlError {
    SqlError::new(
        1901,
        format!(
            "Function or expression '{what}' cannot be used in the {CLAUSE} clause of `{column}`"
        ),
    )
}

/// What an expression uses that a generated column may not: the name for
/// error 1901 and whether MariaDB would still take it in a VIRTUAL column.
fn forbidden_use(e: &ast::Expr) -> Option<(String, bool)> {
    let mut found = None;
    let _ = ast::visit_expressions(e, |x| {
        let hit = match x {
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => {
                Some(("select ...".to_string(), false))
            }
            ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.starts_with('@') => {
                Some((id.value.clone(), true))
            }
            ast::Expr::CompoundIdentifier(ids)
                if ids
                    .first()
                    .is_some_and(|i| i.quote_style.is_none() && i.value.starts_with('@')) =>
            {
                Some((x.to_string(), true))
            }
            ast::Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_lowercase();
                let name = name.trim_matches('`');
                match NOT_ALLOWED.iter().find(|(n, _)| *n == name) {
                    // `unix_timestamp(col)` and `date_format`-like calls
                    // with their arguments are only refused without them.
                    Some((_, shown)) if *shown == "unix_timestamp" && has_args(f) => None,
                    Some((_, shown)) => {
                        Some((format!("{shown}()"), NON_DETERMINISTIC.contains(shown)))
                    }
                    None if f.name.0.len() > 1
                        || (crate::eval::builtin_function(name).is_none()
                            && crate::exec::routine::stored_function_type(None, name)
                                .is_some()) =>
                    {
                        Some((format!("`{name}`()"), false))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        match hit {
            Some(h) => {
                found = Some(h);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    });
    found
}

fn has_args(f: &ast::Function) -> bool {
    matches!(&f.args, ast::FunctionArguments::List(l) if !l.args.is_empty())
}

/// The column names `e` refers to (last part of each identifier).
pub(super) fn referenced_columns(e: &ast::Expr) -> Vec<String> {
    let mut out = Vec::new();
    let _ = ast::visit_expressions(e, |x| {
        match x {
            ast::Expr::Identifier(id) => out.push(id.value.clone()),
            ast::Expr::CompoundIdentifier(ids) => {
                if let Some(last) = ids.last() {
                    out.push(last.value.clone());
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// The positions in `def` of the columns `e` refers to; 1054 `Unknown
/// column 'x' in '<clause>'` for a name `def` lacks.
pub(super) fn referenced_positions(
    def: &TableDef,
    e: &ast::Expr,
    clause: &str,
) -> Result<Vec<usize>, SqlError> {
    referenced_columns(e)
        .into_iter()
        .map(|name| {
            def.columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(&name))
                .ok_or_else(|| SqlError::unknown_column(&name, clause))
        })
        .collect()
}

/// The type of column `i` as expressions see it.
fn column_type(def: &TableDef, i: usize) -> ExprType {
    ExprType {
        ty: def.columns[i].ty.clone(),
        nullable: def.columns[i].nullable,
        decimals: None,
    }
}

/// A generation expression's column reference: the table's column of that
/// name (the last part; the table qualifier is the table itself) and its type.
pub(super) fn resolve_column(def: &TableDef, parts: &[ast::Ident]) -> Option<(usize, ExprType)> {
    let name = &parts.last()?.value;
    let j = def
        .columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))?;
    Some((j, column_type(def, j)))
}

/// Checks the generated columns of a finished definition (see the module
/// documentation for the rules and errors).
pub(super) fn validate(def: &TableDef, meta: &TableMeta) -> Result<(), SqlError> {
    for (i, m) in meta.columns.iter().enumerate() {
        let Some(g) = &m.generated else {
            continue;
        };
        let column = def.columns[i].name.as_str();
        let expr = crate::parse::parse_expression(&g.expr)?;
        if let Some((what, virtual_ok)) = forbidden_use(&expr) {
            if g.stored || !virtual_ok {
                return Err(not_allowed(&what, column));
            }
            return Err(SqlError::not_supported(
                "non-deterministic expressions in VIRTUAL columns",
            ));
        }
        for j in referenced_positions(def, &expr, CLAUSE)? {
            if j == i || (j > i && meta.columns[j].generated.is_some()) {
                return Err(SqlError::new(
                    4029,
                    format!(
                        "Expression for field `{column}` is referring to uninitialized field `{}`",
                        def.columns[j].name
                    ),
                ));
            }
            if g.stored && def.auto_increment == Some(j) {
                return Err(not_allowed("AUTO_INCREMENT", column));
            }
        }
        let resolve = |parts: &[ast::Ident]| resolve_column(def, parts);
        let opts = CompileOptions {
            clause: CLAUSE.into(),
            ..CompileOptions::default()
        };
        eval::compile(&expr, &resolve, &opts)?;
    }
    if let Some(pk) = &def.primary_key {
        if pk.columns.iter().any(|c| {
            meta.columns
                .get(c.column)
                .is_some_and(|m| m.generated.is_some())
        }) {
            return Err(SqlError::new(
                1903,
                "Primary key cannot be defined upon a generated column",
            ));
        }
    }
    Ok(())
}

/// Makes the generation expressions, column and table CHECK constraints
/// and DEFAULT expressions of `w` read column `from` under its new name
/// `to` (ALTER TABLE CHANGE or RENAME COLUMN renamed it), as MariaDB does.
pub(super) fn rename_references(
    w: &mut super::work::Work,
    from: &str,
    to: &str,
) -> Result<(), SqlError> {
    for c in &mut w.cols {
        if let Some(g) = &mut c.meta.generated {
            if let Some(text) = renamed_in(&g.expr, from, to)? {
                g.expr = text;
            }
        }
        if let Some(check) = &mut c.meta.check {
            if let Some(text) = renamed_in(check, from, to)? {
                *check = text;
            }
        }
        if let Some(default) = &mut c.meta.default {
            if let Some(text) = renamed_in(default, from, to)? {
                *default = text;
            }
        }
    }
    for (_, check) in &mut w.checks {
        if let Some(text) = renamed_in(check, from, to)? {
            *check = text;
        }
    }
    Ok(())
}

/// The expression `text` with its references to column `from` naming `to`
/// instead (`None` when it has none, so the text stays as written).
fn renamed_in(text: &str, from: &str, to: &str) -> Result<Option<String>, SqlError> {
    // A text that does not parse as an expression (a DEFAULT literal of a
    // form only the column type reads) names no column.
    let Ok(mut expr) = crate::parse::parse_expression(text) else {
        return Ok(None);
    };
    let mut changed = false;
    let _ = ast::visit_expressions_mut(&mut expr, |x| {
        match x {
            ast::Expr::Identifier(id) if id.value.eq_ignore_ascii_case(from) => {
                id.value = to.to_string();
                changed = true;
            }
            ast::Expr::CompoundIdentifier(ids) => {
                if let Some(last) = ids
                    .last_mut()
                    .filter(|i| i.value.eq_ignore_ascii_case(from))
                {
                    last.value = to.to_string();
                    changed = true;
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(changed.then(|| super::check::check_text(&expr)))
}

/// True when `old` and `new` give some column a different generation (the
/// rows must then be rebuilt to hold the new values).
pub(super) fn generation_changed(old: &TableMeta, new: &TableMeta) -> bool {
    old.columns.len() != new.columns.len()
        || old
            .columns
            .iter()
            .zip(&new.columns)
            .any(|(a, b)| a.generated != b.generated)
}

/// The compiled generated columns of one table, in column order.
#[derive(Default)]
pub(crate) struct GeneratedColumns {
    items: Vec<(usize, eval::Compiled)>,
}

impl GeneratedColumns {
    /// Compiles the generation expressions of `def` and `meta`.
    pub fn compile(
        s: &Session,
        def: &TableDef,
        meta: &TableMeta,
    ) -> Result<GeneratedColumns, SqlError> {
        let mut items = Vec::new();
        for (i, m) in meta.columns.iter().enumerate() {
            let Some(g) = &m.generated else {
                continue;
            };
            let resolve = |parts: &[ast::Ident]| resolve_column(def, parts);
            let opts = CompileOptions {
                collation: s.connection_collation(),
                clause: CLAUSE.into(),
            };
            let expr = crate::parse::parse_expression(&g.expr)?;
            items.push((i, eval::compile(&expr, &resolve, &opts)?));
        }
        Ok(GeneratedColumns { items })
    }

    /// True when the table has no generated column.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// True when column `c` is generated.
    pub fn is_generated(&self, c: usize) -> bool {
        self.items.iter().any(|(i, _)| *i == c)
    }

    /// Computes every generated value of `row` (engine values of every
    /// column), in column order; `store` converts a result to its column's
    /// type (with the writer's strictness and warnings).
    pub fn fill(
        &self,
        s: &Session,
        def: &TableDef,
        row: &mut [Value],
        warnings: &mut Vec<Warning>,
        mut store: impl FnMut(usize, &Value, &mut Vec<Warning>) -> Result<Value, SqlError>,
    ) -> Result<(), SqlError> {
        if self.items.is_empty() {
            return Ok(());
        }
        let mut values: Vec<Value> = row
            .iter()
            .zip(&def.columns)
            .map(|(v, c)| expression_value(v, &c.ty))
            .collect();
        for (c, expr) in &self.items {
            let mut ctx = s.eval_context(&[]);
            let v = expr.eval(&values, &mut ctx)?;
            warnings.extend(ctx.take_warnings());
            let stored = store(*c, &v, warnings)?;
            values[*c] = expression_value(&stored, &def.columns[*c].ty);
            row[*c] = stored;
        }
        Ok(())
    }
}

/// A stored value as expressions read it (ENUM and SET as their text).
fn expression_value(v: &Value, ty: &ColumnType) -> Value {
    crate::value::expression_value(v, ty)
}
