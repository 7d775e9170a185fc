//! Column attributes and table options of MySQL/MariaDB DDL that sqlparser
//! lacks (listed in the parse module docs), for CREATE TABLE and ALTER TABLE:
//!
//! - numeric type modifiers: `ZEROFILL` (which implies UNSIGNED), `SIGNED`,
//!   `UNSIGNED ZEROFILL` in either order (any other run is MariaDB's 1064
//!   at its first word too many) and the synonyms sqlparser takes no UNSIGNED on
//!   (`NUMERIC`/`FIXED` become DECIMAL, `INT1`..`INT8`/`MIDDLEINT` their
//!   standard names, `FLOAT4`/`FLOAT8` FLOAT/DOUBLE);
//! - string type attributes: `BINARY` (the binary collation of the column's
//!   character set), `ASCII` (`CHARACTER SET latin1`) and `UNICODE`
//!   (`CHARACTER SET ucs2`);
//! - MariaDB's table options (`PAGE_CHECKSUM=1`, `TRANSACTIONAL=1`, ... and
//!   engine-defined options such as `` `PAGE_COMPRESSED`='0' ``), which
//!   become `SqlOption::KeyValue` entries of the table options.
//!
//! ZEROFILL and BINARY have no sqlparser syntax: the token rewrite stands in
//! a `COLLATE` option naming a marker identifier the tokenizer never makes
//! (quote style `[`), and [`fix`] turns it into
//! `ColumnOption::DialectSpecific(vec![Token::make_keyword("ZEROFILL")])` /
//! `(... "BINARY")`, the form sqlparser gives `AUTO_INCREMENT`.

use sqlparser::ast::{self, ColumnOption, SqlOption};
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::alter::{AlterOp, AlterTable};
use super::Statement;

/// Quote style of the marker identifiers (never produced by the tokenizer).
const MARKER_QUOTE: char = '[';

/// Numeric type names a SIGNED/UNSIGNED/ZEROFILL run may follow, with the
/// name to use when sqlparser takes no modifiers after the original.
const NUMERIC_TYPES: [(&str, &str); 22] = [
    ("TINYINT", ""),
    ("SMALLINT", ""),
    ("MEDIUMINT", ""),
    ("INT", ""),
    ("INTEGER", ""),
    ("BIGINT", ""),
    ("DECIMAL", ""),
    ("DEC", ""),
    ("FLOAT", ""),
    ("DOUBLE", ""),
    ("REAL", ""),
    ("PRECISION", ""),
    ("NUMERIC", "DECIMAL"),
    ("FIXED", "DECIMAL"),
    ("INT1", "TINYINT"),
    ("INT2", "SMALLINT"),
    ("INT3", "MEDIUMINT"),
    ("MIDDLEINT", "MEDIUMINT"),
    ("INT4", "INT"),
    ("INT8", "BIGINT"),
    ("FLOAT4", "FLOAT"),
    ("FLOAT8", "DOUBLE"),
];

/// String types a BINARY/ASCII/UNICODE attribute may follow without a length.
const BARE_STRING_TYPES: [&str; 6] = [
    "CHAR",
    "NCHAR",
    "TEXT",
    "TINYTEXT",
    "MEDIUMTEXT",
    "LONGTEXT",
];

/// String types a BINARY/ASCII/UNICODE attribute may follow after `(...)`.
const STRING_TYPES: [&str; 10] = [
    "CHAR",
    "CHARACTER",
    "VARCHAR",
    "NCHAR",
    "NVARCHAR",
    "VARCHARACTER",
    "VARYING",
    "TEXT",
    "ENUM",
    "SET",
];

/// MariaDB table options sqlparser does not know (`name [=] value`).
const MARIADB_TABLE_OPTIONS: [&str; 8] = [
    "PAGE_CHECKSUM",
    "TRANSACTIONAL",
    "TABLE_CHECKSUM",
    "PAGE_COMPRESSED",
    "PAGE_COMPRESSION_LEVEL",
    "ENCRYPTED",
    "ENCRYPTION_KEY_ID",
    "IETF_QUOTES",
];

/// The upper-cased value of an unquoted word token.
pub(super) fn upper(t: Option<&TokenWithSpan>) -> Option<String> {
    match &t?.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn is_word(t: Option<&TokenWithSpan>, w: &str) -> bool {
    upper(t).as_deref() == Some(w)
}

fn with_token(at: &TokenWithSpan, token: Token) -> TokenWithSpan {
    TokenWithSpan {
        token,
        span: at.span,
    }
}

fn word(s: &str) -> Token {
    Token::make_word(s, None)
}

/// `COLLATE <marker>` standing in for attribute `name` (see module docs).
fn marker(at: &TokenWithSpan, name: &str) -> [TokenWithSpan; 2] {
    [
        with_token(at, word("COLLATE")),
        with_token(at, Token::make_word(name, Some(MARKER_QUOTE))),
    ]
}

/// True when `out` ends with a marker.
fn ends_with_marker(out: &[TokenWithSpan]) -> bool {
    matches!(out.last().map(|t| &t.token), Some(Token::Word(w)) if w.quote_style == Some(MARKER_QUOTE))
}

/// Index of the `(` matching the `)` that ends `out`.
fn open_paren(out: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0i32;
    for (k, t) in out.iter().enumerate().rev() {
        match t.token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Index in `out` of the numeric type word a modifier run would follow.
fn numeric_type_at(out: &[TokenWithSpan]) -> Option<usize> {
    let k = match out.last()?.token {
        Token::RParen => open_paren(out)?.checked_sub(1)?,
        _ => out.len() - 1,
    };
    let w = upper(out.get(k))?;
    NUMERIC_TYPES.iter().any(|(n, _)| *n == w).then_some(k)
}

/// True when `out` ends where a string type attribute may stand.
fn after_string_type(out: &[TokenWithSpan]) -> bool {
    let n = out.len();
    if n == 0 {
        return false;
    }
    if ends_with_marker(out) {
        return true;
    }
    if out[n - 1].token == Token::RParen {
        return open_paren(out)
            .and_then(|k| upper(out.get(k.checked_sub(1)?)))
            .is_some_and(|w| STRING_TYPES.contains(&w.as_str()));
    }
    if upper(out.last()).is_some_and(|w| BARE_STRING_TYPES.contains(&w.as_str())) {
        return true;
    }
    // ... CHARACTER SET x | CHARSET x
    n >= 2
        && (is_word(out.get(n - 2), "CHARSET")
            || (n >= 3 && is_word(out.get(n - 2), "SET") && is_word(out.get(n - 3), "CHARACTER")))
}

/// Applies the column attribute rewrites to a CREATE or ALTER TABLE statement.
pub(super) fn rewrite(toks: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let table_at = |n: usize| toks.iter().take(n).any(|t| is_word(Some(t), "TABLE"));
    let ddl = match upper(toks.first()).as_deref() {
        Some("CREATE") => table_at(5),
        Some("ALTER") => table_at(3),
        _ => false,
    };
    if !ddl {
        return toks;
    }
    let needs = |t: &TokenWithSpan| {
        matches!(t.token, Token::DoubleQuotedString(_))
            || matches!(
                upper(Some(t)).as_deref(),
                Some("SIGNED" | "UNSIGNED" | "ZEROFILL" | "BINARY" | "ASCII" | "UNICODE")
            )
    };
    if !toks.iter().any(needs) {
        return toks;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(toks.len() + 4);
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let w = upper(Some(t));
        if matches!(w.as_deref(), Some("SIGNED" | "UNSIGNED" | "ZEROFILL")) {
            if let Some(k) = numeric_type_at(&out) {
                let mut end = i;
                while matches!(
                    upper(toks.get(end)).as_deref(),
                    Some("SIGNED" | "UNSIGNED" | "ZEROFILL")
                ) {
                    end += 1;
                }
                let mut run: Vec<String> =
                    toks[i..end].iter().filter_map(|x| upper(Some(x))).collect();
                // MariaDB's grammar takes SIGNED, UNSIGNED, ZEROFILL, or
                // UNSIGNED and ZEROFILL in either order: the first word past
                // that is left for the parser's 1064 at it.
                let valid = match run.as_slice() {
                    [a, b, ..] if a != "SIGNED" && b != "SIGNED" && a != b => 2,
                    _ => 1,
                };
                // (As a word no rule takes: sqlparser itself would take a
                // second SIGNED.)
                let refused = (run.len() > valid).then(|| {
                    let at = &toks[i + valid];
                    with_token(at, Token::make_word(&run[valid], Some(MARKER_QUOTE)))
                });
                run.truncate(valid);
                let end = if refused.is_some() {
                    i + valid + 1
                } else {
                    end
                };
                let zerofill = run.iter().any(|r| r == "ZEROFILL");
                let unsigned = zerofill || run.iter().any(|r| r == "UNSIGNED");
                let ty = upper(out.get(k)).unwrap_or_default();
                let rename = NUMERIC_TYPES
                    .iter()
                    .find(|(n, _)| *n == ty)
                    .map_or("", |(_, r)| *r);
                // A lone UNSIGNED after a type sqlparser knows stays as it is.
                if run.len() == 1 && run[0] == "UNSIGNED" && rename.is_empty() {
                    out.push(t.clone());
                    out.extend(refused);
                    i = end;
                    continue;
                }
                if !rename.is_empty() {
                    out[k] = with_token(&out[k], word(rename));
                }
                if unsigned {
                    out.push(with_token(t, word("UNSIGNED")));
                }
                if zerofill {
                    out.extend(marker(t, "ZEROFILL"));
                }
                out.extend(refused);
                i = end;
                continue;
            }
        }
        if matches!(w.as_deref(), Some("BINARY" | "ASCII" | "UNICODE"))
            && toks.get(i + 1).map(|x| &x.token) != Some(&Token::LParen)
            && after_string_type(&out)
        {
            match w.as_deref() {
                Some("BINARY") => out.extend(marker(t, "BINARY")),
                Some(w) => {
                    let cs = if w == "ASCII" { "latin1" } else { "ucs2" };
                    out.push(with_token(t, word("CHARACTER")));
                    out.push(with_token(t, word("SET")));
                    out.push(with_token(t, word(cs)));
                }
                None => {}
            }
            i += 1;
            continue;
        }
        // COMMENT [=] "text": sqlparser takes only single quotes there.
        if let Token::DoubleQuotedString(text) = &t.token {
            let n = out.len();
            let eq = n >= 1 && out[n - 1].token == Token::Eq;
            if is_word(out.get(n.wrapping_sub(1 + usize::from(eq))), "COMMENT") {
                out.push(with_token(t, Token::SingleQuotedString(text.clone())));
                i += 1;
                continue;
            }
        }
        out.push(t.clone());
        i += 1;
    }
    out
}

/// A MariaDB table option at `toks[i..]`: the option and its token count.
/// Unquoted names are those of [`MARIADB_TABLE_OPTIONS`] (`=` optional);
/// a back-quoted name (an engine-defined option) needs the `=`.
pub(super) fn mariadb_option(toks: &[TokenWithSpan], i: usize) -> Option<(SqlOption, usize)> {
    let Token::Word(w) = &toks.get(i)?.token else {
        return None;
    };
    let known = w.quote_style.is_none()
        && MARIADB_TABLE_OPTIONS
            .iter()
            .any(|n| w.value.eq_ignore_ascii_case(n));
    if !known && w.quote_style != Some('`') {
        return None;
    }
    let eq = toks.get(i + 1).is_some_and(|t| t.token == Token::Eq);
    if !eq && !known {
        return None;
    }
    let v = toks.get(i + 1 + usize::from(eq))?;
    let value = match &v.token {
        Token::Number(n, l) => value_expr(ast::Value::Number(n.clone(), *l), v),
        Token::SingleQuotedString(s) => value_expr(ast::Value::SingleQuotedString(s.clone()), v),
        Token::DoubleQuotedString(s) => value_expr(ast::Value::DoubleQuotedString(s.clone()), v),
        Token::Word(x) => ast::Expr::Identifier(x.clone().into_ident(v.span)),
        _ => return None,
    };
    let key = w.clone().into_ident(toks[i].span);
    Some((SqlOption::KeyValue { key, value }, 2 + usize::from(eq)))
}

fn value_expr(value: ast::Value, at: &TokenWithSpan) -> ast::Expr {
    ast::Expr::Value(ast::ValueWithSpan {
        value,
        span: at.span,
    })
}

/// The marker table option that carries `CREATE TABLE ... IGNORE | REPLACE
/// SELECT` (its value is `'IGNORE'` or `'REPLACE'`).
pub const CTAS_DUPLICATES: &str = "#duplicates";

/// Takes MariaDB's table options out of a `CREATE [OR REPLACE] [TEMPORARY]
/// TABLE [IF NOT EXISTS] name (...) options` statement (sqlparser rejects
/// them); [`fix`] puts them back into the parsed statement.
pub(super) fn take_create_options(toks: &mut Vec<TokenWithSpan>) -> Vec<SqlOption> {
    let mut i = 1;
    for w in ["OR", "REPLACE", "TEMPORARY"] {
        if is_word(toks.get(i), w) {
            i += 1;
        }
    }
    if !is_word(toks.first(), "CREATE") || !is_word(toks.get(i), "TABLE") {
        return Vec::new();
    }
    i += 1;
    if is_word(toks.get(i), "IF") {
        i += 3;
    }
    i += 1;
    while toks.get(i).is_some_and(|t| t.token == Token::Period) {
        i += 2;
    }
    let mut k = if toks.get(i).map(|t| &t.token) == Some(&Token::LParen) {
        match super::alter::matching_paren(toks, i) {
            Some(close) => close + 1,
            None => return Vec::new(),
        }
    } else {
        i
    };
    let mut taken = Vec::new();
    while k < toks.len() {
        let word = upper(toks.get(k));
        // `IGNORE | REPLACE SELECT ...`: how CREATE TABLE ... SELECT treats
        // duplicate keys, kept as a marker option for the executor.
        if matches!(word.as_deref(), Some("IGNORE" | "REPLACE")) {
            let next = toks.get(k + 1);
            if matches!(upper(next).as_deref(), Some("AS" | "SELECT" | "WITH"))
                || next.is_some_and(|t| t.token == Token::LParen)
            {
                let key = ast::Ident::new(CTAS_DUPLICATES);
                let value = value_expr(
                    ast::Value::SingleQuotedString(word.unwrap_or_default()),
                    &toks[k],
                );
                taken.push(SqlOption::KeyValue { key, value });
                toks.remove(k);
            }
            break;
        }
        if matches!(
            word.as_deref(),
            Some("PARTITION" | "AS" | "SELECT" | "WITH")
        ) {
            break;
        }
        if toks[k].token == Token::LParen {
            // UNION=(t1, t2)
            k = super::alter::matching_paren(toks, k).map_or(toks.len(), |c| c + 1);
            continue;
        }
        let key_position = toks[k - 1].token != Token::Eq;
        match mariadb_option(toks, k).filter(|_| key_position) {
            Some((o, n)) => {
                taken.push(o);
                toks.drain(k..k + n);
            }
            None => k += 1,
        }
    }
    taken
}

/// Turns the markers of [`rewrite`] into their column options and appends
/// the table options [`take_create_options`] took.
pub(super) fn fix(s: &mut Statement, mut create_options: Vec<SqlOption>) {
    match s {
        Statement::Sql(st) => match st.as_mut() {
            ast::Statement::CreateTable(ct) => {
                for c in &mut ct.columns {
                    for o in &mut c.options {
                        fix_option(&mut o.option);
                    }
                }
                if !create_options.is_empty() {
                    match &mut ct.table_options {
                        ast::CreateTableOptions::Plain(v) => v.append(&mut create_options),
                        o @ ast::CreateTableOptions::None => {
                            *o = ast::CreateTableOptions::Plain(create_options)
                        }
                        ast::CreateTableOptions::With(v)
                        | ast::CreateTableOptions::Options(v)
                        | ast::CreateTableOptions::TableProperties(v) => {
                            v.append(&mut create_options)
                        }
                    }
                }
            }
            ast::Statement::AlterTable(at) => at.operations.iter_mut().for_each(fix_op),
            _ => {}
        },
        Statement::AlterTable(at) => fix_alter(at),
        _ => {}
    }
}

fn fix_alter(at: &mut AlterTable) {
    for op in &mut at.operations {
        if let AlterOp::Sql(o) | AlterOp::IfExists(o) | AlterOp::IfNotExists(o) = op {
            fix_op(o);
        }
    }
}

fn fix_op(op: &mut ast::AlterTableOperation) {
    use ast::AlterTableOperation as A;
    match op {
        A::AddColumn { column_def, .. } => {
            for o in &mut column_def.options {
                fix_option(&mut o.option);
            }
        }
        A::ModifyColumn { options, .. } | A::ChangeColumn { options, .. } => {
            options.iter_mut().for_each(fix_option)
        }
        _ => {}
    }
}

fn fix_option(o: &mut ColumnOption) {
    let ColumnOption::Collation(name) = o else {
        return;
    };
    let [ast::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return;
    };
    if id.quote_style == Some(MARKER_QUOTE) {
        let name = id.value.clone();
        *o = ColumnOption::DialectSpecific(vec![Token::make_keyword(&name)]);
    }
}
