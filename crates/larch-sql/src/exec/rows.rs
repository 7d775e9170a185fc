//! Reading rows of one table: choosing the index and key range from the
//! WHERE conditions, and fetching rows as full-width value vectors.
//!
//! Access paths ([`Access`]): a point or range on the primary key, a point or
//! range on a leading prefix of a secondary index, or a full clustered scan.
//! The choice looks at the AND-ed conditions of the form `column op constant`
//! (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN (...)`) whose constant converts
//! exactly to the column's type (no truncation or range warning); anything
//! else is left to the filter. The chosen range is always a superset of the
//! matching rows: callers apply the whole WHERE to every fetched row.
//!
//! Rows are full width (one value per table column, in column order);
//! columns the statement does not need are NULL, which lets a secondary index
//! answer alone when it covers the needed columns. ENUM and SET values come
//! back as their member text (`Value::Str`), which is what expressions compare.

use std::ops::Bound;
use std::sync::Arc;

use larch_engine::lock::{LockMode, WaitPolicy};
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{KeyRange, ReadContext, RowRef, Table, TxnContext, CLUSTERED};

use crate::session::Session;
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::{self, EvalContext};
use crate::value::store::{store, StoreTarget};

/// SQL truth of a WHERE/HAVING result (NULL is false).
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Double(d) => *d != 0.0,
        Value::Float(f) => *f != 0.0,
        Value::Decimal(d) => !d.is_zero(),
        Value::Str(s) => {
            crate::value::number::prefix_to_f64(&crate::value::number::parse_number_prefix(s))
                != 0.0
        }
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            crate::value::number::prefix_to_f64(&crate::value::number::parse_number_prefix(&s))
                != 0.0
        }
        _ => true,
    }
}

/// How rows of a table are found.
#[derive(Debug, Clone)]
pub(crate) enum Access {
    /// Every row, in primary-key order.
    Scan,
    /// One or more ranges of an index (`index` as the engine numbers them:
    /// 0 clustered, 1 + n for secondary n).
    Ranges { index: usize, ranges: Vec<KeyRange> },
}

/// The AND-ed parts of a condition.
pub(crate) fn conjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        ast::Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

/// What a condition says about one column.
#[derive(Debug, Clone)]
enum ColumnBound {
    Eq(Vec<Value>),
    Range {
        lower: Bound<Value>,
        upper: Bound<Value>,
    },
}

/// Finds `column` of the table a column reference names, if it is one.
type ColumnOf<'a> = dyn Fn(&ast::Expr) -> Option<usize> + 'a;

/// Evaluates a constant expression (no column references) and converts it
/// exactly to `ty`; `None` when it is not constant or does not convert exactly.
fn constant(e: &ast::Expr, ty: &ColumnType, ctx: &mut EvalContext<'_>) -> Option<Value> {
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

/// Chooses how to read `table` given the WHERE conjuncts. `column_of` maps a
/// column reference to this table's column number.
pub(crate) fn choose_access(
    table: &Table,
    conds: &[&ast::Expr],
    column_of: &ColumnOf<'_>,
    ctx: &mut EvalContext<'_>,
) -> Access {
    let def = table.def();
    let types: Vec<ColumnType> = def.columns.iter().map(|c| c.ty.clone()).collect();
    let mut eq: Vec<Option<Vec<Value>>> = vec![None; types.len()];
    let mut range: Vec<Option<(Bound<Value>, Bound<Value>)>> = vec![None; types.len()];
    for c in conds {
        match bound_of(c, column_of, &types, ctx) {
            Some((col, ColumnBound::Eq(v)))
                if eq[col].as_ref().is_none_or(|old| old.len() > v.len()) =>
            {
                eq[col] = Some(v);
            }
            Some((_, ColumnBound::Eq(_))) => {}
            Some((col, ColumnBound::Range { lower, upper })) => {
                let r = range[col].get_or_insert((Bound::Unbounded, Bound::Unbounded));
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
    // Candidate indexes: the primary key (engine index 0) and the secondaries.
    let mut candidates: Vec<(usize, &larch_engine::table::IndexDef, bool)> = Vec::new();
    if let Some(pk) = &def.primary_key {
        candidates.push((CLUSTERED, pk, true));
    }
    for (i, s) in def.secondary.iter().enumerate() {
        candidates.push((i + 1, s, s.unique));
    }
    let mut best: Option<(u32, Access)> = None;
    for (index, idx, unique) in candidates {
        let mut prefixes: Vec<Vec<Value>> = vec![Vec::new()];
        let mut used = 0usize;
        let mut tail: Option<(Bound<Value>, Bound<Value>)> = None;
        for part in &idx.columns {
            if part.prefix_len.is_some() || part.descending {
                break;
            }
            if let Some(vals) = &eq[part.column] {
                if prefixes.len() * vals.len() > 1000 {
                    break;
                }
                prefixes = prefixes
                    .iter()
                    .flat_map(|p| {
                        vals.iter().map(move |v| {
                            let mut q = p.clone();
                            q.push(v.clone());
                            q
                        })
                    })
                    .collect();
                used += 1;
            } else {
                tail = range[part.column].clone();
                break;
            }
        }
        if used == 0 && tail.is_none() {
            continue;
        }
        let full_unique = used == idx.columns.len() && (unique || index == CLUSTERED);
        // Lower is better: unique points, then clustered over secondary,
        // then more equality columns.
        let score = if full_unique {
            if index == CLUSTERED {
                0
            } else {
                1
            }
        } else {
            100 - (used as u32 * 10).min(90)
                + u32::from(tail.is_none()) * 5
                + u32::from(index != CLUSTERED)
        };
        let ranges = prefixes
            .into_iter()
            .map(|p| match &tail {
                Some((lo, hi)) => {
                    let with = |b: &Bound<Value>| match b {
                        Bound::Unbounded => {
                            if p.is_empty() {
                                Bound::Unbounded
                            } else {
                                Bound::Included(p.clone())
                            }
                        }
                        Bound::Included(v) => {
                            let mut q = p.clone();
                            q.push(v.clone());
                            Bound::Included(q)
                        }
                        Bound::Excluded(v) => {
                            let mut q = p.clone();
                            q.push(v.clone());
                            Bound::Excluded(q)
                        }
                    };
                    KeyRange {
                        lower: with(lo),
                        upper: with(hi),
                    }
                }
                None => KeyRange::eq(p),
            })
            .collect();
        if best.as_ref().is_none_or(|(s, _)| score < *s) {
            best = Some((score, Access::Ranges { index, ranges }));
        }
    }
    best.map_or(Access::Scan, |(_, a)| a)
}

/// How a statement reads rows: the versions it sees, and the row locks it
/// takes as it reads (locking reads and the current read of UPDATE/DELETE).
pub(crate) struct RowReading<'a> {
    pub read: ReadContext,
    pub lock: Option<(&'a TxnContext, LockMode, Option<WaitPolicy>)>,
}

impl Session {
    /// How the current statement reads rows.
    pub(crate) fn row_reading(&self) -> RowReading<'_> {
        let lock = match (self.locking, self.txn.as_ref()) {
            (Some((mode, policy)), Some(t)) => Some((&t.ctx, mode, policy)),
            _ => None,
        };
        RowReading {
            read: self.read,
            lock,
        }
    }
}

/// Reads the rows of `table` that `access` selects, calling `each` with the
/// row's address and full-width values; `each` returns false to stop.
/// `needed` lists the columns the statement uses (`None`: all).
/// `reading` says which versions are read and whether rows are locked as
/// they are read (locking reads re-read the newest version once locked).
#[allow(clippy::too_many_arguments)]
pub(crate) fn for_each_row(
    table: &Arc<Table>,
    access: &Access,
    reverse: bool,
    needed: Option<&[usize]>,
    kill: &std::sync::atomic::AtomicBool,
    reading: &RowReading<'_>,
    each: &mut dyn FnMut(RowRef, Vec<Value>) -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    if matches!(access, Access::Scan) {
        // A full scan may run long: let the server move other connections'
        // work off this thread first.
        return larch_engine::io::blocking::blocking(|| {
            read_rows(table, access, reverse, needed, kill, reading, each)
        });
    }
    read_rows(table, access, reverse, needed, kill, reading, each)
}

#[allow(clippy::too_many_arguments)]
fn read_rows(
    table: &Arc<Table>,
    access: &Access,
    reverse: bool,
    needed: Option<&[usize]>,
    kill: &std::sync::atomic::AtomicBool,
    reading: &RowReading<'_>,
    each: &mut dyn FnMut(RowRef, Vec<Value>) -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    let ncols = table.def().columns.len();
    let enum_cols: Vec<(usize, &ColumnType)> = table
        .def()
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.ty, ColumnType::Enum { .. } | ColumnType::Set { .. }))
        .map(|(i, c)| (i, &c.ty))
        .collect();
    let all = KeyRange::all();
    let (index, ranges): (usize, Vec<&KeyRange>) = match access {
        Access::Scan => (CLUSTERED, vec![&all]),
        Access::Ranges { index, ranges } => (*index, ranges.iter().collect()),
    };
    let ranges: Vec<&KeyRange> = if reverse {
        ranges.into_iter().rev().collect()
    } else {
        ranges
    };
    // Several ranges may reach the same row (`IN ('a', 'A')` under a
    // case-insensitive collation): each row is passed once.
    let mut seen = (ranges.len() > 1).then(std::collections::HashSet::<Vec<u8>>::new);
    for range in ranges {
        let mut cursor = match reading.lock {
            Some((ctx, mode, policy)) => {
                table.scan_locking(ctx, index, range, reverse, needed, mode, policy)?
            }
            None => table.scan(&reading.read, index, range, reverse, needed)?,
        };
        loop {
            if kill.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(SqlError::new(1317, "Query execution was interrupted"));
            }
            let Some((at, vals)) = cursor.next_row()? else {
                break;
            };
            if let Some(seen) = seen.as_mut() {
                if !seen.insert(at.0.clone()) {
                    continue;
                }
            }
            let mut row = match needed {
                None => vals,
                Some(cols) => {
                    let mut r = vec![Value::Null; ncols];
                    for (&c, v) in cols.iter().zip(vals) {
                        r[c] = v;
                    }
                    r
                }
            };
            for (i, ty) in &enum_cols {
                if !matches!(row[*i], Value::Null) {
                    if let Some(text) = crate::value::to_text(&row[*i], ty) {
                        row[*i] = Value::Str(String::from_utf8_lossy(&text).into_owned());
                    }
                }
            }
            if !each(at, row)? {
                return Ok(());
            }
        }
    }
    Ok(())
}
