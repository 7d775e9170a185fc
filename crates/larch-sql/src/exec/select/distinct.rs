//! DISTINCT: telling the first of equal rows as rows come one by one
//! ([`DistinctRows`], in memory), and doing it for more distinct rows than
//! the statement's in-memory temporary table holds ([`SpillingDistinct`]).
//!
//! Rows are equal when their values are equal under their columns'
//! collations (`aggregate::column_key_into` builds the comparison key).
//!
//! [`SpillingDistinct`] keeps the keys of the rows it let through in memory
//! up to MariaDB's `min(tmp_table_size, max_heap_table_size)` (the size of
//! a heap temporary table before MariaDB moves it to disk). Past it:
//! - a row equal to one already let through is still dropped at once;
//! - any other row is *deferred*: written, with its sequence number (the
//!   count of rows offered before it), to one of `groups::PARTITIONS` temporary
//!   files chosen by a hash of its key, so equal rows share a file;
//! - at the end each file is read back and deduplicated on its own (a file
//!   that still holds too many distinct rows spreads over sub-partitions,
//!   with another hash, up to [`MAX_DEPTH`] passes), keeping the first of
//!   equal rows, and the survivors of all files are merged by sequence
//!   number.
//!
//! So the rows come out exactly as an all-in-memory run lets them through:
//! the first of equal rows, in the order offered. Every row let through
//! before the spill precedes every deferred one (after the spill no new
//! key is let through at once), so the caller may send the early rows
//! before the deferred ones are known.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::BuildHasher;
use std::sync::atomic::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::aggregate;
use super::groups::{partition, SpillPolicy, MAX_DEPTH};
use crate::error::SqlError;
use crate::exec::rows::check_killed;
use crate::exec::spill_file::{SpillFile, SpillReader};

/// Bytes a kept key takes besides its own bytes: its span and chain link,
/// and its hash-table entry with the table's spare room.
const KEY_OVERHEAD: usize = 48;

/// The rows seen so far, to tell the first of equal rows (equal under
/// their columns' collations) as rows come one by one. The keys of the rows
/// seen lie one after another in one buffer, each row's key is built in
/// one reused buffer: no allocation per row.
pub(super) struct DistinctRows {
    colls: Vec<Collation>,
    hasher: std::collections::hash_map::RandomState,
    /// Keys of the rows kept, concatenated.
    keys: Vec<u8>,
    /// Per kept row its key's span and the next kept row with the same
    /// hash.
    kept: Vec<(usize, usize, Option<usize>)>,
    /// Hash of a key: the last kept row with it.
    table: std::collections::HashMap<u64, usize>,
    key: Vec<u8>,
}

impl DistinctRows {
    pub(super) fn new(colls: Vec<Collation>) -> DistinctRows {
        DistinctRows {
            colls,
            hasher: std::collections::hash_map::RandomState::new(),
            keys: Vec::new(),
            kept: Vec::new(),
            table: std::collections::HashMap::new(),
            key: Vec::new(),
        }
    }

    /// True when no row equal to `row` came before (it is remembered).
    pub(super) fn first(&mut self, row: &[Value]) -> bool {
        match self.lookup(row) {
            Some(h) => {
                self.remember(h);
                true
            }
            None => false,
        }
    }

    /// Builds `row`'s key (left in `self.key`): `None` when an equal row
    /// was remembered, else the key's hash.
    fn lookup(&mut self, row: &[Value]) -> Option<u64> {
        self.key.clear();
        aggregate::column_key_into(row, &self.colls, &mut self.key);
        let h = self.hasher.hash_one(&self.key);
        let mut at = self.table.get(&h).copied();
        while let Some(i) = at {
            let (start, len, next) = self.kept[i];
            if self.keys[start..start + len] == self.key[..] {
                return None;
            }
            at = next;
        }
        Some(h)
    }

    /// Remembers the key [`DistinctRows::lookup`] built, of hash `h`.
    fn remember(&mut self, h: u64) {
        let next = self.table.insert(h, self.kept.len());
        self.kept.push((self.keys.len(), self.key.len(), next));
        self.keys.extend_from_slice(&self.key);
    }

    /// Estimated bytes of the keys remembered.
    fn bytes(&self) -> usize {
        self.keys.len() + self.kept.len() * KEY_OVERHEAD
    }
}

/// What [`SpillingDistinct::offer`] did with a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Offered {
    /// The first of its kind: it goes on now.
    First,
    /// Equal to a row let through before: dropped.
    Repeat,
    /// Written to disk; [`SpillingDistinct::finish`] hands it on if it is
    /// the first of its kind.
    Deferred,
}

/// See the module documentation.
pub(super) struct SpillingDistinct {
    seen: DistinctRows,
    policy: SpillPolicy,
    /// Spilling pass (0: the first), which seeds the partition hash.
    depth: u32,
    /// Rows offered so far: the next row's sequence number.
    offered: u64,
    /// The partitions, once the keys outgrew the limit.
    spilled: Option<Vec<SpillFile>>,
    /// A deferred row with its sequence number in front (a reused buffer).
    sequenced: Vec<Value>,
}

impl SpillingDistinct {
    /// Nothing seen yet; rows are equal under `colls`, keys are held up
    /// to `policy.limit` bytes.
    pub(super) fn new(colls: Vec<Collation>, policy: SpillPolicy) -> SpillingDistinct {
        SpillingDistinct::at_depth(colls, policy, 0)
    }

    fn at_depth(colls: Vec<Collation>, policy: SpillPolicy, depth: u32) -> SpillingDistinct {
        SpillingDistinct {
            seen: DistinctRows::new(colls),
            policy,
            depth,
            offered: 0,
            spilled: None,
            sequenced: Vec::new(),
        }
    }

    /// Offers the next row.
    pub(super) fn offer(&mut self, row: &[Value]) -> Result<Offered, SqlError> {
        let seq = self.offered;
        self.offered += 1;
        match self.classify(row)? {
            Class::Repeat => Ok(Offered::Repeat),
            Class::First => Ok(Offered::First),
            Class::Spill(part) => {
                self.sequenced.clear();
                self.sequenced.push(Value::UInt(seq));
                self.sequenced.extend_from_slice(row);
                if let Some(files) = &mut self.spilled {
                    files[part].write_row(&self.sequenced)?;
                }
                Ok(Offered::Deferred)
            }
        }
    }

    /// Where `values` goes: dropped, let through (and remembered), or to
    /// a partition (the spill started here if the key does not fit).
    fn classify(&mut self, values: &[Value]) -> Result<Class, SqlError> {
        let Some(h) = self.seen.lookup(values) else {
            return Ok(Class::Repeat);
        };
        if self.spilled.is_none()
            && self.depth < MAX_DEPTH
            && self.seen.bytes() + self.seen.key.len() + KEY_OVERHEAD > self.policy.limit
        {
            self.start_spill()?;
        }
        if self.spilled.is_some() {
            return Ok(Class::Spill(partition(&self.seen.key, self.depth)));
        }
        self.seen.remember(h);
        Ok(Class::First)
    }

    fn start_spill(&mut self) -> Result<(), SqlError> {
        self.spilled = Some(self.policy.partition_files(self.depth)?);
        Ok(())
    }

    /// Hands the deferred rows that are the first of their kind to `out`,
    /// in the order they were offered, until `out` returns false. Nothing
    /// when nothing spilled.
    pub(super) fn finish(
        mut self,
        out: &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError> {
        let Some(files) = self.spilled.take() else {
            return Ok(());
        };
        let colls = std::mem::take(&mut self.seen.colls);
        let policy = self.policy.clone();
        let depth = self.depth;
        // The keys held are not needed any more: free them first.
        drop(self);
        let mut survivors = Vec::new();
        for file in files {
            dedupe_partition(file, &colls, &policy, depth + 1, &mut survivors)?;
        }
        merge_by_sequence(survivors, &policy.kill, out)
    }
}

/// Where [`SpillingDistinct::classify`] sends a row.
enum Class {
    Repeat,
    First,
    Spill(usize),
}

/// Deduplicates one partition's sequenced rows (in sequence order) at
/// spilling pass `depth`: the first of equal rows go, still in sequence
/// order, to a new file pushed on `survivors`; rows whose keys do not fit
/// go to sub-partitions, deduplicated the same way after.
fn dedupe_partition(
    file: SpillFile,
    colls: &[Collation],
    policy: &SpillPolicy,
    depth: u32,
    survivors: &mut Vec<SpillFile>,
) -> Result<(), SqlError> {
    if file.rows() == 0 {
        return Ok(());
    }
    let mut part = SpillingDistinct::at_depth(colls.to_vec(), policy.clone(), depth);
    let mut kept = SpillFile::create(&policy.dir)?;
    policy
        .db
        .status
        .created_tmp_files
        .fetch_add(1, Ordering::Relaxed);
    let mut reader = file.into_reader()?;
    let mut row = Vec::new();
    while reader.next_row(&mut row)? {
        check_killed(&policy.kill)?;
        match part.classify(&row[1..])? {
            Class::Repeat => {}
            Class::First => kept.write_row(&row)?,
            Class::Spill(p) => {
                if let Some(files) = &mut part.spilled {
                    files[p].write_row(&row)?;
                }
            }
        }
    }
    survivors.push(kept);
    let sub = part.spilled.take();
    drop(part);
    for file in sub.into_iter().flatten() {
        dedupe_partition(file, colls, policy, depth + 1, survivors)?;
    }
    Ok(())
}

/// Merges files of sequenced rows, each in sequence order, into one
/// sequence; `out` gets each row without its number.
fn merge_by_sequence(
    files: Vec<SpillFile>,
    kill: &std::sync::atomic::AtomicBool,
    out: &mut dyn FnMut(Vec<Value>) -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    let mut readers: Vec<SpillReader> = Vec::with_capacity(files.len());
    for f in files {
        readers.push(f.into_reader()?);
    }
    let mut heads: Vec<Vec<Value>> = vec![Vec::new(); readers.len()];
    let mut heap = BinaryHeap::with_capacity(readers.len());
    for (i, r) in readers.iter_mut().enumerate() {
        if r.next_row(&mut heads[i])? {
            heap.push(Reverse((sequence(&heads[i])?, i)));
        }
    }
    while let Some(Reverse((_, i))) = heap.pop() {
        check_killed(kill)?;
        let mut row = std::mem::take(&mut heads[i]);
        row.remove(0);
        if !out(row)? {
            return Ok(());
        }
        if readers[i].next_row(&mut heads[i])? {
            heap.push(Reverse((sequence(&heads[i])?, i)));
        }
    }
    Ok(())
}

/// The sequence number in front of a deferred row.
fn sequence(row: &[Value]) -> Result<u64, SqlError> {
    match row.first() {
        Some(Value::UInt(n)) => Ok(*n),
        _ => Err(SqlError::new(
            1030,
            "Got error reading a temporary file from storage engine InnoDB: a DISTINCT row without its number",
        )),
    }
}
