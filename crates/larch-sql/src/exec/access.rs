//! Choosing how to read one table: the index, the key ranges and the scan
//! direction, from the WHERE conjuncts, the columns the statement uses and
//! the order it wants.
//!
//! - Ranges come from AND-ed conditions of the form `column op constant`
//!   (`=`, `<=>`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN (...)`) whose constant
//!   converts exactly to the column's type (no truncation or range warning);
//!   anything else is left to the filter. A chosen range is always a superset
//!   of the matching rows: callers apply the WHERE to every fetched row.
//! - Among indexes with a usable leading part: a full unique point on the
//!   primary key, then on a unique secondary, then the most equality columns,
//!   a closed range over an open one, the clustered index over a secondary.
//! - With no usable range: an index whose order is the ORDER BY's (read
//!   forwards or backwards, so sorting and reading past LIMIT are skipped),
//!   else the narrowest secondary index that covers every used column
//!   (InnoDB's covering index scan), else the clustered index.
//! - A conjunct that alone bounds an integer column the chosen ranges use
//!   is *exact* ([`Plan::exact`]): every row read satisfies it, so the
//!   caller may leave it out of the per-row filter.
//! - A plan is *ordered* when rows come out in the ORDER BY's order: one
//!   range of an index whose next key parts, after the columns fixed by
//!   equalities, are the ORDER BY columns in the same direction.
//! - Every choice depends only on the *shape* of the bounds (which conjuncts
//!   bound which columns and how), never on their values, which only fill
//!   in the key ranges: a kept plan keeps its choice ([`KeptAccess`], in
//!   `kept`) and rebuilds only the ranges while the shape stays the same.

use std::ops::Bound;

use larch_engine::record::value::Value;
use larch_engine::table::{IndexDef, KeyRange, Table, CLUSTERED};
use sqlparser::ast;

use crate::eval::EvalContext;
use bounds::Bounds;
pub(crate) use kept::KeptAccess;

mod bounds;
mod kept;

/// How rows of a table are found.
#[derive(Debug, Clone)]
pub(crate) enum Access {
    /// Every row, in primary-key order.
    Scan,
    /// One or more ranges of an index (`index` as the engine numbers them:
    /// 0 clustered, 1 + n for secondary n).
    Ranges { index: usize, ranges: Vec<KeyRange> },
}

/// Finds `column` of the table a column reference names, if it is one.
pub(crate) type ColumnOf<'a> = dyn Fn(&ast::Expr) -> Option<usize> + 'a;

/// What the statement wants from the table besides the WHERE ranges.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Want<'a> {
    /// Table columns the statement uses (`None`: all of them).
    pub needed: Option<&'a [usize]>,
    /// ORDER BY as (table column, descending), when every key is a plain
    /// column of this table; empty when the order does not matter.
    pub order: &'a [(usize, bool)],
    /// A LIMIT may stop the read early (an ordered index read then pays off
    /// even when the index does not cover the columns).
    pub limited: bool,
}

/// How to read a table.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub access: Access,
    /// Read the index backwards.
    pub reverse: bool,
    /// Rows come out in [`Want::order`]'s order.
    pub ordered: bool,
    /// Entries alone give every needed column (no clustered lookup).
    pub covering: bool,
    /// Indexes (engine numbers) the conditions give a range on.
    pub possible: Vec<usize>,
    /// The conjuncts (indices in the planned `conds`) that every row the
    /// ranges give satisfies, so the filter need not check them again: a
    /// conjunct that alone bounds an integer column the ranges use.
    pub exact: Vec<usize>,
}

/// The indexes of a table as (engine index number, definition, unique).
fn indexes(table: &Table) -> Vec<(usize, &IndexDef, bool)> {
    let def = table.def();
    let mut out = Vec::with_capacity(1 + def.secondary.len());
    if let Some(pk) = &def.primary_key {
        out.push((CLUSTERED, pk, true));
    }
    for (i, s) in def.secondary.iter().enumerate() {
        out.push((i + 1, s, s.unique));
    }
    out
}

/// A usable leading part of one index: its ranges and a score (lower is
/// better).
struct Candidate {
    index: usize,
    score: u32,
    ranges: Vec<KeyRange>,
    /// The table columns the ranges bound.
    columns: Vec<usize>,
}

/// How much of an index's leading part the bounds make usable: the key
/// parts fixed by equalities and whether the next one has a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Leading {
    /// Key parts with equality values.
    used: usize,
    /// The next key part has a range.
    tail: bool,
    /// Ranges: the product of the equalities' value counts.
    count: usize,
}

/// The usable leading part of `idx` under `b` (`None`: none).
fn leading(idx: &IndexDef, b: &Bounds) -> Option<Leading> {
    let mut used = 0usize;
    let mut count = 1usize;
    let mut tail = false;
    for part in &idx.columns {
        if part.prefix_len.is_some() || part.descending {
            break;
        }
        if let Some(vals) = &b.eq[part.column] {
            if count * vals.len() > 1000 {
                break;
            }
            count *= vals.len();
            used += 1;
        } else {
            tail = b.range[part.column].is_some();
            break;
        }
    }
    (used > 0 || tail).then_some(Leading { used, tail, count })
}

/// The key ranges of the usable leading part `lead` of `idx` under `b`:
/// every combination of the equalities' values (the first key part's
/// varying slowest), each followed by the next key part's range if any.
fn leading_ranges(idx: &IndexDef, lead: Leading, b: &Bounds) -> Vec<KeyRange> {
    let tail = if lead.tail {
        idx.columns
            .get(lead.used)
            .and_then(|part| b.range[part.column].as_ref())
    } else {
        None
    };
    let mut out = Vec::with_capacity(lead.count);
    for k in 0..lead.count {
        let mut p = Vec::with_capacity(lead.used + usize::from(tail.is_some()));
        let (mut rest, mut span) = (k, lead.count);
        for part in &idx.columns[..lead.used] {
            let vals = b.eq[part.column].as_deref().unwrap_or_default();
            if vals.is_empty() {
                break;
            }
            span /= vals.len();
            p.push(vals[rest / span].clone());
            rest %= span;
        }
        out.push(match tail {
            Some((lo, hi)) => {
                let with = |b: &Bound<Value>| match b {
                    Bound::Unbounded => {
                        if p.is_empty() {
                            Bound::Unbounded
                        } else {
                            Bound::Included(p.clone())
                        }
                    }
                    Bound::Included(v) => {
                        let mut q = p.clone();
                        q.push(v.clone());
                        Bound::Included(q)
                    }
                    Bound::Excluded(v) => {
                        let mut q = p.clone();
                        q.push(v.clone());
                        Bound::Excluded(q)
                    }
                };
                KeyRange {
                    lower: with(lo),
                    upper: with(hi),
                }
            }
            None => KeyRange::eq(p),
        });
    }
    out
}

fn candidate(index: usize, idx: &IndexDef, unique: bool, b: &Bounds) -> Option<Candidate> {
    let lead = leading(idx, b)?;
    let used = lead.used;
    let mut columns: Vec<usize> = idx.columns[..used].iter().map(|p| p.column).collect();
    if lead.tail {
        columns.extend(idx.columns.get(used).map(|p| p.column));
    }
    let full_unique = used == idx.columns.len() && (unique || index == CLUSTERED);
    // Lower is better: unique points, then clustered over secondary,
    // then more equality columns.
    let score = if full_unique {
        u32::from(index != CLUSTERED)
    } else {
        100 - (used as u32 * 10).min(90) + u32::from(!lead.tail) * 5 + u32::from(index != CLUSTERED)
    };
    Some(Candidate {
        index,
        score,
        ranges: leading_ranges(idx, lead, b),
        columns,
    })
}

/// Whether reading `idx` in key order (backwards when the answer is
/// `Some(true)`) gives `order`, given the columns equalities fix.
fn index_order(idx: &IndexDef, order: &[(usize, bool)], b: &Bounds) -> Option<bool> {
    let desc = order.first()?.1;
    if order.iter().any(|&(_, d)| d != desc) {
        return None;
    }
    let mut p = 0;
    for &(col, _) in order {
        if b.fixed(col) {
            continue;
        }
        while p < idx.columns.len() && b.fixed(idx.columns[p].column) {
            p += 1;
        }
        let part = idx.columns.get(p)?;
        if part.column != col || part.prefix_len.is_some() || part.descending {
            return None;
        }
        p += 1;
    }
    Some(desc)
}

/// Does an entry of engine index `index` give every needed column?
fn covers(table: &Table, index: usize, needed: Option<&[usize]>) -> bool {
    if index == CLUSTERED {
        return true;
    }
    let (Some(needed), Some(sl)) = (needed, table.layout().secondary.get(index - 1)) else {
        return false;
    };
    needed
        .iter()
        .all(|&c| sl.covers.get(c).copied().unwrap_or(false))
}

/// Bytes an entry of secondary `index` (0-based) may take at most, a
/// proxy for the pages a scan of it reads.
fn entry_width(table: &Table, secondary: usize) -> usize {
    let def = table.def();
    let Some(sl) = table.layout().secondary.get(secondary) else {
        return usize::MAX;
    };
    sl.key_columns
        .iter()
        .chain(sl.carried.iter())
        .map(|&c| def.columns[c].ty.max_storage_bytes().min(800))
        .sum()
}

/// Bytes a clustered record may take at most.
fn row_width(table: &Table) -> usize {
    table
        .def()
        .columns
        .iter()
        .map(|c| c.ty.max_storage_bytes().min(800))
        .sum()
}

/// Chooses how to read `table` given the WHERE conjuncts (`column_of` maps a
/// column reference to this table's column number) and what the statement
/// wants.
pub(crate) fn plan(
    table: &Table,
    conds: &[&ast::Expr],
    column_of: &ColumnOf<'_>,
    ctx: &mut EvalContext<'_>,
    want: Want<'_>,
) -> Plan {
    let b = Bounds::of(table, conds, column_of, ctx);
    decide(table, &b, want).0
}

/// The definition of engine index `index` of `table` and whether it is
/// unique.
fn index_def(table: &Table, index: usize) -> Option<(&IndexDef, bool)> {
    let def = table.def();
    if index == CLUSTERED {
        def.primary_key.as_ref().map(|pk| (pk, true))
    } else {
        def.secondary.get(index - 1).map(|s| (s, s.unique))
    }
}

/// The plan for the bounds `b`, and the index whose ranges come from `b`'s
/// values (`None` when the plan reads whole indexes). Everything else in
/// the plan depends on the shape of `b` only (which columns are bounded,
/// how, by which conjuncts), never on its values.
fn decide(table: &Table, b: &Bounds, want: Want<'_>) -> (Plan, Option<usize>) {
    let all = indexes(table);
    let candidates: Vec<Candidate> = all
        .iter()
        .filter_map(|&(index, idx, unique)| candidate(index, idx, unique, b))
        .collect();
    let possible: Vec<usize> = candidates.iter().map(|c| c.index).collect();
    // The best score; among equals, one that gives the wanted order.
    let order_of = |c: &Candidate| {
        let idx = all
            .iter()
            .find(|(i, _, _)| *i == c.index)
            .map(|(_, d, _)| *d);
        match idx {
            Some(idx) if c.ranges.len() == 1 => index_order(idx, want.order, b),
            _ => None,
        }
    };
    let best = candidates
        .into_iter()
        .map(|c| (order_of(&c), c))
        .min_by_key(|(order, c)| (c.score, order.is_none()));
    if let Some((order, c)) = best {
        let index = c.index;
        return (
            Plan {
                exact: b.exact(&c.columns),
                covering: covers(table, c.index, want.needed),
                access: Access::Ranges {
                    index: c.index,
                    ranges: c.ranges,
                },
                reverse: order == Some(true),
                ordered: order.is_some(),
                possible,
            },
            Some(index),
        );
    }
    // No usable range: a whole index in the wanted order, when reading it
    // costs no more than a scan and a sort.
    for &(index, idx, _) in &all {
        let Some(desc) = index_order(idx, want.order, b) else {
            continue;
        };
        let covering = covers(table, index, want.needed);
        if index == CLUSTERED || covering || want.limited {
            let plan = Plan {
                access: whole(index),
                reverse: desc,
                ordered: true,
                covering,
                possible,
                exact: Vec::new(),
            };
            return (plan, None);
        }
    }
    // The narrowest covering secondary index, if narrower than the rows.
    if want.needed.is_some() {
        let narrowest = all
            .iter()
            .filter(|&&(index, _, _)| index != CLUSTERED && covers(table, index, want.needed))
            .map(|&(index, _, _)| (entry_width(table, index - 1), index))
            .min();
        if let Some((width, index)) = narrowest {
            if width < row_width(table) {
                let plan = Plan {
                    access: whole(index),
                    reverse: false,
                    ordered: false,
                    covering: true,
                    possible,
                    exact: Vec::new(),
                };
                return (plan, None);
            }
        }
    }
    let plan = Plan {
        access: Access::Scan,
        reverse: false,
        ordered: false,
        covering: true,
        possible,
        exact: Vec::new(),
    };
    (plan, None)
}

/// Every entry of engine index `index`.
fn whole(index: usize) -> Access {
    if index == CLUSTERED {
        Access::Scan
    } else {
        Access::Ranges {
            index,
            ranges: vec![KeyRange::all()],
        }
    }
}

/// Chooses how to read `table` given the WHERE conjuncts, wanting all
/// columns in no particular order.
pub(crate) fn choose_access(
    table: &Table,
    conds: &[&ast::Expr],
    column_of: &ColumnOf<'_>,
    ctx: &mut EvalContext<'_>,
) -> Access {
    plan(table, conds, column_of, ctx, Want::default()).access
}

/// The index a nested-loop join looks an inner table up by when its ON
/// equalities fix `fixed` columns to values of earlier tables: (engine index
/// number, key parts used, whether one row at most matches).
pub(crate) fn lookup_index(table: &Table, fixed: &[usize]) -> Option<(usize, usize, bool)> {
    let mut b = Bounds::empty(table.def().columns.len());
    for &c in fixed {
        if let Some(slot) = b.eq.get_mut(c) {
            *slot = Some(vec![Value::Null]);
        }
    }
    let all = indexes(table);
    let best = all
        .iter()
        .filter_map(|&(index, idx, unique)| candidate(index, idx, unique, &b))
        .min_by_key(|c| c.score)?;
    let (_, idx, unique) = all.iter().find(|(i, _, _)| *i == best.index)?;
    let used = best.ranges.first().map_or(0, |r| match &r.lower {
        std::ops::Bound::Included(v) | std::ops::Bound::Excluded(v) => v.len(),
        std::ops::Bound::Unbounded => 0,
    });
    Some((best.index, used, *unique && used == idx.columns.len()))
}
