//! [`ExecutionState`]: what the nested parts of one running statement share
//! beyond their arguments: whether the statement only describes its result
//! (a prepared statement's columns), the EXPLAIN collector its SELECT
//! blocks report to, and the views being expanded.
//!
//! It lives in the [`Session`](super::Session), not in thread-local storage,
//! so that a statement's state belongs to its connection whatever thread runs
//! it. Every change is made through a [`Scoped`] guard that puts the previous
//! value back when it is dropped, so a statement that fails, or panics and has
//! its panic caught, leaves the state as it found it: the next statement on
//! the connection (or on the thread) starts clean.

use std::cell::RefCell;

use crate::exec::select::explain::Collector;

/// See the module documentation.
#[derive(Default)]
pub(crate) struct ExecutionState {
    /// Set while a query is described without reading rows (the columns of
    /// a prepared statement, a WITH element checked but not referenced).
    describe_only: RefCell<bool>,
    /// The EXPLAIN being collected, if any.
    explain: RefCell<Option<Collector>>,
    /// The views being expanded, outermost first, as `(database, name)`
    /// (their guards pop them).
    views: RefCell<Vec<(String, String)>>,
}

impl ExecutionState {
    /// Is the running query only described?
    pub(crate) fn describe_only(&self) -> bool {
        *self.describe_only.borrow()
    }

    /// Describes queries (plans them, reads no rows) until the guard drops.
    pub(crate) fn describing(&self) -> Scoped<'_, bool> {
        Scoped::set(&self.describe_only, true)
    }

    /// Starts collecting an EXPLAIN; [`Scoped::end`] hands it back.
    pub(crate) fn explaining(&self) -> Scoped<'_, Option<Collector>> {
        Scoped::set(&self.explain, Some(Collector::default()))
    }

    /// Runs `f` on the EXPLAIN being collected; `None` when there is none.
    pub(crate) fn with_explain<R>(&self, f: impl FnOnce(&mut Collector) -> R) -> Option<R> {
        self.explain.borrow_mut().as_mut().map(f)
    }

    /// The views being expanded (`exec::select::view`).
    pub(crate) fn views(&self) -> &RefCell<Vec<(String, String)>> {
        &self.views
    }

    /// Is an EXPLAIN being collected?
    pub(crate) fn explaining_now(&self) -> bool {
        self.explain.borrow().is_some()
    }
}

/// A value set for a scope: the previous one comes back when the guard is
/// dropped, during a panic's unwinding too.
pub(crate) struct Scoped<'a, T> {
    cell: &'a RefCell<T>,
    /// `None` once [`Scoped::end`] has put it back.
    previous: Option<T>,
}

impl<'a, T> Scoped<'a, T> {
    /// Sets `cell` to `value` until the guard drops.
    pub(crate) fn set(cell: &'a RefCell<T>, value: T) -> Scoped<'a, T> {
        let previous = Some(cell.replace(value));
        Scoped { cell, previous }
    }

    /// Ends the scope now: the previous value is back, and the one the
    /// scope ended with is returned.
    pub(crate) fn end(mut self) -> Option<T> {
        let previous = self.previous.take()?;
        Some(self.cell.replace(previous))
    }
}

impl<T> Drop for Scoped<'_, T> {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            self.cell.replace(previous);
        }
    }
}
