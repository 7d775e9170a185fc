//! Changing a table's secondary indexes in place: new indexes built from
//! one scan ([`crate::ddl::build_indexes`]), dropped indexes freed, the
//! rows and the other indexes untouched.
//!
//! [`Catalog::change_indexes`] takes the table's new definition (the same
//! columns and primary key, the same AUTO_INCREMENT column or none;
//! secondary indexes added, removed, renamed or reordered; a renamed index
//! keeps its tree, [`match_indexes`]) and:
//! 1. creates an empty tree for each new index, in the table's tablespace;
//! 2. writes a DDL log entry *drop the trees of the table it does not
//!    use*, naming the new trees and those of the dropped indexes;
//! 3. builds the new trees;
//! 4. writes the new definition and roots in one dictionary row change;
//! 5. retires the open table (purge moves to the table opened with the new
//!    definition) and frees the dropped indexes' trees by applying the log
//!    entry, then deletes it.
//!
//! A failure in 3 (a duplicate key, KILL QUERY, a full disk) applies the
//! entry at once: the new trees are freed and the table is as it was. A
//! crash before 4 leaves the old definition, and the next start frees the
//! new trees; a crash after 4 leaves the new one, and the next start frees
//! the dropped trees. Pages of trees created in 1 leak only if a crash
//! comes between their creation and the log entry (a few pages).
//!
//! The caller holds the table's exclusive metadata lock for the whole
//! change (no row changes under the scan) and makes sure the new
//! definition is valid SQL-wise; the engine checks that only indexes
//! change.

use super::ddl_log::{Action, LoggedTree};
use super::{codec, schema_err, Catalog, KIND_TABLE};
use crate::btree::BTree;
use crate::ddl::{build_indexes, BuildOptions, BuildStats, NewIndex};
use crate::error::{EngineError, Result};
use crate::mtr::Mtr;
use crate::space::alloc;
use crate::table::{IndexDef, TableDef, TableLayout, TableRoots};

/// What [`Catalog::change_indexes`] did.
#[derive(Debug, Clone, Default)]
pub struct IndexChange {
    /// Names of the indexes built.
    pub built: Vec<String>,
    /// Names of the indexes dropped.
    pub dropped: Vec<String>,
    pub stats: BuildStats,
}

impl Catalog {
    /// See the module documentation. `sql_meta` is the table's new SQL
    /// metadata, written with the new definition. `interrupted` is polled
    /// during the build (KILL QUERY).
    pub fn change_indexes(
        &self,
        schema: &str,
        name: &str,
        def: TableDef,
        sql_meta: &[u8],
        options: &BuildOptions,
        interrupted: &(dyn Fn() -> bool + Sync),
    ) -> Result<IndexChange> {
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
        let log = {
            let _ddl = self.ddl.lock();
            self.write_log(&actions, None)?
        };
        let undo = |err: EngineError| -> EngineError {
            // The new trees are not referenced: the entry frees them.
            if let Err(d) = self.apply_log(&actions).and_then(|()| self.delete_row(log)) {
                tracing::warn!(error = %d, table = %name, "could not free the trees of a failed index build; the next start frees them");
            }
            err
        };
        if let Err(err) = created {
            return Err(undo(err));
        }
        change.stats =
            build_indexes(&table, &layout, &targets, options, interrupted).map_err(undo)?;
        let roots = TableRoots {
            space: e.roots.space,
            clustered: e.roots.clustered,
            secondary: sources
                .iter()
                .enumerate()
                .map(|(i, s)| match s {
                    Some(j) => e.roots.secondary[*j],
                    None => targets
                        .iter()
                        .find(|t| t.position == i)
                        .map_or(0, |t| t.tree.root),
                })
                .collect(),
            auxiliary: e.roots.auxiliary.clone(),
        };
        {
            let _ddl = self.ddl.lock();
            let switched = codec::encode(&def, &roots).and_then(|bytes| {
                let row = Self::row(e.id, KIND_TABLE, schema, name, bytes, sql_meta);
                self.write_row(&row, true)
            });
            switched.map_err(undo)?;
            table.settle_auto_increment();
            let mut c = self.cache.write();
            c.tables_generation += 1;
            if let Some(t) = c.tables.get_mut(&(schema.to_string(), name.to_string())) {
                t.def = def;
                t.roots = roots;
                t.sql_meta = sql_meta.to_vec();
            }
            c.open.remove(&e.id);
        }
        // Purge and rollback move to the table with the new definition
        // before the dropped trees go.
        self.table(schema, name)?;
        table.retire();
        drop(table);
        self.apply_log(&actions)?;
        self.delete_row(log)?;
        Ok(change)
    }

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
