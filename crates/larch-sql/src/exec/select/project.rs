//! Per-row work of a SELECT block that is settled once per statement: the
//! WHERE left to check once the access path enforces some conjuncts, and the
//! select list evaluated as rows arrive (when no aggregation, HAVING or sort
//! needs the input rows, only the output values are kept).

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::block::Output;
use crate::error::SqlError;
use crate::eval::{self, Compiled};

/// Appends the select list's values for `row` to `out` (an output naming
/// an earlier output by alias reads it from `out`).
pub(super) fn project_into(
    row: &[Value],
    outputs: &[Output],
    ctx: &mut eval::EvalContext<'_>,
    out: &mut Vec<Value>,
) -> Result<(), SqlError> {
    for o in outputs {
        let v = match o.expr.expr {
            eval::Expr::Column(c) if c > usize::MAX / 2 => {
                out.get(usize::MAX - c).cloned().unwrap_or(Value::Null)
            }
            _ => o.expr.eval(row, ctx)?,
        };
        out.push(v);
    }
    Ok(())
}

/// The WHERE left to check per row: the conjuncts `conds` but those the
/// access path enforces (`exact`, indices in `conds`), AND-ed and compiled;
/// `None` when nothing is left.
pub(super) fn residual_where(
    conds: &[&ast::Expr],
    exact: &[usize],
    compile: impl Fn(&ast::Expr) -> Result<Compiled, SqlError>,
) -> Result<Option<Compiled>, SqlError> {
    let mut rest = conds
        .iter()
        .enumerate()
        .filter(|(i, _)| !exact.contains(i))
        .map(|(_, c)| (*c).clone());
    let Some(first) = rest.next() else {
        return Ok(None);
    };
    let all = rest.fold(first, |acc, c| ast::Expr::BinaryOp {
        left: Box::new(acc),
        op: ast::BinaryOperator::And,
        right: Box::new(c),
    });
    compile(&all).map(Some)
}
