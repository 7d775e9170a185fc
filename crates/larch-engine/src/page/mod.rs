//! Pages: the unit of I/O, caching and redo.
//!
//! Every page of every file starts with a 40-byte header and ends with an 8-byte
//! trailer (byte layout in `docs/page-format.md`):
//!
//! ```text
//! offset size field
//!      0    4 checksum   CRC32C of bytes [4, page_size - 8)
//!      4    4 space_id
//!      8    4 page_no
//!     12    2 page_type  (PageType)
//!     14    2 reserved
//!     16    8 lsn        end LSN of the last mini-transaction that changed the page
//!     24    4 prev       previous page in a list (FIL_NULL when none)
//!     28    4 next       next page in a list (FIL_NULL when none)
//!     32    8 reserved   for the page type's own use
//!     40 ....  body
//! size-8    4 checksum   copy of the header checksum   (torn-write check)
//! size-4    4 lsn_low    low 32 bits of `lsn`           (torn-write check)
//! ```
//!
//! Invariants: a page handed to a caller as valid has passed [`verify`]; a page
//! that fails is reported as [`EngineError::Corruption`] naming file, space and page.
//! All integers are little-endian. A page of all zeros is "never written" (a freshly
//! extended file) and is distinguished from a valid page by [`PageState::Zero`].

mod checksum;
mod size;

pub use checksum::{crc32c, crc32c_parts, page_checksum};
pub use size::PageSize;

use std::path::Path;

use crate::error::EngineError;

/// "No page" in page-number fields (as InnoDB's FIL_NULL).
pub const FIL_NULL: u32 = u32::MAX;

/// Byte offsets of the page header fields.
pub mod offset {
    pub const CHECKSUM: usize = 0;
    pub const SPACE_ID: usize = 4;
    pub const PAGE_NO: usize = 8;
    pub const PAGE_TYPE: usize = 12;
    pub const LSN: usize = 16;
    pub const PREV: usize = 24;
    pub const NEXT: usize = 28;
    pub const RESERVED: usize = 32;
}

/// Bytes of header before the page body.
pub const HEADER_SIZE: usize = 40;
/// Bytes of trailer after the page body.
pub const TRAILER_SIZE: usize = 8;

/// Identifies a page: tablespace id and page number within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageId {
    pub space: u32,
    pub page: u32,
}

impl PageId {
    pub const fn new(space: u32, page: u32) -> Self {
        Self { space, page }
    }
}

impl std::fmt::Display for PageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[space {}, page {}]", self.space, self.page)
    }
}

/// What a page holds. Stored as a u16 in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum PageType {
    /// Allocated but not yet given a purpose.
    Allocated = 0,
    /// Page 0 of a tablespace: space header plus the first extent descriptors.
    SpaceHeader = 1,
    /// Extent descriptors for a later group of extents.
    ExtentDescriptor = 2,
    /// Segment inodes.
    Inode = 3,
    /// B+tree node.
    Index = 4,
    /// Undo log page.
    Undo = 5,
    /// Off-page column data.
    Overflow = 6,
    /// Transaction system state (system tablespace).
    TrxSystem = 7,
    /// Rollback segment header: undo log slots and the history list base.
    RollbackSegment = 8,
    /// A page used by tests and tools; no engine meaning.
    Test = 0x7e57,
}

impl PageType {
    /// Decodes a stored page type.
    pub fn from_u16(v: u16) -> Option<Self> {
        Some(match v {
            0 => Self::Allocated,
            1 => Self::SpaceHeader,
            2 => Self::ExtentDescriptor,
            3 => Self::Inode,
            4 => Self::Index,
            5 => Self::Undo,
            6 => Self::Overflow,
            7 => Self::TrxSystem,
            8 => Self::RollbackSegment,
            0x7e57 => Self::Test,
            _ => return None,
        })
    }
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    let mut a = [0u8; 2];
    a.copy_from_slice(&b[off..off + 2]);
    u16::from_le_bytes(a)
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(a)
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(a)
}

/// Little-endian field access on a page (or any byte slice).
pub mod bytes {
    pub fn get_u16(b: &[u8], off: usize) -> u16 {
        super::u16_at(b, off)
    }
    pub fn get_u32(b: &[u8], off: usize) -> u32 {
        super::u32_at(b, off)
    }
    pub fn get_u64(b: &[u8], off: usize) -> u64 {
        super::u64_at(b, off)
    }
    pub fn put_u16(b: &mut [u8], off: usize, v: u16) {
        b[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }
    pub fn put_u32(b: &mut [u8], off: usize, v: u32) {
        b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    pub fn put_u64(b: &mut [u8], off: usize, v: u64) {
        b[off..off + 8].copy_from_slice(&v.to_le_bytes());
    }
}

/// Read-only view of a page's header fields.
pub struct PageHeader<'a>(pub &'a [u8]);

impl PageHeader<'_> {
    pub fn space_id(&self) -> u32 {
        u32_at(self.0, offset::SPACE_ID)
    }
    pub fn page_no(&self) -> u32 {
        u32_at(self.0, offset::PAGE_NO)
    }
    pub fn page_type_raw(&self) -> u16 {
        u16_at(self.0, offset::PAGE_TYPE)
    }
    pub fn page_type(&self) -> Option<PageType> {
        PageType::from_u16(self.page_type_raw())
    }
    pub fn lsn(&self) -> u64 {
        u64_at(self.0, offset::LSN)
    }
    pub fn prev(&self) -> u32 {
        u32_at(self.0, offset::PREV)
    }
    pub fn next(&self) -> u32 {
        u32_at(self.0, offset::NEXT)
    }
    pub fn stored_checksum(&self) -> u32 {
        u32_at(self.0, offset::CHECKSUM)
    }
}

/// Writes a fresh header for `id` of type `ty` into a zeroed page image.
pub fn init_header(page: &mut [u8], id: PageId, ty: PageType) {
    bytes::put_u32(page, offset::SPACE_ID, id.space);
    bytes::put_u32(page, offset::PAGE_NO, id.page);
    bytes::put_u16(page, offset::PAGE_TYPE, ty as u16);
    bytes::put_u32(page, offset::PREV, FIL_NULL);
    bytes::put_u32(page, offset::NEXT, FIL_NULL);
}

/// Sets the page LSN in the header and the trailer.
pub fn set_lsn(page: &mut [u8], lsn: u64) {
    bytes::put_u64(page, offset::LSN, lsn);
    let n = page.len();
    bytes::put_u32(page, n - 4, lsn as u32);
}

/// Computes and stores the checksum (header and trailer copy). Call last, just
/// before the page image is written to a file.
pub fn stamp_checksum(page: &mut [u8]) {
    let n = page.len();
    let lsn = u64_at(page, offset::LSN);
    bytes::put_u32(page, n - 4, lsn as u32);
    let sum = page_checksum(page);
    bytes::put_u32(page, offset::CHECKSUM, sum);
    bytes::put_u32(page, n - 8, sum);
}

/// Result of checking a page image read from disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageState {
    /// Checksum, trailer and identity all agree.
    Valid,
    /// Every byte is zero: the page was never written.
    Zero,
    /// Something is wrong; the string says what.
    Corrupt(String),
}

/// Checks a page image that claims to be `expected`.
pub fn verify(page: &[u8], expected: PageId) -> PageState {
    let n = page.len();
    let stored = u32_at(page, offset::CHECKSUM);
    let trailer_sum = u32_at(page, n - 8);
    let trailer_lsn = u32_at(page, n - 4);
    let lsn = u64_at(page, offset::LSN);
    if stored == 0 && trailer_sum == 0 && page.iter().all(|&b| b == 0) {
        return PageState::Zero;
    }
    if stored != trailer_sum || trailer_lsn != lsn as u32 {
        return PageState::Corrupt(format!(
            "torn write: header checksum {stored:#010x} / lsn {lsn} do not match trailer {trailer_sum:#010x} / {trailer_lsn}"
        ));
    }
    let computed = page_checksum(page);
    if computed != stored {
        return PageState::Corrupt(format!(
            "checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
        ));
    }
    let h = PageHeader(page);
    if h.space_id() != expected.space || h.page_no() != expected.page {
        return PageState::Corrupt(format!(
            "page header says space {} page {}",
            h.space_id(),
            h.page_no()
        ));
    }
    if h.page_type().is_none() {
        return PageState::Corrupt(format!("unknown page type {}", h.page_type_raw()));
    }
    PageState::Valid
}

/// [`verify`], turned into a `Result` that names the file for the error.
pub fn verify_or_err(page: &[u8], expected: PageId, path: &Path) -> Result<PageState, EngineError> {
    match verify(page, expected) {
        PageState::Corrupt(reason) => Err(EngineError::Corruption {
            path: path.to_path_buf(),
            page: expected,
            reason,
        }),
        s => Ok(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_and_verify_every_size() {
        for size in PageSize::ALL {
            let mut p = vec![0u8; size.bytes()];
            let id = PageId::new(7, 42);
            assert_eq!(verify(&p, id), PageState::Zero);
            init_header(&mut p, id, PageType::Test);
            set_lsn(&mut p, 0x1_2345_6789);
            p[HEADER_SIZE + 10] = 0xab;
            stamp_checksum(&mut p);
            assert_eq!(verify(&p, id), PageState::Valid);
            assert!(matches!(
                verify(&p, PageId::new(7, 43)),
                PageState::Corrupt(_)
            ));
            // A flipped bit in the body.
            let mut q = p.clone();
            q[size.bytes() / 2] ^= 1;
            assert!(matches!(verify(&q, id), PageState::Corrupt(r) if r.contains("checksum")));
            // A torn write: second half from an older image.
            let mut old = p.clone();
            set_lsn(&mut old, 5);
            stamp_checksum(&mut old);
            let mut torn = p.clone();
            let half = size.bytes() / 2;
            torn[half..].copy_from_slice(&old[half..]);
            assert!(matches!(verify(&torn, id), PageState::Corrupt(r) if r.contains("torn")));
            let err = verify_or_err(&torn, id, Path::new("t.ibd"));
            assert!(
                matches!(err, Err(e) if e.is_corruption() && e.to_string().contains("page 42"))
            );
        }
    }
}
