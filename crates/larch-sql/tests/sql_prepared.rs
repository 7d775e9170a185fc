//! SQL-level prepared statements (`PREPARE`, `EXECUTE [IMMEDIATE]`,
//! `DEALLOCATE PREPARE`) as MariaDB runs them: names without case, USING
//! parameters, re-PREPARE, the errors, `max_prepared_stmt_count` and the
//! status counters.

mod support;

use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

fn err(s: &mut Session, sql: &str) -> (u16, String) {
    match s.execute(sql) {
        Ok(_) => (0, String::new()),
        Err(e) => (e.code(), e.to_string()),
    }
}

fn status(s: &mut Session, name: &str) -> R<i64> {
    let r = rows(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    Ok(r.first()
        .and_then(|r| r.get(1))
        .ok_or("no such status")?
        .parse()?)
}

#[test]
fn prepare_execute_deallocate() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))"])?;
    let mut s = t.session(50)?;
    s.execute("PREPARE ins FROM 'INSERT INTO t VALUES (?, ?)'")?;
    s.execute("SET @a = 1, @b = 'one'")?;
    s.execute("EXECUTE ins USING @a, @b")?;
    s.execute("EXECUTE INS USING 1+1, CONCAT('tw', 'o')")?;
    assert_eq!(
        rows(&mut s, "SELECT a, b FROM t ORDER BY a")?,
        vec![vec!["1", "one"], vec!["2", "two"]]
    );
    // A statement text from a user variable; a query returns its rows.
    s.execute("SET @q = 'SELECT b FROM t WHERE a = ?'")?;
    s.execute("PREPARE sel FROM @q")?;
    assert_eq!(rows(&mut s, "EXECUTE sel USING 2")?, vec![vec!["two"]]);
    // Wrong number of parameters.
    assert_eq!(
        err(&mut s, "EXECUTE sel"),
        (1210, "Incorrect arguments to EXECUTE".into())
    );
    assert_eq!(
        err(&mut s, "EXECUTE sel USING 1, 2"),
        (1210, "Incorrect arguments to EXECUTE".into())
    );
    // Re-PREPARE replaces; a failed PREPARE drops the old statement.
    s.execute("PREPARE sel FROM 'SELECT 42'")?;
    assert_eq!(one(&mut s, "EXECUTE sel")?, "42");
    assert_eq!(err(&mut s, "PREPARE sel FROM 'SELECT * FROM nope'").0, 1146);
    assert_eq!(
        err(&mut s, "EXECUTE sel"),
        (
            1243,
            "Unknown prepared statement handler (sel) given to EXECUTE".into()
        )
    );
    s.execute("DEALLOCATE PREPARE ins")?;
    assert_eq!(
        err(&mut s, "DROP PREPARE ins"),
        (
            1243,
            "Unknown prepared statement handler (ins) given to DEALLOCATE PREPARE".into()
        )
    );
    assert_eq!(err(&mut s, "EXECUTE ins USING 1, 2").0, 1243);
    // Statements that cannot be prepared.
    assert_eq!(
        err(&mut s, "PREPARE p FROM 'PREPARE q FROM ''SELECT 1'''").0,
        1295
    );
    // Names are per session.
    s.execute("PREPARE mine FROM 'SELECT 1'")?;
    let mut other = t.session(50)?;
    assert_eq!(err(&mut other, "EXECUTE mine").0, 1243);
    Ok(())
}

#[test]
fn execute_immediate_and_syntax_errors() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT)"])?;
    let mut s = t.session(50)?;
    s.execute("EXECUTE IMMEDIATE 'INSERT INTO t VALUES (?), (?)' USING 5, 6")?;
    assert_eq!(one(&mut s, "SELECT SUM(a) FROM t")?, "11");
    assert_eq!(
        rows(
            &mut s,
            "EXECUTE IMMEDIATE CONCAT('SELECT ', 'a FROM t WHERE a > ?') USING 5"
        )?,
        vec![vec!["6"]]
    );
    assert_eq!(
        err(&mut s, "EXECUTE IMMEDIATE 'SELECT ?'"),
        (1210, "Incorrect arguments to EXECUTE".into())
    );
    let (code, msg) = err(&mut s, "PREPARE p FROM 'SELEC 1'");
    assert_eq!(code, 1064, "{msg}");
    assert!(msg.contains("near 'SELEC 1'"), "{msg}");
    Ok(())
}

#[test]
fn counters_and_limit() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    let before = status(&mut s, "Com_stmt_prepare")?;
    s.execute("PREPARE a FROM 'SELECT 1'")?;
    s.execute("PREPARE b FROM 'SELECT 2'")?;
    assert_eq!(status(&mut s, "Prepared_stmt_count")?, 2);
    assert_eq!(status(&mut s, "Com_stmt_prepare")?, before + 2);
    assert_eq!(status(&mut s, "Com_prepare_sql")?, 2);
    s.execute("EXECUTE a")?;
    assert_eq!(status(&mut s, "Com_execute_sql")?, 1);
    s.execute("SET GLOBAL max_prepared_stmt_count = 2")?;
    let (code, msg) = err(&mut s, "PREPARE c FROM 'SELECT 3'");
    assert_eq!(code, 1461);
    assert_eq!(
        msg,
        "Can't create more than max_prepared_stmt_count statements (current value: 2)"
    );
    // Replacing a statement is not a new one.
    s.execute("PREPARE a FROM 'SELECT 4'")?;
    s.execute("DEALLOCATE PREPARE b")?;
    assert_eq!(status(&mut s, "Prepared_stmt_count")?, 1);
    drop(s);
    let mut s = t.session(50)?;
    assert_eq!(status(&mut s, "Prepared_stmt_count")?, 0);
    s.execute("SET GLOBAL max_prepared_stmt_count = 16382")?;
    Ok(())
}

#[test]
fn prepared_result_kinds() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT)"])?;
    let mut s = t.session(50)?;
    s.execute("PREPARE p FROM 'INSERT INTO t VALUES (?)'")?;
    match s.execute("EXECUTE p USING 7")? {
        QueryResult::Ok(ok) => assert_eq!(ok.affected_rows, 1),
        other => return Err(format!("{other:?}").into()),
    }
    Ok(())
}
