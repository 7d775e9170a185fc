//! How a SELECT block reads its sources, kept with its plan between
//! executions: the join plan (ON conditions compiled, columns to read), the
//! first table's access path ([`KeptAccess`]: chosen again only when the
//! parameters change the shape of what the WHERE says, else only its key
//! ranges are rebuilt) and the WHERE left to check per row once that path
//! enforces some conjuncts (compiled again only when those change).
//!
//! Invariant: a [`BlockAccess`] belongs to one [`super::block::BlockPlan`]
//! and is used with its sources and its `JoinWant` only; none of it depends
//! on parameter values but the first source's plan, which
//! [`BlockAccess::refresh`] brings up to date before every execution after
//! the first.

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::join::{self, JoinPlan, JoinWant};
use super::project::residual_where;
use super::source::{self, Source, SourceRows};
use crate::error::SqlError;
use crate::eval::{self, CompileOptions, Compiled};
use crate::exec::access::KeptAccess;
use crate::exec::rows;
use crate::session::Session;

/// A block's join plan and what it keeps to bring it up to date (see the
/// module documentation).
pub(super) struct BlockAccess {
    join: JoinPlan,
    /// The first source's access path, when it is a table.
    first: Option<KeptAccess>,
    /// The WHERE left once the conjuncts (indices) the first source's
    /// ranges enforce are taken out, compiled; `None` when nothing is left.
    residual: Option<(Vec<usize>, Option<Compiled>)>,
}

/// The WHERE conjuncts of a block.
pub(super) fn conjuncts(sel: &ast::Select) -> Vec<&ast::Expr> {
    sel.selection
        .as_ref()
        .map(rows::conjuncts)
        .unwrap_or_default()
}

impl BlockAccess {
    /// Plans the block's join for this execution's `params`.
    pub fn plan(
        s: &Session,
        sel: &ast::Select,
        sources: &[Source],
        params: &[Value],
        want: JoinWant<'_>,
    ) -> Result<BlockAccess, SqlError> {
        let join = join::plan(s, sources, &conjuncts(sel), params, want)?;
        Ok(BlockAccess {
            join,
            first: None,
            residual: None,
        })
    }

    /// Brings the first source's access path up to date for `params`
    /// (its conjuncts are analyzed on the first call: a plan run once
    /// never pays for it).
    pub fn refresh(
        &mut self,
        s: &Session,
        sel: &ast::Select,
        sources: &[Source],
        params: &[Value],
        want: JoinWant<'_>,
    ) {
        let Some(SourceRows::Table(t)) = sources.first().map(|f| &f.rows) else {
            return;
        };
        let kept = self.first.get_or_insert_with(|| {
            let column_of = |e: &ast::Expr| join::column_of_source(sources, 0, e);
            KeptAccess::new(&conjuncts(sel), &column_of)
        });
        let needed = self.join.needed.first().and_then(|n| n.as_deref());
        let w = crate::exec::access::Want {
            needed,
            order: want.order,
            limited: want.limited,
        };
        let mut ctx = s.eval_context(params);
        kept.refresh(&mut self.join.first, t, &mut ctx, w);
    }

    /// The join plan for this execution.
    pub fn join(&self) -> &JoinPlan {
        &self.join
    }

    /// Compiles the WHERE left to check per row when the conjuncts the
    /// first source's ranges enforce changed (see [`filter`](Self::filter)).
    pub fn prepare_filter(
        &mut self,
        s: &Session,
        sel: &ast::Select,
        sources: &[Source],
    ) -> Result<(), SqlError> {
        let exact = &self.join.first.exact;
        if exact.is_empty() || self.residual.as_ref().is_some_and(|(e, _)| e == exact) {
            return Ok(());
        }
        let conds = conjuncts(sel);
        let opts = CompileOptions {
            collation: s.connection_collation(),
            clause: "WHERE".into(),
        };
        let resolve = |parts: &[ast::Ident]| source::resolve(sources, parts).ok().flatten();
        let residual = residual_where(&conds, exact, |e| eval::compile(e, &resolve, &opts))?;
        self.residual = Some((exact.clone(), residual));
        Ok(())
    }

    /// The WHERE to check per row: `where_c` (the whole WHERE compiled)
    /// without the conjuncts the first source's ranges enforce (after
    /// [`prepare_filter`](Self::prepare_filter)).
    pub fn filter<'a>(&'a self, where_c: Option<&'a Compiled>) -> Option<&'a Compiled> {
        match &self.residual {
            Some((exact, residual)) if !exact.is_empty() && *exact == self.join.first.exact => {
                residual.as_ref()
            }
            _ => where_c,
        }
    }
}
