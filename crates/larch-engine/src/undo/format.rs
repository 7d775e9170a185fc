//! On-page layout of undo log pages and rollback segment header pages, and the
//! validating parsers every reader goes through.
//!
//! Byte layouts (also in `docs/undo-log-format.md`; integers little-endian,
//! transaction ids stored in 6 bytes):
//!
//! ```text
//! undo page (type Undo)         FIL prev/next: previous/next page of the same log
//!  40 u16 free                  offset where the next record goes
//!  42 u16 start                 offset of the first record (112 on a log's first
//!                               page, 64 on the others)
//!  44 u32 log page              first (header) page of the log owning this page
//!  48 u64 first undo_no         undo_no of the page's first record
//!  56 6B  trx id, 2 reserved
//! log header (first page only)
//!  64 u32 magic "LUND"          68 u8 state   69 u8 flags (bit0: has update records)
//!  72 6B  trx id                80 u64 commit CSN (0 until committed)
//!  88 u64 records (= next undo_no)
//!  96 u32 last page            100 u32 page count
//! 104 u32 history prev        108 u32 history next   (first pages, FIL_NULL = none)
//! record
//!  +0 u16 payload length  +2 u64 undo_no  +10 u8 flags (bit0 insert)
//! +11 payload             +11+len u16 offset of the record's first byte
//! rollback segment header page (type RollbackSegment)
//!  40 u32 magic "LRSG"  44 u32 format  48 u64 max trx id ever given a log here
//!  56 u64 history length  64 u32 history first  68 u32 history last
//!  72 u64 pages of the logs in the history      80 u32 slot count  84 reserved
//!  88 u32 x n slots: first page of a log, FIL_NULL = free
//! ```
//!
//! Invariants: `start <= free <= page_size - 8`; records are packed from `start`
//! to `free` with consecutive undo numbers; only a log's first page may hold no
//! record. The parsers check all of this and report a violation as
//! `EngineError::Corruption` naming the page; nothing here panics on bad data.

use crate::buffer::BufferPool;
use crate::error::{EngineError, Result};
use crate::page::{bytes, PageHeader, PageId, PageSize, PageType, FIL_NULL, TRAILER_SIZE};

// ---- undo page header -------------------------------------------------------
pub(super) const PH_FREE: usize = 40;
pub(super) const PH_START: usize = 42;
pub(super) const PH_LOG_PAGE: usize = 44;
pub(super) const PH_FIRST_UNDO_NO: usize = 48;
pub(super) const PH_TRX_ID: usize = 56;
/// First record offset on pages other than a log's first page.
pub(super) const PAGE_DATA: usize = 64;

// ---- log header (first page) -----------------------------------------------
pub(super) const LH_MAGIC: usize = 64;
pub(super) const LH_STATE: usize = 68;
pub(super) const LH_FLAGS: usize = 69;
pub(super) const LH_TRX_ID: usize = 72;
pub(super) const LH_CSN: usize = 80;
pub(super) const LH_RECORDS: usize = 88;
pub(super) const LH_LAST_PAGE: usize = 96;
pub(super) const LH_PAGE_COUNT: usize = 100;
pub(super) const LH_HIST_PREV: usize = 104;
pub(super) const LH_HIST_NEXT: usize = 108;
/// First record offset on a log's first page.
pub(super) const LOG_DATA: usize = 112;
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
pub(super) const RS_SLOTS: usize = 88;
pub(super) const RSEG_MAGIC: u32 = 0x4C52_5347; // "LRSG"
pub(super) const RSEG_FORMAT: u32 = 1;

/// Longest payload [`super::UndoStore::append`] accepts: a record alone on a
/// page that is not a log's first page, `page_size - 64 - 8 - 13` bytes
/// (4011 at 4k, 16299 at 16k, 65451 at 64k).
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
}

impl LogState {
    fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            1 => Self::Active,
            2 => Self::Committed,
            3 => Self::Prepared,
            4 => Self::Freeing,
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

/// The validated page header of an undo page.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageInfo {
    pub free: usize,
    pub start: usize,
    pub log_page: u32,
    pub first_undo_no: u64,
    pub trx_id: u64,
    pub prev: u32,
    pub next: u32,
}

impl PageInfo {
    /// Parses and checks the header of undo page `id`. `log_page`, when given,
    /// is the log the page must belong to.
    pub fn parse(pool: &BufferPool, id: PageId, d: &[u8], log_page: Option<u32>) -> Result<Self> {
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
        let info = PageInfo {
            free: usize::from(bytes::get_u16(d, PH_FREE)),
            start: usize::from(bytes::get_u16(d, PH_START)),
            log_page: bytes::get_u32(d, PH_LOG_PAGE),
            first_undo_no: bytes::get_u64(d, PH_FIRST_UNDO_NO),
            trx_id: get_u48(d, PH_TRX_ID),
            prev: h.prev(),
            next: h.next(),
        };
        let expect_start = if info.log_page == id.page {
            LOG_DATA
        } else {
            PAGE_DATA
        };
        if info.start != expect_start
            || info.free < info.start
            || info.free > d.len() - TRAILER_SIZE
        {
            return Err(corruption(
                pool,
                id,
                format!(
                    "undo page has start {} and free offset {} (expected start {expect_start}, free at most {})",
                    info.start,
                    info.free,
                    d.len() - TRAILER_SIZE
                ),
            ));
        }
        if let Some(lp) = log_page {
            if info.log_page != lp {
                return Err(corruption(
                    pool,
                    id,
                    format!(
                        "undo page belongs to the log at page {}, expected {lp}",
                        info.log_page
                    ),
                ));
            }
        }
        Ok(info)
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

/// The validated log header of a log's first page.
#[derive(Debug, Clone, Copy)]
pub(super) struct LogHeader {
    pub state: LogState,
    pub has_update: bool,
    pub trx_id: u64,
    pub records: u64,
    pub last_page: u32,
    pub page_count: u32,
    pub hist_prev: u32,
    pub hist_next: u32,
}

impl LogHeader {
    /// Parses the log header of page `id` (which must be the log's first page).
    pub fn parse(pool: &BufferPool, id: PageId, d: &[u8]) -> Result<Self> {
        let info = PageInfo::parse(pool, id, d, Some(id.page))?;
        if bytes::get_u32(d, LH_MAGIC) != LOG_MAGIC {
            return Err(corruption(pool, id, "undo log header has a bad magic"));
        }
        let state = LogState::from_u8(d[LH_STATE]).ok_or_else(|| {
            corruption(
                pool,
                id,
                format!("undo log header has unknown state {}", d[LH_STATE]),
            )
        })?;
        let h = LogHeader {
            state,
            has_update: d[LH_FLAGS] & FLAG_HAS_UPDATE != 0,
            trx_id: get_u48(d, LH_TRX_ID),
            records: bytes::get_u64(d, LH_RECORDS),
            last_page: bytes::get_u32(d, LH_LAST_PAGE),
            page_count: bytes::get_u32(d, LH_PAGE_COUNT),
            hist_prev: bytes::get_u32(d, LH_HIST_PREV),
            hist_next: bytes::get_u32(d, LH_HIST_NEXT),
        };
        if h.trx_id != info.trx_id || h.page_count == 0 || h.last_page == FIL_NULL {
            return Err(corruption(
                pool,
                id,
                format!(
                    "undo log header is inconsistent (trx id {} vs page {}, {} pages, last page {})",
                    h.trx_id, info.trx_id, h.page_count, h.last_page
                ),
            ));
        }
        Ok(h)
    }
}
