//! A session's variable values: reading system variables (session value,
//! else global, with [`HotVars`] caching the ones every statement reads),
//! `SET` of session and global values, user variables, the session clock,
//! and the evaluation context statements compile and run expressions in.
//!
//! A session's values change only through its own SET statements, as in
//! MySQL, where a session copies the global values when it starts: the
//! cache is cleared by every SET of this session and by COM_RESET_CONNECTION.

use std::cell::Cell;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;
use larch_engine::txn::IsolationLevel;

use super::variables::{self, Scope, VarDef};
use super::{Level, Session, Warning, SERVER_VERSION};
use crate::error::SqlError;
use crate::eval::{self, VarScope};

/// Session variables every statement reads, decoded on first use after a
/// SET (a session's values change only through its own SET statements, as
/// in MySQL, where a session copies the global values when it starts).
/// Reading one by name costs a lower-cased copy of the name, a table search,
/// a map lookup and, for a value the session never set, the global map's
/// read lock, whose lock word every session writes: a point select read
/// five of them two or three times each.
#[derive(Debug, Default)]
pub(super) struct HotVars {
    collation: Cell<Option<Collation>>,
    isolation: Cell<Option<IsolationLevel>>,
    /// `autocommit`.
    autocommit: Cell<Option<bool>>,
    /// `transaction_read_only`.
    read_only: Cell<Option<bool>>,
    /// `innodb_lock_wait_timeout`, in seconds.
    lock_wait_timeout: Cell<Option<u64>>,
    /// `innodb_rollback_on_timeout` (read-only: fixed at start-up).
    rollback_on_timeout: Cell<Option<bool>>,
    /// `sql_mode` has ERROR_FOR_DIVISION_BY_ZERO.
    division_by_zero_mode: Cell<Option<bool>>,
    /// `max_statement_time` in microseconds and `max_execution_time` in
    /// milliseconds (0: no limit).
    time_limits: Cell<Option<(u64, u64)>>,
    /// Counts the clears: what was compiled under one value of it was
    /// compiled under the same settings (`super::plans`).
    epoch: Cell<u64>,
}

impl HotVars {
    pub(super) fn clear(&self) {
        self.collation.set(None);
        self.isolation.set(None);
        self.autocommit.set(None);
        self.read_only.set(None);
        self.lock_wait_timeout.set(None);
        self.rollback_on_timeout.set(None);
        self.division_by_zero_mode.set(None);
        self.time_limits.set(None);
        self.epoch.set(self.epoch.get().wrapping_add(1));
    }

    /// Changes with every [`clear`](Self::clear).
    pub(super) fn epoch(&self) -> u64 {
        self.epoch.get()
    }
}

/// The isolation level a `transaction_isolation` value names.
fn isolation_level(value: &Value) -> IsolationLevel {
    match value {
        Value::Str(s) => match s.as_str() {
            "READ-UNCOMMITTED" => IsolationLevel::ReadUncommitted,
            "READ-COMMITTED" => IsolationLevel::ReadCommitted,
            "SERIALIZABLE" => IsolationLevel::Serializable,
            _ => IsolationLevel::RepeatableRead,
        },
        _ => IsolationLevel::RepeatableRead,
    }
}

/// The cached value in `cell`, or `read()` (then cached).
fn cached<T: Copy>(cell: &Cell<Option<T>>, read: impl FnOnce() -> T) -> T {
    if let Some(v) = cell.get() {
        return v;
    }
    let v = read();
    cell.set(Some(v));
    v
}

impl Session {
    /// The session value of a variable (global when it has no session value).
    pub(crate) fn var(&self, def: &VarDef) -> Value {
        match def.name {
            // Every condition of the diagnostics area, the error too.
            "warning_count" => return Value::UInt(self.warnings.len() as u64),
            "error_count" => {
                let n = self
                    .warnings
                    .iter()
                    .filter(|w| w.level == Level::Error)
                    .count();
                return Value::UInt(n as u64);
            }
            "last_insert_id" | "identity" => return Value::UInt(self.last_insert_id),
            "timestamp" => return Value::Double(self.now_micros() as f64 / 1e6),
            "in_transaction" => return Value::UInt(u64::from(self.in_transaction())),
            "pseudo_thread_id" => return Value::UInt(self.process.id),
            _ => {}
        }
        if def.scope == Scope::Global {
            return self.db.global_value(def);
        }
        if let Some(v) = self.vars.get(def.name) {
            return v.clone();
        }
        // The global value of the moment the session started: a later SET
        // GLOBAL reaches new sessions only.
        match self.globals.get(def.name) {
            Some(v) => v.clone(),
            None => self.db.unset_global_value(def),
        }
    }

    /// The session value of a system variable (`None`: no such variable);
    /// for the server, which applies a session's socket timeouts to its
    /// connection.
    pub fn variable(&self, name: &str) -> Option<Value> {
        variables::lookup(name).map(|def| self.var(def))
    }

    /// Changes with every `SET` of this session and `COM_RESET_CONNECTION`:
    /// what was read through [`Session::variable`] under another value may
    /// be stale.
    pub fn settings_epoch(&self) -> u64 {
        self.hot.epoch()
    }

    /// A session variable read by name (must exist in the table).
    pub(crate) fn var_by_name(&self, name: &str) -> Value {
        variables::lookup(name)
            .map(|d| self.var(d))
            .unwrap_or(Value::Null)
    }

    /// An integer variable read by name (0 when not an integer).
    pub(crate) fn int_var(&self, name: &str) -> i64 {
        match self.var_by_name(name) {
            Value::UInt(n) => i64::try_from(n).unwrap_or(i64::MAX),
            Value::Int(n) => n,
            _ => 0,
        }
    }

    /// `tmpdir`: where sorts, groups and index builds put temporary files
    /// (the system's temporary directory when empty).
    pub(crate) fn tmpdir(&self) -> std::path::PathBuf {
        match self.var_by_name("tmpdir") {
            Value::Str(d) if !d.is_empty() => std::path::PathBuf::from(d),
            _ => std::env::temp_dir(),
        }
    }

    pub(crate) fn bool_var(&self, name: &str) -> bool {
        matches!(self.var_by_name(name), Value::UInt(n) if n != 0)
    }

    /// `@@autocommit` (cached, see [`HotVars`]).
    pub(super) fn autocommit_var(&self) -> bool {
        cached(&self.hot.autocommit, || self.bool_var("autocommit"))
    }

    /// `@@transaction_read_only` (cached, see [`HotVars`]).
    pub(super) fn read_only_var(&self) -> bool {
        cached(&self.hot.read_only, || {
            self.bool_var("transaction_read_only")
        })
    }

    /// `@@innodb_lock_wait_timeout` in seconds (cached, see [`HotVars`]).
    pub(super) fn lock_wait_timeout_secs(&self) -> u64 {
        cached(&self.hot.lock_wait_timeout, || {
            self.int_var("innodb_lock_wait_timeout").max(0) as u64
        })
    }

    /// `@@innodb_rollback_on_timeout` (cached, see [`HotVars`]).
    pub(super) fn rollback_on_timeout_var(&self) -> bool {
        cached(&self.hot.rollback_on_timeout, || {
            self.bool_var("innodb_rollback_on_timeout")
        })
    }

    /// `@@max_statement_time` in microseconds and `@@max_execution_time`
    /// in milliseconds, 0 for none (cached, see [`HotVars`]).
    pub(super) fn time_limits(&self) -> (u64, u64) {
        cached(&self.hot.time_limits, || {
            let statement = match self.var_by_name("max_statement_time") {
                Value::Double(secs) if secs > 0.0 => (secs * 1e6).round() as u64,
                _ => 0,
            };
            let execution = self.int_var("max_execution_time").max(0) as u64;
            (statement, execution)
        })
    }

    /// True when `sql_mode` contains `mode`.
    pub(crate) fn sql_mode_has(&self, mode: &str) -> bool {
        match self.var_by_name("sql_mode") {
            Value::Str(s) => s.split(',').any(|m| m == mode),
            _ => false,
        }
    }

    /// Strict mode for writes to transactional tables.
    pub(crate) fn strict(&self) -> bool {
        self.sql_mode_has("STRICT_TRANS_TABLES") || self.sql_mode_has("STRICT_ALL_TABLES")
    }

    /// The session's isolation level (`transaction_isolation`).
    pub(crate) fn isolation(&self) -> IsolationLevel {
        cached(&self.hot.isolation, || self.isolation_variable())
    }

    fn isolation_variable(&self) -> IsolationLevel {
        isolation_level(&self.var_by_name("transaction_isolation"))
    }

    /// `SET TRANSACTION ...` and `SET @@transaction_isolation = v` (or
    /// `@@transaction_read_only`, or the `tx_` names) without a scope: the
    /// characteristic of the next transaction only, the session value
    /// unchanged; 1568 inside a transaction.
    pub(crate) fn set_next_transaction(
        &mut self,
        name: &str,
        value: Value,
    ) -> Result<(), SqlError> {
        let def = variables::lookup(name).ok_or_else(|| SqlError::unknown_variable(name))?;
        let value = variables::normalize(def, value)?;
        if self.in_transaction() {
            return Err(SqlError::new(
                1568,
                "Transaction characteristics can't be changed while a transaction is in progress",
            ));
        }
        if def.name.ends_with("isolation") {
            self.next_isolation = Some(isolation_level(&value));
        } else {
            self.next_read_only = Some(matches!(value, Value::UInt(n) if n != 0));
        }
        Ok(())
    }

    /// The collation of string literals (`collation_connection`).
    pub(crate) fn connection_collation(&self) -> Collation {
        cached(&self.hot.collation, || {
            match self.var_by_name("collation_connection") {
                Value::Str(s) => Collation::from_name(&s).unwrap_or(Collation::Utf8mb4GeneralCi),
                _ => Collation::Utf8mb4GeneralCi,
            }
        })
    }

    /// `SET [SESSION|GLOBAL] name = value`.
    pub(crate) fn set_var(
        &mut self,
        name: &str,
        scope: VarScope,
        value: Value,
    ) -> Result<(), SqlError> {
        // Before: the checks below read the old values; after: the new
        // value (or the new global one) replaces what was cached.
        self.hot.clear();
        let result = self.assign_var(name, scope, value);
        self.hot.clear();
        result
    }

    fn assign_var(&mut self, name: &str, scope: VarScope, value: Value) -> Result<(), SqlError> {
        let def = variables::lookup(name).ok_or_else(|| SqlError::unknown_variable(name))?;
        if def.read_only {
            return Err(SqlError::new(
                1238,
                format!("Variable '{}' is a read only variable", def.name),
            ));
        }
        let global = matches!(scope, VarScope::Global);
        if global && def.scope == Scope::Session {
            return Err(SqlError::new(
                1228,
                format!(
                    "Variable '{}' is a SESSION variable and can't be used with SET GLOBAL",
                    def.name
                ),
            ));
        }
        if !global && def.scope == Scope::Global {
            return Err(SqlError::new(
                1229,
                format!(
                    "Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL",
                    def.name
                ),
            ));
        }
        if global {
            crate::privileges::check::global(self, crate::privileges::Privs::SUPER, "SUPER")?;
        }
        let value = match value {
            Value::Str(s)
                if s.eq_ignore_ascii_case("DEFAULT") && def.kind != variables::Kind::Str =>
            {
                if global {
                    variables::default_value(def, &self.db)
                } else {
                    self.db.global_value(def)
                }
            }
            v => {
                // An integer out of range is clamped, with MariaDB's warning
                // (the name cut to 32 characters as its message does).
                let out_of_range = match (def.kind, &v) {
                    (variables::Kind::Int { min, max }, Value::Int(n)) => {
                        (*n < min || *n > max).then(|| n.to_string())
                    }
                    // i64::MAX stands for MariaDB's unsigned 64-bit maximum.
                    (variables::Kind::Int { min, max }, Value::UInt(n)) if max != i64::MAX => {
                        (i128::from(*n) < i128::from(min) || i128::from(*n) > i128::from(max))
                            .then(|| n.to_string())
                    }
                    _ => None,
                };
                let normalized = variables::normalize(def, v)?;
                if let Some(given) = out_of_range {
                    let name = if def.name.len() > 32 {
                        format!("{}...", &def.name[..29])
                    } else {
                        def.name.to_owned()
                    };
                    self.push_warning(Warning::warn(
                        1292,
                        format!("Truncated incorrect {name} value: '{given}'"),
                    ));
                }
                normalized
            }
        };
        // The scheduler can be DISABLED only at start-up; ORIGINAL is the
        // start-up value (Larch starts it OFF).
        let value = match (def.name, &value) {
            ("event_scheduler", Value::Str(s)) if s == "DISABLED" => {
                return Err(SqlError::new(
                    1231,
                    "Variable 'event_scheduler' can't be set to the value of 'DISABLED'",
                ))
            }
            ("event_scheduler", Value::Str(s)) if s == "ORIGINAL" => Value::Str("OFF".into()),
            _ => value,
        };
        if def.fixed {
            // Larch implements this variable's current value only.
            let current = if global {
                self.db.global_value(def)
            } else {
                self.var(def)
            };
            let shown = match (&current, def.kind) {
                (Value::Null, _) => "NULL".to_owned(),
                (Value::UInt(0), variables::Kind::Bool) => "OFF".to_owned(),
                (Value::UInt(_), variables::Kind::Bool) => "ON".to_owned(),
                (Value::Str(s), _) => format!("'{s}'"),
                (v, _) => crate::value::store::value_to_string(v),
            };
            let current = variables::normalize(def, current.clone()).unwrap_or(current);
            if value != current {
                return Err(SqlError::not_supported(&format!(
                    "{} other than {shown}",
                    def.name
                )));
            }
            return Ok(());
        }
        if def.name == "innodb_ft_aux_table" {
            self.db.fulltext_aux_table.set(self, &value)?;
        }
        if crate::ddl::stopwords::VARIABLES.contains(&def.name) {
            crate::ddl::stopwords::check_variable(self, def.name, &value)?;
        }
        let alias = variables::alias_of(def.name).and_then(variables::lookup);
        if global {
            self.db.set_global(def, value.clone());
            if let Some(a) = alias {
                self.db.set_global(a, value);
            }
            return Ok(());
        }
        match def.name {
            "last_insert_id" | "identity" | "insert_id" => {
                if let Value::UInt(n) = value {
                    self.last_insert_id = n;
                }
                return Ok(());
            }
            // Turning autocommit on commits the open transaction.
            "autocommit" if value == Value::UInt(1) && !self.autocommit() => {
                self.commit()?;
            }
            _ => {}
        }
        self.vars.insert(def.name, value.clone());
        if let Some(a) = alias {
            self.vars.insert(a.name, value);
        }
        Ok(())
    }

    /// The session's current time in microseconds since the epoch: the
    /// system clock, or `SET timestamp = N` when the session fixed it.
    pub(crate) fn now_micros(&self) -> i64 {
        match self.vars.get("timestamp") {
            Some(Value::Double(t)) if *t > 0.0 => (t * 1e6).round() as i64,
            _ => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_micros() as i64)
                .unwrap_or(0),
        }
    }

    /// A fresh evaluation context for a statement.
    pub(crate) fn eval_context<'a>(&'a self, params: &'a [Value]) -> eval::EvalContext<'a> {
        let mut ctx = eval::EvalContext::new(self, params, self.now_micros());
        ctx.kill = Some(&self.process.kill_query);
        ctx.division_by_zero = self.division_by_zero();
        ctx.warnings_are_errors = self.strict_statement;
        ctx
    }

    /// What division by zero gives now, as in MariaDB: NULL without a
    /// warning unless `sql_mode` has ERROR_FOR_DIVISION_BY_ZERO; then error
    /// 1365 in a strict data change without IGNORE
    /// ([`Session::strict_statement`]), else NULL with warning 1365.
    fn division_by_zero(&self) -> eval::DivisionByZero {
        let mode = cached(&self.hot.division_by_zero_mode, || {
            self.sql_mode_has("ERROR_FOR_DIVISION_BY_ZERO")
        });
        match (mode, self.strict_statement) {
            (false, _) => eval::DivisionByZero::Null,
            (true, false) => eval::DivisionByZero::Warn,
            (true, true) => eval::DivisionByZero::Error,
        }
    }

    /// Marks the data change about to run as strict (see
    /// [`Session::strict_statement`]) when `sql_mode` is strict and it has
    /// no IGNORE; returns the previous mark, for
    /// [`end_strict_statement`](Self::end_strict_statement).
    pub(crate) fn begin_strict_statement(&mut self, ignore: bool) -> bool {
        let strict = !ignore && self.strict();
        std::mem::replace(&mut self.strict_statement, strict)
    }

    /// Puts back the mark [`begin_strict_statement`](Self::begin_strict_statement)
    /// returned.
    pub(crate) fn end_strict_statement(&mut self, previous: bool) {
        self.strict_statement = previous;
    }
}

impl eval::Session for Session {
    fn call_stored_function(
        &self,
        schema: Option<&str>,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, SqlError> {
        crate::exec::routine::call_function(self, schema, name, args)
    }

    fn run_subquery(
        &self,
        template: &sqlparser::ast::Query,
        id: u64,
        outer: &[Value],
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        crate::exec::select::run_correlated(self, template, id, outer, params)
    }

    fn current_database(&self) -> Option<String> {
        self.current_db.clone()
    }

    fn connection_id(&self) -> u64 {
        self.process.id
    }

    fn last_insert_id(&self) -> u64 {
        self.last_insert_id
    }

    fn found_rows(&self) -> u64 {
        self.found_rows
    }

    fn row_count(&self) -> i64 {
        self.row_count
    }

    fn server_version(&self) -> String {
        SERVER_VERSION.to_owned()
    }

    fn current_user(&self) -> String {
        format!("{}@{}", self.process.user, self.process.host)
    }

    fn current_account(&self) -> String {
        format!("{}@{}", self.account.user, self.account.host)
    }

    fn system_variable(&self, name: &str, scope: VarScope) -> Result<Value, SqlError> {
        let def = variables::lookup(name).ok_or_else(|| SqlError::unknown_variable(name))?;
        // Seconds read with six decimals (`@@timestamp` is 1.500000), as
        // MariaDB's DOUBLE variables with six decimals print.
        let seconds = |v: Value| match (def.kind, v) {
            (variables::Kind::Seconds { .. }, Value::Double(d)) => Value::Decimal(
                larch_engine::record::value::Decimal::from_i128((d * 1e6).round() as i128, 6),
            ),
            (_, v) => v,
        };
        self.scoped_variable(def, scope).map(seconds)
    }

    fn user_variable(&self, name: &str) -> Value {
        self.user_vars
            .get(&name.to_ascii_lowercase())
            .map_or(Value::Null, |u| u.value)
    }
}

impl Session {
    fn scoped_variable(&self, def: &VarDef, scope: VarScope) -> Result<Value, SqlError> {
        match scope {
            VarScope::Global => {
                if def.scope == Scope::Session {
                    return Err(SqlError::new(
                        1238,
                        format!("Variable '{}' is a SESSION variable", def.name),
                    ));
                }
                Ok(self.db.global_value(def))
            }
            VarScope::Session if def.scope == Scope::Global => Err(SqlError::new(
                1238,
                format!("Variable '{}' is a GLOBAL variable", def.name),
            )),
            _ => Ok(self.var(def)),
        }
    }
}
