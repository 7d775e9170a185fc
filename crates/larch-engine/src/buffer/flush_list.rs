//! [`FlushList`]: dirty frames ordered by oldest modification LSN.
//!
//! The tail holds the page whose first unflushed change is oldest; the checkpoint
//! can advance to the tail's `oldest_modification`. Mini-transactions commit in
//! nearly LSN order, so insertion walks at most a few steps from the head.
//! Every method runs under the flush-list mutex.

use std::sync::atomic::Ordering::SeqCst;

use super::descriptor::{Descriptor, IN_FLUSH_LIST, NIL};

/// See the module documentation.
pub struct FlushList {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for FlushList {
    fn default() -> Self {
        Self {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

impl FlushList {
    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Inserts a frame whose `oldest_modification` is already set.
    pub fn insert(&mut self, d: &[Descriptor], idx: u32) {
        let me = &d[idx as usize];
        if me.set(IN_FLUSH_LIST) & IN_FLUSH_LIST != 0 {
            return;
        }
        let lsn = me.oldest_modification.load(SeqCst);
        // Find the first frame (from the head) whose oldest modification is <= ours.
        let mut after_prev = NIL; // the frame that will precede us
        let mut cur = self.head;
        while cur != NIL && d[cur as usize].oldest_modification.load(SeqCst) > lsn {
            after_prev = cur;
            cur = d[cur as usize].flush_next.load(SeqCst);
        }
        me.flush_prev.store(after_prev, SeqCst);
        me.flush_next.store(cur, SeqCst);
        if after_prev == NIL {
            self.head = idx;
        } else {
            d[after_prev as usize].flush_next.store(idx, SeqCst);
        }
        if cur == NIL {
            self.tail = idx;
        } else {
            d[cur as usize].flush_prev.store(idx, SeqCst);
        }
        self.len += 1;
    }

    pub fn remove(&mut self, d: &[Descriptor], idx: u32) {
        let me = &d[idx as usize];
        if me.clear(IN_FLUSH_LIST) & IN_FLUSH_LIST == 0 {
            return;
        }
        let (prev, next) = (me.flush_prev.load(SeqCst), me.flush_next.load(SeqCst));
        if prev == NIL {
            self.head = next;
        } else {
            d[prev as usize].flush_next.store(next, SeqCst);
        }
        if next == NIL {
            self.tail = prev;
        } else {
            d[next as usize].flush_prev.store(prev, SeqCst);
        }
        me.flush_prev.store(NIL, SeqCst);
        me.flush_next.store(NIL, SeqCst);
        self.len -= 1;
    }

    /// Oldest modification LSN on the list.
    pub fn oldest_lsn(&self, d: &[Descriptor]) -> Option<u64> {
        (self.tail != NIL).then(|| d[self.tail as usize].oldest_modification.load(SeqCst))
    }

    /// Up to `n` frames from the oldest end.
    pub fn oldest(&self, d: &[Descriptor], n: usize) -> Vec<u32> {
        let mut v = Vec::with_capacity(n.min(self.len as usize));
        let mut i = self.tail;
        while i != NIL && v.len() < n {
            v.push(i);
            i = d[i as usize].flush_prev.load(SeqCst);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_by_oldest_modification() {
        let d: Vec<Descriptor> = (0..6).map(|_| Descriptor::default()).collect();
        let mut f = FlushList::default();
        for (i, lsn) in [(0u32, 100u64), (1, 300), (2, 200), (3, 400), (4, 50)] {
            d[i as usize].oldest_modification.store(lsn, SeqCst);
            f.insert(&d, i);
        }
        assert_eq!(f.oldest(&d, 10), vec![4, 0, 2, 1, 3]);
        assert_eq!(f.oldest_lsn(&d), Some(50));
        f.remove(&d, 4);
        f.remove(&d, 2);
        assert_eq!(f.oldest(&d, 10), vec![0, 1, 3]);
        assert_eq!(f.len(), 3);
    }
}
