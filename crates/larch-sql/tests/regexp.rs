//! REGEXP / RLIKE / NOT REGEXP and the REGEXP_* functions as MariaDB gives
//! them: case-insensitive under a `_ci` collation, case-sensitive for binary
//! strings, NULL for NULL operands, `\N` back references in REGEXP_REPLACE,
//! '' and 0 without a match, error 1139 for a bad pattern.

mod support;

use support::{rows, TestDb, R};

#[test]
fn regexp_operators_and_functions() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(20))",
        "INSERT INTO t VALUES (1, 'Apple', 'Apple'), (2, 'banana', 'banana'), (3, 'cherry', NULL)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT 'abc' REGEXP 'B', 'abc' RLIKE '^a.c$', 'abc' NOT REGEXP '^a', \
             NULL REGEXP 'a', 'a' REGEXP NULL, CAST('abc' AS BINARY) REGEXP 'B'"
        )?,
        vec![vec!["1", "1", "0", "NULL", "NULL", "0"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE s REGEXP '^[ab]' ORDER BY id"
        )?,
        vec![vec!["1"], vec!["2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id, b REGEXP '^a' FROM t ORDER BY id")?,
        vec![vec!["1", "0"], vec!["2", "0"], vec!["3", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE s NOT RLIKE 'an' ORDER BY id"
        )?,
        vec![vec!["1"], vec!["3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT REGEXP_REPLACE('abc abc', 'b', 'X'), \
             REGEXP_REPLACE('James Bond', '^(.*) (.*)$', '\\\\2, \\\\1'), \
             REGEXP_REPLACE('ABC', 'b', '-'), REGEXP_REPLACE(NULL, 'b', '-')"
        )?,
        vec![vec!["aXc aXc", "Bond, James", "A-C", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT REGEXP_SUBSTR('ab12cd34', '[0-9]+'), REGEXP_SUBSTR('abc', '[0-9]'), \
             REGEXP_INSTR('abc', 'c'), REGEXP_INSTR('abc', 'z'), REGEXP_INSTR('äbc', 'c')"
        )?,
        vec![vec!["12", "", "3", "0", "3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT REGEXP_LIKE('ABC', 'b'), REGEXP_LIKE('ABC', 'b', 'c'), \
             REGEXP_LIKE('a\\nb', '^b$', 'm')"
        )?,
        vec![vec!["1", "0", "1"]]
    );
    let e = s
        .execute("SELECT 'a' REGEXP '('")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.code(), 1139);
    Ok(())
}
