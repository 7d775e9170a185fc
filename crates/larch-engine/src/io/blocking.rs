//! Blocking regions: how the engine tells its host that a thread is about to
//! wait (a row-lock wait, a commit's log flush, `SLEEP`, a long scan).
//!
//! A server that runs statements directly on the worker threads of an async
//! runtime (cheap: no hand-off per statement) installs a per-thread hook with
//! [`set_thread_hook`]; [`blocking`] runs its closure through the hook, which
//! can move the runtime's other work to another thread first (tokio's
//! `block_in_place`). Without a hook, [`blocking`] just runs the closure.
//!
//! Invariant: regions do not nest through the hook: inside a region the hook
//! is removed from the thread, so an inner [`blocking`] call runs directly.

use std::cell::Cell;

/// Runs the given closure, after moving other work off this thread.
pub type BlockingHook = fn(&mut dyn FnMut());

thread_local! {
    static HOOK: Cell<Option<BlockingHook>> = const { Cell::new(None) };
}

/// Installs (or with `None` removes) this thread's hook; returns the old one.
pub fn set_thread_hook(hook: Option<BlockingHook>) -> Option<BlockingHook> {
    HOOK.with(|h| h.replace(hook))
}

/// Whether this thread has a hook (it is shared by other work that a long
/// wait would hold up; see the module documentation).
pub fn thread_has_hook() -> bool {
    HOOK.with(|h| h.get().is_some())
}

/// Runs `f`, which may wait for a long time, through this thread's hook.
pub fn blocking<R>(f: impl FnOnce() -> R) -> R {
    let Some(hook) = HOOK.with(|h| h.take()) else {
        return f();
    };
    let mut f = Some(f);
    let mut out = None;
    hook(&mut || {
        if let Some(g) = f.take() {
            out = Some(g());
        }
    });
    HOOK.with(|h| h.set(Some(hook)));
    match (out, f) {
        (Some(r), _) => r,
        // A hook that did not call its closure: run it here.
        (None, Some(g)) => g(),
        (None, None) => unreachable!("the closure ran but produced no value"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn counting(f: &mut dyn FnMut()) {
        CALLS.fetch_add(1, Ordering::SeqCst);
        f();
    }

    fn lazy(_: &mut dyn FnMut()) {}

    #[test]
    fn regions_go_through_the_hook_once_and_do_not_nest() {
        assert_eq!(blocking(|| 1), 1, "no hook: runs directly");
        let old = set_thread_hook(Some(counting));
        let before = CALLS.load(Ordering::SeqCst);
        let v = blocking(|| blocking(|| 7) + 1);
        assert_eq!(v, 8);
        assert_eq!(
            CALLS.load(Ordering::SeqCst) - before,
            1,
            "the inner region ran directly"
        );
        set_thread_hook(Some(lazy));
        assert_eq!(
            blocking(|| 5),
            5,
            "a hook that skips the closure still gets a result"
        );
        set_thread_hook(old);
    }
}
