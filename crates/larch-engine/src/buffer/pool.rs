//! [`BufferPool`]: one contiguous frame area, descriptors, page table, lists.
//!
//! Fixing a page: look it up in the page table (shard read lock), bump its fix
//! count, take its latch; on a miss, take a free frame (evicting from the LRU tail
//! if needed), publish it in the page table X-latched, read and verify the page,
//! then insert it at the LRU midpoint. A page that fails verification is never
//! handed out: the frame is released and the caller gets the corruption error.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::descriptor::{Descriptor, FLUSHING, IN_LRU, OLD, READ_AHEAD, VALID};
use super::doublewrite::Doublewrite;
use super::flush_list::FlushList;
use super::lru::LruList;
use super::page_table::PageTable;
use super::Latch;
use crate::config::EngineConfig;
use crate::error::{EngineError, Result};
use crate::io::AlignedBuf;
use crate::page::{self, PageId, PageSize, PageState};
use crate::space::SpaceRegistry;
use crate::wal::RedoLog;

/// Counters for status output.
#[derive(Debug, Default)]
pub struct BufferStats {
    /// Logical page requests (`Innodb_buffer_pool_read_requests`).
    pub read_requests: AtomicU64,
    /// Pages read from disk (`Innodb_buffer_pool_reads`).
    pub reads: AtomicU64,
    /// Pages read by read-ahead (`Innodb_buffer_pool_read_ahead`).
    pub read_ahead: AtomicU64,
    /// Pages written (`Innodb_buffer_pool_pages_flushed`).
    pub pages_flushed: AtomicU64,
    /// Pages created without a read.
    pub pages_created: AtomicU64,
    /// Frames evicted.
    pub evictions: AtomicU64,
    /// Pages moved to the young end of the LRU (`Innodb_buffer_pool_pages_made_young`).
    pub made_young: AtomicU64,
    /// Times a thread had to flush a page itself to free a frame.
    pub single_page_flushes: AtomicU64,
}

/// The buffer pool. See the module documentation.
pub struct BufferPool {
    page_size: PageSize,
    frames: AlignedBuf,
    descs: Box<[Descriptor]>,
    table: PageTable,
    pub(super) lru: Mutex<LruList>,
    pub(super) free: Mutex<Vec<u32>>,
    pub(super) flush_list: Mutex<FlushList>,
    pub(super) spaces: Arc<SpaceRegistry>,
    pub(super) log: Arc<RedoLog>,
    pub(super) doublewrite: Option<Doublewrite>,
    pub(super) config: EngineConfig,
    start: Instant,
    pub(crate) read_ahead_tx: Mutex<Option<SyncSender<PageId>>>,
    pub(super) stats: BufferStats,
    /// Oldest modification LSNs of flush batches whose writes are in flight.
    pub(super) in_flight: Mutex<std::collections::BTreeMap<u64, u64>>,
    pub(super) sync_flush: Mutex<()>,
    young_moves: std::sync::atomic::AtomicU32,
    /// What a higher layer checks in a page read from disk after its
    /// checksum ([`BufferPool::set_content_check`]).
    content_check: std::sync::OnceLock<ContentCheck>,
}

/// Checks the contents of a page image whose checksum and identity are
/// right; returns why it cannot be used, if it cannot.
pub type ContentCheck = fn(&[u8]) -> Option<String>;

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("frames", &self.descs.len())
            .field("page_size", &self.page_size)
            .finish()
    }
}

/// A fixed and latched page. Dropping it releases the latch and the fix.
pub struct PageGuard<'a> {
    pool: &'a BufferPool,
    idx: u32,
    id: PageId,
    latch: Latch,
}

impl PageGuard<'_> {
    pub fn id(&self) -> PageId {
        self.id
    }
    pub fn latch(&self) -> Latch {
        self.latch
    }
    /// The page image.
    pub fn data(&self) -> &[u8] {
        // SAFETY: we hold the frame's latch (S or X), so no other thread has a
        // mutable reference to it; the frame stays assigned while fixed.
        unsafe { self.pool.frame(self.idx) }
    }
    /// The page image, writable. Only with an exclusive latch.
    pub(crate) fn data_mut(&mut self) -> &mut [u8] {
        assert_eq!(
            self.latch,
            Latch::Exclusive,
            "page written under a shared latch"
        );
        // SAFETY: we hold the X latch: nobody else reads or writes the frame, and
        // `&mut self` makes this the only reference through this guard.
        unsafe { self.pool.frame_mut(self.idx) }
    }
}

impl Drop for PageGuard<'_> {
    fn drop(&mut self) {
        let d = &self.pool.descs[self.idx as usize];
        // SAFETY: this guard holds the latch in the mode it records.
        unsafe {
            match self.latch {
                Latch::Shared => d.unlock_shared(),
                Latch::Exclusive => d.unlock_exclusive(),
            }
        }
        d.fix_count.fetch_sub(1, SeqCst);
    }
}

impl BufferPool {
    /// A pool of `config.buffer_pool_size` bytes of frames (at least 64 frames).
    pub fn new(
        config: &EngineConfig,
        page_size: PageSize,
        spaces: Arc<SpaceRegistry>,
        log: Arc<RedoLog>,
        doublewrite: Option<Doublewrite>,
    ) -> Self {
        let n = (config.buffer_pool_size / page_size.bytes() as u64).clamp(64, u32::MAX as u64 - 1)
            as usize;
        Self {
            page_size,
            frames: AlignedBuf::zeroed(n * page_size.bytes()),
            descs: (0..n).map(|_| Descriptor::default()).collect(),
            table: PageTable::new(n),
            lru: Mutex::new(LruList::new(config.old_blocks_pct)),
            free: Mutex::new((0..n as u32).rev().collect()),
            flush_list: Mutex::new(FlushList::default()),
            spaces,
            log,
            doublewrite,
            config: config.clone(),
            start: Instant::now(),
            read_ahead_tx: Mutex::new(None),
            stats: BufferStats::default(),
            in_flight: Mutex::new(std::collections::BTreeMap::new()),
            sync_flush: Mutex::new(()),
            young_moves: std::sync::atomic::AtomicU32::new(0),
            content_check: std::sync::OnceLock::new(),
        }
    }

    pub fn page_size(&self) -> PageSize {
        self.page_size
    }
    pub fn log(&self) -> &Arc<RedoLog> {
        &self.log
    }
    pub fn spaces(&self) -> &Arc<SpaceRegistry> {
        &self.spaces
    }
    pub fn stats(&self) -> &BufferStats {
        &self.stats
    }
    /// Makes every page read from disk pass `check` too (the storage
    /// layer installs the B+tree node layout check); set once, before
    /// pages are read.
    pub fn set_content_check(&self, check: ContentCheck) {
        let _ = self.content_check.set(check);
    }

    /// Number of frames.
    pub fn capacity(&self) -> usize {
        self.descs.len()
    }
    pub(super) fn descs(&self) -> &[Descriptor] {
        &self.descs
    }
    /// Bytes of one frame descriptor (the page table and free list add about
    /// 30 bytes per frame more; see `bench/README.md`).
    pub fn descriptor_bytes(&self) -> usize {
        std::mem::size_of::<Descriptor>()
    }
    /// Frames on the free list.
    pub fn free_frames(&self) -> usize {
        self.free.lock().len()
    }
    /// Frames holding dirty pages.
    pub fn dirty_pages(&self) -> usize {
        self.flush_list.lock().len() as usize
    }
    /// Pages on the LRU list, and how many of them are in the old sublist.
    pub fn lru_lengths(&self) -> (u32, u32) {
        let l = self.lru.lock();
        (l.len(), l.old_len())
    }
    /// True if page `id` is resident.
    pub fn contains(&self, id: PageId) -> bool {
        self.table.peek(id).is_some()
    }
    /// True if page `id` is resident and in the old LRU sublist.
    pub fn is_old(&self, id: PageId) -> bool {
        self.table
            .peek(id)
            .is_some_and(|i| self.descs[i as usize].has(OLD))
    }

    /// # Safety
    /// The caller holds the frame's latch (either mode) or otherwise knows that no
    /// thread writes the frame meanwhile.
    pub(super) unsafe fn frame(&self, idx: u32) -> &[u8] {
        let ps = self.page_size.bytes();
        // SAFETY: `idx < n`, so the range is inside the frame area; exclusion of
        // writers is the caller's contract.
        unsafe { std::slice::from_raw_parts(self.frames.as_ptr().add(idx as usize * ps), ps) }
    }

    /// # Safety
    /// The caller holds the frame's X latch (or the frame is unreachable by any
    /// other thread) and creates no other reference to it meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn frame_mut(&self, idx: u32) -> &mut [u8] {
        let ps = self.page_size.bytes();
        // SAFETY: in bounds as above; exclusivity is the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.frames.as_ptr().add(idx as usize * ps), ps) }
    }

    fn now_ms(&self) -> u32 {
        (self.start.elapsed().as_millis() as u32).max(1)
    }

    fn lock(&self, d: &Descriptor, latch: Latch) {
        match latch {
            Latch::Shared => d.lock_shared(),
            Latch::Exclusive => d.lock_exclusive(),
        }
    }

    /// # Safety
    /// The caller holds `d`'s latch in mode `latch`.
    unsafe fn unlock(&self, d: &Descriptor, latch: Latch) {
        // SAFETY: forwarded caller contract.
        unsafe {
            match latch {
                Latch::Shared => d.unlock_shared(),
                Latch::Exclusive => d.unlock_exclusive(),
            }
        }
    }

    /// Fixes page `id` with `latch`, reading it from its file if it is not
    /// resident. Corrupt pages and never-written pages are errors.
    pub fn fix(&self, id: PageId, latch: Latch) -> Result<PageGuard<'_>> {
        self.fix_inner(id, latch, false).map(|(g, _)| g)
    }

    /// Like [`Self::fix`], but a never-written (all-zero) page is returned as a
    /// zeroed frame, flagged by the `bool` (used by recovery).
    pub fn fix_allow_zero(&self, id: PageId, latch: Latch) -> Result<(PageGuard<'_>, bool)> {
        self.fix_inner(id, latch, true)
    }

    fn fix_inner(
        &self,
        id: PageId,
        latch: Latch,
        allow_zero: bool,
    ) -> Result<(PageGuard<'_>, bool)> {
        self.stats
            .read_requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        loop {
            if let Some(g) = self.try_fix_resident(id, latch) {
                self.on_access(g.idx, id);
                return Ok((g, false));
            }
            match self.read_in(id, latch, allow_zero, false)? {
                Some((g, zero)) => {
                    self.maybe_read_ahead(id);
                    return Ok((g, zero));
                }
                None => continue, // someone else is reading it; look again
            }
        }
    }

    /// Fixes a resident page, or `None` if it is not resident.
    fn try_fix_resident(&self, id: PageId, latch: Latch) -> Option<PageGuard<'_>> {
        loop {
            let idx = {
                let shard = self.table.read(id);
                let idx = *shard.get(&id)?;
                self.descs[idx as usize].fix_count.fetch_add(1, SeqCst);
                idx
            };
            let d = &self.descs[idx as usize];
            self.lock(d, latch);
            if d.page_id() == Some(id) && d.has(VALID) {
                return Some(PageGuard {
                    pool: self,
                    idx,
                    id,
                    latch,
                });
            }
            // The read that published the frame failed; retry from the table.
            // SAFETY: locked just above in this mode.
            unsafe { self.unlock(d, latch) };
            d.fix_count.fetch_sub(1, SeqCst);
        }
    }

    /// Reads a page into a new frame. `None` when another thread published the
    /// page first.
    fn read_in(
        &self,
        id: PageId,
        latch: Latch,
        allow_zero: bool,
        read_ahead: bool,
    ) -> Result<Option<(PageGuard<'_>, bool)>> {
        let idx = self.get_free_frame()?;
        let d = &self.descs[idx as usize];
        d.fix_count.fetch_add(1, SeqCst);
        d.lock_exclusive();
        d.reset_state();
        d.set_page_id(Some(id));
        {
            let mut shard = self.table.write(id);
            if shard.contains_key(&id) {
                drop(shard);
                self.release_frame(idx, true);
                return Ok(None);
            }
            shard.insert(id, idx);
        }
        // SAFETY: we hold the X latch of a frame no other thread can have fixed
        // for this page before it became VALID.
        let frame = unsafe { self.frame_mut(idx) };
        let res = self.spaces.read_page(id, frame).and_then(|_| {
            let path = self.spaces.path_of(&self.spaces.get(id.space)?.name);
            let state = page::verify_or_err(frame, id, &path)?;
            // A checksum only proves the page is what was written; a page a
            // bug wrote with a bad layout is refused here, before any
            // reader trusts its offsets.
            if state == PageState::Valid {
                if let Some(reason) = self.content_check.get().and_then(|check| check(frame)) {
                    return Err(EngineError::Corruption {
                        path,
                        page: id,
                        reason,
                    });
                }
            }
            Ok(state)
        });
        let zero = match res {
            Ok(PageState::Valid) => false,
            Ok(PageState::Zero) if allow_zero => true,
            other => {
                self.table.write(id).remove(&id);
                self.release_frame(idx, true);
                return Err(match other {
                    Err(e) => e,
                    _ => EngineError::Corruption {
                        path: self.spaces.path_of(&self.spaces.get(id.space)?.name),
                        page: id,
                        reason: "page was never written (all zeros)".into(),
                    },
                });
            }
        };
        self.stats.reads.fetch_add(1, SeqCst);
        d.set(VALID);
        if read_ahead {
            d.set(READ_AHEAD);
            d.first_access_ms.store(0, SeqCst);
        } else {
            d.first_access_ms.store(self.now_ms(), SeqCst);
        }
        self.lru.lock().insert_midpoint(&self.descs, idx);
        if latch == Latch::Shared {
            // SAFETY: we hold the X latch.
            unsafe { d.downgrade() };
        }
        Ok(Some((
            PageGuard {
                pool: self,
                idx,
                id,
                latch,
            },
            zero,
        )))
    }

    /// Puts a frame that is X-latched and fixed once by us back on the free list.
    fn release_frame(&self, idx: u32, latched: bool) {
        let d = &self.descs[idx as usize];
        d.set_page_id(None);
        d.reset_state();
        if latched {
            // SAFETY: the caller holds the X latch.
            unsafe { d.unlock_exclusive() };
        }
        d.fix_count.fetch_sub(1, SeqCst);
        self.free.lock().push(idx);
    }

    /// Fixes page `id` X-latched without reading it, for a page being (re)created.
    pub fn fix_new(&self, id: PageId) -> Result<PageGuard<'_>> {
        loop {
            if let Some(g) = self.try_fix_resident(id, Latch::Exclusive) {
                return Ok(g);
            }
            let idx = self.get_free_frame()?;
            let d = &self.descs[idx as usize];
            d.fix_count.fetch_add(1, SeqCst);
            d.lock_exclusive();
            d.reset_state();
            d.set_page_id(Some(id));
            {
                let mut shard = self.table.write(id);
                if shard.contains_key(&id) {
                    drop(shard);
                    self.release_frame(idx, true);
                    continue;
                }
                shard.insert(id, idx);
            }
            // SAFETY: X latch held on a frame just made reachable only through us.
            unsafe { self.frame_mut(idx) }.fill(0);
            d.set(VALID);
            d.first_access_ms.store(self.now_ms(), SeqCst);
            self.lru.lock().insert_midpoint(&self.descs, idx);
            self.stats.pages_created.fetch_add(1, SeqCst);
            return Ok(PageGuard {
                pool: self,
                idx,
                id,
                latch: Latch::Exclusive,
            });
        }
    }

    /// LRU bookkeeping for an access to a resident page (InnoDB semantics of
    /// `innodb_old_blocks_time`).
    fn on_access(&self, idx: u32, id: PageId) {
        let d = &self.descs[idx as usize];
        // The first access to a page that read-ahead brought in keeps a
        // sequential scan's read-ahead going; other hits never pay for it.
        if d.has(READ_AHEAD) && d.clear(READ_AHEAD) & READ_AHEAD != 0 {
            self.maybe_read_ahead(id);
        }
        if d.has(OLD) {
            let now = self.now_ms();
            let first = d.first_access_ms.load(SeqCst);
            if first == 0 {
                d.first_access_ms.store(now, SeqCst);
                if self.config.old_blocks_time_ms > 0 {
                    return;
                }
            } else if now.wrapping_sub(first) < self.config.old_blocks_time_ms {
                return;
            }
            let mut lru = self.lru.lock();
            lru.make_young(&self.descs, idx);
            self.young_moves.store(lru.young_moves, SeqCst);
            drop(lru);
            self.stats.made_young.fetch_add(1, SeqCst);
        } else {
            // Young pages move only once they have drifted a quarter of the way
            // down the young part; checked without the LRU mutex.
            let young_target =
                self.descs.len() as u32 * (100 - self.config.old_blocks_pct.clamp(5, 95)) / 100;
            let since = self
                .young_moves
                .load(SeqCst)
                .wrapping_sub(d.young_stamp.load(SeqCst));
            if since > young_target / 4 + 1 {
                let mut lru = self.lru.lock();
                if d.has(IN_LRU) && !d.has(OLD) {
                    lru.make_young(&self.descs, idx);
                    self.young_moves.store(lru.young_moves, SeqCst);
                    self.stats.made_young.fetch_add(1, SeqCst);
                }
            }
        }
    }

    /// Marks a page changed by a mini-transaction `[start, end)`: stamps the LSN,
    /// and puts it on the flush list if it was clean.
    pub(crate) fn mark_dirty(&self, g: &mut PageGuard<'_>, start: u64, end: u64) {
        page::set_lsn(g.data_mut(), end);
        let d = &self.descs[g.idx as usize];
        d.newest_modification.store(end, SeqCst);
        if d.oldest_modification.load(SeqCst) == 0 {
            d.oldest_modification.store(start, SeqCst);
            self.flush_list.lock().insert(&self.descs, g.idx);
        }
    }

    /// A frame for a new page: from the free list, else by evicting a clean page
    /// from the LRU tail, else by flushing dirty tail pages first.
    fn get_free_frame(&self) -> Result<u32> {
        for attempt in 0..1000u32 {
            if let Some(i) = self.free.lock().pop() {
                return Ok(i);
            }
            if let Some(i) = self.evict_one(64 + attempt as usize * 64) {
                return Ok(i);
            }
            self.stats.single_page_flushes.fetch_add(1, SeqCst);
            let flushed = self.flush_lru_tail(32)?;
            if flushed == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        Err(EngineError::Internal(format!(
            "buffer pool of {} pages has no page that can be evicted (all fixed); increase innodb_buffer_pool_size",
            self.descs.len()
        )))
    }

    /// Evicts one clean, unfixed, unlatched page from the last `depth` LRU
    /// entries; returns its frame (not on the free list).
    pub(super) fn evict_one(&self, depth: usize) -> Option<u32> {
        let mut lru = self.lru.lock();
        let candidates = lru.from_tail(&self.descs, depth);
        candidates
            .into_iter()
            .find(|&idx| self.try_evict(&mut lru, idx))
    }

    /// Evicts frame `idx` if possible (LRU mutex held by the caller).
    pub(super) fn try_evict(&self, lru: &mut LruList, idx: u32) -> bool {
        let d = &self.descs[idx as usize];
        if d.fix_count.load(SeqCst) != 0 || d.is_dirty() || d.has(FLUSHING) {
            return false;
        }
        let Some(id) = d.page_id() else { return false };
        let mut shard = self.table.write(id);
        if d.fix_count.load(SeqCst) != 0
            || d.is_dirty()
            || d.has(FLUSHING)
            || !d.try_lock_exclusive()
        {
            return false;
        }
        shard.remove(&id);
        drop(shard);
        lru.remove(&self.descs, idx);
        d.set_page_id(None);
        d.reset_state();
        // SAFETY: locked by `try_lock_exclusive` above.
        unsafe { d.unlock_exclusive() };
        self.stats.evictions.fetch_add(1, SeqCst);
        true
    }

    /// Drops every cached page of a space (after its file was deleted). Dirty
    /// pages of the space are discarded.
    pub fn discard_space(&self, space: u32) {
        let mut lru = self.lru.lock();
        let mut fl = self.flush_list.lock();
        for idx in 0..self.descs.len() as u32 {
            let d = &self.descs[idx as usize];
            if d.page_id().is_some_and(|p| p.space == space) && d.fix_count.load(SeqCst) == 0 {
                fl.remove(&self.descs, idx);
                d.oldest_modification.store(0, SeqCst);
                if self.try_evict(&mut lru, idx) {
                    self.free.lock().push(idx);
                }
            }
        }
    }

    /// Linear read-ahead: when the last page of an extent is accessed and at least
    /// `innodb_read_ahead_threshold` pages of that extent are resident and were
    /// accessed, ask the read-ahead thread for the next extent.
    fn maybe_read_ahead(&self, id: PageId) {
        let threshold = self.config.read_ahead_threshold;
        let ppe = self.page_size.pages_per_extent();
        if threshold == 0 || id.page % ppe != ppe - 1 {
            return;
        }
        let first = id.page - (ppe - 1);
        let accessed = (first..=id.page)
            .filter(|&p| {
                self.table.peek(PageId::new(id.space, p)).is_some_and(|i| {
                    self.descs[i as usize].first_access_ms.load(SeqCst) != 0
                        || !self.descs[i as usize].has(OLD)
                })
            })
            .count() as u32;
        if accessed * 64 >= threshold * ppe {
            if let Some(tx) = self.read_ahead_tx.lock().as_ref() {
                let _ = tx.try_send(PageId::new(id.space, id.page + 1));
            }
        }
    }

    /// Reads the extent starting at `first` into the pool (pages not resident and
    /// inside the file), without marking them accessed.
    pub fn read_ahead_extent(&self, first: PageId) {
        let ppe = self.page_size.pages_per_extent();
        let Ok(size) = self.spaces.size_pages(first.space) else {
            return;
        };
        for p in first.page..(first.page + ppe).min(size) {
            let id = PageId::new(first.space, p);
            if self.contains(id) {
                continue;
            }
            // Never let read-ahead push out a pool that has no free frames.
            if self.free.lock().is_empty()
                && self
                    .evict_one(16)
                    .map(|i| self.free.lock().push(i))
                    .is_none()
            {
                return;
            }
            if let Ok(Some(_)) = self.read_in(id, Latch::Shared, false, true) {
                self.stats.read_ahead.fetch_add(1, SeqCst);
            }
        }
    }

    /// Oldest modification LSN among dirty pages.
    pub fn oldest_modification(&self) -> Option<u64> {
        self.flush_list.lock().oldest_lsn(&self.descs)
    }

    /// Number of frames currently fixed (for leak checks in tests).
    pub fn fixed_frames(&self) -> usize {
        self.descs
            .iter()
            .filter(|d| d.fix_count.load(SeqCst) != 0)
            .count()
    }
}
