//! The random statement generator: a seeded RNG, the round's schema, the
//! feature switches, and the name scopes expressions are generated in.
//!
//! Submodules: `expr` (type-directed expressions and predicates), `query`
//! (SELECTs, joins, subqueries, grouping, set operations, CTEs), `pred`
//! (predicates and aggregates), `dml`
//! (INSERT/UPDATE/DELETE/REPLACE, transactions) and `lits` (literals).
//! Every choice comes from the one RNG, never from a server's answer, so a
//! seed replays exactly.

pub mod dml;
pub mod expr;
pub mod lits;
pub mod pred;
pub mod query;

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::Rng;

use crate::schema::{ColType, Table, Ty};

/// Generator features that can be switched off (`--without NAME`), e.g.
/// to stop rediscovering a bug that is already reported.
pub const FEATURES: [&str; 24] = [
    "window",
    "rollup",
    "intersect",
    "except",
    "union",
    "cte",
    "recursive-cte",
    "derived",
    "subquery",
    "correlated",
    "right-join",
    "natural-join",
    "using-join",
    "json",
    "txn",
    "savepoint",
    "odku",
    "replace",
    "insert-select",
    "group-concat",
    "collate",
    "regexp",
    "variance",
    "any-all",
];

/// One column visible in a scope.
#[derive(Clone, Debug)]
pub struct ScopeCol {
    /// How to reference it (`a1.b` or `c0`).
    pub sql: String,
    /// Its type family.
    pub ty: Ty,
    /// Its declared type when it is a base-table column.
    pub decl: Option<ColType>,
}

/// The columns an expression may reference.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Columns of the FROM clause being generated.
    pub cols: Vec<ScopeCol>,
    /// Columns of enclosing queries (for correlated subqueries).
    pub outer: Vec<ScopeCol>,
    /// True inside a grouped query's HAVING or select list: bare columns
    /// are not allowed outside aggregates (only `grouped` ones).
    pub grouped: Option<Vec<ScopeCol>>,
}

/// The generator.
pub struct Gen {
    /// The RNG (seeded).
    pub rng: StdRng,
    /// The tables of the current round.
    pub tables: Vec<Table>,
    /// Switched-off features.
    pub disabled: BTreeSet<String>,
    /// Counter for fresh aliases.
    alias_seq: u32,
}

impl Gen {
    /// A generator over `rng`, with `disabled` features off.
    pub fn new(rng: StdRng, disabled: BTreeSet<String>) -> Gen {
        Gen {
            rng,
            tables: Vec::new(),
            disabled,
            alias_seq: 0,
        }
    }

    /// True unless `feature` is switched off.
    pub fn on(&self, feature: &str) -> bool {
        !self.disabled.contains(feature)
    }

    /// True with probability `p` (and the feature on).
    pub fn chance_of(&mut self, feature: &str, p: f64) -> bool {
        self.on(feature) && self.rng.random_bool(p)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n.max(1))
    }

    /// A fresh table alias.
    pub fn alias(&mut self) -> String {
        self.alias_seq += 1;
        format!("a{}", self.alias_seq)
    }

    /// Resets per-statement state (aliases restart at a1).
    pub fn start_statement(&mut self) {
        self.alias_seq = 0;
    }

    /// Picks one of the choices by weight: returns the index.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut x = self.rng.random_range(0..total.max(1));
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        0
    }

    /// A random element of a non-empty slice (the first when empty).
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        let i = self.below(v.len());
        &v[i.min(v.len().saturating_sub(1))]
    }

    /// A random string of a non-empty list.
    pub fn pick_str(&mut self, v: &[&'static str]) -> &'static str {
        let i = self.below(v.len());
        v.get(i).copied().unwrap_or("")
    }

    /// Replaces the round's tables with `n` new random ones.
    pub fn new_tables(&mut self, n: usize) {
        self.tables = (1..=n)
            .map(|i| Table::random(&format!("t{i}"), &mut self.rng))
            .collect();
    }

    /// The scope of base table `t` under `alias`.
    pub fn table_scope(t: &Table, alias: &str) -> Vec<ScopeCol> {
        t.columns
            .iter()
            .map(|c| ScopeCol {
                sql: format!("{alias}.{}", c.name),
                ty: c.ty.ty(),
                decl: Some(c.ty.clone()),
            })
            .collect()
    }
}
