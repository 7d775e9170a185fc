//! The rule that a statement runs exactly as MariaDB 10.11 would run it or
//! fails: clauses sqlparser parses that Larch cannot execute are refused
//! here, right after parsing, instead of being dropped further down.
//!
//! Each parsed statement is walked once ([`check`]): every query, select
//! block, table reference and expression, subqueries, derived tables and
//! CTEs included. What the walk does:
//! - normalizes what means nothing: `SELECT ALL` is `SELECT`;
//! - refuses with 1235 ("not supported yet") what MariaDB runs and Larch
//!   does not yet: `FETCH FIRST`, system-versioned reads (`FOR SYSTEM_TIME`),
//!   explicit partition selection, `UPDATE ... RETURNING` and multi-table
//!   `DELETE ... RETURNING`;
//! - refuses with 1064 what MariaDB's grammar has no place for, though
//!   sqlparser accepts it for other databases: `DISTINCT ON`, `NULLS
//!   FIRST|LAST`, `FOR UPDATE OF`, `FILTER (WHERE ...)`, `WITHIN GROUP`,
//!   `QUALIFY`, `TOP`, named function arguments and so on.
//!
//! docs/sql-compatibility.md lists every clause and what Larch does with it.

use std::ops::ControlFlow;

use sqlparser::ast::{self, VisitMut, VisitorMut};

use super::Statement;
use crate::error::SqlError;

/// Refuses (or normalizes) the clauses of `statement` Larch cannot run
/// exactly (see the module docs).
pub fn check(statement: &mut Statement) -> Result<(), SqlError> {
    let mut v = ClauseCheck;
    let flow = match statement {
        Statement::Sql(s) => s.visit(&mut v),
        Statement::SelectInto { query, .. } => query.visit(&mut v),
        // The others hold no query of their own (a view's is checked
        // when its SELECT is parsed: `view::parse`).
        _ => ControlFlow::Continue(()),
    };
    match flow {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// 1235 for a clause MariaDB runs and Larch does not yet.
fn not_yet(what: &str) -> ControlFlow<SqlError> {
    ControlFlow::Break(SqlError::not_supported(what))
}

/// 1064 for a clause MariaDB's grammar does not have.
fn not_mariadb(near: &str) -> ControlFlow<SqlError> {
    ControlFlow::Break(SqlError::Syntax {
        near: super::near_text(near),
        line: 1,
    })
}

struct ClauseCheck;

impl VisitorMut for ClauseCheck {
    type Break = SqlError;

    fn pre_visit_statement(&mut self, s: &mut ast::Statement) -> ControlFlow<SqlError> {
        match s {
            ast::Statement::Insert(i) => {
                if i.partitioned.is_some() {
                    return not_yet("PARTITION () clause");
                }
                if i.output.is_some()
                    || i.overwrite
                    || i.settings.is_some()
                    || i.format_clause.is_some()
                    || i.multi_table_insert_type.is_some()
                {
                    return not_mariadb(&i.to_string());
                }
            }
            ast::Statement::Update(u) => {
                if u.returning.is_some() {
                    return not_yet("UPDATE ... RETURNING");
                }
                if u.output.is_some() {
                    return not_mariadb(&u.to_string());
                }
            }
            ast::Statement::Delete(d) => {
                // RETURNING is for one table (MariaDB: a syntax error).
                if d.returning.is_some() && (!d.tables.is_empty() || d.using.is_some()) {
                    return not_yet("multi-table DELETE ... RETURNING");
                }
                if d.output.is_some() {
                    return not_mariadb(&d.to_string());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<SqlError> {
        set_operations(&q.body)?;
        if q.fetch.is_some() {
            return not_yet("FETCH FIRST");
        }
        if q.for_clause.is_some()
            || q.settings.is_some()
            || q.format_clause.is_some()
            || !q.pipe_operators.is_empty()
        {
            return not_mariadb(&q.to_string());
        }
        if let Some(order) = &q.order_by {
            if order.interpolate.is_some() {
                return not_mariadb(&order.to_string());
            }
            match &order.kind {
                ast::OrderByKind::All(_) => return not_mariadb(&order.to_string()),
                ast::OrderByKind::Expressions(items) => order_items(items)?,
            }
        }
        if q.locks.len() > 1 {
            return not_mariadb(&q.locks[1].to_string());
        }
        if let Some(lock) = q.locks.first() {
            if lock.of.is_some() {
                return not_mariadb(&lock.to_string());
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, sel: &mut ast::Select) -> ControlFlow<SqlError> {
        match &sel.distinct {
            Some(ast::Distinct::All) => sel.distinct = None,
            Some(ast::Distinct::On(_)) => return not_mariadb("ON"),
            _ => {}
        }
        if let ast::GroupByExpr::Expressions(_, modifiers) = &sel.group_by {
            if let Some(m) = modifiers
                .iter()
                .find(|m| **m != ast::GroupByWithModifier::Rollup)
            {
                return not_mariadb(&m.to_string());
            }
        }
        if sel.top.is_some()
            || sel.exclude.is_some()
            || !sel.lateral_views.is_empty()
            || sel.prewhere.is_some()
            || !sel.connect_by.is_empty()
            || !sel.cluster_by.is_empty()
            || !sel.distribute_by.is_empty()
            || !sel.sort_by.is_empty()
            || sel.qualify.is_some()
            || sel.value_table_mode.is_some()
        {
            return not_mariadb(&sel.to_string());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, t: &mut ast::TableFactor) -> ControlFlow<SqlError> {
        match t {
            ast::TableFactor::Table {
                args,
                version,
                with_ordinality,
                partitions,
                json_path,
                sample,
                ..
            } => {
                if !partitions.is_empty() {
                    return not_yet("PARTITION () clause");
                }
                if version.is_some() {
                    return not_yet("FOR SYSTEM_TIME");
                }
                if args.is_some() || *with_ordinality || json_path.is_some() || sample.is_some() {
                    return not_mariadb(&t.to_string());
                }
            }
            ast::TableFactor::Derived { sample, .. } if sample.is_some() => {
                return not_mariadb(&t.to_string());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<SqlError> {
        match e {
            ast::Expr::Function(f) => {
                if f.filter.is_some()
                    || f.null_treatment.is_some()
                    || !f.within_group.is_empty()
                    || !matches!(f.parameters, ast::FunctionArguments::None)
                {
                    return not_mariadb(&f.to_string());
                }
                if let ast::FunctionArguments::List(list) = &f.args {
                    for a in &list.args {
                        if !matches!(a, ast::FunctionArg::Unnamed(_)) {
                            return not_mariadb(&a.to_string());
                        }
                    }
                }
            }
            ast::Expr::Like { any: true, .. } | ast::Expr::ILike { .. } => {
                return not_mariadb(&e.to_string());
            }
            // MariaDB's ANY, SOME and ALL take a subquery only.
            ast::Expr::AnyOp { right, .. } | ast::Expr::AllOp { right, .. }
                if !matches!(right.as_ref(), ast::Expr::Subquery(_)) =>
            {
                return not_mariadb(&right.to_string());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// ORDER BY items: MariaDB has no `NULLS FIRST|LAST` and no `WITH FILL`.
fn order_items(items: &[ast::OrderByExpr]) -> ControlFlow<SqlError> {
    for item in items {
        if item.options.nulls_first.is_some() || item.with_fill.is_some() {
            return not_mariadb(&item.to_string());
        }
    }
    ControlFlow::Continue(())
}

/// Set operations: MariaDB has UNION, INTERSECT and EXCEPT, with ALL or
/// DISTINCT; not MINUS or `BY NAME`. (Iterative: a chain of set operations
/// may be long.)
fn set_operations(body: &ast::SetExpr) -> ControlFlow<SqlError> {
    let mut pending = vec![body];
    while let Some(e) = pending.pop() {
        if let ast::SetExpr::SetOperation {
            op,
            set_quantifier,
            left,
            right,
        } = e
        {
            let by_name = matches!(
                set_quantifier,
                ast::SetQuantifier::ByName
                    | ast::SetQuantifier::AllByName
                    | ast::SetQuantifier::DistinctByName
            );
            if *op == ast::SetOperator::Minus || by_name {
                return not_mariadb(&format!("{op} {set_quantifier}"));
            }
            pending.push(left);
            pending.push(right);
        }
    }
    ControlFlow::Continue(())
}
