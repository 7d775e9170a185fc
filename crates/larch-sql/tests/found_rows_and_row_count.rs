//! FOUND_ROWS() with and without SQL_CALC_FOUND_ROWS, and ROW_COUNT() after
//! each kind of statement, as MariaDB 10.11 answers them: every expected
//! value below was read from MariaDB 10.11 running the same statements in
//! the same order.

mod support;

use support::{error, one, rows, TestDb, R};

#[test]
fn row_count_is_the_last_statements_affected_rows() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let after = |s: &mut larch_sql::session::Session, sql: &str| -> R<String> {
        let _ = s.execute(sql);
        one(s, "SELECT ROW_COUNT()")
    };
    assert_eq!(after(&mut s, "CREATE TABLE rc (a INT PRIMARY KEY)")?, "0");
    assert_eq!(after(&mut s, "INSERT INTO rc VALUES (1),(2),(3)")?, "3");
    assert_eq!(after(&mut s, "UPDATE rc SET a = a + 10 WHERE a > 1")?, "2");
    // Rows found but not changed are not counted.
    assert_eq!(after(&mut s, "UPDATE rc SET a = a WHERE a > 1")?, "0");
    assert_eq!(after(&mut s, "DELETE FROM rc WHERE a = 1")?, "1");
    // A result set: -1.
    assert_eq!(after(&mut s, "SELECT * FROM rc")?, "-1");
    assert_eq!(after(&mut s, "SET @x = 1")?, "0");
    assert_eq!(after(&mut s, "BEGIN")?, "0");
    assert_eq!(after(&mut s, "COMMIT")?, "0");
    // An error: -1.
    assert_eq!(after(&mut s, "INSERT INTO rc VALUES (12)")?, "-1");
    assert_eq!(after(&mut s, "REPLACE INTO rc VALUES (12)")?, "1");
    assert_eq!(after(&mut s, "DO 1")?, "0");
    assert_eq!(after(&mut s, "INSERT INTO rc SELECT 5")?, "1");
    // Read twice in one statement: the same value; then -1 (a result set).
    assert_eq!(
        rows(&mut s, "SELECT ROW_COUNT(), ROW_COUNT()")?,
        vec![vec!["-1", "-1"]]
    );
    Ok(())
}

#[test]
fn found_rows_counts_what_the_limit_cut() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE rc (a INT PRIMARY KEY)",
        "INSERT INTO rc VALUES (1),(2),(3),(4)",
    ])?;
    let mut s = t.session(5)?;
    let found = |s: &mut larch_sql::session::Session, sql: &str| -> R<String> {
        s.execute(sql)?;
        one(s, "SELECT FOUND_ROWS()")
    };
    assert_eq!(
        rows(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS * FROM rc ORDER BY a LIMIT 1, 2"
        )?,
        vec![vec!["2"], vec!["3"]]
    );
    assert_eq!(one(&mut s, "SELECT FOUND_ROWS()")?, "4");
    // FOUND_ROWS() itself returned one row.
    assert_eq!(one(&mut s, "SELECT FOUND_ROWS()")?, "1");
    assert_eq!(
        found(&mut s, "SELECT SQL_CALC_FOUND_ROWS * FROM rc LIMIT 0")?,
        "4"
    );
    assert_eq!(found(&mut s, "SELECT * FROM rc LIMIT 2")?, "2");
    assert_eq!(
        found(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS a FROM rc WHERE a > 1 UNION SELECT 9 LIMIT 1"
        )?,
        "4"
    );
    assert_eq!(
        found(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS a FROM rc UNION (SELECT 9) LIMIT 2"
        )?,
        "5"
    );
    assert_eq!(
        found(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS a, COUNT(*) FROM rc GROUP BY a HAVING a > 1 LIMIT 1"
        )?,
        "3"
    );
    assert_eq!(
        found(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS DISTINCT a FROM rc LIMIT 1"
        )?,
        "4"
    );
    assert_eq!(found(&mut s, "SELECT a FROM rc WHERE a > 100")?, "0");
    assert_eq!(
        found(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS a FROM rc LIMIT 2 OFFSET 10"
        )?,
        "4"
    );
    assert_eq!(
        found(&mut s, "(SELECT SQL_CALC_FOUND_ROWS a FROM rc LIMIT 1)")?,
        "4"
    );
    assert_eq!(
        found(
            &mut s,
            "WITH w AS (SELECT a FROM rc) SELECT SQL_CALC_FOUND_ROWS a FROM w LIMIT 1"
        )?,
        "4"
    );
    assert_eq!(
        found(
            &mut s,
            "SELECT SQL_CALC_FOUND_ROWS a FROM rc LIMIT 1 INTO @v"
        )?,
        "4"
    );
    assert_eq!(one(&mut s, "SELECT @v")?, "1");
    // A statement that is no SELECT leaves the count alone.
    s.execute("SELECT * FROM rc LIMIT 3")?;
    s.execute("INSERT INTO rc VALUES (10)")?;
    assert_eq!(one(&mut s, "SELECT FOUND_ROWS()")?, "3");
    Ok(())
}

#[test]
fn sql_calc_found_rows_elsewhere_is_refused() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE rc (a INT PRIMARY KEY)"])?;
    let mut s = t.session(5)?;
    let misplaced = (
        1234u16,
        "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'".to_string(),
    );
    for sql in [
        "SELECT a FROM rc WHERE a IN (SELECT SQL_CALC_FOUND_ROWS a FROM rc) LIMIT 1",
        "(SELECT SQL_CALC_FOUND_ROWS a FROM rc ORDER BY a LIMIT 1) LIMIT 1",
        "SELECT a FROM rc UNION SELECT SQL_CALC_FOUND_ROWS 9 LIMIT 1",
        "SELECT * FROM (SELECT SQL_CALC_FOUND_ROWS a FROM rc) d LIMIT 1",
    ] {
        assert_eq!(error(&mut s, sql)?, misplaced, "{sql}");
    }
    Ok(())
}

#[test]
fn both_are_bigint_not_null() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let set = match s.execute("SELECT FOUND_ROWS(), ROW_COUNT()")? {
        larch_sql::result::QueryResult::Rows(set) => set,
        other => return Err(format!("expected rows, got {other:?}").into()),
    };
    for c in &set.columns {
        assert!(
            matches!(
                c.ty,
                larch_engine::record::value::ColumnType::Int {
                    bytes: 8,
                    unsigned: false
                }
            ),
            "{:?}",
            c.ty
        );
        assert!(!c.nullable, "{}", c.name);
    }
    Ok(())
}

#[test]
fn replace_of_an_identical_row_on_the_only_unique_key_counts_once() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE rp (a INT PRIMARY KEY, b INT)",
        "INSERT INTO rp VALUES (1,1),(2,2)",
        "CREATE TABLE rp2 (a INT PRIMARY KEY, b INT, UNIQUE KEY (b))",
        "INSERT INTO rp2 VALUES (1,1)",
    ])?;
    let mut s = t.session(5)?;
    let affected = |s: &mut larch_sql::session::Session, sql: &str| -> R<u64> {
        match s.execute(sql)? {
            larch_sql::result::QueryResult::Ok(ok) => Ok(ok.affected_rows),
            other => Err(format!("expected OK, got {other:?}").into()),
        }
    };
    // In place, nothing changes: 1. A changed row: delete and insert, 2.
    assert_eq!(affected(&mut s, "REPLACE INTO rp VALUES (1,1)")?, 1);
    assert_eq!(affected(&mut s, "REPLACE INTO rp VALUES (2,5)")?, 2);
    // Two unique keys: always a delete and an insert.
    assert_eq!(affected(&mut s, "REPLACE INTO rp2 VALUES (1,1)")?, 2);
    assert_eq!(affected(&mut s, "REPLACE INTO rp2 VALUES (1,2)")?, 2);
    assert_eq!(
        rows(&mut s, "SELECT * FROM rp ORDER BY a")?,
        vec![vec!["1", "1"], vec!["2", "5"]]
    );
    assert_eq!(one(&mut s, "SELECT ROW_COUNT()")?, "-1");
    Ok(())
}
