//! [`RedoLog`]: the log buffer, concurrent appends, group commit, checkpoints.
//!
//! Appending a block is three steps, none of which holds a shared lock:
//! 1. reserve `[start, end)` with one atomic add on the next LSN;
//! 2. copy the block into the in-memory ring at `start % ring_size`;
//! 3. report it finished to the `written` [`CompletionTracker`].
//!
//! The tracker's `ready` LSN is how far the ring is contiguous. Writing to the file
//! and `fdatasync` happen in [`RedoLog::flush_up_to`] with leader/follower group
//! commit: one thread writes and syncs everything ready while the others wait for
//! it, so N concurrent commits cost one sync. A second tracker, `closed`, records
//! mini-transactions whose dirty pages are on the flush list; a checkpoint never
//! passes it.
//!
//! Invariants:
//! - `checkpoint_lsn <= flushed_lsn <= file_written_lsn <= ready <= next_lsn`;
//! - a block never overwrites ring bytes not yet written to the file, nor log-file
//!   bytes at or after the last checkpoint (appends wait for room);
//! - after any failed write or sync the log refuses all further writes
//!   ([`EngineError::WritesDisabled`]) for new mini-transactions and commits:
//!   acknowledged data must really be durable. (Background flushing of pages
//!   whose log is already durable may continue; it never needs new log.)

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::completion::{CompletionTracker, LSN_ALIGN};
use super::file::{Checkpoint, LogFile};
use super::BLOCK_HEADER_BYTES;
use crate::error::{EngineError, Result};
use crate::io::AlignedBuf;
use crate::page::bytes::{put_u32, put_u64};
use crate::page::crc32c_parts;

/// Counters shown by `SHOW ENGINE INNODB STATUS` and the status variables.
#[derive(Debug, Default)]
pub struct LogStats {
    /// Blocks appended (mini-transactions that changed something).
    pub appends: AtomicU64,
    /// Writes of the log buffer to the file (`Innodb_log_writes`).
    pub writes: AtomicU64,
    /// Syncs of the log file (`Innodb_os_log_fsyncs`).
    pub syncs: AtomicU64,
    /// Bytes written to the log file (`Innodb_os_log_written`).
    pub bytes_written: AtomicU64,
    /// Times an append waited for log buffer or log file space (`Innodb_log_waits`).
    pub waits: AtomicU64,
    /// Times a flush waited for another thread's write and sync to finish
    /// instead of syncing itself (group-commit followers).
    pub flush_waits: AtomicU64,
}

/// The ring of log bytes not yet written to the file.
struct LogRing {
    buf: AlignedBuf,
}

impl LogRing {
    fn cap(&self) -> u64 {
        self.buf.len() as u64
    }

    /// Copies `data` into the ring at `lsn`.
    ///
    /// # Safety
    /// The caller has reserved `[lsn, lsn + data.len())`, has not reported it
    /// finished, and the range's previous ring contents were already written to the
    /// file; so no other thread reads or writes these ring bytes meanwhile.
    unsafe fn write(&self, lsn: u64, data: &[u8]) {
        let cap = self.cap();
        let pos = (lsn % cap) as usize;
        let first = (self.buf.len() - pos).min(data.len());
        let base = self.buf.as_ptr();
        // SAFETY: `pos + first <= len` and `data.len() - first <= pos` (a block is
        // smaller than the ring), both inside the allocation; exclusivity is the
        // caller's contract.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(pos), first);
            std::ptr::copy_nonoverlapping(data.as_ptr().add(first), base, data.len() - first);
        }
    }

    /// Calls `f` with the ring bytes of `[from, to)` in at most two slices.
    ///
    /// # Safety
    /// The range is finished (below the `written` tracker's `ready`) and not yet
    /// recycled (the caller holds the write lock, and appends wait for
    /// `file_written` before reusing ring bytes), so nobody mutates it meanwhile.
    unsafe fn read(
        &self,
        from: u64,
        to: u64,
        mut f: impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let cap = self.cap();
        let mut lsn = from;
        while lsn < to {
            let pos = (lsn % cap) as usize;
            let n = ((cap - pos as u64).min(to - lsn)) as usize;
            // SAFETY: `pos + n <= len`; immutability is the caller's contract.
            let s = unsafe { std::slice::from_raw_parts(self.buf.as_ptr().add(pos), n) };
            f(lsn, s)?;
            lsn += n as u64;
        }
        Ok(())
    }
}

struct FlushState {
    leader_active: bool,
}

struct CheckpointState {
    last: Checkpoint,
}

/// The redo log. See the module documentation.
pub struct RedoLog {
    file: LogFile,
    capacity: u64,
    ring: LogRing,
    next_lsn: AtomicU64,
    written: CompletionTracker,
    closed: CompletionTracker,
    file_written: AtomicU64,
    flushed: AtomicU64,
    write_lock: Mutex<()>,
    flush_state: Mutex<FlushState>,
    flush_cv: Condvar,
    checkpoint_lsn: AtomicU64,
    checkpoint: Mutex<CheckpointState>,
    space_cv: Condvar,
    space_mutex: Mutex<()>,
    epoch: u32,
    failed: AtomicBool,
    failure: Mutex<Option<String>>,
    flush_at_commit: u8,
    stats: LogStats,
    /// Commits waiting to be durable (see `durable`).
    pub(super) commit_waits: super::durable::CommitWaits,
}

impl std::fmt::Debug for RedoLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedoLog")
            .field("lsn", &self.current_lsn())
            .field("flushed", &self.flushed_lsn())
            .field("checkpoint", &self.checkpoint_lsn())
            .finish()
    }
}

/// Rounds up to the block alignment.
pub fn align_lsn(v: u64) -> u64 {
    v.div_ceil(LSN_ALIGN) * LSN_ALIGN
}

impl RedoLog {
    /// A log that continues at `start_lsn` (the end of the recovered log) with
    /// the newest checkpoint `last` and a fresh `epoch` (greater than any epoch in
    /// the file). Call [`Self::write_checkpoint`] once before appending so that the
    /// new epoch is durable.
    pub fn new(
        file: LogFile,
        start_lsn: u64,
        last: Checkpoint,
        epoch: u32,
        log_buffer_size: u64,
        flush_at_commit: u8,
    ) -> Self {
        let capacity = file.capacity();
        let ring_size = log_buffer_size.clamp(1 << 20, 1 << 30).div_ceil(4096) * 4096;
        let start_lsn = align_lsn(start_lsn);
        Self {
            file,
            capacity,
            ring: LogRing {
                buf: AlignedBuf::zeroed(ring_size as usize),
            },
            next_lsn: AtomicU64::new(start_lsn),
            written: CompletionTracker::new(start_lsn),
            closed: CompletionTracker::new(start_lsn),
            file_written: AtomicU64::new(start_lsn),
            flushed: AtomicU64::new(start_lsn),
            write_lock: Mutex::new(()),
            flush_state: Mutex::new(FlushState {
                leader_active: false,
            }),
            flush_cv: Condvar::new(),
            checkpoint_lsn: AtomicU64::new(last.lsn),
            checkpoint: Mutex::new(CheckpointState { last }),
            space_cv: Condvar::new(),
            space_mutex: Mutex::new(()),
            epoch,
            failed: AtomicBool::new(false),
            failure: Mutex::new(None),
            flush_at_commit,
            stats: LogStats::default(),
            commit_waits: Default::default(),
        }
    }

    /// Log file data capacity in bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    /// The LSN the next block will get.
    pub fn current_lsn(&self) -> u64 {
        self.next_lsn.load(SeqCst)
    }
    /// Everything below this LSN is durable.
    pub fn flushed_lsn(&self) -> u64 {
        self.flushed.load(SeqCst)
    }
    /// Everything below this LSN was handed to the operating system.
    pub fn written_lsn(&self) -> u64 {
        self.file_written.load(SeqCst)
    }
    /// Redo replay would start here.
    pub fn checkpoint_lsn(&self) -> u64 {
        self.checkpoint_lsn.load(SeqCst)
    }
    /// Every mini-transaction below this LSN has its dirty pages on the flush list.
    pub fn closed_lsn(&self) -> u64 {
        self.closed.ready()
    }
    /// The current start-up epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }
    /// Counters.
    pub fn stats(&self) -> &LogStats {
        &self.stats
    }
    /// `innodb_flush_log_at_trx_commit` in force.
    pub fn flush_at_commit(&self) -> u8 {
        self.flush_at_commit
    }
    /// Bytes of log written since the last checkpoint ("checkpoint age").
    pub fn checkpoint_age(&self) -> u64 {
        self.current_lsn().saturating_sub(self.checkpoint_lsn())
    }

    /// Fails when an earlier write or sync failed.
    pub fn check_writable(&self) -> Result<()> {
        if self.failed.load(SeqCst) {
            let reason = self
                .failure
                .lock()
                .clone()
                .unwrap_or_else(|| "unknown".into());
            return Err(EngineError::WritesDisabled { reason });
        }
        Ok(())
    }

    /// Stops accepting writes after a failed data-file write or sync elsewhere.
    pub fn disable_writes(&self, e: &EngineError) {
        self.fail(e);
    }

    fn fail(&self, e: &EngineError) {
        tracing::error!(error = %e, "redo log write failed; refusing further writes");
        let mut f = self.failure.lock();
        if f.is_none() {
            *f = Some(e.to_string());
        }
        self.failed.store(true, SeqCst);
        self.flush_cv.notify_all();
        self.space_cv.notify_all();
    }

    /// Largest block (one mini-transaction) the log accepts: half the log buffer
    /// or half the log file, whichever is smaller (recovery treats a longer
    /// block as the end of the log).
    pub fn max_block_bytes(&self) -> u64 {
        (self.ring.cap() / 2).min(self.capacity / 2)
    }

    /// Appends one block holding `records`; returns its `[start, end)` LSNs. The
    /// block is in memory only: use [`Self::flush_up_to`] for durability. The
    /// caller must report the block closed with [`Self::close`] once its dirty
    /// pages are on the flush list.
    ///
    /// A block larger than [`Self::max_block_bytes`] is refused and the log
    /// stops accepting writes: the caller's pages already hold changes that can
    /// no longer be logged, so nothing may reach the data files after this.
    pub fn append(&self, records: &[u8]) -> Result<(u64, u64)> {
        let len = BLOCK_HEADER_BYTES + records.len();
        let total = align_lsn(len as u64);
        if total > self.max_block_bytes() {
            let e = EngineError::Internal(format!(
                "a mini-transaction of {total} bytes exceeds the redo block limit of {} bytes",
                self.max_block_bytes()
            ));
            self.fail(&e);
            return Err(e);
        }
        let start = self.next_lsn.fetch_add(total, SeqCst);
        let end = start + total;
        self.written.wait_window(start);
        self.closed.wait_window(start);
        self.wait_for_room(end);

        let mut header = [0u8; BLOCK_HEADER_BYTES];
        put_u32(&mut header, 0, len as u32);
        put_u64(&mut header, 8, start);
        put_u32(&mut header, 16, self.epoch);
        let crc = crc32c_parts(&[&header[8..], records]);
        put_u32(&mut header, 4, crc);
        let pad = [0u8; LSN_ALIGN as usize];
        // SAFETY: `[start, end)` was reserved by the fetch_add above and is not yet
        // finished; `wait_for_room` made sure its old ring bytes reached the file.
        unsafe {
            self.ring.write(start, &header);
            self.ring.write(start + BLOCK_HEADER_BYTES as u64, records);
            self.ring
                .write(start + len as u64, &pad[..(total - len as u64) as usize]);
        }
        self.written.finish(start, end);
        self.stats.appends.fetch_add(1, SeqCst);
        Ok((start, end))
    }

    /// Reports that the block `[start, end)` has its dirty pages on the flush list.
    pub fn close(&self, start: u64, end: u64) {
        self.closed.finish(start, end);
    }

    fn wait_for_room(&self, end: u64) {
        let mut waited = false;
        // Ring space: write out what is ready until the block fits.
        while end - self.file_written.load(SeqCst) > self.ring.cap() {
            if self.failed.load(SeqCst) {
                break;
            }
            waited = true;
            if self.write_out(self.written.ready()).is_err() {
                break;
            }
            if end - self.file_written.load(SeqCst) > self.ring.cap() {
                std::thread::yield_now();
            }
        }
        // Log file space: never overwrite log the last checkpoint still needs.
        while end - self.checkpoint_lsn() > self.capacity {
            if self.failed.load(SeqCst) {
                break;
            }
            if !waited {
                tracing::warn!(
                    age = self.checkpoint_age(),
                    capacity = self.capacity,
                    "redo log full; waiting for a checkpoint (consider a larger innodb_log_file_size)"
                );
            }
            waited = true;
            let mut g = self.space_mutex.lock();
            if end - self.checkpoint_lsn() > self.capacity {
                self.space_cv.wait_for(&mut g, Duration::from_millis(10));
            }
        }
        if waited {
            self.stats.waits.fetch_add(1, SeqCst);
        }
    }

    /// Writes every finished block below `target` to the file (not synced).
    /// Returns how far the file is written.
    fn write_out(&self, target: u64) -> Result<u64> {
        let _g = self.write_lock.lock();
        self.check_writable()?;
        let from = self.file_written.load(SeqCst);
        let to = target.min(self.written.ready());
        if to <= from {
            return Ok(from);
        }
        // SAFETY: `[from, to)` is below `ready` and we hold the write lock, so it is
        // finished and cannot be recycled until `file_written` moves past it below.
        let r = unsafe {
            self.ring
                .read(from, to, |lsn, bytes| self.file.write_at_lsn(lsn, bytes))
        };
        if let Err(e) = r {
            self.fail(&e);
            return Err(e);
        }
        self.stats.writes.fetch_add(1, SeqCst);
        self.stats.bytes_written.fetch_add(to - from, SeqCst);
        self.file_written.store(to, SeqCst);
        Ok(to)
    }

    fn write_and_sync(&self) -> Result<()> {
        let to = self.write_out(self.written.ready())?;
        if to <= self.flushed.load(SeqCst) {
            return Ok(());
        }
        if let Err(e) = self.file.sync() {
            self.fail(&e);
            return Err(e);
        }
        self.stats.syncs.fetch_add(1, SeqCst);
        self.flushed.fetch_max(to, SeqCst);
        Ok(())
    }

    /// Makes every block below `lsn` durable (group commit: concurrent callers
    /// share one write and one sync).
    pub fn flush_up_to(&self, lsn: u64) -> Result<()> {
        if self.flushed.load(SeqCst) >= lsn {
            return Ok(());
        }
        let mut st = self.flush_state.lock();
        loop {
            self.check_writable()?;
            if self.flushed.load(SeqCst) >= lsn {
                return Ok(());
            }
            if st.leader_active {
                self.stats.flush_waits.fetch_add(1, SeqCst);
                self.flush_cv.wait(&mut st);
                continue;
            }
            st.leader_active = true;
            drop(st);
            let r = self.write_and_sync();
            let ready = self.written.ready();
            st = self.flush_state.lock();
            st.leader_active = false;
            self.flush_cv.notify_all();
            r?;
            if ready < lsn {
                // An earlier block is still being copied; let it finish.
                drop(st);
                std::thread::yield_now();
                st = self.flush_state.lock();
            }
        }
    }

    /// What a transaction commit does with its end LSN, per
    /// `innodb_flush_log_at_trx_commit`: 1 = write and sync now; 2 = write to the
    /// OS now, sync once a second; 0 = both once a second.
    pub fn flush_for_commit(&self, lsn: u64) -> Result<()> {
        match self.flush_at_commit {
            0 => self.check_writable(),
            _ if self.flushed_lsn() >= lsn => Ok(()),
            _ => crate::io::blocking::blocking(|| self.flush_for_commit_now(lsn)),
        }
    }

    fn flush_for_commit_now(&self, lsn: u64) -> Result<()> {
        match self.flush_at_commit {
            0 => self.check_writable(),
            2 => {
                while self.written_lsn() < lsn {
                    self.write_out(lsn)?;
                    if self.written_lsn() < lsn {
                        std::thread::yield_now();
                    }
                }
                Ok(())
            }
            _ => self.flush_up_to(lsn),
        }
    }

    /// The once-a-second background write and sync.
    pub fn background_flush(&self) -> Result<()> {
        let target = self.written.ready();
        if target > self.flushed_lsn() {
            self.flush_up_to(target)?;
        }
        Ok(())
    }

    /// Records a checkpoint at `lsn`: every page change below it is in the data
    /// files and synced (the caller guarantees that). Syncs the log up to `lsn`
    /// first, writes the checkpoint slot and syncs it. A checkpoint never moves
    /// backwards.
    pub fn write_checkpoint(&self, lsn: u64) -> Result<()> {
        self.flush_up_to(lsn)?;
        let mut st = self.checkpoint.lock();
        let lsn = lsn.max(st.last.lsn);
        let cp = Checkpoint {
            number: st.last.number + 1,
            lsn,
            epoch: self.epoch,
        };
        let r = self
            .file
            .write_checkpoint(cp)
            .and_then(|_| self.file.sync());
        if let Err(e) = r {
            self.fail(&e);
            return Err(e);
        }
        st.last = cp;
        self.checkpoint_lsn.store(lsn, SeqCst);
        drop(st);
        let _g = self.space_mutex.lock();
        self.space_cv.notify_all();
        Ok(())
    }

    /// The newest checkpoint written.
    pub fn last_checkpoint(&self) -> Checkpoint {
        self.checkpoint.lock().last
    }
}

#[cfg(test)]
mod tests;
