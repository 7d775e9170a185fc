//! [`SpaceRegistry`]: open tablespace files by space id.
//!
//! Reads and writes whole pages at `page_no * page_size`, grows files by whole
//! pages, and remembers which files were written since their last sync so a
//! checkpoint can sync exactly those. Names are paths relative to the data
//! directory (`ibdata1`, `undo001`, `test/t1.ibd`).
//!
//! Invariant: `size_pages` of a space is never more than its file holds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::config::FlushMethod;
use crate::error::{EngineError, Result};
use crate::io::{IoFile, OpenOptions, Vfs};
use crate::page::{PageId, PageSize};

/// One open tablespace file.
#[derive(Debug)]
pub struct SpaceFile {
    pub id: u32,
    /// Path relative to the data directory.
    pub name: String,
    file: Arc<dyn IoFile>,
    size_pages: AtomicU32,
    needs_sync: AtomicBool,
}

impl SpaceFile {
    /// Pages the file holds.
    pub fn size_pages(&self) -> u32 {
        self.size_pages.load(SeqCst)
    }
    /// The open file.
    pub fn file(&self) -> &Arc<dyn IoFile> {
        &self.file
    }
}

/// All open tablespaces. See the module documentation.
#[derive(Debug)]
pub struct SpaceRegistry {
    vfs: Arc<dyn Vfs>,
    datadir: PathBuf,
    page_size: PageSize,
    flush_method: FlushMethod,
    read_only: bool,
    spaces: RwLock<HashMap<u32, Arc<SpaceFile>>>,
}

impl SpaceRegistry {
    pub fn new(
        vfs: Arc<dyn Vfs>,
        datadir: PathBuf,
        page_size: PageSize,
        flush_method: FlushMethod,
        read_only: bool,
    ) -> Self {
        Self {
            vfs,
            datadir,
            page_size,
            flush_method,
            read_only,
            spaces: RwLock::new(HashMap::new()),
        }
    }

    pub fn page_size(&self) -> PageSize {
        self.page_size
    }

    pub fn vfs(&self) -> &Arc<dyn Vfs> {
        &self.vfs
    }

    pub fn datadir(&self) -> &Path {
        &self.datadir
    }

    /// Absolute path of a space file name.
    pub fn path_of(&self, name: &str) -> PathBuf {
        self.datadir.join(name)
    }

    fn opts(&self) -> OpenOptions {
        OpenOptions {
            direct: self.flush_method.data_direct(),
            read_only: self.read_only,
            ..OpenOptions::existing()
        }
    }

    /// Creates a new file of `size_pages` zeroed pages and registers it.
    pub fn create(&self, id: u32, name: &str, size_pages: u32) -> Result<Arc<SpaceFile>> {
        let path = self.path_of(name);
        if let Some(parent) = path.parent() {
            self.vfs.create_dir_all(parent)?;
        }
        let file = self.vfs.open(
            &path,
            OpenOptions {
                create: true,
                create_new: true,
                ..self.opts()
            },
        )?;
        file.allocate(u64::from(size_pages) * self.page_size.bytes() as u64)?;
        file.sync_all()?;
        if let Some(parent) = path.parent() {
            self.vfs.sync_dir(parent)?;
            if parent != self.datadir {
                // A database directory created just now must be durable too.
                self.vfs.sync_dir(&self.datadir)?;
            }
        }
        self.insert(id, name, file, size_pages)
    }

    /// Opens an existing file and registers it; its size is read from the file.
    pub fn open(&self, id: u32, name: &str) -> Result<Arc<SpaceFile>> {
        let path = self.path_of(name);
        let file = self.vfs.open(&path, self.opts())?;
        let len = file.len()?;
        let ps = self.page_size.bytes() as u64;
        if len % ps != 0 {
            tracing::warn!(path = %path.display(), len, "file size is not a multiple of the page size; ignoring the partial page");
        }
        let pages = u32::try_from(len / ps).map_err(|_| EngineError::CorruptFile {
            path: path.clone(),
            reason: format!("{len} bytes is more than a tablespace can hold"),
        })?;
        self.insert(id, name, file, pages)
    }

    fn insert(
        &self,
        id: u32,
        name: &str,
        file: Arc<dyn IoFile>,
        size_pages: u32,
    ) -> Result<Arc<SpaceFile>> {
        let sf = Arc::new(SpaceFile {
            id,
            name: name.to_string(),
            file,
            size_pages: AtomicU32::new(size_pages),
            needs_sync: AtomicBool::new(false),
        });
        let mut map = self.spaces.write();
        if let Some(old) = map.get(&id) {
            return Err(EngineError::Internal(format!(
                "space id {id} of '{name}' is already used by '{}'",
                old.name
            )));
        }
        map.insert(id, sf.clone());
        Ok(sf)
    }

    /// The open space `id`.
    pub fn get(&self, id: u32) -> Result<Arc<SpaceFile>> {
        self.spaces
            .read()
            .get(&id)
            .cloned()
            .ok_or_else(|| EngineError::Internal(format!("tablespace {id} is not open")))
    }

    /// True if an open space uses the file `name`.
    pub fn name_in_use(&self, name: &str) -> bool {
        self.spaces.read().values().any(|sf| sf.name == name)
    }

    /// True if space `id` is open.
    pub fn contains(&self, id: u32) -> bool {
        self.spaces.read().contains_key(&id)
    }

    /// Ids of every open space, sorted.
    pub fn ids(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.spaces.read().keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Pages in space `id`.
    pub fn size_pages(&self, id: u32) -> Result<u32> {
        Ok(self.get(id)?.size_pages())
    }

    /// Reads page `id` into `buf` (one page long). A page past the end of the file
    /// is reported as corruption.
    pub fn read_page(&self, id: PageId, buf: &mut [u8]) -> Result<()> {
        let sf = self.get(id.space)?;
        if id.page >= sf.size_pages() {
            return Err(EngineError::Corruption {
                path: sf.file.path().to_path_buf(),
                page: id,
                reason: format!(
                    "page is past the end of the file ({} pages)",
                    sf.size_pages()
                ),
            });
        }
        sf.file
            .read_at(buf, u64::from(id.page) * self.page_size.bytes() as u64)
    }

    /// Writes page `id` from `buf` (not synced).
    pub fn write_page(&self, id: PageId, buf: &[u8]) -> Result<()> {
        let sf = self.get(id.space)?;
        if id.page >= sf.size_pages() {
            self.extend(id.space, id.page + 1)?;
        }
        sf.needs_sync.store(true, SeqCst);
        sf.file
            .write_at(buf, u64::from(id.page) * self.page_size.bytes() as u64)
    }

    /// Grows space `id` to at least `size_pages` pages.
    pub fn extend(&self, id: u32, size_pages: u32) -> Result<()> {
        let sf = self.get(id)?;
        if size_pages <= sf.size_pages() {
            return Ok(());
        }
        sf.file
            .allocate(u64::from(size_pages) * self.page_size.bytes() as u64)?;
        sf.needs_sync.store(true, SeqCst);
        sf.size_pages.fetch_max(size_pages, SeqCst);
        Ok(())
    }

    /// Syncs every file written since its last sync (honouring
    /// `innodb_flush_method=O_DIRECT_NO_FSYNC`, which skips data-file syncs).
    pub fn sync_written(&self) -> Result<()> {
        let spaces: Vec<_> = self.spaces.read().values().cloned().collect();
        for sf in spaces {
            if sf.needs_sync.swap(false, SeqCst) {
                let r = if self.flush_method.data_fsync() {
                    sf.file.sync_data()
                } else {
                    Ok(())
                };
                if let Err(e) = r {
                    // A space dropped meanwhile needs no sync.
                    let dropped = !self.spaces.read().values().any(|s| Arc::ptr_eq(s, &sf));
                    if dropped {
                        continue;
                    }
                    sf.needs_sync.store(true, SeqCst);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Closes space `id` and deletes its file.
    pub fn remove(&self, id: u32) -> Result<()> {
        let sf = self.spaces.write().remove(&id);
        if let Some(sf) = sf {
            let path = self.path_of(&sf.name);
            drop(sf);
            if self.vfs.exists(&path) {
                self.vfs.remove_file(&path)?;
            }
            if let Some(parent) = path.parent() {
                self.vfs.sync_dir(parent)?;
            }
        }
        Ok(())
    }
}
