//! [`PageTable`]: page id -> frame index, sharded to keep lookups uncontended.
//!
//! A fix increments the frame's fix count while holding its shard's read lock;
//! eviction removes an entry under the write lock after seeing a zero fix count.
//! Together that means a frame found here cannot be evicted under a fixer's feet.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::page::PageId;

const SHARDS: usize = 64;

/// Multiplicative hash for page ids (both fields are small, well-spread integers).
#[derive(Default)]
pub struct PageIdHasher(u64);

impl Hasher for PageIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(32) ^ u64::from(v)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Shard = HashMap<PageId, u32, BuildHasherDefault<PageIdHasher>>;

/// See the module documentation.
pub struct PageTable {
    shards: Box<[RwLock<Shard>]>,
}

impl PageTable {
    pub fn new(capacity: usize) -> Self {
        let per = capacity / SHARDS + 1;
        Self {
            shards: (0..SHARDS)
                .map(|_| RwLock::new(Shard::with_capacity_and_hasher(per, Default::default())))
                .collect(),
        }
    }

    fn shard(&self, id: PageId) -> &RwLock<Shard> {
        let h = (u64::from(id.space).wrapping_mul(0x9e37_79b9) ^ u64::from(id.page))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.shards[(h >> 58) as usize % SHARDS]
    }

    pub fn read(&self, id: PageId) -> RwLockReadGuard<'_, Shard> {
        self.shard(id).read()
    }

    pub fn write(&self, id: PageId) -> RwLockWriteGuard<'_, Shard> {
        self.shard(id).write()
    }

    /// Frame of `id` without fixing it (a hint: may change right after).
    pub fn peek(&self, id: PageId) -> Option<u32> {
        self.read(id).get(&id).copied()
    }
}
