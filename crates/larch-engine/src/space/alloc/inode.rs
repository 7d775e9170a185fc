//! Segment inodes and inode pages.
//!
//! An inode page (type `Inode`) carries a list node linking it into the space
//! header's FREE_INODE (has a free slot) or FULL_INODE (every slot used) list,
//! followed by as many fixed-size inodes as fit. A slot whose segment id is 0 is
//! free (a freed slot is zeroed entirely). Page 1 of every space is the first
//! inode page and is never freed; later inode pages are fragment pages of the
//! space, allocated when no inode page has a free slot and freed when their last
//! inode is freed.
//!
//! A [`SegmentRef`] names an inode by (inode page, slot); [`open`] validates it
//! (page in range, page type, slot in use, magic) before any use.

use super::extent;
use super::header::{Addr, Ctx, FRAG_SLOTS, SH_FREE_INODE, SH_FULL_INODE};
use super::list::{self, Kind, List};
use super::SegmentRef;
use crate::error::Result;
use crate::mtr::Mtr;
use crate::page::{self, bytes, PageHeader, PageId, PageSize, PageType};

/// Offset of the inode page's list node (prev page u32, next page u32).
pub const INODE_PAGE_NODE: usize = page::HEADER_SIZE;
/// Offset of the first inode on an inode page.
pub const INODES_START: usize = page::HEADER_SIZE + 16;
/// Bytes per inode.
pub const INODE_SIZE: usize = 192;

pub const IN_SEG_ID: usize = 0;
pub const IN_NOT_FULL_USED: usize = 8;
pub const IN_FREE: usize = 12;
pub const IN_NOT_FULL: usize = 24;
pub const IN_FULL: usize = 36;
pub const IN_FRAG: usize = 48;
pub const IN_MAGIC: usize = IN_FRAG + 4 * FRAG_SLOTS;
/// Marks an in-use inode ("INOD").
pub const INODE_MAGIC: u32 = 0x494E_4F44;

/// Inodes per inode page (21, 42, 85, 170, 341 for 4k..64k).
pub fn inodes_per_page(ps: PageSize) -> u16 {
    ((ps.bytes() - INODES_START - page::TRAILER_SIZE) / INODE_SIZE) as u16
}

pub fn free_inode_list() -> List {
    List::new(Addr::new(0, SH_FREE_INODE), Kind::InodePage)
}
pub fn full_inode_list() -> List {
    List::new(Addr::new(0, SH_FULL_INODE), Kind::InodePage)
}

/// A validated, in-use inode.
#[derive(Debug, Clone, Copy)]
pub struct Inode {
    pub page: u32,
    pub slot: u16,
    pub off: usize,
    pub seg_id: u64,
}

impl Inode {
    pub fn at(&self, field: usize) -> Addr {
        Addr::new(self.page, self.off + field)
    }
    pub fn free_list(&self) -> List {
        List::new(self.at(IN_FREE), Kind::Extent)
    }
    pub fn not_full_list(&self) -> List {
        List::new(self.at(IN_NOT_FULL), Kind::Extent)
    }
    pub fn full_list(&self) -> List {
        List::new(self.at(IN_FULL), Kind::Extent)
    }
    pub fn frag_addr(&self, i: usize) -> Addr {
        self.at(IN_FRAG + 4 * i)
    }
    pub fn not_full_used(&self, mtr: &mut Mtr<'_>, ctx: &Ctx) -> Result<u32> {
        ctx.read_u32(mtr, self.at(IN_NOT_FULL_USED))
    }
    pub fn set_not_full_used(&self, mtr: &mut Mtr<'_>, ctx: &Ctx, v: u32) -> Result<()> {
        ctx.write_u32(mtr, self.at(IN_NOT_FULL_USED), v)
    }
    /// The fragment slots (FIL_NULL = empty).
    pub fn frags(&self, mtr: &mut Mtr<'_>, ctx: &Ctx) -> Result<Vec<u32>> {
        let r = ctx.latch(mtr, self.page)?;
        let d = mtr.data(r);
        Ok((0..FRAG_SLOTS)
            .map(|i| bytes::get_u32(d, self.off + IN_FRAG + 4 * i))
            .collect())
    }
}

/// Offset of inode `slot` on its page.
pub fn slot_offset(slot: u16) -> usize {
    INODES_START + usize::from(slot) * INODE_SIZE
}

/// Checks that `page` is an initialised inode page of the space and latches it.
fn inode_page(mtr: &mut Mtr<'_>, ctx: &Ctx, page_no: u32) -> Result<crate::mtr::PageRef> {
    if page_no >= ctx.free_limit || ctx.is_descriptor_page(page_no) {
        return Err(ctx.corrupt(page_no, format!("page {page_no} cannot be an inode page")));
    }
    let r = ctx.latch(mtr, page_no)?;
    let ty = PageHeader(mtr.data(r)).page_type();
    if ty != Some(PageType::Inode) {
        return Err(ctx.corrupt(
            page_no,
            format!("expected an inode page, found type {ty:?}"),
        ));
    }
    Ok(r)
}

/// Number of used slots on an inode page.
pub fn used_slots(d: &[u8], ps: PageSize) -> u16 {
    (0..inodes_per_page(ps))
        .filter(|&s| bytes::get_u64(d, slot_offset(s) + IN_SEG_ID) != 0)
        .count() as u16
}

/// Validates `seg` and returns its inode.
pub fn open(mtr: &mut Mtr<'_>, ctx: &Ctx, seg: SegmentRef) -> Result<Inode> {
    if seg.slot >= inodes_per_page(ctx.ps) {
        return Err(ctx.corrupt(
            seg.inode_page,
            format!("segment reference slot {} out of range", seg.slot),
        ));
    }
    let r = inode_page(mtr, ctx, seg.inode_page)?;
    let off = slot_offset(seg.slot);
    let d = mtr.data(r);
    let seg_id = bytes::get_u64(d, off + IN_SEG_ID);
    let magic = bytes::get_u32(d, off + IN_MAGIC);
    if seg_id == 0 || magic != INODE_MAGIC {
        return Err(ctx.corrupt(seg.inode_page,
            format!(
                "segment reference slot {} names a free or damaged inode (id {seg_id}, magic {magic:#010x})",
                seg.slot
            ),
        ));
    }
    Ok(Inode {
        page: seg.inode_page,
        slot: seg.slot,
        off,
        seg_id,
    })
}

/// The id of segment `seg` while its inode is in use; `None` once it was
/// freed (its inode page may since be freed too, or hold other segments).
pub fn live_id(mtr: &mut Mtr<'_>, ctx: &Ctx, seg: SegmentRef) -> Result<Option<u64>> {
    if seg.slot >= inodes_per_page(ctx.ps) || !inode_pages(mtr, ctx)?.contains(&seg.inode_page) {
        return Ok(None);
    }
    let r = inode_page(mtr, ctx, seg.inode_page)?;
    let off = slot_offset(seg.slot);
    let d = mtr.data(r);
    let seg_id = bytes::get_u64(d, off + IN_SEG_ID);
    let magic = bytes::get_u32(d, off + IN_MAGIC);
    Ok((seg_id != 0 && magic == INODE_MAGIC).then_some(seg_id))
}

/// Formats a fresh inode page (all slots free) and puts it on FREE_INODE.
pub fn init_inode_page(mtr: &mut Mtr<'_>, ctx: &Ctx, page_no: u32) -> Result<()> {
    mtr.new_page(PageId::new(ctx.space, page_no), PageType::Inode)?;
    list::add_last(mtr, ctx, free_inode_list(), page_no)
}

/// Creates a segment: takes a free inode slot (allocating an inode page if
/// none has one) and initialises it.
pub fn create(mtr: &mut Mtr<'_>, ctx: &mut Ctx) -> Result<SegmentRef> {
    let page_no = match list::first(mtr, ctx, free_inode_list())? {
        Some(p) => p,
        None => {
            let p = extent::alloc_frag_page(mtr, ctx)?;
            init_inode_page(mtr, ctx, p)?;
            p
        }
    };
    let r = inode_page(mtr, ctx, page_no)?;
    let per_page = inodes_per_page(ctx.ps);
    let d = mtr.data(r);
    let Some(slot) = (0..per_page).find(|&s| bytes::get_u64(d, slot_offset(s) + IN_SEG_ID) == 0)
    else {
        return Err(ctx.corrupt(
            page_no,
            "inode page on the FREE_INODE list has no free slot",
        ));
    };
    let used_before = used_slots(d, ctx.ps);
    let seg_id = ctx.take_segment_id(mtr)?;
    let off = slot_offset(slot);
    mtr.write_u64(r, off + IN_SEG_ID, seg_id);
    mtr.write_u32(r, off + IN_NOT_FULL_USED, 0);
    for base in [IN_FREE, IN_NOT_FULL, IN_FULL] {
        list::init_base(mtr, ctx, Addr::new(page_no, off + base))?;
    }
    mtr.memset(r, off + IN_FRAG, 4 * FRAG_SLOTS, 0xff);
    mtr.write_u32(r, off + IN_MAGIC, INODE_MAGIC);
    if used_before + 1 == per_page {
        list::remove(mtr, ctx, free_inode_list(), page_no)?;
        list::add_last(mtr, ctx, full_inode_list(), page_no)?;
    }
    Ok(SegmentRef {
        inode_page: page_no,
        slot,
    })
}

/// Frees an inode slot whose segment owns nothing any more; frees the inode
/// page when it becomes empty (except page 1).
pub fn free_slot(mtr: &mut Mtr<'_>, ctx: &Ctx, ino: &Inode) -> Result<()> {
    let r = inode_page(mtr, ctx, ino.page)?;
    let used_before = used_slots(mtr.data(r), ctx.ps);
    let per_page = inodes_per_page(ctx.ps);
    mtr.memset(r, ino.off, INODE_SIZE, 0);
    if used_before == per_page {
        list::remove(mtr, ctx, full_inode_list(), ino.page)?;
        list::add_last(mtr, ctx, free_inode_list(), ino.page)?;
    }
    if used_before == 1 && ino.page != 1 {
        list::remove(mtr, ctx, free_inode_list(), ino.page)?;
        extent::free_frag_page(mtr, ctx, ino.page)?;
    }
    Ok(())
}

/// Pages of the inode lists (FREE_INODE then FULL_INODE); errors on a broken list.
pub fn inode_pages(mtr: &mut Mtr<'_>, ctx: &Ctx) -> Result<Vec<u32>> {
    let mut v = list::collect(mtr, ctx, free_inode_list(), "FREE_INODE")?;
    v.extend(list::collect(mtr, ctx, full_inode_list(), "FULL_INODE")?);
    Ok(v)
}

/// Every in-use inode of the space (used to refuse freeing a segment's fragment
/// page as a non-segment page).
pub fn all_inodes(mtr: &mut Mtr<'_>, ctx: &Ctx) -> Result<Vec<Inode>> {
    let mut out = Vec::new();
    for p in inode_pages(mtr, ctx)? {
        let r = inode_page(mtr, ctx, p)?;
        let d = mtr.data(r);
        for slot in 0..inodes_per_page(ctx.ps) {
            let off = slot_offset(slot);
            let seg_id = bytes::get_u64(d, off + IN_SEG_ID);
            if seg_id != 0 {
                out.push(Inode {
                    page: p,
                    slot,
                    off,
                    seg_id,
                });
            }
        }
    }
    Ok(out)
}
