//! Crash recovery: redo replay from the last checkpoint.
//!
//! Runs when a data directory is opened, after torn pages were repaired from the
//! doublewrite buffer:
//! 1. [`scan_log`] reads every valid block from the checkpoint to the end of the
//!    log (see `wal::scan` for where the log ends) and applies file-level records
//!    (create, extend, delete) in log order;
//! 2. [`apply`] replays page records page by page, in page order: a page whose
//!    first record in the log is INIT_PAGE is rebuilt without reading it; any
//!    other page is read (a never-written page counts as empty) and only blocks
//!    whose end LSN is above the page's LSN are applied, so replay is idempotent.
//!
//! Replayed pages stay dirty in the buffer pool with their true oldest
//! modification, so the normal checkpoint machinery makes them durable.

use std::collections::BTreeMap;

use crate::buffer::{BufferPool, Latch};
use crate::error::{EngineError, Result};
use crate::page::{self, PageHeader, PageId};
use crate::space::SpaceRegistry;
use crate::wal::scan::{LogBlock, LogScanner};
use crate::wal::{LogFile, RecordReader, RedoRecord};

/// What recovery found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Where replay started.
    pub checkpoint_lsn: u64,
    /// Where the valid log ends (new blocks continue here).
    pub end_lsn: u64,
    /// Largest epoch seen in the checkpoint or the replayed blocks.
    pub max_epoch: u32,
    /// Blocks (mini-transactions) replayed.
    pub blocks: usize,
    /// Pages that received at least one record.
    pub pages_applied: usize,
    /// Pages restored from the doublewrite buffer.
    pub pages_restored: Vec<PageId>,
}

/// The log read back: blocks and the pages each block changes.
pub struct ScannedLog {
    blocks: Vec<LogBlock>,
    pages: BTreeMap<PageId, Vec<u32>>,
}

/// Reads the log from `checkpoint_lsn`, applying file-level records to `spaces`.
pub fn scan_log(
    file: &LogFile,
    checkpoint_lsn: u64,
    checkpoint_epoch: u32,
    spaces: &SpaceRegistry,
    report: &mut RecoveryReport,
) -> Result<ScannedLog> {
    let mut scanner = LogScanner::new(file, checkpoint_lsn);
    let mut blocks = Vec::new();
    let mut pages: BTreeMap<PageId, Vec<u32>> = BTreeMap::new();
    let mut max_epoch = checkpoint_epoch;
    for block in scanner.by_ref() {
        let block = block?;
        let bi = blocks.len() as u32;
        max_epoch = max_epoch.max(block.epoch);
        for rec in RecordReader::new(&block.records) {
            let rec = rec.map_err(|off| EngineError::CorruptFile {
                path: file.file().path().to_path_buf(),
                reason: format!(
                    "redo block at LSN {} has a malformed record at byte {off}",
                    block.start
                ),
            })?;
            match rec {
                RedoRecord::FileCreate {
                    space,
                    size_pages,
                    name,
                } => {
                    if !spaces.contains(space) {
                        let path = spaces.path_of(name);
                        if spaces.name_in_use(name) {
                            // The file name was reused by a later tablespace
                            // (whose page 0 says so); this one was dropped
                            // before, and a FileDelete follows in the log.
                            // Opening the file as this space would make
                            // that FileDelete remove the later space's file.
                        } else if spaces.vfs().exists(&path) {
                            spaces.open(space, name)?;
                            spaces.extend(space, size_pages)?;
                        } else {
                            spaces.create(space, name, size_pages)?;
                        }
                    }
                }
                RedoRecord::FileExtend { space, size_pages } => {
                    if spaces.contains(space) {
                        spaces.extend(space, size_pages)?;
                    }
                }
                RedoRecord::FileDelete { space } => {
                    spaces.remove(space)?;
                    pages.retain(|p, _| p.space != space);
                }
                r => {
                    if let Some(p) = r.page() {
                        let v = pages.entry(p).or_default();
                        if v.last() != Some(&bi) {
                            v.push(bi);
                        }
                    }
                }
            }
        }
        blocks.push(block);
    }
    report.checkpoint_lsn = checkpoint_lsn;
    report.end_lsn = scanner.end_lsn();
    report.max_epoch = max_epoch;
    report.blocks = blocks.len();
    Ok(ScannedLog { blocks, pages })
}

/// Replays the page records of a scanned log into the buffer pool.
pub fn apply(pool: &BufferPool, log: &ScannedLog, report: &mut RecoveryReport) -> Result<()> {
    let spaces = pool.spaces();
    for (&id, block_ids) in &log.pages {
        if !spaces.contains(id.space) {
            continue; // the space was dropped later in the log
        }
        if id.page >= spaces.size_pages(id.space)? {
            spaces.extend(id.space, id.page + 1)?;
        }
        let first_is_init = block_ids.first().is_some_and(|&b| {
            RecordReader::new(&log.blocks[b as usize].records)
                .flatten()
                .find(|r| r.page() == Some(id))
                .is_some_and(|r| matches!(r, RedoRecord::InitPage { .. }))
        });
        let mut g = if first_is_init {
            pool.fix_new(id)?
        } else {
            let (g, zero) = pool.fix_allow_zero(id, Latch::Exclusive)?;
            if zero {
                tracing::debug!(page = %id, "replaying onto a never-written page");
            }
            g
        };
        let page_lsn = if first_is_init {
            0
        } else {
            PageHeader(g.data()).lsn()
        };
        let mut first_start = None;
        let mut last_end = 0;
        for &b in block_ids {
            let block = &log.blocks[b as usize];
            if block.end <= page_lsn {
                continue;
            }
            let frame = g.data_mut();
            for rec in RecordReader::new(&block.records).flatten() {
                if rec.page() == Some(id) && !rec.apply(frame) {
                    return Err(EngineError::Corruption {
                        path: spaces.path_of(&spaces.get(id.space)?.name),
                        page: id,
                        reason: format!("redo record at LSN {} does not fit the page", block.start),
                    });
                }
            }
            first_start.get_or_insert(block.start);
            last_end = block.end;
        }
        if let Some(start) = first_start {
            page::set_lsn(g.data_mut(), last_end);
            pool.mark_dirty(&mut g, start, last_end);
            report.pages_applied += 1;
        }
    }
    Ok(())
}
