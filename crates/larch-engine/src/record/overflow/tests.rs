//! Tests of off-page storage on a whole engine over the simulated file system:
//! round trips from 0 bytes to several MB at 4k and 64k pages, the on-page
//! chain layout, freeing (all pages return to the segment), crash recovery of
//! stored values and of an interrupted free, and corruption detection.

use std::sync::Arc;

use super::*;
use crate::config::EngineConfig;
use crate::io::SimVfs;
use crate::storage::Storage;

fn config(ps: PageSize) -> EngineConfig {
    let mut cfg = EngineConfig::new("/d");
    cfg.page_size = Some(ps);
    cfg.buffer_pool_size = 64 << 20;
    cfg
}

struct Env {
    st: Storage,
    vfs: SimVfs,
    space: u32,
    seg: SegmentRef,
}

fn open(ps: PageSize) -> Env {
    let vfs = SimVfs::new();
    let st = Storage::create(config(ps), Arc::new(vfs.clone())).expect("create storage");
    let space = st.create_tablespace("db/t.ibd").expect("tablespace");
    let seg = run(&st, |m| alloc::create_segment(m, space)).expect("segment");
    Env {
        st,
        vfs,
        space,
        seg,
    }
}

impl Env {
    /// Simulates a crash after making everything logged so far durable, and
    /// reopens (running recovery).
    fn crash_and_reopen(self, ps: PageSize) -> Env {
        let Env {
            st,
            vfs,
            space,
            seg,
        } = self;
        let lsn = st.log().current_lsn();
        st.log().flush_up_to(lsn).expect("flush log");
        st.abandon();
        vfs.crash_drop_unsynced();
        let st = Storage::open(config(ps), Arc::new(vfs.clone())).expect("recover");
        Env {
            st,
            vfs,
            space,
            seg,
        }
    }

    fn pool(&self) -> &BufferPool {
        self.st.pool()
    }

    fn seg_pages(&self) -> u32 {
        run(&self.st, |m| {
            alloc::segment_page_count(m, self.space, self.seg)
        })
        .expect("count")
    }

    fn healthy(&self) {
        let problems = run(&self.st, |m| alloc::check_space(m, self.space)).expect("check");
        assert!(problems.is_empty(), "check_space: {problems:#?}");
    }
}

fn run<T>(st: &Storage, f: impl FnOnce(&mut Mtr<'_>) -> Result<T>) -> Result<T> {
    let mut mtr = st.mtr()?;
    let r = f(&mut mtr);
    mtr.commit()?;
    r
}

/// Deterministic pseudo-random bytes.
fn value(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn lengths(ps: PageSize) -> Vec<usize> {
    let cap = page_capacity(ps);
    vec![
        0,
        1,
        41,
        cap - 1,
        cap,
        cap + 1,
        2 * cap + 7,
        MTR_DATA_BUDGET - 1,
        MTR_DATA_BUDGET + 1,
        100_000,
        (3 << 20) + 12_345,
    ]
}

fn round_trips(ps: PageSize) {
    let env = open(ps);
    let pool = env.pool();
    assert_eq!(env.seg_pages(), 0);
    let mut stored = Vec::new();
    for (k, len) in lengths(ps).into_iter().enumerate() {
        let data = value(len, k as u64);
        let before = env.seg_pages();
        let r = store(pool, env.space, env.seg, &data).expect("store");
        assert_eq!((r.space, r.offset, r.len), (env.space, 40, len as u64));
        let pages = chain_pages(pool, &r).expect("chain");
        assert_eq!(
            pages.len() as u64,
            pages_for(len as u64, ps),
            "{ps} len {len}"
        );
        assert_eq!(pages[0], r.first_page);
        assert_eq!(env.seg_pages(), before + pages.len() as u32);
        assert!(read(pool, &r).expect("read") == data, "{ps} len {len}");
        let p = len.min(1000);
        assert!(read_prefix(pool, &r, p as u64).expect("prefix") == data[..p]);
        assert!(read_prefix(pool, &r, u64::MAX).expect("prefix") == data);
        assert_eq!(check_chain(pool, &r).expect("check"), Vec::<String>::new());
        stored.push((r, data));
    }
    env.healthy();
    // Everything is still intact after all the stores; free in mixed order.
    for (r, data) in &stored {
        assert!(read(pool, r).expect("reread") == *data);
    }
    let total: u32 = env.seg_pages();
    let mut freed = 0;
    for i in (0..stored.len())
        .step_by(2)
        .chain((1..stored.len()).step_by(2))
    {
        let (r, _) = &stored[i];
        let n = chain_pages(pool, r).expect("chain").len() as u32;
        free(pool, env.seg, r).expect("free");
        freed += n;
        assert_eq!(env.seg_pages(), total - freed);
        // A dangling reference is detected, not served.
        let e = read(pool, r).expect_err("read after free");
        assert!(e.is_corruption(), "{e}");
        assert!(!check_chain(pool, r).expect("check").is_empty());
    }
    assert_eq!(env.seg_pages(), 0);
    env.healthy();
}

#[test]
fn store_read_free_4k() {
    round_trips(PageSize::K4);
}

#[test]
fn store_read_free_64k() {
    round_trips(PageSize::K64);
}

#[test]
fn chain_layout_on_pages() {
    let ps = PageSize::K4;
    let env = open(ps);
    let pool = env.pool();
    let cap = page_capacity(ps);
    assert_eq!(cap, 4096 - 52);
    let data = value(3 * cap + 5, 1);
    let r = store(pool, env.space, env.seg, &data).expect("store");
    let pages = chain_pages(pool, &r).expect("chain");
    assert_eq!(pages.len(), 4);
    for (k, &p) in pages.iter().enumerate() {
        let g = pool
            .fix(PageId::new(env.space, p), Latch::Shared)
            .expect("fix");
        let d = g.data();
        let h = PageHeader(d);
        assert_eq!(h.page_type(), Some(PageType::Overflow));
        let prev = if k == 0 { FIL_NULL } else { pages[k - 1] };
        let next = pages.get(k + 1).copied().unwrap_or(FIL_NULL);
        assert_eq!((h.prev(), h.next()), (prev, next), "page {k}");
        assert_eq!(bytes::get_u64(d, VALUE_POS_OFFSET), (k * cap) as u64);
        let n = bytes::get_u32(d, DATA_LEN_OFFSET) as usize;
        assert_eq!(n, if k == 3 { 5 } else { cap });
        assert_eq!(
            &d[DATA_OFFSET..DATA_OFFSET + n],
            &data[k * cap..k * cap + n]
        );
    }
}

#[test]
fn redo_volume_is_close_to_the_value_size() {
    for ps in [PageSize::K4, PageSize::K64] {
        let env = open(ps);
        let data = value(1 << 20, 3);
        let before = env.st.log().current_lsn();
        store(env.pool(), env.space, env.seg, &data).expect("store");
        let logged = env.st.log().current_lsn() - before;
        assert!(logged >= 1 << 20);
        assert!(
            logged < (1 << 20) + (1 << 20) / 16,
            "{ps}: {logged} bytes of redo"
        );
    }
}

#[test]
fn stored_values_survive_a_crash() {
    for ps in [PageSize::K4, PageSize::K64] {
        let env = open(ps);
        let mut stored = Vec::new();
        for (k, len) in [1usize, 5000, 300_000, 2 << 20].into_iter().enumerate() {
            let data = value(len, 100 + k as u64);
            let r = store(env.pool(), env.space, env.seg, &data).expect("store");
            stored.push((r, data));
        }
        let pages = env.seg_pages();
        let env = env.crash_and_reopen(ps);
        assert_eq!(env.seg_pages(), pages);
        env.healthy();
        for (r, data) in &stored {
            assert!(
                read(env.pool(), r).expect("read after recovery") == *data,
                "{ps}"
            );
            assert!(check_chain(env.pool(), r).expect("check").is_empty());
        }
        for (r, _) in &stored {
            free(env.pool(), env.seg, r).expect("free");
        }
        assert_eq!(env.seg_pages(), 0);
        // The frees are durable too.
        let env = env.crash_and_reopen(ps);
        assert_eq!(env.seg_pages(), 0);
        env.healthy();
    }
}

#[test]
fn interrupted_free_completes_after_a_crash() {
    let ps = PageSize::K4;
    let env = open(ps);
    let data = value(50 * page_capacity(ps) + 17, 9);
    let r = store(env.pool(), env.space, env.seg, &data).expect("store");
    assert_eq!(env.seg_pages(), 51);
    assert!(!free_step(env.pool(), env.seg, &r).expect("step"));
    assert_eq!(env.seg_pages(), 51 - FREE_BATCH as u32);
    let env = env.crash_and_reopen(ps);
    assert_eq!(env.seg_pages(), 51 - FREE_BATCH as u32);
    env.healthy();
    // The reference names a valid, shorter chain: reading it is an error...
    assert!(read(env.pool(), &r).expect_err("short").is_corruption());
    let problems = check_chain(env.pool(), &r).expect("check");
    assert!(
        problems.iter().any(|p| p.contains("ends after")),
        "{problems:?}"
    );
    // ...and freeing it again finishes the job.
    free(env.pool(), env.seg, &r).expect("free rest");
    assert_eq!(env.seg_pages(), 0);
    env.healthy();
    // A second free of the same value is refused.
    assert!(free(env.pool(), env.seg, &r).is_err());
}

fn corrupt_field(env: &Env, page: u32, off: usize, bytes: &[u8]) {
    run(&env.st, |m| {
        let p = m.page(PageId::new(env.space, page), Latch::Exclusive)?;
        m.write_bytes(p, off, bytes);
        Ok(())
    })
    .expect("corrupt");
}

fn corrupt_page_of(e: &EngineError) -> PageId {
    match e {
        EngineError::Corruption { page, .. } => *page,
        other => panic!("expected corruption, got {other}"),
    }
}

#[test]
fn corruption_is_detected_and_named() {
    let ps = PageSize::K4;
    let env = open(ps);
    let pool = env.pool();
    let data = value(3 * page_capacity(ps) + 100, 5);
    let r = store(pool, env.space, env.seg, &data).expect("store");
    let pages = chain_pages(pool, &r).expect("chain");
    let id = |k: usize| PageId::new(env.space, pages[k]);

    // Wrong page type in the middle of the chain.
    corrupt_field(
        &env,
        pages[2],
        offset::PAGE_TYPE,
        &(PageType::Index as u16).to_le_bytes(),
    );
    let e = read(pool, &r).expect_err("bad type");
    assert_eq!(corrupt_page_of(&e), id(2));
    assert!(e.to_string().contains("not Overflow"), "{e}");
    let problems = check_chain(pool, &r).expect("check");
    assert_eq!(problems.len(), 1, "{problems:?}");
    corrupt_field(
        &env,
        pages[2],
        offset::PAGE_TYPE,
        &(PageType::Overflow as u16).to_le_bytes(),
    );
    assert!(read(pool, &r).expect("repaired") == data);

    // A cycle: the last page links back to the first.
    corrupt_field(&env, pages[3], offset::NEXT, &pages[0].to_le_bytes());
    let e = read(pool, &r).expect_err("cycle");
    assert_eq!(corrupt_page_of(&e), id(3));
    corrupt_field(&env, pages[3], offset::NEXT, &FIL_NULL.to_le_bytes());

    // A link that skips a page: positions no longer match.
    corrupt_field(&env, pages[0], offset::NEXT, &pages[2].to_le_bytes());
    let e = read(pool, &r).expect_err("skip");
    assert_eq!(corrupt_page_of(&e), id(2));
    assert!(e.to_string().contains("expected"), "{e}");
    corrupt_field(&env, pages[0], offset::NEXT, &pages[1].to_le_bytes());

    // A data length that does not add up.
    corrupt_field(&env, pages[3], DATA_LEN_OFFSET, &99u32.to_le_bytes());
    assert_eq!(corrupt_page_of(&read(pool, &r).expect_err("short")), id(3));
    corrupt_field(&env, pages[1], DATA_LEN_OFFSET, &1u32.to_le_bytes());
    assert_eq!(
        corrupt_page_of(&read(pool, &r).expect_err("not full")),
        id(1)
    );
    corrupt_field(&env, pages[3], DATA_LEN_OFFSET, &100u32.to_le_bytes());
    corrupt_field(
        &env,
        pages[1],
        DATA_LEN_OFFSET,
        &(page_capacity(ps) as u32).to_le_bytes(),
    );
    assert!(read(pool, &r).expect("repaired") == data);
    assert!(check_chain(pool, &r).expect("check").is_empty());

    // References that disagree with the chain.
    let longer = ExternRef {
        len: r.len + 1,
        ..r
    };
    assert_eq!(
        corrupt_page_of(&read(pool, &longer).expect_err("longer")),
        id(3)
    );
    let shorter = ExternRef {
        len: r.len - 1,
        ..r
    };
    assert!(read(pool, &shorter).expect_err("shorter").is_corruption());
    let much_shorter = ExternRef { len: 10, ..r };
    assert!(read(pool, &much_shorter)
        .expect_err("much shorter")
        .is_corruption());
    let bad_offset = ExternRef { offset: 0, ..r };
    assert_eq!(
        corrupt_page_of(&read(pool, &bad_offset).expect_err("offset")),
        id(0)
    );
    let into_middle = ExternRef {
        first_page: pages[1],
        ..r
    };
    assert_eq!(
        corrupt_page_of(&read(pool, &into_middle).expect_err("middle")),
        id(1)
    );
    assert!(!check_chain(pool, &into_middle).expect("check").is_empty());
    // A prefix read stops before the damage.
    corrupt_field(&env, pages[3], offset::PAGE_TYPE, &0u16.to_le_bytes());
    assert!(read_prefix(pool, &r, 100).expect("prefix") == data[..100]);
}

#[test]
fn failed_store_frees_its_pages() {
    let ps = PageSize::K4;
    let env = open(ps);
    let pool = env.pool();
    // A segment reference to a slot that holds no segment: nothing is allocated.
    let bogus = SegmentRef {
        inode_page: 1,
        slot: 57,
    };
    let before = run(&env.st, |m| alloc::space_usage(m, env.space)).expect("usage");
    assert!(store(pool, env.space, bogus, &value(10_000, 1)).is_err());
    let after = run(&env.st, |m| alloc::space_usage(m, env.space)).expect("usage");
    assert_eq!(before.used_pages, after.used_pages);

    // The disk fills up in the middle of a store: the pages already written
    // go back to the segment.
    let kept = store(pool, env.space, env.seg, &value(5000, 2)).expect("store");
    let seg_before = env.seg_pages();
    env.st.flush_all().expect("flush");
    env.vfs
        .set_fault(Some(crate::io::SimFault::DiskFull { limit_bytes: 0 }));
    let big = value(2 << 20, 3);
    let e = store(pool, env.space, env.seg, &big).expect_err("disk full");
    assert!(matches!(e, EngineError::DiskFull { .. }), "{e}");
    assert_eq!(env.seg_pages(), seg_before);
    env.healthy();
    env.vfs.set_fault(None);
    let r = store(pool, env.space, env.seg, &big).expect("store after space freed");
    assert!(read(pool, &r).expect("read") == big);
    assert!(read(pool, &kept).expect("read kept") == value(5000, 2));
}
