//! Mini-transactions: the only way a page changes.
//!
//! A [`Mtr`] groups the page changes of one atomic step (a B+tree split, a page
//! allocation, an undo append). It latches the pages it touches, changes them
//! through methods that also append physical redo records, and at [`Mtr::commit`]
//! writes all its records to the redo log as one block, stamps the pages with the
//! block's end LSN, puts them on the flush list and releases the latches. After a
//! crash either every change of a committed mini-transaction is replayed or none.
//!
//! Invariants:
//! - a page is changed only while the mtr holds it X-latched; nothing else can see
//!   the change before commit releases the latch;
//! - do every fallible step (fixing pages, allocating) before the first change: an
//!   mtr that changed pages is committed even when dropped, because the changes in
//!   the frames must match the redo log;
//! - latch order to avoid deadlocks: B+tree pages (root to leaf, left to right)
//!   before the space header page, before extent-descriptor pages, before inode
//!   pages; never the other way round.
//!
//! Usage:
//! ```text
//! let mut mtr = storage.mtr()?;
//! let p = mtr.page(PageId::new(space, 7), Latch::Exclusive)?;
//! mtr.write_u32(p, 100, 42);
//! let end_lsn = mtr.commit()?;
//! storage.log().flush_up_to(end_lsn)?; // durable
//! ```

use crate::buffer::{BufferPool, Latch, PageGuard};
use crate::error::{EngineError, Result};
use crate::page::{self, PageId, PageSize, PageType};
use crate::wal::RecordWriter;

/// A page held by a mini-transaction: an index into its memo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRef(u32);

struct MemoEntry<'a> {
    guard: PageGuard<'a>,
    modified: bool,
}

/// One atomic group of page changes. See the module documentation.
pub struct Mtr<'a> {
    pool: &'a BufferPool,
    memo: Vec<MemoEntry<'a>>,
    log: RecordWriter,
    done: bool,
}

impl<'a> Mtr<'a> {
    /// Starts a mini-transaction. Waits first if the redo log is nearly full until
    /// a checkpoint makes room (no latches are held yet, so this cannot deadlock).
    pub fn start(pool: &'a BufferPool) -> Result<Self> {
        pool.log_free_check()?;
        Ok(Self {
            pool,
            memo: Vec::new(),
            log: RecordWriter::new(),
            done: false,
        })
    }

    /// The buffer pool this mini-transaction works on.
    pub fn pool(&self) -> &'a BufferPool {
        self.pool
    }

    /// Page size of the data directory.
    pub fn page_size(&self) -> PageSize {
        self.pool.page_size()
    }

    fn find(&self, id: PageId) -> Option<usize> {
        self.memo.iter().position(|e| e.guard.id() == id)
    }

    /// Fixes and latches a page (reading it if needed) for the rest of the mtr.
    /// Asking again for a page already held returns the same reference; asking for
    /// `Exclusive` on a page held `Shared` is an error (latch upgrades deadlock).
    pub fn page(&mut self, id: PageId, latch: Latch) -> Result<PageRef> {
        if let Some(i) = self.find(id) {
            if latch == Latch::Exclusive && self.memo[i].guard.latch() == Latch::Shared {
                return Err(EngineError::Internal(format!(
                    "mini-transaction asked to upgrade its shared latch on page {id}"
                )));
            }
            return Ok(PageRef(i as u32));
        }
        let guard = self.pool.fix(id, latch)?;
        self.push(guard, false)
    }

    /// Creates (or re-creates) a page without reading it: the frame is zeroed, the
    /// header initialised for `ty`, and an INIT_PAGE record logged. The page must
    /// have been allocated by the caller.
    pub fn new_page(&mut self, id: PageId, ty: PageType) -> Result<PageRef> {
        let r = match self.find(id) {
            Some(i) if self.memo[i].guard.latch() == Latch::Exclusive => PageRef(i as u32),
            Some(_) => {
                return Err(EngineError::Internal(format!(
                    "new_page on page {id} held shared by the same mini-transaction"
                )))
            }
            None => {
                let guard = self.pool.fix_new(id)?;
                self.push(guard, true)?
            }
        };
        let e = &mut self.memo[r.0 as usize];
        e.modified = true;
        let frame = e.guard.data_mut();
        frame.fill(0);
        page::init_header(frame, id, ty);
        self.log.init_page(id, ty);
        Ok(r)
    }

    fn push(&mut self, guard: PageGuard<'a>, modified: bool) -> Result<PageRef> {
        let i = u32::try_from(self.memo.len())
            .map_err(|_| EngineError::Internal("mini-transaction memo overflow".into()))?;
        self.memo.push(MemoEntry { guard, modified });
        Ok(PageRef(i))
    }

    /// The page's id.
    pub fn page_id(&self, r: PageRef) -> PageId {
        self.memo[r.0 as usize].guard.id()
    }

    /// The page image (header, body and trailer).
    pub fn data(&self, r: PageRef) -> &[u8] {
        self.memo[r.0 as usize].guard.data()
    }

    fn frame(&mut self, r: PageRef) -> (PageId, &mut [u8]) {
        let e = &mut self.memo[r.0 as usize];
        e.modified = true;
        (e.guard.id(), e.guard.data_mut())
    }

    /// Writes `bytes` at `offset` (an unchanged range logs nothing).
    pub fn write_bytes(&mut self, r: PageRef, offset: usize, bytes: &[u8]) {
        if self.data(r)[offset..offset + bytes.len()] == *bytes {
            return;
        }
        let (id, frame) = self.frame(r);
        frame[offset..offset + bytes.len()].copy_from_slice(bytes);
        self.log.write(id, offset, bytes);
    }

    pub fn write_u8(&mut self, r: PageRef, offset: usize, v: u8) {
        self.write_bytes(r, offset, &[v]);
    }
    pub fn write_u16(&mut self, r: PageRef, offset: usize, v: u16) {
        self.write_bytes(r, offset, &v.to_le_bytes());
    }
    pub fn write_u32(&mut self, r: PageRef, offset: usize, v: u32) {
        self.write_bytes(r, offset, &v.to_le_bytes());
    }
    pub fn write_u64(&mut self, r: PageRef, offset: usize, v: u64) {
        self.write_bytes(r, offset, &v.to_le_bytes());
    }

    /// Fills `len` bytes at `offset` with `byte`.
    pub fn memset(&mut self, r: PageRef, offset: usize, len: usize, byte: u8) {
        let (id, frame) = self.frame(r);
        frame[offset..offset + len].fill(byte);
        self.log.memset(id, offset, len, byte);
    }

    /// Copies `len` bytes from `src` to `dst` within the page (ranges may overlap).
    pub fn memmove(&mut self, r: PageRef, dst: usize, src: usize, len: usize) {
        let (id, frame) = self.frame(r);
        frame.copy_within(src..src + len, dst);
        self.log.memmove(id, dst, src, len);
    }

    /// Logs the creation of a tablespace file (replayed if the file is missing).
    pub fn log_file_create(&mut self, space: u32, size_pages: u32, name: &str) {
        self.log.file_create(space, size_pages, name);
    }

    /// Logs the deletion of a tablespace file.
    pub fn log_file_delete(&mut self, space: u32) {
        self.log.file_delete(space);
    }

    /// Grows a tablespace file to `size_pages` (physically now, logged for redo).
    pub fn extend_space(&mut self, space: u32, size_pages: u32) -> Result<()> {
        self.pool.spaces().extend(space, size_pages)?;
        self.log.file_extend(space, size_pages);
        Ok(())
    }

    /// True if the mtr has changed anything.
    pub fn is_dirty(&self) -> bool {
        !self.log.is_empty()
    }

    /// Writes the redo block, stamps and dirties the changed pages, releases every
    /// latch. Returns the end LSN of the block (the LSN to flush up to for
    /// durability), or the current LSN when nothing changed.
    pub fn commit(mut self) -> Result<u64> {
        self.finish()
    }

    fn finish(&mut self) -> Result<u64> {
        self.done = true;
        if self.log.is_empty() {
            self.memo.clear();
            return Ok(self.pool.log().current_lsn());
        }
        let log = self.pool.log();
        let (start, end) = log.append(self.log.bytes())?;
        for e in &mut self.memo {
            if e.modified {
                self.pool.mark_dirty(&mut e.guard, start, end);
            }
        }
        self.memo.clear();
        log.close(start, end);
        log.check_writable()?;
        Ok(end)
    }
}

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        if !self.done && self.is_dirty() {
            tracing::warn!("mini-transaction dropped with changes; committing them");
            if let Err(e) = self.finish() {
                tracing::error!(error = %e, "commit of dropped mini-transaction failed");
            }
        }
    }
}
