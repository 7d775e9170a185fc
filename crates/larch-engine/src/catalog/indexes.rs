//! Changing a table's secondary indexes in place: new indexes built from
//! one scan ([`crate::ddl::build_indexes`]), dropped indexes freed, the
//! rows and the other indexes untouched.
//!
//! [`Catalog::begin_index_change`] takes the table's new definition (the
//! same columns and primary key, the same AUTO_INCREMENT column or none;
//! secondary indexes added, removed, renamed or reordered; a renamed index
//! keeps its tree, [`match_indexes`]) and returns an [`IndexChangeBuild`],
//! whose steps are:
//! 1. (begin) create an empty tree for each new index, in the table's
//!    tablespace; write a DDL log entry *drop the trees of the table it
//!    does not use*, naming the new trees and those of the dropped
//!    indexes; for an online change, attach an [`OnlineIndexLog`] to the
//!    open table;
//! 2. ([`IndexChangeBuild::build`]) build the new trees from one scan, then
//!    replay the online log while writers go on appending to it;
//! 3. ([`IndexChangeBuild::finish`]) replay the rest of the log, check the
//!    unique indexes where concurrent changes touched them, write the new
//!    definition and roots in one dictionary row change, retire the open
//!    table (purge moves to the table opened with the new definition) and
//!    free the dropped indexes' trees by applying the log entry, then
//!    delete it.
//!
//! Locking, the caller's part: it holds the table exclusively at 1 and 3
//! (no row change in flight; for 1, so that no change escapes both the
//! scan and the log). Between them, for an online change, writers may run
//! (`LOCK=NONE`); without an online log they must not. It also makes sure
//! the new definition is valid SQL-wise; the engine checks that only
//! indexes change.
//!
//! A failure anywhere, or dropping the build unfinished, applies the entry
//! at once: the new trees are freed and the table is as it was. A crash
//! before the dictionary change leaves the old definition, and the next
//! start frees the new trees; a crash after it leaves the new one, and the
//! next start frees the dropped trees. The online log lives in memory only:
//! the indexes it feeds do not survive a crash before the switch. Pages of
//! trees created in 1 leak only if a crash comes between their creation and
//! the log entry (a few pages).
//!
//! Unique indexes: the scan may read rows that concurrent transactions are
//! changing, so two of its entries with equal keys are only a suspicion in
//! an online build; each is checked again, as are the keys the log put,
//! against the finished tree at 3 (1062 when a key is still there twice).

use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::Arc;

use super::ddl_log::{Action, LoggedTree};
use super::{codec, schema_err, Catalog, TableEntry, KIND_TABLE};
use crate::btree::{BTree, OnDuplicate};
use crate::ddl::{build_indexes, BuildOptions, BuildStats, NewIndex, Suspects};
use crate::error::{EngineError, Result};
use crate::mtr::Mtr;
use crate::record::key::prefix_end;
use crate::space::alloc;
use crate::table::{IndexDef, LogOp, OnlineIndexLog, Table, TableDef, TableLayout, TableRoots};

/// What [`Catalog::change_indexes`] did.
#[derive(Debug, Clone, Default)]
pub struct IndexChange {
    /// Names of the indexes built.
    pub built: Vec<String>,
    /// Names of the indexes dropped.
    pub dropped: Vec<String>,
    pub stats: BuildStats,
    /// Steps of the online log replayed into the new indexes.
    pub replayed: u64,
}

/// Steps of the online log below which the build stops replaying beside
/// the writers and asks for the table exclusively.
const REPLAY_TAIL: usize = 1024;
/// Replay passes beside the writers, at most.
const REPLAY_PASSES: usize = 8;

/// An index change under way; see the module documentation.
pub struct IndexChangeBuild<'c> {
    catalog: &'c Catalog,
    schema: String,
    name: String,
    entry: TableEntry,
    def: TableDef,
    layout: TableLayout,
    table: Arc<Table>,
    /// For each index of `def`, the old index whose tree it keeps.
    sources: Vec<Option<usize>>,
    targets: Vec<NewIndex>,
    actions: [Action; 1],
    /// Dictionary row of the DDL log entry.
    log_row: u64,
    online: Option<Arc<OnlineIndexLog>>,
    /// Keys of unique indexes to check at the end: (target, entry key).
    suspects: Vec<(usize, Vec<u8>)>,
    /// Secondary key parts of unique indexes the log put: (target, parts).
    touched: BTreeSet<(usize, Vec<u8>)>,
    change: IndexChange,
    finished: bool,
}

impl Catalog {
    /// Builds and drops secondary indexes of `schema.name` so that it has
    /// the indexes of `def`, with no writer beside the build; see the
    /// module documentation.
    pub fn change_indexes(
        &self,
        schema: &str,
        name: &str,
        def: TableDef,
        sql_meta: &[u8],
        options: &BuildOptions,
        interrupted: &(dyn Fn() -> bool + Sync),
    ) -> Result<IndexChange> {
        let mut build = self.begin_index_change(schema, name, def, None)?;
        build.build(options, interrupted)?;
        build.finish(sql_meta, interrupted)
    }

    /// Step 1 of an index change (see the module documentation).
    /// `online_log_max`: writers may run during [`IndexChangeBuild::build`],
    /// their changes kept in an online log of at most this many bytes.
    pub fn begin_index_change(
        &self,
        schema: &str,
        name: &str,
        def: TableDef,
        online_log_max: Option<usize>,
    ) -> Result<IndexChangeBuild<'_>> {
        let missing = || schema_err(1146, format!("Table '{schema}.{name}' doesn't exist"));
        let e = self.table_entry(schema, name).ok_or_else(missing)?;
        if def.columns != e.def.columns
            || def.primary_key != e.def.primary_key
            || (def.auto_increment.is_some() && def.auto_increment != e.def.auto_increment)
            || def.fulltext != e.def.fulltext
        {
            return Err(EngineError::Internal(
                "change_indexes: the new definition changes more than secondary indexes".into(),
            ));
        }
        // Each index of the new definition is an old one kept, or new.
        let sources = match_indexes(&e.def.secondary, &def.secondary);
        let mut kept = vec![false; e.def.secondary.len()];
        for j in sources.iter().flatten() {
            kept[*j] = true;
        }
        let layout = TableLayout::new(def.clone(), self.storage.page_size())?;
        let table = self.table(schema, name)?;
        let pool = self.storage.pool();
        let mut change = IndexChange::default();
        let mut ids: Vec<u64> = std::iter::once(table.clustered_tree().index_id)
            .chain(
                (0..e.def.secondary.len())
                    .filter_map(|j| table.secondary_tree(j).map(|t| t.index_id)),
            )
            .collect();
        let mut targets: Vec<NewIndex> = Vec::new();
        let mut created = Ok(());
        for (position, source) in sources.iter().enumerate() {
            if source.is_some() {
                continue;
            }
            let index_id = free_index_id(e.roots.space, &ids);
            match BTree::create(pool, e.roots.space, index_id) {
                Ok(tree) => {
                    ids.push(index_id);
                    targets.push(NewIndex { position, tree });
                    change.built.push(def.secondary[position].name.clone());
                }
                Err(err) => {
                    created = Err(err);
                    break;
                }
            }
        }
        let mut logged = Vec::new();
        for t in &targets {
            logged.push(self.logged_tree(&t.tree)?);
        }
        for (j, keep) in kept.iter().enumerate() {
            if !keep {
                let tree = table.secondary_tree(j).ok_or_else(|| {
                    EngineError::Internal(format!("table '{name}' lacks secondary index {j}"))
                })?;
                logged.push(self.logged_tree(tree)?);
                change.dropped.push(e.def.secondary[j].name.clone());
            }
        }
        let actions = [Action::DropTrees {
            id: e.id,
            space: e.roots.space,
            trees: logged,
        }];
        let log_row = {
            let _ddl = self.ddl.lock();
            self.write_log(&actions, None)?
        };
        let online = online_log_max.filter(|_| !targets.is_empty()).map(|max| {
            let positions = targets.iter().map(|t| t.position).collect();
            Arc::new(OnlineIndexLog::new(layout.clone(), positions, max))
        });
        let build = IndexChangeBuild {
            catalog: self,
            schema: schema.to_string(),
            name: name.to_string(),
            entry: e,
            def,
            layout,
            table,
            sources,
            targets,
            actions,
            log_row,
            online,
            suspects: Vec::new(),
            touched: BTreeSet::new(),
            change,
            finished: false,
        };
        created?;
        if let Some(log) = &build.online {
            build.table.attach_online_log(log.clone());
        }
        Ok(build)
    }
}

impl IndexChangeBuild<'_> {
    /// Step 2: builds the new trees from one scan; for an online change,
    /// then replays the online log while writers go on.
    pub fn build(
        &mut self,
        options: &BuildOptions,
        interrupted: &(dyn Fn() -> bool + Sync),
    ) -> Result<()> {
        let suspects = self.online.as_ref().map(|_| Suspects::default());
        self.change.stats = build_indexes(
            &self.table,
            &self.layout,
            &self.targets,
            options,
            suspects.as_ref(),
            interrupted,
        )?;
        if let Some(s) = suspects {
            self.suspects = s.into_keys();
        }
        for _ in 0..REPLAY_PASSES {
            let ops = self.take_log()?;
            let n = ops.len();
            self.replay(ops, interrupted)?;
            if n < REPLAY_TAIL {
                break;
            }
        }
        Ok(())
    }

    /// Step 3, with the table held exclusively again: see the module
    /// documentation. `sql_meta` is the table's new SQL metadata, written
    /// with the new definition.
    pub fn finish(
        mut self,
        sql_meta: &[u8],
        interrupted: &(dyn Fn() -> bool + Sync),
    ) -> Result<IndexChange> {
        if self.online.is_some() {
            self.table.detach_online_log();
            let ops = self.take_log()?;
            self.replay(ops, interrupted)?;
            self.check_unique()?;
        }
        let catalog = self.catalog;
        let (schema, name) = (self.schema.as_str(), self.name.as_str());
        let e = &self.entry;
        let roots = TableRoots {
            space: e.roots.space,
            clustered: e.roots.clustered,
            secondary: self
                .sources
                .iter()
                .enumerate()
                .map(|(i, s)| match s {
                    Some(j) => e.roots.secondary[*j],
                    None => self
                        .targets
                        .iter()
                        .find(|t| t.position == i)
                        .map_or(0, |t| t.tree.root),
                })
                .collect(),
            auxiliary: e.roots.auxiliary.clone(),
        };
        {
            let _ddl = catalog.ddl.lock();
            codec::encode(&self.def, &roots).and_then(|bytes| {
                let row = Catalog::row(e.id, KIND_TABLE, schema, name, bytes, sql_meta);
                catalog.write_row(&row, true)
            })?;
            // Switched: from here on the entry frees the dropped trees.
            self.finished = true;
            self.table.settle_auto_increment();
            let mut c = catalog.cache.write();
            c.tables_generation += 1;
            if let Some(t) = c.tables.get_mut(&(schema.to_string(), name.to_string())) {
                t.def = self.def.clone();
                t.roots = roots;
                t.sql_meta = sql_meta.to_vec();
            }
            c.open.remove(&e.id);
        }
        // Purge and rollback move to the table with the new definition
        // before the dropped trees go.
        catalog.table(schema, name)?;
        self.table.retire();
        catalog.apply_log(&self.actions)?;
        catalog.delete_row(self.log_row)?;
        Ok(std::mem::take(&mut self.change))
    }

    /// Steps of the online log recorded so far (none without one).
    fn take_log(&self) -> Result<Vec<LogOp>> {
        match &self.online {
            Some(log) => {
                let first = self.change.built.first().map_or("", String::as_str);
                log.take(first)
            }
            None => Ok(Vec::new()),
        }
    }

    /// Applies `ops` to the new trees, in order (see `OnlineIndexLog`).
    fn replay(&mut self, ops: Vec<LogOp>, interrupted: &(dyn Fn() -> bool + Sync)) -> Result<()> {
        let pool = self.table.storage().pool();
        for (n, op) in ops.into_iter().enumerate() {
            if n % 256 == 255 && interrupted() {
                return Err(EngineError::QueryInterrupted);
            }
            let target = self.targets[op.index];
            if op.put {
                target
                    .tree
                    .insert(pool, &op.key, &op.value, OnDuplicate::Replace)?;
                if self.layout.secondary[target.position].unique && !op.has_null {
                    let mut key = op.key;
                    key.truncate(op.prefix_len);
                    self.touched.insert((op.index, key));
                }
            } else {
                target.tree.delete(pool, &op.key)?;
            }
            self.change.replayed += 1;
        }
        Ok(())
    }

    /// 1062 for a key of a unique new index that the finished tree holds
    /// twice, among the keys the scan suspected and those the log put.
    fn check_unique(&mut self) -> Result<()> {
        let mut keys = std::mem::take(&mut self.touched);
        for (k, key) in std::mem::take(&mut self.suspects) {
            let position = self.targets[k].position;
            let (prefix, _) = self.layout.split_secondary_key(position, &key)?;
            keys.insert((k, prefix.to_vec()));
        }
        let pool = self.table.storage().pool();
        for (k, prefix) in keys {
            let target = self.targets[k];
            let upper = match prefix_end(&prefix) {
                Some(end) => Bound::Excluded(end),
                None => Bound::Unbounded,
            };
            let mut c = target
                .tree
                .range(pool, Bound::Included(prefix.clone()), upper, false);
            let mut seen = 0;
            while let Some(found) = c.next_entry()? {
                let (parts, _) = self
                    .layout
                    .split_secondary_key(target.position, &found.key)?;
                if parts != prefix.as_slice() {
                    continue;
                }
                seen += 1;
                if seen == 2 {
                    return Err(self.table.duplicate_in_new_index(
                        &self.layout,
                        target.position,
                        &found.key,
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Drop for IndexChangeBuild<'_> {
    /// An unfinished change is undone: the new trees are not referenced,
    /// the entry frees them.
    fn drop(&mut self) {
        if self.online.is_some() {
            self.table.detach_online_log();
        }
        if self.finished {
            return;
        }
        let undone = self
            .catalog
            .apply_log(&self.actions)
            .and_then(|()| self.catalog.delete_row(self.log_row));
        if let Err(d) = undone {
            tracing::warn!(error = %d, table = %self.name, "could not free the trees of a failed index build; the next start frees them");
        }
    }
}

impl Catalog {
    /// A tree as the DDL log names it.
    pub(super) fn logged_tree(&self, tree: &BTree) -> Result<LoggedTree> {
        let (leaf, nonleaf) = tree.segments(self.storage.pool())?;
        let mut mtr = Mtr::start(self.storage.pool())?;
        let id_of = |mtr: &mut Mtr<'_>, seg| -> Result<u64> {
            alloc::segment_id(mtr, tree.space, seg)?.ok_or_else(|| {
                EngineError::Internal(format!(
                    "index tree rooted at page {} has a freed segment",
                    tree.root
                ))
            })
        };
        let segments = [
            (leaf, id_of(&mut mtr, leaf)?),
            (nonleaf, id_of(&mut mtr, nonleaf)?),
        ];
        mtr.commit()?;
        Ok(LoggedTree {
            root: tree.root,
            segments,
        })
    }

    /// Frees each of `trees` (in tablespace `space`) that table `id` does
    /// not reference, segment by segment; segments already freed are
    /// skipped (the step is repeated after a crash). Nothing is freed when
    /// the table no longer exists (its tablespace went with it).
    pub(super) fn drop_unused_trees(
        &self,
        id: u64,
        space: u32,
        trees: &[LoggedTree],
    ) -> Result<()> {
        let roots = self
            .cache
            .read()
            .tables
            .values()
            .find(|e| e.id == id)
            .map(|e| e.roots.clone());
        let Some(roots) = roots else {
            return Ok(());
        };
        if roots.space != space || !self.storage.spaces().contains(space) {
            return Ok(());
        }
        let pool = self.storage.pool();
        for t in trees {
            if t.root == roots.clustered || roots.secondary.contains(&t.root) {
                continue;
            }
            for (seg, seg_id) in t.segments {
                loop {
                    let mut mtr = Mtr::start(pool)?;
                    if alloc::segment_id(&mut mtr, space, seg)? != Some(seg_id) {
                        mtr.commit()?;
                        break;
                    }
                    let done = alloc::drop_segment_step(&mut mtr, space, seg)?;
                    mtr.commit()?;
                    if done {
                        break;
                    }
                }
            }
        }
        self.storage.make_durable()
    }
}

/// For each index of `new`, the index of `old` whose tree it keeps: the
/// same definition, or failing that the same columns and uniqueness under
/// another name (RENAME INDEX keeps the tree). `None`: built anew.
pub fn match_indexes(old: &[IndexDef], new: &[IndexDef]) -> Vec<Option<usize>> {
    let mut kept = vec![false; old.len()];
    let mut sources = vec![None; new.len()];
    let same_tree = |a: &IndexDef, b: &IndexDef| a.columns == b.columns && a.unique == b.unique;
    for exact in [true, false] {
        for (i, ix) in new.iter().enumerate() {
            if sources[i].is_some() {
                continue;
            }
            let found = (0..old.len()).find(|&j| {
                !kept[j]
                    && if exact {
                        old[j] == *ix
                    } else {
                        same_tree(&old[j], ix)
                    }
            });
            if let Some(j) = found {
                kept[j] = true;
                sources[i] = Some(j);
            }
        }
    }
    sources
}

/// The smallest index id of tablespace `space` (`space << 16 | n`, n >= 1)
/// not in `used`.
fn free_index_id(space: u32, used: &[u64]) -> u64 {
    let base = u64::from(space) << 16;
    (1..)
        .map(|n| base | n)
        .find(|id| !used.contains(id))
        .unwrap_or(base | 0xffff)
}
