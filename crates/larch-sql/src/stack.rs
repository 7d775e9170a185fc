//! The stack guard: statements fail with MariaDB's 1436 ("Thread stack
//! overrun") instead of overflowing the thread's stack, which would abort
//! the whole server.
//!
//! The parser bounds how deeply a statement nests (`parse::depth`), which
//! bounds the recursion of every walk over one statement. What nests at
//! run time (a view over a view, a stored function calling another, a
//! trigger firing one, a subquery's plan inside its outer query's) calls
//! [`check`] at each level: it reads the running thread's remaining stack
//! (one comparison against a cached bound) and fails once less than
//! [`RED_ZONE`] is left, enough for the deepest walk of one bounded
//! statement level.

use crate::error::SqlError;

/// Stack kept free for the work of one nesting level.
pub const RED_ZONE: usize = 256 * 1024;

/// 1436 when less than [`RED_ZONE`] of the thread's stack is left.
pub fn check() -> Result<(), SqlError> {
    match stacker::remaining_stack() {
        Some(left) if left < RED_ZONE => Err(overrun()),
        _ => Ok(()),
    }
}

/// MariaDB's 1436 for a statement too deep to run.
pub fn overrun() -> SqlError {
    SqlError::new(
        1436,
        "Thread stack overrun: the statement nests too deeply. Use 'mariadbd --thread_stack=#' to specify a bigger stack.",
    )
}
