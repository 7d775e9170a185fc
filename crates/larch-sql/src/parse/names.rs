//! Result column names as MariaDB gives them: an expression in the select
//! list without an alias is named by its text as written (`COUNT( * )`,
//! `max(tid) != min(tid)`, `@@GLOBAL.port`), not by the parsed expression
//! printed again. Column references keep their column's name and string
//! literals their value, which the executor already does.
//!
//! The select list of the statement's first SELECT (the one that names the
//! result's columns, also under INSERT ... SELECT and CREATE TABLE ...
//! SELECT) is found in the token stream: its items end at commas outside
//! parentheses and at the first clause keyword. Each unnamed item then gets
//! its text as alias. Statements with WITH are left alone (their first
//! SELECT is a common table expression's).

use sqlparser::ast;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

/// Byte ranges of the first SELECT's items in `text`, or None.
pub(super) fn select_items(tokens: &[TokenWithSpan], text: &str) -> Option<Vec<(usize, usize)>> {
    let words: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let upper = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let start = words
        .iter()
        .position(|t| upper(t).as_deref() == Some("SELECT"))?;
    if words[..start]
        .iter()
        .any(|t| upper(t).as_deref() == Some("WITH"))
    {
        return None;
    }
    let mut i = start + 1;
    while i < words.len()
        && matches!(
            upper(words[i]).as_deref(),
            Some(
                "ALL"
                    | "DISTINCT"
                    | "DISTINCTROW"
                    | "HIGH_PRIORITY"
                    | "STRAIGHT_JOIN"
                    | "SQL_SMALL_RESULT"
                    | "SQL_BIG_RESULT"
                    | "SQL_BUFFER_RESULT"
                    | "SQL_CACHE"
                    | "SQL_NO_CACHE"
                    | "SQL_CALC_FOUND_ROWS"
            )
        )
    {
        i += 1;
    }
    let lines = line_starts(text);
    let mut cursor = OffsetCursor::new(text, &lines);
    let mut offset = |l: Location| cursor.offset(l);
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut first: Option<usize> = None;
    let mut last = 0usize;
    let mut in_bare_match = false;
    while i < words.len() {
        let t = words[i];
        let at_end = depth == 0
            && (matches!(t.token, Token::SemiColon | Token::EOF | Token::Comma)
                || (t.token == Token::RParen)
                || matches!(
                    upper(t).as_deref(),
                    Some(
                        "FROM"
                            | "INTO"
                            | "WHERE"
                            | "GROUP"
                            | "HAVING"
                            | "ORDER"
                            | "LIMIT"
                            | "WINDOW"
                            | "FOR"
                            | "LOCK"
                            | "UNION"
                            | "EXCEPT"
                            | "INTERSECT"
                            | "MINUS"
                            | "PROCEDURE"
                    )
                ));
        if at_end {
            items.push((first?, last));
            if t.token != Token::Comma {
                return Some(items);
            }
            first = None;
            i += 1;
            continue;
        }
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        // `MATCH a, b AGAINST`: the column list's commas separate no items.
        let bare_match = upper(t).as_deref() == Some("MATCH")
            && words.get(i + 1).is_some_and(|n| n.token != Token::LParen);
        if bare_match {
            depth += 1;
        } else if upper(t).as_deref() == Some("AGAINST") && in_bare_match {
            depth -= 1;
        }
        in_bare_match = (in_bare_match || bare_match) && upper(t).as_deref() != Some("AGAINST");
        if first.is_none() {
            first = Some(offset(t.span.start)?);
        }
        last = offset(t.span.end)?;
        i += 1;
    }
    if let Some(f) = first {
        items.push((f, last));
    }
    Some(items)
}

pub(super) fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Byte offsets of (1-based line, 1-based character column) locations,
/// asked for in increasing order: each call walks on from the previous one,
/// so the tokens of a statement map to offsets in linear time (a statement
/// of one long line has hundreds of thousands of tokens).
pub(super) struct OffsetCursor<'a> {
    text: &'a str,
    lines: &'a [usize],
    /// The location of `byte`, the cursor's position.
    line: u64,
    column: u64,
    byte: usize,
}

impl<'a> OffsetCursor<'a> {
    pub(super) fn new(text: &'a str, lines: &'a [usize]) -> Self {
        OffsetCursor {
            text,
            lines,
            line: 1,
            column: 1,
            byte: 0,
        }
    }

    pub(super) fn offset(&mut self, l: Location) -> Option<usize> {
        if (l.line, l.column) < (self.line, self.column) || l.line != self.line {
            // Another line, or backwards: start from that line's first byte.
            self.byte = *self
                .lines
                .get(usize::try_from(l.line).ok()?.checked_sub(1)?)?;
            self.line = l.line;
            self.column = 1;
        }
        let rest = self.text.get(self.byte..)?;
        let ahead = usize::try_from(l.column.checked_sub(self.column)?).ok()?;
        let step = match rest.char_indices().nth(ahead) {
            Some((i, _)) => i,
            None if ahead == rest.chars().count() => rest.len(),
            None => return None,
        };
        self.byte += step;
        self.column = l.column;
        Some(self.byte)
    }
}

/// Names the unnamed items of the statement's first SELECT by their text.
pub(super) fn apply(stmt: &mut ast::Statement, items: &[(usize, usize)], text: &str) {
    let query = match stmt {
        ast::Statement::Query(q) => q.as_mut(),
        ast::Statement::Insert(ins) => match ins.source.as_deref_mut() {
            Some(q) => q,
            None => return,
        },
        ast::Statement::CreateTable(ct) => match ct.query.as_deref_mut() {
            Some(q) => q,
            None => return,
        },
        _ => return,
    };
    if query.with.is_some() {
        return;
    }
    let Some(select) = first_select(&mut query.body) else {
        return;
    };
    if select.projection.len() != items.len() {
        return;
    }
    for (item, &(from, to)) in select.projection.iter_mut().zip(items) {
        let ast::SelectItem::UnnamedExpr(e) = item else {
            continue;
        };
        if keeps_own_name(e) {
            continue;
        }
        let Some(name) = text.get(from..to) else {
            continue;
        };
        let alias = ast::Ident::with_quote('`', name.trim());
        *item = ast::SelectItem::ExprWithAlias {
            expr: e.clone(),
            alias,
        };
    }
}

fn first_select(body: &mut ast::SetExpr) -> Option<&mut ast::Select> {
    match body {
        ast::SetExpr::Select(s) => Some(s.as_mut()),
        ast::SetExpr::Query(q) if q.with.is_none() => first_select(&mut q.body),
        ast::SetExpr::SetOperation { left, .. } => first_select(left),
        _ => None,
    }
}

/// Columns are named after the column, literals after their value (as
/// the executor names them); `@@GLOBAL.x` and `@x` by their text.
fn keeps_own_name(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Identifier(i) => !i.value.starts_with('@'),
        ast::Expr::CompoundIdentifier(p) => p.first().is_none_or(|i| !i.value.starts_with('@')),
        ast::Expr::Nested(inner) => {
            matches!(
                inner.as_ref(),
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            ) && keeps_own_name(inner)
        }
        ast::Expr::Value(v) => matches!(
            v.value,
            ast::Value::SingleQuotedString(_)
                | ast::Value::DoubleQuotedString(_)
                | ast::Value::NationalStringLiteral(_)
        ),
        // `_latin1'abc'` is named `abc`, as its string.
        ast::Expr::Prefixed { value, .. } => keeps_own_name(value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    use super::*;

    fn items(sql: &str) -> Vec<&str> {
        let toks = Tokenizer::new(&MySqlDialect {}, sql)
            .tokenize_with_location()
            .unwrap_or_default();
        select_items(&toks, sql)
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| &sql[a..b])
            .collect()
    }

    #[test]
    fn items_are_split_at_top_level_commas() {
        assert_eq!(
            items("SELECT DISTINCT a, COUNT( * ),\n max(x) != min(y) FROM t"),
            vec!["a", "COUNT( * )", "max(x) != min(y)"]
        );
        assert_eq!(
            items("insert into t select concat('a', ' ,b') , 1 +  2 union select 1, 2"),
            vec!["concat('a', ' ,b')", "1 +  2"]
        );
        assert_eq!(items("SELECT 'é', x AS y"), vec!["'é'", "x AS y"]);
        assert!(items("WITH c AS (SELECT 1) SELECT * FROM c").is_empty());
    }
}
