//! Tests of shared first pages: small committed logs offer their page to
//! later logs, records on a shared page read back with their own log and
//! transaction, logs leave in any order (the page is freed with its last
//! log), insert-only logs give their space back, a log on a shared page can
//! still grow to many pages, and all of it survives a crash.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::tests::{all_records, config, fresh, payload, used_pages};
use super::*;
use crate::page::PageSize;

/// A committed log of `n` records of `len` bytes (the first an insert, the
/// rest updates), with the roll pointers of its records.
fn committed(store: &UndoStore, trx: u64, n: u64, len: usize) -> (LogAddr, Vec<RollPtr>) {
    let mut log = store.create_log(trx).expect("log");
    let ptrs = (0..n)
        .map(|i| {
            store
                .append(&mut log, i == 0, &payload(trx, i, len))
                .expect("append")
                .0
        })
        .collect();
    let addr = log.addr();
    store.commit(log, trx).expect("commit");
    (addr, ptrs)
}

/// The history log of transaction `trx` (committed with CSN `trx`).
fn history_of(store: &UndoStore, trx: u64) -> HistoryLog {
    let h = store.history.lock();
    let (&key, e) = h
        .by_csn
        .iter()
        .find(|(_, e)| e.trx_id == trx)
        .expect("in the history");
    HistoryLog::of(key, e)
}

#[test]
fn small_logs_share_a_page_and_leave_in_any_order() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let base_used = used_pages(&store, 1);
    // Ten small update logs fit one 4k page (under three quarters used).
    let logs: Vec<_> = (1..=10u64).map(|t| committed(&store, t, 2, 60)).collect();
    let page = logs[0].0.page;
    assert!(logs.iter().all(|(a, _)| a.page == page), "{logs:?}");
    let offs: Vec<u16> = logs.iter().map(|(a, _)| a.off).collect();
    assert!(
        offs.windows(2).all(|w| w[0] < w[1]),
        "headers in order: {offs:?}"
    );
    assert_eq!((store.undo_pages(), store.history_len()), (1, 10));
    assert_eq!(used_pages(&store, 1), base_used + 1);
    // Every record reads back with its own log and transaction.
    for (t, (addr, ptrs)) in (1u64..).zip(&logs) {
        for (i, p) in (0u64..).zip(ptrs) {
            let r = store.read(*p).expect("read");
            assert_eq!((r.trx_id, r.undo_no, r.log), (t, i, *addr));
            assert_eq!(r.payload, payload(t, i, 60));
        }
        let h = history_of(&store, t);
        let recs = store.history_records(&h, 0, 100).expect("records");
        assert_eq!(recs.len(), 2, "log of trx {t}");
        assert!(recs.iter().all(|r| r.trx_id == t && r.log == *addr));
    }
    // Out of order: newest, a middle one, then the rest; the page stays
    // until its last log goes, and the others still read back meanwhile.
    for t in [10u64, 5, 1, 9, 2, 8, 3, 7, 4] {
        store.free_history(history_of(&store, t)).expect("free");
        assert_eq!(store.undo_pages(), 1);
    }
    let r = store.read(logs[5].1[1]).expect("the last log still reads");
    assert_eq!((r.trx_id, r.undo_no), (6, 1));
    store.free_history(history_of(&store, 6)).expect("free");
    assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
    assert_eq!(used_pages(&store, 1), base_used);
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn insert_only_logs_on_a_shared_page_give_their_space_back() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let (a, _) = committed(&store, 1, 2, 100);
    // An insert-only log lands after it and leaves nothing behind.
    let mut log = store.create_log(2).expect("log");
    assert_eq!(log.addr().page, a.page);
    let taken = log.addr();
    store
        .append(&mut log, true, &payload(2, 0, 300))
        .expect("append");
    store.commit(log, 2).expect("commit");
    assert_eq!((store.undo_pages(), store.history_len()), (1, 1));
    // The next log takes the same place; so does one rolled back.
    let log = store.create_log(3).expect("log");
    assert_eq!(log.addr(), taken);
    store.discard(log).expect("discard");
    let (c, _) = committed(&store, 4, 2, 100);
    assert_eq!(c, taken);
    for t in [1, 4] {
        store.free_history(history_of(&store, t)).expect("free");
    }
    assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn a_log_on_a_shared_page_grows_to_many_pages() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let (a, a_ptrs) = committed(&store, 1, 3, 200);
    let mut log = store.create_log(2).expect("log");
    assert_eq!(log.addr().page, a.page);
    for i in 0..40u64 {
        store
            .append(&mut log, false, &payload(2, i, 700))
            .expect("append");
    }
    assert!(log.page_count() >= 7, "{} pages", log.page_count());
    let recs = all_records(&store, &log);
    assert_eq!(recs.len(), 40);
    for (i, r) in (0u64..).zip(&recs) {
        assert_eq!((r.trx_id, r.undo_no, r.log), (2, i, log.addr()));
        assert_eq!(store.read(r.ptr).expect("read"), *r);
    }
    // Partial rollback back onto the shared first page, then commit.
    store.truncate(&mut log, 1).expect("truncate");
    assert_eq!(log.page_count(), 1);
    assert_eq!(all_records(&store, &log).len(), 1);
    let b = log.addr();
    store.commit(log, 2).expect("commit");
    assert_eq!(store.undo_pages(), 1);
    assert_eq!(store.read(a_ptrs[2]).expect("read").trx_id, 1);
    for t in [2, 1] {
        store.free_history(history_of(&store, t)).expect("free");
    }
    assert_ne!(a, b);
    assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn shared_pages_survive_a_crash() {
    let ps = PageSize::K4;
    let (vfs, store) = fresh(ps, 1);
    let base_used: BTreeMap<u32, u32> = [(1, used_pages(&store, 1))].into();
    let (a, a_ptrs) = committed(&store, 1, 2, 80);
    let (b, _) = committed(&store, 2, 2, 80);
    // An active log on the same page, and one grown past it.
    let mut c = store.create_log(3).expect("log");
    assert_eq!([b.page, c.addr().page], [a.page, a.page]);
    for i in 0..3u64 {
        store
            .append(&mut c, false, &payload(3, i, 90))
            .expect("append");
    }
    let c_addr = c.addr();
    let pages = store.undo_pages();
    let st = store.storage().clone();
    st.log()
        .flush_up_to(st.log().current_lsn())
        .expect("flush log");
    drop(store);
    let st = Arc::into_inner(st).expect("sole owner of the storage");
    st.abandon();
    vfs.crash();
    let st = Storage::open(config(ps, 1), Arc::new(vfs.clone())).expect("recover storage");
    let (store, rec) = UndoStore::open(Arc::new(st)).expect("open undo");
    assert_eq!((rec.active.len(), rec.history_len), (1, 2));
    assert_eq!(store.undo_pages(), pages);
    let mut c = rec.active.into_iter().next().expect("active log");
    assert_eq!((c.addr(), c.next_undo_no()), (c_addr, 3));
    assert_eq!(store.read(a_ptrs[1]).expect("read").trx_id, 1);
    store.truncate(&mut c, 0).expect("truncate");
    store.discard(c).expect("discard");
    while let Some(h) = store.oldest_history(u64::MAX).expect("oldest") {
        store.free_history(h).expect("free");
    }
    assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
    assert_eq!(used_pages(&store, 1), base_used[&1]);
    assert!(store.storage().check().expect("check").is_clean());
}

/// A log on a shared first page that grew past it links the page to its
/// continuation pages; the older logs on that page hold that page only, and
/// purge must read and free them without following that link: while the
/// newer log is still active, and after the newer log was purged first
/// (which must take the link away with its pages).
#[test]
fn older_logs_on_a_page_a_newer_log_grew_past_are_purged() {
    for newer_first in [false, true] {
        let (_vfs, store) = fresh(PageSize::K4, 1);
        let base_used = used_pages(&store, 1);
        let (a, _) = committed(&store, 1, 3, 100);
        let mut log = store.create_log(2).expect("log");
        assert_eq!(log.addr().page, a.page);
        for i in 0..12u64 {
            store
                .append(&mut log, false, &payload(2, i, 900))
                .expect("append");
        }
        assert!(log.page_count() >= 3, "{} pages", log.page_count());
        let purge = |trx: u64, records: usize, addr: LogAddr| {
            let h = history_of(&store, trx);
            let recs = store
                .history_records(&h, 0, 100)
                .unwrap_or_else(|e| panic!("records of trx {trx}: {e}"));
            assert_eq!(recs.len(), records, "records of trx {trx}");
            assert!(recs.iter().all(|r| r.trx_id == trx && r.log == addr));
            store
                .free_history(h)
                .unwrap_or_else(|e| panic!("free trx {trx}: {e}"));
        };
        let b = log.addr();
        if newer_first {
            store.commit(log, 2).expect("commit");
            purge(2, 12, b);
            purge(1, 3, a);
        } else {
            purge(1, 3, a);
            store.commit(log, 2).expect("commit");
            purge(2, 12, b);
        }
        assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
        assert_eq!(used_pages(&store, 1), base_used);
        assert!(store.storage().check().expect("check").is_clean());
    }
}
