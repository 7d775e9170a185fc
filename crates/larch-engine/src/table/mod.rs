//! The engine's table API: tables as a clustered B+tree plus secondary B+trees,
//! with typed rows in and out, versioned for MVCC.
//!
//! A [`Table`] is opened from its definition ([`TableDef`]) and the root pages
//! of its indexes ([`TableRoots`]); the catalog persists both. Writes take a
//! [`TxnContext`] (the transaction: its id stamps records, its undo log keeps
//! previous versions, its row locks serialize writers); reads take a
//! [`ReadContext`] (the snapshot, or "newest"). Rows are addressed by
//! [`RowRef`] (the clustered key bytes), which scans return, so the SQL layer
//! can lock, update or delete the row it just read, with or without a primary
//! key.
//!
//! Files: `context` (transaction services and contexts), `change` (insert,
//! update, delete, row locks) with helpers in `write`, `read` (point reads,
//! opening scans), `scan` (reading rows off a scan), `version` (which version
//! a read sees), `undo_entry` (the row part of undo records), `rollback` (applying undo), `purge` (removing what no
//! snapshot needs), `online_log` (row changes an index build replays), `layout` (rows as B+tree entries), `autoinc`, `check`.
//!
//! Guarantees:
//! - every B+tree change is a mini-transaction (crash-safe, redo-logged); a row
//!   change's undo record is logged before the change, so recovery can roll
//!   back any transaction that had not committed, however far it got;
//! - deletes are delete-marks; purge removes records and frees off-page values
//!   once no snapshot can see them;
//! - off-page (long) columns use `record::overflow` chains allocated in the
//!   clustered index's leaf segment, as InnoDB allocates BLOB pages, so dropping
//!   the index frees them. A chain belongs to the versions that reference it:
//!   an update that stops referencing one records it in its undo record, and
//!   purge of that record frees it.

mod autoinc;
mod change;
mod check;
mod commit_hooks;
mod context;
#[cfg(test)]
mod full_disk_tests;
mod gap;
pub mod index_keys;
pub mod layout;
#[cfg(test)]
mod mvcc_tests;
mod online_log;
mod purge;
mod read;
mod rollback;
#[cfg(test)]
mod savepoint_tests;
mod scan;
pub mod schema;
mod statistics;
#[cfg(test)]
mod tests;
mod undo_entry;
mod version;
mod write;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

pub use autoinc::{AutoIncrementStep, RESERVE_STEP as AUTO_INCREMENT_RESERVE_STEP};
pub use check::TableCheck;
pub use commit_hooks::{AfterCommit, CommitParticipant, RowChange};
pub use context::{ReadContext, TransactionServices, TxnContext, UndoMark};
pub use layout::TableLayout;
pub use online_log::{LogOp, OnlineIndexLog};
#[cfg(test)]
pub(crate) use purge::roll_back_recovered_now;
pub use purge::{purge_all, PurgeStats, PurgeWorker};
pub use read::KeyRange;
pub use scan::RowCursor;
pub use schema::{
    ColumnDef, FulltextIndexDef, FulltextParserDef, IndexColumn, IndexDef, StopwordTable, TableDef,
};
pub use statistics::{TableStatistics, SAMPLE_PAGES as STATISTICS_SAMPLE_PAGES};

use crate::btree::BTree;
use crate::error::{EngineError, Result};
use crate::record::row::MAX_48;
use crate::space::alloc::SegmentRef;
use crate::storage::Storage;

/// Where a table's indexes live: the tablespace and each index's root page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRoots {
    pub space: u32,
    pub clustered: u32,
    /// One per secondary index, in [`TableDef::secondary`] order.
    pub secondary: Vec<u32>,
    /// The root pages of the table's full-text auxiliary tables, in the
    /// order `crate::fts` defines (empty without FULLTEXT indexes).
    pub auxiliary: Vec<u32>,
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
    /// Serializes unique-secondary checks with the inserts they allow (never
    /// held across a lock wait).
    unique_latch: Mutex<()>,
    /// The transaction services (absent for tables read and written only
    /// internally, such as the data dictionary).
    services: Option<Arc<TransactionServices>>,
    /// Set when the catalog replaced this open table by one with other
    /// indexes; purge holds it shared while it changes the trees.
    retired: parking_lot::RwLock<bool>,
    /// What hears about this table's row changes at commit (its FULLTEXT
    /// indexes), set once after opening.
    participant: std::sync::OnceLock<Arc<dyn CommitParticipant>>,
    /// The log of an index build running beside writers (`online_log`).
    online_log: parking_lot::RwLock<Option<Arc<OnlineIndexLog>>>,
    /// Set while `online_log` holds a log: row changes read this flag, and
    /// take the lock only when it is set.
    online_log_set: std::sync::atomic::AtomicBool,
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
        self.settle_auto_increment();
    }
}

impl Table {
    /// Stores the exact AUTO_INCREMENT counter (every value handed out is
    /// below it), as closing the table does; a later close writes again
    /// only if values were handed out since.
    pub fn settle_auto_increment(&self) {
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

    /// Marks this open table as replaced by one with a new definition
    /// (index changes): waits for the purge step running on it, after which
    /// purge uses the new one. Its trees may then be freed.
    pub fn retire(&self) {
        *self.retired.write() = true;
    }
}

impl Table {
    /// Creates the indexes of a new table in tablespace `space` (which may hold
    /// other tables). Index ids are `(space << 16) | index number`.
    pub fn create(storage: &Arc<Storage>, def: TableDef, space: u32) -> Result<Table> {
        Self::create_numbered(storage, def, space, 0)
    }

    /// [`Table::create`] with index ids numbered from `first_index`: index
    /// `i` gets `(space << 16) | (first_index + i)`. Internal tables that
    /// share a user table's tablespace (the full-text auxiliary tables)
    /// number theirs above any user index, so their row locks never meet.
    pub fn create_numbered(
        storage: &Arc<Storage>,
        def: TableDef,
        space: u32,
        first_index: u16,
    ) -> Result<Table> {
        let layout = TableLayout::new(def, storage.page_size())?;
        let pool = storage.pool();
        let index_id = |n: usize| (u64::from(space) << 16) | (usize::from(first_index) + n) as u64;
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
            services: None,
            retired: parking_lot::RwLock::new(false),
            participant: std::sync::OnceLock::new(),
            online_log: parking_lot::RwLock::new(None),
            online_log_set: std::sync::atomic::AtomicBool::new(false),
        };
        if table.layout.clustered.hidden_row_id {
            table.next_row_id = AtomicU64::new(table.max_row_id()? + 1);
        }
        Ok(table)
    }

    /// Attaches the transaction services (versioned reads, rollback, purge).
    pub fn with_services(mut self, services: &Arc<TransactionServices>) -> Self {
        self.services = Some(services.clone());
        self
    }

    /// Installs what hears about this table's row changes at commit (once;
    /// false if one was already installed).
    pub fn set_participant(&self, participant: Arc<dyn CommitParticipant>) -> bool {
        self.participant.set(participant).is_ok()
    }

    /// The installed commit participant.
    pub fn participant(&self) -> Option<&Arc<dyn CommitParticipant>> {
        self.participant.get()
    }

    /// The services this table was opened with.
    pub fn services(&self) -> Option<&Arc<TransactionServices>> {
        self.services.as_ref()
    }

    /// What undo records name this table by: tablespace and clustered root.
    pub fn undo_identity(&self) -> (u32, u32) {
        (self.space, self.clustered.root)
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

    /// The storage the table lives in.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
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
            auxiliary: Vec::new(),
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
