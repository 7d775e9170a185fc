//! [`Doublewrite`]: torn-page protection (`innodb_doublewrite`).
//!
//! A page write that a power loss interrupts can leave a page that is half new,
//! half old: its checksum fails and redo (physical, applied on top of a valid
//! page) cannot repair it. So every flush batch is first written to the
//! doublewrite file `ib_doublewrite` (a fixed array of page slots) and synced, and
//! only then written in place. After a crash, recovery looks at every valid page
//! image in the doublewrite file whose LSN is after the checkpoint: if the page
//! in place fails verification, the copy is written back before redo replay.
//! (A page torn by a crash was being flushed, so its oldest change is at or after
//! the checkpoint and its LSN, the end of its newest change, strictly after it;
//! older copies are ignored, so damage that is not a torn write is reported, not
//! papered over.)
//!
//! Invariant: when a page's in-place write starts, an intact copy of the same
//! image is durable in the doublewrite file.

use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::Result;
use crate::io::{IoFile, OpenOptions, Vfs};
use crate::page::{self, PageHeader, PageId, PageSize, PageState};
use crate::space::SpaceRegistry;

/// File name of the doublewrite file.
pub const DOUBLEWRITE_FILE: &str = "ib_doublewrite";
/// Page slots in the doublewrite file (and the largest flush batch).
pub const DOUBLEWRITE_SLOTS: usize = 128;

/// See the module documentation.
#[derive(Debug)]
pub struct Doublewrite {
    file: Arc<dyn IoFile>,
    page_size: PageSize,
    /// Serialises batches: the slots are reused by every batch.
    lock: Mutex<()>,
}

impl Doublewrite {
    /// Opens the doublewrite file, creating it if missing.
    pub fn open(vfs: &dyn Vfs, path: &Path, page_size: PageSize, direct: bool) -> Result<Self> {
        let file = vfs.open(
            path,
            OpenOptions {
                create: true,
                direct,
                ..OpenOptions::existing()
            },
        )?;
        let len = (DOUBLEWRITE_SLOTS * page_size.bytes()) as u64;
        if file.len()? < len {
            file.allocate(len)?;
            file.sync_all()?;
        }
        Ok(Self {
            file,
            page_size,
            lock: Mutex::new(()),
        })
    }

    /// Runs one batch: writes `images` (whole pages, checksummed) to the
    /// doublewrite slots, syncs, then calls `write_in_place` (which writes and
    /// syncs the pages in their files) while still holding the slots.
    pub fn write_batch(
        &self,
        images: &[u8],
        write_in_place: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        debug_assert!(images.len() <= DOUBLEWRITE_SLOTS * self.page_size.bytes());
        let _g = self.lock.lock();
        self.file.write_at(images, 0)?;
        self.file.sync_data()?;
        write_in_place()
    }

    /// Restores torn or missing pages from the doublewrite copies whose LSN is
    /// after `checkpoint_lsn`. Returns the pages restored.
    pub fn recover(&self, spaces: &SpaceRegistry, checkpoint_lsn: u64) -> Result<Vec<PageId>> {
        let ps = self.page_size.bytes();
        let mut restored = Vec::new();
        let mut copy = crate::io::AlignedBuf::zeroed(ps);
        let mut in_place = crate::io::AlignedBuf::zeroed(ps);
        for slot in 0..DOUBLEWRITE_SLOTS {
            self.file.read_at(&mut copy, (slot * ps) as u64)?;
            let h = PageHeader(&copy);
            let id = PageId::new(h.space_id(), h.page_no());
            if page::verify(&copy, id) != PageState::Valid
                || h.lsn() <= checkpoint_lsn
                || !spaces.contains(id.space)
            {
                continue;
            }
            let healthy = id.page < spaces.size_pages(id.space)?
                && spaces.read_page(id, &mut in_place).is_ok()
                && page::verify(&in_place, id) == PageState::Valid;
            if healthy {
                continue;
            }
            tracing::warn!(page = %id, "restoring a torn page from the doublewrite buffer");
            spaces.write_page(id, &copy)?;
            restored.push(id);
        }
        if !restored.is_empty() {
            spaces.sync_written()?;
        }
        Ok(restored)
    }
}
