//! Multi-threaded tests: deadlocks (two- and three-owner cycles, victim by
//! weight, the search bound) and randomized stress runs that must finish
//! within a bound, keep X record locks exclusive, and leak nothing (also with
//! gap inheritance racing with releases).

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Barrier};
use std::thread;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::tests::{fail, grant, is_waiting, req, trx, wait_until, IDX, LONG};
use super::*;
use crate::error::{EngineError, Result};
use LockKind::{GapOnly, InsertIntention, NextKey, RecordOnly};
use LockMode::{Exclusive as X, Shared as S};

/// Locks `first`, meets the other thread, then locks `second`; releases all.
fn cross(
    lm: &LockManager,
    barrier: &Barrier,
    owner: u64,
    first: &[u8],
    second: &[u8],
) -> Result<Result<LockOutcome>> {
    let mut t = trx(owner);
    grant(lm, &mut t, req(first, X, RecordOnly))?;
    barrier.wait();
    let r = lm.lock(&mut t, req(second, X, RecordOnly), WaitOptions::wait(LONG));
    if matches!(r, Ok(LockOutcome::Granted)) && t.lock_structs() != 2 {
        return Err(fail("the survivor does not hold both locks"));
    }
    lm.release_all(&mut t);
    Ok(r)
}

#[test]
fn two_threads_in_a_cycle_one_victim_one_granted() -> Result<()> {
    let lm = LockManager::new();
    let barrier = Barrier::new(2);
    let (r1, r2) = thread::scope(|s| {
        let h1 = s.spawn(|| cross(&lm, &barrier, 1, b"k1", b"k2"));
        let h2 = s.spawn(|| cross(&lm, &barrier, 2, b"k2", b"k1"));
        (h1.join(), h2.join())
    });
    let r1 = r1.map_err(|_| fail("panicked"))??;
    let r2 = r2.map_err(|_| fail("panicked"))??;
    let results = [r1, r2];
    let victims = results
        .iter()
        .filter(|r| matches!(r, Err(EngineError::Deadlock)))
        .count();
    let granted = results
        .iter()
        .filter(|r| matches!(r, Ok(LockOutcome::Granted)))
        .count();
    assert_eq!((victims, granted), (1, 1), "{results:?}");
    let err = results
        .iter()
        .find_map(|r| r.as_ref().err())
        .ok_or_else(|| fail("no error"))?;
    assert_eq!(err.mysql_code(), Some((1213, "40001")));
    assert_eq!(lm.stats().deadlocks, 1);
    assert_eq!(lm.memory_bytes(), 0);
    Ok(())
}

#[test]
fn a_three_owner_cycle_rolls_back_the_requester() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b, mut c) = (trx(1), trx(2), trx(3));
    grant(&lm, &mut a, req(b"k1", X, RecordOnly))?;
    grant(&lm, &mut b, req(b"k2", X, RecordOnly))?;
    grant(&lm, &mut c, req(b"k3", X, RecordOnly))?;
    let run = |t: &mut TrxLocks, key: &[u8]| {
        let r = lm.lock(t, req(key, X, RecordOnly), WaitOptions::wait(LONG));
        lm.release_all(t);
        r
    };
    let (ra, rb) = thread::scope(|s| {
        let ha = s.spawn(|| run(&mut a, b"k2"));
        wait_until("A waits", || is_waiting(&lm, 1))?;
        let hb = s.spawn(|| run(&mut b, b"k3"));
        wait_until("B waits", || is_waiting(&lm, 2))?;
        // C closes the cycle C -> A -> B -> C; equal weights: C is the victim.
        let rc = lm.lock(&mut c, req(b"k1", X, RecordOnly), WaitOptions::wait(LONG));
        assert!(matches!(rc, Err(EngineError::Deadlock)), "{rc:?}");
        assert!(
            is_waiting(&lm, 1) && is_waiting(&lm, 2),
            "A and B still wait"
        );
        lm.release_all(&mut c);
        let ra = ha.join().map_err(|_| fail("panicked"))?;
        let rb = hb.join().map_err(|_| fail("panicked"))?;
        Ok::<_, EngineError>((ra, rb))
    })?;
    assert_eq!((ra?, rb?), (LockOutcome::Granted, LockOutcome::Granted));
    assert_eq!(lm.stats().deadlocks, 1);
    assert_eq!(lm.memory_bytes(), 0);
    Ok(())
}

#[test]
fn the_lighter_owner_of_a_cycle_is_the_victim() -> Result<()> {
    let lm = LockManager::new();
    let (mut heavy, mut light) = (trx(1), trx(2));
    grant(&lm, &mut heavy, req(b"k1", X, RecordOnly))?;
    grant(&lm, &mut light, req(b"k2", X, RecordOnly))?;
    let (rh, rl) = thread::scope(|s| {
        let hl = s.spawn(|| {
            let r = lm.lock(
                &mut light,
                req(b"k1", X, RecordOnly),
                WaitOptions::wait(LONG).with_weight(1),
            );
            // The caller rolls the victim back.
            lm.release_all(&mut light);
            r
        });
        wait_until("the light owner waits", || is_waiting(&lm, 2))?;
        // The heavy requester closes the cycle; the light waiter is woken
        // with the deadlock error, and the requester gets its lock.
        let rh = lm.lock(
            &mut heavy,
            req(b"k2", X, RecordOnly),
            WaitOptions::wait(LONG).with_weight(100),
        );
        let rl = hl.join().map_err(|_| fail("panicked"))?;
        Ok::<_, EngineError>((rh, rl))
    })?;
    assert!(matches!(rl, Err(EngineError::Deadlock)), "{rl:?}");
    assert_eq!(rh?, LockOutcome::Granted);
    assert_eq!(heavy.lock_structs(), 2);
    assert_eq!(lm.stats().deadlocks, 1);
    lm.release_all(&mut heavy);
    Ok(())
}

#[test]
fn a_wait_chain_deeper_than_the_search_bound_counts_as_a_deadlock() -> Result<()> {
    // Owner i holds key i and waits for key i + 1; the last owner does not
    // wait. No cycle, but the chain from a new waiter is deeper than 200.
    const N: u64 = 203;
    let lm = LockManager::new();
    let key = |i: u64| i.to_be_bytes();
    let mut owners: Vec<TrxLocks> = (1..=N).map(trx).collect();
    for (i, t) in (1..=N).zip(owners.iter_mut()) {
        grant(&lm, t, req(&key(i), X, RecordOnly))?;
    }
    let mut last = owners.pop().ok_or_else(|| fail("no owners"))?;
    let results = thread::scope(|s| {
        let mut handles = Vec::new();
        for (i, mut t) in (1..N).zip(owners) {
            let lm = &lm;
            handles.push(s.spawn(move || {
                let r = lm.lock(
                    &mut t,
                    req(&key(i + 1), X, RecordOnly),
                    WaitOptions::wait(LONG),
                );
                lm.release_all(&mut t);
                r
            }));
            wait_until("the chain grows", || is_waiting(lm, i))?;
        }
        let mut requester = trx(0);
        let r = lm.lock(
            &mut requester,
            req(&key(1), X, RecordOnly),
            WaitOptions::wait(LONG),
        );
        assert!(matches!(r, Err(EngineError::Deadlock)), "{r:?}");
        lm.release_all(&mut requester);
        // Unwind the chain from its end.
        lm.release_all(&mut last);
        let mut results = Vec::new();
        for h in handles {
            results.push(h.join().map_err(|_| fail("panicked"))?);
        }
        Ok::<_, EngineError>(results)
    })?;
    for r in results {
        assert_eq!(r?, LockOutcome::Granted);
    }
    assert_eq!((lm.stats().deadlocks, lm.memory_bytes()), (1, 0));
    Ok(())
}

/// Counters of the X-exclusion check: per key, how many transactions count
/// themselves as holding X and S record locks.
struct Holders {
    x: Vec<AtomicUsize>,
    s: Vec<AtomicUsize>,
}

/// One worker of the stress test: `trxs` transactions of 1..=4 random locks.
/// Returns the number of deadlock errors it got.
fn worker(lm: &LockManager, holders: &Holders, seed: u64, trxs: u64) -> Result<u64> {
    const CHOICES: [(LockMode, LockKind); 8] = [
        (S, RecordOnly),
        (X, RecordOnly),
        (S, NextKey),
        (X, NextKey),
        (X, NextKey),
        (S, GapOnly),
        (X, GapOnly),
        (X, InsertIntention),
    ];
    let keys = holders.x.len();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut deadlocks = 0;
    for n in 0..trxs {
        let mut t = trx(seed * 1_000_000 + n);
        let (mut mine_x, mut mine_s) = (vec![false; keys], vec![false; keys]);
        for _ in 0..rng.random_range(1..=4) {
            let k = rng.random_range(0..keys);
            let key = [k as u8];
            let (mode, kind) = CHOICES[rng.random_range(0..CHOICES.len())];
            let supremum = rng.random_range(0..10) == 0;
            let r = if supremum {
                LockRequest::supremum(IDX, mode, kind)
            } else {
                req(&key, mode, kind)
            };
            let options =
                WaitOptions::wait(Duration::from_secs(20)).with_weight(rng.random_range(0..4));
            match lm.lock(&mut t, r, options) {
                Ok(o) if o.is_granted() => {
                    if supremum || !kind.has_record() {
                        continue;
                    }
                    let (x_here, s_here) = (holders.x[k].load(SeqCst), holders.s[k].load(SeqCst));
                    if mode == X && !mine_x[k] {
                        let others = (x_here, s_here - usize::from(mine_s[k]));
                        if others != (0, 0) {
                            return Err(fail(format!(
                                "X on key {k} granted beside {others:?} other holders"
                            )));
                        }
                        holders.x[k].fetch_add(1, SeqCst);
                        mine_x[k] = true;
                    } else if mode == S && !mine_s[k] && !mine_x[k] {
                        if x_here != 0 {
                            return Err(fail(format!("S on key {k} granted beside an X holder")));
                        }
                        holders.s[k].fetch_add(1, SeqCst);
                        mine_s[k] = true;
                    }
                    if rng.random_bool(0.3) {
                        thread::yield_now();
                    }
                }
                Ok(other) => return Err(fail(format!("unexpected outcome {other:?}"))),
                Err(EngineError::Deadlock) => {
                    deadlocks += 1;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        for k in 0..keys {
            if mine_x[k] {
                holders.x[k].fetch_sub(1, SeqCst);
            }
            if mine_s[k] {
                holders.s[k].fetch_sub(1, SeqCst);
            }
        }
        lm.release_all(&mut t);
        if t.lock_structs() != 0 || t.rows_locked() != 0 {
            return Err(fail("counts left after release_all"));
        }
    }
    Ok(deadlocks)
}

#[test]
fn random_locking_never_hangs_and_keeps_x_record_locks_exclusive() -> Result<()> {
    const THREADS: u64 = 6;
    const KEYS: usize = 6;
    let lm = Arc::new(LockManager::with_shards(4));
    let holders = Arc::new(Holders {
        x: (0..KEYS).map(|_| AtomicUsize::new(0)).collect(),
        s: (0..KEYS).map(|_| AtomicUsize::new(0)).collect(),
    });
    let (tx, rx) = mpsc::channel();
    for seed in 1..=THREADS {
        let (lm, holders, tx) = (Arc::clone(&lm), Arc::clone(&holders), tx.clone());
        thread::spawn(move || {
            let _ = tx.send(worker(&lm, &holders, seed, 400));
        });
    }
    // Not joined: a hung worker fails the test instead of hanging it.
    let mut deadlocks = 0;
    for _ in 0..THREADS {
        let r = rx
            .recv_timeout(Duration::from_secs(120))
            .map_err(|_| fail("a worker hung"))?;
        deadlocks += r?;
    }
    let stats = lm.stats();
    assert_eq!(stats.deadlocks, deadlocks);
    assert_eq!((stats.timeouts, stats.current_waits), (0, 0));
    assert_eq!((lm.memory_bytes(), lm.snapshot().len()), (0, 0));
    eprintln!("stress: {} waits, {deadlocks} deadlocks", stats.total_waits);
    Ok(())
}

#[test]
fn gap_inheritance_racing_with_releases_leaks_nothing() -> Result<()> {
    const THREADS: u64 = 4;
    let lm = Arc::new(LockManager::with_shards(2));
    let (tx, rx) = mpsc::channel();
    for seed in 1..=THREADS {
        let (lm, tx) = (Arc::clone(&lm), tx.clone());
        thread::spawn(move || {
            let run = || -> Result<()> {
                let mut rng = SmallRng::seed_from_u64(seed);
                for n in 0..500 {
                    let mut t = trx(seed * 1_000_000 + n);
                    for _ in 0..rng.random_range(1..=3) {
                        let key = [rng.random_range(0..5u8)];
                        let kind = [GapOnly, NextKey, InsertIntention][rng.random_range(0..3)];
                        let mode = if rng.random_bool(0.5) { S } else { X };
                        let options = WaitOptions::wait(Duration::from_secs(20));
                        match lm.lock(&mut t, req(&key, mode, kind), options) {
                            Ok(_) => {}
                            Err(EngineError::Deadlock) => break,
                            Err(e) => return Err(e),
                        }
                    }
                    lm.release_all(&mut t);
                    if t.lock_structs() != 0 {
                        return Err(fail("counts left after release_all"));
                    }
                }
                Ok(())
            };
            let _ = tx.send(run());
        });
    }
    // The "purge" thread: removes random records, moving their gap locks on.
    let purge = {
        let lm = Arc::clone(&lm);
        thread::spawn(move || -> Result<()> {
            let mut rng = SmallRng::seed_from_u64(99);
            for _ in 0..3000 {
                let k = rng.random_range(0..5u8);
                let next = [k + 1];
                let next = if k == 4 {
                    KeyRef::Supremum
                } else {
                    KeyRef::Key(&next)
                };
                lm.inherit_gap(IDX, &[k], next)?;
                thread::yield_now();
            }
            Ok(())
        })
    };
    for _ in 0..THREADS {
        rx.recv_timeout(Duration::from_secs(120))
            .map_err(|_| fail("a worker hung"))??;
    }
    purge.join().map_err(|_| fail("purge panicked"))??;
    assert_eq!((lm.memory_bytes(), lm.snapshot().len()), (0, 0));
    assert_eq!(lm.stats().current_waits, 0);
    Ok(())
}
