//! Concurrent behaviour of the transaction system: in-order publication seen
//! through snapshots, the low watermark under concurrent commits and snapshots,
//! and the snapshot/scan race that purge depends on.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::SeqCst};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::*;
use crate::error::{EngineError, Result};

/// Per-id bookkeeping of a test: the CSN each committed id got (0 = not yet
/// known) and a phase (0 = unknown, 1 = active, 2 = finishing, 3 = committed,
/// [`ROLLED_BACK`]).
const ROLLED_BACK: u8 = 4;

struct Ledger {
    csn_of: Vec<AtomicU64>,
    phase: Vec<AtomicU8>,
}

impl Ledger {
    fn new(ids: usize) -> Arc<Self> {
        Arc::new(Self {
            csn_of: (0..ids).map(|_| AtomicU64::new(0)).collect(),
            phase: (0..ids).map(|_| AtomicU8::new(0)).collect(),
        })
    }
}

/// `threads` committers doing `per_thread` write transactions each (every
/// seventh one rolled back), recording them in the ledger.
fn committers(
    sys: &Arc<TransactionSystem>,
    ledger: &Arc<Ledger>,
    threads: usize,
    per_thread: usize,
) -> Vec<JoinHandle<Result<()>>> {
    (0..threads)
        .map(|i| {
            let (sys, ledger) = (sys.clone(), ledger.clone());
            std::thread::spawn(move || {
                let mut s = sys.register_session()?;
                for k in 0..per_thread {
                    let mut t = s.begin(TrxOptions::default())?;
                    let id = t.id_for_write()? as usize;
                    ledger.phase[id].store(1, SeqCst);
                    if (k + i) % 13 == 0 {
                        std::thread::yield_now();
                    }
                    ledger.phase[id].store(2, SeqCst);
                    if (k + i) % 7 == 0 {
                        ledger.phase[id].store(ROLLED_BACK, SeqCst);
                        t.rollback();
                    } else if let Some(csn) = t.commit_with(|| {
                        if (k + i) % 5 == 0 {
                            std::thread::yield_now(); // widen the CSN-to-record window
                        }
                    })? {
                        ledger.csn_of[id].store(csn, SeqCst);
                    }
                    ledger.phase[id].fetch_max(3, SeqCst);
                }
                Ok(())
            })
        })
        .collect()
}

fn join_all(handles: Vec<JoinHandle<Result<()>>>) -> Result<()> {
    for h in handles {
        h.join()
            .map_err(|_| EngineError::Internal("test thread panicked".into()))??;
    }
    Ok(())
}

/// A checker opens snapshots while several threads commit, and verifies that
/// each snapshot sees exactly the transactions with a CSN at or below it (CSN
/// `n + 1` is never visible while `n` is not), and that what a snapshot sees
/// does not change while it is open (two passes over every id, a yield apart).
#[test]
fn snapshots_see_a_prefix_of_the_commit_order() -> Result<()> {
    const THREADS: usize = 3;
    const PER_THREAD: usize = 3_000;
    let sys = TransactionSystem::new(1, 1)?;
    let ledger = Ledger::new(THREADS * PER_THREAD + 2);
    let stop = Arc::new(AtomicBool::new(false));
    let checker = {
        let (sys, ledger, stop) = (sys.clone(), ledger.clone(), stop.clone());
        std::thread::spawn(move || -> Result<u64> {
            let mut s = sys.register_session()?;
            let mut checks = 0u64;
            while !stop.load(SeqCst) {
                let mut t = s.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
                let v = t
                    .read_view()
                    .ok_or_else(|| EngineError::Internal("no view".into()))?;
                // Only ids already registered: records carry no other ids (an
                // id handed out but not registered yet reads as forgotten).
                let ids: Vec<usize> = (1..(sys.next_trx_id() as usize).min(ledger.csn_of.len()))
                    .filter(|&id| ledger.phase[id].load(SeqCst) != 0)
                    .collect();
                let first: Vec<bool> = ids
                    .iter()
                    .map(|&id| sys.is_visible(&v, id as TrxId))
                    .collect();
                std::thread::yield_now();
                for (id, was) in ids.into_iter().zip(first) {
                    if ledger.phase[id].load(SeqCst) == ROLLED_BACK {
                        continue; // none of its versions remain: visibility is moot
                    }
                    let visible = sys.is_visible(&v, id as TrxId);
                    assert_eq!(visible, was, "id {id} changed visibility within {v:?}");
                    let csn = ledger.csn_of[id].load(SeqCst);
                    if csn != 0 {
                        assert_eq!(visible, csn <= v.snapshot(), "id {id} csn {csn} view {v:?}");
                        checks += 1;
                    } else if visible {
                        // Not recorded yet: it must be committed at or below the view.
                        match sys.status(id as TrxId) {
                            TrxStatus::Committed(c) => assert!(c <= v.snapshot()),
                            TrxStatus::Forgotten => {}
                            other => panic!("id {id} visible while {other:?}"),
                        }
                    }
                }
                t.commit()?;
            }
            Ok(checks)
        })
    };
    join_all(committers(&sys, &ledger, THREADS, PER_THREAD))?;
    stop.store(true, SeqCst);
    let checks = checker
        .join()
        .map_err(|_| EngineError::Internal("checker panicked".into()))??;
    assert!(checks > 0);
    let commits = ledger.csn_of.iter().filter(|c| c.load(SeqCst) != 0).count() as u64;
    assert_eq!(sys.published_csn(), commits, "every CSN published");
    Ok(())
}

/// While transactions commit and roll back and readers hold snapshots, the low
/// watermark never passes a transaction that has not started to finish, and
/// never passes one that committed after a live snapshot.
#[test]
fn low_watermark_never_passes_active_transactions_or_live_snapshots() -> Result<()> {
    const THREADS: usize = 2;
    const PER_THREAD: usize = 4_000;
    let mut opts = TrxSysOptions::new(1, 1);
    opts.commit_table_capacity = 64; // force evictions into the overflow map
    let sys = TransactionSystem::with_options(opts)?;
    let ledger = Ledger::new(THREADS * PER_THREAD + 2);
    let stop = Arc::new(AtomicBool::new(false));
    let advancer = {
        let (sys, ledger, stop) = (sys.clone(), ledger.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut last = 1;
            while !stop.load(SeqCst) {
                let w = sys.advance_low_watermark();
                assert!(w >= last, "the watermark went back");
                for id in last..w {
                    assert!(
                        ledger.phase[id as usize].load(SeqCst) >= 2,
                        "passed active {id}"
                    );
                }
                last = w;
            }
            last
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (sys, ledger, stop) = (sys.clone(), ledger.clone(), stop.clone());
            std::thread::spawn(move || -> Result<u64> {
                let mut s = sys.register_session()?;
                let mut checks = 0;
                while !stop.load(SeqCst) {
                    let mut t = s.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
                    let v = t
                        .read_view()
                        .ok_or_else(|| EngineError::Internal("no view".into()))?;
                    for _ in 0..50 {
                        let w = sys.low_watermark() as usize;
                        for id in w.saturating_sub(200)..w.min(ledger.csn_of.len()) {
                            let csn = ledger.csn_of[id].load(SeqCst);
                            assert!(
                                csn <= v.snapshot(),
                                "id {id} < watermark {w} has csn {csn} > view {v:?}"
                            );
                            assert!(csn == 0 || sys.is_visible(&v, id as TrxId));
                            checks += 1;
                        }
                        std::thread::yield_now();
                    }
                    t.commit()?;
                }
                Ok(checks)
            })
        })
        .collect();
    join_all(committers(&sys, &ledger, THREADS, PER_THREAD))?;
    stop.store(true, SeqCst);
    let last = advancer
        .join()
        .map_err(|_| EngineError::Internal("advancer panicked".into()))?;
    assert!(last > 1, "the watermark advanced during the run");
    for r in readers {
        let checks = r
            .join()
            .map_err(|_| EngineError::Internal("reader panicked".into()))??;
        assert!(checks > 0);
    }
    // Everything finished and no snapshot is open: it reaches the next id.
    let next = sys.next_trx_id();
    let mut w = sys.advance_low_watermark();
    while w < next {
        let before = w;
        w = sys.advance_low_watermark();
        assert!(w > before, "stuck at {w} below {next}");
    }
    assert_eq!(sys.commit_table_overflow(), 0);
    Ok(())
}

/// The interleaving that breaks a naive protocol: a session loads the
/// published CSN, commits move it on, a scan reports the oldest snapshot, and
/// only then the session stores its (older) CSN. The store must be refused and
/// retried with a CSN at or above what the scan reported.
#[test]
fn a_snapshot_stored_after_a_scan_is_retried() -> Result<()> {
    let sys = sys_with_commits(5)?;
    let s = sys.register_session()?;
    let slot = s.lease_slot();
    let stale = sys.published_csn();
    let mut w = sys.register_session()?;
    let mut t = w.begin(TrxOptions::default())?;
    t.id_for_write()?;
    t.commit()?;
    let oldest = sys.oldest_live_snapshot();
    assert!(stale < oldest);
    assert!(
        !sys.try_install_snapshot(slot.slot(), stale),
        "a scan may have missed it"
    );
    let got = sys.open_snapshot(slot.slot());
    assert!(got >= oldest);
    TransactionSystem::close_snapshot(slot.slot());
    // Without an intervening scan, the loaded value is accepted.
    let fresh = sys.published_csn();
    assert!(sys.try_install_snapshot(slot.slot(), fresh));
    TransactionSystem::close_snapshot(slot.slot());
    Ok(())
}

fn sys_with_commits(n: usize) -> Result<Arc<TransactionSystem>> {
    let sys = TransactionSystem::new(1, 1)?;
    let mut s = sys.register_session()?;
    for _ in 0..n {
        let mut t = s.begin(TrxOptions::default())?;
        t.id_for_write()?;
        t.commit()?;
    }
    Ok(sys)
}

/// Sessions open and close snapshots while commits move the published CSN and
/// a purge thread scans. Every oldest-snapshot value a scan reports, before or
/// during a snapshot's life, must be at or below that snapshot: the openers
/// check the largest value reported so far while their snapshot is still open
/// (catching a scan that missed a snapshot being installed), and the purge
/// thread checks the snapshots the openers announce as open. Some opens wait,
/// between loading the published CSN and storing it, for a commit and a scan
/// (the race a naive protocol loses every time); the openers also run until
/// the purge thread has scanned a few thousand times.
#[test]
fn no_live_snapshot_is_older_than_a_reported_oldest() -> Result<()> {
    const OPENERS: usize = 3;
    const ROUNDS: usize = 2_000;
    const MIN_SCANS: u64 = 3_000;
    let sys = TransactionSystem::new(1, 1)?;
    let announced: Arc<Vec<AtomicU64>> =
        Arc::new((0..OPENERS).map(|_| AtomicU64::new(u64::MAX)).collect());
    let max_reported = Arc::new(AtomicU64::new(0));
    let scans = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let commit = {
        let (sys, stop) = (sys.clone(), stop.clone());
        std::thread::spawn(move || -> Result<()> {
            let mut s = sys.register_session()?;
            while !stop.load(SeqCst) {
                let mut t = s.begin(TrxOptions::default())?;
                t.id_for_write()?;
                t.commit()?;
            }
            Ok(())
        })
    };
    let purge = {
        let (sys, announced, max_reported, scans, stop) = (
            sys.clone(),
            announced.clone(),
            max_reported.clone(),
            scans.clone(),
            stop.clone(),
        );
        std::thread::spawn(move || {
            while !stop.load(SeqCst) {
                let oldest = if scans.load(SeqCst) % 2 == 0 {
                    sys.oldest_live_snapshot()
                } else {
                    let l = sys.live_snapshots();
                    assert!(l.csns.windows(2).all(|w| w[0] < w[1]));
                    l.oldest()
                };
                max_reported.fetch_max(oldest, SeqCst);
                for a in announced.iter() {
                    let s = a.load(SeqCst);
                    assert!(
                        s >= oldest,
                        "open snapshot {s} older than reported oldest {oldest}"
                    );
                }
                scans.fetch_add(1, SeqCst);
            }
        })
    };
    let openers: Vec<_> = (0..OPENERS)
        .map(|i| {
            let (sys, announced, max_reported, scans) = (
                sys.clone(),
                announced.clone(),
                max_reported.clone(),
                scans.clone(),
            );
            std::thread::spawn(move || -> Result<()> {
                let mut s = sys.register_session()?;
                let slot = s.lease_slot();
                let check = |v: Csn| {
                    announced[i].store(v, SeqCst);
                    let r = max_reported.load(SeqCst);
                    assert!(r <= v, "open snapshot {v} older than reported oldest {r}");
                    announced[i].store(u64::MAX, SeqCst);
                };
                let mut k = 0;
                while k < ROUNDS || (scans.load(SeqCst) < MIN_SCANS && k < 100 * ROUNDS) {
                    if k % 2 == 0 {
                        // The public path.
                        let mut t =
                            s.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
                        let v = t
                            .read_view()
                            .ok_or_else(|| EngineError::Internal("no view".into()))?;
                        check(v.snapshot());
                        t.commit()?;
                    } else {
                        // The same protocol; every fourth time, between the
                        // load and the store, wait for a commit and then for a
                        // complete scan: the interleaving of the classic race.
                        let mut first = k % 8 == 1;
                        let pause = || {
                            if std::mem::take(&mut first) {
                                let p = sys.published_csn();
                                while sys.published_csn() == p {
                                    std::thread::yield_now();
                                }
                                let n = scans.load(SeqCst);
                                while scans.load(SeqCst) < n + 2 {
                                    std::thread::yield_now();
                                }
                            }
                        };
                        check(sys.open_snapshot_with(slot.slot(), pause));
                        TransactionSystem::close_snapshot(slot.slot());
                    }
                    k += 1;
                }
                Ok(())
            })
        })
        .collect();
    join_all(openers)?;
    stop.store(true, SeqCst);
    purge
        .join()
        .map_err(|_| EngineError::Internal("purge panicked".into()))?;
    assert!(scans.load(SeqCst) >= MIN_SCANS.min(1));
    commit
        .join()
        .map_err(|_| EngineError::Internal("committer panicked".into()))??;
    Ok(())
}
