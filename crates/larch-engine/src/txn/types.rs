//! The value types of the transaction system: isolation levels, run states,
//! read views, `INNODB_TRX` rows, live-snapshot sets and start-up options.

use std::time::SystemTime;

use super::{Csn, TrxId, DEFAULT_COMMIT_TABLE_CAPACITY, DEFAULT_MAX_SESSIONS};

/// The SQL isolation levels, with InnoDB's semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IsolationLevel {
    /// Reads see the newest version; no snapshot.
    ReadUncommitted = 0,
    /// A snapshot per statement.
    ReadCommitted = 1,
    /// A snapshot per transaction, taken at the first consistent read (or at
    /// `START TRANSACTION WITH CONSISTENT SNAPSHOT`).
    #[default]
    RepeatableRead = 2,
    /// Like REPEATABLE READ for consistent reads; plain reads lock when
    /// autocommit is off (in the lock layer).
    Serializable = 3,
}

impl IsolationLevel {
    pub(super) fn from_bits(bits: u64) -> Self {
        match bits & 3 {
            0 => Self::ReadUncommitted,
            1 => Self::ReadCommitted,
            2 => Self::RepeatableRead,
            _ => Self::Serializable,
        }
    }

    /// The name `INNODB_TRX.trx_isolation_level` shows.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReadUncommitted => "READ UNCOMMITTED",
            Self::ReadCommitted => "READ COMMITTED",
            Self::RepeatableRead => "REPEATABLE READ",
            Self::Serializable => "SERIALIZABLE",
        }
    }
}

/// What a transaction is doing, as `INNODB_TRX.trx_state` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrxRunState {
    Running = 0,
    LockWait = 1,
    RollingBack = 2,
    Committing = 3,
}

impl TrxRunState {
    pub(super) fn from_bits(bits: u64) -> Self {
        match bits & 0xff {
            1 => Self::LockWait,
            2 => Self::RollingBack,
            3 => Self::Committing,
            _ => Self::Running,
        }
    }

    /// The name `INNODB_TRX.trx_state` shows.
    pub fn name(self) -> &'static str {
        match self {
            Self::Running => "RUNNING",
            Self::LockWait => "LOCK WAIT",
            Self::RollingBack => "ROLLING BACK",
            Self::Committing => "COMMITTING",
        }
    }
}

/// What a consistent read needs to decide visibility: the snapshot CSN and the
/// reader's own transaction id (0 if it has none yet). Valid while the snapshot
/// it was taken from is open: until the end of the statement (READ COMMITTED)
/// or of the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadView {
    snapshot: Csn,
    own: TrxId,
}

impl ReadView {
    pub(super) fn new(snapshot: Csn, own: TrxId) -> Self {
        Self { snapshot, own }
    }

    /// The snapshot CSN.
    pub fn snapshot(&self) -> Csn {
        self.snapshot
    }

    /// The reader's own id (0 if none).
    pub fn own_id(&self) -> TrxId {
        self.own
    }
}

/// One row of `INFORMATION_SCHEMA.INNODB_TRX`, as far as the transaction system
/// knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrxInfo {
    /// The id, or a value at or above [`FAKE_TRX_ID_BASE`](super::FAKE_TRX_ID_BASE) if it
    /// has none.
    pub trx_id: u64,
    pub state: TrxRunState,
    pub started: SystemTime,
    pub isolation: IsolationLevel,
    pub read_only: bool,
    pub autocommit_non_locking: bool,
    /// The CSN of the open snapshot, if any.
    pub snapshot: Option<Csn>,
    /// The session's slot index.
    pub session: u32,
}

/// The CSNs of the live snapshots, for purge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSnapshots {
    /// Distinct CSNs of open snapshots, ascending.
    pub csns: Vec<Csn>,
    /// Every snapshot opened from now on is at or above this (the published CSN
    /// when the scan started).
    pub future_floor: Csn,
}

impl LiveSnapshots {
    /// The oldest snapshot anyone has or can get.
    pub fn oldest(&self) -> Csn {
        self.csns
            .first()
            .map_or(self.future_floor, |&c| c.min(self.future_floor))
    }
}

/// Start-up state of the transaction system.
#[derive(Debug, Clone)]
pub struct TrxSysOptions {
    /// The first id to assign (`1..=MAX_TRX_ID`; after a crash, above every id
    /// found on disk and at or above the last reservation persisted through
    /// [`TransactionSystem::set_id_persist_hook`](super::TransactionSystem::set_id_persist_hook)).
    pub next_trx_id: TrxId,
    /// The first CSN to assign (`>= 1`, above every CSN found on disk).
    pub next_csn: Csn,
    /// Ids of transactions recovered as active (they roll back in the
    /// background); all below `next_trx_id`.
    pub recovered_active: Vec<TrxId>,
    /// Ring entries of the commit table (rounded up to a power of two).
    pub commit_table_capacity: usize,
    /// Most concurrent sessions.
    pub max_sessions: usize,
}

impl TrxSysOptions {
    /// Defaults for a fresh engine (or one that recovered no active transaction).
    pub fn new(next_trx_id: TrxId, next_csn: Csn) -> Self {
        Self {
            next_trx_id,
            next_csn,
            recovered_active: Vec::new(),
            commit_table_capacity: DEFAULT_COMMIT_TABLE_CAPACITY,
            max_sessions: DEFAULT_MAX_SESSIONS,
        }
    }
}
