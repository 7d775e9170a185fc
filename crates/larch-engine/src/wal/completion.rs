//! [`CompletionTracker`]: in-order completion of concurrently filled LSN ranges.
//!
//! Writers reserve disjoint ranges `[start, end)` of the log in LSN order but finish
//! (copy their bytes, or insert their pages into the flush list) in any order. The
//! tracker answers "up to which LSN is everything finished?" without making a
//! writer wait for the ones before it: each finished range is recorded in a slot
//! array indexed by its start, and whoever finishes follows the chain of finished
//! ranges from the current `ready` point (the "link buffer" of MySQL 8.0's redo).
//!
//! Invariants: starts are multiples of [`LSN_ALIGN`]; a range may be reported only
//! when its start is below `ready() + WINDOW` (callers wait with [`wait_window`]),
//! which guarantees that two unfinished ranges never share a slot.
//!
//! [`wait_window`]: CompletionTracker::wait_window

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

/// Every log block starts at a multiple of this.
pub const LSN_ALIGN: u64 = 8;
const SLOTS: usize = 1 << 17;
/// How far past `ready` a range may start (1 MiB of LSN).
pub const WINDOW: u64 = SLOTS as u64 * LSN_ALIGN;

/// See the module documentation.
pub struct CompletionTracker {
    ready: AtomicU64,
    slots: Box<[AtomicU32]>,
}

impl std::fmt::Debug for CompletionTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompletionTracker(ready={})", self.ready())
    }
}

impl CompletionTracker {
    /// A tracker where everything below `start` is finished.
    pub fn new(start: u64) -> Self {
        Self {
            ready: AtomicU64::new(start),
            slots: (0..SLOTS).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// Every range below this LSN is finished.
    pub fn ready(&self) -> u64 {
        self.ready.load(SeqCst)
    }

    /// Waits until a range starting at `start` may be reported.
    pub fn wait_window(&self, start: u64) {
        let mut spins = 0u32;
        while start >= self.ready() + WINDOW {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    fn slot(&self, lsn: u64) -> &AtomicU32 {
        &self.slots[((lsn / LSN_ALIGN) as usize) % SLOTS]
    }

    /// Reports `[start, end)` finished. `end - start` is a positive multiple of
    /// [`LSN_ALIGN`] below 32 GiB.
    pub fn finish(&self, start: u64, end: u64) {
        debug_assert!(end > start && (end - start) % LSN_ALIGN == 0);
        debug_assert!(start < self.ready() + WINDOW);
        let len = ((end - start) / LSN_ALIGN) as u32;
        self.slot(start).store(len, SeqCst);
        self.advance();
    }

    fn advance(&self) {
        loop {
            let r = self.ready.load(SeqCst);
            let len = self.slot(r).swap(0, SeqCst);
            if len == 0 {
                return;
            }
            // Only the thread that took the slot's value moves `ready` past it.
            self.ready.store(r + u64::from(len) * LSN_ALIGN, SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn out_of_order_finish() {
        let t = CompletionTracker::new(64);
        t.finish(80, 96);
        assert_eq!(t.ready(), 64);
        t.finish(64, 80);
        assert_eq!(t.ready(), 96);
    }

    #[test]
    fn concurrent_finishers_reach_the_end() {
        let t = Arc::new(CompletionTracker::new(0));
        let next = Arc::new(AtomicU64::new(0));
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (t, next) = (t.clone(), next.clone());
                std::thread::spawn(move || {
                    for k in 0..20_000u64 {
                        let len = LSN_ALIGN * (1 + (k * 7 + i) % 13);
                        let start = next.fetch_add(len, SeqCst);
                        t.wait_window(start);
                        t.finish(start, start + len);
                    }
                })
            })
            .collect();
        for h in handles {
            assert!(h.join().is_ok());
        }
        assert_eq!(t.ready(), next.load(SeqCst));
    }
}
