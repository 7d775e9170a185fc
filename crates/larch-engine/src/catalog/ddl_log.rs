//! The DDL log: DDL that needs more than one dictionary row change (a copying
//! ALTER TABLE or TRUNCATE putting its rebuilt table in place, a RENAME TABLE
//! of several tables) is made atomic across crashes by writing what it will
//! do first.
//!
//! An entry is ONE dictionary row of kind 6, `(id, 6, "", "", actions, "")`,
//! listing the changes the statement makes, each stated as the end state it
//! produces, so applying an entry twice changes nothing the second time:
//!
//! - *drop table `id`*: the table with that dictionary id, if it still
//!   exists, is dropped with its tablespace;
//! - *rename `id` to `schema.name`*: the table or view with that id, if it is
//!   not already so named, takes that name;
//! - *drop the index trees of table `id` it does not use*: each listed tree
//!   (root page and its two segments, each with its segment id) that the
//!   table's definition does not reference is freed, segment by segment; a
//!   segment whose inode no longer holds that id is already gone. An index
//!   change logs its new trees (created empty just before) and the trees of
//!   the indexes it drops, then builds, then switches the definition: a
//!   crash before the switch frees the new trees, after it the dropped ones
//!   (see [`Catalog::change_indexes`]).
//!
//! The statement writes the entry durably, makes the changes (each durable),
//! then deletes the entry. [`Catalog::open`] applies every entry still
//! present (a crash came between) and deletes it: the statement is then
//! complete, as if the crash had come after it. Recovery rolls forward.
//!
//! A table that a statement builds under a temporary name
//! ([`Catalog::create_scratch_table`]) gets an entry *drop table `id`* before
//! it exists: a crash before the statement installs it
//! ([`Catalog::replace_table`], which turns that same entry into the
//! replacement's) or drops it drops it at the next start, so a crash in the
//! middle of a copy leaves no `#sql-...` table behind. The byte layout is in
//! `docs/catalog.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::codec::{self, Reader, Writer};
use super::{check_name, schema_err, Catalog, KIND_DDL_LOG, KIND_TABLE, KIND_VIEW};
use crate::error::{EngineError, Result};
use crate::space::alloc::SegmentRef;
use crate::table::{Table, TableDef};

/// Version of the entry encoding.
const VERSION: u8 = 1;
const TAG_DROP_TABLE: u8 = 1;
const TAG_RENAME: u8 = 2;
const TAG_DROP_TREES: u8 = 3;

/// One change of a DDL log entry, stated as the end state it produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Action {
    /// The table with this dictionary id no longer exists.
    DropTable { id: u64 },
    /// The table or view with this dictionary id is `schema.name`.
    Rename {
        id: u64,
        schema: String,
        name: String,
    },
    /// The trees of table `id` that its definition does not reference are
    /// freed.
    DropTrees {
        id: u64,
        space: u32,
        trees: Vec<LoggedTree>,
    },
}

/// A B+tree as a DDL log entry names it: its root page and its two
/// segments, each with the segment id its inode holds while it exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LoggedTree {
    pub root: u32,
    pub segments: [(SegmentRef, u64); 2],
}

/// The bytes of an entry.
pub(super) fn encode(actions: &[Action]) -> Result<Vec<u8>> {
    let mut w = Writer(Vec::with_capacity(16 + 24 * actions.len()));
    w.u8(VERSION);
    w.len(actions.len())?;
    for a in actions {
        match a {
            Action::DropTable { id } => {
                w.u8(TAG_DROP_TABLE);
                w.u64(*id);
            }
            Action::Rename { id, schema, name } => {
                w.u8(TAG_RENAME);
                w.u64(*id);
                w.str(schema)?;
                w.str(name)?;
            }
            Action::DropTrees { id, space, trees } => {
                w.u8(TAG_DROP_TREES);
                w.u64(*id);
                w.u64(u64::from(*space));
                w.len(trees.len())?;
                for t in trees {
                    w.u64(u64::from(t.root));
                    for (seg, seg_id) in t.segments {
                        w.0.extend_from_slice(&seg.to_bytes());
                        w.u64(seg_id);
                    }
                }
            }
        }
    }
    Ok(w.0)
}

/// The actions of an entry's bytes.
pub(super) fn decode(bytes: &[u8]) -> Result<Vec<Action>> {
    let bad =
        |what: &str| EngineError::Internal(format!("catalog: malformed DDL log entry ({what})"));
    let mut r = Reader(bytes);
    if r.u8()? != VERSION {
        return Err(bad("unknown version"));
    }
    let n = r.u16()?;
    let mut out = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        out.push(match r.u8()? {
            TAG_DROP_TABLE => Action::DropTable { id: r.u64()? },
            TAG_RENAME => Action::Rename {
                id: r.u64()?,
                schema: r.str()?,
                name: r.str()?,
            },
            TAG_DROP_TREES => {
                let id = r.u64()?;
                let space = u32::try_from(r.u64()?).map_err(|_| bad("space id"))?;
                let n = r.u16()?;
                let mut trees = Vec::with_capacity(usize::from(n));
                for _ in 0..n {
                    let root = u32::try_from(r.u64()?).map_err(|_| bad("root page"))?;
                    let mut segment = || -> Result<(SegmentRef, u64)> {
                        let mut b = [0u8; SegmentRef::ENCODED_LEN];
                        for x in &mut b {
                            *x = r.u8()?;
                        }
                        Ok((SegmentRef::from_bytes(b), r.u64()?))
                    };
                    let segments = [segment()?, segment()?];
                    trees.push(LoggedTree { root, segments });
                }
                Action::DropTrees { id, space, trees }
            }
            _ => return Err(bad("unknown action")),
        });
    }
    if !r.0.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(out)
}

impl Catalog {
    /// Writes a DDL log entry durably: a new row, or the row `reuse` (an
    /// entry of a scratch table) replaced. Returns the entry's id.
    pub(super) fn write_log(&self, actions: &[Action], reuse: Option<u64>) -> Result<u64> {
        let bytes = encode(actions)?;
        let id = match reuse {
            Some(id) => id,
            None => {
                let mut c = self.cache.write();
                let id = c.next_id;
                c.next_id += 1;
                id
            }
        };
        let row = Self::row(id, KIND_DDL_LOG, "", "", bytes, &[]);
        self.write_row(&row, reuse.is_some())?;
        Ok(id)
    }

    /// Applies the actions of an entry (each one idempotent; see the module
    /// documentation). Drops first, then renames, so names a drop frees can
    /// be taken; renames are applied together, so a set of renames may swap
    /// names.
    pub(super) fn apply_log(&self, actions: &[Action]) -> Result<()> {
        for a in actions {
            if let Action::DropTable { id } = a {
                let found = self
                    .cache
                    .read()
                    .tables
                    .values()
                    .find(|e| e.id == *id)
                    .cloned();
                if let Some(e) = found {
                    self.delete_row(e.id)?;
                    {
                        let mut c = self.cache.write();
                        c.tables.remove(&(e.schema.clone(), e.name.clone()));
                        c.open.remove(&e.id);
                        c.open_fulltext.remove(&e.id);
                        c.tables_generation += 1;
                    }
                    self.storage.drop_tablespace(e.roots.space)?;
                }
            }
        }
        for a in actions {
            if let Action::DropTrees { id, space, trees } = a {
                self.drop_unused_trees(*id, *space, trees)?;
            }
        }
        let wanted: BTreeMap<u64, (String, String)> = actions
            .iter()
            .filter_map(|a| match a {
                Action::Rename { id, schema, name } => Some((*id, (schema.clone(), name.clone()))),
                Action::DropTable { .. } | Action::DropTrees { .. } => None,
            })
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        // Take every entry that moves out of the name maps, write the rows,
        // then put the entries back under their new names.
        let (tables, views) = {
            let mut c = self.cache.write();
            let moving_tables: Vec<(String, String)> = c
                .tables
                .iter()
                .filter(|(k, e)| wanted.get(&e.id).is_some_and(|to| to != *k))
                .map(|(k, _)| k.clone())
                .collect();
            let moving_views: Vec<(String, String)> = c
                .views
                .iter()
                .filter(|(k, v)| wanted.get(&v.id).is_some_and(|to| to != *k))
                .map(|(k, _)| k.clone())
                .collect();
            let tables: Vec<_> = moving_tables
                .iter()
                .filter_map(|k| c.tables.remove(k))
                .collect();
            let views: Vec<_> = moving_views
                .iter()
                .filter_map(|k| c.views.remove(k))
                .collect();
            c.tables_generation += 1;
            (tables, views)
        };
        let mut result = Ok(());
        for mut e in tables {
            let Some((schema, name)) = wanted.get(&e.id).cloned() else {
                continue;
            };
            if result.is_ok() {
                let mut def = e.def.clone();
                def.name = name.clone();
                result = codec::encode(&def, &e.roots).and_then(|bytes| {
                    let row = Self::row(e.id, KIND_TABLE, &schema, &name, bytes, &e.sql_meta);
                    self.write_row(&row, true)
                });
                if result.is_ok() {
                    e.def = def;
                    e.schema = schema;
                    e.name = name;
                }
            }
            // On a failure the rest keep their old names (the entry stays,
            // and the next start completes it).
            self.cache
                .write()
                .tables
                .insert((e.schema.clone(), e.name.clone()), e);
        }
        for mut v in views {
            let Some((schema, name)) = wanted.get(&v.id).cloned() else {
                continue;
            };
            if result.is_ok() {
                let row = Self::row(v.id, KIND_VIEW, &schema, &name, v.definition.clone(), &[]);
                result = self.write_row(&row, true);
                if result.is_ok() {
                    v.schema = schema;
                    v.name = name;
                }
            }
            self.cache
                .write()
                .views
                .insert((v.schema.clone(), v.name.clone()), v);
        }
        result
    }

    /// Runs a DDL log entry: written durably, applied, deleted. `reuse` is
    /// the entry of a scratch table this one replaces.
    fn run_logged(&self, actions: &[Action], reuse: Option<u64>) -> Result<()> {
        let log = self.write_log(actions, reuse)?;
        self.apply_log(actions)?;
        self.delete_row(log)
    }

    /// At open: completes every statement a crash interrupted (see the
    /// module documentation). Returns how many entries there were.
    pub(super) fn recover_ddl_log(&self) -> Result<usize> {
        let pending = std::mem::take(&mut self.cache.write().ddl_log);
        for (log, bytes) in &pending {
            let actions = decode(bytes)?;
            tracing::warn!(
                entry = log,
                ?actions,
                "completing DDL interrupted by a crash"
            );
            self.apply_log(&actions)?;
            self.delete_row(*log)?;
        }
        Ok(pending.len())
    }

    /// Creates a table a DDL statement builds under a temporary name (as
    /// [`Catalog::create_table`]). Until [`Catalog::replace_table`] puts it in
    /// place or [`Catalog::drop_table`] drops it, a crash drops it at the next
    /// start.
    pub fn create_scratch_table(
        &self,
        schema: &str,
        def: TableDef,
        sql_meta: &[u8],
    ) -> Result<Arc<Table>> {
        check_name("table", &def.name)?;
        let _ddl = self.ddl.lock();
        let table_id = {
            let mut c = self.cache.write();
            let id = c.next_id;
            c.next_id += 1;
            id
        };
        let log = self.write_log(&[Action::DropTable { id: table_id }], None)?;
        match self.create_table_locked(schema, def, sql_meta, table_id) {
            Ok(t) => {
                self.cache.write().scratch.insert(table_id, log);
                Ok(t)
            }
            Err(e) => {
                if let Err(d) = self.delete_row(log) {
                    tracing::warn!(error = %d, "could not delete the DDL log entry of a failed scratch table");
                }
                Err(e)
            }
        }
    }

    /// After a scratch table is dropped: its entry goes too.
    pub(super) fn forget_scratch(&self, table_id: u64) -> Result<()> {
        let log = self.cache.write().scratch.remove(&table_id);
        match log {
            Some(log) => self.delete_row(log),
            None => Ok(()),
        }
    }

    /// Replaces table `target` by table `replacement` (normally a scratch
    /// table): `target` is dropped and `replacement` takes the name
    /// `final_name` in its own database, as one step under crashes (errors
    /// 1146, 1050 when `final_name` is another table's).
    pub fn replace_table(
        &self,
        target: (&str, &str),
        replacement: (&str, &str),
        final_name: &str,
    ) -> Result<()> {
        check_name("table", final_name)?;
        let _ddl = self.ddl.lock();
        let missing =
            |(s, n): (&str, &str)| schema_err(1146, format!("Table '{s}.{n}' doesn't exist"));
        let (old, new) = {
            let c = self.cache.read();
            let key = |(s, n): (&str, &str)| (s.to_string(), n.to_string());
            let old = c
                .tables
                .get(&key(target))
                .ok_or_else(|| missing(target))?
                .id;
            let new = c
                .tables
                .get(&key(replacement))
                .ok_or_else(|| missing(replacement))?
                .id;
            let final_key = (replacement.0.to_string(), final_name.to_string());
            let taken = c
                .tables
                .get(&final_key)
                .is_some_and(|e| e.id != old && e.id != new)
                || c.views.contains_key(&final_key);
            if taken {
                return Err(schema_err(
                    1050,
                    format!("Table '{final_name}' already exists"),
                ));
            }
            (old, new)
        };
        let actions = [
            Action::DropTable { id: old },
            Action::Rename {
                id: new,
                schema: replacement.0.to_string(),
                name: final_name.to_string(),
            },
        ];
        let reuse = self.cache.read().scratch.get(&new).copied();
        self.run_logged(&actions, reuse)?;
        self.cache.write().scratch.remove(&new);
        Ok(())
    }

    /// Before a RENAME TABLE of several tables and views, which the caller
    /// then makes one [`Catalog::rename_table`] at a time (with what goes
    /// with each, such as triggers): checks the steps in sequence, each
    /// against the names the earlier ones produce (1146 for a missing
    /// source, 1049 for a missing database, 1050 for a taken target, 1450
    /// for a view moving to another database; `a TO tmp, b TO a, tmp TO b`
    /// swaps), and logs the names they end with, so a crash before
    /// [`Catalog::end_logged_ddl`] leaves every name renamed at the next
    /// start. Nothing is logged when a step fails.
    pub fn log_renames(&self, steps: &[RenameStep<'_>]) -> Result<LoggedDdl> {
        for (_, to) in steps {
            check_name("table", to.1)?;
        }
        let _ddl = self.ddl.lock();
        let actions = {
            let c = self.cache.read();
            // Current names of every table and view: name -> (id, is view).
            let mut names: BTreeMap<(String, String), (u64, bool)> = c
                .tables
                .iter()
                .map(|(k, e)| (k.clone(), (e.id, false)))
                .chain(c.views.iter().map(|(k, v)| (k.clone(), (v.id, true))))
                .collect();
            let mut moved = BTreeSet::new();
            for (from, to) in steps {
                let from_key = (from.0.to_string(), from.1.to_string());
                let Some((id, is_view)) = names.remove(&from_key) else {
                    return Err(schema_err(
                        1146,
                        format!("Table '{}.{}' doesn't exist", from.0, from.1),
                    ));
                };
                if !c.databases.contains_key(to.0) {
                    return Err(Self::unknown_database(to.0));
                }
                if is_view && from.0 != to.0 {
                    return Err(schema_err(
                        1450,
                        format!(
                            "Changing schema from '{}' to '{}' is not allowed",
                            from.0, to.0
                        ),
                    ));
                }
                let to_key = (to.0.to_string(), to.1.to_string());
                if names.contains_key(&to_key) {
                    return Err(schema_err(1050, format!("Table '{}' already exists", to.1)));
                }
                names.insert(to_key, (id, is_view));
                moved.insert(id);
            }
            names
                .into_iter()
                .filter(|(_, (id, _))| moved.contains(id))
                .map(|((schema, name), (id, _))| Action::Rename { id, schema, name })
                .collect::<Vec<_>>()
        };
        Ok(LoggedDdl {
            entry: self.write_log(&actions, None)?,
        })
    }

    /// The statement `logged` is complete, or undone: its entry goes.
    pub fn end_logged_ddl(&self, logged: LoggedDdl) -> Result<()> {
        let _ddl = self.ddl.lock();
        self.delete_row(logged.entry)
    }
}

/// One step of a RENAME TABLE: (database, name) from and to.
pub type RenameStep<'a> = ((&'a str, &'a str), (&'a str, &'a str));

/// A DDL statement's entry in the DDL log, from [`Catalog::log_renames`]
/// until [`Catalog::end_logged_ddl`].
#[derive(Debug)]
#[must_use = "a logged DDL statement is ended with Catalog::end_logged_ddl"]
pub struct LoggedDdl {
    entry: u64,
}
