//! Column references in INSERT's VALUES and SET: `INSERT ... SET a = 1,
//! b = a + 1` and `VALUES (1, a + 1)` read the row being built, as
//! MariaDB does: a column already given a value in the row has that value
//! (converted to the column's type), any other column its DEFAULT (NULL,
//! or the type's implicit default for a NOT NULL column without one).
//!
//! References resolve to the target table's columns (`c`, `t.c`,
//! `db.t.c`). The row is built only for rows whose expressions name a
//! column; the values stored are converted again, with their warnings and
//! errors, when the row is inserted.

use std::cell::Cell;

use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::{col_type, convert, default_value, implicit_default, Target, Writer};
use crate::eval::ExprType;
use crate::session::Session;

/// The target's columns as names for VALUES/SET expressions, and whether
/// the row being compiled named one.
pub(super) struct RowSoFar<'t> {
    t: &'t Target,
    named: Cell<bool>,
}

impl<'t> RowSoFar<'t> {
    pub(super) fn new(t: &'t Target) -> RowSoFar<'t> {
        RowSoFar {
            t,
            named: Cell::new(false),
        }
    }

    /// Resolves a column reference to the target's column (its position
    /// in the row being built).
    pub(super) fn resolve(&self, parts: &[ast::Ident]) -> Option<(usize, ExprType)> {
        let (db, table, col) = match parts {
            [c] => (None, None, c),
            [t, c] => (None, Some(t), c),
            [d, t, c] => (Some(d), Some(t), c),
            _ => return None,
        };
        if table.is_some_and(|t| t.value != self.t.name) || db.is_some_and(|d| d.value != self.t.db)
        {
            return None;
        }
        let def = self.t.table.def();
        let i = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&col.value))?;
        self.named.set(true);
        Some((i, col_type(def, i)))
    }

    /// The row of defaults a row's values are evaluated over, when the
    /// expressions just compiled named a column (then forgotten for the
    /// next row); `None` otherwise.
    pub(super) fn start(&self, s: &Session, t: &Target) -> Option<Vec<Value>> {
        if !self.named.replace(false) {
            return None;
        }
        let def = t.table.def();
        let mut scratch = scratch();
        Some(
            (0..def.columns.len())
                .map(|c| {
                    let has_default = t.meta.columns.get(c).is_some_and(|m| m.default.is_some());
                    let col = &def.columns[c];
                    if has_default {
                        default_value(s, t, c, 1, &mut scratch).unwrap_or(Value::Null)
                    } else if col.nullable || def.auto_increment == Some(c) {
                        Value::Null
                    } else {
                        implicit_default(&col.ty)
                    }
                })
                .zip(&def.columns)
                .map(|(v, col)| readable(&col.ty, v))
                .collect(),
        )
    }

    /// Column `c` of `row` takes value `v` (converted to its type when it
    /// converts cleanly, else as given).
    pub(super) fn set(
        &self,
        s: &Session,
        t: &Target,
        row: &mut [Value],
        c: usize,
        v: &Value,
        row_no: u64,
    ) {
        let ty = &t.table.def().columns[c].ty;
        let stored = convert(s, t, c, v, row_no, &mut scratch()).unwrap_or_else(|_| v.clone());
        if let Some(slot) = row.get_mut(c) {
            *slot = readable(ty, stored);
        }
    }
}

/// A writer whose warnings are dropped (the row is converted again).
fn scratch() -> Writer {
    Writer {
        warnings: Vec::new(),
        ignore: true,
        nulls_warn: true,
        auto_increment: Default::default(),
        where_warns_only: false,
        first_id: 0,
        returning: None,
    }
}

/// ENUM and SET values as expressions read them (their text, as rows
/// read from the table give them).
fn readable(ty: &ColumnType, v: Value) -> Value {
    match (ty, v) {
        (ColumnType::Enum { values, .. }, Value::Enum(n)) => {
            let i = usize::from(n);
            Value::Str(if i == 0 {
                String::new()
            } else {
                values.get(i - 1).cloned().unwrap_or_default()
            })
        }
        (ColumnType::Set { values, .. }, Value::Set(bits)) => Value::Str(
            values
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < 64 && bits & (1u64 << i) != 0)
                .map(|(_, m)| m.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ),
        (_, v) => v,
    }
}
