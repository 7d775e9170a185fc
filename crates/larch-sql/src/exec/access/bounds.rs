//! What the WHERE conjuncts say about each column of one table: equality
//! values and range bounds from `column op constant` conditions whose
//! constant converts exactly to the column's type, and which conjuncts gave
//! them (for [`Plan::exact`](super::Plan::exact)).

use std::ops::Bound;

use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::Table;
use sqlparser::ast;

use super::ColumnOf;
use crate::eval::{self, EvalContext};
use crate::value::store::{store, StoreTarget};

/// What a condition says about one column.
#[derive(Debug, Clone)]
enum ColumnBound {
    Eq(Vec<Value>),
    Range {
        lower: Bound<Value>,
        upper: Bound<Value>,
    },
}

/// Evaluates a constant expression (no column references) and converts it
/// exactly to `ty`; `None` when it is not constant or does not convert exactly.
fn constant(e: &ast::Expr, ty: &ColumnType, ctx: &mut EvalContext<'_>) -> Option<Value> {
    // An expression that assigns a user variable (`@a := 5`) is evaluated
    // by the filter only, so the assignment happens once per row.
    let mut assigns = false;
    let _ = ast::visit_expressions(e, |x| {
        if let ast::Expr::BinaryOp {
            op: ast::BinaryOperator::Assignment,
            ..
        } = x
        {
            assigns = true;
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    });
    if assigns {
        return None;
    }
    let resolve = |_: &[ast::Ident]| None;
    let c = eval::compile(e, &resolve, &eval::CompileOptions::default()).ok()?;
    let v = c.eval(&[], ctx).ok()?;
    if v.is_null() {
        return None;
    }
    // Only kinds that convert without changing the comparison's meaning.
    let fits = match ty {
        ColumnType::Int { .. } | ColumnType::Year => matches!(v, Value::Int(_) | Value::UInt(_)),
        ColumnType::Decimal { .. } => {
            matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_))
        }
        ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text { .. } => {
            matches!(v, Value::Str(_))
        }
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            matches!(v, Value::Bytes(_) | Value::Str(_))
        }
        ColumnType::Date | ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => {
            matches!(v, Value::Str(_) | Value::Date(_) | Value::Datetime(_))
        }
        _ => false,
    };
    if !fits {
        return None;
    }
    let target = StoreTarget {
        db: "",
        table: "",
        column: "",
        row: 1,
        strict: true,
    };
    let mut warnings = Vec::new();
    let stored = store(&v, ty, &target, &mut warnings).ok()?;
    if !warnings.is_empty() {
        return None;
    }
    // A value that changed (a decimal rounded into an integer column) would
    // move range bounds: compare numerically with the original.
    if let (Value::Decimal(d), Value::Int(_) | Value::UInt(_)) = (&v, &stored) {
        if d.scale() > 0 && d.rescale(0).rescale(d.scale()) != *d {
            return None;
        }
    }
    Some(stored)
}

fn bound_of(
    e: &ast::Expr,
    column_of: &ColumnOf<'_>,
    types: &[ColumnType],
    ctx: &mut EvalContext<'_>,
) -> Option<(usize, ColumnBound)> {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::BinaryOp { left, op, right } => {
            let (col, other, op) = if let Some(c) = column_of(left) {
                (c, right, op.clone())
            } else if let Some(c) = column_of(right) {
                let flipped = match op {
                    B::Lt => B::Gt,
                    B::LtEq => B::GtEq,
                    B::Gt => B::Lt,
                    B::GtEq => B::LtEq,
                    o => o.clone(),
                };
                (c, left, flipped)
            } else {
                return None;
            };
            let v = constant(other, &types[col], ctx)?;
            let b = match op {
                B::Eq | B::Spaceship => ColumnBound::Eq(vec![v]),
                B::Lt => ColumnBound::Range {
                    lower: Bound::Unbounded,
                    upper: Bound::Excluded(v),
                },
                B::LtEq => ColumnBound::Range {
                    lower: Bound::Unbounded,
                    upper: Bound::Included(v),
                },
                B::Gt => ColumnBound::Range {
                    lower: Bound::Excluded(v),
                    upper: Bound::Unbounded,
                },
                B::GtEq => ColumnBound::Range {
                    lower: Bound::Included(v),
                    upper: Bound::Unbounded,
                },
                _ => return None,
            };
            Some((col, b))
        }
        ast::Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } => {
            let col = column_of(expr)?;
            let lo = constant(low, &types[col], ctx)?;
            let hi = constant(high, &types[col], ctx)?;
            Some((
                col,
                ColumnBound::Range {
                    lower: Bound::Included(lo),
                    upper: Bound::Included(hi),
                },
            ))
        }
        ast::Expr::InList {
            expr,
            list,
            negated: false,
        } if !list.is_empty() && list.len() <= 1000 => {
            let col = column_of(expr)?;
            let mut vals = Vec::with_capacity(list.len());
            for item in list {
                vals.push(constant(item, &types[col], ctx)?);
            }
            Some((col, ColumnBound::Eq(vals)))
        }
        ast::Expr::Nested(inner) => bound_of(inner, column_of, types, ctx),
        _ => None,
    }
}

/// Per table column: the equality values and range bounds the conjuncts give.
pub(super) struct Bounds {
    pub eq: Vec<Option<Vec<Value>>>,
    pub range: Vec<Option<(Bound<Value>, Bound<Value>)>>,
    /// Per column: the conjuncts that bound it.
    pub conds_of: Vec<Vec<usize>>,
    /// Per column: is it an integer column bounded by literals and
    /// parameters only (whose bounds are then exact)?
    pub integer: Vec<bool>,
}

impl Bounds {
    pub fn of(
        table: &Table,
        conds: &[&ast::Expr],
        column_of: &ColumnOf<'_>,
        ctx: &mut EvalContext<'_>,
    ) -> Bounds {
        let types: Vec<ColumnType> = table.def().columns.iter().map(|c| c.ty.clone()).collect();
        let mut b = Bounds {
            eq: vec![None; types.len()],
            range: vec![None; types.len()],
            conds_of: vec![Vec::new(); types.len()],
            integer: types
                .iter()
                .map(|t| matches!(t, ColumnType::Int { .. }))
                .collect(),
        };
        for (i, c) in conds.iter().enumerate() {
            let bound = bound_of(c, column_of, &types, ctx);
            if let Some((col, _)) = &bound {
                b.conds_of[*col].push(i);
                if !plain(c) {
                    // Enforced only with constants evaluated once: a
                    // function (RAND(), a variable) may differ per row.
                    b.integer[*col] = false;
                }
            }
            match bound {
                Some((col, ColumnBound::Eq(v)))
                    if b.eq[col].as_ref().is_none_or(|old| old.len() > v.len()) =>
                {
                    b.eq[col] = Some(v);
                }
                Some((_, ColumnBound::Eq(_))) => {}
                Some((col, ColumnBound::Range { lower, upper })) => {
                    let r = b.range[col].get_or_insert((Bound::Unbounded, Bound::Unbounded));
                    if !matches!(lower, Bound::Unbounded) {
                        r.0 = lower;
                    }
                    if !matches!(upper, Bound::Unbounded) {
                        r.1 = upper;
                    }
                }
                None => {}
            }
        }
        b
    }

    /// The conjuncts the ranges over `columns` enforce exactly (see
    /// [`Plan::exact`]).
    pub fn exact(&self, columns: &[usize]) -> Vec<usize> {
        columns
            .iter()
            .filter_map(|&c| match self.conds_of[c].as_slice() {
                [only] if self.integer[c] => Some(*only),
                _ => None,
            })
            .collect()
    }

    /// Is the column fixed to one value by an equality?
    pub fn fixed(&self, column: usize) -> bool {
        self.eq[column].as_ref().is_some_and(|v| v.len() == 1)
    }
}

/// Whether every constant of the bound `c` is a literal or a parameter
/// (possibly negated), so it has the same value for every row.
fn plain(c: &ast::Expr) -> bool {
    fn literal(e: &ast::Expr) -> bool {
        match e {
            ast::Expr::Value(_) => true,
            ast::Expr::UnaryOp {
                op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
                expr,
            }
            | ast::Expr::Nested(expr) => literal(expr),
            _ => false,
        }
    }
    match c {
        ast::Expr::BinaryOp { left, right, .. } => literal(left) || literal(right),
        ast::Expr::Between { low, high, .. } => literal(low) && literal(high),
        ast::Expr::InList { list, .. } => list.iter().all(literal),
        ast::Expr::Nested(inner) => plain(inner),
        _ => false,
    }
}
