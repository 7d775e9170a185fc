//! [`Storage`]: a data directory opened for use.
//!
//! Creates a new data directory (system tablespace, undo tablespaces, redo log,
//! doublewrite file), or opens an existing one: checks the page size against
//! `innodb_page_size`, repairs torn pages from the doublewrite buffer, replays the
//! redo log, and starts the page cleaner. It hands out mini-transactions, creates
//! and drops file-per-table tablespaces, verifies every page (`larch check`), and
//! shuts down cleanly (every page flushed, a final checkpoint).
//!
//! Files in a data directory:
//! ```text
//! ibdata1          system tablespace (space 0); page 2 is the system page
//! undo001..        undo tablespaces (spaces 1..=N)
//! <db>/<t>.ibd     file-per-table tablespaces
//! ib_logfile0      redo log
//! ib_doublewrite   doublewrite buffer
//! larch.lock       held locked while the directory is open
//! ```

mod check;
mod system_page;
pub mod workload;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use check::{detect_page_size, scan_offline, CheckReport, SpaceCheck};

use crate::buffer::doublewrite::DOUBLEWRITE_FILE;
use crate::buffer::{BackgroundThreads, BufferPool, Doublewrite};
use crate::config::EngineConfig;
use crate::error::{EngineError, Result};
use crate::io::{OpenOptions, Vfs};
use crate::mtr::Mtr;
use crate::page::PageSize;
use crate::recovery::{self, RecoveryReport};
use crate::space::{self, alloc, SpaceRegistry, SYSTEM_FILE, SYSTEM_SPACE};
use crate::wal::{file::FIRST_LSN, LogFile, RedoLog};

/// File name of the redo log.
pub const LOG_FILE: &str = "ib_logfile0";
/// File name of the data directory lock.
pub const LOCK_FILE: &str = "larch.lock";
/// Present while [`Storage::create`] runs: a directory holding it was never
/// completely created (a crash during creation), and the next creation
/// starts over.
pub const CREATING_FILE: &str = "larch_creating";

/// An open data directory. See the module documentation.
pub struct Storage {
    config: EngineConfig,
    page_size: PageSize,
    pool: Arc<BufferPool>,
    background: Option<BackgroundThreads>,
    recovery: RecoveryReport,
    _lock: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("datadir", &self.config.datadir)
            .field("page_size", &self.page_size)
            .finish()
    }
}

/// Removes what an interrupted [`Storage::create`] left (it never got as far
/// as any table: tables are created only in a complete directory).
fn remove_partial_creation(vfs: &dyn Vfs, dir: &Path) -> Result<()> {
    tracing::warn!(datadir = %dir.display(), "the creation of this data directory was interrupted; starting over");
    let mut names = vec![
        SYSTEM_FILE.to_string(),
        LOG_FILE.to_string(),
        crate::buffer::doublewrite::DOUBLEWRITE_FILE.to_string(),
    ];
    names.extend((1..=crate::undo::RollPtr::MAX_SPACE).map(space::undo_file_name));
    for name in names {
        let path = dir.join(name);
        if vfs.exists(&path) {
            vfs.remove_file(&path)?;
        }
    }
    vfs.remove_file(&dir.join(CREATING_FILE))?;
    vfs.sync_dir(dir)
}

fn datadir_err(path: &Path, reason: impl Into<String>) -> EngineError {
    EngineError::DataDir {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

impl Storage {
    /// True when `datadir` already holds a Larch data directory.
    pub fn exists(vfs: &dyn Vfs, datadir: &Path) -> bool {
        vfs.exists(&datadir.join(SYSTEM_FILE)) && !vfs.exists(&datadir.join(CREATING_FILE))
    }

    /// Opens the data directory, creating it first if it does not exist.
    pub fn open_or_create(config: EngineConfig, vfs: Arc<dyn Vfs>) -> Result<Self> {
        if Self::exists(&*vfs, &config.datadir) {
            Self::open(config, vfs)
        } else {
            Self::create(config, vfs)
        }
    }

    /// Creates a new data directory with `config.page_size` (16k if unset).
    pub fn create(config: EngineConfig, vfs: Arc<dyn Vfs>) -> Result<Self> {
        let dir = config.datadir.clone();
        if Self::exists(&*vfs, &dir) {
            return Err(datadir_err(
                &dir,
                "already contains a data directory (ibdata1 exists)",
            ));
        }
        vfs.create_dir_all(&dir)?;
        let lock = vfs.lock_dir(&dir.join(LOCK_FILE))?;
        let marker = dir.join(CREATING_FILE);
        if vfs.exists(&marker) {
            remove_partial_creation(&*vfs, &dir)?;
        }
        vfs.open(&marker, crate::io::OpenOptions::create_new())?
            .sync_all()?;
        vfs.sync_dir(&dir)?;
        let page_size = config.page_size.unwrap_or(PageSize::DEFAULT);
        let dsync = config.flush_method == crate::config::FlushMethod::ODsync;
        let log_file = LogFile::create(&*vfs, &dir.join(LOG_FILE), config.log_file_size, dsync)?;
        let cp = log_file.read_checkpoint()?;
        let log = Arc::new(RedoLog::new(
            log_file,
            FIRST_LSN,
            cp,
            cp.epoch + 1,
            config.log_buffer_size,
            config.flush_log_at_trx_commit,
        ));
        log.write_checkpoint(FIRST_LSN)?;
        let spaces = Arc::new(SpaceRegistry::new(
            vfs.clone(),
            dir.clone(),
            page_size,
            config.flush_method,
            false,
        ));
        let extent = page_size.pages_per_extent();
        spaces.create(SYSTEM_SPACE, SYSTEM_FILE, extent)?;
        for n in 1..=config.undo_tablespaces {
            spaces.create(n, &space::undo_file_name(n), extent)?;
        }
        let mut storage = Self::assemble(
            config,
            vfs,
            page_size,
            spaces,
            log,
            lock,
            RecoveryReport::default(),
        )?;
        storage.start_background()?;
        {
            let mut mtr = storage.mtr()?;
            for id in 0..=storage.config.undo_tablespaces {
                alloc::init_space(&mut mtr, id, extent)?;
                space::write_stamp(&mut mtr, id)?;
            }
            system_page::create(&mut mtr, page_size, storage.config.undo_tablespaces)?;
            mtr.commit()?;
        }
        storage.pool.flush_all()?;
        // The log, doublewrite and tablespace files' directory entries.
        storage.spaces().vfs().sync_dir(&dir)?;
        // Complete: from here on the directory opens (and recovers).
        storage.spaces().vfs().remove_file(&marker)?;
        storage.spaces().vfs().sync_dir(&dir)?;
        tracing::info!(datadir = %dir.display(), page_size = page_size.get(), "created data directory");
        Ok(storage)
    }

    /// Opens an existing data directory, recovering from a crash if needed.
    pub fn open(config: EngineConfig, vfs: Arc<dyn Vfs>) -> Result<Self> {
        let dir = config.datadir.clone();
        let sys_path = dir.join(SYSTEM_FILE);
        if !vfs.exists(&sys_path) {
            return Err(datadir_err(
                &dir,
                "no data directory here (ibdata1 is missing); run `larch init` first",
            ));
        }
        let lock = vfs.lock_dir(&dir.join(LOCK_FILE))?;
        if vfs.exists(&dir.join(CREATING_FILE)) {
            return Err(datadir_err(
                &dir,
                format!("its creation was interrupted ({CREATING_FILE} is present); creating it again starts over"),
            ));
        }
        let page_size = Self::detect_page_size(&*vfs, &sys_path)?;
        if let Some(req) = config.page_size {
            if req != page_size {
                return Err(EngineError::PageSizeMismatch {
                    path: sys_path,
                    file_page_size: page_size.get(),
                    requested: req.get(),
                });
            }
        }
        let spaces = Arc::new(SpaceRegistry::new(
            vfs.clone(),
            dir.clone(),
            page_size,
            config.flush_method,
            false,
        ));
        Self::discover_spaces(&*vfs, &spaces, &config)?;
        let dsync = config.flush_method == crate::config::FlushMethod::ODsync;
        let log_path = dir.join(LOG_FILE);
        if !vfs.exists(&log_path) {
            return Err(datadir_err(&dir, "the redo log ib_logfile0 is missing"));
        }
        let log_file = LogFile::open(&*vfs, &log_path, dsync, false)?;
        if log_file.capacity() != config.log_file_size.div_ceil(4096) * 4096 {
            tracing::info!(
                existing = log_file.capacity(),
                requested = config.log_file_size,
                "innodb_log_file_size differs from the existing redo log; keeping the existing size"
            );
        }
        let cp = log_file.read_checkpoint()?;
        let mut report = RecoveryReport::default();
        if config.doublewrite || vfs.exists(&dir.join(DOUBLEWRITE_FILE)) {
            let dw = Doublewrite::open(
                &*vfs,
                &dir.join(DOUBLEWRITE_FILE),
                page_size,
                config.flush_method.data_direct(),
            )?;
            report.pages_restored = dw.recover(&spaces, cp.lsn)?;
        }
        let scanned = recovery::scan_log(&log_file, cp.lsn, cp.epoch, &spaces, &mut report)?;
        let log = Arc::new(RedoLog::new(
            log_file,
            report.end_lsn,
            cp,
            report.max_epoch + 1,
            config.log_buffer_size,
            config.flush_log_at_trx_commit,
        ));
        // The new epoch must be durable before any new block is written.
        log.write_checkpoint(cp.lsn)?;
        let storage = Self::assemble(config, vfs, page_size, spaces, log, lock, report)?;
        let mut report = storage.recovery.clone();
        recovery::apply(&storage.pool, &scanned, &mut report)?;
        drop(scanned);
        if report.blocks > 0 {
            tracing::info!(
                from = report.checkpoint_lsn,
                to = report.end_lsn,
                blocks = report.blocks,
                pages = report.pages_applied,
                "crash recovery replayed the redo log"
            );
        }
        let mut storage = storage;
        storage.recovery = report;
        system_page::verify(&storage, page_size)?;
        storage.start_background()?;
        Ok(storage)
    }

    fn assemble(
        config: EngineConfig,
        vfs: Arc<dyn Vfs>,
        page_size: PageSize,
        spaces: Arc<SpaceRegistry>,
        log: Arc<RedoLog>,
        lock: Option<Box<dyn std::any::Any + Send + Sync>>,
        recovery: RecoveryReport,
    ) -> Result<Self> {
        let dw = if config.doublewrite {
            Some(Doublewrite::open(
                &*vfs,
                &config.datadir.join(DOUBLEWRITE_FILE),
                page_size,
                config.flush_method.data_direct(),
            )?)
        } else {
            None
        };
        let pool = Arc::new(BufferPool::new(&config, page_size, spaces, log, dw));
        // Node pages read from disk are checked before a reader trusts them.
        pool.set_content_check(crate::btree::node::node_page_problem);
        Ok(Self {
            config,
            page_size,
            pool,
            background: None,
            recovery,
            _lock: lock,
        })
    }

    /// Starts the page cleaner and read-ahead threads. Only after recovery has
    /// replayed every page: a checkpoint taken earlier could pass changes that
    /// exist nowhere but in the log.
    fn start_background(&mut self) -> Result<()> {
        let bg = BackgroundThreads::start(self.pool.clone())
            .map_err(|e| EngineError::io("spawn thread", &self.config.datadir, e))?;
        self.background = Some(bg);
        Ok(())
    }

    fn detect_page_size(vfs: &dyn Vfs, path: &Path) -> Result<PageSize> {
        let f = vfs.open(path, OpenOptions::read_only())?;
        let mut head = vec![0u8; 4096];
        f.read_at(&mut head, 0)
            .map_err(|_| EngineError::CorruptFile {
                path: path.to_path_buf(),
                reason: "file is shorter than one page".into(),
            })?;
        match space::read_stamp(&head) {
            Some((0, ps, space::FORMAT_VERSION)) => Ok(ps),
            Some((_, _, v)) if v != space::FORMAT_VERSION => Err(EngineError::CorruptFile {
                path: path.to_path_buf(),
                reason: format!("unsupported tablespace format version {v}"),
            }),
            _ => Err(EngineError::CorruptFile {
                path: path.to_path_buf(),
                reason: "page 0 does not hold a valid tablespace header (page size unknown)".into(),
            }),
        }
    }

    /// Registers the system, undo and file-per-table tablespaces found on disk.
    fn discover_spaces(vfs: &dyn Vfs, spaces: &SpaceRegistry, config: &EngineConfig) -> Result<()> {
        spaces.open(SYSTEM_SPACE, SYSTEM_FILE)?;
        let dir = &config.datadir;
        let mut candidates: Vec<String> = Vec::new();
        for name in vfs.list_dir(dir)? {
            let s = name.to_string_lossy().to_string();
            if s.starts_with("undo") && s.len() == 7 {
                candidates.push(s);
            } else if vfs.list_dir(&dir.join(&name)).is_ok() {
                for inner in vfs.list_dir(&dir.join(&name))? {
                    let i = inner.to_string_lossy().to_string();
                    if i.ends_with(".ibd") {
                        candidates.push(format!("{s}/{i}"));
                    }
                }
            }
        }
        for name in candidates {
            let path = dir.join(&name);
            let f = vfs.open(&path, OpenOptions::read_only())?;
            let mut head = vec![0u8; 64];
            if f.len()? < 64 || f.read_at(&mut head, 0).is_err() {
                tracing::warn!(file = %path.display(), "ignoring an empty tablespace file");
                continue;
            }
            // The space id is in the first bytes of page 0 whether or not the rest
            // of the page was torn; recovery repairs the page itself. When page 0
            // fails verification the id may be the damage: the pages after it
            // that verify say which space the file is.
            let id = crate::page::bytes::get_u32(&head, crate::page::offset::SPACE_ID);
            let id = match Self::space_id_from_later_pages(&*f, spaces.page_size(), id)? {
                Some(found) if found != id => {
                    tracing::error!(file = %path.display(), header = id, space = found, "page 0 of a tablespace fails verification; its space id is taken from the pages after it");
                    found
                }
                _ => id,
            };
            drop(f);
            if let Some((_, ps, _)) = space::read_stamp(&head) {
                if ps != spaces.page_size() {
                    return Err(EngineError::PageSizeMismatch {
                        path,
                        file_page_size: ps.get(),
                        requested: spaces.page_size().get(),
                    });
                }
            }
            if head.iter().all(|&b| b == 0) {
                tracing::warn!(file = %path.display(), "tablespace file was never written; left for redo to claim");
                continue;
            }
            if spaces.contains(id) {
                return Err(EngineError::CorruptFile {
                    path,
                    reason: format!("space id {id} is used by another file too"),
                });
            }
            spaces.open(id, &name)?;
        }
        Ok(())
    }

    /// When page 0 of `f` fails verification as page 0 of space `id`: the
    /// space id of the first of the next pages that verifies under its own
    /// header's id (`None` when page 0 is sound or no later page verifies).
    fn space_id_from_later_pages(
        f: &dyn crate::io::IoFile,
        page_size: PageSize,
        id: u32,
    ) -> Result<Option<u32>> {
        use crate::page::{PageHeader, PageId, PageState};
        const PAGES_LOOKED_AT: u64 = 64;
        let ps = page_size.bytes();
        let mut page = crate::io::AlignedBuf::zeroed(ps);
        let pages = f.len()? / ps as u64;
        if pages == 0 || f.read_at(&mut page, 0).is_err() {
            return Ok(None);
        }
        if !matches!(
            crate::page::verify(&page, PageId::new(id, 0)),
            PageState::Corrupt(_)
        ) {
            return Ok(None);
        }
        for p in 1..pages.min(PAGES_LOOKED_AT) {
            if f.read_at(&mut page, p * ps as u64).is_err() {
                continue;
            }
            let claimed = PageId::new(PageHeader(&page).space_id(), p as u32);
            if crate::page::verify(&page, claimed) == PageState::Valid {
                return Ok(Some(claimed.space));
            }
        }
        Ok(None)
    }

    /// The settings in force (page size resolved).
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }
    pub fn page_size(&self) -> PageSize {
        self.page_size
    }
    pub fn datadir(&self) -> &PathBuf {
        &self.config.datadir
    }
    pub fn pool(&self) -> &BufferPool {
        &self.pool
    }
    pub fn log(&self) -> &RedoLog {
        self.pool.log()
    }
    pub fn spaces(&self) -> &SpaceRegistry {
        self.pool.spaces()
    }
    /// What crash recovery did when this directory was opened.
    pub fn recovery_report(&self) -> &RecoveryReport {
        &self.recovery
    }

    /// Starts a mini-transaction.
    pub fn mtr(&self) -> Result<Mtr<'_>> {
        Mtr::start(&self.pool)
    }

    /// Creates a file-per-table tablespace `name` (e.g. `test/t1.ibd`), durably.
    /// Returns its space id.
    pub fn create_tablespace(&self, name: &str) -> Result<u32> {
        if name.contains("..") || name.starts_with('/') || !name.ends_with(".ibd") {
            return Err(EngineError::Internal(format!(
                "bad tablespace file name '{name}'"
            )));
        }
        let extent = self.page_size.pages_per_extent();
        let mut mtr = self.mtr()?;
        let id = system_page::next_space_id(&mut mtr)?;
        mtr.commit()?;
        self.spaces().create(id, name, extent)?;
        let mut mtr = self.mtr()?;
        mtr.log_file_create(id, extent, name);
        alloc::init_space(&mut mtr, id, extent)?;
        space::write_stamp(&mut mtr, id)?;
        let end = mtr.commit()?;
        self.log().flush_up_to(end)?;
        Ok(id)
    }

    /// Drops a file-per-table tablespace, durably.
    pub fn drop_tablespace(&self, space: u32) -> Result<()> {
        if space <= self.config.undo_tablespaces {
            return Err(EngineError::Internal(format!(
                "space {space} cannot be dropped"
            )));
        }
        let mut mtr = self.mtr()?;
        mtr.log_file_delete(space);
        let end = mtr.commit()?;
        self.log().flush_up_to(end)?;
        self.pool.discard_space(space);
        self.spaces().remove(space)
    }

    /// The root page of the data dictionary in the system tablespace, if it
    /// has been created.
    pub fn dictionary_root(&self) -> Result<Option<u32>> {
        system_page::dictionary_root(self)
    }

    /// Records the root page of a newly created data dictionary, durably.
    pub fn set_dictionary_root(&self, root: u32) -> Result<()> {
        let mut mtr = self.mtr()?;
        system_page::set_dictionary_root(&mut mtr, root)?;
        let end = mtr.commit()?;
        self.log().flush_up_to(end)
    }

    /// Makes every change committed so far durable (the redo log is flushed up
    /// to the current LSN).
    pub fn make_durable(&self) -> Result<()> {
        let lsn = self.log().current_lsn();
        self.log().flush_up_to(lsn)
    }

    /// Flushes every dirty page and writes a checkpoint.
    pub fn flush_all(&self) -> Result<()> {
        self.pool.flush_all()
    }

    /// Verifies every page of every tablespace (see [`CheckReport`]).
    pub fn check(&self) -> Result<CheckReport> {
        check::run(self)
    }

    /// Clean shutdown: stop background threads, flush everything, checkpoint.
    pub fn close(mut self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        if let Some(bg) = self.background.take() {
            *self.pool.read_ahead_tx.lock() = None;
            bg.stop();
            if self.log().check_writable().is_ok() {
                self.pool.flush_all()?;
            }
        }
        Ok(())
    }

    /// True once the background threads run (the directory is fully open).
    pub fn is_running(&self) -> bool {
        self.background.is_some()
    }

    /// Stops the background threads without flushing (simulates a crash in
    /// tests: what is not durable is lost when the directory is reopened).
    pub fn abandon(mut self) {
        if let Some(bg) = self.background.take() {
            *self.pool.read_ahead_tx.lock() = None;
            bg.stop();
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            tracing::error!(error = %e, "shutdown flush failed");
        }
    }
}
