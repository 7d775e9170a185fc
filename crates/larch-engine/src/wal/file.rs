//! [`LogFile`]: the circular redo log file `ib_logfile0`.
//!
//! Layout (details in `docs/redo-log-format.md`):
//!
//! ```text
//! [0, 512)       file header: magic "LARCHLOG", format, capacity, first LSN, crc
//! [512, 1024)    checkpoint slot 0
//! [1024, 1536)   checkpoint slot 1
//! [4096, 4096 + capacity)   data area; LSN `l` lives at 4096 + l % capacity
//! ```
//!
//! Checkpoints alternate between the two slots (by checkpoint number) so that a
//! torn checkpoint write always leaves the previous one intact. A slot holds the
//! checkpoint number, the checkpoint LSN (redo replay starts there) and the log
//! epoch (incremented at every start-up; see `wal::log`).
//!
//! Zeros ahead of the writer: in a new file, every write of log blocks is
//! preceded (under the log's write lock, the only writer) by writes of zeros
//! up to [`ZERO_AHEAD`] bytes past its end, so the data area is written once
//! with zeros, in 1 MiB pieces, before log blocks go there. On ext4 and XFS
//! an allocated range that was never written is an "unwritten" extent, and
//! the first write into it changes the file's extent tree; without the zeros
//! every commit's `fdatasync` during the first pass through the log would
//! also write that metadata and the inode, now one sync per MiB of log does.
//! Zeros read the same as an unwritten range, so the log's contents mean the
//! same either way, and the zeros only ever go where no block was written
//! yet (past the furthest write of the first pass). Filling the whole file
//! at creation instead would cost every new data directory a write of the
//! whole log (96 MiB by default). A file opened from an earlier run is taken
//! as written.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{EngineError, Result};
use crate::io::{IoFile, OpenOptions, Vfs};
use crate::page::bytes::{get_u32, get_u64, put_u32, put_u64};
use crate::page::crc32c;

/// Bytes before the data area.
pub const LOG_HEADER_BYTES: u64 = 4096;
const MAGIC: &[u8; 8] = b"LARCHLOG";
const FORMAT: u32 = 1;
const SLOT_OFFSETS: [u64; 2] = [512, 1024];
const SLOT_BYTES: usize = 512;

/// How far ahead of the log writer a new file is filled with zeros, and the
/// size of each write of zeros (see the module documentation).
pub const ZERO_AHEAD: u64 = 1 << 20;

/// The LSN of the very first log block of a new log.
pub const FIRST_LSN: u64 = 8192;

/// A checkpoint as stored in a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    pub number: u64,
    /// Redo replay starts at this LSN.
    pub lsn: u64,
    /// Log epoch in force when the checkpoint was written.
    pub epoch: u32,
}

/// The redo log file: header, checkpoint slots and circular data area.
#[derive(Debug)]
pub struct LogFile {
    file: Arc<dyn IoFile>,
    capacity: u64,
    /// File offset below which the file has been written (zeros or blocks);
    /// the end of the file once the whole file has. Changed only by
    /// [`LogFile::write_at_lsn`], whose callers are serialized.
    zeroed_to: AtomicU64,
}

impl LogFile {
    /// Creates a new log file of `capacity` data bytes (rounded to 4 KiB), with a
    /// first checkpoint at [`FIRST_LSN`], and syncs it.
    pub fn create(vfs: &dyn Vfs, path: &Path, capacity: u64, dsync: bool) -> Result<Self> {
        let capacity = capacity.div_ceil(4096) * 4096;
        let file = vfs.open(
            path,
            OpenOptions {
                dsync,
                ..OpenOptions::create_new()
            },
        )?;
        file.allocate(LOG_HEADER_BYTES + capacity)?;
        let mut hdr = vec![0u8; SLOT_BYTES];
        hdr[..8].copy_from_slice(MAGIC);
        put_u32(&mut hdr, 8, FORMAT);
        put_u64(&mut hdr, 16, capacity);
        put_u64(&mut hdr, 24, FIRST_LSN);
        let sum = crc32c(&hdr[..SLOT_BYTES - 4]);
        put_u32(&mut hdr, SLOT_BYTES - 4, sum);
        file.write_at(&hdr, 0)?;
        let log = Self {
            file,
            capacity,
            zeroed_to: AtomicU64::new(LOG_HEADER_BYTES),
        };
        log.write_checkpoint(Checkpoint {
            number: 1,
            lsn: FIRST_LSN,
            epoch: 1,
        })?;
        log.file.sync_all()?;
        Ok(log)
    }

    /// Opens an existing log file and validates its header.
    pub fn open(vfs: &dyn Vfs, path: &Path, dsync: bool, read_only: bool) -> Result<Self> {
        let file = vfs.open(
            path,
            OpenOptions {
                dsync,
                read_only,
                ..OpenOptions::existing()
            },
        )?;
        let bad = |reason: String| EngineError::CorruptFile {
            path: path.to_path_buf(),
            reason,
        };
        let len = file.len()?;
        if len < LOG_HEADER_BYTES {
            return Err(bad(format!("redo log is only {len} bytes long")));
        }
        let mut hdr = vec![0u8; SLOT_BYTES];
        file.read_at(&mut hdr, 0)?;
        if &hdr[..8] != MAGIC {
            return Err(bad("not a Larch redo log (bad magic)".into()));
        }
        if get_u32(&hdr, SLOT_BYTES - 4) != crc32c(&hdr[..SLOT_BYTES - 4]) {
            return Err(bad("redo log header checksum mismatch".into()));
        }
        let format = get_u32(&hdr, 8);
        if format != FORMAT {
            return Err(bad(format!("unsupported redo log format {format}")));
        }
        let capacity = get_u64(&hdr, 16);
        if capacity == 0 || capacity % 4096 != 0 || len < LOG_HEADER_BYTES + capacity {
            return Err(bad(format!(
                "redo log capacity {capacity} does not match file length {len}"
            )));
        }
        Ok(Self {
            file,
            capacity,
            zeroed_to: AtomicU64::new(LOG_HEADER_BYTES + capacity),
        })
    }

    /// Data-area bytes (`innodb_log_file_size`).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The underlying file (for error messages and syncing).
    pub fn file(&self) -> &Arc<dyn IoFile> {
        &self.file
    }

    /// The newest valid checkpoint, or an error when neither slot is valid.
    pub fn read_checkpoint(&self) -> Result<Checkpoint> {
        let mut best: Option<Checkpoint> = None;
        for off in SLOT_OFFSETS {
            let mut slot = vec![0u8; SLOT_BYTES];
            self.file.read_at(&mut slot, off)?;
            if get_u32(&slot, SLOT_BYTES - 4) != crc32c(&slot[..SLOT_BYTES - 4]) {
                continue;
            }
            let cp = Checkpoint {
                number: get_u64(&slot, 0),
                lsn: get_u64(&slot, 8),
                epoch: get_u32(&slot, 16),
            };
            if cp.number == 0 {
                continue;
            }
            if best.is_none_or(|b| cp.number > b.number) {
                best = Some(cp);
            }
        }
        best.ok_or_else(|| EngineError::CorruptFile {
            path: self.file.path().to_path_buf(),
            reason: "no valid checkpoint in the redo log header".into(),
        })
    }

    /// Writes a checkpoint into slot `number % 2` (not synced; see [`Self::sync`]).
    pub fn write_checkpoint(&self, cp: Checkpoint) -> Result<()> {
        let mut slot = vec![0u8; SLOT_BYTES];
        put_u64(&mut slot, 0, cp.number);
        put_u64(&mut slot, 8, cp.lsn);
        put_u32(&mut slot, 16, cp.epoch);
        let sum = crc32c(&slot[..SLOT_BYTES - 4]);
        put_u32(&mut slot, SLOT_BYTES - 4, sum);
        self.file
            .write_at(&slot, SLOT_OFFSETS[(cp.number % 2) as usize])
    }

    fn offset_of(&self, lsn: u64) -> u64 {
        LOG_HEADER_BYTES + lsn % self.capacity
    }

    /// Writes `data` at the position of `lsn`, wrapping at the end of the area.
    /// Callers are serialized (the log's write lock).
    pub fn write_at_lsn(&self, lsn: u64, data: &[u8]) -> Result<()> {
        let pos = lsn % self.capacity;
        let first = ((self.capacity - pos) as usize).min(data.len());
        self.zero_ahead(self.offset_of(lsn) + first as u64)?;
        self.file.write_at(&data[..first], self.offset_of(lsn))?;
        if first < data.len() {
            self.file.write_at(&data[first..], LOG_HEADER_BYTES)?;
        }
        Ok(())
    }

    /// In a new file, writes zeros from where the file is written so far to
    /// [`ZERO_AHEAD`] bytes past `end` (the end of the next write), in
    /// pieces of `ZERO_AHEAD` bytes (see the module documentation).
    fn zero_ahead(&self, end: u64) -> Result<()> {
        let file_end = LOG_HEADER_BYTES + self.capacity;
        let mut at = self.zeroed_to.load(Ordering::SeqCst);
        if at >= file_end || at >= end.saturating_add(ZERO_AHEAD) {
            return Ok(());
        }
        let target = end.saturating_add(ZERO_AHEAD).min(file_end);
        let zeros = vec![0u8; ZERO_AHEAD as usize];
        while at < target {
            let n = (file_end - at).min(ZERO_AHEAD);
            self.file.write_at(&zeros[..n as usize], at)?;
            at += n;
            self.zeroed_to.store(at, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Reads `buf.len()` bytes at the position of `lsn`, wrapping.
    pub fn read_at_lsn(&self, lsn: u64, buf: &mut [u8]) -> Result<()> {
        let pos = lsn % self.capacity;
        let first = ((self.capacity - pos) as usize).min(buf.len());
        self.file.read_at(&mut buf[..first], self.offset_of(lsn))?;
        if first < buf.len() {
            self.file.read_at(&mut buf[first..], LOG_HEADER_BYTES)?;
        }
        Ok(())
    }

    /// `fdatasync` of the log file.
    pub fn sync(&self) -> Result<()> {
        self.file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::SimVfs;

    #[test]
    fn checkpoints_alternate_and_survive_a_torn_slot() -> Result<()> {
        let vfs = SimVfs::new();
        let path = Path::new("/ib_logfile0");
        let log = LogFile::create(&vfs, path, 1 << 16, false)?;
        assert_eq!(log.read_checkpoint()?.lsn, FIRST_LSN);
        for n in 2..6u64 {
            log.write_checkpoint(Checkpoint {
                number: n,
                lsn: n * 1000,
                epoch: 3,
            })?;
        }
        assert_eq!(log.read_checkpoint()?.lsn, 5000);
        // Corrupt the newest slot (number 5 lives in slot 1): number 4 wins.
        log.file().write_at(&[0xff; 8], SLOT_OFFSETS[1] + 8)?;
        assert_eq!(log.read_checkpoint()?.number, 4);
        // Wrapping writes and reads.
        let data: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let lsn = (1 << 16) * 3 - 100;
        log.write_at_lsn(lsn, &data)?;
        let mut back = vec![0u8; 300];
        log.read_at_lsn(lsn, &mut back)?;
        assert_eq!(back, data);
        drop(log);
        let reopened = LogFile::open(&vfs, path, false, false)?;
        assert_eq!(reopened.capacity(), 1 << 16);
        Ok(())
    }

    /// A new file is written with zeros ahead of the blocks, a MiB at a
    /// time, never over a block already written; an opened file is not.
    #[test]
    fn a_new_file_is_zeroed_ahead_of_the_writer_and_blocks_survive() -> Result<()> {
        let vfs = SimVfs::new();
        let path = Path::new("/ib_logfile0");
        let capacity = 3 * ZERO_AHEAD + 8192;
        let file_end = LOG_HEADER_BYTES + capacity;
        let log = LogFile::create(&vfs, path, capacity, false)?;
        let created = vfs.bytes_written();
        assert!(
            created < LOG_HEADER_BYTES,
            "creation writes the header only"
        );
        // Blocks of varying sizes through more than a whole pass (wrapping).
        let mut lsn = FIRST_LSN;
        let mut written: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut zero_bytes = 0;
        let mut i = 0u32;
        while lsn < FIRST_LSN + capacity + 2 * ZERO_AHEAD {
            let len = 512 * (1 + (i % 37) as usize);
            let data: Vec<u8> = (0..len).map(|b| (b as u32 ^ i) as u8 | 1).collect();
            let before = vfs.bytes_written();
            log.write_at_lsn(lsn, &data)?;
            let extra = vfs.bytes_written() - before - len as u64;
            if extra > 0 {
                // Whole pieces, not a sliver per block.
                assert!(extra >= ZERO_AHEAD || zero_bytes + extra == capacity);
            }
            zero_bytes += extra;
            // Never behind the writer: the next MiB is written already.
            let end = log.offset_of(lsn) + len as u64;
            assert!(log.zeroed_to.load(Ordering::SeqCst) >= (end + ZERO_AHEAD).min(file_end));
            written.push((lsn, data));
            // Keep the blocks of the last pass only (older ones are overwritten).
            written.retain(|(l, _)| *l + capacity >= lsn + len as u64);
            lsn += len as u64;
            i += 1;
        }
        // Every byte of the data area was zeroed once, in the first pass.
        assert_eq!(zero_bytes, capacity);
        assert_eq!(log.zeroed_to.load(Ordering::SeqCst), file_end);
        for (l, d) in &written {
            let mut back = vec![0u8; d.len()];
            log.read_at_lsn(*l, &mut back)?;
            assert!(back == *d, "block at lsn {l} changed");
        }
        // Past the newest block of a fresh file, the zeros.
        drop(log);
        let fresh_path = Path::new("/fresh_log");
        let fresh = LogFile::create(&vfs, fresh_path, capacity, false)?;
        fresh.write_at_lsn(FIRST_LSN, &[0xab; 512])?;
        let mut after = vec![0xffu8; 4096];
        fresh.read_at_lsn(FIRST_LSN + 512, &mut after)?;
        assert!(after.iter().all(|&b| b == 0));
        drop(fresh);
        // A file from an earlier run is not zeroed.
        let reopened = LogFile::open(&vfs, fresh_path, false, false)?;
        let before = vfs.bytes_written();
        reopened.write_at_lsn(FIRST_LSN + 2 * ZERO_AHEAD, &[0xcd; 512])?;
        assert_eq!(vfs.bytes_written() - before, 512);
        Ok(())
    }

    #[test]
    fn garbage_file_is_rejected_with_its_name() -> Result<()> {
        let vfs = SimVfs::new();
        let path = Path::new("/bad_log");
        let f = vfs.open(path, OpenOptions::create_new())?;
        f.write_at(&[7u8; 8192], 0)?;
        let err = LogFile::open(&vfs, path, false, false).err();
        assert!(
            matches!(err, Some(EngineError::CorruptFile { ref path, .. }) if path.ends_with("bad_log"))
        );
        Ok(())
    }
}
