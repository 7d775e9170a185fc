//! The panic hook of a fuzz run: counts every panic in the process and
//! keeps the first message and location since the last [`take`].
//!
//! The code under test catches some panics itself (a statement's panic is
//! error 1105 in the SQL layer, a session call's panic is 1105 in the
//! protocol layer, a panicking tokio task is a join error), so "nothing
//! escaped" is not enough: the driver asks this counter after every input,
//! and any panic, caught or not, on any thread, is a finding.
//!
//! [`install`] wraps the default hook once per process. While the driver
//! runs an input ([`set_quiet`]) panics are only recorded, not printed
//! (the driver prints the recorded message with the failing input);
//! outside, they print as usual, so a failing test still shows why.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once};

static PANICS: AtomicU64 = AtomicU64::new(0);
static FIRST: Mutex<Option<String>> = Mutex::new(None);
static INSTALL: Once = Once::new();
static QUIET: AtomicBool = AtomicBool::new(false);

/// Installs the counting hook (idempotent).
pub fn install() {
    INSTALL.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            if !QUIET.load(Ordering::SeqCst) {
                default(info);
            }
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(non-text panic payload)".to_owned());
            let place = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            let thread = std::thread::current()
                .name()
                .unwrap_or("unnamed")
                .to_owned();
            let text = format!("panic on thread '{thread}' at {place}: {message}");
            if let Ok(mut first) = FIRST.lock() {
                if first.is_none() {
                    *first = Some(text);
                }
            }
        }));
    });
}

/// Whether panics are only recorded (true while an input runs) or also
/// printed.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// Panics counted since the process started.
pub fn count() -> u64 {
    PANICS.load(Ordering::SeqCst)
}

/// The first panic recorded since the last call, if any (and forgets it).
pub fn take() -> Option<String> {
    FIRST.lock().ok().and_then(|mut first| first.take())
}
