//! SQL-level prepared statements: `PREPARE name FROM expr`, `EXECUTE name
//! [USING ...]`, `EXECUTE IMMEDIATE expr [USING ...]`, `{DEALLOCATE | DROP}
//! PREPARE name`, and the prepared-statement counters.
//!
//! They share the machinery of COM_STMT_PREPARE ([`Session::prepare_text`]:
//! parse one statement, number its `?` parameters, describe its result) and
//! differ only in how they are named: by a lower-case name in
//! `Session::named` instead of a protocol id. A new PREPARE of a name
//! replaces the old statement (the old one is dropped even if the new text
//! fails, as in MariaDB). EXECUTE evaluates its USING expressions and runs
//! the statement inside the EXECUTE statement (same warnings, same process
//! list entry); the parameter count must match (1210).
//!
//! Invariants: `Prepared_stmt_count` is the number of statements alive in
//! every session (protocol and SQL); each session adds exactly what it holds
//! ([`Session::count_prepared`] after every change, and when it ends), and
//! a new statement is refused beyond `max_prepared_stmt_count` (1461).

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::{Prepared, Session};
use crate::error::SqlError;
use crate::parse::Statement;
use crate::result::{PreparedDescription, QueryResult};

/// Server-wide prepared-statement counters (`SHOW STATUS`).
#[derive(Debug, Default)]
pub struct PreparedCounters {
    /// COM_STMT_PREPARE and PREPARE.
    pub stmt_prepare: AtomicU64,
    /// COM_STMT_EXECUTE and EXECUTE.
    pub stmt_execute: AtomicU64,
    /// COM_STMT_CLOSE and DEALLOCATE PREPARE.
    pub stmt_close: AtomicU64,
    pub prepare_sql: AtomicU64,
    pub execute_sql: AtomicU64,
    pub dealloc_sql: AtomicU64,
    pub execute_immediate: AtomicU64,
    /// Statements alive (`Prepared_stmt_count`).
    pub alive: AtomicI64,
}

impl PreparedCounters {
    /// The `SHOW STATUS` lines.
    pub(crate) fn status(&self) -> Vec<(&'static str, String)> {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed).to_string();
        vec![
            ("Com_dealloc_sql", n(&self.dealloc_sql)),
            ("Com_execute_immediate", n(&self.execute_immediate)),
            ("Com_execute_sql", n(&self.execute_sql)),
            ("Com_prepare_sql", n(&self.prepare_sql)),
            ("Com_stmt_close", n(&self.stmt_close)),
            ("Com_stmt_execute", n(&self.stmt_execute)),
            ("Com_stmt_prepare", n(&self.stmt_prepare)),
            (
                "Prepared_stmt_count",
                self.alive.load(Ordering::Relaxed).max(0).to_string(),
            ),
        ]
    }
}

/// MariaDB refuses these inside a prepared statement.
fn preparable(stmt: &Statement) -> Result<(), SqlError> {
    match stmt {
        Statement::Prepare { .. }
        | Statement::Execute { .. }
        | Statement::ExecuteImmediate { .. }
        | Statement::Deallocate { .. } => Err(SqlError::new(
            1295,
            "This command is not supported in the prepared statement protocol yet",
        )),
        _ => Ok(()),
    }
}

impl Session {
    /// Parses and describes one statement for a prepared statement;
    /// `replaces` says an existing statement of the same handle goes away
    /// (it does not count against `max_prepared_stmt_count`).
    pub(crate) fn prepare_text(
        &mut self,
        text: &str,
        replaces: bool,
    ) -> Result<(Prepared, PreparedDescription), SqlError> {
        let limit = self.int_var("max_prepared_stmt_count");
        let alive = self.db.status.prepared.alive.load(Ordering::Relaxed);
        if !replaces && alive >= limit {
            return Err(SqlError::new(
                1461,
                format!(
                    "Can't create more than max_prepared_stmt_count statements (current value: {limit})"
                ),
            ));
        }
        let mut stmts = crate::parse::parse_with_text(text)?;
        if stmts.len() != 1 {
            return Err(SqlError::new(
                1064,
                "You have an error in your SQL syntax; a prepared statement holds one statement",
            ));
        }
        let mut p = stmts.remove(0);
        preparable(&p.statement)?;
        let params = crate::exec::number_placeholders(Arc::make_mut(&mut p.statement));
        let description = crate::exec::describe(self, &p.statement, params)?;
        Ok((
            Prepared {
                statement: p.statement,
                text: p.text.into(),
                params: description.params,
            },
            description,
        ))
    }

    /// Brings `Prepared_stmt_count` in line with what this session holds.
    pub(crate) fn count_prepared(&mut self) {
        let now = self.prepared.len() + self.named.len();
        let delta = now as i64 - self.counted_prepared as i64;
        if delta != 0 {
            self.db
                .status
                .prepared
                .alive
                .fetch_add(delta, Ordering::Relaxed);
        }
        self.counted_prepared = now;
    }
}

/// The statement text of PREPARE / EXECUTE IMMEDIATE: the value of `source`.
fn source_text(s: &mut Session, source: &ast::Expr) -> Result<String, SqlError> {
    let v = eval(s, source)?;
    Ok(match v {
        Value::Null => "NULL".to_owned(),
        Value::Str(t) => t,
        Value::Bytes(b) => crate::parse::bytes_to_text(&b),
        other => crate::eval::convert::to_str(&other),
    })
}

fn eval(s: &mut Session, e: &ast::Expr) -> Result<Value, SqlError> {
    let resolve = |_: &[ast::Ident]| None;
    let opts = crate::eval::CompileOptions {
        collation: s.connection_collation(),
        clause: "field list".into(),
    };
    let c = crate::eval::compile(e, &resolve, &opts)?;
    let mut ctx = s.eval_context(&[]);
    let v = c.eval(&[], &mut ctx)?;
    let warnings = ctx.take_warnings();
    for w in warnings {
        s.push_warning(w);
    }
    Ok(v)
}

fn arguments(s: &mut Session, using: &[ast::Expr], want: usize) -> Result<Vec<Value>, SqlError> {
    if using.len() != want {
        return Err(SqlError::new(1210, "Incorrect arguments to EXECUTE"));
    }
    using.iter().map(|e| eval(s, e)).collect()
}

/// `PREPARE name FROM source`.
pub(crate) fn prepare(
    s: &mut Session,
    name: &str,
    source: &ast::Expr,
) -> Result<QueryResult, SqlError> {
    s.db.status
        .prepared
        .prepare_sql
        .fetch_add(1, Ordering::Relaxed);
    let text = source_text(s, source)?;
    // The old statement of this name goes first, even if the new one fails.
    s.named.remove(name);
    s.count_prepared();
    let (p, _) = s.prepare_text(&text, false)?;
    s.db.status
        .prepared
        .stmt_prepare
        .fetch_add(1, Ordering::Relaxed);
    s.named.insert(name.to_owned(), p);
    s.count_prepared();
    Ok(QueryResult::Ok(crate::result::OkInfo {
        info: "Statement prepared".into(),
        ..Default::default()
    }))
}

fn unknown(name: &str, command: &str) -> SqlError {
    SqlError::new(
        1243,
        format!("Unknown prepared statement handler ({name}) given to {command}"),
    )
}

/// `EXECUTE name USING ...`.
pub(crate) fn execute(
    s: &mut Session,
    name: &str,
    using: &[ast::Expr],
) -> Result<QueryResult, SqlError> {
    s.db.status
        .prepared
        .execute_sql
        .fetch_add(1, Ordering::Relaxed);
    let Some(p) = s.named.get(name).cloned() else {
        return Err(unknown(name, "EXECUTE"));
    };
    let params = arguments(s, using, p.params)?;
    s.db.status
        .prepared
        .stmt_execute
        .fetch_add(1, Ordering::Relaxed);
    crate::exec::execute(s, &p.statement, &params)
}

/// `EXECUTE IMMEDIATE source USING ...`.
pub(crate) fn execute_immediate(
    s: &mut Session,
    source: &ast::Expr,
    using: &[ast::Expr],
) -> Result<QueryResult, SqlError> {
    s.db.status
        .prepared
        .execute_immediate
        .fetch_add(1, Ordering::Relaxed);
    let text = source_text(s, source)?;
    let mut stmts = crate::parse::parse_with_text(&text)?;
    if stmts.len() != 1 {
        return Err(SqlError::new(
            1064,
            "You have an error in your SQL syntax; a prepared statement holds one statement",
        ));
    }
    let mut p = stmts.remove(0);
    preparable(&p.statement)?;
    let n = crate::exec::number_placeholders(Arc::make_mut(&mut p.statement));
    let params = arguments(s, using, n)?;
    crate::exec::execute(s, &p.statement, &params)
}

/// `DEALLOCATE PREPARE name`.
pub(crate) fn deallocate(s: &mut Session, name: &str) -> Result<QueryResult, SqlError> {
    s.db.status
        .prepared
        .dealloc_sql
        .fetch_add(1, Ordering::Relaxed);
    if s.named.remove(name).is_none() {
        return Err(unknown(name, "DEALLOCATE PREPARE"));
    }
    s.db.status
        .prepared
        .stmt_close
        .fetch_add(1, Ordering::Relaxed);
    s.count_prepared();
    Ok(QueryResult::ok())
}
