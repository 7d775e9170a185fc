//! Named user-level locks: `GET_LOCK`, `RELEASE_LOCK`, `IS_FREE_LOCK`,
//! `IS_USED_LOCK` and `RELEASE_ALL_LOCKS`, with MariaDB 10.0+ semantics.
//!
//! One [`UserLocks`] table per [`crate::database::Database`], server-wide. A
//! lock is held by one connection and is re-entrant: each `GET_LOCK` by the
//! holder adds one to its count, each `RELEASE_LOCK` takes one away, and the
//! lock is free when the count reaches zero. A connection's locks are all
//! released when it disconnects. A waiting `GET_LOCK` runs in the engine's
//! blocking region (its worker thread's other work moves elsewhere), wakes
//! when a lock is released, gives up after its timeout in seconds (negative:
//! forever) and stops with 1317 on `KILL QUERY`.
//!
//! Expressions reach the table of the statement running on their thread
//! through [`enter`], which the executor calls for each statement.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{code, SqlError};

/// Longest lock name MariaDB accepts (`NAME_LEN`, 64 characters).
const MAX_NAME_CHARS: usize = 64;

#[derive(Debug)]
struct Held {
    owner: u64,
    count: u64,
}

/// The server's user-level locks, by name.
#[derive(Debug, Default)]
pub struct UserLocks {
    held: Mutex<HashMap<String, Held>>,
    released: Condvar,
}

impl UserLocks {
    /// `GET_LOCK(name, timeout)` for connection `conn`: true when taken,
    /// false on timeout.
    pub fn get(
        &self,
        conn: u64,
        name: &str,
        timeout_secs: f64,
        kill: Option<&AtomicBool>,
    ) -> Result<bool, SqlError> {
        let key = key(name)?;
        let deadline = if timeout_secs < 0.0 || !timeout_secs.is_finite() {
            None
        } else {
            Some(Instant::now() + Duration::from_secs_f64(timeout_secs.min(1e9)))
        };
        let mut held = self.held.lock();
        if let Some(h) = held.get_mut(&key) {
            if h.owner == conn {
                h.count += 1;
                return Ok(true);
            }
        } else {
            held.insert(
                key,
                Held {
                    owner: conn,
                    count: 1,
                },
            );
            return Ok(true);
        }
        drop(held);
        larch_engine::io::blocking::blocking(|| {
            let mut held = self.held.lock();
            loop {
                if let std::collections::hash_map::Entry::Vacant(e) = held.entry(key.clone()) {
                    e.insert(Held {
                        owner: conn,
                        count: 1,
                    });
                    return Ok(true);
                }
                if kill.is_some_and(|k| k.load(Ordering::Relaxed)) {
                    return Err(SqlError::new(
                        code::QUERY_INTERRUPTED,
                        "Query execution was interrupted",
                    ));
                }
                // Short slices, so that KILL QUERY is seen promptly.
                let mut slice = Duration::from_millis(50);
                if let Some(d) = deadline {
                    let now = Instant::now();
                    if now >= d {
                        return Ok(false);
                    }
                    slice = slice.min(d - now);
                }
                self.released.wait_for(&mut held, slice);
            }
        })
    }

    /// `RELEASE_LOCK(name)`: `Some(true)` when `conn` held it (one level
    /// released), `Some(false)` when another connection holds it, `None`
    /// when nobody does.
    pub fn release(&self, conn: u64, name: &str) -> Result<Option<bool>, SqlError> {
        let key = key(name)?;
        let mut held = self.held.lock();
        let Some(h) = held.get_mut(&key) else {
            return Ok(None);
        };
        if h.owner != conn {
            return Ok(Some(false));
        }
        h.count -= 1;
        if h.count == 0 {
            held.remove(&key);
            self.released.notify_all();
        }
        Ok(Some(true))
    }

    /// `IS_USED_LOCK(name)`: the holder's connection id.
    pub fn holder(&self, name: &str) -> Result<Option<u64>, SqlError> {
        let key = key(name)?;
        Ok(self.held.lock().get(&key).map(|h| h.owner))
    }

    /// `RELEASE_ALL_LOCKS()` (and disconnect): releases every lock of `conn`;
    /// returns how many levels were held.
    pub fn release_all(&self, conn: u64) -> u64 {
        let mut held = self.held.lock();
        let mut n = 0;
        held.retain(|_, h| {
            if h.owner == conn {
                n += h.count;
                false
            } else {
                true
            }
        });
        if n > 0 {
            self.released.notify_all();
        }
        n
    }
}

/// Lock names compare as bytes (MariaDB's user-lock metadata keys); longer
/// than 64 characters is error 1059 (the name cut to 100 characters).
fn key(name: &str) -> Result<String, SqlError> {
    if name.chars().count() > MAX_NAME_CHARS {
        let shown: String = if name.chars().count() > 100 {
            name.chars().take(97).chain("...".chars()).collect()
        } else {
            name.to_owned()
        };
        return Err(SqlError::new(
            1059,
            format!("Identifier name '{shown}' is too long"),
        ));
    }
    Ok(name.to_owned())
}

thread_local! {
    static CURRENT: RefCell<Option<(Arc<UserLocks>, u64)>> = const { RefCell::new(None) };
}

/// Makes `locks` (for connection `conn`) the table expressions on this
/// thread use until the guard drops (nesting restores the outer one).
pub(crate) fn enter(locks: &Arc<UserLocks>, conn: u64) -> Entered {
    let previous = CURRENT.with(|c| c.replace(Some((locks.clone(), conn))));
    Entered { previous }
}

/// See [`enter`].
#[derive(Debug)]
pub(crate) struct Entered {
    previous: Option<(Arc<UserLocks>, u64)>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// The table and connection of the statement running on this thread (a
/// private table when there is none, as in expression unit tests).
pub(crate) fn current() -> (Arc<UserLocks>, u64) {
    CURRENT.with(|c| c.borrow().clone()).unwrap_or_else(|| {
        thread_local! {
            static LOCAL: Arc<UserLocks> = Arc::new(UserLocks::default());
        }
        (LOCAL.with(Arc::clone), 0)
    })
}
