//! A statement's time limit: armed when a client's statement starts
//! (`max_statement_time` for any statement, `max_execution_time` for a
//! SELECT), disarmed when it ends, and the 1317 of an interruption it
//! caused reported as the limit's own error (see
//! [`crate::statement_timer`]).
//!
//! Statements inside stored programs run under the limit of the CALL or
//! the statement that invoked them, as in MariaDB.

use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlparser::ast;

use larch_engine::record::value::Value;

use super::Session;
use crate::error::SqlError;
use crate::eval::VarScope;
use crate::parse::Statement;
use crate::statement_timer::Interruption;

impl Session {
    /// Starts `stmt`'s time limit (replacing one already armed, as `SET
    /// STATEMENT max_statement_time = ... FOR` does for its statement).
    pub(crate) fn arm_time_limit(&self, stmt: &Statement) {
        let token = self.disarm_time_limit();
        let (statement_us, execution_ms) = self.time_limits();
        let select =
            matches!(stmt, Statement::Sql(s) if matches!(s.as_ref(), ast::Statement::Query(_)));
        let statement = (statement_us > 0).then(|| Duration::from_micros(statement_us));
        let execution = (select && execution_ms > 0).then(|| Duration::from_millis(execution_ms));
        // The nearer limit decides; on a tie MariaDB's own.
        let limit = match (statement, execution) {
            (Some(s), Some(e)) if e < s => Some((e, Interruption::ExecutionTime)),
            (Some(s), _) => Some((s, Interruption::StatementTime)),
            (None, Some(e)) => Some((e, Interruption::ExecutionTime)),
            (None, None) => None,
        };
        if let Some((limit, why)) = limit {
            self.db
                .statement_timer
                .arm(&self.process, token, limit, why);
        }
    }

    /// A login's account `MAX_STATEMENT_TIME` (microseconds, 0: none)
    /// becomes the session's `max_statement_time`.
    pub fn take_account_statement_time(&mut self, micros: u64) {
        if micros == 0 {
            return;
        }
        let secs = Value::Double(micros as f64 / 1e6);
        // The value is within the variable's range: the account statement
        // took it as MariaDB does, and the variable accepts any.
        let _ = self.set_var("max_statement_time", VarScope::Session, secs);
    }

    /// Ends the running statement's time limit (a deadline still pending
    /// no longer fires) and returns the token a new limit takes.
    pub(crate) fn disarm_time_limit(&self) -> u64 {
        self.process.timer_token.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The error a statement ends with: a 1317 caused by a time limit is
    /// that limit's error (1969 or 3024).
    pub(super) fn interruption_error(&self, stopped: SqlError) -> SqlError {
        Interruption::of(&self.process.interrupted_by).error(stopped)
    }
}
