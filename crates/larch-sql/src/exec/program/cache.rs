//! Parsed stored programs, cached under their dictionary bytes: a program
//! is parsed from its stored text when it first runs and the parse is kept
//! under `(schema, name, definition bytes)`, so a replaced program (new
//! bytes) is parsed afresh and a cached parse is never stale. Each kind of
//! program has its own [`ParseCache`]; a full cache is emptied before the
//! next insertion.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::SqlError;

/// Most parsed programs one cache keeps.
const CACHE_ENTRIES: usize = 1024;

type CacheKey = (String, String, Vec<u8>);

/// Parsed programs of one kind.
pub(crate) struct ParseCache<T> {
    parsed: Mutex<Option<HashMap<CacheKey, Arc<T>>>>,
}

impl<T> ParseCache<T> {
    pub(crate) const fn new() -> ParseCache<T> {
        ParseCache {
            parsed: Mutex::new(None),
        }
    }

    /// The parse of program `schema.name` whose dictionary bytes are
    /// `definition`: the cached one, or `parse()`'s, then cached.
    pub(crate) fn get_or_parse(
        &self,
        schema: &str,
        name: &str,
        definition: &[u8],
        parse: impl FnOnce() -> Result<T, SqlError>,
    ) -> Result<Arc<T>, SqlError> {
        let key = (schema.to_string(), name.to_string(), definition.to_vec());
        if let Some(p) = self.parsed.lock().as_ref().and_then(|m| m.get(&key)) {
            return Ok(p.clone());
        }
        let parsed = Arc::new(parse()?);
        let mut guard = self.parsed.lock();
        let cache = guard.get_or_insert_with(HashMap::new);
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, parsed.clone());
        Ok(parsed)
    }
}
