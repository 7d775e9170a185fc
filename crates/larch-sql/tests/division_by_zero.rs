//! ERROR_FOR_DIVISION_BY_ZERO as MariaDB 10.11 has it, for `/`, `DIV`, `%`
//! and `MOD()`: with it and a strict mode, INSERT, REPLACE, INSERT ...
//! SELECT, ON DUPLICATE KEY UPDATE, (multi-table) UPDATE, LOAD DATA and the
//! DEFAULT and generated columns they compute fail with 1365 (22012) and
//! change nothing; with IGNORE, outside strict mode, in SELECT and DELETE
//! the result is NULL with warning 1365; without the mode it is NULL
//! and no warning at all.

mod support;

use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b DOUBLE, c DECIMAL(10,2))",
        "INSERT INTO t VALUES (1, 1, 1, 1), (2, 0, 0, 0)",
        "CREATE TABLE u (id INT PRIMARY KEY, z INT)",
        "INSERT INTO u VALUES (1, 0), (2, 1)",
    ])
}

/// `sql` must fail with 1365, SQLSTATE 22012, "Division by 0", and leave
/// that error as the only condition.
fn fails(s: &mut Session, sql: &str) -> R<()> {
    match s.execute(sql) {
        Ok(r) => Err(format!("expected 1365 from {sql}, got {r:?}").into()),
        Err(e) => {
            assert_eq!(
                (e.code(), e.sqlstate(), e.message().as_str()),
                (1365, "22012", "Division by 0"),
                "{sql}"
            );
            assert_eq!(warnings(s)?, ["Error,1365,Division by 0"], "{sql}");
            Ok(())
        }
    }
}

/// SHOW WARNINGS as `level,code,message` lines.
fn warnings(s: &mut Session) -> R<Vec<String>> {
    Ok(rows(s, "SHOW WARNINGS")?
        .into_iter()
        .map(|r| r.join(","))
        .collect())
}

/// `n` warnings 1365.
fn division_warnings(n: usize) -> Vec<String> {
    vec!["Warning,1365,Division by 0".to_string(); n]
}

fn table_t(s: &mut Session) -> R<Vec<Vec<String>>> {
    rows(s, "SELECT * FROM t ORDER BY id")
}

#[test]
fn strict_data_changes_fail_and_change_nothing() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let before = table_t(&mut s)?;
    for sql in [
        "INSERT INTO t VALUES (3, 1 / 0, 3, 3)",
        "INSERT INTO t VALUES (3, 3, 3 DIV 0, 3)",
        "INSERT INTO t VALUES (3, 3, 3, 3 % 0)",
        "INSERT INTO t VALUES (3, 3, 3, MOD(3, 0))",
        "INSERT INTO t VALUES (3, 3, 3, 1.5 MOD 0)",
        "INSERT INTO t VALUES (3, 3, 1e0 / 0, 3)",
        // The first row is not kept either.
        "INSERT INTO t VALUES (3, 3, 3, 3), (4, 4 / 0, 4, 4)",
        "INSERT INTO t SET id = 5, c = 5.0 / 0",
        "INSERT INTO t SELECT id + 10, a / 0, b, c FROM t",
        "INSERT INTO t SELECT id + 10, a, b, c FROM t WHERE a / 0 IS NULL",
        "REPLACE INTO t VALUES (1, 1 / 0, 1, 1)",
        "REPLACE INTO t SELECT id, a DIV 0, b, c FROM t",
        "INSERT INTO t VALUES (1, 9, 9, 9) ON DUPLICATE KEY UPDATE a = a / 0",
        "UPDATE t SET a = a / 0",
        "UPDATE t SET c = c % 0 WHERE id = 1",
        // WHERE of an UPDATE too (1 / a for the row with a = 0).
        "UPDATE t SET b = 7 WHERE 1 / a > 0",
        "UPDATE t JOIN u ON t.id = u.id SET t.a = t.a DIV u.z",
    ] {
        fails(&mut s, sql)?;
        assert_eq!(table_t(&mut s)?, before, "{sql}");
    }
    // Prepared, and inside a transaction: only the failed statement is undone.
    s.execute("PREPARE p FROM 'INSERT INTO t VALUES (?, 1 / ?, 1, 1)'")?;
    fails(&mut s, "EXECUTE p USING 9, 0")?;
    s.execute("BEGIN")?;
    s.execute("INSERT INTO t VALUES (3, 3, 3, 3)")?;
    fails(&mut s, "UPDATE t SET a = 10 DIV a")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "3");
    assert_eq!(
        rows(&mut s, "SELECT a FROM t ORDER BY id")?,
        [["1"], ["0"], ["3"]]
    );
    s.execute("ROLLBACK")?;
    // STRICT_ALL_TABLES counts as strict too.
    s.execute("SET sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO'")?;
    fails(&mut s, "INSERT INTO t VALUES (3, 1 / 0, 3, 3)")?;
    assert_eq!(table_t(&mut s)?, before);
    Ok(())
}

#[test]
fn select_set_and_delete_warn() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT 1 / 0, 1 DIV 0, 1 % 0, MOD(1, 0), NULL / 0")?,
        [["NULL", "NULL", "NULL", "NULL", "NULL"]]
    );
    assert_eq!(warnings(&mut s)?, division_warnings(4));
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE a / 0 IS NULL")?.len(),
        2
    );
    assert_eq!(warnings(&mut s)?, division_warnings(2));
    // DELETE only warns, as in MariaDB.
    s.execute("DELETE FROM t WHERE a / 0 IS NULL AND id = 2")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    assert_eq!(rows(&mut s, "SELECT id FROM t")?, [["1"]]);
    // The failed INSERT leaves the session as it was: a SELECT after it warns.
    fails(&mut s, "INSERT INTO t VALUES (3, 1 / 0, 3, 3)")?;
    assert_eq!(one(&mut s, "SELECT 1 / 0")?, "NULL");
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    Ok(())
}

#[test]
fn ignore_gives_null_and_a_warning() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("INSERT IGNORE INTO t VALUES (3, 1 / 0, 3 DIV 0, MOD(3, 0))")?;
    assert_eq!(warnings(&mut s)?, division_warnings(3));
    s.execute("INSERT IGNORE INTO t SELECT id + 10, a % 0, b, c FROM t WHERE id = 1")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    s.execute("UPDATE IGNORE t SET b = b / 0 WHERE id = 1")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    s.execute("UPDATE IGNORE t JOIN u ON t.id = u.id SET t.c = t.c DIV u.z")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    assert_eq!(
        table_t(&mut s)?,
        [
            ["1", "1", "NULL", "NULL"],
            ["2", "0", "0", "0.00"],
            ["3", "NULL", "NULL", "NULL"],
            ["11", "NULL", "1", "1.00"]
        ]
    );
    Ok(())
}

#[test]
fn update_ignore_skips_duplicate_keys() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("UPDATE IGNORE t SET id = 2, a = 5 WHERE id = 1")?;
    assert_eq!(
        warnings(&mut s)?,
        ["Warning,1062,Duplicate entry '2' for key 'PRIMARY'"]
    );
    assert_eq!(
        rows(&mut s, "SELECT id, a FROM t ORDER BY id")?,
        [["1", "1"], ["2", "0"]]
    );
    assert_eq!(
        support::error(&mut s, "UPDATE t SET id = 2 WHERE id = 1")?.0,
        1062
    );
    Ok(())
}

#[test]
fn outside_strict_mode_division_warns() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'")?;
    s.execute("INSERT INTO t VALUES (3, 1 / 0, 3, 3)")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    s.execute("UPDATE t SET c = c / 0 WHERE id = 3")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    assert_eq!(
        rows(&mut s, "SELECT * FROM t WHERE id = 3")?,
        [["3", "NULL", "3", "NULL"]]
    );
    Ok(())
}

#[test]
fn without_the_mode_division_is_null_without_warning() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    for mode in ["STRICT_TRANS_TABLES", ""] {
        s.execute(&format!("SET sql_mode = '{mode}'"))?;
        s.execute("DELETE FROM t WHERE id > 2")?;
        s.execute("INSERT INTO t VALUES (3, 1 / 0, 3 DIV 0, 3 % 0)")?;
        assert!(warnings(&mut s)?.is_empty(), "{mode}");
        s.execute("UPDATE t SET a = a / 0 WHERE id = 1")?;
        assert!(warnings(&mut s)?.is_empty(), "{mode}");
        assert_eq!(one(&mut s, "SELECT 1 / 0")?, "NULL");
        assert!(warnings(&mut s)?.is_empty(), "{mode}");
        assert_eq!(
            rows(
                &mut s,
                "SELECT a, b, c FROM t WHERE id IN (1, 3) ORDER BY id"
            )?,
            [["NULL", "1", "1.00"], ["NULL", "NULL", "NULL"]]
        );
        s.execute("UPDATE t SET a = 1 WHERE id = 1")?;
    }
    // SET STATEMENT changes the mode for one statement only.
    s.execute("SET sql_mode = DEFAULT")?;
    s.execute("SET STATEMENT sql_mode = '' FOR INSERT INTO t VALUES (4, 1 / 0, 4, 4)")?;
    assert!(warnings(&mut s)?.is_empty());
    fails(&mut s, "INSERT INTO t VALUES (5, 1 / 0, 5, 5)")?;
    Ok(())
}

#[test]
fn default_and_generated_columns() -> R<()> {
    let t = TestDb::new(&[
        // 10 now, a division by zero once the clock is set back.
        "CREATE TABLE d (a INT, b INT DEFAULT (10 DIV (UNIX_TIMESTAMP() > 1000000000)))",
        "CREATE TABLE g (a INT, v INT AS (10 DIV a) VIRTUAL, p INT AS (10 DIV a) STORED)",
        "INSERT INTO g (a) VALUES (2)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("INSERT INTO d (a) VALUES (1)")?;
    s.execute("SET timestamp = 1")?;
    fails(&mut s, "INSERT INTO d (a) VALUES (2)")?;
    fails(&mut s, "INSERT INTO d VALUES (2, DEFAULT)")?;
    s.execute("INSERT IGNORE INTO d (a) VALUES (3)")?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    s.execute("SET timestamp = DEFAULT")?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM d ORDER BY a")?,
        [["1", "10"], ["3", "NULL"]]
    );
    fails(&mut s, "INSERT INTO g (a) VALUES (0)")?;
    fails(&mut s, "UPDATE g SET a = 0")?;
    assert_eq!(rows(&mut s, "SELECT * FROM g")?, [["2", "5", "5"]]);
    s.execute("INSERT IGNORE INTO g (a) VALUES (0)")?;
    assert!(!warnings(&mut s)?.is_empty());
    assert!(warnings(&mut s)?
        .iter()
        .all(|w| w == "Warning,1365,Division by 0"));
    assert_eq!(
        rows(&mut s, "SELECT * FROM g ORDER BY a")?,
        [["0", "NULL", "NULL"], ["2", "5", "5"]]
    );
    Ok(())
}

#[test]
fn load_data_set_expressions() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE l (a INT, b INT)"])?;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("l.txt");
    std::fs::write(&path, "1\t0\n2\t5\n")?;
    let f = path.to_string_lossy().into_owned();
    let mut s = t.session(5)?;
    let load =
        |how: &str| format!("LOAD DATA INFILE '{f}' {how} INTO TABLE l (a, @v) SET b = 10 DIV @v");
    fails(&mut s, &load(""))?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM l")?, "0");
    s.execute(&load("IGNORE"))?;
    assert_eq!(warnings(&mut s)?, division_warnings(1));
    assert_eq!(
        rows(&mut s, "SELECT * FROM l ORDER BY a")?,
        [["1", "NULL"], ["2", "2"]]
    );
    s.execute("SET sql_mode = ''")?;
    s.execute(&load(""))?;
    assert!(warnings(&mut s)?.is_empty());
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM l")?, "4");
    Ok(())
}

#[test]
fn set_of_a_user_variable_warns_like_a_select() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // The default mode: NULL and warning 1365, not an error (SET changes no
    // table), for every operator.
    for sql in ["SET @x = 1/0", "SET @x = 5 DIV 0", "SET @x = 5 % 0"] {
        rows(&mut s, "SELECT * FROM t")?;
        s.execute(sql)?;
        assert_eq!(warnings(&mut s)?, division_warnings(1), "{sql}");
        assert_eq!(one(&mut s, "SELECT @x IS NULL")?, "1", "{sql}");
    }
    // Without ERROR_FOR_DIVISION_BY_ZERO: NULL and no warning (a table read
    // first, so no earlier statement's warnings remain).
    s.execute("SET sql_mode = ''")?;
    rows(&mut s, "SELECT * FROM t")?;
    s.execute("SET @y = 1/0")?;
    assert_eq!(warnings(&mut s)?, Vec::<String>::new());
    assert_eq!(one(&mut s, "SELECT @y IS NULL")?, "1");
    Ok(())
}
