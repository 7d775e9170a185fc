//! Tests of the undo log store on a whole engine over the simulated file
//! system: record round trips and roll pointers at several page sizes, page
//! boundaries, newest-first reads with (partial) truncation, commit of
//! insert-only and update logs, the history list across two undo tablespaces,
//! slot exhaustion (MySQL error 1637) and reuse, bad roll pointers, the
//! transaction-id bound. Crash recovery is in `tests_recovery.rs`.

use std::sync::Arc;

use super::*;
use crate::config::EngineConfig;
use crate::io::SimVfs;
use crate::page::PageSize;
use crate::space::alloc;

pub(super) fn config(ps: PageSize, undo: u32) -> EngineConfig {
    let mut cfg = EngineConfig::new("/d");
    cfg.page_size = Some(ps);
    cfg.buffer_pool_size = 32 << 20;
    cfg.log_file_size = 32 << 20;
    cfg.undo_tablespaces = undo;
    cfg
}

/// A fresh data directory with an open undo store.
pub(super) fn fresh(ps: PageSize, undo: u32) -> (SimVfs, UndoStore) {
    let vfs = SimVfs::new();
    let st = Storage::create(config(ps, undo), Arc::new(vfs.clone())).expect("create storage");
    let (store, rec) = UndoStore::open(Arc::new(st)).expect("open undo");
    assert!(rec.active.is_empty());
    assert_eq!(
        (rec.history_len, rec.max_trx_id, rec.trx_id_bound),
        (0, 0, 0)
    );
    (vfs, store)
}

/// Deterministic payload of record `undo_no` of transaction `trx`.
pub(super) fn payload(trx: u64, undo_no: u64, len: usize) -> Vec<u8> {
    let mut x =
        (trx.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ undo_no.wrapping_mul(0xff51_afd7_ed55_8ccd)) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Used pages of `space` according to the allocator.
pub(super) fn used_pages(store: &UndoStore, space: u32) -> u32 {
    let mut mtr = store.storage().mtr().expect("mtr");
    let u = alloc::space_usage(&mut mtr, space).expect("usage");
    mtr.commit().expect("commit");
    u.used_pages
}

/// Every record of `log`, oldest first, through `newest_records`.
pub(super) fn all_records(store: &UndoStore, log: &UndoLog) -> Vec<UndoRecord> {
    let mut v = store.newest_records(log, 0, usize::MAX).expect("records");
    v.reverse();
    v
}

#[test]
fn handles_are_thread_safe() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<UndoStore>();
    send::<UndoLog>();
    send_sync::<HistoryLog>();
}

#[test]
fn roll_pointer_bits() {
    let p = RollPtr::new(true, 127, u32::MAX, u16::MAX);
    assert_eq!(p.0, (1 << 56) - 1);
    assert!(p.is_insert() && !p.is_none());
    assert_eq!((p.space(), p.page(), p.offset()), (127, u32::MAX, u16::MAX));
    let q = RollPtr::new(false, 3, 0x1234_5678, 112);
    assert_eq!(q.0, (3 << 48) | (0x1234_5678 << 16) | 112);
    assert!(!q.is_insert());
    assert_eq!((q.space(), q.page(), q.offset()), (3, 0x1234_5678, 112));
    assert!(RollPtr::NONE.is_none());
    assert_eq!(max_payload(PageSize::K4), 4003);
    assert_eq!(max_payload(PageSize::K16), 16291);
    assert_eq!(max_payload(PageSize::K64), 65443);
    assert_eq!(slot_count(PageSize::K4), 1000);
}

fn round_trip(ps: PageSize) {
    let (_vfs, store) = fresh(ps, 3);
    let max = max_payload(ps);
    let mut log = store.create_log(42).expect("log");
    assert!(log.is_empty() && !log.has_update_records());
    let sizes = [
        0,
        1,
        13,
        100,
        1000,
        max / 2,
        max,
        7,
        max - 1,
        3,
        max,
        0,
        64,
        max / 3,
    ];
    let mut written = Vec::new();
    let mut last_page = None;
    for (i, &len) in sizes.iter().enumerate() {
        let is_insert = i % 3 != 1;
        let data = payload(42, i as u64, len);
        let pages_before = log.page_count();
        let (ptr, undo_no) = store.append(&mut log, is_insert, &data).expect("append");
        assert_eq!(undo_no, i as u64);
        assert_eq!((ptr.space(), ptr.is_insert()), (log.space(), is_insert));
        if i == 0 {
            assert_eq!(
                usize::from(ptr.offset()),
                format::PAGE_DATA + format::LOG_HEADER,
                "first record follows the log header"
            );
        }
        // A record that did not fit went to a new page, at its first offset.
        if last_page.is_some_and(|p| p != ptr.page()) {
            assert_eq!(usize::from(ptr.offset()), format::PAGE_DATA);
            assert_eq!(log.page_count(), pages_before + 1);
        } else {
            assert_eq!(log.page_count(), pages_before);
        }
        last_page = Some(ptr.page());
        written.push((ptr, data, is_insert));
    }
    assert!(
        log.page_count() >= 5,
        "maximum payloads each take a page: {}",
        log.page_count()
    );
    assert!(log.has_update_records());
    assert_eq!(log.next_undo_no(), sizes.len() as u64);
    assert_eq!(store.undo_pages(), u64::from(log.page_count()));
    for (i, (ptr, data, is_insert)) in written.iter().enumerate() {
        let r = store.read(*ptr).expect("read");
        assert_eq!(
            (r.undo_no, r.is_insert, r.trx_id, r.ptr),
            (i as u64, *is_insert, 42, *ptr)
        );
        assert_eq!(&r.payload, data, "record {i} of {} bytes", data.len());
    }
    let all = all_records(&store, &log);
    assert_eq!(all.len(), sizes.len());
    for (r, (ptr, data, _)) in all.iter().zip(&written) {
        assert_eq!((&r.ptr, &r.payload), (ptr, data));
    }
    // Too long is refused and changes nothing.
    assert!(matches!(
        store.append(&mut log, true, &vec![0; max + 1]),
        Err(EngineError::Internal(_))
    ));
    assert_eq!(log.next_undo_no(), sizes.len() as u64);
    // A maximum record cannot share the first page with the log header.
    let mut log2 = store.create_log(43).expect("log");
    assert_ne!(
        log2.space(),
        log.space(),
        "round robin over the undo tablespaces"
    );
    let (p, _) = store
        .append(&mut log2, false, &payload(43, 0, max))
        .expect("append");
    assert_eq!(
        (usize::from(p.offset()), log2.page_count()),
        (format::PAGE_DATA, 2)
    );
    assert_eq!(store.read(p).expect("read").payload, payload(43, 0, max));
    store.commit(log, 1).expect("commit");
    store.commit(log2, 2).expect("commit");
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn append_read_round_trip_4k() {
    round_trip(PageSize::K4);
}

#[test]
fn append_read_round_trip_16k() {
    round_trip(PageSize::K16);
}

#[test]
fn append_read_round_trip_64k() {
    round_trip(PageSize::K64);
}

#[test]
fn newest_records_and_truncate_across_pages() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let base_used = used_pages(&store, 1);
    let mut log = store.create_log(7).expect("log");
    let mut ptrs = Vec::new();
    for i in 0..300u64 {
        let (p, n) = store
            .append(
                &mut log,
                i % 2 == 0,
                &payload(7, i, 150 + (i as usize % 90)),
            )
            .expect("append");
        assert_eq!(n, i);
        ptrs.push(p);
    }
    let pages = log.page_count();
    assert!(pages > 10, "{pages} pages");
    assert_eq!(store.undo_pages(), u64::from(pages));
    assert_eq!(used_pages(&store, 1), base_used + pages);
    // Newest first, down to and including 250, and batched.
    let recs = store.newest_records(&log, 250, 1000).expect("newest");
    assert_eq!(
        recs.iter().map(|r| r.undo_no).collect::<Vec<_>>(),
        (250..300).rev().collect::<Vec<_>>()
    );
    for r in &recs {
        assert_eq!(
            (r.ptr, &r.payload),
            (
                ptrs[r.undo_no as usize],
                &payload(7, r.undo_no, 150 + (r.undo_no as usize % 90))
            )
        );
    }
    let batch = store.newest_records(&log, 0, 7).expect("newest");
    assert_eq!(
        batch.iter().map(|r| r.undo_no).collect::<Vec<_>>(),
        (293..300).rev().collect::<Vec<_>>()
    );
    assert!(store.newest_records(&log, 300, 5).expect("none").is_empty());
    // Savepoint-style partial truncate: records >= 250 go, emptied pages are freed.
    store.truncate(&mut log, 250).expect("truncate");
    assert_eq!(log.next_undo_no(), 250);
    assert!(log.page_count() < pages);
    assert_eq!(store.undo_pages(), u64::from(log.page_count()));
    assert_eq!(used_pages(&store, 1), base_used + log.page_count());
    assert_eq!(
        store.newest_records(&log, 0, 1).expect("top")[0].undo_no,
        249
    );
    assert!(
        store.read(ptrs[299]).is_err(),
        "a freed page is not an undo page any more"
    );
    // Appending continues the numbering (and reuses the cut page's space).
    let (p, n) = store
        .append(&mut log, false, b"after savepoint")
        .expect("append");
    assert_eq!(n, 250);
    assert_eq!(store.read(p).expect("read").payload, b"after savepoint");
    // Truncate inside a page, then a full rollback in batches.
    store.truncate(&mut log, 245).expect("truncate");
    assert_eq!(all_records(&store, &log).len(), 245);
    while !log.is_empty() {
        let batch = store.newest_records(&log, 0, 40).expect("batch");
        assert!(!batch.is_empty() && batch.len() <= 40);
        for w in batch.windows(2) {
            assert_eq!(w[0].undo_no, w[1].undo_no + 1);
        }
        let low = batch.last().map(|r| r.undo_no).expect("nonempty");
        store.truncate(&mut log, low).expect("truncate");
        assert_eq!(log.next_undo_no(), low);
    }
    assert_eq!(log.page_count(), 1);
    assert_eq!(store.undo_pages(), 1);
    store.discard(log).expect("discard");
    assert_eq!(store.undo_pages(), 0);
    assert_eq!(used_pages(&store, 1), base_used);
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn truncate_many_pages_in_steps() {
    // More than FREE_BATCH pages go in several mini-transactions.
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let base_used = used_pages(&store, 1);
    let mut log = store.create_log(9).expect("log");
    for i in 0..(FREE_BATCH as u64 * 3) {
        store
            .append(&mut log, true, &payload(9, i, 3000))
            .expect("append");
    }
    assert!(log.page_count() as usize > 2 * FREE_BATCH);
    store.truncate(&mut log, 5).expect("truncate");
    assert_eq!((log.next_undo_no(), log.page_count()), (5, 5));
    assert_eq!(
        all_records(&store, &log)
            .iter()
            .map(|r| r.undo_no)
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4]
    );
    assert_eq!(used_pages(&store, 1), base_used + 5);
    store.truncate(&mut log, 0).expect("truncate");
    assert!(log.is_empty());
    store.discard(log).expect("discard");
    assert_eq!(used_pages(&store, 1), base_used);
}

#[test]
fn commit_frees_insert_logs_and_queues_update_logs() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let base_used = used_pages(&store, 1);
    // Insert-only, small and large (more pages than one free step).
    for (trx, n) in [(1u64, 3u64), (2, 120)] {
        let mut log = store.create_log(trx).expect("log");
        for i in 0..n {
            store
                .append(&mut log, true, &payload(trx, i, 1200))
                .expect("append");
        }
        let lsn = store.commit(log, trx).expect("commit");
        assert!(lsn > 0);
        assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
        assert_eq!(used_pages(&store, 1), base_used);
    }
    // Logs with update records enter the history: a small one and a large one.
    let mut sizes = Vec::new();
    for (trx, csn, n) in [(10u64, 100u64, 4u64), (11, 110, 150)] {
        let mut log = store.create_log(trx).expect("log");
        for i in 0..n {
            store
                .append(&mut log, i == 0, &payload(trx, i, 1000))
                .expect("append");
        }
        sizes.push(log.page_count());
        store.commit(log, csn).expect("commit");
    }
    assert_eq!(store.history_len(), 2);
    assert_eq!(store.undo_pages(), u64::from(sizes[0] + sizes[1]));
    assert!(store.oldest_history(99).expect("oldest").is_none());
    for (trx, csn, n) in [(10u64, 100u64, 4u64), (11, 110, 150)] {
        let h = store.oldest_history(1000).expect("oldest").expect("some");
        assert_eq!((h.trx_id, h.csn), (trx, csn));
        // Batched, oldest first; a restart below the hint works too.
        let mut got = Vec::new();
        loop {
            let b = store
                .history_records(&h, got.len() as u64, 17)
                .expect("records");
            if b.is_empty() {
                break;
            }
            got.extend(b);
        }
        assert_eq!(got.len() as u64, n);
        for (i, r) in got.iter().enumerate() {
            assert_eq!((r.undo_no, r.trx_id, r.is_insert), (i as u64, trx, i == 0));
            assert_eq!(r.payload, payload(trx, i as u64, 1000));
            assert_eq!(store.read(r.ptr).expect("read"), *r);
        }
        assert_eq!(
            store.history_records(&h, 2, 1).expect("again")[0].undo_no,
            2
        );
        let before = store.history_len();
        store.free_history(h).expect("free");
        assert_eq!(store.history_len(), before - 1);
    }
    assert_eq!((store.undo_pages(), store.history_len()), (0, 0));
    assert_eq!(used_pages(&store, 1), base_used);
    assert!(store.oldest_history(u64::MAX).expect("oldest").is_none());
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn history_in_csn_order_across_two_undo_tablespaces() {
    let (_vfs, store) = fresh(PageSize::K8, 2);
    assert_eq!(store.undo_spaces(), vec![1, 2]);
    let csns = [50u64, 30, 90, 10, 70, 20];
    let mut spaces = std::collections::BTreeSet::new();
    let mut logs = Vec::new();
    for (i, _) in csns.iter().enumerate() {
        let trx = 100 + i as u64;
        let mut log = store.create_log(trx).expect("log");
        spaces.insert(log.space());
        store
            .append(&mut log, false, &payload(trx, 0, 40))
            .expect("append");
        logs.push(log);
    }
    assert_eq!(
        spaces.len(),
        2,
        "logs are spread over both undo tablespaces"
    );
    // Commit in an order that differs from CSN order.
    for (log, &csn) in logs.into_iter().zip(&csns).rev() {
        store.commit(log, csn).expect("commit");
    }
    assert_eq!(store.history_len(), 6);
    let mut order = Vec::new();
    let mut seen_spaces = std::collections::BTreeSet::new();
    while let Some(h) = store.oldest_history(60).expect("oldest") {
        assert!(h.csn <= 60);
        seen_spaces.insert(h.space());
        order.push((h.csn, h.trx_id));
        let recs = store.history_records(&h, 0, 10).expect("records");
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].payload, payload(h.trx_id, 0, 40));
        store.free_history(h).expect("free");
    }
    assert_eq!(order, vec![(10, 103), (20, 105), (30, 101), (50, 100)]);
    assert_eq!(seen_spaces.len(), 2);
    assert_eq!(store.history_len(), 2);
    let h = store
        .oldest_history(u64::MAX)
        .expect("oldest")
        .expect("some");
    assert_eq!(h.csn, 70);
    // The same log handed out twice cannot be freed twice.
    let twin = store
        .oldest_history(u64::MAX)
        .expect("oldest")
        .expect("some");
    store.free_history(h).expect("free");
    assert!(store.free_history(twin).is_err());
    assert_eq!(
        store
            .oldest_history(u64::MAX)
            .expect("oldest")
            .map(|h| h.csn),
        Some(90)
    );
}

#[test]
fn slots_exhausted_then_reused() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let n = slot_count(PageSize::K4);
    let mut logs: Vec<UndoLog> = (0..n as u64)
        .map(|t| store.create_log(t + 1).expect("log"))
        .collect();
    match store.create_log(5000) {
        Err(EngineError::Schema { errno, message }) => {
            assert_eq!(
                (errno, message.as_str()),
                (1637, "Too many active concurrent transactions")
            );
        }
        other => panic!("expected error 1637, got {other:?}"),
    }
    let mut a = logs.pop().expect("log");
    store.append(&mut a, true, b"x").expect("append");
    store.commit(a, 1).expect("commit");
    let b = store
        .create_log(5001)
        .expect("a committed log's slot is reused");
    assert!(store.create_log(5002).is_err());
    store.discard(b).expect("discard");
    let c = store
        .create_log(5003)
        .expect("a discarded log's slot is reused");
    assert!(store.create_log(5004).is_err());
    let mut d = logs.pop().expect("log");
    store.append(&mut d, false, b"upd").expect("append");
    store.commit(d, 2).expect("commit");
    let e = store
        .create_log(5005)
        .expect("an update log's slot is freed at commit");
    for log in logs.into_iter().chain([c, e]) {
        store.discard(log).expect("discard");
    }
    assert_eq!(store.history_len(), 1);
    assert!(store.storage().check().expect("check").is_clean());
}

#[test]
fn bad_roll_pointers_are_errors_not_panics() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    let mut log = store.create_log(3).expect("log");
    let (p, _) = store.append(&mut log, false, b"abc").expect("append");
    let (q, _) = store.append(&mut log, true, b"defgh").expect("append");
    assert!(store.read(RollPtr::NONE).is_err());
    let wrong_flag = RollPtr::new(!p.is_insert(), p.space(), p.page(), p.offset());
    let mid = RollPtr::new(false, p.space(), p.page(), p.offset() + 1);
    let past = RollPtr::new(true, q.space(), q.page(), q.offset() + 20);
    let huge = RollPtr::new(false, p.space(), p.page(), u16::MAX);
    let header = RollPtr::new(false, p.space(), 0, 200);
    let rseg_page = RollPtr::new(false, p.space(), UNDO_SPACE_RSEG_PAGE, 120);
    for bad in [wrong_flag, mid, past, huge, header, rseg_page] {
        match store.read(bad) {
            Err(e) => assert!(e.is_corruption(), "{bad}: {e}"),
            Ok(r) => panic!("{bad} read as {r:?}"),
        }
    }
    assert!(
        store.read(RollPtr::new(false, 0, 2, 64)).is_err(),
        "space 0 holds no undo here"
    );
    assert!(
        store.read(RollPtr::new(false, 1, 1 << 30, 64)).is_err(),
        "beyond the space"
    );
    assert_eq!(store.read(q).expect("read").payload, b"defgh");
}

#[test]
fn trx_id_bound_is_kept_and_never_lowered() {
    let (_vfs, store) = fresh(PageSize::K4, 1);
    assert_eq!(store.trx_id_bound(), 0);
    store.persist_trx_id_bound(512).expect("persist");
    assert_eq!(store.trx_id_bound(), 512);
    store.persist_trx_id_bound(256).expect("persist");
    assert_eq!(store.trx_id_bound(), 512);
    assert_eq!(store.storage().persisted_trx_id_bound().expect("read"), 512);
    assert!(store.create_log(1 << 48).is_err(), "ids are 48-bit");
}

#[test]
fn concurrent_appends_and_reads() {
    let (_vfs, store) = fresh(PageSize::K4, 2);
    let store = Arc::new(store);
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                let trx = 1000 + t;
                let mut log = store.create_log(trx).expect("log");
                let mut ptrs = Vec::new();
                for i in 0..400u64 {
                    let (p, _) = store
                        .append(
                            &mut log,
                            i % 5 == 0,
                            &payload(trx, i, 60 + (i as usize % 200)),
                        )
                        .expect("append");
                    ptrs.push(p);
                    let j = (i * 7919) % (i + 1);
                    assert_eq!(
                        store.read(ptrs[j as usize]).expect("read").payload,
                        payload(trx, j, 60 + (j as usize % 200))
                    );
                }
                store.commit(log, trx).expect("commit");
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    assert_eq!(store.history_len(), 4);
    while let Some(h) = store.oldest_history(u64::MAX).expect("oldest") {
        assert_eq!(
            store.history_records(&h, 0, 1000).expect("records").len(),
            400
        );
        store.free_history(h).expect("free");
    }
    assert_eq!(store.undo_pages(), 0);
}
