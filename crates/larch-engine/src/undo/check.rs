//! Verification of the undo logs, for `larch check` ([`check_undo`]).
//!
//! A page-level check sees only that undo pages have valid checksums; this
//! one reads the structures they hold. Per rollback segment:
//! - the header page (type, magic, format, slot count);
//! - every occupied slot names a first page whose newest log is in a state a
//!   slot may hold (active, prepared, committed, freeing);
//! - the history list: linked both ways, each log committed with update
//!   records, as long as the header's length, ending at the header's last
//!   entry, holding the header's page count;
//! - every log reached (from a slot or the history): its chain of pages (page
//!   type, owner, `prev`/`next` links, the header's page count and last page,
//!   continuation pages' transaction id and first undo number, pages marked
//!   used by the allocator, no page in two logs) and its records (lengths,
//!   trailing start offsets, consecutive undo numbers, as many as the header
//!   counts, the header's update flag);
//! - every first page: each log header on it is freed or reached;
//! - every page of the tablespace the allocator marks used is accounted
//!   for: an undo page no log reaches is a leak, and an undo tablespace holds
//!   nothing but its space header, descriptor, inode, rollback segment and
//!   undo pages.
//!
//! Runs on an open `Storage` without opening the undo store, which would
//! finish interrupted work and change pages: logs a crash left active and
//! frees a crash interrupted are valid states here. Changes nothing; pages
//! are read through the buffer pool one at a time with shared latches. Each
//! problem names the tablespace file and the page; corruption found on the
//! way is a problem, not an error (only I/O failures are `Err`).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::format::{
    headers, page_records, LogAddr, LogHeader, LogState, PageInfo, LH_STATE, LH_TRX_ID,
};
use super::rseg::{read_header, RsegHeader, UNDO_SPACE_RSEG_PAGE};
use crate::buffer::{BufferPool, Latch};
use crate::error::{EngineError, Result};
use crate::page::{PageHeader, PageId, PageType, FIL_NULL};
use crate::space::{alloc, SYSTEM_SPACE};
use crate::storage::{CheckReport, SpaceCheck, Storage};

/// One problem found in the undo logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoProblem {
    pub space: u32,
    /// The tablespace file, relative to the data directory (`undo001`).
    pub file: String,
    pub page: u32,
    pub reason: String,
}

impl std::fmt::Display for UndoProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: page {}: {}", self.file, self.page, self.reason)
    }
}

/// What [`check_undo`] found.
#[derive(Debug, Clone, Default)]
pub struct UndoCheck {
    /// Rollback segments verified.
    pub rollback_segments: u32,
    /// Logs in slots: active or prepared, or a commit or free a crash
    /// interrupted.
    pub live_logs: u64,
    /// Logs in the history lists.
    pub history_logs: u64,
    /// Undo pages the logs hold.
    pub pages: u64,
    /// Undo records verified.
    pub records: u64,
    /// Everything wrong; empty when the undo logs are sound.
    pub problems: Vec<UndoProblem>,
}

impl UndoCheck {
    /// True when no problem was found.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// Files each problem under its tablespace in `report` (whose lines name
    /// the file), adding an entry for a tablespace the report lacks.
    pub fn add_to(&self, report: &mut CheckReport) {
        for p in &self.problems {
            let text = format!("page {}: {}", p.page, p.reason);
            match report.spaces.iter_mut().find(|s| s.space == p.space) {
                Some(s) => s.problems.push(text),
                None => report.spaces.push(SpaceCheck {
                    space: p.space,
                    name: p.file.clone(),
                    problems: vec![text],
                    ..SpaceCheck::default()
                }),
            }
        }
    }
}

/// Verifies every rollback segment and undo log of `storage`. See the module
/// documentation.
pub fn check_undo(storage: &Storage) -> Result<UndoCheck> {
    let mut out = UndoCheck::default();
    let n = storage.undo_tablespaces_at_init()?;
    let segments: Vec<(u32, Option<u32>)> = if n == 0 {
        vec![(SYSTEM_SPACE, storage.system_rseg_page()?)]
    } else {
        (1..=n).map(|s| (s, Some(UNDO_SPACE_RSEG_PAGE))).collect()
    };
    for (space, rseg_page) in segments {
        let file = match storage.spaces().get(space) {
            Ok(f) => f.name.clone(),
            Err(e) => {
                out.problems.push(UndoProblem {
                    space,
                    file: crate::space::undo_file_name(space),
                    page: 0,
                    reason: format!("undo tablespace cannot be checked: {e}"),
                });
                continue;
            }
        };
        let mut c = SpaceChecker::new(storage, space, file, n > 0, &mut out)?;
        c.run(rseg_page)?;
    }
    Ok(out)
}

/// The check of one tablespace holding a rollback segment.
struct SpaceChecker<'a> {
    pool: &'a BufferPool,
    space: u32,
    file: String,
    /// A dedicated undo tablespace (else the system tablespace).
    dedicated: bool,
    size: u32,
    /// The allocator's used pages (`None` if its structures are unreadable;
    /// the tablespace check reports why).
    used: Option<Vec<bool>>,
    out: &'a mut UndoCheck,
    /// Continuation pages reached, with their log.
    owner: HashMap<u32, LogAddr>,
    /// First pages reached.
    first_pages: BTreeSet<u32>,
    /// Logs reached.
    reached: HashSet<LogAddr>,
    /// Pages found unreadable or unparsable (already reported: the leak and
    /// header scans skip them).
    damaged: HashSet<u32>,
}

impl<'a> SpaceChecker<'a> {
    fn new(
        storage: &'a Storage,
        space: u32,
        file: String,
        dedicated: bool,
        out: &'a mut UndoCheck,
    ) -> Result<Self> {
        let size = storage.spaces().size_pages(space)?;
        let mut mtr = storage.mtr()?;
        let used: Result<Vec<bool>> = (0..size)
            .map(|p| alloc::page_is_used(&mut mtr, space, p))
            .collect();
        mtr.commit()?;
        let used = match used {
            Ok(u) => Some(u),
            Err(e) if e.is_corruption() => None,
            Err(e) => return Err(e),
        };
        Ok(Self {
            pool: storage.pool(),
            space,
            file,
            dedicated,
            size,
            used,
            out,
            owner: HashMap::new(),
            first_pages: BTreeSet::new(),
            reached: HashSet::new(),
            damaged: HashSet::new(),
        })
    }

    fn problem(&mut self, page: u32, reason: impl Into<String>) {
        self.out.problems.push(UndoProblem {
            space: self.space,
            file: self.file.clone(),
            page,
            reason: reason.into(),
        });
    }

    /// Turns a corruption error into a problem (naming the page it names,
    /// else `page`); other errors are returned.
    fn error(&mut self, page: u32, context: &str, e: EngineError) -> Result<()> {
        match e {
            EngineError::Corruption {
                page: at, reason, ..
            } => {
                self.damaged.insert(page);
                self.damaged.insert(at.page);
                self.problem(at.page, format!("{context}: {reason}"));
                Ok(())
            }
            EngineError::CorruptFile { reason, .. } => {
                self.damaged.insert(page);
                self.problem(page, format!("{context}: {reason}"));
                Ok(())
            }
            e => Err(e),
        }
    }

    fn id(&self, page: u32) -> PageId {
        PageId::new(self.space, page)
    }

    /// True if the allocator says page `p` is free (unknown counts as used).
    fn is_free(&self, p: u32) -> bool {
        self.used
            .as_ref()
            .is_some_and(|u| u.get(p as usize) == Some(&false))
    }

    fn run(&mut self, rseg_page: Option<u32>) -> Result<()> {
        let Some(rp) = rseg_page else {
            return Ok(()); // the store was never opened: no rollback segment yet
        };
        if self.dedicated && self.is_free(rp) {
            // Created, never opened by the undo store: nothing to check, but
            // nothing may look like undo either.
            return self.leaks(rp);
        }
        let h = match read_header(self.pool, self.id(rp)) {
            Ok(h) => h,
            Err(e) => return self.error(rp, "rollback segment header", e),
        };
        self.out.rollback_segments += 1;
        self.slots(rp, &h)?;
        self.history(rp, &h)?;
        self.first_page_headers()?;
        self.out.pages += (self.owner.len() + self.first_pages.len()) as u64;
        self.leaks(rp)
    }

    /// The logs named by occupied slots.
    fn slots(&mut self, rp: u32, h: &RsegHeader) -> Result<()> {
        for (i, &page) in h.slots.iter().enumerate() {
            if page == FIL_NULL {
                continue;
            }
            let what = format!("slot {i}");
            if page >= self.size {
                self.problem(
                    rp,
                    format!(
                        "{what} names page {page}, beyond the file's {} pages",
                        self.size
                    ),
                );
                continue;
            }
            let id = self.id(page);
            let (addr, lh) = match read(self.pool, id, |d| LogHeader::newest(self.pool, id, d)) {
                Ok(x) => x,
                Err(e) => {
                    self.error(page, &what, e)?;
                    continue;
                }
            };
            if lh.state == LogState::Freed {
                self.problem(
                    page,
                    format!("{what} names the undo log at {addr}, which is freed"),
                );
                continue;
            }
            if lh.trx_id > h.max_trx_id {
                self.problem(rp, format!(
                    "the undo log at {addr} ({what}) has transaction id {}, above the segment's largest {}",
                    lh.trx_id, h.max_trx_id
                ));
            }
            self.out.live_logs += 1;
            self.log(addr, &lh, &what)?;
        }
        Ok(())
    }

    /// The history list, from its first log to its last.
    fn history(&mut self, rp: u32, h: &RsegHeader) -> Result<()> {
        let mut cur = h.hist_first;
        let mut prev = LogAddr::NONE;
        let mut n = 0u64;
        let mut pages = 0u64;
        let mut seen = HashSet::new();
        let mut counted_first = HashSet::new();
        while !cur.is_none() {
            if !seen.insert(cur) {
                self.problem(
                    cur.page,
                    format!("the history list loops back to the undo log at {cur}"),
                );
                return Ok(());
            }
            n += 1;
            let what = format!("history entry {n}");
            if cur.page >= self.size {
                self.problem(
                    rp,
                    format!(
                        "{what} names page {}, beyond the file's {} pages",
                        cur.page, self.size
                    ),
                );
                return Ok(());
            }
            let id = self.id(cur.page);
            let lh = match read(self.pool, id, |d| LogHeader::parse(self.pool, id, d, cur)) {
                Ok(lh) => lh,
                Err(e) => return self.error(cur.page, &what, e),
            };
            if lh.state != LogState::Committed || !lh.has_update {
                self.problem(
                    cur.page,
                    format!(
                    "the undo log at {cur} ({what}) is {:?}{}, not committed with update records",
                    lh.state,
                    if lh.has_update { "" } else { " insert-only" }
                ),
                );
            }
            if lh.trx_id > h.max_trx_id {
                self.problem(rp, format!(
                    "the undo log at {cur} ({what}) has transaction id {}, above the segment's largest {}",
                    lh.trx_id, h.max_trx_id
                ));
            }
            if lh.hist_prev != prev {
                self.problem(
                    cur.page,
                    format!(
                        "the undo log at {cur} ({what}) links back to {}, expected {}",
                        lh.hist_prev, prev
                    ),
                );
            }
            self.log(cur, &lh, &what)?;
            pages += u64::from(lh.page_count.saturating_sub(1));
            pages += u64::from(counted_first.insert(cur.page));
            prev = cur;
            cur = lh.hist_next;
        }
        if n != h.hist_len {
            self.problem(
                rp,
                format!(
                    "the history list holds {n} logs; the rollback segment header says {}",
                    h.hist_len
                ),
            );
        }
        if prev != h.hist_last {
            self.problem(
                rp,
                format!(
                    "the history list ends at {prev}; the rollback segment header says {}",
                    h.hist_last
                ),
            );
        }
        if pages != h.hist_pages {
            self.problem(
                rp,
                format!(
                    "the history logs hold {pages} pages; the rollback segment header counts {}",
                    h.hist_pages
                ),
            );
        }
        self.out.history_logs += n;
        Ok(())
    }

    /// One log: its chain of pages and its records.
    fn log(&mut self, addr: LogAddr, lh: &LogHeader, what: &str) -> Result<()> {
        let name = format!("the undo log at {addr} (trx {}, {what})", lh.trx_id);
        if !self.reached.insert(addr) {
            self.problem(addr.page, format!("{name} is reached a second time"));
            return Ok(());
        }
        self.first_pages.insert(addr.page);
        let mut page = addr.page;
        let mut prev = FIL_NULL;
        let mut count = 0u32;
        let mut records = 0u64;
        let mut updates = false;
        loop {
            count += 1;
            if count > lh.page_count {
                self.problem(
                    prev,
                    format!(
                        "{name} continues to page {page}, beyond the {} pages its header counts",
                        lh.page_count
                    ),
                );
                return Ok(());
            }
            if page >= self.size {
                self.problem(
                    prev,
                    format!(
                        "{name} links to page {page}, beyond the file's {} pages",
                        self.size
                    ),
                );
                return Ok(());
            }
            if page != addr.page {
                if let Some(other) = self.owner.insert(page, addr) {
                    self.problem(
                        page,
                        format!("{name} holds a page of the undo log at {other}"),
                    );
                    return Ok(());
                }
            }
            if self.is_free(page) {
                self.problem(
                    page,
                    format!("{name} holds this page, which the allocator says is free"),
                );
            }
            let g = match self.pool.fix(self.id(page), Latch::Shared) {
                Ok(g) => g,
                Err(e) => return self.error(page, &name, e),
            };
            let d = g.data();
            let info = match PageInfo::owned(self.pool, self.id(page), d, addr) {
                Ok(i) => i,
                Err(e) => return self.error(page, &name, e),
            };
            if info.prev != prev {
                self.problem(
                    page,
                    format!(
                        "{name}: the page links back to page {:#x}, expected {prev:#x}",
                        info.prev
                    ),
                );
                return Ok(());
            }
            let recs = match page_records(self.pool, self.id(page), d, &info) {
                Ok(r) => r,
                Err(e) => return self.error(page, &name, e),
            };
            if page != addr.page {
                if info.trx_id != lh.trx_id {
                    self.problem(
                        page,
                        format!("{name}: continuation page of transaction {}", info.trx_id),
                    );
                }
                if info.first_undo_no != records {
                    self.problem(page, format!(
                        "{name}: continuation page starts at undo number {}, the pages before end at {records}",
                        info.first_undo_no
                    ));
                }
                if recs.is_empty() {
                    self.problem(page, format!("{name}: continuation page holds no record"));
                }
            }
            records = info.first_undo_no + recs.len() as u64;
            updates |= recs.iter().any(|r| !r.is_insert);
            self.out.records += recs.len() as u64;
            let next = info.next;
            drop(g);
            if next == FIL_NULL {
                break;
            }
            prev = page;
            page = next;
        }
        if count != lh.page_count || page != lh.last_page {
            self.problem(addr.page, format!(
                "{name} has {count} pages ending at page {page}; its header says {} ending at page {}",
                lh.page_count, lh.last_page
            ));
        }
        // A free drops pages from the tail without lowering the record count
        // (the log is never read again), so one cut short keeps fewer.
        let being_freed =
            lh.state == LogState::Freeing || (lh.state == LogState::Committed && !lh.has_update);
        if records != lh.records && !(being_freed && records < lh.records) {
            self.problem(
                addr.page,
                format!(
                    "{name} holds {records} records; its header counts {}",
                    lh.records
                ),
            );
        }
        if updates && !lh.has_update {
            self.problem(
                addr.page,
                format!("{name} holds update records, but its header says insert-only"),
            );
        }
        Ok(())
    }

    /// Every log header on a reached first page is freed or reached.
    fn first_page_headers(&mut self) -> Result<()> {
        let pages: Vec<u32> = self
            .first_pages
            .iter()
            .filter(|p| !self.damaged.contains(p))
            .copied()
            .collect();
        for page in pages {
            let id = self.id(page);
            let reached = &self.reached;
            let lost = read(self.pool, id, |d| {
                let mut lost = Vec::new();
                for (h, _) in headers(self.pool, id, d)? {
                    let addr = LogAddr::new(page, h);
                    if d[h + LH_STATE] != LogState::Freed as u8 && !reached.contains(&addr) {
                        let trx = super::format::get_u48(d, h + LH_TRX_ID);
                        lost.push(format!(
                            "the undo log at {addr} (trx {trx}, state {}) is on the page, but no slot or history entry names it",
                            d[h + LH_STATE]
                        ));
                    }
                }
                Ok(lost)
            });
            let lost = match lost {
                Ok(l) => l,
                Err(e) => {
                    self.error(page, "first page", e)?;
                    continue;
                }
            };
            for l in lost {
                self.problem(page, l);
            }
        }
        Ok(())
    }

    /// Pages the allocator marks used that nothing accounts for.
    fn leaks(&mut self, rp: u32) -> Result<()> {
        let Some(used) = self.used.clone() else {
            return Ok(());
        };
        for (p, _) in used.iter().enumerate().filter(|(_, &u)| u) {
            let p = p as u32;
            if self.first_pages.contains(&p)
                || self.owner.contains_key(&p)
                || self.damaged.contains(&p)
            {
                continue;
            }
            // Unreadable pages (never written, bad checksum) are the
            // tablespace check's to report.
            let Ok(g) = self.pool.fix(self.id(p), Latch::Shared) else {
                continue;
            };
            let ty = PageHeader(g.data()).page_type();
            drop(g);
            match ty {
                Some(PageType::Undo) => {
                    self.problem(p, "undo page is allocated, but no undo log reaches it (leaked)");
                }
                Some(PageType::SpaceHeader | PageType::ExtentDescriptor | PageType::Inode) => {}
                Some(PageType::RollbackSegment) if p == rp => {}
                other if self.dedicated => self.problem(
                    p,
                    format!("page of type {other:?} is allocated in an undo tablespace, but belongs to no undo log"),
                ),
                _ => {}
            }
        }
        Ok(())
    }
}

/// Applies `f` to page `id` under a shared latch.
fn read<T>(pool: &BufferPool, id: PageId, f: impl FnOnce(&[u8]) -> Result<T>) -> Result<T> {
    let g = pool.fix(id, Latch::Shared)?;
    f(g.data())
}
