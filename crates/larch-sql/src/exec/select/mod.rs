//! SELECT: FROM (tables, derived tables, inner and left joins), WHERE with
//! index choice, GROUP BY and aggregates, HAVING, the select list, DISTINCT,
//! ORDER BY, LIMIT/OFFSET, UNION [ALL|DISTINCT], and uncorrelated subqueries
//! (`IN (SELECT ...)`, `EXISTS`, scalar) evaluated once before the query.
//!
//! Plan: the first source is read through the access path `rows` chooses
//! from the WHERE conjuncts that only name it; each later source is joined
//! by nested loops, looking rows up through an index when an ON/WHERE
//! equality binds its leading column to earlier sources (else a scan). The
//! whole WHERE is applied to every combined row. Without aggregation, ORDER
//! BY or DISTINCT, reading stops once OFFSET + LIMIT rows were produced.
//!
//! Reads see the statement's snapshot (`Session::begin_read`). `FOR UPDATE` /
//! `FOR SHARE` / `LOCK IN SHARE MODE` are current reads: every row read from a
//! table is locked (exclusive / shared, with NOWAIT or SKIP LOCKED) and its
//! newest version used, as InnoDB's locking reads do.

mod aggregate;
pub(crate) mod explain;
pub(crate) mod information_schema;
pub(crate) mod innodb_tables;
pub(crate) mod join;
mod naming;
mod order;
mod project;
pub(crate) mod source;
mod subquery;
pub(crate) mod system_variables;
pub(crate) mod view;
use naming::expr_name;
use order::{apply_limit, compile_order, distinct_rows, finish_set, sort_rows, OUTPUT_TAIL};
use project::{project_into, residual_where};

use std::cell::RefCell;
use std::collections::HashMap;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled, ExprType};
use crate::exec::rows;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;
use aggregate::{AggCall, CompiledAgg, AGG_PREFIX};
use source::{JoinKind, Source};

pub(crate) use source::sources;

/// Runs a query and returns its rows.
pub(crate) fn execute(
    s: &mut Session,
    q: &ast::Query,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    s.db.status
        .com_select
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let warnings = RefCell::new(Vec::new());
    // SERIALIZABLE: plain reads inside a transaction lock what they read
    // (shared), as InnoDB turns them into LOCK IN SHARE MODE.
    let serializable = ast::LockClause {
        lock_type: ast::LockType::Share,
        of: None,
        nonblock: None,
    };
    let lock = q
        .locks
        .first()
        .or_else(|| s.serializable_reads().then_some(&serializable));
    let r = if let Some(lock) = lock {
        locking_query(s, q, params, &warnings, lock)
    } else {
        s.begin_read()?;
        let r = run_query_collect(s, q, params, &warnings);
        s.end_read();
        r
    };
    for w in warnings.into_inner() {
        s.push_warning(w);
    }
    let set = r?;
    s.found_rows = set.rows.len() as u64;
    Ok(QueryResult::Rows(set))
}

/// A locking read: in the statement's transaction, newest versions, each row
/// locked as it is read; an autocommit statement commits at its end.
fn locking_query(
    s: &mut Session,
    q: &ast::Query,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
    lock: &ast::LockClause,
) -> Result<RowSet, SqlError> {
    use larch_engine::lock::{LockMode, WaitPolicy};
    let mark = s.statement_mark()?;
    let mode = match lock.lock_type {
        ast::LockType::Update => LockMode::Exclusive,
        ast::LockType::Share => LockMode::Shared,
    };
    let policy = match lock.nonblock {
        Some(ast::NonBlock::Nowait) => Some(WaitPolicy::NoWait),
        Some(ast::NonBlock::SkipLocked) => Some(WaitPolicy::SkipLocked),
        None => None,
    };
    s.read = larch_engine::table::ReadContext::NEWEST;
    s.locking = Some((mode, policy));
    let r = run_query_collect(s, q, params, warnings);
    s.locking = None;
    s.end_statement(r.as_ref().err(), mark)?;
    r
}

thread_local! {
    /// Set while a prepared query is described: queries plan and return
    /// their columns without reading rows.
    static DESCRIBE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The result columns of a query, without running it.
pub(crate) fn describe(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
) -> Result<Vec<ResultColumn>, SqlError> {
    DESCRIBE_ONLY.with(|d| d.set(true));
    let r = run_query(s, q, params);
    DESCRIBE_ONLY.with(|d| d.set(false));
    Ok(r?.columns)
}

/// Runs a query (also used for derived tables, subqueries and INSERT ... SELECT).
pub(crate) fn run_query(s: &Session, q: &ast::Query, params: &[Value]) -> Result<RowSet, SqlError> {
    let warnings = RefCell::new(Vec::new());
    run_query_collect(s, q, params, &warnings)
}

fn run_query_collect(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
) -> Result<RowSet, SqlError> {
    if q.with.is_some() {
        return Err(SqlError::not_supported("WITH"));
    }
    let _depth = explain::enter();
    // Subqueries are replaced by their values in a copy of the query; most
    // queries have none and run on the statement as parsed.
    let inlined;
    let q = if subquery::has_subquery(q) {
        let mut copy = q.clone();
        let in_from = explain::set_in_from(false);
        let r = subquery::inline(s, &mut copy, params);
        explain::set_in_from(in_from);
        r?;
        inlined = copy;
        &inlined
    } else {
        q
    };
    // A query on one mergeable view becomes a query on its base table.
    let merged;
    let q = match view::merge(s, q)? {
        Some(m) => {
            merged = m;
            &merged
        }
        None => q,
    };
    let limit = limit_of(s, q, params)?;
    let order: Vec<ast::OrderByExpr> = match &q.order_by {
        Some(ast::OrderBy {
            kind: ast::OrderByKind::Expressions(v),
            ..
        }) => v.clone(),
        _ => Vec::new(),
    };
    match q.body.as_ref() {
        ast::SetExpr::Select(sel) => run_select(s, sel, &order, limit, params, warnings),
        ast::SetExpr::Query(inner) => {
            let mut set = run_query_collect(s, inner, params, warnings)?;
            finish_set(s, &mut set, &order, limit)?;
            Ok(set)
        }
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            let first = explain::next_id();
            let mut l = run_set_expr(s, left, params, warnings)?;
            explain::union_right();
            let r = run_set_expr(s, right, params, warnings)?;
            if explain::active() {
                explain::union_result(first);
            }
            if l.columns.len() != r.columns.len() {
                return Err(SqlError::new(
                    1222,
                    "The used SELECT statements have a different number of columns",
                ));
            }
            l.rows.extend(r.rows);
            if !matches!(set_quantifier, ast::SetQuantifier::All) {
                distinct_rows(&mut l.rows);
            }
            finish_set(s, &mut l, &order, limit)?;
            Ok(l)
        }
        ast::SetExpr::Values(_) => Err(SqlError::not_supported("VALUES as a query")),
        _ => Err(SqlError::not_supported("this query form")),
    }
}

fn run_set_expr(
    s: &Session,
    e: &ast::SetExpr,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
) -> Result<RowSet, SqlError> {
    match e {
        ast::SetExpr::Select(sel) => run_select(s, sel, &[], None, params, warnings),
        ast::SetExpr::Query(q) => run_query_collect(s, q, params, warnings),
        other => {
            let q = ast::Query {
                with: None,
                body: Box::new(other.clone()),
                order_by: None,
                limit_clause: None,
                fetch: None,
                locks: vec![],
                for_clause: None,
                settings: None,
                format_clause: None,
                pipe_operators: vec![],
            };
            run_query_collect(s, &q, params, warnings)
        }
    }
}

fn limit_of(s: &Session, q: &ast::Query, params: &[Value]) -> Result<Option<(u64, u64)>, SqlError> {
    let num = |e: &ast::Expr| -> Result<u64, SqlError> {
        let resolve = |_: &[ast::Ident]| None;
        let c = eval::compile(e, &resolve, &CompileOptions::default())?;
        let mut ctx = s.eval_context(params);
        match c.eval(&[], &mut ctx)? {
            Value::Int(i) if i >= 0 => Ok(i as u64),
            Value::UInt(u) => Ok(u),
            Value::Null if DESCRIBE_ONLY.with(|d| d.get()) => Ok(u64::MAX),
            _ => Err(SqlError::new(1210, "Incorrect arguments to LIMIT")),
        }
    };
    Ok(match &q.limit_clause {
        None => None,
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => {
            let count = match limit {
                Some(e) => num(e)?,
                None => u64::MAX,
            };
            let off = match offset {
                Some(o) => num(&o.value)?,
                None => 0,
            };
            Some((off, count))
        }
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            Some((num(offset)?, num(limit)?))
        }
    })
}

/// One item of the select list, compiled.
struct Output {
    column: ResultColumn,
    expr: Compiled,
}

fn run_select(
    s: &Session,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    limit: Option<(u64, u64)>,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
) -> Result<RowSet, SqlError> {
    let explain_id = explain::start_block();
    let in_from = explain::set_in_from(true);
    let sources = sources(s, &sel.from, params);
    explain::set_in_from(in_from);
    let sources = sources?;
    let width: usize = sources.iter().map(Source::width).sum();
    let ambiguous: RefCell<Option<SqlError>> = RefCell::new(None);
    let aliases: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
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

    // Aggregation: rewrite aggregate calls into hidden columns.
    let mut projection: Vec<ast::SelectItem> = sel.projection.clone();
    let mut having = sel.having.clone();
    let mut order: Vec<ast::OrderByExpr> = order.to_vec();
    let group_exprs: Vec<ast::Expr> = match &sel.group_by {
        ast::GroupByExpr::Expressions(v, _) => v.clone(),
        ast::GroupByExpr::All(_) => return Err(SqlError::not_supported("GROUP BY ALL")),
    };
    let aggregating = !group_exprs.is_empty()
        || projection.iter().any(|p| match p {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                aggregate::has_aggregate(e)
            }
            _ => false,
        })
        || having.as_ref().is_some_and(aggregate::has_aggregate);
    let mut calls: Vec<AggCall> = Vec::new();
    if aggregating {
        for p in &mut projection {
            if let ast::SelectItem::UnnamedExpr(e)
            | ast::SelectItem::ExprWithAlias { expr: e, .. } = p
            {
                aggregate::rewrite(e, &mut calls)?;
            }
        }
        if let Some(h) = &mut having {
            aggregate::rewrite(h, &mut calls)?;
        }
        for o in &mut order {
            aggregate::rewrite(&mut o.expr, &mut calls)?;
        }
    }
    let aggs: Vec<CompiledAgg> = calls
        .iter()
        .map(|c| {
            let args = c
                .args
                .iter()
                .map(|a| check(eval::compile(a, &resolve_source, &opts("SELECT"))))
                .collect::<Result<Vec<_>, _>>()?;
            let ty = aggregate::result_type(c.kind, args.first().map(|a| &a.ty));
            let collation = args
                .first()
                .and_then(|a| a.ty.ty.collation())
                .unwrap_or(Collation::Binary);
            Ok(CompiledAgg {
                call: c.clone(),
                args,
                ty,
                collation,
            })
        })
        .collect::<Result<_, SqlError>>()?;
    // Post-aggregation rows: the combined source row, then aggregate values.
    let resolve_out = |parts: &[ast::Ident]| {
        if let [one] = parts {
            if let Some(n) = one
                .value
                .strip_prefix(AGG_PREFIX)
                .and_then(|n| n.parse::<usize>().ok())
            {
                return aggs.get(n).map(|a| (width + n, a.ty.clone()));
            }
            if let Some(&i) = aliases.borrow().get(&one.value.to_ascii_lowercase()) {
                return Some((
                    usize::MAX - i,
                    ExprType {
                        ty: larch_engine::record::value::ColumnType::Double,
                        nullable: true,
                    },
                ));
            }
        }
        resolve_source(parts)
    };

    // The select list.
    let mut outputs: Vec<Output> = Vec::new();
    for item in &projection {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                let only = match item {
                    ast::SelectItem::QualifiedWildcard(
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                        _,
                    ) => Some(crate::exec::names::object_last(n)),
                    _ => None,
                };
                if sources.is_empty() {
                    return Err(SqlError::new(1096, "No tables used"));
                }
                let mut any = false;
                for src in &sources {
                    if only.as_ref().is_some_and(|a| *a != src.alias) {
                        continue;
                    }
                    any = true;
                    for u in &mut used.borrow_mut()[src.offset..src.offset + src.width()] {
                        *u = true;
                    }
                    for (i, c) in src.columns.iter().enumerate() {
                        let mut column = c.clone();
                        column.nullable |= src.join == JoinKind::Left;
                        outputs.push(Output {
                            expr: Compiled {
                                expr: eval::Expr::Column(src.offset + i),
                                ty: ExprType {
                                    ty: c.ty.clone(),
                                    nullable: column.nullable,
                                },
                            },
                            column,
                        });
                    }
                }
                if !any {
                    return Err(SqlError::new(
                        1051,
                        format!("Unknown table '{}'", only.unwrap_or_default()),
                    ));
                }
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                let alias = match item {
                    ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
                    _ => None,
                };
                let expr = check(eval::compile(e, &resolve_out, &opts("SELECT")))?;
                let mut column = match expr.expr {
                    eval::Expr::Column(c) if c < width => {
                        let src = sources.iter().rev().find(|s| s.offset <= c);
                        src.map(|s| s.columns[c - s.offset].clone())
                            .unwrap_or_else(|| ResultColumn::computed("", expr.ty.ty.clone(), true))
                    }
                    _ => ResultColumn::computed("", expr.ty.ty.clone(), expr.ty.nullable),
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
                        .insert(a.to_ascii_lowercase(), outputs.len());
                }
                outputs.push(Output { column, expr });
            }
            _ => return Err(SqlError::not_supported("this select item")),
        }
    }
    let n_out = outputs.len();

    // WHERE, HAVING, ORDER BY, GROUP BY compiled.
    let where_c = match &sel.selection {
        Some(w) => Some(check(eval::compile(w, &resolve_source, &opts("WHERE")))?),
        None => None,
    };
    let having_c = match &having {
        Some(h) => Some(check(eval::compile(h, &resolve_out, &opts("HAVING")))?),
        None => None,
    };
    let order_keys = compile_order(
        s,
        &order,
        &resolve_out,
        &outputs.iter().map(|o| o.column.clone()).collect::<Vec<_>>(),
    )?;
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
                    if let Some(&i) = aliases.borrow().get(&id.value.to_ascii_lowercase()) {
                        return Ok(outputs[i].expr.clone());
                    }
                }
            }
            check(eval::compile(g, &resolve_source, &opts("GROUP BY")))
        })
        .collect::<Result<_, _>>()?;

    // Early stop when rows come out in final order.
    if DESCRIBE_ONLY.with(|d| d.get()) {
        return Ok(RowSet {
            columns: outputs.into_iter().map(|o| o.column).collect(),
            rows: Vec::new(),
        });
    }
    // ORDER BY over plain columns of the first table may come from an index.
    let order_cols: Vec<(usize, bool)> = match sources.first() {
        Some(first)
            if !aggregating
                && sel.distinct.is_none()
                && matches!(first.rows, source::SourceRows::Table(_)) =>
        {
            let column = |e: &eval::Expr| match *e {
                eval::Expr::Column(c) if c < first.width() => Some(c),
                eval::Expr::Column(c) if c > usize::MAX / 2 => {
                    match outputs.get(usize::MAX - c).map(|o| &o.expr.expr) {
                        Some(&eval::Expr::Column(c)) if c < first.width() => Some(c),
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
    let conds: Vec<&ast::Expr> = sel
        .selection
        .as_ref()
        .map(rows::conjuncts)
        .unwrap_or_default();
    let used = used.into_inner();
    let plan = join::plan(
        s,
        &sources,
        &conds,
        params,
        join::JoinWant {
            used: Some(&used),
            order: &order_cols,
            limited: limit.is_some(),
        },
    )?;
    let sorted = plan.first.ordered && !order_cols.is_empty();
    // Conjuncts the first source's ranges enforce are not checked per row.
    let where_c = if plan.first.exact.is_empty() {
        where_c
    } else {
        let resolve = |parts: &[ast::Ident]| source::resolve(&sources, parts).ok().flatten();
        residual_where(&conds, &plan.first.exact, |e| {
            eval::compile(e, &resolve, &opts("WHERE"))
        })?
    };
    if let Some(id) = explain_id {
        let shape = explain::BlockShape {
            sources: &sources,
            plan: &plan,
            conds: &conds,
            filesort: (!order_keys.is_empty() && !sorted) || !group_c.is_empty(),
            temporary: !group_c.is_empty() || sel.distinct.is_some(),
        };
        explain::record_block(s, id, &shape);
        return Ok(RowSet {
            columns: outputs.into_iter().map(|o| o.column).collect(),
            rows: Vec::new(),
        });
    }
    let streaming = !aggregating && (order_keys.is_empty() || sorted) && sel.distinct.is_none();
    let stop_after = match (streaming, limit) {
        (true, Some((off, n))) => Some(off.saturating_add(n)),
        _ => None,
    };

    // Without aggregation, HAVING or a sort, a row is projected as it
    // arrives: only the output values are kept.
    let project_early = !aggregating && having_c.is_none() && (order_keys.is_empty() || sorted);
    let mut ctx = s.eval_context(params);
    let mut matched: Vec<Vec<Value>> = Vec::new();
    // Aggregation runs as rows arrive: groups keep their first row and
    // their accumulators.
    let mut groups = aggregate::Groups::default();
    let mut rows_read = 0u64;
    if stop_after != Some(0) {
        let mut emit = |row: &[Value],
                        _: &[Option<larch_engine::table::RowRef>],
                        ctx: &mut eval::EvalContext<'_>|
         -> Result<bool, SqlError> {
            if let Some(w) = &where_c {
                if !rows::truthy(&w.eval(row, ctx)?) {
                    return Ok(true);
                }
            }
            rows_read += 1;
            if project_early {
                let mut out = Vec::with_capacity(n_out);
                project_into(row, &outputs, ctx, &mut out)?;
                matched.push(out);
                return Ok(stop_after.is_none_or(|n| (matched.len() as u64) < n));
            }
            if !aggregating {
                // Room for the output columns appended below.
                let mut kept = Vec::with_capacity(row.len() + n_out);
                kept.extend_from_slice(row);
                matched.push(kept);
                return Ok(stop_after.is_none_or(|n| (matched.len() as u64) < n));
            }
            groups.add(row, &group_c, &aggs, ctx)?;
            Ok(true)
        };
        if sources.is_empty() {
            emit(&[], &[], &mut ctx)?;
        } else {
            join::run(s, &sources, &plan, &mut ctx, &mut emit)?;
        }
    }
    s.db.status
        .rows_read
        .fetch_add(rows_read, std::sync::atomic::Ordering::Relaxed);

    // Aggregate results.
    let rows_in: Vec<Vec<Value>> = if aggregating {
        groups.finish(s, width, &group_c, &aggs, order_keys.is_empty())?
    } else {
        matched
    };

    // Project (keeping the input row for ORDER BY), HAVING.
    let mut projected: Vec<Vec<Value>> = Vec::with_capacity(rows_in.len());
    for mut row in rows_in {
        if project_early {
            projected.push(row);
            continue;
        }
        let base = row.len();
        for o in &outputs {
            let v = match o.expr.expr {
                eval::Expr::Column(c) if c > usize::MAX / 2 => row[base + (usize::MAX - c)].clone(),
                _ => o.expr.eval(&row, &mut ctx)?,
            };
            row.push(v);
        }
        if let Some(h) = &having_c {
            let hv = match h.expr {
                eval::Expr::Column(c) if c > usize::MAX / 2 => row[base + (usize::MAX - c)].clone(),
                _ => h.eval(&row, &mut ctx)?,
            };
            if !rows::truthy(&hv) {
                continue;
            }
        }
        projected.push(row);
    }
    for w in ctx.take_warnings() {
        warnings.borrow_mut().push(w);
    }
    drop(ctx);
    if !order_keys.is_empty() && !sorted {
        OUTPUT_TAIL.with(|t| *t.borrow_mut() = n_out);
        sort_rows(s, &mut projected, &order_keys, |r| r)?;
    }
    let mut out_rows: Vec<Vec<Value>> = projected
        .into_iter()
        .map(|mut r| {
            r.drain(..r.len() - n_out);
            r
        })
        .collect();
    if sel.distinct.is_some() {
        distinct_rows(&mut out_rows);
    }
    apply_limit(&mut out_rows, limit);
    Ok(RowSet {
        columns: outputs.into_iter().map(|o| o.column).collect(),
        rows: out_rows,
    })
}
