//! Running a planned SELECT block ([`BlockPlan`]): the access path brought
//! up to date for the parameters (`block_access`), rows read through the
//! join and filtered by the WHERE left to check, aggregated as they arrive
//! or projected, then HAVING, sorting, DISTINCT and LIMIT.
//!
//! Rows are projected as they arrive when nothing later needs the input
//! row; under a sort on input columns with a select list of plain columns
//! they are projected after the sort, in place; otherwise the outputs are
//! appended to the input row for ORDER BY and HAVING and the input part
//! dropped at the end. The block remembers how many rows it kept to make
//! room for as many next time.

use std::cell::RefCell;

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::block::{BlockPlan, Output, ROWS_HINT_MAX};
use super::grouped_sort::GroupedSort;
use super::groups;

/// ORDER BY ... LIMIT sorts and cuts its rows when it holds twice the
/// limit, or this many for a small limit.
const TOP_N_MIN_BATCH: usize = 1024;
use super::block_access::{self, BlockAccess};
use super::distinct::{Offered, SpillingDistinct};
use super::distinct_sort::DistinctSort;
use super::explain;
use super::join;
use super::order::{apply_limit, distinct_rows, sort_key_values, sort_rows, SortKey};
use super::project::{plain_columns, project_into, project_sorted};
use super::rollup::Rollup;
use super::sort_runs::{sort_run, SortRuns, SortedRow};
use super::RowStream;
use crate::error::SqlError;
use crate::eval;
use crate::exec::rows;
use crate::result::RowSet;
use crate::session::Session;

/// Runs a planned block: chooses the access path for `params`, reads,
/// aggregates, projects, sorts and limits. When its rows come out in their
/// final order as they are read, they go to `stream` in batches (past the
/// LIMIT's offset) and the returned set holds the last of them.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_plan(
    s: &Session,
    sel: &ast::Select,
    block: &mut BlockPlan,
    limit: Option<(u64, u64)>,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
    explain_id: Option<u64>,
    stream: Option<&mut RowStream<'_>>,
) -> Result<RowSet, SqlError> {
    let BlockPlan {
        sources,
        width,
        aggregating,
        aggs,
        windows,
        rollup,
        outputs,
        where_c,
        having_c,
        order_keys,
        group_c,
        order_cols,
        used,
        moves,
        access,
        rows_hint,
        kept_tables: _,
    } = block;
    let outputs: &[Output] = outputs;
    let having_c = &*having_c;
    let (width, aggregating) = (*width, *aggregating);
    let n_out = outputs.len();
    let want = join::JoinWant {
        used: Some(used),
        order: order_cols,
        limited: limit.is_some(),
    };
    let access = match access {
        Some(a) => {
            a.refresh(s, sel, sources, params, want);
            a
        }
        None => access.insert(BlockAccess::plan(s, sel, sources, params, want)?),
    };
    let in_order = access.join().first.ordered && !order_cols.is_empty();
    // Rows come in the ORDER BY's order, or (aggregating) group after group.
    let sorted = in_order && !aggregating;
    let groups_in_order = in_order && aggregating;
    // Conjuncts the first source's ranges enforce are not checked per row.
    access.prepare_filter(s, sel, sources)?;
    let access = &*access;
    let where_c = access.filter(where_c.as_ref());
    let plan = access.join();
    if let Some(id) = explain_id {
        let shape = explain::BlockShape {
            sources,
            plan,
            conds: &block_access::conjuncts(sel),
            filesort: (!order_keys.is_empty() && !sorted)
                || (!group_c.is_empty() && !groups_in_order),
            temporary: (!group_c.is_empty() && !groups_in_order) || sel.distinct.is_some(),
        };
        explain::record_block(s, id, &shape);
        return Ok(RowSet {
            columns: output_columns(outputs),
            rows: Vec::new(),
        });
    }
    let windowed = !windows.is_empty();
    // Without aggregation, HAVING or a sort, a row is projected as it
    // arrives: only the output values are kept. Such rows are final as
    // they are read (DISTINCT checked as they come), so a LIMIT may stop
    // the read.
    let project_early =
        !aggregating && !windowed && having_c.is_none() && (order_keys.is_empty() || sorted);
    let stop_after = match (project_early, limit) {
        (true, Some((off, n))) => Some(off.saturating_add(n)),
        _ => None,
    };

    // With a sort on input columns and a select list of plain columns, the
    // rows are sorted as read and projected after (the output values moved,
    // not copied).
    // ORDER BY ... LIMIT: only the first `offset + count` rows in order are
    // kept. Rows are projected and checked against HAVING as they arrive,
    // and whenever twice as many are held, sorted and cut back (a stable
    // sort, so rows of equal keys keep the order a full sort gives them).
    let top_n = match limit {
        Some((off, n))
            if !aggregating
                && !windowed
                && sel.distinct.is_none()
                && !order_keys.is_empty()
                && !sorted =>
        {
            Some(usize::try_from(off.saturating_add(n)).unwrap_or(usize::MAX))
        }
        _ => None,
    };
    let project_late = top_n.is_none()
        && !project_early
        && !aggregating
        && !windowed
        && having_c.is_none()
        && plain_columns(order_keys.iter().map(|k| &k.expr), width)
        && plain_columns(outputs.iter().map(|o| &o.expr), width);
    // A sort of all the rows (no LIMIT to keep the first of): beyond
    // `sort_buffer_size` the rows held go to sorted runs on disk, merged at
    // the end (`sort_runs`).
    let mut sort_runs = (top_n.is_none()
        && !aggregating
        && !windowed
        && !order_keys.is_empty()
        && !sorted
        && sel.distinct.is_none())
    .then(|| SortRuns::new(s, order_keys.len()));
    let mut held_bytes = 0usize;
    // SELECT DISTINCT sorted by columns of the select list: duplicates
    // dropped as rows come, the distinct rows sorted at the end.
    let mut distinct_sort = if sel.distinct.is_some()
        && !aggregating
        && !windowed
        && having_c.is_none()
        && !order_keys.is_empty()
        && !sorted
    {
        DistinctSort::plan(s, order_keys, outputs, output_collations(outputs), width)
    } else {
        None
    };
    // SELECT DISTINCT of rows read in their final order: the first of
    // equal rows is kept as they come (past the temporary table size, the
    // rows not yet seen wait on disk and follow at the end).
    let distinct_as_read = project_early && sel.distinct.is_some();
    let mut distinct_early = distinct_as_read
        .then(|| SpillingDistinct::new(output_collations(outputs), groups::SpillPolicy::of(s)));
    // Without window functions (which need every group first) each group
    // is projected and filtered by HAVING as it finishes, so a spilled
    // GROUP BY holds only the groups that pass; once spilled, those are
    // sorted as they come (`grouped_sort`), in runs on disk past
    // `sort_buffer_size`.
    let filter_groups = aggregating && !windowed;
    let groups_may_spill = rollup.is_none() && !groups_in_order && groups::spillable(group_c, aggs);
    let sort_spilled_groups = filter_groups && groups_may_spill && sel.distinct.is_none();
    // Rows in their final order, nothing left to do but the LIMIT: they
    // may go to the client as they come (a merged sort's too).
    let mut stream = stream.filter(|_| {
        (project_early && (sel.distinct.is_none() || distinct_early.is_some()))
            || (sort_runs.is_some() && sel.distinct.is_none())
            || distinct_sort.is_some()
            || sort_spilled_groups
    });
    // Streamed rows skip the LIMIT's offset as they come.
    let skip = match (&stream, limit) {
        (Some(_), Some((off, _))) if project_early => off,
        _ => 0,
    };
    // Rows that passed WHERE, for the LIMIT.
    let mut produced = 0u64;
    let mut ctx = s.eval_context(params);
    let mut matched: Vec<Vec<Value>> = Vec::with_capacity(*rows_hint);
    // The join's last source's values may be moved out of its row (see
    // `join::Emit`): into the kept rows, and into the outputs that alone
    // read them.
    let movable_from = sources.last().map_or(width, |src| src.offset);
    // Aggregation runs as rows arrive: groups keep their first row and
    // their accumulators.
    let mut groups = match rollup {
        Some((columns, colls)) => {
            groups::Groups::with_rollup(Rollup::new(columns.clone(), colls.clone()))
        }
        None if groups_in_order => groups::Groups::in_order(),
        None if groups_may_spill => groups::Groups::spilling(groups::SpillPolicy::of(s)),
        None => groups::Groups::default(),
    };
    let mut rows_read = 0u64;
    // Rows with their outputs appended (the input part kept for ORDER BY
    // and HAVING), that passed HAVING.
    let mut projected: Vec<Vec<Value>> = Vec::new();
    let finish = |mut row: Vec<Value>,
                  ctx: &mut eval::EvalContext<'_>|
     -> Result<Option<Vec<Value>>, SqlError> {
        let base = row.len();
        for o in outputs {
            let v = match o.expr.expr {
                eval::Expr::Column(c) if c > usize::MAX / 2 => row[base + (usize::MAX - c)].clone(),
                _ => o.expr.eval(&row, ctx)?,
            };
            row.push(v);
        }
        if let Some(h) = having_c {
            let hv = match h.expr {
                eval::Expr::Column(c) if c > usize::MAX / 2 => row[base + (usize::MAX - c)].clone(),
                _ => h.eval(&row, ctx)?,
            };
            if !rows::truthy(&hv) {
                return Ok(None);
            }
        }
        Ok(Some(row))
    };
    if stop_after != Some(0) {
        let mut emit = |row: &mut [Value],
                        _: &[Option<larch_engine::table::RowRef>],
                        ctx: &mut eval::EvalContext<'_>|
         -> Result<bool, SqlError> {
            if let Some(w) = where_c {
                if !rows::truthy(&w.eval(row, ctx)?) {
                    return Ok(true);
                }
            }
            rows_read += 1;
            if let Some(sorting) = distinct_sort.as_mut() {
                let mut out = Vec::with_capacity(n_out);
                project_into(row, outputs, moves, ctx, &mut out)?;
                sorting.add(out, ctx)?;
                return Ok(true);
            }
            if project_early {
                let mut out = Vec::with_capacity(n_out);
                project_into(row, outputs, moves, ctx, &mut out)?;
                if let Some(seen) = distinct_early.as_mut() {
                    if seen.offer(&out)? != Offered::First {
                        return Ok(true);
                    }
                }
                produced += 1;
                if produced > skip {
                    matched.push(out);
                    if let Some(stream) = stream.as_deref_mut() {
                        stream.send_full_batch(&mut matched, || output_columns(outputs))?;
                    }
                }
                return Ok(stop_after.is_none_or(|n| produced < n));
            }
            if !aggregating {
                // Room for the output columns appended below.
                let tail = if project_late { 0 } else { n_out };
                let mut kept = Vec::with_capacity(row.len() + tail);
                let (earlier, last) = row.split_at_mut(movable_from.min(row.len()));
                kept.extend_from_slice(earlier);
                kept.extend(last.iter_mut().map(|v| std::mem::replace(v, Value::Null)));
                if let Some(keep) = top_n {
                    if let Some(row) = finish(kept, ctx)? {
                        projected.push(row);
                    }
                    if projected.len() >= keep.saturating_mul(2).max(TOP_N_MIN_BATCH) {
                        sort_rows(s, &mut projected, order_keys, n_out, |r| r)?;
                        projected.truncate(keep);
                    }
                    return Ok(true);
                }
                if let Some(runs) = sort_runs.as_mut() {
                    held_bytes += row_bytes(&kept);
                    matched.push(kept);
                    if held_bytes > runs.limit() {
                        held_bytes = 0;
                        let sorting = Sorting {
                            keys: order_keys,
                            outputs,
                            project_late,
                            finish: &finish,
                        };
                        runs.write_run(sorting.run(&mut matched, ctx)?)?;
                    }
                    return Ok(true);
                }
                matched.push(kept);
                return Ok(stop_after.is_none_or(|n| (matched.len() as u64) < n));
            }
            groups.add(row, group_c, aggs, ctx)?;
            Ok(true)
        };
        if sources.is_empty() {
            emit(&mut [], &[], &mut ctx)?;
        } else {
            join::run(s, sources, plan, &mut ctx, &mut emit)?;
        }
    }
    s.db.status
        .rows_read
        .fetch_add(rows_read, std::sync::atomic::Ordering::Relaxed);
    if let Some(seen) = distinct_early.take() {
        // Rows deferred by a spilled DISTINCT, after every row kept early.
        seen.finish(&mut |out| {
            produced += 1;
            if produced > skip {
                matched.push(out);
                if let Some(stream) = stream.as_deref_mut() {
                    stream.send_full_batch(&mut matched, || output_columns(outputs))?;
                }
            }
            Ok(stop_after.is_none_or(|n| produced < n))
        })?;
    }

    *rows_hint = matched.len().min(ROWS_HINT_MAX);
    if let Some(sorting) = distinct_sort {
        let stream = stream.as_deref_mut();
        return limited(limit, stream, outputs, &mut ctx, warnings, |ctx, out| {
            sorting.finish(s, ctx, out)
        });
    }
    if let Some(runs) = sort_runs.filter(|r| !r.is_empty()) {
        // The rows did not fit the sort buffer: the rest is the last run,
        // and the runs are merged (LIMIT applied as the rows come).
        let sorting = Sorting {
            keys: order_keys,
            outputs,
            project_late,
            finish: &finish,
        };
        let last = sorting.run(&mut matched, &mut ctx)?;
        let stream = stream.as_deref_mut();
        return limited(limit, stream, outputs, &mut ctx, warnings, |ctx, out| {
            runs.merge(last, order_keys, ctx, out)
        });
    }
    // Streamed rows had the LIMIT applied as they came.
    let limit = if stream.is_some() && project_early {
        None
    } else {
        limit
    };

    if sort_spilled_groups && groups.has_spilled() {
        // By the ORDER BY, or else by the GROUP BY values.
        let group_keys;
        let keys = if order_keys.is_empty() {
            group_keys = groups::group_order(group_c);
            &group_keys
        } else {
            &order_keys[..]
        };
        let mut sorting = GroupedSort::new(s, keys, n_out, limit);
        groups.finish(
            s,
            width,
            group_c,
            aggs,
            false,
            &mut ctx,
            &mut |row, ctx: &mut eval::EvalContext<'_>| {
                if let Some(row) = finish(row, ctx)? {
                    sorting.add(row, ctx)?;
                }
                Ok(None)
            },
        )?;
        let stream = stream.as_deref_mut();
        return limited(limit, stream, outputs, &mut ctx, warnings, |ctx, out| {
            sorting.finish(ctx, out)
        });
    }
    // Aggregate results.
    let mut rows_in: Vec<Vec<Value>> = if aggregating {
        let mut keep_all = |row, _: &mut eval::EvalContext<'_>| Ok(Some(row));
        let mut project = |row, ctx: &mut eval::EvalContext<'_>| finish(row, ctx);
        let filter: &mut groups::GroupFilter<'_> = if filter_groups {
            &mut project
        } else {
            &mut keep_all
        };
        groups.finish(
            s,
            width,
            group_c,
            aggs,
            order_keys.is_empty(),
            &mut ctx,
            filter,
        )?
    } else {
        matched
    };
    if windowed {
        super::window::compute(&mut rows_in, windows, &mut ctx)?;
    }

    // Project (keeping the input row for ORDER BY), HAVING.
    let rows_in = if project_early || project_late || filter_groups {
        projected = rows_in;
        Vec::new()
    } else {
        projected.reserve(rows_in.len());
        rows_in
    };
    for row in rows_in {
        if let Some(row) = finish(row, &mut ctx)? {
            projected.push(row);
        }
    }
    for w in ctx.take_warnings() {
        warnings.borrow_mut().push(w);
    }
    drop(ctx);
    if !order_keys.is_empty() && !sorted {
        let tail = if project_late { 0 } else { n_out };
        match limit {
            // ORDER BY ... LIMIT over groups or windowed rows: only the
            // first `offset + count` in order are sorted out.
            Some((off, n)) if sel.distinct.is_none() => {
                let keep = usize::try_from(off.saturating_add(n)).unwrap_or(usize::MAX);
                sort_first(s, &mut projected, order_keys, tail, keep)?;
            }
            _ => sort_rows(s, &mut projected, order_keys, tail, |r| r)?,
        }
    }
    let mut out_rows: Vec<Vec<Value>> = if project_late {
        project_sorted(projected, outputs)
    } else {
        projected
            .into_iter()
            // A new vector of the outputs alone: the row's input part and
            // its capacity are freed.
            .map(|mut r| r.split_off(r.len() - n_out))
            .collect()
    };

    if sel.distinct.is_some() && !distinct_as_read {
        distinct_rows(&mut out_rows, &output_collations(outputs));
    }
    apply_limit(&mut out_rows, limit);
    Ok(RowSet {
        columns: output_columns(outputs),
        rows: out_rows,
    })
}

/// Leaves in `rows` the first `keep` of them in the order of `keys`, as a
/// stable sort of them all would give: rows are taken in batches of twice
/// `keep` (at least [`TOP_N_MIN_BATCH`]), each sorted with the rows kept
/// so far and cut back to `keep`. Rows kept from earlier batches stand
/// before the batch's, so rows of equal keys keep their order.
fn sort_first(
    s: &Session,
    rows: &mut Vec<Vec<Value>>,
    keys: &[SortKey],
    tail: usize,
    keep: usize,
) -> Result<(), SqlError> {
    let batch = keep.saturating_mul(2).max(TOP_N_MIN_BATCH);
    if rows.len() <= batch {
        sort_rows(s, rows, keys, tail, |r| r)?;
        rows.truncate(keep);
        return Ok(());
    }
    let mut kept: Vec<Vec<Value>> = Vec::with_capacity(batch + keep);
    for row in std::mem::take(rows) {
        kept.push(row);
        if kept.len() >= batch + keep {
            sort_rows(s, &mut kept, keys, tail, |r| r)?;
            kept.truncate(keep);
        }
    }
    sort_rows(s, &mut kept, keys, tail, |r| r)?;
    kept.truncate(keep);
    *rows = kept;
    Ok(())
}

/// The rows `produce` hands over in their final order, past the LIMIT's
/// offset and up to its count (`produce` is told to stop there), going to
/// `stream` in batches when there is one.
fn limited(
    limit: Option<(u64, u64)>,
    mut stream: Option<&mut RowStream<'_>>,
    outputs: &[Output],
    ctx: &mut eval::EvalContext<'_>,
    warnings: &RefCell<Vec<crate::error::Warning>>,
    produce: impl FnOnce(
        &mut eval::EvalContext<'_>,
        &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError>,
) -> Result<RowSet, SqlError> {
    let (mut skip, mut count) = limit.unwrap_or((0, u64::MAX));
    let mut rows = Vec::new();
    if count > 0 {
        produce(ctx, &mut |row| {
            if skip > 0 {
                skip -= 1;
                return Ok(true);
            }
            count -= 1;
            rows.push(row);
            if let Some(stream) = stream.as_deref_mut() {
                stream.send_full_batch(&mut rows, || output_columns(outputs))?;
            }
            Ok(count > 0)
        })?;
    }
    for w in ctx.take_warnings() {
        warnings.borrow_mut().push(w);
    }
    Ok(RowSet {
        columns: output_columns(outputs),
        rows,
    })
}

/// The result's columns.
fn output_columns(outputs: &[Output]) -> Vec<crate::result::ResultColumn> {
    outputs.iter().map(|o| o.column.clone()).collect()
}

/// The collations DISTINCT compares the result's columns under.
fn output_collations(outputs: &[Output]) -> Vec<larch_engine::record::collation::Collation> {
    outputs
        .iter()
        .map(|o| {
            o.column
                .ty
                .collation()
                .unwrap_or(larch_engine::record::collation::Collation::Binary)
        })
        .collect()
}

/// Bytes a held row takes (for `sort_buffer_size`).
fn row_bytes(row: &[Value]) -> usize {
    std::mem::size_of::<Vec<Value>>()
        + row
            .iter()
            .map(crate::exec::spill_file::value_bytes)
            .sum::<usize>()
}

/// How a block's held rows become a sorted run ([`SortRuns`]): the output
/// values of each row (projected after the sort, or appended by `finish`
/// with HAVING applied) and its sort-key values.
struct Sorting<'a, F> {
    keys: &'a [SortKey],
    outputs: &'a [Output],
    /// The rows are input rows whose keys and outputs are plain columns.
    project_late: bool,
    finish: &'a F,
}

impl<F> Sorting<'_, F>
where
    F: Fn(Vec<Value>, &mut eval::EvalContext<'_>) -> Result<Option<Vec<Value>>, SqlError>,
{
    /// Takes the rows out of `held` as one sorted run.
    fn run(
        &self,
        held: &mut Vec<Vec<Value>>,
        ctx: &mut eval::EvalContext<'_>,
    ) -> Result<Vec<SortedRow>, SqlError> {
        let n_out = self.outputs.len();
        let mut run: Vec<SortedRow> = Vec::with_capacity(held.len());
        if self.project_late {
            for row in held.drain(..) {
                run.push((sort_key_values(&row, self.keys, 0, ctx)?, row));
            }
            sort_run(&mut run, self.keys, ctx);
            let (keys, rows): (Vec<_>, Vec<_>) = run.into_iter().unzip();
            return Ok(keys
                .into_iter()
                .zip(project_sorted(rows, self.outputs))
                .collect());
        }
        for row in held.drain(..) {
            if let Some(mut row) = (self.finish)(row, ctx)? {
                let keys = sort_key_values(&row, self.keys, n_out, ctx)?;
                let out = row.split_off(row.len() - n_out);
                run.push((keys, out));
            }
        }
        sort_run(&mut run, self.keys, ctx);
        Ok(run)
    }
}
