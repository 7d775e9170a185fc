//! Expression values that once came out wrong without an error, each
//! checked against MariaDB 10.11's answer: a time text whose number has an
//! exponent ('1e2') is no time, the fraction of a number that is a date
//! only is dropped, UNIX_TIMESTAMP of the epoch itself, TIME and DATETIME
//! read as text with their type's fractional digits, and TIME plus weeks.

mod support;

use support::{one, rows, TestDb, R};

/// Each `(expression, MariaDB 10.11's value)` as `SELECT expression`.
fn check(s: &mut larch_sql::session::Session, cases: &[(&str, &str)]) -> R<()> {
    for (expr, want) in cases {
        assert_eq!(one(s, &format!("SELECT {expr}"))?, *want, "{expr}");
    }
    Ok(())
}

#[test]
fn time_text_with_an_exponent_is_no_time() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (a VARCHAR(20), g INT PRIMARY KEY)",
        "INSERT INTO t1 VALUES ('1e2', 2)",
    ])?;
    let mut s = t.session(5)?;
    check(
        &mut s,
        &[
            ("TIME('1e2')", "NULL"),
            ("TIME('1E2')", "NULL"),
            ("TIME('1e+2')", "NULL"),
            ("TIME('1e-2')", "NULL"),
            ("TIME('1.e2')", "NULL"),
            ("TIME('1 e2')", "NULL"),
            ("TIME('12:30:01e5')", "NULL"),
            ("TIME('1e2:00')", "NULL"),
            ("MINUTE('1e2')", "NULL"),
            ("SECOND('1e2')", "NULL"),
            // No exponent: a truncated time.
            ("TIME('1e')", "00:00:01"),
            ("TIME('1e+')", "00:00:01"),
            ("TIME('1xe2')", "00:00:01"),
            ("TIME('1 ee2')", "00:00:01"),
            ("TIME('1.5 e2')", "00:00:01.5"),
            ("TIME('12:30 e5')", "12:30:00"),
        ],
    )?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT a AS c0 FROM t1 GROUP BY 1 HAVING MINUTE(c0) <= 1"
        )?
        .len(),
        0
    );
    Ok(())
}

#[test]
fn date_only_number_drops_its_fraction() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE d (a DATETIME(4))"])?;
    let mut s = t.session(5)?;
    s.execute("SET time_zone = '+00:00'")?;
    check(
        &mut s,
        &[
            ("UNIX_TIMESTAMP(506.9860)", "957571200.0000"),
            ("UNIX_TIMESTAMP(20000506.5)", "957571200.0"),
            ("UNIX_TIMESTAMP(20000506000000.5)", "957571200.5"),
            ("CAST(506.986 AS DATETIME(4))", "2000-05-06 00:00:00.0000"),
        ],
    )?;
    s.execute("INSERT INTO d VALUES (506.986)")?;
    assert_eq!(one(&mut s, "SELECT a FROM d")?, "2000-05-06 00:00:00.0000");
    Ok(())
}

#[test]
fn unix_timestamp_of_the_epoch_is_zero() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    s.execute("SET time_zone = '+00:00'")?;
    check(
        &mut s,
        &[
            ("UNIX_TIMESTAMP(FROM_UNIXTIME(0))", "0"),
            ("UNIX_TIMESTAMP('1970-01-01 00:00:00')", "0"),
            ("UNIX_TIMESTAMP('1970-01-01 00:00:00.5')", "0.5"),
            ("UNIX_TIMESTAMP('1969-12-31 23:59:59')", "NULL"),
        ],
    )
}

#[test]
fn temporal_text_has_its_types_fraction_digits() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t5 (a DATETIME(3), t TIME(2), b DATETIME(5))",
        "INSERT INTO t5 VALUES ('1977-10-06 08:52:50.871', '01:02:03.5', \
         '2037-10-04 11:20:19.70000')",
    ])?;
    let mut s = t.session(5)?;
    let cases = [
        ("CONCAT(a)", "1977-10-06 08:52:50.871"),
        (
            "CONCAT_WS('|', t, a)",
            "01:02:03.50|1977-10-06 08:52:50.871",
        ),
        ("CAST(a AS CHAR)", "1977-10-06 08:52:50.871"),
        ("CAST(t AS CHAR)", "01:02:03.50"),
        ("COALESCE(a, 'x')", "1977-10-06 08:52:50.871"),
        ("COALESCE(t, 'x')", "01:02:03.50"),
        ("IF(1, CAST(1 AS TIME(6)), 'x')", "00:00:01.000000"),
        (
            "CASE WHEN 1 THEN CAST(1 AS TIME(6)) WHEN 1 THEN NULL ELSE 1 END",
            "00:00:01.000000",
        ),
        (
            "CASE 'a' WHEN NULL THEN NULL ELSE a END",
            "1977-10-06 08:52:50.871",
        ),
        ("NVL(t, CAST('01:00:00' AS TIME(1)))", "01:02:03.50"),
        (
            "NVL(CAST(NULL AS DATETIME(2)), CAST(0 AS DATETIME(0)))",
            "0000-00-00 00:00:00.00",
        ),
        ("GROUP_CONCAT(a)", "1977-10-06 08:52:50.871"),
        ("GROUP_CONCAT(t ORDER BY a SEPARATOR '|')", "01:02:03.50"),
        (
            "LEAST(GROUP_CONCAT(b ORDER BY b, BINARY b SEPARATOR '|'), 'a')",
            "2037-10-04 11:20:19.70000",
        ),
    ];
    for (expr, want) in cases {
        let got = one(&mut s, &format!("SELECT {expr} FROM t5"))?;
        assert_eq!(got, want, "{expr}");
    }
    Ok(())
}

#[test]
fn time_plus_weeks_overflows_and_integer_dates_stay_dates() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    check(
        &mut s,
        &[
            ("CAST('01:00:00' AS TIME) + INTERVAL 1 WEEK", "NULL"),
            ("DATE_ADD(CAST(1 AS TIME(0)), INTERVAL 0 WEEK)", "NULL"),
            ("CAST('01:00:00' AS TIME) + INTERVAL 1 DAY", "25:00:00"),
            ("DATE_ADD(902, INTERVAL 1 MONTH)", "2000-10-02"),
            ("DATE_ADD(902, INTERVAL 1 HOUR)", "2000-09-02 01:00:00"),
        ],
    )
}

#[test]
fn integer_as_long_as_a_date_is_a_time_of_that_date() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (id INT PRIMARY KEY, c DATE)",
        "INSERT INTO t1 VALUES (102, '2024-02-29')",
    ])?;
    let mut s = t.session(5)?;
    check(
        &mut s,
        &[
            ("TIME(20240229)", "00:00:00"),
            ("TIME(10000101)", "00:00:00"),
            ("TIME(20240229101112)", "10:11:12"),
            ("TIME(99999999)", "NULL"),
            ("TIME('20240229')", "838:59:59"),
            ("TIME(8395959)", "838:59:59"),
        ],
    )?;
    assert_eq!(
        one(
            &mut s,
            "SELECT TIME(CAST(c AS UNSIGNED)) AS c0 FROM t1 ORDER BY 1 DESC LIMIT 1"
        )?,
        "00:00:00"
    );
    Ok(())
}

#[test]
fn enum_and_set_are_numbers_in_numeric_context() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE tb (id INT PRIMARY KEY, s SET('a','b','c'), n ENUM('x','y'))",
        "INSERT INTO tb VALUES (1, 'a,b,c', 'y')",
    ])?;
    let mut s = t.session(5)?;
    let cases = [
        ("CAST(s AS DECIMAL(5,0))", "7"),
        ("CAST(s AS SIGNED)", "7"),
        ("CAST(n AS DECIMAL(5,1))", "2.0"),
        ("s + 0", "7"),
        ("n + 0", "2"),
    ];
    for (expr, want) in cases {
        assert_eq!(
            one(&mut s, &format!("SELECT {expr} FROM tb"))?,
            want,
            "{expr}"
        );
    }
    Ok(())
}

#[test]
fn bit_value_as_a_date_is_its_bytes() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t2 (id INT PRIMARY KEY, d BIT(1), e BIT(64))",
        "INSERT INTO t2 VALUES (3, 0, \
         b'0011001000110000001100100011000000110000001100010011000000110001')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(one(&mut s, "SELECT CAST(d AS DATE) FROM t2")?, "NULL");
    assert_eq!(one(&mut s, "SELECT CAST(e AS DATE) FROM t2")?, "2020-01-01");
    Ok(())
}

#[test]
fn number_with_collate_compares_as_text() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    check(
        &mut s,
        &[
            ("0 COLLATE utf8mb4_general_ci < 'a'", "1"),
            (
                "CASE WHEN (0 COLLATE utf8mb4_general_ci < 'a') THEN ABS('a') \
                 WHEN NULL THEN 0 ELSE NULL END",
                "0",
            ),
        ],
    )
}

#[test]
fn bit_through_hybrid_functions_and_min_max_is_a_number() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE tbit (id INT PRIMARY KEY, c BIT(5))",
        "INSERT INTO tbit VALUES (1, 25)",
    ])?;
    let mut s = t.session(5)?;
    let cases = [
        "COALESCE(c)",
        "IFNULL(c, NULL)",
        "IF(1, c, c)",
        "CASE WHEN 1 THEN c END",
        "NULLIF(c, NULL)",
        "NULLIF(c, 1)",
        "GREATEST(c, c)",
        "MAX(c)",
        "MIN(NULLIF(c, NULL))",
    ];
    for expr in cases {
        assert_eq!(
            one(&mut s, &format!("SELECT {expr} FROM tbit"))?,
            "25",
            "{expr}"
        );
    }
    Ok(())
}

#[test]
fn comparisons_and_min_max_read_no_date_as_the_zero_date() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t2 (c INT UNSIGNED PRIMARY KEY)",
        "INSERT INTO t2 VALUES (4294967295)",
    ])?;
    let mut s = t.session(5)?;
    let cases = [
        ("MAX(DATE(1))", "0000-00-00"),
        ("MIN(CAST(1 AS DATE))", "0000-00-00"),
        ("MAX(CAST(1 AS DATETIME))", "0000-00-00 00:00:00"),
        ("MAX(DATE('2020-13-01'))", "0000-00-00"),
        ("MAX(DATE(NULL))", "NULL"),
        ("MAX(DATE(c))", "0000-00-00"),
        ("DATE(1) IS NULL", "1"),
        ("COALESCE(DATE(1))", "NULL"),
        ("DATE(1) = DATE(1)", "1"),
        ("DATE(1) >= 1", "1"),
        ("DATE('2020-13-01') = 0", "1"),
        ("DATE'2020-01-01' = 20200101", "1"),
        ("DATE'2020-01-01' > 5", "1"),
        ("DATE'2020-01-01' < 5", "0"),
        ("DATE'2020-01-01' = 20200101.5", "1"),
        ("DATE(1) < 1", "0"),
        ("DATE'2020-01-01' < 1e20", "0"),
        ("TIMESTAMP'2020-01-01 10:00:00' = 20200101100000", "1"),
    ];
    for (expr, want) in cases {
        assert_eq!(
            one(&mut s, &format!("SELECT {expr} FROM t2"))?,
            want,
            "{expr}"
        );
    }
    Ok(())
}
