//! Tests of releasing (early release of one record, release_all), gap
//! inheritance, the observability listings and counters, and the lock errors'
//! MySQL codes.

use std::thread;

use super::tests::{fail, grant, is_waiting, req, trx, wait_until, IDX, LONG};
use super::*;
use crate::error::{EngineError, Result};
use LockKind::{GapOnly, InsertIntention, NextKey, RecordOnly};
use LockMode::{Exclusive as X, Shared as S};

#[test]
fn release_record_frees_one_row_early_and_wakes_its_waiter() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
    grant(&lm, &mut a, req(b"j", X, RecordOnly))?;
    thread::scope(|s| {
        let waiter = s.spawn(|| lm.lock(&mut b, req(b"k", X, RecordOnly), WaitOptions::wait(LONG)));
        wait_until("B waits", || is_waiting(&lm, 2))?;
        assert!(
            !lm.release_record(&mut a, req(b"k", S, RecordOnly)),
            "no S lock to release"
        );
        assert!(lm.release_record(&mut a, req(b"k", X, RecordOnly)));
        let outcome = waiter.join().map_err(|_| fail("panicked"))??;
        assert_eq!(outcome, LockOutcome::Granted);
        Ok::<_, EngineError>(())
    })?;
    assert!(!lm.release_record(&mut a, req(b"k", X, RecordOnly)));
    assert_eq!((a.lock_structs(), a.rows_locked(), a.held.len()), (1, 1, 1));
    lm.release_all(&mut a);
    lm.release_all(&mut b);
    assert_eq!(lm.memory_bytes(), 0);
    Ok(())
}

#[test]
fn inherit_gap_moves_gap_locks_to_the_next_record() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b, mut c, mut d) = (trx(1), trx(2), trx(3), trx(4));
    grant(&lm, &mut a, req(b"k5", S, NextKey))?;
    grant(&lm, &mut b, req(b"k5", X, GapOnly))?;
    grant(&lm, &mut c, req(b"k5", S, RecordOnly))?;
    lm.inherit_gap(IDX, b"k5", KeyRef::Key(b"k7"))?;
    let mut locks: Vec<_> = lm
        .snapshot()
        .into_iter()
        .map(|l| (l.owner.0, l.target, l.mode, l.kind, l.granted))
        .collect();
    locks.sort_by_key(|l| l.0);
    let k7 = LockTarget::new(IDX, b"k7");
    assert_eq!(
        locks,
        vec![
            (1, k7.clone(), S, GapOnly, true),
            (2, k7.clone(), X, GapOnly, true)
        ]
    );
    assert_eq!(
        (a.lock_structs(), a.rows_locked(), c.lock_structs()),
        (1, 0, 0)
    );
    // The inherited gap lock still blocks an insert into the gap before k7.
    assert!(matches!(
        lm.lock(
            &mut d,
            req(b"k7", X, InsertIntention),
            WaitOptions::no_wait()
        ),
        Err(EngineError::LockNoWait)
    ));
    // And release_all finds the inherited locks.
    lm.release_all(&mut a);
    lm.release_all(&mut b);
    lm.release_all(&mut c);
    grant(&lm, &mut d, req(b"k7", X, InsertIntention))?;
    assert_eq!((lm.memory_bytes(), lm.snapshot().len()), (0, 0));
    // Nothing to inherit: a no-op; a record cannot be its own successor.
    lm.inherit_gap(IDX, b"k1", KeyRef::Supremum)?;
    assert!(lm.inherit_gap(IDX, b"k1", KeyRef::Key(b"k1")).is_err());
    Ok(())
}

#[test]
fn inherit_gap_wakes_waiters_of_the_removed_record() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b, mut c) = (trx(1), trx(2), trx(3));
    grant(&lm, &mut a, req(b"k5", X, RecordOnly))?;
    thread::scope(|s| {
        let waiter = s.spawn(|| lm.lock(&mut b, req(b"k5", X, NextKey), WaitOptions::wait(LONG)));
        wait_until("B waits", || is_waiting(&lm, 2))?;
        lm.inherit_gap(IDX, b"k5", KeyRef::Supremum)?;
        let outcome = waiter.join().map_err(|_| fail("panicked"))??;
        assert_eq!(outcome, LockOutcome::RecordRemoved);
        Ok::<_, EngineError>(())
    })?;
    // B's waited-for next-key lock became a granted gap lock on the supremum.
    let locks = lm.snapshot();
    assert_eq!(locks.len(), 1);
    assert!(locks[0].owner == OwnerId(2) && locks[0].is_supremum() && locks[0].granted);
    assert_eq!((a.lock_structs(), b.lock_structs()), (0, 1));
    assert!(matches!(
        lm.lock(
            &mut c,
            LockRequest::supremum(IDX, X, InsertIntention),
            WaitOptions::no_wait()
        ),
        Err(EngineError::LockNoWait)
    ));
    lm.release_all(&mut a);
    lm.release_all(&mut b);
    assert_eq!((b.lock_structs(), lm.memory_bytes()), (0, 0));
    Ok(())
}

#[test]
fn observability_shows_waits_owners_and_memory() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, NextKey))?;
    grant(&lm, &mut a, req(b"j", S, RecordOnly))?;
    let memory = lm.memory_bytes();
    assert!(memory >= 2 * std::mem::size_of::<LockTarget>(), "{memory}");
    let handle = b.stats_handle();
    thread::scope(|s| {
        let waiter = s.spawn(|| lm.lock(&mut b, req(b"k", S, RecordOnly), WaitOptions::wait(LONG)));
        wait_until("B waits", || is_waiting(&lm, 2))?;
        let waits = lm.lock_waits();
        assert_eq!(waits.len(), 1);
        let w = &waits[0];
        assert_eq!(
            (w.waiting_owner, w.blocking_owner),
            (OwnerId(2), OwnerId(1))
        );
        assert_eq!((w.waiting_mode, w.waiting_kind), (S, RecordOnly));
        assert_eq!(
            (w.blocking_mode, w.blocking_kind, w.blocking_granted),
            (X, NextKey, true)
        );
        assert_eq!(w.target, LockTarget::new(IDX, b"k"));
        let waiting = handle
            .waiting_for()
            .ok_or_else(|| fail("handle shows no wait"))?;
        assert_eq!(
            (waiting.target, waiting.mode),
            (LockTarget::new(IDX, b"k"), S)
        );
        let owners = lm.owner_stats();
        assert_eq!(owners.len(), 2);
        assert_eq!(
            (
                owners[0].owner,
                owners[0].lock_structs,
                owners[0].rows_locked
            ),
            (OwnerId(1), 2, 2)
        );
        assert!(owners[0].waiting.is_none());
        assert_eq!((owners[1].lock_structs, owners[1].rows_locked), (1, 0));
        assert!(owners[1].waiting.is_some());
        assert!(lm.memory_bytes() > memory);
        lm.release_all(&mut a);
        let outcome = waiter.join().map_err(|_| fail("panicked"))??;
        assert_eq!(outcome, LockOutcome::Granted);
        Ok::<_, EngineError>(())
    })?;
    assert!(handle.waiting_for().is_none());
    assert_eq!((handle.lock_structs(), handle.rows_locked()), (1, 1));
    lm.release_all(&mut b);
    assert_eq!((handle.lock_structs(), lm.memory_bytes()), (0, 0));
    assert!(lm.owner_stats().is_empty() && lm.lock_waits().is_empty());
    Ok(())
}

#[test]
fn counts_and_memory_return_to_zero_after_release_all() -> Result<()> {
    let lm = LockManager::with_shards(8);
    let mut owners: Vec<TrxLocks> = (1..=5).map(trx).collect();
    for (i, t) in owners.iter_mut().enumerate() {
        // Owner 0 locks the even keys X, the others the odd keys S.
        let (mode, parity) = if i == 0 { (X, 0) } else { (S, 1) };
        for k in (0..50u32).filter(|k| k % 2 == parity) {
            grant(&lm, t, req(&k.to_be_bytes(), mode, NextKey))?;
        }
        let sup = LockRequest::supremum(IDX, S, GapOnly);
        grant(&lm, t, sup)?;
        assert_eq!(
            lm.lock(t, sup, WaitOptions::no_wait())?,
            LockOutcome::AlreadyHeld
        );
    }
    let total: usize = owners.iter().map(TrxLocks::lock_structs).sum();
    assert_eq!(total, 25 + 4 * 25 + 5);
    assert_eq!(owners[0].rows_locked(), 25);
    assert!(lm.memory_bytes() > 0);
    let from_table: usize = lm.owner_stats().iter().map(|s| s.lock_structs).sum();
    assert_eq!(from_table, total);
    for t in &mut owners {
        lm.release_all(t);
        assert_eq!((t.lock_structs(), t.rows_locked()), (0, 0));
    }
    assert_eq!((lm.memory_bytes(), lm.snapshot().len()), (0, 0));
    Ok(())
}

#[test]
fn lock_errors_carry_mysql_codes() {
    let cases = [
        (
            EngineError::LockWaitTimeout,
            1205,
            "HY000",
            "Lock wait timeout exceeded; try restarting transaction",
        ),
        (
            EngineError::LockNoWait,
            1205,
            "HY000",
            "Lock wait timeout exceeded; try restarting transaction",
        ),
        (
            EngineError::Deadlock,
            1213,
            "40001",
            "Deadlock found when trying to get lock; try restarting transaction",
        ),
        (
            EngineError::QueryInterrupted,
            1317,
            "70100",
            "Query execution was interrupted",
        ),
    ];
    for (e, code, state, message) in cases {
        assert_eq!(e.mysql_code(), Some((code, state)));
        assert_eq!(e.to_string(), message);
    }
    assert_eq!(EngineError::Internal("x".into()).mysql_code(), None);
}
