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

use std::path::Path;
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
        let log = Self { file, capacity };
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
        Ok(Self { file, capacity })
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
    pub fn write_at_lsn(&self, lsn: u64, data: &[u8]) -> Result<()> {
        let pos = lsn % self.capacity;
        let first = ((self.capacity - pos) as usize).min(data.len());
        self.file.write_at(&data[..first], self.offset_of(lsn))?;
        if first < data.len() {
            self.file.write_at(&data[first..], LOG_HEADER_BYTES)?;
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
