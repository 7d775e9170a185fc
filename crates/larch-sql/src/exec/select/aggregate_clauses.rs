//! The clauses inside an aggregate call that the planner's rewrite
//! (`super::aggregate::rewrite`) takes apart: ORDER BY, LIMIT and
//! SEPARATOR of GROUP_CONCAT, and the argument count, ORDER BY and LIMIT of
//! JSON_ARRAYAGG / JSON_OBJECTAGG, with MariaDB's errors for them.

use sqlparser::ast;

use super::aggregate::{AggCall, AggKind};
use crate::error::SqlError;

/// The argument count, ORDER BY and LIMIT of JSON_ARRAYAGG /
/// JSON_OBJECTAGG (1582 for a wrong argument count, 1064 for DISTINCT on
/// JSON_OBJECTAGG, as MariaDB's grammar).
pub(super) fn json_clauses(
    name: &str,
    f: &ast::Function,
    call: &mut AggCall,
) -> Result<(), SqlError> {
    let values = super::json_aggregate::value_args(call.kind);
    if call.args.len() != values {
        return Err(SqlError::wrong_param_count(&name.to_ascii_uppercase()));
    }
    if call.distinct && call.kind == AggKind::JsonObjectAgg {
        return Err(SqlError::new(
            1064,
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to \
                 your MariaDB server version for the right syntax to use near 'distinct {}'",
                call.args[0]
            ),
        ));
    }
    call.json_value = matches!(
        &call.args[values - 1],
        ast::Expr::Function(g) if crate::eval::name_returns_json(&g.name.to_string())
    );
    order_and_limit(f, call, false)
}

/// The ORDER BY and LIMIT of GROUP_CONCAT or a JSON aggregate: the ORDER BY
/// expressions are appended to the call's arguments (`AggCall::order` holds
/// their directions). For GROUP_CONCAT (`concat`) a number in ORDER BY names
/// an argument and SEPARATOR is its own; a JSON aggregate has no SEPARATOR.
pub(super) fn order_and_limit(
    f: &ast::Function,
    call: &mut AggCall,
    concat: bool,
) -> Result<(), SqlError> {
    let ast::FunctionArguments::List(list) = &f.args else {
        return Ok(());
    };
    let values = call.args.len();
    for c in &list.clauses {
        match c {
            ast::FunctionArgumentClause::OrderBy(keys) => {
                for k in keys {
                    let position = match &k.expr {
                        ast::Expr::Value(v) if concat => match &v.value {
                            ast::Value::Number(n, _) => n.parse::<usize>().ok(),
                            _ => None,
                        },
                        _ => None,
                    };
                    let expr = match position {
                        Some(p) if (1..=values).contains(&p) => call.args[p - 1].clone(),
                        Some(_) => {
                            return Err(SqlError::new(
                                1054,
                                format!("Unknown column '{}' in 'ORDER BY'", k.expr),
                            ))
                        }
                        None => k.expr.clone(),
                    };
                    call.args.push(expr);
                    call.order
                        .push(matches!(k.options.sort, Some(ast::OrderBySort::Desc)));
                }
            }
            ast::FunctionArgumentClause::Limit(e) => {
                let n = match e {
                    ast::Expr::Value(v) => match &v.value {
                        ast::Value::Number(n, _) => n.parse::<u64>().ok(),
                        _ => None,
                    },
                    _ => None,
                };
                call.limit = Some(n.ok_or_else(|| {
                    SqlError::new(
                        1691,
                        "A variable of a non-integer based type in LIMIT clause",
                    )
                })?);
            }
            ast::FunctionArgumentClause::Separator(_) if !concat => {
                return Err(crate::ddl::syntax_error("separator"))
            }
            _ => {}
        }
    }
    Ok(())
}
