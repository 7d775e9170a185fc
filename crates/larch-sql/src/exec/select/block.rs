//! One SELECT block: FROM sources joined by the planner (`join`), WHERE,
//! GROUP BY and aggregates computed as rows arrive, HAVING, the select list,
//! DISTINCT, the block's ORDER BY and LIMIT (early stop when rows already
//! come out in final order).
//!
//! Names in the select list resolve to aggregate results and source
//! columns; names in HAVING and ORDER BY resolve first to aggregate results
//! and select-list aliases, then to source columns. HAVING and ORDER BY
//! read rows that hold the source row, the aggregate values and then the
//! outputs, so an alias is the position of its output there.
//! Under EXPLAIN the block is planned and recorded, not read.
//!
//! A block runs in two steps: [`BlockPlan`] (sources bound, clauses
//! compiled) and its execution (`block_run`: access path for the
//! parameters, rows). The block of the running statement itself keeps its
//! plan for the statement's next execution (`session::plans`), with its
//! access path (`block_access`): a prepared or statement-cached query then
//! only takes its metadata locks, rebuilds its key ranges and reads.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::Table;
use sqlparser::ast;

use super::aggregate::{self, AggCall, CompiledAgg, AGG_PREFIX};
use super::block_access::BlockAccess;
use super::block_run;
use super::explain;
use super::naming::expr_name;
use super::order::{compile_order, SortKey};
use super::project::movable_outputs;
use super::source::{self, sources, Source, SourceRows};
use super::window;
use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled, ExprType};
use crate::result::{ResultColumn, RowSet};
use crate::session::plans::PlanKey;
use crate::session::Session;

/// One item of the select list, compiled.
pub(super) struct Output {
    pub(super) column: ResultColumn,
    pub(super) expr: Compiled,
}

/// A SELECT block bound and compiled: its sources (tables opened, columns
/// known), the compiled select list, WHERE, HAVING, ORDER BY, GROUP BY and
/// aggregates, and the positions the statement reads. What depends on the
/// parameters (the access path and its ranges, LIMIT) is chosen per
/// execution. A statement's top-level block keeps its plan between
/// executions (`session::plans`) when every source is a base table.
pub(crate) struct BlockPlan {
    pub(super) sources: Vec<Source>,
    pub(super) width: usize,
    pub(super) aggregating: bool,
    pub(super) aggs: Vec<CompiledAgg>,
    /// Window calls: their values follow the aggregate values.
    pub(super) windows: Vec<window::CompiledWindow>,
    /// WITH ROLLUP: the GROUP BY columns' positions and collations.
    pub(super) rollup: Option<(Vec<usize>, Vec<Collation>)>,
    pub(super) outputs: Vec<Output>,
    pub(super) where_c: Option<Compiled>,
    pub(super) having_c: Option<Compiled>,
    pub(super) order_keys: Vec<SortKey>,
    pub(super) group_c: Vec<Compiled>,
    /// ORDER BY over plain columns of the first table (an index may give
    /// it); for an aggregating block, its GROUP BY columns when an index
    /// in their order groups the rows as they come.
    pub(super) order_cols: Vec<(usize, bool)>,
    /// The combined-row positions the statement names: only those are read.
    pub(super) used: Vec<bool>,
    /// Per output: may it move its value out of the join's row (see
    /// `project::movable_outputs`)?
    pub(super) moves: Vec<bool>,
    /// How the sources are read, from the first execution on (kept with
    /// the plan: only the first table's ranges follow the parameters).
    pub(super) access: Option<BlockAccess>,
    /// How many rows the last execution kept before aggregation (at most
    /// [`ROWS_HINT_MAX`]): room made for the next one's.
    pub(super) rows_hint: usize,
    /// While the plan is kept, its tables (see [`KeptPlan`]).
    pub(super) kept_tables: Vec<Weak<Table>>,
}

/// The most rows [`BlockPlan::rows_hint`] makes room for.
pub(super) const ROWS_HINT_MAX: usize = 1024;

impl BlockPlan {
    /// Only plans over base tables are kept: derived tables, views and
    /// virtual tables hold rows read for one execution.
    fn reusable(&self) -> bool {
        self.sources.iter().all(|src| {
            matches!(src.rows, SourceRows::Table(_))
                && src.matches.is_empty()
                && src.fulltext_order.is_none()
        })
    }
}

/// A plan while it is kept between executions: its tables set aside as
/// weak references, so a kept plan keeps no table open (a dropped table
/// goes away as it would without the cache; purge and rollback never meet
/// it again).
pub(crate) struct KeptPlan {
    /// The plan, its sources' rows empty.
    plan: BlockPlan,
}

impl KeptPlan {
    fn keep(mut plan: BlockPlan) -> KeptPlan {
        // The buffer of weak references is the plan's own, kept with it.
        let mut tables = std::mem::take(&mut plan.kept_tables);
        tables.clear();
        tables.extend(plan.sources.iter_mut().map(|src| {
            match std::mem::replace(&mut src.rows, SourceRows::Rows(Vec::new().into())) {
                SourceRows::Table(t) => Arc::downgrade(&t),
                SourceRows::Rows(_) => Weak::new(),
            }
        }));
        plan.kept_tables = tables;
        KeptPlan { plan }
    }

    /// The plan with its tables back; `None` when one no longer exists.
    fn restore(self) -> Option<BlockPlan> {
        let mut plan = self.plan;
        for (src, t) in plan.sources.iter_mut().zip(&plan.kept_tables) {
            src.rows = SourceRows::Table(t.upgrade()?);
        }
        Some(plan)
    }
}

/// The kept plan of the running top-level statement, when it is still
/// valid; its tables are locked again (metadata locks) for this execution.
fn kept_plan(s: &Session) -> Result<Option<(PlanKey, BlockPlan)>, SqlError> {
    let Some(statement) = &s.statement else {
        return Ok(None);
    };
    let Some((key, kept)) = s.plans.borrow_mut().take(statement) else {
        return Ok(None);
    };
    if !s.plan_valid(&key) {
        return Ok(None);
    }
    for src in &kept.plan.sources {
        s.lock_table_for(&src.db, &src.table, Some(&src.alias), false)?;
    }
    // A DDL statement may have finished while the locks were awaited.
    if !s.plan_valid(&key) {
        return Ok(None);
    }
    Ok(kept.restore().map(|plan| (key, plan)))
}

/// Runs one SELECT block; `top` when it is the block of the running
/// statement itself (its plan may be kept for the next execution). Rows
/// that come out in their final order go to `stream` as they come.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_select(
    s: &Session,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    limit: Option<(u64, u64)>,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
    top: bool,
    stream: Option<&mut super::RowStream<'_>>,
) -> Result<RowSet, SqlError> {
    let explain_id = explain::start_block(s);
    let describe = s.execution.describe_only();
    let keep = top && explain_id.is_none() && !describe && !explain::active(s);
    let kept = if keep { kept_plan(s)? } else { None };
    let mut rewritten = None;
    let (key, mut plan) = match kept {
        Some(k) => k,
        None => {
            let key = s.plan_key();
            let in_from = explain::set_in_from(s, true);
            let sources = sources(s, &sel.from, params);
            explain::set_in_from(s, in_from);
            let mut sources = sources?;
            rewritten = super::fulltext::rewrite(s, sel, order, &mut sources, params)?;
            let (sel, order) = match &rewritten {
                Some((sel, order)) => (sel, order.as_slice()),
                None => (sel, order),
            };
            (key, plan_block(s, sel, order, sources)?)
        }
    };
    let sel = rewritten.as_ref().map_or(sel, |(sel, _)| sel);
    #[cfg(feature = "fault-injection")]
    crate::fault_injection::reached(crate::fault_injection::FaultPoint::SelectBlockPlanned);
    if describe {
        return Ok(RowSet {
            columns: plan.outputs.into_iter().map(|o| o.column).collect(),
            rows: Vec::new(),
        });
    }
    let r = block_run::run_plan(
        s, sel, &mut plan, limit, params, warnings, explain_id, stream,
    );
    if keep && plan.reusable() {
        if let Some(statement) = &s.statement {
            s.plans
                .borrow_mut()
                .put(statement, key, KeptPlan::keep(plan));
        }
    }
    r
}

/// Binds and compiles a block over its `sources` (see [`BlockPlan`]).
fn plan_block(
    s: &Session,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    sources: Vec<Source>,
) -> Result<BlockPlan, SqlError> {
    let width: usize = sources.iter().map(Source::width).sum();
    let ambiguous: RefCell<Option<SqlError>> = RefCell::new(None);
    // Select-list aliases: output number and type.
    let aliases: RefCell<HashMap<String, (usize, ExprType)>> = RefCell::new(HashMap::new());
    // The combined-row positions the statement names: only those are read.
    let used: RefCell<Vec<bool>> = RefCell::new(vec![false; width]);
    let resolve_source = |parts: &[ast::Ident]| match source::resolve(&sources, parts) {
        Ok(r) => {
            if let Some((pos, _)) = &r {
                if let Some(u) = used.borrow_mut().get_mut(*pos) {
                    *u = true;
                }
            }
            r
        }
        Err(e) => {
            *ambiguous.borrow_mut() = Some(e);
            None
        }
    };
    let check = |r: Result<Compiled, SqlError>| -> Result<Compiled, SqlError> {
        if let Some(e) = ambiguous.borrow_mut().take() {
            return Err(e);
        }
        r
    };
    let opts = |clause: &str| CompileOptions {
        collation: s.connection_collation(),
        clause: clause.into(),
    };

    // Aggregation: rewrite aggregate calls into hidden columns (on copies
    // of the clauses; without aggregation the statement's own are used).
    let group_exprs: &[ast::Expr] = match &sel.group_by {
        ast::GroupByExpr::Expressions(v, _) => v,
        ast::GroupByExpr::All(_) => return Err(SqlError::not_supported("GROUP BY ALL")),
    };
    let mut projection: Cow<'_, [ast::SelectItem]> = Cow::Borrowed(&sel.projection);
    let mut having: Cow<'_, Option<ast::Expr>> = Cow::Borrowed(&sel.having);
    let mut order: Cow<'_, [ast::OrderByExpr]> = Cow::Borrowed(order);
    // Window functions first: their calls become hidden columns, their
    // arguments may hold aggregates (`SUM(SUM(x)) OVER ()`).
    let mut window_calls: Vec<window::WindowCall> = Vec::new();
    let windowed = projection.iter().any(|p| match p {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            window::has_window(e)
        }
        _ => false,
    }) || order.iter().any(|o| window::has_window(&o.expr));
    if sel.having.as_ref().is_some_and(window::has_window)
        || sel.selection.as_ref().is_some_and(window::has_window)
        || group_exprs.iter().any(window::has_window)
    {
        return Err(window::misplaced());
    }
    if windowed {
        if sel.having.is_some() {
            return Err(SqlError::not_supported("HAVING with window functions"));
        }
        for p in projection.to_mut().iter_mut() {
            if let ast::SelectItem::UnnamedExpr(e)
            | ast::SelectItem::ExprWithAlias { expr: e, .. } = p
            {
                window::rewrite(e, &sel.named_window, &mut window_calls)?;
            }
        }
        for o in order.to_mut().iter_mut() {
            window::rewrite(&mut o.expr, &sel.named_window, &mut window_calls)?;
        }
    }
    let aggregating = !group_exprs.is_empty()
        || projection.iter().any(|p| match p {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                aggregate::has_aggregate(e)
            }
            _ => false,
        })
        || sel.having.as_ref().is_some_and(aggregate::has_aggregate)
        || window_calls
            .iter_mut()
            .any(|w| w.exprs_mut().any(|e| aggregate::has_aggregate(e)));
    let mut calls: Vec<AggCall> = Vec::new();
    if aggregating {
        for w in window_calls.iter_mut() {
            for e in w.exprs_mut() {
                aggregate::rewrite(e, &mut calls)?;
            }
        }
        let (projection, having, order) = (projection.to_mut(), having.to_mut(), order.to_mut());
        for p in projection.iter_mut() {
            if let ast::SelectItem::UnnamedExpr(e)
            | ast::SelectItem::ExprWithAlias { expr: e, .. } = p
            {
                aggregate::rewrite(e, &mut calls)?;
            }
        }
        if let Some(h) = having {
            aggregate::rewrite(h, &mut calls)?;
        }
        for o in order.iter_mut() {
            aggregate::rewrite(&mut o.expr, &mut calls)?;
        }
    }
    // MIN/MAX read what is no date as the zero date in one group over the
    // whole input (no GROUP BY, or constants only) and under WITH ROLLUP;
    // in groups of a GROUP BY such a value is NULL, as in MariaDB.
    let fuzzy_min_max = matches!(&sel.group_by, ast::GroupByExpr::Expressions(_, m)
            if m.contains(&ast::GroupByWithModifier::Rollup))
        || group_exprs.iter().all(
            |e| matches!(e, ast::Expr::Value(v) if !matches!(v.value, ast::Value::Number(..))),
        );
    let aggs: Vec<CompiledAgg> = calls
        .iter()
        .map(|c| {
            let args = c
                .args
                .iter()
                .map(|a| check(eval::compile(a, &resolve_source, &opts("SELECT"))))
                .collect::<Result<Vec<_>, _>>()?;
            let first = args.first();
            let is_column = first.is_some_and(|a| matches!(a.expr, eval::Expr::Column(_)));
            let ty = aggregate::result_type(c.kind, first.map(|a| &a.ty), is_column);
            let args = aggregate::concat_values_as_text(c, args, fuzzy_min_max);
            let collation = args
                .first()
                .and_then(|a| a.ty.ty.collation())
                .unwrap_or(Collation::Binary);
            let mut call = c.clone();
            let keys = args.len().saturating_sub(c.order.len());
            call.order_collations = args[keys..]
                .iter()
                .map(|a| a.ty.ty.collation().unwrap_or(collation))
                .collect();
            Ok(CompiledAgg {
                call,
                args,
                ty,
                collation,
            })
        })
        .collect::<Result<_, SqlError>>()?;
    // Post-aggregation rows: the combined source row, then aggregate values.
    let aggregate_slot = |parts: &[ast::Ident]| match parts {
        [one] => one
            .value
            .strip_prefix(AGG_PREFIX)
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| aggs.get(n).map(|a| (width + n, a.ty.clone()))),
        _ => None,
    };
    // The select list sees aggregates and source columns, never the
    // aliases of its own items (`SELECT 65 b, b FROM t` reads column b).
    let resolve_select = |parts: &[ast::Ident]| {
        aggregate_slot(parts).or_else(|| match parts {
            [one] if one.value.starts_with(AGG_PREFIX) => None,
            _ => resolve_source(parts),
        })
    };
    // WITH ROLLUP: over plain GROUP BY columns, without ORDER BY (1221),
    // as MariaDB allows it.
    let rollup = match &sel.group_by {
        ast::GroupByExpr::Expressions(_, modifiers)
            if modifiers.contains(&ast::GroupByWithModifier::Rollup) =>
        {
            if !order.is_empty() {
                return Err(SqlError::new(
                    1221,
                    "Incorrect usage of CUBE/ROLLUP and ORDER BY",
                ));
            }
            Some(())
        }
        _ => None,
    };
    // Window values follow the aggregate values.
    let windows = {
        let mut ctx = s.eval_context(&[]);
        window::compile(
            &window_calls,
            &resolve_select,
            &opts("SELECT"),
            &[],
            &mut ctx,
        )?
    };
    let window_base = width + if aggregating { aggs.len() } else { 0 };
    let window_slot = |parts: &[ast::Ident]| match parts {
        [one] => one
            .value
            .strip_prefix(window::WIN_PREFIX)
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| windows.get(n).map(|w| (window_base + n, w.ty.clone()))),
        _ => None,
    };
    let resolve_select =
        |parts: &[ast::Ident]| window_slot(parts).or_else(|| resolve_select(parts));
    // HAVING and ORDER BY also see the select list's aliases: they read
    // rows of the source row (and aggregate and window values), then the
    // outputs.
    let out_base = window_base + windows.len();
    let resolve_out = |parts: &[ast::Ident]| {
        if let [one] = parts {
            if let Some(slot) = aggregate_slot(parts).or_else(|| window_slot(parts)) {
                return Some(slot);
            }
            if let Some((i, ty)) = aliases.borrow().get(&one.value.to_ascii_lowercase()) {
                // The outputs follow the row HAVING and ORDER BY read.
                return Some((out_base + i, ty.clone()));
            }
        }
        resolve_source(parts)
    };

    // The select list.
    let mut outputs: Vec<Output> = Vec::new();
    for item in projection.iter() {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                let only = match item {
                    ast::SelectItem::QualifiedWildcard(
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                        _,
                    ) => Some(crate::exec::names::object_last(n)),
                    _ => None,
                };
                super::star::expand(s, &sources, only, &used, &mut outputs)?;
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                let alias = match item {
                    ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
                    _ => None,
                };
                let expr = check(eval::compile(e, &resolve_select, &opts("SELECT")))?;
                let mut column = match expr.expr {
                    eval::Expr::Column(c) if c < width => {
                        let src = sources.iter().rev().find(|s| s.offset <= c);
                        src.map(|s| s.columns[c - s.offset].clone())
                            .unwrap_or_else(|| ResultColumn::computed("", expr.ty.ty.clone(), true))
                    }
                    // A NULL written as such (not a subquery's empty result).
                    eval::Expr::Literal(Value::Null)
                        if expr.ty.ty == ColumnType::Binary { len: 0 } =>
                    {
                        ResultColumn {
                            null_literal: true,
                            ..ResultColumn::computed("", expr.ty.ty.clone(), true)
                        }
                    }
                    _ => ResultColumn {
                        fixed_real: fixed_real_of(&expr),
                        ..ResultColumn::computed("", expr.ty.ty.clone(), expr.ty.nullable)
                    },
                };
                column.name = alias.clone().unwrap_or_else(|| {
                    let original = &sel.projection[outputs.len().min(sel.projection.len() - 1)];
                    match original {
                        ast::SelectItem::UnnamedExpr(o) => expr_name(o),
                        _ => expr_name(e),
                    }
                });
                column.nullable = expr.ty.nullable || column.nullable;
                if let Some(a) = alias {
                    aliases
                        .borrow_mut()
                        .insert(a.to_ascii_lowercase(), (outputs.len(), expr.ty.clone()));
                }
                outputs.push(Output { column, expr });
            }
            _ => return Err(SqlError::not_supported("this select item")),
        }
    }

    // WHERE, HAVING, ORDER BY, GROUP BY compiled.
    let where_c = match &sel.selection {
        Some(w) => {
            let mut c = check(eval::compile(w, &resolve_source, &opts("WHERE")))?;
            eval::drop_impossible(&mut c.expr);
            Some(c)
        }
        None => None,
    };
    let order_keys = if order.is_empty() {
        Vec::new()
    } else {
        compile_order(
            s,
            &order,
            &resolve_out,
            &outputs.iter().map(|o| o.column.clone()).collect::<Vec<_>>(),
        )?
    };
    let group_c: Vec<Compiled> = group_exprs
        .iter()
        .map(|g| {
            // GROUP BY 1 / GROUP BY alias name the select list.
            if let ast::Expr::Value(v) = g {
                if let ast::Value::Number(n, _) = &v.value {
                    let i: usize = n.parse().unwrap_or(0);
                    return outputs
                        .get(i.wrapping_sub(1))
                        .map(|o| o.expr.clone())
                        .ok_or_else(|| {
                            SqlError::new(1054, format!("Unknown column '{n}' in 'GROUP BY'"))
                        });
                }
            }
            if let ast::Expr::Identifier(id) = g {
                if resolve_source(std::slice::from_ref(id)).is_none() {
                    if let Some(&(i, _)) = aliases.borrow().get(&id.value.to_ascii_lowercase()) {
                        return Ok(outputs[i].expr.clone());
                    }
                }
            }
            check(eval::compile(g, &resolve_source, &opts("GROUP BY")))
        })
        .collect::<Result<_, _>>()?;

    // HAVING reads a column of the sources only when the select list has it
    // as an item or GROUP BY groups by it (else 1054, as in MariaDB); the
    // columns inside aggregates are the aggregates' own. A MATCH's
    // relevance (`fulltext`) is no column of the table.
    let relevance = |c: usize| {
        sources
            .iter()
            .any(|src| src.matches.iter().any(|m| src.offset + m.column == c))
    };
    let having_c = match having.as_ref() {
        Some(h) => {
            let plain = |e: &eval::Expr, c: usize| matches!(*e, eval::Expr::Column(x) if x == c);
            let resolve_having = |parts: &[ast::Ident]| match resolve_out(parts) {
                Some((c, _))
                    if c < width
                        && !relevance(c)
                        && !outputs.iter().any(|o| plain(&o.expr.expr, c))
                        && !group_c.iter().any(|g| plain(&g.expr, c)) =>
                {
                    None
                }
                found => found,
            };
            Some(check(eval::compile(h, &resolve_having, &opts("HAVING")))?)
        }
        None => None,
    };

    // ORDER BY over plain columns of the first table may come from an index.
    let order_cols: Vec<(usize, bool)> = match sources.first() {
        Some(first)
            if !aggregating
                && sel.distinct.is_none()
                && matches!(first.rows, SourceRows::Table(_)) =>
        {
            let column = |e: &eval::Expr| match *e {
                eval::Expr::Column(c) if c < first.stored_width() => Some(c),
                // ORDER BY <position>: output number usize::MAX - c.
                eval::Expr::Column(c) if c > usize::MAX / 2 => {
                    match outputs.get(usize::MAX - c).map(|o| &o.expr.expr) {
                        Some(&eval::Expr::Column(c)) if c < first.stored_width() => Some(c),
                        _ => None,
                    }
                }
                eval::Expr::Column(c) if c >= out_base => {
                    match outputs.get(c - out_base).map(|o| &o.expr.expr) {
                        Some(&eval::Expr::Column(c)) if c < first.stored_width() => Some(c),
                        _ => None,
                    }
                }
                _ => None,
            };
            order_keys
                .iter()
                .map(|k| column(&k.expr.expr).map(|c| (c, k.desc)))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    // GROUP BY plain columns of the first table: an index read in their
    // order brings the rows group after group (`Groups::in_order`). Only
    // for types whose equality is exactly the index's (numbers, dates and
    // times); strings, whose collations an index may resolve differently
    // at the edges, are grouped by hash.
    let order_cols = match sources.first() {
        Some(first)
            if aggregating
                && rollup.is_none()
                && !group_c.is_empty()
                && matches!(first.rows, SourceRows::Table(_)) =>
        {
            group_c
                .iter()
                .map(|g| match g.expr {
                    eval::Expr::Column(c)
                        if c < first.stored_width() && grouped_in_index_order(&g.ty.ty) =>
                    {
                        Some((c, false))
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default()
        }
        _ => order_cols,
    };
    // The join's last source's values may be moved out of its row (see
    // `join::Emit`): into the kept rows, and into the outputs that alone
    // read them.
    let moves = movable_outputs(&outputs, sources.last().map_or(width, |src| src.offset));
    let rollup = match rollup {
        None => None,
        Some(()) => {
            let mut columns = Vec::with_capacity(group_c.len());
            let mut colls = Vec::with_capacity(group_c.len());
            for g in &group_c {
                match g.expr {
                    eval::Expr::Column(c) if c < width => {
                        columns.push(c);
                        colls.push(g.ty.ty.collation().unwrap_or(Collation::Binary));
                    }
                    _ => {
                        return Err(SqlError::not_supported(
                            "WITH ROLLUP over GROUP BY expressions that are not columns",
                        ))
                    }
                }
            }
            Some((columns, colls))
        }
    };
    Ok(BlockPlan {
        rollup,
        windows,
        moves,
        used: used.into_inner(),
        sources,
        width,
        aggregating,
        aggs,
        outputs,
        where_c,
        having_c,
        order_keys,
        group_c,
        order_cols,
        access: None,
        rows_hint: 0,
        kept_tables: Vec::new(),
    })
}

/// True when values of `ty` that are one group are equal index keys and
/// the reverse, so an index on such columns brings each group's rows
/// together.
fn grouped_in_index_order(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int { .. }
            | ColumnType::Decimal { .. }
            | ColumnType::Date
            | ColumnType::Datetime { .. }
            | ColumnType::Time { .. }
            | ColumnType::Year
    )
}

/// `(M, D)` of a computed FLOAT or DOUBLE result with fixed decimals: a
/// CAST AS DOUBLE(M,D) has its own, another result MariaDB's usual length
/// for D decimals (17 + D).
fn fixed_real_of(c: &eval::Compiled) -> Option<(u32, u32)> {
    let d = c.ty.decimals?;
    Some(match &c.expr {
        eval::Expr::Cast {
            target: eval::CastTarget::FixedDouble { m, d, .. },
            ..
        } => (u32::from(*m), u32::from(*d)),
        _ => (17 + u32::from(d), u32::from(d)),
    })
}
