//! [`LogScanner`]: reads log blocks back from a checkpoint to the end of the log.
//!
//! The end of the log is the first position where a block does not check out: its
//! header names another LSN (a stale block from an earlier lap), its length is
//! impossible, its CRC fails (a torn or never-written block), or its epoch is
//! smaller than the previous block's (a stale tail written by an earlier process
//! after the point where a later process continued the log).

use super::completion::LSN_ALIGN;
use super::file::LogFile;
use super::BLOCK_HEADER_BYTES;
use crate::error::Result;
use crate::page::bytes::{get_u32, get_u64};
use crate::page::crc32c_parts;

const CHUNK: u64 = 1 << 20;

/// One block read back from the log.
#[derive(Debug, Clone)]
pub struct LogBlock {
    pub start: u64,
    /// Start of the next block.
    pub end: u64,
    pub epoch: u32,
    /// The block's records.
    pub records: Vec<u8>,
}

/// Iterates over valid blocks starting at a checkpoint LSN.
pub struct LogScanner<'a> {
    file: &'a LogFile,
    lsn: u64,
    epoch: u32,
    buf: Vec<u8>,
    buf_lsn: u64,
    done: bool,
}

impl<'a> LogScanner<'a> {
    pub fn new(file: &'a LogFile, from_lsn: u64) -> Self {
        Self {
            file,
            lsn: from_lsn,
            epoch: 0,
            buf: Vec::new(),
            buf_lsn: from_lsn,
            done: false,
        }
    }

    /// Where the valid log ends (after iteration finished: where new blocks go).
    pub fn end_lsn(&self) -> u64 {
        self.lsn
    }

    /// Bytes `[lsn, lsn + n)` of the log, reading ahead in 1 MiB chunks.
    fn bytes(&mut self, lsn: u64, n: usize) -> Result<&[u8]> {
        let have = lsn >= self.buf_lsn && lsn + n as u64 <= self.buf_lsn + self.buf.len() as u64;
        if !have {
            let len = CHUNK.max(n as u64).min(self.file.capacity());
            self.buf.resize(len as usize, 0);
            self.file.read_at_lsn(lsn, &mut self.buf)?;
            self.buf_lsn = lsn;
        }
        let off = (lsn - self.buf_lsn) as usize;
        Ok(&self.buf[off..off + n])
    }

    fn next_block(&mut self) -> Result<Option<LogBlock>> {
        let lsn = self.lsn;
        let cap = self.file.capacity();
        let h = self.bytes(lsn, BLOCK_HEADER_BYTES)?.to_vec();
        let len = get_u32(&h, 0) as u64;
        let crc = get_u32(&h, 4);
        let epoch = get_u32(&h, 16);
        if get_u64(&h, 8) != lsn
            || len < BLOCK_HEADER_BYTES as u64
            || len > cap / 2
            || epoch < self.epoch
        {
            return Ok(None);
        }
        let body = self.bytes(
            lsn + BLOCK_HEADER_BYTES as u64,
            len as usize - BLOCK_HEADER_BYTES,
        )?;
        if crc32c_parts(&[&h[8..], body]) != crc {
            return Ok(None);
        }
        let records = body.to_vec();
        let end = lsn + len.div_ceil(LSN_ALIGN) * LSN_ALIGN;
        self.lsn = end;
        self.epoch = epoch;
        Ok(Some(LogBlock {
            start: lsn,
            end,
            epoch,
            records,
        }))
    }
}

impl Iterator for LogScanner<'_> {
    type Item = Result<LogBlock>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_block() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
