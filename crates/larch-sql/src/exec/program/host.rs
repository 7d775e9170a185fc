//! The session host a procedure's or a trigger's statements run on
//! ([`SessionHost`]), and [`run_body`]: a program body run with its locals
//! declared and the program's database current.
//!
//! A procedure's statements are statements of their own (each its own
//! privilege check and, under autocommit, its own transaction; a SELECT's
//! rows become a result of the CALL). A trigger's run inside the statement
//! that fired it (`exec::execute_in_trigger`: no commit, no statement end
//! of their own) and may return no result set (1415).

use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::head::Definer;
use super::routine::{Host, Interp};
use crate::error::{SqlError, Warning};
use crate::eval::uservar::UserValue;
use crate::parse::routine_body::SpStmt;
use crate::parse::Statement;
use crate::privileges::check::Checker;
use crate::privileges::SessionAccount;
use crate::result::{QueryResult, RowSet};
use crate::session::Session;

/// What kind of program a [`SessionHost`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A procedure or an anonymous block.
    Procedure,
    /// A trigger, inside the statement that fired it.
    Trigger,
}

/// A host that runs a program's statements on the session itself.
pub(crate) struct SessionHost<'s> {
    pub s: &'s mut Session,
    pub role: Role,
}

impl Host for SessionHost<'_> {
    fn session(&self) -> &Session {
        self.s
    }

    fn run(&mut self, stmt: &Statement, params: &[Value]) -> Result<QueryResult, SqlError> {
        match self.role {
            Role::Trigger => crate::exec::execute_in_trigger(self.s, stmt, params),
            Role::Procedure => {
                let r = crate::exec::execute(self.s, stmt, params);
                self.s.note_row_count(&r);
                r
            }
        }
    }

    fn query(&mut self, q: &ast::Query, params: &[Value]) -> Result<RowSet, SqlError> {
        match crate::exec::select::execute(self.s, q, params, None)? {
            QueryResult::Rows(set) => Ok(set),
            QueryResult::Ok(_) => Ok(RowSet::default()),
        }
    }

    fn emit(&mut self, set: RowSet) -> Result<(), SqlError> {
        match self.role {
            Role::Procedure => {
                self.s.routine_results.push(QueryResult::Rows(set));
                Ok(())
            }
            Role::Trigger => Err(SqlError::new(
                1415,
                "Not allowed to return a result set from a trigger",
            )),
        }
    }

    fn set_user_var(&mut self, name: &str, v: UserValue) {
        crate::eval::uservar::forget(name);
        self.s.user_vars.set(name.to_string(), v);
    }

    fn warn(&mut self, w: Warning) {
        self.s.push_warning(w);
    }

    fn use_db(&mut self, db: Option<&str>) {
        self.s.current_db = db.map(str::to_string);
    }

    fn swap_account(&mut self, account: SessionAccount) -> SessionAccount {
        std::mem::replace(&mut self.s.account, account)
    }
}

/// One local a program starts with: name, declared type (`None`: the
/// value's own) and value.
pub(crate) type Local = (String, Option<ColumnType>, Value);

/// Runs `body` on `it` with `schema` the current database, `locals`
/// declared first and, with `run_as`, that account's privileges (SQL
/// SECURITY DEFINER, triggers: see [`definer_account`]); the caller's
/// database and account are back afterwards. Returns what the body
/// RETURNed (functions).
pub(crate) fn run_body(
    it: &mut Interp<'_>,
    schema: &str,
    locals: Vec<Local>,
    body: &SpStmt,
    run_as: Option<SessionAccount>,
) -> Result<Option<Value>, SqlError> {
    for (name, ty, v) in locals {
        it.declare(&name, ty, v)?;
    }
    let saved_db = it.host.session().current_db.clone();
    let saved_account = run_as.map(|a| it.host.swap_account(a));
    it.host.use_db(Some(schema));
    // The caller's database and account come back even when the body
    // panics: the session must not keep the definer's privileges.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| it.run_body(body)));
    it.host.use_db(saved_db.as_deref());
    if let Some(a) = saved_account {
        it.host.swap_account(a);
    }
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Error 1449 unless `definer` is an account.
pub(crate) fn check_definer_exists(s: &Session, definer: &Definer) -> Result<(), SqlError> {
    if s.db
        .acl
        .snapshot()
        .account(&definer.0, &definer.1)
        .is_some()
    {
        return Ok(());
    }
    Err(missing_definer(definer))
}

fn missing_definer(definer: &Definer) -> SqlError {
    SqlError::new(
        1449,
        format!(
            "The user specified as a definer ('{}'@'{}') does not exist",
            definer.0, definer.1
        ),
    )
}

/// Note 1449 when a program is created with a DEFINER that is no account
/// (it is kept; running it fails until the account exists).
pub(crate) fn note_missing_definer(s: &mut Session, definer: &Definer) {
    if check_definer_exists(s, definer).is_err() {
        let e = missing_definer(definer);
        s.push_warning(Warning::note(e.code(), e.message()));
    }
}

/// The account a program with definer's rights runs as (1449 when the
/// definer is no account), and the checker of its privileges.
pub(crate) fn definer_account(
    s: &Session,
    definer: &Definer,
) -> Result<(SessionAccount, Checker), SqlError> {
    check_definer_exists(s, definer)?;
    let mut account = SessionAccount::new(&definer.0, &definer.1);
    let checker = Checker {
        privs: account.privileges(&s.db.acl),
        user: definer.0.clone(),
        account_host: definer.1.clone(),
        client_host: definer.1.clone(),
    };
    Ok((account, checker))
}
