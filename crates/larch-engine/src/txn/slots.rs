//! [`SlotArray`]: one cache-line-sized slot per session, in a dense array that
//! background scans (purge, the low watermark, `INNODB_TRX`) walk.
//!
//! A session takes a slot when it connects and gives it back when it
//! disconnects; freed slots are reused lowest index first, so the scanned
//! prefix (`[0, high_water)`) stays as short as the peak number of sessions.
//! Slots live in chunks of [`CHUNK`] that are allocated on first use and never
//! freed or moved, so a slot's address is stable and a session keeps an `Arc` of
//! its chunk for direct access.
//!
//! Each slot has two parts, both written only by the owning session:
//! - `snapshot`: the CSN of the session's open snapshot, or [`NO_SNAPSHOT`].
//!   Opening and closing a snapshot store here (the protocol that makes this
//!   safe against concurrent scans is in `TransactionSystem::open_snapshot`);
//! - the `INNODB_TRX` fields (transaction id, start time, flags), guarded by a
//!   per-slot sequence counter (a seqlock with atomic fields): the owner makes the
//!   counter odd, stores the fields, makes it even; a reader retries until it
//!   reads the same even value before and after. Readers never block the owner.
//!
//! Slots are 128-byte aligned: two sessions never write the same cache line (or
//! the adjacent-line pair some CPUs prefetch together).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::csn::wait_until;
use super::{Csn, IsolationLevel, TrxId, TrxRunState};
use crate::error::{EngineError, Result};

/// The `snapshot` value of a slot without an open snapshot.
pub(crate) const NO_SNAPSHOT: u64 = u64::MAX;
/// Slots per chunk.
pub(crate) const CHUNK: usize = 256;

const F_IN_TRX: u64 = 1;
const F_READ_ONLY: u64 = 1 << 3;
const F_AUTOCOMMIT_NON_LOCKING: u64 = 1 << 4;
const ISOLATION_SHIFT: u32 = 1;
const STATE_SHIFT: u32 = 8;

/// One session's slot. See the module documentation.
#[repr(align(128))]
pub(crate) struct Slot {
    pub(crate) snapshot: AtomicU64,
    seq: AtomicU64,
    trx_id: AtomicU64,
    started_us: AtomicU64,
    flags: AtomicU64,
}

/// The `INNODB_TRX` fields of a slot, as one consistent read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlotInfo {
    pub(crate) trx_id: TrxId,
    pub(crate) started_us: u64,
    pub(crate) isolation: IsolationLevel,
    pub(crate) read_only: bool,
    pub(crate) autocommit_non_locking: bool,
    pub(crate) state: TrxRunState,
}

impl Slot {
    fn new() -> Self {
        Self {
            snapshot: AtomicU64::new(NO_SNAPSHOT),
            seq: AtomicU64::new(0),
            trx_id: AtomicU64::new(0),
            started_us: AtomicU64::new(0),
            flags: AtomicU64::new(0),
        }
    }

    /// Seqlock write; only the owning session calls it.
    fn write(&self, f: impl FnOnce(&Self)) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        f(self);
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }

    /// Marks a transaction started.
    pub(crate) fn begin(&self, info: &SlotInfo) {
        let flags = F_IN_TRX
            | (info.isolation as u64) << ISOLATION_SHIFT
            | if info.read_only { F_READ_ONLY } else { 0 }
            | if info.autocommit_non_locking {
                F_AUTOCOMMIT_NON_LOCKING
            } else {
                0
            }
            | (info.state as u64) << STATE_SHIFT;
        self.write(|s| {
            s.trx_id.store(info.trx_id, Ordering::Relaxed);
            s.started_us.store(info.started_us, Ordering::Relaxed);
            s.flags.store(flags, Ordering::Relaxed);
        });
    }

    /// Records the transaction's id (assigned at its first write).
    pub(crate) fn set_trx_id(&self, id: TrxId) {
        self.write(|s| s.trx_id.store(id, Ordering::Relaxed));
    }

    /// Records the transaction's run state (lock wait, rolling back, ...).
    pub(crate) fn set_state(&self, state: TrxRunState) {
        self.write(|s| {
            let f = s.flags.load(Ordering::Relaxed);
            let f = (f & !(0xff << STATE_SHIFT)) | (state as u64) << STATE_SHIFT;
            s.flags.store(f, Ordering::Relaxed);
        });
    }

    /// Marks the transaction ended.
    pub(crate) fn end(&self) {
        self.write(|s| {
            s.trx_id.store(0, Ordering::Relaxed);
            s.flags.store(0, Ordering::Relaxed);
        });
    }

    /// A consistent copy of the `INNODB_TRX` fields, `None` outside a transaction.
    pub(crate) fn info(&self) -> Option<SlotInfo> {
        let mut read = (0, 0, 0);
        wait_until(|| {
            let s1 = self.seq.load(Ordering::Acquire);
            if s1 & 1 == 1 {
                return false;
            }
            read = (
                self.trx_id.load(Ordering::Relaxed),
                self.started_us.load(Ordering::Relaxed),
                self.flags.load(Ordering::Relaxed),
            );
            fence(Ordering::Acquire);
            self.seq.load(Ordering::Relaxed) == s1
        });
        let (trx_id, started_us, flags) = read;
        (flags & F_IN_TRX != 0).then(|| SlotInfo {
            trx_id,
            started_us,
            isolation: IsolationLevel::from_bits(flags >> ISOLATION_SHIFT),
            read_only: flags & F_READ_ONLY != 0,
            autocommit_non_locking: flags & F_AUTOCOMMIT_NON_LOCKING != 0,
            state: TrxRunState::from_bits(flags >> STATE_SHIFT),
        })
    }
}

/// A slot handle: the chunk it lives in and its index.
#[derive(Clone)]
pub(crate) struct SlotRef {
    chunk: Arc<[Slot]>,
    index: u32,
}

impl SlotRef {
    pub(crate) fn slot(&self) -> &Slot {
        &self.chunk[self.index as usize % CHUNK]
    }

    pub(crate) fn index(&self) -> u32 {
        self.index
    }
}

/// See the module documentation.
pub(crate) struct SlotArray {
    chunks: Box<[OnceLock<Arc<[Slot]>>]>,
    /// Slots `[0, high_water)` may be in use; scans stop here.
    high_water: AtomicUsize,
    /// Released slots below `high_water`, lowest first.
    free: Mutex<BinaryHeap<Reverse<u32>>>,
}

impl SlotArray {
    /// An array for up to `max_sessions` sessions (rounded up to a whole chunk).
    pub(crate) fn new(max_sessions: usize) -> Self {
        let chunks = max_sessions.max(1).div_ceil(CHUNK);
        Self {
            chunks: (0..chunks).map(|_| OnceLock::new()).collect(),
            high_water: AtomicUsize::new(0),
            free: Mutex::new(BinaryHeap::new()),
        }
    }

    /// Most sessions at once.
    pub(crate) fn capacity(&self) -> usize {
        self.chunks.len() * CHUNK
    }

    /// Slots a scan visits.
    pub(crate) fn high_water(&self) -> usize {
        self.high_water.load(Ordering::SeqCst)
    }

    /// Takes the lowest free slot (a session registering).
    pub(crate) fn acquire(&self) -> Result<SlotRef> {
        let mut free = self.free.lock();
        let index = match free.pop() {
            Some(Reverse(i)) => i as usize,
            None => self.high_water(),
        };
        let chunk = self.chunks.get(index / CHUNK).ok_or_else(|| {
            EngineError::Config(format!(
                "all {} transaction-system session slots are in use; max_connections must stay below that",
                self.capacity()
            ))
        })?;
        let chunk = chunk
            .get_or_init(|| (0..CHUNK).map(|_| Slot::new()).collect())
            .clone();
        // Under the free-list lock, so concurrent registrations count correctly.
        if index >= self.high_water() {
            self.high_water.store(index + 1, Ordering::SeqCst);
        }
        Ok(SlotRef {
            chunk,
            index: index as u32,
        })
    }

    /// Gives a slot back (a session disconnecting). The slot must be idle: no
    /// transaction and no snapshot.
    pub(crate) fn release(&self, slot: &SlotRef) {
        debug_assert_eq!(slot.slot().snapshot.load(Ordering::SeqCst), NO_SNAPSHOT);
        slot.slot().end();
        self.free.lock().push(Reverse(slot.index));
    }

    /// Every slot below the high water, with its index.
    pub(crate) fn scan(&self) -> impl Iterator<Item = (u32, &Slot)> {
        let hw = self.high_water();
        self.chunks
            .iter()
            .take(hw.div_ceil(CHUNK))
            .enumerate()
            .filter_map(|(c, chunk)| Some((c * CHUNK, chunk.get()?)))
            .flat_map(|(base, chunk)| chunk.iter().enumerate().map(move |(j, s)| (base + j, s)))
            .take_while(move |&(i, _)| i < hw)
            .map(|(i, s)| (i as u32, s))
    }

    /// The snapshot CSNs of every slot below the high water that has one.
    pub(crate) fn snapshots(&self) -> impl Iterator<Item = Csn> + '_ {
        self.scan()
            .map(|(_, s)| s.snapshot.load(Ordering::SeqCst))
            .filter(|&c| c != NO_SNAPSHOT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Result;

    fn info(id: TrxId) -> SlotInfo {
        SlotInfo {
            trx_id: id,
            started_us: 5,
            isolation: IsolationLevel::ReadCommitted,
            read_only: true,
            autocommit_non_locking: false,
            state: TrxRunState::Running,
        }
    }

    #[test]
    fn slots_are_reused_lowest_first() -> Result<()> {
        let a = SlotArray::new(600);
        assert_eq!(a.capacity(), 768);
        let s: Vec<SlotRef> = (0..300).map(|_| a.acquire()).collect::<Result<_>>()?;
        assert_eq!(a.high_water(), 300);
        assert_eq!(a.scan().count(), 300);
        a.release(&s[7]);
        a.release(&s[3]);
        a.release(&s[290]);
        assert_eq!(a.acquire()?.index(), 3);
        assert_eq!(a.acquire()?.index(), 7);
        assert_eq!(a.acquire()?.index(), 290);
        assert_eq!(a.acquire()?.index(), 300);
        assert_eq!(a.high_water(), 301);
        Ok(())
    }

    #[test]
    fn capacity_is_enforced() -> Result<()> {
        let a = SlotArray::new(1);
        let held: Vec<SlotRef> = (0..CHUNK).map(|_| a.acquire()).collect::<Result<_>>()?;
        assert!(matches!(a.acquire(), Err(EngineError::Config(_))));
        a.release(&held[10]);
        assert_eq!(a.acquire()?.index(), 10);
        Ok(())
    }

    #[test]
    fn info_round_trips_and_clears() -> Result<()> {
        let a = SlotArray::new(4);
        let r = a.acquire()?;
        let s = r.slot();
        assert_eq!(s.info(), None);
        s.begin(&info(0));
        s.set_trx_id(42);
        s.set_state(TrxRunState::LockWait);
        let got = s.info().ok_or(EngineError::Internal("no info".into()))?;
        assert_eq!(
            got,
            SlotInfo {
                trx_id: 42,
                state: TrxRunState::LockWait,
                ..info(0)
            }
        );
        s.end();
        assert_eq!(s.info(), None);
        Ok(())
    }

    /// A reader never sees a torn combination of fields while the owner rewrites
    /// them (each write keeps `trx_id == started_us`).
    #[test]
    fn seqlock_reads_are_consistent() {
        let a = Arc::new(SlotArray::new(4));
        let r = match a.acquire() {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reader = {
            let (r, stop) = (r.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut seen = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    if let Some(i) = r.slot().info() {
                        assert_eq!(i.trx_id, i.started_us);
                        seen += 1;
                    }
                }
                seen
            })
        };
        for k in 1..200_000u64 {
            r.slot().begin(&SlotInfo {
                started_us: k,
                ..info(k)
            });
            if k % 3 == 0 {
                r.slot().end();
            }
        }
        stop.store(true, Ordering::SeqCst);
        assert!(reader.join().is_ok());
    }
}
