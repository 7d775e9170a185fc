//! The SQL dialect Larch parses: sqlparser's `MySqlDialect` with MariaDB's
//! operator precedence and prefix operators.
//!
//! sqlparser's MySQL dialect takes several precedences from PostgreSQL, so
//! some expressions group differently than in MariaDB and give other
//! answers. [`LarchDialect`] wraps `MySqlDialect` (it reports itself as that
//! dialect, so every MySQL rule inside sqlparser still applies) and changes
//! only what MariaDB's grammar (`sql_yacc.yy`) decides otherwise. MariaDB's
//! binary operators, tightest first:
//!
//! | operators | level here |
//! |---|---|
//! | `^` | [`CARET`] |
//! | `*` `/` `DIV` `%` `MOD` | 40 (sqlparser's) |
//! | `+` `-` | 30 (sqlparser's) |
//! | `<<` `>>` | [`SHIFT`] |
//! | `&` | 23 (sqlparser's) |
//! | `\|` | 21 (sqlparser's) |
//! | comparisons, `IS`, `LIKE`, `IN`, `BETWEEN` | 17-20 (sqlparser's) |
//! | `NOT` (prefix) | 15 (sqlparser's) |
//! | `AND` `&&` | [`AND`] |
//! | `XOR` | [`XOR`] |
//! | `OR` `\|\|` | [`OR`] |
//!
//! and the prefix operators `BINARY`, unary `-`/`+` and `~` bind tighter
//! than every binary operator: `'a' LIKE BINARY '%a%' AND 1` is
//! `('a' LIKE (BINARY '%a%')) AND 1`, and `-2 ^ 2` is `(-2) ^ 2`. (`!` is
//! rewritten to a parenthesized NOT before parsing: `parse::rewrite`.)
//!
//! Known leftovers against MariaDB: comparisons, `LIKE` and `IS` keep
//! sqlparser's relative levels (MariaDB has them on one level), which only
//! matters for chains such as `a LIKE b = c`.

use sqlparser::ast::{CastKind, DataType, Expr, UnaryOperator};
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `^`: above multiplication, as in MariaDB.
pub const CARET: u8 = 45;
/// `<<`, `>>`: between `+`/`-` and `&`.
pub const SHIFT: u8 = 24;
/// `AND`, `&&`.
pub const AND: u8 = 10;
/// Logical `XOR`: between AND and OR.
pub const XOR: u8 = 7;
/// `OR`, `||` (`||` is OR in MariaDB's default sql_mode).
pub const OR: u8 = 5;
/// How tightly a prefix operator holds its operand: tighter than every
/// binary operator (only `.` and PostgreSQL's postfix forms go on).
const PREFIX_OPERAND: u8 = CARET;

/// MySqlDialect with MariaDB's precedences (see the module docs).
#[derive(Debug, Default, Clone, Copy)]
pub struct LarchDialect {
    mysql: MySqlDialect,
}

impl LarchDialect {
    /// The dialect (a constant, for statics).
    pub const MYSQL: LarchDialect = LarchDialect {
        mysql: MySqlDialect {},
    };

    /// A prefix operator's expression, or `None` for other tokens.
    fn prefix_operator(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let cast_binary = match &parser.peek_token_ref().token {
            Token::Word(w) if w.keyword == Keyword::BINARY && w.quote_style.is_none() => true,
            Token::Minus | Token::Plus | Token::Tilde => false,
            _ => return None,
        };
        let token = parser.next_token().token;
        let operand = match parser.parse_subexpr(PREFIX_OPERAND) {
            Ok(e) => Box::new(e),
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(if cast_binary {
            Expr::Cast {
                kind: CastKind::Cast,
                expr: operand,
                data_type: DataType::Binary(None),
                format: None,
            }
        } else {
            Expr::UnaryOp {
                op: match token {
                    Token::Minus => UnaryOperator::Minus,
                    Token::Plus => UnaryOperator::Plus,
                    _ => UnaryOperator::BitwiseNot,
                },
                expr: operand,
            }
        }))
    }
}

impl Dialect for LarchDialect {
    fn dialect(&self) -> std::any::TypeId {
        self.mysql.dialect()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        self.prefix_operator(parser)
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        let p = match &parser.peek_token_ref().token {
            Token::Word(w) if w.quote_style.is_none() => match w.keyword {
                Keyword::XOR => XOR,
                _ => return None,
            },
            Token::Caret => CARET,
            Token::ShiftLeft | Token::ShiftRight => SHIFT,
            Token::Overlap => AND,
            Token::StringConcat => OR,
            _ => return None,
        };
        Some(Ok(p))
    }

    // Everything else is MySqlDialect's: each method MySqlDialect
    // overrides is forwarded (the others keep the trait's defaults, as
    // they do for MySqlDialect).

    fn is_identifier_start(&self, ch: char) -> bool {
        self.mysql.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.mysql.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.mysql.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.mysql.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.mysql.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.mysql.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.mysql.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.mysql.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        self.mysql.supports_bitwise_shift_operators()
    }
    fn supports_multiline_comment_hints(&self) -> bool {
        self.mysql.supports_multiline_comment_hints()
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        self.mysql.parse_infix(parser, expr, precedence)
    }
    fn parse_statement(
        &self,
        parser: &mut Parser,
    ) -> Option<Result<sqlparser::ast::Statement, ParserError>> {
        self.mysql.parse_statement(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        self.mysql.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.mysql.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.mysql.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.mysql.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.mysql.supports_user_host_grantee()
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.mysql.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        self.mysql.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.mysql.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.mysql.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        self.mysql.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        self.mysql.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.mysql.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        self.mysql.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.mysql.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.mysql.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        self.mysql.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        self.mysql.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        self.mysql.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        self.mysql.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        self.mysql.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        self.mysql.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.mysql.supports_left_associative_joins_without_parens()
    }
}
