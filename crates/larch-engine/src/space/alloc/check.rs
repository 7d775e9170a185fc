//! Read-only inspection of the allocation structures: [`check_space`] (the
//! structural verification behind `larch check`) and [`space_usage`].
//!
//! Both X-latch page 0 first, like every allocation operation, so they see a
//! consistent snapshot; they change nothing. `check_space` never stops at the
//! first problem: it reports every inconsistency it can reach, each message
//! naming the page (and byte offset) where it was found. Only I/O errors and a
//! header too damaged to interpret are returned as `Err` / a single problem.

use std::collections::HashMap;

use super::extent::{self, Xdes, ST_FREE, ST_FREE_FRAG, ST_FULL_FRAG, ST_SEGMENT};
use super::header::{Ctx, SH_NEXT_SEG_ID};
use super::inode::{self, Inode, INODE_MAGIC, IN_MAGIC, IN_SEG_ID};
use super::list::{self, List};
use super::SpaceUsage;
use crate::error::Result;
use crate::mtr::Mtr;
use crate::page::{bytes, PageHeader, PageType, FIL_NULL};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    Empty,
    Partial,
    Full,
}

struct Checker<'c> {
    ctx: &'c Ctx,
    problems: Vec<String>,
    /// Which list each extent was found on.
    owner: Vec<Option<String>>,
}

impl Checker<'_> {
    fn xdes_where(&self, x: &Xdes) -> String {
        format!(
            "page {} offset {} (extent {})",
            x.addr.page, x.addr.off, x.extent
        )
    }

    /// Walks an extent list and checks each member; returns the used pages.
    fn extent_list(
        &mut self,
        mtr: &mut Mtr<'_>,
        name: &str,
        l: List,
        state: u8,
        seg_id: u64,
        fill: Fill,
    ) -> Result<u64> {
        let w = list::walk(mtr, self.ctx, l, name, self.ctx.n_extents())?;
        self.problems.extend(w.problems);
        let mut used = 0u64;
        for e in w.items {
            let x = extent::read(mtr, self.ctx, e)?;
            let at = self.xdes_where(&x);
            if let Some(prev) = &self.owner[e as usize] {
                self.problems
                    .push(format!("{at}: on the {name} list and on the {prev} list"));
                continue;
            }
            self.owner[e as usize] = Some(name.to_string());
            if x.state != state || x.seg_id != seg_id {
                self.problems.push(format!(
                    "{at}: on the {name} list but state {} segment {} (expected {} segment {seg_id})",
                    extent::state_name(x.state),
                    x.seg_id,
                    extent::state_name(state)
                ));
            }
            let n = x.used();
            let ok = match fill {
                Fill::Empty => n == 0,
                Fill::Partial => n > 0 && n < self.ctx.ppe,
                Fill::Full => n == self.ctx.ppe,
            };
            if !ok {
                self.problems.push(format!(
                    "{at}: on the {name} list with {n} of {} pages used",
                    self.ctx.ppe
                ));
            }
            used += u64::from(n);
        }
        Ok(used)
    }

    /// Checks that `page` is marked used in a fragment extent.
    fn frag_page_used(&mut self, mtr: &mut Mtr<'_>, page: u32, what: &str) -> Result<()> {
        if page >= self.ctx.free_limit {
            self.problems.push(format!(
                "{what}: page {page} is beyond the initialised space"
            ));
            return Ok(());
        }
        let x = extent::read(mtr, self.ctx, page / self.ctx.ppe)?;
        if x.state != ST_FREE_FRAG && x.state != ST_FULL_FRAG {
            self.problems.push(format!(
                "{what}: page {page} lies in extent {} which is {}, not a fragment extent",
                x.extent,
                extent::state_name(x.state)
            ));
        } else if !x.is_used(page % self.ctx.ppe) {
            self.problems
                .push(format!("{what}: page {page} is marked free"));
        }
        Ok(())
    }

    fn segment(
        &mut self,
        mtr: &mut Mtr<'_>,
        ino: &Inode,
        frag_seen: &mut HashMap<u32, String>,
    ) -> Result<()> {
        let ctx = self.ctx;
        let r = ctx.latch(mtr, ino.page)?;
        let d = mtr.data(r);
        let here = format!(
            "page {} slot {} (segment {})",
            ino.page, ino.slot, ino.seg_id
        );
        if bytes::get_u32(d, ino.off + IN_MAGIC) != INODE_MAGIC {
            self.problems.push(format!("{here}: bad inode magic"));
            return Ok(());
        }
        let s = ino.seg_id;
        self.extent_list(
            mtr,
            &format!("segment {s} FREE"),
            ino.free_list(),
            ST_SEGMENT,
            s,
            Fill::Empty,
        )?;
        let nf = self.extent_list(
            mtr,
            &format!("segment {s} NOT_FULL"),
            ino.not_full_list(),
            ST_SEGMENT,
            s,
            Fill::Partial,
        )?;
        self.extent_list(
            mtr,
            &format!("segment {s} FULL"),
            ino.full_list(),
            ST_SEGMENT,
            s,
            Fill::Full,
        )?;
        let counted = ino.not_full_used(mtr, ctx)?;
        if u64::from(counted) != nf {
            self.problems.push(format!(
                "{here}: NOT_FULL used-page count {counted}, but its extents use {nf} pages"
            ));
        }
        for (i, p) in ino.frags(mtr, ctx)?.into_iter().enumerate() {
            if p == FIL_NULL {
                continue;
            }
            let what = format!("{here} fragment slot {i}");
            if let Some(other) = frag_seen.insert(p, what.clone()) {
                self.problems
                    .push(format!("{what}: page {p} is also claimed by {other}"));
            }
            self.frag_page_used(mtr, p, &what)?;
        }
        Ok(())
    }
}

/// Structural verification of a space. See [`super::check_space`].
pub fn check_space(mtr: &mut Mtr<'_>, space: u32) -> Result<Vec<String>> {
    let ctx = match Ctx::open(mtr, space) {
        Ok(c) => c,
        Err(e) if e.is_corruption() => return Ok(vec![e.to_string()]),
        Err(e) => return Err(e),
    };
    let mut c = Checker {
        ctx: &ctx,
        problems: Vec::new(),
        owner: vec![None; ctx.n_extents() as usize],
    };
    let physical = mtr.pool().spaces().size_pages(space)?;
    if physical < ctx.size {
        c.problems.push(format!(
            "page 0: size_pages {} but the file has only {physical} pages",
            ctx.size
        ));
    }
    if ctx.free_limit != ctx.size {
        c.problems.push(format!(
            "page 0: free_limit {} differs from size_pages {} (extents are initialised eagerly)",
            ctx.free_limit, ctx.size
        ));
    }
    // Descriptor pages of every group.
    let mut g_page = 0u32;
    while g_page < ctx.free_limit {
        let r = ctx.latch(mtr, g_page)?;
        let ty = PageHeader(mtr.data(r)).page_type();
        let want = if g_page == 0 {
            PageType::SpaceHeader
        } else {
            PageType::ExtentDescriptor
        };
        if ty != Some(want) {
            c.problems.push(format!(
                "page {g_page}: descriptor page has type {ty:?}, expected {want:?}"
            ));
        }
        g_page = match g_page.checked_add(ctx.ppg) {
            Some(p) => p,
            None => break,
        };
    }
    c.extent_list(mtr, "FREE", extent::free_list(), ST_FREE, 0, Fill::Empty)?;
    c.extent_list(
        mtr,
        "FREE_FRAG",
        extent::free_frag_list(),
        ST_FREE_FRAG,
        0,
        Fill::Partial,
    )?;
    c.extent_list(
        mtr,
        "FULL_FRAG",
        extent::full_frag_list(),
        ST_FULL_FRAG,
        0,
        Fill::Full,
    )?;

    // Inode pages and segments.
    let next_seg_id = bytes::get_u64(mtr.data(ctx.hdr), SH_NEXT_SEG_ID);
    let per_page = inode::inodes_per_page(ctx.ps);
    let mut inode_pages: HashMap<u32, &str> = HashMap::new();
    let mut seg_ids: HashMap<u64, String> = HashMap::new();
    let mut frag_seen: HashMap<u32, String> = HashMap::new();
    for (name, l, want_full) in [
        ("FREE_INODE", inode::free_inode_list(), false),
        ("FULL_INODE", inode::full_inode_list(), true),
    ] {
        let w = list::walk(mtr, &ctx, l, name, ctx.free_limit)?;
        c.problems.extend(w.problems);
        for p in w.items {
            if let Some(prev) = inode_pages.insert(p, name) {
                c.problems.push(format!(
                    "page {p}: inode page on the {name} and {prev} lists"
                ));
                continue;
            }
            let r = ctx.latch(mtr, p)?;
            let ty = PageHeader(mtr.data(r)).page_type();
            if ty != Some(PageType::Inode) {
                c.problems
                    .push(format!("page {p}: on the {name} list but has type {ty:?}"));
                continue;
            }
            c.frag_page_used(mtr, p, &format!("inode page {p}"))?;
            let d = mtr.data(r);
            let used = inode::used_slots(d, ctx.ps);
            if (used == per_page) != want_full {
                c.problems.push(format!(
                    "page {p}: inode page with {used} of {per_page} slots used is on the {name} list"
                ));
            }
            let mut inodes = Vec::new();
            for slot in 0..per_page {
                let off = inode::slot_offset(slot);
                let seg_id = bytes::get_u64(d, off + IN_SEG_ID);
                if seg_id != 0 {
                    inodes.push(Inode {
                        page: p,
                        slot,
                        off,
                        seg_id,
                    });
                }
            }
            for ino in inodes {
                let here = format!("page {p} slot {}", ino.slot);
                if ino.seg_id >= next_seg_id {
                    c.problems.push(format!(
                        "{here}: segment id {} not below the space's next id {next_seg_id}",
                        ino.seg_id
                    ));
                }
                if let Some(other) = seg_ids.insert(ino.seg_id, here.clone()) {
                    c.problems.push(format!(
                        "{here}: segment id {} also used at {other}",
                        ino.seg_id
                    ));
                    continue;
                }
                c.segment(mtr, &ino, &mut frag_seen)?;
            }
        }
    }
    if ctx.free_limit > 1 && !inode_pages.contains_key(&1) {
        c.problems
            .push("page 1: the first inode page is on no inode list".to_string());
    }
    for (p, what) in &frag_seen {
        if inode_pages.contains_key(p) || ctx.is_descriptor_page(*p) {
            c.problems
                .push(format!("{what}: page {p} is a descriptor or inode page"));
        }
    }
    for e in 0..ctx.n_extents() {
        if c.owner[e as usize].is_none() {
            let x = extent::read(mtr, &ctx, e)?;
            c.problems.push(format!(
                "{}: state {} segment {} but on no list",
                c.xdes_where(&x),
                extent::state_name(x.state),
                x.seg_id
            ));
        }
    }
    Ok(c.problems)
}

/// Counts of the space's extents, pages and segments.
pub fn space_usage(mtr: &mut Mtr<'_>, space: u32) -> Result<SpaceUsage> {
    let ctx = Ctx::open(mtr, space)?;
    let free_extents = list::base(mtr, &ctx, extent::free_list())?.len;
    let free_frag_extents = list::base(mtr, &ctx, extent::free_frag_list())?.len;
    let full_frag_extents = list::base(mtr, &ctx, extent::full_frag_list())?.len;
    let mut used_pages = 0u32;
    for e in 0..ctx.n_extents() {
        used_pages += extent::read(mtr, &ctx, e)?.used();
    }
    let inodes = inode::all_inodes(mtr, &ctx)?;
    let inode_pages = inode::inode_pages(mtr, &ctx)?.len() as u32;
    Ok(SpaceUsage {
        size_pages: ctx.size,
        free_limit: ctx.free_limit,
        extents: ctx.n_extents(),
        free_extents,
        free_frag_extents,
        full_frag_extents,
        segment_extents: ctx.n_extents().saturating_sub(
            free_extents
                .saturating_add(free_frag_extents)
                .saturating_add(full_frag_extents),
        ),
        used_pages,
        free_pages: ctx.free_limit.saturating_sub(used_pages),
        segments: inodes.len() as u32,
        inode_pages,
    })
}
