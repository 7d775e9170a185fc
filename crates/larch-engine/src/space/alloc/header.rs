//! The space header on page 0 and the per-operation allocation context.
//!
//! Owns the byte layout of the space header (the fixed-size region at the start of
//! page 0's body) and [`Ctx`], which every allocation operation builds first:
//! [`Ctx::open`] X-latches page 0 — the first latch taken on the space by any
//! allocation mini-transaction, which serialises allocation per space — checks the
//! header's identity fields and caches the geometry (pages per extent, per
//! descriptor group, descriptor entry size) and the current `size_pages` /
//! `free_limit`.
//!
//! Invariants kept by the callers (see `docs/tablespace-format.md`):
//! - `free_limit <= size_pages`, both multiples of pages-per-extent;
//! - every extent below `free_limit` has an initialised descriptor and is on
//!   exactly one extent list (a space list or one segment's list);
//! - `size_pages <= MAX_SIZE` (the last extent never contains page `FIL_NULL`).

use std::path::{Path, PathBuf};

use super::list::BASE_SIZE;
use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::mtr::{Mtr, PageRef};
use crate::page::{self, bytes, PageId, PageSize};

/// Identifies a Larch space header ("LRSH").
pub const SPACE_MAGIC: u32 = 0x4C52_5348;
/// On-disk format version of the allocation structures.
pub const FORMAT_VERSION: u32 = 1;

const SH: usize = page::HEADER_SIZE;
/// Offsets (from the page start) of the space header fields on page 0.
pub const SH_MAGIC: usize = SH;
pub const SH_VERSION: usize = SH + 4;
pub const SH_SPACE_ID: usize = SH + 8;
pub const SH_PAGE_SIZE: usize = SH + 12;
pub const SH_SIZE: usize = SH + 16;
pub const SH_FREE_LIMIT: usize = SH + 20;
pub const SH_NEXT_SEG_ID: usize = SH + 24;
pub const SH_FREE: usize = SH + 32;
pub const SH_FREE_FRAG: usize = SH_FREE + BASE_SIZE;
pub const SH_FULL_FRAG: usize = SH_FREE_FRAG + BASE_SIZE;
pub const SH_FREE_INODE: usize = SH_FULL_FRAG + BASE_SIZE;
pub const SH_FULL_INODE: usize = SH_FREE_INODE + BASE_SIZE;
/// End of the used part of the space header.
pub const SH_END: usize = SH_FULL_INODE + BASE_SIZE;
/// Bytes of page body reserved for the space header on every descriptor page.
pub const SPACE_HEADER_REGION: usize = 112;
/// Offset of the first extent descriptor on every descriptor page.
pub const XDES_START: usize = SH + SPACE_HEADER_REGION;
const _: () = assert!(SH_END == SH + 92 && SH_END <= XDES_START);

/// A segment may hold this many fragment pages before it takes whole extents.
pub const FRAG_SLOTS: usize = 32;

/// Largest number of pages a space can have: the whole u32 page-number range
/// minus the last extent (which would contain `FIL_NULL`).
pub fn max_size(ps: PageSize) -> u32 {
    u32::MAX - ps.pages_per_extent() + 1
}

/// Size after the next automatic extension of a space of `size` pages: one
/// extent at a time below 32 extents, then four; `None` when the space is at
/// its maximum.
pub fn next_size(ps: PageSize, size: u32) -> Option<u32> {
    let ppe = u64::from(ps.pages_per_extent());
    let step = if u64::from(size) < 32 * ppe {
        ppe
    } else {
        4 * ppe
    };
    let new = (u64::from(size) + step).min(u64::from(max_size(ps)));
    if new <= u64::from(size) {
        None
    } else {
        u32::try_from(new).ok()
    }
}

/// A corruption error for page `page_no` of the space stored in `path`.
fn corruption(path: &Path, space: u32, page_no: u32, reason: impl Into<String>) -> EngineError {
    EngineError::Corruption {
        path: path.to_path_buf(),
        page: PageId::new(space, page_no),
        reason: reason.into(),
    }
}

/// Byte address of a list base node or list node: page number and offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addr {
    pub page: u32,
    pub off: usize,
}

impl Addr {
    pub const fn new(page: u32, off: usize) -> Self {
        Self { page, off }
    }
    pub const fn plus(self, d: usize) -> Self {
        Self {
            page: self.page,
            off: self.off + d,
        }
    }
}

/// Geometry and cached header values for one allocation operation on one space.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub space: u32,
    pub ps: PageSize,
    /// Pages per extent.
    pub ppe: u32,
    /// Pages per descriptor group.
    pub ppg: u32,
    /// Extents per descriptor group.
    pub epg: u32,
    /// Bytes per extent descriptor entry.
    pub xsize: usize,
    /// Page 0, X-latched.
    pub hdr: PageRef,
    /// `size_pages` from the header.
    pub size: u32,
    /// `free_limit` from the header.
    pub free_limit: u32,
    /// The space's file (for error messages).
    pub path: PathBuf,
}

impl Ctx {
    /// Geometry for `space` whose page 0 the caller holds X-latched as `hdr`;
    /// `size` and `free_limit` start at 0.
    pub fn geometry(mtr: &Mtr<'_>, space: u32, hdr: PageRef) -> Result<Self> {
        let ps = mtr.page_size();
        let path = mtr.pool().spaces().get(space)?.file().path().to_path_buf();
        let ppe = ps.pages_per_extent();
        Ok(Self {
            space,
            ps,
            ppe,
            ppg: ps.pages_per_group(),
            epg: ps.extents_per_group(),
            xsize: xdes_size(ps),
            hdr,
            size: 0,
            free_limit: 0,
            path,
        })
    }

    /// A corruption error naming page `page_no` of this space.
    pub fn corrupt(&self, page_no: u32, reason: impl Into<String>) -> EngineError {
        corruption(&self.path, self.space, page_no, reason)
    }

    /// X-latches page 0 of `space`, checks the header and reads the sizes.
    pub fn open(mtr: &mut Mtr<'_>, space: u32) -> Result<Self> {
        let hdr = mtr.page(PageId::new(space, 0), Latch::Exclusive)?;
        let mut ctx = Self::geometry(mtr, space, hdr)?;
        let ps = ctx.ps;
        let d = mtr.data(hdr);
        let magic = bytes::get_u32(d, SH_MAGIC);
        let version = bytes::get_u32(d, SH_VERSION);
        let id = bytes::get_u32(d, SH_SPACE_ID);
        let psz = bytes::get_u32(d, SH_PAGE_SIZE);
        let size = bytes::get_u32(d, SH_SIZE);
        let free_limit = bytes::get_u32(d, SH_FREE_LIMIT);
        let reason = if magic != SPACE_MAGIC {
            Some(format!(
                "space header magic {magic:#010x}, expected {SPACE_MAGIC:#010x}"
            ))
        } else if version != FORMAT_VERSION {
            Some(format!("unsupported space header format version {version}"))
        } else if id != space {
            Some(format!("space header names space {id}"))
        } else if psz != ps.get() {
            Some(format!("space header page size {psz}, engine uses {ps}"))
        } else if size % ctx.ppe != 0
            || free_limit % ctx.ppe != 0
            || free_limit > size
            || size > max_size(ps)
        {
            Some(format!(
                "inconsistent sizes: size_pages {size}, free_limit {free_limit}"
            ))
        } else {
            None
        };
        if let Some(r) = reason {
            return Err(ctx.corrupt(0, r));
        }
        ctx.size = size;
        ctx.free_limit = free_limit;
        Ok(ctx)
    }

    /// Number of initialised extents (those below `free_limit`).
    pub fn n_extents(&self) -> u32 {
        self.free_limit / self.ppe
    }

    /// Page holding the descriptor of extent `e`.
    pub fn xdes_page(&self, e: u32) -> u32 {
        (e / self.epg) * self.ppg
    }

    /// Address of the descriptor entry of extent `e`.
    pub fn xdes_addr(&self, e: u32) -> Addr {
        Addr::new(
            self.xdes_page(e),
            XDES_START + (e % self.epg) as usize * self.xsize,
        )
    }

    /// True for page 0 and the descriptor pages of later groups.
    pub fn is_descriptor_page(&self, page: u32) -> bool {
        page % self.ppg == 0
    }

    /// X-latches a page of this space.
    pub fn latch(&self, mtr: &mut Mtr<'_>, page: u32) -> Result<PageRef> {
        mtr.page(PageId::new(self.space, page), Latch::Exclusive)
    }

    pub fn read_u32(&self, mtr: &mut Mtr<'_>, a: Addr) -> Result<u32> {
        let r = self.latch(mtr, a.page)?;
        Ok(bytes::get_u32(mtr.data(r), a.off))
    }

    pub fn write_u32(&self, mtr: &mut Mtr<'_>, a: Addr, v: u32) -> Result<()> {
        let r = self.latch(mtr, a.page)?;
        mtr.write_u32(r, a.off, v);
        Ok(())
    }

    /// Records a new `size_pages` in the header.
    pub fn set_size(&mut self, mtr: &mut Mtr<'_>, size: u32) {
        mtr.write_u32(self.hdr, SH_SIZE, size);
        self.size = size;
    }

    /// Records a new `free_limit` in the header.
    pub fn set_free_limit(&mut self, mtr: &mut Mtr<'_>, limit: u32) {
        mtr.write_u32(self.hdr, SH_FREE_LIMIT, limit);
        self.free_limit = limit;
    }

    /// Takes the next segment id from the header.
    pub fn take_segment_id(&self, mtr: &mut Mtr<'_>) -> Result<u64> {
        let id = bytes::get_u64(mtr.data(self.hdr), SH_NEXT_SEG_ID);
        let next = id
            .checked_add(1)
            .ok_or_else(|| self.corrupt(0, "segment ids exhausted"))?;
        mtr.write_u64(self.hdr, SH_NEXT_SEG_ID, next);
        Ok(id)
    }
}

/// Bytes of one extent descriptor entry at page size `ps`.
pub fn xdes_size(ps: PageSize) -> usize {
    super::extent::XDES_BITMAP + (ps.pages_per_extent() as usize).div_ceil(8)
}
