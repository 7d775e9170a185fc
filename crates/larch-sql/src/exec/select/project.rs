//! Per-row work of a SELECT block that is settled once per statement: the
//! WHERE left to check once the access path enforces some conjuncts, and the
//! select list evaluated as rows arrive (when no aggregation, HAVING or sort
//! needs the input rows, only the output values are kept). An output that
//! is the only reader of a column of the join's last source moves the
//! value instead of copying it (`join::Emit` allows it). A select list of
//! plain columns under a sort is taken from the sorted rows in place.

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::block::Output;
use crate::error::SqlError;
use crate::eval::{self, Compiled};

/// Appends the select list's values for `row` to `out` (an output naming
/// an earlier output by alias reads it from `out`); the outputs `moves`
/// marks take their column's value out of `row` instead of copying it.
pub(super) fn project_into(
    row: &mut [Value],
    outputs: &[Output],
    moves: &[bool],
    ctx: &mut eval::EvalContext<'_>,
    out: &mut Vec<Value>,
) -> Result<(), SqlError> {
    for (i, o) in outputs.iter().enumerate() {
        let v = match o.expr.expr {
            eval::Expr::Column(c) if c > usize::MAX / 2 => {
                out.get(usize::MAX - c).cloned().unwrap_or(Value::Null)
            }
            eval::Expr::Column(c) if moves.get(i) == Some(&true) && c < row.len() => {
                std::mem::replace(&mut row[c], Value::Null)
            }
            _ => o.expr.eval(row, ctx)?,
        };
        out.push(v);
    }
    Ok(())
}

/// Per output: may it move its value out of the row (see
/// [`project_into`])? Only when every output is a plain column or an
/// alias (no expression reads the row after it), and this one's column, at
/// or after `movable_from`, is named by no other output.
pub(super) fn movable_outputs(outputs: &[Output], movable_from: usize) -> Vec<bool> {
    let column = |o: &Output| match o.expr.expr {
        eval::Expr::Column(c) => Some(c),
        _ => None,
    };
    if outputs.iter().any(|o| column(o).is_none()) {
        return vec![false; outputs.len()];
    }
    outputs
        .iter()
        .map(|o| {
            column(o).is_some_and(|c| {
                c >= movable_from
                    && c <= usize::MAX / 2
                    && outputs.iter().filter(|p| column(p) == Some(c)).count() == 1
            })
        })
        .collect()
}

/// True when every expression is a plain column of the input row (before
/// `width`).
pub(super) fn plain_columns<'a>(
    mut exprs: impl Iterator<Item = &'a Compiled>,
    width: usize,
) -> bool {
    exprs.all(|e| matches!(e.expr, eval::Expr::Column(c) if c < width))
}

/// The select list of plain columns (see [`plain_columns`]) taken from
/// each input row, in place: a value named once is moved, one named again
/// copied; each row keeps its allocation.
pub(super) fn project_sorted(mut rows: Vec<Vec<Value>>, outputs: &[Output]) -> Vec<Vec<Value>> {
    let columns: Vec<usize> = outputs
        .iter()
        .map(|o| match o.expr.expr {
            eval::Expr::Column(c) => c,
            _ => usize::MAX,
        })
        .collect();
    let mut out: Vec<Value> = Vec::with_capacity(columns.len());
    for row in &mut rows {
        for (i, &c) in columns.iter().enumerate() {
            let again = columns[i + 1..].contains(&c);
            let v = match row.get_mut(c) {
                Some(v) if again => v.clone(),
                Some(v) => std::mem::replace(v, Value::Null),
                None => Value::Null,
            };
            out.push(v);
        }
        row.clear();
        row.append(&mut out);
    }
    rows
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
