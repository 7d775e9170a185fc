//! Answers the differential tester found to differ from MariaDB 10.11's,
//! each checked against the reference server: DATE_ADD of a string, a
//! number or NULL gives text; YEAR against TIME and DATE; a NULL left side
//! of a comparison leaves the right one unevaluated; subqueries in the
//! branches of UNION and INTERSECT; `X'..'` is a binary string where `0x..`
//! is a number; a WHERE that can never hold evaluates nothing; a TIME read
//! from a datetime text that is no datetime; UNSIGNED on a DECIMAL column;
//! ROUND and TRUNCATE to more places than their argument has; a DATE
//! shown in a DATETIME result; REGEXP_REPLACE of an empty string; mixes of
//! collations MariaDB refuses; NULLIF of a hex literal and a number.

mod support;

use larch_engine::record::value::ColumnType;
use support::{affected_rows, columns, one, rows, warning_codes, TestDb, R};

#[test]
fn date_add_of_a_string_a_number_or_null_is_text() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE dt (v VARCHAR(30), i INT, d DECIMAL(10,3), dd DATE, t DATETIME(2))",
        "INSERT INTO dt VALUES ('2020-01-01 10:00:00.12', 20200101, 2020.101, \
         '2020-01-01', '2020-01-01 10:00:00.25')",
    ])?;
    let mut s = t.session(5)?;
    // (expression, its type as MariaDB announces it, its value)
    let cases: [(&str, ColumnType, &str); 10] = [
        (
            "DATE_ADD('2020-01-01', INTERVAL 1 DAY)",
            char(19),
            "2020-01-02",
        ),
        (
            "DATE_ADD('2020-01-01 10:00:00.123', INTERVAL 1 DAY)",
            char(23),
            "2020-01-02 10:00:00.123",
        ),
        (
            "DATE_ADD('2020-01-01 10:00:00.5', INTERVAL 1 MICROSECOND)",
            char(26),
            "2020-01-01 10:00:00.500001",
        ),
        (
            "DATE_ADD('2020-01-01', INTERVAL 1.5 SECOND)",
            char(21),
            "2020-01-01 00:00:01.5",
        ),
        ("DATE_ADD(NULL, INTERVAL 1 DAY)", char(19), "NULL"),
        (
            "DATE_ADD(i, INTERVAL 1 SECOND)",
            char(19),
            "2020-01-01 00:00:01",
        ),
        (
            "DATE_ADD(v, INTERVAL 1 DAY)",
            char(26),
            "2020-01-02 10:00:00.120000",
        ),
        ("v - INTERVAL 1 DAY", char(26), "2019-12-31 10:00:00.120000"),
        (
            "DATE_ADD(dd, INTERVAL 1 HOUR)",
            ColumnType::Datetime { fsp: 0 },
            "2020-01-01 01:00:00",
        ),
        (
            "DATE_ADD(t, INTERVAL 1.5 SECOND)",
            ColumnType::Datetime { fsp: 2 },
            "2020-01-01 10:00:01.75",
        ),
    ];
    for (expr, ty, value) in cases {
        let sql = format!("SELECT {expr} FROM dt");
        let cols = columns(&mut s, &sql)?;
        let got = match &cols[0].ty {
            ColumnType::Char { len, .. } => char(*len),
            other => other.clone(),
        };
        assert_eq!(got, ty, "{expr}");
        assert_eq!(one(&mut s, &sql)?, value, "{expr}");
    }
    Ok(())
}

/// A CHAR of `len` characters (the collation left out of the comparison).
fn char(len: u32) -> ColumnType {
    ColumnType::Char {
        len,
        collation: larch_engine::record::collation::Collation::Binary,
    }
}

#[test]
fn year_compares_with_temporal_values_as_a_datetime() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE yt (y YEAR, t TIME, d DATE)",
        "INSERT INTO yt VALUES (1970, '00:00:00', '1970-01-01'), \
         (2001, '00:20:01', '1999-01-01'), (2020, '00:20:20', '2020-00-00')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT y, y = t, y < t, y > t, y <=> t, y = d, y > d FROM yt ORDER BY y"
        )?,
        vec![
            vec!["1970", "1", "0", "0", "1", "0", "0"],
            vec!["2001", "0", "1", "0", "0", "0", "1"],
            vec!["2020", "0", "1", "0", "0", "1", "0"],
        ]
    );
    // A date literal is read as the column's YEAR.
    assert_eq!(
        rows(
            &mut s,
            "SELECT y FROM yt WHERE y = DATE'1970-05-05' OR y = TIMESTAMP'2020-07-01 10:00:00' \
             ORDER BY y"
        )?,
        vec![vec!["1970"], vec!["2020"]]
    );
    // A join on YEAR = TIME finds every YEAR for a midnight TIME.
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM yt AS a JOIN yt AS b ON a.y = b.t"
        )?,
        "3"
    );
    Ok(())
}

#[test]
fn a_null_left_side_leaves_the_right_one_unevaluated() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE o (id INT PRIMARY KEY, b BIGINT UNSIGNED)",
        "INSERT INTO o VALUES (1, 18446744073709551615)",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        one(&mut s, "SELECT NULL = CAST('a' AS DECIMAL) FROM o")?,
        "NULL"
    );
    assert_eq!(warning_codes(&mut s)?, Vec::<String>::new());
    assert_eq!(
        one(&mut s, "SELECT CAST('a' AS DECIMAL) = NULL FROM o")?,
        "NULL"
    );
    assert_eq!(warning_codes(&mut s)?, vec!["1292"]);
    // A WHERE that can never hold reads nothing of its other conjuncts.
    assert!(rows(&mut s, "SELECT id FROM o WHERE NULL AND (b + 1)")?.is_empty());
    assert!(rows(&mut s, "SELECT id FROM o WHERE (b + 1) AND 0")?.is_empty());
    assert!(rows(&mut s, "SELECT id FROM o WHERE (0 AND b + 1) OR NULL")?.is_empty());
    assert_eq!(
        affected_rows(&mut s, "DELETE FROM o WHERE NULL AND (b + 1)")?,
        0
    );
    // Under NOT it is evaluated: NOT (NULL AND x) holds when x is false.
    assert_eq!(
        support::code(&mut s, "SELECT id FROM o WHERE NOT (NULL AND (b + 1))"),
        1690
    );
    Ok(())
}

#[test]
fn subqueries_in_set_operation_branches() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (id INT PRIMARY KEY, d DATETIME)",
        "CREATE TABLE t3 (id INT PRIMARY KEY)",
        "INSERT INTO t1 VALUES (1, '2020-01-01 00:00:00'), (2, '2021-01-01 00:00:00')",
        "INSERT INTO t3 VALUES (7)",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT (SELECT MIN(a3.d) FROM t1 AS a3) AS c FROM t1 AS a1 \
             UNION SELECT (SELECT MAX(id) FROM t3) FROM t3 ORDER BY c"
        )?,
        vec![vec!["2020-01-01 00:00:00"], vec!["7"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t1 WHERE id IN (SELECT 1) \
             INTERSECT SELECT id FROM t1 WHERE EXISTS (SELECT * FROM t3)"
        )?,
        vec![vec!["1"]]
    );
    Ok(())
}

#[test]
fn x_quoted_hex_is_a_binary_string_and_0x_a_number() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t4 (id INT PRIMARY KEY)",
        "INSERT INTO t4 VALUES (10)",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT X'61' + 0, 0x61 + 0, X'31' = 1, 0x31 = 49, X'616263' AND 1, \
             0x616263 AND 1, IF(X'616263', 1, 2), CONCAT(X'61', 0x62) FROM t4"
        )?,
        vec![vec!["0", "97", "1", "1", "0", "1", "2", "ab"]]
    );
    assert_eq!(affected_rows(&mut s, "DELETE FROM t4 WHERE X'616263'")?, 0);
    assert_eq!(affected_rows(&mut s, "DELETE FROM t4 WHERE X'30'")?, 0);
    assert_eq!(affected_rows(&mut s, "DELETE FROM t4 WHERE 0x616263")?, 1);
    // The column is named by the literal as written.
    let cols = columns(&mut s, "SELECT X'61', 0x62")?;
    assert_eq!(cols[0].name, "X'61'");
    assert_eq!(cols[1].name, "0x62");
    Ok(())
}

#[test]
fn a_datetime_text_that_is_no_datetime_as_a_time() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    for (expr, want) in [
        ("TIME('2024-02-29 24:00:00')", "NULL"),
        ("MINUTE('2024-02-29 24:00:00')", "NULL"),
        ("HOUR('2024-02-29 23:61:00')", "NULL"),
        ("TIME('2024-13-01 10:00:05')", "NULL"),
        ("SECOND('2024-02-30 10:00:05')", "5"),
        ("TIME('2024-02-29 10:00:05')", "10:00:05"),
        ("TIME('24-02-29 10:00:05')", "10:00:05"),
    ] {
        assert_eq!(one(&mut s, &format!("SELECT {expr}"))?, want, "{expr}");
    }
    Ok(())
}

#[test]
fn unsigned_decimal_columns_are_announced_unsigned() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE du (c DECIMAL(11,5) UNSIGNED, f DOUBLE, n INT)"])?;
    let mut s = t.session(5)?;
    let cols = columns(&mut s, "SELECT c, c + 0, f, n FROM du")?;
    let flags: Vec<bool> = cols.iter().map(|c| c.unsigned_number).collect();
    assert_eq!(flags, vec![true, false, false, false]);
    Ok(())
}

#[test]
fn rounding_to_more_places_shows_them() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE nv (a DATETIME(1))",
        "INSERT INTO nv VALUES ('2021-02-03 04:05:06.7')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT ROUND(1.5, 3), TRUNCATE(CAST(1 AS DECIMAL(5,0)), 1), ROUND(12.345, 1), \
             ROUND(CAST(99.99 AS DECIMAL(4,2)), 0), ROUND(1.5, -1) FROM nv"
        )?,
        vec![vec!["1.500", "1.0", "12.3", "100", "0"]]
    );
    // A DATE branch of a DATETIME result shows as a datetime.
    assert_eq!(
        rows(
            &mut s,
            "SELECT NVL(DATE(0), a), COALESCE(DATE('2020-01-01'), a), IFNULL(NULL, a) FROM nv"
        )?,
        vec![vec![
            "0000-00-00 00:00:00.0",
            "2020-01-01 00:00:00.0",
            "2021-02-03 04:05:06.7"
        ]]
    );
    // An empty subject stays empty.
    assert_eq!(
        rows(
            &mut s,
            "SELECT REGEXP_REPLACE('', '^$', 1), REGEXP_REPLACE('', 'a*', 'x'), \
             REGEXP_REPLACE('a', '^$', 1) FROM nv"
        )?,
        vec![vec!["", "", "a"]]
    );
    Ok(())
}

#[test]
fn hex_and_bit_literals_store_their_number_in_numeric_columns() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE hb (t TINYINT, i INT, d DECIMAL(5,1), f DOUBLE, bt BIT(8), c VARCHAR(5))",
        "INSERT INTO hb VALUES (b'1', 0x31, 0x31, 0x31, 0x31, 0x31), \
         (0x01, b'110001', b'11', X'31', b'1', b'1100001')",
        "UPDATE hb SET i = 0x32 WHERE t = 1 AND c = '1'",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT t, i, d, f, bt + 0, c FROM hb ORDER BY c")?,
        vec![
            vec!["1", "50", "49.0", "49", "49", "1"],
            vec!["1", "49", "3.0", "1", "1", "a"],
        ]
    );
    Ok(())
}

/// Collations MariaDB refuses to mix (1267, 1270), and NULLIF comparing a
/// hex literal beside a number as its number while returning it as it is.
#[test]
fn illegal_collation_mixes_are_refused_and_nullif_compares_hex_as_a_number() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE c1 (a VARCHAR(5) COLLATE latin1_general_ci, \
         b VARCHAR(5) COLLATE latin1_bin, c VARCHAR(5) COLLATE latin1_swedish_ci, \
         u VARCHAR(5) COLLATE utf8mb4_bin)",
        "INSERT INTO c1 VALUES ('a', 'a', 'a', 'a')",
    ])?;
    let mut s = t.session(5)?;
    let refused = support::error;
    // Checked against MariaDB 10.11, message for message.
    assert_eq!(
        refused(&mut s, "SELECT a = c FROM c1")?,
        (
            1267,
            "Illegal mix of collations (latin1_general_ci,IMPLICIT) and \
             (latin1_swedish_ci,IMPLICIT) for operation '='"
                .to_owned()
        )
    );
    assert_eq!(
        refused(
            &mut s,
            "SELECT CONCAT('x' COLLATE utf8mb4_bin, 'x' COLLATE utf8mb4_general_ci)"
        )?,
        (
            1267,
            "Illegal mix of collations (utf8mb4_bin,EXPLICIT) and \
             (utf8mb4_general_ci,EXPLICIT) for operation 'concat'"
                .to_owned()
        )
    );
    assert_eq!(
        refused(
            &mut s,
            "SELECT 'x' COLLATE utf8mb4_bin IN ('x' COLLATE utf8mb4_general_ci, 'y')"
        )?,
        (
            1270,
            "Illegal mix of collations (utf8mb4_bin,EXPLICIT), \
             (utf8mb4_general_ci,EXPLICIT), (utf8mb4_general_ci,COERCIBLE) for operation 'in'"
                .to_owned()
        )
    );
    for sql in [
        "SELECT 'x' COLLATE utf8mb4_bin LIKE 'x' COLLATE utf8mb4_general_ci",
        "SELECT IF(1, 'x' COLLATE utf8mb4_bin, 'x' COLLATE utf8mb4_general_ci)",
        "SELECT CASE 'x' COLLATE utf8mb4_bin WHEN 'x' COLLATE utf8mb4_general_ci THEN 1 END",
        "SELECT NULLIF(a, c) FROM c1",
    ] {
        assert_eq!(refused(&mut s, sql)?.0, 1267, "{sql}");
    }
    // What MariaDB accepts: a _bin collation wins a tie between columns,
    // columns of one character set concatenate, other character sets
    // convert, COLLATE overrides the columns'.
    assert_eq!(
        rows(
            &mut s,
            "SELECT a = b, CONCAT(a, c), a = u, a COLLATE latin1_bin = c, \
             'x' COLLATE utf8mb4_bin = _latin1'x' COLLATE latin1_bin FROM c1"
        )?,
        vec![vec!["1", "aa", "1", "1", "1"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT NULLIF(0x41, 65), NULLIF(0x41, 66), NULLIF(66, 0x41), \
             NULLIF(0x41, 'A'), NULLIF(0x41, 65.0), NULLIF(0x41, 1e0)"
        )?,
        vec![vec!["NULL", "A", "66", "NULL", "NULL", "A"]]
    );
    Ok(())
}
