//! System objects: named byte strings kept in the dictionary table for the
//! layers above the engine (the SQL layer keeps its accounts and grants in
//! one, `acl`).
//!
//! Each object is ONE dictionary row of kind 16 (`schema_name` empty, `name`
//! the object's name, `definition` empty, `sql_meta` the bytes), so writing an
//! object is a single B+tree change in a single mini-transaction, made
//! durable before [`Catalog::set_system_object`] returns: after a crash the
//! object holds either its old or its new bytes, never a mix. Objects are
//! cached in memory with the rest of the dictionary; reads never touch pages.

use super::{Catalog, KIND_SYSTEM};
use crate::error::Result;

impl Catalog {
    /// The bytes of the system object `name` (`None`: never written).
    pub fn system_object(&self, name: &str) -> Option<Vec<u8>> {
        self.cache
            .read()
            .system
            .get(name)
            .map(|(_, bytes)| bytes.clone())
    }

    /// Creates or replaces the system object `name` (one atomic, durable
    /// dictionary change).
    pub fn set_system_object(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let _ddl = self.ddl.lock();
        let existing = self.cache.read().system.get(name).map(|(id, _)| *id);
        let id = match existing {
            Some(id) => {
                let row = Self::row(id, KIND_SYSTEM, "", name, Vec::new(), bytes);
                self.write_row(&row, true)?;
                id
            }
            None => {
                let id = self.cache.read().next_id;
                let row = Self::row(id, KIND_SYSTEM, "", name, Vec::new(), bytes);
                self.write_row(&row, false)?;
                id
            }
        };
        let mut c = self.cache.write();
        c.next_id = c.next_id.max(id + 1);
        c.system.insert(name.to_string(), (id, bytes.to_vec()));
        Ok(())
    }
}
