//! [`AclData`]: every account and grant, as plain data, with the lookups the
//! server needs (the account a login uses, the privileges of an account) and
//! its byte encoding (the `acl` system object; layout in `docs/accounts.md`).
//!
//! Invariants: accounts are unique by (user, host) and kept in login order
//! ([`super::host::sort_key`]); a database or table grant row exists only
//! with a non-empty privilege set and only for an existing account; names
//! of users and databases compare exactly, host names case-insensitively
//! (they are stored lower-cased).

use std::collections::HashMap;

use super::bits::Privs;
use super::host;
use super::options::{AccountLimits, AccountOptions, TlsRequirement};
use crate::error::SqlError;

/// Encoding version of [`AclData::encode`]; versions 1 (no account
/// options) and 2 (no `MAX_STATEMENT_TIME`) are still read.
const FORMAT_VERSION: u8 = 3;

/// Name of the native password plugin.
pub const NATIVE: &str = "mysql_native_password";

/// One account (a row of `mysql.user`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    pub host: String,
    /// Authentication plugin.
    pub plugin: String,
    /// The plugin's stored secret: `*` and 40 hex digits for the native
    /// plugin, a `$A$...` crypt string for caching_sha2; empty: no password.
    pub auth: String,
    /// Global privileges (with `GRANT` for WITH GRANT OPTION).
    pub global: Privs,
    /// `REQUIRE` and the resource limits.
    pub options: AccountOptions,
}

/// A grant on a database (or a database name pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub privs: Privs,
}

/// A grant on one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub table: String,
    pub privs: Privs,
}

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclData {
    pub accounts: Vec<Account>,
    pub dbs: Vec<DbGrant>,
    pub tables: Vec<TableGrant>,
}

/// The privileges of one account, resolved for fast checks.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    pub global: Privs,
    /// Database grants without wildcards, by name.
    pub dbs: HashMap<String, Privs>,
    /// Database grants whose name has `%` or `_` wildcards.
    pub db_patterns: Vec<(String, Privs)>,
    /// Table grants by (database, table).
    pub tables: HashMap<(String, String), Privs>,
}

impl Resolved {
    /// Privileges on database `db` (global and database level).
    pub fn on_db(&self, db: &str) -> Privs {
        let mut p = self.global;
        if let Some(d) = self.dbs.get(db) {
            p = p.union(*d);
        }
        for (pattern, privs) in &self.db_patterns {
            if db_like(pattern, db) {
                p = p.union(*privs);
            }
        }
        p
    }

    /// Privileges on table `db.table` (every level).
    pub fn on_table(&self, db: &str, table: &str) -> Privs {
        let p = self.on_db(db);
        match self.tables.get(&(db.to_string(), table.to_string())) {
            Some(t) => p.union(*t),
            None => p,
        }
    }

    /// True when the account has some privilege on `db` or a table in it
    /// (what SHOW DATABASES and USE need).
    pub fn sees_db(&self, db: &str) -> bool {
        !self.on_db(db).minus(Privs::GRANT).is_empty()
            || self.global.contains(Privs::SHOW_DB)
            || self
                .tables
                .iter()
                .any(|((d, _), p)| d == db && !p.minus(Privs::GRANT).is_empty())
    }
}

/// `%`/`_` matching of a database name pattern, with `\` escaping.
pub fn db_like(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some(('%', rest)) => (0..=s.len()).any(|i| go(rest, &s[i..])),
            Some(('_', rest)) => !s.is_empty() && go(rest, &s[1..]),
            Some(('\\', rest)) if !rest.is_empty() => {
                s.first() == Some(&rest[0]) && go(&rest[1..], &s[1..])
            }
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    go(&p, &s)
}

/// True when a database name in a grant is a pattern (unescaped `%`/`_`).
pub fn has_wildcards(db: &str) -> bool {
    let mut escaped = false;
    for c in db.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '%' | '_' if !escaped => return true,
            _ => escaped = false,
        }
    }
    false
}

impl AclData {
    /// A new data directory's accounts: `root@localhost` with every
    /// privilege and no password (loopback TCP clients match `localhost`).
    pub fn initial() -> AclData {
        AclData {
            accounts: vec![Account {
                user: "root".into(),
                host: "localhost".into(),
                plugin: NATIVE.into(),
                auth: String::new(),
                global: Privs::ALL,
                options: AccountOptions::default(),
            }],
            dbs: Vec::new(),
            tables: Vec::new(),
        }
    }

    /// The account a login of `user` from client host `client` uses.
    pub fn login(&self, user: &str, client: &str) -> Option<&Account> {
        self.accounts
            .iter()
            .find(|a| (a.user == user || a.user.is_empty()) && host::matches(&a.host, client))
    }

    /// The account `user@host` exactly (host compared case-insensitively).
    pub fn account(&self, user: &str, host: &str) -> Option<&Account> {
        self.position(user, host).map(|i| &self.accounts[i])
    }

    pub fn position(&self, user: &str, host: &str) -> Option<usize> {
        self.accounts
            .iter()
            .position(|a| a.user == user && a.host.eq_ignore_ascii_case(host))
    }

    /// Adds an account at its place in login order.
    pub fn insert_account(&mut self, account: Account) {
        let key = host::sort_key(&account.user, &account.host);
        let at = self
            .accounts
            .iter()
            .position(|a| host::sort_key(&a.user, &a.host) > key)
            .unwrap_or(self.accounts.len());
        self.accounts.insert(at, account);
    }

    /// Removes an account and every grant it has; false if it did not exist.
    pub fn remove_account(&mut self, user: &str, host: &str) -> bool {
        let Some(i) = self.position(user, host) else {
            return false;
        };
        self.accounts.remove(i);
        let other = |u: &str, h: &str| !(u == user && h.eq_ignore_ascii_case(host));
        self.dbs.retain(|g| other(&g.user, &g.host));
        self.tables.retain(|g| other(&g.user, &g.host));
        true
    }

    /// The privileges of the account `user@host` (empty if it is gone).
    pub fn resolve(&self, user: &str, host: &str) -> Resolved {
        let mine = |u: &str, h: &str| u == user && h.eq_ignore_ascii_case(host);
        let mut r = Resolved {
            global: self.account(user, host).map_or(Privs::NONE, |a| a.global),
            ..Resolved::default()
        };
        for g in self.dbs.iter().filter(|g| mine(&g.user, &g.host)) {
            if has_wildcards(&g.db) {
                r.db_patterns.push((g.db.clone(), g.privs));
            } else {
                let e = r.dbs.entry(g.db.replace('\\', "")).or_default();
                *e = e.union(g.privs);
            }
        }
        for g in self.tables.iter().filter(|g| mine(&g.user, &g.host)) {
            let e = r.tables.entry((g.db.clone(), g.table.clone())).or_default();
            *e = e.union(g.privs);
        }
        r
    }

    /// The encoded form (see `docs/accounts.md`).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![FORMAT_VERSION];
        let len = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u32).to_le_bytes());
        let put = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        len(&mut out, self.accounts.len());
        for a in &self.accounts {
            for s in [&a.user, &a.host, &a.plugin, &a.auth] {
                put(&mut out, s);
            }
            out.extend_from_slice(&a.global.0.to_le_bytes());
            encode_options(&mut out, &a.options);
        }
        len(&mut out, self.dbs.len());
        for g in &self.dbs {
            for s in [&g.user, &g.host, &g.db] {
                put(&mut out, s);
            }
            out.extend_from_slice(&g.privs.0.to_le_bytes());
        }
        len(&mut out, self.tables.len());
        for g in &self.tables {
            for s in [&g.user, &g.host, &g.db, &g.table] {
                put(&mut out, s);
            }
            out.extend_from_slice(&g.privs.0.to_le_bytes());
        }
        out
    }

    /// Decodes [`AclData::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Result<AclData, SqlError> {
        let mut r = Reader { bytes, at: 0 };
        let version = r.take(1)?[0];
        if !(1..=FORMAT_VERSION).contains(&version) {
            return Err(corrupt(&format!("unknown format version {version}")));
        }
        let mut acl = AclData::default();
        for _ in 0..r.u32()? {
            let mut account = Account {
                user: r.str()?,
                host: r.str()?,
                plugin: r.str()?,
                auth: r.str()?,
                global: Privs(r.u64()?),
                options: AccountOptions::default(),
            };
            if version >= 2 {
                account.options = decode_options(&mut r, version)?;
            }
            acl.accounts.push(account);
        }
        for _ in 0..r.u32()? {
            acl.dbs.push(DbGrant {
                user: r.str()?,
                host: r.str()?,
                db: r.str()?,
                privs: Privs(r.u64()?),
            });
        }
        for _ in 0..r.u32()? {
            acl.tables.push(TableGrant {
                user: r.str()?,
                host: r.str()?,
                db: r.str()?,
                table: r.str()?,
                privs: Privs(r.u64()?),
            });
        }
        if r.at != bytes.len() {
            return Err(corrupt("trailing bytes"));
        }
        Ok(acl)
    }
}

/// An account's options (version 2): `u8` TLS tag, then for tag 3 the
/// issuer, subject and cipher strings, then the four limits as `u32`
/// (the last one signed); version 3 adds `MAX_STATEMENT_TIME` as a `u64`
/// of microseconds.
fn encode_options(out: &mut Vec<u8>, o: &AccountOptions) {
    out.push(o.tls.tag());
    if let TlsRequirement::Specified {
        issuer,
        subject,
        cipher,
    } = &o.tls
    {
        for s in [issuer, subject, cipher] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    let l = &o.limits;
    for n in [
        l.queries_per_hour,
        l.updates_per_hour,
        l.connections_per_hour,
        l.user_connections as u32,
    ] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(&l.statement_time_us.to_le_bytes());
}

fn decode_options(r: &mut Reader<'_>, version: u8) -> Result<AccountOptions, SqlError> {
    let tls = match r.take(1)?[0] {
        0 => TlsRequirement::None,
        1 => TlsRequirement::Ssl,
        2 => TlsRequirement::X509,
        3 => TlsRequirement::Specified {
            issuer: r.str()?,
            subject: r.str()?,
            cipher: r.str()?,
        },
        other => return Err(corrupt(&format!("unknown TLS requirement {other}"))),
    };
    let limits = AccountLimits {
        queries_per_hour: r.u32()?,
        updates_per_hour: r.u32()?,
        connections_per_hour: r.u32()?,
        user_connections: r.u32()? as i32,
        statement_time_us: if version >= 3 { r.u64()? } else { 0 },
    };
    Ok(AccountOptions { tls, limits })
}

fn corrupt(what: &str) -> SqlError {
    SqlError::new(1105, format!("The stored accounts are damaged: {what}"))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], SqlError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or_else(|| corrupt("truncated"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, SqlError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, SqlError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }

    fn str(&mut self) -> Result<String, SqlError> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| corrupt("a name is not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_login_order() -> Result<(), SqlError> {
        let mut acl = AclData::initial();
        for h in ["%", "10.%", "localhost"] {
            acl.insert_account(Account {
                user: "u".into(),
                host: h.into(),
                plugin: NATIVE.into(),
                auth: String::new(),
                global: Privs::NONE,
                options: AccountOptions {
                    tls: TlsRequirement::Specified {
                        issuer: "/CN=ca".into(),
                        subject: String::new(),
                        cipher: "X".into(),
                    },
                    limits: AccountLimits {
                        user_connections: -1,
                        queries_per_hour: 3,
                        ..AccountLimits::default()
                    },
                },
            });
        }
        acl.dbs.push(DbGrant {
            user: "u".into(),
            host: "%".into(),
            db: "d\\_%".into(),
            privs: Privs::SELECT,
        });
        assert_eq!(AclData::decode(&acl.encode())?, acl);
        assert_eq!(
            acl.login("u", "10.0.0.1").map(|a| a.host.as_str()),
            Some("10.%")
        );
        assert_eq!(
            acl.login("u", "127.0.0.1").map(|a| a.host.as_str()),
            Some("localhost")
        );
        assert_eq!(
            acl.login("u", "9.9.9.9").map(|a| a.host.as_str()),
            Some("%")
        );
        let r = acl.resolve("u", "%");
        assert!(r.on_db("d_x").contains(Privs::SELECT));
        assert!(!r.on_db("dx").contains(Privs::SELECT));
        assert!(AclData::decode(&[1, 9]).is_err());
        Ok(())
    }
}
