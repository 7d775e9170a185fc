//! The FROM clause: tables, views, derived tables and joins as [`Source`]s
//! laid out side by side in one combined row, and name resolution over them.
//! A view that was not merged into the query (`super::view`) is read like a
//! derived table: its query runs and its rows are the source's.
//!
//! The combined row holds every column of every source in FROM order;
//! `Source::offset` is where a source's columns start. A column reference
//! `c`, `t.c` or `db.t.c` resolves to one position (1052 when `c` is in two
//! sources, 1054 when it is nowhere).

use std::sync::Arc;

use larch_engine::record::value::Value;
use larch_engine::table::Table;
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::ExprType;
use crate::exec::names;
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;

/// How a source joins the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinKind {
    /// The first source, a comma or CROSS/INNER JOIN.
    Inner,
    /// LEFT [OUTER] JOIN: a row of NULLs when nothing matches.
    Left,
}

/// Where a source's rows come from.
pub(crate) enum SourceRows {
    Table(Arc<Table>),
    /// A derived table (subquery in FROM) or a virtual table, materialized.
    Rows(Vec<Vec<Value>>),
}

/// One entry of FROM.
pub(crate) struct Source {
    /// Name used to qualify columns (alias or table name).
    pub alias: String,
    pub db: String,
    pub table: String,
    pub rows: SourceRows,
    /// Column names and types.
    pub columns: Vec<ResultColumn>,
    pub offset: usize,
    pub join: JoinKind,
    /// ON condition (USING is turned into ON).
    pub on: Option<ast::Expr>,
}

impl Source {
    pub fn width(&self) -> usize {
        self.columns.len()
    }
}

fn table_columns(db: &str, table: &str, alias: &str, t: &Table) -> Vec<ResultColumn> {
    let def = t.def();
    let pk: Vec<usize> = def
        .primary_key
        .as_ref()
        .map(|p| p.columns.iter().map(|c| c.column).collect())
        .unwrap_or_default();
    def.columns
        .iter()
        .enumerate()
        .map(|(i, c)| ResultColumn {
            name: c.name.clone(),
            org_name: c.name.clone(),
            table: alias.to_owned(),
            org_table: table.to_owned(),
            schema: db.to_owned(),
            ty: c.ty.clone(),
            nullable: c.nullable,
            primary_key: pk.contains(&i),
            unique_key: def
                .secondary
                .iter()
                .any(|s| s.unique && s.columns.first().is_some_and(|p| p.column == i)),
            multiple_key: def
                .secondary
                .iter()
                .any(|s| !s.unique && s.columns.first().is_some_and(|p| p.column == i)),
            auto_increment: def.auto_increment == Some(i),
        })
        .collect()
}

fn factor(
    s: &Session,
    f: &ast::TableFactor,
    params: &[Value],
    join: JoinKind,
    on: Option<ast::Expr>,
) -> Result<Source, SqlError> {
    match f {
        ast::TableFactor::Table { name, alias, .. } => {
            let (db, table) = names::table_name(s, name)?;
            // Unaliased, a table is known by its name as written (the
            // hidden name of a temporary table is no name to qualify by).
            let alias = alias
                .as_ref()
                .map_or_else(|| names::object_last(name), |a| a.name.value.clone());
            if names::is_virtual_database(&db) {
                let set = crate::exec::select::information_schema::table(s, &table)?;
                return Ok(Source {
                    columns: set
                        .columns
                        .into_iter()
                        .map(|mut c| {
                            c.table = alias.clone();
                            c
                        })
                        .collect(),
                    alias,
                    db,
                    table,
                    rows: SourceRows::Rows(set.rows),
                    offset: 0,
                    join,
                    on,
                });
            }
            if let Some(v) = super::view::load(s, &db, &table)? {
                let RowSet { columns, rows } = super::view::rows(s, &v)?;
                return Ok(Source {
                    columns: columns
                        .into_iter()
                        .map(|mut c| {
                            c.table = alias.clone();
                            c
                        })
                        .collect(),
                    alias,
                    db,
                    table,
                    rows: SourceRows::Rows(rows),
                    offset: 0,
                    join,
                    on,
                });
            }
            let t = names::open_table(s, &db, &table, Some(&alias), false)?;
            Ok(Source {
                columns: table_columns(&db, &table, &alias, &t),
                alias,
                db,
                table,
                rows: SourceRows::Table(t),
                offset: 0,
                join,
                on,
            })
        }
        ast::TableFactor::Derived {
            subquery, alias, ..
        } => {
            let Some(alias) = alias.as_ref().map(|a| a.name.value.clone()) else {
                return Err(SqlError::new(
                    1248,
                    "Every derived table must have its own alias",
                ));
            };
            let RowSet { columns, rows } = super::run_query(s, subquery, params)?;
            let columns = columns
                .into_iter()
                .map(|mut c| {
                    c.table = alias.clone();
                    c.org_table = String::new();
                    c
                })
                .collect();
            Ok(Source {
                alias: alias.clone(),
                db: String::new(),
                table: alias,
                rows: SourceRows::Rows(rows),
                columns,
                offset: 0,
                join,
                on,
            })
        }
        ast::TableFactor::NestedJoin { .. } => Err(SqlError::not_supported("nested joins")),
        _ => Err(SqlError::not_supported("this FROM item")),
    }
}

fn on_condition(c: &ast::JoinConstraint, left: &[Source], right_alias: &str) -> Option<ast::Expr> {
    match c {
        ast::JoinConstraint::On(e) => Some(e.clone()),
        ast::JoinConstraint::Using(cols) => {
            let mut cond: Option<ast::Expr> = None;
            for col in cols {
                let name = names::object_last(col);
                let l = left
                    .iter()
                    .find(|s| s.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&name)))
                    .map(|s| s.alias.clone())
                    .unwrap_or_default();
                let eq = ast::Expr::BinaryOp {
                    left: Box::new(ast::Expr::CompoundIdentifier(vec![
                        ast::Ident::new(l),
                        ast::Ident::new(name.clone()),
                    ])),
                    op: ast::BinaryOperator::Eq,
                    right: Box::new(ast::Expr::CompoundIdentifier(vec![
                        ast::Ident::new(right_alias),
                        ast::Ident::new(name),
                    ])),
                };
                cond = Some(match cond {
                    None => eq,
                    Some(c) => ast::Expr::BinaryOp {
                        left: Box::new(c),
                        op: ast::BinaryOperator::And,
                        right: Box::new(eq),
                    },
                });
            }
            cond
        }
        _ => None,
    }
}

/// Builds the sources of a FROM clause.
pub(crate) fn sources(
    s: &Session,
    from: &[ast::TableWithJoins],
    params: &[Value],
) -> Result<Vec<Source>, SqlError> {
    let mut out: Vec<Source> = Vec::new();
    for twj in from {
        out.push(factor(s, &twj.relation, params, JoinKind::Inner, None)?);
        for j in &twj.joins {
            use ast::JoinOperator as J;
            let alias_of = |f: &ast::TableFactor| match f {
                ast::TableFactor::Table { name, alias, .. } => alias
                    .as_ref()
                    .map_or_else(|| names::object_last(name), |a| a.name.value.clone()),
                ast::TableFactor::Derived { alias, .. } => alias
                    .as_ref()
                    .map(|a| a.name.value.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let right_alias = alias_of(&j.relation);
            let (kind, on) = match &j.join_operator {
                J::Join(c) | J::Inner(c) | J::CrossJoin(c) | J::StraightJoin(c) => {
                    (JoinKind::Inner, on_condition(c, &out, &right_alias))
                }
                J::Left(c) | J::LeftOuter(c) => {
                    (JoinKind::Left, on_condition(c, &out, &right_alias))
                }
                J::Right(_) | J::RightOuter(_) => {
                    return Err(SqlError::not_supported(
                        "RIGHT JOIN (write it as a LEFT JOIN)",
                    ))
                }
                _ => return Err(SqlError::not_supported("this join")),
            };
            out.push(factor(s, &j.relation, params, kind, on)?);
        }
    }
    let mut offset = 0;
    for src in &mut out {
        src.offset = offset;
        offset += src.width();
    }
    Ok(out)
}

/// Resolves a column reference over the sources: its combined-row position
/// and type. `Err` for an ambiguous name.
pub(crate) fn resolve(
    sources: &[Source],
    parts: &[ast::Ident],
) -> Result<Option<(usize, ExprType)>, SqlError> {
    let (qual_db, qual_table, col) = match parts {
        [c] => (None, None, &c.value),
        [t, c] => (None, Some(&t.value), &c.value),
        [d, t, c] => (Some(&d.value), Some(&t.value), &c.value),
        _ => return Ok(None),
    };
    let mut found: Option<(usize, ExprType)> = None;
    for src in sources {
        if let Some(t) = qual_table {
            if src.alias != *t && !(qual_db.is_some() && src.table == *t) {
                continue;
            }
        }
        if let Some(d) = qual_db {
            if src.db != *d {
                continue;
            }
        }
        if let Some(i) = src
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(col))
        {
            if found.is_some() {
                return Err(SqlError::ambiguous_column(col, "SELECT"));
            }
            let c = &src.columns[i];
            found = Some((
                src.offset + i,
                ExprType {
                    ty: c.ty.clone(),
                    nullable: c.nullable || src.join == JoinKind::Left,
                },
            ));
        }
    }
    Ok(found)
}
