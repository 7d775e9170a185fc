//! The name of a select-list item without an alias: a column's name, a
//! string literal's value, otherwise the expression (the parser names the
//! items of a statement's first SELECT by their text, `parse::names`).

use sqlparser::ast;

pub(crate) fn expr_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Identifier(i) => i.value.clone(),
        ast::Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()).unwrap_or_default(),
        ast::Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            ) =>
        {
            expr_name(inner)
        }
        ast::Expr::Prefixed { value, .. } => expr_name(value),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            _ => e.to_string(),
        },
        _ => e.to_string(),
    }
}
