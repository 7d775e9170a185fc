//! GRANT, REVOKE and SHOW GRANTS at the global (`*.*`), database (`db.*`)
//! and table (`db.t`) levels; column-level grants are not supported (the
//! parser refuses a column list with 1064).
//!
//! Rules (MariaDB's): the grantor needs the grant option and every privilege
//! it grants at that level (1045 for `*.*`, 1044 for a database, 1142 for a
//! table); a privilege that does not exist at the level is 1221 (database)
//! or 1144 (table); a grant to a missing account creates it only with an
//! `IDENTIFIED` clause when `sql_mode` has `NO_AUTO_CREATE_USER` (the
//! default; error 1133 otherwise), and needs the CREATE USER privilege (1410); a table grant needs the table to exist
//! (1146). REVOKE of a grant that does not exist is 1141 (1147 for tables).
//!
//! SHOW GRANTS prints MariaDB's lines: the global one first (`GRANT USAGE
//! ON *.* TO ``u``@``h`` IDENTIFIED BY PASSWORD '*...'`), then database
//! grants, then table grants, each with `WITH GRANT OPTION` when it has it.

use larch_engine::record::value::Value;

use super::account::{apply_options, credential, name_or_current};
use crate::error::SqlError;
use crate::parse::account::{AccountStatement, OptionsSpec, PrivLevel, UserName, UserSpec};
use crate::privileges::acl::{Account, AclData, DbGrant, TableGrant, NATIVE};
use crate::privileges::check::Checker;
use crate::privileges::options::AccountOptions;
use crate::privileges::Privs;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// A level with the current database filled in.
enum Level {
    Global,
    Db(String),
    Table(String, String),
}

impl Level {
    fn all(&self) -> Privs {
        match self {
            Level::Global => Privs::ALL,
            Level::Db(_) => Privs::DB_LEVEL,
            Level::Table(..) => Privs::TABLE_LEVEL,
        }
    }
}

fn level(s: &Session, l: &PrivLevel) -> Result<Level, SqlError> {
    let current = || s.current_db.clone().ok_or_else(SqlError::no_database);
    Ok(match l {
        PrivLevel::Global => Level::Global,
        PrivLevel::Db(db) => Level::Db(match db {
            Some(d) => d.clone(),
            None => current()?,
        }),
        PrivLevel::Table(db, t) => Level::Table(
            match db {
                Some(d) => d.clone(),
                None => current()?,
            },
            t.clone(),
        ),
    })
}

/// The privileges a list means at a level (ALL: every privilege of it but
/// the grant option), or 1221/1144 for one the level does not have.
fn privs_at(privs: Option<Privs>, level: &Level) -> Result<Privs, SqlError> {
    let all = level.all();
    let p = privs.unwrap_or(all.minus(Privs::GRANT));
    if all.contains(p) {
        return Ok(p);
    }
    Err(match level {
        Level::Table(..) => SqlError::new(
            1144,
            "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used",
        ),
        _ => SqlError::new(1221, "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES"),
    })
}

/// The grantor must hold `p` and the grant option at `level`.
fn may_grant(s: &mut Session, level: &Level, p: Privs) -> Result<(), SqlError> {
    let c = Checker::of(s);
    let need = p.union(Privs::GRANT);
    match level {
        Level::Global if !c.privs.global.contains(need) => {
            let acl = s.db.acl.snapshot();
            let pw = acl
                .account(&c.user, &c.account_host)
                .is_some_and(|a| !a.auth.is_empty());
            Err(SqlError::new(
                1045,
                format!(
                    "Access denied for user '{}'@'{}' (using password: {})",
                    c.user,
                    c.client_host,
                    if pw { "YES" } else { "NO" }
                ),
            ))
        }
        Level::Db(db) if !c.privs.on_db(db).contains(need) => Err(c.db_denied(db)),
        Level::Table(db, t) if !c.privs.on_table(db, t).contains(need) => {
            Err(c.table_denied("GRANT", db, t))
        }
        _ => Ok(()),
    }
}

pub(crate) fn execute(s: &mut Session, a: &AccountStatement) -> Result<QueryResult, SqlError> {
    match a {
        AccountStatement::Grant {
            privs,
            level: l,
            users,
            grant_option,
            options,
        } => {
            let level = level(s, l)?;
            let mut p = privs_at(*privs, &level)?;
            if *grant_option {
                p = p.union(Privs::GRANT);
            }
            may_grant(s, &level, p.minus(Privs::GRANT))?;
            if let Level::Table(db, t) = &level {
                if s.db.catalog().table_entry(db, t).is_none() {
                    return Err(SqlError::no_such_table(db, t));
                }
            }
            if *options != OptionsSpec::default() {
                // REQUIRE and the limits change the account itself: the
                // global grant option or CREATE USER.
                let c = Checker::of(s);
                if !c.privs.global.contains(Privs::GRANT) {
                    c.global(Privs::CREATE_USER, "CREATE USER")?;
                }
            }
            grant(s, &level, p, users, options)
        }
        AccountStatement::Revoke {
            privs,
            level: l,
            users,
        } => {
            let level = level(s, l)?;
            let p = match privs {
                None => level.all(),
                Some(p) => privs_at(Some(*p), &level)?,
            };
            may_grant(s, &level, p.minus(Privs::GRANT))?;
            let names: Vec<UserName> = users
                .iter()
                .map(|u| name_or_current(s, u.as_ref()))
                .collect();
            s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
                names.iter().try_for_each(|n| revoke(acl, &level, p, n))
            })?;
            Ok(QueryResult::ok())
        }
        AccountStatement::RevokeAll { users } => {
            Checker::of(s).global(Privs::CREATE_USER, "CREATE USER")?;
            let names: Vec<UserName> = users
                .iter()
                .map(|u| name_or_current(s, u.as_ref()))
                .collect();
            s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
                for (u, h) in &names {
                    let Some(i) = acl.position(u, h) else {
                        return Err(SqlError::new(
                            1269,
                            "Can't revoke all privileges for one or more of the requested users",
                        ));
                    };
                    acl.accounts[i].global = Privs::NONE;
                    let other = |gu: &str, gh: &str| !(gu == u && gh.eq_ignore_ascii_case(h));
                    acl.dbs.retain(|g| other(&g.user, &g.host));
                    acl.tables.retain(|g| other(&g.user, &g.host));
                }
                Ok(())
            })?;
            Ok(QueryResult::ok())
        }
        _ => Err(SqlError::not_supported("this account statement")),
    }
}

fn grant(
    s: &mut Session,
    level: &Level,
    p: Privs,
    users: &[UserSpec],
    options: &OptionsSpec,
) -> Result<QueryResult, SqlError> {
    let acl = s.db.acl.snapshot();
    let mut specs = Vec::with_capacity(users.len());
    for u in users {
        let name = name_or_current(s, u.name.as_ref());
        let cred = match &u.auth {
            Some(a) => Some(credential(s, a)?),
            None => None,
        };
        if acl.account(&name.0, &name.1).is_none() {
            if cred.is_none() && s.sql_mode_has("NO_AUTO_CREATE_USER") {
                return Err(SqlError::new(
                    1133,
                    "Can't find any matching row in the user table",
                ));
            }
            if !Checker::of(s).privs.global.contains(Privs::CREATE_USER) {
                return Err(SqlError::new(
                    1410,
                    "You are not allowed to create a user with GRANT",
                ));
            }
        }
        specs.push((name, cred));
    }
    s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
        for ((user, host), cred) in &specs {
            let i = match acl.position(user, host) {
                Some(i) => i,
                None => {
                    acl.insert_account(Account {
                        user: user.clone(),
                        host: host.clone(),
                        plugin: NATIVE.into(),
                        auth: String::new(),
                        global: Privs::NONE,
                        options: AccountOptions::default(),
                    });
                    acl.position(user, host)
                        .ok_or_else(|| SqlError::new(1105, "account vanished"))?
                }
            };
            if let Some((plugin, auth)) = cred {
                acl.accounts[i].plugin = plugin.clone();
                acl.accounts[i].auth = auth.clone();
            }
            apply_options(&mut acl.accounts[i].options, options);
            add(acl, i, level, p);
        }
        Ok(())
    })?;
    Ok(QueryResult::ok())
}

fn add(acl: &mut AclData, i: usize, level: &Level, p: Privs) {
    let (user, host) = (acl.accounts[i].user.clone(), acl.accounts[i].host.clone());
    let mine = |u: &str, h: &str| u == user && h.eq_ignore_ascii_case(&host);
    match level {
        Level::Global => acl.accounts[i].global = acl.accounts[i].global.union(p),
        Level::Db(db) => match acl
            .dbs
            .iter_mut()
            .find(|g| mine(&g.user, &g.host) && g.db == *db)
        {
            Some(g) => g.privs = g.privs.union(p),
            None if !p.is_empty() => acl.dbs.push(DbGrant {
                user,
                host,
                db: db.clone(),
                privs: p,
            }),
            None => {}
        },
        Level::Table(db, t) => match acl
            .tables
            .iter_mut()
            .find(|g| mine(&g.user, &g.host) && g.db == *db && g.table == *t)
        {
            Some(g) => g.privs = g.privs.union(p),
            None if !p.is_empty() => acl.tables.push(TableGrant {
                user,
                host,
                db: db.clone(),
                table: t.clone(),
                privs: p,
            }),
            None => {}
        },
    }
}

fn revoke(
    acl: &mut AclData,
    level: &Level,
    p: Privs,
    (user, host): &UserName,
) -> Result<(), SqlError> {
    let none = || {
        SqlError::new(
            1141,
            format!("There is no such grant defined for user '{user}' on host '{host}'"),
        )
    };
    let i = acl.position(user, host).ok_or_else(none)?;
    let mine = |u: &str, h: &str| u == user && h.eq_ignore_ascii_case(host);
    match level {
        Level::Global => acl.accounts[i].global = acl.accounts[i].global.minus(p),
        Level::Db(db) => {
            let g = acl
                .dbs
                .iter_mut()
                .find(|g| mine(&g.user, &g.host) && g.db == *db)
                .ok_or_else(none)?;
            g.privs = g.privs.minus(p);
            acl.dbs.retain(|g| !g.privs.is_empty());
        }
        Level::Table(db, t) => {
            let g = acl
                .tables
                .iter_mut()
                .find(|g| mine(&g.user, &g.host) && g.db == *db && g.table == *t)
                .ok_or_else(|| {
                    SqlError::new(
                        1147,
                        format!("There is no such grant defined for user '{user}' on host '{host}' on table '{t}'"),
                    )
                })?;
            g.privs = g.privs.minus(p);
            acl.tables.retain(|g| !g.privs.is_empty());
        }
    }
    Ok(())
}

/// ` IDENTIFIED ...` as SHOW GRANTS and SHOW CREATE USER write it.
fn auth_clause(a: &Account) -> String {
    match (a.plugin.as_str(), a.auth.is_empty()) {
        (NATIVE, true) => String::new(),
        (NATIVE, false) => format!(" IDENTIFIED BY PASSWORD '{}'", a.auth),
        (plugin, true) => format!(" IDENTIFIED VIA {plugin}"),
        (plugin, false) => format!(" IDENTIFIED VIA {plugin} USING '{}'", a.auth),
    }
}

/// The SHOW GRANTS lines of an account (`None`: no such account).
pub(crate) fn grant_lines(acl: &AclData, user: &str, host: &str) -> Option<Vec<String>> {
    let a = acl.account(user, host)?;
    let to = format!("`{}`@`{}`", a.user, a.host);
    let option = |p: Privs| {
        if p.contains(Privs::GRANT) {
            " WITH GRANT OPTION"
        } else {
            ""
        }
    };
    let mut out = vec![format!(
        "GRANT {} ON *.* TO {to}{}{}",
        a.global.show(Privs::ALL),
        auth_clause(a),
        a.options
            .show_with_grant_option(a.global.contains(Privs::GRANT))
    )];
    let mine = |u: &str, h: &str| u == a.user && h.eq_ignore_ascii_case(&a.host);
    for g in acl.dbs.iter().filter(|g| mine(&g.user, &g.host)) {
        out.push(format!(
            "GRANT {} ON `{}`.* TO {to}{}",
            g.privs.show(Privs::DB_LEVEL),
            g.db,
            option(g.privs)
        ));
    }
    for g in acl.tables.iter().filter(|g| mine(&g.user, &g.host)) {
        out.push(format!(
            "GRANT {} ON `{}`.`{}` TO {to}{}",
            g.privs.show(Privs::TABLE_LEVEL),
            g.db,
            g.table,
            option(g.privs)
        ));
    }
    Some(out)
}

/// The account SHOW CREATE USER or SHOW GRANTS names (the current one when
/// none is named): another account needs the global SELECT privilege (1044
/// on `mysql` otherwise).
fn readable_account(
    s: &mut Session,
    user: Option<&UserName>,
) -> Result<(String, String), SqlError> {
    let (u, h) = name_or_current(s, user);
    if (u.as_str(), h.as_str()) != (s.account.user.as_str(), s.account.host.as_str()) {
        let c = Checker::of(s);
        if !c.privs.global.contains(Privs::SELECT) {
            return Err(c.db_denied("mysql"));
        }
    }
    Ok((u, h))
}

/// SHOW CREATE USER: `CREATE USER `u`@`h` [IDENTIFIED ...] [REQUIRE ...]
/// [WITH MAX_...]`; another account needs the global SELECT privilege
/// (1044 on `mysql`); a missing account is 1396.
pub(crate) fn show_create_user(
    s: &mut Session,
    user: Option<&UserName>,
) -> Result<QueryResult, SqlError> {
    let (u, h) = readable_account(s, user)?;
    let acl = s.db.acl.snapshot();
    let a = acl.account(&u, &h).ok_or_else(|| {
        SqlError::new(
            1396,
            format!("Operation SHOW CREATE USER failed for '{u}'@'{h}'"),
        )
    })?;
    let line = format!(
        "CREATE USER `{}`@`{}`{}{}",
        a.user,
        a.host,
        auth_clause(a),
        a.options.show()
    );
    Ok(QueryResult::Rows(RowSet {
        columns: vec![ResultColumn::text(
            format!("CREATE USER for {u}@{h}"),
            1024,
            false,
        )],
        rows: vec![vec![Value::Str(line)]],
    }))
}

/// SHOW GRANTS [FOR user]: another account's grants need the global SELECT
/// privilege (1044 on `mysql` otherwise); a missing account is 1141.
pub(crate) fn show(s: &mut Session, user: Option<&UserName>) -> Result<QueryResult, SqlError> {
    let (u, h) = readable_account(s, user)?;
    let acl = s.db.acl.snapshot();
    let lines = grant_lines(&acl, &u, &h).ok_or_else(|| {
        SqlError::new(
            1141,
            format!("There is no such grant defined for user '{u}' on host '{h}'"),
        )
    })?;
    Ok(QueryResult::Rows(RowSet {
        columns: vec![ResultColumn::text(
            format!("Grants for {u}@{h}"),
            1024,
            false,
        )],
        rows: lines.into_iter().map(|l| vec![Value::Str(l)]).collect(),
    }))
}
