//! Tests of [`check_undo`]: clean on every state the store produces (shared
//! first pages, logs grown past them, partial truncations, active logs,
//! history), and each kind of damage a page checksum cannot see (written
//! through mini-transactions, so every page stays valid) reported with its
//! file and page.

use super::format::{
    LH_HIST_PREV, LH_HIST_PREV_OFF, LH_PAGE_COUNT, LH_RECORDS, LH_STATE, PAGE_DATA, PH_FREE,
};
use super::tests::{fresh, payload};
use super::*;
use crate::buffer::Latch;
use crate::io::SimVfs;
use crate::page::{offset, PageId, PageSize, PageType, FIL_NULL};
use crate::space::alloc;

const SPACE: u32 = 1;

/// What [`populate`] built: (log, its pages) of each log kept.
struct Built {
    /// Committed, one page, first on a shared page.
    a: LogAddr,
    /// Committed, one page, second on the same page.
    b: LogAddr,
    /// Committed, grew past the shared page: (log, pages).
    c: (LogAddr, Vec<u32>),
    /// Active, several pages, truncated part way.
    d: (UndoLog, Vec<u32>),
    /// Active, one page.
    e: UndoLog,
}

fn pages_of(store: &UndoStore, log: &UndoLog) -> Vec<u32> {
    store.log_pages(log).expect("pages")
}

fn committed(store: &UndoStore, trx: u64, n: u64, len: usize) -> (LogAddr, Vec<u32>) {
    let mut log = store.create_log(trx).expect("log");
    for i in 0..n {
        store
            .append(&mut log, i == 0, &payload(trx, i, len))
            .expect("append");
    }
    let pages = pages_of(store, &log);
    let addr = log.addr();
    store.commit(log, trx).expect("commit");
    (addr, pages)
}

/// Every kind of log the store keeps, in one undo tablespace of 4k pages.
fn populate(store: &UndoStore) -> Built {
    let (a, _) = committed(store, 1, 2, 60);
    let (b, _) = committed(store, 2, 2, 60);
    let c = committed(store, 3, 12, 900);
    assert_eq!([b.page, c.0.page], [a.page, a.page], "shared first page");
    assert!(c.1.len() >= 3);
    // An insert-only log leaves nothing.
    committed(store, 4, 1, 50);
    let mut d = store.create_log(5).expect("log");
    for i in 0..20 {
        store
            .append(&mut d, false, &payload(5, i, 700))
            .expect("append");
    }
    store.truncate(&mut d, 9).expect("truncate");
    let d_pages = pages_of(store, &d);
    assert!(d_pages.len() >= 2);
    let mut e = store.create_log(6).expect("log");
    store.append(&mut e, false, b"e").expect("append");
    Built {
        a,
        b,
        c,
        d: (d, d_pages),
        e,
    }
}

fn check(store: &UndoStore) -> UndoCheck {
    check_undo(store.storage()).expect("undo check")
}

/// Writes `bytes` at `off` of page `page` through a mini-transaction (the
/// page stays valid: its checksum is computed when it is written).
fn damage(store: &UndoStore, page: u32, off: usize, bytes: &[u8]) {
    let mut mtr = store.storage().mtr().expect("mtr");
    let p = mtr
        .page(PageId::new(SPACE, page), Latch::Exclusive)
        .expect("page");
    mtr.write_bytes(p, off, bytes);
    mtr.commit().expect("commit");
}

fn read_u64(store: &UndoStore, page: u32, off: usize) -> u64 {
    let g = store
        .storage()
        .pool()
        .fix(PageId::new(SPACE, page), Latch::Shared)
        .expect("fix");
    crate::page::bytes::get_u64(g.data(), off)
}

#[test]
fn every_state_the_store_produces_checks_clean() {
    let (vfs, store) = fresh(PageSize::K4, 1);
    let empty = check(&store);
    assert!(empty.is_clean(), "{:?}", empty.problems);
    assert_eq!((empty.rollback_segments, empty.pages), (1, 0));
    let built = populate(&store);
    let c = check(&store);
    assert!(c.is_clean(), "{:#?}", c.problems);
    assert_eq!((c.live_logs, c.history_logs), (2, 3));
    assert_eq!(c.pages, store.undo_pages());
    assert_eq!(c.records, 2 + 2 + 12 + 9 + 1);
    // After a crash, before the store finishes anything: active logs in
    // slots are a valid state.
    drop(built);
    let st = store.storage().clone();
    st.log().flush_up_to(st.log().current_lsn()).expect("flush");
    drop(store);
    Arc::into_inner(st).expect("sole owner").abandon();
    vfs.crash();
    let st = Storage::open(super::tests::config(PageSize::K4, 1), Arc::new(vfs.clone()))
        .expect("recover");
    let c = check_undo(&st).expect("check");
    assert!(c.is_clean(), "{:#?}", c.problems);
    assert_eq!((c.live_logs, c.history_logs), (2, 3));
    let (store, rec) = UndoStore::open(Arc::new(st)).expect("open");
    for log in rec.active {
        store.discard(log).expect("discard");
    }
    while let Some(h) = store.oldest_history(u64::MAX).expect("oldest") {
        store.free_history(h).expect("free");
    }
    let c = check(&store);
    assert!(c.is_clean(), "{:#?}", c.problems);
    assert_eq!((c.live_logs, c.history_logs, c.pages), (0, 0, 0));
}

/// One kind of damage: what to do, and the page the report must name.
type Injury = fn(&UndoStore, &Built) -> u32;

fn injuries() -> Vec<(&'static str, Injury)> {
    vec![
        ("page count of a history log", |s, b| {
            let (c, _) = &b.c;
            let n = b.c.1.len() as u32 + 1;
            damage(s, c.page, c.at() + LH_PAGE_COUNT, &n.to_le_bytes());
            c.page
        }),
        ("record count of a history log", |s, b| {
            damage(s, b.b.page, b.b.at() + LH_RECORDS, &5u64.to_le_bytes());
            b.b.page
        }),
        (
            "next link of a page whose newest log has one page",
            |s, b| {
                let page = b.e.addr().page;
                damage(s, page, offset::NEXT, &b.d.1[1].to_le_bytes());
                page
            },
        ),
        ("previous link of a continuation page", |s, b| {
            let p = b.c.1[2];
            damage(s, p, offset::PREV, &b.c.1[0].to_le_bytes());
            p
        }),
        ("start offset at the end of a record", |s, b| {
            let p = *b.d.1.last().expect("pages");
            let g = s
                .storage()
                .pool()
                .fix(PageId::new(SPACE, p), Latch::Shared)
                .expect("fix");
            let free = usize::from(crate::page::bytes::get_u16(g.data(), PH_FREE));
            drop(g);
            damage(s, p, free - 2, &[0x55, 0x55]);
            p
        }),
        ("history list length", |s, _| {
            let n = read_u64(s, UNDO_SPACE_RSEG_PAGE, 56) + 1;
            damage(s, UNDO_SPACE_RSEG_PAGE, 56, &n.to_le_bytes());
            UNDO_SPACE_RSEG_PAGE
        }),
        ("history page count", |s, _| {
            let n = read_u64(s, UNDO_SPACE_RSEG_PAGE, 72) + 2;
            damage(s, UNDO_SPACE_RSEG_PAGE, 72, &n.to_le_bytes());
            UNDO_SPACE_RSEG_PAGE
        }),
        ("history list back link", |s, b| {
            damage(
                s,
                b.b.page,
                b.b.at() + LH_HIST_PREV,
                &FIL_NULL.to_le_bytes(),
            );
            b.b.page
        }),
        ("history list loses its first log", |s, b| {
            // The list starts at b, which no longer links back to a: a is
            // still on the page, named by nothing.
            let mut first = b.b.page.to_le_bytes().to_vec();
            damage(s, UNDO_SPACE_RSEG_PAGE, 64, &first);
            first = b.b.off.to_le_bytes().to_vec();
            damage(s, UNDO_SPACE_RSEG_PAGE, 84, &first);
            let n = read_u64(s, UNDO_SPACE_RSEG_PAGE, 56) - 1;
            damage(s, UNDO_SPACE_RSEG_PAGE, 56, &n.to_le_bytes());
            damage(
                s,
                b.b.page,
                b.b.at() + LH_HIST_PREV,
                &FIL_NULL.to_le_bytes(),
            );
            damage(s, b.b.page, b.b.at() + LH_HIST_PREV_OFF, &[0, 0]);
            b.a.page
        }),
        ("slot naming a freed log", |s, b| {
            let e = b.e.addr();
            damage(s, e.page, e.at() + LH_STATE, &[5]);
            e.page
        }),
        ("leaked undo page", |s, _| {
            let mut mtr = s.storage().mtr().expect("mtr");
            let p = alloc::alloc_page(&mut mtr, SPACE).expect("alloc");
            let r = mtr
                .new_page(PageId::new(SPACE, p), PageType::Undo)
                .expect("new page");
            mtr.write_u16(r, PH_FREE, PAGE_DATA as u16);
            mtr.commit().expect("commit");
            p
        }),
    ]
}

#[test]
fn damage_a_checksum_cannot_see_is_reported_with_file_and_page() {
    for (what, injure) in injuries() {
        let (_vfs, store): (SimVfs, UndoStore) = fresh(PageSize::K4, 1);
        let built = populate(&store);
        assert!(check(&store).is_clean(), "{what}: clean before");
        let page = injure(&store, &built);
        // Every page is still valid: only the undo check sees the damage.
        let mut report = store.storage().check().expect("check");
        assert!(report.is_clean(), "{what}: {:?}", report.problems());
        let c = check(&store);
        assert!(
            c.problems
                .iter()
                .any(|p| p.file == "undo001" && p.page == page),
            "{what}: no problem names undo001 page {page}: {:#?}",
            c.problems
        );
        c.add_to(&mut report);
        let lines = report.problems();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("undo001: page {page}: "))),
            "{what}: {lines:#?}"
        );
    }
}
