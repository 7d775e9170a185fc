//! The host a stored function runs on: [`FuncHost`], the shared session of
//! the statement that called it from an expression (procedures and
//! anonymous blocks run on `program::host::SessionHost`).

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::interp::Host;
use super::{eval_typed, user_var_name};
use crate::error::{SqlError, Warning};
use crate::eval::uservar::UserValue;
use crate::parse::Statement;
use crate::result::{QueryResult, RowSet};
use crate::session::Session;

/// A stored function's host: the session of the statement that called it.
pub(super) struct FuncHost<'s> {
    pub s: &'s Session,
}

impl Host for FuncHost<'_> {
    fn session(&self) -> &Session {
        self.s
    }

    fn run(&mut self, stmt: &Statement, params: &[Value]) -> Result<QueryResult, SqlError> {
        // SET @user = expr: into the statement's user variable overlay.
        if let Statement::Sql(st) = stmt {
            if let ast::Statement::Set(ast::Set::SingleAssignment {
                scope: None,
                hivevar: false,
                variable,
                values,
            }) = st.as_ref()
            {
                let n = variable.to_string();
                if let (Some(u), [v]) = (
                    user_var_name(&ast::Expr::Identifier(ast::Ident::new(n))),
                    values.as_slice(),
                ) {
                    let (v, ty) = eval_typed(self, v, params)?;
                    crate::eval::uservar::assign(&u, UserValue::new(v, &ty));
                    return Ok(QueryResult::ok());
                }
            }
        }
        Err(SqlError::not_supported(
            "this statement in a stored function called from an expression",
        ))
    }

    fn query(&mut self, q: &ast::Query, params: &[Value]) -> Result<RowSet, SqlError> {
        crate::exec::select::run_query(self.s, q, params)
    }

    fn emit(&mut self, _: RowSet) -> Result<(), SqlError> {
        Err(SqlError::new(
            1415,
            "Not allowed to return a result set from a function",
        ))
    }

    fn set_user_var(&mut self, name: &str, v: UserValue) {
        crate::eval::uservar::assign(name, v);
    }

    fn warn(&mut self, _: Warning) {}

    fn use_db(&mut self, _: Option<&str>) {}
}
