//! The stored program interpreter: runs a parsed body ([`SpStmt`]) with
//! its local variables, handlers and cursors, statement by statement
//! through a [`Host`] (the session).
//!
//! - Variables live in one stack (`vars`); a block pushes its DECLAREd
//!   variables and truncates back at its end, so a name resolves to the
//!   innermost declaration. Expressions and statements see locals as `?`
//!   parameters ([`super::locals`]).
//! - Handlers: each block pushes its handler scope. An error raised by a
//!   statement is matched against the scopes from the innermost out (a
//!   handler's own scope and those inside it are hidden while it runs); a
//!   CONTINUE handler resumes after the failing statement, an EXIT handler
//!   leaves the block that declared it ([`Flow::Exit`]). Unmatched errors end
//!   the program. A "no data" condition of `SELECT ... INTO` is only a
//!   warning when no handler takes it.
//! - SIGNAL / RESIGNAL are in `super::signal`.
//! - Cursors materialize their SELECT at OPEN and hand out rows at FETCH
//!   (1329 at the end, which NOT FOUND handlers catch).

use std::sync::Arc;

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::locals::{bind_expr, bind_statement, Scope};
use crate::error::{SqlError, Warning};
use crate::eval::uservar::UserValue;
use crate::parse::routine_body::{Block, CondValue, Decl, Handler, HandlerCond, SetItem, SpStmt};
use crate::parse::select_into::IntoVar;
use crate::parse::{IntoTarget, Statement};
use crate::result::{QueryResult, RowSet};
use crate::session::Session;

/// What runs a program's statements: the session, mutable for procedures,
/// shared for functions called from an expression.
pub(crate) trait Host {
    fn session(&self) -> &Session;
    /// Runs an ordinary statement.
    fn run(&mut self, stmt: &Statement, params: &[Value]) -> Result<QueryResult, SqlError>;
    /// Runs a query for its rows (cursors, SELECT ... INTO).
    fn query(&mut self, q: &ast::Query, params: &[Value]) -> Result<RowSet, SqlError>;
    /// A result set for the client.
    fn emit(&mut self, set: RowSet) -> Result<(), SqlError>;
    fn set_user_var(&mut self, name: &str, v: UserValue);
    fn warn(&mut self, w: Warning);
    /// Makes `db` the current database (a routine runs in its own).
    fn use_db(&mut self, db: Option<&str>);
    /// Makes `account` the one statements run as; returns the one before.
    /// A host on a shared session keeps its account (returns `account`).
    fn swap_account(
        &mut self,
        account: crate::privileges::SessionAccount,
    ) -> crate::privileges::SessionAccount {
        account
    }
}

/// How a statement ended.
#[derive(Debug)]
pub(crate) enum Flow {
    Next,
    Leave(String),
    Iterate(String),
    Return(Value),
    /// An EXIT handler of the handler scope at this depth ran: leave that block.
    Exit(usize),
}

/// An error on its way out, with whether the handlers were searched for it.
pub(crate) struct Raise {
    pub err: SqlError,
    /// The SQLSTATE when it differs from the error number's (SIGNAL).
    pub state: Option<String>,
    pub(super) searched: bool,
    /// A "no data" warning: unhandled, it is only a warning.
    pub(super) warning: bool,
}

impl From<SqlError> for Raise {
    fn from(err: SqlError) -> Raise {
        Raise {
            err,
            state: None,
            searched: false,
            warning: false,
        }
    }
}

type Run = Result<Flow, Raise>;

struct Var {
    name: String,
    value: Value,
    ty: Option<larch_engine::record::value::ColumnType>,
}

pub(super) struct HandlerScope {
    handlers: Vec<Arc<Handler>>,
    pub conditions: Vec<(String, CondValue)>,
    hidden: bool,
}

struct OpenCursor {
    name: String,
    query: Box<ast::Query>,
    /// Depth of `vars` its query sees.
    rows: Option<std::vec::IntoIter<Vec<Value>>>,
}

/// One running program.
pub(crate) struct Interp<'h> {
    pub host: &'h mut dyn Host,
    vars: Vec<Var>,
    pub(super) scopes: Vec<HandlerScope>,
    cursors: Vec<OpenCursor>,
    /// Errors whose handler is running (for RESIGNAL).
    pub(super) active: Vec<(SqlError, Option<String>)>,
}

impl Scope for Interp<'_> {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.vars
            .iter()
            .rev()
            .find(|v| v.name.eq_ignore_ascii_case(name))
            .map(|v| v.value.clone())
    }
}

impl<'h> Interp<'h> {
    pub fn new(host: &'h mut dyn Host) -> Interp<'h> {
        Interp {
            host,
            vars: Vec::new(),
            scopes: Vec::new(),
            cursors: Vec::new(),
            active: Vec::new(),
        }
    }

    /// Declares a variable (parameters, then DECLAREs).
    pub fn declare(
        &mut self,
        name: &str,
        ty: Option<larch_engine::record::value::ColumnType>,
        value: Value,
    ) -> Result<(), SqlError> {
        let value = self.convert(name, ty.as_ref(), value)?;
        self.vars.push(Var {
            name: name.to_string(),
            value,
            ty,
        });
        Ok(())
    }

    /// The current value of a variable.
    pub fn value(&self, name: &str) -> Option<Value> {
        self.lookup(name)
    }

    fn convert(
        &mut self,
        name: &str,
        ty: Option<&larch_engine::record::value::ColumnType>,
        v: Value,
    ) -> Result<Value, SqlError> {
        let Some(ty) = ty else {
            return Ok(v);
        };
        let target = crate::value::store::StoreTarget {
            db: "",
            table: "",
            // A trigger's NEW.col converts as the column.
            column: name.strip_prefix("NEW.").unwrap_or(name),
            row: 1,
            strict: self.host.session().strict(),
        };
        let mut warnings = Vec::new();
        let r = crate::value::store::store(&v, ty, &target, &mut warnings)?;
        for w in warnings {
            self.host.warn(w);
        }
        Ok(r)
    }

    /// Assigns a declared variable (1327 when there is none).
    pub fn assign(&mut self, name: &str, v: Value) -> Result<(), SqlError> {
        let Some(i) = self
            .vars
            .iter()
            .rposition(|x| x.name.eq_ignore_ascii_case(name))
        else {
            return Err(SqlError::new(1327, format!("Undeclared variable: {name}")));
        };
        let ty = self.vars[i].ty.clone();
        let v = self.convert(name, ty.as_ref(), v)?;
        self.vars[i].value = v;
        Ok(())
    }

    /// Evaluates an expression with the locals in scope.
    pub fn eval(&mut self, e: &ast::Expr) -> Result<Value, SqlError> {
        let (e, params) = bind_expr(e, self);
        super::eval_expr(self.host, &e, &params)
    }

    fn truth(&mut self, e: &ast::Expr) -> Result<bool, SqlError> {
        let v = self.eval(e)?;
        let s = self.host.session();
        let mut ctx = s.eval_context(&[]);
        Ok(crate::eval::convert::truth(&v, &mut ctx).unwrap_or(false))
    }

    /// Runs a program body; the value of RETURN, if one ran.
    pub fn run_body(&mut self, body: &SpStmt) -> Result<Option<Value>, SqlError> {
        match self.exec_list(std::slice::from_ref(body)) {
            Ok(Flow::Return(v)) => Ok(Some(v)),
            Ok(_) => Ok(None),
            Err(r) => Err(r.err),
        }
    }

    fn exec_list(&mut self, stmts: &[SpStmt]) -> Run {
        for st in stmts {
            if self.host.session().killed() {
                return Err(SqlError::new(1317, "Query execution was interrupted").into());
            }
            match self.exec(st) {
                Ok(Flow::Next) => {}
                Ok(other) => return Ok(other),
                Err(r) if r.searched => return Err(r),
                Err(r) => match self.handle(r)? {
                    Flow::Next => {}
                    other => return Ok(other),
                },
            }
        }
        Ok(Flow::Next)
    }

    /// Finds and runs the handler of a raised condition.
    fn handle(&mut self, mut r: Raise) -> Run {
        let code = r.err.code();
        let state = r
            .state
            .clone()
            .unwrap_or_else(|| r.err.sqlstate().to_string());
        let mut found = None;
        'outer: for (depth, scope) in self.scopes.iter().enumerate().rev() {
            if scope.hidden {
                continue;
            }
            // A specific match (number, state, name) beats a class.
            let mut class_match = None;
            for h in &scope.handlers {
                for c in &h.conditions {
                    let specific = match c {
                        HandlerCond::Value(v) => {
                            let v = super::signal::resolve_condition(v, &self.scopes[..=depth]);
                            match v {
                                Some(CondValue::Code(n)) => n == code,
                                Some(CondValue::State(s)) => s == state,
                                _ => false,
                            }
                        }
                        _ => false,
                    };
                    if specific {
                        found = Some((depth, h.clone()));
                        break 'outer;
                    }
                    let class = match c {
                        HandlerCond::SqlException => {
                            !state.starts_with("00")
                                && !state.starts_with("01")
                                && !state.starts_with("02")
                        }
                        HandlerCond::SqlWarning => state.starts_with("01"),
                        HandlerCond::NotFound => state.starts_with("02"),
                        HandlerCond::Value(_) => false,
                    };
                    if class && class_match.is_none() {
                        class_match = Some(h.clone());
                    }
                }
            }
            if let Some(h) = class_match {
                found = Some((depth, h));
                break;
            }
        }
        let Some((depth, handler)) = found else {
            if r.warning {
                self.host.warn(Warning::warn(r.err.code(), r.err.message()));
                return Ok(Flow::Next);
            }
            r.searched = true;
            return Err(r);
        };
        // The handler runs with its own scope and the inner ones hidden.
        let hidden: Vec<bool> = self.scopes[depth..].iter().map(|s| s.hidden).collect();
        for s in &mut self.scopes[depth..] {
            s.hidden = true;
        }
        self.active.push((r.err, r.state));
        let result = self.exec_list(std::slice::from_ref(&handler.body));
        self.active.pop();
        for (s, h) in self.scopes[depth..].iter_mut().zip(hidden) {
            s.hidden = h;
        }
        match result? {
            Flow::Return(v) => Ok(Flow::Return(v)),
            Flow::Exit(d) if d < depth => Ok(Flow::Exit(d)),
            _ if handler.exit => Ok(Flow::Exit(depth)),
            _ => Ok(Flow::Next),
        }
    }

    fn exec(&mut self, st: &SpStmt) -> Run {
        match st {
            SpStmt::Block(b) => self.block(b),
            SpStmt::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    if self.truth(cond)? {
                        return self.exec_list(body);
                    }
                }
                match otherwise {
                    Some(body) => self.exec_list(body),
                    None => Ok(Flow::Next),
                }
            }
            SpStmt::Case {
                operand,
                whens,
                otherwise,
            } => {
                for (w, body) in whens {
                    let hit = match operand {
                        Some(op) => self.truth(&ast::Expr::BinaryOp {
                            left: Box::new(ast::Expr::Nested(Box::new(op.clone()))),
                            op: ast::BinaryOperator::Eq,
                            right: Box::new(ast::Expr::Nested(Box::new(w.clone()))),
                        })?,
                        None => self.truth(w)?,
                    };
                    if hit {
                        return self.exec_list(body);
                    }
                }
                match otherwise {
                    Some(body) => self.exec_list(body),
                    None => Err(SqlError::new(1339, "Case not found for CASE statement").into()),
                }
            }
            SpStmt::While { label, cond, body } => loop {
                if !self.truth(cond)? {
                    return Ok(Flow::Next);
                }
                match self.exec_list(body)? {
                    Flow::Next => {}
                    f => match loop_flow(f, label) {
                        Some(f) => return Ok(f),
                        None => continue,
                    },
                }
            },
            SpStmt::Repeat { label, body, until } => loop {
                match self.exec_list(body)? {
                    Flow::Next => {}
                    f => match loop_flow(f, label) {
                        Some(f) => return Ok(f),
                        None => continue,
                    },
                }
                if self.truth(until)? {
                    return Ok(Flow::Next);
                }
            },
            SpStmt::Loop { label, body } => loop {
                match self.exec_list(body)? {
                    Flow::Next => {}
                    f => match loop_flow(f, label) {
                        Some(f) => return Ok(f),
                        None => continue,
                    },
                }
            },
            SpStmt::Leave(l) => Ok(Flow::Leave(l.clone())),
            SpStmt::Iterate(l) => Ok(Flow::Iterate(l.clone())),
            SpStmt::Return(e) => Ok(Flow::Return(self.eval(e)?)),
            SpStmt::Set(items) => {
                for item in items {
                    self.set(item)?;
                }
                Ok(Flow::Next)
            }
            SpStmt::Open(name) => {
                let i = self.cursor(name)?;
                if self.cursors[i].rows.is_some() {
                    return Err(SqlError::new(1325, "Cursor is already open").into());
                }
                let q = self.cursors[i].query.clone();
                let (q, params) = super::locals::bind_query(&q, self);
                let set = self.host.query(&q, &params)?;
                self.cursors[i].rows = Some(set.rows.into_iter());
                Ok(Flow::Next)
            }
            SpStmt::Close(name) => {
                let i = self.cursor(name)?;
                if self.cursors[i].rows.take().is_none() {
                    return Err(SqlError::new(1326, "Cursor is not open").into());
                }
                Ok(Flow::Next)
            }
            SpStmt::Fetch { cursor, into } => {
                let i = self.cursor(cursor)?;
                let Some(rows) = self.cursors[i].rows.as_mut() else {
                    return Err(SqlError::new(1326, "Cursor is not open").into());
                };
                let Some(row) = rows.next() else {
                    return Err(no_data().into());
                };
                if row.len() != into.len() {
                    return Err(SqlError::new(1328, "Incorrect number of FETCH variables").into());
                }
                for (name, v) in into.iter().zip(row) {
                    self.assign(name, v)?;
                }
                Ok(Flow::Next)
            }
            SpStmt::Signal {
                resignal,
                condition,
                items,
            } => Err(super::signal::signal(
                self,
                *resignal,
                condition.as_ref(),
                items,
            )?),
            SpStmt::Sql { stmt, .. } => self.sql(stmt),
        }
    }

    fn cursor(&self, name: &str) -> Result<usize, SqlError> {
        self.cursors
            .iter()
            .rposition(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| SqlError::new(1324, format!("Undefined CURSOR: {name}")))
    }

    fn set(&mut self, item: &SetItem) -> Result<(), SqlError> {
        if let Some(name) = &item.local {
            if self.lookup(name).is_some() {
                let v = self.eval(&item.value)?;
                return self.assign(name, v);
            }
        }
        let Some(stmt) = &item.stmt else {
            let name = item.local.clone().unwrap_or_default();
            return Err(SqlError::new(
                1193,
                format!("Unknown system variable '{name}'"),
            ));
        };
        let (stmt, params) = bind_statement(stmt, self);
        self.host.run(&stmt, &params)?;
        Ok(())
    }

    fn sql(&mut self, stmt: &Statement) -> Run {
        if let Statement::SelectInto { query, into } = stmt {
            if let IntoTarget::Locals(vars) = into.as_ref() {
                return self.select_into(query, vars);
            }
        }
        if let Statement::Routine(r) = stmt {
            if let crate::parse::routine::RoutineStatement::Call { name, args } = r.as_ref() {
                super::call(super::CallSite::Nested(self), name, args)?;
                return Ok(Flow::Next);
            }
        }
        let (stmt, params) = bind_statement(stmt, self);
        match self.host.run(&stmt, &params)? {
            QueryResult::Rows(set) => self.host.emit(set)?,
            QueryResult::Ok(_) => {}
        }
        Ok(Flow::Next)
    }

    fn select_into(&mut self, q: &ast::Query, vars: &[IntoVar]) -> Run {
        let (q, params) = super::locals::bind_query(q, self);
        let set = self.host.query(&q, &params)?;
        if set.columns.len() != vars.len() {
            return Err(SqlError::new(
                1222,
                "The used SELECT statements have a different number of columns",
            )
            .into());
        }
        if set.rows.len() > 1 {
            return Err(SqlError::new(1172, "Result consisted of more than one row").into());
        }
        let Some(row) = set.rows.into_iter().next() else {
            return Err(Raise {
                err: no_data(),
                state: None,
                searched: false,
                warning: true,
            });
        };
        for ((var, v), column) in vars.iter().zip(row).zip(&set.columns) {
            match var {
                IntoVar::User(n) => self.host.set_user_var(n, UserValue::new(v, &column.ty)),
                IntoVar::Local(n) => self.assign(n, v)?,
            }
        }
        Ok(Flow::Next)
    }

    fn block(&mut self, b: &Block) -> Run {
        let vars_mark = self.vars.len();
        let cursors_mark = self.cursors.len();
        self.scopes.push(HandlerScope {
            handlers: Vec::new(),
            conditions: Vec::new(),
            hidden: false,
        });
        let depth = self.scopes.len() - 1;
        let result = self.block_inner(b, depth);
        self.scopes.truncate(depth);
        self.vars.truncate(vars_mark);
        self.cursors.truncate(cursors_mark);
        match result? {
            Flow::Exit(d) if d == depth => Ok(Flow::Next),
            Flow::Leave(l) if b.label.as_ref().is_some_and(|x| x.eq_ignore_ascii_case(&l)) => {
                Ok(Flow::Next)
            }
            f => Ok(f),
        }
    }

    fn block_inner(&mut self, b: &Block, depth: usize) -> Run {
        for d in &b.decls {
            match d {
                Decl::Var { names, ty, default } => {
                    let ty = super::column_type_of(self.host.session(), ty)?;
                    let v = match default {
                        Some(e) => self.eval(e)?,
                        None => Value::Null,
                    };
                    for n in names {
                        self.declare(n, Some(ty.clone()), v.clone())?;
                    }
                }
                Decl::Condition { name, value } => {
                    self.scopes[depth]
                        .conditions
                        .push((name.clone(), value.clone()));
                }
                Decl::Cursor { name, query } => self.cursors.push(OpenCursor {
                    name: name.clone(),
                    query: query.clone(),
                    rows: None,
                }),
                Decl::Handler(h) => self.scopes[depth].handlers.push(h.clone()),
            }
        }
        self.exec_list(&b.body)
    }
}

/// What a loop does with its body's flow: `None` to go round again.
fn loop_flow(f: Flow, label: &Option<String>) -> Option<Flow> {
    let mine = |l: &str| label.as_ref().is_some_and(|x| x.eq_ignore_ascii_case(l));
    match f {
        Flow::Iterate(l) if mine(&l) => None,
        Flow::Leave(l) if mine(&l) => Some(Flow::Next),
        other => Some(other),
    }
}

fn no_data() -> SqlError {
    SqlError::new(1329, "No data - zero rows fetched, selected, or processed")
}
