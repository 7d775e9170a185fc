//! INSERT, UPDATE and DELETE through a view: the statement is rewritten into
//! one on the view's base table, then runs as any other.
//!
//! A view is updatable when it merges (`select::view::mergeable`: one
//! table, no aggregates, DISTINCT, GROUP BY, HAVING, UNION, LIMIT, ORDER BY
//! or subqueries; not TEMPTABLE), MariaDB's rule; otherwise UPDATE and
//! DELETE give 1288 and INSERT 1471. A column set or inserted must be a
//! plain column of the base table (1348 `Column 'c' is not updatable`).
//! UPDATE and DELETE get the view's WHERE ANDed to theirs, so they touch
//! only rows the view shows.
//!
//! WITH CHECK OPTION (1369, SQLSTATE 44000, `CHECK OPTION failed
//! `db`.`v``): INSERT ... VALUES evaluates the view's condition on each new
//! row (columns not given count as NULL); UPDATE looks, before changing
//! anything, for a row it would change whose new values fail the
//! condition. The condition checked is the merged one (the view's and the
//! views it reads), i.e. CASCADED; LOCAL is checked the same way. INSERT
//! ... SELECT through a view with a check option is not checked.

use std::ops::ControlFlow;

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::exec::names;
use crate::exec::select::view::{self, LoadedView, Mergeable};
use crate::session::Session;

fn not_updatable(name: &str, what: &str) -> SqlError {
    SqlError::new(
        1288,
        format!("The target table {name} of the {what} is not updatable"),
    )
}

fn check_failed(v: &LoadedView) -> SqlError {
    SqlError::new(1369, format!("CHECK OPTION failed `{}`.`{}`", v.db, v.name))
}

/// The view a table name names, if any (temporary tables shadow views).
fn view_of(s: &Session, name: &ast::ObjectName) -> Result<Option<LoadedView>, SqlError> {
    if !s.db.catalog().has_views() {
        return Ok(None);
    }
    let (db, table) = names::table_name(s, name)?;
    view::load(s, &db, &table)
}

/// The base column a view column stands for, when it is a plain column.
fn base_column(m: &Mergeable, column: &str) -> Option<Option<String>> {
    let (_, e) = m
        .columns
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(column))?;
    Some(match e {
        ast::Expr::Identifier(i) => Some(i.value.clone()),
        ast::Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()),
        _ => None,
    })
}

/// Maps an assignment's or insert list's column onto the base table.
fn map_column(m: &Mergeable, name: &ast::ObjectName) -> Result<ast::ObjectName, SqlError> {
    let c = names::object_last(name);
    match base_column(m, &c) {
        Some(Some(b)) => Ok(ast::ObjectName::from(vec![ast::Ident::new(b)])),
        Some(None) => Err(SqlError::new(
            1348,
            format!("Column '{c}' is not updatable"),
        )),
        None => Err(SqlError::unknown_column(&c, "field list")),
    }
}

fn map_assignments(m: &Mergeable, list: &mut [ast::Assignment]) -> Result<(), SqlError> {
    for a in list {
        match &mut a.target {
            ast::AssignmentTarget::ColumnName(n) => *n = map_column(m, n)?,
            ast::AssignmentTarget::Tuple(ns) => {
                for n in ns {
                    *n = map_column(m, n)?;
                }
            }
        }
    }
    Ok(())
}

/// The base table's name, qualified.
fn base_name(m: &Mergeable) -> ast::ObjectName {
    ast::ObjectName::from(vec![
        ast::Ident::new(m.base_name.0.clone()),
        ast::Ident::new(m.base_name.1.clone()),
    ])
}

/// Replaces references to base columns (by their last name part) with the
/// given expressions; other columns become `missing` when it is given.
fn bind_columns(e: &mut ast::Expr, values: &[(String, ast::Expr)], missing: Option<&ast::Expr>) {
    let _ = ast::visit_expressions_mut(e, |x| {
        let name = match x {
            ast::Expr::Identifier(i) => Some(i.value.clone()),
            ast::Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()),
            _ => None,
        };
        if let Some(n) = name {
            if let Some((_, v)) = values.iter().find(|(c, _)| c.eq_ignore_ascii_case(&n)) {
                *x = v.clone();
            } else if let Some(d) = missing {
                *x = d.clone();
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// The statement rewritten onto the base table when its target is a view
/// (after the check option passed), `None` when it is not a view's.
pub(crate) fn rewrite(
    s: &mut Session,
    stmt: &ast::Statement,
    params: &[Value],
) -> Result<Option<ast::Statement>, SqlError> {
    match stmt {
        ast::Statement::Insert(i) => insert(s, i, params),
        ast::Statement::Update(u) => update(s, u, params),
        ast::Statement::Delete(d) => delete(s, d),
        _ => Ok(None),
    }
}

fn insert(
    s: &mut Session,
    i: &ast::Insert,
    params: &[Value],
) -> Result<Option<ast::Statement>, SqlError> {
    let ast::TableObject::TableName(name) = &i.table else {
        return Ok(None);
    };
    let Some(v) = view_of(s, name)? else {
        return Ok(None);
    };
    let Some(m) = view::mergeable(s, &v)? else {
        return Err(SqlError::new(
            1471,
            format!(
                "The target table {} of the INSERT is not insertable-into",
                v.name
            ),
        ));
    };
    let mut out = i.clone();
    out.table = ast::TableObject::TableName(base_name(&m));
    out.table_alias = None;
    let view_columns: Vec<ast::ObjectName> = if i.columns.is_empty() && i.assignments.is_empty() {
        m.columns
            .iter()
            .map(|(n, _)| ast::ObjectName::from(vec![ast::Ident::new(n.clone())]))
            .collect()
    } else {
        i.columns.clone()
    };
    if !view_columns.is_empty() {
        out.columns = view_columns
            .iter()
            .map(|c| map_column(&m, c))
            .collect::<Result<_, _>>()?;
    }
    map_assignments(&m, &mut out.assignments)?;
    if let Some(ast::OnInsert::DuplicateKeyUpdate(list)) = &mut out.on {
        map_assignments(&m, list)?;
        let outer = names::object_last(name);
        for a in list.iter_mut() {
            view::substitute(&mut a.value, &outer, (&v.db, &v.name), &m.columns, &[])
                .map_err(|c| SqlError::unknown_column(&c, "field list"))?;
        }
    }
    if v.def.check != 0 {
        if let Some(cond) = &m.selection {
            check_insert(s, &v, &out, cond, params)?;
        }
    }
    Ok(Some(ast::Statement::Insert(out)))
}

/// WITH CHECK OPTION for INSERT ... VALUES / SET: every new row must
/// satisfy `cond`.
fn check_insert(
    s: &Session,
    v: &LoadedView,
    i: &ast::Insert,
    cond: &ast::Expr,
    params: &[Value],
) -> Result<(), SqlError> {
    let columns: Vec<String> = i.columns.iter().map(names::object_last).collect();
    let mut rows: Vec<Vec<(String, ast::Expr)>> = Vec::new();
    if !i.assignments.is_empty() {
        rows.push(
            i.assignments
                .iter()
                .filter_map(|a| match &a.target {
                    ast::AssignmentTarget::ColumnName(n) => {
                        Some((names::object_last(n), a.value.clone()))
                    }
                    ast::AssignmentTarget::Tuple(_) => None,
                })
                .collect(),
        );
    } else if let Some(src) = &i.source {
        if let ast::SetExpr::Values(vals) = src.body.as_ref() {
            for r in &vals.rows {
                rows.push(columns.iter().cloned().zip(r.iter().cloned()).collect());
            }
        }
    }
    let null = ast::Expr::Value(ast::Value::Null.into());
    for row in rows {
        let mut c = cond.clone();
        bind_columns(&mut c, &row, Some(&null));
        let resolve = |_: &[ast::Ident]| None;
        let compiled = crate::eval::compile(&c, &resolve, &crate::eval::CompileOptions::default())?;
        let mut ctx = s.eval_context(params);
        if !crate::exec::rows::truthy(&compiled.eval(&[], &mut ctx)?) {
            return Err(check_failed(v));
        }
    }
    Ok(())
}

/// The single view an UPDATE/DELETE names, with its alias as written.
fn single_target(
    s: &Session,
    twj: &ast::TableWithJoins,
) -> Result<Option<(LoadedView, String)>, SqlError> {
    let ast::TableFactor::Table { name, alias, .. } = &twj.relation else {
        return Ok(None);
    };
    let Some(v) = view_of(s, name)? else {
        return Ok(None);
    };
    let outer = alias
        .as_ref()
        .map_or_else(|| names::object_last(name), |a| a.name.value.clone());
    Ok(Some((v, outer)))
}

fn update(
    s: &mut Session,
    u: &ast::Update,
    params: &[Value],
) -> Result<Option<ast::Statement>, SqlError> {
    let Some((v, outer)) = single_target(s, &u.table)? else {
        return Ok(None);
    };
    let m = match view::mergeable(s, &v)? {
        Some(m) if u.table.joins.is_empty() && u.from.is_none() => m,
        _ => return Err(not_updatable(&v.name, "UPDATE")),
    };
    let mut out = u.clone();
    map_assignments(&m, &mut out.assignments)?;
    view::substitute(&mut out, &outer, (&v.db, &v.name), &m.columns, &[])
        .map_err(|c| SqlError::unknown_column(&c, "where clause"))?;
    out.selection = view::and(m.selection.clone(), out.selection.take());
    out.table.relation = m.base.clone();
    if v.def.check != 0 {
        if let Some(cond) = &m.selection {
            check_update(s, &v, &m, &out, cond, params)?;
        }
    }
    Ok(Some(ast::Statement::Update(out)))
}

/// WITH CHECK OPTION for UPDATE: no row the statement changes may end up
/// failing `cond` (`SELECT 1 FROM base WHERE where AND NOT cond' LIMIT 1`).
fn check_update(
    s: &mut Session,
    v: &LoadedView,
    m: &Mergeable,
    u: &ast::Update,
    cond: &ast::Expr,
    params: &[Value],
) -> Result<(), SqlError> {
    let values: Vec<(String, ast::Expr)> = u
        .assignments
        .iter()
        .filter_map(|a| match &a.target {
            ast::AssignmentTarget::ColumnName(n) => Some((names::object_last(n), a.value.clone())),
            ast::AssignmentTarget::Tuple(_) => None,
        })
        .collect();
    let mut after = cond.clone();
    bind_columns(&mut after, &values, None);
    let failing = ast::Expr::IsNotTrue(Box::new(after));
    let mut q = view::parse_select("SELECT 1 FROM t LIMIT 1")?;
    if let ast::SetExpr::Select(sel) = q.body.as_mut() {
        sel.from[0].relation = m.base.clone();
        sel.selection = view::and(u.selection.clone(), Some(failing));
    }
    s.begin_read()?;
    let r = crate::exec::select::run_query(s, &q, params);
    s.end_read();
    if !r?.rows.is_empty() {
        return Err(check_failed(v));
    }
    Ok(())
}

fn delete(s: &mut Session, d: &ast::Delete) -> Result<Option<ast::Statement>, SqlError> {
    let (ast::FromTable::WithFromKeyword(from) | ast::FromTable::WithoutKeyword(from)) = &d.from;
    let [twj] = from.as_slice() else {
        return Ok(None);
    };
    let Some((v, outer)) = single_target(s, twj)? else {
        return Ok(None);
    };
    let m = match view::mergeable(s, &v)? {
        Some(m) if twj.joins.is_empty() && d.tables.is_empty() && d.using.is_none() => m,
        _ => return Err(not_updatable(&v.name, "DELETE")),
    };
    let mut out = d.clone();
    view::substitute(&mut out, &outer, (&v.db, &v.name), &m.columns, &[])
        .map_err(|c| SqlError::unknown_column(&c, "where clause"))?;
    out.selection = view::and(m.selection.clone(), out.selection.take());
    match &mut out.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => {
            if let Some(t) = f.first_mut() {
                t.relation = m.base.clone();
            }
        }
    }
    Ok(Some(ast::Statement::Delete(out)))
}
