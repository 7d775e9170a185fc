//! Stored procedures and functions: CREATE / DROP / ALTER, CALL, stored
//! functions in expressions, SHOW CREATE and SHOW STATUS.
//!
//! - `store`: the dictionary definition and the parsed-routine cache;
//! - `interp`: the interpreter (variables, handlers, cursors, flow);
//! - `locals`: local variables as statement parameters;
//! - `show`: SHOW CREATE PROCEDURE/FUNCTION, SHOW ... STATUS;
//! - `hosts`: what runs a stored function's statements (the calling
//!   statement's session); procedures run on `program::host`.
//!
//! A procedure runs on the session (`program::host::SessionHost`): each statement goes
//! through `exec::execute` with its own privilege check and, under
//! autocommit, its own transaction; a SELECT's rows become one of the
//! results CALL returns before its final OK (`Session::routine_results`).
//! A stored function runs from inside an expression of a running statement
//! on the shared session ([`FuncHost`]): it can compute, read (SELECT ...
//! INTO, cursors) and set user variables; statements that change data or
//! the session inside a function called from an expression are refused with
//! 1235. Recursion: a procedure may recurse up to `max_sp_recursion_depth`
//! (1456 beyond), a function never (1424).
//!
//! SQL SECURITY DEFINER (the default) runs a routine's statements as its
//! definer's account (`program::host::run_as`): the definer must exist
//! (1449, a note when the routine is created) and have EXECUTE on the
//! routine (1370); CURRENT_USER() inside shows the definer. INVOKER runs
//! them as the caller. A stored function called from an expression runs on
//! the shared session of its statement, whose account does not change: the
//! definer is checked the same way, but its statements keep the caller's
//! account.

mod hosts;
mod interp;
mod locals;
mod show;
mod signal;
mod store;

use std::cell::RefCell;
use std::sync::LazyLock;

use larch_engine::catalog::ProgramKind;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::head::{self, Context};
use super::host::{Role, SessionHost};
use crate::error::{SqlError, Warning};
use crate::parse::routine::{CreateRoutine, DataAccess, ParamMode, RoutineStatement};
use crate::parse::Statement;
use crate::result::QueryResult;
use crate::session::Session;
use hosts::FuncHost;
pub(crate) use interp::{Host, Interp};
pub(crate) use locals::visit_statement_exprs;
pub(crate) use store::RoutineDef;

thread_local! {
    /// The routines running on this thread, innermost last.
    static RUNNING: RefCell<Vec<(ProgramKind, String, String)>> = const { RefCell::new(Vec::new()) };
    /// The stack address where the outermost running routine started.
    static STACK_BASE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Most stack nested routines may use (worker threads have 2 MiB): deeper
/// recursion fails with 1436 instead of overflowing the stack.
const ROUTINE_STACK: usize = 1 << 20;

/// Marks a routine as running while alive.
struct Running;

impl Running {
    fn enter(kind: ProgramKind, db: &str, name: &str, limit: usize) -> Result<Running, SqlError> {
        let marker = 0u8;
        let here = std::ptr::addr_of!(marker) as usize;
        RUNNING.with(|r| {
            let mut r = r.borrow_mut();
            if r.is_empty() {
                STACK_BASE.with(|b| b.set(here));
            } else {
                let used = STACK_BASE.with(|b| b.get()).abs_diff(here);
                if used > ROUTINE_STACK {
                    return Err(SqlError::new(
                        1436,
                        format!("Thread stack overrun:  {used} bytes used of a {ROUTINE_STACK} byte stack, and 0 bytes needed.  Consider increasing the thread_stack system variable."),
                    ));
                }
            }
            let same = r
                .iter()
                .filter(|(k, d, n)| *k == kind && d == db && n.eq_ignore_ascii_case(name))
                .count();
            if same > 0 && kind == ProgramKind::Function {
                return Err(SqlError::new(
                    1424,
                    "Recursive stored functions and triggers are not allowed",
                ));
            }
            if same > limit {
                return Err(SqlError::new(
                    1456,
                    format!("Recursive limit {limit} (as set by the max_sp_recursion_depth variable) was exceeded for routine {name}"),
                ));
            }
            r.push((kind, db.to_string(), name.to_string()));
            Ok(Running)
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| {
            r.borrow_mut().pop();
        });
    }
}

fn kind_word(kind: ProgramKind) -> &'static str {
    match kind {
        ProgramKind::Function => "FUNCTION",
        _ => "PROCEDURE",
    }
}

/// `(db, name)` of a routine name (1046 without a current database).
fn name_of(s: &Session, name: &ast::ObjectName) -> Result<(String, String), SqlError> {
    head::name_of(s, name, "routine")
}

fn does_not_exist(kind: ProgramKind, db: &str, name: &str) -> SqlError {
    SqlError::new(
        1305,
        format!("{} {db}.{name} does not exist", kind_word(kind)),
    )
}

/// Runs a routine statement.
pub(crate) fn execute(s: &mut Session, r: &RoutineStatement) -> Result<QueryResult, SqlError> {
    match r {
        RoutineStatement::Create(c) => create(s, c),
        RoutineStatement::Drop {
            kind,
            if_exists,
            name,
        } => {
            let (db, n) = name_of(s, name)?;
            let dropped = s.db.catalog().drop_program(&db, *kind, &n)?;
            if !dropped {
                let e = does_not_exist(*kind, &db, &n);
                if *if_exists {
                    s.push_warning(Warning::note(e.code(), e.message()));
                } else {
                    return Err(e);
                }
            }
            Ok(QueryResult::ok())
        }
        RoutineStatement::Alter { kind, name, chars } => {
            let (db, n) = name_of(s, name)?;
            let catalog = s.db.catalog();
            let Some(entry) = catalog.program(&db, *kind, &n) else {
                return Err(does_not_exist(*kind, &db, &n));
            };
            let mut def = RoutineDef::decode(&entry.definition)?;
            if let Some(c) = &chars.comment {
                def.comment = c.clone();
            }
            if let Some(d) = chars.deterministic {
                def.deterministic = d;
            }
            if let Some(a) = chars.access {
                def.access = a;
            }
            if let Some(i) = chars.invoker {
                def.invoker = i;
            }
            def.modified = s.now_micros();
            catalog.store_program(&db, *kind, &entry.name, &def.encode(), true, (1304, ""))?;
            Ok(QueryResult::ok())
        }
        RoutineStatement::Call { name, args } => {
            let mut host = SessionHost {
                s,
                role: Role::Procedure,
            };
            call(CallSite::Top(&mut host), name, args)?;
            Ok(QueryResult::ok())
        }
        RoutineStatement::ShowCreate { kind, name } => show::show_create(s, *kind, name),
        RoutineStatement::ShowStatus { kind, like, filter } => {
            show::show_status(s, *kind, like.as_deref(), filter.as_deref())
        }
        RoutineStatement::ShowPackageStatus => Ok(show::empty_status()),
        RoutineStatement::Anonymous(body) => {
            let mut host = SessionHost {
                s,
                role: Role::Procedure,
            };
            let mut it = Interp::new(&mut host);
            it.run_body(body)?;
            Ok(QueryResult::ok())
        }
    }
}

fn create(s: &mut Session, c: &CreateRoutine) -> Result<QueryResult, SqlError> {
    let (db, n) = name_of(s, &c.name)?;
    head::check_name_length(&n)?;
    let catalog = s.db.catalog();
    if !catalog.has_database(&db) {
        return Err(SqlError::new(1049, format!("Unknown database '{db}'")));
    }
    // Types of parameters, variables and RETURNS must be known now.
    for p in &c.params {
        column_type_of(s, &p.ty)?;
    }
    if let Some(r) = &c.returns {
        column_type_of(s, r)?;
    }
    let exists = catalog.program(&db, c.kind, &n);
    if exists.is_some() && c.if_not_exists {
        s.push_warning(Warning::note(
            1304,
            format!("{} {n} already exists", kind_word(c.kind)),
        ));
        return Ok(QueryResult::ok());
    }
    let now = s.now_micros();
    let def = RoutineDef {
        kind: c.kind,
        definer: head::definer_or_session(s, &c.definer),
        params_text: c.params_text.clone(),
        returns_text: c.returns_text.clone(),
        body_text: c.body_text.clone(),
        comment: c.chars.comment.clone().unwrap_or_default(),
        deterministic: c.chars.deterministic.unwrap_or(false),
        invoker: c.chars.invoker.unwrap_or(false),
        access: c.chars.access.unwrap_or(DataAccess::ContainsSql),
        context: Context::of_session(s, &db),
        created: now,
        modified: now,
    };
    let message = format!("{} {n} already exists", kind_word(c.kind));
    catalog.store_program(
        &db,
        c.kind,
        &n,
        &def.encode(),
        c.or_replace,
        (1304, &message),
    )?;
    super::host::note_missing_definer(s, &def.definer);
    Ok(QueryResult::ok())
}

/// The engine type of a declared SQL type (parameters, variables, RETURNS).
pub(crate) fn column_type_of(s: &Session, ty: &ast::DataType) -> Result<ColumnType, SqlError> {
    Ok(crate::ddl::types::column_type(ty, s.connection_collation(), "")?.ty)
}

static SELECT_ONE: LazyLock<Option<ast::Query>> =
    LazyLock::new(
        || match crate::parse::parse("SELECT 1").ok()?.into_iter().next()? {
            Statement::Sql(st) => match *st {
                ast::Statement::Query(q) => Some(*q),
                _ => None,
            },
            _ => None,
        },
    );

fn has_subquery(e: &ast::Expr) -> bool {
    ast::visit_expressions(e, |x| match x {
        ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => {
            std::ops::ControlFlow::Break(())
        }
        _ => std::ops::ControlFlow::Continue(()),
    })
    .is_break()
}

/// Evaluates an expression (locals already bound to `params`).
pub(super) fn eval_expr(
    host: &mut dyn Host,
    e: &ast::Expr,
    params: &[Value],
) -> Result<Value, SqlError> {
    eval_typed(host, e, params).map(|(v, _)| v)
}

/// [`eval_expr`], with the expression's static type.
pub(super) fn eval_typed(
    host: &mut dyn Host,
    e: &ast::Expr,
    params: &[Value],
) -> Result<(Value, ColumnType), SqlError> {
    if has_subquery(e) {
        let Some(mut q) = SELECT_ONE.clone() else {
            return Err(SqlError::new(1105, "SELECT template"));
        };
        if let ast::SetExpr::Select(sel) = q.body.as_mut() {
            sel.projection = vec![ast::SelectItem::UnnamedExpr(e.clone())];
        }
        let set = host.query(&q, params)?;
        let ty = set
            .columns
            .first()
            .map_or(ColumnType::Varbinary { max_len: 0 }, |c| c.ty.clone());
        let v = set
            .rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next())
            .unwrap_or(Value::Null);
        return Ok((v, ty));
    }
    let s = host.session();
    let resolve = |_: &[ast::Ident]| None;
    let opts = crate::eval::CompileOptions::default();
    let c = crate::eval::compile(e, &resolve, &opts)?;
    let mut ctx = s.eval_context(params);
    let v = c.eval(&[], &mut ctx)?;
    let warnings = ctx.take_warnings();
    for w in warnings {
        host.warn(w);
    }
    Ok((v, c.ty.ty))
}

/// Where a CALL comes from: the client, or a running program (whose
/// locals its arguments may name).
pub(crate) enum CallSite<'a, 'h> {
    Top(&'a mut dyn Host),
    Nested(&'a mut Interp<'h>),
}

impl CallSite<'_, '_> {
    fn host(&mut self) -> &mut dyn Host {
        match self {
            CallSite::Top(h) => &mut **h,
            CallSite::Nested(c) => &mut *c.host,
        }
    }
}

/// CALL: binds the arguments, runs the procedure, writes OUT and INOUT
/// parameters back (to user variables, or to the caller's locals).
pub(crate) fn call(
    mut site: CallSite<'_, '_>,
    name: &ast::ObjectName,
    args: &[ast::Expr],
) -> Result<(), SqlError> {
    let (db, n) = name_of(site.host().session(), name)?;
    let database = site.host().session().db.clone();
    let Some(r) = store::load(database.catalog(), &db, ProgramKind::Procedure, &n)? else {
        return Err(does_not_exist(ProgramKind::Procedure, &db, &n));
    };
    if r.params.len() != args.len() {
        return Err(SqlError::new(
            1318,
            format!(
                "Incorrect number of arguments for PROCEDURE {db}.{}; expected {}, got {}",
                r.name,
                r.params.len(),
                args.len()
            ),
        ));
    }
    // Argument values, evaluated in the caller's scope.
    let mut values = Vec::with_capacity(args.len());
    for (p, a) in r.params.iter().zip(args) {
        let variable = user_var_name(a).is_some()
            || match (&site, a) {
                (CallSite::Nested(c), ast::Expr::Identifier(id)) => c.value(&id.value).is_some(),
                _ => false,
            };
        if p.mode != ParamMode::In && !variable {
            return Err(SqlError::new(
                1414,
                format!(
                    "OUT or INOUT argument {} for routine {db}.{} is not a variable or NEW pseudo-variable in BEFORE trigger",
                    values.len() + 1,
                    r.name
                ),
            ));
        }
        let v = if p.mode == ParamMode::Out {
            Value::Null
        } else {
            match &mut site {
                CallSite::Nested(c) => c.eval(a)?,
                CallSite::Top(h) => eval_expr(&mut **h, a, &[])?,
            }
        };
        values.push(v);
    }
    let limit =
        usize::try_from(site.host().session().int_var("max_sp_recursion_depth")).unwrap_or(0);
    let _running = Running::enter(ProgramKind::Procedure, &db, &r.name, limit)?;
    let outs = {
        let locals = r.locals(site.host().session(), values)?;
        let run_as = r.run_as(site.host().session())?;
        let mut it = Interp::new(site.host());
        super::run_body(&mut it, &r.schema, locals, &r.body, run_as)?;
        r.params
            .iter()
            .zip(args)
            .filter(|(p, _)| p.mode != ParamMode::In)
            .map(|(p, a)| (a.clone(), &p.ty, it.value(&p.name).unwrap_or(Value::Null)))
            .collect::<Vec<_>>()
    };
    for (a, ty, v) in outs {
        match (user_var_name(&a), &mut site) {
            (Some(u), site) => {
                let ty = column_type_of(site.host().session(), ty)?;
                site.host()
                    .set_user_var(&u, crate::eval::uservar::UserValue::new(v, &ty));
            }
            (None, CallSite::Nested(c)) => {
                if let ast::Expr::Identifier(id) = &a {
                    c.assign(&id.value, v)?;
                }
            }
            (None, CallSite::Top(_)) => {}
        }
    }
    Ok(())
}

pub(super) fn user_var_name(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Identifier(id) if id.value.starts_with('@') && !id.value.starts_with("@@") => {
            Some(
                id.value[1..]
                    .trim_matches(['`', '\'', '"'])
                    .to_ascii_lowercase(),
            )
        }
        _ => None,
    }
}

/// A stored function called from an expression: `db.name(args)` (the
/// current database when `schema` is `None`).
pub(crate) fn call_function(
    s: &Session,
    schema: Option<&str>,
    name: &str,
    args: Vec<Value>,
) -> Result<Value, SqlError> {
    let db = match schema {
        Some(d) => d.to_string(),
        None => match &s.current_db {
            Some(d) => d.clone(),
            None => return Err(SqlError::new(1046, "No database selected")),
        },
    };
    let Some(r) = store::load(s.db.catalog(), &db, ProgramKind::Function, name)? else {
        return Err(does_not_exist(ProgramKind::Function, &db, name));
    };
    if r.params.len() != args.len() {
        return Err(SqlError::new(
            1318,
            format!(
                "Incorrect number of arguments for FUNCTION {db}.{}; expected {}, got {}",
                r.name,
                r.params.len(),
                args.len()
            ),
        ));
    }
    let _running = Running::enter(ProgramKind::Function, &db, &r.name, 0)?;
    let mut host = FuncHost { s };
    let locals = r.locals(s, args)?;
    let run_as = r.run_as(s)?;
    let mut it = Interp::new(&mut host);
    let value = super::run_body(&mut it, &r.schema, locals, &r.body, run_as)?;
    let Some(v) = value else {
        return Err(SqlError::new(
            1321,
            format!("FUNCTION {} ended without RETURN", r.name),
        ));
    };
    match &r.returns {
        Some(t) => {
            let ty = column_type_of(s, t)?;
            it.declare("", Some(ty), v)?;
            Ok(it.value("").unwrap_or(Value::Null))
        }
        None => Ok(v),
    }
}

thread_local! {
    /// The dictionary and current database of the statement being compiled
    /// (for [`stored_function_type`]), innermost last.
    static SCOPE: RefCell<Vec<ScopeEntry>> =
        const { RefCell::new(Vec::new()) };
}

/// The database, current schema and connection collation of a statement.
type ScopeEntry = (
    std::sync::Arc<crate::database::Database>,
    Option<String>,
    Collation,
);

/// Makes the session's stored functions known to expressions compiled
/// while alive (one per statement run; nothing to do while the dictionary
/// has no stored program).
pub(crate) struct FunctionScope {
    pushed: bool,
}

impl FunctionScope {
    pub(crate) fn enter(s: &Session) -> FunctionScope {
        if !s.db.catalog().has_programs() {
            return FunctionScope { pushed: false };
        }
        SCOPE.with(|c| {
            c.borrow_mut()
                .push((s.db.clone(), s.current_db.clone(), s.connection_collation()))
        });
        FunctionScope { pushed: true }
    }
}

impl Drop for FunctionScope {
    fn drop(&mut self) {
        if self.pushed {
            SCOPE.with(|c| {
                c.borrow_mut().pop();
            });
        }
    }
}

/// The RETURNS type of a stored function of the running statement's
/// session; `None` when there is no such function.
pub(crate) fn stored_function_type(schema: Option<&str>, name: &str) -> Option<ColumnType> {
    let (database, current, coll) = SCOPE.with(|c| c.borrow().last().cloned())?;
    let db = schema.map(str::to_string).or(current)?;
    let r = store::load(database.catalog(), &db, ProgramKind::Function, name).ok()??;
    crate::ddl::types::column_type(r.returns.as_ref()?, coll, "")
        .ok()
        .map(|t| t.ty)
}
