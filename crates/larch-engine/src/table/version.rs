//! Row versions: which version of a clustered record a read sees, rebuilt
//! from undo when the newest one is too new, and how a secondary entry's
//! transaction stamp answers visibility without a clustered lookup.
//!
//! A clustered record's value starts with the id of the transaction that
//! wrote it and the roll pointer to the undo record holding the version
//! before it. A consistent read with view `V` walks: if the writer is visible
//! to `V`, this version is the answer (absent if delete-marked); otherwise the
//! roll pointer leads to the previous version (an insert's roll pointer says
//! "no previous version": the row did not exist for `V`). The walk is safe
//! without locks: purge frees a transaction's undo only once every live
//! snapshot sees that transaction, and a walk only reaches undo of
//! transactions its snapshot does not see.
//!
//! Chains are pruned as they grow ([`Table::pruned_previous`]): when a writer
//! turns the newest committed version `V` into an undo record, it checks the
//! versions behind `V`: a version written with CSN `c` whose successor
//! committed with CSN `c'` is seen exactly by snapshots in `[c, c')`; if no
//! live snapshot lies there (new snapshots are all at or above the published
//! CSN, hence above `c'`), no reader will ever stop at it, and `V`'s roll
//! pointer is moved past it. So one snapshot held open while a row is updated
//! a million times leaves a chain of the newest version, the one before it
//! and the one the snapshot sees: a bounded walk, however old the snapshot.
//!
//! Secondary entries also carry a creation stamp (the transaction that
//! inserted the entry; kept by later rewrites, 0 when unknown): a snapshot
//! that does not see it skips the entry at once. Under hot updates of an
//! indexed column, each update creates a new entry and delete-marks the
//! previous one; an old snapshot skips all of those but the one it needs.
//!
//! Secondary entries carry a 6-byte stamp: the id of the last transaction that
//! inserted, delete-marked, un-marked or rewrote the entry. If the stamp is
//! visible to `V`, the entry's state (present or delete-marked, and its
//! carried values) held at `V` already and has not changed since, so the entry
//! answers by itself; only entries with a stamp too new fall back to the
//! clustered version walk (InnoDB falls back for every entry of a page whose
//! newest change is too new).

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use super::Table;
use crate::error::{EngineError, Result};
use crate::record::row::{MAX_48, ROLL_PTR_LEN, ROLL_PTR_OFFSET, TRX_ID_LEN, TRX_ID_OFFSET};
use crate::txn::{Csn, LiveSnapshots, ReadView, TrxStatus};
use crate::undo::RollPtr;

use super::undo_entry::{RowUndo, UndoKind};

/// Longest version chain a read follows before reporting corruption (a cycle).
const MAX_CHAIN: usize = 1 << 24;
/// Versions a writer examines for pruning per change.
const PRUNE_STEPS: usize = 8;

fn be(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x))
}

/// The transaction id stamped in a clustered record value or secondary entry value.
pub(super) fn trx_id_of(value: &[u8]) -> u64 {
    value
        .get(TRX_ID_OFFSET..TRX_ID_OFFSET + TRX_ID_LEN)
        .map_or(0, be)
}

/// The creation stamp at the end of a secondary entry value.
pub(super) fn created_of(value: &[u8]) -> u64 {
    let n = super::layout::SECONDARY_CREATED_LEN;
    value.len().checked_sub(n).map_or(0, |at| be(&value[at..]))
}

/// The roll pointer of a clustered record value.
pub(super) fn roll_ptr_of(value: &[u8]) -> RollPtr {
    RollPtr(
        value
            .get(ROLL_PTR_OFFSET..ROLL_PTR_OFFSET + ROLL_PTR_LEN)
            .map_or(0, be),
    )
}

/// Writes the roll pointer into a clustered record value.
fn set_roll(value: &mut [u8], roll: RollPtr) {
    let r = roll.0.to_be_bytes();
    value[ROLL_PTR_OFFSET..ROLL_PTR_OFFSET + ROLL_PTR_LEN].copy_from_slice(&r[8 - ROLL_PTR_LEN..]);
}

/// Writes the transaction id and roll pointer into a clustered record value.
pub(super) fn set_hidden(value: &mut [u8], trx_id: u64, roll: RollPtr) {
    let t = (trx_id & MAX_48).to_be_bytes();
    value[TRX_ID_OFFSET..TRX_ID_OFFSET + TRX_ID_LEN].copy_from_slice(&t[8 - TRX_ID_LEN..]);
    let r = roll.0.to_be_bytes();
    value[ROLL_PTR_OFFSET..ROLL_PTR_OFFSET + ROLL_PTR_LEN].copy_from_slice(&r[8 - ROLL_PTR_LEN..]);
}

/// Undo records taken out of version chains by [`Table::pruned_previous`]:
/// (undo space, the record's log), one entry per record.
#[derive(Debug, Default)]
#[must_use = "pass to Table::release_pruned once the new version is in place"]
pub(super) struct PrunedRecords(Vec<(u32, crate::undo::LogAddr)>);

impl Table {
    /// The version of a clustered record (`value`, `deleted`: the newest one)
    /// that `view` sees: `None` when the row does not exist for it.
    pub(super) fn visible_version(
        &self,
        view: Option<&ReadView>,
        key: &[u8],
        mut value: Vec<u8>,
        mut deleted: bool,
    ) -> Result<Option<Vec<u8>>> {
        let Some(view) = view else {
            return Ok((!deleted).then_some(value));
        };
        let Some(services) = self.services.as_ref() else {
            return Ok((!deleted).then_some(value));
        };
        if services.system.is_visible(view, trx_id_of(&value)) {
            return Ok((!deleted).then_some(value));
        }
        // A walk into undo: hold the guard that keeps rollback and purge from
        // freeing undo pages, and start again from the record as it is now
        // (the version read before the guard may point into undo freed since).
        let _guard = services.chain_guard.read();
        let Some(now) = self.clustered.get(self.storage.pool(), key)? else {
            return Ok(None);
        };
        value = now.value;
        deleted = now.deleted;
        for _ in 0..MAX_CHAIN {
            let writer = trx_id_of(&value);
            if services.system.is_visible(view, writer) {
                return Ok((!deleted).then_some(value));
            }
            let roll = roll_ptr_of(&value);
            if roll.is_insert() || roll == RollPtr::NONE {
                return Ok(None);
            }
            services.versions_visited.fetch_add(1, Ordering::Relaxed);
            let rec = services.undo.read(roll)?;
            let u = RowUndo::decode(&rec.payload)?;
            if u.key != key || u.root != self.clustered.root {
                // Undo space is reused once purged: a pointer into it must
                // still name this row's record, or the chain is broken.
                let spaces = self.storage.spaces();
                let path = spaces
                    .get(roll.space())
                    .map(|f| spaces.path_of(&f.name))
                    .unwrap_or_default();
                return Err(EngineError::Corruption {
                    path,
                    page: crate::page::PageId::new(roll.space(), roll.page()),
                    reason: format!(
                        "table '{}': a row's version chain leads to an undo record of another row ({roll})",
                        self.layout.def.name
                    ),
                });
            }
            if u.kind == UndoKind::Insert {
                return Ok(None);
            }
            value = u.old_value;
            deleted = u.old_deleted;
        }
        Err(EngineError::Internal(format!(
            "table '{}': a row version chain is longer than {MAX_CHAIN}",
            self.layout.def.name
        )))
    }

    /// [`visible_version`](Self::visible_version) of a record lent by a
    /// cursor: the newest version itself, borrowed, when `view` sees its
    /// writer (the common case, no copy); otherwise the version rebuilt from
    /// undo, owned.
    pub(super) fn visible_version_ref<'v>(
        &self,
        view: Option<&ReadView>,
        key: &[u8],
        value: &'v [u8],
        deleted: bool,
    ) -> Result<Option<Cow<'v, [u8]>>> {
        let newest_visible = match (view, self.services.as_ref()) {
            (None, _) | (_, None) => true,
            (Some(v), Some(s)) => s.system.is_visible(v, trx_id_of(value)),
        };
        if newest_visible {
            return Ok((!deleted).then_some(Cow::Borrowed(value)));
        }
        Ok(self
            .visible_version(view, key, value.to_vec(), deleted)?
            .map(Cow::Owned))
    }

    /// `value`, the newest committed version of a row that the caller (holding
    /// the row's exclusive lock) is about to keep in an undo record, with its
    /// roll pointer moved past the versions no live snapshot can see (see the
    /// module documentation). Versions of a transaction that has not
    /// committed are left alone.
    ///
    /// Also returns the undo records skipped, which the caller passes to
    /// [`Table::release_pruned`] once the clustered record holds the new
    /// version (until then readers still reach them).
    pub(super) fn pruned_previous(&self, mut value: Vec<u8>) -> Result<(Vec<u8>, PrunedRecords)> {
        let mut skipped = PrunedRecords::default();
        let Some(services) = self.services.as_ref() else {
            return Ok((value, skipped));
        };
        let sys = &services.system;
        let csn_of = |writer: u64| -> Option<Csn> {
            if writer < sys.low_watermark() {
                return Some(0);
            }
            match sys.status(writer) {
                TrxStatus::Committed(c) => Some(c),
                TrxStatus::Forgotten => Some(0),
                TrxStatus::Active | TrxStatus::RolledBack => None,
            }
        };
        let Some(mut upper) = csn_of(trx_id_of(&value)) else {
            return Ok((value, skipped));
        };
        let start = roll_ptr_of(&value);
        if start == RollPtr::NONE || start.is_insert() {
            return Ok((value, skipped));
        }
        let live: LiveSnapshots = sys.live_snapshots();
        let needed = |lo: Csn, hi: Csn| live.csns.iter().any(|&s| s >= lo && s < hi);
        let _guard = services.chain_guard.read();
        let mut pruned = 0u64;
        for _ in 0..PRUNE_STEPS {
            if !needed(0, upper) {
                // Every live snapshot sees this version: nothing behind it is needed.
                if roll_ptr_of(&value) != RollPtr::NONE {
                    set_roll(&mut value, RollPtr::NONE);
                    pruned += 1;
                }
                break;
            }
            let roll = roll_ptr_of(&value);
            if roll == RollPtr::NONE || roll.is_insert() {
                break;
            }
            let rec = services.undo.read(roll)?;
            let u = RowUndo::decode(&rec.payload)?;
            if u.kind == UndoKind::Insert {
                break;
            }
            let Some(lo) = csn_of(trx_id_of(&u.old_value)) else {
                break;
            };
            if needed(lo, upper) {
                break; // a live snapshot stops at this version
            }
            set_roll(&mut value, roll_ptr_of(&u.old_value));
            pruned += 1;
            upper = lo;
            // The skipped record's log may be purged early once nothing else
            // of it is reachable, unless the record frees off-page values:
            // an older version, still reachable, may share them.
            if u.dropped.is_empty() {
                skipped.0.push((roll.space(), rec.log));
            }
        }
        if pruned > 0 {
            services
                .versions_pruned
                .fetch_add(pruned, Ordering::Relaxed);
        }
        Ok((value, skipped))
    }

    /// Tells the undo store that the records `pruned_previous` skipped are
    /// out of every version chain: call once the clustered record holds the
    /// version whose roll pointer skips them. (If the change is rolled back
    /// instead, the restored version is the pruned one, so the records stay
    /// unreachable; not calling only delays their purge.)
    pub(super) fn release_pruned(&self, skipped: PrunedRecords) {
        if let Some(services) = self.services.as_ref() {
            for (space, log) in skipped.0 {
                services.undo.forget_record(space, log);
            }
        }
    }

    /// Whether a secondary entry stamped by `stamp` answers for `view` by
    /// itself (see the module documentation).
    pub(super) fn stamp_visible(&self, view: Option<&ReadView>, stamp: u64) -> bool {
        match (view, self.services.as_ref()) {
            (None, _) | (_, None) => true,
            (Some(v), Some(s)) => s.system.is_visible(v, stamp),
        }
    }
}
