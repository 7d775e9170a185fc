//! Work a statement repeats on every execution although it depends only on
//! the statement, the dictionary and the session's settings, kept between
//! executions: the bound and compiled SELECT block of a prepared (or
//! statement-cached) query with its join plan and access path, which only
//! its key ranges follow the parameters of ([`StatementPlans`]; a change of
//! a table's indexes bumps the generation below), and the decoded metadata and
//! compiled CHECK constraints of a write's target table ([`TargetCache`]).
//!
//! Invariants: an entry is used only while its [`PlanKey`] still matches,
//! i.e. the catalog's `tables_generation` (bumped by every CREATE, DROP,
//! RENAME and ALTER of a table), the session's settings epoch (bumped by
//! every SET, `SET NAMES` and COM_RESET_CONNECTION) and the current database
//! are those it was built under; anything else is rebuilt and replaces it. A
//! plan is keyed by its statement's address and holds the statement, so the
//! address cannot be reused by another statement while the entry lives.
//! Both caches are bounded (`CAPACITY` entries; when full, the cache is
//! emptied), and their entries hold tables only weakly, so a kept entry
//! never keeps a dropped table alive. Metadata locks are not cached: the
//! user takes them on every execution, then checks the key again.

use std::collections::HashMap;
use std::sync::Arc;

use crate::parse::Statement;

/// Entries kept per cache.
const CAPACITY: usize = 128;

/// What a cached entry was built under (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlanKey {
    pub generation: u64,
    pub settings: u64,
    /// The session's [`UserVariables::types_generation`].
    ///
    /// [`UserVariables::types_generation`]: crate::eval::uservar::UserVariables::types_generation
    pub user_var_types: u64,
    pub db: Option<String>,
}

impl PlanKey {
    /// True when the entry built under `self` is valid for a session now in
    /// `generation`, `settings` and `db`.
    pub fn matches(
        &self,
        generation: u64,
        settings: u64,
        user_var_types: u64,
        db: Option<&str>,
    ) -> bool {
        self.generation == generation
            && self.settings == settings
            && self.user_var_types == user_var_types
            && self.db.as_deref() == db
    }
}

struct PlanEntry<P> {
    /// Keeps the statement (and so the key's address) alive.
    statement: Arc<Statement>,
    key: PlanKey,
    plan: P,
}

/// The plans of the statements a session runs repeatedly, one per
/// statement; see the module documentation.
pub(crate) struct StatementPlans<P> {
    entries: HashMap<usize, PlanEntry<P>>,
}

impl<P> Default for StatementPlans<P> {
    fn default() -> Self {
        StatementPlans {
            entries: HashMap::new(),
        }
    }
}

fn address(statement: &Arc<Statement>) -> usize {
    Arc::as_ptr(statement) as usize
}

impl<P> StatementPlans<P> {
    /// Takes the plan of `statement` out of the cache (the caller puts it
    /// back with [`put`](Self::put) after the execution) with the key it was
    /// built under.
    pub fn take(&mut self, statement: &Arc<Statement>) -> Option<(PlanKey, P)> {
        let e = self.entries.remove(&address(statement))?;
        Arc::ptr_eq(&e.statement, statement).then_some((e.key, e.plan))
    }

    /// Stores the plan of `statement`, built under `key`.
    pub fn put(&mut self, statement: &Arc<Statement>, key: PlanKey, plan: P) {
        if self.entries.len() >= CAPACITY {
            self.entries.clear();
        }
        self.entries.insert(
            address(statement),
            PlanEntry {
                statement: statement.clone(),
                key,
                plan,
            },
        );
    }

    /// Forgets every plan.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many plans are kept (for tests).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

impl<P> std::fmt::Debug for StatementPlans<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatementPlans")
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// Per table (`(database, table)` as the catalog names it), what writes
/// derive from its dictionary entry; see the module documentation.
pub(crate) struct TargetCache<T> {
    /// By database, then table.
    entries: HashMap<String, HashMap<String, (PlanKey, Arc<T>)>>,
    len: usize,
}

impl<T> Default for TargetCache<T> {
    fn default() -> Self {
        TargetCache {
            entries: HashMap::new(),
            len: 0,
        }
    }
}

impl<T> TargetCache<T> {
    /// The entry of `db`.`table` if it was built under a key that `valid`
    /// accepts.
    pub fn get(&self, db: &str, table: &str, valid: impl Fn(&PlanKey) -> bool) -> Option<Arc<T>> {
        let (key, value) = self.entries.get(db)?.get(table)?;
        valid(key).then(|| value.clone())
    }

    /// Stores the entry of `db`.`table`, built under `key`.
    pub fn put(&mut self, db: &str, table: &str, key: PlanKey, value: Arc<T>) {
        if self.len >= CAPACITY {
            self.clear();
        }
        let old = self
            .entries
            .entry(db.to_owned())
            .or_default()
            .insert(table.to_owned(), (key, value));
        if old.is_none() {
            self.len += 1;
        }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.len = 0;
    }
}

impl<T> std::fmt::Debug for TargetCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TargetCache")
            .field("entries", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt() -> Arc<Statement> {
        Arc::new(Statement::Shutdown)
    }

    fn key(generation: u64) -> PlanKey {
        PlanKey {
            generation,
            settings: 0,
            user_var_types: 0,
            db: Some("d".into()),
        }
    }

    #[test]
    fn plans_are_taken_and_put_back_per_statement() {
        let mut plans: StatementPlans<u32> = StatementPlans::default();
        let (a, b) = (stmt(), stmt());
        plans.put(&a, key(1), 10);
        assert!(plans.take(&b).is_none());
        let (k, p) = plans.take(&a).expect("plan of a");
        assert_eq!((k.generation, p), (1, 10));
        assert!(plans.take(&a).is_none());
        assert!(k.matches(1, 0, 0, Some("d")));
        assert!(!k.matches(2, 0, 0, Some("d")));
        assert!(!k.matches(1, 1, 0, Some("d")));
        assert!(!k.matches(1, 0, 1, Some("d")));
        assert!(!k.matches(1, 0, 0, None));
    }

    #[test]
    fn caches_stay_bounded() {
        let mut plans: StatementPlans<u32> = StatementPlans::default();
        let kept: Vec<_> = (0..CAPACITY + 1).map(|_| stmt()).collect();
        for s in &kept {
            plans.put(s, key(1), 0);
        }
        assert!(plans.len() <= CAPACITY);
        let mut targets: TargetCache<u32> = TargetCache::default();
        targets.put("d", "t", key(1), Arc::new(5));
        assert_eq!(
            targets.get("d", "t", |k| k.generation == 1).as_deref(),
            Some(&5)
        );
        assert!(targets.get("d", "t", |k| k.generation == 2).is_none());
        assert!(targets.get("d", "u", |_| true).is_none());
    }
}
