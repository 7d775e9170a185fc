//! Account statements: CREATE/ALTER/DROP/RENAME USER and SET PASSWORD (the
//! grant statements are in `exec::grants`), with MariaDB's errors and notes.
//!
//! Every statement changes the shared accounts through `Acl::update`: the
//! whole change is applied to a copy, stored durably as one dictionary
//! change, then published (sessions see it at their next statement). A
//! statement naming several accounts applies what it can and reports the
//! failed ones in one error (1396), as MariaDB does.
//!
//! Privileges: changing accounts needs the global CREATE USER privilege
//! (1227); SET PASSWORD for oneself needs nothing.

use crate::error::{SqlError, Warning};
use crate::parse::account::{AccountStatement, AuthSpec, OptionsSpec, UserName, UserSpec};
use crate::privileges::acl::{Account, AclData, NATIVE};
use crate::privileges::check::Checker;
use crate::privileges::options::AccountOptions;
use crate::privileges::{is_native_hash, native_hash, Privs};
use crate::result::QueryResult;
use crate::session::Session;

/// The caching_sha2_password plugin's name.
const CACHING_SHA2: &str = "caching_sha2_password";

/// Runs one account or grant statement.
pub(crate) fn execute(s: &mut Session, a: &AccountStatement) -> Result<QueryResult, SqlError> {
    use AccountStatement as A;
    match a {
        A::CreateUser {
            or_replace,
            if_not_exists,
            users,
            options,
        } => create_user(s, (*or_replace, *if_not_exists), users, options),
        A::AlterUser {
            if_exists,
            users,
            options,
        } => alter_user(s, *if_exists, users, options),
        A::DropUser { if_exists, users } => drop_user(s, *if_exists, users),
        A::RenameUser(pairs) => rename_user(s, pairs),
        A::SetPassword { user, value } => set_password(s, user.as_ref(), value),
        A::Grant { .. } | A::Revoke { .. } | A::RevokeAll { .. } => super::grants::execute(s, a),
        A::ShowGrants { user } => super::grants::show(s, user.as_ref()),
        A::ShowCreateUser { user } => super::grants::show_create_user(s, user.as_ref()),
    }
}

/// Applies a statement's REQUIRE and WITH clauses to an account's options.
pub(crate) fn apply_options(options: &mut AccountOptions, spec: &OptionsSpec) {
    if let Some(tls) = &spec.tls {
        options.tls = tls.clone();
    }
    options.limits.apply(&spec.limits);
}

/// `'u'@'h'` as error messages write an account.
pub(crate) fn quoted((user, host): &UserName) -> String {
    format!("'{user}'@'{host}'")
}

/// The account a name means (`None`: CURRENT_USER).
pub(crate) fn name_or_current(s: &Session, name: Option<&UserName>) -> UserName {
    match name {
        Some(n) => n.clone(),
        None => (s.account.user.clone(), s.account.host.clone()),
    }
}

/// `(plugin, stored secret)` for an authentication clause.
pub(crate) fn credential(s: &Session, auth: &AuthSpec) -> Result<(String, String), SqlError> {
    let hash_ok = |h: &str| {
        if h.is_empty() || is_native_hash(h) {
            Ok(h.to_string())
        } else {
            Err(SqlError::new(
                1372,
                "Password hash should be a 41-digit hexadecimal number",
            ))
        }
    };
    match auth {
        AuthSpec::Password(pw) => Ok((NATIVE.into(), native_hash(pw.as_bytes()))),
        AuthSpec::Hash(h) => Ok((NATIVE.into(), hash_ok(h)?)),
        AuthSpec::Plugin {
            plugin,
            auth_string,
            password,
        } => match plugin.as_str() {
            NATIVE => match (password, auth_string) {
                (Some(pw), _) => Ok((NATIVE.into(), native_hash(pw.as_bytes()))),
                (None, Some(h)) => Ok((NATIVE.into(), hash_ok(h)?)),
                (None, None) => Ok((NATIVE.into(), String::new())),
            },
            CACHING_SHA2 => {
                let stored = match (password, auth_string) {
                    (Some(pw), _) if pw.is_empty() => String::new(),
                    (Some(pw), _) => s.db.sha2_crypt(pw).ok_or_else(|| not_loaded(plugin))?,
                    (None, Some(h)) if h.is_empty() || h.starts_with("$A$") => h.clone(),
                    (None, Some(_)) => {
                        return Err(SqlError::new(
                            1827,
                            "The password hash doesn't have the expected format.",
                        ))
                    }
                    (None, None) => String::new(),
                };
                Ok((CACHING_SHA2.into(), stored))
            }
            other => Err(not_loaded(other)),
        },
    }
}

fn not_loaded(plugin: &str) -> SqlError {
    SqlError::new(1524, format!("Plugin '{plugin}' is not loaded"))
}

fn need_create_user(s: &mut Session) -> Result<(), SqlError> {
    Checker::of(s).global(Privs::CREATE_USER, "CREATE USER")
}

/// Error 1396 for the accounts of `failed`, if any.
fn failures(op: &str, failed: &[UserName]) -> Result<(), SqlError> {
    if failed.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = failed.iter().map(quoted).collect();
    Err(SqlError::new(
        1396,
        format!("Operation {op} failed for {}", list.join(",")),
    ))
}

fn create_user(
    s: &mut Session,
    (or_replace, if_not_exists): (bool, bool),
    users: &[UserSpec],
    options: &OptionsSpec,
) -> Result<QueryResult, SqlError> {
    need_create_user(s)?;
    if or_replace && if_not_exists {
        return Err(SqlError::new(
            1221,
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    let mut specs = Vec::with_capacity(users.len());
    for u in users {
        let name = name_or_current(s, u.name.as_ref());
        let cred = match &u.auth {
            Some(a) => credential(s, a)?,
            None => (NATIVE.to_string(), String::new()),
        };
        specs.push((name, cred));
    }
    let (failed, existing) = s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
        let (mut failed, mut existing) = (Vec::new(), Vec::new());
        for ((user, host), (plugin, auth)) in &specs {
            if acl.account(user, host).is_some() {
                if or_replace {
                    acl.remove_account(user, host);
                } else {
                    if if_not_exists {
                        existing.push((user.clone(), host.clone()));
                    } else {
                        failed.push((user.clone(), host.clone()));
                    }
                    continue;
                }
            }
            let mut account = Account {
                user: user.clone(),
                host: host.clone(),
                plugin: plugin.clone(),
                auth: auth.clone(),
                global: Privs::NONE,
                options: AccountOptions::default(),
            };
            apply_options(&mut account.options, options);
            acl.insert_account(account);
        }
        Ok((failed, existing))
    })?;
    for (user, host) in existing {
        s.push_warning(Warning::note(
            1973,
            format!("Can't create user '{user}'@'{host}'; it already exists"),
        ));
    }
    failures("CREATE USER", &failed)?;
    Ok(QueryResult::ok())
}

fn alter_user(
    s: &mut Session,
    if_exists: bool,
    users: &[UserSpec],
    options: &OptionsSpec,
) -> Result<QueryResult, SqlError> {
    let mut specs = Vec::with_capacity(users.len());
    for u in users {
        let name = name_or_current(s, u.name.as_ref());
        if name != name_or_current(s, None) || *options != OptionsSpec::default() {
            need_create_user(s)?;
        }
        let cred = match &u.auth {
            Some(a) => Some(credential(s, a)?),
            None => None,
        };
        specs.push((name, cred));
    }
    let (failed, missing) = s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
        let (mut failed, mut missing) = (Vec::new(), Vec::new());
        for ((user, host), cred) in &specs {
            let Some(i) = acl.position(user, host) else {
                if if_exists {
                    missing.push((user.clone(), host.clone()));
                } else {
                    failed.push((user.clone(), host.clone()));
                }
                continue;
            };
            if let Some((plugin, auth)) = cred {
                acl.accounts[i].plugin = plugin.clone();
                acl.accounts[i].auth = auth.clone();
            }
            apply_options(&mut acl.accounts[i].options, options);
        }
        Ok((failed, missing))
    })?;
    for (user, host) in missing {
        s.push_warning(Warning::note(
            1974,
            format!("Can't alter user '{user}'@'{host}'; it doesn't exist"),
        ));
    }
    failures("ALTER USER", &failed)?;
    Ok(QueryResult::ok())
}

fn drop_user(
    s: &mut Session,
    if_exists: bool,
    users: &[Option<UserName>],
) -> Result<QueryResult, SqlError> {
    need_create_user(s)?;
    let names: Vec<UserName> = users
        .iter()
        .map(|u| name_or_current(s, u.as_ref()))
        .collect();
    let failed = s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
        Ok(names
            .iter()
            .filter(|(u, h)| !acl.remove_account(u, h))
            .cloned()
            .collect::<Vec<_>>())
    })?;
    if if_exists {
        for (user, host) in failed {
            s.push_warning(Warning::note(
                1974,
                format!("Can't drop user '{user}'@'{host}'; it doesn't exist"),
            ));
        }
        return Ok(QueryResult::ok());
    }
    failures("DROP USER", &failed)?;
    Ok(QueryResult::ok())
}

fn rename_user(s: &mut Session, pairs: &[(UserName, UserName)]) -> Result<QueryResult, SqlError> {
    need_create_user(s)?;
    let failed = s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
        let mut failed = Vec::new();
        for ((u, h), (nu, nh)) in pairs {
            let (Some(i), None) = (acl.position(u, h), acl.position(nu, nh)) else {
                failed.push((u.clone(), h.clone()));
                continue;
            };
            let mut account = acl.accounts.remove(i);
            account.user = nu.clone();
            account.host = nh.clone();
            acl.insert_account(account);
            let same = |gu: &str, gh: &str| gu == u && gh.eq_ignore_ascii_case(h);
            for g in acl.dbs.iter_mut().filter(|g| same(&g.user, &g.host)) {
                g.user = nu.clone();
                g.host = nh.clone();
            }
            for g in acl.tables.iter_mut().filter(|g| same(&g.user, &g.host)) {
                g.user = nu.clone();
                g.host = nh.clone();
            }
        }
        Ok(failed)
    })?;
    failures("RENAME USER", &failed)?;
    Ok(QueryResult::ok())
}

fn set_password(
    s: &mut Session,
    user: Option<&UserName>,
    value: &AuthSpec,
) -> Result<QueryResult, SqlError> {
    let name = name_or_current(s, user);
    if name != name_or_current(s, None) {
        let c = Checker::of(s);
        if !c.privs.global.contains(Privs::CREATE_USER) {
            return Err(c.db_denied("mysql"));
        }
    }
    // A new password keeps a caching_sha2_password account on its plugin.
    let sha2 =
        s.db.acl
            .snapshot()
            .account(&name.0, &name.1)
            .is_some_and(|a| a.plugin == CACHING_SHA2);
    let value = match value {
        AuthSpec::Password(pw) if sha2 => AuthSpec::Plugin {
            plugin: CACHING_SHA2.into(),
            auth_string: None,
            password: Some(pw.clone()),
        },
        other => other.clone(),
    };
    let (plugin, auth) = credential(s, &value)?;
    s.db.acl.update(s.db.catalog(), |acl: &mut AclData| {
        let Some(i) = acl.position(&name.0, &name.1) else {
            return Err(SqlError::new(
                1133,
                "Can't find any matching row in the user table",
            ));
        };
        acl.accounts[i].plugin = plugin;
        acl.accounts[i].auth = auth;
        Ok(())
    })?;
    Ok(QueryResult::ok())
}
