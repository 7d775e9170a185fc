//! Local variables and parameters in a stored program's statements and
//! expressions: every unqualified name that is a variable in scope (local
//! variables win over columns, as in MariaDB) becomes a numbered `?`
//! parameter, and the variable's current value is that parameter's value.
//! The statement then runs through the ordinary machinery, as a prepared
//! statement with parameters does.

use std::ops::ControlFlow;

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::parse::Statement;

/// The variables a program sees.
pub(crate) trait Scope {
    fn lookup(&self, name: &str) -> Option<Value>;
}

fn replace(e: &mut ast::Expr, scope: &dyn Scope, params: &mut Vec<Value>) {
    if let ast::Expr::Identifier(id) = e {
        if let Some(v) = scope.lookup(&id.value) {
            let n = params.len();
            params.push(v);
            *e = ast::Expr::value(ast::Value::Placeholder(format!("?{n}")));
        }
    }
}

/// An expression with its locals bound.
pub(crate) fn bind_expr(e: &ast::Expr, scope: &dyn Scope) -> (ast::Expr, Vec<Value>) {
    let mut e = e.clone();
    let mut params = Vec::new();
    let _ = ast::visit_expressions_mut(&mut e, |x| {
        replace(x, scope, &mut params);
        ControlFlow::<()>::Continue(())
    });
    (e, params)
}

/// A query with its locals bound.
pub(crate) fn bind_query(q: &ast::Query, scope: &dyn Scope) -> (ast::Query, Vec<Value>) {
    let mut q = q.clone();
    let mut params = Vec::new();
    let _ = ast::visit_expressions_mut(&mut q, |x| {
        replace(x, scope, &mut params);
        ControlFlow::<()>::Continue(())
    });
    (q, params)
}

/// A statement with its locals bound.
pub(crate) fn bind_statement(stmt: &Statement, scope: &dyn Scope) -> (Statement, Vec<Value>) {
    let mut stmt = stmt.clone();
    let mut params = Vec::new();
    visit_statement_exprs(&mut stmt, &mut |x| replace(x, scope, &mut params));
    (stmt, params)
}

/// Calls `f` on every expression of a statement that can name a program's
/// locals (SQL statements, SELECT ... INTO, DO).
pub(crate) fn visit_statement_exprs(stmt: &mut Statement, f: &mut dyn FnMut(&mut ast::Expr)) {
    let mut visit = |x: &mut ast::Expr| {
        f(x);
        ControlFlow::<()>::Continue(())
    };
    match stmt {
        Statement::Sql(s) => {
            let _ = ast::visit_expressions_mut(s.as_mut(), &mut visit);
        }
        Statement::SelectInto { query, .. } => {
            let _ = ast::visit_expressions_mut(query.as_mut(), &mut visit);
        }
        Statement::Do(exprs) => {
            for e in exprs {
                let _ = ast::visit_expressions_mut(e, &mut visit);
            }
        }
        _ => {}
    }
}
