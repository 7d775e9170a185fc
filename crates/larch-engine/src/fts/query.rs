//! Full-text query strings to a syntax tree, as InnoDB parses them.
//!
//! Owns InnoDB's two query lexers (`fts0blex.l` for `IN BOOLEAN MODE`,
//! `fts0tlex.l` for natural-language mode), its grammar (`fts0pars.y`) and the
//! term splitting of `fts_ast_create_node_term`.
//!
//! Boolean-mode lexer, longest match first, ties to the earlier rule:
//! spaces and tabs are skipped; `* ( ) + - < > ~ @` are operators; a run of
//! digits is a number; a run of bytes other than `" space newline * ( ) + - <
//! > ~ @ %` is a term (so a tab inside a term belongs to it); `"..."` without
//! a newline inside is a phrase; anything else (a lone `"`, `%`, a newline) is
//! skipped. Natural-language mode knows only spaces/tabs, `*`, phrases and
//! terms (everything but `" space newline %`), so `+a -b` there is two terms.
//!
//! Grammar: a query is a list of expressions and groups. An expression is an
//! optional prefix (`+` must contain, `-` must not contain, `~` negate, `>`
//! raise, `<` lower) followed by a term with an optional trailing `*`
//! (prefix search; leading `*`s are ignored) or a phrase with an optional
//! `@N` proximity distance. A group is `( list )` with an optional prefix.
//! Anything else is a syntax error: two prefixes (`++a`), a prefix or `*` at
//! the end, a stray `)` or `@`, an unclosed `(`. MariaDB reports those as
//! error 1064 with bison's message (`syntax error, unexpected $end`); the
//! `, expecting ...` suffix bison adds for states with few choices is not
//! reproduced. Groups nest at most [`MAX_GROUP_DEPTH`] deep; deeper queries
//! fail with MariaDB's "Table handler out of memory" (handler error 128).
//!
//! A term is split into words by the built-in tokenizer
//! ([`super::tokenizer::next_word`]) and case-folded: its first word is kept
//! whatever its length (unless longer than `innodb_ft_max_token_size`), later
//! words only when their length is within the token size limits (`a.bc.def`
//! gives `a` and `def`). A term with no word, and an empty phrase `""`, are
//! dropped, with their prefix. Stopwords are not removed here.
//!
//! Invariants: the tree is at most [`MAX_GROUP_DEPTH`] groups deep; the
//! parser is iterative (no recursion on the query's nesting) and never
//! panics.

use super::tokenizer::{fold_case, next_word, TokenSizeLimits};
use crate::record::collation::Collation;
use crate::{EngineError, Result};

/// Deepest nesting of parenthesised groups InnoDB accepts.
pub const MAX_GROUP_DEPTH: usize = 32;

/// The operator in front of an expression or group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// No prefix: the expression is optional and adds to the relevance.
    None,
    /// `+`: every result contains it (`FTS_EXIST`).
    Exist,
    /// `-`: no result contains it (`FTS_IGNORE`).
    Ignore,
    /// `~`: a result containing it ranks lower (`FTS_NEGATE`).
    Negate,
    /// `>`: a result containing it ranks higher (`FTS_INCR_RATING`).
    IncrRating,
    /// `<`: a result containing it ranks lower (`FTS_DECR_RATING`).
    DecrRating,
}

/// One expression or group with its operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    /// The prefix operator.
    pub op: Operator,
    /// What it applies to.
    pub item: Item,
}

/// What a clause matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A term: its case-folded words (usually one); `wildcard` makes the last
    /// word a prefix search.
    Term { words: Vec<String>, wildcard: bool },
    /// A quoted phrase (case-folded, without the quotes); `distance` is the
    /// `@N` proximity distance.
    Phrase { text: String, distance: Option<u64> },
    /// A parenthesised group.
    Group(Vec<Clause>),
}

/// A parsed query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedQuery {
    /// The top-level clauses, in query order.
    pub clauses: Vec<Clause>,
    /// The deepest group nesting (0 without parentheses).
    pub depth: usize,
}

/// Parses a query `IN BOOLEAN MODE` (bytes in `collation`'s character set).
pub fn parse_boolean(
    query: &[u8],
    collation: Collation,
    limits: TokenSizeLimits,
) -> Result<ParsedQuery> {
    Parser::new(query, collation, limits, true).parse()
}

/// Parses a natural-language query: terms, phrases and `*` only.
pub fn parse_natural(
    query: &[u8],
    collation: Collation,
    limits: TokenSizeLimits,
) -> Result<ParsedQuery> {
    Parser::new(query, collation, limits, false).parse()
}

/// The words a natural-language query searches for, in query order: every
/// term's words and every phrase's words (duplicates kept).
pub fn natural_language_terms(
    query: &[u8],
    collation: Collation,
    limits: TokenSizeLimits,
) -> Result<Vec<String>> {
    let parsed = parse_natural(query, collation, limits)?;
    let mut out = Vec::new();
    for clause in &parsed.clauses {
        match &clause.item {
            Item::Term { words, .. } => out.extend(words.iter().cloned()),
            Item::Phrase { text, .. } => out.extend(phrase_words(text)),
            // The natural-language lexer has no parentheses.
            Item::Group(_) => {}
        }
    }
    Ok(out)
}

/// The words of a phrase's (already case-folded) text, by the built-in
/// tokenizer, without size or stopword filtering.
pub fn phrase_words(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    let charset = Collation::Utf8mb4Bin.charset();
    while let Some(w) = next_word(charset, bytes, from) {
        if w.n_chars > 0 {
            out.push(String::from_utf8_lossy(&bytes[w.start..w.end]).into_owned());
        }
        from = w.next;
    }
    out
}

/// A lexer token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Oper(u8),
    Numb(usize, usize),
    Term(usize, usize),
    Text(usize, usize),
    End,
}

impl Tok {
    /// The name bison's messages use.
    fn name(self) -> String {
        match self {
            Tok::Oper(c) => format!("'{}'", char::from(c)),
            Tok::Numb(..) => "FTS_NUMB".to_owned(),
            Tok::Term(..) => "FTS_TERM".to_owned(),
            Tok::Text(..) => "FTS_TEXT".to_owned(),
            Tok::End => "$end".to_owned(),
        }
    }
}

fn is_boolean_term_byte(b: u8) -> bool {
    !matches!(
        b,
        b'"' | b' ' | b'\n' | b'*' | b'(' | b')' | b'+' | b'-' | b'<' | b'>' | b'~' | b'@' | b'%'
    )
}

fn is_natural_term_byte(b: u8) -> bool {
    !matches!(b, b'"' | b' ' | b'\n' | b'%')
}

struct Lexer<'a> {
    q: &'a [u8],
    pos: usize,
    boolean: bool,
    peeked: Option<Tok>,
}

impl Lexer<'_> {
    fn run(&self, from: usize, pred: impl Fn(u8) -> bool) -> usize {
        self.q[from..].iter().take_while(|&&b| pred(b)).count()
    }

    fn lex(&mut self) -> Tok {
        let term_byte = if self.boolean {
            is_boolean_term_byte
        } else {
            is_natural_term_byte
        };
        while self.pos < self.q.len() {
            let i = self.pos;
            let b = self.q[i];
            let term = self.run(i, term_byte);
            match b {
                b' ' | b'\t' => {
                    let ws = self.run(i, |c| c == b' ' || c == b'\t');
                    if term > ws {
                        self.pos += term;
                        return Tok::Term(i, i + term);
                    }
                    self.pos += ws;
                }
                b'"' => match self.q[i + 1..]
                    .iter()
                    .position(|&c| c == b'"' || c == b'\n')
                {
                    Some(j) if self.q[i + 1 + j] == b'"' => {
                        self.pos = i + j + 2;
                        return Tok::Text(i + 1, i + 1 + j);
                    }
                    _ => self.pos += 1,
                },
                b'*' if !self.boolean && term <= 1 => {
                    self.pos += 1;
                    return Tok::Oper(b);
                }
                b'*' | b'(' | b')' | b'+' | b'-' | b'<' | b'>' | b'~' | b'@' if self.boolean => {
                    self.pos += 1;
                    return Tok::Oper(b);
                }
                b'0'..=b'9' if self.boolean => {
                    let digits = self.run(i, |c| c.is_ascii_digit());
                    if term > digits {
                        self.pos += term;
                        return Tok::Term(i, i + term);
                    }
                    self.pos += digits;
                    return Tok::Numb(i, i + digits);
                }
                _ if term > 0 => {
                    self.pos += term;
                    return Tok::Term(i, i + term);
                }
                // A newline, '%', or another byte no rule matches.
                _ => self.pos += 1,
            }
        }
        Tok::End
    }

    fn next(&mut self) -> Tok {
        match self.peeked.take() {
            Some(t) => t,
            None => self.lex(),
        }
    }

    fn peek(&mut self) -> Tok {
        match self.peeked {
            Some(t) => t,
            None => {
                let t = self.lex();
                self.peeked = Some(t);
                t
            }
        }
    }
}

/// A group being parsed.
struct Frame {
    op: Operator,
    clauses: Vec<Clause>,
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    collation: Collation,
    limits: TokenSizeLimits,
}

fn syntax_error(t: Tok) -> EngineError {
    EngineError::Schema {
        errno: 1064,
        message: format!("syntax error, unexpected {}", t.name()),
    }
}

fn prefix_op(c: u8) -> Option<Operator> {
    match c {
        b'+' => Some(Operator::Exist),
        b'-' => Some(Operator::Ignore),
        b'~' => Some(Operator::Negate),
        b'>' => Some(Operator::IncrRating),
        b'<' => Some(Operator::DecrRating),
        _ => None,
    }
}

impl<'a> Parser<'a> {
    fn new(q: &'a [u8], collation: Collation, limits: TokenSizeLimits, boolean: bool) -> Self {
        Parser {
            lexer: Lexer {
                q,
                pos: 0,
                boolean,
                peeked: None,
            },
            collation,
            limits,
        }
    }

    fn parse(mut self) -> Result<ParsedQuery> {
        let mut stack = vec![Frame {
            op: Operator::None,
            clauses: Vec::new(),
        }];
        let mut depth = 0usize;
        loop {
            let t = self.lexer.next();
            let clause = match t {
                Tok::End if stack.len() == 1 => break,
                Tok::End => return Err(syntax_error(t)),
                Tok::Oper(b'(') => {
                    stack.push(Frame {
                        op: Operator::None,
                        clauses: Vec::new(),
                    });
                    depth = depth.max(stack.len() - 1);
                    continue;
                }
                Tok::Oper(b')') => {
                    if stack.len() == 1 {
                        return Err(syntax_error(t));
                    }
                    let Some(frame) = stack.pop() else {
                        return Err(syntax_error(t));
                    };
                    (!frame.clauses.is_empty()).then_some(Clause {
                        op: frame.op,
                        item: Item::Group(frame.clauses),
                    })
                }
                Tok::Oper(c) if prefix_op(c).is_some() => {
                    let op = prefix_op(c).unwrap_or(Operator::None);
                    let body = self.lexer.next();
                    if body == Tok::Oper(b'(') {
                        stack.push(Frame {
                            op,
                            clauses: Vec::new(),
                        });
                        depth = depth.max(stack.len() - 1);
                        continue;
                    }
                    self.expression(op, body)?
                }
                _ => self.expression(Operator::None, t)?,
            };
            if depth > MAX_GROUP_DEPTH {
                // Keep checking the syntax, but build nothing deeper.
                continue;
            }
            if let (Some(c), Some(top)) = (clause, stack.last_mut()) {
                top.clauses.push(c);
            }
        }
        if depth > MAX_GROUP_DEPTH {
            return Err(EngineError::Schema {
                errno: 128,
                message: "Table handler out of memory".to_owned(),
            });
        }
        let clauses = stack.pop().map(|f| f.clauses).unwrap_or_default();
        Ok(ParsedQuery { clauses, depth })
    }

    /// A term or phrase starting with token `t`, after an optional prefix.
    fn expression(&mut self, op: Operator, mut t: Tok) -> Result<Option<Clause>> {
        if let Tok::Text(s, e) = t {
            let mut distance = None;
            if self.lexer.peek() == Tok::Oper(b'@') {
                self.lexer.next();
                match self.lexer.next() {
                    Tok::Numb(a, b) => distance = Some(parse_ul(&self.lexer.q[a..b])),
                    other => return Err(syntax_error(other)),
                }
            }
            let text = fold_case(self.collation, &self.lexer.q[s..e]);
            let item = (!text.is_empty()).then_some(Item::Phrase { text, distance });
            return Ok(item.map(|item| Clause { op, item }));
        }
        while t == Tok::Oper(b'*') {
            t = self.lexer.next();
        }
        let (s, e) = match t {
            Tok::Term(s, e) | Tok::Numb(s, e) => (s, e),
            other => return Err(syntax_error(other)),
        };
        let mut wildcard = false;
        if self.lexer.peek() == Tok::Oper(b'*') {
            self.lexer.next();
            wildcard = true;
        }
        let words = self.term_words(&self.lexer.q[s..e]);
        Ok((!words.is_empty()).then_some(Clause {
            op,
            item: Item::Term { words, wildcard },
        }))
    }

    /// `fts_ast_create_node_term`: the words of a term.
    fn term_words(&self, term: &[u8]) -> Vec<String> {
        let charset = self.collation.charset();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(w) = next_word(charset, term, from) {
            from = w.next;
            if w.n_chars == 0 {
                continue;
            }
            let first = out.is_empty();
            if (!first && w.n_chars < self.limits.min) || w.n_chars > self.limits.max {
                continue;
            }
            out.push(fold_case(self.collation, &term[w.start..w.end]));
        }
        out
    }
}

/// `strtoul(s, 10)` on a run of digits, saturating like the C function.
fn parse_ul(digits: &[u8]) -> u64 {
    digits.iter().fold(0u64, |acc, &d| {
        acc.checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .unwrap_or(u64::MAX)
    })
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;
