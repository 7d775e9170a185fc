//! `EXPLAIN SELECT ...`: the plan of a query in MariaDB's tabular form
//! (`id`, `select_type`, `table`, `type`, `possible_keys`, `key`, `key_len`,
//! `ref`, `rows`, `Extra`), one line per table read.
//!
//! The query is planned by the same code that runs it: while an explanation
//! is being collected (a thread-local [`Collector`]), every SELECT block is
//! numbered as it starts, plans its sources as it would to run, records one
//! line per source and returns no rows. Subqueries and derived tables are
//! planned the same way at a deeper level; so nothing is read from a table.
//!
//! UPDATE, DELETE and INSERT are explained by `write` with the same lines.
//!
//! Access types as MariaDB names them: `const` (a full unique point), `ref`
//! (an equality prefix), `eq_ref` (a join lookup matching one row), `range`,
//! `index` (a whole secondary index, in order or covering) and `ALL` (the
//! clustered index). `rows` is the engine's estimate from a B+tree descent
//! (`Table::estimate_rows`); without index statistics, a join lookup that may
//! match several rows is shown as at most 10 rows.

mod key_parts;
mod write;

use std::ops::Bound;

use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, Table, CLUSTERED};
use sqlparser::ast;

use super::join::{column_of_source, JoinPlan};
use super::source::{Source, SourceRows};
use crate::error::SqlError;
use crate::exec::access::{self, Access, Plan};
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;
use key_parts::{bound_len, consts, index_parts, key_len};

pub(crate) use write::explain_write;

/// One line of the explanation.
struct Line {
    id: Option<u64>,
    select_type: String,
    table: Option<String>,
    access: Option<String>,
    possible_keys: Option<String>,
    key: Option<String>,
    key_len: Option<String>,
    reference: Option<String>,
    rows: Option<u64>,
    extra: String,
}

impl Line {
    /// A whole-table read (`type` ALL) of about `rows` rows.
    fn all(rows: Option<u64>, extra: &str) -> Line {
        Line {
            id: None,
            select_type: String::new(),
            table: None,
            access: Some("ALL".into()),
            possible_keys: None,
            key: None,
            key_len: None,
            reference: None,
            rows,
            extra: extra.into(),
        }
    }
}

/// A SELECT block being explained.
struct Block {
    id: u64,
    depth: u32,
    kind: &'static str,
}

/// The explanation being collected (kept in the session's
/// [`ExecutionState`](crate::session::ExecutionState)).
#[derive(Default)]
pub(crate) struct Collector {
    lines: Vec<Line>,
    blocks: Vec<Block>,
    next_id: u64,
    depth: u32,
    /// Derived tables are being built (their blocks are `DERIVED`).
    in_from: bool,
    /// The next block at this depth is the right side of a UNION.
    union_right: Option<u32>,
    /// Its kind: `UNION`, or `RECURSIVE UNION` for the recursive part of
    /// a WITH element.
    union_kind: &'static str,
    /// Ids of derived blocks not yet named by their outer block.
    derived: Vec<u64>,
}

fn with<R>(s: &Session, f: impl FnOnce(&mut Collector) -> R) -> Option<R> {
    s.execution.with_explain(f)
}

/// Is an explanation being collected?
pub(super) fn active(s: &Session) -> bool {
    s.execution.explaining_now()
}

/// Entering a query (a subquery one level deeper); the guard leaves it.
pub(super) fn enter(s: &Session) -> Depth<'_> {
    Depth(with(s, |c| c.depth += 1).map(|()| s))
}

/// Leaves the query level [`enter`] entered.
pub(super) struct Depth<'a>(Option<&'a Session>);

impl Drop for Depth<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.0 {
            with(s, |c| c.depth = c.depth.saturating_sub(1));
        }
    }
}

/// Marks whether blocks starting now build derived tables; returns the old
/// value for [`set_in_from`] to restore.
pub(super) fn set_in_from(s: &Session, on: bool) -> bool {
    with(s, |c| std::mem::replace(&mut c.in_from, on)).unwrap_or(false)
}

/// The next block at the current depth is the right side of a UNION.
pub(super) fn union_right(s: &Session) {
    with(s, |c| {
        c.union_right = Some(c.depth);
        c.union_kind = "UNION";
    });
}

/// The next block at the current depth is a recursive part of a WITH
/// element (`RECURSIVE UNION`).
pub(super) fn recursive_union(s: &Session) {
    with(s, |c| {
        c.union_right = Some(c.depth);
        c.union_kind = "RECURSIVE UNION";
    });
}

/// A WITH element whose blocks start at `first` was planned: its blocks
/// are not derived tables for the block that reads it to name.
pub(super) fn forget_derived(s: &Session, first: u64) {
    with(s, |c| c.derived.retain(|&d| d < first));
}

/// Numbers a SELECT block as it starts; `None` when not explaining.
pub(super) fn start_block(s: &Session) -> Option<u64> {
    with(s, |c| {
        c.next_id += 1;
        let id = c.next_id;
        let kind = if c.union_right == Some(c.depth) {
            c.union_right = None;
            c.union_kind
        } else if c.depth > 1 && c.in_from {
            c.derived.push(id);
            "DERIVED"
        } else if c.depth > 1 {
            "SUBQUERY"
        } else {
            "PRIMARY"
        };
        c.blocks.push(Block {
            id,
            depth: c.depth,
            kind,
        });
        id
    })
}

/// After a UNION of blocks numbered from `first`: a `UNION RESULT` line
/// naming them (replacing the line of a UNION nested on its left).
pub(super) fn union_result(s: &Session, first: u64) {
    with(s, |c| {
        let depth = c.depth;
        let ids: Vec<u64> = c
            .blocks
            .iter()
            .filter(|b| b.id >= first && b.depth == depth)
            .map(|b| b.id)
            .collect();
        c.lines.retain(|l| {
            !(l.select_type == "UNION RESULT"
                && l.table
                    .as_ref()
                    .is_some_and(|t| t.starts_with(&format!("<union{first},"))))
        });
        let names: Vec<String> = ids.iter().map(u64::to_string).collect();
        c.lines.push(Line {
            select_type: "UNION RESULT".into(),
            table: Some(format!("<union{}>", names.join(","))),
            ..Line::all(None, "")
        });
    });
}

/// The id the next block will get.
pub(super) fn next_id(s: &Session) -> u64 {
    with(s, |c| c.next_id + 1).unwrap_or(0)
}

/// What a block does with its rows, for `Extra`.
pub(super) struct BlockShape<'a> {
    pub sources: &'a [Source],
    pub plan: &'a JoinPlan,
    pub conds: &'a [&'a ast::Expr],
    /// The rows are sorted after reading (ORDER BY not given by an index,
    /// or GROUP BY).
    pub filesort: bool,
    /// Grouping or DISTINCT through a temporary table.
    pub temporary: bool,
}

/// Records the lines of block `id`.
pub(super) fn record_block(s: &Session, id: u64, shape: &BlockShape<'_>) {
    let mut lines = Vec::new();
    if shape.sources.is_empty() {
        lines.push(Line {
            id: Some(id),
            select_type: String::new(),
            table: None,
            access: None,
            possible_keys: None,
            key: None,
            key_len: None,
            reference: None,
            rows: None,
            extra: "No tables used".into(),
        });
    }
    let derived: Vec<u64> = with(s, |c| {
        let n = shape
            .sources
            .iter()
            .filter(|src| {
                matches!(src.rows, SourceRows::Rows(_))
                    && src.db.is_empty()
                    && src.explain_name.is_none()
            })
            .count();
        let mine: Vec<u64> = c.derived.iter().copied().filter(|&d| d > id).collect();
        let take: Vec<u64> = mine.into_iter().take(n).collect();
        c.derived.retain(|d| !take.contains(d));
        take
    })
    .unwrap_or_default();
    let mut derived = derived.into_iter();
    for (k, src) in shape.sources.iter().enumerate() {
        let mut line = match &src.rows {
            SourceRows::Table(t) if k == 0 => first_line(t, &shape.plan.first, shape.conds),
            SourceRows::Table(t) => inner_line(s, shape.sources, k, t),
            SourceRows::Rows(r) => Line::all(
                Some(r.len()),
                if k == 0 && !shape.conds.is_empty() {
                    "Using where"
                } else {
                    ""
                },
            ),
        };
        line.id = Some(id);
        line.table = Some(match (&src.rows, src.db.is_empty()) {
            _ if src.explain_name.is_some() => src.explain_name.clone().unwrap_or_default(),
            (SourceRows::Rows(_), true) => derived
                .next()
                .map_or_else(|| src.alias.clone(), |d| format!("<derived{d}>")),
            _ => src.alias.clone(),
        });
        let mut extra: Vec<&str> = Vec::new();
        if !line.extra.is_empty() {
            extra.push(&line.extra);
        }
        if k == 0 {
            if shape.temporary {
                extra.push("Using temporary");
            }
            if shape.filesort {
                extra.push("Using filesort");
            }
        }
        line.extra = extra.join("; ");
        lines.push(line);
    }
    with(s, |c| c.lines.extend(lines));
}

/// The line of the first table, read through `plan`.
fn first_line(t: &Table, plan: &Plan, conds: &[&ast::Expr]) -> Line {
    let def = t.def();
    let name_of = |index: usize| {
        if index == CLUSTERED {
            "PRIMARY".to_string()
        } else {
            def.secondary
                .get(index - 1)
                .map_or_else(String::new, |s| s.name.clone())
        }
    };
    let possible = (!plan.possible.is_empty()).then(|| {
        plan.possible
            .iter()
            .map(|&i| name_of(i))
            .collect::<Vec<_>>()
            .join(",")
    });
    let estimate = |index: usize, ranges: &[KeyRange]| -> u64 {
        ranges
            .iter()
            .map(|r| t.estimate_rows(index, r).unwrap_or(0))
            .sum()
    };
    let (access, key, parts, reference, rows, points) = match &plan.access {
        Access::Scan if plan.ordered => (
            "index",
            Some(CLUSTERED),
            index_parts(t, CLUSTERED),
            None,
            estimate(CLUSTERED, &[KeyRange::all()]),
            false,
        ),
        Access::Scan => (
            "ALL",
            None,
            0,
            None,
            estimate(CLUSTERED, &[KeyRange::all()]),
            false,
        ),
        Access::Ranges { index, ranges } if ranges.len() == 1 && ranges[0] == KeyRange::all() => {
            let n = index_parts(t, *index);
            (
                "index",
                Some(*index),
                n,
                None,
                estimate(*index, ranges),
                false,
            )
        }
        Access::Ranges { index, ranges } => {
            let points: Vec<usize> = ranges
                .iter()
                .filter_map(|r| match (&r.lower, &r.upper) {
                    (Bound::Included(a), Bound::Included(b)) if a == b => Some(a.len()),
                    _ => None,
                })
                .collect();
            let used = ranges
                .iter()
                .map(|r| bound_len(&r.lower).max(bound_len(&r.upper)))
                .max()
                .unwrap_or(0);
            let all_points = points.len() == ranges.len();
            let unique =
                *index == CLUSTERED || def.secondary.get(index - 1).is_some_and(|s| s.unique);
            let full = used == index_parts(t, *index);
            let nulls = ranges.iter().any(|r| match &r.lower {
                Bound::Included(v) => v.iter().any(Value::is_null),
                _ => false,
            });
            if all_points && ranges.len() == 1 && unique && full && !nulls {
                ("const", Some(*index), used, Some(consts(used)), 1, true)
            } else if all_points && ranges.len() == 1 {
                let rows = estimate(*index, ranges).max(1);
                ("ref", Some(*index), used, Some(consts(used)), rows, true)
            } else {
                (
                    "range",
                    Some(*index),
                    used,
                    None,
                    estimate(*index, ranges),
                    false,
                )
            }
        }
    };
    // A condition beyond the key lookup is checked on each row.
    let checked_by_key = points && conds.len() <= parts;
    let mut extra = Vec::new();
    if !conds.is_empty() && !checked_by_key {
        extra.push("Using where");
    }
    if plan.covering && key.is_some_and(|k| k != CLUSTERED) {
        extra.push("Using index");
    }
    Line {
        id: None,
        select_type: String::new(),
        table: None,
        access: Some(access.into()),
        possible_keys: possible,
        key: key.map(name_of),
        key_len: key.map(|k| key_len(t, k, parts).to_string()),
        reference,
        rows: Some(rows),
        extra: extra.join("; "),
    }
}

/// The line of a later table: looked up per earlier row through the index
/// the equalities of its ON conditions bind, else scanned per earlier row.
fn inner_line(s: &Session, sources: &[Source], k: usize, t: &Table) -> Line {
    let def = t.def();
    let mut fixed: Vec<usize> = Vec::new();
    let mut refs: Vec<(usize, String)> = Vec::new();
    for (col, other) in crate::exec::select::join::lookup_equalities(sources, k) {
        fixed.push(col);
        refs.push((col, reference_text(s, sources, other)));
    }
    let total = t.estimate_rows(CLUSTERED, &KeyRange::all()).unwrap_or(0);
    let Some((index, used, one)) = access::lookup_index(t, &fixed) else {
        let extra = if sources[k].checks.iter().any(|c| c.cond.is_some()) {
            "Using where"
        } else {
            ""
        };
        return Line::all(Some(total), extra);
    };
    let parts: Vec<usize> = if index == CLUSTERED {
        def.primary_key
            .as_ref()
            .map(|p| p.columns.iter().map(|c| c.column).collect())
            .unwrap_or_default()
    } else {
        def.secondary[index - 1]
            .columns
            .iter()
            .map(|c| c.column)
            .collect()
    };
    let reference: Vec<String> = parts
        .iter()
        .take(used)
        .map(|c| {
            refs.iter()
                .find(|(col, _)| col == c)
                .map_or_else(|| "const".to_string(), |(_, r)| r.clone())
        })
        .collect();
    let name = if index == CLUSTERED {
        "PRIMARY".to_string()
    } else {
        def.secondary[index - 1].name.clone()
    };
    Line {
        id: None,
        select_type: String::new(),
        table: None,
        access: Some(if one { "eq_ref" } else { "ref" }.into()),
        possible_keys: Some(name.clone()),
        key: Some(name),
        key_len: Some(key_len(t, index, used).to_string()),
        reference: Some(reference.join(",")),
        rows: Some(if one { 1 } else { total.clamp(1, 10) }),
        extra: String::new(),
    }
}

/// How `e` is shown in `ref`: `db.table.column` for a column, else `func`.
fn reference_text(s: &Session, sources: &[Source], e: &ast::Expr) -> String {
    for (k, src) in sources.iter().enumerate() {
        if let Some(c) = column_of_source(sources, k, e) {
            let db = if src.db.is_empty() {
                s.current_database().unwrap_or_default().to_string()
            } else {
                src.db.clone()
            };
            return format!("{db}.{}.{}", src.alias, src.columns[c].name);
        }
    }
    "func".into()
}

/// Explains `q`: plans every block without reading rows.
pub(crate) fn explain(
    s: &mut Session,
    q: &ast::Query,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    let collecting = s.execution.explaining();
    let r = super::run_query(s, q, params);
    let collected = collecting.end().flatten().unwrap_or_default();
    r?;
    let mut lines = collected.lines;
    // Line kinds: one block alone is SIMPLE.
    let simple = collected.blocks.len() == 1;
    for l in &mut lines {
        if l.select_type.is_empty() {
            let kind = collected
                .blocks
                .iter()
                .find(|b| Some(b.id) == l.id)
                .map_or("SIMPLE", |b| b.kind);
            l.select_type = if simple { "SIMPLE" } else { kind }.into();
        }
    }
    lines.sort_by_key(|l| (l.id.is_none(), l.id));
    Ok(result(lines))
}

/// The explanation's result set: one row per line.
fn result(lines: Vec<Line>) -> QueryResult {
    let text = |v: Option<String>| v.map_or(Value::Null, Value::Str);
    let rows = lines
        .into_iter()
        .map(|l| {
            vec![
                l.id.map_or(Value::Null, Value::UInt),
                Value::Str(l.select_type),
                text(l.table),
                text(l.access),
                text(l.possible_keys),
                text(l.key),
                text(l.key_len),
                text(l.reference),
                l.rows.map_or(Value::Null, Value::UInt),
                Value::Str(l.extra),
            ]
        })
        .collect();
    QueryResult::Rows(RowSet {
        columns: vec![
            ResultColumn::bigint("id", false, true),
            ResultColumn::text("select_type", 18, false),
            ResultColumn::text("table", 64, true),
            ResultColumn::text("type", 10, true),
            ResultColumn::text("possible_keys", 4096, true),
            ResultColumn::text("key", 64, true),
            ResultColumn::text("key_len", 4096, true),
            ResultColumn::text("ref", 2048, true),
            ResultColumn::bigint("rows", true, true),
            ResultColumn::text("Extra", 255, false),
        ],
        rows,
    })
}
