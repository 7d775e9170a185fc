//! Bounds on how deeply a parsed statement nests, so that nothing after the
//! parser recurses deeper than the statement thread's stack allows.
//!
//! sqlparser builds a chain of one left-associative operator (`a OR b OR
//! ...`, `1 + 1 + ...`, `SELECT ... UNION ALL SELECT ...`) iteratively, as a
//! tree as deep as the chain is long; every later walk over it (binding,
//! compiling, evaluating, cloning, dropping) would recurse that deep. After
//! parsing, [`bound`]:
//! - rebalances long chains of an associative operator into trees of
//!   logarithmic depth, operands in the same order: `AND`/`&&`, `OR`/`||`
//!   and `XOR`, and runs of `UNION [ALL]` with one quantifier. MariaDB
//!   flattens these too: 2,000 ANDed conditions and 50,000 ORed ones run
//!   there, and 10,000 UNION ALL branches;
//! - refuses what is still too deep, as MariaDB does: an expression nested
//!   deeper than [`MAX_EXPRESSION_DEPTH`] (`1+1+...` of 600 terms or
//!   `CONCAT(` 600 deep already give 1436 "Thread stack overrun" in
//!   MariaDB 10.11) and queries nested deeper than [`MAX_QUERY_DEPTH`]
//!   (1473 "Too high level of nesting for select", MariaDB's 63 nested
//!   subqueries).
//!
//! A refused statement is taken apart bottom-up before it is dropped
//! ([`dismantle`]), since dropping a deep tree recurses as deep. The walks
//! here are sqlparser's visitors, which grow their stack on the heap
//! (sqlparser's `recursive-protection`), as its parser does.

use std::ops::ControlFlow;

use sqlparser::ast::{self, BinaryOperator, Expr, SetExpr, VisitMut, VisitorMut};

use super::Statement;
use crate::error::SqlError;

/// Deepest expression nesting a statement may have (MariaDB refuses
/// `1+1+...` beyond about 500 terms with its default 292 KiB stack).
pub const MAX_EXPRESSION_DEPTH: usize = 1000;
/// Deepest query nesting: the statement's own query and 63 levels of
/// subqueries and derived tables inside it, as in MariaDB.
pub const MAX_QUERY_DEPTH: usize = 64;
/// Chains no longer than this are left as parsed.
const SHORT_CHAIN: usize = 16;

/// Rebalances the statement's long chains and refuses it when it still
/// nests too deeply (see the module docs).
pub fn bound(statement: &mut Statement) -> Result<(), SqlError> {
    let mut v = Bound::default();
    let flow = visit(statement, &mut v);
    match flow {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(e) => {
            dismantle(statement);
            Err(e)
        }
    }
}

fn visit<V: VisitorMut<Break = SqlError>>(
    statement: &mut Statement,
    v: &mut V,
) -> ControlFlow<SqlError> {
    match statement {
        Statement::Sql(s) => s.visit(v),
        Statement::SelectInto { query, .. } => query.visit(v),
        Statement::Do(exprs) => exprs.visit(v),
        Statement::Kill { id, .. } => id.visit(v),
        Statement::Execute { using, .. } | Statement::ExecuteImmediate { using, .. } => {
            using.visit(v)
        }
        _ => ControlFlow::Continue(()),
    }
}

#[derive(Default)]
struct Bound {
    expression_depth: usize,
    query_depth: usize,
}

impl VisitorMut for Bound {
    type Break = SqlError;

    fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<SqlError> {
        rebalance_unions(&mut q.body);
        self.query_depth += 1;
        if self.query_depth > MAX_QUERY_DEPTH {
            return ControlFlow::Break(SqlError::new(1473, "Too high level of nesting for select"));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _q: &mut ast::Query) -> ControlFlow<SqlError> {
        self.query_depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<SqlError> {
        rebalance_chain(e);
        self.expression_depth += 1;
        if self.expression_depth > MAX_EXPRESSION_DEPTH {
            return ControlFlow::Break(stack_overrun());
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _e: &mut Expr) -> ControlFlow<SqlError> {
        self.expression_depth -= 1;
        ControlFlow::Continue(())
    }
}

/// MariaDB's 1436 for a statement too deep to run.
pub fn stack_overrun() -> SqlError {
    crate::stack::overrun()
}

/// True for the operators whose chains may be regrouped: each is
/// associative in SQL's three-valued logic, and evaluation still visits the
/// operands left to right.
fn associative(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::And
            | BinaryOperator::Or
            | BinaryOperator::Xor
            | BinaryOperator::StringConcat
    )
}

/// How many `op` nodes the left spine of `e` has.
fn spine(mut e: &Expr, op: &BinaryOperator) -> usize {
    let mut n = 0;
    while let Expr::BinaryOp { left, op: o, .. } = e {
        if o != op {
            break;
        }
        n += 1;
        e = left;
    }
    n
}

/// Regroups `e` when it is a long chain of one associative operator.
fn rebalance_chain(e: &mut Expr) {
    let op = match e {
        Expr::BinaryOp { op, .. } if associative(op) => op.clone(),
        _ => return,
    };
    if spine(e, &op) <= SHORT_CHAIN {
        return;
    }
    let whole = std::mem::replace(e, Expr::value(ast::Value::Null));
    // The operands in order, without recursion.
    let mut operands = Vec::new();
    let mut pending = vec![whole];
    while let Some(x) = pending.pop() {
        match x {
            Expr::BinaryOp { left, op: o, right } if o == op => {
                pending.push(*right);
                pending.push(*left);
            }
            other => operands.push(other),
        }
    }
    *e = balanced(operands, &op);
}

/// A tree of `op` over `operands` (at least one), as shallow as possible.
pub(crate) fn balanced(mut operands: Vec<Expr>, op: &BinaryOperator) -> Expr {
    if operands.len() == 1 {
        return operands
            .pop()
            .unwrap_or_else(|| Expr::value(ast::Value::Null));
    }
    let right = operands.split_off(operands.len() / 2);
    Expr::BinaryOp {
        left: Box::new(balanced(operands, op)),
        op: op.clone(),
        right: Box::new(balanced(right, op)),
    }
}

/// Regroups the runs of one `UNION` kind in a long chain of set operations:
/// `((P u x1) u x2) u x3` is `P u (x1 u (x2 u x3))` for UNION ALL and for
/// UNION DISTINCT alike, the first SELECT (which names the columns) stays
/// first.
fn rebalance_unions(body: &mut Box<SetExpr>) {
    let mut n = 0;
    let mut at: &SetExpr = body;
    while let SetExpr::SetOperation { left, .. } = at {
        n += 1;
        at = left;
    }
    if n <= SHORT_CHAIN {
        return;
    }
    // Take the chain apart from the top: (operator, quantifier, right)
    // from the last operation to the first, then the first operand.
    let mut links = Vec::with_capacity(n);
    let mut rest = std::mem::replace(body.as_mut(), SetExpr::Values(empty_values()));
    while let SetExpr::SetOperation {
        left,
        op,
        set_quantifier,
        right,
    } = rest
    {
        links.push((op, set_quantifier, right));
        rest = *left;
    }
    links.reverse();
    let mut acc = rest;
    let mut i = 0;
    while i < links.len() {
        let (op, quantifier) = (links[i].0.clone(), links[i].1);
        let mut j = i + 1;
        if op == ast::SetOperator::Union {
            while j < links.len() && links[j].0 == op && links[j].1 == quantifier {
                j += 1;
            }
        }
        let run: Vec<SetExpr> = links[i..j]
            .iter_mut()
            .map(|l| std::mem::replace(l.2.as_mut(), SetExpr::Values(empty_values())))
            .collect();
        acc = SetExpr::SetOperation {
            left: Box::new(acc),
            op: op.clone(),
            set_quantifier: quantifier,
            right: Box::new(balanced_set(run, &op, quantifier)),
        };
        i = j;
    }
    **body = acc;
}

/// A tree of one set operation over `operands` (at least one).
fn balanced_set(
    mut operands: Vec<SetExpr>,
    op: &ast::SetOperator,
    quantifier: ast::SetQuantifier,
) -> SetExpr {
    if operands.len() == 1 {
        return operands
            .pop()
            .unwrap_or_else(|| SetExpr::Values(empty_values()));
    }
    let right = operands.split_off(operands.len() / 2);
    SetExpr::SetOperation {
        left: Box::new(balanced_set(operands, op, quantifier)),
        op: op.clone(),
        set_quantifier: quantifier,
        right: Box::new(balanced_set(right, op, quantifier)),
    }
}

fn empty_values() -> ast::Values {
    ast::Values {
        explicit_row: false,
        value_keyword: false,
        rows: Vec::new(),
    }
}

/// Takes a statement apart bottom-up, so that dropping it recurses no
/// deeper than one node: every expression is replaced by NULL after its
/// own parts were, every query's body by an empty one.
pub fn dismantle(statement: &mut Statement) {
    struct Dismantle;
    impl VisitorMut for Dismantle {
        type Break = SqlError;
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<SqlError> {
            *e = Expr::value(ast::Value::Null);
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<SqlError> {
            dismantle_set(&mut q.body);
            ControlFlow::Continue(())
        }
    }
    let _ = visit(statement, &mut Dismantle);
}

/// Drops a chain of set operations from the top, one link at a time.
fn dismantle_set(body: &mut Box<SetExpr>) {
    let mut pending = vec![std::mem::replace(
        body.as_mut(),
        SetExpr::Values(empty_values()),
    )];
    while let Some(x) = pending.pop() {
        if let SetExpr::SetOperation { left, right, .. } = x {
            pending.push(*left);
            pending.push(*right);
        }
    }
}
