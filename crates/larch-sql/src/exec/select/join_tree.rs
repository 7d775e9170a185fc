//! The join tree of a FROM clause flattened into the sources' reading
//! order: comma lists, `JOIN`/`INNER`/`CROSS`/`STRAIGHT_JOIN`, `LEFT` and
//! `RIGHT [OUTER] JOIN`, and parenthesized (nested) joins such as
//! `(a JOIN b ON ...) JOIN c ON ...` or `a LEFT JOIN (b JOIN c ON ...) ON ...`,
//! the form MariaDB stores view definitions in.
//!
//! Every join `L op R ON cond` becomes one [`Check`] on the last source of
//! the side read second; sources are read left to right, except that the
//! sides of a RIGHT JOIN are swapped (`L RIGHT JOIN R` is read as
//! `R LEFT JOIN L`). The side an outer join may NULL-extend is a contiguous
//! run of sources (its *group*): its first source carries `group_len`, its
//! check carries `closes_back`. Groups only refer to each other by
//! distance, so swapping the two sides of a RIGHT JOIN (each contiguous)
//! keeps them right. Invariants: the first source read is never in a group
//! and at most one group starts at any source. The nested loops
//! (`super::join`) NULL-extend a whole group when no combination of its
//! rows passes its check, then go on with the checks of the joins around it.
//!
//! The ON conditions a source's rows must meet whenever the source is not
//! NULL-extended (those of every join whose operands hold it, for an outer
//! join only on its NULL-extended side) are copied to `Source::lookup`,
//! where their equalities with earlier sources become index lookups.
//!
//! `USING (...)` and `NATURAL` joins merge their shared columns, as
//! MariaDB does: the joined result lists the shared columns first (in the
//! first operand's order, the value taken from the side read first: the
//! left one, or the right one of a RIGHT JOIN), then the other columns of
//! each side; nested joins merge again over these lists. Each join's
//! column list is kept (as `(text_order, column)` pairs) only once a FROM
//! clause has such a join; then every source gets its `star_rank` (see
//! [`Source::star_rank`]), which `*` and unqualified names follow.

use std::ops::Range;

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::source::{factor, Check, JoinKind, Source};
use crate::error::SqlError;
use crate::exec::names;
use crate::exec::rows;
use crate::session::Session;

/// Builds the sources of a FROM clause, in reading order, with their
/// offsets in the combined row.
pub(crate) fn sources(
    s: &Session,
    from: &[ast::TableWithJoins],
    params: &[Value],
) -> Result<Vec<Source>, SqlError> {
    let mut b = Builder {
        s,
        params,
        out: Vec::new(),
        written: 0,
        merging: false,
    };
    let mut all: Option<Part> = None;
    for twj in from {
        let r = b.joins(twj)?;
        all = Some(match all {
            None => r,
            Some(a) => {
                let cols = b.concat(&a, &r);
                let range = b.join(a.range, r.range, JoinKind::Inner, None);
                Part { range, cols }
            }
        });
    }
    if let (true, Some(all)) = (b.merging, &all) {
        let list = b.columns_of(all);
        for src in &mut b.out {
            src.star_rank = vec![usize::MAX; src.columns.len()];
        }
        for (rank, (text_order, col)) in list.into_iter().enumerate() {
            if let Some(src) = b.out.iter_mut().find(|s| s.text_order == text_order) {
                if let Some(r) = src.star_rank.get_mut(col) {
                    *r = rank;
                }
            }
        }
    }
    let mut offset = 0;
    for src in &mut b.out {
        src.offset = offset;
        offset += src.width();
    }
    Ok(b.out)
}

/// One column of a join's result: the source (by `text_order`) and the
/// column's index in it.
type ColRef = (usize, usize);

/// A join (or a single FROM item) being built: its run of sources and,
/// once the FROM clause merges columns, its result's column list (`None`:
/// every column of its sources, in FROM order).
struct Part {
    range: Range<usize>,
    cols: Option<Vec<ColRef>>,
}

struct Builder<'a> {
    s: &'a Session,
    params: &'a [Value],
    /// The sources so far, in reading order.
    out: Vec<Source>,
    /// Sources created so far (the next one's `text_order`).
    written: usize,
    /// A USING or NATURAL join was seen: column lists are kept.
    merging: bool,
}

impl Builder<'_> {
    /// One item of the comma list (a table and the joins after it).
    fn joins(&mut self, twj: &ast::TableWithJoins) -> Result<Part, SqlError> {
        let mut left = self.factor(&twj.relation)?;
        for j in &twj.joins {
            use ast::JoinOperator as J;
            let (kind, constraint, right_first) = match &j.join_operator {
                J::Join(c) | J::Inner(c) | J::CrossJoin(c) | J::StraightJoin(c) => {
                    (JoinKind::Inner, c, false)
                }
                J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c, false),
                J::Right(c) | J::RightOuter(c) => (JoinKind::Left, c, true),
                J::FullOuter(_) => return Err(SqlError::not_supported("FULL OUTER JOIN")),
                _ => return Err(SqlError::not_supported("this join")),
            };
            let right = self.factor(&j.relation)?;
            let shared = self.shared_columns(constraint, &left, &right, right_first)?;
            let cond = match &shared {
                Some(pairs) => self.using_condition(pairs),
                None => on_condition(constraint),
            };
            let cols = match shared {
                Some(pairs) => {
                    let (first, second) = if right_first {
                        (&right, &left)
                    } else {
                        (&left, &right)
                    };
                    Some(self.merged(first, second, &pairs))
                }
                None => self.concat(&left, &right),
            };
            let range = if right_first {
                // Read the right side first: rotate it before the left one.
                let n_left = left.range.len();
                self.out[left.range.start..right.range.end].rotate_left(n_left);
                let r = left.range.start..left.range.start + right.range.len();
                let l = r.end..right.range.end;
                self.join(r, l, kind, cond)
            } else {
                self.join(left.range, right.range, kind, cond)
            };
            left = Part { range, cols };
        }
        Ok(left)
    }

    /// Joins two adjacent runs of sources (`outer` read first, `inner`
    /// NULL-extended for an outer join); returns the run of both.
    fn join(
        &mut self,
        outer: Range<usize>,
        inner: Range<usize>,
        kind: JoinKind,
        cond: Option<ast::Expr>,
    ) -> Range<usize> {
        debug_assert_eq!(outer.end, inner.start);
        let last = inner.end - 1;
        let required = if kind == JoinKind::Left {
            inner.clone()
        } else {
            outer.start..inner.end
        };
        if let Some(c) = &cond {
            for k in required {
                self.out[k]
                    .lookup
                    .extend(rows::conjuncts(c).into_iter().cloned());
            }
        }
        let closes_back = (kind == JoinKind::Left).then(|| last - inner.start);
        if kind == JoinKind::Left {
            for src in &mut self.out[inner.clone()] {
                src.join = JoinKind::Left;
            }
            self.out[inner.start].group_len = Some(inner.len());
        }
        if cond.is_some() || closes_back.is_some() {
            self.out[last].checks.push(Check { cond, closes_back });
        }
        outer.start..inner.end
    }

    /// A part's result columns (see [`Part`]).
    fn columns_of(&self, part: &Part) -> Vec<ColRef> {
        if let Some(c) = &part.cols {
            return c.clone();
        }
        let mut written: Vec<&Source> = self.out[part.range.clone()].iter().collect();
        written.sort_by_key(|src| src.text_order);
        written
            .into_iter()
            .flat_map(|src| (0..src.columns.len()).map(|i| (src.text_order, i)))
            .collect()
    }

    /// The column lists of a join that merges nothing: both sides' in FROM
    /// order (`None` until the clause merges columns).
    fn concat(&self, a: &Part, b: &Part) -> Option<Vec<ColRef>> {
        if !self.merging {
            return None;
        }
        let mut cols = self.columns_of(a);
        cols.extend(self.columns_of(b));
        Some(cols)
    }

    fn column_name(&self, (text_order, col): ColRef) -> &str {
        self.out
            .iter()
            .find(|s| s.text_order == text_order)
            .and_then(|s| s.columns.get(col))
            .map_or("", |c| c.name.as_str())
    }

    fn source_alias(&self, text_order: usize) -> &str {
        self.out
            .iter()
            .find(|s| s.text_order == text_order)
            .map_or("", |s| s.alias.as_str())
    }

    /// The one column of a side's result named `name`: 1054 when there is
    /// none, 1052 when there are several.
    fn unique_column(&self, cols: &[ColRef], name: &str) -> Result<Option<ColRef>, SqlError> {
        let mut found = None;
        for &c in cols {
            if self.column_name(c).eq_ignore_ascii_case(name) {
                if found.is_some() {
                    return Err(SqlError::ambiguous_column(name, "FROM"));
                }
                found = Some(c);
            }
        }
        Ok(found)
    }

    /// For USING and NATURAL: the shared columns as (left, right) pairs, in
    /// the order of the side read first (`right_first` for a RIGHT JOIN);
    /// `None` for other joins.
    fn shared_columns(
        &mut self,
        constraint: &ast::JoinConstraint,
        left: &Part,
        right: &Part,
        right_first: bool,
    ) -> Result<Option<Vec<(ColRef, ColRef)>>, SqlError> {
        let names: Vec<String> = match constraint {
            ast::JoinConstraint::Using(cols) => cols.iter().map(names::object_last).collect(),
            ast::JoinConstraint::Natural => Vec::new(),
            _ => return Ok(None),
        };
        self.merging = true;
        let (lcols, rcols) = (self.columns_of(left), self.columns_of(right));
        let mut pairs: Vec<(ColRef, ColRef)> = Vec::new();
        if let ast::JoinConstraint::Natural = constraint {
            for &l in &lcols {
                let name = self.column_name(l).to_owned();
                if !rcols
                    .iter()
                    .any(|&r| self.column_name(r).eq_ignore_ascii_case(&name))
                {
                    continue;
                }
                let (Some(l), Some(r)) = (
                    self.unique_column(&lcols, &name)?,
                    self.unique_column(&rcols, &name)?,
                ) else {
                    continue;
                };
                if !pairs.contains(&(l, r)) {
                    pairs.push((l, r));
                }
            }
        } else {
            for name in &names {
                let (Some(l), Some(r)) = (
                    self.unique_column(&lcols, name)?,
                    self.unique_column(&rcols, name)?,
                ) else {
                    return Err(SqlError::new(
                        1054,
                        format!("Unknown column '{name}' in 'FROM'"),
                    ));
                };
                if !pairs.contains(&(l, r)) {
                    pairs.push((l, r));
                }
            }
        }
        // The merged columns come in the order of the side read first.
        let first = if right_first { &rcols } else { &lcols };
        let rank = |c: ColRef| first.iter().position(|&f| f == c).unwrap_or(usize::MAX);
        if right_first {
            pairs.sort_by_key(|&(_, r)| rank(r));
        } else {
            pairs.sort_by_key(|&(l, _)| rank(l));
        }
        Ok(Some(pairs))
    }

    /// `left.c = right.c AND ...` over the shared columns.
    fn using_condition(&self, pairs: &[(ColRef, ColRef)]) -> Option<ast::Expr> {
        let column = |c: ColRef| {
            Box::new(ast::Expr::CompoundIdentifier(vec![
                ast::Ident::new(self.source_alias(c.0)),
                ast::Ident::new(self.column_name(c)),
            ]))
        };
        pairs.iter().fold(None, |cond, &(l, r)| {
            let eq = ast::Expr::BinaryOp {
                left: column(l),
                op: ast::BinaryOperator::Eq,
                right: column(r),
            };
            Some(match cond {
                None => eq,
                Some(c) => ast::Expr::BinaryOp {
                    left: Box::new(c),
                    op: ast::BinaryOperator::And,
                    right: Box::new(eq),
                },
            })
        })
    }

    /// The result columns of a USING/NATURAL join: the shared columns (taken
    /// from `first`, the side read first), then the other columns of
    /// `first`, then those of `second`.
    fn merged(&self, first: &Part, second: &Part, pairs: &[(ColRef, ColRef)]) -> Vec<ColRef> {
        let first_is_left = pairs
            .first()
            .is_some_and(|&(l, _)| self.columns_of(first).contains(&l));
        let (kept, dropped): (Vec<ColRef>, Vec<ColRef>) = pairs
            .iter()
            .map(|&(l, r)| if first_is_left { (l, r) } else { (r, l) })
            .unzip();
        let mut cols = kept.clone();
        cols.extend(
            self.columns_of(first)
                .into_iter()
                .filter(|c| !kept.contains(c)),
        );
        cols.extend(
            self.columns_of(second)
                .into_iter()
                .filter(|c| !dropped.contains(c)),
        );
        cols
    }

    /// A table, view, derived table or parenthesized join.
    fn factor(&mut self, f: &ast::TableFactor) -> Result<Part, SqlError> {
        if let ast::TableFactor::NestedJoin {
            table_with_joins,
            alias,
        } = f
        {
            if let Some(a) = alias {
                // Not in MariaDB's grammar either.
                return Err(SqlError::new(
                    1064,
                    format!(
                        "You have an error in your SQL syntax; check the manual that corresponds \
                         to your MariaDB server version for the right syntax to use near 'as {a}'"
                    ),
                ));
            }
            return self.joins(table_with_joins);
        }
        let mut src = factor(self.s, f, self.params)?;
        src.text_order = self.written;
        self.written += 1;
        self.out.push(src);
        Ok(Part {
            range: self.out.len() - 1..self.out.len(),
            cols: None,
        })
    }
}

/// The ON condition of a join without shared columns.
fn on_condition(c: &ast::JoinConstraint) -> Option<ast::Expr> {
    match c {
        ast::JoinConstraint::On(e) => Some(e.clone()),
        _ => None,
    }
}
