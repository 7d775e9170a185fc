//! The buffer pool: cached pages, their latches, and writing them back.
//!
//! - [`pool`]: [`BufferPool`], fixing pages (read on miss, verify checksums),
//!   eviction, dirty-page bookkeeping;
//! - [`descriptor`]: the 64-byte per-frame control block with the page latch;
//! - [`page_table`], [`lru`], [`flush_list`]: the lookup structure and the two lists;
//! - [`flush`]: flush batches (through the doublewrite buffer), checkpoints, and
//!   the log-space check every mini-transaction makes;
//! - [`doublewrite`]: torn-page protection;
//! - [`cleaner`]: the background page cleaner and read-ahead threads.
//!
//! Invariants: a frame is evicted only when unfixed, clean, not being flushed and
//! not latched; a page is written only after the log is durable up to its newest
//! modification (write-ahead logging); a checkpoint never passes a change whose
//! page is not yet durable in its data file.

pub mod cleaner;
pub mod descriptor;
pub mod doublewrite;
pub mod flush;
pub mod flush_list;
pub mod lru;
pub mod page_table;
pub mod pool;

pub use cleaner::BackgroundThreads;
pub use doublewrite::Doublewrite;
pub use pool::{BufferPool, BufferStats, PageGuard};

/// How a page is latched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latch {
    /// Many readers.
    Shared,
    /// One writer.
    Exclusive,
}
