//! SELECT: FROM (tables, derived tables, inner and left joins), WHERE with
//! index choice, GROUP BY and aggregates, HAVING, the select list, DISTINCT,
//! ORDER BY, LIMIT/OFFSET, UNION [ALL|DISTINCT], and uncorrelated subqueries
//! (`IN (SELECT ...)`, `EXISTS`, scalar) evaluated once before the query.
//!
//! Plan: the first source is read through the access path `rows` chooses
//! from the WHERE conjuncts that only name it; each later source is joined
//! by nested loops, looking rows up through an index when an ON/WHERE
//! equality binds its leading column to earlier sources (else a scan). The
//! whole WHERE is applied to every combined row. Without aggregation, ORDER
//! BY or DISTINCT, reading stops once OFFSET + LIMIT rows were produced.
//!
//! Reads see the statement's snapshot (`Session::begin_read`). `FOR UPDATE` /
//! `FOR SHARE` / `LOCK IN SHARE MODE` are current reads: every row read from a
//! table is locked (exclusive / shared, with NOWAIT or SKIP LOCKED) and its
//! newest version used, as InnoDB's locking reads do.
//!
//! Files: `query` (set operations, ORDER BY/LIMIT of a query, the rewrites
//! before it runs), `block` (one SELECT block bound and compiled), `block_run`
//! (running it), `block_access` (its access path, kept between executions),
//! `cte` (WITH), `source` (FROM), `materialized` (derived tables' and WITH
//! elements' rows, in memory or on disk), `join` (access paths and nested
//! loops), `aggregate`, `groups` (GROUP BY, spilled by hash partition),
//! `grouped_sort` (a spilled GROUP BY's rows sorted), `distinct` (SELECT
//! DISTINCT, spilled likewise), `distinct_sort` (DISTINCT sorted by
//! select-list columns), `order`, `sort_runs`
//! (ORDER BY in runs on disk), `project`, `subquery`, `view`, `explain`;
//! this file holds the statement entry points (`execute`, `describe`,
//! `run_query`, `run_derived`).

mod aggregate;
mod aggregate_clauses;
mod block;
mod block_access;
mod block_run;
mod correlated;
pub(crate) mod cte;
mod distinct;
mod distinct_sort;
pub(crate) mod explain;
mod found_rows;
pub(crate) mod fulltext;
mod grouped_sort;
mod groups;
pub(crate) mod information_schema;
pub(crate) mod innodb_tables;
pub(crate) mod join;
mod join_tree;
mod json_aggregate;
pub(crate) mod materialized;
pub(crate) mod naming;
mod order;
mod project;
mod query;
mod rollup;
mod set_operation;
mod sort_runs;
pub(crate) mod source;
mod star;
pub(crate) mod subquery;
pub(crate) mod system_variables;
pub(crate) mod view;
pub(crate) mod window;

use std::cell::RefCell;

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::client_io::ClientIo;
use crate::session::Session;
use query::{run_query_collect, run_query_streamed};

pub(crate) use block::KeptPlan;
pub(crate) use source::sources;
pub(crate) use source::ColumnDisplay;

/// The rows of the running statement's SELECT on their way to the client
/// while it runs ([`ClientIo::rows`]); see `crate::session::client_io`.
pub(crate) struct RowStream<'a> {
    to: StreamTo<'a>,
    /// The result's columns, made when the first batch goes (most results
    /// are smaller than one).
    columns: Vec<ResultColumn>,
    /// Rows handed over so far.
    sent: u64,
}

impl RowStream<'_> {
    /// Rows a block gathers before it hands them over.
    const BATCH: usize = 256;

    /// Hands the rows gathered in `rows` to the client once they make a
    /// batch (leaving it empty); `columns` gives the result's columns.
    pub(crate) fn send_full_batch(
        &mut self,
        rows: &mut Vec<Vec<Value>>,
        columns: impl FnOnce() -> Vec<ResultColumn>,
    ) -> Result<(), SqlError> {
        if rows.len() < Self::BATCH {
            return Ok(());
        }
        if self.columns.is_empty() {
            self.columns = columns();
        }
        self.sent += rows.len() as u64;
        match &mut self.to {
            StreamTo::Client(io) => io.rows(&self.columns, rows)?,
            StreamTo::Derived(m) => m.take(rows)?,
        }
        rows.clear();
        Ok(())
    }
}

/// Where a [`RowStream`]'s rows go.
enum StreamTo<'a> {
    /// The client, while the statement runs.
    Client(&'a mut dyn ClientIo),
    /// A derived table being materialized.
    Derived(&'a mut materialized::Materializer),
}

/// Runs a derived table's query, its rows gathered as they come, held in
/// memory or moved to disk past the temporary table size.
pub(crate) fn run_derived(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
) -> Result<(Vec<ResultColumn>, materialized::Materialized), SqlError> {
    let warnings = RefCell::new(Vec::new());
    let mut sink = materialized::Materializer::new(groups::SpillPolicy::of(s));
    let mut stream = RowStream {
        to: StreamTo::Derived(&mut sink),
        columns: Vec::new(),
        sent: 0,
    };
    let set = run_query_streamed(s, q, params, &warnings, Some(&mut stream))?;
    Ok((set.columns, sink.finish(set.rows)?))
}

/// Runs a query and returns its rows; with the client `io`, rows that come
/// out in their final order may go to it while the query runs.
pub(crate) fn execute(
    s: &mut Session,
    q: &ast::Query,
    params: &[Value],
    io: Option<&mut dyn ClientIo>,
) -> Result<QueryResult, SqlError> {
    s.db.status
        .com_select
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // SQL_CALC_FOUND_ROWS with a LIMIT: the query runs without it, counts
    // its rows, and the LIMIT is applied to them here.
    let calc = found_rows::wanted(q)? && found_rows::unparenthesized(q).limit_clause.is_some();
    let (limit, unlimited) = if calc {
        let inner = found_rows::unparenthesized(q);
        (
            query::limit_of(s, inner, params)?,
            Some(found_rows::without_limit(inner)),
        )
    } else {
        (None, None)
    };
    let q = unlimited.as_ref().unwrap_or(q);
    let warnings = RefCell::new(Vec::new());
    cte::take_warnings();
    // SERIALIZABLE: plain reads inside a transaction lock what they read
    // (shared), as InnoDB turns them into LOCK IN SHARE MODE.
    let serializable = ast::LockClause {
        lock_type: ast::LockType::Share,
        of: None,
        nonblock: None,
    };
    let lock = q
        .locks
        .first()
        .or_else(|| s.serializable_reads().then_some(&serializable));
    // Rows go to the client as they come for a plain read (not one that
    // counts its rows for FOUND_ROWS, nor one whose unreferenced WITH
    // elements are checked after it ran).
    let mut stream = io
        .filter(|_| !calc && q.with.is_none() && !s.execution.describe_only())
        .map(|io| RowStream {
            to: StreamTo::Client(io),
            columns: Vec::new(),
            sent: 0,
        });
    let r = if let Some(lock) = lock {
        locking_query(s, q, params, &warnings, lock)
    } else {
        s.begin_read()?;
        let r = run_query_streamed(s, q, params, &warnings, stream.as_mut());
        s.end_read();
        r
    };
    for w in warnings
        .into_inner()
        .into_iter()
        .chain(cte::take_warnings())
    {
        s.push_warning(w);
    }
    let mut set = r?;
    s.found_rows = set.rows.len() as u64 + stream.map_or(0, |st| st.sent);
    if calc {
        order::apply_limit(&mut set.rows, limit);
    }
    Ok(QueryResult::Rows(set))
}

/// A locking read: in the statement's transaction, newest versions, each row
/// locked as it is read; an autocommit statement commits at its end.
fn locking_query(
    s: &mut Session,
    q: &ast::Query,
    params: &[Value],
    warnings: &RefCell<Vec<crate::error::Warning>>,
    lock: &ast::LockClause,
) -> Result<RowSet, SqlError> {
    use larch_engine::lock::{LockMode, WaitPolicy};
    let mark = s.statement_mark()?;
    let mode = match lock.lock_type {
        ast::LockType::Update => LockMode::Exclusive,
        ast::LockType::Share => LockMode::Shared,
    };
    let policy = match lock.nonblock {
        Some(ast::NonBlock::Nowait) => Some(WaitPolicy::NoWait),
        Some(ast::NonBlock::SkipLocked) => Some(WaitPolicy::SkipLocked),
        None => None,
    };
    s.read = larch_engine::table::ReadContext::NEWEST;
    s.locking = Some((mode, policy));
    let r = run_query_collect(s, q, params, warnings);
    s.locking = None;
    s.end_statement(r.as_ref().err(), mark)?;
    r
}

/// The result columns of a query, without running it.
pub(crate) fn describe(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
) -> Result<Vec<ResultColumn>, SqlError> {
    let _describing = s.execution.describing();
    Ok(run_query(s, q, params)?.columns)
}

/// Runs a query (also used for derived tables, subqueries and INSERT ... SELECT).
/// The rows of a correlated subquery for one row of the enclosing query
/// (see [`correlated`]).
pub(crate) fn run_correlated(
    s: &Session,
    template: &ast::Query,
    id: u64,
    outer: &[Value],
    params: &[Value],
) -> Result<Vec<Vec<Value>>, SqlError> {
    correlated::run_template(s, template, id, outer, params)
}

pub(crate) fn run_query(s: &Session, q: &ast::Query, params: &[Value]) -> Result<RowSet, SqlError> {
    let warnings = RefCell::new(Vec::new());
    run_query_collect(s, q, params, &warnings)
}

/// [`run_query`] that adds the query's warnings to `warnings`, also when it
/// fails (the rows of INSERT ... SELECT).
pub(crate) fn run_query_warning(
    s: &Session,
    q: &ast::Query,
    params: &[Value],
    warnings: &mut Vec<crate::error::Warning>,
) -> Result<RowSet, SqlError> {
    let collected = RefCell::new(Vec::new());
    cte::take_warnings();
    let r = run_query_collect(s, q, params, &collected);
    warnings.extend(collected.into_inner());
    warnings.extend(cte::take_warnings());
    r
}
