//! Larch benchmarks.
//!
//! Speed and memory targets are proven here, never by timed unit tests (see
//! `DESIGN.md` section 4). This crate holds the micro-benchmarks of the storage
//! core (`storage-core` binary); the side-by-side runs against MariaDB come later.
//!
//! - [`harness`]: timing, repetitions, thread launching, the result table/TSV;
//! - [`memory`]: buffer pool metadata bytes per page, computed and measured (RSS);
//! - [`fix`]: buffer pool fix/unfix of resident pages;
//! - [`redo`]: redo append throughput and durable group commits;
//! - [`checksum`]: CRC32C page checksum throughput per page size;
//! - [`sbtest_sql`]: the sysbench table of the in-process SQL benchmarks.

pub mod checksum;
pub mod fix;
pub mod harness;
pub mod memory;
pub mod redo;
pub mod sbtest_sql;
