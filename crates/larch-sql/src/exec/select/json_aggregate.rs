//! JSON_ARRAYAGG([DISTINCT] v [ORDER BY ...] [LIMIT n]) and
//! JSON_OBJECTAGG(k, v) as MariaDB 10.11 computes and prints them.
//!
//! The call's arguments are its value arguments (one for JSON_ARRAYAGG,
//! two for JSON_OBJECTAGG) followed by its ORDER BY expressions
//! (`AggCall::order` holds their directions). A group keeps its rows' argument
//! values in output order: with ORDER BY (NULLs first ascending, last
//! descending), or with DISTINCT alone by the value ascending (MariaDB's
//! DISTINCT walks a sorted tree), else in arrival order; LIMIT keeps the
//! first n. NULL values are kept (as `null`); JSON_OBJECTAGG skips rows
//! whose key is NULL. A value from a JSON function is embedded as JSON.
//! Printed forms: `[1,"a",null]` and `{"k":1, "l":"x"}`; no row gives NULL.

use std::cmp::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::aggregate::{group_key, AggCall, AggKind};
use crate::error::SqlError;
use crate::eval::{self, EvalContext};

/// How many of the call's arguments are values (the rest are ORDER BY
/// keys).
pub(super) fn value_args(kind: AggKind) -> usize {
    if kind == AggKind::JsonObjectAgg {
        2
    } else {
        1
    }
}

/// A group's rows so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct JsonItems {
    items: Vec<Vec<Value>>,
    seen: std::collections::HashSet<Vec<u8>>,
    rows: u64,
}

impl JsonItems {
    /// Adds one row's argument values.
    pub(super) fn add(
        &mut self,
        call: &AggCall,
        args: &[Value],
        coll: Collation,
        ctx: &mut EvalContext<'_>,
    ) -> Result<(), SqlError> {
        let n = value_args(call.kind);
        if call.kind == AggKind::JsonObjectAgg && args.first().is_none_or(Value::is_null) {
            return Ok(());
        }
        if call.distinct
            && !self
                .seen
                .insert(group_key(&args[..n.min(args.len())], coll))
        {
            return Ok(());
        }
        self.rows += 1;
        let sorted = !call.order.is_empty() || call.distinct;
        if !sorted {
            if call.limit.is_none_or(|l| (self.items.len() as u64) < l) {
                self.items.push(args.to_vec());
            }
            return Ok(());
        }
        // Keys: the ORDER BY values, or the value itself (DISTINCT).
        let keys = |r: &[Value]| -> Vec<Value> {
            if call.order.is_empty() {
                r[..1].to_vec()
            } else {
                r[n.min(r.len())..].to_vec()
            }
        };
        let new_keys = keys(args);
        let at = self.items.partition_point(|r| {
            compare_keys(&keys(r), &new_keys, call, coll, ctx) != Ordering::Greater
        });
        self.items.insert(at, args.to_vec());
        if let Some(l) = call.limit {
            self.items
                .truncate(usize::try_from(l).unwrap_or(usize::MAX));
        }
        Ok(())
    }

    /// The aggregate's value for the group.
    pub(super) fn finish(&self, call: &AggCall) -> Value {
        if self.rows == 0 {
            return Value::Null;
        }
        let text = if call.kind == AggKind::JsonObjectAgg {
            let members: Vec<String> = self
                .items
                .iter()
                .map(|r| {
                    let key = crate::value::store::value_to_string(&r[0]);
                    let value = r.get(1).unwrap_or(&Value::Null);
                    format!(
                        "{}:{}",
                        eval::key_json_text(&key),
                        eval::value_json_text(value, call.json_value)
                    )
                })
                .collect();
            format!("{{{}}}", members.join(", "))
        } else {
            let items: Vec<String> = self
                .items
                .iter()
                .map(|r| eval::value_json_text(&r[0], call.json_value))
                .collect();
            format!("[{}]", items.join(","))
        };
        Value::Str(text)
    }
}

/// Orders two rows' keys: NULL before anything ascending, after it
/// descending, each key in its own collation (the call's `order` and
/// `order_collations`; without them ascending in `coll`).
pub(super) fn compare_keys(
    a: &[Value],
    b: &[Value],
    call: &AggCall,
    coll: Collation,
    ctx: &mut EvalContext<'_>,
) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => {
                let coll = call.order_collations.get(i).copied().unwrap_or(coll);
                eval::compare(x, y, coll, ctx).unwrap_or(Ordering::Equal)
            }
        };
        let o = if call.order.get(i).copied().unwrap_or(false) {
            o.reverse()
        } else {
            o
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}
