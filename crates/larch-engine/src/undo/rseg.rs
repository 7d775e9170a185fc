//! Rollback segments: the header page (slots, history list base) and its
//! in-memory companion (free slots, count of history entries from before the
//! store was opened).
//!
//! Invariants:
//! - a slot is free on the page iff it is in `free_slots` or a change that
//!   frees it is being committed by the owner of the log in it; a slot is taken
//!   from `free_slots` (under the mutex) before the page is written;
//! - history list changes (append, unlink) are made only while holding the
//!   segment's mutex, so the header pages of history logs have one writer;
//! - the history list is doubly linked through the log headers (log
//!   addresses: page and header offset); `length`, `first` and `last` in the
//!   header always describe it exactly, and `pages` counts the pages the
//!   history logs hold (a first page shared by several history logs once);
//! - every mini-transaction that latches the header page holds the mutex
//!   (so two of them never wait for each other's log pages: a first page may
//!   hold a history neighbour and another transaction's live log).

use parking_lot::Mutex;

use super::format::{
    corruption, slot_count, slot_offset, LogAddr, LogHeader, LogState, LH_HIST_NEXT,
    LH_HIST_NEXT_OFF, LH_HIST_PREV, LH_HIST_PREV_OFF, LH_STATE, RSEG_FORMAT, RSEG_MAGIC, RS_FORMAT,
    RS_HIST_FIRST, RS_HIST_FIRST_OFF, RS_HIST_LAST, RS_HIST_LAST_OFF, RS_HIST_LEN, RS_HIST_PAGES,
    RS_MAGIC, RS_MAX_TRX_ID, RS_SLOTS, RS_SLOT_COUNT,
};
use crate::buffer::{BufferPool, Latch};
use crate::error::Result;
use crate::mtr::{Mtr, PageRef};
use crate::page::{bytes, PageHeader, PageId, PageType, FIL_NULL};
use crate::space::{alloc, SYSTEM_SPACE};
use crate::storage::Storage;

/// Page of the rollback segment header in every undo tablespace.
pub const UNDO_SPACE_RSEG_PAGE: u32 = 2;

/// One rollback segment.
pub(super) struct Rseg {
    pub space: u32,
    pub page: u32,
    pub inner: Mutex<RsegInner>,
}

pub(super) struct RsegInner {
    /// Free slots (a stack: the most recently freed slot is reused first).
    pub free_slots: Vec<u32>,
    /// History entries committed before open, still at the front of the list.
    pub recovered_history: u64,
    /// First pages with room that new logs may share (each holds committed
    /// logs only); see `log::UndoStore::create_log`.
    pub cached: Vec<u32>,
}

/// The contents of a rollback segment header page.
#[derive(Debug, Clone)]
pub(super) struct RsegHeader {
    pub max_trx_id: u64,
    pub hist_len: u64,
    pub hist_first: LogAddr,
    pub hist_last: LogAddr,
    pub hist_pages: u64,
    pub slots: Vec<u32>,
}

/// Reads the rollback segment header page `id` (shared latch, copied out),
/// checking its type, magic, format and slot count.
pub(super) fn read_header(pool: &BufferPool, id: PageId) -> Result<RsegHeader> {
    let g = pool.fix(id, Latch::Shared)?;
    let d = g.data();
    check(pool, id, d)?;
    let n = bytes::get_u32(d, RS_SLOT_COUNT);
    Ok(RsegHeader {
        max_trx_id: bytes::get_u64(d, RS_MAX_TRX_ID),
        hist_len: bytes::get_u64(d, RS_HIST_LEN),
        hist_first: list_end(d, RS_HIST_FIRST, RS_HIST_FIRST_OFF),
        hist_last: list_end(d, RS_HIST_LAST, RS_HIST_LAST_OFF),
        hist_pages: bytes::get_u64(d, RS_HIST_PAGES),
        slots: (0..n).map(|i| bytes::get_u32(d, slot_offset(i))).collect(),
    })
}

impl Rseg {
    pub fn id(&self) -> PageId {
        PageId::new(self.space, self.page)
    }

    /// X-latches the header page in `mtr`, checking its identity.
    pub fn latch(&self, mtr: &mut Mtr<'_>) -> Result<PageRef> {
        let r = mtr.page(self.id(), Latch::Exclusive)?;
        check(mtr.pool(), self.id(), mtr.data(r))?;
        Ok(r)
    }

    /// Reads the header page (shared latch, copied out).
    pub fn read(&self, pool: &BufferPool) -> Result<RsegHeader> {
        read_header(pool, self.id())
    }
}

fn check(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<()> {
    let ty = PageHeader(d).page_type();
    if ty != Some(PageType::RollbackSegment) || bytes::get_u32(d, RS_MAGIC) != RSEG_MAGIC {
        return Err(corruption(
            pool,
            id,
            "not a rollback segment header page (bad type or magic)",
        ));
    }
    let format = bytes::get_u32(d, RS_FORMAT);
    if format != RSEG_FORMAT {
        return Err(corruption(
            pool,
            id,
            format!("undo log format {format} is not the format {RSEG_FORMAT} this Larch reads (the data directory was created by another version)"),
        ));
    }
    let n = bytes::get_u32(d, RS_SLOT_COUNT) as usize;
    if n != slot_count(pool.page_size()) {
        return Err(corruption(
            pool,
            id,
            format!(
                "rollback segment header has {n} slots, expected {}",
                slot_count(pool.page_size())
            ),
        ));
    }
    Ok(())
}

/// Formats a new rollback segment header at `page` (already allocated).
fn format(mtr: &mut Mtr<'_>, space: u32, page: u32) -> Result<()> {
    let ps = mtr.page_size();
    let r = mtr.new_page(PageId::new(space, page), PageType::RollbackSegment)?;
    mtr.write_u32(r, RS_MAGIC, RSEG_MAGIC);
    mtr.write_u32(r, RS_FORMAT, RSEG_FORMAT);
    write_addr(mtr, r, RS_HIST_FIRST, RS_HIST_FIRST_OFF, LogAddr::NONE);
    write_addr(mtr, r, RS_HIST_LAST, RS_HIST_LAST_OFF, LogAddr::NONE);
    let n = slot_count(ps);
    mtr.write_u32(r, RS_SLOT_COUNT, n as u32);
    mtr.memset(r, RS_SLOTS, n * 4, 0xFF);
    Ok(())
}

/// Finds (creating it if absent) the rollback segment header of `space`.
/// Undo tablespaces keep it at [`UNDO_SPACE_RSEG_PAGE`]; the system
/// tablespace at the page recorded in the system page.
pub(super) fn ensure(storage: &Storage, space: u32) -> Result<u32> {
    if space == SYSTEM_SPACE {
        if let Some(p) = storage.system_rseg_page()? {
            return Ok(p);
        }
        let mut mtr = storage.mtr()?;
        let p = alloc::alloc_page(&mut mtr, space)?;
        format(&mut mtr, space, p)?;
        Storage::set_system_rseg_page(&mut mtr, p)?;
        mtr.commit()?;
        tracing::info!(
            space,
            page = p,
            "created the rollback segment in the system tablespace"
        );
        return Ok(p);
    }
    let mut mtr = storage.mtr()?;
    if alloc::page_is_used(&mut mtr, space, UNDO_SPACE_RSEG_PAGE)? {
        mtr.commit()?;
        return Ok(UNDO_SPACE_RSEG_PAGE);
    }
    let p = alloc::alloc_page(&mut mtr, space)?;
    if p != UNDO_SPACE_RSEG_PAGE {
        drop(mtr);
        return Err(corruption(
            storage.pool(),
            PageId::new(space, UNDO_SPACE_RSEG_PAGE),
            format!(
                "undo tablespace has page {UNDO_SPACE_RSEG_PAGE} free but allocated page {p} first"
            ),
        ));
    }
    format(&mut mtr, space, p)?;
    mtr.commit()?;
    tracing::info!(space, page = p, "created a rollback segment");
    Ok(p)
}

/// Checks that slot `slot` of the latched header `r` holds `expect`.
pub(super) fn check_slot(mtr: &Mtr<'_>, r: PageRef, slot: u32, expect: u32) -> Result<()> {
    let n = bytes::get_u32(mtr.data(r), RS_SLOT_COUNT);
    let cur = if slot < n {
        bytes::get_u32(mtr.data(r), slot_offset(slot))
    } else {
        FIL_NULL
    };
    if slot >= n || cur != expect {
        return Err(corruption(
            mtr.pool(),
            mtr.page_id(r),
            format!("rollback segment slot {slot} holds page {cur:#x}, expected {expect:#x}"),
        ));
    }
    Ok(())
}

/// A history list end stored in the rollback segment header.
fn list_end(d: &[u8], page: usize, off: usize) -> LogAddr {
    LogAddr::new(bytes::get_u32(d, page), usize::from(bytes::get_u16(d, off)))
}

fn write_addr(mtr: &mut Mtr<'_>, r: PageRef, page: usize, off: usize, a: LogAddr) {
    mtr.write_u32(r, page, a.page);
    mtr.write_u16(r, off, a.off);
}

/// Latches the page of log `log` (a history neighbour) and checks that it is
/// committed.
fn latch_log_header(mtr: &mut Mtr<'_>, space: u32, log: LogAddr) -> Result<PageRef> {
    let id = PageId::new(space, log.page);
    let r = mtr.page(id, Latch::Exclusive)?;
    let h = LogHeader::parse(mtr.pool(), id, mtr.data(r), log)?;
    if h.state != LogState::Committed {
        return Err(corruption(
            mtr.pool(),
            id,
            format!(
                "undo log at {log} in the history list is in state {:?}, not committed",
                h.state
            ),
        ));
    }
    Ok(r)
}

/// Appends the committed log `addr` (its page latched as `log`) at the end of
/// the history list of header `rs`, adding `pages` to the history's page
/// count. Call with the segment's mutex held. Every fix happens before the
/// first change.
pub(super) fn history_append(
    mtr: &mut Mtr<'_>,
    rs: PageRef,
    log: PageRef,
    addr: LogAddr,
    pages: u32,
) -> Result<()> {
    let space = mtr.page_id(rs).space;
    let d = mtr.data(rs);
    let len = bytes::get_u64(d, RS_HIST_LEN);
    let (first, last) = (
        list_end(d, RS_HIST_FIRST, RS_HIST_FIRST_OFF),
        list_end(d, RS_HIST_LAST, RS_HIST_LAST_OFF),
    );
    let hist_pages = bytes::get_u64(d, RS_HIST_PAGES);
    if (len == 0) != first.is_none() || first.is_none() != last.is_none() {
        return Err(corruption(
            mtr.pool(),
            mtr.page_id(rs),
            format!("history list base is inconsistent (length {len}, first {first}, last {last})"),
        ));
    }
    let prev = match last.is_none() {
        true => None,
        false => Some(latch_log_header(mtr, space, last)?),
    };
    let h = addr.at();
    write_addr(mtr, log, h + LH_HIST_PREV, h + LH_HIST_PREV_OFF, last);
    write_addr(
        mtr,
        log,
        h + LH_HIST_NEXT,
        h + LH_HIST_NEXT_OFF,
        LogAddr::NONE,
    );
    match prev {
        Some(pr) => {
            let l = last.at();
            write_addr(mtr, pr, l + LH_HIST_NEXT, l + LH_HIST_NEXT_OFF, addr);
        }
        None => write_addr(mtr, rs, RS_HIST_FIRST, RS_HIST_FIRST_OFF, addr),
    }
    write_addr(mtr, rs, RS_HIST_LAST, RS_HIST_LAST_OFF, addr);
    mtr.write_u64(rs, RS_HIST_LEN, len + 1);
    mtr.write_u64(rs, RS_HIST_PAGES, hist_pages + u64::from(pages));
    Ok(())
}

/// Unlinks the log `addr` (its page latched as `log`) from the history list
/// of header `rs`, taking `pages` from the history's page count. Call with
/// the segment's mutex held. Every fix happens before the first change.
pub(super) fn history_remove(
    mtr: &mut Mtr<'_>,
    rs: PageRef,
    log: PageRef,
    addr: LogAddr,
    pages: u32,
) -> Result<()> {
    let space = mtr.page_id(rs).space;
    let id = PageId::new(space, addr.page);
    let h = LogHeader::parse(mtr.pool(), id, mtr.data(log), addr)?;
    let d = mtr.data(rs);
    let len = bytes::get_u64(d, RS_HIST_LEN);
    let (first, last) = (
        list_end(d, RS_HIST_FIRST, RS_HIST_FIRST_OFF),
        list_end(d, RS_HIST_LAST, RS_HIST_LAST_OFF),
    );
    let hist_pages = bytes::get_u64(d, RS_HIST_PAGES);
    let pool = mtr.pool();
    let bad = |why: &str| {
        corruption(
            pool,
            id,
            format!("cannot unlink the undo log at {addr} from the history list: {why}"),
        )
    };
    if h.state != LogState::Committed || len == 0 {
        return Err(bad("it is not a committed log in a non-empty list"));
    }
    if h.hist_prev.is_none() != (first == addr) || h.hist_next.is_none() != (last == addr) {
        return Err(bad("its links disagree with the list base"));
    }
    let prev = match h.hist_prev.is_none() {
        true => None,
        false => Some(latch_log_header(mtr, space, h.hist_prev)?),
    };
    let next = match h.hist_next.is_none() {
        true => None,
        false => Some(latch_log_header(mtr, space, h.hist_next)?),
    };
    let (p, n) = (h.hist_prev.at(), h.hist_next.at());
    if let Some(pr) = prev {
        if list_end(mtr.data(pr), p + LH_HIST_NEXT, p + LH_HIST_NEXT_OFF) != addr {
            return Err(bad("the previous log does not link to it"));
        }
    }
    if let Some(nx) = next {
        if list_end(mtr.data(nx), n + LH_HIST_PREV, n + LH_HIST_PREV_OFF) != addr {
            return Err(bad("the next log does not link back to it"));
        }
    }
    match prev {
        Some(pr) => write_addr(mtr, pr, p + LH_HIST_NEXT, p + LH_HIST_NEXT_OFF, h.hist_next),
        None => write_addr(mtr, rs, RS_HIST_FIRST, RS_HIST_FIRST_OFF, h.hist_next),
    }
    match next {
        Some(nx) => write_addr(mtr, nx, n + LH_HIST_PREV, n + LH_HIST_PREV_OFF, h.hist_prev),
        None => write_addr(mtr, rs, RS_HIST_LAST, RS_HIST_LAST_OFF, h.hist_prev),
    }
    let a = addr.at();
    write_addr(
        mtr,
        log,
        a + LH_HIST_PREV,
        a + LH_HIST_PREV_OFF,
        LogAddr::NONE,
    );
    write_addr(
        mtr,
        log,
        a + LH_HIST_NEXT,
        a + LH_HIST_NEXT_OFF,
        LogAddr::NONE,
    );
    mtr.write_u64(rs, RS_HIST_LEN, len - 1);
    mtr.write_u64(
        rs,
        RS_HIST_PAGES,
        hist_pages.saturating_sub(u64::from(pages)),
    );
    Ok(())
}

/// Raises the header's "max trx id" to `trx_id`.
pub(super) fn note_trx_id(mtr: &mut Mtr<'_>, rs: PageRef, trx_id: u64) {
    if bytes::get_u64(mtr.data(rs), RS_MAX_TRX_ID) < trx_id {
        mtr.write_u64(rs, RS_MAX_TRX_ID, trx_id);
    }
}

/// Writes state `s` into the header of `addr` on its latched page `log`.
pub(super) fn set_state(mtr: &mut Mtr<'_>, log: PageRef, addr: LogAddr, s: LogState) {
    mtr.write_u8(log, addr.at() + LH_STATE, s as u8);
}
