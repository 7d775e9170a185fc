//! SQL text of a syntax tree that parses back to the same tree.
//!
//! The planner and the DDL keep some expressions and queries as text and
//! parse them again (CHECK constraints, generated columns and DEFAULT
//! expressions in the table metadata, the template of a correlated
//! subquery). sqlparser prints a string literal's characters as they are,
//! doubling only its quote; MariaDB's tokenizer (and Larch's) reads a
//! backslash in a literal as an escape, so `'a\\b'` printed as `'a\b'`
//! read back as `ab`, and `'\\'` as an unterminated literal. [`sql_text`]
//! prints backslashes escaped, which reads back as the value.

use std::fmt::Display;
use std::ops::ControlFlow;

use sqlparser::ast::{Value, ValueWithSpan, VisitMut, VisitorMut};

/// The text of `x` that parses back to `x` (see the module docs).
pub(crate) fn sql_text<T: VisitMut + Clone + Display>(x: &T) -> String {
    let mut copy = x.clone();
    let _ = copy.visit(&mut EscapeBackslashes);
    copy.to_string()
}

/// Doubles the backslashes of string literals.
struct EscapeBackslashes;

impl VisitorMut for EscapeBackslashes {
    type Break = ();

    fn pre_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<()> {
        if let Value::SingleQuotedString(s)
        | Value::DoubleQuotedString(s)
        | Value::NationalStringLiteral(s) = &mut value.value
        {
            if s.contains('\\') {
                *s = s.replace('\\', "\\\\");
            }
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backslashes_print_escaped_and_parse_back() {
        for sql in [
            r"concat(a, '\\', 'it''s', 'x\\y')",
            r"a LIKE 'p\%' ESCAPE '\\'",
            r#"replace(b, "\\", '\\\\')"#,
            "'plain' = a",
        ] {
            let e = crate::parse::parse_expression(sql).expect(sql);
            let text = sql_text(&e);
            let back = crate::parse::parse_expression(&text).expect(&text);
            assert_eq!(back, e, "{sql} printed as {text}");
        }
        let e = crate::parse::parse_expression(r"'a\\b'").expect("literal");
        assert_eq!(sql_text(&e), r"'a\\b'");
    }
}
