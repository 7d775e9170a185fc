//! Running triggers: the triggers of a statement's target table
//! ([`TableTriggers`], loaded once per statement), firing them for one row
//! ([`fire`]), and the body rewrite that makes `NEW.col` and `OLD.col`
//! local variables of the stored program interpreter.
//!
//! - `NEW.col` / `OLD.col` anywhere in the body become the locals
//!   `NEW.col` / `OLD.col` (names no one can write unquoted), bound as
//!   statement parameters like every local; `SET NEW.col = v` assigns the
//!   local, converted to the column's type (NEW locals are declared with
//!   the column types), and a BEFORE trigger's NEW values become the row
//!   that is checked and written.
//! - A trigger's statements run on the session inside the statement that
//!   fired it (`TriggerState::depth` > 0): they take no commit and no
//!   statement end of their own (`Session::end_statement` only reverts a
//!   failed one to its mark), so the firing statement's undo mark covers
//!   everything its triggers changed and an error anywhere fails and
//!   reverts the whole statement.
//! - Tables being changed by the statements that fired the running
//!   triggers may not be changed by them (1442, as MariaDB).

use std::ops::ControlFlow;
use std::sync::Arc;

use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::TableDef;
use sqlparser::ast;

use super::super::host::{definer_account, run_body, Role, SessionHost};
use super::super::routine::{visit_statement_exprs, Interp};
use super::def::{parsed_body, TriggerDef};
use crate::error::SqlError;
use crate::parse::routine_body::{Block, Decl, Handler, SetItem, SpStmt};
use crate::parse::trigger::{row_ref, set_target, Event, Timing};
use crate::parse::Statement;
use crate::privileges::bits::Privs;
use crate::privileges::SessionAccount;
use crate::session::Session;

/// The session's trigger bookkeeping.
#[derive(Debug, Default)]
pub(crate) struct TriggerState {
    /// Triggers running (nested statements end with the firing statement).
    pub depth: u32,
    /// `(db, table)` of the tables the firing statements change.
    pub in_use: Vec<(String, String)>,
}

/// One trigger ready to fire.
#[derive(Debug)]
struct Ready {
    name: String,
    def: TriggerDef,
    body: Arc<SpStmt>,
    /// The definer's account when it exists and has the TRIGGER privilege
    /// on the table (else firing fails with the reason, see [`run_as`]).
    run_as: Option<SessionAccount>,
}

/// The triggers of one table, in firing order.
#[derive(Debug)]
pub(crate) struct TableTriggers {
    db: String,
    table: String,
    list: Vec<Ready>,
}

impl TableTriggers {
    /// Whether a trigger fires at `timing` on `event`.
    pub(crate) fn has(&self, timing: Timing, event: Event) -> bool {
        self.list
            .iter()
            .any(|r| r.def.timing == timing && r.def.event == event)
    }

    /// The triggers of `db.table`; `None` when it has none.
    pub(crate) fn load(
        s: &Session,
        db: &str,
        table: &str,
    ) -> Result<Option<Arc<TableTriggers>>, SqlError> {
        let catalog = s.db.catalog();
        if !catalog.has_triggers() {
            return Ok(None);
        }
        let entries = catalog.table_triggers(db, table);
        if entries.is_empty() {
            return Ok(None);
        }
        let mut list = Vec::with_capacity(entries.len());
        for e in entries {
            let (def, body) = parsed_body(&e.schema, &e.name, &e.definition)?;
            let run_as = run_as(s, &def, db, table).ok();
            list.push(Ready {
                name: e.name,
                def,
                body,
                run_as,
            });
        }
        list.sort_by_key(|r| (r.def.timing, r.def.event, r.def.order));
        Ok(Some(Arc::new(TableTriggers {
            db: db.to_string(),
            table: table.to_string(),
            list,
        })))
    }
}

/// The account a trigger runs as: its definer's, which must exist (1449)
/// and have the TRIGGER privilege on the table (1142).
fn run_as(
    s: &Session,
    def: &TriggerDef,
    db: &str,
    table: &str,
) -> Result<SessionAccount, SqlError> {
    let (account, checker) = definer_account(s, &def.definer)?;
    if !checker.is_all() {
        checker.table(db, table, Privs::TRIGGER)?;
    }
    Ok(account)
}

/// Error 1442 when `db.table` is changed by a statement that fired the
/// running triggers.
pub(crate) fn check_not_in_use(s: &Session, db: &str, table: &str) -> Result<(), SqlError> {
    if s.triggers.in_use.iter().any(|(d, t)| d == db && t == table) {
        return Err(SqlError::new(
            1442,
            format!("Can't update table '{table}' in stored function/trigger because it is already used by statement which invoked this stored function/trigger"),
        ));
    }
    Ok(())
}

/// The local variable name of `NEW.col` / `OLD.col`.
fn local_name(new: bool, col: &str) -> String {
    format!("{}.{col}", if new { "NEW" } else { "OLD" })
}

fn engine_to_local(v: &Value, ty: &ColumnType) -> Value {
    crate::value::expression_value(v, ty)
}

/// Fires the triggers of `timing` and `event` for one row: `old` is the
/// row before (UPDATE, DELETE), `new` the row to write (INSERT, UPDATE),
/// which a BEFORE trigger may change.
pub(crate) fn fire(
    s: &mut Session,
    tt: &TableTriggers,
    timing: Timing,
    event: Event,
    def: &TableDef,
    old: Option<&[Value]>,
    mut new: Option<&mut Vec<Value>>,
) -> Result<(), SqlError> {
    for r in tt
        .list
        .iter()
        .filter(|r| r.def.timing == timing && r.def.event == event)
    {
        let saved_read = s.read;
        let saved_locking = s.locking.take();
        let saved_db = s.current_db.clone();
        s.triggers.depth += 1;
        s.triggers.in_use.push((tt.db.clone(), tt.table.clone()));
        // What the trigger changed in the session comes back even when it
        // panics.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_one(s, tt, r, def, old, new.as_deref_mut())
        }));
        s.triggers.in_use.pop();
        s.triggers.depth -= 1;
        s.current_db = saved_db;
        s.locking = saved_locking;
        s.read = saved_read;
        result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
    }
    Ok(())
}

fn run_one(
    s: &mut Session,
    tt: &TableTriggers,
    r: &Ready,
    def: &TableDef,
    old: Option<&[Value]>,
    new: Option<&mut Vec<Value>>,
) -> Result<(), SqlError> {
    let mut locals = Vec::new();
    if let Some(old) = old {
        for (c, v) in def.columns.iter().zip(old) {
            locals.push((local_name(false, &c.name), None, engine_to_local(v, &c.ty)));
        }
    }
    if let Some(new) = new.as_deref() {
        for (c, v) in def.columns.iter().zip(new) {
            locals.push((
                local_name(true, &c.name),
                Some(c.ty.clone()),
                engine_to_local(v, &c.ty),
            ));
        }
    }
    let account = match &r.run_as {
        Some(a) => a.clone(),
        None => run_as(s, &r.def, &tt.db, &tt.table)?,
    };
    let mut host = SessionHost {
        s,
        role: Role::Trigger,
    };
    let mut it = Interp::new(&mut host);
    run_body(&mut it, &tt.db, locals, &r.body, Some(account)).inspect_err(|e| {
        tracing::debug!(trigger = %r.name, error = %e.message(), "trigger failed");
    })?;
    if let (Some(new), Timing::Before) = (new, r.def.timing) {
        for (i, c) in def.columns.iter().enumerate() {
            if let Some(v) = it.value(&local_name(true, &c.name)) {
                new[i] = v;
            }
        }
    }
    Ok(())
}

/// `NEW.col` / `OLD.col` in an expression become the locals' names.
fn rewrite_expr(e: &mut ast::Expr) {
    let _ = ast::visit_expressions_mut(e, |x| {
        rewrite_row_ref(x);
        ControlFlow::<()>::Continue(())
    });
}

/// `NEW.col` / `OLD.col` itself becomes the local's name.
fn rewrite_row_ref(x: &mut ast::Expr) {
    if let ast::Expr::CompoundIdentifier(parts) = x {
        if let Some((new, col)) = row_ref(parts) {
            *x = ast::Expr::Identifier(ast::Ident::new(local_name(new, col)));
        }
    }
}

fn rewrite_statement(st: &Statement) -> Statement {
    let mut st = st.clone();
    visit_statement_exprs(&mut st, &mut rewrite_row_ref);
    st
}

fn rewrite_list(v: &[SpStmt]) -> Vec<SpStmt> {
    v.iter().map(rewrite_body).collect()
}

fn expr(e: &ast::Expr) -> ast::Expr {
    let mut e = e.clone();
    rewrite_expr(&mut e);
    e
}

/// A trigger body with `NEW.col` / `OLD.col` made locals (see the module
/// documentation).
pub(crate) fn rewrite_body(s: &SpStmt) -> SpStmt {
    match s {
        SpStmt::Block(b) => SpStmt::Block(Block {
            label: b.label.clone(),
            decls: b
                .decls
                .iter()
                .map(|d| match d {
                    Decl::Var { names, ty, default } => Decl::Var {
                        names: names.clone(),
                        ty: ty.clone(),
                        default: default.as_ref().map(|e| Box::new(expr(e))),
                    },
                    Decl::Cursor { name, query } => {
                        let mut q = query.clone();
                        let _ = ast::visit_expressions_mut(q.as_mut(), |x| {
                            rewrite_expr(x);
                            ControlFlow::<()>::Continue(())
                        });
                        Decl::Cursor {
                            name: name.clone(),
                            query: q,
                        }
                    }
                    Decl::Handler(h) => Decl::Handler(Arc::new(Handler {
                        exit: h.exit,
                        conditions: h.conditions.clone(),
                        body: rewrite_body(&h.body),
                    })),
                    other => other.clone(),
                })
                .collect(),
            body: rewrite_list(&b.body),
        }),
        SpStmt::If {
            branches,
            otherwise,
        } => SpStmt::If {
            branches: branches
                .iter()
                .map(|(e, b)| (expr(e), rewrite_list(b)))
                .collect(),
            otherwise: otherwise.as_deref().map(rewrite_list),
        },
        SpStmt::Case {
            operand,
            whens,
            otherwise,
        } => SpStmt::Case {
            operand: operand.as_ref().map(expr),
            whens: whens
                .iter()
                .map(|(e, b)| (expr(e), rewrite_list(b)))
                .collect(),
            otherwise: otherwise.as_deref().map(rewrite_list),
        },
        SpStmt::While { label, cond, body } => SpStmt::While {
            label: label.clone(),
            cond: expr(cond),
            body: rewrite_list(body),
        },
        SpStmt::Repeat { label, body, until } => SpStmt::Repeat {
            label: label.clone(),
            body: rewrite_list(body),
            until: expr(until),
        },
        SpStmt::Loop { label, body } => SpStmt::Loop {
            label: label.clone(),
            body: rewrite_list(body),
        },
        SpStmt::Return(e) => SpStmt::Return(expr(e)),
        SpStmt::Set(items) => SpStmt::Set(
            items
                .iter()
                .map(|it| match set_target(it) {
                    Some((new, col)) => SetItem {
                        local: Some(local_name(new, &col)),
                        value: expr(&it.value),
                        stmt: None,
                    },
                    None => SetItem {
                        local: it.local.clone(),
                        value: expr(&it.value),
                        stmt: it.stmt.as_ref().map(|st| Arc::new(rewrite_statement(st))),
                    },
                })
                .collect(),
        ),
        SpStmt::Signal {
            resignal,
            condition,
            items,
        } => SpStmt::Signal {
            resignal: *resignal,
            condition: condition.clone(),
            items: items.iter().map(|(n, e)| (n.clone(), expr(e))).collect(),
        },
        SpStmt::Sql { stmt, text } => SpStmt::Sql {
            stmt: Arc::new(rewrite_statement(stmt)),
            text: text.clone(),
        },
        other => other.clone(),
    }
}
