//! Reading undo records: by roll pointer (MVCC version building, from any
//! thread), newest first for rollback, and chain walks.
//!
//! Every read fixes one page at a time with a shared latch, validates the page
//! header and the record (type, offsets, lengths, the trailing start offset,
//! consecutive undo numbers) and copies the record out; a violation is
//! `EngineError::Corruption` naming the space and page, never a panic.

use super::format::{corruption, page_records, record_at, LogAddr, PageInfo};
use super::{RollPtr, UndoLog, UndoRecord, UndoStore};
use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::page::{PageId, FIL_NULL};

impl UndoStore {
    /// Reads the record `ptr` points to (shared page latch, copied out).
    pub fn read(&self, ptr: RollPtr) -> Result<UndoRecord> {
        if ptr.is_none() {
            return Err(EngineError::Internal(
                "read of the null roll pointer (there is no older version)".into(),
            ));
        }
        let id = PageId::new(ptr.space(), ptr.page());
        if !self.rsegs.iter().any(|r| r.space == id.space) {
            return Err(EngineError::Internal(format!(
                "{ptr} names space {}, which holds no undo logs",
                id.space
            )));
        }
        let g = self.pool().fix(id, Latch::Shared)?;
        let d = g.data();
        let info = PageInfo::containing(self.pool(), id, d, usize::from(ptr.offset()))?;
        let r = record_at(self.pool(), id, d, &info, usize::from(ptr.offset()))?;
        if r.is_insert != ptr.is_insert() {
            return Err(corruption(
                self.pool(),
                id,
                format!("{ptr} disagrees with the record's insert flag"),
            ));
        }
        Ok(UndoRecord {
            undo_no: r.undo_no,
            is_insert: r.is_insert,
            trx_id: info.trx_id,
            payload: r.payload.to_vec(),
            ptr,
            log: info.log,
        })
    }

    /// Records of `log` from the newest back to (and including) undo number
    /// `down_to`, newest first, at most `limit` of them. For rollback: apply
    /// them, [`UndoStore::truncate`], and call again until none is left.
    pub fn newest_records(
        &self,
        log: &UndoLog,
        down_to: u64,
        limit: usize,
    ) -> Result<Vec<UndoRecord>> {
        let mut out = Vec::new();
        if limit == 0 || down_to >= log.next_undo_no {
            return Ok(out);
        }
        let mut expect = log.next_undo_no - 1;
        let mut page = log.last_page;
        let mut visited = 0u32;
        loop {
            let id = PageId::new(log.space, page);
            visited += 1;
            if visited > log.page_count || page == FIL_NULL {
                return Err(corruption(
                    self.pool(),
                    PageId::new(log.space, log.first_page),
                    format!(
                        "undo log chain ends or loops before undo number {expect} ({} pages)",
                        log.page_count
                    ),
                ));
            }
            let g = self.pool().fix(id, Latch::Shared)?;
            let d = g.data();
            let info = PageInfo::owned(self.pool(), id, d, log.addr())?;
            for r in page_records(self.pool(), id, d, &info)?.iter().rev() {
                if r.undo_no != expect {
                    return Err(corruption(
                        self.pool(),
                        id,
                        format!(
                            "undo record has undo number {}, expected {expect}",
                            r.undo_no
                        ),
                    ));
                }
                out.push(UndoRecord {
                    undo_no: r.undo_no,
                    is_insert: r.is_insert,
                    trx_id: info.trx_id,
                    payload: r.payload.to_vec(),
                    ptr: RollPtr::new(r.is_insert, log.space, page, r.offset as u16),
                    log: log.addr(),
                });
                if out.len() == limit || expect == down_to {
                    return Ok(out);
                }
                expect -= 1;
            }
            if page == log.first_page {
                return Err(corruption(
                    self.pool(),
                    id,
                    format!("undo log ends before undo number {expect}"),
                ));
            }
            page = info.prev;
        }
    }

    /// The pages of log `log` with its part of each, in chain order, checked
    /// against the header's `page_count` and `last` page.
    pub(super) fn chain(
        &self,
        space: u32,
        log: LogAddr,
        page_count: u32,
        last: u32,
    ) -> Result<Vec<(u32, PageInfo)>> {
        let first = log.page;
        let mut out: Vec<(u32, PageInfo)> = Vec::new();
        let mut page = first;
        let mut prev = FIL_NULL;
        loop {
            let id = PageId::new(space, page);
            if out.len() >= page_count as usize {
                return Err(corruption(
                    self.pool(),
                    id,
                    format!("undo log from page {first} has more than its {page_count} pages"),
                ));
            }
            let g = self.pool().fix(id, Latch::Shared)?;
            let info = PageInfo::owned(self.pool(), id, g.data(), log)?;
            drop(g);
            if info.prev != prev {
                return Err(corruption(
                    self.pool(),
                    id,
                    format!(
                        "undo page links back to page {:#x}, expected {prev:#x}",
                        info.prev
                    ),
                ));
            }
            out.push((page, info));
            if info.next == FIL_NULL {
                break;
            }
            prev = page;
            page = info.next;
        }
        if out.len() != page_count as usize || page != last {
            return Err(corruption(
                self.pool(),
                PageId::new(space, first),
                format!(
                    "undo log has {} pages ending at page {page}; its header says {page_count} ending at {last}",
                    out.len()
                ),
            ));
        }
        Ok(out)
    }
}
