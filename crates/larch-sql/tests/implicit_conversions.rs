//! Implicit conversions as MariaDB 10.11 makes them, each case checked side
//! by side with it: a warning raised while a strict INSERT, REPLACE or
//! UPDATE evaluates its values is the statement's error; a string compared
//! with an integer is read as a DECIMAL (exactly), with a DECIMAL or DOUBLE
//! as a DOUBLE, once per BETWEEN or IN; LEAST and GREATEST with a temporal
//! argument compare and return that type; TIME conversions warn as MariaDB
//! words it; a TIME moved by months is NULL; UNIX_TIMESTAMP and
//! FROM_UNIXTIME keep their argument's fractional digits.

mod support;

use support::{error, one, rows, TestDb, R};

fn warnings(s: &mut larch_sql::session::Session) -> R<Vec<String>> {
    Ok(rows(s, "SHOW WARNINGS")?
        .into_iter()
        .map(|r| format!("{} {}", r[1], r[2]))
        .collect())
}

#[test]
fn strict_data_changes_fail_on_conversion_warnings() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE src (a DECIMAL(5,1), b VARCHAR(10), c INT)",
        "INSERT INTO src VALUES (1, 'x', 1), (2, '2', 2)",
        "CREATE TABLE dst (a DECIMAL(5,1), c INT)",
    ])?;
    let mut s = t.session(5)?;
    let failing = [
        (
            "INSERT INTO dst (a) VALUES (CAST('a' AS DECIMAL(3,1)))",
            1292,
            "Truncated incorrect DECIMAL value: 'a'",
        ),
        (
            "INSERT INTO dst (c) VALUES (CAST('a' AS SIGNED))",
            1292,
            "Truncated incorrect INTEGER value: 'a'",
        ),
        (
            "INSERT INTO dst (c) SELECT c FROM src WHERE b = 0",
            1292,
            "Truncated incorrect DECIMAL value: 'x'",
        ),
        (
            "UPDATE src SET c = 5 WHERE b = 0",
            1292,
            "Truncated incorrect DECIMAL value: 'x'",
        ),
        (
            "INSERT INTO dst (c) VALUES (1 + '1x')",
            1292,
            "Truncated incorrect DOUBLE value: '1x'",
        ),
        (
            "REPLACE INTO dst (c) VALUES ('1' + 'q')",
            1292,
            "Truncated incorrect DOUBLE value: 'q'",
        ),
        (
            "INSERT INTO dst (c) VALUES (CAST('2020-13-01' AS DATE) IS NULL)",
            1292,
            "Incorrect datetime value: '2020-13-01'",
        ),
        (
            "INSERT INTO dst (c) VALUES (CAST(1e100 AS DECIMAL(3,1)))",
            1916,
            "Got overflow when converting '' to DECIMAL. Value truncated",
        ),
    ];
    for (sql, code, message) in failing {
        let (c, m) = error(&mut s, sql)?;
        assert_eq!((c, m.as_str()), (code, message), "{sql}");
    }
    // Nothing was written or changed by the failed statements.
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM dst")?, "0");
    assert_eq!(
        rows(&mut s, "SELECT c FROM src ORDER BY a")?,
        [["1"], ["2"]]
    );
    // IGNORE, DELETE and SELECT only warn.
    s.execute("INSERT IGNORE INTO dst (a) VALUES (CAST('a' AS DECIMAL(3,1)))")?;
    assert_eq!(
        warnings(&mut s)?,
        ["1292 Truncated incorrect DECIMAL value: 'a'"]
    );
    s.execute("DELETE FROM src WHERE b = 0")?;
    assert_eq!(
        warnings(&mut s)?,
        ["1292 Truncated incorrect DECIMAL value: 'x'"]
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM src")?, "1");
    // Outside strict mode the INSERT stores the converted value.
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO dst (c) VALUES (1 + '1x')")?;
    assert_eq!(one(&mut s, "SELECT c FROM dst WHERE c IS NOT NULL")?, "2");
    Ok(())
}

#[test]
fn a_cut_group_concat_fails_a_strict_insert() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE words (w VARCHAR(10))",
        "INSERT INTO words VALUES ('abcdef'), ('ghijk')",
        "CREATE TABLE joined (s TEXT)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION group_concat_max_len = 4")?;
    let (c, m) = error(
        &mut s,
        "INSERT INTO joined SELECT GROUP_CONCAT(w) FROM words",
    )?;
    assert_eq!((c, m.as_str()), (1260, "Row 1 was cut by GROUP_CONCAT()"));
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM joined")?, "0");
    assert_eq!(one(&mut s, "SELECT GROUP_CONCAT(w) FROM words")?, "abcd");
    Ok(())
}

#[test]
fn strings_compare_with_integers_as_decimals() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let cases = [
        // Exact as DECIMAL; a DOUBLE would make these equal.
        ("'9007199254740993' = 9007199254740992", "0"),
        // Against a DECIMAL or DOUBLE, strings are DOUBLEs.
        ("'9007199254740993' = 9007199254740992.0", "1"),
        ("'1e1' = 10", "1"),
        ("' 12abc' = 12", "1"),
        ("'1e400' > 5", "1"),
        ("'.5' = 0.5", "1"),
        ("'1.00000000000000000000000000000000000000001' > 1", "0"),
    ];
    for (expr, want) in cases {
        assert_eq!(one(&mut s, &format!("SELECT {expr}"))?, want, "{expr}");
    }
    one(&mut s, "SELECT ' 12abc' = 12, '1e400' > 5")?;
    assert_eq!(
        warnings(&mut s)?,
        [
            "1292 Truncated incorrect DECIMAL value: ' 12abc'",
            "1916 Got overflow when converting '' to DECIMAL. Value truncated",
            "1292 Truncated incorrect DECIMAL value: '1e400'",
        ]
    );
    // BETWEEN and IN read the string once.
    one(
        &mut s,
        "SELECT 'x' IN (1, 2), 'y' BETWEEN 1 AND 2, 'w' BETWEEN 1.5 AND 2",
    )?;
    assert_eq!(
        warnings(&mut s)?,
        [
            "1292 Truncated incorrect DECIMAL value: 'x'",
            "1292 Truncated incorrect DECIMAL value: 'y'",
            "1292 Truncated incorrect DOUBLE value: 'w'",
        ]
    );
    Ok(())
}

#[test]
fn least_and_greatest_compare_temporals_as_temporals() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT LEAST(1, DATE'2020-01-01'), GREATEST(20200101, DATE'2020-01-01'), \
             LEAST('2020-01-01', DATE'2019-01-01'), GREATEST(1, TIME'10:00:00'), \
             LEAST(DATE'2020-01-01', TIMESTAMP'2020-01-01 10:00:00.5'), \
             GREATEST('abc', DATE'2020-01-01'), LEAST(TIME'10:00:00', '09:00')"
        )?,
        [[
            "0000-00-00",
            "2020-01-01",
            "2019-01-01",
            "10:00:00",
            "2020-01-01 00:00:00.0",
            "2020-01-01",
            "09:00:00"
        ]]
    );
    assert_eq!(
        warnings(&mut s)?,
        [
            "1292 Truncated incorrect datetime value: '1'",
            "1292 Truncated incorrect datetime value: 'abc'",
        ]
    );
    Ok(())
}

#[test]
fn time_conversions_warn_as_mariadb_does() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME'10:00:00' = 'abc', TIME'10:00:00' = '10:00:00x', TIME('abc'), \
             TIME('1x'), CAST('' AS TIME), TIME('900:00:00')"
        )?,
        [["0", "1", "NULL", "00:00:01", "NULL", "838:59:59"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        [
            "1292 Truncated incorrect time value: 'abc'",
            "1292 Truncated incorrect time value: '10:00:00x'",
            "1292 Incorrect time value: 'abc'",
            "1292 Truncated incorrect time value: '1x'",
            "1292 Incorrect time value: ''",
            "1292 Truncated incorrect time value: '900:00:00'",
        ]
    );
    // A TIME moves by days and smaller units, within its range.
    assert_eq!(
        rows(
            &mut s,
            "SELECT DATE_ADD(TIME'10:00:00', INTERVAL 1 QUARTER), \
             DATE_SUB(TIME'10:00:00', INTERVAL 0 MONTH), \
             DATE_ADD(TIME'838:00:00', INTERVAL 1 DAY), DATE_ADD(TIME'10:00:00', INTERVAL 1 DAY)"
        )?,
        [["NULL", "NULL", "NULL", "34:00:00"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        ["1441 Datetime function: time field overflow"; 3]
    );
    Ok(())
}

#[test]
fn unix_time_functions_keep_their_arguments_digits() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    s.execute("SET time_zone = '+00:00'")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(1)), \
             UNIX_TIMESTAMP(TIMESTAMP'2020-01-01 00:00:00'), UNIX_TIMESTAMP('2020-01-01'), \
             UNIX_TIMESTAMP('2020-01-01 00:00:00.5'), \
             UNIX_TIMESTAMP(TIMESTAMP'2020-01-01 00:00:00.25'), UNIX_TIMESTAMP(20200101), \
             FROM_UNIXTIME(1.5), FROM_UNIXTIME(1.5e0), ADDDATE('2020-01-01 10:00:00.5', 1)"
        )?,
        [[
            "1",
            "1577836800",
            "1577836800",
            "1577836800.5",
            "1577836800.25",
            "1577836800",
            "1970-01-01 00:00:01.5",
            "1970-01-01 00:00:01.500000",
            "2020-01-02 10:00:00.5"
        ]]
    );
    Ok(())
}

#[test]
fn constant_conditions_are_evaluated_once_before_rows_are_read() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a BIGINT NOT NULL, c INT NOT NULL)",
        "INSERT INTO t VALUES (9, 1), (10, 2), (11, 3)",
    ])?;
    let mut s = t.session(5)?;
    // A constant WHERE warns once and, evaluated before the strict UPDATE
    // starts, stays a warning.
    s.execute("UPDATE t SET c = 0 WHERE 1 <> 'a'")?;
    assert_eq!(
        warnings(&mut s)?,
        ["1292 Truncated incorrect DECIMAL value: 'a'"]
    );
    assert_eq!(one(&mut s, "SELECT SUM(c) FROM t")?, "0");
    s.execute("DELETE FROM t WHERE 1 <> 'zz' AND a = 1")?;
    assert_eq!(
        warnings(&mut s)?,
        ["1292 Truncated incorrect DECIMAL value: 'zz'"]
    );
    // Its error fails the statement even when no row matches.
    let (c, m) = error(
        &mut s,
        "UPDATE t SET a = a + 1 WHERE 1 + 18446744073709551615 > 0 AND a > 1000",
    )?;
    assert_eq!(
        (c, m.as_str()),
        (
            1690,
            "BIGINT UNSIGNED value is out of range in '1 + 18446744073709551615'"
        )
    );
    // A condition on a column is still evaluated per row, strictly.
    let (c, _) = error(&mut s, "UPDATE t SET c = 5 WHERE a = 'x'")?;
    assert_eq!(c, 1292);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t WHERE c = 5")?, "0");
    Ok(())
}

#[test]
fn rows_found_in_a_first_pass_only_warn() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, a VARBINARY(1), \
         PRIMARY KEY (id), KEY k0 (a))",
        "INSERT INTO t VALUES (8, X''), (9, 'x')",
    ])?;
    let mut s = t.session(5)?;
    let both = [
        "1292 Truncated incorrect DECIMAL value: ''",
        "1292 Truncated incorrect DECIMAL value: 'x'",
    ];
    // Changing the primary key or ordering: MariaDB finds the rows before
    // its strict checks start.
    s.execute("UPDATE t SET id = 0 WHERE a < 0")?;
    assert_eq!(warnings(&mut s)?, both);
    s.execute("UPDATE t SET a = 'y' WHERE a < 0 ORDER BY id")?;
    assert_eq!(warnings(&mut s)?, both);
    let (c, _) = error(&mut s, "UPDATE t SET a = 'z' WHERE a < 0")?;
    assert_eq!(c, 1292);
    assert_eq!(
        rows(&mut s, "SELECT id, HEX(a) FROM t")?,
        [["8", ""], ["9", "78"]]
    );
    Ok(())
}

#[test]
fn a_string_that_is_no_datetime_compares_as_the_zero_datetime() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE dd (d DATE, dt DATETIME(3), ts TIMESTAMP NULL)",
        "INSERT INTO dd VALUES ('2020-01-01', '1998-10-07 22:17:01.878', '2001-01-01 00:00:00')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT 'a' <> d, 'a' <> dt, 'a' <> ts, dt > '', d IN ('a', '2020-01-01'), \
             d BETWEEN 'a' AND 'z' FROM dd"
        )?,
        [["1", "1", "1", "1", "1", "0"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        [
            "1292 Truncated incorrect datetime value: 'a'",
            "1292 Truncated incorrect datetime value: 'a'",
            "1292 Truncated incorrect datetime value: 'a'",
            "1292 Truncated incorrect datetime value: ''",
            "1292 Truncated incorrect datetime value: 'a'",
            "1292 Truncated incorrect datetime value: 'a'",
            "1292 Truncated incorrect datetime value: 'z'",
        ]
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM dd WHERE 'a' <> dt")?, "1");
    Ok(())
}
