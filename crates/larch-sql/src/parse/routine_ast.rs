//! The parsed form of a stored program's body ([`SpStmt`] and its
//! declarations), built by [`super::routine_body`], run by the SQL layer's
//! interpreter; and the declaration checks MariaDB makes (SQLSTATE syntax,
//! duplicate variables, conditions, cursors, handlers).

use std::sync::Arc;

use sqlparser::ast;

use super::Statement;
use crate::error::SqlError;

/// One statement of a stored program.
#[derive(Debug, Clone, PartialEq)]
pub enum SpStmt {
    Block(Block),
    If {
        branches: Vec<(ast::Expr, Vec<SpStmt>)>,
        otherwise: Option<Vec<SpStmt>>,
    },
    Case {
        operand: Option<ast::Expr>,
        whens: Vec<(ast::Expr, Vec<SpStmt>)>,
        otherwise: Option<Vec<SpStmt>>,
    },
    While {
        label: Option<String>,
        cond: ast::Expr,
        body: Vec<SpStmt>,
    },
    Repeat {
        label: Option<String>,
        body: Vec<SpStmt>,
        until: ast::Expr,
    },
    Loop {
        label: Option<String>,
        body: Vec<SpStmt>,
    },
    Leave(String),
    Iterate(String),
    Return(ast::Expr),
    /// `SET a = x, @b = y, ...`, item by item.
    Set(Vec<SetItem>),
    Open(String),
    Fetch {
        cursor: String,
        into: Vec<String>,
    },
    Close(String),
    Signal {
        resignal: bool,
        condition: Option<CondValue>,
        /// `SET MESSAGE_TEXT = ..., MYSQL_ERRNO = ...` (upper-case names).
        items: Vec<(String, ast::Expr)>,
    },
    /// Any other statement, run by the session.
    Sql {
        stmt: Arc<Statement>,
        text: String,
    },
}

/// One assignment of a SET.
#[derive(Debug, Clone, PartialEq)]
pub struct SetItem {
    /// The target when it may be a local variable (a plain name).
    pub local: Option<String>,
    pub value: ast::Expr,
    /// The assignment as an ordinary `SET` statement (for user and system
    /// variables, and names that are no local variable); `None` when it
    /// only parses as a local variable's.
    pub stmt: Option<Arc<Statement>>,
}

/// `BEGIN ... END` with its declarations.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub label: Option<String>,
    pub decls: Vec<Decl>,
    pub body: Vec<SpStmt>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Decl {
    Var {
        names: Vec<String>,
        ty: Box<ast::DataType>,
        default: Option<Box<ast::Expr>>,
    },
    Condition {
        name: String,
        value: CondValue,
    },
    Cursor {
        name: String,
        query: Box<ast::Query>,
    },
    Handler(Arc<Handler>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    pub exit: bool,
    pub conditions: Vec<HandlerCond>,
    pub body: SpStmt,
}

/// A condition value: `SQLSTATE [VALUE] '...'` or an error number.
#[derive(Debug, Clone, PartialEq)]
pub enum CondValue {
    State(String),
    Code(u16),
    /// A declared condition's name (SIGNAL name).
    Named(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum HandlerCond {
    SqlException,
    SqlWarning,
    NotFound,
    Value(CondValue),
}

/// A SQLSTATE is five characters of digits and upper-case letters, not
/// class 00 (1407 otherwise).
pub(super) fn check_state(s: &str) -> Result<String, SqlError> {
    let ok = s.len() == 5
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        && !s.starts_with("00");
    if ok {
        Ok(s.to_string())
    } else {
        Err(SqlError::new(1407, format!("Bad SQLSTATE: '{s}'")))
    }
}

pub(super) fn check_duplicate(decls: &[Decl], d: &Decl) -> Result<(), SqlError> {
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    match d {
        Decl::Var { names, .. } => {
            for (i, n) in names.iter().enumerate() {
                let dup = names[..i].iter().any(|m| same(m, n))
                    || decls.iter().any(|x| matches!(x, Decl::Var { names, .. } if names.iter().any(|m| same(m, n))));
                if dup {
                    return Err(SqlError::new(1331, format!("Duplicate variable: {n}")));
                }
            }
        }
        Decl::Condition { name, .. } => {
            if decls
                .iter()
                .any(|x| matches!(x, Decl::Condition { name: m, .. } if same(m, name)))
            {
                return Err(SqlError::new(1332, format!("Duplicate condition: {name}")));
            }
        }
        Decl::Cursor { name, .. } => {
            if decls
                .iter()
                .any(|x| matches!(x, Decl::Cursor { name: m, .. } if same(m, name)))
            {
                return Err(SqlError::new(1333, format!("Duplicate cursor: {name}")));
            }
        }
        Decl::Handler(h) => {
            for c in &h.conditions {
                let dup = decls.iter().any(
                    |x| matches!(x, Decl::Handler(o) if o.conditions.iter().any(|oc| oc == c)),
                );
                if dup {
                    return Err(SqlError::new(
                        1413,
                        "Duplicate handler declared in the same block",
                    ));
                }
            }
        }
    }
    Ok(())
}
