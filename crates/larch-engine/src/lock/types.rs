//! The lock manager's value types: owners, modes and kinds, targets (owned and
//! borrowed), requests, wait policies and outcomes.
//!
//! Invariants:
//! - a [`LockTarget`] and a [`TargetRef`] naming the same index and key hash and
//!   compare equal through [`TargetParts`], so the lock table (keyed by the owned
//!   form) is probed with the borrowed form without copying the key;
//! - [`RecordKey::Supremum`] sorts after every key of its index and only ever
//!   carries gap locks (the manager turns record requests on it into gap ones).
//!
//! Usage: build a [`LockRequest`] per lock call (`LockRequest::new(index_id,
//! key, mode, kind)` or `LockRequest::supremum(..)`) and a [`WaitOptions`]
//! (`WaitOptions::wait(timeout).with_cancel(&killed).with_weight(w)`).

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Who holds or waits for a lock: an opaque id chosen by the caller, unique
/// among live transactions (a read-only transaction doing locking reads has no
/// transaction id, so the caller supplies another unique number for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OwnerId(pub u64);

/// Shared (S) or exclusive (X).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockMode {
    Shared,
    Exclusive,
}

impl LockMode {
    /// True unless both modes are shared.
    pub fn conflicts_with(self, other: LockMode) -> bool {
        self == LockMode::Exclusive || other == LockMode::Exclusive
    }

    /// True when `self` is at least as strong as `other` (X >= S >= S).
    pub fn covers(self, other: LockMode) -> bool {
        self == LockMode::Exclusive || other == LockMode::Shared
    }

    /// "S" or "X".
    pub fn as_str(self) -> &'static str {
        match self {
            LockMode::Shared => "S",
            LockMode::Exclusive => "X",
        }
    }
}

/// What part of the index a lock covers. A gap is the open interval between a
/// record and its predecessor in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockKind {
    /// The record only (InnoDB's `LOCK_REC_NOT_GAP`).
    RecordOnly,
    /// The gap before the record only (`LOCK_GAP`).
    GapOnly,
    /// The record and the gap before it (`LOCK_ORDINARY`).
    NextKey,
    /// An inserter's announcement that it will insert into the gap before the
    /// record (`LOCK_INSERT_INTENTION`); always exclusive.
    InsertIntention,
}

impl LockKind {
    /// True for the kinds that lock the record itself.
    pub fn has_record(self) -> bool {
        matches!(self, LockKind::RecordOnly | LockKind::NextKey)
    }

    /// True for the kinds that lock the gap (insert intention excluded).
    pub fn has_gap(self) -> bool {
        matches!(self, LockKind::GapOnly | LockKind::NextKey)
    }
}

/// The index entry a lock is on: its memcomparable key bytes, or the
/// end-of-index pseudo-record.
#[derive(Debug, Clone)]
pub enum RecordKey {
    Key(Arc<[u8]>),
    Supremum,
}

impl RecordKey {
    /// The key bytes, `None` for the supremum.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            RecordKey::Key(k) => Some(k),
            RecordKey::Supremum => None,
        }
    }

    /// The borrowed form.
    pub fn as_key_ref(&self) -> KeyRef<'_> {
        match self {
            RecordKey::Key(k) => KeyRef::Key(k),
            RecordKey::Supremum => KeyRef::Supremum,
        }
    }
}

/// What a lock is on: an index and an entry of it.
#[derive(Debug, Clone)]
pub struct LockTarget {
    pub index_id: u64,
    pub key: RecordKey,
}

impl LockTarget {
    /// The entry with key `key` of index `index_id` (copies the key).
    pub fn new(index_id: u64, key: &[u8]) -> LockTarget {
        LockTarget {
            index_id,
            key: RecordKey::Key(Arc::from(key)),
        }
    }

    /// The supremum of index `index_id`.
    pub fn supremum(index_id: u64) -> LockTarget {
        LockTarget {
            index_id,
            key: RecordKey::Supremum,
        }
    }

    /// The borrowed form.
    pub fn as_target_ref(&self) -> TargetRef<'_> {
        TargetRef {
            index_id: self.index_id,
            key: self.key.as_key_ref(),
        }
    }
}

impl PartialEq for LockTarget {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for LockTarget {}

impl Hash for LockTarget {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_parts(self.parts(), state);
    }
}

/// A borrowed [`RecordKey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRef<'a> {
    Key(&'a [u8]),
    Supremum,
}

/// A borrowed [`LockTarget`]: what lock calls take, so that probing the lock
/// table does not copy the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetRef<'a> {
    pub index_id: u64,
    pub key: KeyRef<'a>,
}

impl<'a> TargetRef<'a> {
    /// The entry with key `key` of index `index_id`.
    pub fn key(index_id: u64, key: &'a [u8]) -> TargetRef<'a> {
        TargetRef {
            index_id,
            key: KeyRef::Key(key),
        }
    }

    /// The supremum of index `index_id`.
    pub fn supremum(index_id: u64) -> TargetRef<'static> {
        TargetRef {
            index_id,
            key: KeyRef::Supremum,
        }
    }

    /// True for the supremum.
    pub fn is_supremum(&self) -> bool {
        self.key == KeyRef::Supremum
    }

    /// The owned form (copies the key).
    pub fn to_target(self) -> LockTarget {
        match self.key {
            KeyRef::Key(k) => LockTarget::new(self.index_id, k),
            KeyRef::Supremum => LockTarget::supremum(self.index_id),
        }
    }
}

impl<'a> From<&'a LockTarget> for TargetRef<'a> {
    fn from(t: &'a LockTarget) -> Self {
        t.as_target_ref()
    }
}

/// The identity of a target as plain parts (index id, key bytes or `None` for
/// the supremum), shared by the owned and borrowed forms.
pub(super) trait TargetParts {
    fn parts(&self) -> (u64, Option<&[u8]>);
}

impl TargetParts for LockTarget {
    fn parts(&self) -> (u64, Option<&[u8]>) {
        (self.index_id, self.key.bytes())
    }
}

impl TargetParts for TargetRef<'_> {
    fn parts(&self) -> (u64, Option<&[u8]>) {
        match self.key {
            KeyRef::Key(k) => (self.index_id, Some(k)),
            KeyRef::Supremum => (self.index_id, None),
        }
    }
}

fn hash_parts<H: Hasher>(parts: (u64, Option<&[u8]>), state: &mut H) {
    parts.0.hash(state);
    parts.1.hash(state);
}

impl Hash for dyn TargetParts + '_ {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_parts(self.parts(), state);
    }
}

impl PartialEq for dyn TargetParts + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for dyn TargetParts + '_ {}

/// The lock table's key: a [`LockTarget`] that can be looked up by any
/// [`TargetParts`] (in particular a [`TargetRef`]) without allocating.
#[derive(Debug)]
pub(super) struct MapKey(pub(super) LockTarget);

impl Hash for MapKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_parts(self.0.parts(), state);
    }
}

impl PartialEq for MapKey {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for MapKey {}

impl<'a> Borrow<dyn TargetParts + 'a> for MapKey {
    fn borrow(&self) -> &(dyn TargetParts + 'a) {
        &self.0
    }
}

/// One lock call's what: target, mode and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockRequest<'a> {
    pub target: TargetRef<'a>,
    pub mode: LockMode,
    pub kind: LockKind,
}

impl<'a> LockRequest<'a> {
    /// A lock on the entry with key `key` of index `index_id`.
    pub fn new(index_id: u64, key: &'a [u8], mode: LockMode, kind: LockKind) -> Self {
        LockRequest {
            target: TargetRef::key(index_id, key),
            mode,
            kind,
        }
    }

    /// A lock on the supremum of index `index_id`.
    pub fn supremum(index_id: u64, mode: LockMode, kind: LockKind) -> LockRequest<'static> {
        LockRequest {
            target: TargetRef::supremum(index_id),
            mode,
            kind,
        }
    }

    /// The request as the manager stores it: insert intention is always
    /// exclusive, and on the supremum a next-key request is a gap request.
    pub(super) fn normalized(mut self) -> Self {
        if self.kind == LockKind::InsertIntention {
            self.mode = LockMode::Exclusive;
        } else if self.target.is_supremum() && self.kind == LockKind::NextKey {
            self.kind = LockKind::GapOnly;
        }
        self
    }
}

/// What to do when a lock cannot be granted at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitPolicy {
    /// Wait up to `timeout` (`innodb_lock_wait_timeout`), then fail with
    /// `EngineError::LockWaitTimeout`.
    Wait { timeout: Duration },
    /// `NOWAIT`: fail at once with `EngineError::LockNoWait`.
    NoWait,
    /// `SKIP LOCKED`: return [`LockOutcome::Skipped`] at once.
    SkipLocked,
}

/// One lock call's how: the wait policy, the KILL flag and the deadlock weight.
#[derive(Debug, Clone, Copy)]
pub struct WaitOptions<'a> {
    pub policy: WaitPolicy,
    /// Set by KILL QUERY: a wait polls it (at least every 100 ms) and fails
    /// with `EngineError::QueryInterrupted`.
    pub cancel: Option<&'a AtomicBool>,
    /// The owner's weight for deadlock victim choice (InnoDB: undo records +
    /// locks); the lightest member of a cycle is rolled back, the requester on
    /// ties. Remembered per owner.
    pub weight: u64,
}

impl<'a> WaitOptions<'a> {
    /// Wait up to `timeout`.
    pub fn wait(timeout: Duration) -> WaitOptions<'static> {
        WaitOptions {
            policy: WaitPolicy::Wait { timeout },
            cancel: None,
            weight: 0,
        }
    }

    /// `NOWAIT`.
    pub fn no_wait() -> WaitOptions<'static> {
        WaitOptions {
            policy: WaitPolicy::NoWait,
            cancel: None,
            weight: 0,
        }
    }

    /// `SKIP LOCKED`.
    pub fn skip_locked() -> WaitOptions<'static> {
        WaitOptions {
            policy: WaitPolicy::SkipLocked,
            cancel: None,
            weight: 0,
        }
    }

    /// With a KILL flag.
    pub fn with_cancel<'b>(self, cancel: &'b AtomicBool) -> WaitOptions<'b> {
        WaitOptions {
            policy: self.policy,
            cancel: Some(cancel),
            weight: self.weight,
        }
    }

    /// With a deadlock weight.
    pub fn with_weight(self, weight: u64) -> WaitOptions<'a> {
        WaitOptions { weight, ..self }
    }
}

/// How a lock call ended (errors aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum LockOutcome {
    /// Granted; a new lock entry was created, unless the request was an insert
    /// intention granted without waiting (InnoDB keeps no lock for those).
    Granted,
    /// The owner already held a lock at least as strong; nothing was added (so
    /// `release_record` must not be called for this request).
    AlreadyHeld,
    /// `SKIP LOCKED` and the lock would have to wait: skip the row.
    Skipped,
    /// The record was removed (purge, rollback of an insert) while this request
    /// waited for it; the gap part, if any, was inherited by the next record.
    /// Re-position the cursor and retry, as InnoDB does.
    RecordRemoved,
}

impl LockOutcome {
    /// True for [`LockOutcome::Granted`] and [`LockOutcome::AlreadyHeld`].
    pub fn is_granted(self) -> bool {
        matches!(self, LockOutcome::Granted | LockOutcome::AlreadyHeld)
    }
}
