//! INTERSECT and EXCEPT of two row sets, with and without ALL, as MariaDB
//! 10.11 computes them: rows compare by their columns' collations (NULLs
//! equal, as in DISTINCT); INTERSECT keeps the first set's rows that the
//! second has, EXCEPT those it lacks; without ALL the result has no
//! duplicates, with ALL a row comes out as many times as it is in the first
//! set, less (EXCEPT ALL) or at most (INTERSECT ALL) as many as in the
//! second. UNION is in `query` (concatenation and `order::distinct_rows`).
//!
//! Before they meet, both sides get the result's column types ([`unify`]):
//! MariaDB aggregates each column over the branches (`1 UNION 2.5` is
//! DECIMAL, 1.0 and 2.5; a number and a string are a string; a DATE and a
//! TIME are a DATETIME), and the rows compare and come out in that type.

use std::collections::HashMap;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};

use super::aggregate;
use super::order::distinct_rows;
use crate::error::Warning;
use crate::eval::{self, Coerce};
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;

/// Gives `left` and `right` (the two sides of a UNION, INTERSECT or EXCEPT,
/// with as many columns) the result's column types, converting their
/// values; returns the conversions' warnings. The result columns keep the
/// left side's names.
pub(super) fn unify(s: &Session, left: &mut RowSet, right: &mut RowSet) -> Vec<Warning> {
    // A bare NULL column takes the other side's type.
    let side = |c: &ResultColumn| -> Option<ColumnType> {
        (c.ty != ColumnType::Binary { len: 0 }).then(|| c.ty.clone())
    };
    let mut ctx = s.eval_context(&[]);
    for i in 0..left.columns.len().min(right.columns.len()) {
        let (l_ty, r_ty) = (side(&left.columns[i]), side(&right.columns[i]));
        let (ty, coerce) =
            eval::set_operation_type(&[l_ty.as_ref(), r_ty.as_ref()], s.connection_collation());
        for (set, own) in [(&mut *left, &l_ty), (&mut *right, &r_ty)] {
            if coerce != Coerce::Keep && own.as_ref() != Some(&ty) {
                for row in &mut set.rows {
                    if let Some(v) = row.get_mut(i) {
                        let mut value = std::mem::replace(v, Value::Null);
                        if coerce == Coerce::Text {
                            value = temporal_text(value, own.as_ref());
                        }
                        *v = match (eval::apply_coerce(value, coerce, &mut ctx), &ty) {
                            // Stored in the result's DECIMAL(p, s): 1 and 1.0
                            // are one value, shown as 1.0.
                            (Value::Decimal(d), ColumnType::Decimal { scale, .. }) => {
                                Value::Decimal(d.rescale(*scale))
                            }
                            (converted, _) => converted,
                        };
                    }
                }
            }
        }
        let nullable = left.columns[i].nullable || right.columns[i].nullable;
        let fixed_real = union_fixed_real(&ty, &left.columns[i], &right.columns[i]);
        let same_zerofill = left.columns[i].zerofill == right.columns[i].zerofill;
        let column = &mut left.columns[i];
        if l_ty.as_ref() != Some(&ty) {
            column.ty = ty;
        }
        column.nullable = nullable;
        column.null_literal = false;
        column.fixed_real = fixed_real;
        if !same_zerofill {
            column.zerofill = None;
        }
    }
    ctx.take_warnings()
}

/// `(M, D)` of a FLOAT or DOUBLE column of type `ty` that unites columns
/// `a` and `b`, as MariaDB sizes it: the most decimals and the most integer
/// digits of the two (an integer has no decimals, a DECIMAL its scale); no
/// fixed decimals once a side has none (a plain FLOAT or DOUBLE, a string).
/// A bare NULL side counts for nothing.
fn union_fixed_real(ty: &ColumnType, a: &ResultColumn, b: &ResultColumn) -> Option<(u32, u32)> {
    if !matches!(ty, ColumnType::Float | ColumnType::Double) {
        return None;
    }
    let digits = |c: &ResultColumn| -> Option<Option<(u32, u32)>> {
        if c.null_literal || c.ty == (ColumnType::Binary { len: 0 }) {
            return Some(None);
        }
        Some(Some(match (&c.ty, c.fixed_real) {
            (ColumnType::Float | ColumnType::Double, Some((m, d))) => (m.saturating_sub(d), d),
            (ColumnType::Int { bytes, .. }, _) => (u32::from(*bytes) * 5 / 2, 0),
            (ColumnType::Decimal { precision, scale }, _) => {
                (u32::from(precision - scale), u32::from(*scale))
            }
            _ => return None,
        }))
    };
    let (x, y) = (digits(a)?, digits(b)?);
    let (int, dec) = match (x, y) {
        (Some((i1, d1)), Some((i2, d2))) => (i1.max(i2), d1.max(d2)),
        (Some(p), None) | (None, Some(p)) => p,
        (None, None) => return None,
    };
    Some(((int + dec).clamp(1, 255), dec))
}

/// A TIME, DATETIME or TIMESTAMP value of a side of type `own` as the text
/// it shows (with its type's fractional digits), for a result column that
/// is a string; other values unchanged.
fn temporal_text(value: Value, own: Option<&ColumnType>) -> Value {
    match (&value, own) {
        (
            Value::Time(_) | Value::Datetime(_) | Value::Timestamp(_),
            Some(
                ty @ (ColumnType::Time { .. }
                | ColumnType::Datetime { .. }
                | ColumnType::Timestamp { .. }),
            ),
        ) => match crate::value::to_text(&value, ty) {
            Some(text) => Value::Str(String::from_utf8_lossy(&text).into_owned()),
            None => value,
        },
        _ => value,
    }
}

/// Replaces `left` by `left INTERSECT right` (`intersect`) or `left EXCEPT
/// right`, with or without `all`.
pub(super) fn combine(
    left: &mut Vec<Vec<Value>>,
    right: Vec<Vec<Value>>,
    intersect: bool,
    all: bool,
    colls: &[Collation],
) {
    let key = |row: &[Value]| {
        let mut k = Vec::new();
        aggregate::column_key_into(row, colls, &mut k);
        k
    };
    let mut counts: HashMap<Vec<u8>, u64> = HashMap::with_capacity(right.len());
    for r in &right {
        *counts.entry(key(r)).or_default() += 1;
    }
    if !all {
        distinct_rows(left, colls);
    }
    left.retain(|row| {
        let found = match counts.get_mut(&key(row)) {
            Some(n) if *n > 0 => {
                if all {
                    *n -= 1;
                }
                true
            }
            _ => false,
        };
        found == intersect
    });
}
