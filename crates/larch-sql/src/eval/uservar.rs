//! User variables assigned inside expressions (`@a := expr`).
//!
//! Expressions see the session only through `&dyn Session`, so an assignment
//! made while a statement runs goes to a per-thread overlay: reads of `@name`
//! look there first, then at the session's variables. A statement runs on one
//! thread from start to end (blocking regions keep the thread), so the overlay
//! belongs to the statement running on this thread; [`StatementScope`] opens
//! it when the statement starts and hands the assignments back when it ends,
//! to be stored in the session (in assignment order, last one wins), even when
//! the statement fails (MariaDB keeps assignments made before an error).
//! Nested statement runs share the outermost one's overlay.

use std::cell::RefCell;
use std::collections::HashMap;

use larch_engine::record::value::Value;

use super::Session;

#[derive(Default)]
struct Overlay {
    depth: usize,
    vars: HashMap<String, Value>,
}

thread_local! {
    static OVERLAY: RefCell<Overlay> = RefCell::new(Overlay::default());
}

/// `@name` (lower-case name): the value assigned during this statement, else
/// the session's.
pub(crate) fn read(session: &dyn Session, name: &str) -> Value {
    OVERLAY
        .with(|o| o.borrow().vars.get(name).cloned())
        .unwrap_or_else(|| session.user_variable(name))
}

/// `@name := value` (lower-case name).
pub(crate) fn assign(name: &str, value: Value) {
    OVERLAY.with(|o| {
        o.borrow_mut().vars.insert(name.to_owned(), value);
    });
}

/// Forgets a pending assignment of `name` (a later `SET @name = ...` wins).
pub(crate) fn forget(name: &str) {
    OVERLAY.with(|o| {
        o.borrow_mut().vars.remove(name);
    });
}

/// The overlay's lifetime for one statement; see the module documentation.
#[derive(Debug)]
pub(crate) struct StatementScope {
    outermost: bool,
}

impl StatementScope {
    /// Opens the overlay (the outermost scope starts it empty).
    pub(crate) fn enter() -> StatementScope {
        let outermost = OVERLAY.with(|o| {
            let mut o = o.borrow_mut();
            o.depth += 1;
            if o.depth == 1 {
                o.vars.clear();
                true
            } else {
                false
            }
        });
        StatementScope { outermost }
    }

    /// Closes the scope; the outermost one returns the statement's
    /// assignments.
    pub(crate) fn finish(self) -> Vec<(String, Value)> {
        let outermost = self.outermost;
        drop(self);
        if !outermost {
            return Vec::new();
        }
        OVERLAY.with(|o| o.borrow_mut().vars.drain().collect())
    }
}

impl Drop for StatementScope {
    fn drop(&mut self) {
        OVERLAY.with(|o| {
            let mut o = o.borrow_mut();
            o.depth = o.depth.saturating_sub(1);
        });
    }
}
