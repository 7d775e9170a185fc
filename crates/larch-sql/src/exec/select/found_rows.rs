//! `SQL_CALC_FOUND_ROWS` and what `FOUND_ROWS()` reads.
//!
//! After a SELECT, `FOUND_ROWS()` is the number of rows it returned; after
//! `SELECT SQL_CALC_FOUND_ROWS ... LIMIT`, the number it would have returned
//! without its LIMIT (for a UNION, the union's rows before the final
//! LIMIT). Statements other than SELECT leave the count as it was.
//!
//! As in MariaDB, the modifier belongs to the first SELECT of the statement
//! (or of a UNION/INTERSECT/EXCEPT, or of the one parenthesized query that
//! is the statement); anywhere else, in a later branch, a derived table or
//! a subquery, the statement fails with 1234 "Incorrect usage/placement of
//! 'SQL_CALC_FOUND_ROWS'".

use std::ops::ControlFlow;

use sqlparser::ast::{self, Visit, Visitor};

use crate::error::SqlError;

/// Whether the statement's query `q` asks for the count without LIMIT; an
/// error when the modifier stands where it has no meaning.
pub(super) fn wanted(q: &ast::Query) -> Result<bool, SqlError> {
    let first = first_select(q);
    let calc = first.is_some_and(calculates);
    let mut misplaced = Misplaced { first };
    if q.visit(&mut misplaced).is_break() {
        return Err(SqlError::new(
            1234,
            "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'",
        ));
    }
    Ok(calc)
}

/// The query a parenthesized statement query stands for: `(SELECT ...
/// LIMIT 1)` is that SELECT with its LIMIT; other queries are themselves.
pub(super) fn unparenthesized(q: &ast::Query) -> &ast::Query {
    match q.body.as_ref() {
        ast::SetExpr::Query(inner)
            if q.limit_clause.is_none()
                && q.order_by.is_none()
                && q.with.is_none()
                && q.locks.is_empty() =>
        {
            unparenthesized(inner)
        }
        _ => q,
    }
}

/// The query `q` without its LIMIT/OFFSET: what is counted.
pub(super) fn without_limit(q: &ast::Query) -> ast::Query {
    ast::Query {
        limit_clause: None,
        ..q.clone()
    }
}

fn calculates(sel: &ast::Select) -> bool {
    sel.select_modifiers
        .as_ref()
        .is_some_and(|m| m.sql_calc_found_rows)
}

/// The SELECT the modifier may stand in: the leftmost block of the
/// statement's set operations, or of the one parenthesized query that is
/// the whole statement (`(SELECT SQL_CALC_FOUND_ROWS ... LIMIT 1)`).
fn first_select(q: &ast::Query) -> Option<&ast::Select> {
    let mut body = unparenthesized(q).body.as_ref();
    loop {
        match body {
            ast::SetExpr::Select(sel) => return Some(sel),
            ast::SetExpr::SetOperation { left, .. } => body = left,
            _ => return None,
        }
    }
}

/// Breaks at a SELECT with the modifier other than `first`.
struct Misplaced<'q> {
    first: Option<&'q ast::Select>,
}

impl Visitor for Misplaced<'_> {
    type Break = ();

    fn pre_visit_select(&mut self, select: &ast::Select) -> ControlFlow<()> {
        let allowed = self.first.is_some_and(|f| std::ptr::eq(f, select));
        if calculates(select) && !allowed {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}
