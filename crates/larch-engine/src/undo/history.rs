//! The purge side: picking the oldest committed log, reading its records, and
//! removing it from its history list.
//!
//! Order: logs committed before the store was opened ("recovered", CSN taken
//! as 0) come first, each rollback segment's list from its head; then logs
//! committed since open by ascending (CSN, space, page), kept in an in-memory
//! map (their order in the on-page lists is commit order, which may differ
//! slightly from CSN order). The recovered entries are not read at open: a
//! count per rollback segment says how many list heads are still recovered
//! ones (new commits append at the tail, and recovered logs leave from the
//! head).
//!
//! Purge is expected to run in one thread; a [`HistoryLog`] handed out twice
//! and freed twice is refused (the second `free_history` finds it gone).

use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use super::format::{corruption, page_records, slot_offset, LogHeader, LogState, PageInfo};
use super::{
    rseg, step_done, HistEntry, HistoryIndex, HistoryLog, RollPtr, UndoRecord, UndoStore, FREE_BATCH,
};
use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::page::{offset, PageId, PageType, FIL_NULL};
use crate::space::alloc;

impl UndoStore {
    /// The oldest committed log in the history whose CSN is `<= horizon`
    /// (recovered logs first, with CSN 0), or `None`.
    pub fn oldest_history(&self, horizon: u64) -> Result<Option<HistoryLog>> {
        for (i, rseg) in self.rsegs.iter().enumerate() {
            let mut inner = rseg.inner.lock();
            if inner.recovered_history == 0 {
                continue;
            }
            let h = rseg.read(self.pool())?;
            if h.hist_first == FIL_NULL {
                inner.recovered_history = 0;
                continue;
            }
            let id = PageId::new(rseg.space, h.hist_first);
            let g = self.pool().fix(id, Latch::Shared)?;
            let lh = LogHeader::parse(self.pool(), id, g.data())?;
            return Ok(Some(HistoryLog {
                trx_id: lh.trx_id,
                csn: 0,
                rseg: i,
                space: rseg.space,
                first_page: h.hist_first,
                recovered: true,
                pages: lh.page_count,
                hint: Mutex::new((h.hist_first, 0)),
            }));
        }
        let map = self.history.lock();
        Ok(map
            .by_csn
            .iter()
            .next()
            .and_then(|(&key, e)| (key.0 <= horizon).then(|| HistoryLog::of(key, e))))
    }

    /// Notes that version chains no longer reach the non-insert record of
    /// the log starting at page `log_page` of `space` (a writer moved a roll
    /// pointer past it, see `table::version`). Once no record of a committed
    /// log is reachable, [`UndoStore::unreachable_history`] hands it out for
    /// purge ahead of its turn. Each record must be reported at most once;
    /// logs not in the in-memory history (recovered ones) are ignored.
    pub fn forget_record(&self, space: u32, log_page: u32) {
        let mut h = self.history.lock();
        let Some(&csn) = h.csn_of.get(&(space, log_page)) else {
            return;
        };
        let key = (csn, space, log_page);
        let Some(e) = h.by_csn.get_mut(&key) else {
            return;
        };
        e.reachable = e.reachable.saturating_sub(1);
        if e.reachable == 0 {
            h.unreachable.insert(key);
        }
    }

    /// The oldest committed log that no version chain reaches any more (see
    /// [`UndoStore::forget_record`]), whatever its commit order, or `None`.
    pub fn unreachable_history(&self) -> Option<HistoryLog> {
        let h = self.history.lock();
        let key = *h.unreachable.iter().next()?;
        h.by_csn.get(&key).map(|e| HistoryLog::of(key, e))
    }

    /// Logs waiting in [`UndoStore::unreachable_history`].
    pub fn unreachable_len(&self) -> usize {
        self.history.lock().unreachable.len()
    }

    /// Records of a history log with undo number `>= from_undo_no`, oldest
    /// first, at most `limit` of them (call again with the next undo number).
    pub fn history_records(
        &self,
        log: &HistoryLog,
        from_undo_no: u64,
        limit: usize,
    ) -> Result<Vec<UndoRecord>> {
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        let (hint_page, hint_undo) = *log.hint.lock();
        let mut page = if from_undo_no >= hint_undo {
            hint_page
        } else {
            log.first_page
        };
        let mut visited = 0u32;
        loop {
            let id = PageId::new(log.space, page);
            visited += 1;
            if visited > log.pages {
                return Err(corruption(
                    self.pool(),
                    id,
                    format!(
                        "undo log from page {} has more than its {} pages",
                        log.first_page, log.pages
                    ),
                ));
            }
            let g = self.pool().fix(id, Latch::Shared)?;
            let d = g.data();
            let info = PageInfo::parse(self.pool(), id, d, Some(log.first_page))?;
            *log.hint.lock() = (page, info.first_undo_no);
            for r in page_records(self.pool(), id, d, &info)? {
                if r.undo_no < from_undo_no {
                    continue;
                }
                out.push(UndoRecord {
                    undo_no: r.undo_no,
                    is_insert: r.is_insert,
                    trx_id: info.trx_id,
                    payload: r.payload.to_vec(),
                    ptr: RollPtr::new(r.is_insert, log.space, page, r.offset as u16),
                    log_page: log.first_page,
                });
                if out.len() == limit {
                    return Ok(out);
                }
            }
            if info.next == FIL_NULL {
                return Ok(out);
            }
            page = info.next;
        }
    }

    /// Removes the log from its history list and frees its pages. A log of at
    /// most [`FREE_BATCH`] pages goes in one mini-transaction; a longer one is
    /// first moved from the history list to a free slot in state `Freeing`
    /// (so a crash cannot leak it) and then freed in steps.
    pub fn free_history(&self, log: HistoryLog) -> Result<()> {
        let rseg = self.rseg(log.rseg)?;
        let mut inner = rseg.inner.lock();
        let key = (log.csn, log.space, log.first_page);
        let gone = || {
            EngineError::Internal(format!(
                "undo log at {} (trx {}) is not in the history list (freed twice?)",
                PageId::new(log.space, log.first_page),
                log.trx_id
            ))
        };
        if log.recovered {
            if inner.recovered_history == 0 || rseg.read(self.pool())?.hist_first != log.first_page
            {
                return Err(gone());
            }
        } else if !self.history.lock().by_csn.contains_key(&key) {
            return Err(gone());
        }
        let hid = PageId::new(log.space, log.first_page);
        let lh = {
            let g = self.pool().fix(hid, Latch::Shared)?;
            LogHeader::parse(self.pool(), hid, g.data())?
        };
        let pages: Vec<u32> = self
            .chain(log.space, log.first_page, lh.page_count, lh.last_page)?
            .into_iter()
            .map(|c| c.0)
            .collect();
        let slot = match pages.len() > FREE_BATCH {
            true => inner.free_slots.pop(),
            false => None,
        };
        let mut mtr = self.storage.mtr()?;
        let hdr = mtr.page(hid, Latch::Exclusive)?;
        let mut rest = Vec::new();
        if slot.is_none() {
            for &p in &pages[1..] {
                rest.push(mtr.page(PageId::new(log.space, p), Latch::Exclusive)?);
            }
        }
        let rs = rseg.latch(&mut mtr)?;
        if let Some(s) = slot {
            if let Err(e) = rseg::check_slot(&mtr, rs, s, FIL_NULL) {
                inner.free_slots.push(s);
                return Err(e);
            }
        }
        if let Err(e) = rseg::history_remove(&mut mtr, rs, hdr, log.first_page, lh.page_count) {
            if let Some(s) = slot {
                inner.free_slots.push(s);
            }
            return Err(e);
        }
        match slot {
            Some(s) => {
                rseg::set_state(&mut mtr, hdr, LogState::Freeing);
                mtr.write_u32(rs, slot_offset(s), log.first_page);
            }
            None => {
                for r in rest.into_iter().chain([hdr]) {
                    mtr.write_u16(r, offset::PAGE_TYPE, PageType::Allocated as u16);
                }
                for &p in pages.iter().rev() {
                    alloc::free_page(&mut mtr, log.space, p)?;
                }
            }
        }
        mtr.commit()?;
        if log.recovered {
            inner.recovered_history -= 1;
        } else {
            self.history.lock().remove(key);
        }
        drop(inner);
        self.history_len.fetch_sub(1, Ordering::SeqCst);
        match slot {
            Some(s) => {
                step_done()?;
                self.free_log(log.rseg, s, log.space, &pages, None)?;
            }
            None => {
                self.undo_pages
                    .fetch_sub(pages.len() as u64, Ordering::SeqCst);
            }
        }
        Ok(())
    }
}

impl HistoryLog {
    /// The handle of history entry `key` = (csn, space, first page).
    fn of(key: (u64, u32, u32), e: &HistEntry) -> Self {
        let (csn, space, page) = key;
        HistoryLog {
            trx_id: e.trx_id,
            csn,
            rseg: e.rseg,
            space,
            first_page: page,
            recovered: false,
            pages: e.pages,
            hint: Mutex::new((page, 0)),
        }
    }
}

impl HistoryIndex {
    pub(super) fn insert(&mut self, key: (u64, u32, u32), e: HistEntry) {
        self.csn_of.insert((key.1, key.2), key.0);
        if e.reachable == 0 {
            self.unreachable.insert(key);
        }
        self.by_csn.insert(key, e);
    }

    fn remove(&mut self, key: (u64, u32, u32)) {
        self.by_csn.remove(&key);
        self.csn_of.remove(&(key.1, key.2));
        self.unreachable.remove(&key);
    }
}
