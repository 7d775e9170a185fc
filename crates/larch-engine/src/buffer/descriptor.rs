//! [`Descriptor`]: the per-frame control block, 64 bytes including the page latch.
//!
//! InnoDB's `buf_block_t` costs hundreds of bytes per page (a mutex each, list
//! nodes, hash links); for a 16 GiB pool that is over 600 MB. Larch keeps
//! everything a frame needs in one cache line: the latch is parking_lot's one-word
//! raw reader-writer lock, list links are 32-bit frame indices, and flags share a
//! word. A test asserts the size.
//!
//! Field ownership: `page_id` changes only while the frame is unreachable (not in
//! the page table) or under the page table shard's write lock; LRU links under
//! the LRU mutex; flush-list links under the flush-list mutex; modification LSNs
//! under the page's X latch (or by the flusher holding S while the page is
//! claimed). Atomics make every field safe to read at any time.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

use lock_api::{RawRwLock as _, RawRwLockDowngrade as _, RawRwLockTimed as _};

use crate::page::PageId;

/// Frame index meaning "none" in list links.
pub const NIL: u32 = u32::MAX;
const NO_PAGE: u64 = u64::MAX;

/// State flag: the frame holds a valid page image.
pub const VALID: u32 = 1;
/// State flag: the frame is in the old sublist of the LRU.
pub const OLD: u32 = 2;
/// State flag: the frame is on the LRU list.
pub const IN_LRU: u32 = 4;
/// State flag: the frame is on the flush list.
pub const IN_FLUSH_LIST: u32 = 8;
/// State flag: a copy of the page is being written; do not evict or re-flush.
pub const FLUSHING: u32 = 16;
/// State flag: brought in by read-ahead and not accessed since.
pub const READ_AHEAD: u32 = 32;

/// Control block of one buffer frame. See the module documentation.
#[repr(C)]
pub struct Descriptor {
    latch: parking_lot::RawRwLock,
    page_id: AtomicU64,
    pub(crate) oldest_modification: AtomicU64,
    pub(crate) newest_modification: AtomicU64,
    pub(crate) fix_count: AtomicU32,
    state: AtomicU32,
    pub(crate) lru_prev: AtomicU32,
    pub(crate) lru_next: AtomicU32,
    pub(crate) flush_prev: AtomicU32,
    pub(crate) flush_next: AtomicU32,
    /// ms since pool start of the first access while in the old sublist (0: none).
    pub(crate) first_access_ms: AtomicU32,
    /// LRU "young move" counter value when the frame was last made young.
    pub(crate) young_stamp: AtomicU32,
}

impl Default for Descriptor {
    fn default() -> Self {
        Self {
            latch: <parking_lot::RawRwLock as lock_api::RawRwLock>::INIT,
            page_id: AtomicU64::new(NO_PAGE),
            oldest_modification: AtomicU64::new(0),
            newest_modification: AtomicU64::new(0),
            fix_count: AtomicU32::new(0),
            state: AtomicU32::new(0),
            lru_prev: AtomicU32::new(NIL),
            lru_next: AtomicU32::new(NIL),
            flush_prev: AtomicU32::new(NIL),
            flush_next: AtomicU32::new(NIL),
            first_access_ms: AtomicU32::new(0),
            young_stamp: AtomicU32::new(0),
        }
    }
}

impl Descriptor {
    /// The page in the frame, if any.
    pub fn page_id(&self) -> Option<PageId> {
        let v = self.page_id.load(SeqCst);
        (v != NO_PAGE).then(|| PageId::new((v >> 32) as u32, v as u32))
    }

    pub(crate) fn set_page_id(&self, id: Option<PageId>) {
        let v = id.map_or(NO_PAGE, |p| (u64::from(p.space) << 32) | u64::from(p.page));
        self.page_id.store(v, SeqCst);
    }

    pub fn state(&self) -> u32 {
        self.state.load(SeqCst)
    }
    pub fn has(&self, flag: u32) -> bool {
        self.state() & flag != 0
    }
    pub(crate) fn set(&self, flag: u32) -> u32 {
        self.state.fetch_or(flag, SeqCst)
    }
    pub(crate) fn clear(&self, flag: u32) -> u32 {
        self.state.fetch_and(!flag, SeqCst)
    }
    pub(crate) fn reset_state(&self) {
        self.state.store(0, SeqCst);
    }

    pub fn is_dirty(&self) -> bool {
        self.oldest_modification.load(SeqCst) != 0
    }

    pub(crate) fn lock_shared(&self) {
        self.latch.lock_shared();
    }
    pub(crate) fn lock_exclusive(&self) {
        self.latch.lock_exclusive();
    }
    pub(crate) fn try_lock_exclusive(&self) -> bool {
        self.latch.try_lock_exclusive()
    }
    pub(crate) fn try_lock_shared_for(&self, timeout: std::time::Duration) -> bool {
        self.latch.try_lock_shared_for(timeout)
    }
    /// # Safety
    /// The caller holds the latch shared.
    pub(crate) unsafe fn unlock_shared(&self) {
        // SAFETY: forwarded caller contract.
        unsafe { self.latch.unlock_shared() }
    }
    /// # Safety
    /// The caller holds the latch exclusively.
    pub(crate) unsafe fn unlock_exclusive(&self) {
        // SAFETY: forwarded caller contract.
        unsafe { self.latch.unlock_exclusive() }
    }
    /// # Safety
    /// The caller holds the latch exclusively; afterwards it holds it shared.
    pub(crate) unsafe fn downgrade(&self) {
        // SAFETY: forwarded caller contract.
        unsafe { self.latch.downgrade() }
    }
    /// True when some thread holds the latch.
    pub fn is_latched(&self) -> bool {
        self.latch.is_locked()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn descriptor_fits_a_cache_line() {
        assert!(std::mem::size_of::<super::Descriptor>() <= 64);
    }
}
