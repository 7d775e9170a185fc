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
pub(crate) mod source;
mod subquery;
pub(crate) mod system_variables;
use naming::expr_name;

use std::cell::RefCell;
use std::cmp::Ordering;
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

/// ORDER BY over output columns and LIMIT, for UNION results.
fn finish_set(
    s: &Session,
    set: &mut RowSet,
    order: &[ast::OrderByExpr],
    limit: Option<(u64, u64)>,
) -> Result<(), SqlError> {
    if !order.is_empty() {
        let cols = set.columns.clone();
        let resolve = |parts: &[ast::Ident]| {
            let name = &parts.last()?.value;
            cols.iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
                .map(|i| {
                    (
                        i,
                        ExprType {
                            ty: cols[i].ty.clone(),
                            nullable: cols[i].nullable,
                        },
                    )
                })
        };
        let keys = compile_order(s, order, &resolve, &set.columns)?;
        sort_rows(s, &mut set.rows, &keys, |r| r)?;
    }
    apply_limit(&mut set.rows, limit);
    Ok(())
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

fn apply_limit(rows: &mut Vec<Vec<Value>>, limit: Option<(u64, u64)>) {
    if let Some((off, count)) = limit {
        let off = usize::try_from(off).unwrap_or(usize::MAX).min(rows.len());
        rows.drain(..off);
        rows.truncate(usize::try_from(count).unwrap_or(usize::MAX));
    }
}

fn distinct_rows(rows: &mut Vec<Vec<Value>>) {
    let mut seen = std::collections::HashSet::new();
    rows.retain(|r| seen.insert(aggregate::group_key(r, Collation::Utf8mb4GeneralCi)));
}

/// A compiled ORDER BY key.
struct SortKey {
    expr: Compiled,
    desc: bool,
    collation: Collation,
}

fn compile_order(
    s: &Session,
    order: &[ast::OrderByExpr],
    resolve: &eval::Resolver<'_>,
    outputs: &[ResultColumn],
) -> Result<Vec<SortKey>, SqlError> {
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "ORDER BY".into(),
    };
    order
        .iter()
        .map(|o| {
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            // ORDER BY 2: the second output column.
            let expr = match &o.expr {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => {
                        let i: usize = n.parse().unwrap_or(0);
                        if i == 0 || i > outputs.len() {
                            return Err(SqlError::new(
                                1054,
                                format!("Unknown column '{n}' in 'ORDER BY'"),
                            ));
                        }
                        Compiled {
                            expr: eval::Expr::Column(usize::MAX - (i - 1)),
                            ty: ExprType {
                                ty: outputs[i - 1].ty.clone(),
                                nullable: true,
                            },
                        }
                    }
                    _ => eval::compile(&o.expr, resolve, &opts)?,
                },
                e => eval::compile(e, resolve, &opts)?,
            };
            let collation = expr.ty.ty.collation().unwrap_or(Collation::Binary);
            Ok(SortKey {
                expr,
                desc,
                collation,
            })
        })
        .collect()
}

/// Sorts rows by keys evaluated on `view(row)`; positional keys
/// (`usize::MAX - i`) read output column `i` of the row's tail.
fn sort_rows<T>(
    s: &Session,
    items: &mut Vec<T>,
    keys: &[SortKey],
    view: impl Fn(&T) -> &Vec<Value>,
) -> Result<(), SqlError> {
    let mut ctx = s.eval_context(&[]);
    let mut keyed: Vec<(Vec<Value>, T)> = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        let row = view(&item);
        let mut ks = Vec::with_capacity(keys.len());
        for k in keys {
            ks.push(match k.expr.expr {
                eval::Expr::Column(c) if c > usize::MAX / 2 => {
                    let i = usize::MAX - c;
                    row.get(row.len().saturating_sub(OUTPUT_TAIL.with(|t| *t.borrow())) + i)
                        .cloned()
                        .unwrap_or(Value::Null)
                }
                _ => k.expr.eval(row, &mut ctx)?,
            });
        }
        keyed.push((ks, item));
    }
    let mut cmp_ctx = s.eval_context(&[]);
    keyed.sort_by(|a, b| {
        for (i, k) in keys.iter().enumerate() {
            let (x, y) = (&a.0[i], &b.0[i]);
            let o = match (x.is_null(), y.is_null()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => eval::compare(x, y, k.collation, &mut cmp_ctx).unwrap_or(Ordering::Equal),
            };
            let o = if k.desc { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    items.extend(keyed.into_iter().map(|(_, t)| t));
    Ok(())
}

thread_local! {
    /// Number of output columns appended to rows being sorted (positional
    /// ORDER BY reads them).
    static OUTPUT_TAIL: RefCell<usize> = const { RefCell::new(0) };
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

    let mut ctx = s.eval_context(params);
    let mut matched: Vec<Vec<Value>> = Vec::new();
    // Aggregation runs as rows arrive: groups keep their first row and
    // their accumulators.
    let mut groups: Vec<(Vec<Value>, Vec<aggregate::Accumulator>)> = Vec::new();
    let mut group_index: HashMap<Vec<u8>, usize> = HashMap::new();
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
            if !aggregating {
                matched.push(row.to_vec());
                return Ok(stop_after.is_none_or(|n| (matched.len() as u64) < n));
            }
            // Without GROUP BY every row is in the one group.
            let k = if group_c.is_empty() {
                Vec::new()
            } else {
                let mut key = Vec::with_capacity(group_c.len());
                for g in &group_c {
                    key.push(g.eval(row, ctx)?);
                }
                aggregate::group_key(&key, Collation::Utf8mb4GeneralCi)
            };
            let found = if group_c.is_empty() {
                (!groups.is_empty()).then_some(0)
            } else {
                group_index.get(&k).copied()
            };
            let gi = match found {
                Some(i) => i,
                None => {
                    groups.push((
                        row.to_vec(),
                        aggs.iter()
                            .map(|a| aggregate::Accumulator::new(&a.call))
                            .collect(),
                    ));
                    group_index.insert(k, groups.len() - 1);
                    groups.len() - 1
                }
            };
            let mut vals = Vec::new();
            for (a, acc) in aggs.iter().zip(groups[gi].1.iter_mut()) {
                vals.clear();
                for arg in &a.args {
                    vals.push(arg.eval(row, ctx)?);
                }
                acc.add(&a.call, &vals, a.collation, ctx)?;
            }
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
        if groups.is_empty() && group_c.is_empty() {
            groups.push((
                vec![Value::Null; width],
                aggs.iter()
                    .map(|a| aggregate::Accumulator::new(&a.call))
                    .collect(),
            ));
        }
        // GROUP BY sorts by the group columns in MariaDB (without ORDER BY).
        let mut out: Vec<Vec<Value>> = groups
            .into_iter()
            .map(|(mut first, accs)| {
                first.truncate(width);
                first.resize(width, Value::Null);
                for (a, acc) in aggs.iter().zip(accs) {
                    first.push(acc.finish(&a.call, &a.ty));
                }
                first
            })
            .collect();
        if order_keys.is_empty() && !group_c.is_empty() {
            let keys: Vec<SortKey> = group_c
                .iter()
                .map(|g| SortKey {
                    expr: g.clone(),
                    desc: false,
                    collation: g.ty.ty.collation().unwrap_or(Collation::Binary),
                })
                .collect();
            OUTPUT_TAIL.with(|t| *t.borrow_mut() = 0);
            sort_rows(s, &mut out, &keys, |r| r)?;
        }
        out
    } else {
        matched
    };

    // Project (keeping the input row for ORDER BY), HAVING.
    let mut projected: Vec<Vec<Value>> = Vec::with_capacity(rows_in.len());
    for mut row in rows_in {
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
        .map(|mut r| r.split_off(r.len() - n_out))
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
