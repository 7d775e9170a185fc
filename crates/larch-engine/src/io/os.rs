//! [`OsVfs`]: the real file system, through positioned `pread`/`pwrite`.
//!
//! Data files may be opened with `O_DIRECT`; when the file system refuses it
//! (tmpfs) the file falls back to buffered I/O and says so once in the log.
//! Unaligned buffers for a direct file go through an aligned bounce buffer.

use std::fs::{File, OpenOptions as StdOpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::aligned::{is_aligned, AlignedBuf, IO_ALIGN};
use super::{IoFile, OpenOptions, Vfs};
use crate::error::{EngineError, Result};

/// The operating system's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsVfs;

impl OsVfs {
    /// A new handle to the real file system.
    pub fn new() -> Self {
        OsVfs
    }
}

#[derive(Debug)]
struct OsFile {
    file: File,
    path: PathBuf,
    direct: bool,
}

impl Vfs for OsVfs {
    fn open(&self, path: &Path, opts: OpenOptions) -> Result<Arc<dyn IoFile>> {
        let mut flags = 0;
        if opts.dsync {
            flags |= libc::O_DSYNC;
        }
        let open = |extra: i32| {
            let mut o = StdOpenOptions::new();
            o.read(true);
            if !opts.read_only {
                o.write(true);
            }
            if opts.create_new {
                o.create_new(true);
            } else if opts.create {
                o.create(true);
            }
            o.custom_flags(flags | extra);
            o.open(path)
        };
        let (file, direct) = if opts.direct {
            match open(libc::O_DIRECT) {
                Ok(f) => (f, true),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    tracing::warn!(path = %path.display(), "O_DIRECT not supported here; using buffered I/O");
                    (
                        open(0).map_err(|e| EngineError::io("open", path, e))?,
                        false,
                    )
                }
                Err(e) => return Err(EngineError::io("open", path, e)),
            }
        } else {
            (
                open(0).map_err(|e| EngineError::io("open", path, e))?,
                false,
            )
        };
        Ok(Arc::new(OsFile {
            file,
            path: path.to_path_buf(),
            direct,
        }))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|e| EngineError::io("remove", path, e))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::rename(from, to).map_err(|e| EngineError::io("rename", from, e))
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        std::fs::create_dir_all(path).map_err(|e| EngineError::io("mkdir", path, e))
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        let dir = File::open(path).map_err(|e| EngineError::io("open dir", path, e))?;
        dir.sync_all()
            .map_err(|e| EngineError::io("fsync dir", path, e))
    }

    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(path).map_err(|e| EngineError::io("readdir", path, e))? {
            let entry = entry.map_err(|e| EngineError::io("readdir", path, e))?;
            names.push(PathBuf::from(entry.file_name()));
        }
        names.sort();
        Ok(names)
    }

    fn lock_dir(&self, path: &Path) -> Result<Option<Box<dyn std::any::Any + Send + Sync>>> {
        let f = StdOpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| EngineError::io("open", path, e))?;
        // SAFETY: plain syscall on an fd we own.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            return Err(EngineError::DataDir {
                path: path.parent().unwrap_or(path).to_path_buf(),
                reason: format!(
                    "is in use by another process (lock on {} held: {e})",
                    path.display()
                ),
            });
        }
        Ok(Some(Box::new(f)))
    }
}

impl OsFile {
    fn err(&self, op: &'static str, e: std::io::Error) -> EngineError {
        EngineError::io(op, &self.path, e)
    }
}

impl IoFile for OsFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        if self.direct && !is_aligned(buf, offset) {
            let start = offset - offset % IO_ALIGN as u64;
            let skip = (offset - start) as usize;
            let len = (skip + buf.len()).div_ceil(IO_ALIGN) * IO_ALIGN;
            let mut bounce = AlignedBuf::zeroed(len);
            let n = self.read_direct_partial(&mut bounce, start)?;
            if n < skip + buf.len() {
                return Err(self.err("read", short_read()));
            }
            buf.copy_from_slice(&bounce[skip..skip + buf.len()]);
            return Ok(());
        }
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| self.err("read", e))
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        if self.direct && !is_aligned(buf, offset) {
            // Read-modify-write of the covering aligned range.
            let start = offset - offset % IO_ALIGN as u64;
            let skip = (offset - start) as usize;
            let len = (skip + buf.len()).div_ceil(IO_ALIGN) * IO_ALIGN;
            let mut bounce = AlignedBuf::zeroed(len);
            self.read_direct_partial(&mut bounce, start)?;
            bounce[skip..skip + buf.len()].copy_from_slice(buf);
            let file_len = self.len()?;
            self.file
                .write_all_at(&bounce, start)
                .map_err(|e| self.err("write", e))?;
            let end = offset + buf.len() as u64;
            if end > file_len && start + len as u64 > end {
                // Do not leave the padding of the bounce buffer as file content.
                self.file
                    .set_len(end.max(file_len))
                    .map_err(|e| self.err("truncate", e))?;
            }
            return Ok(());
        }
        self.file
            .write_all_at(buf, offset)
            .map_err(|e| self.err("write", e))
    }

    fn sync_data(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| self.err("fdatasync", e))
    }

    fn sync_all(&self) -> Result<()> {
        self.file.sync_all().map_err(|e| self.err("fsync", e))
    }

    fn allocate(&self, len: u64) -> Result<()> {
        let cur = self.len()?;
        if len <= cur {
            return Ok(());
        }
        // SAFETY: plain syscall on an fd we own; no memory is passed.
        let rc = unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                0,
                cur as libc::off_t,
                (len - cur) as libc::off_t,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            // File systems without fallocate: extend with a hole instead.
            Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => {
                self.file.set_len(len).map_err(|e| self.err("extend", e))
            }
            _ => Err(self.err("fallocate", e)),
        }
    }

    fn truncate(&self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(|e| self.err("truncate", e))
    }

    fn len(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| self.err("stat", e))?.len())
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl OsFile {
    /// Reads as much as exists of an aligned range; returns the bytes read.
    fn read_direct_partial(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err("read", e)),
            }
        }
        Ok(done)
    }
}

fn short_read() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "read past end of file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_write_allocate_truncate() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| EngineError::io("tmp", "tmp", e))?;
        let vfs = OsVfs::new();
        for direct in [false, true] {
            let path = dir.path().join(format!("f{direct}"));
            let f = vfs.open(
                &path,
                OpenOptions {
                    direct,
                    ..OpenOptions::create_new()
                },
            )?;
            f.allocate(8192)?;
            assert_eq!(f.len()?, 8192);
            f.write_at(b"hello", 4097)?;
            let mut b = [0u8; 5];
            f.read_at(&mut b, 4097)?;
            assert_eq!(&b, b"hello");
            f.sync_data()?;
            assert!(f.read_at(&mut [0u8; 10], 8190).is_err());
            f.truncate(4096)?;
            assert_eq!(f.len()?, 4096);
            f.write_at(b"tail", 4096)?;
            assert_eq!(f.len()?, 4100);
        }
        assert_eq!(vfs.list_dir(dir.path())?.len(), 2);
        Ok(())
    }
}
