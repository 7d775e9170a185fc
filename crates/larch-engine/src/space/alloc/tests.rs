//! Tests of page allocation: pure layout checks, and randomized workloads
//! against a whole engine (`Storage`) on the simulated file system, checked
//! against an in-memory model (which page belongs to whom) and `check_space`.
//!
//! This file holds the shared helpers and the layout tests; `tests/workload.rs`
//! the randomized and growth workloads, `tests/errors.rs` misuse, faults,
//! corruption and crash recovery.

mod errors;
mod workload;

use std::sync::Arc;

use super::extent::XDES_BITMAP;
use super::header::{xdes_size, SH_END, XDES_START};
use super::inode::{inodes_per_page, slot_offset, INODES_START, INODE_SIZE, IN_MAGIC};
use super::*;
use crate::config::EngineConfig;
use crate::io::SimVfs;
use crate::page::{self, PageSize};
use crate::storage::Storage;

fn config(ps: PageSize) -> EngineConfig {
    let mut cfg = EngineConfig::new("/data");
    cfg.page_size = Some(ps);
    cfg.buffer_pool_size = 32 << 20;
    cfg
}

fn open(ps: PageSize) -> (Storage, SimVfs) {
    let vfs = SimVfs::new();
    let st = Storage::create(config(ps), Arc::new(vfs.clone())).expect("create storage");
    (st, vfs)
}

/// Runs `f` in one mini-transaction and commits it.
fn run<T>(st: &Storage, f: impl FnOnce(&mut Mtr<'_>) -> Result<T>) -> Result<T> {
    let mut mtr = st.mtr()?;
    let r = f(&mut mtr);
    mtr.commit()?;
    r
}

fn healthy(st: &Storage, space: u32) {
    let problems = run(st, |m| check_space(m, space)).expect("check_space");
    assert!(problems.is_empty(), "check_space found: {problems:#?}");
}

fn usage(st: &Storage, space: u32) -> SpaceUsage {
    run(st, |m| space_usage(m, space)).expect("space_usage")
}

fn drop_segment(st: &Storage, space: u32, seg: SegmentRef) -> u32 {
    let mut steps = 0;
    while !run(st, |m| drop_segment_step(m, space, seg)).expect("drop step") {
        steps += 1;
        assert!(steps < 100_000, "drop_segment_step never finishes");
    }
    steps + 1
}

/// Pages used by the allocator itself: page 0, descriptor pages, inode pages.
fn system_pages(u: &SpaceUsage, ps: PageSize) -> u32 {
    u.size_pages.div_ceil(ps.pages_per_group()) + u.inode_pages
}

#[test]
fn layout_fits_every_page_size() {
    const {
        assert!(SH_END <= XDES_START);
        assert!(IN_MAGIC + 4 <= INODE_SIZE);
        assert!(INODES_START >= page::HEADER_SIZE + 8);
    }
    let want_epg = [16, 64, 256, 512, 1024];
    for (ps, epg) in PageSize::ALL.into_iter().zip(want_epg) {
        assert_eq!(ps.extents_per_group(), epg);
        let end = XDES_START + epg as usize * xdes_size(ps);
        assert!(
            end <= ps.bytes() - page::TRAILER_SIZE,
            "{ps}: {epg} descriptors end at {end}"
        );
        assert_eq!(
            xdes_size(ps) - XDES_BITMAP,
            ps.pages_per_extent() as usize / 8
        );
        let n = inodes_per_page(ps);
        assert!(n >= 21);
        assert!(slot_offset(n - 1) + INODE_SIZE <= ps.bytes() - page::TRAILER_SIZE);
    }
}

#[test]
fn segment_ref_round_trip() {
    for r in [
        SegmentRef {
            inode_page: 1,
            slot: 0,
        },
        SegmentRef {
            inode_page: 0x1234_5678,
            slot: 0xabcd,
        },
        SegmentRef {
            inode_page: u32::MAX,
            slot: u16::MAX,
        },
    ] {
        let b = r.to_bytes();
        assert_eq!(b.len(), SegmentRef::ENCODED_LEN);
        assert_eq!(SegmentRef::from_bytes(b), r);
    }
    assert_eq!(
        SegmentRef {
            inode_page: 0x0403_0201,
            slot: 0x0605
        }
        .to_bytes(),
        [1, 2, 3, 4, 5, 6]
    );
}

#[test]
fn growth_steps() {
    for ps in PageSize::ALL {
        let ppe = ps.pages_per_extent();
        assert_eq!(header::next_size(ps, ppe), Some(2 * ppe));
        assert_eq!(header::next_size(ps, 31 * ppe), Some(32 * ppe));
        assert_eq!(header::next_size(ps, 32 * ppe), Some(36 * ppe));
        let max = header::max_size(ps);
        assert_eq!(u64::from(max) + u64::from(ppe), 1 << 32);
        assert_eq!(header::next_size(ps, max - ppe), Some(max));
        assert_eq!(header::next_size(ps, max), None);
    }
}

#[test]
fn new_space_every_page_size() {
    for ps in PageSize::ALL {
        let (st, _vfs) = open(ps);
        let space = st
            .create_tablespace("test/t1.ibd")
            .expect("create tablespace");
        let u = usage(&st, space);
        assert_eq!(u.size_pages, ps.pages_per_extent());
        assert_eq!(
            (u.used_pages, u.free_frag_extents, u.free_extents),
            (2, 1, 0)
        );
        assert_eq!((u.segments, u.inode_pages), (0, 1));
        for (p, used) in [(0, true), (1, true), (2, false), (u32::MAX, false)] {
            assert_eq!(run(&st, |m| page_is_used(m, space, p)).expect("used"), used);
        }
        healthy(&st, space);
        // The system and undo spaces were formatted by the same code.
        for s in st.spaces().ids() {
            healthy(&st, s);
        }
    }
}
