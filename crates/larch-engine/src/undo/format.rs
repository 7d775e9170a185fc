//! On-page layout of undo log pages and rollback segment header pages, and the
//! validating parsers every reader goes through.
//!
//! Byte layouts (also in `docs/undo-log-format.md`; integers little-endian,
//! transaction ids stored in 6 bytes):
//!
//! ```text
//! undo page (type Undo)         FIL prev/next: previous/next page of the same log
//!  40 u16 free                  offset where the next record (or log header) goes
//!  42 u16 reserved
//!  44 u32 log page              continuation pages: first page of the owning log
//!  48 u64 first undo_no         continuation pages: undo_no of the first record
//!  56 6B  trx id                continuation pages: the owning log's transaction
//!  62 u16 log offset            continuation pages: offset of the owning log's header
//!  64 u16 last header           offset of the newest log header on the page;
//!                               0 on a continuation page
//!  66 6B  reserved              records of a continuation page start at 72
//! log header (56 bytes at offset h of the log's first page; the first log of a
//! page has h = 72; later logs of a shared page start at the free offset)
//!  +0 u32 magic "LUND"  +4 u8 state  +5 u8 flags (bit0: has update records)
//!  +6 u16 previous log header on this page (0 = none)
//!  +8 6B  trx id       +16 u64 commit CSN (0 until committed)
//! +24 u64 records (= next undo_no)
//! +32 u32 last page   +36 u32 page count
//! +40 u32 history prev page  +44 u16 its header offset
//! +46 u16 history next header offset  +48 u32 history next page  (FIL_NULL = none)
//! +52 u32 reserved    records from h + 56 up to the next header (or free)
//! record
//!  +0 u16 payload length  +2 u64 undo_no  +10 u8 flags (bit0 insert)
//! +11 payload             +11+len u16 offset of the record's first byte
//! rollback segment header page (type RollbackSegment)
//!  40 u32 magic "LRSG"  44 u32 format (2)  48 u64 max trx id ever given a log here
//!  56 u64 history length  64 u32 history first page  68 u32 history last page
//!  72 u64 history pages   80 u32 slot count  84 u16 history first offset
//!  86 u16 history last offset
//!  88 u32 x n slots: first page of a live log (its newest header), FIL_NULL = free
//! ```
//!
//! A log is named by a [`LogAddr`]: its first page and the offset of its
//! header there. Several logs may share a first page (a single-page log's page
//! is reused by later transactions while it has room, as InnoDB reuses cached
//! undo pages): their headers are chained newest to oldest, and each log's
//! records on that page run from its header to the next header. Only the
//! newest log of a page can be live (appending) or longer than one page, so
//! the first page's FIL `next` link is the newest log's: for an older log the
//! parsers end the chain on that page.
//!
//! Invariants: `PAGE_DATA <= free <= page_size - 8`; records are packed with
//! consecutive undo numbers; headers on a page increase in offset from the
//! oldest to the newest. The parsers check all of this and report a violation
//! as `EngineError::Corruption` naming the page; nothing here panics on bad
//! data.

use crate::buffer::BufferPool;
use crate::error::{EngineError, Result};
use crate::page::{bytes, PageHeader, PageId, PageSize, PageType, FIL_NULL, TRAILER_SIZE};

// ---- undo page header -------------------------------------------------------
pub(super) const PH_FREE: usize = 40;
pub(super) const PH_LOG_PAGE: usize = 44;
pub(super) const PH_FIRST_UNDO_NO: usize = 48;
pub(super) const PH_TRX_ID: usize = 56;
pub(super) const PH_LOG_OFF: usize = 62;
pub(super) const PH_LAST_HEADER: usize = 64;
/// First record offset on a continuation page; the first log header's offset
/// on a log's first page.
pub(super) const PAGE_DATA: usize = 72;

// ---- log header (relative to its offset) ------------------------------------
pub(super) const LH_MAGIC: usize = 0;
pub(super) const LH_STATE: usize = 4;
pub(super) const LH_FLAGS: usize = 5;
pub(super) const LH_PREV_HEADER: usize = 6;
pub(super) const LH_TRX_ID: usize = 8;
pub(super) const LH_CSN: usize = 16;
pub(super) const LH_RECORDS: usize = 24;
pub(super) const LH_LAST_PAGE: usize = 32;
pub(super) const LH_PAGE_COUNT: usize = 36;
pub(super) const LH_HIST_PREV: usize = 40;
pub(super) const LH_HIST_PREV_OFF: usize = 44;
pub(super) const LH_HIST_NEXT_OFF: usize = 46;
pub(super) const LH_HIST_NEXT: usize = 48;
/// Bytes of a log header; its records follow it.
pub(super) const LOG_HEADER: usize = 56;
pub(super) const LOG_MAGIC: u32 = 0x4C55_4E44; // "LUND"
pub(super) const FLAG_HAS_UPDATE: u8 = 1;

// ---- record -----------------------------------------------------------------
/// Bytes a record adds to its payload: length, undo_no, flags, trailing offset.
pub const RECORD_OVERHEAD: usize = 2 + 8 + 1 + 2;
const REC_UNDO_NO: usize = 2;
const REC_FLAGS: usize = 10;
const REC_PAYLOAD: usize = 11;
pub(super) const REC_FLAG_INSERT: u8 = 1;

// ---- rollback segment header ----------------------------------------------
pub(super) const RS_MAGIC: usize = 40;
pub(super) const RS_FORMAT: usize = 44;
pub(super) const RS_MAX_TRX_ID: usize = 48;
pub(super) const RS_HIST_LEN: usize = 56;
pub(super) const RS_HIST_FIRST: usize = 64;
pub(super) const RS_HIST_LAST: usize = 68;
pub(super) const RS_HIST_PAGES: usize = 72;
pub(super) const RS_SLOT_COUNT: usize = 80;
pub(super) const RS_HIST_FIRST_OFF: usize = 84;
pub(super) const RS_HIST_LAST_OFF: usize = 86;
pub(super) const RS_SLOTS: usize = 88;
pub(super) const RSEG_MAGIC: u32 = 0x4C52_5347; // "LRSG"
/// Format 2: log addresses (page + header offset) and shared first pages.
pub(super) const RSEG_FORMAT: u32 = 2;

/// Longest payload [`super::UndoStore::append`] accepts: a record alone on a
/// continuation page, `page_size - 72 - 8 - 13` bytes (4003 at 4k, 16291 at
/// 16k, 65443 at 64k).
pub const fn max_payload(page_size: PageSize) -> usize {
    page_size.bytes() - PAGE_DATA - TRAILER_SIZE - RECORD_OVERHEAD
}

/// Undo log slots of one rollback segment header page:
/// `(page_size - 88 - 8) / 4` (1000 at 4k, 4072 at 16k).
pub const fn slot_count(page_size: PageSize) -> usize {
    (page_size.bytes() - RS_SLOTS - TRAILER_SIZE) / 4
}

/// Offset of slot `i` on the rollback segment header page.
pub(super) fn slot_offset(i: u32) -> usize {
    RS_SLOTS + i as usize * 4
}

/// State of a log, stored in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LogState {
    /// Written by a live transaction (rolled back if found after a crash).
    Active = 1,
    /// Committed: in the history list, or an insert-only log being freed.
    Committed = 2,
    /// Prepared (XA, reserved): treated as active by recovery today.
    Prepared = 3,
    /// Being freed (after a rollback, or by purge); recovery finishes the job.
    Freeing = 4,
    /// Freed, on a first page that other logs still use (its bytes stay until
    /// the page is freed or the header is the newest and is popped).
    Freed = 5,
}

impl LogState {
    fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            1 => Self::Active,
            2 => Self::Committed,
            3 => Self::Prepared,
            4 => Self::Freeing,
            5 => Self::Freed,
            _ => return None,
        })
    }
}

pub(super) fn get_u48(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    a[..6].copy_from_slice(&b[off..off + 6]);
    u64::from_le_bytes(a)
}

pub(super) fn u48_bytes(v: u64) -> [u8; 6] {
    let b = v.to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4], b[5]]
}

/// `EngineError::Corruption` naming the page and its file.
pub(super) fn corruption(pool: &BufferPool, id: PageId, reason: impl Into<String>) -> EngineError {
    let path = pool
        .spaces()
        .get(id.space)
        .map(|f| pool.spaces().path_of(&f.name))
        .unwrap_or_default();
    EngineError::Corruption {
        path,
        page: id,
        reason: reason.into(),
    }
}

/// A log's name: its first page and the offset of its header there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LogAddr {
    pub page: u32,
    pub off: u16,
}

impl LogAddr {
    /// "No log" (list ends).
    pub const NONE: LogAddr = LogAddr {
        page: FIL_NULL,
        off: 0,
    };
    pub fn new(page: u32, off: usize) -> Self {
        LogAddr {
            page,
            off: off as u16,
        }
    }
    pub fn is_none(self) -> bool {
        self.page == FIL_NULL
    }
    /// Offset of the header on its page.
    pub fn at(self) -> usize {
        usize::from(self.off)
    }
}

impl std::fmt::Display for LogAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "page {} offset {}", self.page, self.off)
    }
}

/// One log's part of an undo page, validated: where its records lie.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageInfo {
    /// End of the log's records on this page (the page's free offset for the
    /// page's newest log, else the next header).
    pub free: usize,
    /// First record of the log on this page.
    pub start: usize,
    /// The log.
    pub log: LogAddr,
    pub first_undo_no: u64,
    pub trx_id: u64,
    pub prev: u32,
    pub next: u32,
}

/// Type and free-offset checks common to every undo page; returns (free,
/// last header).
fn page_basics(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<(usize, usize)> {
    let h = PageHeader(d);
    if h.page_type() != Some(PageType::Undo) {
        return Err(corruption(
            pool,
            id,
            format!(
                "expected an undo page, found page type {}",
                h.page_type_raw()
            ),
        ));
    }
    let free = usize::from(bytes::get_u16(d, PH_FREE));
    let last = usize::from(bytes::get_u16(d, PH_LAST_HEADER));
    let limit = d.len() - TRAILER_SIZE;
    let bad_last = last != 0 && (last < PAGE_DATA || last + LOG_HEADER > free);
    if free < PAGE_DATA || free > limit || bad_last {
        return Err(corruption(
            pool,
            id,
            format!("undo page has free offset {free} and last header {last} (page data {PAGE_DATA}..{limit})"),
        ));
    }
    Ok((free, last))
}

/// The log header offsets of a first page, newest first, with the end of
/// each log's records: `(header, end)`.
pub(super) fn headers(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    find_header(pool, id, d, |h, end| {
        out.push((h, end));
        false
    })?;
    Ok(out)
}

/// Walks the log headers of a first page, newest first, checking each, and
/// returns the first `(header, end)` that `stop` accepts (no allocation:
/// version reads go through here).
fn find_header(
    pool: &BufferPool,
    id: PageId,
    d: &[u8],
    mut stop: impl FnMut(usize, usize) -> bool,
) -> Result<Option<(usize, usize)>> {
    let (free, mut h) = page_basics(pool, id, d)?;
    let mut end = free;
    while h != 0 {
        if h < PAGE_DATA || h + LOG_HEADER > end || bytes::get_u32(d, h + LH_MAGIC) != LOG_MAGIC {
            return Err(corruption(
                pool,
                id,
                format!("undo page has a bad log header chain at offset {h} (next log at {end})"),
            ));
        }
        if stop(h, end) {
            return Ok(Some((h, end)));
        }
        end = h;
        h = usize::from(bytes::get_u16(d, h + LH_PREV_HEADER));
    }
    Ok(None)
}

impl PageInfo {
    /// The part of page `id` that belongs to `log`: its first page (the
    /// records after its header) or a continuation page of it.
    pub fn owned(pool: &BufferPool, id: PageId, d: &[u8], log: LogAddr) -> Result<Self> {
        let h = PageHeader(d);
        if id.page == log.page {
            let (start, end) =
                find_header(pool, id, d, |h, _| h == log.at())?.ok_or_else(|| {
                    corruption(
                        pool,
                        id,
                        format!("no undo log header at offset {}", log.off),
                    )
                })?;
            return Self::first_page_part(pool, id, d, start, end, h.prev(), h.next());
        }
        let info = Self::continuation(pool, id, d)?;
        if info.log != log {
            return Err(corruption(
                pool,
                id,
                format!(
                    "undo page belongs to the log at {}, expected {log}",
                    info.log
                ),
            ));
        }
        Ok(info)
    }

    /// The part of page `id` holding the record at offset `off`.
    pub fn containing(pool: &BufferPool, id: PageId, d: &[u8], off: usize) -> Result<Self> {
        let h = PageHeader(d);
        if bytes::get_u16(d, PH_LAST_HEADER) == 0 {
            return Self::continuation(pool, id, d);
        }
        let (start, end) = find_header(pool, id, d, |h, _| h < off)?.ok_or_else(|| {
            corruption(
                pool,
                id,
                format!("offset {off} lies before every log header"),
            )
        })?;
        Self::first_page_part(pool, id, d, start, end, h.prev(), h.next())
    }

    /// The part of first page `id` belonging to the log whose header is at
    /// `header` (its records end at `end`). The page's `next` link belongs to
    /// the page's newest log, the only one that can have more pages: an older
    /// log's chain ends on this page whatever the link says.
    fn first_page_part(
        pool: &BufferPool,
        id: PageId,
        d: &[u8],
        header: usize,
        end: usize,
        prev: u32,
        next: u32,
    ) -> Result<Self> {
        if prev != FIL_NULL {
            return Err(corruption(
                pool,
                id,
                "a log's first page has a previous page",
            ));
        }
        let newest = header == usize::from(bytes::get_u16(d, PH_LAST_HEADER));
        let next = if newest { next } else { FIL_NULL };
        Ok(PageInfo {
            free: end,
            start: header + LOG_HEADER,
            log: LogAddr::new(id.page, header),
            first_undo_no: 0,
            trx_id: get_u48(d, header + LH_TRX_ID),
            prev,
            next,
        })
    }

    fn continuation(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<Self> {
        let (free, last) = page_basics(pool, id, d)?;
        let h = PageHeader(d);
        if last != 0 || h.prev() == FIL_NULL {
            return Err(corruption(
                pool,
                id,
                "undo page is neither a log's first page nor a continuation page",
            ));
        }
        Ok(PageInfo {
            free,
            start: PAGE_DATA,
            log: LogAddr::new(
                bytes::get_u32(d, PH_LOG_PAGE),
                usize::from(bytes::get_u16(d, PH_LOG_OFF)),
            ),
            first_undo_no: bytes::get_u64(d, PH_FIRST_UNDO_NO),
            trx_id: get_u48(d, PH_TRX_ID),
            prev: h.prev(),
            next: h.next(),
        })
    }
}

/// A record parsed in place.
#[derive(Debug, Clone, Copy)]
pub(super) struct RawRecord<'a> {
    pub offset: usize,
    pub undo_no: u64,
    pub is_insert: bool,
    pub payload: &'a [u8],
}

impl RawRecord<'_> {
    /// Offset just past the record (where the next one starts).
    pub fn end(&self) -> usize {
        self.offset + RECORD_OVERHEAD + self.payload.len()
    }
}

/// Parses the record starting at `off` on a page whose header is `info`.
pub(super) fn record_at<'a>(
    pool: &BufferPool,
    id: PageId,
    d: &'a [u8],
    info: &PageInfo,
    off: usize,
) -> Result<RawRecord<'a>> {
    if off < info.start || off + RECORD_OVERHEAD > info.free {
        return Err(corruption(
            pool,
            id,
            format!(
                "undo record offset {off} is outside the page's records [{}, {})",
                info.start, info.free
            ),
        ));
    }
    let len = usize::from(bytes::get_u16(d, off));
    let end = off + RECORD_OVERHEAD + len;
    if end > info.free {
        return Err(corruption(
            pool,
            id,
            format!(
                "undo record at offset {off} of {len} payload bytes runs past the free offset {}",
                info.free
            ),
        ));
    }
    let back = usize::from(bytes::get_u16(d, end - 2));
    if back != off {
        return Err(corruption(
            pool,
            id,
            format!("undo record at offset {off} ends with start offset {back}"),
        ));
    }
    let flags = d[off + REC_FLAGS];
    Ok(RawRecord {
        offset: off,
        undo_no: bytes::get_u64(d, off + REC_UNDO_NO),
        is_insert: flags & REC_FLAG_INSERT != 0,
        payload: &d[off + REC_PAYLOAD..off + REC_PAYLOAD + len],
    })
}

/// The records of a page, oldest first, checked for consecutive undo numbers
/// starting at the page's first undo number.
pub(super) fn page_records<'a>(
    pool: &BufferPool,
    id: PageId,
    d: &'a [u8],
    info: &PageInfo,
) -> Result<Vec<RawRecord<'a>>> {
    let mut out = Vec::new();
    let mut off = info.start;
    let mut expect = info.first_undo_no;
    while off < info.free {
        let r = record_at(pool, id, d, info, off)?;
        if r.undo_no != expect {
            return Err(corruption(
                pool,
                id,
                format!(
                    "undo record at offset {off} has undo number {}, expected {expect}",
                    r.undo_no
                ),
            ));
        }
        expect += 1;
        off = r.end();
        out.push(r);
    }
    Ok(out)
}

/// Encodes one record.
pub(super) fn encode_record(
    offset: usize,
    undo_no: u64,
    is_insert: bool,
    payload: &[u8],
) -> Vec<u8> {
    let mut r = Vec::with_capacity(RECORD_OVERHEAD + payload.len());
    r.extend_from_slice(&(payload.len() as u16).to_le_bytes());
    r.extend_from_slice(&undo_no.to_le_bytes());
    r.push(if is_insert { REC_FLAG_INSERT } else { 0 });
    r.extend_from_slice(payload);
    r.extend_from_slice(&(offset as u16).to_le_bytes());
    r
}

/// The validated header of a log.
#[derive(Debug, Clone, Copy)]
pub(super) struct LogHeader {
    pub state: LogState,
    pub has_update: bool,
    pub trx_id: u64,
    pub records: u64,
    pub last_page: u32,
    pub page_count: u32,
    pub hist_prev: LogAddr,
    pub hist_next: LogAddr,
}

impl LogHeader {
    /// Parses the header of `log` on page `id` (its first page).
    pub fn parse(pool: &BufferPool, id: PageId, d: &[u8], log: LogAddr) -> Result<Self> {
        if id.page != log.page {
            return Err(EngineError::Internal(format!(
                "log header of {log} looked up on page {id}"
            )));
        }
        let info = PageInfo::owned(pool, id, d, log)?;
        let h = log.at();
        let state = LogState::from_u8(d[h + LH_STATE]).ok_or_else(|| {
            corruption(
                pool,
                id,
                format!(
                    "undo log header at {h} has unknown state {}",
                    d[h + LH_STATE]
                ),
            )
        })?;
        let addr = |page: usize, off: usize| {
            LogAddr::new(
                bytes::get_u32(d, h + page),
                usize::from(bytes::get_u16(d, h + off)),
            )
        };
        let lh = LogHeader {
            state,
            has_update: d[h + LH_FLAGS] & FLAG_HAS_UPDATE != 0,
            trx_id: info.trx_id,
            records: bytes::get_u64(d, h + LH_RECORDS),
            last_page: bytes::get_u32(d, h + LH_LAST_PAGE),
            page_count: bytes::get_u32(d, h + LH_PAGE_COUNT),
            hist_prev: addr(LH_HIST_PREV, LH_HIST_PREV_OFF),
            hist_next: addr(LH_HIST_NEXT, LH_HIST_NEXT_OFF),
        };
        let newest = h == usize::from(bytes::get_u16(d, PH_LAST_HEADER));
        let older_grown = !newest && (lh.page_count != 1 || lh.last_page != id.page);
        if lh.page_count == 0 || lh.last_page == FIL_NULL || older_grown {
            return Err(corruption(
                pool,
                id,
                format!(
                    "undo log header at {h} is inconsistent ({} pages, last page {}{})",
                    lh.page_count,
                    lh.last_page,
                    if older_grown {
                        "; only the newest log of a page can have more than that page"
                    } else {
                        ""
                    }
                ),
            ));
        }
        Ok(lh)
    }

    /// The header of the newest log on first page `id` (the log a slot names).
    pub fn newest(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<(LogAddr, Self)> {
        let (h, _) = headers(pool, id, d)?
            .first()
            .copied()
            .ok_or_else(|| corruption(pool, id, "undo page holds no log header"))?;
        let log = LogAddr::new(id.page, h);
        Ok((log, Self::parse(pool, id, d, log)?))
    }
}
