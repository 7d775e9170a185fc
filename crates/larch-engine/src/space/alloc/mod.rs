//! Page allocation inside a tablespace ("fsp"): extents, extent descriptors,
//! free lists and segments, following InnoDB's design.
//!
//! Byte layouts are in `docs/tablespace-format.md`. In short:
//! - page 0 (`SpaceHeader`) holds the space header (sizes, next segment id and
//!   the bases of the FREE / FREE_FRAG / FULL_FRAG extent lists and the
//!   FREE_INODE / FULL_INODE inode-page lists) followed by the descriptors of
//!   descriptor group 0; group `g > 0` has its descriptors on page
//!   `g * pages_per_group` (`ExtentDescriptor`) at the same offsets;
//! - page 1 is the first inode page; a segment is an inode named by
//!   [`SegmentRef`];
//! - a segment's first 32 pages are single fragment pages, later pages come
//!   from whole extents it owns.
//!
//! Every function takes the caller's mini-transaction, X-latches page 0 of the
//! space first (serialising allocation per space) and then descriptor and inode
//! pages; all page changes go through the mtr, so they are redo-logged and
//! atomic with the caller's other changes. Allocation functions hand out page
//! numbers only: the caller formats the page with `mtr.new_page`. A structure
//! found inconsistent is reported as `EngineError::Corruption` naming the page,
//! never silently repaired or made worse; a space that cannot grow any more is
//! `EngineError::SpaceFull`.
//!
//! Files: `header` (space header, [`header::Ctx`]), `list` (generic on-page
//! lists), `extent` (descriptors, growth, fragment pages), `inode` (inode
//! pages), `segment` (segment allocation), `check` (verification, usage).

mod check;
mod extent;
pub(crate) mod header;
mod inode;
mod list;
mod segment;
#[cfg(test)]
mod tests;

use crate::error::{EngineError, Result};
use crate::mtr::Mtr;
use crate::page::{PageId, PageType, FIL_NULL};

use header::Ctx;

pub use header::FRAG_SLOTS;

/// Names a segment: its inode's page and slot (InnoDB's segment header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SegmentRef {
    pub inode_page: u32,
    pub slot: u16,
}

impl SegmentRef {
    /// Bytes of the encoded form.
    pub const ENCODED_LEN: usize = 6;

    /// Encoding stored in pages (e.g. a B+tree root): page u32 LE, slot u16 LE.
    pub fn to_bytes(self) -> [u8; 6] {
        let mut b = [0u8; 6];
        b[..4].copy_from_slice(&self.inode_page.to_le_bytes());
        b[4..].copy_from_slice(&self.slot.to_le_bytes());
        b
    }

    /// Decodes [`SegmentRef::to_bytes`].
    pub fn from_bytes(b: [u8; 6]) -> Self {
        Self {
            inode_page: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            slot: u16::from_le_bytes([b[4], b[5]]),
        }
    }
}

/// Space-wide allocation counts (from [`space_usage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpaceUsage {
    /// Size of the space in pages (a multiple of the extent size).
    pub size_pages: u32,
    /// Pages covered by initialised extent descriptors (equal to `size_pages`).
    pub free_limit: u32,
    /// Initialised extents.
    pub extents: u32,
    /// Extents on the space FREE list.
    pub free_extents: u32,
    /// Fragment extents with free pages.
    pub free_frag_extents: u32,
    /// Fragment extents with every page used.
    pub full_frag_extents: u32,
    /// Extents owned by segments.
    pub segment_extents: u32,
    /// Pages marked used (including page 0, descriptor and inode pages).
    pub used_pages: u32,
    /// Pages marked free.
    pub free_pages: u32,
    /// Segments (in-use inodes).
    pub segments: u32,
    /// Inode pages.
    pub inode_pages: u32,
}

/// Formats page 0 and page 1 of a brand-new space whose file is already at
/// least `initial_size_pages` long (a multiple of the extent size, at least one
/// extent). Every extent is initialised: the first one (holding pages 0 and 1)
/// and every extent holding a descriptor page are FREE_FRAG, the rest FREE.
pub fn init_space(mtr: &mut Mtr<'_>, space: u32, initial_size_pages: u32) -> Result<()> {
    let ps = mtr.page_size();
    let ppe = ps.pages_per_extent();
    if initial_size_pages < ppe
        || initial_size_pages % ppe != 0
        || initial_size_pages > header::max_size(ps)
    {
        return Err(EngineError::Internal(format!(
            "init_space({space}): initial size {initial_size_pages} pages is not a positive multiple of the {ppe}-page extent"
        )));
    }
    let physical = mtr.pool().spaces().size_pages(space)?;
    if physical < initial_size_pages {
        return Err(EngineError::Internal(format!(
            "init_space({space}): file has {physical} pages, fewer than the initial {initial_size_pages}"
        )));
    }
    let hdr = mtr.new_page(PageId::new(space, 0), PageType::SpaceHeader)?;
    mtr.write_u32(hdr, header::SH_MAGIC, header::SPACE_MAGIC);
    mtr.write_u32(hdr, header::SH_VERSION, header::FORMAT_VERSION);
    mtr.write_u32(hdr, header::SH_SPACE_ID, space);
    mtr.write_u32(hdr, header::SH_PAGE_SIZE, ps.get());
    mtr.write_u64(hdr, header::SH_NEXT_SEG_ID, 1);
    let mut ctx = Ctx::geometry(mtr, space, hdr)?;
    for base in [
        header::SH_FREE,
        header::SH_FREE_FRAG,
        header::SH_FULL_FRAG,
        header::SH_FREE_INODE,
        header::SH_FULL_INODE,
    ] {
        list::init_base(mtr, &ctx, header::Addr::new(0, base))?;
    }
    ctx.set_free_limit(mtr, 0);
    ctx.set_size(mtr, initial_size_pages);
    extent::fill_free_list(mtr, &mut ctx, initial_size_pages)?;
    inode::init_inode_page(mtr, &ctx, 1)
}

#[cfg(test)]
thread_local! {
    /// Test hook: page allocations left before the disk counts as full.
    static FULL_AFTER: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Tests: from the `n`-th page allocation of this thread on (`Some(0)`: the
/// next one), every allocation fails with `DiskFull` before changing
/// anything, as on a disk that filled up, until called with `None`.
#[cfg(test)]
pub(crate) fn fail_allocations_after(n: Option<u64>) {
    FULL_AFTER.with(|c| c.set(n));
}

/// In tests, a full disk once [`fail_allocations_after`]'s count is used up;
/// otherwise nothing.
fn injected_full(mtr: &Mtr<'_>, space: u32) -> Result<()> {
    #[cfg(test)]
    {
        if let Some(n) = FULL_AFTER.with(|c| c.get()) {
            if n == 0 {
                let spaces = mtr.pool().spaces();
                let path = spaces
                    .get(space)
                    .map(|f| spaces.path_of(&f.name))
                    .unwrap_or_default();
                return Err(EngineError::DiskFull { path });
            }
            FULL_AFTER.with(|c| c.set(Some(n - 1)));
        }
    }
    let _ = (mtr, space);
    Ok(())
}

/// Allocates a single fragment page (not in any segment), growing the space if
/// needed. The caller then formats it with `mtr.new_page`.
pub fn alloc_page(mtr: &mut Mtr<'_>, space: u32) -> Result<u32> {
    injected_full(mtr, space)?;
    let mut ctx = Ctx::open(mtr, space)?;
    extent::alloc_frag_page(mtr, &mut ctx)
}

/// Frees a fragment page obtained from [`alloc_page`]. Freeing a free page, a
/// page of a segment, an inode or descriptor page is `Corruption`.
pub fn free_page(mtr: &mut Mtr<'_>, space: u32, page: u32) -> Result<()> {
    let ctx = Ctx::open(mtr, space)?;
    extent::check_frag_page(mtr, &ctx, page)?;
    if inode::inode_pages(mtr, &ctx)?.contains(&page) {
        return Err(ctx.corrupt(
            page,
            format!("page {page} is an inode page in use; it cannot be freed as a fragment page"),
        ));
    }
    for ino in inode::all_inodes(mtr, &ctx)? {
        if ino.frags(mtr, &ctx)?.contains(&page) {
            return Err(ctx.corrupt(page,
                format!(
                    "page {page} is a fragment page of segment {} (inode page {} slot {}); free it through the segment",
                    ino.seg_id, ino.page, ino.slot
                ),
            ));
        }
    }
    extent::free_frag_page(mtr, &ctx, page)
}

/// Creates an empty segment.
pub fn create_segment(mtr: &mut Mtr<'_>, space: u32) -> Result<SegmentRef> {
    let mut ctx = Ctx::open(mtr, space)?;
    inode::create(mtr, &mut ctx)
}

/// Allocates one page for segment `seg`. The caller formats it with `mtr.new_page`.
pub fn alloc_segment_page(mtr: &mut Mtr<'_>, space: u32, seg: SegmentRef) -> Result<u32> {
    injected_full(mtr, space)?;
    let mut ctx = Ctx::open(mtr, space)?;
    let ino = inode::open(mtr, &ctx, seg)?;
    segment::alloc(mtr, &mut ctx, &ino)
}

/// Frees page `page` of segment `seg`; a page the segment does not own (or a
/// free one) is `Corruption`.
pub fn free_segment_page(mtr: &mut Mtr<'_>, space: u32, seg: SegmentRef, page: u32) -> Result<()> {
    let ctx = Ctx::open(mtr, space)?;
    let ino = inode::open(mtr, &ctx, seg)?;
    segment::free(mtr, &ctx, &ino, page)
}

/// Frees a bounded part of segment `seg` (one extent, or the fragment pages and
/// the inode). Returns `Ok(true)` once the segment is gone; run each call in its
/// own mini-transaction and loop until then. Calling it again afterwards is an
/// error (the slot may already belong to a new segment).
pub fn drop_segment_step(mtr: &mut Mtr<'_>, space: u32, seg: SegmentRef) -> Result<bool> {
    let ctx = Ctx::open(mtr, space)?;
    let ino = inode::open(mtr, &ctx, seg)?;
    segment::drop_step(mtr, &ctx, &ino)
}

/// The id of segment `seg` while it exists (`None` once dropped): what
/// makes a logged drop of a segment safe to repeat after a crash.
pub fn segment_id(mtr: &mut Mtr<'_>, space: u32, seg: SegmentRef) -> Result<Option<u64>> {
    let ctx = Ctx::open(mtr, space)?;
    inode::live_id(mtr, &ctx, seg)
}

/// Pages used by segment `seg` (fragment pages plus used pages of its extents).
pub fn segment_page_count(mtr: &mut Mtr<'_>, space: u32, seg: SegmentRef) -> Result<u32> {
    let ctx = Ctx::open(mtr, space)?;
    let ino = inode::open(mtr, &ctx, seg)?;
    segment::page_count(mtr, &ctx, &ino)
}

/// Whole extents of the space no segment or fragment page uses: the free
/// list plus the extents of the file above the initialised limit (what
/// `DATA_FREE` reports). Reads the header page only.
pub fn free_extent_count(mtr: &mut Mtr<'_>, space: u32) -> Result<u32> {
    let ctx = Ctx::open(mtr, space)?;
    let listed = list::base(mtr, &ctx, extent::free_list())?.len;
    let beyond = ctx.size.saturating_sub(ctx.free_limit) / ctx.ppe;
    Ok(listed.saturating_add(beyond))
}

/// Extent, page and segment counts of the space.
pub fn space_usage(mtr: &mut Mtr<'_>, space: u32) -> Result<SpaceUsage> {
    check::space_usage(mtr, space)
}

/// Structural verification for `larch check`: list lengths match their walks,
/// prev/next links agree, extent states match list membership and bitmaps, no
/// extent is on two lists or on none, segment fragment slots name used pages,
/// descriptor pages exist for every group. Returns the problems found, each
/// naming the page (empty = healthy). Changes nothing.
pub fn check_space(mtr: &mut Mtr<'_>, space: u32) -> Result<Vec<String>> {
    check::check_space(mtr, space)
}

/// True if `page` is marked used in its extent descriptor (pages beyond the
/// space's size are unused).
pub fn page_is_used(mtr: &mut Mtr<'_>, space: u32, page: u32) -> Result<bool> {
    let ctx = Ctx::open(mtr, space)?;
    if page >= ctx.free_limit || page == FIL_NULL {
        return Ok(false);
    }
    Ok(extent::read(mtr, &ctx, page / ctx.ppe)?.is_used(page % ctx.ppe))
}
