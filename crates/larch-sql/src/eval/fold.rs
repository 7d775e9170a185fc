//! Constant conditions evaluated once, before a statement reads rows, as
//! MariaDB's optimizer does: a WHERE (or a part of its AND / OR / XOR / NOT
//! tree) that reads no column is evaluated up front. Its warnings are
//! raised once, whatever the number of rows, and (as MariaDB evaluates it
//! before a strict data change starts) stay warnings; its errors fail the
//! statement even when no row would be read.
//!
//! Only whole conditions are folded, never a constant operand inside a
//! comparison with a column: MariaDB evaluates those per row.

use super::func_more::More;
use super::{EvalContext, Expr, Func};
use crate::error::SqlError;

/// Replaces each constant condition of `cond`'s AND / OR / XOR / NOT tree
/// with its value; a condition that can then never hold becomes false
/// ([`drop_impossible`]).
pub fn fold_constant_conditions(
    cond: &mut Expr,
    ctx: &mut EvalContext<'_>,
) -> Result<(), SqlError> {
    fold(cond, ctx)?;
    drop_impossible(cond);
    Ok(())
}

/// A WHERE that can never hold, whatever the row (an AND with a false or
/// NULL literal, an OR of such), becomes the literal false, so nothing of
/// it is evaluated per row: MariaDB's optimizer finds an "Impossible
/// WHERE" before reading, so `WHERE NULL AND a + 1` neither overflows nor
/// warns. Only the top AND / OR levels count: under NOT, NULL and false
/// differ.
pub fn drop_impossible(cond: &mut Expr) {
    fn never_true(e: &Expr) -> bool {
        match e {
            Expr::Literal(v) => !crate::value::number::is_true(v),
            Expr::And(l, r) => never_true(l) || never_true(r),
            Expr::Or(l, r) => never_true(l) && never_true(r),
            _ => false,
        }
    }
    if !matches!(cond, Expr::Literal(_)) && never_true(cond) {
        *cond = Expr::Literal(larch_engine::record::value::Value::Int(0));
    }
}

fn fold(cond: &mut Expr, ctx: &mut EvalContext<'_>) -> Result<(), SqlError> {
    match cond {
        Expr::And(l, r) | Expr::Or(l, r) | Expr::Xor(l, r) => {
            fold(l, ctx)?;
            fold(r, ctx)?;
        }
        Expr::Not(x) => fold(x, ctx)?,
        _ => {}
    }
    if matches!(cond, Expr::Literal(_)) || !is_constant(cond) {
        return Ok(());
    }
    let strict = std::mem::replace(&mut ctx.warnings_are_errors, false);
    let division = ctx.division_by_zero;
    if division == super::DivisionByZero::Error {
        ctx.division_by_zero = super::DivisionByZero::Warn;
    }
    let v = cond.eval(&[], ctx);
    ctx.warnings_are_errors = strict;
    ctx.division_by_zero = division;
    *cond = Expr::Literal(v?);
    Ok(())
}

/// True when `e` reads no column, variable, routine or subquery and gives
/// the same value each time within a statement.
fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) | Expr::Param(_) => true,
        Expr::Column(_)
        | Expr::SysVar { .. }
        | Expr::UserVar { .. }
        | Expr::StoredCall { .. }
        | Expr::Subquery(_)
        | Expr::AssignUserVar { .. } => false,
        Expr::Neg { arg, .. }
        | Expr::BitNot(arg)
        | Expr::MemberNumber { arg, .. }
        | Expr::AsText { arg, .. }
        | Expr::UuidKey(arg)
        | Expr::IsNull { arg, .. }
        | Expr::IsTruth { arg, .. }
        | Expr::Not(arg)
        | Expr::Cast { arg, .. } => is_constant(arg),
        Expr::Arith { left, right, .. } | Expr::Compare { left, right, .. } => {
            is_constant(left) && is_constant(right)
        }
        Expr::And(l, r) | Expr::Or(l, r) | Expr::Xor(l, r) => is_constant(l) && is_constant(r),
        Expr::Between { arg, low, high, .. } => {
            is_constant(arg) && is_constant(low) && is_constant(high)
        }
        Expr::InList { arg, list, .. } => is_constant(arg) && list.iter().all(is_constant),
        Expr::Like {
            arg,
            pattern,
            escape,
            ..
        } => is_constant(arg) && is_constant(pattern) && escape.as_deref().is_none_or(is_constant),
        Expr::Case {
            operand,
            whens,
            otherwise,
            ..
        } => {
            operand.as_deref().is_none_or(is_constant)
                && whens.iter().all(|(w, t)| is_constant(w) && is_constant(t))
                && otherwise.as_deref().is_none_or(is_constant)
        }
        Expr::DateAdd { date, amount, .. } => is_constant(date) && is_constant(amount),
        Expr::Call { func, args, .. } => deterministic(func) && args.iter().all(is_constant),
    }
}

/// Functions whose value or effect differs between calls in one statement.
fn deterministic(f: &Func) -> bool {
    !matches!(
        f,
        Func::Rand
            | Func::MathStr(super::func_math::MathStr::Uuid)
            | Func::Sleep
            | Func::LastInsertId
            | Func::FoundRows
            | Func::RowCount
            | Func::More(
                More::GetLock
                    | More::ReleaseLock
                    | More::IsFreeLock
                    | More::IsUsedLock
                    | More::ReleaseAllLocks
            )
    )
}
