//! SQL text of a syntax tree that parses back to the same tree.
//!
//! The planner and the DDL keep some expressions and queries as text and
//! parse them again (CHECK constraints, generated columns and DEFAULT
//! expressions in the table metadata, the template of a correlated
//! subquery). sqlparser prints a string literal's characters as they are,
//! doubling only a quote that is neither doubled already nor after a
//! backslash. MariaDB's tokenizer (and Larch's) reads a backslash in a
//! literal as an escape, so `'a\\b'` printed as `'a\b'` read back as `ab`,
//! `'\\'` as an unterminated literal, and a value holding `''` (the text of
//! a template with an empty string in it) came back as one quote.
//! [`sql_text`] escapes every backslash and quote of a literal itself, which
//! sqlparser then prints as it is and which reads back as the value.

use std::fmt::Display;
use std::ops::ControlFlow;

use sqlparser::ast::{Value, ValueWithSpan, VisitMut, VisitorMut};

/// The text of `x` that parses back to `x` (see the module docs).
pub(crate) fn sql_text<T: VisitMut + Clone + Display>(x: &T) -> String {
    let mut copy = x.clone();
    let _ = copy.visit(&mut EscapeLiterals);
    copy.to_string()
}

/// Escapes the backslashes and quotes of string literals with a backslash.
struct EscapeLiterals;

impl VisitorMut for EscapeLiterals {
    type Break = ();

    fn pre_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<()> {
        match &mut value.value {
            Value::SingleQuotedString(s) | Value::NationalStringLiteral(s) => escape(s, '\''),
            Value::DoubleQuotedString(s) => escape(s, '"'),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// `s` with `\` and `quote` escaped by a backslash: sqlparser leaves a quote
/// after a backslash as it is, so the printed literal is exactly this text.
fn escape(s: &mut String, quote: char) {
    if !s.contains(['\\', quote]) {
        return;
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\\' || c == quote {
            out.push('\\');
        }
        out.push(c);
    }
    *s = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast;

    #[test]
    fn backslashes_print_escaped_and_parse_back() {
        for sql in [
            r"concat(a, '\\', 'it''s', 'x\\y')",
            r"a LIKE 'p\%' ESCAPE '\\'",
            r#"replace(b, "\\", '\\\\')"#,
            "'plain' = a",
            r#"'' = concat('it''s', '\'''', "say ""x""", '\\''')"#,
        ] {
            let e = crate::parse::parse_expression(sql).expect(sql);
            let text = sql_text(&e);
            let back = crate::parse::parse_expression(&text).expect(&text);
            assert_eq!(back, e, "{sql} printed as {text}");
        }
        let e = crate::parse::parse_expression(r"'a\\b'").expect("literal");
        assert_eq!(sql_text(&e), r"'a\\b'");
        // A literal whose value is SQL text with quotes and backslashes
        // (a template inside a template) survives two rounds.
        let inner =
            crate::parse::parse_expression(r"concat('', 'it''s', '\\', '\\''')").expect("inner");
        let outer = ast::Expr::value(Value::SingleQuotedString(sql_text(&inner)));
        let back = crate::parse::parse_expression(&sql_text(&outer)).expect("outer");
        let ast::Expr::Value(v) = back else {
            panic!("not a literal: {back}")
        };
        let Value::SingleQuotedString(text) = v.value else {
            panic!("not a string")
        };
        assert_eq!(crate::parse::parse_expression(&text).expect(&text), inner);
    }
}
