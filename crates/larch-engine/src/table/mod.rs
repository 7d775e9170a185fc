//! The engine's table API: tables as a clustered B+tree plus secondary B+trees,
//! with typed rows in and out.
//!
//! A [`Table`] is opened from its definition ([`TableDef`]) and the root pages
//! of its indexes ([`TableRoots`]); the catalog persists both. Operations take
//! a [`TxnContext`] naming the transaction they run for: its id stamps clustered
//! records and secondary entries, which is what MVCC will read. Rows are
//! addressed by [`RowRef`] (the clustered key bytes), which scans return, so the
//! SQL layer can update or delete the row it just read, with or without a
//! primary key.
//!
//! What this first cut guarantees, and what the transaction system adds:
//! - every B+tree change is a mini-transaction (crash-safe, redo-logged);
//! - a row change that touches several indexes is one mini-transaction per
//!   index. Until undo logs exist, a crash between them can leave a row in the
//!   clustered index without all its secondary entries (the transaction issue
//!   closes this: recovery rolls back the incomplete transaction from undo);
//! - uniqueness (primary and unique secondary keys) is checked before anything
//!   changes, so a rejected statement leaves no trace; unique secondary checks
//!   are serialized per table by a mutex until row locks exist;
//! - deletes remove entries physically and free off-page values at once; with
//!   MVCC they become delete-marks that purge removes.
//!
//! Layout of rows in the trees: [`layout`]. Off-page (long) columns use
//! `record::overflow` chains allocated in the clustered index's leaf segment, as
//! InnoDB allocates BLOB pages, so dropping the index frees them.

mod autoinc;
mod check;
pub mod layout;
mod read;
pub mod schema;
#[cfg(test)]
mod tests;
mod write;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

pub use autoinc::RESERVE_STEP as AUTO_INCREMENT_RESERVE_STEP;
pub use check::TableCheck;
pub use layout::TableLayout;
pub use read::{KeyRange, RowCursor};
pub use schema::{ColumnDef, IndexColumn, IndexDef, TableDef};

use crate::btree::BTree;
use crate::error::{EngineError, Result};
use crate::record::row::MAX_48;
use crate::space::alloc::SegmentRef;
use crate::storage::Storage;

/// The transaction an operation runs for. Today it carries the id that stamps
/// the records written; the transaction system extends it with the snapshot,
/// undo and locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnContext {
    /// Transaction id (48 bits) written into clustered records and secondary
    /// entry stamps.
    pub trx_id: u64,
}

/// Where a table's indexes live: the tablespace and each index's root page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRoots {
    pub space: u32,
    pub clustered: u32,
    /// One per secondary index, in [`TableDef::secondary`] order.
    pub secondary: Vec<u32>,
}

/// A row's address: its clustered index key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowRef(pub Vec<u8>);

/// Index number in scans: 0 is the clustered index, `1 + i` is secondary index
/// `i` of [`TableDef::secondary`].
pub const CLUSTERED: usize = 0;

/// An open table. Cheap to share between threads (`Arc<Table>`).
pub struct Table {
    storage: Arc<Storage>,
    layout: TableLayout,
    space: u32,
    clustered: BTree,
    secondary: Vec<BTree>,
    /// Segment that off-page values are allocated from (the clustered leaf segment).
    blob_segment: SegmentRef,
    /// Next hidden row id (tables without a primary key). Starts above the
    /// largest id in the clustered index, delete-marked entries included, so
    /// an id is reused only after purge removed every trace of its row.
    next_row_id: AtomicU64,
    /// The AUTO_INCREMENT counter, for tables with such a column.
    autoinc: Option<autoinc::AutoIncrement>,
    /// Serializes unique-secondary checks with their inserts (until row locks).
    unique_latch: Mutex<()>,
    /// Serializes changes of the same row (striped by clustered key) until row
    /// locks exist.
    row_latches: Vec<Mutex<()>>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.layout.def.name)
            .field("roots", &self.roots())
            .finish()
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let Some(next) = self.autoinc.as_ref().and_then(|a| a.settle()) else {
            return;
        };
        if !self.storage.spaces().contains(self.space) {
            return; // dropped table
        }
        let r = self.storage.mtr().and_then(|mut mtr| {
            crate::space::write_table_counter(&mut mtr, self.space, next)?;
            mtr.commit().map(|_| ())
        });
        if let Err(e) = r {
            tracing::warn!(error = %e, table = %self.layout.def.name, "could not store the AUTO_INCREMENT counter; the next start continues above its reserved bound");
        }
    }
}

impl Table {
    /// Creates the indexes of a new table in tablespace `space` (which may hold
    /// other tables). Index ids are `(space << 16) | index number`.
    pub fn create(storage: &Arc<Storage>, def: TableDef, space: u32) -> Result<Table> {
        let layout = TableLayout::new(def, storage.page_size())?;
        let pool = storage.pool();
        let index_id = |n: usize| (u64::from(space) << 16) | n as u64;
        let clustered = BTree::create(pool, space, index_id(0))?;
        let mut secondary = Vec::with_capacity(layout.secondary.len());
        for i in 0..layout.secondary.len() {
            secondary.push(BTree::create(pool, space, index_id(i + 1))?);
        }
        Self::assemble(storage, layout, clustered, secondary)
    }

    /// Creates a table in its own tablespace file `name` (e.g. `"db/t1.ibd"`),
    /// as `innodb_file_per_table` does.
    pub fn create_file_per_table(
        storage: &Arc<Storage>,
        def: TableDef,
        name: &str,
    ) -> Result<Table> {
        // Validate before creating the file, so a bad definition leaves nothing.
        TableLayout::new(def.clone(), storage.page_size())?;
        let space = storage.create_tablespace(name)?;
        match Self::create(storage, def, space) {
            Ok(t) => Ok(t),
            Err(e) => {
                if let Err(drop_err) = storage.drop_tablespace(space) {
                    tracing::warn!(error = %drop_err, space, "could not remove the tablespace of a failed CREATE TABLE");
                }
                Err(e)
            }
        }
    }

    /// Opens an existing table.
    pub fn open(storage: &Arc<Storage>, def: TableDef, roots: &TableRoots) -> Result<Table> {
        let layout = TableLayout::new(def, storage.page_size())?;
        if roots.secondary.len() != layout.secondary.len() {
            return Err(EngineError::Internal(format!(
                "table '{}' has {} secondary indexes but {} roots",
                layout.def.name,
                layout.secondary.len(),
                roots.secondary.len()
            )));
        }
        let pool = storage.pool();
        let clustered = BTree::open(pool, roots.space, roots.clustered)?;
        let secondary = roots
            .secondary
            .iter()
            .map(|&r| BTree::open(pool, roots.space, r))
            .collect::<Result<Vec<_>>>()?;
        Self::assemble(storage, layout, clustered, secondary)
    }

    fn assemble(
        storage: &Arc<Storage>,
        layout: TableLayout,
        clustered: BTree,
        secondary: Vec<BTree>,
    ) -> Result<Table> {
        let pool = storage.pool();
        let (blob_segment, _) = clustered.segments(pool)?;
        let autoinc = match layout.def.auto_increment {
            None => None,
            Some(_) if clustered.space == crate::space::SYSTEM_SPACE => {
                return Err(EngineError::Internal(format!(
                    "table '{}': AUTO_INCREMENT needs a file-per-table tablespace",
                    layout.def.name
                )))
            }
            Some(_) => {
                let mut mtr = storage.mtr()?;
                let bound = crate::space::read_table_counter(&mut mtr, clustered.space)?;
                mtr.commit()?;
                Some(autoinc::AutoIncrement::new(bound))
            }
        };
        let mut table = Table {
            storage: storage.clone(),
            space: clustered.space,
            layout,
            clustered,
            secondary,
            blob_segment,
            autoinc,
            next_row_id: AtomicU64::new(1),
            unique_latch: Mutex::new(()),
            row_latches: (0..write::ROW_STRIPES).map(|_| Mutex::new(())).collect(),
        };
        if table.layout.clustered.hidden_row_id {
            table.next_row_id = AtomicU64::new(table.max_row_id()? + 1);
        }
        Ok(table)
    }

    /// The largest hidden row id in use (0 when empty).
    fn max_row_id(&self) -> Result<u64> {
        let pool = self.storage.pool();
        let mut c = self.clustered.range(
            pool,
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            true,
        );
        Ok(match c.next_entry()? {
            Some(e) => e.key.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b)),
            None => 0,
        })
    }

    pub(crate) fn allocate_row_id(&self) -> Result<u64> {
        let id = self.next_row_id.fetch_add(1, Ordering::Relaxed);
        if id > MAX_48 {
            return Err(EngineError::Internal(format!(
                "table '{}' has used every hidden row id",
                self.layout.def.name
            )));
        }
        Ok(id)
    }

    /// The table's definition.
    pub fn def(&self) -> &TableDef {
        &self.layout.def
    }

    /// The table's index layouts.
    pub fn layout(&self) -> &TableLayout {
        &self.layout
    }

    /// The tablespace and index roots (what the catalog stores).
    pub fn roots(&self) -> TableRoots {
        TableRoots {
            space: self.space,
            clustered: self.clustered.root,
            secondary: self.secondary.iter().map(|t| t.root).collect(),
        }
    }

    /// The clustered index tree.
    pub fn clustered_tree(&self) -> &BTree {
        &self.clustered
    }

    /// The tree of secondary index `i`.
    pub fn secondary_tree(&self, i: usize) -> Option<&BTree> {
        self.secondary.get(i)
    }

    /// The address of the row whose primary key is `pk` (one value per key part).
    pub fn row_ref(&self, pk: &[crate::record::value::Value]) -> Result<RowRef> {
        let c = &self.layout.clustered;
        if c.hidden_row_id {
            return Err(EngineError::Internal(format!(
                "table '{}' has no primary key",
                self.layout.def.name
            )));
        }
        let mut key = Vec::new();
        crate::record::key::encode_key(&c.parts, pk, &mut key)?;
        Ok(RowRef(key))
    }

    /// Frees every page of the table's indexes (tables in a shared tablespace).
    pub fn drop_indexes(self) -> Result<()> {
        let pool = self.storage.pool();
        for t in &self.secondary {
            t.drop_tree(pool)?;
        }
        self.clustered.drop_tree(pool)
    }

    /// Drops a file-per-table table: its tablespace file goes.
    pub fn drop_file_per_table(self) -> Result<()> {
        self.storage.drop_tablespace(self.space)
    }
}
