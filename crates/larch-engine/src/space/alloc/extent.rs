//! Extent descriptors and the space-level extent lists (FREE, FREE_FRAG,
//! FULL_FRAG): initialising extents, growing the file, fragment pages.
//!
//! An extent descriptor entry (layout in `docs/tablespace-format.md`) holds the
//! owning segment id, the extent state, a list node and one bit per page
//! (1 = used). Descriptors of group `g` live on page `g * pages_per_group` at
//! `XDES_START + (e % extents_per_group) * entry_size`.
//!
//! Invariants (checked by `check_space`):
//! - FREE: no bits set, segment id 0, on the space FREE list;
//! - FREE_FRAG: some but not all bits set, on the FREE_FRAG list;
//! - FULL_FRAG: all bits set, on the FULL_FRAG list;
//! - SEGMENT: owned by the segment named by the id, on exactly one of its
//!   FREE (no bits) / NOT_FULL (some) / FULL (all) lists;
//! - the extent holding a descriptor page (and pages 0 and 1 of the space) is a
//!   fragment extent with those pages marked used, so it is never FREE.

use super::header::{Addr, Ctx, SH_FREE, SH_FREE_FRAG, SH_FULL_FRAG};
use super::list::{self, Kind, List};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::page::{bytes, PageId, PageType, FIL_NULL};

pub const XDES_SEG_ID: usize = 0;
pub const XDES_STATE: usize = 8;
pub const XDES_NODE: usize = 12;
pub const XDES_BITMAP: usize = XDES_NODE + list::NODE_SIZE;

/// Extent states stored in the descriptor (0 = not initialised).
pub const ST_FREE: u8 = 1;
pub const ST_FREE_FRAG: u8 = 2;
pub const ST_FULL_FRAG: u8 = 3;
pub const ST_SEGMENT: u8 = 4;

/// Human-readable state name.
pub fn state_name(s: u8) -> &'static str {
    match s {
        0 => "UNINITIALISED",
        ST_FREE => "FREE",
        ST_FREE_FRAG => "FREE_FRAG",
        ST_FULL_FRAG => "FULL_FRAG",
        ST_SEGMENT => "SEGMENT",
        _ => "INVALID",
    }
}

pub fn free_list() -> List {
    List::new(Addr::new(0, SH_FREE), Kind::Extent)
}
pub fn free_frag_list() -> List {
    List::new(Addr::new(0, SH_FREE_FRAG), Kind::Extent)
}
pub fn full_frag_list() -> List {
    List::new(Addr::new(0, SH_FULL_FRAG), Kind::Extent)
}

/// A snapshot of one descriptor entry.
#[derive(Debug, Clone)]
pub struct Xdes {
    pub extent: u32,
    pub addr: Addr,
    pub seg_id: u64,
    pub state: u8,
    pub bits: Vec<u8>,
    pub ppe: u32,
}

impl Xdes {
    pub fn is_used(&self, i: u32) -> bool {
        self.bits[(i / 8) as usize] & (1 << (i % 8)) != 0
    }
    /// Number of used pages.
    pub fn used(&self) -> u32 {
        self.bits.iter().map(|b| b.count_ones()).sum()
    }
    pub fn is_full(&self) -> bool {
        self.used() == self.ppe
    }
    pub fn is_empty(&self) -> bool {
        self.used() == 0
    }
    /// Index of the first unused page.
    pub fn first_free(&self) -> Option<u32> {
        (0..self.ppe).find(|&i| !self.is_used(i))
    }
}

/// Reads the descriptor of extent `e` (below `free_limit`, or the extent
/// being initialised by [`fill_free_list`]).
pub fn read(mtr: &mut Mtr<'_>, ctx: &Ctx, e: u32) -> Result<Xdes> {
    let addr = ctx.xdes_addr(e);
    let r = ctx.latch(mtr, addr.page)?;
    let d = mtr.data(r);
    let nbytes = ctx.xsize - XDES_BITMAP;
    Ok(Xdes {
        extent: e,
        addr,
        seg_id: bytes::get_u64(d, addr.off + XDES_SEG_ID),
        state: d[addr.off + XDES_STATE],
        bits: d[addr.off + XDES_BITMAP..addr.off + XDES_BITMAP + nbytes].to_vec(),
        ppe: ctx.ppe,
    })
}

/// Sets or clears the used bit of page index `i` of the extent.
pub fn set_bit(mtr: &mut Mtr<'_>, ctx: &Ctx, x: &mut Xdes, i: u32, used: bool) -> Result<()> {
    let byte = (i / 8) as usize;
    let mask = 1u8 << (i % 8);
    if used {
        x.bits[byte] |= mask;
    } else {
        x.bits[byte] &= !mask;
    }
    let r = ctx.latch(mtr, x.addr.page)?;
    mtr.write_u8(r, x.addr.off + XDES_BITMAP + byte, x.bits[byte]);
    Ok(())
}

/// Writes state and owner.
pub fn set_state(mtr: &mut Mtr<'_>, ctx: &Ctx, x: &mut Xdes, state: u8, seg_id: u64) -> Result<()> {
    x.state = state;
    x.seg_id = seg_id;
    let r = ctx.latch(mtr, x.addr.page)?;
    mtr.write_u8(r, x.addr.off + XDES_STATE, state);
    mtr.write_u64(r, x.addr.off + XDES_SEG_ID, seg_id);
    Ok(())
}

/// Clears every used bit (the extent's pages all become free).
pub fn clear_bits(mtr: &mut Mtr<'_>, ctx: &Ctx, x: &mut Xdes) -> Result<()> {
    let r = ctx.latch(mtr, x.addr.page)?;
    if x.bits.iter().any(|&b| b != 0) {
        mtr.memset(r, x.addr.off + XDES_BITMAP, x.bits.len(), 0);
    }
    x.bits.fill(0);
    Ok(())
}

/// Initialises the extents in `[free_limit, limit)` and puts them on the FREE
/// list (or FREE_FRAG for extents holding a descriptor page). Creates the
/// descriptor page of every group entered. `limit <= size_pages`.
pub fn fill_free_list(mtr: &mut Mtr<'_>, ctx: &mut Ctx, limit: u32) -> Result<()> {
    let mut e = ctx.n_extents();
    while e < limit / ctx.ppe {
        let first_page = e * ctx.ppe;
        if first_page != 0 && ctx.is_descriptor_page(first_page) {
            mtr.new_page(
                PageId::new(ctx.space, first_page),
                PageType::ExtentDescriptor,
            )?;
        }
        let addr = ctx.xdes_addr(e);
        let r = ctx.latch(mtr, addr.page)?;
        // Fresh descriptor entry: no owner, no bits, unlinked.
        mtr.write_u64(r, addr.off + XDES_SEG_ID, 0);
        mtr.write_bytes(r, addr.off + XDES_STATE, &[0; 4]);
        mtr.write_u32(r, addr.off + XDES_NODE, FIL_NULL);
        mtr.write_u32(r, addr.off + XDES_NODE + 4, FIL_NULL);
        let zero = vec![0u8; ctx.xsize - XDES_BITMAP];
        mtr.write_bytes(r, addr.off + XDES_BITMAP, &zero);
        // The extent becomes visible to list code once free_limit covers it.
        ctx.set_free_limit(mtr, first_page + ctx.ppe);
        let mut x = read(mtr, ctx, e)?;
        if ctx.is_descriptor_page(first_page) {
            set_bit(mtr, ctx, &mut x, 0, true)?;
            if e == 0 {
                // Page 1: the first inode page.
                set_bit(mtr, ctx, &mut x, 1, true)?;
            }
            set_state(mtr, ctx, &mut x, ST_FREE_FRAG, 0)?;
            list::add_last(mtr, ctx, free_frag_list(), e)?;
        } else {
            set_state(mtr, ctx, &mut x, ST_FREE, 0)?;
            list::add_last(mtr, ctx, free_list(), e)?;
        }
        e += 1;
    }
    Ok(())
}

/// Grows the space by the next increment (file first, then header and lists).
fn grow(mtr: &mut Mtr<'_>, ctx: &mut Ctx) -> Result<()> {
    let Some(new) = super::header::next_size(ctx.ps, ctx.size) else {
        return Err(crate::EngineError::SpaceFull {
            space: ctx.space,
            reason: format!(
                "tablespace reached its maximum of {} pages",
                super::header::max_size(ctx.ps)
            ),
        });
    };
    let physical = mtr.pool().spaces().size_pages(ctx.space)?;
    if physical < new {
        mtr.extend_space(ctx.space, new)?;
    }
    ctx.set_size(mtr, new);
    fill_free_list(mtr, ctx, new)
}

/// Takes an extent off the space FREE list (initialising or growing as
/// needed). The caller sets its new state and links it elsewhere.
pub fn take_free_extent(mtr: &mut Mtr<'_>, ctx: &mut Ctx) -> Result<Xdes> {
    loop {
        if let Some(e) = list::first(mtr, ctx, free_list())? {
            let x = read(mtr, ctx, e)?;
            if x.state != ST_FREE || !x.is_empty() || x.seg_id != 0 {
                return Err(ctx.corrupt(
                    x.addr.page,
                    format!(
                        "extent {e} on the FREE list is {} with {} used pages",
                        state_name(x.state),
                        x.used()
                    ),
                ));
            }
            list::remove(mtr, ctx, free_list(), e)?;
            return Ok(x);
        }
        if ctx.free_limit < ctx.size {
            let size = ctx.size;
            fill_free_list(mtr, ctx, size)?;
        } else {
            grow(mtr, ctx)?;
        }
    }
}

/// Allocates one fragment page from a FREE_FRAG extent.
pub fn alloc_frag_page(mtr: &mut Mtr<'_>, ctx: &mut Ctx) -> Result<u32> {
    let mut x = match list::first(mtr, ctx, free_frag_list())? {
        Some(e) => read(mtr, ctx, e)?,
        None => {
            let mut x = take_free_extent(mtr, ctx)?;
            set_state(mtr, ctx, &mut x, ST_FREE_FRAG, 0)?;
            list::add_last(mtr, ctx, free_frag_list(), x.extent)?;
            x
        }
    };
    let e = x.extent;
    let i = match (x.state, x.first_free()) {
        (ST_FREE_FRAG, Some(i)) => i,
        _ => {
            return Err(ctx.corrupt(
                x.addr.page,
                format!(
                    "extent {e} on the FREE_FRAG list is {} with {} used pages",
                    state_name(x.state),
                    x.used()
                ),
            ))
        }
    };
    set_bit(mtr, ctx, &mut x, i, true)?;
    if x.is_full() {
        list::remove(mtr, ctx, free_frag_list(), e)?;
        set_state(mtr, ctx, &mut x, ST_FULL_FRAG, 0)?;
        list::add_last(mtr, ctx, full_frag_list(), e)?;
    }
    Ok(e * ctx.ppe + i)
}

/// Reads and checks the descriptor of a fragment page about to be freed.
pub fn check_frag_page(mtr: &mut Mtr<'_>, ctx: &Ctx, page: u32) -> Result<Xdes> {
    if page >= ctx.free_limit {
        return Err(ctx.corrupt(
            page,
            format!(
                "cannot free page {page}: beyond the space's {} initialised pages",
                ctx.free_limit
            ),
        ));
    }
    if ctx.is_descriptor_page(page) || page == 1 {
        return Err(ctx.corrupt(
            page,
            "cannot free a space header, descriptor or first inode page",
        ));
    }
    let x = read(mtr, ctx, page / ctx.ppe)?;
    if x.state != ST_FREE_FRAG && x.state != ST_FULL_FRAG {
        return Err(ctx.corrupt(
            page,
            format!(
                "freeing page {page} as a fragment page, but extent {} is {}",
                x.extent,
                state_name(x.state)
            ),
        ));
    }
    if !x.is_used(page % ctx.ppe) {
        return Err(ctx.corrupt(page, format!("double free: page {page} is already free")));
    }
    Ok(x)
}

/// Frees a fragment page: FULL_FRAG -> FREE_FRAG, an emptied extent -> FREE.
pub fn free_frag_page(mtr: &mut Mtr<'_>, ctx: &Ctx, page: u32) -> Result<()> {
    let mut x = check_frag_page(mtr, ctx, page)?;
    let e = x.extent;
    let was_full = x.state == ST_FULL_FRAG;
    set_bit(mtr, ctx, &mut x, page % ctx.ppe, false)?;
    if was_full {
        list::remove(mtr, ctx, full_frag_list(), e)?;
    }
    if x.is_empty() {
        if !was_full {
            list::remove(mtr, ctx, free_frag_list(), e)?;
        }
        set_state(mtr, ctx, &mut x, ST_FREE, 0)?;
        list::add_last(mtr, ctx, free_list(), e)?;
    } else if was_full {
        set_state(mtr, ctx, &mut x, ST_FREE_FRAG, 0)?;
        list::add_last(mtr, ctx, free_frag_list(), e)?;
    }
    Ok(())
}
