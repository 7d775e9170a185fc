//! The life of one undo log: creation (first page + slot), appending records,
//! truncation after a (partial) rollback, commit, discard, and freeing.
//!
//! Shared first pages: when a log that fits one page commits and its page
//! has room, the page goes to its rollback segment's cache, and a later
//! transaction starts its log there (its header after the previous log's
//! records) instead of allocating a page, as InnoDB reuses cached undo pages.
//! A page thus holds many small logs, and is freed when its last log is: a
//! freed log's header is marked `Freed`, and freed headers at the top of the
//! page are popped so the space is reused. Small transactions then cost a few
//! hundred bytes of undo instead of a page each, and seldom touch the space
//! allocator.
//!
//! Mini-transaction policy:
//! - `create_log`, `append` and the commit of a log with update records are
//!   one mini-transaction each;
//! - freeing a log (insert-only commit, discard, purge of a long log,
//!   recovery) and truncating free at most [`FREE_BATCH`] pages per
//!   mini-transaction, from the tail: each step cuts the chain (`next` of the
//!   new last page, `last page` and `page count` in the header) in the same
//!   mini-transaction that frees the pages, so a crash leaves a valid, shorter
//!   log. The last step of a free also empties the log's slot. A log being
//!   freed is first marked (state `Committed` or `Freeing`) so that recovery
//!   finishes the job instead of rolling it back;
//! - freed pages are retyped `Allocated` before they return to the space, so a
//!   dangling roll pointer is reported as corruption, not misread.

use std::sync::atomic::Ordering;

use super::format::{
    corruption, encode_record, headers, max_payload, page_records, slot_offset, u48_bytes, LogAddr,
    LogHeader, LogState, PageInfo, FLAG_HAS_UPDATE, LH_CSN, LH_FLAGS, LH_HIST_NEXT, LH_HIST_PREV,
    LH_LAST_PAGE, LH_MAGIC, LH_PAGE_COUNT, LH_PREV_HEADER, LH_RECORDS, LH_STATE, LH_TRX_ID,
    LOG_HEADER, LOG_MAGIC, PAGE_DATA, PH_FIRST_UNDO_NO, PH_FREE, PH_LAST_HEADER, PH_LOG_OFF,
    PH_LOG_PAGE, PH_TRX_ID, RECORD_OVERHEAD,
};
use super::rseg::RsegInner;
use super::{
    rseg, step_done, HistEntry, RollPtr, UndoLog, UndoStore, ER_TOO_MANY_CONCURRENT_TRXS,
    FREE_BATCH,
};
use crate::buffer::BufferPool;
use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::mtr::{Mtr, PageRef};
use crate::page::{bytes, offset, PageId, PageType, FIL_NULL, TRAILER_SIZE};
use crate::space::alloc;

/// Largest transaction id a log header can hold (48 bits).
const MAX_TRX_ID: u64 = (1 << 48) - 1;

impl UndoStore {
    /// Starts a transaction's log: a first page and a slot, in the next
    /// rollback segment (round robin) that has a free slot. Every slot in use is
    /// MySQL error 1637 ("Too many active concurrent transactions").
    pub fn create_log(&self, trx_id: u64) -> Result<UndoLog> {
        if trx_id > MAX_TRX_ID {
            return Err(EngineError::Internal(format!(
                "transaction id {trx_id} does not fit the 48-bit undo log header field"
            )));
        }
        let n = self.rsegs.len();
        let start = self.next_rseg.fetch_add(1, Ordering::Relaxed);
        for k in 0..n {
            let i = (start + k) % n;
            let rseg = &self.rsegs[i];
            let mut inner = rseg.inner.lock();
            let Some(slot) = inner.free_slots.pop() else {
                continue;
            };
            return match self.create_in(i, &mut inner, slot, trx_id) {
                Ok(log) => Ok(log),
                Err(e) => {
                    inner.free_slots.push(slot);
                    Err(e)
                }
            };
        }
        Err(EngineError::Schema {
            errno: ER_TOO_MANY_CONCURRENT_TRXS,
            message: "Too many active concurrent transactions".into(),
        })
    }

    /// Creates the log in `slot` of rollback segment `i` (its mutex held as
    /// `inner`): on a cached page with room, else on a new page.
    fn create_in(
        &self,
        i: usize,
        inner: &mut RsegInner,
        slot: u32,
        trx_id: u64,
    ) -> Result<UndoLog> {
        let rseg = &self.rsegs[i];
        let space = rseg.space;
        let mut mtr = self.storage.mtr()?;
        let mut placed = None;
        while let Some(page) = inner.cached.pop() {
            let id = PageId::new(space, page);
            let p = mtr.page(id, Latch::Exclusive)?;
            if let Some(h) = shared_header_offset(self.pool(), id, mtr.data(p))? {
                placed = Some((p, page, h, false));
                break;
            }
        }
        let (p, page, h, fresh) = match placed {
            Some(x) => x,
            None => {
                let rs = rseg.latch(&mut mtr)?;
                rseg::check_slot(&mtr, rs, slot, FIL_NULL)?;
                let page = alloc::alloc_page(&mut mtr, space)?;
                let p = mtr.new_page(PageId::new(space, page), PageType::Undo)?;
                (p, page, PAGE_DATA, true)
            }
        };
        let prev_header = mtr.data(p)[PH_LAST_HEADER..PH_LAST_HEADER + 2].to_vec();
        mtr.memset(p, h, LOG_HEADER, 0);
        mtr.write_u32(p, h + LH_MAGIC, LOG_MAGIC);
        mtr.write_u8(p, h + LH_STATE, LogState::Active as u8);
        mtr.write_bytes(p, h + LH_PREV_HEADER, &prev_header);
        mtr.write_bytes(p, h + LH_TRX_ID, &u48_bytes(trx_id));
        mtr.write_u32(p, h + LH_LAST_PAGE, page);
        mtr.write_u32(p, h + LH_PAGE_COUNT, 1);
        mtr.write_u32(p, h + LH_HIST_PREV, FIL_NULL);
        mtr.write_u32(p, h + LH_HIST_NEXT, FIL_NULL);
        mtr.write_u16(p, PH_FREE, (h + LOG_HEADER) as u16);
        mtr.write_u16(p, PH_LAST_HEADER, h as u16);
        let rs = rseg.latch(&mut mtr)?;
        rseg::check_slot(&mtr, rs, slot, FIL_NULL)?;
        mtr.write_u32(rs, slot_offset(slot), page);
        rseg::note_trx_id(&mut mtr, rs, trx_id);
        mtr.commit()?;
        if fresh {
            self.undo_pages.fetch_add(1, Ordering::SeqCst);
        }
        Ok(UndoLog {
            rseg: i,
            slot,
            space,
            first_page: page,
            header: h as u16,
            last_page: page,
            page_count: 1,
            trx_id,
            next_undo_no: 0,
            has_update: false,
            update_records: 0,
        })
    }

    /// Appends one record (one mini-transaction); returns its roll pointer and
    /// undo number. A record that does not fit the last page goes to a new
    /// page; a payload longer than [`max_payload`] is refused.
    pub fn append(
        &self,
        log: &mut UndoLog,
        is_insert: bool,
        payload: &[u8],
    ) -> Result<(RollPtr, u64)> {
        let ps = self.storage.page_size();
        if payload.len() > max_payload(ps) {
            return Err(EngineError::Internal(format!(
                "undo record payload of {} bytes exceeds the maximum of {} for {}-byte pages",
                payload.len(),
                max_payload(ps),
                ps.bytes()
            )));
        }
        let limit = ps.bytes() - TRAILER_SIZE;
        let undo_no = log.next_undo_no;
        let space = log.space;
        let mut mtr = self.storage.mtr()?;
        let last_id = PageId::new(space, log.last_page);
        let lp = mtr.page(last_id, Latch::Exclusive)?;
        let info = PageInfo::owned(self.pool(), last_id, mtr.data(lp), log.addr())?;
        let page_free = usize::from(bytes::get_u16(mtr.data(lp), PH_FREE));
        if info.next != FIL_NULL || info.free != page_free {
            return Err(corruption(
                self.pool(),
                last_id,
                format!(
                    "the undo log at {} cannot grow here: its last page has a successor (page {:#x}) or a newer log",
                    log.addr(),
                    info.next
                ),
            ));
        }
        let hdr = mtr.page(PageId::new(space, log.first_page), Latch::Exclusive)?;
        let h = log.addr().at();
        let need = RECORD_OVERHEAD + payload.len();
        let (target, target_page, off) = if info.free + need <= limit {
            (lp, log.last_page, info.free)
        } else {
            let np = alloc::alloc_page(&mut mtr, space)?;
            let r = mtr.new_page(PageId::new(space, np), PageType::Undo)?;
            init_continuation(&mut mtr, r, log.addr(), undo_no, log.trx_id);
            mtr.write_u32(r, offset::PREV, log.last_page);
            mtr.write_u32(lp, offset::NEXT, np);
            mtr.write_u32(hdr, h + LH_LAST_PAGE, np);
            mtr.write_u32(hdr, h + LH_PAGE_COUNT, log.page_count + 1);
            (r, np, PAGE_DATA)
        };
        let rec = encode_record(off, undo_no, is_insert, payload);
        mtr.write_bytes(target, off, &rec);
        mtr.write_u16(target, PH_FREE, (off + rec.len()) as u16);
        mtr.write_u64(hdr, h + LH_RECORDS, undo_no + 1);
        if !is_insert && !log.has_update {
            mtr.write_u8(hdr, h + LH_FLAGS, FLAG_HAS_UPDATE);
        }
        mtr.commit()?;
        if target_page != log.last_page {
            log.last_page = target_page;
            log.page_count += 1;
            self.undo_pages.fetch_add(1, Ordering::SeqCst);
        }
        log.next_undo_no = undo_no + 1;
        log.has_update |= !is_insert;
        log.update_records += u64::from(!is_insert);
        Ok((
            RollPtr::new(is_insert, space, target_page, off as u16),
            undo_no,
        ))
    }

    /// Removes the records with undo number `>= from` (after the caller rolled
    /// them back), freeing pages that become empty (never the first page).
    pub fn truncate(&self, log: &mut UndoLog, from: u64) -> Result<()> {
        if from >= log.next_undo_no {
            return Ok(());
        }
        let chain = self.chain(log.space, log.addr(), log.page_count, log.last_page)?;
        // Pages kept, and the free offset of the new last page.
        let mut keep = chain.len();
        let mut cut = None;
        for (idx, &(page, info)) in chain.iter().enumerate().rev() {
            if idx > 0 && info.first_undo_no >= from {
                keep = idx;
                continue;
            }
            let id = PageId::new(log.space, page);
            let g = self.pool().fix(id, Latch::Shared)?;
            let recs = page_records(self.pool(), id, g.data(), &info)?;
            cut = Some(
                recs.iter()
                    .find(|r| r.undo_no >= from)
                    .map_or(info.free, |r| r.offset),
            );
            keep = idx + 1;
            break;
        }
        let cut = cut.ok_or_else(|| {
            corruption(
                self.pool(),
                PageId::new(log.space, log.first_page),
                format!("undo log at {} has no first page to keep", log.addr()),
            )
        })?;
        let pages: Vec<u32> = chain.iter().map(|c| c.0).collect();
        let mut end = pages.len();
        loop {
            let start = keep.max(end.saturating_sub(FREE_BATCH));
            let last = start == keep;
            // Records left after this step: up to the first freed page's first
            // record, or `from` once the last page is cut.
            let records = if last {
                from
            } else {
                chain[start].1.first_undo_no
            };
            self.cut_tail(
                log.space,
                log.addr(),
                &pages[..end],
                start,
                last.then_some(cut),
                Some(records),
            )?;
            self.undo_pages
                .fetch_sub((end - start) as u64, Ordering::SeqCst);
            log.last_page = pages[start - 1];
            log.page_count = start as u32;
            log.next_undo_no = records;
            if last {
                return Ok(());
            }
            step_done()?;
            end = start;
        }
    }

    /// One mini-transaction: frees `pages[start..]` (the chain's tail;
    /// `start >= 1`), making `pages[start - 1]` the last page, optionally with
    /// a new free offset, and optionally setting the header's record count.
    pub(super) fn cut_tail(
        &self,
        space: u32,
        log: LogAddr,
        pages: &[u32],
        start: usize,
        new_free: Option<usize>,
        records: Option<u64>,
    ) -> Result<()> {
        let end = pages.len();
        let mut mtr = self.storage.mtr()?;
        let hdr = mtr.page(PageId::new(space, pages[0]), Latch::Exclusive)?;
        let tail = mtr.page(PageId::new(space, pages[start - 1]), Latch::Exclusive)?;
        let batch = latch_all(&mut mtr, space, &pages[start..end])?;
        mtr.write_u32(tail, offset::NEXT, FIL_NULL);
        if let Some(f) = new_free {
            mtr.write_u16(tail, PH_FREE, f as u16);
        }
        let h = log.at();
        mtr.write_u32(hdr, h + LH_LAST_PAGE, pages[start - 1]);
        mtr.write_u32(hdr, h + LH_PAGE_COUNT, start as u32);
        if let Some(r) = records {
            mtr.write_u64(hdr, h + LH_RECORDS, r);
        }
        for r in batch {
            mtr.write_u16(r, offset::PAGE_TYPE, PageType::Allocated as u16);
        }
        for &p in pages[start..end].iter().rev() {
            alloc::free_page(&mut mtr, space, p)?;
        }
        mtr.commit()?;
        Ok(())
    }

    /// Commit step (inside the caller's commit): the log is marked committed
    /// with `csn` and its slot freed; a log with only insert records is freed at
    /// once, one with update records joins its rollback segment's history list.
    /// A one-page log whose page has room offers the page to later logs.
    /// Returns the end LSN of the mini-transaction that made the commit step
    /// (flush the redo log up to it for durability).
    pub fn commit(&self, log: UndoLog, csn: u64) -> Result<u64> {
        let pages = self.log_pages(&log)?;
        if !log.has_update {
            return self.free_log(
                log.rseg,
                log.slot,
                log.space,
                log.addr(),
                &pages,
                Some((LogState::Committed, csn)),
            );
        }
        let rseg = self.rseg(log.rseg)?;
        let mut inner = rseg.inner.lock();
        let mut mtr = self.storage.mtr()?;
        let hid = PageId::new(log.space, log.first_page);
        let hdr = mtr.page(hid, Latch::Exclusive)?;
        let h = LogHeader::parse(self.pool(), hid, mtr.data(hdr), log.addr())?;
        if !matches!(h.state, LogState::Active | LogState::Prepared) {
            return Err(corruption(
                self.pool(),
                hid,
                format!("committing an undo log in state {:?}", h.state),
            ));
        }
        let counted = history_pages(self.pool(), hid, mtr.data(hdr), log.addr(), log.page_count)?;
        let rs = rseg.latch(&mut mtr)?;
        rseg::check_slot(&mtr, rs, log.slot, log.first_page)?;
        rseg::history_append(&mut mtr, rs, hdr, log.addr(), counted)?;
        rseg::set_state(&mut mtr, hdr, log.addr(), LogState::Committed);
        mtr.write_u64(hdr, log.addr().at() + LH_CSN, csn);
        mtr.write_u32(rs, slot_offset(log.slot), FIL_NULL);
        let room = log.page_count == 1 && has_room(self.pool(), mtr.data(hdr));
        let lsn = mtr.commit()?;
        inner.free_slots.push(log.slot);
        if room {
            offer_page(&mut inner, log.first_page);
        }
        drop(inner);
        self.history_len.fetch_add(1, Ordering::SeqCst);
        self.history.lock().insert(
            (csn, log.space, log.addr()),
            HistEntry {
                trx_id: log.trx_id,
                rseg: log.rseg,
                pages: log.page_count,
                reachable: log.update_records,
            },
        );
        Ok(lsn)
    }

    /// After a full rollback: frees the log and its slot (records still in it
    /// are dropped: recovery will not roll them back).
    pub fn discard(&self, log: UndoLog) -> Result<()> {
        let pages = self.log_pages(&log)?;
        self.free_log(
            log.rseg,
            log.slot,
            log.space,
            log.addr(),
            &pages,
            Some((LogState::Freeing, 0)),
        )?;
        Ok(())
    }

    /// The pages of a live log, in chain order (validated).
    pub(super) fn log_pages(&self, log: &UndoLog) -> Result<Vec<u32>> {
        Ok(self
            .chain(log.space, log.addr(), log.page_count, log.last_page)?
            .into_iter()
            .map(|c| c.0)
            .collect())
    }

    /// Frees the log `addr` whose pages are `pages` (chain order; `pages[0]`
    /// is its first page) held in `slot` of rollback segment `rseg_idx`, tail
    /// first, [`FREE_BATCH`] pages per mini-transaction; the last one releases
    /// the log's header (freeing the first page if no other log uses it) and
    /// empties the slot. `mark` (state, CSN) is written into the header by the
    /// first mini-transaction, whose end LSN is returned.
    pub(super) fn free_log(
        &self,
        rseg_idx: usize,
        slot: u32,
        space: u32,
        addr: LogAddr,
        pages: &[u32],
        mark: Option<(LogState, u64)>,
    ) -> Result<u64> {
        let rseg = self.rseg(rseg_idx)?;
        if pages.first() != Some(&addr.page) {
            return Err(EngineError::Internal(format!(
                "freeing the undo log at {addr} with pages {pages:?}"
            )));
        }
        let hid = PageId::new(space, addr.page);
        let mut end = pages.len();
        let mut first_lsn = None;
        loop {
            let start = end.saturating_sub(FREE_BATCH).max(1);
            let last = end <= FREE_BATCH + 1;
            let start = if last { 1 } else { start };
            // The last step changes the slot: it holds the segment's mutex.
            let mut inner = last.then(|| rseg.inner.lock());
            let mut mtr = self.storage.mtr()?;
            let hdr = mtr.page(hid, Latch::Exclusive)?;
            LogHeader::parse(self.pool(), hid, mtr.data(hdr), addr)?;
            let tail = mtr.page(PageId::new(space, pages[start - 1]), Latch::Exclusive)?;
            let batch = latch_all(&mut mtr, space, &pages[start..end])?;
            let rs = match last {
                true => {
                    let rs = rseg.latch(&mut mtr)?;
                    rseg::check_slot(&mtr, rs, slot, addr.page)?;
                    Some(rs)
                }
                false => None,
            };
            if first_lsn.is_none() {
                if let Some((state, csn)) = mark {
                    rseg::set_state(&mut mtr, hdr, addr, state);
                    mtr.write_u64(hdr, addr.at() + LH_CSN, csn);
                }
            }
            if start < end {
                mtr.write_u32(tail, offset::NEXT, FIL_NULL);
                mtr.write_u32(hdr, addr.at() + LH_LAST_PAGE, pages[start - 1]);
                mtr.write_u32(hdr, addr.at() + LH_PAGE_COUNT, start as u32);
            }
            for r in batch {
                mtr.write_u16(r, offset::PAGE_TYPE, PageType::Allocated as u16);
            }
            for &p in pages[start..end].iter().rev() {
                alloc::free_page(&mut mtr, space, p)?;
            }
            let mut freed = (end - start) as u64;
            if let Some(rs) = rs {
                let emptied = release_header(&mut mtr, hdr, addr)?;
                mtr.write_u32(rs, slot_offset(slot), FIL_NULL);
                let room = !emptied && has_room(self.pool(), mtr.data(hdr));
                if emptied {
                    alloc::free_page(&mut mtr, space, addr.page)?;
                    freed += 1;
                }
                let lsn = mtr.commit()?;
                first_lsn.get_or_insert(lsn);
                self.undo_pages.fetch_sub(freed, Ordering::SeqCst);
                if let Some(inner) = inner.as_mut() {
                    inner.free_slots.push(slot);
                    if emptied {
                        inner.cached.retain(|&p| p != addr.page);
                    } else if room {
                        offer_page(inner, addr.page);
                    }
                }
                return Ok(first_lsn.unwrap_or(lsn));
            }
            drop(inner.take());
            let lsn = mtr.commit()?;
            first_lsn.get_or_insert(lsn);
            self.undo_pages.fetch_sub(freed, Ordering::SeqCst);
            step_done()?;
            end = start;
        }
    }
}

/// Cached pages kept per rollback segment (more go uncached, harmlessly).
const MAX_CACHED: usize = 64;

/// Puts first page `page` in the segment's cache (once).
pub(super) fn offer_page(inner: &mut RsegInner, page: u32) {
    if inner.cached.len() < MAX_CACHED && !inner.cached.contains(&page) {
        inner.cached.push(page);
    }
}

/// True when a page whose newest log is committed can take another log: less
/// than three quarters of it is used (InnoDB's rule for reusing undo pages).
pub(super) fn has_room(pool: &BufferPool, d: &[u8]) -> bool {
    let free = usize::from(bytes::get_u16(d, PH_FREE));
    free + LOG_HEADER <= pool.page_size().bytes() * 3 / 4
}

/// Where a new log's header goes on cached page `id`, or `None` if the page
/// cannot take one any more (its newest log is not committed, or no room).
fn shared_header_offset(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<Option<usize>> {
    if !has_room(pool, d) {
        return Ok(None);
    }
    let Some(&(newest, _)) = headers(pool, id, d)?.first() else {
        return Ok(None);
    };
    let lh = LogHeader::parse(pool, id, d, LogAddr::new(id.page, newest))?;
    if lh.state != LogState::Committed || lh.page_count != 1 {
        return Ok(None);
    }
    Ok(Some(usize::from(bytes::get_u16(d, PH_FREE))))
}

/// Whether the header at `h` belongs to a log in the history list.
fn in_history(d: &[u8], h: usize) -> bool {
    d[h + LH_STATE] == LogState::Committed as u8 && d[h + LH_FLAGS] & FLAG_HAS_UPDATE != 0
}

/// Pages the log `log` of `page_count` pages adds to (or, leaving, takes
/// from) the history's page count, given its first page `id`: its other
/// pages, plus the first page unless another history log on it counts it.
pub(super) fn history_pages(
    pool: &BufferPool,
    id: PageId,
    d: &[u8],
    log: LogAddr,
    page_count: u32,
) -> Result<u32> {
    let others = headers(pool, id, d)?
        .iter()
        .filter(|&&(h, _)| h != log.at() && in_history(d, h))
        .count();
    Ok(page_count - 1 + u32::from(others == 0))
}

/// Marks the header of `addr` freed on its latched first page and pops freed
/// headers from the top of the page. Returns true when no log is left on the
/// page: the caller frees it (it has been retyped `Allocated` here).
pub(super) fn release_header(mtr: &mut Mtr<'_>, p: PageRef, addr: LogAddr) -> Result<bool> {
    let id = mtr.page_id(p);
    rseg::set_state(mtr, p, addr, LogState::Freed);
    let list = headers(mtr.pool(), id, mtr.data(p))?;
    let mut top = None;
    for &(h, _) in &list {
        if mtr.data(p)[h + LH_STATE] != LogState::Freed as u8 {
            top = Some(h);
            break;
        }
    }
    match top {
        None => {
            mtr.write_u16(p, offset::PAGE_TYPE, PageType::Allocated as u16);
            Ok(true)
        }
        Some(h) => {
            // Pop the freed headers above the newest live log.
            let newest = list.first().map_or(h, |x| x.0);
            if newest != h {
                let (_, end) = list
                    .iter()
                    .find(|x| x.0 == h)
                    .copied()
                    .unwrap_or((h, h + LOG_HEADER));
                mtr.write_u16(p, PH_FREE, end as u16);
                mtr.write_u16(p, PH_LAST_HEADER, h as u16);
            }
            Ok(false)
        }
    }
}

/// Writes the page header of a new continuation page of `log` (no record yet).
fn init_continuation(mtr: &mut Mtr<'_>, p: PageRef, log: LogAddr, first_undo_no: u64, trx_id: u64) {
    mtr.write_u16(p, PH_FREE, PAGE_DATA as u16);
    mtr.write_u32(p, PH_LOG_PAGE, log.page);
    mtr.write_u16(p, PH_LOG_OFF, log.off);
    mtr.write_u64(p, PH_FIRST_UNDO_NO, first_undo_no);
    mtr.write_bytes(p, PH_TRX_ID, &u48_bytes(trx_id));
    mtr.write_u16(p, PH_LAST_HEADER, 0);
}

/// X-latches `pages` of `space` in order.
fn latch_all(mtr: &mut Mtr<'_>, space: u32, pages: &[u32]) -> Result<Vec<PageRef>> {
    pages
        .iter()
        .map(|&p| mtr.page(PageId::new(space, p), Latch::Exclusive))
        .collect()
}
