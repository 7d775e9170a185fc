//! The two hexadecimal literal forms, told apart. MariaDB 10.11 reads
//! `X'616263'` as a binary string, which in a numeric or boolean context
//! is converted as text (`X'61' + 0` is 0 with a 1292 warning, `X'31' = 1`
//! holds, `WHERE X'616263'` is false), while `0x616263` is a hexadecimal
//! number that is also a string (`0x61 + 0` is 97). sqlparser gives both
//! the same token, so the `X'...'` form is found by its text and, where it
//! stands as an expression, written `_binary X'...'`: the introducer makes
//! it the plain binary string MariaDB has.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::names::{line_starts, OffsetCursor};

/// Puts `_binary` before each `X'...'` literal of `tokens` (spans into
/// `text`) that follows an operator, an opening parenthesis, a comma or a
/// keyword that starts an expression.
pub(super) fn introduce_binary(tokens: &mut Vec<TokenWithSpan>, text: &str) {
    if !tokens
        .iter()
        .any(|t| matches!(t.token, Token::HexStringLiteral(_)))
    {
        return;
    }
    let lines = line_starts(text);
    let mut cursor = OffsetCursor::new(text, &lines);
    let mut out = Vec::with_capacity(tokens.len() + 4);
    // The last token that is not whitespace or a comment.
    let mut previous: Option<Token> = None;
    for t in tokens.drain(..) {
        if let Token::HexStringLiteral(_) = &t.token {
            let x_form = cursor
                .offset(t.span.start)
                .and_then(|at| text.get(at..at + 1))
                .is_some_and(|c| c.eq_ignore_ascii_case("x"));
            if x_form && previous.as_ref().is_some_and(starts_expression) {
                out.push(TokenWithSpan {
                    token: Token::make_word("_binary", None),
                    span: t.span,
                });
            }
        }
        if !matches!(t.token, Token::Whitespace(_)) {
            previous = Some(t.token.clone());
        }
        out.push(t);
    }
    *tokens = out;
}

/// True for a token after which a literal is an operand of an expression.
fn starts_expression(t: &Token) -> bool {
    match t {
        Token::LParen
        | Token::Comma
        | Token::Eq
        | Token::DoubleEq
        | Token::Neq
        | Token::Lt
        | Token::Gt
        | Token::LtEq
        | Token::GtEq
        | Token::Spaceship
        | Token::Plus
        | Token::Minus
        | Token::Mul
        | Token::Div
        | Token::Mod
        | Token::Pipe
        | Token::Ampersand
        | Token::Caret
        | Token::ShiftLeft
        | Token::ShiftRight
        | Token::StringConcat
        | Token::ExclamationMark
        | Token::Tilde => true,
        Token::Word(w) if w.quote_style.is_none() => [
            "SELECT", "WHERE", "AND", "OR", "XOR", "NOT", "THEN", "ELSE", "WHEN", "CASE", "ON",
            "HAVING", "BETWEEN", "DIV", "MOD", "RETURN", "IS",
        ]
        .iter()
        .any(|k| w.value.eq_ignore_ascii_case(k)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::ast;

    use crate::parse::{parse, Statement};

    /// The select list's expressions as the parser gives them back.
    fn items(sql: &str) -> Vec<String> {
        let stmts = parse(sql).expect("parses");
        let Some(Statement::Sql(s)) = stmts.into_iter().next() else {
            panic!("not a SQL statement: {sql}");
        };
        let ast::Statement::Query(q) = s.as_ref() else {
            panic!("not a query: {sql}");
        };
        let ast::SetExpr::Select(sel) = q.body.as_ref() else {
            panic!("not a SELECT: {sql}");
        };
        sel.projection
            .iter()
            .map(|p| match p {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => e.to_string(),
                other => other.to_string(),
            })
            .collect()
    }

    #[test]
    fn only_the_x_form_becomes_a_binary_string() {
        assert_eq!(
            items("SELECT X'61', 0x61, x'62' + 1, (0x63), _latin1 X'64'"),
            vec![
                "_binary X'61'",
                "X'61'",
                "_binary X'62' + 1",
                "(X'63')",
                "_latin1 X'64'"
            ]
        );
    }
}
