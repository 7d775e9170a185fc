//! [`LruList`]: least-recently-used order with midpoint insertion.
//!
//! The list runs from the young end (head) to the old end (tail). The last
//! `innodb_old_blocks_pct` percent of it is the old sublist, starting at
//! `midpoint`. Pages read from disk enter at the midpoint, so a table scan that
//! touches each page once only cycles pages through the old sublist and never
//! pushes the hot set out. A page in the old sublist moves to the head when it is
//! accessed again at least `innodb_old_blocks_time` ms after its first access.
//!
//! Links live in the frame descriptors; every method runs under the LRU mutex.

use std::sync::atomic::Ordering::SeqCst;

use super::descriptor::{Descriptor, IN_LRU, NIL, OLD};

/// The list with its midpoint. See the module documentation.
pub struct LruList {
    head: u32,
    tail: u32,
    midpoint: u32,
    len: u32,
    old_len: u32,
    old_pct: u32,
    /// Incremented on every move to the head (used to skip moves of pages that are
    /// already near the head).
    pub young_moves: u32,
}

/// Below this length there is no old sublist (every page is young).
const MIN_LEN_FOR_OLD: u32 = 8;

impl LruList {
    pub fn new(old_pct: u32) -> Self {
        Self {
            head: NIL,
            tail: NIL,
            midpoint: NIL,
            len: 0,
            old_len: 0,
            old_pct: old_pct.clamp(5, 95),
            young_moves: 0,
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn old_len(&self) -> u32 {
        self.old_len
    }
    pub fn tail(&self) -> u32 {
        self.tail
    }
    pub fn head(&self) -> u32 {
        self.head
    }

    fn link_before(&mut self, d: &[Descriptor], idx: u32, before: u32) {
        let me = &d[idx as usize];
        if before == NIL {
            me.lru_prev.store(self.tail, SeqCst);
            me.lru_next.store(NIL, SeqCst);
            if self.tail != NIL {
                d[self.tail as usize].lru_next.store(idx, SeqCst);
            } else {
                self.head = idx;
            }
            self.tail = idx;
        } else {
            let prev = d[before as usize].lru_prev.load(SeqCst);
            me.lru_prev.store(prev, SeqCst);
            me.lru_next.store(before, SeqCst);
            d[before as usize].lru_prev.store(idx, SeqCst);
            if prev != NIL {
                d[prev as usize].lru_next.store(idx, SeqCst);
            } else {
                self.head = idx;
            }
        }
        me.set(IN_LRU);
        self.len += 1;
    }

    /// Inserts a newly read page at the midpoint (head of the old sublist).
    pub fn insert_midpoint(&mut self, d: &[Descriptor], idx: u32) {
        if self.len < MIN_LEN_FOR_OLD {
            self.link_before(d, idx, self.head);
            d[idx as usize].clear(OLD);
        } else if self.midpoint == NIL {
            self.link_before(d, idx, NIL);
            d[idx as usize].set(OLD);
            self.old_len += 1;
            self.midpoint = idx;
        } else {
            // Behind the first old page, so the boundary page stays the boundary
            // (as InnoDB inserts after LRU_old).
            let after = d[self.midpoint as usize].lru_next.load(SeqCst);
            self.link_before(d, idx, after);
            d[idx as usize].set(OLD);
            self.old_len += 1;
        }
        self.rebalance(d);
    }

    /// Moves a page to the young end.
    pub fn make_young(&mut self, d: &[Descriptor], idx: u32) {
        if !d[idx as usize].has(IN_LRU) {
            return;
        }
        self.remove(d, idx);
        self.link_before(d, idx, self.head);
        d[idx as usize].clear(OLD);
        self.young_moves = self.young_moves.wrapping_add(1);
        d[idx as usize].young_stamp.store(self.young_moves, SeqCst);
        self.rebalance(d);
    }

    /// Unlinks a page.
    pub fn remove(&mut self, d: &[Descriptor], idx: u32) {
        let me = &d[idx as usize];
        if me.clear(IN_LRU) & IN_LRU == 0 {
            return;
        }
        let (prev, next) = (me.lru_prev.load(SeqCst), me.lru_next.load(SeqCst));
        if prev != NIL {
            d[prev as usize].lru_next.store(next, SeqCst);
        } else {
            self.head = next;
        }
        if next != NIL {
            d[next as usize].lru_prev.store(prev, SeqCst);
        } else {
            self.tail = prev;
        }
        if self.midpoint == idx {
            self.midpoint = next;
        }
        if me.clear(OLD) & OLD != 0 {
            self.old_len -= 1;
        }
        me.lru_prev.store(NIL, SeqCst);
        me.lru_next.store(NIL, SeqCst);
        self.len -= 1;
        self.rebalance(d);
    }

    /// Moves the midpoint until the old sublist is `old_pct` percent of the list,
    /// give or take a tolerance: without it every eviction followed by an
    /// insertion would flip a page at the boundary between young and old, and a
    /// scan would slowly push the hot set into the old sublist.
    fn rebalance(&mut self, d: &[Descriptor]) {
        let (target, tolerance) = if self.len < MIN_LEN_FOR_OLD {
            (0, 0)
        } else {
            let t = (self.len as u64 * self.old_pct as u64 / 100).max(1) as u32;
            (t, (self.len / 64).max(2).min(t / 2))
        };
        if self.old_len.abs_diff(target) <= tolerance {
            return;
        }
        while self.old_len > target {
            let m = self.midpoint;
            if m == NIL {
                break;
            }
            d[m as usize].clear(OLD);
            self.midpoint = d[m as usize].lru_next.load(SeqCst);
            self.old_len -= 1;
        }
        while self.old_len < target {
            let m = if self.midpoint == NIL {
                self.tail
            } else {
                d[self.midpoint as usize].lru_prev.load(SeqCst)
            };
            if m == NIL {
                break;
            }
            d[m as usize].set(OLD);
            self.midpoint = m;
            self.old_len += 1;
        }
    }

    /// Frame indices from the tail towards the head (at most `n`).
    pub fn from_tail(&self, d: &[Descriptor], n: usize) -> Vec<u32> {
        let mut v = Vec::with_capacity(n.min(self.len as usize));
        let mut i = self.tail;
        while i != NIL && v.len() < n {
            v.push(i);
            i = d[i as usize].lru_prev.load(SeqCst);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(l: &LruList, d: &[Descriptor]) -> Vec<u32> {
        let mut v = l.from_tail(d, 1000);
        v.reverse();
        v
    }

    #[test]
    fn midpoint_keeps_old_share_and_scans_stay_old() {
        let d: Vec<Descriptor> = (0..100).map(|_| Descriptor::default()).collect();
        let mut l = LruList::new(37);
        for i in 0..50 {
            l.insert_midpoint(&d, i);
        }
        // Make 0..10 hot.
        for i in 0..10 {
            l.make_young(&d, i);
        }
        assert_eq!(l.len(), 50);
        assert!(l.old_len().abs_diff(50 * 37 / 100) <= 2);
        // A "scan" of 40 new pages inserted at the midpoint.
        for i in 50..90 {
            l.insert_midpoint(&d, i);
        }
        let o = order(&l, &d);
        let young: Vec<u32> = o[..(l.len() - l.old_len()) as usize].to_vec();
        for hot in 0..10 {
            assert!(young.contains(&hot), "hot page {hot} must stay young");
        }
        let old_count = d.iter().filter(|x| x.has(OLD)).count() as u32;
        assert_eq!(old_count, l.old_len());
        for i in 0..90 {
            l.remove(&d, i);
        }
        assert!(l.is_empty());
        assert_eq!(l.old_len(), 0);
    }
}
