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

use super::format::{
    corruption, page_records, slot_offset, LogAddr, LogHeader, LogState, PageInfo,
};
use super::log::{history_pages, release_header};
use super::{
    rseg, step_done, HistEntry, HistKey, HistoryIndex, HistoryLog, RollPtr, UndoRecord, UndoStore,
    FREE_BATCH,
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
            if h.hist_first.is_none() {
                inner.recovered_history = 0;
                continue;
            }
            let id = PageId::new(rseg.space, h.hist_first.page);
            let g = self.pool().fix(id, Latch::Shared)?;
            let lh = LogHeader::parse(self.pool(), id, g.data(), h.hist_first)?;
            return Ok(Some(HistoryLog {
                trx_id: lh.trx_id,
                csn: 0,
                rseg: i,
                space: rseg.space,
                log: h.hist_first,
                recovered: true,
                pages: lh.page_count,
                hint: Mutex::new((h.hist_first.page, 0)),
            }));
        }
        let map = self.history.lock();
        Ok(map
            .by_csn
            .iter()
            .next()
            .and_then(|(&key, e)| (key.0 <= horizon).then(|| HistoryLog::of(key, e))))
    }

    /// Notes that version chains no longer reach a non-insert record of
    /// the log `log` of undo space `space` (a writer moved a roll
    /// pointer past it, see `table::version`). Once no record of a committed
    /// log is reachable, [`UndoStore::unreachable_history`] hands it out for
    /// purge ahead of its turn. Each record must be reported at most once;
    /// logs not in the in-memory history (recovered ones) are ignored.
    pub fn forget_record(&self, space: u32, log: LogAddr) {
        let mut h = self.history.lock();
        let Some(&csn) = h.csn_of.get(&(space, log)) else {
            return;
        };
        let key = (csn, space, log);
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
            log.log.page
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
                        "undo log at {} has more than its {} pages",
                        log.log, log.pages
                    ),
                ));
            }
            let g = self.pool().fix(id, Latch::Shared)?;
            let d = g.data();
            let info = PageInfo::owned(self.pool(), id, d, log.log)?;
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
                    log: log.log,
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

    /// Removes the log from its history list and frees its pages (its first
    /// page once no other log uses it). A log of at most [`FREE_BATCH`] pages
    /// goes in one mini-transaction; a longer one is first moved from the
    /// history list to a free slot in state `Freeing` (so a crash cannot leak
    /// it) and then freed in steps.
    pub fn free_history(&self, log: HistoryLog) -> Result<()> {
        let rseg = self.rseg(log.rseg)?;
        let mut inner = rseg.inner.lock();
        let key = (log.csn, log.space, log.log);
        let gone = || {
            EngineError::Internal(format!(
                "undo log at {} of space {} (trx {}) is not in the history list (freed twice?)",
                log.log, log.space, log.trx_id
            ))
        };
        if log.recovered {
            if inner.recovered_history == 0 || rseg.read(self.pool())?.hist_first != log.log {
                return Err(gone());
            }
        } else if !self.history.lock().by_csn.contains_key(&key) {
            return Err(gone());
        }
        let hid = PageId::new(log.space, log.log.page);
        let lh = {
            let g = self.pool().fix(hid, Latch::Shared)?;
            LogHeader::parse(self.pool(), hid, g.data(), log.log)?
        };
        let pages: Vec<u32> = self
            .chain(log.space, log.log, lh.page_count, lh.last_page)?
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
        let counted = history_pages(self.pool(), hid, mtr.data(hdr), log.log, lh.page_count)?;
        let rs = rseg.latch(&mut mtr)?;
        if let Some(s) = slot {
            if let Err(e) = rseg::check_slot(&mtr, rs, s, FIL_NULL) {
                inner.free_slots.push(s);
                return Err(e);
            }
        }
        if let Err(e) = rseg::history_remove(&mut mtr, rs, hdr, log.log, counted) {
            if let Some(s) = slot {
                inner.free_slots.push(s);
            }
            return Err(e);
        }
        let mut emptied = false;
        match slot {
            Some(s) => {
                rseg::set_state(&mut mtr, hdr, log.log, LogState::Freeing);
                mtr.write_u32(rs, slot_offset(s), log.log.page);
            }
            None => {
                // The first page's next link names the log's second page; it
                // goes with the pages, or the page's next newest log would
                // inherit it (the link belongs to whichever log is newest).
                if pages.len() > 1 {
                    mtr.write_u32(hdr, offset::NEXT, FIL_NULL);
                }
                for r in rest {
                    mtr.write_u16(r, offset::PAGE_TYPE, PageType::Allocated as u16);
                }
                for &p in pages[1..].iter().rev() {
                    alloc::free_page(&mut mtr, log.space, p)?;
                }
                emptied = release_header(&mut mtr, hdr, log.log)?;
                if emptied {
                    alloc::free_page(&mut mtr, log.space, log.log.page)?;
                }
            }
        }
        mtr.commit()?;
        if log.recovered {
            inner.recovered_history -= 1;
        } else {
            self.history.lock().remove(key);
        }
        if emptied {
            inner.cached.retain(|&p| p != log.log.page);
        }
        drop(inner);
        self.history_len.fetch_sub(1, Ordering::SeqCst);
        match slot {
            Some(s) => {
                step_done()?;
                self.free_log(log.rseg, s, log.space, log.log, &pages, None)?;
            }
            None => {
                let freed = pages.len() as u64 - 1 + u64::from(emptied);
                self.undo_pages.fetch_sub(freed, Ordering::SeqCst);
            }
        }
        Ok(())
    }
}

impl HistoryLog {
    /// The handle of history entry `key` = (csn, space, first page).
    pub(super) fn of(key: HistKey, e: &HistEntry) -> Self {
        let (csn, space, log) = key;
        HistoryLog {
            trx_id: e.trx_id,
            csn,
            rseg: e.rseg,
            space,
            log,
            recovered: false,
            pages: e.pages,
            hint: Mutex::new((log.page, 0)),
        }
    }
}

impl HistoryIndex {
    pub(super) fn insert(&mut self, key: HistKey, e: HistEntry) {
        self.csn_of.insert((key.1, key.2), key.0);
        if e.reachable == 0 {
            self.unreachable.insert(key);
        }
        self.by_csn.insert(key, e);
    }

    fn remove(&mut self, key: HistKey) {
        self.by_csn.remove(&key);
        self.csn_of.remove(&(key.1, key.2));
        self.unreachable.remove(&key);
    }
}
