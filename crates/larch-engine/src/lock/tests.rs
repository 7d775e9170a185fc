//! Behaviour tests of the lock manager: the compatibility matrix, gap
//! semantics, waits (wake-up, timeout, NOWAIT, SKIP LOCKED, KILL), the queue
//! rule, upgrades and covered re-requests. Release, gap inheritance,
//! observability and error codes are in `release_tests`; deadlocks and the
//! randomized stress tests in `stress_tests`. The helpers here are shared.

use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::error::{EngineError, Result};
use LockKind::{GapOnly, InsertIntention, NextKey, RecordOnly};
use LockMode::{Exclusive as X, Shared as S};

pub(super) const IDX: u64 = 7;
pub(super) const LONG: Duration = Duration::from_secs(30);

pub(super) fn req(key: &[u8], mode: LockMode, kind: LockKind) -> LockRequest<'_> {
    LockRequest::new(IDX, key, mode, kind)
}

pub(super) fn trx(owner: u64) -> TrxLocks {
    TrxLocks::new(OwnerId(owner))
}

pub(super) fn fail(what: impl Into<String>) -> EngineError {
    EngineError::Internal(what.into())
}

/// Polls `cond` until it holds (or fails after [`LONG`]).
pub(super) fn wait_until(what: &str, cond: impl Fn() -> bool) -> Result<()> {
    let start = Instant::now();
    while !cond() {
        if start.elapsed() > LONG {
            return Err(fail(format!("timed out waiting until {what}")));
        }
        thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// True when `owner` has a waiting entry.
pub(super) fn is_waiting(lm: &LockManager, owner: u64) -> bool {
    lm.snapshot()
        .iter()
        .any(|l| l.owner == OwnerId(owner) && !l.granted)
}

/// Locks without waiting and expects a new entry.
pub(super) fn grant(lm: &LockManager, t: &mut TrxLocks, r: LockRequest<'_>) -> Result<()> {
    match lm.lock(t, r, WaitOptions::no_wait())? {
        LockOutcome::Granted => Ok(()),
        other => Err(fail(format!("expected Granted for {r:?}, got {other:?}"))),
    }
}

const KINDS: [(LockKind, LockMode); 8] = [
    (RecordOnly, S),
    (RecordOnly, X),
    (GapOnly, S),
    (GapOnly, X),
    (NextKey, S),
    (NextKey, X),
    (InsertIntention, S),
    (InsertIntention, X),
];

/// InnoDB's answer: row = held (by another owner), column = requested, in the
/// order of `KINDS` (R = record only, G = gap only, N = next-key, I = insert
/// intention); 'W' = the request waits.
const MATRIX: [&str; 8] = [
    //RS RX GS GX NS NX IS IX   (requested)
    ". W . . . W . .", // held RS
    "W W . . W W . .", // held RX
    ". . . . . . W W", // held GS
    ". . . . . . W W", // held GX
    ". W . . . W W W", // held NS
    "W W . . W W W W", // held NX
    ". . . . . . . .", // held IS (insert intentions block nobody)
    ". . . . . . . .", // held IX
];

fn expected_wait(held: usize, requested: usize) -> Result<bool> {
    let row = MATRIX.get(held).ok_or_else(|| fail("matrix row"))?;
    let cell = row
        .split(' ')
        .nth(requested)
        .ok_or_else(|| fail("matrix cell"))?;
    Ok(cell == "W")
}

/// Makes owner 1 hold `(kind, mode)` on key "k"; an insert intention is only
/// kept when it had to wait, so it is made to wait for owner 99's gap lock.
fn hold(lm: &LockManager, kind: LockKind, mode: LockMode) -> Result<TrxLocks> {
    let mut a = trx(1);
    if kind != InsertIntention {
        grant(lm, &mut a, req(b"k", mode, kind))?;
        return Ok(a);
    }
    let mut c = trx(99);
    grant(lm, &mut c, req(b"k", S, GapOnly))?;
    let (a, outcome) = thread::scope(|s| {
        let waiter = s.spawn(move || {
            let r = lm.lock(&mut a, req(b"k", mode, kind), WaitOptions::wait(LONG));
            (a, r)
        });
        wait_until("the insert intention waits", || is_waiting(lm, 1))?;
        lm.release_all(&mut c);
        waiter.join().map_err(|_| fail("waiter panicked"))
    })?;
    if outcome? != LockOutcome::Granted {
        return Err(fail("insert intention not granted"));
    }
    Ok(a)
}

#[test]
fn compatibility_matrix_matches_innodb() -> Result<()> {
    for (h, &(held_kind, held_mode)) in KINDS.iter().enumerate() {
        for (r, &(kind, mode)) in KINDS.iter().enumerate() {
            let expect = expected_wait(h, r)?;
            // The pure rule (insert intention requests are always exclusive).
            let req_mode = if kind == InsertIntention { X } else { mode };
            assert_eq!(
                has_to_wait(req_mode, kind, held_mode, held_kind),
                expect,
                "has_to_wait: held {held_kind:?}/{held_mode:?}, requested {kind:?}/{mode:?}"
            );
            // The manager, with a real held lock and a NOWAIT request.
            let lm = LockManager::new();
            let mut a = hold(&lm, held_kind, held_mode)?;
            let mut b = trx(2);
            let got = lm.lock(&mut b, req(b"k", mode, kind), WaitOptions::no_wait());
            match (expect, &got) {
                (true, Err(EngineError::LockNoWait)) | (false, Ok(LockOutcome::Granted)) => {}
                _ => panic!("held {held_kind:?}/{held_mode:?}, requested {kind:?}/{mode:?}: expected wait={expect}, got {got:?}"),
            }
            // The same owner never waits for itself.
            lm.release_all(&mut b);
            assert!(lm
                .lock(&mut a, req(b"k", mode, kind), WaitOptions::no_wait())?
                .is_granted());
            lm.release_all(&mut a);
            assert_eq!(lm.memory_bytes(), 0);
        }
    }
    Ok(())
}

#[test]
fn two_owners_hold_exclusive_gap_locks_on_one_record() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, GapOnly))?;
    grant(&lm, &mut b, req(b"k", X, GapOnly))?;
    let locks = lm.snapshot();
    assert_eq!(locks.len(), 2);
    assert!(locks
        .iter()
        .all(|l| l.granted && l.kind == GapOnly && l.mode == X));
    assert!(locks.iter().all(|l| l.mode_text() == "X,GAP"));
    // Neither locks the record: a record X lock of a third owner is granted.
    let mut c = trx(3);
    grant(&lm, &mut c, req(b"k", X, RecordOnly))?;
    // And a gap request never waits for that record lock.
    let mut d = trx(4);
    grant(&lm, &mut d, req(b"k", X, GapOnly))?;
    for t in [&mut a, &mut b, &mut c, &mut d] {
        lm.release_all(t);
    }
    Ok(())
}

#[test]
fn insert_intention_waits_for_a_gap_lock_until_it_is_released() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", S, GapOnly))?;
    thread::scope(|s| {
        let inserter = s.spawn(|| {
            let r = lm.lock(
                &mut b,
                req(b"k", X, InsertIntention),
                WaitOptions::wait(LONG),
            );
            r.map(|o| (o, Instant::now()))
        });
        wait_until("the inserter waits", || is_waiting(&lm, 2))?;
        // Still waiting after a while: it really waits for the gap lock.
        thread::sleep(Duration::from_millis(100));
        assert!(is_waiting(&lm, 2));
        let released = Instant::now();
        lm.release_all(&mut a);
        let (outcome, granted_at) = inserter.join().map_err(|_| fail("panicked"))??;
        assert_eq!(outcome, LockOutcome::Granted);
        assert!(granted_at >= released);
        Ok::<_, EngineError>(())
    })?;
    // The waited-for insert intention is kept, granted, and blocks nobody: a
    // later gap lock and a next-key lock of another owner are granted.
    let locks = lm.snapshot();
    assert_eq!(locks.len(), 1);
    assert!(locks[0].granted && locks[0].kind == InsertIntention);
    assert_eq!(locks[0].mode_text(), "X,GAP,INSERT_INTENTION");
    let mut c = trx(3);
    grant(&lm, &mut c, req(b"k", X, GapOnly))?;
    grant(&lm, &mut c, req(b"k", X, NextKey))?;
    lm.release_all(&mut b);
    lm.release_all(&mut c);
    assert_eq!(lm.stats().total_waits, 1);
    Ok(())
}

#[test]
fn an_uncontended_insert_intention_keeps_no_lock() -> Result<()> {
    let lm = LockManager::new();
    let mut a = trx(1);
    grant(&lm, &mut a, req(b"k", X, InsertIntention))?;
    assert_eq!(
        (lm.snapshot().len(), a.lock_structs(), lm.memory_bytes()),
        (0, 0, 0)
    );
    // Also when the queue exists with a compatible lock.
    let mut b = trx(2);
    grant(&lm, &mut b, req(b"k", X, RecordOnly))?;
    grant(&lm, &mut a, req(b"k", X, InsertIntention))?;
    assert_eq!((lm.snapshot().len(), a.lock_structs()), (1, 0));
    lm.release_all(&mut b);
    Ok(())
}

#[test]
fn the_supremum_carries_only_gap_locks() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    let sup = |mode, kind| LockRequest::supremum(IDX, mode, kind);
    grant(&lm, &mut a, sup(X, NextKey))?;
    let locks = lm.snapshot();
    assert_eq!(locks.len(), 1);
    assert!(locks[0].is_supremum() && locks[0].kind == GapOnly && locks[0].mode_text() == "X");
    assert_eq!(a.rows_locked(), 0, "the supremum is not a row");
    // Another next-key X on the supremum is a gap request: granted.
    grant(&lm, &mut b, sup(X, NextKey))?;
    // An insert before the supremum waits for those gap locks.
    let mut c = trx(3);
    assert!(matches!(
        lm.lock(&mut c, sup(X, InsertIntention), WaitOptions::no_wait()),
        Err(EngineError::LockNoWait)
    ));
    // A record-only request on the supremum locks nothing.
    assert_eq!(
        lm.lock(&mut c, sup(X, RecordOnly), WaitOptions::no_wait())?,
        LockOutcome::Granted
    );
    assert_eq!(c.lock_structs(), 0);
    lm.release_all(&mut a);
    lm.release_all(&mut b);
    grant(&lm, &mut c, sup(X, InsertIntention))?;
    assert_eq!(lm.memory_bytes(), 0);
    Ok(())
}

#[test]
fn a_waiter_is_woken_when_the_holder_releases() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
    thread::scope(|s| {
        let waiter = s.spawn(|| lm.lock(&mut b, req(b"k", S, NextKey), WaitOptions::wait(LONG)));
        wait_until("B waits", || is_waiting(&lm, 2))?;
        assert_eq!(lm.stats().current_waits, 1);
        lm.release_all(&mut a);
        let outcome = waiter.join().map_err(|_| fail("panicked"))??;
        assert_eq!(outcome, LockOutcome::Granted);
        Ok::<_, EngineError>(())
    })?;
    assert_eq!((b.lock_structs(), b.rows_locked()), (1, 1));
    let stats = lm.stats();
    assert_eq!(
        (stats.current_waits, stats.total_waits, stats.timeouts),
        (0, 1, 0)
    );
    assert!(stats.total_wait_time > Duration::ZERO);
    lm.release_all(&mut b);
    Ok(())
}

#[test]
fn a_wait_times_out_with_error_1205_and_leaves_no_request() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
    let start = Instant::now();
    let timeout = Duration::from_millis(300);
    let got = lm.lock(&mut b, req(b"k", X, RecordOnly), WaitOptions::wait(timeout));
    let waited = start.elapsed();
    let Err(err) = got else {
        panic!("expected a timeout, got {got:?}");
    };
    assert!(matches!(err, EngineError::LockWaitTimeout));
    assert_eq!(err.mysql_code(), Some((1205, "HY000")));
    assert_eq!(
        err.to_string(),
        "Lock wait timeout exceeded; try restarting transaction"
    );
    assert!(
        waited >= timeout && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert_eq!(b.lock_structs(), 0);
    assert_eq!(lm.snapshot().len(), 1, "the waiting request is gone");
    let stats = lm.stats();
    assert_eq!((stats.timeouts, stats.current_waits), (1, 0));
    // The lock is free for B once A releases.
    lm.release_all(&mut a);
    grant(&lm, &mut b, req(b"k", X, RecordOnly))?;
    lm.release_all(&mut b);
    Ok(())
}

#[test]
fn nowait_fails_and_skip_locked_skips_without_waiting() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
    let start = Instant::now();
    let Err(err) = lm.lock(&mut b, req(b"k", S, RecordOnly), WaitOptions::no_wait()) else {
        panic!("NOWAIT was granted");
    };
    assert!(matches!(err, EngineError::LockNoWait));
    // MariaDB reports NOWAIT as the lock wait timeout.
    assert_eq!(err.mysql_code(), Some((1205, "HY000")));
    assert_eq!(
        err.to_string(),
        "Lock wait timeout exceeded; try restarting transaction"
    );
    let got = lm.lock(&mut b, req(b"k", X, NextKey), WaitOptions::skip_locked())?;
    assert_eq!(got, LockOutcome::Skipped);
    assert!(start.elapsed() < Duration::from_secs(5));
    // Another row is not locked: SKIP LOCKED grants it.
    assert_eq!(
        lm.lock(&mut b, req(b"j", X, NextKey), WaitOptions::skip_locked())?,
        LockOutcome::Granted
    );
    assert_eq!(b.lock_structs(), 1);
    assert_eq!(lm.stats().total_waits, 0);
    lm.release_all(&mut a);
    lm.release_all(&mut b);
    Ok(())
}

#[test]
fn the_kill_flag_interrupts_a_wait_with_error_1317() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
    let killed = AtomicBool::new(false);
    let start = Instant::now();
    let got = thread::scope(|s| {
        let waiter = s.spawn(|| {
            lm.lock(
                &mut b,
                req(b"k", X, RecordOnly),
                WaitOptions::wait(LONG).with_cancel(&killed),
            )
        });
        wait_until("B waits", || is_waiting(&lm, 2))?;
        killed.store(true, std::sync::atomic::Ordering::Relaxed);
        waiter.join().map_err(|_| fail("panicked"))
    })?;
    let Err(err) = got else {
        panic!("expected an interrupted wait, got {got:?}");
    };
    assert!(matches!(err, EngineError::QueryInterrupted));
    assert_eq!(err.mysql_code(), Some((1317, "70100")));
    assert_eq!(err.to_string(), "Query execution was interrupted");
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!((b.lock_structs(), lm.snapshot().len()), (0, 1));
    lm.release_all(&mut a);
    Ok(())
}

#[test]
fn new_requests_queue_behind_waiters_but_holders_are_not_starved() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b, mut c) = (trx(1), trx(2), trx(3));
    grant(&lm, &mut a, req(b"k", S, RecordOnly))?;
    thread::scope(|s| {
        let writer = s.spawn(|| lm.lock(&mut b, req(b"k", X, RecordOnly), WaitOptions::wait(LONG)));
        wait_until("B waits for X", || is_waiting(&lm, 2))?;
        // C's S is compatible with A's S but waits behind B's X request.
        assert!(matches!(
            lm.lock(&mut c, req(b"k", S, RecordOnly), WaitOptions::no_wait()),
            Err(EngineError::LockNoWait)
        ));
        // A already holds S: its upgrade to X does not wait behind B.
        grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
        assert!(is_waiting(&lm, 2));
        lm.release_all(&mut a);
        let outcome = writer.join().map_err(|_| fail("panicked"))??;
        assert_eq!(outcome, LockOutcome::Granted);
        Ok::<_, EngineError>(())
    })?;
    lm.release_all(&mut b);
    grant(&lm, &mut c, req(b"k", S, RecordOnly))?;
    lm.release_all(&mut c);
    Ok(())
}

#[test]
fn an_upgrade_waits_only_for_other_holders() -> Result<()> {
    let lm = LockManager::new();
    let (mut a, mut b) = (trx(1), trx(2));
    grant(&lm, &mut a, req(b"k", S, NextKey))?;
    grant(&lm, &mut b, req(b"k", S, NextKey))?;
    assert!(matches!(
        lm.lock(&mut a, req(b"k", X, RecordOnly), WaitOptions::no_wait()),
        Err(EngineError::LockNoWait)
    ));
    lm.release_all(&mut b);
    grant(&lm, &mut a, req(b"k", X, RecordOnly))?;
    assert_eq!((a.lock_structs(), a.rows_locked()), (2, 2));
    lm.release_all(&mut a);
    Ok(())
}

#[test]
fn re_requests_covered_by_held_locks_add_nothing() -> Result<()> {
    let lm = LockManager::new();
    let mut a = trx(1);
    let no = WaitOptions::no_wait;
    grant(&lm, &mut a, req(b"k", X, NextKey))?;
    for (mode, kind) in [
        (S, RecordOnly),
        (X, RecordOnly),
        (S, GapOnly),
        (X, GapOnly),
        (S, NextKey),
        (X, NextKey),
    ] {
        assert_eq!(
            lm.lock(&mut a, req(b"k", mode, kind), no())?,
            LockOutcome::AlreadyHeld
        );
    }
    assert_eq!((a.lock_structs(), a.rows_locked()), (1, 1));
    // A record S and a gap S together cover a next-key S, not a next-key X.
    grant(&lm, &mut a, req(b"j", S, RecordOnly))?;
    assert_eq!(
        lm.lock(&mut a, req(b"j", S, GapOnly), no())?,
        LockOutcome::Granted
    );
    assert_eq!(
        lm.lock(&mut a, req(b"j", S, NextKey), no())?,
        LockOutcome::AlreadyHeld
    );
    assert_eq!(
        lm.lock(&mut a, req(b"j", X, NextKey), no())?,
        LockOutcome::Granted
    );
    assert_eq!((a.lock_structs(), a.rows_locked()), (4, 3));
    lm.release_all(&mut a);
    assert_eq!(
        (a.lock_structs(), a.rows_locked(), lm.memory_bytes()),
        (0, 0, 0)
    );
    Ok(())
}
