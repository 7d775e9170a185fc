//! The diagnostics area as MariaDB 10.11 keeps it (expected lists are
//! MariaDB's for the same statements): a failed statement keeps the
//! warnings it raised before its error, the error after them; SHOW ERRORS
//! lists only errors; `@@warning_count` counts every condition and
//! `@@error_count` the errors; a statement that reads no tables (SELECT
//! without FROM, SET, DO) leaves the previous statement's conditions in
//! place unless it raises its own, any other statement clears them.

mod support;

use larch_sql::session::Session;
use support::{code, rows, TestDb, R};

fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

const KEPT: [&str; 3] = [
    "Warning,1265,Data truncated for column 'id' at row 1",
    "Warning,1265,Data truncated for column 'id' at row 2",
    "Error,1062,Duplicate entry '1' for key 'PRIMARY'",
];

fn failed_after_warnings() -> R<(TestDb, Session)> {
    let t = TestDb::new(&["CREATE TABLE p (id INT PRIMARY KEY)"])?;
    let mut s = t.session(5)?;
    s.execute("SET sql_mode = ''")?;
    assert_eq!(code(&mut s, "INSERT INTO p VALUES ('1x'), ('1y')"), 1062);
    Ok((t, s))
}

#[test]
fn an_error_keeps_the_warnings_before_it() -> R<()> {
    let (_t, mut s) = failed_after_warnings()?;
    assert_eq!(flat(&mut s, "SHOW WARNINGS")?, KEPT);
    assert_eq!(
        flat(&mut s, "SELECT @@warning_count, @@error_count")?,
        ["3,1"]
    );
    assert_eq!(flat(&mut s, "SHOW COUNT(*) ERRORS")?, ["1"]);
    assert_eq!(
        flat(&mut s, "SHOW ERRORS")?,
        ["Error,1062,Duplicate entry '1' for key 'PRIMARY'"]
    );
    assert_eq!(flat(&mut s, "SHOW COUNT(*) WARNINGS")?, ["3"]);
    // The failed statement left no row.
    assert_eq!(flat(&mut s, "SELECT COUNT(*) FROM p")?, ["0"]);
    Ok(())
}

#[test]
fn statements_without_tables_keep_the_previous_conditions() -> R<()> {
    let (_t, mut s) = failed_after_warnings()?;
    assert_eq!(flat(&mut s, "SELECT 1")?, ["1"]);
    assert_eq!(flat(&mut s, "SHOW WARNINGS")?, KEPT);
    s.execute("SET @a = 1")?;
    s.execute("DO 1")?;
    assert_eq!(flat(&mut s, "SHOW WARNINGS")?, KEPT);
    // A statement reading a table starts afresh.
    assert_eq!(flat(&mut s, "SELECT COUNT(*) FROM p")?, ["0"]);
    assert_eq!(flat(&mut s, "SHOW WARNINGS")?, Vec::<String>::new());
    assert_eq!(
        flat(&mut s, "SELECT @@warning_count, @@error_count")?,
        ["0,0"]
    );
    // A statement without tables that raises a condition replaces them.
    assert_eq!(code(&mut s, "SELECT x"), 1054);
    assert_eq!(
        flat(&mut s, "SELECT @@warning_count, @@error_count")?,
        ["1,1"]
    );
    s.execute("SET sql_mode = DEFAULT")?;
    assert_eq!(flat(&mut s, "SELECT 1/0")?, ["NULL"]);
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        ["Warning,1365,Division by 0"]
    );
    assert_eq!(flat(&mut s, "SELECT @@warning_count")?, ["1"]);
    Ok(())
}

/// SHOW WARNINGS after `sql` failed with 1005 errno 150.
fn refused_fk(s: &mut Session, sql: &str) -> R<Vec<String>> {
    assert_eq!(code(s, sql), 1005, "{sql}");
    flat(s, "SHOW WARNINGS")
}

const FORMED: &str = "Error,1005,Can't create table `test`.`ch` (errno: 150 \"Foreign key constraint is incorrectly formed\")";
const CANNOT_ADD: &str = "Warning,1215,Cannot add foreign key constraint for `ch`";

#[test]
fn a_refused_foreign_key_explains_itself() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE p (id INT PRIMARY KEY, v INT)"])?;
    let mut s = t.session(5)?;
    let cases = [
        (
            "CREATE TABLE ch (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p (v))",
            "Warning,150,Create  table `test`.`ch` with foreign key (pid) constraint failed. \
             There is no index in the referenced table where the referenced columns appear as \
             the first columns.",
        ),
        (
            "CREATE TABLE ch (id INT, pid INT, b INT, FOREIGN KEY (pid, b) REFERENCES nope (id, v))",
            "Warning,150,Create  table `test`.`ch` with foreign key (pid, b) constraint failed. \
             Referenced table `test`.`nope` not found in the data dictionary.",
        ),
        (
            "CREATE TABLE ch (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p (nocol))",
            "Warning,150,Create  table `test`.`ch` foreign key (pid) constraint failed. \
             Column nocol was not found.",
        ),
        (
            "CREATE TABLE ch (id INT, pid BIGINT, FOREIGN KEY (pid) REFERENCES p (id))",
            "Warning,150,Create  table `test`.`ch` with foreign key (pid) constraint failed. \
             Field type or character set for column 'pid' does not match referenced column 'id'.",
        ),
        (
            "CREATE TABLE ch (id INT, pid INT NOT NULL, \
             FOREIGN KEY (pid) REFERENCES p (id) ON DELETE SET NULL)",
            "Warning,150,Create  table `test`.`ch` with foreign key (pid) constraint failed. \
             You have defined a SET NULL condition but column 'pid' is defined as NOT NULL.",
        ),
        (
            "CREATE TEMPORARY TABLE ch (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
            "Warning,150,Create  table `test`.`ch` with foreign key constraint failed. \
             Temporary tables can't have foreign key constraints.",
        ),
    ];
    for (sql, why) in cases {
        assert_eq!(refused_fk(&mut s, sql)?, [why, FORMED, CANNOT_ADD], "{sql}");
    }
    assert_eq!(
        flat(&mut s, "SELECT @@warning_count, @@error_count")?,
        ["3,1"]
    );
    assert_eq!(flat(&mut s, "SHOW ERRORS")?, [FORMED]);
    Ok(())
}
