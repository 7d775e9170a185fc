//! Gap locking: what keeps locking reads at REPEATABLE READ and SERIALIZABLE
//! free of phantoms, as InnoDB's next-key locking does.
//!
//! Lock targets are index entries: `(index lock id, entry key)`, where an
//! index's lock id is `(space << 32) | root page` ([`Table::index_lock_id`])
//! and the supremum stands for "after the last entry". A gap lock on entry `R`
//! covers the keys between `R`'s predecessor and `R`.
//! - A locking scan takes a next-key lock on every entry it reads and, when it
//!   reaches the end of its range, a gap lock on the first entry beyond the
//!   range (the supremum if none); a unique equality lookup that finds its row
//!   takes a record lock only. At READ COMMITTED no gaps are locked.
//! - An insert asks for an insert-intention lock on the successor of each new
//!   entry, before it writes (waiting behind gap locks of others) and again
//!   after it wrote: a locking scan that took its gap lock between the two
//!   either waits for the insert or, if it had already passed, makes the
//!   inserter wait for it (or a deadlock resolves the race); in no order does
//!   a scan see a row appear in a gap it had locked.
//! - Before purge or rollback removes an entry, the gap locks on it move to
//!   its successor ([`Table::inherit_gaps`]).

use std::ops::Bound;

use super::{Table, TxnContext, CLUSTERED};
use crate::btree::BTree;
use crate::error::Result;
use crate::lock::{KeyRef, LockKind, LockMode};

impl Table {
    /// The lock identity of index `index` (0 = clustered, `1 + i` = secondary `i`).
    pub(super) fn index_lock_id(&self, index: usize) -> u64 {
        let root = if index == CLUSTERED {
            self.clustered.root
        } else {
            self.secondary[index - 1].root
        };
        (u64::from(self.space) << 32) | u64::from(root)
    }

    pub(super) fn index_tree(&self, index: usize) -> &BTree {
        if index == CLUSTERED {
            &self.clustered
        } else {
            &self.secondary[index - 1]
        }
    }

    /// The first entry key of `index` after `from` (inclusive or not), or
    /// `None` for the supremum.
    pub(super) fn successor(&self, index: usize, from: Bound<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        let tree = self.index_tree(index);
        let mut c = tree
            .range(self.storage.pool(), from, Bound::Unbounded, false)
            .limit_batch(1);
        Ok(c.next_entry()?.map(|e| e.key))
    }

    /// Takes insert-intention locks for a new clustered entry `key` and new
    /// secondary entries `(index, key)`: waits while another transaction
    /// holds a gap lock where they go.
    pub(super) fn insert_intentions(
        &self,
        ctx: &TxnContext,
        key: Option<&[u8]>,
        secondary: &[(usize, &[u8])],
    ) -> Result<()> {
        if ctx.is_internal() {
            return Ok(());
        }
        let entries = key
            .map(|k| (CLUSTERED, k))
            .into_iter()
            .chain(secondary.iter().copied());
        for (index, k) in entries {
            let next = self.successor(index, Bound::Excluded(k.to_vec()))?;
            let target = next.as_deref().map_or(KeyRef::Supremum, KeyRef::Key);
            let _granted = ctx.lock_entry(
                self.index_lock_id(index),
                target,
                LockMode::Exclusive,
                LockKind::InsertIntention,
                None,
            )?;
        }
        Ok(())
    }

    /// Moves the gap locks on entry `key` of `index` to its successor, before
    /// the entry is removed.
    pub(super) fn inherit_gaps(&self, index: usize, key: &[u8]) -> Result<()> {
        let Some(services) = self.services.as_ref() else {
            return Ok(());
        };
        let next = self.successor(index, Bound::Excluded(key.to_vec()))?;
        let target = next.as_deref().map_or(KeyRef::Supremum, KeyRef::Key);
        services
            .locks
            .inherit_gap(self.index_lock_id(index), key, target)
    }
}
