//! User variables assigned inside expressions as MariaDB does: `@a := expr`
//! in a select list is evaluated per row in row order and the last value
//! stays in the session; `SET @x := 5` is `SET @x = 5`.

mod support;

use support::{code, one, query, rows, TestDb, R};

#[test]
fn assignments_in_expressions() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))",
        "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    ])?;
    let mut s = t.session(50)?;
    s.execute("SET @rownum := 0")?;
    let (names, got) = query(&mut s, "SELECT @rownum := @rownum + 1 AS rn, t.* FROM t")?;
    assert_eq!(names, vec!["rn", "id", "v"]);
    assert_eq!(
        got,
        vec![
            vec!["1", "1", "a"],
            vec!["2", "2", "b"],
            vec!["3", "3", "c"]
        ]
    );
    assert_eq!(one(&mut s, "SELECT @rownum")?, "3");
    // An assignment in WHERE runs once per row, never once more to plan a
    // key range from it: @a is 1, 2, 3 against ids 1, 2, 3.
    s.execute("SET @a = 0")?;
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE id = (@a := @a + 1)")?,
        vec![vec!["1"], vec!["2"], vec!["3"]]
    );
    assert_eq!(one(&mut s, "SELECT @a")?, "3");
    s.execute("SET @a = 10")?;
    assert_eq!(
        rows(&mut s, "SELECT @a := @a + 1, @a, @b := 'x', @b")?,
        vec![vec!["11", "11", "x", "x"]]
    );
    assert_eq!(one(&mut s, "SELECT @a")?, "11");
    // Unset variables are NULL; NULL + 1 is NULL.
    assert_eq!(one(&mut s, "SELECT @n := @n + 1")?, "NULL");
    // SET with := and chained assignments.
    s.execute("SET @x := 5, @y := @z := 7")?;
    assert_eq!(
        rows(&mut s, "SELECT @x, @y, @z")?,
        vec![vec!["5", "7", "7"]]
    );
    // A running total in a WHERE-filtered scan, and DO.
    s.execute("SET @sum = 0")?;
    s.execute("DO @sum := @sum + 100")?;
    assert_eq!(
        rows(&mut s, "SELECT id, @sum := @sum + id FROM t WHERE id > 1")?,
        vec![vec!["2", "102"], vec!["3", "105"]]
    );
    assert_eq!(one(&mut s, "SELECT @sum")?, "105");
    // In UPDATE: each row gets the next number.
    s.execute("SET @k = 0")?;
    s.execute("UPDATE t SET v = (@k := @k + 1) * 10")?;
    assert_eq!(
        rows(&mut s, "SELECT v FROM t ORDER BY id")?,
        vec![vec!["10"], vec!["20"], vec!["30"]]
    );
    // An assignment to something else is a syntax error.
    assert!(s.execute("SELECT 1 := 2").is_err());
    Ok(())
}

/// A user variable's name may be quoted (`` @`x` ``, `@'x'`, `@"x"`), as
/// mysqlclient's `callproc` writes `` SET @`_proc_0`=1 ``; an account's
/// `'user'@'host'` is not a variable.
#[test]
fn quoted_variable_names() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY)",
        "INSERT INTO t VALUES (1), (2)",
    ])?;
    let mut s = t.session(50)?;
    s.execute("SET @`_test_procedure_0`=1, @'b' := 2")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT @`_test_procedure_0`, @_test_procedure_0, @'_test_procedure_0' + @\"b\", @b"
        )?,
        vec![vec!["1", "1", "3", "2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE id = @`b`")?,
        vec![vec!["2"]]
    );
    s.execute("CREATE PROCEDURE p(a INT) SET @`_p_out` = a + 1")?;
    s.execute("CALL p(@`_test_procedure_0`)")?;
    assert_eq!(one(&mut s, "SELECT @`_p_out`")?, "2");
    s.execute("CREATE USER 'qv'@'localhost'")?;
    s.execute("DROP USER 'qv'@'localhost'")?;
    Ok(())
}

/// A user variable keeps what MariaDB keeps: an integer, a DOUBLE, a
/// DECIMAL or a string in its collation. A string variable compares in its
/// own collation (IMPLICIT), a temporal value is stored as its text, and a
/// statement reads a variable with the type it had when the statement was
/// compiled. Each answer is MariaDB 10.11's.
#[test]
fn values_keep_their_kind_and_collation() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10) COLLATE utf8mb4_general_ci, KEY (c))",
        "INSERT INTO t VALUES (1, 'a'), (2, 'B'), (3, 'c'), (4, 'b')",
        "CREATE TABLE k (e ENUM('x', 'y'), b BIT(4), y YEAR, d DATETIME(2), \
         c CHAR(5) COLLATE latin1_bin)",
        "INSERT INTO k VALUES ('y', b'101', 2021, '2020-01-02 03:04:05.5', 'Ab')",
    ])?;
    let mut s = t.session(50)?;
    s.execute("SET @u = 'a' COLLATE utf8mb4_bin, @v = 'a', @i = 1")?;
    assert_eq!(
        rows(&mut s, "SELECT @u = 'A', @u = 'a', @v = 'A'")?,
        vec![vec!["0", "1", "1"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COERCIBILITY(@u), COLLATION(@u), COERCIBILITY(@i), COLLATION(@i), \
             COERCIBILITY(@nope), COLLATION(@nope)"
        )?,
        vec![vec!["2", "utf8mb4_bin", "5", "binary", "2", "binary"]]
    );
    // Against a column: the variable's _bin collation wins; a variable in
    // another collation of the column's character set is 1267.
    s.execute("SET @v = 'b'")?;
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE c = @v ORDER BY id")?,
        vec![vec!["2"], vec!["4"]]
    );
    s.execute("SET @v = 'b' COLLATE utf8mb4_bin")?;
    // The same text again: a plan compiled for the earlier type of @v is
    // not reused.
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE c = @v ORDER BY id")?,
        vec![vec!["4"]]
    );
    s.execute("SET @w = 'a' COLLATE utf8mb4_unicode_ci")?;
    assert_eq!(code(&mut s, "SELECT id FROM t WHERE c = @w"), 1267);
    // A date is kept as its text: compared as a string, read as a number.
    s.execute("SET @d = CAST('2020-01-01' AS DATE)")?;
    assert_eq!(
        rows(&mut s, "SELECT @d = '2020-01-01 00:00:00', @d + 0")?,
        vec![vec!["0", "2020"]]
    );
    // Column values: by assignment and by SELECT ... INTO.
    assert_eq!(
        rows(
            &mut s,
            "SELECT @e := e, @b := b, @y := y, @dt := d, @c := c FROM k"
        )?,
        vec![vec!["y", "5", "2021", "2020-01-02 03:04:05.50", "Ab"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT @dt, @dt + 0, COLLATION(@dt), @c = 'ab', COLLATION(@c), COERCIBILITY(@y)"
        )?,
        vec![vec![
            "2020-01-02 03:04:05.50",
            "2020",
            "latin1_swedish_ci",
            "0",
            "latin1_bin",
            "5"
        ]]
    );
    s.execute("SELECT d, c INTO @dt2, @c2 FROM k")?;
    assert_eq!(
        rows(&mut s, "SELECT @dt2, @c2 = 'ab'")?,
        vec![vec!["2020-01-02 03:04:05.50", "0"]]
    );
    // Read with the type it had when the statement was compiled: @x is an
    // integer here, so the string assigned in the statement reads as 0.
    s.execute("SET @x = 1")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT @x := 'abc' COLLATE utf8mb4_bin, @x, @x = 'ABC'"
        )?,
        vec![vec!["abc", "0", "1"]]
    );
    assert_eq!(one(&mut s, "SELECT @x = 'ABC'")?, "0");
    // A procedure's SET and OUT parameter.
    s.execute(
        "CREATE PROCEDURE p(OUT o DATETIME(3)) BEGIN \
         SET @in_proc = 'x' COLLATE utf8mb4_bin; SET o = '2020-01-01 10:00:00.123'; END",
    )?;
    s.execute("CALL p(@out)")?;
    assert_eq!(
        rows(&mut s, "SELECT @in_proc = 'X', @out, @out + 0")?,
        vec![vec!["0", "2020-01-01 10:00:00.123", "2020"]]
    );
    Ok(())
}
