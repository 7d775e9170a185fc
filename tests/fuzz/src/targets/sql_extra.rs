//! What the `sql` target adds to the differential tester's generator: DDL
//! and utility statements over the generated tables ([`statement`]: ALTER
//! TABLE, indexes, views, prepared statements, EXPLAIN, table
//! maintenance, SHOW, CREATE TABLE ... SELECT, temporary tables, modes),
//! SQL tokens for mutation ([`TOKENS`]), and the script mutation
//! ([`mutate_script`]) that edits one statement's tokens or the list of
//! statements.
//!
//! The statements reference the round's tables by name and their columns,
//! so most of them reach the binder and the executor; the mutations make
//! statements that reach the parser's and binder's error paths.

use larch_differential::ast::Stmt;
use larch_differential::gen::Gen;
use rand::rngs::StdRng;
use rand::Rng;

use super::sql::{script, statements};

/// Tokens the mutations insert or substitute: boundary literals, keywords,
/// operators and function heads. Nothing that stops or reconfigures the
/// server (no SHUTDOWN, KILL, SET GLOBAL) and no SLEEP.
pub const TOKENS: [&str; 64] = [
    "NULL",
    "0",
    "-1",
    "18446744073709551615",
    "-9223372036854775808",
    "9223372036854775807",
    "1e308",
    "-1e-308",
    "0.000000000000000000000000000001",
    "99999999999999999999999999999999999999999999999999999999999999999",
    "''",
    "'\\0'",
    "_latin1'\\xff'",
    "X'FF'",
    "0b1",
    "DATE'2000-02-29'",
    "TIMESTAMP'2038-01-19 03:14:08'",
    "'0000-00-00'",
    "'838:59:59.999999'",
    "CAST(",
    " AS ",
    "CHAR",
    "SIGNED",
    "DECIMAL(65,30)",
    "(",
    ")",
    ",",
    "SELECT ",
    " FROM ",
    " WHERE ",
    " GROUP BY ",
    " ORDER BY ",
    " HAVING ",
    " LIMIT ",
    " UNION ",
    " JOIN ",
    " ON ",
    " IN ",
    "EXISTS",
    " NOT ",
    " AND ",
    " OR ",
    " XOR ",
    " BETWEEN ",
    " LIKE ",
    " REGEXP ",
    " COLLATE utf8mb4_bin",
    "COUNT(*)",
    "SUM(",
    "GROUP_CONCAT(",
    "JSON_EXTRACT(",
    " OVER ()",
    "WITH ",
    " RECURSIVE ",
    " DISTINCT ",
    " INTERVAL 1 DAY",
    "?",
    "@v",
    ":=",
    "||",
    "<=>",
    " DIV ",
    "<<",
    "!",
];

/// A query of the generator as text.
fn query(gen: &mut Gen) -> String {
    Stmt::Query(gen.top_query().0).sql()
}

/// A DDL or utility statement over the generator's tables.
pub fn statement(gen: &mut Gen) -> String {
    let i = gen.below(gen.tables.len());
    let Some(t) = gen.tables.get(i).cloned() else {
        return "SELECT 1".to_owned();
    };
    let col = gen.pick(&t.columns).clone();
    let name = &t.name;
    match gen.below(20) {
        0 => format!("ALTER TABLE {name} ADD COLUMN zz INT DEFAULT {}", gen.below(9)),
        1 => {
            let prefix = if col.ty.indexable() { "" } else { "(10)" };
            format!("ALTER TABLE {name} ADD INDEX ix_{} ({}{prefix})", col.name, col.name)
        }
        2 => format!("ALTER TABLE {name} DROP COLUMN {}", col.name),
        3 => format!(
            "ALTER TABLE {name} MODIFY COLUMN {} {}",
            col.name,
            gen.pick_str(&["BIGINT", "VARCHAR(20)", "DOUBLE", "TEXT", "DATE", "DECIMAL(10,2)"])
        ),
        4 => format!("CREATE OR REPLACE VIEW v1 AS {}", query(gen)),
        5 => "SELECT * FROM v1".to_owned(),
        6 => format!("EXPLAIN {}", query(gen)),
        7 => format!("PREPARE s1 FROM '{}'", query(gen).replace('\'', "''")),
        8 => "EXECUTE s1".to_owned(),
        9 => format!(
            "{} TABLE {name}",
            gen.pick_str(&["CHECK", "ANALYZE", "OPTIMIZE", "REPAIR", "CHECKSUM"])
        ),
        10 => format!(
            "SHOW {} {name}",
            gen.pick_str(&["CREATE TABLE", "INDEX FROM", "COLUMNS FROM", "FULL COLUMNS FROM"])
        ),
        11 => "SELECT table_name, column_name, data_type, column_key FROM information_schema.columns WHERE table_schema = 'fz'".to_owned(),
        12 => format!("CREATE TABLE c{} AS {}", gen.below(3), query(gen)),
        13 => format!("DROP TABLE IF EXISTS c{}", gen.below(3)),
        14 => format!("TRUNCATE TABLE {name}"),
        15 => format!(
            "SET SESSION sql_mode = '{}'",
            gen.pick_str(&[
                "",
                "STRICT_TRANS_TABLES",
                "ONLY_FULL_GROUP_BY",
                "NO_ZERO_DATE,STRICT_ALL_TABLES",
                "PAD_CHAR_TO_FULL_LENGTH",
                "ANSI_QUOTES",
            ])
        ),
        16 => format!("CREATE TEMPORARY TABLE tmp AS SELECT * FROM {name}"),
        17 => format!("SELECT * FROM {name} FOR UPDATE"),
        18 => format!("RENAME TABLE {name} TO {name}_r, {name}_r TO {name}"),
        _ => format!("SHOW TABLE STATUS LIKE '{name}'"),
    }
}

/// Splits SQL text into tokens: words, numbers, quoted strings, single
/// punctuation characters, runs of spaces.
fn tokens(sql: &str) -> Vec<String> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_alphanumeric() || c == '_' || c == '.' {
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
        } else if c == '\'' || c == '"' || c == '`' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
        } else {
            i += 1;
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

/// Mutates one statement's tokens.
fn mutate_tokens(sql: &str, rng: &mut StdRng) -> String {
    let mut t = tokens(sql);
    if t.is_empty() {
        return TOKENS[rng.random_range(0..TOKENS.len())].to_owned();
    }
    let token = || TOKENS.iter().copied();
    for _ in 0..rng.random_range(1..=3) {
        let i = rng.random_range(0..t.len());
        match rng.random_range(0..7) {
            0 if t.len() > 1 => {
                t.remove(i);
            }
            1 => {
                let copy = t[i].clone();
                t.insert(i, copy);
            }
            2 => {
                let j = rng.random_range(0..t.len());
                t.swap(i, j);
            }
            3 | 4 => {
                let n = token().count();
                t[i] = token()
                    .nth(rng.random_range(0..n))
                    .unwrap_or("NULL")
                    .to_owned();
            }
            5 => {
                let n = token().count();
                let new = token().nth(rng.random_range(0..n)).unwrap_or("NULL");
                t.insert(i, new.to_owned());
            }
            _ => {
                // Drop everything after a random token (an unfinished statement).
                t.truncate(i.max(1));
            }
        }
    }
    t.concat()
}

/// Mutates a script: one statement's tokens (most often), or the list of
/// statements (a statement dropped, repeated, moved, or spliced from two).
pub fn mutate_script(input: &mut Vec<u8>, rng: &mut StdRng) -> bool {
    let mut list = statements(input);
    if list.is_empty() {
        return false;
    }
    let i = rng.random_range(0..list.len());
    match rng.random_range(0..10) {
        0 if list.len() > 1 => {
            list.remove(i);
        }
        1 => {
            let copy = list[i].clone();
            let to = rng.random_range(0..=list.len());
            list.insert(to, copy);
        }
        2 => {
            let j = rng.random_range(0..list.len());
            list.swap(i, j);
        }
        3 => {
            let j = rng.random_range(0..list.len());
            let a = tokens(&list[i]);
            let b = tokens(&list[j]);
            let head = rng.random_range(0..=a.len());
            let tail = rng.random_range(0..=b.len());
            list[i] = a[..head].concat() + &b[tail..].concat();
        }
        _ => list[i] = mutate_tokens(&list[i], rng),
    }
    *input = script(&list);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn tokens_cover_the_text_and_keep_strings_whole() {
        let sql = "SELECT a1.c0, 'it''s x' FROM t1 AS a1 WHERE c0 >= 1.5";
        let t = tokens(sql);
        assert_eq!(t.concat(), sql);
        assert!(t.contains(&"'it'".to_owned()));
        assert!(t.contains(&"a1.c0".to_owned()));
        assert!(t.contains(&">".to_owned()));
    }

    #[test]
    fn script_mutations_change_scripts_and_keep_statement_lists() {
        let mut rng = StdRng::seed_from_u64(9);
        let original = script(&["SELECT 1 FROM t1".to_owned(), "DELETE FROM t1".to_owned()]);
        let mut changed = 0;
        for _ in 0..100 {
            let mut s = original.clone();
            assert!(mutate_script(&mut s, &mut rng));
            changed += usize::from(s != original);
            assert!(!statements(&s).is_empty());
        }
        assert!(changed > 80, "{changed}");
    }
}
