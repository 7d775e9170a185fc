//! Opening the store: rollback segments are found (or created), every
//! occupied slot is examined, and steps a crash interrupted are finished.
//!
//! Runs after `Storage::open` has replayed the redo log, so the pages hold
//! exactly the changes of the mini-transactions that reached the log. For each
//! occupied slot, by the log header's state:
//! - `Active` / `Prepared`: the log (with its records, possibly none) is
//!   returned in [`RecoveredUndo::active`] for the caller to roll back;
//! - `Committed` with update records: the commit step is finished (history
//!   append + slot freed) — not produced by this version, whose commit is one
//!   mini-transaction, but accepted;
//! - `Committed` insert-only, or `Freeing`: the log is freed.
//!
//! Then each history list's length becomes the number of "recovered" entries
//! (see `history`), and the page and history counters are set from the
//! rollback segment headers and the logs in slots.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::format::{corruption, slot_offset, LogAddr, LogHeader, LogState};
use super::log::history_pages;
use super::rseg::{self, Rseg, RsegInner};
use super::{HistoryIndex, RecoveredUndo, RollPtr, UndoLog, UndoStore};
use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::page::{PageId, FIL_NULL};
use crate::space::SYSTEM_SPACE;
use crate::storage::Storage;

pub(super) fn open(storage: Arc<Storage>) -> Result<(UndoStore, RecoveredUndo)> {
    let n = storage.undo_tablespaces_at_init()?;
    if n > RollPtr::MAX_SPACE {
        return Err(EngineError::Config(format!(
            "the data directory has {n} undo tablespaces; roll pointers address at most {}",
            RollPtr::MAX_SPACE
        )));
    }
    let spaces: Vec<u32> = if n == 0 {
        vec![SYSTEM_SPACE]
    } else {
        (1..=n).collect()
    };
    let mut rsegs = Vec::with_capacity(spaces.len());
    for space in spaces {
        if !storage.spaces().contains(space) {
            return Err(EngineError::DataDir {
                path: storage.datadir().clone(),
                reason: format!(
                    "undo tablespace {space} ({}) is missing; the directory was created with {n}",
                    crate::space::undo_file_name(space)
                ),
            });
        }
        let page = rseg::ensure(&storage, space)?;
        rsegs.push(Rseg {
            space,
            page,
            inner: Mutex::new(RsegInner {
                free_slots: Vec::new(),
                recovered_history: 0,
                cached: Vec::new(),
            }),
        });
    }
    let bound = storage.persisted_trx_id_bound()?;
    let store = UndoStore {
        storage,
        rsegs,
        next_rseg: AtomicUsize::new(0),
        history: Mutex::new(HistoryIndex::default()),
        history_len: AtomicU64::new(0),
        undo_pages: AtomicU64::new(0),
        trx_id_bound: AtomicU64::new(bound),
    };
    let mut rec = RecoveredUndo {
        trx_id_bound: bound,
        ..RecoveredUndo::default()
    };
    for i in 0..store.rsegs.len() {
        store.recover_rseg(i, &mut rec)?;
    }
    rec.history_len = store.history_len();
    if !rec.active.is_empty() || rec.history_len > 0 {
        tracing::info!(
            active = rec.active.len(),
            history = rec.history_len,
            undo_pages = store.undo_pages(),
            max_trx_id = rec.max_trx_id,
            "opened the undo logs"
        );
    }
    Ok((store, rec))
}

impl UndoStore {
    fn recover_rseg(&self, i: usize, rec: &mut RecoveredUndo) -> Result<()> {
        let rseg = &self.rsegs[i];
        let space = rseg.space;
        let h = rseg.read(self.pool())?;
        rec.max_trx_id = rec.max_trx_id.max(h.max_trx_id);
        // Free slots as a stack that hands out the lowest slot first.
        rseg.inner.lock().free_slots = (0..h.slots.len() as u32)
            .rev()
            .filter(|&s| h.slots[s as usize] == FIL_NULL)
            .collect();
        for (slot, &page) in h.slots.iter().enumerate() {
            if page == FIL_NULL {
                continue;
            }
            let slot = slot as u32;
            let id = PageId::new(space, page);
            // A slot names a first page; its log is the page's newest.
            let (addr, lh, counted) = {
                let g = self.pool().fix(id, Latch::Shared)?;
                let (addr, lh) = LogHeader::newest(self.pool(), id, g.data())?;
                let counted = history_pages(self.pool(), id, g.data(), addr, lh.page_count)?;
                (addr, lh, counted)
            };
            rec.max_trx_id = rec.max_trx_id.max(lh.trx_id);
            let pages: Vec<u32> = self
                .chain(space, addr, lh.page_count, lh.last_page)?
                .into_iter()
                .map(|c| c.0)
                .collect();
            // Its pages, but a first page shared with history logs is
            // counted with the history below.
            self.undo_pages
                .fetch_add(u64::from(counted), Ordering::SeqCst);
            match lh.state {
                LogState::Active | LogState::Prepared => {
                    let log = UndoLog {
                        rseg: i,
                        slot,
                        space,
                        first_page: page,
                        header: addr.off,
                        last_page: lh.last_page,
                        page_count: lh.page_count,
                        trx_id: lh.trx_id,
                        next_undo_no: lh.records,
                        has_update: lh.has_update,
                        update_records: u64::MAX,
                    };
                    if lh.records > 0 {
                        // The header's record count must match the newest record.
                        let top = self.newest_records(&log, lh.records - 1, 1)?;
                        if top.len() != 1 {
                            return Err(corruption(
                                self.pool(),
                                id,
                                format!(
                                    "undo log header counts {} records, the log disagrees",
                                    lh.records
                                ),
                            ));
                        }
                    }
                    rec.active.push(log);
                }
                LogState::Committed if lh.has_update => {
                    self.finish_commit(i, slot, addr, &lh, counted)?;
                }
                LogState::Committed | LogState::Freeing => {
                    tracing::info!(space, page, trx_id = lh.trx_id, state = ?lh.state,
                        "finishing the free of an undo log interrupted by a crash");
                    self.free_log(i, slot, space, addr, &pages, None)?;
                }
                LogState::Freed => {
                    return Err(corruption(
                        self.pool(),
                        id,
                        format!("rollback segment slot {slot} names a freed undo log at {addr}"),
                    ));
                }
            }
        }
        let h = rseg.read(self.pool())?;
        rseg.inner.lock().recovered_history = h.hist_len;
        self.history_len.fetch_add(h.hist_len, Ordering::SeqCst);
        self.undo_pages.fetch_add(h.hist_pages, Ordering::SeqCst);
        Ok(())
    }

    /// Moves a committed log with update records from its slot to the
    /// history list (the second half of a commit step). `counted`: the pages
    /// it adds to the history's page count.
    fn finish_commit(
        &self,
        i: usize,
        slot: u32,
        addr: LogAddr,
        lh: &LogHeader,
        counted: u32,
    ) -> Result<()> {
        let rseg = &self.rsegs[i];
        let mut inner = rseg.inner.lock();
        let mut mtr = self.storage.mtr()?;
        let hdr = mtr.page(PageId::new(rseg.space, addr.page), Latch::Exclusive)?;
        let rs = rseg.latch(&mut mtr)?;
        rseg::check_slot(&mtr, rs, slot, addr.page)?;
        rseg::history_append(&mut mtr, rs, hdr, addr, counted)?;
        mtr.write_u32(rs, slot_offset(slot), FIL_NULL);
        mtr.commit()?;
        inner.free_slots.push(slot);
        // Counted again with the history's pages by the caller.
        self.undo_pages
            .fetch_sub(u64::from(counted), Ordering::SeqCst);
        tracing::info!(
            space = rseg.space,
            log = %addr,
            trx_id = lh.trx_id,
            "finished an interrupted undo log commit"
        );
        Ok(())
    }
}
