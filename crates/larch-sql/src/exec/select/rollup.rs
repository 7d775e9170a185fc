//! `GROUP BY ... WITH ROLLUP`: after the groups, super-aggregate rows, as
//! MariaDB 10.11 returns them.
//!
//! For GROUP BY columns c1..cn, the rows of each prefix c1..ck (k from n-1
//! down to 0) are aggregated again: [`Rollup::add`] feeds every row's
//! aggregate arguments to one accumulator set per distinct prefix (so
//! COUNT(DISTINCT), GROUP_CONCAT and the rest come out right, not merged
//! from the groups' results). [`Rollup::interleave`] then walks the groups
//! in GROUP BY order and, after the last group of each prefix, emits its
//! super-aggregate row: the columns ck+1..cn NULL, the other columns as in
//! the last group of the prefix, the prefix's aggregate values. MariaDB
//! allows ROLLUP only with plain columns here (Larch refuses expressions
//! with 1235) and without ORDER BY (1221).

use std::collections::HashMap;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::aggregate::{column_key_into, Accumulator, AggKind, CompiledAgg};
use crate::error::SqlError;
use crate::eval::EvalContext;

/// The super-aggregate accumulators of a ROLLUP.
pub(super) struct Rollup {
    /// The row positions of the GROUP BY columns.
    columns: Vec<usize>,
    /// Their collations (prefix keys compare as GROUP BY does).
    colls: Vec<Collation>,
    /// Per prefix length k (0..n): prefix key to accumulators.
    levels: Vec<HashMap<Vec<u8>, Vec<Accumulator>>>,
}

impl Rollup {
    /// A ROLLUP over the GROUP BY columns at `columns`.
    pub(super) fn new(columns: Vec<usize>, colls: Vec<Collation>) -> Rollup {
        let levels = (0..columns.len()).map(|_| HashMap::new()).collect();
        Rollup {
            columns,
            colls,
            levels,
        }
    }

    fn prefix_key(&self, row: &[Value], k: usize) -> Vec<u8> {
        let values: Vec<Value> = self.columns[..k]
            .iter()
            .map(|&c| row.get(c).cloned().unwrap_or(Value::Null))
            .collect();
        let mut key = Vec::new();
        column_key_into(&values, &self.colls[..k], &mut key);
        key
    }

    /// Adds one row: `args[i]` are the arguments of aggregate `i`.
    pub(super) fn add(
        &mut self,
        row: &[Value],
        aggs: &[CompiledAgg],
        args: &[Vec<Value>],
        ctx: &mut EvalContext<'_>,
    ) -> Result<(), SqlError> {
        for k in 0..self.levels.len() {
            let key = self.prefix_key(row, k);
            let accs = self.levels[k]
                .entry(key)
                .or_insert_with(|| aggs.iter().map(|a| Accumulator::new(&a.call)).collect());
            for ((a, acc), vals) in aggs.iter().zip(accs.iter_mut()).zip(args) {
                acc.add(&a.call, vals, a.collation, ctx)?;
            }
        }
        Ok(())
    }

    /// The output rows with the super-aggregate rows in place. `groups`
    /// are the groups in GROUP BY order, each its first row (`width`
    /// values) and then its aggregate values.
    pub(super) fn interleave(
        mut self,
        groups: Vec<Vec<Value>>,
        width: usize,
        aggs: &[CompiledAgg],
        max_len: usize,
        written: &mut [u64],
        ctx: &mut EvalContext<'_>,
    ) -> Vec<Vec<Value>> {
        let n = self.levels.len();
        let keys: Vec<Vec<Vec<u8>>> = groups
            .iter()
            .map(|g| (0..n).map(|k| self.prefix_key(g, k)).collect())
            .collect();
        let mut out = Vec::with_capacity(groups.len() * 2);
        for (i, group) in groups.iter().enumerate() {
            out.push(group.clone());
            // After the last group of a prefix: its super-aggregate row,
            // the longest prefix first.
            for k in (0..n).rev() {
                let last = keys.get(i + 1).is_none_or(|next| next[k] != keys[i][k]);
                if !last {
                    continue;
                }
                let mut row: Vec<Value> = group[..width.min(group.len())].to_vec();
                for &c in &self.columns[k..] {
                    if let Some(v) = row.get_mut(c) {
                        *v = Value::Null;
                    }
                }
                let accs = self.levels[k].remove(&keys[i][k]).unwrap_or_default();
                for ((a, mut acc), w) in aggs.iter().zip(accs).zip(written.iter_mut()) {
                    row.push(if a.call.kind == AggKind::GroupConcat {
                        acc.concat(&a.call, a.collation, max_len, w, ctx)
                    } else {
                        acc.finish(&a.call, &a.ty)
                    });
                }
                out.push(row);
            }
        }
        out
    }
}
