//! The rows of INFORMATION_SCHEMA.USER_PRIVILEGES, SCHEMA_PRIVILEGES and
//! TABLE_PRIVILEGES, built from the accounts and grants.
//!
//! As in MariaDB, an account sees its own rows, and every account's rows
//! with the global SELECT privilege. GRANTEE is `'user'@'host'`, one row per
//! privilege (in SHOW GRANTS order), IS_GRANTABLE `YES` with the grant
//! option; an account without global privileges has one `USAGE` row.

use larch_engine::record::value::Value;

use super::bits::{Privs, NAMES};
use crate::session::Session;

/// Which table to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Schema,
    Table,
}

/// The rows of the table of `kind` for the session's account.
pub fn rows(s: &Session, kind: Kind) -> Vec<Vec<Value>> {
    let acl = s.db.acl.snapshot();
    let privs = s.account.privileges_ref(&s.db.acl);
    let all = privs.global.contains(Privs::SELECT);
    let me = |u: &str, h: &str| all || (u == s.account.user && h == s.account.host);
    let text = |v: &str| Value::Str(v.to_string());
    let mut out = Vec::new();
    let mut push = |grantee: String, scope: &[&str], p: Privs| {
        let grantable = if p.contains(Privs::GRANT) {
            "YES"
        } else {
            "NO"
        };
        let mut names: Vec<&str> = NAMES
            .iter()
            .enumerate()
            .filter(|(bit, n)| p.0 & (1 << bit) != 0 && **n != "GRANT")
            .map(|(_, n)| *n)
            .collect();
        if names.is_empty() && kind == Kind::User {
            names.push("USAGE");
        }
        for n in names {
            let mut row = vec![text(&grantee), text("def")];
            row.extend(scope.iter().map(|v| text(v)));
            row.push(text(n));
            row.push(text(grantable));
            out.push(row);
        }
    };
    let grantee = |u: &str, h: &str| format!("'{u}'@'{h}'");
    match kind {
        Kind::User => {
            for a in acl.accounts.iter().filter(|a| me(&a.user, &a.host)) {
                push(grantee(&a.user, &a.host), &[], a.global);
            }
        }
        Kind::Schema => {
            for g in acl.dbs.iter().filter(|g| me(&g.user, &g.host)) {
                push(grantee(&g.user, &g.host), &[&g.db], g.privs);
            }
        }
        Kind::Table => {
            for g in acl.tables.iter().filter(|g| me(&g.user, &g.host)) {
                push(grantee(&g.user, &g.host), &[&g.db, &g.table], g.privs);
            }
        }
    }
    out
}
