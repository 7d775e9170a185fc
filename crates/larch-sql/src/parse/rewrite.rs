//! Token rewrites that turn MySQL syntax sqlparser lacks into equivalent syntax
//! it has (listed in the parse module docs). Rewrites work on the token stream,
//! so quoted text and identifiers are never touched, and every new token keeps
//! the span of the token it replaces (error positions stay right).

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// MySQL's compound interval units and the ANSI `FIRST TO LAST` form.
const COMPOUND_UNITS: [(&str, &str, &str); 11] = [
    ("YEAR_MONTH", "YEAR", "MONTH"),
    ("DAY_HOUR", "DAY", "HOUR"),
    ("DAY_MINUTE", "DAY", "MINUTE"),
    ("DAY_SECOND", "DAY", "SECOND"),
    ("HOUR_MINUTE", "HOUR", "MINUTE"),
    ("HOUR_SECOND", "HOUR", "SECOND"),
    ("MINUTE_SECOND", "MINUTE", "SECOND"),
    ("DAY_MICROSECOND", "DAY", "MICROSECOND"),
    ("HOUR_MICROSECOND", "HOUR", "MICROSECOND"),
    ("MINUTE_MICROSECOND", "MINUTE", "MICROSECOND"),
    // sqlparser takes no `SECOND TO ...`; 'S.ffffff' SECOND is the same interval.
    ("SECOND_MICROSECOND", "SECOND", ""),
];

/// Applies all rewrites. Whitespace and comment tokens are dropped first (the
/// parser skips them anyway), which keeps the look-behind simple.
pub(super) fn rewrite(mut toks: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    toks.retain(|t| !matches!(t.token, Token::Whitespace(_)));
    split_negations(&mut toks);
    let first = word_upper(toks.first());
    if matches!(first.as_deref(), Some("DESC" | "DESCRIBE" | "EXPLAIN")) {
        if let Some(show) = describe_column(&toks) {
            return show;
        }
    }
    // DELETE [LOW_PRIORITY] [QUICK] and UPDATE [LOW_PRIORITY]: LOW_PRIORITY
    // orders table-level locks and QUICK merges MyISAM index leaves; an
    // InnoDB table has neither, so MariaDB runs these as plain DELETE and
    // UPDATE, and so does Larch.
    if matches!(first.as_deref(), Some("DELETE" | "UPDATE")) {
        while toks.len() > 2
            && match word_upper(toks.get(1)).as_deref() {
                Some("LOW_PRIORITY") => true,
                Some("QUICK") => first.as_deref() == Some("DELETE"),
                _ => false,
            }
        {
            toks.remove(1);
        }
    }
    let update = first.as_deref() == Some("UPDATE");
    // UPDATE IGNORE -> UPDATE OR IGNORE (sqlparser's form of it)
    if update && word_upper(toks.get(1)).as_deref() == Some("IGNORE") {
        let or = with_token(&toks[1], word("OR"));
        toks.insert(1, or);
    }
    cast_with_charset(&mut toks);
    char_with_charset(&mut toks);
    match_column_list(&mut toks);
    quoted_user_variables(&mut toks);
    against_user_variable(&mut toks);
    // EXPLAIN FORMAT=TRADITIONAL -> EXPLAIN (the table EXPLAIN prints; the
    // name MariaDB takes for it beside JSON)
    if first.as_deref() == Some("EXPLAIN")
        && word_upper(toks.get(1)).as_deref() == Some("FORMAT")
        && toks.get(2).is_some_and(|t| t.token == Token::Eq)
        && word_upper(toks.get(3)).as_deref() == Some("TRADITIONAL")
    {
        toks.drain(1..4);
    }
    if !toks.iter().any(|t| needs_look(t, update)) {
        return toks;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(toks.len() + 2);
    let mut depth = 0i32;
    let mut set_item_assigned = false;
    // For `!`: the matching parentheses, and where each `(NOT x` closes.
    let mut closing: Option<Vec<Option<usize>>> = None;
    let mut pending_close: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        while pending_close.last().is_some_and(|&end| end <= i) {
            pending_close.pop();
            out.push(with_token(&toks[i - 1], Token::RParen));
        }
        let t = &toks[i];
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        let w = word_upper(Some(t));
        // LOCK IN SHARE MODE -> FOR SHARE
        if w.as_deref() == Some("LOCK") && words_at(&toks, i + 1, &["IN", "SHARE", "MODE"]) {
            out.push(with_token(t, word("FOR")));
            out.push(with_token(&toks[i + 2], word("SHARE")));
            i += 4;
            continue;
        }
        // a MOD b -> a % b
        if w.as_deref() == Some("MOD") && out.last().is_some_and(ends_operand) {
            out.push(with_token(t, Token::Mod));
            i += 1;
            continue;
        }
        // INTERVAL '1:2' HOUR_MINUTE -> INTERVAL '1:2' HOUR TO MINUTE
        if let Some(name) = w.as_deref() {
            if let Some((_, a, b)) = COMPOUND_UNITS.iter().find(|(n, _, _)| *n == name) {
                if out.last().is_some_and(is_literal) {
                    out.push(with_token(t, word(a)));
                    if !b.is_empty() {
                        out.push(with_token(t, word("TO")));
                        out.push(with_token(t, word(b)));
                    }
                    i += 1;
                    continue;
                }
            }
        }
        // SELECT ... FROM DUAL -> SELECT ... (DUAL is MariaDB's name for
        // no table; a quoted `dual` is a table).
        if w.as_deref() == Some("FROM") && word_upper(toks.get(i + 1)).as_deref() == Some("DUAL") {
            i += 2;
            continue;
        }
        // EXPLAIN EXTENDED|PARTITIONS -> EXPLAIN
        if i == 1
            && first.as_deref() == Some("EXPLAIN")
            && matches!(w.as_deref(), Some("EXTENDED" | "PARTITIONS"))
        {
            i += 1;
            continue;
        }
        // UPDATE t1, t2 SET -> UPDATE t1 CROSS JOIN t2 SET
        if t.token == Token::Comma
            && depth == 0
            && first.as_deref() == Some("UPDATE")
            && !toks[..i]
                .iter()
                .any(|x| word_upper(Some(x)).as_deref() == Some("SET"))
        {
            out.push(with_token(t, word("CROSS")));
            out.push(with_token(t, word("JOIN")));
            i += 1;
            continue;
        }
        // CREATE|DROP SCHEMA -> DATABASE (sqlparser's SCHEMA is PostgreSQL's)
        if i == 1
            && w.as_deref() == Some("SCHEMA")
            && matches!(first.as_deref(), Some("CREATE" | "DROP"))
        {
            out.push(with_token(t, word("DATABASE")));
            i += 1;
            continue;
        }
        // DROP [TEMPORARY] TABLES -> TABLE (MariaDB takes both)
        if w.as_deref() == Some("TABLES")
            && first.as_deref() == Some("DROP")
            && (i == 1 || (i == 2 && word_upper(toks.get(1)).as_deref() == Some("TEMPORARY")))
        {
            out.push(with_token(t, word("TABLE")));
            i += 1;
            continue;
        }
        // LOCK|UNLOCK TABLE -> TABLES (MariaDB takes both)
        if i == 1
            && w.as_deref() == Some("TABLE")
            && matches!(first.as_deref(), Some("LOCK" | "UNLOCK"))
        {
            out.push(with_token(t, word("TABLES")));
            i += 1;
            continue;
        }
        // A column's `CHARSET name` -> `CHARACTER SET name` (CREATE TABLE
        // column definitions; not CHARSET(...) nor a table's DEFAULT CHARSET).
        if depth > 0
            && w.as_deref() == Some("CHARSET")
            && first.as_deref() == Some("CREATE")
            && matches!(toks.get(i + 1).map(|n| &n.token), Some(Token::Word(_)))
            && word_upper(out.last()).as_deref() != Some("DEFAULT")
        {
            out.push(with_token(t, word("CHARACTER")));
            out.push(with_token(t, word("SET")));
            i += 1;
            continue;
        }
        // SET @a := 1, b := 2 -> SET @a = 1, b = 2 (the first `:=` of each
        // item; later ones are assignment expressions).
        if first.as_deref() == Some("SET") && depth == 0 {
            match t.token {
                Token::Comma => set_item_assigned = false,
                Token::Assignment if !set_item_assigned => {
                    set_item_assigned = true;
                    out.push(with_token(t, Token::Eq));
                    i += 1;
                    continue;
                }
                Token::Eq => set_item_assigned = true,
                _ => {}
            }
        }
        // A generated column's `AS (expr) PERSISTENT` -> `AS (expr) STORED`
        // (MariaDB's synonym).
        if w.as_deref() == Some("PERSISTENT")
            && matches!(first.as_deref(), Some("CREATE" | "ALTER"))
            && out.last().is_some_and(|p| p.token == Token::RParen)
        {
            out.push(with_token(t, word("STORED")));
            i += 1;
            continue;
        }
        // x REGEXP NULL -> x REGEXP (NULL) (sqlparser takes the NULL as the
        // one of `NOT NULL`).
        if matches!(w.as_deref(), Some("REGEXP" | "RLIKE"))
            && word_upper(toks.get(i + 1)).as_deref() == Some("NULL")
        {
            out.push(t.clone());
            out.push(with_token(&toks[i + 1], Token::LParen));
            out.push(toks[i + 1].clone());
            out.push(with_token(&toks[i + 1], Token::RParen));
            i += 2;
            continue;
        }
        // !x -> (NOT x) for a single operand (`!` binds tighter than NOT).
        // A run of `!` is handled in one step, and the operand's tokens
        // go through this loop like any others (nested `!` included); the
        // `)` of each `(NOT` is written when the loop reaches `end`.
        if t.token == Token::ExclamationMark {
            let closing = closing.get_or_insert_with(|| closing_parens(&toks));
            let mut operand = i;
            while toks
                .get(operand)
                .is_some_and(|x| x.token == Token::ExclamationMark)
            {
                operand += 1;
            }
            if let Some(end) = operand_end(&toks, operand, closing) {
                for bang in &toks[i..operand] {
                    out.push(with_token(bang, Token::LParen));
                    out.push(with_token(bang, word("NOT")));
                    pending_close.push(end);
                }
                i = operand;
                continue;
            }
        }
        out.push(t.clone());
        i += 1;
    }
    if let Some(last) = toks.last() {
        for _ in pending_close.drain(..) {
            out.push(with_token(last, Token::RParen));
        }
    }
    out
}

/// `!!x` and `!~x` are `!` twice and `!` then `~` in MariaDB (sqlparser
/// reads them as PostgreSQL's operators).
fn split_negations(toks: &mut Vec<TokenWithSpan>) {
    let split = |t: &Token| match t {
        Token::DoubleExclamationMark => Some(Token::ExclamationMark),
        Token::ExclamationMarkTilde => Some(Token::Tilde),
        _ => None,
    };
    if !toks.iter().any(|t| split(&t.token).is_some()) {
        return;
    }
    let mut out = Vec::with_capacity(toks.len() + 4);
    for t in toks.drain(..) {
        match split(&t.token) {
            Some(second) => {
                out.push(with_token(&t, Token::ExclamationMark));
                out.push(with_token(&t, second));
            }
            None => out.push(t),
        }
    }
    *toks = out;
}

/// `CAST(x AS CHAR[(n)] CHARACTER SET|CHARSET cs)` -> `CONVERT(x, CHAR[(n)]
/// CHARACTER SET cs)`: the same conversion, in the form sqlparser reads.
fn cast_with_charset(toks: &mut Vec<TokenWithSpan>) {
    let charset_word = |t: &TokenWithSpan| {
        matches!(
            word_upper(Some(t)).as_deref(),
            Some("CHARSET" | "CHARACTER")
        )
    };
    if !toks.iter().any(charset_word) {
        return;
    }
    let mut i = 0;
    while i + 1 < toks.len() {
        if word_upper(toks.get(i)).as_deref() != Some("CAST") || toks[i + 1].token != Token::LParen
        {
            i += 1;
            continue;
        }
        // The CAST's own AS and CHARACTER SET are at its own depth.
        let (mut as_at, mut charset_at) = (None, None);
        for k in own_tokens(toks, i + 1) {
            if word_upper(toks.get(k)).as_deref() == Some("AS") {
                as_at = Some(k);
            } else if as_at.is_some() && charset_word(&toks[k]) {
                charset_at = Some(k);
            }
        }
        if let (Some(as_at), Some(at)) = (as_at, charset_at) {
            toks[i] = with_token(&toks[i], word("CONVERT"));
            toks[as_at] = with_token(&toks[as_at], Token::Comma);
            if word_upper(toks.get(at)).as_deref() == Some("CHARSET") {
                toks[at] = with_token(&toks[at], word("CHARACTER"));
                let set = with_token(&toks[at], word("SET"));
                toks.insert(at + 1, set);
            }
        }
        i += 2;
    }
}

/// `MATCH a, b AGAINST (...)` -> `MATCH (a, b) AGAINST (...)`: MariaDB
/// takes the column list with or without parentheses, sqlparser only with.
fn match_column_list(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 1 < toks.len() {
        if word_upper(toks.get(i)).as_deref() != Some("MATCH") || toks[i + 1].token == Token::LParen
        {
            i += 1;
            continue;
        }
        // Only names, dots and commas up to AGAINST.
        let mut k = i + 1;
        let against = loop {
            match toks.get(k).map(|t| &t.token) {
                Some(Token::Word(_)) if word_upper(toks.get(k)).as_deref() == Some("AGAINST") => {
                    break Some(k)
                }
                Some(Token::Word(_) | Token::Period | Token::Comma) => k += 1,
                _ => break None,
            }
        };
        match against {
            Some(at) if at > i + 1 => {
                let close = with_token(&toks[at], Token::RParen);
                toks.insert(at, close);
                let open = with_token(&toks[i + 1], Token::LParen);
                toks.insert(i + 1, open);
                i = at + 2;
            }
            _ => i += 1,
        }
    }
}

/// The indices of the tokens inside the parentheses opening at `open`
/// and not nested deeper (a call's own words: CAST's `AS`, CHAR's `USING`).
fn own_tokens(toks: &[TokenWithSpan], open: usize) -> Vec<usize> {
    let mut depth = 0i32;
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ if depth == 1 => out.push(k),
            _ => {}
        }
    }
    out
}

/// `CHAR(n, ... USING cs)` -> `CONVERT(CHAR(n, ...) USING cs)`: the bytes
/// CHAR makes, read in `cs`, as MariaDB gives them.
fn char_with_charset(toks: &mut Vec<TokenWithSpan>) {
    if !toks
        .iter()
        .any(|t| word_upper(Some(t)).as_deref() == Some("USING"))
    {
        return;
    }
    let mut i = 0;
    while i + 1 < toks.len() {
        if word_upper(toks.get(i)).as_deref() != Some("CHAR") || toks[i + 1].token != Token::LParen
        {
            i += 1;
            continue;
        }
        let using_at = own_tokens(toks, i + 1)
            .into_iter()
            .filter(|&k| word_upper(toks.get(k)).as_deref() == Some("USING"))
            .last();
        if let Some(at) = using_at {
            let close = with_token(&toks[at], Token::RParen);
            toks.insert(at, close);
            let convert = [
                with_token(&toks[i], word("CONVERT")),
                with_token(&toks[i], Token::LParen),
            ];
            toks.splice(i..i, convert);
            i += 4;
        } else {
            i += 2;
        }
    }
}

/// `` @`name` ``, `@'name'` and `@"name"` -> the user variable `@name`, as
/// `@name` is read (mysqlclient's `callproc` names its variables so). An
/// account's `'user'@'host'` is left alone: there the `@` follows the user
/// name.
pub(super) fn quoted_user_variables(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 1 < toks.len() {
        let name = match &toks[i + 1].token {
            Token::Word(w) if w.quote_style.is_some() => Some(w.value.clone()),
            Token::SingleQuotedString(v) | Token::DoubleQuotedString(v) => Some(v.clone()),
            _ => None,
        };
        // Where an operand starts: after an operator or punctuation, or
        // after a word that an operand follows. Any other word may be a
        // user name (`DEFINER=u@'h'`).
        let after_name = i > 0
            && match &toks[i - 1].token {
                Token::Word(_) => !matches!(
                    word_upper(Some(&toks[i - 1])).as_deref(),
                    Some(
                        "SELECT"
                            | "SET"
                            | "INTO"
                            | "DO"
                            | "AND"
                            | "OR"
                            | "XOR"
                            | "NOT"
                            | "WHEN"
                            | "THEN"
                            | "ELSE"
                            | "RETURN"
                            | "WHERE"
                            | "HAVING"
                            | "ON"
                            | "IN"
                            | "IS"
                            | "LIKE"
                            | "BY"
                            | "VALUES"
                            | "BETWEEN"
                            | "CASE"
                    )
                ),
                Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) => true,
                _ => false,
            };
        match name {
            Some(name)
                if toks[i].token == Token::AtSign
                    && toks[i].span.end == toks[i + 1].span.start
                    && !after_name =>
            {
                let var = with_token(&toks[i], Token::make_word(&format!("@{name}"), None));
                toks.splice(i..i + 2, [var]);
            }
            _ => {}
        }
        i += 1;
    }
}

/// `AGAINST (@name ...)` -> `AGAINST (<placeholder @name> ...)`: MariaDB
/// takes a user variable as the search text, sqlparser only a value there;
/// the full-text search reads the variable (`exec::select::fulltext`).
fn against_user_variable(toks: &mut [TokenWithSpan]) {
    for i in 0..toks.len().saturating_sub(3) {
        if word_upper(toks.get(i)).as_deref() != Some("AGAINST")
            || toks[i + 1].token != Token::LParen
        {
            continue;
        }
        let Token::Word(w) = &toks[i + 2].token else {
            continue;
        };
        let ends = toks[i + 3].token == Token::RParen
            || matches!(word_upper(toks.get(i + 3)).as_deref(), Some("IN" | "WITH"));
        if w.quote_style.is_none() && w.value.starts_with('@') && !w.value.starts_with("@@") && ends
        {
            let var = Token::Placeholder(w.value.clone());
            toks[i + 2] = with_token(&toks[i + 2], var);
        }
    }
}

/// `DESC[RIBE] | EXPLAIN t col|'pattern'` -> `SHOW COLUMNS FROM t LIKE
/// 'col'|'pattern'` (MySQL takes a column name there as a LIKE pattern too).
fn describe_column(toks: &[TokenWithSpan]) -> Option<Vec<TokenWithSpan>> {
    const NOT_TABLES: [&str; 14] = [
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "REPLACE",
        "WITH",
        "VALUES",
        "TABLE",
        "FORMAT",
        "EXTENDED",
        "PARTITIONS",
        "ANALYZE",
        "FOR",
        "VERBOSE",
    ];
    let is_word = |k: usize| matches!(toks.get(k).map(|t| &t.token), Some(Token::Word(_)));
    if !is_word(1) || word_upper(toks.get(1)).is_some_and(|w| NOT_TABLES.contains(&w.as_str())) {
        return None;
    }
    let mut end = 2;
    while toks.get(end).is_some_and(|t| t.token == Token::Period) && is_word(end + 1) {
        end += 2;
    }
    let pattern = toks.get(end)?;
    let rest = &toks[end + 1..];
    if !rest.iter().all(|t| t.token == Token::SemiColon) {
        return None;
    }
    let text = match &pattern.token {
        Token::Word(w) => Token::SingleQuotedString(w.value.clone()),
        Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) => pattern.token.clone(),
        _ => return None,
    };
    let mut out = vec![
        with_token(&toks[0], word("SHOW")),
        with_token(&toks[0], word("COLUMNS")),
        with_token(&toks[0], word("FROM")),
    ];
    out.extend(toks[1..end].iter().cloned());
    out.push(with_token(pattern, word("LIKE")));
    out.push(with_token(pattern, text));
    Some(out)
}

/// End (exclusive) of the operand starting at `at`: a literal, a (qualified)
/// name, a function call or a parenthesized expression; nested `!` included.
/// `closing[k]` is one past the `)` that closes the `(` at `k` (see
/// [`closing_parens`]).
fn operand_end(toks: &[TokenWithSpan], at: usize, closing: &[Option<usize>]) -> Option<usize> {
    let t = toks.get(at)?;
    let close = |from: usize| closing.get(from).copied().flatten();
    match &t.token {
        // Prefix operators (`!`, `~`, unary `-` and `+`) bind tighter than
        // any binary one: the operand is the one after them.
        Token::ExclamationMark | Token::Tilde | Token::Minus | Token::Plus => {
            let mut operand = at;
            while toks.get(operand).is_some_and(|x| {
                matches!(
                    x.token,
                    Token::ExclamationMark | Token::Tilde | Token::Minus | Token::Plus
                )
            }) {
                operand += 1;
            }
            operand_end(toks, operand, closing)
        }
        Token::LParen => close(at),
        Token::Word(_) => {
            let mut end = at + 1;
            while toks.get(end).is_some_and(|x| x.token == Token::Period)
                && toks
                    .get(end + 1)
                    .is_some_and(|x| matches!(x.token, Token::Word(_)))
            {
                end += 2;
            }
            if toks.get(end).is_some_and(|x| x.token == Token::LParen) {
                return close(end);
            }
            Some(end)
        }
        _ if is_literal(t) || ends_operand(t) => Some(at + 1),
        _ => None,
    }
}

/// For each `(`, one past its matching `)` (`None` for other tokens and
/// for an unclosed `(`): computed once, so finding operands stays linear.
fn closing_parens(toks: &[TokenWithSpan]) -> Vec<Option<usize>> {
    let mut closing = vec![None; toks.len()];
    let mut open = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        match t.token {
            Token::LParen => open.push(k),
            Token::RParen => {
                if let Some(o) = open.pop() {
                    closing[o] = Some(k + 1);
                }
            }
            _ => {}
        }
    }
    closing
}

/// True when a token may start a rewrite (a cheap pre-check that lets most
/// statements skip the rewrite loop).
fn needs_look(t: &TokenWithSpan, update: bool) -> bool {
    match &t.token {
        Token::Comma => update,
        Token::ExclamationMark | Token::Assignment => true,
        Token::Word(w) if w.quote_style.is_none() => {
            let v = w.value.as_str();
            [
                "LOCK",
                "MOD",
                "EXTENDED",
                "PARTITIONS",
                "SCHEMA",
                "TABLE",
                "TABLES",
                "CHARSET",
                "REGEXP",
                "RLIKE",
                "PERSISTENT",
                "DUAL",
            ]
            .iter()
            .any(|k| v.eq_ignore_ascii_case(k))
                || COMPOUND_UNITS
                    .iter()
                    .any(|(n, _, _)| v.eq_ignore_ascii_case(n))
        }
        _ => false,
    }
}

fn word(s: &str) -> Token {
    Token::make_word(s, None)
}

fn with_token(at: &TokenWithSpan, token: Token) -> TokenWithSpan {
    TokenWithSpan {
        token,
        span: at.span,
    }
}

/// The upper-cased value of an unquoted word token.
fn word_upper(t: Option<&TokenWithSpan>) -> Option<String> {
    match &t?.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn words_at(toks: &[TokenWithSpan], at: usize, words: &[&str]) -> bool {
    words
        .iter()
        .enumerate()
        .all(|(k, w)| word_upper(toks.get(at + k)).as_deref() == Some(*w))
}

fn is_literal(t: &TokenWithSpan) -> bool {
    matches!(
        t.token,
        Token::Number(..) | Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)
    )
}

/// True when the token can end an operand, so a following `MOD` is infix.
fn ends_operand(t: &TokenWithSpan) -> bool {
    match &t.token {
        Token::RParen | Token::Placeholder(_) => true,
        Token::Word(w) => {
            w.quote_style.is_some()
                || w.keyword == sqlparser::keywords::Keyword::NoKeyword
                || ["NULL", "TRUE", "FALSE", "END"]
                    .iter()
                    .any(|k| w.value.eq_ignore_ascii_case(k))
        }
        Token::HexStringLiteral(_) | Token::NationalStringLiteral(_) => true,
        _ => is_literal(t),
    }
}
