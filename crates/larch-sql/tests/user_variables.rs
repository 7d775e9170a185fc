//! User variables assigned inside expressions as MariaDB does: `@a := expr`
//! in a select list is evaluated per row in row order and the last value
//! stays in the session; `SET @x := 5` is `SET @x = 5`.

mod support;

use support::{one, query, rows, TestDb, R};

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
