//! Multi-table UPDATE and DELETE:
//! `UPDATE t1 JOIN t2 ON ... SET t1.a = t2.b, t2.c = 1 WHERE ...`,
//! `UPDATE t1, t2 SET ...` (a cross join), `DELETE t1, t2 FROM t1 JOIN t2
//! ...` and `DELETE FROM t1 USING t1 JOIN t2 ...`.
//!
//! The tables are joined as a SELECT joins them (`select::join`); each
//! combination that passes WHERE contributes the changes of its target rows.
//! As in MySQL, a row is changed once even when several combinations match
//! it (the first match decides its new values), and every change is
//! computed from the rows as they were before the statement: the joined rows
//! are collected first, then written.

use std::collections::HashSet;
use std::sync::atomic::Ordering as AtomicOrdering;

use larch_engine::record::value::Value;
use larch_engine::table::RowRef;
use sqlparser::ast;

use super::trigger_nulls::NullChecks;
use super::{engine_row, target, Target, Writer};
use crate::error::SqlError;
use crate::eval::{self, CompileOptions};
use crate::exec::rows;
use crate::exec::select::join::join;
use crate::exec::select::source::{self, Source, SourceRows};
use crate::parse::trigger::{Event, Timing};
use crate::result::{OkInfo, QueryResult};
use crate::session::Session;

/// The target table behind source `k`, with 1288 for derived tables.
fn source_target(s: &Session, src: &Source) -> Result<Target, SqlError> {
    match src.rows {
        SourceRows::Table(_) => {
            let name = ast::ObjectName::from(vec![
                ast::Ident::new(src.db.clone()),
                ast::Ident::new(src.table.clone()),
            ]);
            target(s, &name)
        }
        SourceRows::Rows(_) => Err(SqlError::new(
            1288,
            format!(
                "The target table {} of the UPDATE is not updatable",
                src.alias
            ),
        )),
    }
}

/// Runs the join and returns, per matching combination, the combined row
/// and the row addresses; the warnings of the join and WHERE go to `w`.
#[allow(clippy::type_complexity)]
fn matches(
    s: &Session,
    sources: &[Source],
    selection: Option<&ast::Expr>,
    params: &[Value],
    w: &mut Writer,
) -> Result<Vec<(Vec<Value>, Vec<Option<RowRef>>)>, SqlError> {
    let selection = selection
        .map(|e| super::with_subqueries(s, e, params))
        .transpose()?;
    let selection = selection.as_deref();
    let resolve = |parts: &[ast::Ident]| source::resolve(sources, parts).ok().flatten();
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "WHERE".into(),
    };
    let cond = selection
        .map(|e| eval::compile(e, &resolve, &opts))
        .transpose()?;
    let conds: Vec<&ast::Expr> = selection.map(rows::conjuncts).unwrap_or_default();
    let mut ctx = s.eval_context(params);
    let mut out = Vec::new();
    let mut emit = |row: &[Value], refs: &[Option<RowRef>], ctx: &mut eval::EvalContext<'_>| {
        if let Some(c) = &cond {
            if !rows::truthy(&c.eval(row, ctx)?) {
                return Ok(true);
            }
        }
        out.push((row.to_vec(), refs.to_vec()));
        Ok(true)
    };
    join(s, sources, &conds, params, &mut ctx, &mut emit)?;
    w.warnings.extend(ctx.take_warnings());
    Ok(out)
}

/// Multi-table UPDATE.
pub(super) fn update(
    s: &mut Session,
    u: &ast::Update,
    params: &[Value],
    w: &mut Writer,
) -> Result<QueryResult, SqlError> {
    if !u.order_by.is_empty() || u.limit.is_some() {
        return Err(SqlError::new(
            1221,
            "Incorrect usage of UPDATE and ORDER BY",
        ));
    }
    let sources = crate::exec::select::sources(s, std::slice::from_ref(&u.table), params)?;
    let resolve = |parts: &[ast::Ident]| source::resolve(&sources, parts).ok().flatten();
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "SET".into(),
    };
    // Each assignment: (source, column of that source, value).
    let mut sets: Vec<(usize, usize, eval::Compiled)> = Vec::new();
    for a in &u.assignments {
        let ast::AssignmentTarget::ColumnName(n) = &a.target else {
            return Err(SqlError::not_supported("tuple assignment"));
        };
        let parts: Vec<ast::Ident> = n.0.iter().filter_map(|p| p.as_ident()).cloned().collect();
        let (pos, _) = source::resolve(&sources, &parts)?
            .ok_or_else(|| SqlError::unknown_column(&n.to_string(), "SET"))?;
        let k = sources
            .iter()
            .rposition(|src| src.offset <= pos)
            .ok_or_else(|| SqlError::unknown_column(&n.to_string(), "SET"))?;
        let value = super::with_subqueries(s, &a.value, params)?;
        let value = eval::compile(&value, &resolve, &opts)?;
        sets.push((k, pos - sources[k].offset, value));
    }
    let targets: Vec<Option<Target>> = sources
        .iter()
        .enumerate()
        .map(|(k, src)| {
            if sets.iter().any(|(sk, _, _)| *sk == k) {
                source_target(s, src).map(Some)
            } else {
                Ok(None)
            }
        })
        .collect::<Result<_, _>>()?;
    let found = matches(s, &sources, u.selection.as_ref(), params, w)?;
    let mut done: HashSet<(usize, Vec<u8>)> = HashSet::new();
    let (mut matched, mut changed) = (0u64, 0u64);
    let mut ctx_warnings = Vec::new();
    for (n, (row, refs)) in found.iter().enumerate() {
        for (k, t) in targets.iter().enumerate() {
            let (Some(t), Some(at)) = (t, &refs[k]) else {
                continue;
            };
            if !done.insert((k, at.0.clone())) {
                continue;
            }
            matched += 1;
            let src = &sources[k];
            let old = engine_row(t, &row[src.offset..src.offset + src.width()]);
            let mut new = old.clone();
            let mut nulls = NullChecks::new(t, Event::Update);
            for (sk, col, value) in &sets {
                if *sk != k {
                    continue;
                }
                if t.is_generated(*col) {
                    t.value_for_generated(s, *col, w)?;
                    continue;
                }
                let mut ctx = s.eval_context(params);
                let v = value.eval_stored(row, &mut ctx)?;
                let v = super::source::ready_for_column(
                    v,
                    &value.ty.ty,
                    &t.table.def().columns[*col].ty,
                );
                ctx_warnings.extend(ctx.take_warnings());
                new[*col] = nulls.convert(s, t, *col, &v, n as u64 + 1, w)?;
            }
            t.fire(s, Timing::Before, Event::Update, Some(&old), Some(&mut new))?;
            nulls.after_triggers(s, t, &mut new, n as u64 + 1, w)?;
            t.fill_generated(s, &mut new, n as u64 + 1, w)?;
            if new == old {
                t.fire(s, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
                continue;
            }
            if !t.verify_checks(s, &new, w)? || !t.verify_references(s, Some(&old), &new, w)? {
                continue;
            }
            let skip = w.ignore.then_some(&mut w.warnings);
            if let Some(_new_at) = t.update_row(s, at, &old, &new, skip)? {
                changed += 1;
                t.fire(s, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
            }
        }
    }
    w.warnings.extend(ctx_warnings);
    s.db.status
        .rows_updated
        .fetch_add(changed, AtomicOrdering::Relaxed);
    let affected = if s.client_found_rows {
        matched
    } else {
        changed
    };
    Ok(QueryResult::Ok(OkInfo {
        affected_rows: affected,
        last_insert_id: 0,
        info: format!(
            "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
            w.warnings.len()
        ),
    }))
}

/// Multi-table DELETE.
pub(super) fn delete(
    s: &mut Session,
    d: &ast::Delete,
    params: &[Value],
    w: &mut Writer,
) -> Result<QueryResult, SqlError> {
    if !d.order_by.is_empty() || d.limit.is_some() {
        return Err(SqlError::new(
            1221,
            "Incorrect usage of DELETE and ORDER BY",
        ));
    }
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    };
    // DELETE t1, t2 FROM <join>  |  DELETE FROM t1, t2 USING <join>.
    let (names, joined): (Vec<ast::ObjectName>, &[ast::TableWithJoins]) = match &d.using {
        Some(using) => (
            from.iter()
                .filter_map(|f| match &f.relation {
                    ast::TableFactor::Table { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .collect(),
            using,
        ),
        None if !d.tables.is_empty() => (d.tables.clone(), from),
        None => {
            // DELETE FROM t1 JOIN t2 ...: MySQL requires naming the targets.
            return Err(SqlError::new(
                1064,
                "You have an error in your SQL syntax; a multi-table DELETE names the tables to delete from",
            ));
        }
    };
    let sources = crate::exec::select::sources(s, joined, params)?;
    let mut target_of: Vec<Option<Target>> = (0..sources.len()).map(|_| None).collect();
    for n in &names {
        let last = crate::exec::names::object_last(n);
        let k = sources
            .iter()
            .position(|src| src.alias == last)
            .ok_or_else(|| {
                SqlError::new(1109, format!("Unknown table '{last}' in MULTI DELETE"))
            })?;
        target_of[k] = Some(source_target(s, &sources[k])?);
    }
    let found = matches(s, &sources, d.selection.as_ref(), params, w)?;
    let mut done: HashSet<(usize, Vec<u8>)> = HashSet::new();
    let mut deleted = 0u64;
    for (row, refs) in &found {
        for (k, t) in target_of.iter().enumerate() {
            let (Some(t), Some(at)) = (t, &refs[k]) else {
                continue;
            };
            if !done.insert((k, at.0.clone())) {
                continue;
            }
            let src = &sources[k];
            let old = engine_row(t, &row[src.offset..src.offset + src.width()]);
            t.fire(s, Timing::Before, Event::Delete, Some(&old), None)?;
            if t.delete_row(s, at, &old)? {
                deleted += 1;
                t.fire(s, Timing::After, Event::Delete, Some(&old), None)?;
            }
        }
    }
    s.db.status
        .rows_deleted
        .fetch_add(deleted, AtomicOrdering::Relaxed);
    Ok(QueryResult::affected(deleted))
}
