//! Misuse, faults and damage: wrong frees, a full disk, deliberately corrupted
//! structures reported by `check_space`, and recovery after a crash.

use std::sync::Arc;

use super::super::extent::{XDES_BITMAP, XDES_NODE};
use super::super::header::{xdes_size, SH_FREE, SH_FREE_FRAG, XDES_START};
use super::super::inode::{slot_offset, IN_FRAG};
use super::super::list::{BASE_LEN, NODE_NEXT};
use super::super::*;
use super::{config, healthy, open, run, usage};
use crate::buffer::Latch;
use crate::io::SimFault;
use crate::page::{self, PageSize};
use crate::storage::Storage;

/// A call expected to fail.
type BadCall = Box<dyn Fn(&mut Mtr<'_>) -> Result<()>>;

#[test]
fn wrong_frees_are_errors_and_change_nothing() {
    let (st, _vfs) = open(PageSize::K8);
    let space = st
        .create_tablespace("test/t.ibd")
        .expect("create tablespace");
    let s1 = run(&st, |m| create_segment(m, space)).expect("seg");
    let s2 = run(&st, |m| create_segment(m, space)).expect("seg");
    let frag = run(&st, |m| alloc_page(m, space)).expect("alloc");
    let s1_pages = run(&st, |m| {
        (0..40)
            .map(|_| alloc_segment_page(m, space, s1))
            .collect::<Result<Vec<_>>>()
    })
    .expect("alloc");
    let s1_frag = s1_pages[0];
    let s1_ext = s1_pages[39];
    let free = run(&st, |m| alloc_page(m, space)).expect("alloc");
    run(&st, |m| free_page(m, space, free)).expect("free");
    let before = usage(&st, space);
    let bad: Vec<(&str, BadCall)> = vec![
        ("double free", Box::new(move |m| free_page(m, space, free))),
        ("page 0", Box::new(move |m| free_page(m, space, 0))),
        ("inode page", Box::new(move |m| free_page(m, space, 1))),
        ("past end", Box::new(move |m| free_page(m, space, 1 << 30))),
        (
            "segment frag as frag",
            Box::new(move |m| free_page(m, space, s1_frag)),
        ),
        (
            "segment extent page as frag",
            Box::new(move |m| free_page(m, space, s1_ext)),
        ),
        (
            "frag page via segment",
            Box::new(move |m| free_segment_page(m, space, s1, frag)),
        ),
        (
            "other segment's page",
            Box::new(move |m| free_segment_page(m, space, s2, s1_ext)),
        ),
        (
            "other segment's frag",
            Box::new(move |m| free_segment_page(m, space, s2, s1_frag)),
        ),
        (
            "free page via segment",
            Box::new(move |m| free_segment_page(m, space, s1, free)),
        ),
        (
            "bad slot",
            Box::new(move |m| {
                alloc_segment_page(
                    m,
                    space,
                    SegmentRef {
                        inode_page: 1,
                        slot: 7,
                    },
                )
                .map(|_| ())
            }),
        ),
        (
            "bad inode page",
            Box::new(move |m| {
                segment_page_count(
                    m,
                    space,
                    SegmentRef {
                        inode_page: 0,
                        slot: 0,
                    },
                )
                .map(|_| ())
            }),
        ),
    ];
    for (what, f) in bad {
        let mut mtr = st.mtr().expect("mtr");
        let r = f(&mut mtr);
        assert!(!mtr.is_dirty(), "{what}: failed call changed pages");
        mtr.commit().expect("commit");
        match r {
            Err(e) => assert!(e.is_corruption(), "{what}: {e}"),
            Ok(()) => panic!("{what}: accepted"),
        }
    }
    assert_eq!(usage(&st, space), before);
    run(&st, |m| free_segment_page(m, space, s1, s1_ext)).expect("free");
    let e = run(&st, |m| free_segment_page(m, space, s1, s1_ext)).expect_err("double free");
    assert!(e.to_string().contains("double free"), "{e}");
    healthy(&st, space);
}

#[test]
fn disk_full_leaves_space_consistent() {
    let ps = PageSize::K16;
    let (st, vfs) = open(ps);
    let space = st
        .create_tablespace("test/t.ibd")
        .expect("create tablespace");
    st.flush_all().expect("flush");
    vfs.set_fault(Some(SimFault::DiskFull { limit_bytes: 0 }));
    let mut got = 0;
    let err = loop {
        match run(&st, |m| alloc_page(m, space)) {
            Ok(_) => got += 1,
            Err(e) => break e,
        }
        assert!(got < 1000);
    };
    assert_eq!(got, ps.pages_per_extent() - 2);
    assert!(matches!(err, EngineError::DiskFull { .. }), "{err}");
    healthy(&st, space);
    vfs.set_fault(None);
    let p = run(&st, |m| alloc_page(m, space)).expect("alloc after space freed");
    assert_eq!(p / ps.pages_per_extent(), 1);
    healthy(&st, space);
}

#[test]
fn check_space_reports_corruption() {
    let ps = PageSize::K16;
    let (st, _vfs) = open(ps);
    let ppe = ps.pages_per_extent();

    // A list length that disagrees with the list.
    let space = st
        .create_tablespace("test/a.ibd")
        .expect("create tablespace");
    let seg = run(&st, |m| create_segment(m, space)).expect("seg");
    run(&st, |m| {
        (0..100).try_for_each(|_| alloc_segment_page(m, space, seg).map(|_| ()))
    })
    .expect("alloc");
    healthy(&st, space);
    run(&st, |m| {
        let r = m.page(PageId::new(space, 0), Latch::Exclusive)?;
        m.write_u32(r, SH_FREE_FRAG + BASE_LEN, 7);
        Ok(())
    })
    .expect("corrupt");
    let p = run(&st, |m| check_space(m, space)).expect("check");
    assert!(
        p.iter()
            .any(|s| s.contains("page 0") && s.contains("length 7")),
        "{p:#?}"
    );

    // A used bit in a FREE extent.
    let space = st
        .create_tablespace("test/b.ibd")
        .expect("create tablespace");
    let got = run(&st, |m| {
        (0..ppe + 10)
            .map(|_| alloc_page(m, space))
            .collect::<Result<Vec<_>>>()
    })
    .expect("alloc");
    let second: Vec<u32> = got.into_iter().filter(|p| *p >= ppe).collect();
    assert_eq!(second.len(), 12);
    run(&st, |m| {
        second.iter().try_for_each(|p| free_page(m, space, *p))
    })
    .expect("free");
    healthy(&st, space);
    let u = usage(&st, space);
    assert!(u.free_extents > 0);
    run(&st, |m| {
        let first = {
            let r = m.page(PageId::new(space, 0), Latch::Exclusive)?;
            page::bytes::get_u32(m.data(r), SH_FREE + 4)
        };
        let r = m.page(PageId::new(space, 0), Latch::Exclusive)?;
        let off = XDES_START + first as usize * xdes_size(ps) + XDES_BITMAP;
        m.write_u8(r, off, 0x10);
        Ok(())
    })
    .expect("corrupt");
    let p = run(&st, |m| check_space(m, space)).expect("check");
    assert!(
        p.iter()
            .any(|s| s.contains("page 0 offset") && s.contains("FREE list with 1 of")),
        "{p:#?}"
    );

    // A fragment slot naming a free page, and a cycle in a list.
    let space = st
        .create_tablespace("test/c.ibd")
        .expect("create tablespace");
    let seg = run(&st, |m| create_segment(m, space)).expect("seg");
    run(&st, |m| alloc_segment_page(m, space, seg)).expect("alloc");
    run(&st, |m| {
        let r = m.page(PageId::new(space, seg.inode_page), Latch::Exclusive)?;
        m.write_u32(r, slot_offset(seg.slot) + IN_FRAG + 4, 40);
        Ok(())
    })
    .expect("corrupt");
    let p = run(&st, |m| check_space(m, space)).expect("check");
    assert!(
        p.iter()
            .any(|s| s.contains("page 1 slot 0") && s.contains("page 40 is marked free")),
        "{p:#?}"
    );
    run(&st, |m| {
        let r = m.page(PageId::new(space, 0), Latch::Exclusive)?;
        // Extent 0 (the only FREE_FRAG extent) points to itself.
        m.write_u32(r, XDES_START + XDES_NODE + NODE_NEXT, 0);
        Ok(())
    })
    .expect("corrupt");
    let p = run(&st, |m| check_space(m, space)).expect("check");
    assert!(
        p.iter().any(|s| s.contains("cycle") || s.contains("prev")),
        "{p:#?}"
    );
    // Allocation on the damaged space reports corruption instead of looping.
    let e = run(&st, |m| {
        let r = m.page(PageId::new(space, 0), Latch::Exclusive)?;
        m.write_u32(r, SH_FREE_FRAG + BASE_LEN, 0);
        Ok(())
    })
    .and_then(|()| run(&st, |m| alloc_page(m, space)));
    assert!(matches!(e, Err(ref err) if err.is_corruption()), "{e:?}");
}

#[test]
fn allocations_survive_crash_and_recovery() {
    let ps = PageSize::K8;
    let (st, vfs) = open(ps);
    let space = st
        .create_tablespace("test/t.ibd")
        .expect("create tablespace");
    let seg = run(&st, |m| create_segment(m, space)).expect("seg");
    let mut pages = Vec::new();
    for _ in 0..20 {
        let mut mtr = st.mtr().expect("mtr");
        for _ in 0..25 {
            pages.push(alloc_segment_page(&mut mtr, space, seg).expect("alloc"));
        }
        pages.push(alloc_page(&mut mtr, space).expect("alloc"));
        let end = mtr.commit().expect("commit");
        st.log().flush_up_to(end).expect("flush log");
    }
    st.abandon();
    vfs.crash_drop_unsynced();
    let st = Storage::open(config(ps), Arc::new(vfs.clone())).expect("recover");
    healthy(&st, space);
    for p in &pages {
        assert!(
            run(&st, |m| page_is_used(m, space, *p)).expect("used"),
            "page {p} lost"
        );
    }
    assert_eq!(
        run(&st, |m| segment_page_count(m, space, seg)).expect("count"),
        500
    );
}
