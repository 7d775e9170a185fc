//! File I/O: the only way the engine touches the file system.
//!
//! Every file the engine reads or writes goes through the [`Vfs`] and [`IoFile`]
//! traits. [`OsVfs`] is the real implementation (buffered or `O_DIRECT` data files,
//! `fdatasync`, `fallocate`); [`SimVfs`] keeps files in memory and can inject faults
//! (torn writes, failed fsync, full disk) and simulate a power loss that forgets
//! every write not yet synced, which is how crash tests run thousands of cycles.
//!
//! Contract of an [`IoFile`]:
//! - `read_at` fills the whole buffer or fails (a read past the end is an error);
//! - `write_at` writes the whole buffer or fails; the data is durable only after a
//!   later `sync_data`/`sync_all` on the same file returns `Ok`;
//! - `allocate(len)` makes the file at least `len` bytes long (never shrinks it);
//! - buffers passed to data files opened with `direct` may be unaligned: the
//!   implementation copies them through an aligned bounce buffer when needed.
//!
//! [`blocking`] marks the places where the engine waits, for hosts that run it
//! on async worker threads.

mod aligned;
pub mod blocking;
mod os;
mod sim;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use aligned::AlignedBuf;
pub use os::OsVfs;
pub use sim::{SimFault, SimVfs};

use crate::error::Result;

/// An open file.
pub trait IoFile: Send + Sync + std::fmt::Debug {
    /// Reads exactly `buf.len()` bytes at `offset`.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()>;
    /// Writes all of `buf` at `offset`.
    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()>;
    /// Makes written data durable (`fdatasync`).
    fn sync_data(&self) -> Result<()>;
    /// Makes written data and metadata durable (`fsync`).
    fn sync_all(&self) -> Result<()>;
    /// Grows the file to at least `len` bytes, reserving the space.
    fn allocate(&self, len: u64) -> Result<()>;
    /// Sets the file length to exactly `len` bytes.
    fn truncate(&self, len: u64) -> Result<()>;
    /// Current length in bytes.
    fn len(&self) -> Result<u64>;
    /// True when the file is empty.
    fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
    /// The path the file was opened with (for error messages).
    fn path(&self) -> &Path;
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenOptions {
    /// Create the file if it does not exist.
    pub create: bool,
    /// Fail if the file already exists (with `create`).
    pub create_new: bool,
    /// Open for reading only.
    pub read_only: bool,
    /// Bypass the OS page cache (`O_DIRECT`) where the file system supports it.
    pub direct: bool,
    /// Every write is synchronous (`O_DSYNC`).
    pub dsync: bool,
}

impl OpenOptions {
    /// Open an existing file for reading and writing.
    pub fn existing() -> Self {
        Self::default()
    }
    /// Create a new file; fails if it exists.
    pub fn create_new() -> Self {
        Self {
            create: true,
            create_new: true,
            ..Self::default()
        }
    }
    /// Open an existing file read-only.
    pub fn read_only() -> Self {
        Self {
            read_only: true,
            ..Self::default()
        }
    }
}

/// A file system: opening files and the directory operations the engine needs.
pub trait Vfs: Send + Sync + std::fmt::Debug {
    /// Opens (or creates) a file.
    fn open(&self, path: &Path, opts: OpenOptions) -> Result<Arc<dyn IoFile>>;
    /// True if the path exists.
    fn exists(&self, path: &Path) -> bool;
    /// Removes a file.
    fn remove_file(&self, path: &Path) -> Result<()>;
    /// Atomically renames a file.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Creates a directory and its parents.
    fn create_dir_all(&self, path: &Path) -> Result<()>;
    /// Makes a directory's entries (created, renamed, removed files) durable.
    fn sync_dir(&self, path: &Path) -> Result<()>;
    /// Lists the file names (not paths) directly inside a directory.
    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>>;
    /// Takes an exclusive advisory lock on `path` (created if missing) for as long
    /// as the returned value lives; fails if another process holds it. File
    /// systems without locks return `Ok(None)`.
    fn lock_dir(&self, path: &Path) -> Result<Option<Box<dyn std::any::Any + Send + Sync>>> {
        let _ = path;
        Ok(None)
    }
}
