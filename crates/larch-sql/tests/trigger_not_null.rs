//! NOT NULL columns under BEFORE triggers, after MariaDB's
//! main.trigger_null (MDEV-8605, MDEV-19761): a NULL given for a NOT NULL
//! column, or an omitted NOT NULL column without DEFAULT, is NULL while
//! the BEFORE triggers run, and the checks (1048, 1364) apply to the row
//! they leave, in INSERT, INSERT ... SELECT, INSERT IGNORE, REPLACE, ON
//! DUPLICATE KEY UPDATE, UPDATE and multi-table UPDATE.

mod support;

use larch_sql::session::Session;
use support::{code, rows, TestDb, R};

fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

fn setup() -> R<(TestDb, Session)> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    s.execute("SET sql_mode = 'STRICT_ALL_TABLES'")?;
    s.execute("CREATE TABLE t1 (a INT NOT NULL, b INT, c INT)")?;
    s.execute(
        "CREATE TRIGGER trgi BEFORE INSERT ON t1 FOR EACH ROW \
         SET NEW.a = IF(NEW.a IS NULL, NEW.b, NEW.c)",
    )?;
    Ok((t, s))
}

#[test]
fn insert_checks_not_null_after_before_triggers() -> R<()> {
    let (_t, mut s) = setup()?;
    s.execute("INSERT t1 VALUES (10, NULL, 1)")?;
    s.execute("INSERT t1 VALUES (NULL, 2, NULL)")?;
    assert_eq!(code(&mut s, "INSERT t1 VALUES (NULL, NULL, 20)"), 1048);
    assert_eq!(code(&mut s, "INSERT t1 VALUES (1, 2, NULL)"), 1048);
    assert_eq!(flat(&mut s, "SELECT * FROM t1")?, ["1,NULL,1", "2,2,NULL"]);
    s.execute("INSERT IGNORE t1 VALUES (NULL, NULL, 30)")?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        ["Warning,1048,Column 'a' cannot be null"]
    );
    s.execute("INSERT t1 (a, b) VALUES (NULL, 4)")?;
    assert_eq!(code(&mut s, "INSERT t1 (a, c) VALUES (NULL, 20)"), 1048);
    s.execute("INSERT t1 SELECT NULL, 5, NULL")?;
    assert_eq!(code(&mut s, "INSERT t1 SELECT NULL, NULL, 20"), 1048);
    assert_eq!(
        flat(&mut s, "SELECT * FROM t1")?,
        ["1,NULL,1", "2,2,NULL", "0,NULL,30", "4,4,NULL", "5,5,NULL"]
    );
    Ok(())
}

#[test]
fn omitted_columns_without_default_are_filled_by_the_trigger() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    s.execute("SET sql_mode = 'STRICT_ALL_TABLES'")?;
    // MDEV-19761.
    s.execute("CREATE TABLE t1 (id INT, rate INT NOT NULL)")?;
    s.execute(
        "CREATE TRIGGER tt BEFORE INSERT ON t1 FOR EACH ROW \
         SET NEW.rate = IF(NEW.rate IS NULL, 10, NEW.rate)",
    )?;
    s.execute("INSERT INTO t1 (id) VALUES (1)")?;
    s.execute("INSERT INTO t1 VALUES (2, 3)")?;
    assert_eq!(flat(&mut s, "SELECT * FROM t1")?, ["1,10", "2,3"]);
    // A trigger that leaves the column NULL: 1364 as without triggers.
    s.execute("CREATE TABLE t2 (a INT NOT NULL, b INT NOT NULL DEFAULT 5, c INT)")?;
    s.execute(
        "CREATE TRIGGER t2i BEFORE INSERT ON t2 FOR EACH ROW BEGIN \
         IF NEW.c = 1 THEN SET NEW.a = 1, NEW.b = 1; END IF; \
         IF NEW.c = 2 THEN SET NEW.a = NULL, NEW.b = NULL; END IF; \
         IF NEW.c = 3 THEN SET NEW.a = 2; END IF; END",
    )?;
    s.execute("INSERT t2 VALUES (9, 9, 1)")?;
    assert_eq!(code(&mut s, "INSERT t2 VALUES (9, 9, 2)"), 1048);
    s.execute("INSERT t2 (a, c) VALUES (9, 3)")?;
    assert_eq!(code(&mut s, "INSERT t2 (c) VALUES (4)"), 1364);
    assert_eq!(flat(&mut s, "SELECT * FROM t2")?, ["1,1,1", "2,5,3"]);
    // Without triggers the checks come first, as before.
    s.execute("CREATE TABLE t3 (a INT NOT NULL)")?;
    assert_eq!(code(&mut s, "INSERT t3 VALUES (NULL)"), 1048);
    assert_eq!(code(&mut s, "INSERT t3 () VALUES ()"), 1364);
    Ok(())
}

#[test]
fn updates_replace_and_duplicate_key_updates_check_after_before_triggers() -> R<()> {
    let (_t, mut s) = setup()?;
    s.execute("ALTER TABLE t1 ADD PRIMARY KEY (a)")?;
    s.execute(
        "CREATE TRIGGER trgu BEFORE UPDATE ON t1 FOR EACH ROW \
         SET NEW.a = IF(NEW.a IS NULL, NEW.b, NEW.c)",
    )?;
    s.execute("INSERT t1 VALUES (100,100,100), (200,200,200), (300,300,300)")?;
    s.execute("INSERT t1 VALUES (100,100,100) ON DUPLICATE KEY UPDATE a=10, b=NULL, c=1")?;
    s.execute("INSERT t1 VALUES (200,200,200) ON DUPLICATE KEY UPDATE a=NULL, b=2, c=NULL")?;
    assert_eq!(
        code(
            &mut s,
            "INSERT t1 VALUES (300,300,300) ON DUPLICATE KEY UPDATE a=NULL, b=NULL, c=20"
        ),
        1048
    );
    assert_eq!(
        flat(&mut s, "SELECT * FROM t1 ORDER BY a")?,
        ["1,NULL,1", "2,2,NULL", "300,300,300"]
    );
    s.execute("DELETE FROM t1")?;
    s.execute("INSERT t1 VALUES (1,100,1), (2,200,2)")?;
    s.execute("REPLACE t1 VALUES (10, NULL, 1)")?;
    s.execute("REPLACE t1 VALUES (NULL, 2, NULL)")?;
    assert_eq!(code(&mut s, "REPLACE t1 VALUES (NULL, NULL, 30)"), 1048);
    assert_eq!(
        flat(&mut s, "SELECT * FROM t1 ORDER BY a")?,
        ["1,NULL,1", "2,2,NULL"]
    );
    s.execute("DELETE FROM t1")?;
    s.execute("INSERT t1 VALUES (100,100,100), (200,200,200), (300,300,300)")?;
    s.execute("UPDATE t1 SET a=10, b=NULL, c=1 WHERE a=100")?;
    s.execute("UPDATE t1 SET a=NULL, b=2, c=NULL WHERE a=200")?;
    assert_eq!(
        code(&mut s, "UPDATE t1 SET a=NULL, b=NULL, c=20 WHERE a=300"),
        1048
    );
    assert_eq!(
        flat(&mut s, "SELECT * FROM t1 ORDER BY a")?,
        ["1,NULL,1", "2,2,NULL", "300,300,300"]
    );
    s.execute("CREATE TABLE t2 (d INT, e INT)")?;
    s.execute("INSERT t2 VALUES (300, 300)")?;
    s.execute("UPDATE t1, t2 SET a=NULL, b=3, c=NULL WHERE b=d AND e=300")?;
    assert_eq!(
        code(
            &mut s,
            "UPDATE t1, t2 SET a=NULL, b=NULL, c=20 WHERE b=3 AND e=300"
        ),
        1048
    );
    assert_eq!(
        flat(&mut s, "SELECT * FROM t1 ORDER BY a")?,
        ["1,NULL,1", "2,2,NULL", "3,3,NULL"]
    );
    Ok(())
}
