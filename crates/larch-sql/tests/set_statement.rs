//! MariaDB's `SET STATEMENT var = value, ... FOR statement`: the variables
//! hold the values for one statement and are restored afterwards, also when
//! the statement fails; the refusals and syntax errors of MariaDB.

mod support;

use support::{one, rows, TestDb, R};

#[test]
fn variables_hold_for_one_statement() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT)"])?;
    let mut s = t.session(50)?;
    s.execute("SET sort_buffer_size = 300000")?;
    assert_eq!(
        rows(
            &mut s,
            "SET STATEMENT sort_buffer_size = 150000, max_error_count = 7 FOR \
             SELECT @@sort_buffer_size, @@max_error_count"
        )?,
        vec![vec!["150000", "7"]]
    );
    assert_eq!(one(&mut s, "SELECT @@sort_buffer_size")?, "300000");
    assert_eq!(one(&mut s, "SELECT @@max_error_count")?, "64");
    // Restored after an error too.
    let e = s
        .execute("SET STATEMENT sort_buffer_size = 150000 FOR SELECT * FROM t2")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.to_string(), "Table 'test.t2' doesn't exist");
    assert_eq!(one(&mut s, "SELECT @@sort_buffer_size")?, "300000");
    // sql_mode for one INSERT: strict mode refuses the long value.
    s.execute("SET sql_mode = ''")?;
    s.execute("CREATE TABLE c (v VARCHAR(2))")?;
    let e = s
        .execute("SET STATEMENT sql_mode = 'STRICT_ALL_TABLES' FOR INSERT INTO c VALUES ('abc')")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.code(), 1406);
    assert_eq!(one(&mut s, "SELECT @@sql_mode")?, "");
    s.execute("INSERT INTO c VALUES ('abc')")?;
    assert_eq!(one(&mut s, "SELECT v FROM c")?, "ab");
    Ok(())
}

#[test]
fn refusals_and_syntax_errors() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t1 (a INT, b INT)"])?;
    let mut s = t.session(50)?;
    let err = |s: &mut larch_sql::session::Session, sql: &str| -> (u16, String) {
        match s.execute(sql) {
            Ok(_) => (0, String::new()),
            Err(e) => (e.code(), e.to_string()),
        }
    };
    assert_eq!(
        err(
            &mut s,
            "SET STATEMENT connect_timeout=100 FOR INSERT INTO t1 VALUES (1,2)"
        ),
        (
            1229,
            "Variable 'connect_timeout' is a GLOBAL variable and should be set with SET GLOBAL"
                .into()
        )
    );
    assert_eq!(
        err(&mut s, "set statement autocommit=default for select 1"),
        (
            1971,
            "The system variable autocommit cannot be set in SET STATEMENT.".into()
        )
    );
    assert_eq!(
        err(
            &mut s,
            "SET STATEMENT max_error_count=(select max(a) from t1) FOR select 1"
        )
        .0,
        1970
    );
    for bad in [
        "SET STATEMENT max_error_count=100 FOR",
        "SET STATEMENT max_error_count=100 INSERT t1 VALUES (1,2)",
        "SET STATEMENT FOR INSERT INTO t1 VALUES (1,2)",
        "SET STATEMENT GLOBAL max_error_count=100 FOR INSERT INTO t1 VALUES (1,2)",
        "SET STATEMENT @@global.max_error_count=100 FOR INSERT INTO t1 VALUES (1,2)",
    ] {
        assert_eq!(err(&mut s, bad).0, 1064, "{bad}");
    }
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "0");
    Ok(())
}
