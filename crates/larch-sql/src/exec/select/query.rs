//! A query expression: the set operations (UNION [ALL|DISTINCT]) over SELECT
//! blocks, the query's ORDER BY and LIMIT/OFFSET applied to the combined
//! rows, and the rewrites done before the blocks run (uncorrelated
//! subqueries replaced by their values, a query on one mergeable view turned
//! into a query on its base table).
//!
//! `run_query_collect` is the one entry every query goes through: top-level
//! SELECTs, derived tables, subqueries, INSERT ... SELECT and views. Each
//! call is one nesting level for EXPLAIN (`explain::enter`).

use std::cell::RefCell;

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::block::run_select;
use super::order::{distinct_rows, finish_set};
use super::{cte, explain, subquery, view, RowStream};
use crate::error::SqlError;
use crate::eval::{self, CompileOptions};
use crate::result::RowSet;
use crate::session::Session;

pub(super) fn run_query_collect(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
) -> Result<RowSet, SqlError> {
    run_query_streamed(s, q, params, warnings, None)
}

/// [`run_query_collect`], a single block of which may hand its rows to
/// `stream` as they come (the returned set then holds the last of them).
pub(super) fn run_query_streamed(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
    stream: Option<&mut RowStream<'_>>,
) -> Result<RowSet, SqlError> {
    // Views, derived tables and subqueries nest here.
    crate::stack::check()?;
    // The WITH elements are visible while the query runs.
    let _scope = match &q.with {
        Some(with) => Some(cte::enter(with)?),
        None => None,
    };
    let _depth = explain::enter(s);
    // Subqueries are replaced by their values in a copy of the query; most
    // queries have none and run on the statement as parsed.
    let inlined;
    let q = if subquery::has_subquery(q) {
        let mut copy = q.clone();
        let in_from = explain::set_in_from(s, false);
        let r = subquery::inline(s, &mut copy, params);
        explain::set_in_from(s, in_from);
        r?;
        inlined = copy;
        &inlined
    } else {
        q
    };
    // A query on one mergeable view becomes a query on its base table.
    let merged;
    let q = match view::merge(s, q)? {
        Some(m) => {
            merged = m;
            &merged
        }
        None => q,
    };
    let limit = limit_of(s, q, params)?;
    let order: &[ast::OrderByExpr] = match &q.order_by {
        Some(ast::OrderBy {
            kind: ast::OrderByKind::Expressions(v),
            ..
        }) => v,
        _ => &[],
    };
    let set = run_body(s, q, limit, order, params, warnings, stream)?;
    // Elements no reference read are still checked, as MariaDB prepares them.
    if _scope.is_some() && !explain::active(s) {
        cte::check_unreferenced(s, params)?;
    }
    Ok(set)
}

/// True when `q` is the running statement itself, as parsed (not a
/// subquery, a rewritten copy or a query of a stored program): its block's
/// plan may be kept for the statement's next execution.
fn is_statement(s: &Session, q: &ast::Query) -> bool {
    q.with.is_none()
        && matches!(
            s.statement.as_deref(),
            Some(crate::parse::Statement::Sql(st))
                if matches!(st.as_ref(), ast::Statement::Query(top) if std::ptr::eq(top.as_ref(), q))
        )
}

/// The query's body: one block, a parenthesized query, or UNION,
/// INTERSECT or EXCEPT of two.
fn run_body(
    s: &Session,
    q: &ast::Query,
    limit: Option<(u64, u64)>,
    order: &[ast::OrderByExpr],
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
    stream: Option<&mut RowStream<'_>>,
) -> Result<RowSet, SqlError> {
    match q.body.as_ref() {
        ast::SetExpr::Select(sel) => run_select(
            s,
            sel,
            order,
            limit,
            params,
            warnings,
            is_statement(s, q),
            stream,
        ),
        ast::SetExpr::Query(inner) => {
            let mut set = run_query_collect(s, inner, params, warnings)?;
            finish_set(s, &mut set, order, limit)?;
            Ok(set)
        }
        ast::SetExpr::SetOperation {
            op:
                op @ (ast::SetOperator::Union | ast::SetOperator::Intersect | ast::SetOperator::Except),
            set_quantifier,
            left,
            right,
        } => {
            let first = explain::next_id(s);
            let mut l = run_set_expr(s, left, params, warnings)?;
            explain::union_right(s);
            let mut r = run_set_expr(s, right, params, warnings)?;
            if explain::active(s) {
                explain::union_result(s, first);
            }
            if l.columns.len() != r.columns.len() {
                return Err(SqlError::new(
                    1222,
                    "The used SELECT statements have a different number of columns",
                ));
            }
            let converted = super::set_operation::unify(s, &mut l, &mut r);
            warnings.borrow_mut().extend(converted);
            let all = matches!(set_quantifier, ast::SetQuantifier::All);
            let colls = super::aggregate::column_collations(&l.columns);
            if *op == ast::SetOperator::Union {
                l.rows.extend(r.rows);
                if !all {
                    distinct_rows(&mut l.rows, &colls);
                }
            } else {
                let intersect = *op == ast::SetOperator::Intersect;
                super::set_operation::combine(&mut l.rows, r.rows, intersect, all, &colls);
            }
            if let Some(table) = order.iter().find_map(|o| branch_table(&o.expr)) {
                return Err(SqlError::new(
                    1250,
                    format!("Table '{table}' from one of the SELECTs cannot be used in ORDER BY"),
                ));
            }
            finish_set(s, &mut l, order, limit)?;
            Ok(l)
        }
        ast::SetExpr::Values(_) => Err(SqlError::not_supported("VALUES as a query")),
        _ => Err(SqlError::not_supported("this query form")),
    }
}

/// The table a qualified column names in `e`, an ORDER BY of a UNION,
/// INTERSECT or EXCEPT: it orders the combined rows, where no branch's
/// table is (MariaDB's 1250). Subqueries are their own.
fn branch_table(e: &ast::Expr) -> Option<String> {
    if subquery::expr_has_subquery(e) {
        return None;
    }
    let mut found = None;
    let _ = ast::visit_expressions(e, |x| {
        let parts: Option<Vec<&ast::Ident>> = match x {
            ast::Expr::CompoundIdentifier(ids) => Some(ids.iter().collect()),
            ast::Expr::MatchAgainst { columns, .. } => columns.iter().find_map(|c| {
                let ids: Vec<&ast::Ident> = c.0.iter().filter_map(|p| p.as_ident()).collect();
                (ids.len() >= 2).then_some(ids)
            }),
            _ => None,
        };
        match parts {
            Some(ids) if ids.len() >= 2 => {
                found = Some(ids[ids.len() - 2].value.clone());
                std::ops::ControlFlow::Break(())
            }
            _ => std::ops::ControlFlow::Continue(()),
        }
    });
    found
}

pub(super) fn run_set_expr(
    s: &Session,
    e: &ast::SetExpr,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
) -> Result<RowSet, SqlError> {
    match e {
        // A branch's subqueries are replaced by their values first, as a
        // query's only block's are (`run_query_collect`).
        ast::SetExpr::Select(sel) if subquery::has_subquery(sel.as_ref()) => {
            let mut copy = sel.as_ref().clone();
            let in_from = explain::set_in_from(s, false);
            let r = subquery::inline_select(s, &mut copy, params);
            explain::set_in_from(s, in_from);
            r?;
            run_select(s, &copy, &[], None, params, warnings, false, None)
        }
        ast::SetExpr::Select(sel) => run_select(s, sel, &[], None, params, warnings, false, None),
        ast::SetExpr::Query(q) => run_query_collect(s, q, params, warnings),
        other => run_query_collect(s, &query_of(other), params, warnings),
    }
}

/// A query made of a set expression alone.
fn query_of(e: &ast::SetExpr) -> ast::Query {
    ast::Query {
        with: None,
        body: Box::new(e.clone()),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}

pub(super) fn limit_of(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
) -> Result<Option<(u64, u64)>, SqlError> {
    let num = |e: &ast::Expr| -> Result<u64, SqlError> {
        let resolve = |_: &[ast::Ident]| None;
        let c = eval::compile(e, &resolve, &CompileOptions::default())?;
        let mut ctx = s.eval_context(params);
        match c.eval(&[], &mut ctx)? {
            Value::Int(i) if i >= 0 => Ok(i as u64),
            Value::UInt(u) => Ok(u),
            Value::Null if s.execution.describe_only() => Ok(u64::MAX),
            _ => Err(SqlError::new(1210, "Incorrect arguments to LIMIT")),
        }
    };
    Ok(match &q.limit_clause {
        None => None,
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => {
            let count = match limit {
                Some(e) => num(e)?,
                None => u64::MAX,
            };
            let off = match offset {
                Some(o) => num(&o.value)?,
                None => 0,
            };
            Some((off, count))
        }
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            Some((num(offset)?, num(limit)?))
        }
    })
}
