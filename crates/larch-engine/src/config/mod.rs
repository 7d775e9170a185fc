//! Engine configuration, named after InnoDB's variables.
//!
//! [`EngineConfig`] holds the resolved settings the engine runs with. It is built
//! from command-line style options and my.cnf-style option files by
//! [`options::OptionSet`] (`--innodb-page-size=8k`, `--innodb_page_size=8192`,
//! `--defaults-file=F` with `[mysqld]`/`[larchd]` groups), so existing MySQL
//! configurations keep working.

pub mod options;

use std::path::PathBuf;

use crate::page::PageSize;

/// `innodb_flush_method`: how data and log files are opened and flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushMethod {
    /// Buffered I/O, `fsync`/`fdatasync` after writes.
    Fsync,
    /// Log files opened with `O_DSYNC`; data files buffered with `fsync`.
    ODsync,
    /// Data files opened with `O_DIRECT` (bypassing the page cache), still fsynced.
    ODirect,
    /// `O_DIRECT` data files without `fsync` after page writes (only where the
    /// storage makes direct writes durable on completion).
    ODirectNoFsync,
}

impl FlushMethod {
    /// Parses the names MySQL and MariaDB accept (case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "fsync" | "0" => Self::Fsync,
            "o_dsync" | "1" => Self::ODsync,
            "o_direct" | "4" => Self::ODirect,
            "o_direct_no_fsync" | "5" => Self::ODirectNoFsync,
            _ => return None,
        })
    }

    /// The name as `SHOW VARIABLES` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fsync => "fsync",
            Self::ODsync => "O_DSYNC",
            Self::ODirect => "O_DIRECT",
            Self::ODirectNoFsync => "O_DIRECT_NO_FSYNC",
        }
    }

    /// Whether data files are opened with `O_DIRECT`.
    pub fn data_direct(self) -> bool {
        matches!(self, Self::ODirect | Self::ODirectNoFsync)
    }

    /// Whether data files need an fsync after page writes.
    pub fn data_fsync(self) -> bool {
        !matches!(self, Self::ODirectNoFsync)
    }
}

/// Settings of one engine instance. Defaults follow MariaDB 10.11.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    /// `datadir`: the data directory.
    pub datadir: PathBuf,
    /// `innodb_page_size`; `None` means "whatever the data directory was created
    /// with" (16k for a new one).
    pub page_size: Option<PageSize>,
    /// `innodb_buffer_pool_size` in bytes.
    pub buffer_pool_size: u64,
    /// `innodb_log_file_size` in bytes: capacity of the circular redo log.
    pub log_file_size: u64,
    /// `innodb_log_buffer_size` in bytes.
    pub log_buffer_size: u64,
    /// `innodb_flush_log_at_trx_commit`: 0, 1 or 2.
    pub flush_log_at_trx_commit: u8,
    /// `innodb_doublewrite`.
    pub doublewrite: bool,
    /// `innodb_flush_method`.
    pub flush_method: FlushMethod,
    /// `innodb_old_blocks_pct`: share of the LRU list kept as the old sublist (5..=95).
    pub old_blocks_pct: u32,
    /// `innodb_old_blocks_time` in ms: how long a page must stay in the old sublist
    /// after its first access before another access moves it to the young end.
    pub old_blocks_time_ms: u32,
    /// `innodb_io_capacity`: background page writes per second.
    pub io_capacity: u32,
    /// `innodb_io_capacity_max`.
    pub io_capacity_max: u32,
    /// `innodb_max_dirty_pages_pct`: the page cleaner works harder above this.
    pub max_dirty_pages_pct: f64,
    /// `innodb_read_ahead_threshold`: sequentially accessed pages of an extent that
    /// trigger a linear read-ahead of the next extent (0..=64; 0 disables).
    pub read_ahead_threshold: u32,
    /// `innodb_undo_tablespaces`: undo tablespaces created at initialisation.
    pub undo_tablespaces: u32,
}

impl EngineConfig {
    /// Defaults for a data directory at `datadir`.
    pub fn new(datadir: impl Into<PathBuf>) -> Self {
        Self {
            datadir: datadir.into(),
            page_size: None,
            buffer_pool_size: 128 << 20,
            log_file_size: 96 << 20,
            log_buffer_size: 16 << 20,
            flush_log_at_trx_commit: 1,
            doublewrite: true,
            flush_method: FlushMethod::ODirect,
            old_blocks_pct: 37,
            old_blocks_time_ms: 1000,
            io_capacity: 200,
            io_capacity_max: 2000,
            max_dirty_pages_pct: 90.0,
            read_ahead_threshold: 56,
            undo_tablespaces: 3,
        }
    }
}
