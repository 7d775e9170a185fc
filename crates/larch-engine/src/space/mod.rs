//! Tablespaces.
//!
//! - [`registry`]: the open tablespace files by space id, page-granular I/O and
//!   file growth (InnoDB's "fil" layer);
//! - [`alloc`]: page allocation inside a tablespace: the space header, extent
//!   descriptors, free lists and segments (InnoDB's "fsp" layer), all changed
//!   through mini-transactions.
//!
//! Space ids: 0 is the system tablespace (`ibdata1`), 1..=N the undo tablespaces
//! (`undo001`...), file-per-table tablespaces follow.

pub mod alloc;
pub mod registry;

pub use registry::{SpaceFile, SpaceRegistry};

/// Space id of the system tablespace.
pub const SYSTEM_SPACE: u32 = 0;
/// File name of the system tablespace.
pub const SYSTEM_FILE: &str = "ibdata1";

/// File name of undo tablespace `n` (1-based).
pub fn undo_file_name(n: u32) -> String {
    format!("undo{n:03}")
}

use crate::error::Result;
use crate::mtr::Mtr;
use crate::page::{bytes, offset, PageId, PageSize};

/// Tablespace format version stamped on page 0 of every tablespace.
pub const FORMAT_VERSION: u32 = 1;
const STAMP_PAGE_SIZE: usize = offset::RESERVED;
const STAMP_VERSION: usize = offset::RESERVED + 4;

/// Stamps page size and format version into the header of page 0 of `space`
/// (bytes 32..40, the header's type-specific field), so a file tells its page
/// size before anything else is read.
pub fn write_stamp(mtr: &mut Mtr<'_>, space: u32) -> Result<()> {
    let p = mtr.page(PageId::new(space, 0), crate::buffer::Latch::Exclusive)?;
    let ps = mtr.page_size().get();
    mtr.write_u32(p, STAMP_PAGE_SIZE, ps);
    mtr.write_u32(p, STAMP_VERSION, FORMAT_VERSION);
    Ok(())
}

/// Reads the stamp from the first bytes of a tablespace file: `(space id, page
/// size, format version)`. `None` when the bytes do not hold a valid stamp.
pub fn read_stamp(first_bytes: &[u8]) -> Option<(u32, PageSize, u32)> {
    if first_bytes.len() < 40 {
        return None;
    }
    let ps = PageSize::from_bytes(u64::from(bytes::get_u32(first_bytes, STAMP_PAGE_SIZE))).ok()?;
    let version = bytes::get_u32(first_bytes, STAMP_VERSION);
    let space = bytes::get_u32(first_bytes, offset::SPACE_ID);
    (bytes::get_u32(first_bytes, offset::PAGE_NO) == 0).then_some((space, ps, version))
}

/// Offset in page 0 of the table counter: the auto-increment bound of the
/// table that owns a file-per-table tablespace (8 bytes; 0 = never set).
pub const TABLE_COUNTER: usize = alloc::header::SH_END;

/// Reads the table counter of `space` (0 when never written).
pub fn read_table_counter(mtr: &mut Mtr<'_>, space: u32) -> Result<u64> {
    let p = mtr.page(PageId::new(space, 0), crate::buffer::Latch::Shared)?;
    Ok(bytes::get_u64(mtr.data(p), TABLE_COUNTER))
}

/// Writes the table counter of `space` (redo-logged with the mtr).
pub fn write_table_counter(mtr: &mut Mtr<'_>, space: u32, value: u64) -> Result<()> {
    let p = mtr.page(PageId::new(space, 0), crate::buffer::Latch::Exclusive)?;
    mtr.write_u64(p, TABLE_COUNTER, value);
    Ok(())
}
