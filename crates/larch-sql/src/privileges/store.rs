//! [`Acl`]: the server's accounts and grants in memory, persisted in the
//! catalog's `acl` system object, with a version counter sessions use to
//! know when their cached privileges are stale.
//!
//! Readers take an `Arc` snapshot ([`Acl::snapshot`]); a change
//! ([`Acl::update`]) copies the data, applies the change, writes the whole
//! encoded data as one durable dictionary change (so a crash keeps either
//! the old or the new accounts), then publishes the copy and bumps the
//! version. Changes are serialised by a mutex. A data directory without the
//! object (created before accounts existed) gets [`AclData::initial`]: the
//! built-in `root@localhost`; nothing is written until the first change.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use larch_engine::catalog::Catalog;
use parking_lot::{Mutex, RwLock};

use super::acl::AclData;
use crate::error::SqlError;

/// Name of the system object that holds the encoded [`AclData`].
const OBJECT: &str = "acl";

/// See the module documentation.
#[derive(Debug)]
pub struct Acl {
    data: RwLock<Arc<AclData>>,
    version: AtomicU64,
    write: Mutex<()>,
}

impl Acl {
    /// Loads the accounts of `catalog` (the built-in root if none are stored).
    pub fn load(catalog: &Catalog) -> Result<Acl, SqlError> {
        let data = match catalog.system_object(OBJECT) {
            Some(bytes) => AclData::decode(&bytes)?,
            None => AclData::initial(),
        };
        Ok(Acl {
            data: RwLock::new(Arc::new(data)),
            version: AtomicU64::new(1),
            write: Mutex::new(()),
        })
    }

    /// The current accounts and grants.
    pub fn snapshot(&self) -> Arc<AclData> {
        self.data.read().clone()
    }

    /// Changes whenever accounts or grants change (or FLUSH PRIVILEGES).
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Applies `change` to a copy, stores it durably, then publishes it. An
    /// error from `change` or from storing leaves everything as it was.
    pub fn update<T>(
        &self,
        catalog: &Catalog,
        change: impl FnOnce(&mut AclData) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        let _w = self.write.lock();
        let mut copy = (*self.snapshot()).clone();
        let out = change(&mut copy)?;
        catalog.set_system_object(OBJECT, &copy.encode())?;
        *self.data.write() = Arc::new(copy);
        self.version.fetch_add(1, Ordering::AcqRel);
        Ok(out)
    }

    /// FLUSH PRIVILEGES: rereads the stored accounts and invalidates every
    /// session's cached privileges.
    pub fn reload(&self, catalog: &Catalog) -> Result<(), SqlError> {
        let _w = self.write.lock();
        if let Some(bytes) = catalog.system_object(OBJECT) {
            *self.data.write() = Arc::new(AclData::decode(&bytes)?);
        }
        self.version.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}
