//! The transaction system: transaction ids, commit sequence numbers (CSNs),
//! snapshots, visibility and the low watermark. The protocol and its race
//! arguments are written up in `docs/transactions.md`.
//!
//! What it owns:
//! - **ids**: a read-write transaction takes a 48-bit id at its first write
//!   ([`Transaction::id_for_write`]); ids grow monotonically and are never
//!   reused. Ids are handed out below a *reservation* that a hook
//!   ([`TransactionSystem::set_id_persist_hook`]) persists, one block of
//!   [`TRX_ID_PERSIST_INTERVAL`] ids at a time; crash recovery passes the first
//!   id to use (at least the last persisted reservation) to
//!   [`TransactionSystem::with_options`];
//! - **CSNs** (`csn`): a committing transaction takes the next CSN, stores
//!   `committed(csn)` in the commit table, and publishes the CSN in order; the
//!   published CSN moves past `n` only when every CSN `<= n` is published;
//! - **snapshots**: a snapshot is one load of the published CSN, installed in the
//!   session's own slot of a dense array (`slots`); closing it is one store.
//!   No shared mutex, no list copy;
//! - **visibility** ([`TransactionSystem::is_visible`]): a version written by `T`
//!   is visible to a reader with snapshot `S` and own id `O` iff `T == O`, or `T`
//!   committed with a CSN `<= S`. Ids below the **low watermark** are known to be
//!   visible to every live and future snapshot (one comparison); the others are
//!   looked up in the lock-free commit table (`commit_table`);
//! - **scans** for purge and `INFORMATION_SCHEMA.INNODB_TRX`:
//!   [`TransactionSystem::oldest_live_snapshot`],
//!   [`TransactionSystem::live_snapshots`], [`TransactionSystem::innodb_trx`].
//!
//! Invariants:
//! - published CSN <= next CSN - 1; the published CSN and the low watermark never
//!   decrease;
//! - every snapshot that is live when a scan reads its slot, or that is opened
//!   after the scan started, is `>=` the oldest CSN the scan reports (the
//!   *horizon* handshake in `TransactionSystem::open_snapshot`);
//! - every id below the low watermark belongs to a transaction that rolled back
//!   or committed with a CSN at or below every live and future snapshot.
//!
//! Usage: one [`TransactionSystem`] per engine, behind an `Arc`; one [`Session`]
//! per connection ([`TransactionSystem::register_session`]); one
//! [`Transaction`] at a time per session ([`Session::begin`]). A reader asks its
//! transaction for a [`ReadView`] per statement and passes it with the writer id
//! of each record version to [`TransactionSystem::is_visible`]. This module
//! uses only `std`, `parking_lot` and `libc` (for a coarse clock).

mod commit_table;
mod csn;
mod session;
mod slots;
mod types;

#[cfg(test)]
mod concurrency_tests;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, Ordering::SeqCst};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;

pub use commit_table::TrxStatus;
pub use session::{Session, Transaction, TrxOptions};
pub use types::{IsolationLevel, LiveSnapshots, ReadView, TrxInfo, TrxRunState, TrxSysOptions};

use crate::error::{EngineError, Result};
use commit_table::CommitTable;
use csn::{CsnPublisher, Padded};
use slots::{Slot, SlotArray, SlotInfo, NO_SNAPSHOT};

/// A transaction id (48 bits, as stored in records; 0 means "none").
pub type TrxId = u64;
/// A commit sequence number.
pub type Csn = u64;

/// The largest transaction id (the record field is 6 bytes).
pub const MAX_TRX_ID: TrxId = (1 << 48) - 1;
/// `INNODB_TRX` shows transactions without an id (read-only ones, and
/// read-write ones before their first write) with an id at or above this, as
/// InnoDB shows a value derived from its transaction object's address.
pub const FAKE_TRX_ID_BASE: u64 = 1 << 48;
/// Ids are reserved (and the reservation persisted) in blocks of this many.
pub const TRX_ID_PERSIST_INTERVAL: TrxId = 256;
/// Default ring entries of the commit table (16 bytes each).
pub const DEFAULT_COMMIT_TABLE_CAPACITY: usize = 1 << 16;
/// Default most concurrent sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 1 << 16;
/// Largest CSN (the commit table keeps a flag in the top bit).
const MAX_CSN: Csn = (1 << 62) - 1;
/// A committer tries to advance the low watermark once per this many CSNs.
const WATERMARK_EVERY: Csn = 32;
/// At most this many ids are examined by one watermark advance.
const MAX_WALK: TrxId = 1 << 14;

type IdHook = Box<dyn Fn(TrxId) -> Result<()> + Send + Sync>;

/// See the module documentation.
pub struct TransactionSystem {
    /// Written by every first write (padded: the fields below are read on hot
    /// paths and must not share its cache line).
    next_trx_id: Padded<AtomicU64>,
    /// Ids below this may be handed out without asking the persistence hook.
    reserved: AtomicU64,
    /// Serialises reservations.
    reserve_lock: Mutex<()>,
    csn: CsnPublisher,
    table: CommitTable,
    low_watermark: AtomicU64,
    /// Every snapshot opened from now on is `>=` this (raised by scans).
    horizon: AtomicU64,
    /// A CSN `<=` every live and future snapshot (the largest oldest-snapshot
    /// result so far).
    floor: AtomicU64,
    slots: SlotArray,
    /// One watermark advance at a time.
    advance_lock: Mutex<()>,
    /// Overflow-map size at which the next advance prunes it fully.
    prune_at: AtomicUsize,
    id_hook: OnceLock<IdHook>,
}

impl std::fmt::Debug for TransactionSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactionSystem")
            .field("next_trx_id", &self.next_trx_id())
            .field("published_csn", &self.published_csn())
            .field("low_watermark", &self.low_watermark())
            .field("sessions_high_water", &self.slots.high_water())
            .finish()
    }
}

impl TransactionSystem {
    /// A transaction system that assigns ids from `next_trx_id` and CSNs from
    /// `next_csn`, with default sizes and no recovered transactions.
    pub fn new(next_trx_id: TrxId, next_csn: Csn) -> Result<Arc<Self>> {
        Self::with_options(TrxSysOptions::new(next_trx_id, next_csn))
    }

    /// A transaction system from recovered start-up state.
    pub fn with_options(opts: TrxSysOptions) -> Result<Arc<Self>> {
        if !(1..=MAX_TRX_ID).contains(&opts.next_trx_id) {
            return Err(EngineError::Internal(format!(
                "next transaction id {} outside 1..={MAX_TRX_ID}",
                opts.next_trx_id
            )));
        }
        if !(1..=MAX_CSN).contains(&opts.next_csn) {
            return Err(EngineError::Internal(format!(
                "next commit sequence number {} outside 1..={MAX_CSN}",
                opts.next_csn
            )));
        }
        if let Some(&bad) = opts
            .recovered_active
            .iter()
            .find(|&&id| id == 0 || id >= opts.next_trx_id)
        {
            return Err(EngineError::Internal(format!(
                "recovered transaction id {bad} is not below the next id {}",
                opts.next_trx_id
            )));
        }
        let watermark = opts
            .recovered_active
            .iter()
            .copied()
            .fold(opts.next_trx_id, TrxId::min);
        let published = opts.next_csn - 1;
        Ok(Arc::new(Self {
            next_trx_id: Padded(AtomicU64::new(opts.next_trx_id)),
            reserved: AtomicU64::new(u64::MAX),
            reserve_lock: Mutex::new(()),
            csn: CsnPublisher::new(opts.next_csn),
            table: CommitTable::new(
                opts.commit_table_capacity,
                opts.next_trx_id,
                &opts.recovered_active,
            ),
            low_watermark: AtomicU64::new(watermark),
            horizon: AtomicU64::new(published),
            floor: AtomicU64::new(published),
            slots: SlotArray::new(opts.max_sessions),
            advance_lock: Mutex::new(()),
            prune_at: AtomicUsize::new(1024),
            id_hook: OnceLock::new(),
        }))
    }

    /// Takes a slot for a new connection; the slot is freed when the session
    /// and its transaction are dropped.
    pub fn register_session(self: &Arc<Self>) -> Result<Session> {
        Ok(Session::new(self.clone(), self.slots.acquire()?))
    }

    /// Installs the id-persistence hook; call it before the first transaction.
    /// From then on ids are handed out only below a reservation: before the
    /// first id at or above the current one is handed out, `hook(mark)` is
    /// called (one thread at a time; id assignment waits) with the next multiple
    /// of [`TRX_ID_PERSIST_INTERVAL`] above that id, and must persist "ids below
    /// `mark` may be in use" no later than any change made by those ids becomes
    /// durable (a redo-logged write does: the log is sequential). After a crash,
    /// the first id is at least the last persisted mark. An error from the hook
    /// fails the write that needed the id.
    pub fn set_id_persist_hook(
        &self,
        hook: impl Fn(TrxId) -> Result<()> + Send + Sync + 'static,
    ) -> Result<()> {
        self.id_hook
            .set(Box::new(hook))
            .map_err(|_| EngineError::Internal("the id persistence hook is already set".into()))?;
        self.reserved.store(self.next_trx_id.load(SeqCst), SeqCst);
        Ok(())
    }

    /// The id the next read-write transaction will get.
    pub fn next_trx_id(&self) -> TrxId {
        self.next_trx_id.load(SeqCst).min(MAX_TRX_ID + 1)
    }

    /// The CSN the next commit will take.
    pub fn next_csn(&self) -> Csn {
        self.csn.next()
    }

    /// Every commit with a CSN at or below this is visible to new snapshots.
    pub fn published_csn(&self) -> Csn {
        self.csn.published()
    }

    /// Every id below this rolled back or committed with a CSN at or below every
    /// live and future snapshot.
    pub fn low_watermark(&self) -> TrxId {
        self.low_watermark.load(SeqCst)
    }

    /// What the commit table knows about `id`.
    pub fn status(&self, id: TrxId) -> TrxStatus {
        self.table.status(id)
    }

    /// Whether the version written by `writer` is visible to `view`. Callers
    /// follow the roll pointer to an older version when it is not.
    pub fn is_visible(&self, view: &ReadView, writer: TrxId) -> bool {
        if writer == view.own_id() || writer < self.low_watermark.load(SeqCst) {
            return true;
        }
        match self.table.status(writer) {
            TrxStatus::Committed(csn) => csn <= view.snapshot(),
            TrxStatus::Active | TrxStatus::RolledBack => false,
            TrxStatus::Forgotten => true,
        }
    }

    /// The oldest snapshot anyone has or can still open: the minimum of the
    /// published CSN and every slot's snapshot. Raises the horizon first so that
    /// a snapshot installed after its slot was read cannot be older (the
    /// handshake is described at `open_snapshot` and in `docs/transactions.md`).
    pub fn oldest_live_snapshot(&self) -> Csn {
        let p = self.raise_horizon();
        let oldest = self.slots.snapshots().fold(p, Csn::min);
        self.raise_floor(oldest);
        oldest
    }

    /// The view purge decides with: the oldest live snapshot and no own id.
    /// A version whose writer this view sees is seen by every live and future
    /// snapshot.
    pub fn purge_view(&self) -> ReadView {
        ReadView::new(self.oldest_live_snapshot(), 0)
    }

    /// The live snapshots, sorted, for purge (which keeps, for each, the newest
    /// version at or below it). Same protocol as
    /// [`oldest_live_snapshot`](Self::oldest_live_snapshot).
    pub fn live_snapshots(&self) -> LiveSnapshots {
        let future_floor = self.raise_horizon();
        let mut csns: Vec<Csn> = self.slots.snapshots().collect();
        csns.sort_unstable();
        csns.dedup();
        let live = LiveSnapshots { csns, future_floor };
        self.raise_floor(live.oldest());
        live
    }

    /// Raises the horizon to the published CSN and returns that CSN. Skips the
    /// write (which would invalidate the line every snapshot open reads) when
    /// the horizon is already there: the earlier store that put it there
    /// precedes this load in the total order, so it serves the handshake too.
    fn raise_horizon(&self) -> Csn {
        let p = self.csn.published();
        if self.horizon.load(SeqCst) < p {
            self.horizon.fetch_max(p, SeqCst);
        }
        p
    }

    /// Raises the snapshot floor to `oldest` (written only when it grows).
    fn raise_floor(&self, oldest: Csn) {
        if self.floor.load(SeqCst) < oldest {
            self.floor.fetch_max(oldest, SeqCst);
        }
    }

    /// Moves the low watermark past every id, in order, that rolled back or
    /// committed at or below the oldest live snapshot; stops at the first that
    /// did not (or is not registered yet). Called by committers now and then
    /// and by background work; concurrent calls return at once. Returns the
    /// watermark.
    pub fn advance_low_watermark(&self) -> TrxId {
        let Some(_guard) = self.advance_lock.try_lock() else {
            return self.low_watermark();
        };
        let floor = self.oldest_live_snapshot();
        let mut w = self.low_watermark.load(SeqCst);
        let end = self.next_trx_id().min(w.saturating_add(MAX_WALK));
        while w < end {
            match self.table.walk_status(w) {
                Some(TrxStatus::Committed(csn)) if csn <= floor => {}
                Some(TrxStatus::RolledBack | TrxStatus::Forgotten) => {}
                _ => break,
            }
            w += 1;
        }
        self.low_watermark.store(w, SeqCst);
        let floor = self.floor.load(SeqCst);
        let full = self.table.overflow_len() >= self.prune_at.load(SeqCst);
        let left = self.table.prune_overflow(w, floor, full);
        if full {
            self.prune_at.store((2 * left).max(1024), SeqCst);
        }
        w
    }

    /// Entries of the commit table's overflow map (long-running transactions).
    pub fn commit_table_overflow(&self) -> usize {
        self.table.overflow_len()
    }

    /// Sessions the scans visit (the peak number of concurrent sessions).
    pub fn session_high_water(&self) -> usize {
        self.slots.high_water()
    }

    /// Every live transaction, for `INFORMATION_SCHEMA.INNODB_TRX`: a scan of the
    /// slots that never blocks a session.
    pub fn innodb_trx(&self) -> Vec<TrxInfo> {
        self.slots
            .scan()
            .filter_map(|(index, slot)| {
                let info = slot.info()?;
                let snapshot = slot.snapshot.load(SeqCst);
                Some(TrxInfo {
                    trx_id: if info.trx_id != 0 {
                        info.trx_id
                    } else {
                        FAKE_TRX_ID_BASE + u64::from(index)
                    },
                    state: info.state,
                    started: SystemTime::UNIX_EPOCH + Duration::from_micros(info.started_us),
                    isolation: info.isolation,
                    read_only: info.read_only,
                    autocommit_non_locking: info.autocommit_non_locking,
                    snapshot: (snapshot != NO_SNAPSHOT).then_some(snapshot),
                    session: index,
                })
            })
            .collect()
    }

    /// Commits a transaction recovered as active (an XA transaction prepared
    /// before the crash). Returns its CSN.
    pub fn commit_recovered(&self, id: TrxId) -> Result<Csn> {
        self.expect_active(id)?;
        Ok(self.commit_id(id))
    }

    /// Marks a recovered transaction rolled back, once its changes are undone.
    pub fn rollback_recovered(&self, id: TrxId) -> Result<()> {
        self.expect_active(id)?;
        self.table.finish(id, TrxStatus::RolledBack);
        Ok(())
    }

    fn expect_active(&self, id: TrxId) -> Result<()> {
        match self.table.status(id) {
            TrxStatus::Active => Ok(()),
            other => Err(EngineError::Internal(format!(
                "transaction {id} is not active ({other:?})"
            ))),
        }
    }

    // ---- used by `Transaction` ----

    /// Takes the next id and registers it as active.
    fn assign_id(&self) -> Result<TrxId> {
        let id = self.next_trx_id.fetch_add(1, SeqCst);
        if id > MAX_TRX_ID {
            return Err(EngineError::Internal(
                "all 2^48 transaction ids have been used".into(),
            ));
        }
        let reserved = if id >= self.reserved.load(SeqCst) {
            self.reserve_through(id)
        } else {
            Ok(())
        };
        self.table.register(id, self.floor.load(SeqCst));
        if let Err(e) = reserved {
            // The id is burnt; record it finished so the watermark can pass it.
            self.table.finish(id, TrxStatus::RolledBack);
            return Err(e);
        }
        Ok(id)
    }

    /// Moves the reservation above `id` through the persistence hook.
    fn reserve_through(&self, id: TrxId) -> Result<()> {
        let _guard = self.reserve_lock.lock();
        if id < self.reserved.load(SeqCst) {
            return Ok(());
        }
        let mark = (id / TRX_ID_PERSIST_INTERVAL + 1) * TRX_ID_PERSIST_INTERVAL;
        if let Some(hook) = self.id_hook.get() {
            hook(mark)?;
        }
        self.reserved.store(mark, SeqCst);
        Ok(())
    }

    /// Takes a CSN for `id`, records it, publishes it in order and waits until
    /// it is published.
    fn commit_id(&self, id: TrxId) -> Csn {
        self.commit_id_with(id, || {})
    }

    /// [`commit_id`](Self::commit_id) calling `pause` between taking the CSN and
    /// recording it (tests widen the out-of-order window with it).
    fn commit_id_with(&self, id: TrxId, pause: impl FnOnce()) -> Csn {
        let csn = self.csn.allocate();
        pause();
        self.table.finish(id, TrxStatus::Committed(csn));
        self.csn.publish(csn);
        self.csn.wait_published(csn);
        if csn % WATERMARK_EVERY == 0 {
            self.advance_low_watermark();
        }
        csn
    }

    /// [`commit_id`](Self::commit_id) calling `record` with the CSN before it
    /// is recorded and published.
    fn commit_id_with_csn(&self, id: TrxId, record: impl FnOnce(Csn)) -> Csn {
        let csn = self.csn.allocate();
        record(csn);
        self.table.finish(id, TrxStatus::Committed(csn));
        self.csn.publish(csn);
        self.csn.wait_published(csn);
        if csn % WATERMARK_EVERY == 0 {
            self.advance_low_watermark();
        }
        csn
    }

    fn rollback_id(&self, id: TrxId) {
        self.table.finish(id, TrxStatus::RolledBack);
    }

    /// Opens a snapshot in `slot`: loads the published CSN, stores it in the
    /// slot, then checks the horizon. A scan raises the horizon to the published
    /// CSN *before* it reads the slots, so if this store came too late for a
    /// scan to see it, this load of the horizon sees that scan's value; a
    /// snapshot below it is retried with a fresh (larger) published CSN. Either
    /// the scan saw the snapshot or the snapshot is at or above everything the
    /// scan reported. The returned CSN stays valid until the slot is closed.
    fn open_snapshot(&self, slot: &Slot) -> Csn {
        self.open_snapshot_with(slot, || {})
    }

    /// [`open_snapshot`](Self::open_snapshot) calling `pause` between the load
    /// and the store (tests widen the race window with it).
    fn open_snapshot_with(&self, slot: &Slot, mut pause: impl FnMut()) -> Csn {
        loop {
            let s = self.csn.published();
            pause();
            if self.try_install_snapshot(slot, s) {
                return s;
            }
        }
    }

    /// One attempt of [`open_snapshot`](Self::open_snapshot) with an already
    /// loaded CSN; false if a scan may have missed it (the slot then holds a
    /// conservative, too-old value until the retry).
    fn try_install_snapshot(&self, slot: &Slot, csn: Csn) -> bool {
        slot.snapshot.store(csn, SeqCst);
        self.horizon.load(SeqCst) <= csn
    }

    /// Closes the slot's snapshot. A release store is enough: a scan that still
    /// sees the old value is only more conservative.
    fn close_snapshot(slot: &Slot) {
        slot.snapshot.store(NO_SNAPSHOT, Ordering::Release);
    }
}

/// Microseconds since the Unix epoch, from the coarse real-time clock (updated
/// once per scheduler tick, which is plenty for `INNODB_TRX.trx_started`; InnoDB
/// keeps seconds). Every transaction start reads it: on the benchmark machine
/// `SystemTime::now()` costs about 70 ns and `CLOCK_REALTIME_COARSE` about 10 ns,
/// a third of an autocommit SELECT's transaction overhead.
fn now_us() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, exclusively borrowed `timespec` for the whole
    // call; `clock_gettime` only writes it and keeps no reference.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    if rc == 0 && ts.tv_sec >= 0 {
        ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
    } else {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64)
    }
}

impl SlotInfo {
    fn for_begin(opts: &TrxOptions) -> Self {
        Self {
            trx_id: 0,
            started_us: now_us(),
            isolation: opts.isolation,
            read_only: opts.read_only,
            autocommit_non_locking: opts.autocommit_non_locking,
            state: TrxRunState::Running,
        }
    }
}
