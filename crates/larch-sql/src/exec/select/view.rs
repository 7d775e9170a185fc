//! Views in queries: a view named in FROM behaves as its SELECT.
//!
//! - [`load`] reads a view from the dictionary and parses its stored SELECT,
//!   with every unqualified table name qualified by the view's database
//!   (names in a view belong to the view's database, not the session's).
//! - MERGE ([`merge`]): a query whose FROM is one mergeable view (single
//!   table, no aggregates, DISTINCT, GROUP BY, HAVING, UNION, LIMIT, ORDER
//!   BY, subqueries; algorithm not TEMPTABLE) is rewritten into a query on the
//!   base table: view columns are replaced by their expressions, the view's
//!   WHERE is ANDed to the query's, `*` becomes the view's columns. The
//!   planner then sees the base table, so an outer WHERE reaches its indexes
//!   (EXPLAIN shows the base table and key). Views over mergeable views merge
//!   from the inside out. A query that names anything the rewrite cannot map
//!   safely (another qualifier, a name that is neither a view column nor a
//!   select alias) is not merged.
//! - Everything else (joins with views, views in subqueries of other
//!   shapes, TEMPTABLE, aggregating views) is materialized: [`rows`] runs the
//!   view's query and the FROM entry reads its rows, like a derived table.
//!
//! Errors: a view whose tables or columns no longer exist gives 1356 (View
//! '...' references invalid table(s) or column(s) ...). A view met again
//! while it is being expanded (a cycle made by renames) is 1462.

use std::ops::ControlFlow;

use sqlparser::ast;

use crate::ddl::ViewDef;
use crate::error::SqlError;
use crate::exec::names;
use crate::parse::Statement;
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;

/// Marks a view as being expanded while alive: a view met again inside
/// itself is recursion (a cycle made by renames), error 1462 naming it, as
/// in MariaDB. A long chain of different views is no error; its depth is
/// bounded by the stack check of each nested query (1436).
struct Expanding<'a> {
    views: &'a std::cell::RefCell<Vec<(String, String)>>,
}

impl<'a> Expanding<'a> {
    fn enter(s: &'a Session, db: &str, name: &str) -> Result<Expanding<'a>, SqlError> {
        let views = s.execution.views();
        let mut open = views.borrow_mut();
        if open.iter().any(|(d, n)| d == db && n == name) {
            return Err(SqlError::new(
                1462,
                format!("`{db}`.`{name}` contains view recursion"),
            ));
        }
        open.push((db.to_owned(), name.to_owned()));
        Ok(Expanding { views })
    }
}

impl Drop for Expanding<'_> {
    fn drop(&mut self) {
        self.views.borrow_mut().pop();
    }
}

/// A view read from the dictionary.
pub(crate) struct LoadedView {
    pub db: String,
    pub name: String,
    pub def: ViewDef,
    /// The SELECT, table names qualified by the view's database.
    pub query: ast::Query,
}

/// 1356 for view `db.name`.
pub(crate) fn invalid(db: &str, name: &str) -> SqlError {
    SqlError::new(
        1356,
        format!("View '{db}.{name}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them"),
    )
}

/// Parses a view's SELECT text.
pub(crate) fn parse_select(text: &str) -> Result<ast::Query, SqlError> {
    match crate::parse::parse(text)?.into_iter().next() {
        Some(Statement::Sql(s)) => match *s {
            ast::Statement::Query(q) => Ok(*q),
            _ => Err(SqlError::new(1064, "a view's definition is not a SELECT")),
        },
        _ => Err(SqlError::new(1064, "a view's definition is not a SELECT")),
    }
}

/// Qualifies the unqualified table names of `q` (and of its subqueries)
/// with `db`.
pub(crate) fn qualify(q: &mut ast::Query, db: &str) {
    // Names of WITH elements are no tables.
    let elements = super::cte::defined_names(q);
    let _ = ast::visit_relations_mut(q, |name| {
        let element = name.0[..]
            .first()
            .and_then(|p| p.as_ident())
            .is_some_and(|i| elements.iter().any(|e| e.eq_ignore_ascii_case(&i.value)));
        if name.0.len() == 1 && !element {
            name.0
                .insert(0, ast::ObjectNamePart::Identifier(ast::Ident::new(db)));
        }
        ControlFlow::<()>::Continue(())
    });
}

/// The view `db.name`, or `None` when there is no such view.
pub(crate) fn load(s: &Session, db: &str, name: &str) -> Result<Option<LoadedView>, SqlError> {
    if !s.db.catalog().has_views() {
        return Ok(None);
    }
    if !s.db.catalog().is_view(db, name) {
        return Ok(None);
    }
    // Like a table, a view is held by the transaction that reads it: CREATE
    // OR REPLACE, ALTER and DROP VIEW wait for it. Looked up again under the
    // lock, which may have waited for such a change.
    s.lock_table_shared(db, name)?;
    let Some(e) = s.db.catalog().view(db, name) else {
        s.unlock_missing_table(db, name);
        return Ok(None);
    };
    let def = ViewDef::decode(&e.definition)?;
    let mut query = parse_select(&def.select).map_err(|_| invalid(db, name))?;
    qualify(&mut query, db);
    Ok(Some(LoadedView {
        db: db.to_owned(),
        name: name.to_owned(),
        def,
        query,
    }))
}

/// Errors of a view's query that mean the view is broken (1356).
fn map_error(e: SqlError, v: &LoadedView) -> SqlError {
    match e.code() {
        1146 | 1054 | 1049 | 1356 | 1305 => invalid(&v.db, &v.name),
        _ => e,
    }
}

/// Gives the view's columns their names (the explicit column list).
fn rename(v: &LoadedView, columns: &mut [ResultColumn]) -> Result<(), SqlError> {
    if v.def.columns.is_empty() {
        return Ok(());
    }
    if v.def.columns.len() != columns.len() {
        return Err(invalid(&v.db, &v.name));
    }
    for (c, n) in columns.iter_mut().zip(&v.def.columns) {
        c.name = n.clone();
    }
    Ok(())
}

/// Runs the view's query (materialization).
pub(crate) fn rows(s: &Session, v: &LoadedView) -> Result<RowSet, SqlError> {
    let _expanding = Expanding::enter(s, &v.db, &v.name)?;
    let mut set = super::run_query(s, &v.query, &[]).map_err(|e| map_error(e, v))?;
    rename(v, &mut set.columns)?;
    Ok(set)
}

/// The view's result columns, without reading rows.
pub(crate) fn columns(s: &Session, v: &LoadedView) -> Result<Vec<ResultColumn>, SqlError> {
    let _expanding = Expanding::enter(s, &v.db, &v.name)?;
    let mut cols = super::describe(s, &v.query, &[]).map_err(|e| map_error(e, v))?;
    rename(v, &mut cols)?;
    Ok(cols)
}

const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP_CONCAT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
];

/// True when an expression of `q` calls an aggregate or window function or
/// holds a subquery.
fn has_aggregate_or_subquery(q: &ast::Query) -> bool {
    ast::visit_expressions(q, |e| match e {
        ast::Expr::Subquery(_) | ast::Expr::InSubquery { .. } | ast::Expr::Exists { .. } => {
            ControlFlow::Break(())
        }
        ast::Expr::Function(f)
            if f.over.is_some()
                || AGGREGATES.contains(&f.name.to_string().to_ascii_uppercase().as_str()) =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// A mergeable view query taken apart: the base table factor, the WHERE and
/// the view's columns (name, expression).
pub(crate) struct Mergeable {
    pub base: ast::TableFactor,
    /// `(database, table)` of the base table.
    pub base_name: (String, String),
    pub selection: Option<ast::Expr>,
    pub columns: Vec<(String, ast::Expr)>,
}

/// `v`'s query as a [`Mergeable`] (merged with the views it reads first),
/// or `None` when the view must be materialized (MariaDB's rule for MERGE
/// and for updatable views).
pub(crate) fn mergeable(s: &Session, v: &LoadedView) -> Result<Option<Mergeable>, SqlError> {
    if v.def.algorithm == 2 {
        return Ok(None);
    }
    let _expanding = Expanding::enter(s, &v.db, &v.name)?;
    let merged;
    let q = match merge(s, &v.query)? {
        Some(m) => {
            merged = m;
            &merged
        }
        None => &v.query,
    };
    let ast::SetExpr::Select(sel) = q.body.as_ref() else {
        return Ok(None);
    };
    let group_by_empty = match &sel.group_by {
        ast::GroupByExpr::Expressions(v, m) => v.is_empty() && m.is_empty(),
        ast::GroupByExpr::All(_) => false,
    };
    if q.with.is_some()
        || q.order_by.is_some()
        || q.limit_clause.is_some()
        || q.fetch.is_some()
        || !q.locks.is_empty()
        || sel.distinct.is_some()
        || sel.top.is_some()
        || !group_by_empty
        || sel.having.is_some()
        || sel.from.len() != 1
        || !sel.from[0].joins.is_empty()
        || has_aggregate_or_subquery(q)
    {
        return Ok(None);
    }
    let base = sel.from[0].relation.clone();
    let ast::TableFactor::Table {
        name, args: None, ..
    } = &base
    else {
        return Ok(None);
    };
    let (db, table) = names::table_name(s, name)?;
    let Some(entry) = s.db.catalog().table_entry(&db, &table) else {
        return Ok(None);
    };
    let mut columns = Vec::new();
    // `*` leaves INVISIBLE columns out.
    let invisible: Vec<bool> = crate::ddl::TableMeta::decode(&entry.sql_meta, &entry.def)
        .map(|m| m.columns.iter().map(|c| c.invisible).collect())
        .unwrap_or_default();
    for item in &sel.projection {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                for (i, c) in entry.def.columns.iter().enumerate() {
                    if invisible.get(i).copied().unwrap_or(false) {
                        continue;
                    }
                    columns.push((
                        c.name.clone(),
                        ast::Expr::Identifier(ast::Ident::new(c.name.clone())),
                    ));
                }
            }
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                columns.push((alias.value.clone(), expr.clone()))
            }
            ast::SelectItem::UnnamedExpr(e) => {
                columns.push((super::naming::expr_name(e), e.clone()))
            }
            _ => return Ok(None),
        }
    }
    if !v.def.columns.is_empty() {
        if v.def.columns.len() != columns.len() {
            return Err(invalid(&v.db, &v.name));
        }
        for (c, n) in columns.iter_mut().zip(&v.def.columns) {
            c.0 = n.clone();
        }
    }
    Ok(Some(Mergeable {
        base,
        base_name: (db, table),
        selection: sel.selection.clone(),
        columns,
    }))
}

/// How an identifier of the outer query maps onto the view.
fn view_column<'a>(
    parts: &[ast::Ident],
    alias: &str,
    view: (&str, &str),
    columns: &'a [(String, ast::Expr)],
) -> Option<&'a ast::Expr> {
    let col = match parts {
        [c] => c,
        [t, c] if t.value == alias => c,
        [d, t, c] if d.value == view.0 && t.value == view.1 => c,
        _ => return None,
    };
    columns
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&col.value))
        .map(|(_, e)| e)
}

/// ANDs two optional conditions.
pub(crate) fn and(a: Option<ast::Expr>, b: Option<ast::Expr>) -> Option<ast::Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(ast::Expr::BinaryOp {
            left: Box::new(a),
            op: ast::BinaryOperator::And,
            right: Box::new(b),
        }),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Replaces the view's columns in every expression of `node` by their
/// expressions; `Err(name)` when a name maps onto nothing known (then
/// nothing is replaced). `aliases`: names that may stand for select items.
pub(crate) fn substitute<V: ast::VisitMut + ast::Visit>(
    node: &mut V,
    alias: &str,
    view: (&str, &str),
    columns: &[(String, ast::Expr)],
    aliases: &[String],
) -> Result<(), String> {
    let mut unknown = String::new();
    let found = ast::visit_expressions(node, |e| {
        let parts: &[ast::Ident] = match e {
            ast::Expr::Identifier(i) => std::slice::from_ref(i),
            ast::Expr::CompoundIdentifier(p) => p,
            _ => return ControlFlow::Continue(()),
        };
        let known = view_column(parts, alias, view, columns).is_some()
            || parts[0].value.starts_with('@')
            || (parts.len() == 1
                && aliases
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(&parts[0].value)));
        if known {
            ControlFlow::Continue(())
        } else {
            unknown = parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            ControlFlow::Break(())
        }
    })
    .is_break();
    if found {
        return Err(unknown);
    }
    let _ = ast::visit_expressions_mut(node, |e| {
        let parts: Option<Vec<ast::Ident>> = match e {
            ast::Expr::Identifier(i) => Some(vec![i.clone()]),
            ast::Expr::CompoundIdentifier(p) => Some(p.clone()),
            _ => None,
        };
        if let Some(parts) = parts {
            if let Some(x) = view_column(&parts, alias, view, columns) {
                *e = x.clone();
            }
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(())
}

/// `q` with its one FROM view merged into the query (see the module
/// documentation), or `None` when `q` is not such a query.
pub(crate) fn merge(s: &Session, q: &ast::Query) -> Result<Option<ast::Query>, SqlError> {
    if !s.db.catalog().has_views() {
        return Ok(None);
    }
    let ast::SetExpr::Select(sel) = q.body.as_ref() else {
        return Ok(None);
    };
    if q.with.is_some() || sel.from.len() != 1 || !sel.from[0].joins.is_empty() {
        return Ok(None);
    }
    let ast::TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = &sel.from[0].relation
    else {
        return Ok(None);
    };
    if super::cte::lookup(name).is_some() {
        return Ok(None);
    }
    let Ok((db, table)) = names::table_name(s, name) else {
        return Ok(None);
    };
    if !s.db.catalog().is_view(&db, &table) {
        return Ok(None);
    }
    let Some(v) = load(s, &db, &table)? else {
        return Ok(None);
    };
    let Some(m) = mergeable(s, &v)? else {
        return Ok(None);
    };
    let outer_alias = alias
        .as_ref()
        .map_or_else(|| names::object_last(name), |a| a.name.value.clone());
    let mut out = q.clone();
    let ast::SetExpr::Select(osel) = out.body.as_mut() else {
        return Ok(None);
    };
    // Unnamed items keep the name they were written with.
    let mut aliases = Vec::new();
    for item in &mut osel.projection {
        match item {
            ast::SelectItem::UnnamedExpr(e) => {
                let alias = ast::Ident::new(super::naming::expr_name(e));
                *item = ast::SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias,
                };
            }
            ast::SelectItem::ExprWithAlias { alias, .. } => aliases.push(alias.value.clone()),
            _ => {}
        }
    }
    let shadowing = aliases
        .iter()
        .any(|a| m.columns.iter().any(|(n, _)| n.eq_ignore_ascii_case(a)));
    if shadowing {
        return Ok(None);
    }
    if substitute(&mut out, &outer_alias, (&db, &table), &m.columns, &aliases).is_err() {
        return Ok(None);
    }
    let ast::SetExpr::Select(osel) = out.body.as_mut() else {
        return Ok(None);
    };
    let mut projection = Vec::with_capacity(osel.projection.len());
    for item in std::mem::take(&mut osel.projection) {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                for (n, e) in &m.columns {
                    projection.push(ast::SelectItem::ExprWithAlias {
                        expr: e.clone(),
                        alias: ast::Ident::new(n.clone()),
                    });
                }
            }
            other => projection.push(other),
        }
    }
    osel.projection = projection;
    osel.selection = and(m.selection.clone(), osel.selection.take());
    osel.from[0].relation = m.base.clone();
    Ok(Some(out))
}
