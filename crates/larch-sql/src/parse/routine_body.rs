//! The body of a stored program: MariaDB's compound-statement grammar
//! (`BEGIN [NOT ATOMIC] ... END` with labels and DECLAREs, IF, CASE, WHILE,
//! REPEAT, LOOP, LEAVE, ITERATE, RETURN, SET, OPEN/FETCH/CLOSE, SIGNAL and
//! RESIGNAL) parsed into [`SpStmt`]s; every other statement inside is cut out
//! at its `;` and parsed by the ordinary statement parser
//! ([`super::parse_one`]).
//!
//! Declarations are checked as MariaDB checks them: variables and conditions
//! before cursors and handlers (1337), cursors before handlers (1338),
//! duplicates (1331, 1332, 1333), end labels matching their begin label
//! (1310), LEAVE/ITERATE naming an enclosing label (1308).

use std::sync::Arc;

use sqlparser::ast;
use sqlparser::tokenizer::Token;

use super::routine_cursor::Cursor;
use super::Statement;
use crate::error::SqlError;

pub use super::routine_ast::{Block, CondValue, Decl, Handler, HandlerCond, SetItem, SpStmt};

const RESERVED: &[&str] = &[
    "DECLARE", "BEGIN", "IF", "CASE", "WHILE", "REPEAT", "LOOP", "LEAVE", "ITERATE", "RETURN",
    "SET", "OPEN", "FETCH", "CLOSE", "SIGNAL", "RESIGNAL", "END", "ELSE", "ELSEIF", "WHEN",
    "UNTIL", "THEN",
];

/// Parser state: the labels in scope (for LEAVE/ITERATE checks).
pub(crate) struct BodyParser<'c, 'a> {
    pub c: &'c mut Cursor<'a>,
    labels: Vec<(String, bool)>,
    /// Cursors declared in the enclosing blocks (1324 for others).
    cursors: Vec<String>,
    /// How many compound statements enclose the one being parsed.
    depth: usize,
}

/// Deepest nesting of compound statements (BEGIN, IF, CASE, loops) in a
/// stored program's body: beyond it, 1436 as for any statement that nests
/// too deeply (the body is parsed, run and dropped recursively).
const MAX_BODY_DEPTH: usize = 200;

impl<'c, 'a> BodyParser<'c, 'a> {
    pub fn new(c: &'c mut Cursor<'a>) -> Self {
        BodyParser {
            c,
            labels: Vec::new(),
            cursors: Vec::new(),
            depth: 0,
        }
    }

    /// One statement (a routine's whole body is one).
    pub fn statement(&mut self) -> Result<SpStmt, SqlError> {
        self.depth += 1;
        let r = if self.depth > MAX_BODY_DEPTH {
            Err(super::depth::stack_overrun())
        } else {
            crate::stack::check().and_then(|()| self.statement_inner())
        };
        self.depth -= 1;
        r
    }

    fn statement_inner(&mut self) -> Result<SpStmt, SqlError> {
        // `label:` before BEGIN / LOOP / WHILE / REPEAT.
        let label = match (self.c.peek(), self.c.peek_at(1)) {
            (Some(Token::Word(w)), Some(Token::Colon))
                if !RESERVED.iter().any(|r| w.value.eq_ignore_ascii_case(r)) =>
            {
                let l = w.value.clone();
                self.c.i += 2;
                Some(l)
            }
            _ => None,
        };
        if let Some(l) = &label {
            if self.labels.iter().any(|(x, _)| x.eq_ignore_ascii_case(l)) {
                return Err(SqlError::new(1309, format!("Redefining label {l}")));
            }
        }
        if self.c.is_kw("BEGIN") {
            return self.block(label);
        }
        if self.c.is_kw("LOOP") || self.c.is_kw("WHILE") || self.c.is_kw("REPEAT") {
            return self.looping(label);
        }
        if label.is_some() {
            return Err(self.c.error());
        }
        if self.c.eat("IF") {
            return self.if_statement();
        }
        if self.c.is_kw("CASE") {
            self.c.i += 1;
            return self.case_statement();
        }
        if self.c.is_kw("LEAVE") || self.c.is_kw("ITERATE") {
            let leave = self.c.eat("LEAVE");
            if !leave {
                self.c.i += 1;
            }
            let l = self.c.ident()?;
            let found = self
                .labels
                .iter()
                .rev()
                .find(|(x, _)| x.eq_ignore_ascii_case(&l));
            match found {
                Some((_, is_loop)) if leave || *is_loop => {}
                _ => {
                    let what = if leave { "LEAVE" } else { "ITERATE" };
                    return Err(SqlError::new(
                        1308,
                        format!("{what} with no matching label: {l}"),
                    ));
                }
            }
            return Ok(if leave {
                SpStmt::Leave(l)
            } else {
                SpStmt::Iterate(l)
            });
        }
        if self.c.eat("RETURN") {
            return Ok(SpStmt::Return(self.c.expr()?));
        }
        if self.c.eat("OPEN") {
            return Ok(SpStmt::Open(self.cursor_name()?));
        }
        if self.c.eat("CLOSE") {
            return Ok(SpStmt::Close(self.cursor_name()?));
        }
        if self.c.eat("FETCH") {
            if !self.c.eat_seq(&["NEXT", "FROM"]) {
                self.c.eat("FROM");
            }
            let cursor = self.cursor_name()?;
            self.c.expect_kw("INTO")?;
            let mut into = vec![self.c.ident()?];
            while self.c.eat_token(&Token::Comma) {
                into.push(self.c.ident()?);
            }
            return Ok(SpStmt::Fetch { cursor, into });
        }
        if self.c.is_kw("SIGNAL") || self.c.is_kw("RESIGNAL") {
            return self.signal();
        }
        if self.c.is_kw("SET") && self.is_variable_set() {
            return self.set();
        }
        if self.c.is_kw("DECLARE") {
            return Err(self.c.error());
        }
        self.sql()
    }

    fn cursor_name(&mut self) -> Result<String, SqlError> {
        let n = self.c.ident()?;
        if self.cursors.iter().any(|c| c.eq_ignore_ascii_case(&n)) {
            Ok(n)
        } else {
            Err(SqlError::new(1324, format!("Undefined CURSOR: {n}")))
        }
    }

    /// An ordinary statement up to its `;`.
    fn sql(&mut self) -> Result<SpStmt, SqlError> {
        let start = self.c.i;
        let end = self.c.next_semicolon();
        if start == end {
            return Err(self.c.error());
        }
        let (text, original) = self.c.pieces_between(start, end);
        let stmt = super::parse_one(text, original).map_err(|e| self.relocate(e, start))?;
        let shown = self.c.text_between(start, end).to_string();
        self.c.i = end;
        Ok(SpStmt::Sql {
            stmt: Arc::new(stmt),
            text: shown,
        })
    }

    /// A syntax error of an embedded statement, with its line counted from
    /// the start of the whole statement.
    fn relocate(&self, e: SqlError, start: usize) -> SqlError {
        match e {
            SqlError::Syntax { near, line } => {
                let before = self.c.original.get(..self.c.offset(start)).unwrap_or("");
                let first = before.len() - before.trim_start().len();
                let extra = before[first..].matches('\n').count() as u64;
                SqlError::Syntax {
                    near,
                    line: line + extra,
                }
            }
            other => other,
        }
    }

    /// True for `SET` of variables (not `SET NAMES`, `SET TRANSACTION`, ...).
    fn is_variable_set(&self) -> bool {
        if matches!(self.c.peek_at(2), Some(Token::Eq | Token::Assignment)) {
            return true;
        }
        let special = [
            "NAMES",
            "TRANSACTION",
            "PASSWORD",
            "CHARACTER",
            "CHARSET",
            "STATEMENT",
            "ROLE",
            "DEFAULT",
        ]
        .iter()
        .any(|k| self.c.is_kw_at(1, k));
        let scoped_transaction = (self.c.is_kw_at(1, "GLOBAL") || self.c.is_kw_at(1, "SESSION"))
            && self.c.is_kw_at(2, "TRANSACTION");
        !special && !scoped_transaction
    }

    fn set(&mut self) -> Result<SpStmt, SqlError> {
        self.c.i += 1;
        let mut items = Vec::new();
        loop {
            let start = self.c.i;
            let local = match (self.c.peek(), self.c.peek_at(1)) {
                (Some(Token::Word(w)), Some(Token::Eq | Token::Assignment))
                    if !w.value.starts_with('@') =>
                {
                    Some(w.value.clone())
                }
                _ => None,
            };
            // Skip the target up to `=` / `:=`.
            while !matches!(self.c.peek(), Some(Token::Eq | Token::Assignment) | None) {
                if matches!(self.c.peek(), Some(Token::SemiColon | Token::EOF)) {
                    return Err(self.c.error());
                }
                self.c.i += 1;
            }
            self.c.i += 1;
            let value = self.expr_until_comma()?;
            let (text, original) = self.c.pieces_between(start, self.c.i);
            // A local variable may have a name SET treats specially (`names`).
            let stmt = match super::parse_one(&format!("SET {text}"), &format!("SET {original}")) {
                Ok(st) => Some(Arc::new(st)),
                Err(_) if local.is_some() => None,
                Err(e) => return Err(self.relocate(e, start)),
            };
            items.push(SetItem { local, value, stmt });
            if !self.c.eat_token(&Token::Comma) {
                break;
            }
        }
        Ok(SpStmt::Set(items))
    }

    fn expr_until_comma(&mut self) -> Result<ast::Expr, SqlError> {
        self.c.expr()
    }

    fn signal(&mut self) -> Result<SpStmt, SqlError> {
        let resignal = self.c.eat("RESIGNAL");
        if !resignal {
            self.c.i += 1;
        }
        let mut condition = None;
        if self.c.eat("SQLSTATE") {
            self.c.eat("VALUE");
            let s = self.c.string()?;
            condition = Some(CondValue::State(super::routine_ast::check_state(&s)?));
        } else if !self.c.is_kw("SET")
            && !self.c.at_end()
            && self.c.peek() != Some(&Token::SemiColon)
        {
            condition = Some(CondValue::Named(self.c.ident()?));
        }
        let mut items = Vec::new();
        if self.c.eat("SET") {
            loop {
                let name = self.c.ident()?.to_ascii_uppercase();
                self.c.expect_token(&Token::Eq)?;
                let v = self.c.expr()?;
                items.push((name, v));
                if !self.c.eat_token(&Token::Comma) {
                    break;
                }
            }
        }
        if !resignal && condition.is_none() {
            return Err(self.c.error());
        }
        Ok(SpStmt::Signal {
            resignal,
            condition,
            items,
        })
    }

    /// Statements up to one of `stops` (not consumed), each ended by `;`.
    fn list(&mut self, stops: &[&str]) -> Result<Vec<SpStmt>, SqlError> {
        let mut out = Vec::new();
        while !stops.iter().any(|s| self.c.is_kw(s)) {
            if self.c.at_end() {
                return Err(self.c.error());
            }
            out.push(self.statement()?);
            self.c.expect_token(&Token::SemiColon)?;
        }
        Ok(out)
    }

    fn if_statement(&mut self) -> Result<SpStmt, SqlError> {
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.c.expr()?;
            self.c.expect_kw("THEN")?;
            let body = self.list(&["ELSEIF", "ELSE", "END"])?;
            branches.push((cond, body));
            if self.c.eat("ELSEIF") {
                continue;
            }
            if self.c.eat("ELSE") {
                otherwise = Some(self.list(&["END"])?);
            }
            break;
        }
        self.c.expect_kw("END")?;
        self.c.expect_kw("IF")?;
        Ok(SpStmt::If {
            branches,
            otherwise,
        })
    }

    fn case_statement(&mut self) -> Result<SpStmt, SqlError> {
        let operand = if self.c.is_kw("WHEN") {
            None
        } else {
            Some(self.c.expr()?)
        };
        let mut whens = Vec::new();
        while self.c.eat("WHEN") {
            let v = self.c.expr()?;
            self.c.expect_kw("THEN")?;
            whens.push((v, self.list(&["WHEN", "ELSE", "END"])?));
        }
        if whens.is_empty() {
            return Err(self.c.error());
        }
        let otherwise = if self.c.eat("ELSE") {
            Some(self.list(&["END"])?)
        } else {
            None
        };
        self.c.expect_kw("END")?;
        self.c.expect_kw("CASE")?;
        Ok(SpStmt::Case {
            operand,
            whens,
            otherwise,
        })
    }

    /// The optional label after END / END LOOP etc.: it must match.
    fn end_label(&mut self, label: &Option<String>) -> Result<(), SqlError> {
        if let Some(Token::Word(w)) = self.c.peek() {
            if !RESERVED.iter().any(|r| w.value.eq_ignore_ascii_case(r)) {
                let l = w.value.clone();
                match label {
                    Some(x) if x.eq_ignore_ascii_case(&l) => {
                        self.c.i += 1;
                    }
                    _ => return Err(SqlError::new(1310, format!("End-label {l} without match"))),
                }
            }
        }
        Ok(())
    }

    fn looping(&mut self, label: Option<String>) -> Result<SpStmt, SqlError> {
        if let Some(l) = &label {
            self.labels.push((l.clone(), true));
        }
        let r = self.looping_inner(&label);
        if label.is_some() {
            self.labels.pop();
        }
        r
    }

    fn looping_inner(&mut self, label: &Option<String>) -> Result<SpStmt, SqlError> {
        let label = label.clone();
        if self.c.eat("LOOP") {
            let body = self.list(&["END"])?;
            self.c.expect_kw("END")?;
            self.c.expect_kw("LOOP")?;
            self.end_label(&label)?;
            return Ok(SpStmt::Loop { label, body });
        }
        if self.c.eat("WHILE") {
            let cond = self.c.expr()?;
            self.c.expect_kw("DO")?;
            let body = self.list(&["END"])?;
            self.c.expect_kw("END")?;
            self.c.expect_kw("WHILE")?;
            self.end_label(&label)?;
            return Ok(SpStmt::While { label, cond, body });
        }
        self.c.expect_kw("REPEAT")?;
        let body = self.list(&["UNTIL"])?;
        self.c.expect_kw("UNTIL")?;
        let until = self.c.expr()?;
        self.c.expect_kw("END")?;
        self.c.expect_kw("REPEAT")?;
        self.end_label(&label)?;
        Ok(SpStmt::Repeat { label, body, until })
    }

    fn block(&mut self, label: Option<String>) -> Result<SpStmt, SqlError> {
        self.c.expect_kw("BEGIN")?;
        self.c.eat_seq(&["NOT", "ATOMIC"]);
        if let Some(l) = &label {
            self.labels.push((l.clone(), false));
        }
        let cursors = self.cursors.len();
        let r = self.block_inner(label.clone());
        self.cursors.truncate(cursors);
        if label.is_some() {
            self.labels.pop();
        }
        r
    }

    fn block_inner(&mut self, label: Option<String>) -> Result<SpStmt, SqlError> {
        let mut decls = Vec::new();
        // 0: variables/conditions, 1: cursors, 2: handlers.
        let mut stage = 0;
        while self.c.is_kw("DECLARE") {
            let d = self.declare()?;
            let this = match &d {
                Decl::Var { .. } | Decl::Condition { .. } => 0,
                Decl::Cursor { .. } => 1,
                Decl::Handler(_) => 2,
            };
            if this < stage {
                return Err(if this == 0 {
                    SqlError::new(
                        1337,
                        "Variable or condition declaration after cursor or handler declaration",
                    )
                } else {
                    SqlError::new(1338, "Cursor declaration after handler declaration")
                });
            }
            stage = this;
            super::routine_ast::check_duplicate(&decls, &d)?;
            if let Decl::Cursor { name, .. } = &d {
                self.cursors.push(name.clone());
            }
            decls.push(d);
            self.c.expect_token(&Token::SemiColon)?;
        }
        let body = self.list(&["END"])?;
        self.c.expect_kw("END")?;
        self.end_label(&label)?;
        Ok(SpStmt::Block(Block { label, decls, body }))
    }

    fn declare(&mut self) -> Result<Decl, SqlError> {
        self.c.expect_kw("DECLARE")?;
        if self.c.is_kw("CONTINUE") || self.c.is_kw("EXIT") || self.c.is_kw("UNDO") {
            if self.c.is_kw("UNDO") {
                return Err(SqlError::not_supported("UNDO handlers"));
            }
            let exit = self.c.eat("EXIT");
            if !exit {
                self.c.i += 1;
            }
            self.c.expect_kw("HANDLER")?;
            self.c.expect_kw("FOR")?;
            let mut conditions = Vec::new();
            loop {
                conditions.push(self.handler_condition()?);
                if !self.c.eat_token(&Token::Comma) {
                    break;
                }
            }
            let body = self.statement()?;
            return Ok(Decl::Handler(Arc::new(Handler {
                exit,
                conditions,
                body,
            })));
        }
        let first = self.c.ident()?;
        if self.c.eat("CONDITION") {
            self.c.expect_kw("FOR")?;
            let value = self.cond_value()?;
            return Ok(Decl::Condition { name: first, value });
        }
        if self.c.eat("CURSOR") {
            self.c.expect_kw("FOR")?;
            let start = self.c.i;
            let end = self.c.next_semicolon();
            let (text, original) = self.c.pieces_between(start, end);
            let stmt = super::parse_one(text, original).map_err(|e| self.relocate(e, start))?;
            self.c.i = end;
            return match stmt {
                Statement::Sql(s) => match *s {
                    ast::Statement::Query(q) => Ok(Decl::Cursor {
                        name: first,
                        query: q,
                    }),
                    _ => Err(SqlError::new(1322, "Cursor statement must be a SELECT")),
                },
                Statement::SelectInto { .. } => {
                    Err(SqlError::new(1323, "Cursor SELECT must not have INTO"))
                }
                _ => Err(SqlError::new(1322, "Cursor statement must be a SELECT")),
            };
        }
        let mut names = vec![first];
        while self.c.eat_token(&Token::Comma) {
            names.push(self.c.ident()?);
        }
        let ty = Box::new(self.c.data_type()?);
        let default = if self.c.eat("DEFAULT") {
            Some(Box::new(self.c.expr()?))
        } else {
            None
        };
        Ok(Decl::Var { names, ty, default })
    }

    fn cond_value(&mut self) -> Result<CondValue, SqlError> {
        if self.c.eat("SQLSTATE") {
            self.c.eat("VALUE");
            let s = self.c.string()?;
            return Ok(CondValue::State(super::routine_ast::check_state(&s)?));
        }
        match self.c.peek() {
            Some(Token::Number(n, _)) => {
                let code = n.parse::<u16>().map_err(|_| self.c.error())?;
                if code == 0 {
                    return Err(SqlError::new(1407, "Bad SQLSTATE: '0'"));
                }
                self.c.i += 1;
                Ok(CondValue::Code(code))
            }
            _ => Err(self.c.error()),
        }
    }

    fn handler_condition(&mut self) -> Result<HandlerCond, SqlError> {
        if self.c.eat("SQLEXCEPTION") {
            return Ok(HandlerCond::SqlException);
        }
        if self.c.eat("SQLWARNING") {
            return Ok(HandlerCond::SqlWarning);
        }
        if self.c.eat_seq(&["NOT", "FOUND"]) {
            return Ok(HandlerCond::NotFound);
        }
        if self.c.is_kw("SQLSTATE") || matches!(self.c.peek(), Some(Token::Number(..))) {
            return Ok(HandlerCond::Value(self.cond_value()?));
        }
        Ok(HandlerCond::Value(CondValue::Named(self.c.ident()?)))
    }
}
