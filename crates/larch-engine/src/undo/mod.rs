//! The persistent undo log store: per-transaction undo logs in the undo
//! tablespaces, rollback segments with their slots and history lists, and roll
//! pointers. Byte layouts are in `docs/undo-log-format.md`.
//!
//! What it owns:
//! - one **rollback segment** per undo tablespace (spaces `1..=N`, page
//!   [`UNDO_SPACE_RSEG_PAGE`] = 2, the first page the allocator hands out after
//!   page 0 and the inode page 1); with no undo tablespaces, one in the system
//!   tablespace at a page recorded in the system page. Its header page holds the
//!   *slots* (first pages of the logs of live transactions) and the base of the
//!   *history list* (committed logs with update records, awaiting purge);
//! - **undo logs**: each a doubly linked chain (FIL header prev/next) of
//!   `Undo` pages, allocated one at a time as fragment pages of the space
//!   (`space::alloc::alloc_page`; no segment per log), named by a [`LogAddr`]
//!   (first page + header offset). Small logs share first pages: a committed
//!   one-page log offers its page to the next logs of its segment, so a short
//!   transaction costs a few hundred bytes of undo, not a page (see `log`);
//!   records never span pages;
//! - **roll pointers** ([`RollPtr`]) naming a record by space, page and offset.
//!
//! Invariants:
//! - every change is one or more mini-transactions, each leaving the
//!   structures consistent (so crash recovery = redo replay + [`UndoStore::open`]);
//! - a log is reachable from exactly one place: a slot (active, prepared, or
//!   committed/freeing but not yet finished; always its page's newest log) or
//!   the history list;
//! - undo numbers of a log are `0, 1, 2, ...` without gaps, in page order;
//! - a log's pages are changed only by its owner ([`UndoLog`] is not shared)
//!   or, once it is in the history list, under its rollback segment's mutex.
//!
//! Latch order (deadlock freedom): a rollback segment's mutex (history and
//! slot changes) before any page latch; inside a mini-transaction, the log's
//! own pages, then the rollback segment header page, then (history list only,
//! always under the mutex) the header pages of neighbouring logs, then the
//! space allocator's pages. No page latch is held across calls; readers latch
//! one page at a time (shared) and copy out.
//!
//! Usage: one [`UndoStore`] per engine ([`UndoStore::open`] after
//! `Storage::open`, which has replayed redo). A transaction gets an [`UndoLog`]
//! from [`UndoStore::create_log`] at its first write, [`UndoStore::append`]s
//! one record per change, and ends with [`UndoStore::commit`] or
//! ([`UndoStore::newest_records`] + [`UndoStore::truncate`] until empty, then)
//! [`UndoStore::discard`]. Purge drains [`UndoStore::oldest_history`].
//! Rolling back a record twice must be harmless for the caller: records
//! applied but not yet truncated when a crash hits are returned again.
//!
//! Verification: [`check_undo`] reads every rollback segment, slot, history
//! list, log chain and record without opening the store (`larch check`).
//!
//! Errors: the 1637 error when every slot is taken; `Corruption` naming the
//! space and page for any on-page inconsistency (never a panic); `Internal`
//! for misuse (payload longer than [`max_payload`], null roll pointer, a
//! history log freed twice). An error from a multi-step operation after its
//! first mini-transaction (an I/O failure) leaves the log marked for
//! [`UndoStore::open`] to finish: a commit step that failed there is still a
//! commit.

mod check;
mod format;
mod history;
mod log;
mod read;
mod recover;
mod rseg;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_check;
#[cfg(test)]
mod tests_recovery;
#[cfg(test)]
mod tests_shared;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{EngineError, Result};
use crate::storage::Storage;

pub use check::{check_undo, UndoCheck, UndoProblem};
pub use format::{max_payload, slot_count, LogAddr, RECORD_OVERHEAD};
pub use rseg::UNDO_SPACE_RSEG_PAGE;

/// MySQL's error 1637 (ER_TOO_MANY_CONCURRENT_TRXS), returned by
/// [`UndoStore::create_log`] as `EngineError::Schema { errno: 1637, .. }`.
pub const ER_TOO_MANY_CONCURRENT_TRXS: u16 = 1637;

/// Pages freed per mini-transaction when a log is freed or truncated; logs up
/// to this many pages are freed in one mini-transaction.
pub(crate) const FREE_BATCH: usize = 32;

#[cfg(test)]
thread_local! {
    /// Test hook: steps left before a multi-step operation stops (see [`step_done`]).
    static STOP_AFTER_STEPS: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
}

/// Called between the mini-transactions of a multi-step operation (freeing,
/// truncating). In tests it can end the operation early with an error, as a
/// crash between two mini-transactions would; otherwise it does nothing.
fn step_done() -> Result<()> {
    #[cfg(test)]
    {
        if let Some(n) = STOP_AFTER_STEPS.with(|c| c.get()) {
            if n == 0 {
                STOP_AFTER_STEPS.with(|c| c.set(None));
                return Err(EngineError::Internal(
                    "test: stopped between mini-transactions".into(),
                ));
            }
            STOP_AFTER_STEPS.with(|c| c.set(Some(n - 1)));
        }
    }
    Ok(())
}

/// A roll pointer (InnoDB's 56-bit DB_ROLL_PTR): bit 55 = insert flag, bits
/// 48..55 = undo space id (7 bits), bits 16..48 = page number, bits 0..16 =
/// byte offset of the record in its page. [`RollPtr::NONE`] (0) = no older
/// version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RollPtr(pub u64);

impl RollPtr {
    /// No older version.
    pub const NONE: RollPtr = RollPtr(0);
    /// Largest undo space id a roll pointer can name.
    pub const MAX_SPACE: u32 = 127;

    /// Builds a roll pointer; `space` is masked to 7 bits (undo spaces are
    /// `0..=127`, which `UndoStore` guarantees).
    pub const fn new(is_insert: bool, space: u32, page: u32, offset: u16) -> Self {
        RollPtr(
            ((is_insert as u64) << 55)
                | (((space & 0x7f) as u64) << 48)
                | ((page as u64) << 16)
                | offset as u64,
        )
    }
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }
    pub const fn is_insert(self) -> bool {
        self.0 >> 55 & 1 == 1
    }
    pub const fn space(self) -> u32 {
        (self.0 >> 48 & 0x7f) as u32
    }
    pub const fn page(self) -> u32 {
        (self.0 >> 16) as u32
    }
    pub const fn offset(self) -> u16 {
        self.0 as u16
    }
}

impl std::fmt::Display for RollPtr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "roll pointer {:#x} (space {}, page {}, offset {}{})",
            self.0,
            self.space(),
            self.page(),
            self.offset(),
            if self.is_insert() { ", insert" } else { "" }
        )
    }
}

/// One undo record, copied out of its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoRecord {
    pub undo_no: u64,
    pub is_insert: bool,
    pub trx_id: u64,
    pub payload: Vec<u8>,
    pub ptr: RollPtr,
    /// The log holding the record (with `ptr.space()`, the log's identity;
    /// see [`UndoStore::forget_record`]).
    pub log: LogAddr,
}

/// One transaction's undo log, owned by the transaction (not shared).
#[derive(Debug)]
pub struct UndoLog {
    rseg: usize,
    slot: u32,
    space: u32,
    first_page: u32,
    /// Offset of the log header on the first page.
    header: u16,
    last_page: u32,
    page_count: u32,
    trx_id: u64,
    next_undo_no: u64,
    has_update: bool,
    /// Non-insert records appended (not lowered by truncation, so it may
    /// overcount, which only delays an early free). `u64::MAX` = unknown.
    update_records: u64,
}

impl UndoLog {
    pub fn trx_id(&self) -> u64 {
        self.trx_id
    }
    /// The undo number the next record gets (= number of records).
    pub fn next_undo_no(&self) -> u64 {
        self.next_undo_no
    }
    pub fn is_empty(&self) -> bool {
        self.next_undo_no == 0
    }
    /// True once a non-insert record was appended (stays true after a
    /// truncate: the log then goes to the history list at commit, harmlessly).
    pub fn has_update_records(&self) -> bool {
        self.has_update
    }
    /// Undo tablespace of the log.
    pub fn space(&self) -> u32 {
        self.space
    }
    /// Pages the log occupies (its first page may be shared with other logs).
    pub fn page_count(&self) -> u32 {
        self.page_count
    }
    /// The log's address: first page and header offset.
    pub fn addr(&self) -> LogAddr {
        LogAddr {
            page: self.first_page,
            off: self.header,
        }
    }
}

/// A committed log in a history list, as handed to purge.
#[derive(Debug)]
pub struct HistoryLog {
    pub trx_id: u64,
    /// Commit CSN; 0 for logs committed before the store was opened.
    pub csn: u64,
    rseg: usize,
    space: u32,
    log: LogAddr,
    recovered: bool,
    /// Pages of the log (bounds chain walks).
    pages: u32,
    /// Where [`UndoStore::history_records`] resumes: (page, its first undo_no).
    hint: Mutex<(u32, u64)>,
}

impl HistoryLog {
    /// Undo tablespace of the log.
    pub fn space(&self) -> u32 {
        self.space
    }
}

/// What [`UndoStore::open`] found.
#[derive(Debug, Default)]
pub struct RecoveredUndo {
    /// Logs of transactions active (or prepared) at the crash, to roll back and
    /// discard; includes logs with no record.
    pub active: Vec<UndoLog>,
    /// Largest transaction id any rollback segment ever gave a log.
    pub max_trx_id: u64,
    /// Committed logs awaiting purge.
    pub history_len: u64,
    /// The persisted transaction-id bound (see [`UndoStore::trx_id_bound`]).
    pub trx_id_bound: u64,
}

/// A history entry committed since open, keyed in the map by (csn, space, log).
#[derive(Debug, Clone, Copy)]
struct HistEntry {
    trx_id: u64,
    rseg: usize,
    pages: u32,
    /// Non-insert records of the log that version chains may still reach
    /// (see [`UndoStore::forget_record`]); the log can be purged early at 0.
    reachable: u64,
}

/// (csn, space, log): the purge order of history logs committed since open.
type HistKey = (u64, u32, LogAddr);

/// The logs committed since open, in purge order, with the lookups the
/// early purge of unreachable logs needs.
#[derive(Debug, Default)]
struct HistoryIndex {
    /// By (csn, space, first page): purge order.
    by_csn: BTreeMap<HistKey, HistEntry>,
    /// (space, log) -> csn.
    csn_of: HashMap<(u32, LogAddr), u64>,
    /// Logs no version chain reaches any more, in purge order.
    unreachable: BTreeSet<HistKey>,
}

/// The undo log store of an engine. See the module documentation.
pub struct UndoStore {
    storage: Arc<Storage>,
    rsegs: Vec<rseg::Rseg>,
    next_rseg: AtomicUsize,
    history: Mutex<HistoryIndex>,
    history_len: AtomicU64,
    undo_pages: AtomicU64,
    trx_id_bound: AtomicU64,
}

impl std::fmt::Debug for UndoStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UndoStore")
            .field("rollback_segments", &self.rsegs.len())
            .field("history_len", &self.history_len())
            .field("undo_pages", &self.undo_pages())
            .finish()
    }
}

impl UndoStore {
    /// Opens the store over an open `Storage` (redo already replayed): creates
    /// rollback segment headers that do not exist yet, finishes commits and
    /// frees that a crash interrupted, and returns the logs of transactions that
    /// were active. Call once per `Storage`, before any transaction.
    pub fn open(storage: Arc<Storage>) -> Result<(UndoStore, RecoveredUndo)> {
        recover::open(storage)
    }

    /// The storage the store works on.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    /// Spaces holding rollback segments, in rollback segment order.
    pub fn undo_spaces(&self) -> Vec<u32> {
        self.rsegs.iter().map(|r| r.space).collect()
    }

    /// InnoDB's "History list length": committed logs not yet purged.
    pub fn history_len(&self) -> u64 {
        self.history_len.load(Ordering::SeqCst)
    }

    /// Pages currently used by undo logs (live and in the history).
    pub fn undo_pages(&self) -> u64 {
        self.undo_pages.load(Ordering::SeqCst)
    }

    /// Raises the persisted transaction-id bound to `bound` (it never
    /// decreases) with a redo-logged write to the system page. The write is
    /// durable no later than any change logged after it (the log is
    /// sequential); no flush is done here.
    pub fn persist_trx_id_bound(&self, bound: u64) -> Result<()> {
        let mut mtr = self.storage.mtr()?;
        let stored = Storage::raise_trx_id_bound(&mut mtr, bound)?;
        mtr.commit()?;
        self.trx_id_bound.fetch_max(stored, Ordering::SeqCst);
        Ok(())
    }

    /// The persisted transaction-id bound (0 if never written).
    pub fn trx_id_bound(&self) -> u64 {
        self.trx_id_bound.load(Ordering::SeqCst)
    }

    fn pool(&self) -> &crate::buffer::BufferPool {
        self.storage.pool()
    }

    fn rseg(&self, i: usize) -> Result<&rseg::Rseg> {
        self.rsegs.get(i).ok_or_else(|| {
            EngineError::Internal(format!(
                "undo log names rollback segment {i}, which does not exist"
            ))
        })
    }
}
