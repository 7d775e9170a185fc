//! Privileges of stored routine statements: CREATE ROUTINE on the database
//! for CREATE PROCEDURE/FUNCTION, ALTER ROUTINE for ALTER and DROP, EXECUTE
//! for CALL (and for a stored function called in an expression), all at the
//! database level or above (routine-level grants are not kept).

use larch_engine::catalog::ProgramKind;

use super::bits::Privs;
use super::check::Checker;
use crate::error::SqlError;
use crate::parse::routine::RoutineStatement;
use crate::session::Session;

/// `(db, name)` of a routine name; `None` when it has no database (the
/// statement then fails with its own error).
fn db_of(s: &Session, name: &sqlparser::ast::ObjectName) -> Option<(String, String)> {
    crate::exec::program::head::name_of(s, name, "routine").ok()
}

/// Checks a routine statement before it runs.
pub(super) fn check(s: &Session, c: &Checker, r: &RoutineStatement) -> Result<(), SqlError> {
    match r {
        RoutineStatement::Create(cr) => match db_of(s, &cr.name) {
            Some((db, _)) => c.database(&db, Privs::CREATE_PROC),
            None => Ok(()),
        },
        RoutineStatement::Drop { name, .. } | RoutineStatement::Alter { name, .. } => {
            match db_of(s, name) {
                Some((db, _)) => c.database(&db, Privs::ALTER_PROC),
                None => Ok(()),
            }
        }
        RoutineStatement::Call { name, .. } => match db_of(s, name) {
            Some((db, n)) => execute(c, &db, &n, ProgramKind::Procedure),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Error 1370 unless the account may run `db.name`.
pub(crate) fn execute(
    c: &Checker,
    db: &str,
    name: &str,
    kind: ProgramKind,
) -> Result<(), SqlError> {
    if c.is_all() || c.privs.on_db(db).contains(Privs::EXECUTE) {
        return Ok(());
    }
    let _ = kind;
    Err(SqlError::new(
        1370,
        format!(
            "execute command denied to user '{}'@'{}' for routine '{db}.{name}'",
            c.user, c.client_host
        ),
    ))
}
