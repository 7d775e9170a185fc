//! Wrong answers found by the differential soak against MariaDB 10.11:
//! hexadecimal literals where a number is read, NULL on the left of `&`,
//! `|` and DIV, the negation of constants beyond BIGINT, ENUM and SET
//! columns with a collation of their own, and index lookups for
//! comparisons in another collation than the index's. Every expected
//! answer is MariaDB 10.11's for the same statements.

mod support;

use support::{error, one, rows, show_create, TestDb, R};

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn hex_literals_are_numbers_where_a_number_is_read() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let cases: &[(&str, &str)] = &[
        ("CHAR(0x41)", "A"),
        ("LPAD('a', 0x3, 'b')", "bba"),
        ("SUBSTR('abcdef', 0x2)", "bcdef"),
        ("REPEAT('a', 0x3)", "aaa"),
        ("LEFT('abcdef', 0x2)", "ab"),
        ("LEFT(0x4142, 0x1)", "A"),
        ("ELT(0x1, 'x', 'y')", "x"),
        ("CONCAT('[', SPACE(0x2), ']')", "[  ]"),
        ("INSERT('abcdef', 0x2, 0x1, 'X')", "aXcdef"),
        ("LOCATE('a', 'aaa', 0x2)", "2"),
        ("SUBSTRING_INDEX('a.b.c', '.', 0x2)", "a.b"),
        ("MAKE_SET(0x3, 'a', 'b')", "a,b"),
        ("EXPORT_SET(0x5, 'Y', 'N', ',', 0x4)", "Y,N,Y,N"),
        ("FORMAT(0x41, 2)", "65.00"),
        ("BIT_COUNT(0x41)", "2"),
        ("INET_NTOA(0x41)", "0.0.0.65"),
        ("FROM_DAYS(0x0B0000)", "1973-09-30"),
        ("SEC_TO_TIME(0x41)", "00:01:05"),
        ("MAKEDATE(0x7E0, 0x20)", "2016-02-01"),
        ("DATE_ADD('2024-01-01', INTERVAL 0x41 DAY)", "2024-03-06"),
        ("TIMESTAMPADD(DAY, 0x1, '2024-01-01')", "2024-01-02"),
        ("ROUND(1.2345, 0x2)", "1.23"),
        ("IF(0x41, 'y', 'n')", "y"),
        ("CASE WHEN 0x41 THEN 'y' ELSE 'n' END", "y"),
        ("CASE 0x41 WHEN 65 THEN 'y' ELSE 'n' END", "y"),
        ("0x41 IN (65, 66)", "1"),
        ("0x41 BETWEEN 60 AND 70", "1"),
        ("GREATEST(0x41, 1)", "65"),
        ("CONCAT(1, 1, GREATEST(1, 0x41))", "1165"),
        ("FIELD(0x41, 65, 'A')", "1"),
        ("COALESCE(0x41) + 0", "65"),
        // Where the text is read, or compared with text, it is a string.
        ("CONV(0x41, 10, 2)", "0"),
        ("HEX(0x41)", "41"),
        ("FIELD(0x41, 'A')", "1"),
        ("0x41 IN ('A')", "1"),
        ("CASE 0x41 WHEN 'A' THEN 'y' ELSE 'n' END", "y"),
        ("COALESCE(0x41, 1)", "A"),
        ("IF(1, 0x41, 2)", "A"),
    ];
    for (expr, want) in cases {
        assert_eq!(one(&mut s, &format!("SELECT {expr}"))?, *want, "{expr}");
    }
    Ok(())
}

#[test]
fn null_on_the_left_of_bit_and_or_and_div_is_not_evaluated_further() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT NULL & (9223372036854775807 + 1), NULL | (9223372036854775807 + 1), \
             NULL DIV (9223372036854775807 + 1)"
        )?,
        [strings(&["NULL", "NULL", "NULL"])]
    );
    // The others evaluate both sides, as MariaDB does.
    for op in ["+", "^", "*", "<<"] {
        let sql = format!("SELECT NULL {op} (9223372036854775807 + 1)");
        assert_eq!(error(&mut s, &sql)?.0, 1690, "{sql}");
    }
    Ok(())
}

#[test]
fn negating_a_constant_beyond_bigint_is_a_decimal() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT -(18446744073709551615), -(-9223372036854775808), -9223372036854775808"
        )?,
        [strings(&[
            "-18446744073709551615",
            "9223372036854775808",
            "-9223372036854775808"
        ])]
    );
    Ok(())
}

#[test]
fn enum_and_set_columns_have_a_collation() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE e1 (e ENUM('a','b','c'), \
         f ENUM('x','y') CHARACTER SET latin1 COLLATE latin1_bin, s SET('p','q'))",
        "CREATE TABLE l1 (a CHAR(10) CHARACTER SET latin1 COLLATE latin1_bin, KEY (a))",
        "INSERT INTO l1 VALUES ('B')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        show_create(&mut s, "e1")?,
        "CREATE TABLE `e1` (\n  `e` enum('a','b','c') DEFAULT NULL,\n  \
         `f` enum('x','y') CHARACTER SET latin1 COLLATE latin1_bin DEFAULT NULL,\n  \
         `s` set('p','q') DEFAULT NULL\n) \
         ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT column_name, character_set_name, collation_name \
             FROM information_schema.columns WHERE table_name = 'e1' ORDER BY ordinal_position"
        )?,
        [
            strings(&["e", "utf8mb4", "utf8mb4_general_ci"]),
            strings(&["f", "latin1", "latin1_bin"]),
            strings(&["s", "utf8mb4", "utf8mb4_general_ci"]),
        ]
    );
    // Members are matched in the column's collation.
    s.execute("INSERT INTO e1 VALUES ('B', 'x', 'P,q')")?;
    let (code, message) = error(&mut s, "INSERT INTO e1 (f) VALUES ('X')")?;
    assert_eq!(
        (code, message.as_str()),
        (1265, "Data truncated for column 'f' at row 1")
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT e, f, s, e = 'B', f = 'X', COLLATION(e), COLLATION(f), COLLATION(s) FROM e1"
        )?,
        [strings(&[
            "b",
            "x",
            "p,q",
            "1",
            "0",
            "utf8mb4_general_ci",
            "latin1_bin",
            "utf8mb4_general_ci"
        ])]
    );
    // An ENUM (utf8mb4_general_ci) against a latin1_bin column compares in
    // utf8mb4_general_ci, the larger character set, in either join order.
    for sql in [
        "SELECT COUNT(*) FROM e1 JOIN l1 ON e1.e = l1.a",
        "SELECT COUNT(*) FROM l1 JOIN e1 ON e1.e = l1.a",
        "SELECT COUNT(*) FROM e1, l1 WHERE CONCAT(e1.e) = l1.a",
    ] {
        assert_eq!(one(&mut s, sql)?, "1", "{sql}");
    }
    Ok(())
}

#[test]
fn an_index_serves_comparisons_in_its_own_collation_only() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE u1 (u VARCHAR(5))",
        "CREATE TABLE l2 (l VARCHAR(5) CHARACTER SET latin1 COLLATE latin1_bin, KEY (l))",
        "INSERT INTO u1 VALUES ('b')",
        "INSERT INTO l2 VALUES ('B'), ('c')",
    ])?;
    let mut s = t.session(5)?;
    for (sql, want) in [
        // utf8mb4_general_ci wins over latin1_bin: 'b' = 'B'.
        ("SELECT COUNT(*) FROM u1 JOIN l2 ON u1.u = l2.l", "1"),
        ("SELECT COUNT(*) FROM l2 JOIN u1 ON u1.u = l2.l", "1"),
        (
            "SELECT COUNT(*) FROM l2 WHERE l = _utf8mb4'b' COLLATE utf8mb4_general_ci",
            "1",
        ),
        (
            "SELECT COUNT(*) FROM l2 WHERE l = CONVERT('b' USING utf8mb4)",
            "1",
        ),
        // A literal compares in the column's collation.
        ("SELECT COUNT(*) FROM l2 WHERE l = 'b'", "0"),
        ("SELECT COUNT(*) FROM l2 WHERE l = 'B'", "1"),
    ] {
        assert_eq!(one(&mut s, sql)?, want, "{sql}");
    }
    Ok(())
}

#[test]
fn comparisons_read_a_time_that_is_none_as_midnight() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME('a'), TIME('a') <= 0, CAST('a' AS TIME) = 0, TIME('a') IN (0), \
             TIME('a') BETWEEN -1 AND 1, TIME(NULL) <= 0, DATE('a') IN ('0000-00-00'), \
             MIN(CAST('a' AS TIME))"
        )?,
        [strings(&[
            "NULL", "1", "1", "1", "1", "NULL", "1", "00:00:00"
        ])]
    );
    // A negative number is no datetime, however small.
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST(-0.0078 AS DATETIME), CAST(-0.5 AS DATE), CAST(-0.0 AS DATETIME), \
             CAST(0.5 AS DATETIME)"
        )?,
        [strings(&[
            "NULL",
            "NULL",
            "0000-00-00 00:00:00",
            "0000-00-00 00:00:00"
        ])]
    );
    Ok(())
}
