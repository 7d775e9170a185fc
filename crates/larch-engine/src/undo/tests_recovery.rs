//! Crash-recovery tests of the undo log store over the fault-injecting file
//! system (`io::sim`): logs active at a crash come back with every record,
//! committed ones are in the history, interrupted commits and frees are
//! finished, crashes at many write points of a workload leave a consistent,
//! leak-free store, undo in the system tablespace, and `larch check`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::format::{LogState, LH_STATE};
use super::tests::{all_records, config, fresh, payload, used_pages};
use super::STOP_AFTER_STEPS;
use super::*;
use crate::buffer::Latch;
use crate::io::{SimFault, SimVfs};
use crate::page::{PageId, PageSize};

/// Makes everything logged so far durable, drops the store, "pulls the plug"
/// (pending data-file writes randomly lost or torn), and reopens.
fn crash_reopen(
    vfs: &SimVfs,
    store: UndoStore,
    ps: PageSize,
    undo: u32,
) -> (UndoStore, RecoveredUndo) {
    let st = store.storage().clone();
    st.log()
        .flush_up_to(st.log().current_lsn())
        .expect("flush log");
    drop(store);
    let st = Arc::into_inner(st).expect("sole owner of the storage");
    st.abandon();
    vfs.crash();
    reopen(vfs, ps, undo)
}

/// Reopens the directory; what redo recovery left (active logs, interrupted
/// commits and frees) must pass `check_undo` before the store finishes it.
fn reopen(vfs: &SimVfs, ps: PageSize, undo: u32) -> (UndoStore, RecoveredUndo) {
    let st = Storage::open(config(ps, undo), Arc::new(vfs.clone())).expect("recover storage");
    let c = check_undo(&st).expect("undo check");
    assert!(c.is_clean(), "after recovery: {:#?}", c.problems);
    UndoStore::open(Arc::new(st)).expect("open undo")
}

/// Rolls back and discards every recovered log, purges the whole history, and
/// checks that no undo page is left and the directory verifies clean.
fn drain(store: &UndoStore, rec: RecoveredUndo, base_used: &BTreeMap<u32, u32>) {
    for mut log in rec.active {
        while !log.is_empty() {
            let b = store.newest_records(&log, 0, 50).expect("batch");
            let low = b.last().map(|r| r.undo_no).expect("nonempty batch");
            store.truncate(&mut log, low).expect("truncate");
        }
        store.discard(log).expect("discard");
    }
    while let Some(h) = store.oldest_history(u64::MAX).expect("oldest") {
        store.free_history(h).expect("free history");
    }
    assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
    for (&space, &used) in base_used {
        assert_eq!(
            used_pages(store, space),
            used,
            "undo pages leaked in space {space}"
        );
    }
    let report = store.storage().check().expect("check");
    assert!(report.is_clean(), "{:#?}", report.problems());
    let c = check_undo(store.storage()).expect("undo check");
    assert!(c.is_clean() && c.pages == 0, "{c:#?}");
}

fn base_used(store: &UndoStore) -> BTreeMap<u32, u32> {
    store
        .undo_spaces()
        .into_iter()
        .map(|s| (s, used_pages(store, s)))
        .collect()
}

#[test]
fn active_logs_and_history_survive_a_crash() {
    let ps = PageSize::K4;
    let (vfs, store) = fresh(ps, 2);
    let base = base_used(&store);
    // A: active, many pages, mixed records.  B: active, no record.
    let mut a = store.create_log(101).expect("log");
    for i in 0..120u64 {
        store
            .append(
                &mut a,
                i % 3 == 0,
                &payload(101, i, 50 + (i as usize * 37) % 900),
            )
            .expect("append");
    }
    let b = store.create_log(102).expect("log");
    // C: committed insert-only (freed).  D: committed with updates.
    let mut c = store.create_log(103).expect("log");
    store
        .append(&mut c, true, &payload(103, 0, 500))
        .expect("append");
    store.commit(c, 7).expect("commit");
    let mut d = store.create_log(104).expect("log");
    for i in 0..30u64 {
        store
            .append(&mut d, false, &payload(104, i, 300))
            .expect("append");
    }
    store.commit(d, 8).expect("commit");
    // E: in the history too; D, the oldest, is then purged.
    let mut e = store.create_log(105).expect("log");
    store.append(&mut e, false, b"e").expect("append");
    store.commit(e, 9).expect("commit");
    let h = store.oldest_history(100).expect("oldest").expect("some");
    assert_eq!(h.trx_id, 104);
    store.free_history(h).expect("free");
    // F: a later log that stays active.
    let mut f = store.create_log(99).expect("log");
    store.append(&mut f, false, b"f").expect("append");
    store.persist_trx_id_bound(1024).expect("bound");
    let pages_before = store.undo_pages();
    let (a_pages, a_n) = (a.page_count(), a.next_undo_no());
    let _ = (a, b, f);

    let (store, rec) = crash_reopen(&vfs, store, ps, 2);
    assert_eq!(rec.trx_id_bound, 1024);
    assert_eq!(store.trx_id_bound(), 1024);
    assert_eq!(rec.max_trx_id, 105);
    assert_eq!(rec.history_len, 1);
    assert_eq!(store.undo_pages(), pages_before);
    let by_trx: BTreeMap<u64, &UndoLog> = rec.active.iter().map(|l| (l.trx_id(), l)).collect();
    assert_eq!(
        by_trx.keys().copied().collect::<Vec<_>>(),
        vec![99, 101, 102]
    );
    let a = by_trx[&101];
    assert_eq!((a.page_count(), a.next_undo_no()), (a_pages, a_n));
    assert!(a.has_update_records());
    for (i, r) in all_records(&store, a).iter().enumerate() {
        let i = i as u64;
        assert_eq!((r.undo_no, r.is_insert, r.trx_id), (i, i % 3 == 0, 101));
        assert_eq!(r.payload, payload(101, i, 50 + (i as usize * 37) % 900));
        assert_eq!(store.read(r.ptr).expect("read by roll pointer"), *r);
    }
    assert!(by_trx[&102].is_empty());
    assert_eq!(all_records(&store, by_trx[&99])[0].payload, b"f");
    // The history log recovered from before the crash comes first, with CSN 0.
    let h = store
        .oldest_history(0)
        .expect("oldest")
        .expect("recovered history");
    assert_eq!((h.trx_id, h.csn), (105, 0));
    assert_eq!(
        store.history_records(&h, 0, 10).expect("records")[0].payload,
        b"e"
    );
    // New slots are handed out next to the recovered ones.
    let mut g = store.create_log(2000).expect("log");
    store.append(&mut g, false, b"g").expect("append");
    store.commit(g, 1).expect("commit");
    assert_eq!(store.history_len(), 2);
    drain(&store, rec, &base);
}

/// Writes state `s` into the header of `log` (what a crash between the steps
/// of a multi-step operation leaves behind).
fn force_state(store: &UndoStore, log: &UndoLog, s: LogState) {
    let mut mtr = store.storage().mtr().expect("mtr");
    let p = mtr
        .page(PageId::new(log.space, log.first_page), Latch::Exclusive)
        .expect("page");
    mtr.write_u8(p, log.addr().at() + LH_STATE, s as u8);
    mtr.commit().expect("commit");
}

#[test]
fn interrupted_commits_and_frees_are_finished() {
    let ps = PageSize::K4;
    let (vfs, store) = fresh(ps, 1);
    let base = base_used(&store);
    let fill = |trx: u64, n: u64, insert: bool| {
        let mut log = store.create_log(trx).expect("log");
        for i in 0..n {
            store
                .append(&mut log, insert, &payload(trx, i, 2000))
                .expect("append");
        }
        log
    };
    // Committed with update records but still in its slot.
    let a = fill(1, 5, false);
    force_state(&store, &a, LogState::Committed);
    // Insert-only, committed, half freed (the first free step ran).
    let b = fill(2, 3 * FREE_BATCH as u64, true);
    force_state(&store, &b, LogState::Committed);
    let pages: Vec<u32> = store.log_pages(&b).expect("pages");
    store
        .cut_tail(
            b.space,
            b.addr(),
            &pages,
            pages.len() - FREE_BATCH,
            None,
            None,
        )
        .expect("cut");
    // Discarded, marked Freeing, not yet freed.
    let c = fill(3, 4, false);
    force_state(&store, &c, LogState::Freeing);
    let _ = (a, b, c);

    let (store, rec) = crash_reopen(&vfs, store, ps, 1);
    assert!(rec.active.is_empty());
    assert_eq!(rec.history_len, 1);
    let h = store.oldest_history(0).expect("oldest").expect("history");
    assert_eq!(h.trx_id, 1);
    assert_eq!(store.history_records(&h, 0, 100).expect("records").len(), 5);
    let pages_a = store.undo_pages();
    assert_eq!(pages_a, 5, "only the five pages of A remain");
    drain(&store, rec, &base);
}

/// Runs `f` with multi-step operations stopping after `steps` steps.
fn stop_after<T>(steps: u32, f: impl FnOnce() -> Result<T>) -> Result<T> {
    STOP_AFTER_STEPS.with(|c| c.set(Some(steps)));
    let r = f();
    STOP_AFTER_STEPS.with(|c| c.set(None));
    r
}

#[test]
fn multi_step_operations_interrupted_between_mini_transactions() {
    let ps = PageSize::K4;
    let big = 3 * FREE_BATCH as u64;
    // (operation, steps before the stop)
    for (case, steps) in [
        ("commit", 0),
        ("commit", 1),
        ("discard", 1),
        ("purge", 0),
        ("purge", 1),
        ("purge", 2),
        ("truncate", 0),
        ("truncate", 1),
    ] {
        let (vfs, store) = fresh(ps, 1);
        let base = base_used(&store);
        let mut log = store.create_log(77).expect("log");
        for i in 0..big {
            store
                .append(&mut log, case != "purge", &payload(77, i, 3000))
                .expect("append");
        }
        let pages = log.page_count();
        let stopped = match case {
            "commit" => stop_after(steps, || store.commit(log, 5).map(|_| ())),
            "discard" => stop_after(steps, || store.discard(log)),
            "truncate" => stop_after(steps, || store.truncate(&mut log, 3)),
            _ => {
                store.commit(log, 5).expect("commit");
                let h = store.oldest_history(5).expect("oldest").expect("some");
                stop_after(steps, || store.free_history(h))
            }
        };
        assert!(
            stopped.is_err(),
            "{case}/{steps}: the operation should have been stopped"
        );
        let (store, rec) = crash_reopen(&vfs, store, ps, 1);
        match case {
            "truncate" => {
                // Still active, shorter, every remaining record intact.
                assert_eq!(rec.active.len(), 1, "{case}/{steps}");
                let l = &rec.active[0];
                assert!(
                    l.page_count() < pages && l.next_undo_no() > 3,
                    "{case}/{steps}"
                );
                for (i, r) in all_records(&store, l).iter().enumerate() {
                    assert_eq!(r.payload, payload(77, i as u64, 3000));
                }
            }
            _ => {
                assert!(
                    rec.active.is_empty(),
                    "{case}/{steps}: the log must not come back active"
                );
                assert_eq!(rec.history_len, 0, "{case}/{steps}");
                assert_eq!(
                    store.undo_pages(),
                    0,
                    "{case}/{steps}: recovery finishes the free"
                );
            }
        }
        drain(&store, rec, &base);
    }
}

/// A workload that records what must survive; every operation is followed
/// by a redo flush, so a crash point falls between any two of them.
struct Model {
    /// trx -> records appended and flushed.
    durable: BTreeMap<u64, u64>,
    /// Transactions whose commit (or discard) reached the log.
    ended: BTreeSet<u64>,
    /// File writes done before each commit, discard or purge started.
    marks: Vec<u64>,
}

impl Model {
    fn new() -> Self {
        Model {
            durable: BTreeMap::new(),
            ended: BTreeSet::new(),
            marks: Vec::new(),
        }
    }
}

fn workload(vfs: &SimVfs, store: &UndoStore, m: &mut Model) -> Result<()> {
    let flush = |s: &UndoStore| {
        s.storage()
            .log()
            .flush_up_to(s.storage().log().current_lsn())
    };
    let mut live: Vec<UndoLog> = Vec::new();
    for round in 0..12u64 {
        let trx = 10 + round;
        let mut log = store.create_log(trx)?;
        flush(store)?;
        m.durable.insert(trx, 0);
        let n = [90u64, 40, 120, 1][round as usize % 4];
        for i in 0..n {
            store.append(
                &mut log,
                round % 3 == 0,
                &payload(trx, i, 400 + (i as usize * 53) % 2500),
            )?;
            flush(store)?;
            m.durable.insert(trx, i + 1);
        }
        live.push(log);
        if round % 2 == 1 {
            let log = live.remove(0);
            let t = log.trx_id();
            m.marks.push(vfs.write_count());
            if round % 4 == 1 {
                store.commit(log, round)?;
            } else {
                // Once the rollback starts, its truncation may reach the log
                // (a background log write) before a crash: none of the
                // records has to survive any more.
                m.durable.insert(t, 0);
                let mut log = log;
                store.truncate(&mut log, 0)?;
                store.discard(log)?;
            }
            flush(store)?;
            m.ended.insert(t);
        }
        if round % 5 == 4 {
            if let Some(h) = store.oldest_history(u64::MAX)? {
                m.marks.push(vfs.write_count());
                store.free_history(h)?;
                flush(store)?;
            }
        }
    }
    Ok(())
}

#[test]
fn crash_at_many_points_of_a_workload() {
    let ps = PageSize::K4;
    // Count the writes of an uninterrupted run.
    let (vfs, store) = fresh(ps, 2);
    let start = vfs.write_count();
    let mut m = Model::new();
    workload(&vfs, &store, &mut m).expect("workload");
    let total = vfs.write_count() - start;
    drop(store);
    assert!(total > 100, "{total} writes");
    // Evenly spread crash points, plus the first writes of every commit,
    // discard and purge (where multi-step operations end up in the log).
    let mut points: BTreeSet<u64> = (1..total).step_by((total / 10).max(1) as usize).collect();
    for &mark in &m.marks {
        points.extend((0..3).map(|d| mark - start + d));
    }
    for (k, torn) in points.into_iter().zip([false, true].into_iter().cycle()) {
        let (vfs, store) = fresh(ps, 2);
        let base = base_used(&store);
        let mut m = Model::new();
        vfs.set_fault(Some(SimFault::CrashAfterWrites { writes: k, torn }));
        let r = workload(&vfs, &store, &mut m);
        vfs.set_fault(None);
        if r.is_ok() {
            // The crash point was not reached (background writes vary): crash now.
            vfs.crash();
        }
        let st = store.storage().clone();
        drop(store);
        if let Some(st) = Arc::into_inner(st) {
            st.abandon();
        }
        let (store, rec) = reopen(&vfs, ps, 2);
        let mut found = BTreeSet::new();
        for log in &rec.active {
            let t = log.trx_id();
            assert!(
                !m.ended.contains(&t),
                "crash point {k}: trx {t} ended but came back active"
            );
            assert!(found.insert(t));
            let recs = all_records(&store, log);
            let durable = m.durable.get(&t).copied().unwrap_or(0);
            assert!(
                recs.len() as u64 >= durable,
                "crash point {k}: trx {t} lost records"
            );
            for (i, r) in recs.iter().enumerate() {
                let i = i as u64;
                assert_eq!(
                    r.payload,
                    payload(t, i, 400 + (i as usize * 53) % 2500),
                    "crash point {k}"
                );
                assert_eq!(store.read(r.ptr).expect("read"), *r);
            }
        }
        for (&t, &n) in &m.durable {
            if !m.ended.contains(&t) && n > 0 {
                assert!(
                    found.contains(&t),
                    "crash point {k}: durable trx {t} is missing"
                );
            }
        }
        drain(&store, rec, &base);
    }
}

#[test]
fn undo_in_the_system_tablespace() {
    let ps = PageSize::K4;
    let (vfs, store) = fresh(ps, 0);
    assert_eq!(store.undo_spaces(), vec![0]);
    let rseg_page = store
        .storage()
        .system_rseg_page()
        .expect("read")
        .expect("recorded");
    let base = base_used(&store);
    let mut a = store.create_log(1).expect("log");
    let (p, _) = store
        .append(&mut a, false, &payload(1, 0, 3000))
        .expect("append");
    assert_eq!(p.space(), 0);
    for i in 1..10 {
        store
            .append(&mut a, false, &payload(1, i, 3000))
            .expect("append");
    }
    store.commit(a, 5).expect("commit");
    let mut b = store.create_log(2).expect("log");
    store.append(&mut b, true, b"active").expect("append");
    // Tables still get their own tablespaces next to the undo logs.
    let t = store
        .storage()
        .create_tablespace("db/t.ibd")
        .expect("tablespace");
    assert!(t > 0);
    let (store, rec) = crash_reopen(&vfs, store, ps, 0);
    assert_eq!(
        store.storage().system_rseg_page().expect("read"),
        Some(rseg_page)
    );
    assert_eq!(rec.active.len(), 1);
    assert_eq!(all_records(&store, &rec.active[0])[0].payload, b"active");
    assert_eq!(rec.history_len, 1);
    let h = store.oldest_history(0).expect("oldest").expect("some");
    assert_eq!(
        store.history_records(&h, 0, 100).expect("records").len(),
        10
    );
    drain(&store, rec, &base);
}

#[test]
fn clean_reopen_finds_the_same_segments_and_check_passes() {
    let ps = PageSize::K16;
    let (vfs, store) = fresh(ps, 3);
    let mut a = store.create_log(1).expect("log");
    for i in 0..50 {
        store
            .append(&mut a, false, &payload(1, i, 900))
            .expect("append");
    }
    let mut b = store.create_log(2).expect("log");
    store.append(&mut b, false, b"b").expect("append");
    store.commit(b, 1).expect("commit");
    let report = store.storage().check().expect("check");
    assert!(report.is_clean(), "{:#?}", report.problems());
    let types: BTreeSet<String> = report
        .spaces
        .iter()
        .flat_map(|s| s.by_type.keys().cloned())
        .collect();
    assert!(
        types.contains("Undo") && types.contains("RollbackSegment"),
        "{types:?}"
    );
    let pages = store.undo_pages();
    let st = store.storage().clone();
    drop(store);
    Arc::into_inner(st)
        .expect("sole owner")
        .close()
        .expect("close");
    let (store, rec) = reopen(&vfs, ps, 3);
    assert_eq!(
        (rec.active.len(), rec.history_len, store.undo_pages()),
        (1, 1, pages)
    );
    assert_eq!(rec.active[0].next_undo_no(), 50);
}
