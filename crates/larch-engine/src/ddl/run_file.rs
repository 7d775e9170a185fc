//! Sorted runs of index entries in temporary files.
//!
//! A [`TempFile`] is created in the build's temporary directory and at once
//! unlinked: it never outlives the build, nor a crash of the server. A run
//! is a byte range of such a file holding entries of ONE index in key
//! order; one file holds many runs (a spilled [`super::SortBuffer`] writes
//! one run per index it holds, one after the other).
//!
//! Entry encoding (little-endian): `u8` flags, `u32` key length, `u32`
//! value length, the key, the value. Reads go through a fixed buffer with
//! positional reads, so many readers share one file.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{EngineError, Result};

/// Bytes before an entry's key in a run.
const HEADER: usize = 1 + 4 + 4;

/// Names this process's files apart.
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

/// See the module documentation.
#[derive(Debug)]
pub struct TempFile {
    file: File,
    /// The name it had (for error messages).
    path: PathBuf,
}

fn io_error(op: &'static str, path: &Path, source: std::io::Error) -> EngineError {
    if source.raw_os_error() == Some(28) {
        return EngineError::DiskFull {
            path: path.to_path_buf(),
        };
    }
    EngineError::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

impl TempFile {
    /// Creates an empty, unnamed file in `dir`.
    pub fn create(dir: &Path) -> Result<Arc<TempFile>> {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("#larch-sort-{}-{n}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| io_error("create", &path, e))?;
        std::fs::remove_file(&path).map_err(|e| io_error("unlink", &path, e))?;
        Ok(Arc::new(TempFile { file, path }))
    }
}

/// A run: `count` entries of one index at `[start, end)` of `file`.
#[derive(Debug, Clone)]
pub struct Run {
    pub file: Arc<TempFile>,
    pub start: u64,
    pub end: u64,
    pub count: u64,
}

/// Appends runs to a file.
pub struct RunWriter {
    file: Arc<TempFile>,
    buf: Vec<u8>,
    /// File offset of `buf`'s first byte.
    flushed: u64,
    run_start: u64,
    run_count: u64,
}

impl RunWriter {
    /// Writes at the end of `file` (which must not grow otherwise meanwhile),
    /// buffering `buffer` bytes.
    pub fn new(file: Arc<TempFile>, start: u64, buffer: usize) -> Self {
        Self {
            file,
            buf: Vec::with_capacity(buffer),
            flushed: start,
            run_start: start,
            run_count: 0,
        }
    }

    fn offset(&self) -> u64 {
        self.flushed + self.buf.len() as u64
    }

    /// Appends an entry to the current run.
    pub fn push(&mut self, flags: u8, key: &[u8], value: &[u8]) -> Result<()> {
        if self.buf.len() + HEADER + key.len() + value.len() > self.buf.capacity() {
            self.flush()?;
        }
        self.buf.push(flags);
        self.buf
            .extend_from_slice(&(key.len() as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&(value.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(key);
        self.buf.extend_from_slice(value);
        self.run_count += 1;
        Ok(())
    }

    /// Ends the current run (the next entry starts another).
    pub fn end_run(&mut self) -> Run {
        let run = Run {
            file: self.file.clone(),
            start: self.run_start,
            end: self.offset(),
            count: self.run_count,
        };
        self.run_start = run.end;
        self.run_count = 0;
        run
    }

    /// Writes what is buffered.
    pub fn flush(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let f = &self.file;
        f.file
            .write_all_at(&self.buf, self.flushed)
            .map_err(|e| io_error("write", &f.path, e))?;
        self.flushed += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// The file offset after the last entry (after [`RunWriter::flush`]).
    pub fn end(&self) -> u64 {
        self.offset()
    }
}

/// Reads the entries of a run in order.
pub struct RunReader {
    run: Run,
    /// File offset of `buf[0]`.
    at: u64,
    buf: Vec<u8>,
    /// Read position in `buf`.
    pos: usize,
    buffer: usize,
}

/// One entry read from a run (valid until the next read).
pub struct RunEntry<'a> {
    pub flags: u8,
    pub key: &'a [u8],
    pub value: &'a [u8],
}

impl RunReader {
    /// Reads `run` through a buffer of `buffer` bytes (grown for an entry
    /// larger than it).
    pub fn new(run: Run, buffer: usize) -> Self {
        Self {
            at: run.start,
            run,
            buf: Vec::new(),
            pos: 0,
            buffer: buffer.max(HEADER),
        }
    }

    /// Makes `need` bytes available at `pos`, reading more of the run.
    fn fill(&mut self, need: usize) -> Result<bool> {
        if self.pos + need <= self.buf.len() {
            return Ok(true);
        }
        // Keep the unread tail, then read up to the buffer size.
        self.buf.drain(..self.pos);
        self.at += self.pos as u64;
        self.pos = 0;
        let have = self.buf.len();
        let left = self.run.end - (self.at + have as u64);
        let want = (self.buffer.max(need) - have).min(usize::try_from(left).unwrap_or(usize::MAX));
        if have + want < need {
            return Ok(false);
        }
        self.buf.resize(have + want, 0);
        let f = &self.run.file;
        f.file
            .read_exact_at(&mut self.buf[have..], self.at + have as u64)
            .map_err(|e| io_error("read", &f.path, e))?;
        Ok(true)
    }

    /// The next entry, or `None` at the end of the run.
    pub fn next(&mut self) -> Result<Option<RunEntry<'_>>> {
        if self.at + self.pos as u64 >= self.run.end {
            return Ok(None);
        }
        let truncated = || EngineError::Internal("sort run: truncated entry".into());
        if !self.fill(HEADER)? {
            return Err(truncated());
        }
        let h = &self.buf[self.pos..self.pos + HEADER];
        let key_len = u32::from_le_bytes([h[1], h[2], h[3], h[4]]) as usize;
        let value_len = u32::from_le_bytes([h[5], h[6], h[7], h[8]]) as usize;
        if !self.fill(HEADER + key_len + value_len)? {
            return Err(truncated());
        }
        let at = self.pos;
        self.pos += HEADER + key_len + value_len;
        let b = &self.buf[at..self.pos];
        Ok(Some(RunEntry {
            flags: b[0],
            key: &b[HEADER..HEADER + key_len],
            value: &b[HEADER + key_len..],
        }))
    }
}

impl std::fmt::Debug for RunWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunWriter")
            .field("offset", &self.offset())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_read_back_in_order_through_small_buffers() -> Result<()> {
        let dir = std::env::temp_dir();
        let file = TempFile::create(&dir)?;
        let mut w = RunWriter::new(file, 0, 64);
        let mut runs = Vec::new();
        for r in 0..3u8 {
            for i in 0..50u32 {
                let key = [r, (i >> 8) as u8, i as u8];
                let value = vec![i as u8; (i % 7) as usize * 10];
                w.push(r, &key, &value)?;
            }
            runs.push(w.end_run());
        }
        w.flush()?;
        for (r, run) in runs.into_iter().enumerate() {
            assert_eq!(run.count, 50);
            let mut rd = RunReader::new(run, 16);
            let mut i = 0u32;
            while let Some(e) = rd.next()? {
                assert_eq!(e.flags, r as u8);
                assert_eq!(e.key, [r as u8, (i >> 8) as u8, i as u8]);
                assert_eq!(e.value.len(), (i % 7) as usize * 10);
                i += 1;
            }
            assert_eq!(i, 50);
        }
        Ok(())
    }
}
