//! SELECT DISTINCT ... ORDER BY, when the ORDER BY keys are columns of the
//! select list (`SELECT DISTINCT a, b FROM t ORDER BY b`, by name, alias
//! or position) and the rows are not read in that order: duplicates are
//! dropped as rows come ([`SpillingDistinct`], bounded by the temporary
//! table size), and only the distinct rows are sorted (in runs on disk
//! past `sort_buffer_size`, as `sort_runs` does), where before every row
//! read was held until the end.
//!
//! The answer is the one of sorting all rows and then keeping the first of
//! equal rows: equal rows have equal keys, a stable sort keeps them in the
//! order read, so the first of them in sorted order is the first read,
//! which is the one the early DISTINCT keeps. Keys that are expressions
//! over the select list, or columns outside it, keep the old way.

use larch_engine::record::value::Value;

use super::block::Output;
use super::distinct::{Offered, SpillingDistinct};
use super::groups::SpillPolicy;
use super::order::{sort_key_values, sort_rows, SortKey};
use super::sort_runs::{sort_run, SortRuns, SortedRow};
use crate::error::SqlError;
use crate::eval::{self, Compiled};
use crate::exec::spill_file::value_bytes;
use crate::session::Session;

/// See the module documentation.
pub(super) struct DistinctSort {
    /// `None` once finished.
    distinct: Option<SpillingDistinct>,
    /// The ORDER BY keys, each naming an output column (`usize::MAX - i`).
    keys: Vec<SortKey>,
    n_out: usize,
    /// Distinct rows (output values) not yet in a run.
    held: Vec<Vec<Value>>,
    held_bytes: usize,
    runs: SortRuns,
}

impl DistinctSort {
    /// The early DISTINCT and sort of a block whose ORDER BY keys
    /// (`order`) all name output columns; `None` otherwise. `width` is the
    /// block's input row width.
    pub(super) fn plan(
        s: &Session,
        order: &[SortKey],
        outputs: &[Output],
        colls: Vec<larch_engine::record::collation::Collation>,
        width: usize,
    ) -> Option<DistinctSort> {
        let keys = order
            .iter()
            .map(|k| {
                let i = match k.expr.expr {
                    eval::Expr::Column(c) if c > usize::MAX / 2 => usize::MAX - c,
                    eval::Expr::Column(c) if c < width => outputs
                        .iter()
                        .position(|o| matches!(o.expr.expr, eval::Expr::Column(x) if x == c))?,
                    _ => return None,
                };
                (i < outputs.len()).then(|| SortKey {
                    expr: Compiled {
                        expr: eval::Expr::Column(usize::MAX - i),
                        ty: k.expr.ty.clone(),
                    },
                    desc: k.desc,
                    collation: k.collation,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(DistinctSort {
            distinct: Some(SpillingDistinct::new(colls, SpillPolicy::of(s))),
            runs: SortRuns::new(s, keys.len()),
            keys,
            n_out: outputs.len(),
            held: Vec::new(),
            held_bytes: 0,
        })
    }

    /// Offers a projected row (its output values).
    pub(super) fn add(
        &mut self,
        out: Vec<Value>,
        ctx: &mut eval::EvalContext<'_>,
    ) -> Result<(), SqlError> {
        let first = match self.distinct.as_mut() {
            Some(d) => d.offer(&out)? == Offered::First,
            None => true,
        };
        if first {
            self.hold(out, ctx)?;
        }
        Ok(())
    }

    fn hold(&mut self, out: Vec<Value>, ctx: &mut eval::EvalContext<'_>) -> Result<(), SqlError> {
        self.held_bytes +=
            std::mem::size_of::<Vec<Value>>() + out.iter().map(value_bytes).sum::<usize>();
        self.held.push(out);
        if self.held_bytes > self.runs.limit() {
            self.held_bytes = 0;
            let run = self.run(ctx)?;
            self.runs.write_run(run)?;
        }
        Ok(())
    }

    /// The held rows as one sorted run.
    fn run(&mut self, ctx: &mut eval::EvalContext<'_>) -> Result<Vec<SortedRow>, SqlError> {
        let mut run = Vec::with_capacity(self.held.len());
        for row in self.held.drain(..) {
            run.push((sort_key_values(&row, &self.keys, self.n_out, ctx)?, row));
        }
        sort_run(&mut run, &self.keys, ctx);
        Ok(run)
    }

    /// The distinct rows in order, each to `out` until it returns false.
    pub(super) fn finish(
        mut self,
        s: &Session,
        ctx: &mut eval::EvalContext<'_>,
        out: &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError> {
        // The rows a spilled DISTINCT deferred, in the order read.
        if let Some(distinct) = self.distinct.take() {
            distinct.finish(&mut |row| {
                self.hold(row, ctx)?;
                Ok(true)
            })?;
        }
        if self.runs.is_empty() {
            let mut rows = std::mem::take(&mut self.held);
            sort_rows(s, &mut rows, &self.keys, self.n_out, |r| r)?;
            for row in rows {
                if !out(row)? {
                    break;
                }
            }
            return Ok(());
        }
        let last = self.run(ctx)?;
        self.runs.merge(last, &self.keys, ctx, out)
    }
}
