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
    };
    let mut all: Option<Range<usize>> = None;
    for twj in from {
        let r = b.joins(twj)?;
        all = Some(match all {
            None => r,
            Some(a) => b.join(a, r, JoinKind::Inner, None),
        });
    }
    let mut offset = 0;
    for src in &mut b.out {
        src.offset = offset;
        offset += src.width();
    }
    Ok(b.out)
}

struct Builder<'a> {
    s: &'a Session,
    params: &'a [Value],
    /// The sources so far, in reading order.
    out: Vec<Source>,
    /// Sources created so far (the next one's `text_order`).
    written: usize,
}

impl Builder<'_> {
    /// One item of the comma list (a table and the joins after it).
    fn joins(&mut self, twj: &ast::TableWithJoins) -> Result<Range<usize>, SqlError> {
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
            let cond = on_condition(
                constraint,
                &self.out[left.clone()],
                &self.out[right.clone()],
            )?;
            left = if right_first {
                // Read the right side first: rotate it before the left one.
                let n_left = left.len();
                self.out[left.start..right.end].rotate_left(n_left);
                let r = left.start..left.start + right.len();
                let l = r.end..right.end;
                self.join(r, l, kind, cond)
            } else {
                self.join(left, right, kind, cond)
            };
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

    /// A table, view, derived table or parenthesized join.
    fn factor(&mut self, f: &ast::TableFactor) -> Result<Range<usize>, SqlError> {
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
        Ok(self.out.len() - 1..self.out.len())
    }
}

/// The ON condition of a join (USING turned into equalities between the
/// first source on each side with the column; NATURAL into USING of the
/// columns both sides have).
fn on_condition(
    c: &ast::JoinConstraint,
    left: &[Source],
    right: &[Source],
) -> Result<Option<ast::Expr>, SqlError> {
    match c {
        ast::JoinConstraint::On(e) => Ok(Some(e.clone())),
        ast::JoinConstraint::Using(cols) => {
            let mut cond: Option<ast::Expr> = None;
            for col in cols {
                let name = names::object_last(col);
                let side = |sources: &[Source]| {
                    sources
                        .iter()
                        .find(|s| s.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&name)))
                        .map(|s| s.alias.clone())
                };
                let (Some(l), Some(r)) = (side(left), side(right)) else {
                    return Err(SqlError::new(
                        1054,
                        format!("Unknown column '{name}' in 'FROM'"),
                    ));
                };
                let column = |table: String| {
                    Box::new(ast::Expr::CompoundIdentifier(vec![
                        ast::Ident::new(table),
                        ast::Ident::new(name.clone()),
                    ]))
                };
                let eq = ast::Expr::BinaryOp {
                    left: column(l),
                    op: ast::BinaryOperator::Eq,
                    right: column(r),
                };
                cond = Some(match cond {
                    None => eq,
                    Some(c) => ast::Expr::BinaryOp {
                        left: Box::new(c),
                        op: ast::BinaryOperator::And,
                        right: Box::new(eq),
                    },
                });
            }
            Ok(cond)
        }
        ast::JoinConstraint::Natural => {
            // The columns both sides have, in the left side's order.
            let mut common: Vec<ast::ObjectName> = Vec::new();
            for c in left.iter().flat_map(|s| &s.columns) {
                let shared = right
                    .iter()
                    .flat_map(|s| &s.columns)
                    .any(|r| r.name.eq_ignore_ascii_case(&c.name));
                if shared
                    && !common
                        .iter()
                        .any(|n| names::object_last(n).eq_ignore_ascii_case(&c.name))
                {
                    common.push(ast::ObjectName::from(vec![ast::Ident::new(c.name.clone())]));
                }
            }
            on_condition(&ast::JoinConstraint::Using(common), left, right)
        }
        ast::JoinConstraint::None => Ok(None),
    }
}
