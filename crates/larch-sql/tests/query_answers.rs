//! Query shapes that once gave wrong rows without an error, each checked
//! against what MariaDB 10.11 gives for it: ENUM and SET values as truth
//! values, in arithmetic and in ORDER BY / GROUP BY order (their member
//! number, not their text); a function's string result as strong as the
//! column it comes from when collations meet; BETWEEN with a datetime and
//! numbers comparing all three as datetimes; a TIMESTAMP of the enclosing
//! query inside a correlated subquery; and a TIME or DATETIME with
//! fractional digits read as text with its own number of digits.

mod support;

use larch_sql::result::QueryResult;
use support::{one, rows, TestDb, R};

/// The affected rows of `sql`.
fn affected(s: &mut larch_sql::session::Session, sql: &str) -> R<u64> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok(ok.affected_rows),
        other => Err(format!("expected OK from {sql}, got {other:?}").into()),
    }
}

/// The first column of each row of `sql`, joined with `|`.
fn column(s: &mut larch_sql::session::Session, sql: &str) -> R<String> {
    Ok(rows(s, sql)?
        .into_iter()
        .map(|r| r.into_iter().next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("|"))
}

const MEMBERS: &[&str] = &[
    "CREATE TABLE s (id INT PRIMARY KEY, f SET('a','b','c'), e ENUM('z','y','x'))",
    "INSERT INTO s VALUES (1,'a,c','x'),(3,'b','y'),(4,'c','z'),(5,NULL,NULL),(6,'','z')",
];

#[test]
fn enum_and_set_are_numbers_as_truth_values() -> R<()> {
    let t = TestDb::new(MEMBERS)?;
    let mut s = t.session(5)?;
    let cases = [
        ("WHERE f", "1,3,4"),
        ("WHERE NOT f", "6"),
        ("WHERE e AND f", "1,3,4"),
        ("WHERE f IS TRUE", "1,3,4"),
        ("WHERE f = 5 OR e = 1", "1,4,6"),
        ("WHERE f = 'a,c'", "1"),
    ];
    for (cond, want) in cases {
        let sql = format!("SELECT GROUP_CONCAT(id ORDER BY id) FROM s {cond}");
        assert_eq!(one(&mut s, &sql)?, want, "{cond}");
    }
    assert_eq!(
        rows(&mut s, "SELECT f+0, e+0, f*2, -e FROM s WHERE id = 1")?,
        [["5", "3", "10", "-3"]]
    );
    // A SET column as an ON condition (a RIGHT JOIN keeps the matches).
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM s a RIGHT JOIN s b ON a.f WHERE a.id = 1"
        )?,
        "5"
    );
    s.execute("CREATE TABLE t2 (id BIGINT PRIMARY KEY, c SMALLINT UNSIGNED, d SET('a','b','c'))")?;
    s.execute("CREATE TABLE t1 (id INT PRIMARY KEY)")?;
    s.execute("INSERT INTO t2 VALUES (3, 0, 'c')")?;
    s.execute("INSERT INTO t1 VALUES (4)")?;
    assert_eq!(
        one(
            &mut s,
            "SELECT a1.c FROM t2 AS a1 RIGHT JOIN t1 AS a2 ON a1.d"
        )?,
        "0"
    );
    Ok(())
}

#[test]
fn enum_and_set_sort_by_member_number() -> R<()> {
    let t = TestDb::new(MEMBERS)?;
    let mut s = t.session(5)?;
    assert_eq!(
        column(&mut s, "SELECT f FROM s ORDER BY f")?,
        "NULL||b|c|a,c"
    );
    assert_eq!(
        column(&mut s, "SELECT f FROM s ORDER BY f DESC")?,
        "a,c|c|b||NULL"
    );
    assert_eq!(
        column(&mut s, "SELECT f, NULL FROM s ORDER BY 2, 1")?,
        "NULL||b|c|a,c"
    );
    assert_eq!(
        column(&mut s, "SELECT f FROM s GROUP BY 1 ORDER BY 1 LIMIT 3")?,
        "NULL||b"
    );
    assert_eq!(
        column(&mut s, "SELECT e FROM s ORDER BY e, id")?,
        "NULL|z|z|y|x"
    );
    assert_eq!(
        rows(&mut s, "SELECT e, COUNT(*) FROM s GROUP BY e")?,
        [["NULL", "1"], ["z", "2"], ["y", "1"], ["x", "1"]]
    );
    // MAX compares the member text.
    assert_eq!(one(&mut s, "SELECT MAX(f) FROM s")?, "c");
    Ok(())
}

#[test]
fn function_results_keep_their_columns_collation() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE k (c VARCHAR(10) COLLATE utf8mb4_bin)",
        "INSERT INTO k VALUES ('A')",
        "CREATE TABLE j (id INT PRIMARY KEY, c JSON)",
        "INSERT INTO j VALUES (2, '[1, \"x\", null, true]')",
    ])?;
    let mut s = t.session(5)?;
    for expr in [
        "'a' = CONCAT(c)",
        "'a' = TRIM(c)",
        "'a' = SUBSTR(c, 1)",
        "'a' = IFNULL(c, c)",
        "'a' = CASE WHEN 1 THEN c END",
        "'a' = UPPER(c)",
    ] {
        assert_eq!(
            one(&mut s, &format!("SELECT {expr} FROM k"))?,
            "0",
            "{expr}"
        );
    }
    assert_eq!(
        affected(&mut s, "DELETE FROM j WHERE 'a' <= JSON_QUERY(c, '$')")?,
        0
    );
    Ok(())
}

#[test]
fn between_a_datetime_and_numbers_compares_datetimes() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t2 (a TINYINT NOT NULL, b DECIMAL(15,6) NOT NULL, d DATETIME(1), \
         PRIMARY KEY (b, a))",
        "INSERT INTO t2 VALUES (-125, 85242.628000, '1992-01-11 03:47:15.1')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT 1 BETWEEN b AND d, 20000101 BETWEEN b AND d, 1 NOT BETWEEN b AND d, \
             19920111 BETWEEN 0 AND d FROM t2"
        )?,
        [["1", "0", "0", "1"]]
    );
    assert_eq!(
        affected(&mut s, "DELETE FROM t2 WHERE 1 BETWEEN b AND d")?,
        1
    );
    Ok(())
}

#[test]
fn outer_timestamp_compares_as_a_datetime() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t2 (b TIMESTAMP(1) NULL, c VARCHAR(20) PRIMARY KEY)",
        "INSERT INTO t2 VALUES ('2034-12-20 12:06:13.3', 'B')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT NULL FROM t2 AS a1 WHERE EXISTS (SELECT NULL FROM t2 AS a4 WHERE 'a' > a1.b)"
        )?
        .len(),
        0
    );
    assert_eq!(
        one(&mut s, "SELECT (SELECT 'a' > a1.b FROM t2 a4) FROM t2 a1")?,
        "0"
    );
    assert_eq!(
        one(&mut s, "SELECT (SELECT 'a' < a1.b FROM t2 a4) FROM t2 a1")?,
        "1"
    );
    Ok(())
}

#[test]
fn temporal_text_keeps_its_fractional_digits() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t3 (e INT PRIMARY KEY, f DATETIME(4), g TIME(2))",
        "INSERT INTO t3 VALUES (9, '2012-03-19 10:10:54.7000', '10:00:00.5')",
    ])?;
    let mut s = t.session(5)?;
    let cases = [
        ("CHAR_LENGTH(f)", "24"),
        ("CONCAT(f, '')", "2012-03-19 10:10:54.7000"),
        ("CAST(f AS CHAR)", "2012-03-19 10:10:54.7000"),
        ("LENGTH(g)", "11"),
        ("f LIKE '%.7000'", "1"),
        (
            "CONCAT(CAST('2020-01-01 10:00:00.5' AS DATETIME(2)))",
            "2020-01-01 10:00:00.50",
        ),
    ];
    for (expr, want) in cases {
        assert_eq!(
            one(&mut s, &format!("SELECT {expr} FROM t3"))?,
            want,
            "{expr}"
        );
    }
    assert_eq!(
        one(
            &mut s,
            "SELECT CHAR_LENGTH(f) AS c0 FROM t3 ORDER BY 1 LIMIT 1"
        )?,
        "24"
    );
    // A UNION's string column shows the DATETIME(4) with 4 digits.
    assert_eq!(
        column(&mut s, "SELECT 1 FROM t3 UNION ALL SELECT f FROM t3")?,
        "1|2012-03-19 10:10:54.7000"
    );
    assert_eq!(
        column(&mut s, "SELECT g FROM t3 UNION ALL SELECT 'x'")?,
        "10:00:00.50|x"
    );
    Ok(())
}
