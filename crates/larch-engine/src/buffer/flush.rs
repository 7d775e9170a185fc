//! Writing dirty pages back: flush batches, checkpoints, the log-space check.
//!
//! A flush batch claims dirty frames (the FLUSHING flag), copies each page under
//! a shared latch, removes it from the flush list (it is clean in memory from
//! then on, and may be dirtied again) and records the batch's oldest modification
//! as "in flight". Then, with no latch held: the log is synced up to the newest
//! copied change (write-ahead logging), the copies go to the doublewrite buffer and
//! then in place, the data files are synced, and the batch leaves "in flight".
//! A checkpoint is the minimum of the flush list's oldest modification, the
//! in-flight batches and the log's closed LSN.
//!
//! If a data write or sync fails, the batch stays in flight for ever (the
//! checkpoint cannot pass it, so redo keeps the changes) and its frames stay
//! flagged so they are never evicted and re-read stale; the engine stops
//! accepting writes.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use super::descriptor::FLUSHING;
use super::doublewrite::DOUBLEWRITE_SLOTS;
use super::pool::BufferPool;
use crate::error::Result;
use crate::io::AlignedBuf;
use crate::page::{self, PageId};

static BATCH_IDS: AtomicU64 = AtomicU64::new(1);

impl BufferPool {
    /// Writes the given frames (those still dirty and not already being flushed).
    /// Returns the number of pages written.
    pub(super) fn write_frames(&self, candidates: &[u32]) -> Result<usize> {
        let mut total = 0;
        for chunk in candidates.chunks(DOUBLEWRITE_SLOTS) {
            total += self.write_chunk(chunk)?;
        }
        Ok(total)
    }

    fn write_chunk(&self, candidates: &[u32]) -> Result<usize> {
        let descs = self.descs();
        let claimed: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&i| descs[i as usize].set(FLUSHING) & FLUSHING == 0)
            .collect();
        if claimed.is_empty() {
            return Ok(0);
        }
        let ps = self.page_size().bytes();
        let mut images = AlignedBuf::zeroed(claimed.len() * ps);
        let mut pages: Vec<(u32, PageId)> = Vec::with_capacity(claimed.len());
        let mut newest = 0u64;
        let batch = BATCH_IDS.fetch_add(1, SeqCst);
        for idx in claimed {
            let d = &descs[idx as usize];
            if !d.try_lock_shared_for(Duration::from_millis(20)) {
                d.clear(FLUSHING);
                continue;
            }
            let id = d.page_id();
            let Some(id) = id.filter(|_| d.is_dirty()) else {
                // SAFETY: locked just above.
                unsafe { d.unlock_shared() };
                d.clear(FLUSHING);
                continue;
            };
            let k = pages.len();
            let slot = &mut images[k * ps..(k + 1) * ps];
            // SAFETY: we hold the S latch, so no writer changes the frame.
            slot.copy_from_slice(unsafe { self.frame(idx) });
            page::stamp_checksum(slot);
            newest = newest.max(d.newest_modification.load(SeqCst));
            {
                let mut fl = self.flush_list.lock();
                let mut inf = self.in_flight.lock();
                let oldest = d.oldest_modification.load(SeqCst);
                let e = inf.entry(batch).or_insert(oldest);
                *e = (*e).min(oldest);
                fl.remove(descs, idx);
                d.oldest_modification.store(0, SeqCst);
            }
            // SAFETY: locked above.
            unsafe { d.unlock_shared() };
            pages.push((idx, id));
        }
        if pages.is_empty() {
            return Ok(0);
        }
        let images = &images[..pages.len() * ps];
        let result = self.log.flush_up_to(newest).and_then(|_| {
            let in_place = || -> Result<()> {
                for (k, (_, id)) in pages.iter().enumerate() {
                    if !self.spaces.contains(id.space) {
                        continue; // the tablespace was dropped meanwhile
                    }
                    match self.spaces.write_page(*id, &images[k * ps..(k + 1) * ps]) {
                        Ok(()) => {}
                        // Dropped between the check and the write: its pages
                        // need no write-back (and must not stop all writes).
                        Err(_) if !self.spaces.contains(id.space) => continue,
                        Err(e) => return Err(e),
                    }
                }
                self.spaces.sync_written()
            };
            match &self.doublewrite {
                Some(dw) => dw.write_batch(images, in_place),
                None => in_place(),
            }
        });
        if let Err(e) = result {
            self.log.disable_writes(&e);
            return Err(e);
        }
        for (idx, _) in &pages {
            descs[*idx as usize].clear(FLUSHING);
        }
        self.in_flight.lock().remove(&batch);
        self.stats
            .pages_flushed
            .fetch_add(pages.len() as u64, SeqCst);
        Ok(pages.len())
    }

    /// Flushes up to `max_pages` of the oldest dirty pages, only those whose
    /// oldest modification is below `lsn_limit` when given.
    pub fn flush_list_batch(&self, max_pages: usize, lsn_limit: Option<u64>) -> Result<usize> {
        let candidates: Vec<u32> = {
            let fl = self.flush_list.lock();
            let d = self.descs();
            fl.oldest(d, max_pages)
                .into_iter()
                .filter(|&i| {
                    lsn_limit.is_none_or(|l| d[i as usize].oldest_modification.load(SeqCst) < l)
                })
                .collect()
        };
        self.write_frames(&candidates)
    }

    /// Flushes up to `n` dirty, unfixed pages near the LRU tail so they can be
    /// evicted.
    pub(super) fn flush_lru_tail(&self, n: usize) -> Result<usize> {
        let candidates: Vec<u32> = {
            let lru = self.lru.lock();
            let d = self.descs();
            lru.from_tail(d, n * 4)
                .into_iter()
                .filter(|&i| {
                    let x = &d[i as usize];
                    x.is_dirty() && !x.has(FLUSHING) && x.fix_count.load(SeqCst) == 0
                })
                .take(n)
                .collect()
        };
        self.write_frames(&candidates)
    }

    /// Moves clean pages from the LRU tail to the free list until `target` frames
    /// are free, flushing dirty tail pages on the way. Returns pages flushed.
    pub fn lru_maintenance(&self, target: usize) -> Result<usize> {
        let mut flushed = 0;
        for _ in 0..8 {
            if self.free.lock().len() >= target {
                break;
            }
            let mut evicted = 0;
            {
                let mut lru = self.lru.lock();
                let want = target.saturating_sub(self.free.lock().len());
                // Only from the old sublist: never evict young pages to fill the
                // free list.
                let depth = (lru.old_len() as usize).min(128);
                for idx in lru.from_tail(self.descs(), depth) {
                    if evicted >= want {
                        break;
                    }
                    if self.try_evict(&mut lru, idx) {
                        self.free.lock().push(idx);
                        evicted += 1;
                    }
                }
            }
            let f = self.flush_lru_tail(64)?;
            flushed += f;
            if evicted == 0 && f == 0 {
                break;
            }
        }
        Ok(flushed)
    }

    /// Writes a checkpoint as far as the dirty pages allow. Returns its LSN.
    pub fn checkpoint(&self) -> Result<u64> {
        let closed = self.log.closed_lsn();
        let target = {
            let fl = self.flush_list.lock();
            let inf = self.in_flight.lock();
            let mut t = closed;
            if let Some(o) = fl.oldest_lsn(self.descs()) {
                t = t.min(o);
            }
            if let Some(&o) = inf.values().min() {
                t = t.min(o);
            }
            t
        };
        if target > self.log.checkpoint_lsn() {
            // File growth must be durable before redo that describes it is skipped.
            if let Err(e) = self.spaces.sync_written() {
                self.log.disable_writes(&e);
                return Err(e);
            }
            self.log.write_checkpoint(target)?;
        }
        Ok(self.log.checkpoint_lsn())
    }

    /// Flushes every dirty page and checkpoints (shutdown, tests, tools).
    pub fn flush_all(&self) -> Result<()> {
        loop {
            // A batch whose write failed stays in flight for ever: report the
            // failure instead of waiting for it.
            self.log.check_writable()?;
            let n = self.flush_list_batch(DOUBLEWRITE_SLOTS, None)?;
            if n == 0 {
                if self.flush_list.lock().is_empty() && self.in_flight.lock().is_empty() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        self.checkpoint()?;
        Ok(())
    }

    /// Called before a mini-transaction latches anything: when the redo written
    /// since the last checkpoint exceeds 3/4 of the log, this thread flushes the
    /// oldest pages and checkpoints until it is back under 1/2 (InnoDB's
    /// `log_free_check` and synchronous flushing).
    pub fn log_free_check(&self) -> Result<()> {
        self.log.check_writable()?;
        let cap = self.log.capacity();
        if self.log.checkpoint_age() < cap / 4 * 3 {
            return Ok(());
        }
        let _g = self.sync_flush.lock();
        let mut stuck = 0;
        while self.log.checkpoint_age() > cap / 2 {
            let limit = self.log.current_lsn().saturating_sub(cap / 2);
            let before = self.log.checkpoint_lsn();
            self.flush_list_batch(DOUBLEWRITE_SLOTS, Some(limit))?;
            let after = self.checkpoint()?;
            if after == before {
                stuck += 1;
                if stuck > 100 {
                    break; // pages latched by others; their owners will finish
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        Ok(())
    }
}
