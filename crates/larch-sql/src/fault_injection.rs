//! Test-only panics at named points of statement execution, to prove that a
//! panic caught at the statement boundary leaves no state behind for the
//! next statement (see `session::ExecutionState`). Compiled only with the
//! `fault-injection` feature, which this crate's own tests turn on; a
//! server built without it has no such points.
//!
//! A point is armed for the calling thread and fires once, the n-th time
//! the thread reaches it.

use std::cell::Cell;

/// Where an injected panic can fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultPoint {
    /// A SELECT block has been planned (also when it is only described or
    /// explained), before it reads rows.
    SelectBlockPlanned,
    /// An in-place index change has built its indexes, before it takes its
    /// table back exclusively and writes the new definition.
    IndexChangeBuilt,
}

thread_local! {
    /// The armed point and how many more times it is passed before it fires.
    static ARMED: Cell<Option<(FaultPoint, u32)>> = const { Cell::new(None) };
}

/// The `nth` time from now (1: the next time) this thread reaches `point`,
/// it panics.
pub fn panic_at(point: FaultPoint, nth: u32) {
    ARMED.with(|a| a.set(Some((point, nth.saturating_sub(1)))));
}

/// Panics if `point` is armed on this thread and its turn has come (and
/// disarms it).
pub(crate) fn reached(point: FaultPoint) {
    let Some((armed, passes)) = ARMED.with(|a| a.get()) else {
        return;
    };
    if armed != point {
        return;
    }
    if passes > 0 {
        ARMED.with(|a| a.set(Some((armed, passes - 1))));
        return;
    }
    ARMED.with(|a| a.set(None));
    panic!("injected panic at {point:?}");
}
