//! Statement execution: [`execute`] dispatches one parsed statement to the
//! module that runs it, inside the session's transaction rules.
//!
//! - `select` (queries), `insert`, `modify` (UPDATE, DELETE): data;
//! - `schema` (CREATE/DROP DATABASE), `crate::ddl` (tables and indexes);
//! - `set` (SET, variables, transactions statements), `show` (SHOW ...);
//! - `names`: resolving database and table names with MySQL's errors;
//! - `account`, `grants`: users, passwords, GRANT/REVOKE/SHOW GRANTS;
//! - `routine`: stored procedures and functions.
//!
//! Privileges are checked once per statement, before it runs
//! (`privileges::check::statement`).
//!
//! Data statements run in the session's transaction (`session::transaction`):
//! the statement's row changes are reverted if it fails, and an autocommit
//! statement commits when it succeeds.

pub(crate) mod access;
mod account;
pub(crate) mod definition_bytes;
mod file_access;
pub(crate) mod flush;
mod grants;
mod load_data;
mod lock_tables;
pub(crate) mod names;
pub(crate) mod program;
pub(crate) mod rows;
mod schema;
pub(crate) mod select;
mod select_into;
mod set;
mod set_statement;
pub(crate) mod show;
pub(crate) mod spill_file;
pub(crate) mod write;

pub(crate) use program::{routine, trigger};

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::parse::Statement;
use crate::result::{PreparedDescription, QueryResult};
use crate::session::Session;

/// Runs one statement; user variables it assigned in expressions (`@a :=
/// ...`) are stored in the session afterwards, even when it failed.
pub(crate) fn execute(
    s: &mut Session,
    stmt: &Statement,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    execute_with(s, stmt, params, None)
}

/// [`execute`] with the client that serves LOAD DATA LOCAL files.
pub(crate) fn execute_with(
    s: &mut Session,
    stmt: &Statement,
    params: &[Value],
    io: Option<&mut dyn crate::session::client_io::ClientIo>,
) -> Result<QueryResult, SqlError> {
    let scope = crate::eval::uservar::StatementScope::enter(&s.user_vars);
    let _locks = crate::user_locks::enter(&s.db.user_locks, s.process.id);
    let _functions = routine::FunctionScope::enter(s);
    let result = crate::privileges::check::statement(s, stmt)
        .and_then(|()| flush::wait_for_writes(s, stmt))
        .and_then(|write| {
            let r = execute_statement(s, stmt, params, io);
            flush::end_write(s, write);
            r
        });
    for (name, value) in scope.finish() {
        s.user_vars.set(name, value);
    }
    result
}

/// Runs a statement of a trigger body inside the statement that fired the
/// trigger: privileges are checked, but the firing statement already waited
/// for the global read lock and ends the transaction's statement.
pub(crate) fn execute_in_trigger(
    s: &mut Session,
    stmt: &Statement,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    trigger::check_statement(stmt)?;
    let scope = crate::eval::uservar::StatementScope::enter(&s.user_vars);
    let result = crate::privileges::check::statement(s, stmt)
        .and_then(|()| execute_statement(s, stmt, params, None));
    for (name, value) in scope.finish() {
        s.user_vars.set(name, value);
    }
    result
}

fn execute_statement(
    s: &mut Session,
    stmt: &Statement,
    params: &[Value],
    io: Option<&mut dyn crate::session::client_io::ClientIo>,
) -> Result<QueryResult, SqlError> {
    // Stored programs and triggers run statements inside statements.
    crate::stack::check()?;
    match stmt {
        Statement::Sql(ast) => execute_sql(s, ast, params, io),
        Statement::StartTransaction {
            read_only,
            consistent_snapshot,
        } => {
            s.begin(*read_only, *consistent_snapshot)?;
            Ok(QueryResult::ok())
        }
        Statement::ShowWarnings {
            errors,
            count_only,
            limit,
        } => show::warnings(s, *errors, *count_only, *limit),
        Statement::ShowEngine { engine, kind } => show::engine(s, engine, *kind),
        Statement::ShowCreateDatabase {
            name,
            if_not_exists,
        } => schema::show_create_database(s, &name.value, *if_not_exists),
        Statement::SetCharset { charset } => set::set_charset(s, charset.as_deref()),
        Statement::SetTransaction { global, modes } => {
            set::set_transaction(s, modes, Some(*global))?;
            Ok(QueryResult::ok())
        }
        Statement::Do(exprs) => {
            let resolve = |_: &[ast::Ident]| None;
            let opts = crate::eval::CompileOptions::default();
            for e in exprs {
                let c = crate::eval::compile(e, &resolve, &opts)?;
                let mut ctx = s.eval_context(params);
                c.eval(&[], &mut ctx)?;
            }
            Ok(QueryResult::ok())
        }
        Statement::Shutdown => {
            s.db.request_shutdown();
            Ok(QueryResult::ok())
        }
        Statement::Kill { query_only, id } => {
            let resolve = |_: &[ast::Ident]| None;
            let c = crate::eval::compile(id, &resolve, &crate::eval::CompileOptions::default())?;
            let mut ctx = s.eval_context(params);
            let v = c.eval(&[], &mut ctx)?;
            // As MariaDB reads it: NULL and words are 0, decimals round, a
            // negative number wraps.
            let n = match v {
                Value::Null => 0,
                v => crate::eval::convert::to_int(&v, &mut ctx) as u64,
            };
            drop(ctx);
            kill(s, n, *query_only)
        }
        Statement::SetStatement { set, inner } => set_statement::execute(s, set, inner, params),
        Statement::Account(a) => account::execute(s, a),
        Statement::LoadData(l) => load_data::execute(s, l, io),
        Statement::SelectInto { query, into } => select_into::execute(s, query, into, params),
        Statement::Prepare { name, source } => {
            crate::session::sql_prepared::prepare(s, name, source)
        }
        Statement::Execute { name, using } => crate::session::sql_prepared::execute(s, name, using),
        Statement::ExecuteImmediate { source, using } => {
            crate::session::sql_prepared::execute_immediate(s, source, using)
        }
        Statement::Deallocate { name } => crate::session::sql_prepared::deallocate(s, name),
        Statement::Routine(r) => routine::execute(s, r),
        Statement::Trigger(t) => trigger::execute(s, t),
        Statement::LockTables(items) => lock_tables::lock(s, items),
        other => match larch_engine::io::blocking::blocking(|| crate::ddl::execute_extra(s, other))
        {
            Some(r) => r,
            None => Err(SqlError::not_supported("this statement")),
        },
    }
}

fn execute_sql(
    s: &mut Session,
    stmt: &ast::Statement,
    params: &[Value],
    io: Option<&mut dyn crate::session::client_io::ClientIo>,
) -> Result<QueryResult, SqlError> {
    use ast::Statement as S;
    match stmt {
        S::Query(q) => select::execute(s, q, params, io),
        S::Explain {
            statement,
            analyze: false,
            format: None,
            ..
        } if matches!(statement.as_ref(), S::Query(_)) => match statement.as_ref() {
            S::Query(q) => {
                s.begin_read()?;
                let r = select::explain::explain(s, q, params);
                s.end_read();
                r
            }
            _ => Err(SqlError::not_supported("EXPLAIN")),
        },
        S::Explain {
            statement,
            analyze: false,
            format: None,
            ..
        } if matches!(
            statement.as_ref(),
            S::Insert(_) | S::Update(_) | S::Delete(_)
        ) =>
        {
            let on_base = write::view::rewrite(s, statement, params)?;
            s.begin_read()?;
            let r =
                select::explain::explain_write(s, on_base.as_ref().unwrap_or(statement), params);
            s.end_read();
            r
        }
        S::Insert(_) | S::Update(_) | S::Delete(_) => {
            match write::view::rewrite(s, stmt, params)? {
                Some(on_base) => write::execute(s, &on_base, params),
                None => write::execute(s, stmt, params),
            }
        }
        S::CreateDatabase {
            db_name,
            if_not_exists,
            default_charset,
            default_collation,
            ..
        } => schema::create_database(
            s,
            db_name,
            *if_not_exists,
            default_charset.as_deref(),
            default_collation.as_deref(),
        ),
        S::Drop {
            object_type: ast::ObjectType::Schema | ast::ObjectType::Database,
            if_exists,
            names,
            ..
        } => schema::drop_database(s, names, *if_exists),
        S::Use(u) => {
            let name = match u {
                ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => {
                    names::object_last(n)
                }
                _ => return Err(SqlError::not_supported("this USE form")),
            };
            s.use_database(&name)?;
            Ok(QueryResult::ok())
        }
        S::Set(set) => set::execute(s, set, params),
        S::StartTransaction { modes, .. } => {
            let read_only = modes.iter().find_map(|m| match m {
                ast::TransactionMode::AccessMode(ast::TransactionAccessMode::ReadOnly) => {
                    Some(true)
                }
                ast::TransactionMode::AccessMode(ast::TransactionAccessMode::ReadWrite) => {
                    Some(false)
                }
                _ => None,
            });
            s.begin(read_only, false)?;
            Ok(QueryResult::ok())
        }
        S::Commit { .. } => {
            // COMMIT and ROLLBACK end what `SET TRANSACTION` set for the
            // next transaction, even with none open (as MariaDB).
            s.next_isolation = None;
            s.next_read_only = None;
            s.commit()?;
            s.db.status
                .com_commit
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(QueryResult::ok())
        }
        S::Rollback { savepoint, .. } => {
            match savepoint {
                Some(name) => s.rollback_to_savepoint(&name.value)?,
                None => {
                    s.next_isolation = None;
                    s.next_read_only = None;
                    s.rollback();
                    s.db.status
                        .com_rollback
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
            Ok(QueryResult::ok())
        }
        S::Savepoint { name } => {
            s.savepoint(&name.value)?;
            Ok(QueryResult::ok())
        }
        S::ReleaseSavepoint { name } => {
            s.release_savepoint(&name.value)?;
            Ok(QueryResult::ok())
        }
        S::Kill { modifier, id } => {
            let query_only = matches!(modifier, Some(ast::KillType::Query));
            kill(s, *id, query_only)
        }
        // sqlparser's LOCK TABLES is never produced (the parser's own takes
        // qualified names).
        S::LockTables { .. } => Err(SqlError::not_supported("this LOCK TABLES")),
        S::UnlockTables => lock_tables::unlock(s),
        S::Flush {
            object_type: ast::FlushType::Privileges,
            ..
        } => {
            s.db.acl.reload(s.db.catalog())?;
            Ok(QueryResult::ok())
        }
        S::Flush { .. } => flush::execute(s, stmt),
        _ => {
            if let Some(r) = show::execute(s, stmt) {
                return r;
            }
            // DDL writes files and may copy whole tables.
            match larch_engine::io::blocking::blocking(|| crate::ddl::execute(s, stmt)) {
                Some(r) => r,
                None => Err(SqlError::not_supported(&format!(
                    "'{}'",
                    statement_kind(stmt)
                ))),
            }
        }
    }
}

/// The first words of a statement, for "not supported" messages.
fn statement_kind(stmt: &ast::Statement) -> String {
    stmt.to_string()
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Numbers the `?` placeholders of a statement in the order they appear
/// (`?0`, `?1`, ...), so that every expression of the statement reads its
/// own parameter however the statement is compiled; returns their count.
pub(crate) fn number_placeholders(stmt: &mut Statement) -> usize {
    let mut n = 0;
    let mut visit = |e: &mut ast::Expr| {
        let value = match e {
            ast::Expr::Value(v) => &mut v.value,
            // The AGAINST argument is a value, not an expression.
            ast::Expr::MatchAgainst { match_value, .. } => &mut match_value.value,
            _ => return std::ops::ControlFlow::<()>::Continue(()),
        };
        if let ast::Value::Placeholder(p) = value {
            if p == "?" {
                *p = format!("?{n}");
                n += 1;
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    };
    match stmt {
        Statement::Sql(s) => {
            let _ = ast::visit_expressions_mut(s.as_mut(), &mut visit);
        }
        Statement::Do(exprs) => {
            for e in exprs {
                let _ = ast::visit_expressions_mut(e, &mut visit);
            }
        }
        Statement::Kill { id, .. } => {
            let _ = ast::visit_expressions_mut(id, &mut visit);
        }
        Statement::SelectInto { query, .. } => {
            let _ = ast::visit_expressions_mut(query.as_mut(), &mut visit);
        }
        // Parameters of the statement only (not of its SET part).
        Statement::SetStatement { inner, .. } => return number_placeholders(inner),
        _ => {}
    }
    n
}

/// What COM_STMT_PREPARE reports: the number of `?` parameters and, for a
/// query, its result columns (worked out by planning the query with NULL
/// parameters without reading any row).
pub(crate) fn describe(
    s: &mut Session,
    stmt: &Statement,
    params: usize,
) -> Result<PreparedDescription, SqlError> {
    let columns = match stmt {
        Statement::Sql(st) => match st.as_ref() {
            ast::Statement::Query(q) => {
                let nulls = vec![Value::Null; params];
                select::describe(s, q, &nulls)?
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    Ok(PreparedDescription { params, columns })
}

/// KILL [QUERY] of connection `id` (1094 when there is none).
fn kill(s: &mut Session, id: u64, query_only: bool) -> Result<QueryResult, SqlError> {
    crate::privileges::check::kill(s, id)?;
    if s.db.kill(id, query_only) {
        Ok(QueryResult::ok())
    } else {
        Err(SqlError::new(1094, format!("Unknown thread id: {id}")))
    }
}
