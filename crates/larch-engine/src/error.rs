//! The engine's one error type.
//!
//! Every fallible engine call returns [`Result`]. Variants name what went wrong
//! precisely enough for an operator to act (which file, which space and page, which
//! setting); the SQL layer maps them to MySQL error codes in exactly one place.

use std::path::PathBuf;

use crate::page::PageId;

/// Result alias used throughout the engine.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// Everything that can go wrong inside the storage engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// An operating-system I/O call failed.
    #[error("I/O error during {op} on '{path}': {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The device is full; the write that hit it had no effect on committed data.
    #[error("no space left on device while writing '{path}'")]
    DiskFull { path: PathBuf },

    /// A page failed its checksum or structural checks. Never served as valid data.
    #[error("corrupt page {page} in '{path}': {reason}")]
    Corruption {
        path: PathBuf,
        page: PageId,
        reason: String,
    },

    /// A file is structurally wrong as a whole (bad header, truncated, wrong magic).
    #[error("corrupt file '{path}': {reason}")]
    CorruptFile { path: PathBuf, reason: String },

    /// The data directory was created with another page size than the one asked for.
    #[error(
        "data file '{path}' uses page size {file_page_size}, but the start-up parameter is innodb-page-size={requested}"
    )]
    PageSizeMismatch {
        path: PathBuf,
        file_page_size: u32,
        requested: u32,
    },

    /// A write or flush to stable storage failed earlier; the engine refuses
    /// further writes because it can no longer promise that acknowledged data is
    /// durable. `reason` is the failure, naming the file.
    #[error("the engine stopped accepting writes after a failed write or fsync: {reason}")]
    WritesDisabled { reason: String },

    /// A configuration value is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),

    /// The data directory is missing, incomplete or already in use.
    #[error("data directory '{path}': {reason}")]
    DataDir { path: PathBuf, reason: String },

    /// A tablespace ran out of addressable pages or the request was impossible.
    #[error("tablespace {space}: {reason}")]
    SpaceFull { space: u32, reason: String },

    /// A unique index already holds the key (MySQL error 1062).
    #[error("duplicate key in index {index_id}")]
    DuplicateKey { index_id: u64 },

    /// An index entry is larger than the page size allows (MySQL error 1071).
    #[error("specified key was too long; max key length is {max} bytes")]
    KeyTooLong { max: usize },

    /// A row does not fit the record format (e.g. MySQL error 1118, row too large).
    #[error(transparent)]
    Row(#[from] crate::record::row::RowError),

    /// A value does not fit its column type (MySQL errors 1264, 1292, 1366, 1406).
    #[error(transparent)]
    Value(#[from] crate::record::value::ValueError),

    /// A unique index already holds the key, named as MySQL names it (error 1062:
    /// "Duplicate entry '1-abc' for key 'k'").
    #[error("Duplicate entry '{entry}' for key '{key}'")]
    DuplicateEntry { entry: String, key: String },

    /// A schema request MySQL refuses, with its error number and message text:
    /// table definitions the engine cannot store (1060 duplicate column, 1061
    /// duplicate key name, 1069 too many keys, 1070 too many key parts, 1072 key
    /// column missing, 1089 bad prefix, 1170 BLOB/TEXT key without a length, 1171
    /// nullable primary key part) and dictionary names (1007 database exists,
    /// 1008/1049 unknown database, 1050 table exists, 1051/1146 unknown table).
    #[error("{message}")]
    Schema { errno: u16, message: String },

    /// An engine-internal invariant was violated (a bug, reported instead of a panic).
    #[error("internal error: {0}")]
    Internal(String),

    /// A write inside a read-only transaction (MySQL error 1792, SQLSTATE 25006).
    #[error("Cannot execute statement in a READ ONLY transaction.")]
    ReadOnlyTransaction,

    /// A row lock wait reached `innodb_lock_wait_timeout` (MySQL error 1205,
    /// SQLSTATE HY000). The statement failed; the transaction stays open.
    #[error("Lock wait timeout exceeded; try restarting transaction")]
    LockWaitTimeout,

    /// A `NOWAIT` locking read found the row locked. MariaDB reports this as
    /// error 1205 (HY000) with the lock wait timeout message, and so do we
    /// (MySQL 8 uses 3572, ER_LOCK_NOWAIT).
    #[error("Lock wait timeout exceeded; try restarting transaction")]
    LockNoWait,

    /// The transaction was chosen as a deadlock victim (MySQL error 1213,
    /// SQLSTATE 40001); the caller must roll it back.
    #[error("Deadlock found when trying to get lock; try restarting transaction")]
    Deadlock,

    /// A wait was interrupted by KILL QUERY (MySQL error 1317, SQLSTATE 70100).
    #[error("Query execution was interrupted")]
    QueryInterrupted,
}

impl EngineError {
    /// Wraps an `std::io::Error`, turning `ENOSPC` into [`EngineError::DiskFull`].
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.raw_os_error() == Some(libc::ENOSPC)
            || source.kind() == std::io::ErrorKind::StorageFull
        {
            EngineError::DiskFull { path }
        } else {
            EngineError::Io { op, path, source }
        }
    }

    /// The MySQL error number and SQLSTATE of the variants whose code the
    /// engine fixes (the lock errors); `None` for the others, which the SQL
    /// layer maps.
    pub fn mysql_code(&self) -> Option<(u16, &'static str)> {
        match self {
            EngineError::LockWaitTimeout | EngineError::LockNoWait => Some((1205, "HY000")),
            EngineError::Deadlock => Some((1213, "40001")),
            EngineError::QueryInterrupted => Some((1317, "70100")),
            _ => None,
        }
    }

    /// True when the error means the data on disk cannot be trusted.
    pub fn is_corruption(&self) -> bool {
        matches!(
            self,
            EngineError::Corruption { .. } | EngineError::CorruptFile { .. }
        )
    }
}
