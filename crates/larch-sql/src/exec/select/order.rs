//! Ordering and trimming result rows: ORDER BY keys compiled and applied
//! (with MySQL's NULL-first order and each key's collation), DISTINCT, and
//! LIMIT/OFFSET, for SELECT blocks and UNION results.
//!
//! Positional keys (`ORDER BY 2`) and select-list aliases are compiled to
//! `Expr::Column(usize::MAX - i)`: output column `i`, read from the tail of
//! the row being sorted ([`sort_rows`] is told how many output columns the
//! rows carry after their input columns).

use std::cmp::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled, ExprType};
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;

/// ORDER BY over output columns and LIMIT, for UNION results.
pub(super) fn finish_set(
    s: &Session,
    set: &mut RowSet,
    order: &[ast::OrderByExpr],
    limit: Option<(u64, u64)>,
) -> Result<(), SqlError> {
    if !order.is_empty() {
        let cols = set.columns.clone();
        let resolve = |parts: &[ast::Ident]| {
            let name = &parts.last()?.value;
            cols.iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
                .map(|i| {
                    (
                        i,
                        ExprType {
                            ty: cols[i].ty.clone(),
                            nullable: cols[i].nullable,
                            decimals: cols[i].real_decimals(),
                        },
                    )
                })
        };
        let keys = compile_order(s, order, &resolve, &set.columns)?;
        // The rows are the output columns alone.
        let tail = set.columns.len();
        sort_rows(s, &mut set.rows, &keys, tail, |r| r)?;
    }
    apply_limit(&mut set.rows, limit);
    Ok(())
}

pub(super) fn apply_limit(rows: &mut Vec<Vec<Value>>, limit: Option<(u64, u64)>) {
    if let Some((off, count)) = limit {
        let off = usize::try_from(off).unwrap_or(usize::MAX).min(rows.len());
        rows.drain(..off);
        rows.truncate(usize::try_from(count).unwrap_or(usize::MAX));
    }
}

/// Keeps the first of the rows equal under their columns' collations
/// (`colls`; DISTINCT, UNION).
pub(super) fn distinct_rows(rows: &mut Vec<Vec<Value>>, colls: &[Collation]) {
    let mut seen = super::distinct::DistinctRows::new(colls.to_vec());
    rows.retain(|r| seen.first(r));
}

/// A compiled ORDER BY key.
pub(super) struct SortKey {
    pub expr: Compiled,
    pub desc: bool,
    pub collation: Collation,
}

pub(super) fn compile_order(
    s: &Session,
    order: &[ast::OrderByExpr],
    resolve: &eval::Resolver<'_>,
    outputs: &[ResultColumn],
) -> Result<Vec<SortKey>, SqlError> {
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "ORDER BY".into(),
    };
    order
        .iter()
        .map(|o| {
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            // ORDER BY 2: the second output column.
            let expr = match &o.expr {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => {
                        let i: usize = n.parse().unwrap_or(0);
                        if i == 0 || i > outputs.len() {
                            return Err(SqlError::new(
                                1054,
                                format!("Unknown column '{n}' in 'ORDER BY'"),
                            ));
                        }
                        Compiled {
                            expr: eval::Expr::Column(usize::MAX - (i - 1)),
                            ty: ExprType {
                                ty: outputs[i - 1].ty.clone(),
                                nullable: true,
                                decimals: None,
                            },
                        }
                    }
                    _ => eval::compile(&o.expr, resolve, &opts)?,
                },
                e => eval::compile(e, resolve, &opts)?,
            };
            let collation = expr.ty.ty.collation().unwrap_or(Collation::Binary);
            Ok(SortKey {
                expr,
                desc,
                collation,
            })
        })
        .collect()
}

/// Sorts rows by keys evaluated on `view(row)`; positional keys
/// (`usize::MAX - i`) read output column `i` of the row's last `tail`
/// columns (the output columns appended to the input row).
pub(super) fn sort_rows<T>(
    s: &Session,
    items: &mut Vec<T>,
    keys: &[SortKey],
    tail: usize,
    view: impl Fn(&T) -> &Vec<Value>,
) -> Result<(), SqlError> {
    // Keys that are columns of the row (the common `ORDER BY c`) are
    // compared where they lie: no key is copied per row.
    let in_row: Option<Vec<(usize, bool, &SortKey)>> = keys
        .iter()
        .map(|k| match k.expr.expr {
            eval::Expr::Column(c) if c > usize::MAX / 2 => Some((usize::MAX - c, true, k)),
            eval::Expr::Column(c) => Some((c, false, k)),
            _ => None,
        })
        .collect();
    if let Some(in_row) = in_row {
        let mut cmp_ctx = s.eval_context(&[]);
        let at = |row: &Vec<Value>, (i, from_tail, _): &(usize, bool, &SortKey)| -> usize {
            if *from_tail {
                row.len().saturating_sub(tail) + i
            } else {
                *i
            }
        };
        items.sort_by(|a, b| {
            let (a, b) = (view(a), view(b));
            for key in &in_row {
                let x = a.get(at(a, key)).unwrap_or(&Value::Null);
                let y = b.get(at(b, key)).unwrap_or(&Value::Null);
                let o = compare_key(x, y, key.2, &mut cmp_ctx);
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
        return Ok(());
    }
    let mut ctx = s.eval_context(&[]);
    let mut keyed: Vec<(Vec<Value>, T)> = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        let row = view(&item);
        let mut ks = Vec::with_capacity(keys.len());
        for k in keys {
            ks.push(match k.expr.expr {
                eval::Expr::Column(c) if c > usize::MAX / 2 => {
                    let i = usize::MAX - c;
                    row.get(row.len().saturating_sub(tail) + i)
                        .cloned()
                        .unwrap_or(Value::Null)
                }
                _ => k.expr.eval(row, &mut ctx)?,
            });
        }
        keyed.push((ks, item));
    }
    let mut cmp_ctx = s.eval_context(&[]);
    keyed.sort_by(|a, b| {
        for (i, k) in keys.iter().enumerate() {
            let o = compare_key(&a.0[i], &b.0[i], k, &mut cmp_ctx);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    items.extend(keyed.into_iter().map(|(_, t)| t));
    Ok(())
}

/// The values of `keys` for `row`, whose last `tail` values are the
/// output columns positional keys read.
pub(super) fn sort_key_values(
    row: &[Value],
    keys: &[SortKey],
    tail: usize,
    ctx: &mut eval::EvalContext<'_>,
) -> Result<Vec<Value>, SqlError> {
    keys.iter()
        .map(|k| match k.expr.expr {
            eval::Expr::Column(c) if c > usize::MAX / 2 => Ok(row
                .get(row.len().saturating_sub(tail) + (usize::MAX - c))
                .cloned()
                .unwrap_or(Value::Null)),
            eval::Expr::Column(c) => Ok(row.get(c).cloned().unwrap_or(Value::Null)),
            _ => k.expr.eval(row, ctx),
        })
        .collect()
}

/// The order of two rows' key values ([`sort_key_values`]).
pub(super) fn compare_keys(
    a: &[Value],
    b: &[Value],
    keys: &[SortKey],
    ctx: &mut eval::EvalContext<'_>,
) -> Ordering {
    for ((x, y), k) in a.iter().zip(b).zip(keys) {
        let o = compare_key(x, y, k, ctx);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The order of two values of sort key `k` (NULL first, then `k`'s
/// collation and direction).
fn compare_key(x: &Value, y: &Value, k: &SortKey, ctx: &mut eval::EvalContext<'_>) -> Ordering {
    let o = match (x.is_null(), y.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // Integers of an integer key (the common ORDER BY id, COUNT(*)).
        _ if matches!(k.expr.ty.ty, ColumnType::Int { .. }) => match int_pair(x, y) {
            Some((a, b)) => a.cmp(&b),
            None => eval::compare(x, y, k.collation, ctx).unwrap_or(Ordering::Equal),
        },
        _ => match (
            eval::member_number_of(x, &k.expr.ty.ty),
            eval::member_number_of(y, &k.expr.ty.ty),
        ) {
            // ENUM and SET values sort by their member number.
            (Some(a), Some(b)) => a.cmp(&b),
            // UUIDs in MariaDB's UUID order.
            _ => match (
                eval::uuid_order_of(x, &k.expr.ty.ty),
                eval::uuid_order_of(y, &k.expr.ty.ty),
            ) {
                (Some(a), Some(b)) => a.cmp(&b),
                _ => eval::compare(x, y, k.collation, ctx).unwrap_or(Ordering::Equal),
            },
        },
    };
    if k.desc {
        o.reverse()
    } else {
        o
    }
}

/// Two integers as one type, when both values are integers.
fn int_pair(x: &Value, y: &Value) -> Option<(i128, i128)> {
    let int = |v: &Value| match *v {
        Value::Int(i) => Some(i128::from(i)),
        Value::UInt(u) => Some(i128::from(u)),
        _ => None,
    };
    Some((int(x)?, int(y)?))
}
