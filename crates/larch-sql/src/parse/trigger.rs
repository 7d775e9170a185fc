//! Trigger statements, parsed by Larch: `CREATE [OR REPLACE] [DEFINER =
//! user] TRIGGER [IF NOT EXISTS] [db.]name {BEFORE | AFTER} {INSERT | UPDATE
//! | DELETE} ON tbl FOR EACH ROW [{FOLLOWS | PRECEDES} other] body`, `DROP
//! TRIGGER [IF EXISTS] [db.]name`, `SHOW CREATE TRIGGER name` and `SHOW
//! TRIGGERS [{FROM | IN} db] [LIKE 'pattern' | WHERE expr]`.
//!
//! The body is parsed by [`super::routine_body`] (a trigger body is a
//! compound statement like a routine's) and checked as MariaDB checks it
//! when the trigger is created: no result sets (1415), no COMMIT/ROLLBACK
//! (1422), `NEW` only where there is a new row and `OLD` only where there is
//! an old one (1363), `SET NEW.col` only in BEFORE triggers (1362) and never
//! `SET OLD.col` (1362). The statement text is kept as written from the
//! TRIGGER keyword to its end, without the FOLLOWS/PRECEDES clause, with the
//! byte offsets of its ON clause and body (see `docs/catalog.md`).

use std::ops::ControlFlow;
use std::sync::Arc;

use sqlparser::ast;
use sqlparser::tokenizer::TokenWithSpan;

use super::program_head::{create_head, finish, if_not_exists, like_or_where};
use super::routine_body::{BodyParser, Decl, SpStmt};
use super::routine_cursor::Cursor;
use super::Statement;
use crate::error::SqlError;

/// BEFORE or AFTER.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Timing {
    Before,
    After,
}

/// The row event a trigger fires on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Event {
    Insert,
    Update,
    Delete,
}

impl Timing {
    pub fn word(self) -> &'static str {
        match self {
            Timing::Before => "BEFORE",
            Timing::After => "AFTER",
        }
    }
}

impl Event {
    pub fn word(self) -> &'static str {
        match self {
            Event::Insert => "INSERT",
            Event::Update => "UPDATE",
            Event::Delete => "DELETE",
        }
    }
}

/// A trigger statement.
#[derive(Debug, Clone, PartialEq)]
pub enum TriggerStatement {
    Create(Box<CreateTrigger>),
    Drop {
        if_exists: bool,
        name: ast::ObjectName,
    },
    ShowCreate {
        name: ast::ObjectName,
    },
    /// SHOW TRIGGERS [FROM db] [LIKE 'p' | WHERE expr].
    Show {
        db: Option<String>,
        like: Option<String>,
        filter: Option<Box<ast::Expr>>,
    },
}

/// `FOLLOWS other` (true) or `PRECEDES other` (false).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderClause {
    pub follows: bool,
    pub other: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CreateTrigger {
    pub or_replace: bool,
    pub if_not_exists: bool,
    /// `(user, host)`; `None` for the current user.
    pub definer: Option<(String, String)>,
    pub name: ast::ObjectName,
    pub timing: Timing,
    pub event: Event,
    pub table: ast::ObjectName,
    pub order: Option<OrderClause>,
    pub body: Arc<SpStmt>,
    /// The statement from TRIGGER to its end, without FOLLOWS/PRECEDES.
    pub text: String,
    /// Byte offsets in `text`: the ON clause's start and end, the body's start.
    pub on_start: usize,
    pub on_end: usize,
    pub body_start: usize,
    /// Every `NEW.col` (true) and `OLD.col` (false) the body names.
    pub refs: Vec<(bool, String)>,
}

/// The trigger statement in `tokens`, or `None` when it is not one.
pub(super) fn parse(
    text: &str,
    original: &str,
    tokens: &[TokenWithSpan],
) -> Option<Result<Statement, SqlError>> {
    let mut c = Cursor::new(text, original, tokens);
    let r = if c.is_kw("CREATE") {
        let mut j = 1;
        while j < 12 && j < c.toks.len() && !c.is_kw_at(j, "TRIGGER") {
            if ["PROCEDURE", "FUNCTION", "TABLE", "VIEW", "EVENT", "USER"]
                .iter()
                .any(|k| c.is_kw_at(j, k))
            {
                return None;
            }
            j += 1;
        }
        if !c.is_kw_at(j, "TRIGGER") {
            return None;
        }
        create(&mut c)
    } else if c.is_kw("DROP") && c.is_kw_at(1, "TRIGGER") {
        c.i = 2;
        let if_exists = c.eat_seq(&["IF", "EXISTS"]);
        c.object_name()
            .map(|name| TriggerStatement::Drop { if_exists, name })
    } else if c.is_kw("SHOW") && c.is_kw_at(1, "CREATE") && c.is_kw_at(2, "TRIGGER") {
        c.i = 3;
        c.object_name()
            .map(|name| TriggerStatement::ShowCreate { name })
    } else if c.is_kw("SHOW") && c.is_kw_at(1, "TRIGGERS") {
        c.i = 2;
        show(&mut c)
    } else {
        return None;
    };
    Some(finish(&mut c, r, |s| Statement::Trigger(Box::new(s))))
}

fn show(c: &mut Cursor) -> Result<TriggerStatement, SqlError> {
    let db = if c.eat("FROM") || c.eat("IN") {
        Some(c.ident()?)
    } else {
        None
    };
    let (like, filter) = like_or_where(c)?;
    Ok(TriggerStatement::Show { db, like, filter })
}

fn create(c: &mut Cursor) -> Result<TriggerStatement, SqlError> {
    let (or_replace, definer) = create_head(c)?;
    let start = c.i;
    c.expect_kw("TRIGGER")?;
    let if_not_exists = if_not_exists(c, or_replace)?;
    let name = c.object_name()?;
    let timing = if c.eat("BEFORE") {
        Timing::Before
    } else if c.eat("AFTER") {
        Timing::After
    } else {
        return Err(c.error());
    };
    let event = if c.eat("INSERT") {
        Event::Insert
    } else if c.eat("UPDATE") {
        Event::Update
    } else if c.eat("DELETE") {
        Event::Delete
    } else {
        return Err(c.error());
    };
    let on_tok = c.i;
    c.expect_kw("ON")?;
    let table = c.object_name()?;
    let on_end_tok = c.i;
    c.expect_kw("FOR")?;
    c.expect_kw("EACH")?;
    c.expect_kw("ROW")?;
    let order_tok = c.i;
    let order = if c.is_kw("FOLLOWS") || c.is_kw("PRECEDES") {
        let follows = c.eat("FOLLOWS");
        if !follows {
            c.i += 1;
        }
        Some(OrderClause {
            follows,
            other: c.ident()?,
        })
    } else {
        None
    };
    let body_tok = c.i;
    let body = BodyParser::new(c).statement()?;
    let full = c.text_between(start, c.i);
    let base = c.offset(start);
    let rel = |i: usize| c.offset(i).saturating_sub(base).min(full.len());
    let (on_start, mut body_start) = (rel(on_tok), rel(body_tok));
    // The ON clause ends with the table name (not the blanks after it).
    let on_end = full[..rel(on_end_tok)].trim_end().len().max(on_start);
    let text = if order.is_some() {
        let cut = rel(order_tok);
        let t = format!("{}{}", &full[..cut], &full[body_start..]);
        body_start = cut;
        t
    } else {
        full.to_string()
    };
    let refs = check_body(&body, timing, event)?;
    Ok(TriggerStatement::Create(Box::new(CreateTrigger {
        or_replace,
        if_not_exists,
        definer,
        name,
        timing,
        event,
        table,
        order,
        body: Arc::new(body),
        text,
        on_start,
        on_end,
        body_start,
        refs,
    })))
}

fn commit_error() -> SqlError {
    SqlError::new(
        1422,
        "Explicit or implicit commit is not allowed in stored function or trigger",
    )
}

/// `NEW` or `OLD` when `parts` is `NEW.col` / `OLD.col`.
pub(crate) fn row_ref(parts: &[ast::Ident]) -> Option<(bool, &str)> {
    match parts {
        [r, col] if r.quote_style.is_none() => {
            if r.value.eq_ignore_ascii_case("NEW") {
                Some((true, col.value.as_str()))
            } else if r.value.eq_ignore_ascii_case("OLD") {
                Some((false, col.value.as_str()))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The checks MariaDB makes on a trigger body when it is created.
fn check_body(s: &SpStmt, timing: Timing, event: Event) -> Result<Vec<(bool, String)>, SqlError> {
    let mut exprs: Vec<ast::Expr> = Vec::new();
    let mut sets: Vec<(bool, String)> = Vec::new();
    collect(s, &mut exprs, &mut sets)?;
    let check_ref = |new: bool| -> Result<(), SqlError> {
        match (new, event) {
            (true, Event::Delete) => Err(SqlError::new(
                1363,
                "There is no NEW row in on DELETE trigger",
            )),
            (false, Event::Insert) => Err(SqlError::new(
                1363,
                "There is no OLD row in on INSERT trigger",
            )),
            _ => Ok(()),
        }
    };
    let mut refs = sets.clone();
    for (new, _) in &sets {
        check_ref(*new)?;
        if !*new {
            return Err(SqlError::new(
                1362,
                "Updating of OLD row is not allowed in trigger",
            ));
        }
        if timing == Timing::After {
            return Err(SqlError::new(
                1362,
                "Updating of NEW row is not allowed in after trigger",
            ));
        }
    }
    for e in &exprs {
        let mut found = Ok(());
        let _ = ast::visit_expressions(e, |x| {
            if let ast::Expr::CompoundIdentifier(parts) = x {
                if let Some((new, col)) = row_ref(parts) {
                    if let Err(err) = check_ref(new) {
                        found = Err(err);
                        return ControlFlow::Break(());
                    }
                    refs.push((new, col.to_string()));
                }
            }
            ControlFlow::Continue(())
        });
        found?;
    }
    Ok(refs)
}

/// Every expression of a body (statements included, as whole statements
/// are visited for their expressions) and every `SET NEW.x | OLD.x`.
fn collect(
    s: &SpStmt,
    exprs: &mut Vec<ast::Expr>,
    sets: &mut Vec<(bool, String)>,
) -> Result<(), SqlError> {
    let list = |v: &[SpStmt], exprs: &mut Vec<ast::Expr>, sets: &mut Vec<(bool, String)>| {
        v.iter().try_for_each(|x| collect(x, exprs, sets))
    };
    match s {
        SpStmt::Block(b) => {
            for d in &b.decls {
                match d {
                    Decl::Handler(h) => collect(&h.body, exprs, sets)?,
                    Decl::Var {
                        default: Some(e), ..
                    } => exprs.push((**e).clone()),
                    Decl::Cursor { query, .. } => {
                        exprs.push(ast::Expr::Subquery(query.clone()));
                    }
                    _ => {}
                }
            }
            list(&b.body, exprs, sets)
        }
        SpStmt::If {
            branches,
            otherwise,
        } => {
            for (e, b) in branches {
                exprs.push(e.clone());
                list(b, exprs, sets)?;
            }
            otherwise
                .as_deref()
                .map_or(Ok(()), |o| list(o, exprs, sets))
        }
        SpStmt::Case {
            operand,
            whens,
            otherwise,
        } => {
            exprs.extend(operand.iter().cloned());
            for (e, b) in whens {
                exprs.push(e.clone());
                list(b, exprs, sets)?;
            }
            otherwise
                .as_deref()
                .map_or(Ok(()), |o| list(o, exprs, sets))
        }
        SpStmt::While { cond, body, .. } => {
            exprs.push(cond.clone());
            list(body, exprs, sets)
        }
        SpStmt::Repeat { body, until, .. } => {
            exprs.push(until.clone());
            list(body, exprs, sets)
        }
        SpStmt::Loop { body, .. } => list(body, exprs, sets),
        SpStmt::Return(_) => Err(SqlError::new(1313, "RETURN is only allowed in a FUNCTION")),
        SpStmt::Set(items) => {
            for it in items {
                exprs.push(it.value.clone());
                if let Some((new, col)) = set_target(it) {
                    sets.push((new, col));
                }
            }
            Ok(())
        }
        SpStmt::Signal { items, .. } => {
            exprs.extend(items.iter().map(|(_, e)| e.clone()));
            Ok(())
        }
        SpStmt::Sql { stmt, .. } => {
            match stmt.as_ref() {
                Statement::Sql(a) => match a.as_ref() {
                    ast::Statement::Query(_) | ast::Statement::ShowVariables { .. } => {
                        return Err(SqlError::new(
                            1415,
                            "Not allowed to return a result set from a trigger",
                        ))
                    }
                    ast::Statement::Commit { .. } | ast::Statement::Rollback { .. } => {
                        return Err(commit_error())
                    }
                    other => {
                        let mut all = Vec::new();
                        let _ = ast::visit_expressions(other, |x| {
                            if matches!(x, ast::Expr::CompoundIdentifier(_)) {
                                all.push(x.clone());
                            }
                            ControlFlow::<()>::Continue(())
                        });
                        exprs.extend(all);
                    }
                },
                Statement::SelectInto { query, .. } => {
                    exprs.push(ast::Expr::Subquery(query.clone()));
                }
                Statement::StartTransaction { .. } => return Err(commit_error()),
                _ => {}
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `(is NEW, column)` when a SET item assigns `NEW.col` or `OLD.col`.
pub(crate) fn set_target(it: &super::routine_body::SetItem) -> Option<(bool, String)> {
    let stmt = it.stmt.as_ref()?;
    let Statement::Sql(a) = stmt.as_ref() else {
        return None;
    };
    let ast::Statement::Set(ast::Set::SingleAssignment {
        scope: None,
        variable,
        ..
    }) = a.as_ref()
    else {
        return None;
    };
    let parts: Vec<ast::Ident> = variable
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .cloned()
        .collect();
    row_ref(&parts).map(|(new, col)| (new, col.to_string()))
}
