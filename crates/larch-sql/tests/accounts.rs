//! Accounts, grants and privilege checks (MariaDB 10.11's statements,
//! texts and error codes), run in process: CREATE/ALTER/DROP/RENAME USER,
//! SET PASSWORD, GRANT/REVOKE at the global, database and table levels,
//! SHOW GRANTS, the checks of data, DDL and administrative statements, what
//! SHOW DATABASES and INFORMATION_SCHEMA show, and accounts surviving a
//! restart.

mod support;

use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

/// The error code of a statement that must fail.
fn code(s: &mut Session, sql: &str) -> R<(u16, String)> {
    match s.execute(sql) {
        Ok(_) => Err(format!("expected an error from {sql}").into()),
        Err(e) => Ok((e.code(), e.message())),
    }
}

/// A session logged in as `user` from `host`, in no database.
fn login(db: &Arc<Database>, user: &str, host: &str) -> R<Session> {
    Ok(db.new_session(0, user, host)?)
}

#[test]
fn create_drop_rename_and_errors() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut root = t.session(50)?;
    root.execute("CREATE USER 'u1'@'%' IDENTIFIED BY 'pw', u2@localhost")?;
    assert_eq!(
        code(&mut root, "CREATE USER u1@'%', u3")?,
        (1396, "Operation CREATE USER failed for 'u1'@'%'".into())
    );
    // The statement created what it could.
    assert_eq!(
        one(&mut root, "SHOW GRANTS FOR u3")?,
        "GRANT USAGE ON *.* TO `u3`@`%`"
    );
    root.execute("CREATE USER IF NOT EXISTS u1@'%'")?;
    assert_eq!(one(&mut root, "SHOW WARNINGS")?, "Note");
    root.execute("CREATE OR REPLACE USER u1@'%' IDENTIFIED BY PASSWORD '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'")?;
    assert_eq!(
        one(&mut root, "SHOW GRANTS FOR u1@'%'")?,
        "GRANT USAGE ON *.* TO `u1`@`%` IDENTIFIED BY PASSWORD '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'"
    );
    assert_eq!(
        code(&mut root, "CREATE USER x IDENTIFIED BY PASSWORD 'nothash'")?.0,
        1372
    );
    root.execute("RENAME USER u3@'%' TO u4@'10.%'")?;
    assert_eq!(code(&mut root, "SHOW GRANTS FOR u3")?.0, 1141);
    assert_eq!(
        code(&mut root, "RENAME USER u3 TO u5")?,
        (1396, "Operation RENAME USER failed for 'u3'@'%'".into())
    );
    root.execute("DROP USER u4@'10.%'")?;
    assert_eq!(
        code(&mut root, "DROP USER u4@'10.%'")?,
        (1396, "Operation DROP USER failed for 'u4'@'10.%'".into())
    );
    root.execute("DROP USER IF EXISTS u4@'10.%'")?;
    assert_eq!(
        code(&mut root, "ALTER USER nobody IDENTIFIED BY 'x'")?.0,
        1396
    );
    assert_eq!(
        code(&mut root, "SET PASSWORD FOR nobody = PASSWORD('x')")?.0,
        1133
    );
    root.execute("ALTER USER u2@localhost IDENTIFIED BY 'password'")?;
    assert_eq!(
        t.db.account("u2", "localhost"),
        Some(b"*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19".to_vec())
    );
    root.execute("SET PASSWORD FOR u2@localhost = ''")?;
    assert_eq!(t.db.account("u2", "127.0.0.1"), Some(Vec::new()));
    assert_eq!(
        one(&mut root, "SELECT PASSWORD('password')")?,
        "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
    );
    Ok(())
}

#[test]
fn login_picks_the_most_specific_host() -> R<()> {
    let t = TestDb::new(&[
        "CREATE USER u@'%' IDENTIFIED BY 'any'",
        "CREATE USER u@'10.1.%' IDENTIFIED BY 'ten'",
        "CREATE USER u@'10.1.2.3'",
    ])?;
    let host = |h: &str| t.db.login_account("u", h).map(|a| a.host);
    assert_eq!(host("10.1.2.3").as_deref(), Some("10.1.2.3"));
    assert_eq!(host("10.1.9.9").as_deref(), Some("10.1.%"));
    assert_eq!(host("192.168.0.1").as_deref(), Some("%"));
    assert_eq!(t.db.login_account("nobody", "10.1.2.3"), None);
    let mut s = login(&t.db, "u", "10.1.9.9")?;
    assert_eq!(
        rows(&mut s, "SELECT CURRENT_USER(), USER()")?,
        vec![vec!["u@10.1.%", "u@10.1.9.9"]]
    );
    Ok(())
}

#[test]
fn grants_show_and_revoke() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT)", "CREATE USER g@localhost"])?;
    let mut root = t.session(50)?;
    assert_eq!(
        one(&mut root, "SHOW GRANTS")?,
        "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"
    );
    assert_eq!(
        one(&mut root, "SHOW GRANTS FOR CURRENT_USER")?,
        "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"
    );
    root.execute("GRANT RELOAD, PROCESS ON *.* TO g@localhost")?;
    root.execute("GRANT SELECT, INSERT ON test.* TO g@localhost WITH GRANT OPTION")?;
    root.execute("GRANT ALL ON test.t TO g@localhost")?;
    assert_eq!(
        rows(&mut root, "SHOW GRANTS FOR g@localhost")?,
        vec![
            vec!["GRANT RELOAD, PROCESS ON *.* TO `g`@`localhost`"],
            vec!["GRANT SELECT, INSERT ON `test`.* TO `g`@`localhost` WITH GRANT OPTION"],
            vec!["GRANT ALL PRIVILEGES ON `test`.`t` TO `g`@`localhost`"],
        ]
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT TABLE_SCHEMA, PRIVILEGE_TYPE, IS_GRANTABLE FROM information_schema.SCHEMA_PRIVILEGES \
             WHERE GRANTEE = \"'g'@'localhost'\""
        )?,
        vec![vec!["test", "SELECT", "YES"], vec!["test", "INSERT", "YES"]]
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES \
             WHERE GRANTEE = \"'g'@'localhost'\""
        )?,
        vec![vec!["RELOAD"], vec!["PROCESS"]]
    );
    assert_eq!(
        code(&mut root, "GRANT SELECT ON test.nope TO g@localhost")?.0,
        1146
    );
    assert_eq!(
        code(&mut root, "GRANT SUPER ON test.* TO g@localhost")?.0,
        1221
    );
    assert_eq!(
        code(&mut root, "GRANT EXECUTE ON test.t TO g@localhost")?.0,
        1144
    );
    assert_eq!(
        code(&mut root, "GRANT SELECT ON *.* TO nobody@localhost")?.0,
        1133
    );
    root.execute("GRANT SELECT ON *.* TO newbie@'%' IDENTIFIED BY 'pw'")?;
    assert!(t.db.account("newbie", "1.2.3.4").is_some());
    root.execute("REVOKE INSERT, GRANT OPTION ON test.* FROM g@localhost")?;
    root.execute("REVOKE ALL ON test.t FROM g@localhost")?;
    assert_eq!(
        code(&mut root, "REVOKE ALL ON test.t FROM g@localhost")?.0,
        1147
    );
    assert_eq!(
        rows(&mut root, "SHOW GRANTS FOR g@localhost")?,
        vec![
            vec!["GRANT RELOAD, PROCESS ON *.* TO `g`@`localhost`"],
            vec!["GRANT SELECT ON `test`.* TO `g`@`localhost`"],
        ]
    );
    root.execute("REVOKE ALL PRIVILEGES, GRANT OPTION FROM g@localhost")?;
    assert_eq!(
        one(&mut root, "SHOW GRANTS FOR g@localhost")?,
        "GRANT USAGE ON *.* TO `g`@`localhost`"
    );
    assert_eq!(
        code(&mut root, "REVOKE SELECT ON test.* FROM g@localhost")?.0,
        1141
    );
    Ok(())
}

#[test]
fn statements_are_checked() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a INT)",
        "CREATE TABLE secret (a INT)",
        "CREATE DATABASE other",
        "INSERT INTO t VALUES (1)",
        "CREATE USER r@localhost",
        "GRANT SELECT ON test.t TO r@localhost",
    ])?;
    let mut r = login(&t.db, "r", "localhost")?;
    r.use_database("test")?;
    assert_eq!(one(&mut r, "SELECT a FROM t")?, "1");
    assert_eq!(
        code(&mut r, "SELECT * FROM secret")?,
        (
            1142,
            "SELECT command denied to user 'r'@'localhost' for table `test`.`secret`".into()
        )
    );
    assert_eq!(code(&mut r, "SELECT * FROM t JOIN secret")?.0, 1142);
    assert_eq!(code(&mut r, "SELECT (SELECT MAX(a) FROM secret)")?.0, 1142);
    // SELECT ... INTO and views read through the same check; files need FILE.
    assert_eq!(code(&mut r, "SELECT a INTO @x FROM secret")?.0, 1142);
    r.execute("SELECT a INTO @x FROM t")?;
    assert_eq!(one(&mut r, "SELECT @x")?, "1");
    assert_eq!(
        code(&mut r, "SELECT a INTO OUTFILE 'f.txt' FROM t")?.0,
        1227
    );
    assert_eq!(
        code(&mut r, "LOAD DATA INFILE 'f.txt' INTO TABLE t")?.0,
        1227
    );
    assert_eq!(code(&mut r, "CREATE VIEW v AS SELECT a FROM t")?.0, 1142);
    assert_eq!(
        code(&mut r, "INSERT INTO t VALUES (2)")?.1,
        "INSERT command denied to user 'r'@'localhost' for table `test`.`t`"
    );
    assert_eq!(code(&mut r, "UPDATE t SET a = 2")?.0, 1142);
    assert_eq!(code(&mut r, "DELETE FROM t")?.0, 1142);
    assert_eq!(code(&mut r, "CREATE TABLE n (a INT)")?.0, 1142);
    assert_eq!(code(&mut r, "CREATE TEMPORARY TABLE tmp (a INT)")?.0, 1142);
    assert_eq!(code(&mut r, "DROP TABLE t")?.0, 1142);
    assert_eq!(code(&mut r, "ALTER TABLE t ADD b INT")?.0, 1142);
    assert_eq!(code(&mut r, "CREATE INDEX i ON t (a)")?.0, 1142);
    assert_eq!(
        code(&mut r, "CREATE DATABASE d2")?,
        (
            1044,
            "Access denied for user 'r'@'localhost' to database 'd2'".into()
        )
    );
    assert_eq!(code(&mut r, "USE other")?.0, 1044);
    assert_eq!(code(&mut r, "SHOW TABLES FROM other")?.0, 1044);
    assert_eq!(rows(&mut r, "SHOW TABLES")?, vec![vec!["t"]]);
    assert_eq!(
        rows(
            &mut r,
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test'"
        )?,
        vec![vec!["t"]]
    );
    assert_eq!(
        code(&mut r, "SHOW CREATE TABLE secret")?.1,
        "SHOW command denied to user 'r'@'localhost' for table `test`.`secret`"
    );
    r.execute("SHOW CREATE TABLE t")?;
    assert_eq!(code(&mut r, "SHOW COLUMNS FROM secret")?.0, 1142);
    assert_eq!(code(&mut r, "SHUTDOWN")?.0, 1227);
    assert_eq!(code(&mut r, "FLUSH PRIVILEGES")?.0, 1227);
    assert_eq!(
        code(&mut r, "SET GLOBAL innodb_lock_wait_timeout = 5")?,
        (
            1227,
            "Access denied; you need (at least one of) the SUPER privilege(s) for this operation"
                .into()
        )
    );
    assert_eq!(code(&mut r, "CREATE USER x")?.0, 1227);
    assert_eq!(
        code(&mut r, "GRANT SELECT ON test.t TO r@localhost")?.0,
        1142
    );
    assert_eq!(code(&mut r, "SHOW GRANTS FOR root@localhost")?.0, 1044);
    // What the account may see.
    let dbs = rows(&mut r, "SHOW DATABASES")?;
    assert_eq!(dbs, vec![vec!["information_schema"], vec!["test"]]);
    assert_eq!(
        rows(
            &mut r,
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1"
        )?,
        vec![vec!["information_schema"], vec!["test"]]
    );
    // KILL and the process list: only its own connections.
    let root = t.session(50)?;
    let root_id = root.id();
    let listed = rows(&mut r, "SHOW PROCESSLIST")?;
    assert!(listed.iter().all(|row| row[1] == "r"), "{listed:?}");
    assert_eq!(code(&mut r, &format!("KILL {root_id}"))?.0, 1095);
    // A grant reaches a live session at its next statement.
    let mut rt = t.session(50)?;
    rt.execute("GRANT INSERT, UPDATE, DELETE ON test.* TO r@localhost")?;
    r.execute("INSERT INTO t VALUES (2)")?;
    r.execute("UPDATE t SET a = 3 WHERE a = 2")?;
    r.execute("DELETE FROM t WHERE a = 3")?;
    assert_eq!(code(&mut r, "SELECT * FROM secret")?.0, 1142);
    rt.execute("GRANT SELECT ON test.* TO r@localhost")?;
    assert_eq!(one(&mut r, "SELECT COUNT(*) FROM secret")?, "0");
    rt.execute("GRANT CREATE TEMPORARY TABLES ON test.* TO r@localhost")?;
    r.execute("CREATE TEMPORARY TABLE tmp (a INT)")?;
    r.execute("INSERT INTO tmp VALUES (1)")?;
    assert_eq!(one(&mut r, "SELECT a FROM tmp")?, "1");
    rt.execute("REVOKE SELECT ON test.* FROM r@localhost")?;
    assert_eq!(code(&mut r, "SELECT * FROM secret")?.0, 1142);
    // Global privileges.
    rt.execute("GRANT SUPER, CREATE USER ON *.* TO r@localhost")?;
    r.execute("SET GLOBAL innodb_lock_wait_timeout = 5")?;
    r.execute("CREATE USER x")?;
    Ok(())
}

#[test]
fn accounts_survive_a_restart() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let mut s = db.new_session(0, "root", "localhost")?;
        s.execute("CREATE TABLE test.t (a INT)")?;
        s.execute("CREATE USER p@'%' IDENTIFIED BY 'password'")?;
        s.execute("GRANT SELECT ON test.t TO p@'%'")?;
        s.execute("GRANT UPDATE ON test.* TO p@'%' WITH GRANT OPTION")?;
        drop(s);
        db.close()?;
    }
    let db = Database::open(EngineConfig::new(dir.path()))?;
    assert_eq!(
        db.account("p", "10.0.0.1"),
        Some(b"*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19".to_vec())
    );
    let mut s = db.new_session(0, "root", "localhost")?;
    assert_eq!(
        rows(&mut s, "SHOW GRANTS FOR p@'%'")?,
        vec![
            vec!["GRANT USAGE ON *.* TO `p`@`%` IDENTIFIED BY PASSWORD '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'"],
            vec!["GRANT UPDATE ON `test`.* TO `p`@`%` WITH GRANT OPTION"],
            vec!["GRANT SELECT ON `test`.`t` TO `p`@`%`"],
        ]
    );
    // Root is still there with everything.
    assert_eq!(
        one(&mut s, "SHOW GRANTS")?,
        "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"
    );
    Ok(())
}
