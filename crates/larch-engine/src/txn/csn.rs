//! [`CsnPublisher`]: hands out commit sequence numbers and publishes them in order.
//!
//! A committing transaction takes the next CSN with one `fetch_add`, records its
//! outcome in the commit table, then reports the CSN finished. The *published*
//! CSN is the largest `n` such that every CSN `<= n` has been reported: a snapshot
//! is one load of it, and so sees either all of the transactions committed up to
//! it or (for a larger CSN) none of them.
//!
//! Finished CSNs are recorded in a ring indexed by `csn % RING`, each slot holding
//! the CSN itself (so a slot needs no clearing: a stale value from an earlier lap
//! never equals the CSN it is asked about). Whoever reports a CSN moves the
//! published CSN forward across every consecutive finished slot, with a
//! compare-and-swap, so no committer waits for an earlier one to do it (the same
//! "link buffer" idea as `wal::completion`, for single numbers).
//!
//! Invariants:
//! - a CSN may be recorded in the ring only when `csn <= published + RING`
//!   ([`CsnPublisher::publish`] waits for that), so the slot it overwrites belongs
//!   to an already-published CSN;
//! - `published` never decreases and never passes an unreported CSN;
//! - CSN 0 is never handed out: ring slots start at 0 and `next >= 1`.
//!
//! Lost wake-ups cannot happen: with sequentially consistent operations, of two
//! committers `n` and `n + 1` finishing concurrently, either `n`'s advance loop
//! sees `n + 1`'s ring store, or `n + 1`'s later load of `published` sees `n`'s
//! advance and `n + 1` moves on itself.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use super::Csn;

/// Ring slots: how many CSNs may be taken but unpublished at once.
const RING: u64 = 1 << 12;

/// A value alone on its 128 bytes (two cache lines: some CPUs fetch lines in
/// adjacent pairs), so that writes to it do not slow readers of its neighbours.
#[repr(align(128))]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// See the module documentation.
pub(crate) struct CsnPublisher {
    /// Written by every commit.
    next: Padded<AtomicU64>,
    /// Written by every commit, read by every snapshot.
    published: Padded<AtomicU64>,
    ring: Box<[AtomicU64]>,
}

impl CsnPublisher {
    /// A publisher whose first CSN is `next` (`>= 1`); everything below it counts
    /// as published.
    pub(crate) fn new(next: Csn) -> Self {
        debug_assert!(next >= 1);
        Self {
            next: Padded(AtomicU64::new(next)),
            published: Padded(AtomicU64::new(next - 1)),
            ring: (0..RING).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Every CSN at or below this one is published.
    pub(crate) fn published(&self) -> Csn {
        self.published.load(SeqCst)
    }

    /// The CSN the next commit will take.
    pub(crate) fn next(&self) -> Csn {
        self.next.load(SeqCst)
    }

    /// Takes the next CSN. The caller must [`publish`](Self::publish) it.
    pub(crate) fn allocate(&self) -> Csn {
        self.next.fetch_add(1, SeqCst)
    }

    /// Ring slot of `csn`: consecutive CSNs (finished at the same moment by
    /// different threads) land on different cache lines.
    fn slot(&self, csn: Csn) -> &AtomicU64 {
        const SPREAD: u32 = 3; // 8 slots of 8 bytes per line
        const ROW: u64 = RING >> SPREAD;
        let i = csn % RING;
        &self.ring[((i % 8) * ROW + i / 8) as usize]
    }

    /// Reports `csn` finished (after its commit-table state is stored) and moves
    /// the published CSN as far as the finished CSNs allow.
    pub(crate) fn publish(&self, csn: Csn) {
        wait_until(|| csn <= self.published() + RING);
        self.slot(csn).store(csn, SeqCst);
        self.advance();
    }

    fn advance(&self) {
        loop {
            let p = self.published.load(SeqCst);
            let n = p + 1;
            if self.slot(n).load(SeqCst) != n {
                return;
            }
            // On failure another thread moved it; look again from its value.
            let _ = self.published.compare_exchange(p, n, SeqCst, SeqCst);
        }
    }

    /// Waits until `csn` is published (a committer does before it returns, so
    /// that the session's next snapshot sees its own commit).
    pub(crate) fn wait_published(&self, csn: Csn) {
        wait_until(|| self.published() >= csn);
    }
}

/// Spins briefly, then yields, until `done()`. Used only for waits that end as
/// soon as a few other threads finish a handful of stores.
pub(crate) fn wait_until(mut done: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !done() {
        spins = spins.saturating_add(1);
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU8};
    use std::sync::Arc;

    #[test]
    fn out_of_order_reports_publish_in_order() {
        let p = CsnPublisher::new(10);
        assert_eq!(p.published(), 9);
        let (a, b, c) = (p.allocate(), p.allocate(), p.allocate());
        assert_eq!((a, b, c), (10, 11, 12));
        p.publish(c);
        p.publish(b);
        assert_eq!(p.published(), 9, "10 is not reported yet");
        p.publish(a);
        assert_eq!(p.published(), 12);
        assert_eq!(p.next(), 13);
    }

    #[test]
    fn ring_wraps_many_times() {
        let p = CsnPublisher::new(1);
        for _ in 0..(3 * RING + 5) {
            let c = p.allocate();
            p.publish(c);
            assert_eq!(p.published(), c);
        }
    }

    /// Committers mark their CSN "committed" before reporting it; a checker
    /// thread loads the published CSN and verifies that every CSN at or below it
    /// is marked, i.e. that `n + 1` is never published while `n` is not.
    #[test]
    fn concurrent_reports_never_publish_past_a_gap() {
        const PER_THREAD: u64 = 20_000;
        const THREADS: u64 = 4;
        let total = (PER_THREAD * THREADS) as usize;
        let p = Arc::new(CsnPublisher::new(1));
        let marks: Arc<Vec<AtomicU8>> = Arc::new((0..=total).map(|_| AtomicU8::new(0)).collect());
        let stop = Arc::new(AtomicBool::new(false));
        let checker = {
            let (p, marks, stop) = (p.clone(), marks.clone(), stop.clone());
            std::thread::spawn(move || {
                let (mut checked, mut rounds) = (0u64, 0u64);
                while !stop.load(SeqCst) {
                    let s = p.published();
                    assert!(s >= checked, "published went backwards");
                    for c in checked + 1..=s {
                        assert_eq!(marks[c as usize].load(SeqCst), 1, "csn {c} <= {s} unmarked");
                    }
                    checked = s;
                    rounds += 1;
                }
                rounds
            })
        };
        let workers: Vec<_> = (0..THREADS)
            .map(|i| {
                let (p, marks) = (p.clone(), marks.clone());
                std::thread::spawn(move || {
                    for k in 0..PER_THREAD {
                        let c = p.allocate();
                        if (k + i) % 97 == 0 {
                            std::thread::yield_now(); // widen the allocate-publish window
                        }
                        marks[c as usize].store(1, SeqCst);
                        p.publish(c);
                        p.wait_published(c);
                    }
                })
            })
            .collect();
        for w in workers {
            assert!(w.join().is_ok());
        }
        stop.store(true, SeqCst);
        let rounds = checker.join().expect("checker panicked");
        assert!(rounds > 0);
        assert_eq!(p.published(), total as u64);
    }
}
