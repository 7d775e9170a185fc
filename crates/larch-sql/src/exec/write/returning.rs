//! `INSERT ... RETURNING`, `REPLACE ... RETURNING` and `DELETE ...
//! RETURNING` (MariaDB 10.5+): instead of an OK packet the statement answers
//! with a result set, one row per row it wrote (inserted, or for DELETE
//! removed), computed by the RETURNING list over that row.
//!
//! The list is compiled once against the target table's columns: `*` and
//! `t.*` are the visible columns, any other item an expression over the row
//! (column names, functions, operators; aggregates and subqueries are
//! refused, as MariaDB refuses aggregates there). Rows are collected as the
//! statement writes them ([`Returning::push`], with the values as the table
//! holds them) and evaluated at the end ([`Returning::result`]), so a
//! statement that fails part-way returns its error and no rows.

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::Target;
use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled};
use crate::exec::names;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// A compiled RETURNING list and the rows it will be evaluated over.
pub(super) struct Returning {
    columns: Vec<ResultColumn>,
    exprs: Vec<Compiled>,
    rows: Vec<Vec<Value>>,
}

impl Returning {
    /// Compiles `items` over the columns of `t` (named `alias` in the
    /// statement, if it has one).
    pub(super) fn compile(
        s: &Session,
        t: &Target,
        alias: Option<&str>,
        items: &[ast::SelectItem],
    ) -> Result<Returning, SqlError> {
        let def = t.table.def();
        let shown = alias.unwrap_or(&t.name);
        let table_columns =
            crate::exec::select::source::table_columns(s, &t.db, &t.name, shown, &t.table);
        let resolve = |parts: &[ast::Ident]| -> Option<(usize, eval::ExprType)> {
            let (column, qualifier) = match parts {
                [c] => (c, None),
                [q, c] => (c, Some(q)),
                [d, q, c] if d.value.eq_ignore_ascii_case(&t.db) => (c, Some(q)),
                _ => return None,
            };
            if let Some(q) = qualifier {
                if !q.value.eq_ignore_ascii_case(shown) {
                    return None;
                }
            }
            let i = def
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(&column.value))?;
            let c = &def.columns[i];
            Some((
                i,
                eval::ExprType {
                    ty: c.ty.clone(),
                    nullable: c.nullable,
                    decimals: None,
                },
            ))
        };
        let opts = CompileOptions {
            collation: s.connection_collation(),
            clause: "RETURNING".into(),
        };
        let mut columns = Vec::new();
        let mut exprs = Vec::new();
        for item in items {
            match item {
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    if let ast::SelectItem::QualifiedWildcard(
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                        _,
                    ) = item
                    {
                        let q = names::object_last(n);
                        if !q.eq_ignore_ascii_case(shown) {
                            return Err(SqlError::new(1051, format!("Unknown table '{q}'")));
                        }
                    }
                    for (i, c) in table_columns.iter().enumerate() {
                        if t.meta.columns.get(i).is_some_and(|m| m.invisible) {
                            continue;
                        }
                        columns.push(c.clone());
                        exprs.push(Compiled {
                            expr: eval::Expr::Column(i),
                            ty: eval::ExprType {
                                ty: c.ty.clone(),
                                nullable: c.nullable,
                                decimals: None,
                            },
                        });
                    }
                }
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                    let compiled = eval::compile(e, &resolve, &opts)?;
                    let mut column = match compiled.expr {
                        eval::Expr::Column(i) => table_columns[i].clone(),
                        _ => {
                            ResultColumn::computed("", compiled.ty.ty.clone(), compiled.ty.nullable)
                        }
                    };
                    column.name = match item {
                        ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                        _ => crate::exec::select::naming::expr_name(e),
                    };
                    columns.push(column);
                    exprs.push(compiled);
                }
                _ => return Err(SqlError::not_supported("this RETURNING item")),
            }
        }
        Ok(Returning {
            columns,
            exprs,
            rows: Vec::new(),
        })
    }

    /// Keeps a row the statement wrote (its values as the table holds them).
    pub(super) fn push(&mut self, t: &Target, row: &[Value]) {
        let def = t.table.def();
        self.rows.push(
            row.iter()
                .zip(&def.columns)
                .map(|(v, c)| crate::value::expression_value(v, &c.ty))
                .collect(),
        );
    }

    /// The result set: the RETURNING list over each row kept. Warnings of
    /// the evaluation join the statement's.
    pub(super) fn result(
        self,
        s: &Session,
        params: &[Value],
        warnings: &mut Vec<crate::error::Warning>,
    ) -> Result<QueryResult, SqlError> {
        let mut ctx = s.eval_context(params);
        let mut rows = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            rows.push(
                self.exprs
                    .iter()
                    .map(|e| e.eval(row, &mut ctx))
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        warnings.extend(ctx.take_warnings());
        Ok(QueryResult::Rows(RowSet {
            columns: self.columns,
            rows,
        }))
    }
}
