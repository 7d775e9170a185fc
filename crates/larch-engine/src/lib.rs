//! Larch storage engine.
//!
//! A library with a typed API and no SQL or networking. Subsystems, bottom-up
//! (each uses only those listed before it; see `ARCHITECTURE.md`):
//!
//! - [`io`]: the file-system abstraction (real and fault-injecting);
//! - [`page`]: page layout, checksums, page sizes;
//! - [`config`]: settings named after InnoDB's variables;
//! - [`space::registry`]: tablespace files by space id;
//! - [`wal`]: the redo log: records, the log buffer, group commit, checkpoints;
//! - [`buffer`]: the buffer pool, page cleaner, doublewrite buffer;
//! - [`mtr`]: mini-transactions, the only way pages change;
//! - [`space`]: page allocation inside tablespaces (extents, segments);
//! - [`recovery`]: torn-page repair and redo replay after a crash;
//! - [`storage`]: the facade that creates, opens, checks and closes a data directory;
//! - [`undo`]: persistent undo logs: rollback segments (slots, history lists),
//!   undo records and roll pointers, crash recovery of transactions' logs;
//! - [`record`]: typed values, memcomparable keys and collations, the compact
//!   row format, off-page (overflow) values;
//! - [`btree`]: B+tree indexes: latch coupling, splits and merges, cursors, the
//!   bulk builder, the structural check;
//! - [`lock`]: the row lock manager: record, gap, next-key and insert-intention
//!   locks, waits, deadlock detection, gap inheritance;
//! - [`table`]: tables as a clustered and secondary B+trees with typed rows;
//! - [`ddl`]: index builds: one scan, an external sort inside one memory
//!   budget, trees written bottom-up;
//! - [`fts`]: full-text search: InnoDB's tokenizer, stopwords, the ngram
//!   parser, query parsing and evaluation, the inverted-list codec, ranking,
//!   and FULLTEXT indexes kept in auxiliary tables by committing transactions;
//! - [`catalog`]: the data dictionary (databases, tables) with crash-safe DDL.

pub mod btree;
pub mod buffer;
pub mod catalog;
pub mod config;
pub mod ddl;
pub mod error;
pub mod fts;
pub mod io;
pub mod lock;
pub mod mtr;
pub mod page;
pub mod record;
pub mod recovery;
pub mod space;
pub mod storage;
pub mod table;
pub mod txn;
pub mod undo;
pub mod wal;

pub use error::{EngineError, Result};
