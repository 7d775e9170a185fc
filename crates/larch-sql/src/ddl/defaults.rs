//! Column DEFAULT expressions, as MariaDB 10.2+ has them: a constant
//! (`DEFAULT 7`, `DEFAULT (1 + 1)`), the moment (`DEFAULT
//! current_timestamp()`), or an expression over the row's other columns
//! (`DEFAULT (a * 2)`).
//!
//! The text is kept in the column's `ColumnMeta::default`; a definition is
//! checked when finished ([`validate`]) with MariaDB's errors: a column the
//! expression names must exist (1054 `Unknown column 'x' in 'DEFAULT'`),
//! may not be the column itself nor a later column whose DEFAULT is
//! evaluated per row (4029), and may not be the AUTO_INCREMENT column
//! (1901).
//!
//! Writers compile the defaults once per table ([`ColumnDefaults`], kept
//! with the write's target). A default that reads the row is evaluated
//! after the row's given values and its other defaults are in place, in
//! column order, as MariaDB's `update_default_fields` does: `DEFAULT (b)`
//! reads `b`'s given value, else its default.

use std::cell::Cell;

use larch_engine::record::value::Value;
use larch_engine::table::TableDef;
use sqlparser::ast;

use super::generated::{referenced_positions, resolve_column};
use super::meta::TableMeta;
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions};
use crate::session::Session;

/// The clause errors name.
const CLAUSE: &str = "DEFAULT";

/// One column's compiled DEFAULT.
struct DefaultExpr {
    compiled: eval::Compiled,
    /// It names other columns of the row.
    reads_row: bool,
}

/// The compiled DEFAULT expressions of one table, by column.
#[derive(Default)]
pub(crate) struct ColumnDefaults {
    items: Vec<Option<DefaultExpr>>,
}

impl ColumnDefaults {
    /// Compiles the DEFAULT of every column of `def` that has one.
    pub fn compile(def: &TableDef, meta: &TableMeta) -> Result<ColumnDefaults, SqlError> {
        let mut items = Vec::with_capacity(meta.columns.len());
        for m in &meta.columns {
            let Some(text) = m.default.as_deref() else {
                items.push(None);
                continue;
            };
            let expr = crate::parse::parse_expression(text)?;
            let named = Cell::new(false);
            let resolve = |parts: &[ast::Ident]| {
                let found = resolve_column(def, parts);
                named.set(named.get() || found.is_some());
                found
            };
            let opts = CompileOptions {
                clause: CLAUSE.into(),
                ..CompileOptions::default()
            };
            let compiled = eval::compile(&expr, &resolve, &opts)?;
            items.push(Some(DefaultExpr {
                compiled,
                reads_row: named.get(),
            }));
        }
        Ok(ColumnDefaults { items })
    }

    /// True when column `c`'s DEFAULT reads other columns of the row.
    pub fn reads_row(&self, c: usize) -> bool {
        matches!(self.items.get(c), Some(Some(d)) if d.reads_row)
    }

    /// The DEFAULT of column `c` evaluated over `row` (every column's
    /// engine value; empty for a default that reads no column), before
    /// its conversion to the column's type; `None` without a DEFAULT.
    pub fn evaluate(
        &self,
        s: &Session,
        def: &TableDef,
        c: usize,
        row: &[Value],
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<Value>, SqlError> {
        let Some(Some(d)) = self.items.get(c) else {
            return Ok(None);
        };
        let values: Vec<Value> = if d.reads_row {
            row.iter()
                .zip(&def.columns)
                .map(|(v, col)| crate::value::expression_value(v, &col.ty))
                .collect()
        } else {
            Vec::new()
        };
        let mut ctx = s.eval_context(&[]);
        let v = d.compiled.eval(&values, &mut ctx)?;
        warnings.extend(ctx.take_warnings());
        Ok(Some(v))
    }
}

/// Checks the DEFAULT expressions of a finished definition that name
/// columns (see the module documentation for the rules and errors).
pub(super) fn validate(def: &TableDef, meta: &TableMeta) -> Result<(), SqlError> {
    let compiled = ColumnDefaults::compile(def, meta)?;
    // What a later column's DEFAULT may not read: one evaluated per row.
    let per_row = |j: usize| {
        compiled.reads_row(j)
            || meta.columns[j]
                .default
                .as_deref()
                .is_some_and(|d| d.starts_with("current_timestamp"))
    };
    for (i, m) in meta.columns.iter().enumerate() {
        let Some(text) = m.default.as_deref() else {
            continue;
        };
        let expr = crate::parse::parse_expression(text)?;
        let column = def.columns[i].name.as_str();
        for j in referenced_positions(def, &expr, CLAUSE)? {
            if j == i || (j > i && per_row(j)) {
                return Err(SqlError::new(
                    4029,
                    format!(
                        "Expression for field `{column}` is referring to uninitialized field `{}`",
                        def.columns[j].name
                    ),
                ));
            }
            if def.auto_increment == Some(j) {
                return Err(SqlError::new(
                    1901,
                    format!(
                        "Function or expression 'AUTO_INCREMENT' cannot be used in the DEFAULT clause of `{}`",
                        def.columns[j].name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The text MariaDB prints for a DEFAULT expression `e` (its parentheses
/// as written dropped): an operator in parentheses (`(`a` * 2)`), a
/// function call or a column as it is (`concat('x', `b`)`, `` `e` ``).
pub(super) fn expression_text(e: &ast::Expr) -> String {
    let mut e = e;
    while let ast::Expr::Nested(inner) = e {
        e = inner;
    }
    let text = super::check::check_text(e);
    match e {
        ast::Expr::BinaryOp { .. }
        | ast::Expr::UnaryOp { .. }
        | ast::Expr::IsNull(_)
        | ast::Expr::IsNotNull(_)
        | ast::Expr::Between { .. }
        | ast::Expr::InList { .. }
        | ast::Expr::Like { .. } => format!("({text})"),
        _ => text,
    }
}
