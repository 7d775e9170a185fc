//! SET: system variables (`SET [GLOBAL|SESSION] name = value`,
//! `SET @@global.name = value`), user variables (`SET @name = value`),
//! `SET NAMES`, `SET CHARACTER SET`, `SET TIME_ZONE`, and
//! `SET [SESSION] TRANSACTION ISOLATION LEVEL ... | READ ONLY | READ WRITE`.
//!
//! A bare word on the right (`SET autocommit = ON`, `sql_mode = DEFAULT`)
//! is the word itself, as MySQL reads it for system variables.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::{self, VarScope};
use crate::result::QueryResult;
use crate::session::Session;

pub(super) fn execute(
    s: &mut Session,
    set: &ast::Set,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    match set {
        ast::Set::SingleAssignment {
            scope,
            variable,
            values,
            ..
        } => {
            let value = values
                .first()
                .ok_or_else(|| SqlError::new(1064, "SET needs a value"))?;
            assign(s, *scope, variable, value, params)?;
        }
        ast::Set::MultipleAssignments { assignments } => {
            for a in assignments {
                assign(s, a.scope, &a.name, &a.value, params)?;
            }
        }
        ast::Set::ParenthesizedAssignments { variables, values } => {
            for (n, v) in variables.iter().zip(values) {
                assign(s, None, n, v, params)?;
            }
        }
        ast::Set::SetNames {
            charset_name,
            collation_name,
        } => set_names(s, &charset_name.value, collation_name.as_deref())?,
        ast::Set::SetNamesDefault {} => {
            let charset = global_client_charset(s);
            set_names(s, &charset, None)?
        }
        ast::Set::SetTimeZone { value, .. } => {
            let v = word_or_eval(s, value, params)?;
            s.set_var("time_zone", VarScope::Session, v)?;
        }
        ast::Set::SetTransaction { modes, session, .. } => {
            set_transaction(s, modes, session.then_some(false))?;
        }
        _ => return Err(SqlError::not_supported("this SET statement")),
    }
    Ok(QueryResult::ok())
}

/// `SET [GLOBAL|SESSION] TRANSACTION modes`: `scope` None = the next
/// transaction only (1568 inside one), Some(true) = global, Some(false) =
/// session.
pub(super) fn set_transaction(
    s: &mut Session,
    modes: &[ast::TransactionMode],
    scope: Option<bool>,
) -> Result<(), SqlError> {
    let var_scope = if scope == Some(true) {
        VarScope::Global
    } else {
        VarScope::Session
    };
    for m in modes {
        let (var, value) = match m {
            ast::TransactionMode::IsolationLevel(level) => {
                let name = match level {
                    ast::TransactionIsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
                    ast::TransactionIsolationLevel::ReadCommitted => "READ-COMMITTED",
                    ast::TransactionIsolationLevel::RepeatableRead => "REPEATABLE-READ",
                    _ => "SERIALIZABLE",
                };
                ("transaction_isolation", Value::Str(name.into()))
            }
            ast::TransactionMode::AccessMode(mode) => {
                let ro = matches!(mode, ast::TransactionAccessMode::ReadOnly);
                ("transaction_read_only", Value::UInt(u64::from(ro)))
            }
        };
        if scope.is_some() {
            s.set_var(var, var_scope, value)?;
        } else {
            s.set_next_transaction(var, value)?;
        }
    }
    Ok(())
}

/// `SET NAMES charset [COLLATE collation]`.
fn set_names(s: &mut Session, charset: &str, collation: Option<&str>) -> Result<(), SqlError> {
    let charset = charset.to_ascii_lowercase();
    let charset = if charset == "utf8" {
        "utf8mb3".to_owned()
    } else {
        charset
    };
    let collation = match collation.map(str::to_ascii_lowercase) {
        Some(c) => match c.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => c,
        },
        None => default_collation(&charset)
            .ok_or_else(|| SqlError::new(1115, format!("Unknown character set: '{charset}'")))?
            .to_owned(),
    };
    for var in [
        "character_set_client",
        "character_set_connection",
        "character_set_results",
    ] {
        s.set_var(var, VarScope::Session, Value::Str(charset.clone()))?;
    }
    s.set_var(
        "collation_connection",
        VarScope::Session,
        Value::Str(collation),
    )
}

/// `SET CHARACTER SET charset | DEFAULT`: client and results follow, the
/// connection takes the database's character set and collation
/// (`collation_database`), as in MariaDB; DEFAULT is the global
/// `character_set_client`.
pub(super) fn set_charset(s: &mut Session, charset: Option<&str>) -> Result<QueryResult, SqlError> {
    let charset = match charset {
        Some(c) => c.to_ascii_lowercase(),
        None => global_client_charset(s),
    };
    let charset = if charset == "utf8" {
        "utf8mb3".to_owned()
    } else {
        charset
    };
    if default_collation(&charset).is_none() {
        return Err(SqlError::new(
            1115,
            format!("Unknown character set: '{charset}'"),
        ));
    }
    for var in ["character_set_client", "character_set_results"] {
        s.set_var(var, VarScope::Session, Value::Str(charset.clone()))?;
    }
    let (database_charset, database_collation) = (
        s.var_by_name("character_set_database"),
        s.var_by_name("collation_database"),
    );
    s.set_var(
        "character_set_connection",
        VarScope::Session,
        database_charset,
    )?;
    s.set_var(
        "collation_connection",
        VarScope::Session,
        database_collation,
    )?;
    Ok(QueryResult::ok())
}

/// The global `character_set_client`, what `SET NAMES DEFAULT` and `SET
/// CHARACTER SET DEFAULT` choose.
fn global_client_charset(s: &Session) -> String {
    crate::session::variables::lookup("character_set_client")
        .map(|def| s.db.global_value(def))
        .and_then(|v| match v {
            Value::Str(c) => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .unwrap_or_else(|| "utf8mb4".to_owned())
}

fn default_collation(charset: &str) -> Option<&'static str> {
    Some(match charset {
        "utf8mb4" => "utf8mb4_general_ci",
        "utf8mb3" | "utf8" => "utf8mb3_general_ci",
        "latin1" => "latin1_swedish_ci",
        "ascii" => "ascii_general_ci",
        "binary" => "binary",
        _ => return None,
    })
}

fn assign(
    s: &mut Session,
    scope: Option<ast::ContextModifier>,
    name: &ast::ObjectName,
    value: &ast::Expr,
    params: &[Value],
) -> Result<(), SqlError> {
    let full: String = name
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.as_str())
        .collect::<Vec<_>>()
        .join(".");
    let mut scope = match scope {
        Some(ast::ContextModifier::Global) => VarScope::Global,
        Some(_) => VarScope::Session,
        None => VarScope::Default,
    };
    let lower = full.to_ascii_lowercase();
    // `@@name` without a scope: for the transaction characteristics, the
    // next transaction only (as `SET TRANSACTION`); `name` alone is the
    // session's.
    let mut next_only = false;
    let var = if let Some(rest) = lower.strip_prefix("@@") {
        if let Some(n) = rest.strip_prefix("global.") {
            scope = VarScope::Global;
            n.to_owned()
        } else if let Some(n) = rest
            .strip_prefix("session.")
            .or_else(|| rest.strip_prefix("local."))
        {
            scope = VarScope::Session;
            n.to_owned()
        } else {
            next_only = scope == VarScope::Default;
            rest.to_owned()
        }
    } else if let Some(user) = full.strip_prefix('@') {
        let (v, ty) = eval_typed(s, value, params)?;
        let name = user.trim_matches(['`', '\'', '"']).to_ascii_lowercase();
        crate::eval::uservar::forget(&name);
        s.user_vars
            .set(name, crate::eval::uservar::UserValue::new(v, &ty));
        return Ok(());
    } else if lower == "timezone" {
        "time_zone".to_owned()
    } else {
        lower
    };
    let v = match value {
        // `= DEFAULT`: the compiled-in default for GLOBAL, the global value
        // for SESSION (done here for every kind of variable: the session
        // treats the word as a value for string variables).
        ast::Expr::Identifier(id)
            if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default") =>
        {
            match crate::session::variables::lookup(&var) {
                Some(def) if scope == VarScope::Global => {
                    crate::session::variables::default_value(def, &s.db)
                }
                Some(def) => s.db.global_value(def),
                None => return Err(SqlError::unknown_variable(&var)),
            }
        }
        _ => word_or_eval(s, value, params)?,
    };
    if next_only
        && matches!(
            var.as_str(),
            "transaction_isolation" | "tx_isolation" | "transaction_read_only" | "tx_read_only"
        )
    {
        return s.set_next_transaction(&var, v);
    }
    let linked = linked_charset_setting(&var, &v);
    s.set_var(&var, scope, v)?;
    match linked {
        Some((name, value)) => s.set_var(name, scope, Value::Str(value)),
        None => Ok(()),
    }
}

/// As in MariaDB, setting a server or database character set also sets the
/// matching collation variable to the set's default collation, and setting
/// the collation sets the character set: the variable to set with it and
/// its value (None for other variables and for names Larch does not know).
fn linked_charset_setting(var: &str, value: &Value) -> Option<(&'static str, String)> {
    let Value::Str(name) = value else {
        return None;
    };
    let name = name.to_ascii_lowercase();
    match var {
        "character_set_server" | "character_set_database" => {
            let collation = default_collation(&name)?;
            let target = if var == "character_set_server" {
                "collation_server"
            } else {
                "collation_database"
            };
            Some((target, collation.to_owned()))
        }
        "collation_server" | "collation_database" => {
            let charset = if name.starts_with("utf8mb3_") || name.starts_with("utf8_") {
                "utf8mb3"
            } else {
                Collation::from_name(&name)?.charset().name()
            };
            let target = if var == "collation_server" {
                "character_set_server"
            } else {
                "character_set_database"
            };
            Some((target, charset.to_owned()))
        }
        _ => None,
    }
}

/// A bare word (`ON`, `DEFAULT`, `READ-COMMITTED` as an identifier) is its
/// text; anything else is evaluated.
fn word_or_eval(s: &mut Session, e: &ast::Expr, params: &[Value]) -> Result<Value, SqlError> {
    match e {
        // `@name` and `@@name` are variables, read as in any expression.
        ast::Expr::Identifier(id)
            if (id.quote_style.is_none() || id.quote_style == Some('`'))
                && !id.value.starts_with('@') =>
        {
            Ok(Value::Str(id.value.clone()))
        }
        ast::Expr::CompoundIdentifier(parts)
            if !parts.first().is_some_and(|p| p.value.starts_with('@')) =>
        {
            Ok(Value::Str(
                parts
                    .iter()
                    .map(|p| p.value.as_str())
                    .collect::<Vec<_>>()
                    .join("."),
            ))
        }
        ast::Expr::Value(v) if matches!(v.value, ast::Value::Boolean(_)) => Ok(Value::UInt(
            u64::from(matches!(v.value, ast::Value::Boolean(true))),
        )),
        // `SET tx_isolation = READ-COMMITTED` parses as a subtraction of words.
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Minus,
            right,
        } if matches!(**left, ast::Expr::Identifier(_))
            && matches!(**right, ast::Expr::Identifier(_)) =>
        {
            Ok(Value::Str(e.to_string().replace(' ', "")))
        }
        _ => eval_expr(s, e, params),
    }
}

/// Evaluates a SET value; its warnings (1365 for a division by zero...)
/// become the statement's, as in MariaDB.
fn eval_expr(s: &mut Session, e: &ast::Expr, params: &[Value]) -> Result<Value, SqlError> {
    eval_typed(s, e, params).map(|(v, _)| v)
}

/// [`eval_expr`], with the expression's static type.
fn eval_typed(
    s: &mut Session,
    e: &ast::Expr,
    params: &[Value],
) -> Result<(Value, ColumnType), SqlError> {
    use crate::exec::select::subquery;
    // Subqueries run once, in a snapshot of their own (as a SELECT's do).
    let inlined;
    let e = if subquery::expr_has_subquery(e) {
        let mut copy = e.clone();
        s.begin_read()?;
        let r = subquery::inline_expr(s, &mut copy, params);
        s.end_read();
        r?;
        inlined = copy;
        &inlined
    } else {
        e
    };
    let resolve = |_: &[ast::Ident]| None;
    let opts = eval::CompileOptions {
        collation: s.connection_collation(),
        clause: "SET".into(),
    };
    let c = eval::compile(e, &resolve, &opts)?;
    let (value, warnings) = {
        let mut ctx = s.eval_context(params);
        let value = c.eval_stored(&[], &mut ctx);
        (value, ctx.take_warnings())
    };
    for w in warnings {
        s.push_warning(w);
    }
    Ok((value?, c.ty.ty))
}
