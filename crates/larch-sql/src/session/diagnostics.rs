//! When a statement starts, what becomes of the diagnostics area (the
//! conditions SHOW WARNINGS, SHOW ERRORS, `@@warning_count` and
//! `@@error_count` read), as in MariaDB: SHOW WARNINGS / SHOW ERRORS keep
//! it; a statement that reads no tables (`SELECT` without FROM, `SET`,
//! `USE`, `DO`) keeps the previous statement's conditions until it raises
//! one of its own (so `SELECT @@warning_count` counts the previous
//! statement's); any other statement starts with an empty area.
//!
//! Within a statement the area keeps every condition in the order raised,
//! the error last but for those MariaDB raises after it
//! (`SqlError::WithConditions`).

use sqlparser::ast;

use super::Session;
use crate::parse::Statement;

/// Clears the area for `stmt`, or marks it as the previous statement's.
pub(super) fn statement_starts(s: &mut Session, stmt: &Statement) {
    if matches!(stmt, Statement::ShowWarnings { .. }) {
        return;
    }
    if reads_no_tables(stmt) {
        s.warnings_stale = true;
    } else {
        s.warnings.clear();
        s.warnings_stale = false;
    }
}

/// True for a statement that opens no table.
fn reads_no_tables(stmt: &Statement) -> bool {
    let sql = match stmt {
        Statement::Do(_) => return true,
        Statement::Sql(sql) => sql.as_ref(),
        _ => return false,
    };
    let kind_without_tables = match sql {
        ast::Statement::Query(q) => {
            q.with.is_none()
                && matches!(q.body.as_ref(), ast::SetExpr::Select(sel) if sel.from.is_empty())
        }
        ast::Statement::Set(_) | ast::Statement::Use(_) => true,
        _ => false,
    };
    kind_without_tables
        && !ast::visit_relations(sql, |_| std::ops::ControlFlow::Break(())).is_break()
}
