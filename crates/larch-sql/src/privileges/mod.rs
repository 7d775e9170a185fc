//! Accounts, grants and privilege checks, as MariaDB 10.11 has them.
//!
//! - [`bits`]: privilege sets and their names;
//! - [`host`]: host patterns and the order logins pick accounts in;
//! - [`acl`]: the accounts and grants as data, their encoding;
//! - [`options`]: an account's `REQUIRE` clause and resource limits;
//! - [`store`]: the shared, persisted copy ([`Acl`], one per `Database`);
//! - [`check`]: what a statement needs and the errors when it is missing;
//! - [`info`]: the INFORMATION_SCHEMA privilege tables;
//! - `routines`: what stored routine statements need.
//!
//! The statements that change accounts are run by `exec::account`.
//!
//! Each session runs as one account ([`SessionAccount`], the account its
//! login matched) and caches that account's resolved privileges, tagged
//! with the [`Acl`] version; any change to accounts or grants, and FLUSH
//! PRIVILEGES, bumps the version, so the next statement of every session
//! resolves again. An account dropped while its sessions live leaves them
//! with no privileges.

pub mod acl;
pub mod bits;
pub mod check;
pub mod host;
pub mod info;
pub mod options;
pub(crate) mod routines;
mod store;

use std::sync::Arc;

pub use acl::{AclData, Resolved};
pub use bits::Privs;
pub use store::Acl;

use sha1::{Digest, Sha1};

/// The account a session runs as, with its cached privileges.
#[derive(Debug, Clone)]
pub struct SessionAccount {
    pub user: String,
    /// The account's host pattern (`CURRENT_USER()` shows it).
    pub host: String,
    cached: Option<(u64, Arc<Resolved>)>,
}

impl SessionAccount {
    pub fn new(user: &str, host: &str) -> SessionAccount {
        SessionAccount {
            user: user.to_string(),
            host: host.to_string(),
            cached: None,
        }
    }

    /// The account's privileges, resolved again only when `acl` changed.
    pub fn privileges(&mut self, acl: &Acl) -> Arc<Resolved> {
        let version = acl.version();
        match &self.cached {
            Some((v, r)) if *v == version => r.clone(),
            _ => {
                let r = Arc::new(acl.snapshot().resolve(&self.user, &self.host));
                self.cached = Some((version, r.clone()));
                r
            }
        }
    }

    /// Like [`Self::privileges`] without updating the cache (for callers
    /// holding a shared session).
    pub fn privileges_ref(&self, acl: &Acl) -> Arc<Resolved> {
        match &self.cached {
            Some((v, r)) if *v == acl.version() => r.clone(),
            _ => Arc::new(acl.snapshot().resolve(&self.user, &self.host)),
        }
    }

    /// True when the account has every global privilege (the fast path:
    /// one atomic load and a compare while the cache is current).
    pub fn is_all(&mut self, acl: &Acl) -> bool {
        match &self.cached {
            Some((v, r)) if *v == acl.version() => r.global == Privs::ALL,
            _ => self.privileges(acl).global == Privs::ALL,
        }
    }
}

/// Databases every account may read (their contents are filtered instead).
pub fn is_system_db(db: &str) -> bool {
    db.eq_ignore_ascii_case("information_schema") || db.eq_ignore_ascii_case("performance_schema")
}

/// MySQL's native password hash, `PASSWORD('x')`: `*` and the 40 upper-case
/// hex digits of `SHA1(SHA1(x))`; the empty password hashes to `''`.
pub fn native_hash(password: &[u8]) -> String {
    if password.is_empty() {
        return String::new();
    }
    let stage2 = Sha1::digest(Sha1::digest(password));
    let mut out = String::with_capacity(41);
    out.push('*');
    for b in stage2 {
        out.push_str(&format!("{b:02X}"));
    }
    out
}

/// True when `s` has the form of a native hash (`*` and 40 hex digits).
pub fn is_native_hash(s: &str) -> bool {
    s.len() == 41 && s.starts_with('*') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    #[test]
    fn native_hash_matches_mysql() {
        assert_eq!(
            super::native_hash(b"password"),
            "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
        );
        assert_eq!(super::native_hash(b""), "");
        assert!(super::is_native_hash(
            "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
        ));
    }
}
