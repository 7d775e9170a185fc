//! `SET STATEMENT var = value, ... FOR statement`: the session variables take
//! the values for the one statement and get their previous values back
//! afterwards, whether it succeeded or not (MariaDB 10.1+).
//!
//! As in MariaDB: only session variables (a GLOBAL-only one is 1229), not
//! those listed in [`NOT_ALLOWED`] (1971), and the values may not hold
//! subqueries (1970).

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::VarScope;
use crate::parse::Statement;
use crate::result::QueryResult;
use crate::session::{variables, Session};

/// Variables MariaDB refuses in SET STATEMENT.
const NOT_ALLOWED: [&str; 13] = [
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_filesystem",
    "collation_connection",
    "interactive_timeout",
    "query_cache_type",
    "skip_replication",
    "sql_log_off",
    "tx_isolation",
    "transaction_isolation",
    "wait_timeout",
    "gtid_domain_id",
];

pub(super) fn execute(
    s: &mut Session,
    set: &ast::Set,
    inner: &Statement,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    let items: Vec<(&ast::ObjectName, &ast::Expr)> = match set {
        ast::Set::SingleAssignment {
            variable, values, ..
        } => values.iter().map(|v| (variable, v)).collect(),
        ast::Set::MultipleAssignments { assignments } => {
            assignments.iter().map(|a| (&a.name, &a.value)).collect()
        }
        _ => Vec::new(),
    };
    let mut saved: Vec<(&'static str, Value)> = Vec::new();
    for (name, value) in &items {
        let var = variable_name(name);
        if NOT_ALLOWED.contains(&var.as_str()) {
            return Err(SqlError::new(
                1971,
                format!("The system variable {var} cannot be set in SET STATEMENT."),
            ));
        }
        if has_subquery(value) {
            return Err(SqlError::new(
                1970,
                "SET STATEMENT does not support subqueries or stored functions",
            ));
        }
        if let Some(def) = variables::lookup(&var) {
            if def.scope != variables::Scope::Global && !saved.iter().any(|(n, _)| *n == def.name) {
                saved.push((def.name, s.var(def)));
            }
        }
    }
    let result = super::set::execute(s, set, params).and_then(|_| {
        // The statement runs under the time limits just set.
        s.arm_time_limit(inner);
        super::execute_statement(s, inner, params, None)
    });
    for (name, value) in saved.into_iter().rev() {
        let _ = s.set_var(name, VarScope::Session, value);
    }
    result
}

/// The variable an assignment names, lower-case, without `@@`/`@@session.`/
/// `@@local.` (a structured `keycache.x` names `x`).
fn variable_name(name: &ast::ObjectName) -> String {
    let parts: Vec<String> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.to_ascii_lowercase())
        .collect();
    let joined = parts.join(".");
    let bare = joined.strip_prefix("@@").unwrap_or(&joined);
    let bare = bare
        .strip_prefix("session.")
        .or_else(|| bare.strip_prefix("local."))
        .unwrap_or(bare);
    bare.rsplit('.').next().unwrap_or(bare).to_owned()
}

fn has_subquery(e: &ast::Expr) -> bool {
    let mut found = false;
    let _ = ast::visit_expressions(e, |x: &ast::Expr| {
        if matches!(
            x,
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. }
        ) {
            found = true;
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    });
    found
}
