//! Nested-loop joins over the sources of a FROM clause.
//!
//! The first source is read through the access path chosen from the WHERE
//! conjuncts that name only it; each later source is read per combination
//! of earlier rows, through an index lookup when the ON conditions it must
//! meet bind a leading index column to earlier values (else a scan). ON
//! conditions are checked as rows are combined (`Source::checks`, see
//! `super::join_tree`); the NULL-extended side of an outer join (one
//! source, or a parenthesized run of them) with no matching combination
//! gives one row of NULLs, after which the checks of the joins around it
//! still apply. `emit` receives each combined row with the address of each
//! table source's row (for multi-table UPDATE and DELETE) and returns false
//! to stop.

use larch_engine::record::value::Value;
use larch_engine::table::RowRef;
use sqlparser::ast;

use super::source::{self, Source, SourceRows};
use super::subquery;
use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled};
use crate::exec::access::{self, Access, Plan, Want};
use crate::exec::rows;
use crate::session::Session;

/// What a join hands to its consumer: the combined row, each source's row
/// address (`None` for derived tables and NULL-extended rows).
///
/// The consumer may take (move out, leaving anything) the values of the
/// last source's columns (from its `offset` on): they are read anew for
/// every combination, while the earlier sources' values stay for the next
/// combinations and must be left as they are.
pub(crate) type Emit<'a> = dyn FnMut(&mut [Value], &[Option<RowRef>], &mut eval::EvalContext<'_>) -> Result<bool, SqlError>
    + 'a;

/// The combination being built.
struct Current<'a> {
    row: &'a mut Vec<Value>,
    refs: &'a mut Vec<Option<RowRef>>,
    /// Per source starting an outer join's NULL-extended side: did a
    /// combination of that side's rows pass the join's check (for the
    /// current rows of the sources before it)?
    matched: Vec<bool>,
}

/// What the statement wants from the join besides the WHERE ranges.
#[derive(Default, Clone, Copy)]
pub(crate) struct JoinWant<'a> {
    /// Per combined-row position: does the statement use it (`None`: every
    /// column is used)? Columns ON conditions name are added.
    pub used: Option<&'a [bool]>,
    /// ORDER BY as (column of the first source, descending), when every key
    /// is a plain column of the first source; nested loops keep the first
    /// source's order.
    pub order: &'a [(usize, bool)],
    /// A LIMIT may stop reading early.
    pub limited: bool,
}

/// How a join reads its sources.
pub(crate) struct JoinPlan {
    /// The first source's plan (a scan for a derived table).
    pub first: Plan,
    /// Per source, the table columns to read (`None`: all).
    pub needed: Vec<Option<Vec<usize>>>,
    /// Per source, its checks' conditions compiled.
    checks: Vec<Vec<Option<Compiled>>>,
    /// Per source, its lookup equalities (`lookup_equalities`): its column
    /// and the other side compiled.
    lookups: Vec<Vec<(usize, Compiled)>>,
}

/// Plans a join: compiles the ON conditions, works out the columns each
/// source must give and chooses the first source's access path from the
/// conditions naming only it.
pub(crate) fn plan(
    s: &Session,
    sources: &[Source],
    conds: &[&ast::Expr],
    params: &[Value],
    want: JoinWant<'_>,
) -> Result<JoinPlan, SqlError> {
    let width: usize = sources.iter().map(Source::width).sum();
    let used = std::cell::RefCell::new(want.used.map(<[bool]>::to_vec));
    // ON conditions compiled over the combined row.
    let resolve = |parts: &[ast::Ident]| {
        let r = source::resolve(sources, parts).ok().flatten();
        if let (Some((pos, _)), Some(u)) = (&r, used.borrow_mut().as_mut()) {
            if let Some(slot) = u.get_mut(*pos) {
                *slot = true;
            }
        }
        r
    };
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "ON".into(),
    };
    let checks: Vec<Vec<Option<Compiled>>> = sources
        .iter()
        .map(|src| {
            src.checks
                .iter()
                .map(|c| {
                    c.cond
                        .as_ref()
                        .map(|e| eval::compile(e, &resolve, &opts))
                        .transpose()
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let lookups: Vec<Vec<(usize, Compiled)>> = (0..sources.len())
        .map(|k| {
            lookup_equalities(sources, k)
                .into_iter()
                .filter_map(|(col, other)| {
                    let c = eval::compile(other, &resolve, &CompileOptions::default()).ok()?;
                    Some((col, c))
                })
                .collect()
        })
        .collect();
    let used = used.into_inner();
    let needed: Vec<Option<Vec<usize>>> = sources
        .iter()
        .map(|src| {
            let u = used.as_ref()?;
            Some(
                (0..src.stored_width())
                    .filter(|i| u.get(src.offset + i).copied().unwrap_or(true))
                    .collect(),
            )
        })
        .collect();
    debug_assert!(used.as_ref().is_none_or(|u| u.len() == width));
    let first = match sources.first().map(|f| &f.rows) {
        Some(SourceRows::Table(t)) => {
            let column_of = |e: &ast::Expr| column_of_source(sources, 0, e);
            let mut actx = s.eval_context(params);
            let w = Want {
                needed: needed[0].as_deref(),
                order: want.order,
                limited: want.limited,
            };
            access::plan(t, conds, &column_of, &mut actx, w)
        }
        _ => Plan {
            access: Access::Scan,
            reverse: false,
            ordered: false,
            covering: true,
            possible: Vec::new(),
            exact: Vec::new(),
        },
    };
    Ok(JoinPlan {
        first,
        needed,
        checks,
        lookups,
    })
}

/// What [`join`] hands to its consumer: as [`Emit`], the row only lent.
pub(crate) type ReadEmit<'a> = dyn FnMut(&[Value], &[Option<RowRef>], &mut eval::EvalContext<'_>) -> Result<bool, SqlError>
    + 'a;

/// Nested-loop join of the sources; `emit` gets each combined row and
/// returns false to stop.
pub(crate) fn join(
    s: &Session,
    sources: &[Source],
    conds: &[&ast::Expr],
    params: &[Value],
    ctx: &mut eval::EvalContext<'_>,
    emit: &mut ReadEmit<'_>,
) -> Result<(), SqlError> {
    let p = plan(s, sources, conds, params, JoinWant::default())?;
    run(s, sources, &p, ctx, &mut |row, refs, ctx| {
        emit(row, refs, ctx)
    })
}

/// Runs a planned join; `emit` gets each combined row and returns false to
/// stop.
pub(crate) fn run(
    s: &Session,
    sources: &[Source],
    plan: &JoinPlan,
    ctx: &mut eval::EvalContext<'_>,
    emit: &mut Emit<'_>,
) -> Result<(), SqlError> {
    if sources.is_empty() {
        return Ok(());
    }
    let width: usize = sources.iter().map(Source::width).sum();
    let mut row = vec![Value::Null; width];
    let mut refs = vec![None; sources.len()];
    let mut cur = Current {
        row: &mut row,
        refs: &mut refs,
        matched: vec![false; sources.len()],
    };
    level(s, sources, 0, plan, &mut cur, ctx, emit).map(|_| ())
}

/// The column of source `k` that `e` names, if `e` is a column reference
/// resolving there.
pub(crate) fn column_of_source(sources: &[Source], k: usize, e: &ast::Expr) -> Option<usize> {
    let parts: Vec<ast::Ident> = match e {
        ast::Expr::Identifier(i) => vec![i.clone()],
        ast::Expr::CompoundIdentifier(p) => p.clone(),
        ast::Expr::Nested(inner) => return column_of_source(sources, k, inner),
        _ => return None,
    };
    let (pos, _) = source::resolve(sources, &parts).ok().flatten()?;
    let src = &sources[k];
    // A MATCH's hidden relevance column is no column of the table.
    (pos >= src.offset && pos < src.offset + src.stored_width()).then(|| pos - src.offset)
}

/// Reads source `k` for the current rows of the sources before it.
#[allow(clippy::too_many_arguments)]
fn level(
    s: &Session,
    sources: &[Source],
    k: usize,
    plan: &JoinPlan,
    cur: &mut Current<'_>,
    ctx: &mut eval::EvalContext<'_>,
    emit: &mut Emit<'_>,
) -> Result<bool, SqlError> {
    let src = &sources[k];
    cur.matched[k] = false;
    // A source row's values are moved into the combination (swapped: the
    // lender gets the previous values back, which it overwrites or drops),
    // and its address copied into the reused address slot.
    let mut visit = |vals: &mut [Value],
                     at: Option<&[u8]>,
                     cur: &mut Current<'_>,
                     ctx: &mut eval::EvalContext<'_>|
     -> Result<bool, SqlError> {
        for (slot, v) in cur.row[src.offset..src.offset + src.width()]
            .iter_mut()
            .zip(vals.iter_mut())
        {
            std::mem::swap(slot, v);
        }
        match (at, &mut cur.refs[k]) {
            (Some(at), Some(r)) => {
                r.0.clear();
                r.0.extend_from_slice(at);
            }
            (Some(at), slot) => *slot = Some(RowRef(at.to_vec())),
            (None, slot) => *slot = None,
        }
        for m in &src.matches {
            let rank = at.and_then(|at| m.ranks.get(at)).copied().unwrap_or(0.0);
            cur.row[src.offset + m.column] = Value::Double(f64::from(rank));
        }
        after(s, sources, k, 0, plan, cur, ctx, emit)
    };
    let mut go_on = match &src.rows {
        SourceRows::Rows(rs) => {
            rs.scan(&s.process.kill_query, &mut |r| visit(r, None, cur, ctx))?
        }
        SourceRows::Table(t) => {
            let (access, reverse) = if k == 0 {
                (plan.first.access.clone(), plan.first.reverse)
            } else {
                (inner_access(s, sources, k, plan, cur.row, ctx), false)
            };
            let mut stopped = false;
            let mut each = |at: &[u8], vals: &mut [Value]| {
                let r = visit(vals, Some(at), cur, ctx)?;
                if !r {
                    stopped = true;
                }
                Ok(r)
            };
            let reading = s.row_reading();
            // The rows the search found, best first, stand for a full
            // scan only: an index access path may have taken conditions
            // out of the WHERE that only its rows meet.
            match (&src.fulltext_order, k) {
                (Some(found), 0) if reading.lock.is_none() && matches!(access, Access::Scan) => {
                    rows::for_each_row_at(
                        t,
                        found,
                        plan.needed[k].as_deref(),
                        &s.process.kill_query,
                        &reading,
                        &mut each,
                    )?
                }
                _ => rows::for_each_row(
                    t,
                    &access,
                    reverse,
                    plan.needed[k].as_deref(),
                    &s.process.kill_query,
                    &reading,
                    &mut each,
                )?,
            }
            !stopped
        }
    };
    if let Some(n) = src.group_len {
        if go_on && !cur.matched[k] {
            // No combination of the group's rows matched: one row of NULLs
            // for the whole group, then the checks of the joins around it.
            let last = k + n - 1;
            let end = sources[last].offset + sources[last].width();
            for v in &mut cur.row[src.offset..end] {
                *v = Value::Null;
            }
            for r in &mut cur.refs[k..=last] {
                *r = None;
            }
            let from = sources[last]
                .checks
                .iter()
                .position(|c| c.closes_back == Some(n - 1))
                .map_or(0, |i| i + 1);
            go_on = after(s, sources, last, from, plan, cur, ctx, emit)?;
        }
    }
    Ok(go_on)
}

/// With source `k`'s row in place: its checks from `from` on (each passed
/// outer-join check marks its group as matched), then the next source or
/// the consumer. False to stop.
#[allow(clippy::too_many_arguments)]
fn after(
    s: &Session,
    sources: &[Source],
    k: usize,
    from: usize,
    plan: &JoinPlan,
    cur: &mut Current<'_>,
    ctx: &mut eval::EvalContext<'_>,
    emit: &mut Emit<'_>,
) -> Result<bool, SqlError> {
    for (check, cond) in sources[k].checks.iter().zip(&plan.checks[k]).skip(from) {
        if let Some(c) = cond {
            if !rows::truthy(&c.eval(cur.row, ctx)?) {
                return Ok(true);
            }
        }
        if let Some(back) = check.closes_back {
            cur.matched[k - back] = true;
        }
    }
    if k + 1 == sources.len() {
        emit(cur.row, cur.refs, ctx)
    } else {
        level(s, sources, k + 1, plan, cur, ctx, emit)
    }
}

/// The equalities among the conditions source `k` must meet that bind one
/// of its columns to an expression of earlier sources only: (column of
/// `k`, the expression).
pub(crate) fn lookup_equalities(sources: &[Source], k: usize) -> Vec<(usize, &ast::Expr)> {
    let mut out = Vec::new();
    let before = sources[k].offset;
    for c in sources[k].lookup.iter() {
        let ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Eq,
            right,
        } = c
        else {
            continue;
        };
        let (col, other) = match (
            column_of_source(sources, k, left),
            column_of_source(sources, k, right),
        ) {
            (Some(c), None) => (c, right.as_ref()),
            (None, Some(c)) => (c, left.as_ref()),
            _ => continue,
        };
        if reads_only_before(sources, other, before) && in_column_collation(sources, c, k, col) {
            out.push((col, other));
        }
    }
    out
}

/// True unless the equality `c` compares source `k`'s string column `col`
/// in another collation than the column's own (a utf8mb4_general_ci column
/// of an earlier table against a latin1_bin one): an index lookup with the
/// earlier value would then find the rows equal in the column's collation,
/// not the comparison's.
fn in_column_collation(sources: &[Source], c: &ast::Expr, k: usize, col: usize) -> bool {
    let Some(own) = sources[k].columns.get(col).and_then(|rc| rc.ty.collation()) else {
        return true;
    };
    let resolve = |parts: &[ast::Ident]| source::resolve(sources, parts).ok().flatten();
    match eval::compile(c, &resolve, &CompileOptions::default()) {
        Ok(eval::Compiled {
            expr: eval::Expr::Compare { collation, .. },
            ..
        }) => collation == own,
        _ => false,
    }
}

/// True when every column `e` names resolves to a combined-row position
/// before `before` (and nothing in it is a subquery or an unknown name).
fn reads_only_before(sources: &[Source], e: &ast::Expr, before: usize) -> bool {
    let resolve = |parts: &[ast::Ident]| {
        source::resolve(sources, parts)
            .ok()
            .flatten()
            .filter(|(pos, _)| *pos < before)
    };
    !subquery::expr_has_subquery(e)
        && eval::compile(e, &resolve, &CompileOptions::default()).is_ok()
}

/// Access for an inner source: an index lookup when the conditions it
/// must meet bind a leading index column to values of earlier sources.
fn inner_access(
    s: &Session,
    sources: &[Source],
    k: usize,
    plan: &JoinPlan,
    row: &[Value],
    ctx: &mut eval::EvalContext<'_>,
) -> Access {
    let SourceRows::Table(t) = &sources[k].rows else {
        return Access::Scan;
    };
    if plan.lookups[k].is_empty() {
        return Access::Scan;
    }
    // Substitute earlier sources' values into the equalities.
    let mut bound: Vec<ast::Expr> = Vec::new();
    for (col, other) in &plan.lookups[k] {
        let Ok(v) = other.eval(row, ctx) else {
            continue;
        };
        let (Some(lit), Some(column)) = (subquery::literal(&v), sources[k].columns.get(*col))
        else {
            continue;
        };
        bound.push(ast::Expr::BinaryOp {
            left: Box::new(ast::Expr::CompoundIdentifier(vec![
                ast::Ident::new(sources[k].alias.clone()),
                ast::Ident::new(column.name.clone()),
            ])),
            op: ast::BinaryOperator::Eq,
            right: Box::new(lit),
        });
    }
    let refs: Vec<&ast::Expr> = bound.iter().collect();
    let column_of = |e: &ast::Expr| column_of_source(sources, k, e);
    let mut actx = s.eval_context(&[]);
    access::choose_access(t, &refs, &column_of, &mut actx)
}
