//! The access path of a kept plan (`session::plans`), chosen again only
//! when the parameters change what the WHERE conjuncts say.
//!
//! A plan's choices (the index, direction, order, covering, the conjuncts
//! it enforces) depend on the *shape* of the bounds only: per conjunct,
//! whether its constants converted exactly to the column's type, and if so
//! which column it bounds and how (an equality with how many values, a
//! range bounded below and/or above). The values only fill in the key
//! ranges. So the conjuncts are analyzed once ([`CondBound::of`]: column,
//! comparison, constants compiled); each execution evaluates the constants,
//! and when every conjunct's shape is the one the kept plan was chosen for,
//! rebuilds only the ranges of the chosen index; otherwise it chooses
//! again from the new bounds exactly as [`super::plan`] does. A NULL, a
//! value of another kind or out of the column's range changes the shape.
//!
//! Invariant: the [`Plan`] given to [`KeptAccess::refresh`] is the one its
//! previous call left (the caller keeps it next to this value), and the
//! table's definition and the [`Want`] are those of the first call (a kept
//! plan is dropped when a table changes, see `session::plans`).

use sqlparser::ast;

use larch_engine::table::Table;

use super::bounds::{evaluate_into, BoundShape, Bounds, ColumnBound, CondBound};
use super::{decide, index_def, leading, leading_ranges, Access, ColumnOf, Plan, Want};
use crate::eval::EvalContext;

/// The access path of one table of a kept plan (see the module
/// documentation).
pub(crate) struct KeptAccess {
    /// Per WHERE conjunct: the bound it may give, as the statement says.
    conds: Vec<Option<CondBound>>,
    /// Per conjunct, this execution's bound (a reused buffer).
    evaluated: Vec<Option<ColumnBound>>,
    /// This execution's bounds per column (reused buffers).
    bounds: Bounds,
    /// Per conjunct, the shape the kept plan was chosen for; `None` before
    /// the first choice.
    shapes: Option<Vec<Option<BoundShape>>>,
    /// The index whose ranges the kept plan takes from the bounds' values.
    ranged: Option<usize>,
}

impl KeptAccess {
    /// Analyzes the WHERE conjuncts `conds` of a table (`column_of` maps a
    /// column reference to its column number). The first
    /// [`refresh`](Self::refresh) chooses the plan.
    pub fn new(conds: &[&ast::Expr], column_of: &ColumnOf<'_>) -> KeptAccess {
        KeptAccess {
            conds: conds.iter().map(|c| CondBound::of(c, column_of)).collect(),
            evaluated: Vec::new(),
            bounds: Bounds::empty(0),
            shapes: None,
            ranged: None,
        }
    }

    /// Brings `plan` up to date for this execution's parameters (in
    /// `ctx`): the same plan with new ranges when the bounds have the shape
    /// it was chosen for, else the plan [`super::plan`] would choose.
    pub fn refresh(
        &mut self,
        plan: &mut Plan,
        table: &Table,
        ctx: &mut EvalContext<'_>,
        want: Want<'_>,
    ) {
        evaluate_into(table, &self.conds, ctx, &mut self.evaluated);
        let same = self.shapes.as_ref().is_some_and(|shapes| {
            shapes.len() == self.evaluated.len()
                && shapes
                    .iter()
                    .zip(&self.evaluated)
                    .all(|(s, b)| *s == b.as_ref().map(ColumnBound::shape))
        });
        if !same {
            self.shapes = Some(
                self.evaluated
                    .iter()
                    .map(|b| b.as_ref().map(ColumnBound::shape))
                    .collect(),
            );
        }
        self.bounds.fill(table, &self.conds, &mut self.evaluated);
        if !same {
            let (chosen, ranged) = decide(table, &self.bounds, want);
            *plan = chosen;
            self.ranged = ranged;
            return;
        }
        let Some(index) = self.ranged else {
            return;
        };
        // The same shape gives the same leading part: only its values are new.
        let lead =
            index_def(table, index).and_then(|(idx, _)| Some((idx, leading(idx, &self.bounds)?)));
        match (lead, &mut plan.access) {
            (Some((idx, lead)), Access::Ranges { ranges, .. }) => {
                *ranges = leading_ranges(idx, lead, &self.bounds);
            }
            // Cannot happen with the same shape; choose again to be safe.
            _ => {
                let (chosen, ranged) = decide(table, &self.bounds, want);
                *plan = chosen;
                self.ranged = ranged;
            }
        }
    }
}
