//! Comma joins inside a parenthesized join, `FROM (a, b) LEFT JOIN c ON
//! ...`, and a single table in parentheses, `FROM (t)` or `FROM ((t))`,
//! which sqlparser does not take: each comma directly inside such
//! parentheses becomes `CROSS JOIN` (the same join; inside the parentheses
//! the comma's lower precedence changes nothing), and parentheses holding
//! no join at all are dropped (they change nothing either). Used only as a
//! second try after a statement failed to parse, so statements that parse
//! are never rewritten and pay nothing.
//!
//! A parenthesis opens a join when it follows `FROM`, `JOIN`,
//! `STRAIGHT_JOIN`, or a comma or another join parenthesis of a FROM
//! clause, and the next token is a name (not `SELECT`, `WITH` or `VALUES`,
//! which open a derived table).

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The tokens with the commas of parenthesized joins turned into CROSS JOIN,
/// or `None` when there are none.
pub(super) fn rewrite(toks: &[TokenWithSpan]) -> Option<Vec<TokenWithSpan>> {
    // Per open parenthesis (and the statement level at the bottom): is it
    // a join parenthesis, and is a FROM clause open at that level?
    let mut levels: Vec<(bool, bool)> = vec![(false, false)];
    // Per open parenthesis: its index in `out` and whether a join (a join
    // word, comma or ON/USING) or a kept inner parenthesis was seen in it.
    let mut opened: Vec<(usize, bool)> = Vec::new();
    let mut out = Vec::with_capacity(toks.len() + 4);
    let mut changed = false;
    let mut prev: Option<&Token> = None;
    for (i, t) in toks.iter().enumerate() {
        if matches!(t.token, Token::Whitespace(_)) {
            out.push(t.clone());
            continue;
        }
        let upper = match &t.token {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        };
        let (join_paren, from_open) = levels.last().copied().unwrap_or((false, false));
        match (&t.token, upper.as_deref()) {
            (Token::LParen, _) => {
                let after_join = match prev {
                    Some(Token::Word(w)) if w.quote_style.is_none() => {
                        let v = w.value.to_ascii_uppercase();
                        v == "JOIN" || v == "STRAIGHT_JOIN" || v == "FROM"
                    }
                    Some(Token::Comma) => from_open || join_paren,
                    Some(Token::LParen) => join_paren,
                    _ => false,
                };
                let next = toks[i + 1..]
                    .iter()
                    .find(|n| !matches!(n.token, Token::Whitespace(_)));
                let names_next = match next.map(|n| &n.token) {
                    Some(Token::Word(w)) => {
                        !(w.quote_style.is_none()
                            && ["SELECT", "WITH", "VALUES"]
                                .iter()
                                .any(|k| w.value.eq_ignore_ascii_case(k)))
                    }
                    Some(Token::LParen) => true,
                    _ => false,
                };
                levels.push((after_join && names_next, false));
                opened.push((out.len(), false));
            }
            (Token::RParen, _) if levels.len() > 1 => {
                let (join_paren, _) = levels.pop().unwrap_or((false, false));
                let (at, joined) = opened.pop().unwrap_or((0, true));
                if join_paren && !joined && at < out.len() {
                    // A lone table in parentheses: drop them.
                    out.remove(at);
                    changed = true;
                    prev = Some(&t.token);
                    continue;
                }
                mark_joined(&mut opened);
            }
            (_, Some("JOIN" | "STRAIGHT_JOIN" | "ON" | "USING")) => mark_joined(&mut opened),
            (Token::Comma, _) if join_paren => {
                mark_joined(&mut opened);
                out.push(with_word(t, "CROSS"));
                out.push(with_word(t, "JOIN"));
                changed = true;
                prev = Some(&t.token);
                continue;
            }
            (_, Some("FROM")) => set_from(&mut levels, true),
            (
                _,
                Some(
                    "WHERE" | "GROUP" | "HAVING" | "ORDER" | "LIMIT" | "UNION" | "EXCEPT"
                    | "INTERSECT" | "WINDOW" | "FOR" | "LOCK" | "INTO" | "SET",
                ),
            ) => set_from(&mut levels, false),
            _ => {}
        }
        out.push(t.clone());
        prev = Some(&t.token);
    }
    changed.then_some(out)
}

fn mark_joined(opened: &mut [(usize, bool)]) {
    if let Some(o) = opened.last_mut() {
        o.1 = true;
    }
}

fn set_from(levels: &mut [(bool, bool)], open: bool) {
    if let Some(l) = levels.last_mut() {
        l.1 = open;
    }
}

fn with_word(at: &TokenWithSpan, w: &str) -> TokenWithSpan {
    TokenWithSpan {
        token: Token::make_word(w, None),
        span: at.span,
    }
}
