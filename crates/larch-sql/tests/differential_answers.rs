//! Wrong answers the differential tester (tests/differential) found, each
//! checked against what MariaDB 10.11 gives for the same statements: a
//! binary string beside text of a stronger coercibility, BETWEEN over mixed
//! strings and numbers, DECIMAL quotients as they are stored, compared and
//! shown, GROUP BY keys of equal numbers, BIT values in string context, an
//! AUTO_INCREMENT value past its column's type, and the rows a multi-row
//! INSERT wrote before one of its values failed.

mod support;

use support::{code, one, rows, warning_codes, warnings, TestDb, R};

/// A hex or `_binary` literal is coercible (4): against a column (2) the
/// comparison is in the column's collation; a VARBINARY column (2) against
/// a literal compares bytes.
#[test]
fn binary_strings_yield_to_stronger_text() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10), b VARBINARY(10), KEY (c))",
        "INSERT INTO t VALUES (1, '', ''), (2, 'A', 'A'), (3, 'a ', 'a'), (4, 'b', 'B')",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, X'61' = c, _binary'a' = c, X'05' > c, b = 'a', c LIKE X'61', \
             INSTR(c, X'41'), STRCMP(c, X'41'), IF(id > 1, c, X'41') = 'a' FROM t ORDER BY id"
        )?,
        vec![
            vec!["1", "0", "0", "0", "0", "0", "0", "-1", "1"],
            vec!["2", "1", "1", "0", "0", "1", "1", "0", "1"],
            vec!["3", "1", "1", "0", "1", "0", "1", "0", "1"],
            vec!["4", "0", "0", "0", "0", "0", "0", "1", "0"],
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE c IN (X'61', 'B') ORDER BY id"
        )?,
        vec![vec!["2"], vec!["3"], vec!["4"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLLATION(CONCAT(X'61', c)), COLLATION(CONCAT(b, c)), \
             COERCIBILITY(X'61'), COERCIBILITY(b), COERCIBILITY(CAST('a' AS BINARY)) \
             FROM t LIMIT 1"
        )?,
        vec![vec!["utf8mb4_general_ci", "binary", "4", "2", "2"]]
    );
    s.execute("DELETE FROM t WHERE b'101' > c")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "4");
    Ok(())
}

/// BETWEEN compares its three operands in one type: with a number among
/// them, strings are read as numbers ('a' is 0, '2024-02-30' is 2024).
#[test]
fn between_compares_in_one_type() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT 'a' BETWEEN '2024-02-30' AND 1, '5' BETWEEN '10' AND 20, \
             5 BETWEEN '1' AND '10', '3' BETWEEN 2 AND '10', 'b' BETWEEN 'a' AND 'c'"
        )?,
        vec![vec!["0", "0", "1", "1", "1"]]
    );
    assert_eq!(warning_codes(&mut s)?, vec!["1292", "1292"]);
    Ok(())
}

/// A DECIMAL quotient keeps MariaDB's internal digits (truncated at 9)
/// where it is stored, summed or averaged; it is rounded to its shown scale
/// where it is shown, compared with another DECIMAL or read as text.
#[test]
fn decimal_quotients_are_stored_whole_and_shown_rounded() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (d DOUBLE, x DECIMAL(12,8), v VARCHAR(20), a INT, b INT)",
        "INSERT INTO t VALUES (2/7, 2/7, 2/7, 2, 7)",
    ])?;
    let mut s = t.session(50)?;
    let stored = vec![vec!["0.285714285", "0.28571429", "0.285714285"]];
    assert_eq!(rows(&mut s, "SELECT d, x, v FROM t")?, stored);
    s.execute("UPDATE t SET d = 0, x = 0, v = ''")?;
    s.execute("UPDATE t SET d = a / b, x = a / b, v = a / b")?;
    assert_eq!(rows(&mut s, "SELECT d, x, v FROM t")?, stored);
    assert_eq!(
        rows(
            &mut s,
            "SELECT 2/7, 2/7*1000000000, CONCAT(a/b), a/b = 0.2857, 2/7 = 0.285714285, \
             SUM(a/b), AVG(a/b) FROM t"
        )?,
        vec![vec![
            "0.2857",
            "285714285.0000",
            "0.2857",
            "1",
            "0",
            "0.2857",
            "0.28571429"
        ]]
    );
    s.execute("SET @q = 2/7")?;
    assert_eq!(one(&mut s, "SELECT @q")?, "0.285714285");
    Ok(())
}

/// Equal values are one group whatever their runtime form: 0 and
/// 0.000000, 1.5 and 1.50, a TIMESTAMP and the DATETIME it shows.
#[test]
fn equal_values_group_together() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE g (a INT, f TIME(6), x DECIMAL(10,2))",
        "INSERT INTO g VALUES (1, '47:49:15.910260', 1.50), (2, '838:59:59', 1.5), \
         (3, '00:00:00', 0.05), (4, '00:00:00', -0.00)",
        "CREATE TABLE tt (a TIMESTAMP NULL, b DATETIME NULL, k INT)",
        "INSERT INTO tt VALUES ('2000-01-01', '2000-01-01', 1), ('2000-01-01', '2000-01-01', 2)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM (SELECT 0*f AS g1 FROM g GROUP BY 1) d"
        )?,
        "1"
    );
    assert_eq!(
        rows(&mut s, "SELECT x, COUNT(*) FROM g GROUP BY x ORDER BY x")?,
        vec![vec!["0.00", "1"], vec!["0.05", "1"], vec!["1.50", "2"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(DISTINCT 0*f), COUNT(DISTINCT x) FROM g"
        )?,
        vec![vec!["1", "3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT IF(k = 1, a, b) c0, COUNT(*) FROM tt GROUP BY 1"
        )?,
        vec![vec!["2000-01-01 00:00:00", "2"]]
    );
    Ok(())
}

/// A BIT read as a string is its big-endian bytes (HEX of the BIT itself
/// is the hex of its number).
#[test]
fn bit_values_read_as_strings_are_bytes() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (e BIT(64), b BIT(5), c BIT(8))",
        "INSERT INTO t VALUES (709, 0, 237)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT OCTET_LENGTH(e), HEX(CONCAT(e)), HEX(LOWER(b)), HEX(e), LENGTH(c), \
             CONCAT(c) = X'ED' FROM t"
        )?,
        vec![vec!["8", "00000000000002C5", "00", "2C5", "1", "1"]]
    );
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM t WHERE IF(0, 'a', e)")?,
        "0"
    );
    Ok(())
}

/// An AUTO_INCREMENT value past its column's type is MariaDB's 167 (a
/// warning under IGNORE, the row not written), never a clamped value.
#[test]
fn auto_increment_past_the_type_is_an_error() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id SMALLINT AUTO_INCREMENT PRIMARY KEY, c INT)",
        "CREATE TABLE t2 (id TINYINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, c INT) \
         AUTO_INCREMENT=254",
    ])?;
    let mut s = t.session(50)?;
    s.execute("INSERT IGNORE INTO t VALUES (40000, 1)")?;
    s.execute("DELETE FROM t")?;
    s.execute("INSERT IGNORE INTO t (c) VALUES (3)")?;
    assert_eq!(warning_codes(&mut s)?, vec!["167"]);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "0");
    assert_eq!(code(&mut s, "INSERT INTO t (c) VALUES (4)"), 167);
    assert_eq!(code(&mut s, "INSERT INTO t2 (c) VALUES (1), (2), (3)"), 167);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t2")?, "0");
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "254");
    Ok(())
}

/// The rows of a multi-row INSERT before a row whose value fails went in
/// first, as in MariaDB: their AUTO_INCREMENT values stay taken and
/// LAST_INSERT_ID() is the first of them, though the statement is undone.
#[test]
fn rows_before_a_failing_value_take_their_ids() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, c BIGINT)"])?;
    let mut s = t.session(50)?;
    assert_eq!(
        code(
            &mut s,
            "INSERT INTO t (c) VALUES (1), (9223372036854775807 + 1)"
        ),
        1690
    );
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "1");
    s.execute("INSERT INTO t (c) VALUES (2)")?;
    assert_eq!(rows(&mut s, "SELECT id FROM t")?, vec![vec!["3"]]);
    Ok(())
}

/// JSON functions where MariaDB's answer differs from MySQL's: an append to
/// a path the document lacks is NULL, JSON_SEARCH matches every scalar by
/// its text, JSON_VALUE refuses wildcards, and a JSON_MERGE_PATCH patch that
/// is no object replaces what came before it.
#[test]
fn json_functions_answer_as_mariadb() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            r#"SELECT JSON_ARRAY_APPEND('{"b":1}', '$.a', 2), JSON_ARRAY_APPEND('{"b":[1]}', '$.b', 2)"#
        )?,
        vec![vec!["NULL", r#"{"b": [1, 2]}"#]]
    );
    assert_eq!(
        rows(
            &mut s,
            r#"SELECT JSON_SEARCH(1, 'all', 1), JSON_SEARCH('[1.50, "1", true, null, 10]', 'all', '1%'),
                      JSON_SEARCH('[null]', 'all', 'null')"#
        )?,
        vec![vec![r#""$""#, r#"["$[0]", "$[1]", "$[4]"]"#, r#""$[0]""#]]
    );
    assert_eq!(
        rows(
            &mut s,
            r#"SELECT JSON_VALUE('[1, 2]', '$[*]'), JSON_QUERY('{"a": [1]}', '$.*')"#
        )?,
        vec![vec!["NULL", "[1]"]]
    );
    assert_eq!(warning_codes(&mut s)?, vec!["4044"]);
    assert_eq!(
        rows(
            &mut s,
            r#"SELECT JSON_MERGE_PATCH('1|1', 1), JSON_MERGE_PATCH(NULL, 1),
                      JSON_MERGE_PATCH(NULL, '{"a":1}'), JSON_MERGE_PATCH(NULL, '[1]', '{"a":1}'),
                      JSON_MERGE_PATCH('{"a":1,"b":2}', '{"a":null,"c":3}')"#
        )?,
        vec![vec!["1", "1", "NULL", r#"{"a": 1}"#, r#"{"b": 2, "c": 3}"#]]
    );
    Ok(())
}

/// A string naming a day its month lacks (2024-02-30) compares with a date
/// in its place, as MariaDB reads it; a day past 31 is no date (1292).
#[test]
fn dates_compare_with_days_their_month_lacks() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (d DATE)",
        "INSERT INTO t VALUES ('0000-00-00'), ('2024-02-29')",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT d = '2024-02-30', d < '2024-02-30', d = '2024-02-31 10:00:00' FROM t ORDER BY d"
        )?,
        vec![vec!["0", "1", "0"], vec!["0", "1", "0"]]
    );
    assert!(warning_codes(&mut s)?.is_empty());
    assert_eq!(one(&mut s, "SELECT DATE(-100) IN ('2024-02-30')")?, "0");
    Ok(())
}

/// Temporal odds and ends as MariaDB answers them: LAST_DAY of a date with
/// day 0, HEX of a temporal value's text, an INTERVAL amount given as text
/// (its integer prefix), strings that are no DATETIME, and a YEAR stored
/// from a zero with text after it.
#[test]
fn temporal_conversions_answer_as_mariadb() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE y (y YEAR)"])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT LAST_DAY(1000), LAST_DAY('2000-10-00'), LAST_DAY('2000-00-10'), \
             HEX(CAST('2020-01-01' AS DATE)), HEX(TIME'00:00:00')"
        )?,
        vec![vec![
            "2000-10-31",
            "2000-10-31",
            "NULL",
            "323032302D30312D3031",
            "30303A30303A3030"
        ]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT DATE_ADD(DATE'2000-01-01', INTERVAL '1e2' DAY), \
             DATE_ADD(DATE'2000-01-01', INTERVAL '1.9' DAY), \
             DATE_ADD(DATE'2000-01-01', INTERVAL 1.9 DAY), \
             DATE_ADD(DATE'2000-01-01', INTERVAL '-2' DAY)"
        )?,
        vec![vec!["2000-01-02", "2000-01-02", "2000-01-03", "1999-12-30"]]
    );
    assert_eq!(warning_codes(&mut s)?, vec!["1292", "1292"]);
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST('1 02:03:04' AS DATETIME), CAST('2001 02 03' AS DATETIME), \
             CAST('1-02-03 04:05' AS DATETIME)"
        )?,
        vec![vec!["NULL", "NULL", "0001-02-03 04:05:00"]]
    );
    s.execute("INSERT IGNORE INTO y VALUES ('0x1F'), ('0abc'), ('0'), ('00'), ('0000'), ('5')")?;
    assert_eq!(
        rows(&mut s, "SELECT y FROM y")?,
        vec![
            vec!["0000"],
            vec!["0000"],
            vec!["2000"],
            vec!["2000"],
            vec!["0000"],
            vec!["2005"]
        ]
    );
    Ok(())
}

/// Stored values as MariaDB stores them: a SET from a number with bits past
/// its members keeps the others, a negative TIME into DECIMAL UNSIGNED is
/// out of range (0), and DAYNAME/MONTHNAME of a binary value is text in the
/// connection's collation.
#[test]
fn stored_values_follow_mariadb() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (d SET('a', 'b', 'c'))",
        "CREATE TABLE u (u DECIMAL(12,5) UNSIGNED, tm TIME(3))",
        "CREATE TABLE b (a BINARY(1))",
        "INSERT INTO b VALUES (X'42')",
    ])?;
    let mut s = t.session(50)?;
    s.execute("INSERT IGNORE INTO t VALUES ('10'), ('9'), (10), ('8')")?;
    assert_eq!(warning_codes(&mut s)?, vec!["1265", "1265", "1265", "1265"]);
    assert_eq!(
        rows(&mut s, "SELECT d FROM t")?,
        vec![vec!["b"], vec!["a"], vec!["b"], vec![""]]
    );
    s.execute("INSERT INTO u (tm) VALUES ('-47:19:59.221')")?;
    s.execute("UPDATE IGNORE u SET u = tm")?;
    assert_eq!(warning_codes(&mut s)?, vec!["1264"]);
    assert_eq!(one(&mut s, "SELECT u FROM u")?, "0.00000");
    assert_eq!(
        one(&mut s, "SELECT COLLATION(MONTHNAME(a)) FROM b")?,
        "utf8mb4_general_ci"
    );
    Ok(())
}

/// A string that names no member of an ENUM or SET is read as its number
/// as MariaDB reads one (`strntoull`): leading white space and a sign are
/// taken, anything after the digits is not (an ENUM drops trailing spaces
/// first); a SET keeps the bits it has members for, with 1265 for the
/// others. Answers and warnings from MariaDB 10.11; `' 3'` also passes
/// strict mode there.
#[test]
fn member_numbers_in_strings_read_as_mariadb_reads_them() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE z (s SET('5','a'), e ENUM('5','a','b'))"])?;
    let mut s = t.session(50)?;
    s.execute(
        "INSERT IGNORE INTO z VALUES (' 5', ' 5'), (' 3', ' 3'), ('2 ', '2 '), \
         (' 1x', ' 1x'), ('+2', '+2'), ('-1', '-1')",
    )?;
    assert_eq!(
        warnings(&mut s)?
            .into_iter()
            .map(|w| w[2].clone())
            .collect::<Vec<_>>(),
        [
            "Data truncated for column 's' at row 1",
            "Data truncated for column 'e' at row 1",
            "Data truncated for column 's' at row 3",
            "Data truncated for column 's' at row 4",
            "Data truncated for column 'e' at row 4",
            "Data truncated for column 's' at row 6",
            "Data truncated for column 'e' at row 6",
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT s, e, s + 0, e + 0 FROM z")?,
        [
            ["5", "", "1", "0"],
            ["5,a", "b", "3", "3"],
            ["", "a", "0", "2"],
            ["", "", "0", "0"],
            ["a", "a", "2", "2"],
            ["5,a", "", "3", "0"],
        ]
    );
    s.execute("INSERT INTO z VALUES (' 3', ' 3')")?;
    assert_eq!(code(&mut s, "INSERT INTO z VALUES ('9', 'a')"), 1265);
    assert_eq!(code(&mut s, "INSERT INTO z VALUES ('a', '9')"), 1265);
    Ok(())
}

/// An aggregate in a correlated subquery whose arguments are the enclosing
/// query's columns only is the enclosing query's aggregate (it then groups):
/// in the select list, HAVING and ORDER BY, also from the subquery's WHERE.
/// In the enclosing WHERE or GROUP BY, which cannot aggregate, it stays in
/// the subquery. Answers from MariaDB 10.11.
#[test]
fn outer_aggregates_in_subqueries_belong_to_the_outer_query() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE ta (a INT, b INT)",
        "CREATE TABLE tb (c INT)",
        "CREATE TABLE te (c INT)",
        "INSERT INTO ta VALUES (1, 1), (2, 1), (3, 2)",
        "INSERT INTO tb VALUES (10), (20)",
    ])?;
    let mut s = t.session(50)?;
    let cases: &[(&str, &[&[&str]])] = &[
        ("SELECT (SELECT SUM(a1.a) FROM tb LIMIT 1) FROM ta a1", &[&["6"]]),
        ("SELECT (SELECT SUM(a1.a) + MAX(tb.c) FROM tb) FROM ta a1", &[&["26"]]),
        ("SELECT (SELECT SUM(a1.a + tb.c) FROM tb) FROM ta a1 ORDER BY 1", &[&["32"], &["34"], &["36"]]),
        (
            "SELECT b, (SELECT GROUP_CONCAT(a1.a ORDER BY a1.a) FROM tb LIMIT 1) FROM ta a1 GROUP BY b",
            &[&["1", "1,2"], &["2", "3"]],
        ),
        ("SELECT (SELECT (SELECT SUM(a1.a) FROM tb t2 LIMIT 1) FROM tb LIMIT 1) FROM ta a1", &[&["6"]]),
        ("SELECT (SELECT COUNT(*) FROM tb WHERE tb.c > SUM(a1.a)) FROM ta a1", &[&["2"]]),
        ("SELECT (SELECT COUNT(a1.a) FROM tb LIMIT 1), COUNT(*) FROM ta a1", &[&["3", "3"]]),
        ("SELECT b FROM ta a1 GROUP BY b HAVING 3 < (SELECT SUM(a1.a) FROM tb LIMIT 1)", &[]),
        ("SELECT (SELECT AVG(a1.c) FROM tb LIMIT 1) FROM te a1", &[&["NULL"]]),
        // Where the enclosing query cannot aggregate, the subquery does.
        ("SELECT a FROM ta a1 WHERE 5 < (SELECT SUM(a1.a) FROM tb) ORDER BY a", &[&["3"]]),
        ("SELECT COUNT(*) FROM ta a1 GROUP BY (SELECT SUM(a1.a) FROM tb)", &[&["1"], &["1"], &["1"]]),
        ("SELECT b, (SELECT COUNT(*) FROM tb WHERE tb.c > a1.b) FROM ta a1 ORDER BY a", &[&["1", "2"], &["1", "2"], &["2", "2"]]),
    ];
    for (sql, want) in cases {
        let want: Vec<Vec<String>> = want
            .iter()
            .map(|r| r.iter().map(|v| v.to_string()).collect())
            .collect();
        assert_eq!(rows(&mut s, sql)?, want, "{sql}");
    }
    s.execute("UPDATE ta a1 SET b = (SELECT COUNT(a1.a) FROM tb)")?;
    assert_eq!(one(&mut s, "SELECT GROUP_CONCAT(b) FROM ta")?, "2,2,2");
    Ok(())
}

/// Reals and decimals past an integer type's range: bit operators round
/// them half away from zero and hold them at BIGINT's minimum or BIGINT
/// UNSIGNED's maximum; CAST holds them at the target's range (an integer
/// still wraps) and drops a temporal value's fraction.
#[test]
fn numbers_past_integer_range_saturate() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE d (b DECIMAL(5,2))",
        "INSERT INTO d VALUES (-1.5)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT 1 ^ -1e19, ~1e30, ~-1e30, -0.5e0 | 0, 2.5e0 | 0, -0.5 | 0, '-0.5' | 0, \
             -99999999999999999999999 | 0, TIME '10:00:00.7' | 0"
        )?,
        vec![vec![
            "9223372036854775809",
            "0",
            "9223372036854775807",
            "18446744073709551615",
            "3",
            "18446744073709551615",
            "18446744073709551615",
            "9223372036854775808",
            "100001"
        ]]
    );
    assert_eq!(
        rows(&mut s, "SELECT BIT_OR(b), BIT_AND(b) FROM d")?,
        vec![vec!["18446744073709551614", "18446744073709551614"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST(1e100 AS SIGNED), CAST(-1e100 AS SIGNED), CAST(1e19 AS SIGNED), \
             CAST(2.5e0 AS SIGNED), CAST(99999999999999999999.5 AS SIGNED), \
             CAST(18446744073709551615 AS SIGNED), CAST(-2.5e0 AS UNSIGNED), CAST(-2.5 AS UNSIGNED), \
             CAST(TIMESTAMP '2033-05-23 12:31:45.9' AS SIGNED), CAST(TIME '-10:00:00.7' AS UNSIGNED)"
        )?,
        vec![vec![
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775807",
            "2",
            "9223372036854775807",
            "-1",
            "0",
            "0",
            "20330523123145",
            "0"
        ]]
    );
    assert_eq!(warning_codes(&mut s)?, vec!["1916"; 7]);
    Ok(())
}

/// SUM and AVG of dates, times, YEAR and BIT add their numbers exactly
/// (DECIMAL, with the value's fractional digits), as MariaDB; ABS and
/// unary minus of them are those numbers.
#[test]
fn sums_of_temporal_values_are_their_numbers() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE tt (e DATE, tm TIME, tm2 TIME(2), dt DATETIME(3), y YEAR, bt BIT(8))",
        "INSERT INTO tt VALUES ('2024-02-29', '10:11:12', '-01:00:00.5', \
         '2024-01-01 10:00:00.125', 2024, b'101')",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT AVG(e), SUM(e), SUM(tm), SUM(tm2), AVG(tm2), SUM(dt), AVG(dt), SUM(y), \
             SUM(bt), BIT_OR(dt), BIT_OR(tm2) FROM tt"
        )?,
        vec![vec![
            "20240229.0000",
            "20240229",
            "101112",
            "-10000.50",
            "-10000.500000",
            "20240101100000.125",
            "20240101100000.1250000",
            "2024",
            "5",
            "20240101100000",
            "18446744073709541616"
        ]]
    );
    // ENUM and SET add up as their member numbers.
    s.execute("CREATE TABLE es (en ENUM('a','b'), st SET('a','b'))")?;
    s.execute("INSERT INTO es VALUES ('b', 'a,b'), ('a', 'b')")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT SUM(en), AVG(en), SUM(st), BIT_OR(st), SUM(DISTINCT en) FROM es"
        )?,
        vec![vec!["3", "1.5000", "5", "3", "3"]]
    );
    // ABS and unary minus read them as those numbers too.
    assert_eq!(
        rows(
            &mut s,
            "SELECT -e, -dt, -tm2, -y, ABS(dt), ABS(tm2), ABS(e) FROM tt"
        )?,
        vec![vec![
            "-20240229",
            "-20240101100000.125",
            "10000.50",
            "-2024",
            "20240101100000.125",
            "10000.50",
            "20240229"
        ]]
    );
    Ok(())
}

/// Ordering and comparing as MariaDB: a window's ORDER BY sorts ENUM and
/// SET by member number; LEAST/GREATEST of a number and a binary string
/// compare as numbers; UPDATE writes a temporal value into text with its
/// type's fractional digits; MIN/MAX of what is no date is NULL in the
/// groups of a GROUP BY (the zero date over the whole input).
#[test]
fn orders_and_conversions_as_mariadb() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE e (id INT, a SET('a','b','c'), k ENUM('z','y','x'))",
        "INSERT INTO e VALUES (11, 'a,c', 'x'), (13, 'b', 'y'), (12, 'c', 'z')",
        "CREATE TABLE b (d BINARY(1), v VARBINARY(5))",
        "INSERT INTO b VALUES ('B', '3x')",
        "CREATE TABLE u (id INT PRIMARY KEY, a CHAR(64), ts TIMESTAMP(1) NULL, tm TIME(2), f VARCHAR(30))",
        "INSERT INTO u (id, ts, tm) VALUES (1, '2028-06-14 05:19:49.2', '01:02:03.5')",
        "CREATE TABLE q (c VARCHAR(5), k INT)",
        "INSERT INTO q VALUES ('x', 1), ('y', 1)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, ROW_NUMBER() OVER (ORDER BY a), RANK() OVER (ORDER BY k DESC) FROM e ORDER BY id"
        )?,
        vec![vec!["11", "3", "1"], vec!["12", "2", "3"], vec!["13", "1", "2"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT LEAST(1, d), GREATEST(1, d), LEAST(2, v), GREATEST(2, v) FROM b"
        )?,
        vec![vec!["0", "1", "2", "3"]]
    );
    s.execute("UPDATE u SET a = ts, f = tm")?;
    assert_eq!(
        rows(&mut s, "SELECT a, f FROM u")?,
        vec![vec!["2028-06-14 05:19:49.2", "01:02:03.50"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT MIN(DATE(c)), MAX(CAST(c AS TIME(6))) FROM q"
        )?,
        vec![vec!["0000-00-00", "00:00:00.000000"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT MIN(DATE(c)), MAX(CAST(c AS TIME(6))) FROM q GROUP BY k"
        )?,
        vec![vec!["NULL", "NULL"]]
    );
    Ok(())
}

/// Numbers as TIME, as MariaDB reads them: 8 to 14 digits are a datetime
/// (its time part, NULL when no date), minutes or seconds past 59 are NULL,
/// and past 838:59:59 the value is held there with the largest fraction
/// the type keeps; a TIME(6) column takes 838:59:59.999999.
#[test]
fn numbers_as_time() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t6 (a TIME(6), c TIME(3))"])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST(19004850.4533 AS TIME), CAST(100000000000000 AS TIME(3)), \
             CAST(8395959 AS TIME(3)), CAST(-8395959.5e0 AS TIME(3)), \
             CAST(20240115103000.5 AS TIME(1)), CAST(1e20 AS TIME), CAST(9999999 AS TIME), \
             CAST(1076 AS TIME), CAST(-20240115103000 AS TIME), CAST(8395959 AS TIME) + 0"
        )?,
        vec![vec![
            "NULL",
            "838:59:59.999",
            "838:59:59.999",
            "-838:59:59.999",
            "10:30:00.5",
            "838:59:59",
            "NULL",
            "NULL",
            "-838:59:59",
            "8385959"
        ]]
    );
    s.execute("INSERT INTO t6 VALUES ('838:59:59.999999', '-838:59:59.9999')")?;
    s.execute("INSERT IGNORE INTO t6 VALUES ('839:00:00', 1e20)")?;
    assert_eq!(
        rows(&mut s, "SELECT a, c FROM t6")?,
        vec![
            vec!["838:59:59.999999", "-838:59:59.999"],
            vec!["838:59:59.999999", "838:59:59.999"]
        ]
    );
    Ok(())
}

/// A number compared with a date is a datetime whose day may be past its
/// month's end (231 is 2000-02-31, after 2000-02-29), and so is a DATE()
/// or CAST of such a text in a comparison, as MariaDB compares them; a
/// number that is no date at all (1, 99) is the zero date.
#[test]
fn numbers_and_dates_compare_with_any_day() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t4 (c TINYINT UNSIGNED, d VARCHAR(20))"])?;
    let mut s = t.session(50)?;
    s.execute("INSERT INTO t4 VALUES (231, '2000-02-31'), (1, NULL), (0, NULL), (2, NULL)")?;
    assert_eq!(
        rows(&mut s, "SELECT c FROM t4 WHERE c = DATE(1) ORDER BY c")?,
        vec![vec!["0"], vec!["1"], vec!["2"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT 231 = DATE('2000-02-31'), 231 > DATE('2000-01-01'), \
             20000231 > DATE('2000-03-01'), 20000231 > DATE('2000-02-28'), \
             1232 > DATE('2000-12-30'), 231.5 = DATE(1), \
             231 BETWEEN DATE('2000-01-01') AND DATE('2000-03-01'), \
             CAST('2000-02-31' AS DATE) = 20000231, DATE('2000-02-31') IS NULL, \
             CAST('2000-02-31 10:00:00' AS DATETIME) = 20000231100000"
        )?,
        vec![vec!["1", "1", "0", "1", "0", "0", "1", "1", "1", "1"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT DATE(d) = 20000231, DATE(d) < DATE('2000-03-01'), \
             DATE(d) > DATE('2000-02-29') FROM t4 WHERE c = 231"
        )?,
        vec![vec!["1", "1", "1"]]
    );
    Ok(())
}
