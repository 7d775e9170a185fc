//! A bounded LRU cache of parsed statements keyed by the exact query text, for
//! the text protocol (prepared statements parse once anyway). Parsing a point
//! select costs several microseconds; a hit costs a hash of the text and a
//! short lock.
//!
//! Invariants: at most `capacity` entries; texts longer than
//! [`MAX_CACHED_TEXT`] bytes and texts that fail to parse are never cached (the
//! error is returned each time); every entry sits in the recency list exactly
//! once, most recent at the head. Parsing happens outside the lock. The key is
//! the text alone: nothing in the session changes how a text parses today
//! (`ANSI_QUOTES` and similar sql_mode flags are not supported).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::{parse_with_text, Statement};
use crate::error::SqlError;

/// Longest query text the cache keeps, in bytes.
pub const MAX_CACHED_TEXT: usize = 4096;

const NIL: usize = usize::MAX;

struct Node {
    key: Arc<str>,
    value: Arc<[Arc<Statement>]>,
    prev: usize,
    next: usize,
}

struct Lru {
    map: HashMap<Arc<str>, usize>,
    nodes: Vec<Node>,
    head: usize,
    tail: usize,
    capacity: usize,
    hits: u64,
    misses: u64,
}

impl Lru {
    fn unlink(&mut self, i: usize) {
        let (prev, next) = (self.nodes[i].prev, self.nodes[i].next);
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next].prev = prev;
        }
    }

    fn push_front(&mut self, i: usize) {
        self.nodes[i].prev = NIL;
        self.nodes[i].next = self.head;
        if self.head != NIL {
            self.nodes[self.head].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    fn get(&mut self, key: &str) -> Option<Arc<[Arc<Statement>]>> {
        let i = *self.map.get(key)?;
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
        Some(self.nodes[i].value.clone())
    }

    fn insert(&mut self, key: &str, value: Arc<[Arc<Statement>]>) {
        if self.map.contains_key(key) {
            return;
        }
        let key: Arc<str> = Arc::from(key);
        let i = if self.nodes.len() < self.capacity {
            self.nodes.push(Node {
                key: key.clone(),
                value,
                prev: NIL,
                next: NIL,
            });
            self.nodes.len() - 1
        } else {
            // Reuse the least recently used slot.
            let i = self.tail;
            self.unlink(i);
            let old = std::mem::replace(&mut self.nodes[i].key, key.clone());
            self.map.remove(&old);
            self.nodes[i].value = value;
            i
        };
        self.map.insert(key, i);
        self.push_front(i);
    }
}

/// Cache statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    pub entries: usize,
    pub hits: u64,
    pub misses: u64,
}

/// A thread-safe LRU cache of parse results (see the module docs).
pub struct StatementCache {
    inner: Mutex<Lru>,
}

impl std::fmt::Debug for StatementCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatementCache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl StatementCache {
    /// A cache of at most `capacity` texts (at least 1).
    pub fn new(capacity: usize) -> StatementCache {
        let capacity = capacity.max(1);
        StatementCache {
            inner: Mutex::new(Lru {
                map: HashMap::with_capacity(capacity),
                nodes: Vec::with_capacity(capacity.min(1 << 16)),
                head: NIL,
                tail: NIL,
                capacity,
                hits: 0,
                misses: 0,
            }),
        }
    }

    /// The statements of `sql`, from the cache or freshly parsed.
    pub fn parse(&self, sql: &str) -> Result<Arc<[Arc<Statement>]>, SqlError> {
        {
            let mut lru = self.inner.lock();
            if let Some(v) = lru.get(sql) {
                lru.hits += 1;
                return Ok(v);
            }
            lru.misses += 1;
        }
        let parsed: Arc<[Arc<Statement>]> = parse_with_text(sql)?
            .into_iter()
            .map(|p| p.statement)
            .collect();
        if sql.len() <= MAX_CACHED_TEXT {
            self.inner.lock().insert(sql, parsed.clone());
        }
        Ok(parsed)
    }

    /// Entry count and hit/miss counters.
    pub fn stats(&self) -> CacheStats {
        let lru = self.inner.lock();
        CacheStats {
            entries: lru.map.len(),
            hits: lru.hits,
            misses: lru.misses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_return_the_same_parse_and_lru_evicts_the_oldest() -> Result<(), SqlError> {
        let cache = StatementCache::new(2);
        let a1 = cache.parse("SELECT 1")?;
        let a2 = cache.parse("SELECT 1")?;
        assert!(Arc::ptr_eq(&a1, &a2));
        cache.parse("SELECT 2")?;
        cache.parse("SELECT 1")?; // 1 is now the most recent
        cache.parse("SELECT 3")?; // evicts 2
        assert_eq!(cache.stats().entries, 2);
        let before = cache.stats().misses;
        cache.parse("SELECT 1")?;
        assert_eq!(cache.stats().misses, before, "SELECT 1 stayed cached");
        cache.parse("SELECT 2")?;
        assert_eq!(cache.stats().misses, before + 1, "SELECT 2 was evicted");
        assert_eq!(cache.stats().entries, 2);
        Ok(())
    }

    #[test]
    fn errors_and_long_texts_are_not_cached() {
        let cache = StatementCache::new(8);
        assert!(cache.parse("SELEC 1").is_err());
        assert!(cache.parse("SELEC 1").is_err());
        let long = format!("SELECT '{}'", "x".repeat(MAX_CACHED_TEXT));
        assert!(cache.parse(&long).is_ok());
        assert_eq!(cache.stats().entries, 0);
    }
}
