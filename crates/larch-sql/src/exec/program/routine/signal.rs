//! SIGNAL and RESIGNAL: the condition a program raises (SQLSTATE, error
//! number, message), MariaDB's defaults for a SQLSTATE class, and named
//! conditions resolved through the handler scopes.

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::interp::{HandlerScope, Interp, Raise};
use crate::error::SqlError;
use crate::parse::routine_body::CondValue;

/// Builds the condition of a SIGNAL / RESIGNAL (errors of its own, such as
/// 1645 RESIGNAL without an active handler, are returned as `Err`).
pub(super) fn signal(
    it: &mut Interp<'_>,
    resignal: bool,
    condition: Option<&CondValue>,
    items: &[(String, ast::Expr)],
) -> Result<Raise, SqlError> {
    let (mut code, mut state, mut message) = match (resignal, condition) {
        (true, None) => match it.active.last() {
            Some((e, st)) => (
                e.code(),
                st.clone().unwrap_or_else(|| e.sqlstate().to_string()),
                e.message(),
            ),
            None => {
                return Err(SqlError::new(1645, "RESIGNAL when handler not active"));
            }
        },
        (_, Some(c)) => {
            if resignal && it.active.is_empty() {
                return Err(SqlError::new(1645, "RESIGNAL when handler not active"));
            }
            match resolve_condition(c, &it.scopes) {
                Some(CondValue::State(s)) => {
                    let (code, msg) = default_for_state(&s);
                    (code, s, msg.to_string())
                }
                Some(CondValue::Code(n)) => {
                    if resignal {
                        (n, "HY000".to_string(), format!("Unknown error {n}"))
                    } else {
                        return Err(SqlError::new(1064, "SIGNAL needs an SQLSTATE condition"));
                    }
                }
                _ => {
                    let name = match c {
                        CondValue::Named(n) => n.clone(),
                        _ => String::new(),
                    };
                    return Err(SqlError::new(1319, format!("Undefined CONDITION: {name}")));
                }
            }
        }
        (false, None) => return Err(SqlError::new(1064, "SIGNAL without a condition")),
    };
    for (name, e) in items {
        let v = it.eval(e)?;
        match name.as_str() {
            "MESSAGE_TEXT" => {
                message = crate::value::store::value_to_string(&v);
            }
            "MYSQL_ERRNO" => {
                code = match v {
                    Value::Int(n) if (1..=65534).contains(&n) => n as u16,
                    Value::UInt(n) if (1..=65534).contains(&n) => n as u16,
                    other => {
                        return Err(SqlError::new(
                            1231,
                            format!(
                                "Variable 'MYSQL_ERRNO' can't be set to the value of '{}'",
                                crate::value::store::value_to_string(&other)
                            ),
                        ))
                    }
                };
            }
            "CLASS_ORIGIN" | "SUBCLASS_ORIGIN" | "CONSTRAINT_CATALOG" | "CONSTRAINT_SCHEMA"
            | "CONSTRAINT_NAME" | "CATALOG_NAME" | "SCHEMA_NAME" | "TABLE_NAME" | "COLUMN_NAME"
            | "CURSOR_NAME" => {}
            other => {
                return Err(SqlError::new(
                    1064,
                    format!("Unknown condition item {other}"),
                ));
            }
        }
    }
    if state.starts_with("01") {
        // A warning: unhandled, it is only a warning.
        return Ok(Raise {
            err: SqlError::new(code, message),
            state: Some(std::mem::take(&mut state)),
            searched: false,
            warning: true,
        });
    }
    Ok(Raise {
        err: SqlError::new(code, message),
        state: Some(state),
        searched: false,
        warning: false,
    })
}

/// A named condition resolved through the scopes (innermost first).
pub(super) fn resolve_condition(v: &CondValue, scopes: &[HandlerScope]) -> Option<CondValue> {
    match v {
        CondValue::Named(n) => scopes.iter().rev().find_map(|s| {
            s.conditions
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(n))
                .map(|(_, v)| v.clone())
        }),
        other => Some(other.clone()),
    }
}

/// SIGNAL's default error number and message for a SQLSTATE class.
fn default_for_state(state: &str) -> (u16, &'static str) {
    if state.starts_with("01") {
        (1642, "Unhandled user-defined warning condition")
    } else if state.starts_with("02") {
        (1643, "Unhandled user-defined not found condition")
    } else {
        (1644, "Unhandled user-defined exception condition")
    }
}
