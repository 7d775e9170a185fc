//! Reading rows of one table through an access path chosen by
//! [`access`](super::access), as full-width value vectors.
//!
//! Rows are full width (one value per table column, in column order);
//! columns the statement does not need are NULL, which lets a secondary index
//! answer alone when it covers the needed columns. ENUM and SET values come
//! back as their member text (`Value::Str`), which is what expressions compare.

use std::sync::Arc;

use larch_engine::lock::{LockMode, WaitPolicy};
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{KeyRange, ReadContext, RowRef, Table, TxnContext, CLUSTERED};

pub(crate) use super::access::Access;

use crate::session::Session;
use sqlparser::ast;

use crate::error::SqlError;

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
