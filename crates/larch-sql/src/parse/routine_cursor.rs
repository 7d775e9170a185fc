//! A cursor over a statement's tokens for Larch's own parsers of stored
//! program syntax ([`super::routine`], [`super::routine_body`]): keyword
//! tests, identifiers, the byte offsets of tokens in the statement text, and
//! hand-offs to sqlparser for expressions and data types (a sub-parser over
//! the remaining tokens, whose consumed count advances the cursor).
//!
//! The token list holds no whitespace, so a sub-parser's index is a count of
//! this cursor's tokens.

use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

use super::{byte_offset, syntax_error};
use crate::error::SqlError;

pub(crate) struct Cursor<'a> {
    pub text: &'a str,
    pub original: &'a str,
    pub toks: Vec<TokenWithSpan>,
    pub i: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str, original: &'a str, tokens: &[TokenWithSpan]) -> Cursor<'a> {
        let mut toks: Vec<TokenWithSpan> = tokens
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .cloned()
            .collect();
        // `CALL p(@`x`)`, as mysqlclient's callproc writes it.
        super::rewrite::quoted_user_variables(&mut toks);
        Cursor {
            text,
            original,
            toks,
            i: 0,
        }
    }

    pub fn peek(&self) -> Option<&Token> {
        self.toks.get(self.i).map(|t| &t.token)
    }

    pub fn peek_at(&self, n: usize) -> Option<&Token> {
        self.toks.get(self.i + n).map(|t| &t.token)
    }

    pub fn at_end(&self) -> bool {
        matches!(self.peek(), None | Some(Token::EOF))
    }

    /// True when the token `n` ahead is the unquoted keyword `kw`.
    pub fn is_kw_at(&self, n: usize, kw: &str) -> bool {
        matches!(self.peek_at(n), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
    }

    pub fn is_kw(&self, kw: &str) -> bool {
        self.is_kw_at(0, kw)
    }

    /// Consumes `kw` if it is next.
    pub fn eat(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// Consumes the keywords `kws` if all of them come next.
    pub fn eat_seq(&mut self, kws: &[&str]) -> bool {
        if kws.iter().enumerate().all(|(n, k)| self.is_kw_at(n, k)) {
            self.i += kws.len();
            true
        } else {
            false
        }
    }

    pub fn eat_token(&mut self, t: &Token) -> bool {
        if self.peek() == Some(t) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    pub fn expect_kw(&mut self, kw: &str) -> Result<(), SqlError> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    pub fn expect_token(&mut self, t: &Token) -> Result<(), SqlError> {
        if self.eat_token(t) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// A syntax error at the current token.
    pub fn error(&self) -> SqlError {
        self.error_at(self.i)
    }

    pub fn error_at(&self, i: usize) -> SqlError {
        match self.toks.get(i) {
            Some(t) if t.token != Token::EOF => {
                syntax_error(self.text, self.original, t.span.start)
            }
            _ => syntax_error(self.text, self.original, Location { line: 0, column: 0 }),
        }
    }

    /// Byte offset of token `i` (the text's end past the last token).
    pub fn offset(&self, i: usize) -> usize {
        match self.toks.get(i) {
            Some(t) if t.token != Token::EOF => byte_offset(self.text, t.span.start),
            _ => self.text.trim_end().len(),
        }
    }

    /// An identifier (a word, quoted or not), as written without quotes.
    pub fn ident(&mut self) -> Result<String, SqlError> {
        match self.peek() {
            Some(Token::Word(w)) if !w.value.starts_with('@') => {
                let v = w.value.clone();
                self.i += 1;
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    /// `name` or `db.name`.
    pub fn object_name(&mut self) -> Result<ast::ObjectName, SqlError> {
        let mut parts = vec![ast::Ident::new(self.ident()?)];
        if self.eat_token(&Token::Period) {
            parts.push(ast::Ident::new(self.ident()?));
        }
        Ok(ast::ObjectName::from(parts))
    }

    /// A string literal.
    pub fn string(&mut self) -> Result<String, SqlError> {
        match self.peek() {
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    /// Runs a sqlparser parse on the tokens from here to `end` (exclusive;
    /// `None` for all), advancing past what it consumed.
    pub fn sub<T>(
        &mut self,
        end: Option<usize>,
        f: impl FnOnce(&mut Parser) -> Result<T, ParserError>,
    ) -> Result<T, SqlError> {
        let end = end.unwrap_or(self.toks.len()).min(self.toks.len());
        let start = self.i.min(end);
        let toks = self.toks[start..end].to_vec();
        let dialect = super::dialect::LarchDialect::default();
        let mut p = Parser::new(&dialect)
            .with_recursion_limit(super::RECURSION_LIMIT)
            .with_tokens_with_locations(toks);
        match f(&mut p) {
            Ok(v) => {
                self.i = start + p.index().min(end - start);
                Ok(v)
            }
            Err(_) => {
                let at = start + p.index().min(end - start);
                Err(self.error_at(at))
            }
        }
    }

    pub fn expr(&mut self) -> Result<ast::Expr, SqlError> {
        let end = self.next_semicolon();
        self.sub(Some(end), |p| p.parse_expr())
    }

    pub fn data_type(&mut self) -> Result<ast::DataType, SqlError> {
        let end = self.next_semicolon();
        self.sub(Some(end), |p| p.parse_data_type())
    }

    /// Index of the next `;` (or the end).
    pub fn next_semicolon(&self) -> usize {
        let mut j = self.i;
        while j < self.toks.len() && !matches!(self.toks[j].token, Token::SemiColon | Token::EOF) {
            j += 1;
        }
        j
    }

    /// The text from token `from` up to (not including) token `to`.
    /// Taken from the original text (comments kept) unless executable
    /// comment markers are in it (a dump's `/*!50003 ... */`), which the
    /// executable text has blanked.
    pub fn text_between(&self, from: usize, to: usize) -> &'a str {
        let a = self.offset(from);
        let b = self.offset(to).max(a);
        let orig = self.original.get(a..b).unwrap_or_default();
        if orig.contains("/*!") || orig.contains("/*M!") || orig.contains("*/") {
            self.text.get(a..b).unwrap_or_default().trim()
        } else {
            orig.trim()
        }
    }

    /// The executable and original texts from token `from` to token `to`.
    pub fn pieces_between(&self, from: usize, to: usize) -> (&'a str, &'a str) {
        let a = self.offset(from);
        let b = self.offset(to).max(a);
        (
            self.text.get(a..b).unwrap_or_default(),
            self.original.get(a..b).unwrap_or_default(),
        )
    }
}
