//! Single-threaded behaviour of the transaction system: ids, visibility,
//! isolation-level snapshot rules, the low watermark, slot reuse, read-only
//! transactions, `INNODB_TRX` rows, recovery start-up state.

use std::sync::{Arc, Mutex};

use super::*;
use crate::error::{EngineError, Result};

fn sys() -> Result<Arc<TransactionSystem>> {
    TransactionSystem::new(1, 1)
}

fn view(t: &mut Transaction) -> Result<ReadView> {
    t.read_view()
        .ok_or_else(|| EngineError::Internal("no read view".into()))
}

/// Begins a read-write transaction that has written (has an id).
fn writer(s: &mut Session) -> Result<(Transaction, TrxId)> {
    let mut t = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let id = t.id_for_write()?;
    Ok((t, id))
}

#[test]
fn ids_are_assigned_at_first_write_and_csns_at_commit() -> Result<()> {
    let sys = TransactionSystem::new(100, 50)?;
    let mut s = sys.register_session()?;
    let mut t = s.begin(TrxOptions::default())?;
    assert_eq!(t.id(), None);
    assert_eq!(sys.next_trx_id(), 100, "reads do not take an id");
    let id = t.id_for_write()?;
    assert_eq!((id, t.id_for_write()?, t.id()), (100, 100, Some(100)));
    assert_eq!(sys.status(id), TrxStatus::Active);
    assert_eq!(t.commit()?, Some(50));
    assert_eq!(sys.status(id), TrxStatus::Committed(50));
    assert_eq!(sys.published_csn(), 50);
    // A transaction that never wrote commits without a CSN.
    let t = s.begin(TrxOptions::default())?;
    assert_eq!(t.commit()?, None);
    assert_eq!((sys.next_csn(), sys.next_trx_id()), (51, 101));
    Ok(())
}

#[test]
fn visibility_rules() -> Result<()> {
    let sys = sys()?;
    let (mut s1, mut s2, mut r) = (
        sys.register_session()?,
        sys.register_session()?,
        sys.register_session()?,
    );
    let (t_before, id_before) = writer(&mut s1)?;
    t_before.commit()?;
    let (t_active, id_active) = writer(&mut s1)?;
    let (t_rolled, id_rolled) = writer(&mut s2)?;
    t_rolled.rollback();

    let mut reader = r.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let v = view(&mut reader)?;
    // Committed before the snapshot: visible. Active or rolled back: not.
    assert!(sys.is_visible(&v, id_before));
    assert!(!sys.is_visible(&v, id_active));
    assert!(!sys.is_visible(&v, id_rolled));
    // Committed after the snapshot: not visible to it, visible to a new one.
    t_active.commit()?;
    assert!(!sys.is_visible(&v, id_active));
    let mut later = s2.begin(TrxOptions::default())?;
    assert!(sys.is_visible(&view(&mut later)?, id_active));
    // Own writes are visible, even with an old snapshot.
    let own = reader.id_for_write()?;
    let v = view(&mut reader)?;
    assert_eq!(v.own_id(), own);
    assert!(sys.is_visible(&v, own));
    assert!(
        !sys.is_visible(&v, id_active),
        "the snapshot did not change"
    );
    // Id 0 (no writer, or a version older than every transaction) is visible.
    assert!(sys.is_visible(&v, 0));
    Ok(())
}

#[test]
fn snapshot_rules_per_isolation_level() -> Result<()> {
    let sys = sys()?;
    let (mut w, mut r) = (sys.register_session()?, sys.register_session()?);

    // READ UNCOMMITTED: no snapshot at all.
    let mut ru = r.begin(TrxOptions::read_write(IsolationLevel::ReadUncommitted))?;
    assert_eq!(ru.read_view(), None);
    assert!(sys.live_snapshots().csns.is_empty());
    ru.commit()?;

    // READ COMMITTED: a new snapshot per statement.
    let mut rc = r.begin(TrxOptions::read_write(IsolationLevel::ReadCommitted))?;
    let first = view(&mut rc)?.snapshot();
    let (t, id) = writer(&mut w)?;
    t.commit()?;
    assert_eq!(
        view(&mut rc)?.snapshot(),
        first,
        "same statement, same snapshot"
    );
    assert!(!sys.is_visible(&view(&mut rc)?, id));
    rc.end_statement();
    assert_eq!(rc.snapshot(), None, "closed between statements");
    assert!(sys.is_visible(&view(&mut rc)?, id));
    rc.commit()?;

    // REPEATABLE READ: the snapshot of the first read lasts.
    let mut rr = r.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let (t, id2) = writer(&mut w)?;
    t.commit()?;
    let s = view(&mut rr)?.snapshot(); // first read after id2 committed
    assert!(sys.is_visible(&view(&mut rr)?, id2));
    let (t, id3) = writer(&mut w)?;
    t.commit()?;
    rr.end_statement();
    assert_eq!(view(&mut rr)?.snapshot(), s);
    assert!(!sys.is_visible(&view(&mut rr)?, id3));
    rr.commit()?;

    // WITH CONSISTENT SNAPSHOT: taken at begin.
    let mut cs =
        r.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead).with_consistent_snapshot())?;
    let at_begin = cs
        .snapshot()
        .ok_or_else(|| EngineError::Internal("no snapshot".into()))?;
    let (t, id4) = writer(&mut w)?;
    t.commit()?;
    assert_eq!(view(&mut cs)?.snapshot(), at_begin);
    assert!(!sys.is_visible(&view(&mut cs)?, id4));
    cs.commit()?;
    // ... and ignored at READ COMMITTED, as in InnoDB.
    let rc =
        r.begin(TrxOptions::read_write(IsolationLevel::ReadCommitted).with_consistent_snapshot())?;
    assert_eq!(rc.snapshot(), None);
    Ok(())
}

#[test]
fn read_only_transactions_get_no_id_and_cannot_write() -> Result<()> {
    let sys = sys()?;
    let mut s = sys.register_session()?;
    let mut t = s.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    view(&mut t)?;
    let err = t.id_for_write();
    assert!(matches!(err, Err(EngineError::ReadOnlyTransaction)));
    if let Err(e) = err {
        assert_eq!(
            e.to_string(),
            "Cannot execute statement in a READ ONLY transaction."
        );
    }
    assert_eq!(t.id(), None);
    assert_eq!(sys.next_trx_id(), 1, "no id was consumed");
    assert_eq!(t.commit()?, None);
    assert_eq!(sys.next_csn(), 1, "no CSN was consumed");

    let mut sel = s.begin(TrxOptions::autocommit_select(
        IsolationLevel::RepeatableRead,
    ))?;
    view(&mut sel)?;
    assert!(sel.id_for_write().is_err());
    assert_eq!(sys.next_trx_id(), 1);
    Ok(())
}

#[test]
fn innodb_trx_rows() -> Result<()> {
    let sys = sys()?;
    let (mut a, mut b, mut c) = (
        sys.register_session()?,
        sys.register_session()?,
        sys.register_session()?,
    );
    let before = SystemTime::now() - Duration::from_secs(1);
    let mut ro = a.begin(TrxOptions::read_only(IsolationLevel::ReadCommitted))?;
    let s = view(&mut ro)?.snapshot();
    let (rw, id) = writer(&mut b)?;
    rw.set_run_state(TrxRunState::LockWait);
    let sel = c.begin(TrxOptions::autocommit_select(
        IsolationLevel::RepeatableRead,
    ))?;

    let mut rows = sys.innodb_trx();
    rows.sort_by_key(|r| r.session);
    assert_eq!(rows.len(), 3);
    let (r0, r1, r2) = (&rows[0], &rows[1], &rows[2]);
    assert_eq!(r0.trx_id, FAKE_TRX_ID_BASE + u64::from(a.slot_index()));
    assert!(r0.trx_id > MAX_TRX_ID);
    assert_eq!(
        (
            r0.read_only,
            r0.autocommit_non_locking,
            r0.isolation,
            r0.snapshot,
            r0.state
        ),
        (
            true,
            false,
            IsolationLevel::ReadCommitted,
            Some(s),
            TrxRunState::Running
        )
    );
    assert_eq!(
        (r1.trx_id, r1.state, r1.read_only, r1.snapshot),
        (id, TrxRunState::LockWait, false, None)
    );
    assert_eq!(r1.state.name(), "LOCK WAIT");
    assert_eq!((r2.read_only, r2.autocommit_non_locking), (false, true));
    assert_eq!(r2.isolation.name(), "REPEATABLE READ");
    assert!(rows
        .iter()
        .all(|r| r.started >= before && r.started <= SystemTime::now()));

    drop((ro, rw, sel));
    assert!(
        sys.innodb_trx().is_empty(),
        "ended transactions leave no rows"
    );
    Ok(())
}

#[test]
fn slots_are_reused_and_cleared() -> Result<()> {
    let sys = sys()?;
    let keep = sys.register_session()?;
    let mut s = sys.register_session()?;
    let idx = s.slot_index();
    let mut t = s.begin(TrxOptions::default())?;
    view(&mut t)?;
    // A second transaction on the same session is refused.
    assert!(s.begin(TrxOptions::default()).is_err());
    // The slot outlives the session while its transaction is open...
    drop(s);
    let other = sys.register_session()?;
    assert_ne!(other.slot_index(), idx);
    assert_eq!(sys.live_snapshots().csns.len(), 1);
    // ...and is reused, clean, once both are gone.
    drop(t);
    drop(other);
    let again = sys.register_session()?;
    assert_eq!(again.slot_index(), idx);
    assert_eq!(sys.session_high_water(), 3);
    assert!(sys.innodb_trx().is_empty());
    assert!(sys.live_snapshots().csns.is_empty());
    drop(keep);
    Ok(())
}

#[test]
fn low_watermark_waits_for_active_transactions() -> Result<()> {
    let sys = sys()?;
    let (mut a, mut b) = (sys.register_session()?, sys.register_session()?);
    let (t1, id1) = writer(&mut a)?;
    let (t2, id2) = writer(&mut b)?;
    assert_eq!(sys.advance_low_watermark(), id1, "id1 is active");
    t2.commit()?;
    assert_eq!(
        sys.advance_low_watermark(),
        id1,
        "id2 committed, but id1 is below it"
    );
    t1.commit()?;
    assert_eq!(sys.advance_low_watermark(), id2 + 1);
    // A rolled-back transaction does not hold it either.
    let (t3, id3) = writer(&mut a)?;
    t3.rollback();
    assert_eq!(sys.advance_low_watermark(), id3 + 1);
    Ok(())
}

#[test]
fn low_watermark_respects_live_snapshots() -> Result<()> {
    let sys = sys()?;
    let (mut w, mut r) = (sys.register_session()?, sys.register_session()?);
    let (t, id1) = writer(&mut w)?;
    t.commit()?;
    let mut report = r.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let v = view(&mut report)?;
    let (t, id2) = writer(&mut w)?;
    t.commit()?;
    // id2 committed after the report's snapshot: the watermark stops at it.
    assert_eq!(sys.advance_low_watermark(), id2);
    assert!(sys.is_visible(&v, id1));
    assert!(!sys.is_visible(&v, id2), "answered by the commit table");
    assert_eq!(sys.oldest_live_snapshot(), v.snapshot());
    report.commit()?;
    assert_eq!(sys.advance_low_watermark(), id2 + 1);
    assert_eq!(sys.oldest_live_snapshot(), sys.published_csn());
    Ok(())
}

#[test]
fn live_snapshots_are_sorted_and_distinct() -> Result<()> {
    let sys = sys()?;
    let mut w = sys.register_session()?;
    let mut readers: Vec<Session> = (0..4)
        .map(|_| sys.register_session())
        .collect::<Result<_>>()?;
    let mut open = Vec::new();
    for (i, r) in readers.iter_mut().enumerate().rev() {
        let mut t = r.begin(TrxOptions::default())?;
        view(&mut t)?;
        open.push(t);
        if i % 2 == 0 {
            writer(&mut w)?.0.commit()?;
        }
    }
    let live = sys.live_snapshots();
    // Snapshots 0, 0, 1, 1 (a commit after the second and the fourth opened).
    assert_eq!(live.csns, vec![0, 1]);
    assert_eq!((live.future_floor, live.oldest()), (2, 0));
    assert_eq!(sys.oldest_live_snapshot(), 0);
    drop(open);
    assert_eq!(sys.oldest_live_snapshot(), 2);
    Ok(())
}

#[test]
fn long_running_transactions_survive_commit_table_eviction() -> Result<()> {
    let mut opts = TrxSysOptions::new(1, 1);
    opts.commit_table_capacity = 8;
    let sys = TransactionSystem::with_options(opts)?;
    let (mut a, mut b, mut r) = (
        sys.register_session()?,
        sys.register_session()?,
        sys.register_session()?,
    );
    let (long, long_id) = writer(&mut a)?;
    let (late, late_id) = writer(&mut b)?;
    late.commit()?;
    let mut report = r.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let v = view(&mut report)?;
    let mut after = Vec::new();
    for _ in 0..100 {
        let (t, id) = writer(&mut b)?;
        t.commit()?;
        after.push(id);
    }
    assert!(sys.commit_table_overflow() >= 1);
    assert_eq!(sys.status(long_id), TrxStatus::Active);
    assert!(!sys.is_visible(&v, long_id));
    assert!(sys.is_visible(&v, late_id));
    assert!(after.iter().all(|&id| !sys.is_visible(&v, id)));
    long.commit()?;
    assert!(!sys.is_visible(&v, long_id));
    report.commit()?;
    assert_eq!(sys.advance_low_watermark(), sys.next_trx_id());
    assert_eq!(sys.commit_table_overflow(), 0, "pruned below the watermark");
    Ok(())
}

#[test]
fn recovered_transactions_hold_the_watermark_until_finished() -> Result<()> {
    let mut opts = TrxSysOptions::new(1000, 500);
    opts.recovered_active = vec![700, 900];
    let sys = TransactionSystem::with_options(opts)?;
    assert_eq!((sys.low_watermark(), sys.published_csn()), (700, 499));
    let mut r = sys.register_session()?;
    let mut t = r.begin(TrxOptions::default())?;
    let v = view(&mut t)?;
    assert!(sys.is_visible(&v, 699), "finished before the crash");
    assert!(!sys.is_visible(&v, 700));
    assert!(sys.is_visible(&v, 800));
    t.commit()?;
    sys.rollback_recovered(700)?;
    assert!(sys.rollback_recovered(700).is_err(), "already finished");
    assert_eq!(sys.advance_low_watermark(), 900);
    let csn = sys.commit_recovered(900)?;
    assert_eq!(csn, 500);
    assert_eq!(sys.advance_low_watermark(), 1000);
    let (_, id) = writer(&mut r)?;
    assert_eq!(id, 1000);
    // Bad start-up states are refused.
    assert!(TransactionSystem::new(0, 1).is_err());
    assert!(TransactionSystem::new(MAX_TRX_ID + 1, 1).is_err());
    assert!(TransactionSystem::new(1, 0).is_err());
    let mut bad = TrxSysOptions::new(10, 1);
    bad.recovered_active = vec![10];
    assert!(TransactionSystem::with_options(bad).is_err());
    Ok(())
}

#[test]
fn ids_stop_at_48_bits() -> Result<()> {
    let sys = TransactionSystem::new(MAX_TRX_ID, 1)?;
    let mut s = sys.register_session()?;
    let (t, id) = writer(&mut s)?;
    assert_eq!(id, MAX_TRX_ID);
    t.commit()?;
    let mut t = s.begin(TrxOptions::default())?;
    assert!(matches!(t.id_for_write(), Err(EngineError::Internal(_))));
    Ok(())
}

#[test]
fn id_reservations_are_persisted_before_use() -> Result<()> {
    let sys = TransactionSystem::new(200, 1)?;
    let marks = Arc::new(Mutex::new(Vec::new()));
    let m = marks.clone();
    sys.set_id_persist_hook(move |mark| {
        m.lock()
            .map_err(|_| EngineError::Internal("poisoned".into()))?
            .push(mark);
        Ok(())
    })?;
    assert!(sys.set_id_persist_hook(|_| Ok(())).is_err(), "set once");
    let mut s = sys.register_session()?;
    for _ in 0..400 {
        let (t, id) = writer(&mut s)?;
        let last = marks
            .lock()
            .map_err(|_| EngineError::Internal("poisoned".into()))?
            .last()
            .copied();
        assert!(
            last.is_some_and(|m| id < m),
            "id {id} handed out below the persisted mark"
        );
        t.commit()?;
    }
    let got = marks
        .lock()
        .map_err(|_| EngineError::Internal("poisoned".into()))?
        .clone();
    assert_eq!(got, vec![256, 512, 768]);
    Ok(())
}

#[test]
fn a_failing_reservation_fails_the_write_but_not_the_watermark() -> Result<()> {
    let sys = TransactionSystem::new(1, 1)?;
    sys.set_id_persist_hook(|mark| {
        if mark == 256 {
            Err(EngineError::DiskFull {
                path: "undo".into(),
            })
        } else {
            Ok(())
        }
    })?;
    let mut s = sys.register_session()?;
    let mut t = s.begin(TrxOptions::default())?;
    assert!(matches!(
        t.id_for_write(),
        Err(EngineError::DiskFull { .. })
    ));
    assert_eq!(t.id(), None);
    assert_eq!(
        sys.advance_low_watermark(),
        2,
        "the burnt id 1 does not block it"
    );
    Ok(())
}
