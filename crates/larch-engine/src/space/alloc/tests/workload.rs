//! Allocation workloads: random alloc/free against a model at every page size,
//! the growth policy, several descriptor groups and dropping segments.

use std::collections::HashMap;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::super::inode::inodes_per_page;
use super::super::*;
use super::{drop_segment, healthy, open, run, system_pages, usage};
use crate::buffer::Latch;
use crate::page::{PageHeader, PageSize};

/// Random allocations and frees of fragment and segment pages, batched in
/// mini-transactions, checked against a model of who owns which page.
fn random_workload(ps: PageSize, seed: u64, ops: usize, max_live: usize) {
    let (st, _vfs) = open(ps);
    let space = st
        .create_tablespace("test/t1.ibd")
        .expect("create tablespace");
    let ppe = ps.pages_per_extent();
    let mut rng = SmallRng::seed_from_u64(seed);
    let segs: Vec<SegmentRef> = (0..4)
        .map(|_| run(&st, |m| create_segment(m, space)).expect("create segment"))
        .collect();
    let mut owner: HashMap<u32, Option<usize>> = HashMap::new();
    let mut live: Vec<u32> = Vec::new();
    let mut allocs = 0usize;
    let mut sizes_seen = vec![ppe];
    for op in 0..ops {
        if live.len() < 8 || (live.len() < max_live && rng.random_bool(0.6)) {
            let which: Vec<Option<usize>> = (0..rng.random_range(1..=4))
                .map(|_| (!rng.random_bool(0.2)).then(|| rng.random_range(0..segs.len())))
                .collect();
            let got = run(&st, |m| {
                let mut v = Vec::new();
                for w in &which {
                    let p = match w {
                        None => alloc_page(m, space)?,
                        Some(i) => alloc_segment_page(m, space, segs[*i])?,
                    };
                    m.new_page(PageId::new(space, p), PageType::Test)?;
                    v.push(p);
                }
                Ok(v)
            })
            .expect("alloc");
            for (p, w) in got.into_iter().zip(which) {
                assert!(owner.insert(p, w).is_none(), "page {p} handed out twice");
                assert!(
                    p % ps.pages_per_group() != 0 && p != 1,
                    "system page {p} handed out"
                );
                live.push(p);
                allocs += 1;
            }
        } else {
            let n = rng.random_range(1..=4).min(live.len());
            let victims: Vec<u32> = (0..n)
                .map(|_| live.swap_remove(rng.random_range(0..live.len())))
                .collect();
            run(&st, |m| {
                for p in &victims {
                    match owner[p] {
                        None => free_page(m, space, *p)?,
                        Some(i) => free_segment_page(m, space, segs[i], *p)?,
                    }
                }
                Ok(())
            })
            .expect("free");
            for p in victims {
                owner.remove(&p);
            }
        }
        let size = st.spaces().size_pages(space).expect("size");
        if sizes_seen.last() != Some(&size) {
            sizes_seen.push(size);
        }
        if op % 1000 == 999 || op + 1 == ops {
            healthy(&st, space);
            let u = usage(&st, space);
            assert_eq!(u.size_pages, size);
            assert_eq!(u.used_pages, owner.len() as u32 + system_pages(&u, ps));
            for (i, seg) in segs.iter().enumerate() {
                let n = owner.values().filter(|w| **w == Some(i)).count() as u32;
                let c = run(&st, |m| segment_page_count(m, space, *seg)).expect("count");
                assert_eq!(c, n, "segment {i} page count");
            }
            for p in live.iter().take(200) {
                assert!(run(&st, |m| page_is_used(m, space, *p)).expect("used"));
            }
        }
    }
    assert!(allocs >= 2000, "only {allocs} allocations");
    // The file grew by whole extents.
    for w in sizes_seen.windows(2) {
        assert!(
            w[1] > w[0] && (w[1] - w[0]) % ppe == 0,
            "growth from {} to {}",
            w[0],
            w[1]
        );
    }
    // Free the fragment pages, drop the segments: everything comes back.
    let frags: Vec<u32> = owner
        .iter()
        .filter(|(_, w)| w.is_none())
        .map(|(p, _)| *p)
        .collect();
    for chunk in frags.chunks(16) {
        run(&st, |m| {
            chunk.iter().try_for_each(|p| free_page(m, space, *p))
        })
        .expect("free frag");
    }
    for seg in &segs {
        drop_segment(&st, space, *seg);
        assert!(run(&st, |m| drop_segment_step(m, space, *seg)).is_err());
    }
    healthy(&st, space);
    let u = usage(&st, space);
    let groups = u.size_pages.div_ceil(ps.pages_per_group());
    assert_eq!((u.segments, u.inode_pages, u.segment_extents), (0, 1, 0));
    assert_eq!(u.used_pages, groups + 1);
    assert_eq!(u.free_extents, u.extents - groups);
    // Pages freed are handed out again.
    let again = run(&st, |m| alloc_page(m, space)).expect("realloc");
    assert!(again < u.size_pages);
}

#[test]
fn random_workload_4k() {
    random_workload(PageSize::K4, 4, 5000, 2500);
}

#[test]
fn random_workload_8k() {
    random_workload(PageSize::K8, 8, 5000, 2000);
}

#[test]
fn random_workload_16k() {
    random_workload(PageSize::K16, 16, 4000, 1500);
}

#[test]
fn random_workload_32k() {
    random_workload(PageSize::K32, 32, 3500, 900);
}

#[test]
fn random_workload_64k() {
    random_workload(PageSize::K64, 64, 3500, 600);
}

/// One segment page per mini-transaction: the file grows one extent at a
/// time below 32 extents, then four at a time.
fn growth_policy(ps: PageSize) {
    let (st, _vfs) = open(ps);
    let space = st
        .create_tablespace("test/g.ibd")
        .expect("create tablespace");
    let ppe = ps.pages_per_extent();
    let seg = run(&st, |m| create_segment(m, space)).expect("seg");
    let mut sizes = vec![st.spaces().size_pages(space).expect("size")];
    while sizes.last().is_some_and(|s| *s < 44 * ppe) {
        run(&st, |m| alloc_segment_page(m, space, seg)).expect("alloc");
        let size = st.spaces().size_pages(space).expect("size");
        if sizes.last() != Some(&size) {
            sizes.push(size);
        }
    }
    for w in sizes.windows(2) {
        let step = if w[0] < 32 * ppe { ppe } else { 4 * ppe };
        assert_eq!(w[1] - w[0], step, "growth from {} to {}", w[0], w[1]);
    }
    assert_eq!(usage(&st, space).size_pages, *sizes.last().unwrap_or(&0));
    healthy(&st, space);
}

#[test]
fn growth_policy_16k() {
    growth_policy(PageSize::K16);
}

#[test]
fn growth_policy_8k() {
    growth_policy(PageSize::K8);
}

#[test]
fn several_descriptor_groups_4k() {
    let ps = PageSize::K4;
    let (st, _vfs) = open(ps);
    let space = st
        .create_tablespace("test/big.ibd")
        .expect("create tablespace");
    let a = run(&st, |m| create_segment(m, space)).expect("seg");
    let b = run(&st, |m| create_segment(m, space)).expect("seg");
    let mut pages = Vec::new();
    for i in 0..180 {
        let got = run(&st, |m| {
            let mut v = Vec::new();
            for j in 0..50 {
                v.push(match (i * 50 + j) % 10 {
                    0 => alloc_page(m, space)?,
                    1..=5 => alloc_segment_page(m, space, a)?,
                    _ => alloc_segment_page(m, space, b)?,
                });
            }
            Ok(v)
        })
        .expect("alloc");
        pages.extend(got);
    }
    let mut sorted = pages.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 9000, "a page was handed out twice");
    assert!(!pages.iter().any(|p| p % 4096 == 0));
    let u = usage(&st, space);
    assert!(u.size_pages > 8192, "size {}", u.size_pages);
    assert_eq!(u.size_pages % ps.pages_per_extent(), 0);
    for g in [4096u32, 8192] {
        let ty = run(&st, |m| {
            let r = m.page(PageId::new(space, g), Latch::Shared)?;
            Ok(PageHeader(m.data(r)).page_type())
        })
        .expect("read descriptor page");
        assert_eq!(ty, Some(PageType::ExtentDescriptor));
        assert!(run(&st, |m| page_is_used(m, space, g)).expect("used"));
    }
    healthy(&st, space);
    assert_eq!(u.used_pages, 9000 + system_pages(&u, ps));
    assert_eq!(
        run(&st, |m| segment_page_count(m, space, a)).expect("count"),
        pages.len() as u32 / 2
    );
    // Free half of a's pages page by page, then drop both segments.
    let frag: Vec<u32> = pages.iter().step_by(10).copied().collect();
    let a_pages: Vec<u32> = pages
        .iter()
        .enumerate()
        .filter(|(k, _)| matches!(k % 10, 1..=5))
        .map(|(_, p)| *p)
        .collect();
    let half: Vec<u32> = a_pages.iter().step_by(2).copied().collect();
    for chunk in half.chunks(32) {
        run(&st, |m| {
            chunk
                .iter()
                .try_for_each(|p| free_segment_page(m, space, a, *p))
        })
        .expect("free");
    }
    assert_eq!(
        run(&st, |m| segment_page_count(m, space, a)).expect("count"),
        (a_pages.len() - half.len()) as u32
    );
    healthy(&st, space);
    for chunk in frag.chunks(32) {
        run(&st, |m| {
            chunk.iter().try_for_each(|p| free_page(m, space, *p))
        })
        .expect("free");
    }
    drop_segment(&st, space, a);
    drop_segment(&st, space, b);
    healthy(&st, space);
    let u = usage(&st, space);
    let groups = u.size_pages.div_ceil(4096);
    assert_eq!(u.used_pages, groups + 1);
    assert_eq!(u.free_extents, u.extents - groups);
}

#[test]
fn drop_segment_returns_all_extents() {
    let ps = PageSize::K16;
    let (st, _vfs) = open(ps);
    let space = st
        .create_tablespace("test/t.ibd")
        .expect("create tablespace");
    let ppe = ps.pages_per_extent();
    let seg = run(&st, |m| create_segment(m, space)).expect("seg");
    let n = FRAG_SLOTS as u32 + 3 * ppe + 5;
    let pages = run(&st, |m| {
        (0..n)
            .map(|_| alloc_segment_page(m, space, seg))
            .collect::<Result<Vec<_>>>()
    })
    .expect("alloc");
    // The first 32 pages are fragment pages, then whole extents.
    let extents: std::collections::BTreeSet<u32> =
        pages[FRAG_SLOTS..].iter().map(|p| p / ppe).collect();
    assert_eq!(extents.len(), 4);
    let u = usage(&st, space);
    assert_eq!(u.segment_extents, 4);
    assert_eq!(
        run(&st, |m| segment_page_count(m, space, seg)).expect("count"),
        n
    );
    healthy(&st, space);
    // One extent per step, then fragment pages and the inode together.
    assert_eq!(drop_segment(&st, space, seg), 5);
    let u = usage(&st, space);
    assert_eq!((u.segments, u.segment_extents, u.used_pages), (0, 0, 2));
    assert_eq!(u.free_extents, u.extents - 1);
    healthy(&st, space);
    // Many segments: inode pages are added and freed again.
    let per_page = u32::from(inodes_per_page(ps));
    let segs: Vec<SegmentRef> = (0..2 * per_page + 3)
        .map(|_| run(&st, |m| create_segment(m, space)).expect("seg"))
        .collect();
    assert_eq!(usage(&st, space).inode_pages, 3);
    healthy(&st, space);
    for s in &segs {
        run(&st, |m| alloc_segment_page(m, space, *s)).expect("alloc");
    }
    for s in segs.iter().rev() {
        drop_segment(&st, space, *s);
    }
    let u = usage(&st, space);
    assert_eq!((u.segments, u.inode_pages, u.used_pages), (0, 1, 2));
    healthy(&st, space);
}

#[test]
fn concurrent_allocation_in_one_space() {
    let ps = PageSize::K8;
    let (st, _vfs) = open(ps);
    let space = st
        .create_tablespace("test/c.ibd")
        .expect("create tablespace");
    let per_thread: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let st = &st;
                s.spawn(move || {
                    let seg = run(st, |m| create_segment(m, space)).expect("seg");
                    let mut mine = Vec::new();
                    for i in 0..400 {
                        let p = run(st, |m| {
                            let p = if i % 7 == t {
                                alloc_page(m, space)?
                            } else {
                                alloc_segment_page(m, space, seg)?
                            };
                            m.new_page(PageId::new(space, p), PageType::Test)?;
                            Ok(p)
                        })
                        .expect("alloc");
                        mine.push(p);
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut all: Vec<u32> = per_thread.concat();
    assert_eq!(all.len(), 1600);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 1600, "a page was handed out twice");
    healthy(&st, space);
    let u = usage(&st, space);
    assert_eq!(u.used_pages, 1600 + system_pages(&u, ps));
}
