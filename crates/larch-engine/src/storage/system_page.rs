//! The system page: page 2 of the system tablespace.
//!
//! ```text
//! body offset  size  field
//!  40           8    magic "LARCHSYS"
//!  48           4    format version
//!  52           4    page size
//!  56           4    undo tablespaces
//!  60           4    next space id (file-per-table ids are never reused)
//!  64           4    root page of the data dictionary (0 until created)
//!  68           8    transaction-id bound: ids at or above it were never
//!                    handed out (0 until first written; see `undo`)
//!  76           4    rollback segment header page in the system tablespace
//!                    (0 = none; used only when there are no undo tablespaces)
//!  80 ...            reserved for the transaction system
//! ```
//!
//! The undo log store (`crate::undo`) reaches these fields through the
//! crate-internal `Storage` methods at the end of this file.

use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::mtr::Mtr;
use crate::page::{bytes, PageId, PageSize, PageType};
use crate::space::{alloc, SYSTEM_SPACE};

/// Page number of the system page.
pub const SYSTEM_PAGE_NO: u32 = 2;
const MAGIC: &[u8; 8] = b"LARCHSYS";
const OFF_MAGIC: usize = 40;
const OFF_FORMAT: usize = 48;
const OFF_PAGE_SIZE: usize = 52;
const OFF_UNDO: usize = 56;
const OFF_NEXT_SPACE: usize = 60;
const OFF_DICTIONARY_ROOT: usize = 64;
const OFF_TRX_ID_BOUND: usize = 68;
const OFF_SYSTEM_RSEG: usize = 76;
const FORMAT: u32 = 1;

fn id() -> PageId {
    PageId::new(SYSTEM_SPACE, SYSTEM_PAGE_NO)
}

/// Allocates and formats the system page of a new data directory.
pub fn create(mtr: &mut Mtr<'_>, page_size: PageSize, undo: u32) -> Result<()> {
    let page = alloc::alloc_page(mtr, SYSTEM_SPACE)?;
    if page != SYSTEM_PAGE_NO {
        return Err(EngineError::Internal(format!(
            "system page allocated at page {page}, expected {SYSTEM_PAGE_NO}"
        )));
    }
    let p = mtr.new_page(id(), PageType::TrxSystem)?;
    mtr.write_bytes(p, OFF_MAGIC, MAGIC);
    mtr.write_u32(p, OFF_FORMAT, FORMAT);
    mtr.write_u32(p, OFF_PAGE_SIZE, page_size.get());
    mtr.write_u32(p, OFF_UNDO, undo);
    mtr.write_u32(p, OFF_NEXT_SPACE, undo + 1);
    Ok(())
}

/// Takes the next file-per-table space id.
pub fn next_space_id(mtr: &mut Mtr<'_>) -> Result<u32> {
    let p = mtr.page(id(), Latch::Exclusive)?;
    let next = bytes::get_u32(mtr.data(p), OFF_NEXT_SPACE);
    let after = next
        .checked_add(1)
        .ok_or_else(|| EngineError::Internal("space ids exhausted".into()))?;
    mtr.write_u32(p, OFF_NEXT_SPACE, after);
    Ok(next)
}

/// The dictionary's root page, if the dictionary exists.
pub fn dictionary_root(storage: &super::Storage) -> Result<Option<u32>> {
    let g = storage.pool().fix(id(), Latch::Shared)?;
    Ok(Some(bytes::get_u32(g.data(), OFF_DICTIONARY_ROOT)).filter(|&r| r != 0))
}

/// Records the dictionary's root page.
pub fn set_dictionary_root(mtr: &mut Mtr<'_>, root: u32) -> Result<()> {
    let p = mtr.page(id(), Latch::Exclusive)?;
    mtr.write_u32(p, OFF_DICTIONARY_ROOT, root);
    Ok(())
}

/// Checks the system page of an opened directory.
pub fn verify(storage: &super::Storage, page_size: PageSize) -> Result<()> {
    let g = storage.pool().fix(id(), Latch::Shared)?;
    let d = g.data();
    let bad = |reason: String| EngineError::Corruption {
        path: storage.spaces().path_of(crate::space::SYSTEM_FILE),
        page: id(),
        reason,
    };
    if &d[OFF_MAGIC..OFF_MAGIC + 8] != MAGIC {
        return Err(bad("system page has a bad magic".into()));
    }
    if bytes::get_u32(d, OFF_PAGE_SIZE) != page_size.get() {
        return Err(bad(
            "system page disagrees with page 0 about the page size".into()
        ));
    }
    Ok(())
}

/// Access to the transaction-system fields for the undo log store.
impl super::Storage {
    /// The number of undo tablespaces the directory was created with (spaces
    /// `1..=N`), from the system page (not from the current configuration).
    pub(crate) fn undo_tablespaces_at_init(&self) -> Result<u32> {
        let g = self.pool().fix(id(), Latch::Shared)?;
        Ok(bytes::get_u32(g.data(), OFF_UNDO))
    }

    /// The persisted transaction-id bound (0 if never written).
    pub(crate) fn persisted_trx_id_bound(&self) -> Result<u64> {
        let g = self.pool().fix(id(), Latch::Shared)?;
        Ok(bytes::get_u64(g.data(), OFF_TRX_ID_BOUND))
    }

    /// Raises the persisted transaction-id bound to `bound` (never lowers it)
    /// in the caller's mini-transaction; returns the value now stored.
    pub(crate) fn raise_trx_id_bound(mtr: &mut Mtr<'_>, bound: u64) -> Result<u64> {
        let p = mtr.page(id(), Latch::Exclusive)?;
        let cur = bytes::get_u64(mtr.data(p), OFF_TRX_ID_BOUND);
        if bound > cur {
            mtr.write_u64(p, OFF_TRX_ID_BOUND, bound);
        }
        Ok(bound.max(cur))
    }

    /// The rollback segment header page of the system tablespace, if created.
    pub(crate) fn system_rseg_page(&self) -> Result<Option<u32>> {
        let g = self.pool().fix(id(), Latch::Shared)?;
        Ok(Some(bytes::get_u32(g.data(), OFF_SYSTEM_RSEG)).filter(|&p| p != 0))
    }

    /// Records the system tablespace's rollback segment header page, in the
    /// mini-transaction that creates it.
    pub(crate) fn set_system_rseg_page(mtr: &mut Mtr<'_>, page: u32) -> Result<()> {
        let p = mtr.page(id(), Latch::Exclusive)?;
        mtr.write_u32(p, OFF_SYSTEM_RSEG, page);
        Ok(())
    }
}
