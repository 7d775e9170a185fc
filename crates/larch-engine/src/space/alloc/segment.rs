//! Page allocation inside segments.
//!
//! A segment first takes single fragment pages from the space's FREE_FRAG
//! extents (recorded in its 32 inode slots) while it uses fewer than
//! [`FRAG_SLOTS`] pages; after that it allocates from whole extents it owns:
//! first its NOT_FULL extents, then its FREE extents, then a FREE extent of the
//! space moved to it (growing the file if needed).
//!
//! Invariants of an inode (checked by `check_space`):
//! - every extent on its FREE / NOT_FULL / FULL list has state SEGMENT and its
//!   segment id, with no / some / all pages used respectively;
//! - `not_full_used` equals the used pages of its NOT_FULL extents;
//! - every non-empty fragment slot names a used page of a fragment extent, and
//!   no page is named twice.
//!
//! A segment extent that becomes empty goes straight back to the space's FREE
//! list, so the segment FREE list is normally empty; it is still honoured.

use super::extent::{self, Xdes, ST_FREE, ST_SEGMENT};
use super::header::{Ctx, FRAG_SLOTS};
use super::inode::{self, Inode};
use super::list::{self, List};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::page::FIL_NULL;

/// Reads extent `e` and checks that it belongs to the segment.
fn owned_extent(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode, e: u32) -> Result<Xdes> {
    let x = extent::read(mtr, ctx, e)?;
    if x.state != ST_SEGMENT || x.seg_id != ino.seg_id {
        return Err(ctx.corrupt(
            x.addr.page,
            format!(
                "extent {e} is listed by segment {} but is {} of segment {}",
                ino.seg_id,
                extent::state_name(x.state),
                x.seg_id
            ),
        ));
    }
    Ok(x)
}

fn bad_count(ctx: &Ctx, ino: &Inode) -> crate::EngineError {
    ctx.corrupt(
        ino.page,
        format!("segment {} has an inconsistent used-page count", ino.seg_id),
    )
}

/// Allocates the first free page of a NOT_FULL extent of the segment.
fn alloc_in_extent(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode, e: u32) -> Result<u32> {
    let mut x = owned_extent(mtr, ctx, ino, e)?;
    let Some(i) = x.first_free() else {
        return Err(ctx.corrupt(
            x.addr.page,
            format!("extent {e} on a NOT_FULL list is full"),
        ));
    };
    let used = ino.not_full_used(mtr, ctx)?;
    let mut used = used.checked_add(1).ok_or_else(|| bad_count(ctx, ino))?;
    extent::set_bit(mtr, ctx, &mut x, i, true)?;
    if x.is_full() {
        used = used
            .checked_sub(ctx.ppe)
            .ok_or_else(|| bad_count(ctx, ino))?;
        list::remove(mtr, ctx, ino.not_full_list(), e)?;
        list::add_last(mtr, ctx, ino.full_list(), e)?;
    }
    ino.set_not_full_used(mtr, ctx, used)?;
    Ok(e * ctx.ppe + i)
}

/// Pages the segment uses: fragment pages plus used pages of its extents.
pub fn page_count(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode) -> Result<u32> {
    let frags = ino
        .frags(mtr, ctx)?
        .iter()
        .filter(|&&p| p != FIL_NULL)
        .count() as u64;
    let not_full = u64::from(ino.not_full_used(mtr, ctx)?);
    let full = u64::from(list::base(mtr, ctx, ino.full_list())?.len) * u64::from(ctx.ppe);
    u32::try_from(frags + not_full + full).map_err(|_| bad_count(ctx, ino))
}

/// Allocates one page for the segment.
pub fn alloc(mtr: &mut Mtr<'_>, ctx: &mut Ctx, ino: &Inode) -> Result<u32> {
    if let Some(e) = list::first(mtr, ctx, ino.not_full_list())? {
        return alloc_in_extent(mtr, ctx, ino, e);
    }
    if let Some(e) = list::first(mtr, ctx, ino.free_list())? {
        let x = owned_extent(mtr, ctx, ino, e)?;
        if !x.is_empty() {
            return Err(ctx.corrupt(
                x.addr.page,
                format!(
                    "extent {e} on segment {} FREE list has used pages",
                    ino.seg_id
                ),
            ));
        }
        list::remove(mtr, ctx, ino.free_list(), e)?;
        list::add_last(mtr, ctx, ino.not_full_list(), e)?;
        return alloc_in_extent(mtr, ctx, ino, e);
    }
    let frags = ino.frags(mtr, ctx)?;
    if page_count(mtr, ctx, ino)? < FRAG_SLOTS as u32 {
        if let Some(slot) = frags.iter().position(|&p| p == FIL_NULL) {
            let p = extent::alloc_frag_page(mtr, ctx)?;
            ctx.write_u32(mtr, ino.frag_addr(slot), p)?;
            return Ok(p);
        }
    }
    let mut x = extent::take_free_extent(mtr, ctx)?;
    extent::set_state(mtr, ctx, &mut x, ST_SEGMENT, ino.seg_id)?;
    list::add_last(mtr, ctx, ino.not_full_list(), x.extent)?;
    alloc_in_extent(mtr, ctx, ino, x.extent)
}

/// Frees one page of the segment (a fragment page or a page of its extents).
pub fn free(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode, page: u32) -> Result<()> {
    let frags = ino.frags(mtr, ctx)?;
    if let Some(slot) = frags.iter().position(|&p| p == page) {
        extent::free_frag_page(mtr, ctx, page)?;
        return ctx.write_u32(mtr, ino.frag_addr(slot), FIL_NULL);
    }
    if page >= ctx.free_limit {
        return Err(ctx.corrupt(
            page,
            format!(
                "cannot free page {page}: beyond the space's {} initialised pages",
                ctx.free_limit
            ),
        ));
    }
    let e = page / ctx.ppe;
    let mut x = extent::read(mtr, ctx, e)?;
    if x.state != ST_SEGMENT || x.seg_id != ino.seg_id {
        return Err(ctx.corrupt(
            page,
            format!(
                "page {page} is not owned by segment {} (extent {e} is {}, segment {})",
                ino.seg_id,
                extent::state_name(x.state),
                x.seg_id
            ),
        ));
    }
    let i = page % ctx.ppe;
    if !x.is_used(i) {
        return Err(ctx.corrupt(
            page,
            format!(
                "double free: page {page} of segment {} is already free",
                ino.seg_id
            ),
        ));
    }
    let was_full = x.is_full();
    let used = ino.not_full_used(mtr, ctx)?;
    let used = if was_full {
        used.checked_add(ctx.ppe - 1)
    } else {
        used.checked_sub(1)
    }
    .ok_or_else(|| bad_count(ctx, ino))?;
    extent::set_bit(mtr, ctx, &mut x, i, false)?;
    if was_full {
        list::remove(mtr, ctx, ino.full_list(), e)?;
        list::add_last(mtr, ctx, ino.not_full_list(), e)?;
    }
    if x.is_empty() {
        list::remove(mtr, ctx, ino.not_full_list(), e)?;
        extent::set_state(mtr, ctx, &mut x, ST_FREE, 0)?;
        list::add_last(mtr, ctx, extent::free_list(), e)?;
    }
    ino.set_not_full_used(mtr, ctx, used)
}

/// Returns one whole extent of the segment on `list` to the space FREE list.
fn release_extent(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode, l: List, e: u32) -> Result<()> {
    let mut x = owned_extent(mtr, ctx, ino, e)?;
    if l == ino.not_full_list() {
        let used = ino.not_full_used(mtr, ctx)?;
        let used = used
            .checked_sub(x.used())
            .ok_or_else(|| bad_count(ctx, ino))?;
        ino.set_not_full_used(mtr, ctx, used)?;
    }
    list::remove(mtr, ctx, l, e)?;
    extent::clear_bits(mtr, ctx, &mut x)?;
    extent::set_state(mtr, ctx, &mut x, ST_FREE, 0)?;
    list::add_last(mtr, ctx, extent::free_list(), e)
}

/// One bounded step of dropping a segment: frees one extent, or (when no
/// extent is left) every fragment page and the inode. `Ok(true)` when gone.
pub fn drop_step(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode) -> Result<bool> {
    for l in [ino.full_list(), ino.not_full_list(), ino.free_list()] {
        if let Some(e) = list::first(mtr, ctx, l)? {
            release_extent(mtr, ctx, ino, l, e)?;
            return Ok(false);
        }
    }
    if ino.not_full_used(mtr, ctx)? != 0 {
        return Err(bad_count(ctx, ino));
    }
    let frags = ino.frags(mtr, ctx)?;
    for (i, p) in frags.iter().enumerate() {
        if *p != FIL_NULL {
            extent::check_frag_page(mtr, ctx, *p)?;
            if frags[..i].contains(p) {
                return Err(ctx.corrupt(
                    ino.page,
                    format!("segment {} names fragment page {p} twice", ino.seg_id),
                ));
            }
        }
    }
    for (slot, p) in frags.into_iter().enumerate() {
        if p != FIL_NULL {
            extent::free_frag_page(mtr, ctx, p)?;
            ctx.write_u32(mtr, ino.frag_addr(slot), FIL_NULL)?;
        }
    }
    inode::free_slot(mtr, ctx, ino)?;
    Ok(true)
}
