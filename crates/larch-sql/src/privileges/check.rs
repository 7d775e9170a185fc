//! Privilege checks: [`statement`] is called once per statement by the
//! dispatcher (`exec::execute`) before anything runs; the few checks that
//! need an executor's facts (`USE`, `SET GLOBAL`, `KILL`, `SHOW PROCESSLIST`,
//! account statements) call [`global`], [`database`] or [`Checker`] there.
//!
//! Cost: the session keeps its account's resolved privileges
//! ([`super::SessionAccount`]) tagged with the [`super::Acl`] version they
//! were built from; a check compares one atomic version and, for an account
//! with every global privilege (root), returns at once. Other accounts walk
//! the statement's table names once.
//!
//! What each statement needs (MariaDB's rules, simplified where noted):
//! queries need SELECT on every table they read; INSERT needs INSERT on its
//! table (and UPDATE with ON DUPLICATE KEY UPDATE, DELETE for REPLACE);
//! UPDATE needs UPDATE on its first table and DELETE needs DELETE on the
//! tables it deletes from (other tables of a multi-table statement need
//! SELECT); CREATE TABLE needs CREATE, DROP TABLE and TRUNCATE need DROP,
//! ALTER TABLE needs ALTER, CREATE/DROP INDEX need INDEX, RENAME TABLE needs
//! ALTER and DROP on the old name and CREATE and INSERT on the new one;
//! CREATE/DROP DATABASE need CREATE/DROP on the database (error 1044);
//! CREATE TEMPORARY TABLE needs CREATE TEMPORARY TABLES on the database;
//! SHOW TABLES needs a privilege in the database, SHOW CREATE TABLE one on
//! the table; SHUTDOWN, FLUSH (RELOAD) and SET GLOBAL (SUPER) need global
//! privileges; LOCK TABLES needs SELECT on the tables. Tables of `information_schema` and the session's
//! temporary tables need nothing. Column-level privileges do not exist.

use std::ops::ControlFlow;
use std::sync::Arc;

use sqlparser::ast::{self, Visit, Visitor};

use super::acl::Resolved;
use super::bits::Privs;
use super::host::is_loopback;
use crate::error::SqlError;
use crate::parse::Statement;
use crate::session::Session;

/// The current account's privileges and names, for one statement's checks.
pub struct Checker {
    pub privs: Arc<Resolved>,
    pub user: String,
    /// The account's host pattern (what error 1044 names).
    pub account_host: String,
    /// The client's host (what error 1142 names).
    pub client_host: String,
}

impl Checker {
    pub fn of(s: &mut Session) -> Checker {
        let privs = s.account.privileges(&s.db.acl);
        Checker::with(s, privs)
    }

    /// [`Checker::of`] for a session held shared (the resolved privileges
    /// are not cached when the account data changed since the last check).
    pub fn of_shared(s: &Session) -> Checker {
        Checker::with(s, s.account.privileges_ref(&s.db.acl))
    }

    fn with(s: &Session, privs: Arc<Resolved>) -> Checker {
        let host = &s.process.host;
        Checker {
            privs,
            user: s.account.user.clone(),
            account_host: s.account.host.clone(),
            client_host: if is_loopback(host) {
                "localhost".into()
            } else {
                host.clone()
            },
        }
    }

    pub fn is_all(&self) -> bool {
        self.privs.global == Privs::ALL
    }

    /// Error 1227 unless the account has one of `need` globally.
    pub fn global(&self, need: Privs, names: &str) -> Result<(), SqlError> {
        if self.privs.global.intersects(need) {
            return Ok(());
        }
        Err(SqlError::new(
            1227,
            format!("Access denied; you need (at least one of) the {names} privilege(s) for this operation"),
        ))
    }

    /// Error 1044 unless the account has all of `need` on database `db`.
    pub fn database(&self, db: &str, need: Privs) -> Result<(), SqlError> {
        if self.privs.on_db(db).contains(need) || super::is_system_db(db) {
            return Ok(());
        }
        Err(self.db_denied(db))
    }

    pub fn db_denied(&self, db: &str) -> SqlError {
        SqlError::new(
            1044,
            format!(
                "Access denied for user '{}'@'{}' to database '{db}'",
                self.user, self.account_host
            ),
        )
    }

    /// Error 1142 unless the account has all of `need` on `db.table`.
    pub fn table(&self, db: &str, table: &str, need: Privs) -> Result<(), SqlError> {
        let have = self.privs.on_table(db, table);
        if have.contains(need) || super::is_system_db(db) {
            return Ok(());
        }
        Err(self.table_denied(need.minus(have).first_name(), db, table))
    }

    pub fn table_denied(&self, command: &str, db: &str, table: &str) -> SqlError {
        SqlError::new(
            1142,
            format!(
                "{command} command denied to user '{}'@'{}' for table `{db}`.`{table}`",
                self.user, self.client_host
            ),
        )
    }
}

/// Error 1227 unless the session's account has one of `need` globally.
pub fn global(s: &mut Session, need: Privs, names: &str) -> Result<(), SqlError> {
    Checker::of(s).global(need, names)
}

/// Error 1044 unless the session's account may use database `db`.
pub fn use_database(s: &mut Session, db: &str) -> Result<(), SqlError> {
    let c = Checker::of(s);
    if c.is_all() || super::is_system_db(db) || c.privs.sees_db(db) {
        return Ok(());
    }
    Err(c.db_denied(db))
}

/// Checks one statement before it runs (see the module documentation).
pub fn statement(s: &mut Session, stmt: &Statement) -> Result<(), SqlError> {
    if s.account.is_all(&s.db.acl) {
        return Ok(());
    }
    let c = Checker::of(s);
    match stmt {
        Statement::Sql(ast) => sql(s, &c, ast),
        Statement::Shutdown => c.global(Privs::SHUTDOWN, "SHUTDOWN"),
        Statement::AlterTableKeys { table, .. }
        | Statement::AlterTableEngine { table, .. }
        | Statement::CreateFulltextIndex { table, .. } => {
            need(s, &c, table, Privs::ALTER.union(Privs::INDEX))
        }
        Statement::AlterTable(a) => need(s, &c, &a.name, Privs::ALTER),
        Statement::TableMaintenance { tables, .. } => {
            for t in tables {
                need(s, &c, t, Privs::SELECT)?;
            }
            Ok(())
        }
        // A server-side file needs FILE; LOCAL reads the client's own file.
        Statement::LoadData(l) => {
            if !l.local {
                c.global(Privs::FILE, "FILE")?;
            }
            need(s, &c, &l.table, Privs::INSERT)
        }
        // SELECT ... INTO reads what its query reads; a file needs FILE.
        Statement::SelectInto { query, into } => {
            if !matches!(
                **into,
                crate::parse::IntoTarget::Variables(_) | crate::parse::IntoTarget::Locals(_)
            ) {
                c.global(Privs::FILE, "FILE")?;
            }
            sql(s, &c, &ast::Statement::Query(query.clone()))
        }
        // CREATE/ALTER VIEW needs CREATE VIEW on the view and the view's
        // reads on the tables it selects from.
        Statement::View(v) => {
            need(s, &c, &v.name, Privs::CREATE_VIEW)?;
            sql(s, &c, &ast::Statement::Query(v.query.clone()))
        }
        Statement::SetStatement { inner, .. } => statement(s, inner),
        // Expressions outside a query read the tables of their subqueries.
        Statement::Do(exprs) => reads(s, &c, exprs, &[]),
        Statement::Kill { id, .. } => reads(s, &c, id, &[]),
        Statement::Prepare { source, .. } => reads(s, &c, source, &[]),
        Statement::Execute { using, .. } => reads(s, &c, using, &[]),
        Statement::ExecuteImmediate { source, using } => {
            reads(s, &c, source, &[])?;
            reads(s, &c, using, &[])
        }
        Statement::Routine(r) => super::routines::check(s, &c, r),
        // LOCK TABLES privilege on the database, SELECT on the table.
        Statement::LockTables(items) => {
            for i in items {
                if let Some((db, _)) = resolve(s, &i.name) {
                    c.database(&db, Privs::LOCK_TABLES)?;
                }
                need(s, &c, &i.name, Privs::SELECT)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `(db, table)` of a name; `None` for names needing no check (temporary
/// tables, information_schema, names without a database to resolve in).
fn resolve(s: &Session, name: &ast::ObjectName) -> Option<(String, String)> {
    let parts: Vec<&str> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.as_str())
        .collect();
    let (db, t) = match parts.as_slice() {
        [t] => (s.current_db.clone()?, (*t).to_string()),
        [db, t] => ((*db).to_string(), (*t).to_string()),
        _ => return None,
    };
    if super::is_system_db(&db) || s.temporary_table(&db, &t).is_some() {
        return None;
    }
    Some((db, t))
}

fn need(s: &Session, c: &Checker, name: &ast::ObjectName, p: Privs) -> Result<(), SqlError> {
    match resolve(s, name) {
        Some((db, t)) => c.table(&db, &t, p),
        None => Ok(()),
    }
}

/// Names of common table expressions anywhere in a statement.
#[derive(Default)]
struct CteNames(Vec<String>);

impl Visitor for CteNames {
    type Break = ();
    fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.0.push(cte.alias.name.value.clone());
            }
        }
        ControlFlow::Continue(())
    }
}

/// Every table a statement names, but CTE references, in order.
fn relations<V: Visit>(v: &V) -> Vec<ast::ObjectName> {
    let mut ctes = CteNames::default();
    let _ = v.visit(&mut ctes);
    let mut out = Vec::new();
    let _ = ast::visit_relations(v, |r: &ast::ObjectName| {
        let cte = r.0.len() == 1
            && ctes.0.iter().any(|n| {
                r.0[0]
                    .as_ident()
                    .is_some_and(|i| i.value.eq_ignore_ascii_case(n))
            });
        if !cte {
            out.push(r.clone());
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// SELECT on every table `v` names, except those in `skip`.
fn reads<V: Visit>(
    s: &Session,
    c: &Checker,
    v: &V,
    skip: &[&ast::ObjectName],
) -> Result<(), SqlError> {
    for r in relations(v) {
        if !skip.contains(&&r) {
            need(s, c, &r, Privs::SELECT)?;
        }
    }
    Ok(())
}

fn sql(s: &Session, c: &Checker, stmt: &ast::Statement) -> Result<(), SqlError> {
    use ast::Statement as S;
    match stmt {
        S::Insert(i) => {
            if let ast::TableObject::TableName(t) = &i.table {
                let mut p = Privs::INSERT;
                if i.replace_into {
                    p = p.union(Privs::DELETE);
                }
                if matches!(i.on, Some(ast::OnInsert::DuplicateKeyUpdate(_))) {
                    p = p.union(Privs::UPDATE);
                }
                // RETURNING reads the rows written.
                if i.returning.is_some() {
                    p = p.union(Privs::SELECT);
                }
                need(s, c, t, p)?;
                return reads(s, c, stmt, &[t]);
            }
            reads(s, c, stmt, &[])
        }
        S::Update(u) => {
            if let ast::TableFactor::Table { name, .. } = &u.table.relation {
                need(s, c, name, Privs::UPDATE)?;
                return reads(s, c, stmt, &[name]);
            }
            reads(s, c, stmt, &[])
        }
        S::Delete(d) => {
            let targets: Vec<&ast::ObjectName> = if d.tables.is_empty() {
                let from = match &d.from {
                    ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
                };
                from.iter()
                    .filter_map(|t| match &t.relation {
                        ast::TableFactor::Table { name, .. } => Some(name),
                        _ => None,
                    })
                    .take(1)
                    .collect()
            } else {
                d.tables.iter().collect()
            };
            for t in &targets {
                need(s, c, t, Privs::DELETE)?;
                // RETURNING reads the rows deleted.
                if d.returning.is_some() {
                    need(s, c, t, Privs::SELECT)?;
                }
            }
            // Multi-table DELETE names its targets by alias; only tables
            // never named as a target need SELECT.
            let names: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
            let rest: Vec<ast::ObjectName> = relations(stmt)
                .into_iter()
                .filter(|r| !names.contains(&r.to_string()))
                .collect();
            for r in &rest {
                need(s, c, r, Privs::SELECT)?;
            }
            Ok(())
        }
        S::CreateTable(ct) if ct.temporary => {
            if let Some((db, t)) = resolve(s, &ct.name) {
                if !c.privs.on_db(&db).contains(Privs::CREATE_TMP) {
                    return Err(c.table_denied("CREATE TEMPORARY TABLES", &db, &t));
                }
            }
            reads(s, c, stmt, &[&ct.name])
        }
        S::CreateTable(ct) => {
            need(s, c, &ct.name, Privs::CREATE)?;
            reads(s, c, stmt, &[&ct.name])
        }
        S::Drop {
            object_type: ast::ObjectType::Table,
            names,
            ..
        } => names.iter().try_for_each(|n| need(s, c, n, Privs::DROP)),
        S::Drop {
            object_type: ast::ObjectType::Index,
            table: Some(t),
            ..
        } => need(s, c, t, Privs::INDEX),
        S::Drop {
            object_type: ast::ObjectType::Schema | ast::ObjectType::Database,
            names,
            ..
        } => names
            .iter()
            .try_for_each(|n| c.database(&crate::exec::names::object_last(n), Privs::DROP)),
        S::CreateDatabase { db_name, .. } => {
            c.database(&crate::exec::names::object_last(db_name), Privs::CREATE)
        }
        S::AlterTable(a) => need(s, c, &a.name, Privs::ALTER),
        S::CreateIndex(ci) => need(s, c, &ci.table_name, Privs::INDEX),
        S::Truncate(t) => t
            .table_names
            .iter()
            .try_for_each(|n| need(s, c, &n.name, Privs::DROP)),
        S::RenameTable(renames) => {
            for r in renames {
                need(s, c, &r.old_name, Privs::ALTER.union(Privs::DROP))?;
                need(s, c, &r.new_name, Privs::CREATE.union(Privs::INSERT))?;
            }
            Ok(())
        }
        // SHOW TABLES needs some privilege in the database (1044); SHOW
        // CREATE TABLE some privilege on the table (1142 "SHOW command").
        S::ShowTables { show_options, .. } => {
            let named = show_options
                .show_in
                .as_ref()
                .and_then(|i| i.parent_name.as_ref())
                .map(crate::exec::names::object_last);
            match named.or_else(|| s.current_db.clone()) {
                Some(db) if !c.privs.sees_db(&db) && !super::is_system_db(&db) => {
                    Err(c.db_denied(&db))
                }
                _ => Ok(()),
            }
        }
        S::ShowCreate {
            obj_type: ast::ShowCreateObject::Table,
            obj_name,
        } => match resolve(s, obj_name) {
            Some((db, t)) if c.privs.on_table(&db, &t).minus(Privs::GRANT).is_empty() => {
                Err(c.table_denied("SHOW", &db, &t))
            }
            _ => Ok(()),
        },
        // EXPLAIN needs what the statement explained needs.
        S::Explain { statement, .. } => sql(s, c, statement),
        S::Flush { .. } => c.global(Privs::RELOAD, "RELOAD"),
        S::LockTables { .. } => reads(s, c, stmt, &[]),
        _ => reads(s, c, stmt, &[]),
    }
}

/// KILL of another user's connection needs SUPER or CONNECTION ADMIN
/// (error 1095, MariaDB's "not owner" error).
pub fn kill(s: &mut Session, id: u64) -> Result<(), SqlError> {
    let c = Checker::of(s);
    if c.privs
        .global
        .intersects(Privs::SUPER.union(Privs::CONNECTION_ADMIN))
    {
        return Ok(());
    }
    let owner = s.db.processes().into_iter().find(|p| p.id == id);
    match owner {
        Some(p) if p.user != c.user => Err(SqlError::new(
            1095,
            format!("You are not owner of thread {id}"),
        )),
        _ => Ok(()),
    }
}

/// True when the session may see connection `p` in the process list
/// (its own user's, or any with PROCESS).
pub fn sees_process(s: &Session, p: &crate::database::ProcessEntry) -> bool {
    let privs = s.account.privileges_ref(&s.db.acl);
    p.user == s.account.user || privs.global.contains(Privs::PROCESS)
}

/// True when the session's account may see database `db` (SHOW DATABASES,
/// INFORMATION_SCHEMA).
pub fn sees_database(s: &Session, db: &str) -> bool {
    let privs = s.account.privileges_ref(&s.db.acl);
    privs.global == Privs::ALL || super::is_system_db(db) || privs.sees_db(db)
}

/// True when the session's account has some privilege on table `db.t`
/// (SHOW TABLES and INFORMATION_SCHEMA list only those).
pub fn sees_table(s: &Session, db: &str, table: &str) -> bool {
    let privs = s.account.privileges_ref(&s.db.acl);
    privs.global == Privs::ALL || !privs.on_table(db, table).minus(Privs::GRANT).is_empty()
}
