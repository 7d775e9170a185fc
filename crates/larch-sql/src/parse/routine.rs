//! Stored procedure and function statements, parsed by Larch (sqlparser
//! does not handle procedural bodies): `CREATE [OR REPLACE] [DEFINER = user]
//! PROCEDURE | FUNCTION [IF NOT EXISTS] name (params) [RETURNS type]
//! characteristics body`, `DROP PROCEDURE | FUNCTION [IF EXISTS] name`,
//! `ALTER PROCEDURE | FUNCTION name characteristics`, `CALL name [(args)]`,
//! `SHOW CREATE PROCEDURE | FUNCTION name`, `SHOW PROCEDURE | FUNCTION STATUS
//! [LIKE 'pattern' | WHERE expr]` and the anonymous block `BEGIN NOT ATOMIC
//! ... END`.
//!
//! The header is read token by token ([`super::routine_cursor`]); the body is
//! parsed by [`super::routine_body`] to check it, and kept as written: the
//! dictionary stores the text, and a routine is parsed again from it when it
//! first runs.

use std::sync::Arc;

use sqlparser::ast;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::program_head::{create_head, finish, if_not_exists, like_or_where, LikeOrWhere};
use super::routine_body::{BodyParser, SpStmt};
use super::routine_cursor::Cursor;
use super::Statement;
use crate::error::SqlError;

pub use larch_engine::catalog::ProgramKind;

/// A stored procedure or function statement.
#[derive(Debug, Clone, PartialEq)]
pub enum RoutineStatement {
    Create(Box<CreateRoutine>),
    Drop {
        kind: ProgramKind,
        if_exists: bool,
        name: ast::ObjectName,
    },
    Alter {
        kind: ProgramKind,
        name: ast::ObjectName,
        chars: Characteristics,
    },
    Call {
        name: ast::ObjectName,
        args: Vec<ast::Expr>,
    },
    ShowCreate {
        kind: ProgramKind,
        name: ast::ObjectName,
    },
    ShowStatus {
        kind: ProgramKind,
        like: Option<String>,
        filter: Option<Box<ast::Expr>>,
    },
    /// `SHOW PACKAGE [BODY] STATUS ...` (no packages: empty).
    ShowPackageStatus,
    /// `BEGIN NOT ATOMIC ... END` run directly.
    Anonymous(Arc<SpStmt>),
}

/// IN, OUT or INOUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamMode {
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub mode: ParamMode,
    pub name: String,
    pub ty: ast::DataType,
}

/// SQL data access of a routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataAccess {
    ContainsSql,
    NoSql,
    ReadsSqlData,
    ModifiesSqlData,
}

/// A routine's characteristics as written (unset ones are `None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Characteristics {
    pub comment: Option<String>,
    pub deterministic: Option<bool>,
    pub access: Option<DataAccess>,
    /// `Some(true)` for SQL SECURITY INVOKER.
    pub invoker: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CreateRoutine {
    pub kind: ProgramKind,
    pub or_replace: bool,
    pub if_not_exists: bool,
    /// `(user, host)`; `None` for the current user.
    pub definer: Option<(String, String)>,
    pub name: ast::ObjectName,
    pub params: Vec<Param>,
    /// The parameter list as written (between the parentheses).
    pub params_text: String,
    /// The RETURNS type as written (functions).
    pub returns_text: String,
    pub returns: Option<ast::DataType>,
    pub chars: Characteristics,
    pub body: Arc<SpStmt>,
    pub body_text: String,
}

/// The routine statement in `tokens`, or `None` when it is not one.
pub(super) fn parse(
    text: &str,
    original: &str,
    tokens: &[TokenWithSpan],
) -> Option<Result<Statement, SqlError>> {
    let mut c = Cursor::new(text, original, tokens);
    let r = if c.is_kw("CREATE") {
        create(&mut c)?
    } else if c.is_kw("DROP") && (c.is_kw_at(1, "PROCEDURE") || c.is_kw_at(1, "FUNCTION")) {
        drop(&mut c)
    } else if c.is_kw("ALTER") && (c.is_kw_at(1, "PROCEDURE") || c.is_kw_at(1, "FUNCTION")) {
        alter(&mut c)
    } else if c.is_kw("CALL") {
        call(&mut c)
    } else if c.is_kw("SHOW") && (c.is_kw_at(1, "PROCEDURE") || c.is_kw_at(1, "FUNCTION")) {
        show_status(&mut c)
    } else if c.is_kw("SHOW") && c.is_kw_at(1, "PACKAGE") {
        // Oracle-mode packages do not exist here: always an empty list.
        c.i += 2;
        c.eat("BODY");
        show_status_filter(&mut c).map(|_| RoutineStatement::ShowPackageStatus)
    } else if c.is_kw("SHOW")
        && c.is_kw_at(1, "CREATE")
        && (c.is_kw_at(2, "PROCEDURE") || c.is_kw_at(2, "FUNCTION"))
    {
        show_create(&mut c)
    } else if c.is_kw("BEGIN") && c.is_kw_at(1, "NOT") && c.is_kw_at(2, "ATOMIC") {
        let mut b = BodyParser::new(&mut c);
        b.statement()
            .map(|s| RoutineStatement::Anonymous(Arc::new(s)))
    } else {
        return None;
    };
    Some(finish(&mut c, r, |s| Statement::Routine(Box::new(s))))
}

fn kind_of(c: &mut Cursor) -> Result<ProgramKind, SqlError> {
    if c.eat("PROCEDURE") {
        Ok(ProgramKind::Procedure)
    } else if c.eat("FUNCTION") {
        Ok(ProgramKind::Function)
    } else {
        Err(c.error())
    }
}

fn create(c: &mut Cursor) -> Option<Result<RoutineStatement, SqlError>> {
    // Find PROCEDURE / FUNCTION among the first words, past OR REPLACE and
    // DEFINER = user; anything else is not ours.
    let mut j = 1;
    while j < 16 && j < c.toks.len() {
        if c.is_kw_at(j, "PROCEDURE") || c.is_kw_at(j, "FUNCTION") {
            break;
        }
        if c.is_kw_at(j, "TRIGGER") || c.is_kw_at(j, "EVENT") {
            // Stored programs Larch does not run yet, refused whole (their
            // bodies are no longer cut at `;`, see `compound`).
            let what = if c.is_kw_at(j, "TRIGGER") {
                "CREATE TRIGGER"
            } else {
                "CREATE EVENT"
            };
            return Some(Err(SqlError::not_supported(what)));
        }
        if [
            "TABLE",
            "VIEW",
            "INDEX",
            "DATABASE",
            "SCHEMA",
            "USER",
            "AGGREGATE",
        ]
        .iter()
        .any(|k| c.is_kw_at(j, k))
        {
            return None;
        }
        j += 1;
    }
    if !(c.is_kw_at(j, "PROCEDURE") || c.is_kw_at(j, "FUNCTION")) {
        return None;
    }
    // `CREATE FUNCTION f RETURNS type SONAME 'lib'` (a UDF) is not ours.
    if (j + 2..c.toks.len()).any(|k| c.is_kw_at(k, "SONAME"))
        && !(j + 2..c.toks.len()).any(|k| c.is_kw_at(k, "BEGIN"))
    {
        return None;
    }
    Some(create_inner(c))
}

fn create_inner(c: &mut Cursor) -> Result<RoutineStatement, SqlError> {
    let (or_replace, definer) = create_head(c)?;
    let kind = kind_of(c)?;
    let if_not_exists = if_not_exists(c, or_replace)?;
    let name = c.object_name()?;
    c.expect_token(&Token::LParen)?;
    let params_start = c.i;
    let mut params = Vec::new();
    if !c.eat_token(&Token::RParen) {
        loop {
            let mode = if c.eat("INOUT") {
                ParamMode::InOut
            } else if c.eat("OUT") {
                ParamMode::Out
            } else {
                c.eat("IN");
                ParamMode::In
            };
            if mode != ParamMode::In && kind == ProgramKind::Function {
                return Err(c.error_at(c.i - 1));
            }
            let pname = c.ident()?;
            if params
                .iter()
                .any(|p: &Param| p.name.eq_ignore_ascii_case(&pname))
            {
                return Err(SqlError::new(1330, format!("Duplicate parameter: {pname}")));
            }
            let ty = c.data_type()?;
            params.push(Param {
                mode,
                name: pname,
                ty,
            });
            if c.eat_token(&Token::RParen) {
                break;
            }
            c.expect_token(&Token::Comma)?;
        }
    }
    let params_text = c.text_between(params_start, c.i - 1).to_string();
    let mut returns = None;
    let mut returns_text = String::new();
    if kind == ProgramKind::Function {
        c.expect_kw("RETURNS")?;
        let start = c.i;
        returns = Some(c.data_type()?);
        returns_text = c.text_between(start, c.i).to_string();
    }
    let chars = characteristics(c)?;
    let body_start = c.i;
    let body = BodyParser::new(c).statement()?;
    let body_text = c.text_between(body_start, c.i).to_string();
    if kind == ProgramKind::Function {
        check_function_body(&body)?;
    }
    Ok(RoutineStatement::Create(Box::new(CreateRoutine {
        kind,
        or_replace,
        if_not_exists,
        definer,
        name,
        params,
        params_text,
        returns_text,
        returns,
        chars,
        body: Arc::new(body),
        body_text,
    })))
}

fn characteristics(c: &mut Cursor) -> Result<Characteristics, SqlError> {
    let mut ch = Characteristics::default();
    loop {
        if c.eat("COMMENT") {
            ch.comment = Some(c.string()?);
        } else if c.eat_seq(&["LANGUAGE", "SQL"]) {
        } else if c.eat_seq(&["NOT", "DETERMINISTIC"]) {
            ch.deterministic = Some(false);
        } else if c.eat("DETERMINISTIC") {
            ch.deterministic = Some(true);
        } else if c.eat_seq(&["CONTAINS", "SQL"]) {
            ch.access = Some(DataAccess::ContainsSql);
        } else if c.eat_seq(&["NO", "SQL"]) {
            ch.access = Some(DataAccess::NoSql);
        } else if c.eat_seq(&["READS", "SQL", "DATA"]) {
            ch.access = Some(DataAccess::ReadsSqlData);
        } else if c.eat_seq(&["MODIFIES", "SQL", "DATA"]) {
            ch.access = Some(DataAccess::ModifiesSqlData);
        } else if c.eat_seq(&["SQL", "SECURITY"]) {
            if c.eat("INVOKER") {
                ch.invoker = Some(true);
            } else {
                c.expect_kw("DEFINER")?;
                ch.invoker = Some(false);
            }
        } else {
            return Ok(ch);
        }
    }
}

/// A function returns no result set (1415) and has no COMMIT/ROLLBACK
/// (1422): checked when it is created, as MariaDB does.
fn check_function_body(s: &SpStmt) -> Result<(), SqlError> {
    use super::routine_body::Decl;
    let list = |v: &[SpStmt]| v.iter().try_for_each(check_function_body);
    match s {
        SpStmt::Block(b) => {
            for d in &b.decls {
                if let Decl::Handler(h) = d {
                    check_function_body(&h.body)?;
                }
            }
            list(&b.body)
        }
        SpStmt::If {
            branches,
            otherwise,
        } => {
            for (_, b) in branches {
                list(b)?;
            }
            otherwise.as_deref().map_or(Ok(()), list)
        }
        SpStmt::Case {
            whens, otherwise, ..
        } => {
            for (_, b) in whens {
                list(b)?;
            }
            otherwise.as_deref().map_or(Ok(()), list)
        }
        SpStmt::While { body, .. } | SpStmt::Repeat { body, .. } | SpStmt::Loop { body, .. } => {
            list(body)
        }
        SpStmt::Sql { stmt, .. } => match stmt.as_ref() {
            Statement::Sql(a) => match a.as_ref() {
                ast::Statement::Query(_) | ast::Statement::ShowVariables { .. } => Err(
                    SqlError::new(1415, "Not allowed to return a result set from a function"),
                ),
                ast::Statement::Commit { .. } | ast::Statement::Rollback { .. } => {
                    Err(SqlError::new(
                        1422,
                        "Explicit or implicit commit is not allowed in stored function or trigger",
                    ))
                }
                _ => Ok(()),
            },
            Statement::StartTransaction { .. } => Err(SqlError::new(
                1422,
                "Explicit or implicit commit is not allowed in stored function or trigger",
            )),
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

fn drop(c: &mut Cursor) -> Result<RoutineStatement, SqlError> {
    c.expect_kw("DROP")?;
    let kind = kind_of(c)?;
    let if_exists = c.eat_seq(&["IF", "EXISTS"]);
    let name = c.object_name()?;
    Ok(RoutineStatement::Drop {
        kind,
        if_exists,
        name,
    })
}

fn alter(c: &mut Cursor) -> Result<RoutineStatement, SqlError> {
    c.expect_kw("ALTER")?;
    let kind = kind_of(c)?;
    let name = c.object_name()?;
    let chars = characteristics(c)?;
    Ok(RoutineStatement::Alter { kind, name, chars })
}

fn call(c: &mut Cursor) -> Result<RoutineStatement, SqlError> {
    c.expect_kw("CALL")?;
    let name = c.object_name()?;
    let mut args = Vec::new();
    if c.eat_token(&Token::LParen) && !c.eat_token(&Token::RParen) {
        loop {
            args.push(c.expr()?);
            if c.eat_token(&Token::RParen) {
                break;
            }
            c.expect_token(&Token::Comma)?;
        }
    }
    Ok(RoutineStatement::Call { name, args })
}

fn show_create(c: &mut Cursor) -> Result<RoutineStatement, SqlError> {
    c.expect_kw("SHOW")?;
    c.expect_kw("CREATE")?;
    let kind = kind_of(c)?;
    let name = c.object_name()?;
    Ok(RoutineStatement::ShowCreate { kind, name })
}

fn show_status(c: &mut Cursor) -> Result<RoutineStatement, SqlError> {
    c.expect_kw("SHOW")?;
    let kind = kind_of(c)?;
    if c.eat("CODE") {
        return Err(SqlError::not_supported("SHOW PROCEDURE CODE"));
    }
    let (like, filter) = show_status_filter(c)?;
    Ok(RoutineStatement::ShowStatus { kind, like, filter })
}

/// `STATUS [LIKE 'pattern' | WHERE expr]`.
fn show_status_filter(c: &mut Cursor) -> Result<LikeOrWhere, SqlError> {
    c.expect_kw("STATUS")?;
    like_or_where(c)
}
