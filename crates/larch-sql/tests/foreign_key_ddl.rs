//! What DDL on a referenced parent does to FOREIGN KEY constraints, as
//! MariaDB 10.11 with InnoDB: DROP DATABASE whose tables another database
//! references (1451 unless `foreign_key_checks = 0`), CREATE OR REPLACE of
//! a referenced parent (1451), and renaming a referenced column (ALTER
//! TABLE ... CHANGE / RENAME COLUMN), which the children's constraints
//! follow.

mod support;

use larch_sql::session::Session;
use support::{error, rows, TestDb, R};

const REFUSED: &str = "Cannot delete or update a parent row: a foreign key constraint fails";

fn show_create(s: &mut Session, t: &str) -> R<String> {
    let r = rows(s, &format!("SHOW CREATE TABLE {t}"))?;
    Ok(r.first().and_then(|r| r.get(1)).cloned().ok_or("no row")?)
}

fn tables(s: &mut Session, db: &str) -> R<Vec<String>> {
    Ok(rows(s, &format!("SHOW TABLES FROM {db}"))?
        .into_iter()
        .map(|r| r.join(","))
        .collect())
}

#[test]
fn drop_database_referenced_from_another_database() -> R<()> {
    let t = TestDb::new(&[
        "CREATE DATABASE d1",
        "CREATE DATABASE d2",
        "CREATE TABLE d1.p (a INT PRIMARY KEY)",
        "CREATE TABLE d1.inner_child (a INT, FOREIGN KEY (a) REFERENCES d1.p (a))",
        "CREATE TABLE d2.c (a INT, FOREIGN KEY (a) REFERENCES d1.p (a))",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "DROP DATABASE d1")?,
        (1451, REFUSED.to_string())
    );
    // As MariaDB: the tables no other database references are dropped.
    assert_eq!(tables(&mut s, "d1")?, ["p"]);
    // References inside the database go with it.
    s.execute("CREATE DATABASE d3")?;
    s.execute("CREATE TABLE d3.p (a INT PRIMARY KEY)")?;
    s.execute("CREATE TABLE d3.c (a INT, FOREIGN KEY (a) REFERENCES p (a))")?;
    s.execute("DROP DATABASE d3")?;
    // With foreign_key_checks = 0 the database goes; the child keeps its
    // constraint.
    s.execute("SET foreign_key_checks = 0")?;
    s.execute("DROP DATABASE d1")?;
    s.execute("SET foreign_key_checks = 1")?;
    assert!(show_create(&mut s, "d2.c")?.contains("REFERENCES `d1`.`p` (`a`)"));
    s.execute("DROP DATABASE d2")?;
    Ok(())
}

#[test]
fn create_or_replace_of_a_referenced_parent() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE p (a INT PRIMARY KEY, b INT)",
        "CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (a))",
        "INSERT INTO p VALUES (1, 1)",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "CREATE OR REPLACE TABLE p (a INT PRIMARY KEY)")?,
        (1451, REFUSED.to_string())
    );
    assert_eq!(rows(&mut s, "SELECT * FROM p")?, [["1", "1"]]);
    // A self-referencing table may be replaced.
    s.execute(
        "CREATE TABLE selfref (a INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES selfref (a))",
    )?;
    s.execute("CREATE OR REPLACE TABLE selfref (a INT PRIMARY KEY)")?;
    s.execute("SET foreign_key_checks = 0")?;
    s.execute("CREATE OR REPLACE TABLE p (a INT PRIMARY KEY)")?;
    s.execute("SET foreign_key_checks = 1")?;
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM p")?, [["0"]]);
    Ok(())
}

#[test]
fn renamed_parent_columns_are_renamed_in_the_children() -> R<()> {
    let t = TestDb::new(&[
        "CREATE DATABASE d2",
        "CREATE TABLE p (a INT PRIMARY KEY, b INT)",
        "CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (a) ON DELETE CASCADE)",
        "CREATE TABLE d2.c2 (a INT, CONSTRAINT fk2 FOREIGN KEY (a) REFERENCES test.p (a))",
        "INSERT INTO p VALUES (1, 1), (2, 2)",
        "INSERT INTO c VALUES (1)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE p CHANGE a x INT")?;
    assert!(show_create(&mut s, "c")?.contains(
        "CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`) REFERENCES `p` (`x`) ON DELETE CASCADE"
    ));
    assert!(show_create(&mut s, "d2.c2")?
        .contains("CONSTRAINT `fk2` FOREIGN KEY (`a`) REFERENCES `test`.`p` (`x`)"));
    s.execute("ALTER TABLE p RENAME COLUMN x TO y")?;
    assert!(show_create(&mut s, "c")?.contains("REFERENCES `p` (`y`)"));
    // The constraints still work on the renamed column.
    assert_eq!(error(&mut s, "INSERT INTO c VALUES (3)")?.0, 1452);
    s.execute("INSERT INTO c VALUES (2)")?;
    s.execute("DELETE FROM p WHERE y = 1")?;
    assert_eq!(rows(&mut s, "SELECT a FROM c")?, [["2"]]);
    assert_eq!(
        rows(
            &mut s,
            "SELECT REFERENCED_COLUMN_NAME FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE \
             WHERE TABLE_NAME = 'c2'"
        )?,
        [["y"]]
    );
    Ok(())
}
