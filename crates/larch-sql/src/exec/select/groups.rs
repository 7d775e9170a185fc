//! The groups of an aggregating SELECT ([`Groups`]), filled as rows arrive:
//! each group keeps its first row (for the select list's plain columns) and
//! one accumulator per aggregate call.
//!
//! Groups are held in memory up to the statement's in-memory temporary
//! table size (MariaDB's `min(tmp_table_size, max_heap_table_size)`). Past
//! it, a GROUP BY whose aggregates are all of fixed size (COUNT, SUM, AVG,
//! MIN, MAX, BIT_*, STD*, VAR*, none DISTINCT, no ROLLUP) spills:
//! - rows of the groups already held keep being aggregated in memory;
//! - rows of any other group go to one of [`PARTITIONS`] temporary files
//!   (`super::super::spill_file`), chosen by a hash of the group key, so
//!   all rows of one group land in the same file;
//! - at the end the held groups are finished and freed, then each file is
//!   read back and aggregated the same way (spilling again, with another
//!   hash, if it still holds too many groups).
//!
//! Rows read in the order of the GROUP BY values (an index on the grouped
//! columns, see `block`) come one group after another: [`Groups::in_order`]
//! then keeps no hash table, never spills and needs no sort at the end (a
//! group ends where the next begins).
//!
//! Every group is aggregated from all its rows in one place, so the values
//! are those of an all-in-memory run; the groups come out sorted by the
//! GROUP BY values either way. GROUP_CONCAT, JSON aggregates and DISTINCT
//! aggregates keep state that grows with the rows, so their groups stay in
//! memory.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::aggregate::{value_key_into, Accumulator, AggKind, CompiledAgg};
use super::order::{sort_rows, SortKey};
use crate::error::SqlError;
use crate::eval::{Compiled, EvalContext};
use crate::exec::rows::check_killed;
use crate::exec::spill_file::{value_bytes, SpillFile};
use crate::session::Session;

/// Temporary files one spilling pass spreads its rows over.
pub(super) const PARTITIONS: usize = 16;

/// Passes after which a partition is aggregated in memory whatever its
/// size (16^4 partitions are more than any group count needs).
pub(super) const MAX_DEPTH: u32 = 4;

/// What becomes of a finished group's row (the select list and HAVING):
/// `None` drops it. Applied as each spilled partition finishes, so only
/// the rows that pass are held.
pub(super) type GroupFilter<'f> =
    dyn FnMut(Vec<Value>, &mut EvalContext<'_>) -> Result<Option<Vec<Value>>, SqlError> + 'f;

/// Bytes a group takes besides its values and key: the hash entry, the
/// vectors' headers and the allocator's rounding.
const GROUP_OVERHEAD: usize = 96;

/// Where and when groups move out of memory.
#[derive(Clone)]
pub(super) struct SpillPolicy {
    /// Bytes of groups held in memory before spilling.
    pub limit: usize,
    /// `tmpdir`.
    pub dir: PathBuf,
    /// Counts the spills (`Created_tmp_disk_tables`, `Created_tmp_files`).
    pub db: std::sync::Arc<crate::database::Database>,
    /// The statement's kill flag, checked while spilled rows are read back.
    pub kill: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl SpillPolicy {
    /// The session's: `min(tmp_table_size, max_heap_table_size)` in
    /// `tmpdir`.
    pub(super) fn of(s: &Session) -> SpillPolicy {
        let size = |name| usize::try_from(s.int_var(name).max(1024)).unwrap_or(usize::MAX);
        SpillPolicy {
            limit: size("tmp_table_size").min(size("max_heap_table_size")),
            dir: s.tmpdir(),
            db: s.db.clone(),
            kill: s.process.kill_query.clone(),
        }
    }
}

impl SpillPolicy {
    /// [`PARTITIONS`] new temporary files for spilling pass `depth`,
    /// counted in `Created_tmp_files` and, for the first pass, as one
    /// temporary table on disk (as MariaDB counts a statement's, however
    /// often its partitions spill).
    pub(super) fn partition_files(&self, depth: u32) -> Result<Vec<SpillFile>, SqlError> {
        let mut files = Vec::with_capacity(PARTITIONS);
        for _ in 0..PARTITIONS {
            files.push(SpillFile::create(&self.dir)?);
        }
        let status = &self.db.status;
        if depth == 0 {
            status
                .created_tmp_disk_tables
                .fetch_add(1, Ordering::Relaxed);
        }
        status
            .created_tmp_files
            .fetch_add(PARTITIONS as u64, Ordering::Relaxed);
        Ok(files)
    }
}

/// Rows of groups that did not fit, by partition.
struct Spilled {
    files: Vec<SpillFile>,
}

/// See the module documentation.
#[derive(Default)]
pub(super) struct Groups {
    groups: Vec<(Vec<Value>, Vec<Accumulator>)>,
    index: std::collections::HashMap<Vec<u8>, usize>,
    /// The arguments of one aggregate call for one row (a reused buffer).
    args: Vec<Value>,
    /// WITH ROLLUP's super-aggregates.
    rollup: Option<super::rollup::Rollup>,
    /// Set when groups may spill.
    policy: Option<SpillPolicy>,
    /// Estimated bytes of the groups held.
    bytes: usize,
    /// Spilling pass (0: the first), which seeds the partition hash.
    depth: u32,
    spilled: Option<Spilled>,
    /// Rows arrive group after group, in the order of the GROUP BY values.
    in_order: bool,
    /// With `in_order`: the key of the last group.
    last_key: Vec<u8>,
}

/// True when every aggregate keeps a fixed-size state, so groups may be
/// finished in any order and apart.
pub(super) fn spillable(group_by: &[Compiled], aggs: &[CompiledAgg]) -> bool {
    !group_by.is_empty()
        && aggs.iter().all(|a| {
            !a.call.distinct
                && !matches!(
                    a.call.kind,
                    AggKind::GroupConcat | AggKind::JsonArrayAgg | AggKind::JsonObjectAgg
                )
        })
}

impl Groups {
    /// Groups that also compute WITH ROLLUP's super-aggregate rows.
    pub(super) fn with_rollup(rollup: super::rollup::Rollup) -> Groups {
        Groups {
            rollup: Some(rollup),
            ..Groups::default()
        }
    }

    /// Groups whose rows arrive one group after another, in the order of
    /// the GROUP BY values (the caller's access path gives that order).
    pub(super) fn in_order() -> Groups {
        Groups {
            in_order: true,
            ..Groups::default()
        }
    }

    /// Groups that spill under `policy` (the caller checked [`spillable`]).
    pub(super) fn spilling(policy: SpillPolicy) -> Groups {
        Groups {
            policy: Some(policy),
            ..Groups::default()
        }
    }

    /// True when groups went to temporary files (more groups than the
    /// in-memory temporary table holds).
    pub(super) fn has_spilled(&self) -> bool {
        self.spilled.is_some()
    }

    /// Adds a row that passed WHERE.
    pub(super) fn add(
        &mut self,
        row: &[Value],
        group_by: &[Compiled],
        aggs: &[CompiledAgg],
        ctx: &mut EvalContext<'_>,
    ) -> Result<(), SqlError> {
        // Without GROUP BY every row is in the one group: no key to hash.
        let (key, found) = if group_by.is_empty() {
            (Vec::new(), (!self.groups.is_empty()).then_some(0))
        } else {
            let mut values = Vec::with_capacity(group_by.len());
            for g in group_by {
                values.push(g.eval(row, ctx)?);
            }
            let mut key = Vec::new();
            for (v, g) in values.iter().zip(group_by) {
                value_key_into(
                    v,
                    g.ty.ty.collation().unwrap_or(Collation::Binary),
                    &mut key,
                );
            }
            let found = if self.in_order {
                (!self.groups.is_empty() && key == self.last_key).then(|| self.groups.len() - 1)
            } else {
                self.index.get(&key).copied()
            };
            (key, found)
        };
        let gi = match found {
            Some(i) => i,
            None => {
                if let Some(policy) = &self.policy {
                    let size = GROUP_OVERHEAD
                        + key.len()
                        + row.iter().map(value_bytes).sum::<usize>()
                        + aggs.len() * std::mem::size_of::<Accumulator>();
                    if self.spilled.is_none() && self.bytes.saturating_add(size) > policy.limit {
                        let files = policy.partition_files(self.depth)?;
                        self.spilled = Some(Spilled { files });
                    }
                    if let Some(spilled) = &mut self.spilled {
                        let part = partition(&key, self.depth);
                        return spilled.files[part].write_row(row);
                    }
                    self.bytes += size;
                }
                self.groups.push((
                    row.to_vec(),
                    aggs.iter().map(|a| Accumulator::new(&a.call)).collect(),
                ));
                if self.in_order {
                    self.last_key = key;
                } else {
                    self.index.insert(key, self.groups.len() - 1);
                }
                self.groups.len() - 1
            }
        };
        if let Some(rollup) = &mut self.rollup {
            let mut all = Vec::with_capacity(aggs.len());
            for a in aggs {
                let vals = a
                    .args
                    .iter()
                    .map(|arg| arg.eval_stored(row, ctx))
                    .collect::<Result<Vec<_>, _>>()?;
                all.push(vals);
            }
            for ((a, acc), vals) in aggs.iter().zip(self.groups[gi].1.iter_mut()).zip(&all) {
                acc.add(&a.call, vals, a.collation, ctx)?;
            }
            return rollup.add(row, aggs, &all, ctx);
        }
        let vals = &mut self.args;
        for (a, acc) in aggs.iter().zip(self.groups[gi].1.iter_mut()) {
            vals.clear();
            for arg in &a.args {
                vals.push(arg.eval_stored(row, ctx)?);
            }
            acc.add(&a.call, vals, a.collation, ctx)?;
        }
        Ok(())
    }

    /// One row per group: its first row (`width` values) followed by the
    /// aggregate values. Without GROUP BY there is always one group; with
    /// it and no ORDER BY, groups come sorted by the GROUP BY values, as
    /// MariaDB returns them (and finish in that order, which numbers
    /// GROUP_CONCAT's cut values; its warnings go to `ctx`). Each row goes
    /// through `filter` before it is kept.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish(
        mut self,
        s: &Session,
        width: usize,
        group_by: &[Compiled],
        aggs: &[CompiledAgg],
        unordered: bool,
        ctx: &mut EvalContext<'_>,
        filter: &mut GroupFilter<'_>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        if let Some(spilled) = self.spilled.take() {
            return self.finish_spilled(spilled, s, width, group_by, aggs, unordered, ctx, filter);
        }
        if self.groups.is_empty() && group_by.is_empty() {
            self.groups.push((
                vec![Value::Null; width],
                aggs.iter().map(|a| Accumulator::new(&a.call)).collect(),
            ));
        }
        if unordered && !group_by.is_empty() && !self.in_order {
            sort_rows(s, &mut self.groups, &group_order(group_by), 0, |g| &g.0)?;
        }
        let max_len = usize::try_from(s.int_var("group_concat_max_len")).unwrap_or(usize::MAX);
        let mut written = vec![0u64; aggs.len()];
        let mut out = Vec::with_capacity(self.groups.len());
        let rollup = self.rollup.take();
        for (mut first, accs) in self.groups {
            first.truncate(width);
            first.resize(width, Value::Null);
            for ((a, mut acc), written) in aggs.iter().zip(accs).zip(written.iter_mut()) {
                first.push(if a.call.kind == AggKind::GroupConcat {
                    acc.concat(&a.call, a.collation, max_len, written, ctx)
                } else {
                    acc.finish(&a.call, &a.ty)
                });
            }
            out.push(first);
        }
        let out = match rollup {
            Some(r) => r.interleave(out, width, aggs, max_len, &mut written, ctx),
            None => out,
        };
        let mut kept = Vec::with_capacity(out.len());
        for row in out {
            if let Some(row) = filter(row, ctx)? {
                kept.push(row);
            }
        }
        let out = kept;
        // A value cut in a strict data change fails it (1260).
        match ctx.escalated_error() {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// [`Groups::finish`] after a spill: the held groups, then each
    /// partition's, each through `filter` as it finishes (only the rows
    /// that pass are held), sorted together at the end.
    #[allow(clippy::too_many_arguments)]
    fn finish_spilled(
        self,
        spilled: Spilled,
        s: &Session,
        width: usize,
        group_by: &[Compiled],
        aggs: &[CompiledAgg],
        unordered: bool,
        ctx: &mut EvalContext<'_>,
        filter: &mut GroupFilter<'_>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let policy = self.policy.clone();
        let depth = self.depth;
        let mut out = self.finish(s, width, group_by, aggs, false, ctx, filter)?;
        let mut row = Vec::new();
        for file in spilled.files {
            if file.rows() == 0 {
                continue;
            }
            let mut part = Groups {
                policy: policy.clone().filter(|_| depth + 1 < MAX_DEPTH),
                depth: depth + 1,
                ..Groups::default()
            };
            let mut reader = file.into_reader()?;
            while reader.next_row(&mut row)? {
                if let Some(p) = &policy {
                    check_killed(&p.kill)?;
                }
                part.add(&row, group_by, aggs, ctx)?;
            }
            out.extend(part.finish(s, width, group_by, aggs, false, ctx, filter)?);
        }
        if unordered {
            sort_rows(s, &mut out, &group_order(group_by), 0, |r| r)?;
        }
        Ok(out)
    }
}

/// The GROUP BY values as ascending sort keys.
pub(super) fn group_order(group_by: &[Compiled]) -> Vec<SortKey> {
    group_by
        .iter()
        .map(|g| SortKey {
            expr: g.clone(),
            desc: false,
            collation: g.ty.ty.collation().unwrap_or(Collation::Binary),
        })
        .collect()
}

/// The partition of a group key in spilling pass `depth`.
pub(super) fn partition(key: &[u8], depth: u32) -> usize {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    depth.hash(&mut h);
    key.hash(&mut h);
    (h.finish() % PARTITIONS as u64) as usize
}
