//! Window functions: `f(...) OVER (PARTITION BY ... ORDER BY ... frame)`
//! and named windows (`WINDOW w AS (...)`, `OVER w`, `OVER (w ORDER BY
//! ...)`), as MariaDB 10.11 runs them.
//!
//! Planning ([`rewrite`], [`compile`]): each window call in the select list
//! or ORDER BY becomes a hidden column named [`WIN_PREFIX`] and its number
//! (the name starts with `parse::INTERNAL_NAME_MARK`: no statement can
//! spell it), as aggregates do; its arguments, PARTITION BY and ORDER BY
//! are compiled against the rows the select list reads (source row, then
//! aggregate values), so `SUM(SUM(x)) OVER ()` works.
//!
//! Running ([`compute`]): after WHERE, GROUP BY and the aggregates, every
//! row gets one value per window call, appended after the aggregate
//! values; the select list, ORDER BY, DISTINCT and LIMIT come after, as in
//! SQL. Rows are sorted once per distinct (PARTITION BY, ORDER BY) pair by
//! those keys (collations and NULLs first, as ORDER BY sorts), split into
//! partitions and ranges of peers (rows equal on ORDER BY), and then:
//! - ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST and NTILE from
//!   positions and peers; LAG and LEAD from neighbours in the partition;
//! - FIRST_VALUE, LAST_VALUE, NTH_VALUE and the aggregates (COUNT, SUM,
//!   AVG, MIN, MAX, BIT_AND/OR/XOR, STD/VARIANCE and their kinds) over the
//!   frame of each row: `ROWS` or `RANGE` between UNBOUNDED/n PRECEDING,
//!   CURRENT ROW and n/UNBOUNDED FOLLOWING. Without a frame the frame is
//!   the whole partition, or with ORDER BY `RANGE BETWEEN UNBOUNDED
//!   PRECEDING AND CURRENT ROW` (the row and its peers). A frame that
//!   starts at the partition's first row is aggregated incrementally.
//!
//! What MariaDB refuses, Larch refuses too: a window function outside the
//! select list and ORDER BY (4015), DISTINCT and GROUP_CONCAT/JSON
//! aggregates as window functions (1235), `RANGE n PRECEDING` without one
//! numeric ORDER BY key (4019/4020 in MariaDB; 1235 here).

use std::cmp::Ordering;
use std::ops::ControlFlow;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::aggregate::{self, Accumulator, AggCall, AggKind};
use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled, EvalContext, ExprType, Resolver};

/// Prefix of the hidden column names that stand for window results.
pub(crate) const WIN_PREFIX: &str = "\u{1}win_";

/// What a window call computes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Function {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    Aggregate,
}

/// One window call found in a SELECT block, before compiling.
#[derive(Debug, Clone)]
pub(crate) struct WindowCall {
    function: Function,
    /// The aggregate of an aggregate used as a window function.
    aggregate: Option<AggCall>,
    args: Vec<ast::Expr>,
    partition: Vec<ast::Expr>,
    order: Vec<ast::OrderByExpr>,
    frame: Option<ast::WindowFrame>,
}

impl WindowCall {
    /// The expressions the call reads (for the aggregate rewrite).
    pub(crate) fn exprs_mut(&mut self) -> impl Iterator<Item = &mut ast::Expr> {
        self.args
            .iter_mut()
            .chain(self.partition.iter_mut())
            .chain(self.order.iter_mut().map(|o| &mut o.expr))
            .chain(self.aggregate.iter_mut().flat_map(|a| a.args.iter_mut()))
    }
}

fn function_of(name: &str) -> Option<Function> {
    Some(match name.to_ascii_uppercase().as_str() {
        "ROW_NUMBER" => Function::RowNumber,
        "RANK" => Function::Rank,
        "DENSE_RANK" => Function::DenseRank,
        "PERCENT_RANK" => Function::PercentRank,
        "CUME_DIST" => Function::CumeDist,
        "NTILE" => Function::Ntile,
        "LAG" => Function::Lag,
        "LEAD" => Function::Lead,
        "FIRST_VALUE" => Function::FirstValue,
        "LAST_VALUE" => Function::LastValue,
        "NTH_VALUE" => Function::NthValue,
        _ => return None,
    })
}

/// True when `e` calls a window function.
pub(crate) fn has_window(e: &ast::Expr) -> bool {
    ast::visit_expressions(e, |x| match x {
        ast::Expr::Function(f) if f.over.is_some() => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// 4015, MariaDB's error for a window function where none may be.
pub(crate) fn misplaced() -> SqlError {
    SqlError::new(
        4015,
        "Window function is allowed only in SELECT list and ORDER BY clause",
    )
}

/// Replaces the window calls in `e` by hidden column references, appending
/// them to `calls`; `named` are the block's `WINDOW` definitions.
pub(crate) fn rewrite(
    e: &mut ast::Expr,
    named: &[ast::NamedWindowDefinition],
    calls: &mut Vec<WindowCall>,
) -> Result<(), SqlError> {
    let mut err = None;
    let _ = ast::visit_expressions_mut(e, |x| {
        let ast::Expr::Function(f) = x else {
            return ControlFlow::Continue(());
        };
        let Some(over) = &f.over else {
            return ControlFlow::Continue(());
        };
        match call_of(f, over, named) {
            Ok(call) => {
                let n = calls.len();
                calls.push(call);
                *x = ast::Expr::Identifier(ast::Ident::with_quote('`', format!("{WIN_PREFIX}{n}")));
                ControlFlow::Continue(())
            }
            Err(e) => {
                err = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    err.map_or(Ok(()), Err)
}

/// The window call `f` makes with window `over`.
fn call_of(
    f: &ast::Function,
    over: &ast::WindowType,
    named: &[ast::NamedWindowDefinition],
) -> Result<WindowCall, SqlError> {
    let name = f.name.to_string();
    let spec = window_spec(over, named, 0)?;
    let (function, aggregate, args) = match function_of(&name) {
        Some(function) => {
            let args = match &f.args {
                ast::FunctionArguments::None => Vec::new(),
                ast::FunctionArguments::List(list) => {
                    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
                        return Err(SqlError::wrong_param_count(&name));
                    }
                    list.args
                        .iter()
                        .map(|a| match a {
                            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                                Ok(e.clone())
                            }
                            _ => Err(SqlError::wrong_param_count(&name)),
                        })
                        .collect::<Result<_, _>>()?
                }
                ast::FunctionArguments::Subquery(_) => {
                    return Err(SqlError::wrong_param_count(&name))
                }
            };
            let (min, max) = match function {
                Function::Ntile | Function::FirstValue | Function::LastValue => (1, 1),
                Function::Lag | Function::Lead => (1, 2),
                Function::NthValue => (2, 2),
                _ => (0, 0),
            };
            if args.len() < min || args.len() > max {
                // MariaDB's grammar spells out each window function.
                return Err(SqlError::Syntax {
                    near: crate::parse::near_text(&f.to_string()),
                    line: 1,
                });
            }
            (function, None, args)
        }
        None => match aggregate::call_of(f)? {
            Some(call) => {
                if call.distinct {
                    return Err(SqlError::not_supported(&format!(
                        "{}(DISTINCT) aggregate as window function",
                        name.to_ascii_uppercase()
                    )));
                }
                if matches!(
                    call.kind,
                    AggKind::GroupConcat | AggKind::JsonArrayAgg | AggKind::JsonObjectAgg
                ) {
                    return Err(SqlError::not_supported(&format!(
                        "{}() aggregate as window function",
                        name.to_ascii_uppercase()
                    )));
                }
                (Function::Aggregate, Some(call), Vec::new())
            }
            None => {
                return Err(SqlError::new(
                    1305,
                    format!("FUNCTION {name} does not exist"),
                ))
            }
        },
    };
    let ranking = matches!(
        function,
        Function::Rank
            | Function::DenseRank
            | Function::PercentRank
            | Function::CumeDist
            | Function::Ntile
            | Function::Lag
            | Function::Lead
            | Function::RowNumber
    );
    // MariaDB needs an order for these (4018); ROW_NUMBER and NTILE take
    // the partition as it comes.
    if matches!(
        function,
        Function::Rank
            | Function::DenseRank
            | Function::PercentRank
            | Function::CumeDist
            | Function::Lag
            | Function::Lead
    ) && spec.order_by.is_empty()
    {
        return Err(SqlError::new(
            4018,
            format!(
                "No order list in window specification for '{}'",
                name.to_lowercase()
            ),
        ));
    }
    if let Some(frame) = &spec.window_frame {
        if frame.units == ast::WindowFrameUnits::Groups {
            return Err(SqlError::Syntax {
                near: "GROUPS".into(),
                line: 1,
            });
        }
    }
    Ok(WindowCall {
        function,
        aggregate,
        args,
        partition: spec.partition_by,
        order: spec.order_by,
        frame: if ranking { None } else { spec.window_frame },
    })
}

/// The window `over` names or spells, named windows resolved.
fn window_spec(
    over: &ast::WindowType,
    named: &[ast::NamedWindowDefinition],
    depth: usize,
) -> Result<ast::WindowSpec, SqlError> {
    if depth > named.len() {
        return Err(SqlError::new(
            4007,
            "Window specification referencing another one creates a cycle",
        ));
    }
    let by_name = |name: &ast::Ident| -> Result<ast::WindowSpec, SqlError> {
        let def = named
            .iter()
            .find(|d| d.0.value.eq_ignore_ascii_case(&name.value))
            .ok_or_else(|| {
                SqlError::new(
                    4004,
                    format!("Window specification with name '{name}' is not defined"),
                )
            })?;
        match &def.1 {
            ast::NamedWindowExpr::WindowSpec(spec) => {
                window_spec(&ast::WindowType::WindowSpec(spec.clone()), named, depth + 1)
            }
            ast::NamedWindowExpr::NamedWindow(other) => window_spec(
                &ast::WindowType::NamedWindow(other.clone()),
                named,
                depth + 1,
            ),
        }
    };
    match over {
        ast::WindowType::NamedWindow(name) => by_name(name),
        ast::WindowType::WindowSpec(spec) => match &spec.window_name {
            None => Ok(spec.clone()),
            Some(base_name) => {
                let base = by_name(base_name)?;
                if !spec.partition_by.is_empty() {
                    return Err(SqlError::new(
                        4005,
                        format!("Window specification referencing another one '{base_name}' cannot contain partition list"),
                    ));
                }
                if !spec.order_by.is_empty() && !base.order_by.is_empty() {
                    return Err(SqlError::new(
                        4006,
                        format!("Referenced window specification '{base_name}' already contains order list"),
                    ));
                }
                if base.window_frame.is_some() {
                    return Err(SqlError::new(
                        4007,
                        format!("Referenced window specification '{base_name}' cannot contain window frame"),
                    ));
                }
                Ok(ast::WindowSpec {
                    window_name: None,
                    partition_by: base.partition_by,
                    order_by: if spec.order_by.is_empty() {
                        base.order_by
                    } else {
                        spec.order_by.clone()
                    },
                    window_frame: spec.window_frame.clone(),
                })
            }
        },
    }
}

/// One end of a frame, compiled.
#[derive(Debug, Clone)]
enum Bound {
    Unbounded,
    Current,
    /// n rows (ROWS) or n in ORDER BY units (RANGE) before (negative) or
    /// after the current row.
    Offset(f64),
}

/// A window call compiled.
pub(crate) struct CompiledWindow {
    function: Function,
    aggregate: Option<AggCall>,
    args: Vec<Compiled>,
    partition: Vec<Compiled>,
    order: Vec<(Compiled, bool, Collation)>,
    /// `None`: the whole partition, or with ORDER BY the row and its peers
    /// and all before.
    frame: Option<(bool, Bound, Bound)>,
    /// The collation aggregates compare strings by (MIN, MAX).
    collation: Collation,
    pub(crate) ty: ExprType,
}

/// Compiles `calls` against the rows the select list reads.
pub(crate) fn compile(
    calls: &[WindowCall],
    resolve: &Resolver<'_>,
    opts: &CompileOptions,
    params: &[Value],
    ctx: &mut EvalContext<'_>,
) -> Result<Vec<CompiledWindow>, SqlError> {
    calls
        .iter()
        .map(|c| {
            let args = c
                .aggregate
                .as_ref()
                .map_or(&c.args, |a| &a.args)
                .iter()
                .map(|a| eval::compile(a, resolve, opts))
                .collect::<Result<Vec<_>, _>>()?;
            let partition = c
                .partition
                .iter()
                .map(|p| eval::compile(p, resolve, opts))
                .collect::<Result<Vec<_>, _>>()?;
            let order = c
                .order
                .iter()
                .map(|o| {
                    let k = eval::compile(&o.expr, resolve, opts)?;
                    let coll = k.ty.ty.collation().unwrap_or(Collation::Binary);
                    let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
                    Ok((k, desc, coll))
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            let frame = match &c.frame {
                None => None,
                Some(f) => Some(frame_of(f, &order, resolve, opts, params, ctx)?),
            };
            let first = args.first().map(|a| a.ty.clone());
            let int = ExprType {
                ty: ColumnType::Int {
                    bytes: 8,
                    unsigned: false,
                },
                nullable: false,
                decimals: None,
            };
            let ty = match c.function {
                Function::RowNumber | Function::Rank | Function::DenseRank | Function::Ntile => int,
                // MariaDB shows these with 10 decimals.
                Function::PercentRank | Function::CumeDist => ExprType {
                    ty: ColumnType::Double,
                    nullable: false,
                    decimals: Some(10),
                },
                Function::Aggregate => match &c.aggregate {
                    Some(a) => aggregate::result_type(a.kind, first.as_ref(), true),
                    None => int,
                },
                // LEAD, LAG, FIRST_VALUE, ...: the argument's type.
                _ => match first {
                    Some(t) => ExprType {
                        nullable: true,
                        ..t
                    },
                    None => ExprType {
                        ty: ColumnType::Double,
                        nullable: true,
                        decimals: None,
                    },
                },
            };
            let collation = args
                .first()
                .and_then(|a| a.ty.ty.collation())
                .unwrap_or(Collation::Binary);
            Ok(CompiledWindow {
                function: c.function,
                aggregate: c.aggregate.clone(),
                args,
                partition,
                order,
                frame,
                collation,
                ty,
            })
        })
        .collect()
}

/// A frame clause compiled: (RANGE?, start, end).
fn frame_of(
    f: &ast::WindowFrame,
    order: &[(Compiled, bool, Collation)],
    resolve: &Resolver<'_>,
    opts: &CompileOptions,
    params: &[Value],
    ctx: &mut EvalContext<'_>,
) -> Result<(bool, Bound, Bound), SqlError> {
    let range = f.units == ast::WindowFrameUnits::Range;
    let mut bound = |b: &ast::WindowFrameBound| -> Result<Bound, SqlError> {
        let (e, sign) = match b {
            ast::WindowFrameBound::CurrentRow => return Ok(Bound::Current),
            ast::WindowFrameBound::Preceding(None) | ast::WindowFrameBound::Following(None) => {
                return Ok(Bound::Unbounded)
            }
            ast::WindowFrameBound::Preceding(Some(e)) => (e, -1.0),
            ast::WindowFrameBound::Following(Some(e)) => (e, 1.0),
        };
        if matches!(e.as_ref(), ast::Expr::Interval(_)) {
            return Err(SqlError::not_supported("RANGE frames with INTERVAL"));
        }
        let c = eval::compile(e, resolve, opts)?;
        let _ = params;
        let v = c.eval(&[], ctx)?;
        let n = eval::convert::to_f64(&v, ctx);
        if v.is_null() || n < 0.0 || (!range && n.fract() != 0.0) {
            return Err(SqlError::new(
                4021,
                "Frame bound value must be a non-negative integer constant",
            ));
        }
        if range && (order.len() != 1 || order[0].0.ty.ty.collation().is_some()) {
            return Err(SqlError::not_supported(
                "RANGE-type frame with an offset and other than one numeric ORDER BY key",
            ));
        }
        Ok(Bound::Offset(sign * n))
    };
    let start = bound(&f.start_bound)?;
    let end = match &f.end_bound {
        Some(b) => bound(b)?,
        None => Bound::Current,
    };
    if matches!(f.start_bound, ast::WindowFrameBound::Following(None))
        || matches!(f.end_bound, Some(ast::WindowFrameBound::Preceding(None)))
    {
        return Err(SqlError::new(
            4009,
            "Unacceptable combination of window frame bound specifications",
        ));
    }
    Ok((range, start, end))
}

/// Appends each window's value to every row of `rows` (see the module
/// docs).
pub(crate) fn compute(
    rows: &mut [Vec<Value>],
    windows: &[CompiledWindow],
    ctx: &mut EvalContext<'_>,
) -> Result<(), SqlError> {
    let n = rows.len();
    let mut values: Vec<Vec<Value>> = vec![Vec::with_capacity(windows.len()); n];
    for w in windows {
        // Keys and arguments of every row.
        let mut keys: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(n);
        let mut args: Vec<Vec<Value>> = Vec::with_capacity(n);
        for row in rows.iter() {
            let p = w
                .partition
                .iter()
                .map(|e| e.eval(row, ctx))
                .collect::<Result<Vec<_>, _>>()?;
            let o = w
                .order
                .iter()
                .map(|(e, _, _)| e.eval(row, ctx))
                .collect::<Result<Vec<_>, _>>()?;
            keys.push((p, o));
            args.push(
                w.args
                    .iter()
                    .map(|e| e.eval(row, ctx))
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        let mut order: Vec<usize> = (0..n).collect();
        let pcolls: Vec<Collation> = w
            .partition
            .iter()
            .map(|p| p.ty.ty.collation().unwrap_or(Collation::Binary))
            .collect();
        order.sort_by(|&a, &b| {
            compare_list(&keys[a].0, &keys[b].0, &pcolls, None, ctx)
                .then_with(|| compare_list(&keys[a].1, &keys[b].1, &[], Some(&w.order), ctx))
        });
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n
                && compare_list(
                    &keys[order[start]].0,
                    &keys[order[end]].0,
                    &pcolls,
                    None,
                    ctx,
                ) == Ordering::Equal
            {
                end += 1;
            }
            let part = &order[start..end];
            let out = partition_values(w, part, &keys, &args, ctx)?;
            for (&row, v) in part.iter().zip(out) {
                values[row].push(v);
            }
            start = end;
        }
    }
    for (row, mut v) in rows.iter_mut().zip(values) {
        row.append(&mut v);
    }
    Ok(())
}

/// Compares key lists: partition keys by `colls`, or ORDER BY keys by
/// `order`'s collations and directions; NULLs first and equal.
fn compare_list(
    a: &[Value],
    b: &[Value],
    colls: &[Collation],
    order: Option<&[(Compiled, bool, Collation)]>,
    ctx: &mut EvalContext<'_>,
) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let (coll, desc) = match order {
            Some(o) => (o[i].2, o[i].1),
            None => (colls.get(i).copied().unwrap_or(Collation::Binary), false),
        };
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => {
                // ENUM and SET values order by member number, UUIDs in
                // MariaDB's UUID order, as ORDER BY sorts them.
                let ty = order.map(|o| &o[i].0.ty.ty);
                let member = ty.and_then(|t| {
                    Some((eval::member_number_of(x, t)?, eval::member_number_of(y, t)?))
                });
                let uuid = || {
                    ty.and_then(|t| Some((eval::uuid_order_of(x, t)?, eval::uuid_order_of(y, t)?)))
                };
                match (member, uuid()) {
                    (Some((a, b)), _) => a.cmp(&b),
                    (None, Some((a, b))) => a.cmp(&b),
                    _ => eval::compare(x, y, coll, ctx).unwrap_or(Ordering::Equal),
                }
            }
        };
        let o = if desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The values of window `w` for the rows of one partition (`part`: row
/// numbers in window order).
fn partition_values(
    w: &CompiledWindow,
    part: &[usize],
    keys: &[(Vec<Value>, Vec<Value>)],
    args: &[Vec<Value>],
    ctx: &mut EvalContext<'_>,
) -> Result<Vec<Value>, SqlError> {
    let m = part.len();
    // peers[j]: (first, last) position of row j's peers.
    let mut peers = vec![(0usize, 0usize); m];
    let mut j = 0;
    while j < m {
        let mut k = j + 1;
        while k < m
            && compare_list(&keys[part[j]].1, &keys[part[k]].1, &[], Some(&w.order), ctx)
                == Ordering::Equal
        {
            k += 1;
        }
        for p in &mut peers[j..k] {
            *p = (j, k - 1);
        }
        j = k;
    }
    let arg =
        |j: usize, i: usize| -> Value { args[part[j]].get(i).cloned().unwrap_or(Value::Null) };
    let int = |v: usize| Value::Int(v as i64);
    let mut out = Vec::with_capacity(m);
    match w.function {
        Function::RowNumber => out.extend((1..=m).map(int)),
        Function::Rank => out.extend(peers.iter().map(|p| int(p.0 + 1))),
        Function::DenseRank => {
            let mut rank = 0;
            for (j, p) in peers.iter().enumerate() {
                if p.0 == j {
                    rank += 1;
                }
                out.push(int(rank));
            }
        }
        Function::PercentRank => out.extend(peers.iter().map(|p| {
            Value::Double(if m > 1 {
                p.0 as f64 / (m - 1) as f64
            } else {
                0.0
            })
        })),
        Function::CumeDist => out.extend(
            peers
                .iter()
                .map(|p| Value::Double((p.1 + 1) as f64 / m as f64)),
        ),
        Function::Ntile => {
            let buckets = match eval::convert::to_f64(&arg(0, 0), ctx) {
                b if b >= 1.0 && b.fract() == 0.0 => b as usize,
                _ => return Err(SqlError::new(1210, "Incorrect arguments to NTILE")),
            };
            let (size, extra) = (m / buckets, m % buckets);
            for j in 0..m {
                // The first `extra` buckets hold one row more.
                let big = (size + 1) * extra;
                let b = if j < big {
                    j / (size + 1)
                } else {
                    extra + (j - big) / size.max(1)
                };
                out.push(int(b + 1));
            }
        }
        Function::Lag | Function::Lead => {
            for j in 0..m {
                let offset = match args[part[j]].get(1) {
                    None => 1,
                    Some(v) => match eval::convert::to_f64(v, ctx) {
                        o if o >= 0.0 && o.fract() == 0.0 => o as usize,
                        _ => return Err(SqlError::new(1210, "Incorrect arguments to LAG/LEAD")),
                    },
                };
                let at = if w.function == Function::Lag {
                    j.checked_sub(offset)
                } else {
                    Some(j + offset).filter(|&k| k < m)
                };
                out.push(match at {
                    Some(k) => arg(k, 0),
                    None => Value::Null,
                });
            }
        }
        Function::FirstValue | Function::LastValue | Function::NthValue | Function::Aggregate => {
            let frames: Vec<Option<(usize, usize)>> = (0..m)
                .map(|j| frame_rows(w, j, &peers, part, keys, ctx))
                .collect();
            if w.function == Function::Aggregate {
                aggregate_frames(w, &frames, part, args, ctx, &mut out)?;
            } else {
                for (j, f) in frames.iter().enumerate() {
                    out.push(match (w.function, f) {
                        (_, None) => Value::Null,
                        (Function::FirstValue, Some((lo, _))) => arg(*lo, 0),
                        (Function::LastValue, Some((_, hi))) => arg(*hi, 0),
                        (_, Some((lo, hi))) => {
                            let nth = eval::convert::to_f64(&arg(j, 1), ctx);
                            if nth < 1.0 || nth.fract() != 0.0 {
                                return Err(SqlError::new(
                                    1210,
                                    "Incorrect arguments to NTH_VALUE",
                                ));
                            }
                            let k = lo + nth as usize - 1;
                            if k <= *hi {
                                arg(k, 0)
                            } else {
                                Value::Null
                            }
                        }
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The rows (first, last; positions in the partition) of row `j`'s frame,
/// `None` when empty.
fn frame_rows(
    w: &CompiledWindow,
    j: usize,
    peers: &[(usize, usize)],
    part: &[usize],
    keys: &[(Vec<Value>, Vec<Value>)],
    ctx: &mut EvalContext<'_>,
) -> Option<(usize, usize)> {
    let m = part.len() as i64;
    let (range, start, end) = match &w.frame {
        None if w.order.is_empty() => return Some((0, part.len() - 1)),
        None => return Some((0, peers[j].1)),
        Some((range, s, e)) => (*range, s, e),
    };
    let mut pos = |b: &Bound, is_start: bool| -> i64 {
        match b {
            Bound::Unbounded => {
                if is_start {
                    0
                } else {
                    m - 1
                }
            }
            Bound::Current if range => {
                if is_start {
                    peers[j].0 as i64
                } else {
                    peers[j].1 as i64
                }
            }
            Bound::Current => j as i64,
            Bound::Offset(n) if !range => j as i64 + *n as i64,
            Bound::Offset(n) => range_edge(w, j, *n, is_start, part, keys, ctx),
        }
    };
    let lo = pos(start, true).max(0);
    let hi = pos(end, false).min(m - 1);
    (lo <= hi).then_some((lo as usize, hi as usize))
}

/// For `RANGE n PRECEDING|FOLLOWING`: the first (`is_start`) or last row
/// whose ORDER BY value lies within `n` of row `j`'s (in the direction of
/// the ORDER BY).
fn range_edge(
    w: &CompiledWindow,
    j: usize,
    n: f64,
    is_start: bool,
    part: &[usize],
    keys: &[(Vec<Value>, Vec<Value>)],
    ctx: &mut EvalContext<'_>,
) -> i64 {
    let desc = w.order.first().is_some_and(|o| o.1);
    let values: Vec<Option<f64>> = part
        .iter()
        .map(|&r| match keys[r].1.first() {
            Some(v) if !v.is_null() => Some(eval::convert::to_f64(v, ctx)),
            _ => None,
        })
        .collect();
    let value = |k: usize| values[k];
    let Some(here) = value(j) else {
        // A NULL key's range is its peers (the other NULLs).
        let nulls = (0..part.len()).filter(|&k| value(k).is_none());
        return if is_start {
            nulls.min().unwrap_or(j) as i64
        } else {
            nulls.max().unwrap_or(j) as i64
        };
    };
    // The bound's value, in ORDER BY direction.
    let target = if desc { here - n } else { here + n };
    let within = |v: f64| {
        if is_start {
            if desc {
                v <= target
            } else {
                v >= target
            }
        } else if desc {
            v >= target
        } else {
            v <= target
        }
    };
    let m = part.len();
    if is_start {
        (0..m)
            .find(|&k| value(k).is_some_and(within))
            .map_or(m as i64, |k| k as i64)
    } else {
        (0..m)
            .rev()
            .find(|&k| value(k).is_some_and(within))
            .map_or(-1, |k| k as i64)
    }
}

/// An aggregate over each row's frame: incrementally while frames start at
/// the partition's first row and end no earlier than the last one's, from
/// scratch otherwise.
fn aggregate_frames(
    w: &CompiledWindow,
    frames: &[Option<(usize, usize)>],
    part: &[usize],
    args: &[Vec<Value>],
    ctx: &mut EvalContext<'_>,
    out: &mut Vec<Value>,
) -> Result<(), SqlError> {
    let Some(call) = &w.aggregate else {
        return Ok(());
    };
    let mut running = Accumulator::new(call);
    let mut added: Option<usize> = None;
    for f in frames {
        match f {
            None => out.push(Accumulator::new(call).finish(call, &w.ty)),
            Some((0, hi)) if added.is_none_or(|a| a <= *hi) => {
                let from = added.map_or(0, |a| a + 1);
                for k in from..=*hi {
                    running.add(call, &args[part[k]], w.collation, ctx)?;
                }
                added = Some(*hi);
                out.push(running.finish(call, &w.ty));
            }
            Some((lo, hi)) => {
                let mut acc = Accumulator::new(call);
                for k in *lo..=*hi {
                    acc.add(call, &args[part[k]], w.collation, ctx)?;
                }
                out.push(acc.finish(call, &w.ty));
            }
        }
    }
    Ok(())
}
