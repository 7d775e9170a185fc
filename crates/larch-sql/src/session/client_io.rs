//! Statements that talk to the client while they run: [`ClientIo`] and
//! [`Session::query_with`].
//!
//! `LOAD DATA LOCAL INFILE` needs the client's file in the middle of a
//! query, and in a multi-statement query the client must have received
//! the results of the statements before it. So the server runs a query
//! through [`Session::query_with`], which hands each statement's result to
//! [`ClientIo::result`] as soon as it is ready and asks
//! [`ClientIo::local_file`] for the contents of a LOCAL file (the protocol
//! layer sends the request and streams the client's packets back).
//! [`Session::query`] is the same loop without a client (LOCAL is then
//! refused with 1148).
//!
//! A top-level SELECT whose rows come out in their final order as they are
//! read (no sort, grouping, DISTINCT or window left to do) hands them to
//! [`ClientIo::rows`] in batches while it runs, so a result of any size
//! holds only a batch in memory; its [`QueryResult::Rows`] carries the last
//! rows. Prepared statements do the same through
//! [`Session::execute_prepared_with`].

use larch_engine::record::value::Value;

use super::Session;
use crate::error::SqlError;
use crate::parse::Statement;
use crate::result::{QueryResult, ResultColumn};

/// The client side of a running query; see the module documentation.
pub trait ClientIo {
    /// One statement of the query finished with `result` (the session's
    /// warnings are those of that statement).
    fn result(&mut self, session: &Session, result: &QueryResult);

    /// Rows of the running statement's result set, before it ends: the
    /// first call starts the result set with `columns`; each call takes the
    /// rows out of `rows`. [`ClientIo::result`] then gets the statement's
    /// last rows and ends the set. An error (the client cannot be reached)
    /// stops the statement.
    fn rows(
        &mut self,
        columns: &[ResultColumn],
        rows: &mut Vec<Vec<Value>>,
    ) -> Result<(), SqlError>;

    /// Asks the client for the file `name` (LOAD DATA LOCAL); the reader
    /// yields its contents and ends where the client's data ends. An error
    /// means the client cannot send files (1148).
    fn local_file(&mut self, name: &str) -> Result<Box<dyn std::io::Read + '_>, SqlError>;
}

impl Session {
    /// Runs a query text like [`Session::query`], handing each result to
    /// `io` as soon as its statement ends; returns the error that stopped
    /// the text, if any.
    pub fn query_with(&mut self, sql: &[u8], io: &mut dyn ClientIo) -> Option<SqlError> {
        let statements = match self.parse_query(sql) {
            Ok(s) => s,
            Err(e) => return Some(e),
        };
        for p in statements {
            let r = self.run_statement_with(&p.statement, &p.text, &[], Some(&mut *io));
            // The result sets of a CALL come before its own result.
            for set in std::mem::take(&mut self.routine_results) {
                io.result(self, &set);
            }
            match r {
                Ok(r) => io.result(self, &r),
                Err(e) => return Some(e),
            }
        }
        None
    }
}

/// Runs one statement, giving LOAD DATA LOCAL and a SELECT's rows the
/// client.
pub(crate) fn execute(
    s: &mut Session,
    stmt: &Statement,
    params: &[Value],
    io: Option<&mut dyn ClientIo>,
) -> Result<QueryResult, SqlError> {
    crate::exec::execute_with(s, stmt, params, io)
}
