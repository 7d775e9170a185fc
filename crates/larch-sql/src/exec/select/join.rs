//! Nested-loop joins over the sources of a FROM clause.
//!
//! The first source is read through the access path chosen from the WHERE
//! conjuncts that name only it; each later source is read per combination
//! of earlier rows, through an index lookup when its ON condition binds a
//! leading index column to earlier values (else a scan). ON conditions are
//! checked as rows are combined; a LEFT JOIN source with no match gives one
//! row of NULLs. `emit` receives each combined row with the address of each
//! table source's row (for multi-table UPDATE and DELETE) and returns false
//! to stop.

use larch_engine::record::value::Value;
use larch_engine::table::RowRef;
use sqlparser::ast;

use super::source::{self, JoinKind, Source, SourceRows};
use super::subquery;
use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled};
use crate::exec::rows::{self, Access};
use crate::session::Session;

/// What a join hands to its consumer: the combined row, each source's row
/// address (`None` for derived tables and NULL-extended rows).
pub(crate) type Emit<'a> = dyn FnMut(&[Value], &[Option<RowRef>], &mut eval::EvalContext<'_>) -> Result<bool, SqlError>
    + 'a;

/// The combination being built.
struct Current<'a> {
    row: &'a mut Vec<Value>,
    refs: &'a mut Vec<Option<RowRef>>,
}

/// Nested-loop join of the sources; `emit` gets each combined row and
/// returns false to stop.
pub(crate) fn join(
    s: &Session,
    sources: &[Source],
    conds: &[&ast::Expr],
    params: &[Value],
    ctx: &mut eval::EvalContext<'_>,
    emit: &mut Emit<'_>,
) -> Result<(), SqlError> {
    let width: usize = sources.iter().map(Source::width).sum();
    // ON conditions compiled over the combined row.
    let resolve = |parts: &[ast::Ident]| source::resolve(sources, parts).ok().flatten();
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "ON".into(),
    };
    let ons: Vec<Option<Compiled>> = sources
        .iter()
        .map(|src| {
            src.on
                .as_ref()
                .map(|e| eval::compile(e, &resolve, &opts))
                .transpose()
        })
        .collect::<Result<_, _>>()?;
    // The first source's access path from conditions naming only it.
    let first = &sources[0];
    let access = match &first.rows {
        SourceRows::Table(t) => {
            let column_of = |e: &ast::Expr| column_of_source(sources, 0, e);
            let mut actx = s.eval_context(params);
            rows::choose_access(t, conds, &column_of, &mut actx)
        }
        SourceRows::Rows(_) => Access::Scan,
    };
    let mut row = vec![Value::Null; width];
    let mut refs = vec![None; sources.len()];
    let mut cur = Current {
        row: &mut row,
        refs: &mut refs,
    };
    level(s, sources, 0, &access, &ons, &mut cur, ctx, emit).map(|_| ())
}

/// The column of source `k` that `e` names, if `e` is a column reference
/// resolving there.
fn column_of_source(sources: &[Source], k: usize, e: &ast::Expr) -> Option<usize> {
    let parts: Vec<ast::Ident> = match e {
        ast::Expr::Identifier(i) => vec![i.clone()],
        ast::Expr::CompoundIdentifier(p) => p.clone(),
        ast::Expr::Nested(inner) => return column_of_source(sources, k, inner),
        _ => return None,
    };
    let (pos, _) = source::resolve(sources, &parts).ok().flatten()?;
    let src = &sources[k];
    (pos >= src.offset && pos < src.offset + src.width()).then(|| pos - src.offset)
}

#[allow(clippy::too_many_arguments)]
fn level(
    s: &Session,
    sources: &[Source],
    k: usize,
    access: &Access,
    ons: &[Option<Compiled>],
    cur: &mut Current<'_>,
    ctx: &mut eval::EvalContext<'_>,
    emit: &mut Emit<'_>,
) -> Result<bool, SqlError> {
    let src = &sources[k];
    let last = k + 1 == sources.len();
    let mut any = false;
    let mut go_on = true;
    let mut visit = |vals: Vec<Value>,
                     at: Option<RowRef>,
                     cur: &mut Current<'_>,
                     ctx: &mut eval::EvalContext<'_>|
     -> Result<bool, SqlError> {
        cur.row[src.offset..src.offset + src.width()].clone_from_slice(&vals);
        cur.refs[k] = at;
        if let Some(on) = &ons[k] {
            if !rows::truthy(&on.eval(cur.row, ctx)?) {
                return Ok(true);
            }
        }
        any = true;
        if last {
            emit(cur.row, cur.refs, ctx)
        } else {
            level(s, sources, k + 1, &Access::Scan, ons, cur, ctx, emit)
        }
    };
    match &src.rows {
        SourceRows::Rows(rs) => {
            for r in rs {
                if !visit(r.clone(), None, cur, ctx)? {
                    go_on = false;
                    break;
                }
            }
        }
        SourceRows::Table(t) => {
            let access = if k == 0 {
                access.clone()
            } else {
                inner_access(s, sources, k, cur.row, ctx)
            };
            let mut stopped = false;
            rows::for_each_row(
                t,
                &access,
                false,
                None,
                &s.process.kill_query,
                &s.row_reading(),
                &mut |at, vals| {
                    let r = visit(vals, Some(at), cur, ctx)?;
                    if !r {
                        stopped = true;
                    }
                    Ok(r)
                },
            )?;
            go_on = !stopped;
        }
    }
    if go_on && !any && src.join == JoinKind::Left {
        for v in &mut cur.row[src.offset..src.offset + src.width()] {
            *v = Value::Null;
        }
        cur.refs[k] = None;
        go_on = if last {
            emit(cur.row, cur.refs, ctx)?
        } else {
            level(s, sources, k + 1, &Access::Scan, ons, cur, ctx, emit)?
        };
    }
    Ok(go_on)
}

/// Access for an inner source: an index lookup when its ON condition binds
/// a leading index column to values of earlier sources.
fn inner_access(
    s: &Session,
    sources: &[Source],
    k: usize,
    row: &[Value],
    ctx: &mut eval::EvalContext<'_>,
) -> Access {
    let (SourceRows::Table(t), Some(on)) = (&sources[k].rows, &sources[k].on) else {
        return Access::Scan;
    };
    // Substitute earlier sources' values into the ON equalities.
    let conds = rows::conjuncts(on);
    let mut bound: Vec<ast::Expr> = Vec::new();
    for c in conds {
        if let ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Eq,
            right,
        } = c
        {
            let (mine, other) = if column_of_source(sources, k, left).is_some() {
                (left, right)
            } else if column_of_source(sources, k, right).is_some() {
                (right, left)
            } else {
                continue;
            };
            let resolve = |parts: &[ast::Ident]| source::resolve(sources, parts).ok().flatten();
            let Ok(c) = eval::compile(other, &resolve, &CompileOptions::default()) else {
                continue;
            };
            let Ok(v) = c.eval(row, ctx) else { continue };
            let Some(lit) = subquery::literal(&v) else {
                continue;
            };
            bound.push(ast::Expr::BinaryOp {
                left: mine.clone(),
                op: ast::BinaryOperator::Eq,
                right: Box::new(lit),
            });
        }
    }
    let refs: Vec<&ast::Expr> = bound.iter().collect();
    let column_of = |e: &ast::Expr| column_of_source(sources, k, e);
    let mut actx = s.eval_context(&[]);
    rows::choose_access(t, &refs, &column_of, &mut actx)
}
