//! Parsing of SQL-level prepared statements: `PREPARE name FROM expr`,
//! `EXECUTE name [USING expr, ...]`, `EXECUTE IMMEDIATE expr [USING expr,
//! ...]` and `{DEALLOCATE | DROP} PREPARE name`.
//!
//! MariaDB accepts any expression as the statement text (a literal, a user
//! variable, `CONCAT(...)`); the text is evaluated when the statement runs
//! (`session::sql_prepared`). Names are identifiers, compared without case.
//! Called from `extra::parse_extra` on the leading words.

use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use super::Statement;

fn word(p: &mut Parser, w: &str) -> bool {
    match &p.peek_token_ref().token {
        Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w) => {
            p.next_token();
            true
        }
        _ => false,
    }
}

fn name(p: &mut Parser) -> Result<String, ParserError> {
    Ok(p.parse_identifier()?.value.to_ascii_lowercase())
}

fn using(p: &mut Parser) -> Result<Vec<ast::Expr>, ParserError> {
    if word(p, "USING") {
        p.parse_comma_separated(Parser::parse_expr)
    } else {
        Ok(Vec::new())
    }
}

/// `PREPARE name FROM expr`.
pub(super) fn prepare(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    let name = name(p)?;
    if !word(p, "FROM") {
        return p.expected("FROM", p.peek_token());
    }
    let source = p.parse_expr()?;
    Ok(Statement::Prepare { name, source })
}

/// `EXECUTE name [USING ...]` or `EXECUTE IMMEDIATE expr [USING ...]`.
pub(super) fn execute(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    let immediate = matches!(
        &p.peek_token_ref().token,
        Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("IMMEDIATE")
    ) && p.peek_nth_token(1).token != Token::EOF
        && !matches!(p.peek_nth_token(1).token, Token::Word(ref w) if w.value.eq_ignore_ascii_case("USING"));
    if immediate {
        p.next_token();
        let source = p.parse_expr()?;
        let using = using(p)?;
        return Ok(Statement::ExecuteImmediate { source, using });
    }
    let name = name(p)?;
    let using = using(p)?;
    Ok(Statement::Execute { name, using })
}

/// `{DEALLOCATE | DROP} PREPARE name`.
pub(super) fn deallocate(p: &mut Parser) -> Result<Statement, ParserError> {
    p.next_token();
    if !word(p, "PREPARE") {
        return p.expected("PREPARE", p.peek_token());
    }
    let name = name(p)?;
    Ok(Statement::Deallocate { name })
}
