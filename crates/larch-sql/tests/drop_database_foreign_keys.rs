//! DROP DATABASE when another database's tables reference some of its
//! tables, as MariaDB 10.11 does it (the lists below are MariaDB's after
//! the same statements): the views and every table no other database
//! references go, with their triggers; the referenced tables, their
//! triggers and the stored routines stay, and the statement fails with
//! 1451. With `foreign_key_checks = 0`, or once the references are gone,
//! the whole database is dropped. What was dropped stays dropped after a
//! restart.

mod support;

use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::session::Session;
use support::{error, rows, R};

fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

fn session(db: &Arc<Database>) -> R<Session> {
    Ok(db.new_session(0, "root", "localhost")?)
}

fn setup(s: &mut Session) -> R<()> {
    for sql in [
        "CREATE DATABASE d1",
        "CREATE DATABASE d2",
        "CREATE TABLE d1.b (id INT PRIMARY KEY)",
        "CREATE TABLE d1.a (id INT PRIMARY KEY)",
        "CREATE TABLE d1.ch (id INT, FOREIGN KEY (id) REFERENCES d1.a (id))",
        "CREATE TABLE d1.self (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES d1.self (id))",
        "CREATE TABLE d2.c2 (id INT, FOREIGN KEY (id) REFERENCES d1.b (id))",
        "CREATE VIEW d1.v AS SELECT 1",
        "CREATE PROCEDURE d1.pr() SELECT 1",
        "CREATE TRIGGER d1.tr BEFORE INSERT ON d1.b FOR EACH ROW SET @x = 1",
        "CREATE TRIGGER d1.tra BEFORE INSERT ON d1.a FOR EACH ROW SET @x = 1",
        "INSERT INTO d1.b VALUES (1)",
        "INSERT INTO d2.c2 VALUES (1)",
    ] {
        s.execute(sql)?;
    }
    Ok(())
}

fn left_in_d1(s: &mut Session) -> R<(Vec<String>, Vec<String>, Vec<String>)> {
    Ok((
        flat(s, "SHOW FULL TABLES FROM d1")?,
        flat(
            s,
            "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'd1'",
        )?,
        flat(
            s,
            "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'd1'",
        )?,
    ))
}

#[test]
fn referenced_tables_stay_the_others_go() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let mut s = session(&db)?;
        setup(&mut s)?;
        assert_eq!(
            error(&mut s, "DROP DATABASE d1")?,
            (
                1451,
                "Cannot delete or update a parent row: a foreign key constraint fails".into()
            )
        );
        assert_eq!(
            left_in_d1(&mut s)?,
            (
                vec!["b,BASE TABLE".to_string()],
                vec!["pr".to_string()],
                vec!["tr".to_string()]
            )
        );
        // The kept parent still holds its row and still guards it.
        assert_eq!(flat(&mut s, "SELECT id FROM d1.b")?, ["1"]);
        assert_eq!(error(&mut s, "DELETE FROM d1.b")?.0, 1451,);
    }
    // After a restart: the same.
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let mut s = session(&db)?;
    assert_eq!(flat(&mut s, "SHOW TABLES FROM d1")?, ["b"]);
    // Without the reference the database goes.
    s.execute("DROP TABLE d2.c2")?;
    s.execute("DROP DATABASE d1")?;
    assert_eq!(
        error(&mut s, "SHOW TABLES FROM d1")?,
        (1049, "Unknown database 'd1'".into())
    );
    Ok(())
}

#[test]
fn without_foreign_key_checks_the_whole_database_goes() -> R<()> {
    let dir = tempfile::tempdir()?;
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let mut s = session(&db)?;
    setup(&mut s)?;
    s.execute("SET foreign_key_checks = 0")?;
    s.execute("DROP DATABASE d1")?;
    assert_eq!(
        flat(&mut s, "SHOW DATABASES LIKE 'd1'")?,
        Vec::<String>::new()
    );
    Ok(())
}
