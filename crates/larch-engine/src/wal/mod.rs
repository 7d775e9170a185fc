//! The redo log (write-ahead log).
//!
//! - [`record`]: the physical redo records a mini-transaction logs;
//! - [`file`]: the circular log file with its two checkpoint slots;
//! - [`log`]: [`RedoLog`], the in-memory log buffer with concurrent appends,
//!   group commit, `innodb_flush_log_at_trx_commit` semantics and checkpoints;
//! - [`completion`]: in-order completion tracking for concurrent appends;
//! - [`durable`]: waiting for a commit's durability as a future; the waits
//!   lead the group commit themselves (the commit flusher thread serves the
//!   waits of shared worker threads);
//! - [`scan`]: reading log blocks back during recovery.
//!
//! LSN = byte offset in the (unbounded) log stream. A block (one mini-transaction)
//! is a 24-byte header and its records, padded to 8 bytes:
//!
//! ```text
//! 0  u32 len    bytes of header + records (before padding)
//! 4  u32 crc    CRC32C of bytes [8, len)
//! 8  u64 lsn    the block's own start LSN (rejects stale data from earlier laps)
//! 16 u32 epoch  start-up counter of the writing process (rejects stale tails)
//! 20 u32 reserved
//! 24 ... records
//! ```

pub mod completion;
pub mod durable;
#[cfg(test)]
mod durable_tests;
pub mod file;
pub mod log;
pub mod record;
pub mod scan;

pub use durable::{CommitFlusher, DurableWait};
pub use file::{Checkpoint, LogFile};
pub use log::{LogStats, RedoLog};
pub use record::{RecordReader, RecordWriter, RedoRecord};

/// Bytes of a block header.
pub const BLOCK_HEADER_BYTES: usize = 24;
