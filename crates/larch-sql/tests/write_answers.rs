//! Writes that once stored a value other than MariaDB's, or answered with
//! another insert id, each checked against what MariaDB 10.11 stores for
//! the same statement: the OK packet's insert id after a negative explicit
//! AUTO_INCREMENT value; numbers and numeric strings into ENUM and SET;
//! ENUM and SET values into numeric columns; DATETIME values into string
//! columns with their fractional digits; a TIME into a DATETIME; DATETIME
//! values into DOUBLE and DECIMAL with their fraction; large numbers into
//! TIME; negative numbers into DECIMAL / DOUBLE UNSIGNED and BIT; UPPER of
//! 'ß'; INSTR in utf8mb4 by bytes; a TEXT column compared with a JSON column in UPDATE's WHERE; VALUE(c), MariaDB's
//! other name of VALUES(c), in ON DUPLICATE KEY UPDATE, and both outside it.

mod support;

use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use support::{code, one, rows, warning_codes, TestDb, R};

/// The OK packet's insert id of `sql`.
fn insert_id(s: &mut Session, sql: &str) -> R<u64> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok(ok.last_insert_id),
        other => Err(format!("expected OK from {sql}, got {other:?}").into()),
    }
}

#[test]
fn negative_explicit_auto_increment_is_the_insert_id_as_unsigned() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE a (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, b BIT(16) NOT NULL)",
        "CREATE TABLE b (id SMALLINT NOT NULL AUTO_INCREMENT PRIMARY KEY, d TIME NOT NULL)",
    ])?;
    let mut s = t.session(5)?;
    // MariaDB sends the field's value as an unsigned 64-bit number.
    let id = insert_id(&mut s, "INSERT INTO a (id, b) VALUES (-711, 1)")?;
    assert_eq!(id, 18446744073709550905);
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "0");
    let id = insert_id(&mut s, "INSERT IGNORE INTO b (id, d) VALUES (-100, NULL)")?;
    assert_eq!(id, 18446744073709551516);
    // The next generated value is still 1.
    assert_eq!(insert_id(&mut s, "INSERT INTO a (b) VALUES (2)")?, 1);
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "1");
    Ok(())
}

#[test]
fn numbers_into_enum_and_set_are_cut_toward_zero() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE m (n INT AUTO_INCREMENT PRIMARY KEY, e ENUM('a','b','c'), st SET('a','b','c'))",
    ])?;
    let mut s = t.session(5)?;
    s.execute(
        "INSERT IGNORE INTO m (e, st) VALUES (-1.5, -1.5), (3.9, 9.9), ('0', '0'), \
         ('3 ', '7 '), ('4', '8'), (2, '5')",
    )?;
    // MariaDB 10.11: seven 1265 warnings.
    assert_eq!(warning_codes(&mut s)?, vec!["1265"; 7]);
    let got = rows(&mut s, "SELECT e, st FROM m ORDER BY n")?;
    let want = [
        ["", "a,b,c"],
        ["c", "a"],
        ["", ""],
        ["c", ""],
        ["", ""],
        ["b", "a,c"],
    ];
    assert_eq!(got, want.map(|r| r.map(String::from).to_vec()).to_vec());
    Ok(())
}

#[test]
fn selected_values_keep_what_their_source_type_says() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE s (e ENUM('a','b','c'), st SET('a','b','c'), dt DATETIME(1), \
         d3 DATETIME(3), tm TIME(5), dc DECIMAL(18,5))",
        "INSERT INTO s VALUES ('b', 'a,c', '1993-09-24 06:53:45.0', \
         '1982-09-13 15:12:41.46', '38:30:57.4852', 7.7)",
        "CREATE TABLE t (n INT AUTO_INCREMENT PRIMARY KEY, i INT, y YEAR, dbl DOUBLE, \
         dec2 DECIMAL(20,3), ch CHAR(20), vc VARCHAR(30), dtc DATETIME(4), \
         e ENUM('a','b','c'), st SET('a','b','c'))",
    ])?;
    let mut s = t.session(5)?;
    s.execute("SET timestamp = UNIX_TIMESTAMP('2026-11-29 10:00:00')")?;
    // ENUM and SET into numbers: the index and the bits (strict mode).
    s.execute("INSERT INTO t (i, y, dbl, vc) SELECT e, e, e, st FROM s")?;
    s.execute("INSERT INTO t (i, y, dbl) SELECT st, st, st FROM s")?;
    s.execute(
        "INSERT IGNORE INTO t (ch, vc, dbl, dec2, dtc, e, st) \
         SELECT dt, dt, d3, d3, tm, dc, dc FROM s",
    )?;
    assert_eq!(warning_codes(&mut s)?, vec!["1265", "1265"]);
    let got = rows(
        &mut s,
        "SELECT i, y, dbl, dec2, ch, vc, dtc, e, st FROM t ORDER BY n",
    )?;
    let want = [
        [
            "2", "2002", "2", "NULL", "NULL", "a,c", "NULL", "NULL", "NULL",
        ],
        [
            "5", "2005", "5", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        ],
        [
            "NULL",
            "NULL",
            "19820913151241.46",
            "19820913151241.460",
            "1993-09-24 06:53:45.",
            "1993-09-24 06:53:45.0",
            "2026-11-30 14:30:57.4852",
            "",
            "a,b,c",
        ],
    ];
    assert_eq!(got, want.map(|r| r.map(String::from).to_vec()).to_vec());
    Ok(())
}

#[test]
fn temporal_values_into_set_are_their_text() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (a VARCHAR(5) NULL, c TIME(6) NULL, d DATETIME(3) NULL,          e VARCHAR(1) NOT NULL PRIMARY KEY, f SET('a','b','c') NULL, UNIQUE KEY k0 (f))",
        "INSERT INTO t1 VALUES ('b', '838:59:59', '1990-07-16 11:16:26.360', '2', NULL),          ('1e2', '-838:59:59', '1989-09-02 10:40:32.144', 'b', 'b')",
    ])?;
    let mut s = t.session(5)?;
    s.execute("INSERT IGNORE INTO t1 (e, f) SELECT s.c, s.d FROM t1 AS s ORDER BY s.e")?;
    // The first row goes in with f = ''; the second is a duplicate of it.
    assert_eq!(
        warning_codes(&mut s)?,
        vec!["1265", "1265", "1265", "1265", "1062"]
    );
    let got = rows(&mut s, "SELECT e, f FROM t1 ORDER BY e")?;
    let want = [["2", "NULL"], ["8", ""], ["b", "b"]];
    assert_eq!(got, want.map(|r| r.map(String::from).to_vec()).to_vec());
    Ok(())
}

#[test]
fn out_of_range_numbers_into_time_unsigned_reals_and_bit() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE m (n INT AUTO_INCREMENT PRIMARY KEY, tm TIME, \
         du DECIMAL(5,2) UNSIGNED, fu DOUBLE UNSIGNED, b BIT(8))",
    ])?;
    let mut s = t.session(5)?;
    // Past 9999999 a number is read as a DATETIME number.
    s.execute(
        "INSERT IGNORE INTO m (tm) VALUES (20240115123000), (2147483646), (100000000000000)",
    )?;
    assert_eq!(warning_codes(&mut s)?, vec!["1265", "1265", "1264"]);
    s.execute(
        "INSERT IGNORE INTO m (du, fu, b) VALUES (-1, -1, -1), (-0.001, -0.5, -200), ('-5', '-5', 5)",
    )?;
    assert_eq!(
        warning_codes(&mut s)?,
        vec!["1264", "1264", "1264", "1264", "1264", "1264", "1264", "1264"]
    );
    let got = rows(&mut s, "SELECT tm, du, fu, HEX(b) FROM m ORDER BY n")?;
    let want = [
        ["12:30:00", "NULL", "NULL", "NULL"],
        ["00:00:00", "NULL", "NULL", "NULL"],
        ["838:59:59", "NULL", "NULL", "NULL"],
        ["NULL", "0.00", "0", "FF"],
        ["NULL", "0.00", "0", "FF"],
        ["NULL", "0.00", "0", "5"],
    ];
    assert_eq!(got, want.map(|r| r.map(String::from).to_vec()).to_vec());
    Ok(())
}

#[test]
fn upper_maps_one_character_to_one() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE v (a VARBINARY(4))"])?;
    let mut s = t.session(5)?;
    assert_eq!(one(&mut s, "SELECT UPPER('ß')")?, "ß");
    assert_eq!(one(&mut s, "SELECT UCASE('straße')")?, "STRAßE");
    assert_eq!(one(&mut s, "SELECT LOWER('ÀÉ')")?, "àé");
    s.execute("INSERT INTO v VALUES (UCASE('ß'))")?;
    assert_eq!(one(&mut s, "SELECT HEX(a) FROM v")?, "C39F");
    Ok(())
}

#[test]
fn instr_matches_as_many_bytes_as_the_needle_has() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE i (n INT AUTO_INCREMENT PRIMARY KEY, c TINYINT)"])?;
    let mut s = t.session(5)?;
    let cases = [
        ("INSTR('e', 'é')", "0"),
        ("INSTR('é', 'e')", "0"),
        ("INSTR('aé', 'e')", "0"),
        ("INSTR('aé', 'é')", "2"),
        ("LOCATE('É', 'xé')", "2"),
        ("INSTR('ée', 'ee')", "0"),
    ];
    for (expr, want) in cases {
        assert_eq!(one(&mut s, &format!("SELECT {expr}"))?, want, "{expr}");
    }
    s.execute("INSERT IGNORE INTO i (c) VALUES (INSTR('e', 'é'))")?;
    assert_eq!(one(&mut s, "SELECT c FROM i")?, "0");
    Ok(())
}

#[test]
fn text_against_json_compares_in_utf8mb4_bin() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE u (b DATE, c TEXT, d TINYINT UNSIGNED PRIMARY KEY, e JSON)",
        "INSERT INTO u VALUES ('1996-06-07', 'b', 7, '[]'), ('2002-06-12', 'e', 13, '{}'), \
         ('1999-12-31', 'b', 118, 'true'), ('2009-08-27', 'A', 191, '[]')",
    ])?;
    let mut s = t.session(5)?;
    s.execute("UPDATE u SET b = NULL WHERE (c < e) ORDER BY d LIMIT 3")?;
    let got = rows(&mut s, "SELECT d, b FROM u ORDER BY d")?;
    let want = [
        ["7", "1996-06-07"],
        ["13", "NULL"],
        ["118", "NULL"],
        ["191", "NULL"],
    ];
    assert_eq!(got, want.map(|r| r.map(String::from).to_vec()).to_vec());
    Ok(())
}

/// A multi-row INSERT that fails on a later row still sets LAST_INSERT_ID()
/// to the id generated for its first row, though the rows are rolled back
/// (MariaDB's `first_successful_insert_id_in_cur_stmt`); one that fails
/// before any row went in leaves it.
#[test]
fn failed_insert_keeps_the_first_generated_id() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE li (id INT AUTO_INCREMENT PRIMARY KEY, b INT UNSIGNED)"])?;
    let mut s = t.session(5)?;
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "0");
    assert!(s.execute("INSERT INTO li (b) VALUES (1), (-1)").is_err());
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "1");
    assert!(s.execute("INSERT INTO li (b) VALUES (-1)").is_err());
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "1");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM li")?, "0");
    // InnoDB reserved ids 1 and 2 for the first statement's two rows.
    assert!(s
        .execute("INSERT INTO li (b) VALUES (7), (8), (-1)")
        .is_err());
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "3");
    Ok(())
}

#[test]
fn value_is_values_in_on_duplicate_key_update() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE vv (id INT PRIMARY KEY, c INT)"])?;
    let mut s = t.session(5)?;
    s.execute("INSERT INTO vv VALUES (1, 1)")?;
    s.execute("INSERT INTO vv VALUES (1, 5) ON DUPLICATE KEY UPDATE c = VALUE(c) + 1")?;
    assert_eq!(one(&mut s, "SELECT c FROM vv")?, "6");
    // Outside ON DUPLICATE KEY UPDATE, VALUES(c) is no call MariaDB's
    // grammar has (1064) and VALUE(c) is NULL.
    assert_eq!(code(&mut s, "SELECT VALUES(c) FROM vv"), 1064);
    assert_eq!(code(&mut s, "UPDATE vv SET c = VALUES(c) + 1"), 1064);
    assert_eq!(
        rows(&mut s, "SELECT VALUE(c), VALUE(c) + 1 FROM vv")?,
        vec![vec!["NULL", "NULL"]]
    );
    Ok(())
}

/// Subqueries in INSERT ... VALUES run before any row is written, as
/// MariaDB's (they were 1235): one value per subquery, 1242 for more than
/// one row, and parameters of a prepared INSERT reach them.
#[test]
fn subqueries_in_insert_values() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE src (id INT PRIMARY KEY, name VARCHAR(10))",
        "INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "CREATE TABLE iv (id INT PRIMARY KEY AUTO_INCREMENT, a INT, b VARCHAR(10))",
    ])?;
    let mut s = t.session(50)?;
    s.execute(
        "INSERT INTO iv (a, b) VALUES ((SELECT MAX(id) FROM src), 'x'), \
         ((SELECT COUNT(*) FROM src WHERE id > 1), (SELECT name FROM src WHERE id = 3))",
    )?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM iv ORDER BY id")?,
        [["1", "3", "x"], ["2", "2", "c"]]
    );
    assert_eq!(
        code(&mut s, "INSERT INTO iv (a) VALUES ((SELECT id FROM src))"),
        1242
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM iv")?, "2");
    s.execute("INSERT INTO iv (a) VALUES ((SELECT MAX(id) FROM iv)), ((SELECT MAX(id) FROM iv))")?;
    assert_eq!(
        rows(&mut s, "SELECT id, a FROM iv WHERE id > 2 ORDER BY id")?,
        [["3", "2"], ["4", "2"]]
    );
    s.execute("PREPARE p FROM 'INSERT INTO iv (a, b) VALUES ((SELECT COUNT(*) FROM src WHERE id > ?), ?)'")?;
    s.execute("SET @a = 1, @b = 'pp'")?;
    s.execute("EXECUTE p USING @a, @b")?;
    assert_eq!(one(&mut s, "SELECT a FROM iv WHERE b = 'pp'")?, "2");
    Ok(())
}

/// Subqueries in ON DUPLICATE KEY UPDATE, as MariaDB 10.11 runs them: an
/// uncorrelated one once, at the first row that updates (later rows reuse
/// its value even after the statement changed what it reads), a
/// correlated one for each row, reading the row being updated; 1242 for
/// more than one row; SELECT on the tables they read is required.
#[test]
fn subqueries_in_on_duplicate_key_update() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE z (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE o (a INT)",
        "INSERT INTO o VALUES (7), (9)",
        "INSERT INTO z VALUES (1, 1), (2, 2)",
    ])?;
    let mut s = t.session(50)?;
    s.execute(
        "INSERT INTO z VALUES (1, 1), (2, 5) \
         ON DUPLICATE KEY UPDATE v = (SELECT MAX(a) FROM o) + VALUES(v)",
    )?;
    assert_eq!(rows(&mut s, "SELECT * FROM z")?, [["1", "10"], ["2", "14"]]);
    s.execute("INSERT INTO z VALUES (1, 1) ON DUPLICATE KEY UPDATE v = (SELECT MAX(v) FROM z)")?;
    assert_eq!(rows(&mut s, "SELECT * FROM z")?, [["1", "14"], ["2", "14"]]);
    s.execute(
        "INSERT INTO z VALUES (2, 1) \
         ON DUPLICATE KEY UPDATE v = (SELECT COUNT(*) FROM o WHERE a > z.v)",
    )?;
    assert_eq!(rows(&mut s, "SELECT * FROM z")?, [["1", "14"], ["2", "0"]]);
    assert_eq!(
        code(
            &mut s,
            "INSERT INTO z VALUES (1, 1) ON DUPLICATE KEY UPDATE v = (SELECT a FROM o)"
        ),
        1242
    );
    s.execute("DELETE FROM z")?;
    s.execute("INSERT INTO z VALUES (1, 1), (2, 2)")?;
    s.execute(
        "INSERT INTO z VALUES (1, 1), (4, 4), (2, 2) \
         ON DUPLICATE KEY UPDATE v = (SELECT MAX(id) FROM z)",
    )?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM z")?,
        [["1", "2"], ["2", "2"], ["4", "4"]]
    );
    s.execute(
        "INSERT INTO z VALUES (1, 1), (2, 2) \
         ON DUPLICATE KEY UPDATE v = v + (SELECT COUNT(*) FROM o WHERE a > z.id * 4)",
    )?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM z")?,
        [["1", "4"], ["2", "3"], ["4", "4"]]
    );
    s.execute("CREATE USER w@localhost")?;
    s.execute("GRANT INSERT, UPDATE, SELECT ON test.z TO w@localhost")?;
    let mut w = t.db.new_session(0, "w", "localhost")?;
    w.use_database("test")?;
    assert_eq!(
        code(
            &mut w,
            "INSERT INTO z VALUES (1, 1) ON DUPLICATE KEY UPDATE v = (SELECT MAX(a) FROM o)"
        ),
        1142
    );
    Ok(())
}
