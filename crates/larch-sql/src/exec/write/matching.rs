//! The rows an UPDATE or DELETE changes: WHERE (its subqueries inlined
//! first, `with_subqueries`), the access path chosen from its conjuncts,
//! ORDER BY and LIMIT, read before any row changes.

use larch_engine::record::value::Value;
use larch_engine::table::RowRef;
use sqlparser::ast;

use super::{col_type, rows, Target, Writer};
use crate::error::SqlError;
use crate::eval::{self, CompileOptions};
use crate::exec::select::fulltext;
use crate::session::Session;

/// The rows an UPDATE or DELETE changes: (address, row as read); the
/// warnings of WHERE, ORDER BY and LIMIT go to `w`.
#[allow(clippy::too_many_arguments)]
pub(super) fn matching_rows(
    s: &Session,
    t: &Target,
    alias: &str,
    selection: Option<&ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
    params: &[Value],
    w: &mut Writer,
) -> Result<Vec<(RowRef, Vec<Value>)>, SqlError> {
    let selection = selection
        .map(|e| with_subqueries(s, e, params))
        .transpose()?;
    // MATCH ... AGAINST: searched once, then read per row as hidden
    // columns past the table's own.
    let mut selection = selection.map(|c| c.into_owned());
    let mut order_by: Vec<ast::OrderByExpr> = order_by.to_vec();
    let matches = {
        let mut exprs: Vec<&mut ast::Expr> = selection.iter_mut().collect();
        exprs.extend(order_by.iter_mut().map(|o| &mut o.expr));
        fulltext::rewrite_target(s, &t.db, &t.name, alias, &t.table, &mut exprs, params)?
    };
    let selection = selection.as_ref();
    let order_by = order_by.as_slice();
    let def = t.table.def();
    let width = def.columns.len();
    let resolve = |parts: &[ast::Ident]| {
        let (q, name) = match parts {
            [c] => (None, &c.value),
            [tb, c] => (Some(&tb.value), &c.value),
            [_, tb, c] => (Some(&tb.value), &c.value),
            _ => return None,
        };
        if let (None, Some(m)) = (q, &matches) {
            if let Some(i) = m.column(name, width) {
                return Some((
                    i,
                    crate::eval::ExprType {
                        ty: larch_engine::record::value::ColumnType::Double,
                        nullable: false,
                        decimals: None,
                    },
                ));
            }
        }
        if q.is_some_and(|q| q != alias && *q != t.name) {
            return None;
        }
        let i = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))?;
        Some((i, col_type(def, i)))
    };
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "WHERE".into(),
    };
    let cond = selection
        .map(|e| eval::compile(e, &resolve, &opts))
        .transpose()?;
    let conds: Vec<&ast::Expr> = selection.map(rows::conjuncts).unwrap_or_default();
    let column_of = |e: &ast::Expr| match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
            let parts = match e {
                ast::Expr::Identifier(i) => vec![i.clone()],
                ast::Expr::CompoundIdentifier(p) => p.clone(),
                _ => vec![],
            };
            // The relevance columns have no index.
            resolve(&parts).map(|(i, _)| i).filter(|&i| i < width)
        }
        _ => None,
    };
    let mut ctx = s.eval_context(params);
    if w.where_warns_only {
        ctx.warnings_only();
    }
    let mut cond = cond;
    if let Some(c) = cond.as_mut() {
        eval::fold_constant_conditions(&mut c.expr, &mut ctx)?;
    }
    let access = crate::exec::access::choose_access(&t.table, &conds, &column_of, &mut ctx);
    let limit_n = match limit {
        Some(e) => {
            let r = |_: &[ast::Ident]| None;
            match eval::compile(e, &r, &CompileOptions::default())?.eval(&[], &mut ctx)? {
                Value::Int(i) if i >= 0 => Some(i as u64),
                Value::UInt(u) => Some(u),
                _ => return Err(SqlError::new(1210, "Incorrect arguments to LIMIT")),
            }
        }
        None => None,
    };
    if limit_n == Some(0) {
        // LIMIT 0: nothing to read.
        w.warnings.extend(ctx.take_warnings());
        return Ok(Vec::new());
    }
    let stop = if order_by.is_empty() { limit_n } else { None };
    let mut out = Vec::new();
    rows::for_each_row(
        &t.table,
        &access,
        false,
        None,
        &s.process.kill_query,
        &s.row_reading(),
        &mut |at, row| {
            let extended;
            let full: &[Value] = match &matches {
                Some(m) => {
                    extended = m.extend(at, row);
                    &extended
                }
                None => row,
            };
            if let Some(c) = &cond {
                if !rows::truthy(&c.eval(full, &mut ctx)?) {
                    return Ok(true);
                }
            }
            let row: Vec<Value> = match &matches {
                // ORDER BY may sort by the relevance: kept until sorted.
                Some(_) if !order_by.is_empty() => full.to_vec(),
                _ => row
                    .iter_mut()
                    .map(|v| std::mem::replace(v, Value::Null))
                    .collect(),
            };
            out.push((RowRef(at.to_vec()), row));
            Ok(stop.is_none_or(|n| (out.len() as u64) < n))
        },
    )?;
    if !order_by.is_empty() {
        let keys: Vec<(eval::Compiled, bool)> = order_by
            .iter()
            .map(|o| {
                eval::compile(&o.expr, &resolve, &opts)
                    .map(|c| (c, matches!(o.options.sort, Some(ast::OrderBySort::Desc))))
            })
            .collect::<Result<_, _>>()?;
        let mut keyed = Vec::with_capacity(out.len());
        for item in out {
            let mut k = Vec::new();
            for (c, _) in &keys {
                k.push(c.eval(&item.1, &mut ctx)?);
            }
            keyed.push((k, item));
        }
        let mut c2 = s.eval_context(&[]);
        keyed.sort_by(|a, b| {
            for (i, (c, desc)) in keys.iter().enumerate() {
                let coll =
                    c.ty.ty
                        .collation()
                        .unwrap_or(larch_engine::record::collation::Collation::Binary);
                let o = match (a.0[i].is_null(), b.0[i].is_null()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Less,
                    (false, true) => std::cmp::Ordering::Greater,
                    _ => eval::compare(&a.0[i], &b.0[i], coll, &mut c2)
                        .unwrap_or(std::cmp::Ordering::Equal),
                };
                let o = if *desc { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        out = keyed.into_iter().map(|(_, i)| i).collect();
        for (_, row) in out.iter_mut() {
            row.truncate(width);
        }
        if let Some(n) = limit_n {
            out.truncate(usize::try_from(n).unwrap_or(usize::MAX));
        }
    }
    w.warnings.extend(ctx.take_warnings());
    Ok(out)
}

/// `e` with its subqueries run once (uncorrelated) or turned into their
/// per-row form (correlated; see `select::correlated`).
pub(super) fn with_subqueries<'e>(
    s: &Session,
    e: &'e ast::Expr,
    params: &[Value],
) -> Result<std::borrow::Cow<'e, ast::Expr>, SqlError> {
    use crate::exec::select::subquery;
    if !subquery::expr_has_subquery(e) {
        return Ok(std::borrow::Cow::Borrowed(e));
    }
    let mut copy = e.clone();
    subquery::inline_expr(s, &mut copy, params)?;
    Ok(std::borrow::Cow::Owned(copy))
}
