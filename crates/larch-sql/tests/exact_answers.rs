//! Statements that once gave a wrong answer without an error, each checked
//! against what MariaDB 10.11 gives for it: operator precedence (`BINARY`,
//! `XOR`, `^`, `<<`, `&&`, `||`), a TIME(6) value stored whole, `SELECT ALL`,
//! select-list names that are columns and not earlier aliases, a FLOAT
//! compared with the FLOAT values of an IN subquery, a subquery in SET, the
//! OK packet's insert id and LAST_INSERT_ID() after explicit values and
//! after INSERT IGNORE skipped a row; and clauses Larch cannot run exactly
//! (FETCH, partitions) refused instead of dropped. Internal
//! names (U+0001) cannot be written by a statement.

mod support;

use larch_sql::result::QueryResult;
use support::{error, one, rows, TestDb, R};

#[test]
fn operator_precedence_is_mariadbs() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    // Each value is what MariaDB 10.11 returns for the same expression.
    let cases = [
        ("'a' LIKE BINARY '%a%' AND 1", "1"),
        ("'a' LIKE BINARY 'A'", "0"),
        ("BINARY 'a' = 'A'", "0"),
        ("1 XOR 1 = 0", "1"),
        ("1 XOR 1 AND 0", "1"),
        ("0 AND 1 XOR 1", "1"),
        ("2 * 3 ^ 2", "2"),
        ("1 || 0 AND 0", "1"),
        ("1 && 0 = 0", "1"),
        ("1 << 2 + 1", "8"),
        ("5 & 3 << 1", "4"),
        ("-2 ^ 2", "18446744073709551612"),
        ("~1 ^ 1", "18446744073709551615"),
        ("3 - -1", "4"),
        ("!!1", "1"),
        ("!(!(1))", "1"),
        ("! !0", "0"),
        ("!!!1", "0"),
        ("!~1", "0"),
        ("!-1", "0"),
        ("-!1", "0"),
        ("!1 + 1", "1"),
        ("!!1 = 1", "1"),
        ("!1 MOD 2", "0"),
        ("!(1) AND !0", "0"),
        (
            "COLLATION(CAST('a' AS CHAR CHARACTER SET latin1))",
            "latin1_swedish_ci",
        ),
        ("CAST('abcd' AS CHAR(2) CHARSET latin1)", "ab"),
        ("CONVERT('abc', CHAR(2) CHARACTER SET latin1)", "ab"),
        ("1 FROM DUAL", "1"),
    ];
    for (expr, want) in cases {
        assert_eq!(one(&mut s, &format!("SELECT {expr}"))?, want, "{expr}");
    }
    Ok(())
}

#[test]
fn time_with_fraction_is_stored_whole() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE tt (t TIME(6))",
        "INSERT INTO tt VALUES ('01:00:00.000000'), ('-10:20:30.5'), ('2 03:04:05.25'), ('10.5')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT t FROM tt")?,
        [
            ["01:00:00.000000"],
            ["-10:20:30.500000"],
            ["51:04:05.250000"],
            ["00:00:10.500000"]
        ]
    );
    // A datetime's time part is still its time.
    assert_eq!(
        one(&mut s, "SELECT CAST('2024-01-02 03:04:05.5' AS TIME(1))")?,
        "03:04:05.5"
    );
    Ok(())
}

#[test]
fn select_list_names_and_all() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a INT, b INT)",
        "INSERT INTO t VALUES (1, 10), (2, 20), (3, 20)",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT ALL b FROM t ORDER BY a")?,
        [["10"], ["20"], ["20"]]
    );
    // A name in the select list is a column, never an earlier item's alias.
    assert_eq!(
        rows(&mut s, "SELECT 65 b, b FROM t ORDER BY a")?,
        [["65", "10"], ["65", "20"], ["65", "20"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT 17 a, - a FROM t ORDER BY t.a")?,
        [["17", "-1"], ["17", "-2"], ["17", "-3"]]
    );
    assert_eq!(
        error(&mut s, "SELECT 1 AS x, x + 1")?,
        (1054, "Unknown column 'x' in 'SELECT'".into())
    );
    // ORDER BY and HAVING still see aliases.
    assert_eq!(
        rows(&mut s, "SELECT a AS z FROM t HAVING z > 1 ORDER BY z DESC")?,
        [["3"], ["2"]]
    );
    Ok(())
}

#[test]
fn subquery_values_keep_their_type() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE f (pk INT PRIMARY KEY, col0 INT, col1 FLOAT, col4 FLOAT, \
         vb VARBINARY(10), d DATE, e ENUM('x','y'))",
        "INSERT INTO f VALUES (1, 10, 68.2, 1.5, 'ABC', '2020-01-02', 'y'), \
         (2, 83, 89.84, 68.2, 'abc', '2021-03-04', 'x')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT pk FROM f WHERE col4 IN (SELECT col1 FROM f WHERE col0 < 48)"
        )?,
        [["2"]]
    );
    // Binary strings compare as bytes, whatever the other side's collation.
    assert_eq!(
        rows(
            &mut s,
            "SELECT pk FROM f WHERE 'abc' IN (SELECT vb FROM f WHERE pk = 1)"
        )?,
        Vec::<Vec<String>>::new()
    );
    assert_eq!(
        one(&mut s, "SELECT (SELECT d FROM f WHERE pk = 1) + 0")?,
        "20200102"
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT pk FROM f WHERE e IN (SELECT e FROM f WHERE pk = 2)"
        )?,
        [["2"]]
    );
    Ok(())
}

#[test]
fn set_takes_a_subquery() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION sql_mode = 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES'")?;
    s.execute("SET SESSION sql_mode = (SELECT REPLACE(@@sql_mode, 'ONLY_FULL_GROUP_BY', ''))")?;
    assert_eq!(one(&mut s, "SELECT @@sql_mode")?, "STRICT_TRANS_TABLES");
    s.execute(
        "SET @n = (SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'test')",
    )?;
    assert_eq!(one(&mut s, "SELECT @n")?, "1");
    Ok(())
}

/// The OK packet's insert id of `sql`.
fn insert_id(s: &mut larch_sql::session::Session, sql: &str) -> R<u64> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok(ok.last_insert_id),
        other => Err(format!("expected OK from {sql}, got {other:?}").into()),
    }
}

#[test]
fn insert_ids_follow_mariadb() -> R<()> {
    let t =
        TestDb::new(&["CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE, w INT)"])?;
    let mut s = t.session(5)?;
    // Explicit values: the OK packet names the last one; LAST_INSERT_ID()
    // only ever takes generated values.
    assert_eq!(
        insert_id(&mut s, "INSERT INTO ai VALUES (42, 1, NULL)")?,
        42
    );
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "0");
    assert_eq!(
        insert_id(&mut s, "INSERT INTO ai VALUES (50, 2, NULL), (45, 3, NULL)")?,
        45
    );
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "0");
    assert_eq!(insert_id(&mut s, "INSERT INTO ai (v) VALUES (4), (5)")?, 51);
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "51");
    // A skipped row changes nothing.
    assert_eq!(
        insert_id(&mut s, "INSERT IGNORE INTO ai (v) VALUES (4)")?,
        0
    );
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "51");
    // The value a skipped row was given goes to the next row.
    assert_eq!(
        insert_id(&mut s, "INSERT IGNORE INTO ai (v) VALUES (1), (77)")?,
        54
    );
    assert_eq!(one(&mut s, "SELECT id FROM ai WHERE v = 77")?, "54");
    // A generated value wins over explicit ones in the same statement.
    assert_eq!(
        insert_id(
            &mut s,
            "INSERT INTO ai VALUES (200, 9, NULL), (NULL, 10, NULL)"
        )?,
        201
    );
    // ON DUPLICATE KEY UPDATE of a row: that row's value in the OK packet;
    // LAST_INSERT_ID() stays, as after an UPDATE.
    assert_eq!(
        insert_id(
            &mut s,
            "INSERT INTO ai (v, w) VALUES (2, 5) ON DUPLICATE KEY UPDATE w = 9"
        )?,
        50
    );
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "201");
    // A new session starts at 0.
    let mut other = t.session(5)?;
    assert_eq!(
        insert_id(&mut other, "INSERT IGNORE INTO ai (v) VALUES (4)")?,
        0
    );
    assert_eq!(one(&mut other, "SELECT LAST_INSERT_ID()")?, "0");
    Ok(())
}

#[test]
fn clauses_larch_cannot_run_are_refused() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE w (v INT)",
        "INSERT INTO w VALUES (1), (2), (3)",
    ])?;
    let mut s = t.session(5)?;
    for sql in [
        "SELECT v FROM w FETCH FIRST 1 ROWS ONLY",
        "SELECT v FROM w PARTITION (p0)",
    ] {
        assert_eq!(error(&mut s, sql)?.0, 1235, "{sql}");
    }
    for sql in [
        "SELECT v FROM w ORDER BY v NULLS FIRST",
        "SELECT DISTINCT ON (v) v FROM w",
        "SELECT v FROM w FOR UPDATE OF w",
    ] {
        assert_eq!(error(&mut s, sql)?.0, 1064, "{sql}");
    }
    Ok(())
}

#[test]
fn internal_names_cannot_be_written() -> R<()> {
    let t = TestDb::new(&[
        "CREATE DATABASE secret",
        "CREATE TABLE secret.t (x INT)",
        "INSERT INTO secret.t VALUES (42)",
        "CREATE USER low@localhost",
        "GRANT SELECT ON test.* TO low@localhost",
        "CREATE TABLE agg (a INT)",
        "INSERT INTO agg VALUES (1), (2)",
    ])?;
    let mut s = t.db.new_session(0, "low", "localhost")?;
    s.use_database("test")?;
    assert_eq!(error(&mut s, "SELECT x FROM secret.t")?.0, 1142);
    // The planner's marker for a correlated subquery, spelled by a user.
    let forged = "SELECT `\u{1}subquery`('scalar:1', 'SELECT x FROM secret.t', NULL)";
    assert_eq!(error(&mut s, forged)?.0, 1064);
    for sql in [
        "SELECT `\u{1}agg_0` FROM agg GROUP BY a",
        "SELECT `\u{1}outer1_0` FROM agg",
        "CREATE TABLE `\u{1}#sql-temp-1-1` (a INT)",
    ] {
        assert_eq!(error(&mut s, sql)?.0, 1064, "{sql:?}");
    }
    // A table named like the work tables of MariaDB is an ordinary table.
    let mut root = t.session(5)?;
    root.execute("CREATE TABLE `#sql-temp-1-1` (a INT)")?;
    root.execute("INSERT INTO `#sql-temp-1-1` VALUES (7)")?;
    assert_eq!(one(&mut root, "SELECT a FROM `#sql-temp-1-1`")?, "7");
    assert!(rows(&mut root, "SHOW TABLES")?
        .iter()
        .any(|r| r[0] == "#sql-temp-1-1"));
    Ok(())
}

#[test]
fn zero_temporal_values_are_false() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE z (a INT, d DATE, tm TIME)",
        "INSERT INTO z VALUES (1, '0000-00-00', '00:00:00'), (2, '2024-01-01', '00:00:01')",
    ])?;
    let mut s = t.session(5)?;
    // MariaDB 10.11: a zero date or time is the number 0, so false.
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM z WHERE FROM_DAYS(1)")?,
        "0"
    );
    assert_eq!(
        one(&mut s, "SELECT MIN('a') FROM z WHERE FROM_DAYS(1)")?,
        "NULL"
    );
    assert_eq!(rows(&mut s, "SELECT a FROM z WHERE d")?, [["2"]]);
    assert_eq!(rows(&mut s, "SELECT a FROM z WHERE tm")?, [["2"]]);
    assert_eq!(
        rows(&mut s, "SELECT a FROM z GROUP BY a HAVING MAX(d)")?,
        [["2"]]
    );
    Ok(())
}
