//! Reading rows of one table through an access path chosen by
//! [`access`](super::access), as full-width value vectors.
//!
//! Rows are full width (one value per table column, in column order);
//! columns the statement does not need are NULL, which lets a secondary index
//! answer alone when it covers the needed columns. One row buffer serves a
//! whole read: the engine decodes each row's needed columns into it and the
//! consumer borrows it (and may move values out), so nothing is copied or
//! allocated per row beyond the decoded values. ENUM and SET values come
//! back as their member text (`Value::Str`), which is what expressions compare.

use std::sync::Arc;

use larch_engine::lock::{LockMode, WaitPolicy};
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{KeyRange, ReadContext, Table, TxnContext, CLUSTERED};

pub(crate) use super::access::Access;

use crate::session::Session;
use sqlparser::ast;

use crate::error::SqlError;

/// SQL truth of a WHERE/HAVING result (NULL is false).
pub(crate) fn truthy(v: &Value) -> bool {
    crate::value::number::is_true(v)
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

/// What [`for_each_row`] hands each row to: the row's address (its
/// clustered key bytes, valid during the call) and its values, full width
/// (one per table column, unread columns NULL). The values are lent: the
/// callee may move them out (leaving anything in their place), since every
/// column read is overwritten for the next row. Returns false to stop.
pub(crate) type EachRow<'a> = dyn FnMut(&[u8], &mut [Value]) -> Result<bool, SqlError> + 'a;

/// Reads the rows of `table` that `access` selects, calling `each` with each
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
    each: &mut EachRow<'_>,
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

/// The ENUM, SET and UUID columns of `table` among `needed` (`None`: all),
/// whose values are turned into their text as rows are read.
fn enum_columns<'t>(table: &'t Table, needed: Option<&[usize]>) -> Vec<(usize, &'t ColumnType)> {
    table
        .def()
        .columns
        .iter()
        .enumerate()
        .filter(|(i, c)| crate::value::read_as_text(&c.ty) && needed.is_none_or(|n| n.contains(i)))
        .map(|(i, c)| (i, &c.ty))
        .collect()
}

/// Reads the rows at `addresses` (clustered keys), in that order, as
/// [`for_each_row`] reads the rows of an access path; rows `reading` does
/// not see are skipped.
pub(crate) fn for_each_row_at(
    table: &Arc<Table>,
    addresses: &[Vec<u8>],
    needed: Option<&[usize]>,
    kill: &std::sync::atomic::AtomicBool,
    reading: &RowReading<'_>,
    each: &mut EachRow<'_>,
) -> Result<(), SqlError> {
    let enum_cols = enum_columns(table, needed);
    for at in addresses {
        check_killed(kill)?;
        let at = larch_engine::table::RowRef(at.clone());
        let Some(mut row) = table.get(&reading.read, &at)? else {
            continue;
        };
        for (i, ty) in &enum_cols {
            if !matches!(row[*i], Value::Null) {
                if let Some(text) = crate::value::to_text(&row[*i], ty) {
                    row[*i] = Value::Str(String::from_utf8_lossy(&text).into_owned());
                }
            }
        }
        if !each(&at.0, &mut row)? {
            return Ok(());
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn read_rows(
    table: &Arc<Table>,
    access: &Access,
    reverse: bool,
    needed: Option<&[usize]>,
    kill: &std::sync::atomic::AtomicBool,
    reading: &RowReading<'_>,
    each: &mut EachRow<'_>,
) -> Result<(), SqlError> {
    let ncols = table.def().columns.len();
    let enum_cols = enum_columns(table, needed);
    let all = KeyRange::all();
    let (index, ranges): (usize, &[KeyRange]) = match access {
        Access::Scan => (CLUSTERED, std::slice::from_ref(&all)),
        Access::Ranges { index, ranges } => (*index, ranges),
    };
    // Several ranges may reach the same row (`IN ('a', 'A')` under a
    // case-insensitive collation): each row is passed once.
    let mut seen = (ranges.len() > 1).then(std::collections::HashSet::<Vec<u8>>::new);
    // One row buffer for the whole read: the engine overwrites the columns
    // it reads, the others stay NULL.
    let mut row = vec![Value::Null; ncols];
    for i in 0..ranges.len() {
        // Backwards, the last range first.
        let range = &ranges[if reverse { ranges.len() - 1 - i } else { i }];
        let mut cursor = match reading.lock {
            Some((ctx, mode, policy)) => {
                table.scan_locking(ctx, index, range, reverse, needed, mode, policy)?
            }
            None => table.scan(&reading.read, index, range, reverse, needed)?,
        };
        loop {
            check_killed(kill)?;
            let Some(at) = cursor.next_into(&mut row)? else {
                break;
            };
            if let Some(seen) = seen.as_mut() {
                if !seen.insert(at.to_vec()) {
                    continue;
                }
            }
            for (i, ty) in &enum_cols {
                if !matches!(row[*i], Value::Null) {
                    if let Some(text) = crate::value::to_text(&row[*i], ty) {
                        row[*i] = Value::Str(String::from_utf8_lossy(&text).into_owned());
                    }
                }
            }
            if !each(at, &mut row)? {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// 1317 once `kill` is set (KILL QUERY, a statement time limit): checked
/// per row by every loop whose length the data decides.
pub(crate) fn check_killed(kill: &std::sync::atomic::AtomicBool) -> Result<(), SqlError> {
    if kill.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(SqlError::new(1317, "Query execution was interrupted"));
    }
    Ok(())
}
