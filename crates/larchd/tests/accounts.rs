//! Accounts end to end through `larchd` and the `mysql` crate: logging in
//! as created users with their passwords (`mysql_native_password` over TCP,
//! `caching_sha2_password` full and fast authentication over the Unix
//! socket), a wrong password (1045), the account a login matches
//! (`CURRENT_USER()`), refused statements with MariaDB's codes, a database
//! named at connect time (1044), and grants surviving a restart.

mod support;

use mysql::prelude::Queryable;
use support::{server_error, tempdir, Larchd, Res};

/// Connection options for `user` with `password` over TCP.
fn as_user(server: &Larchd, user: &str, password: &str) -> mysql::OptsBuilder {
    server
        .opts()
        .user(Some(user))
        .pass(Some(password.to_string()))
}

/// The error code of a failed result.
fn code<T: std::fmt::Debug>(r: mysql::Result<T>) -> Result<u16, String> {
    match r {
        Ok(v) => Err(format!("expected an error, got {v:?}")),
        Err(e) => server_error(&e)
            .map(|(c, _, _)| c)
            .ok_or_else(|| format!("not a server error: {e}")),
    }
}

#[test]
fn users_log_in_and_are_checked() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), &[])?;
    let mut root = server.connect()?;
    root.query_drop("CREATE TABLE test.t (a INT)")?;
    root.query_drop("INSERT INTO test.t VALUES (1)")?;
    root.query_drop("CREATE USER app@'%' IDENTIFIED BY 'secret'")?;
    root.query_drop("GRANT SELECT ON test.* TO app@'%'")?;
    root.query_drop("CREATE USER app@localhost IDENTIFIED BY 'local'")?;
    root.query_drop("GRANT SELECT, INSERT ON test.t TO app@localhost")?;

    // The loopback client matches app@localhost before app@'%'.
    let mut app = mysql::Conn::new(as_user(&server, "app", "local"))?;
    let who: Option<String> = app.query_first("SELECT CURRENT_USER()")?;
    assert_eq!(who.as_deref(), Some("app@localhost"));
    let n: Option<i64> = app.query_first("SELECT COUNT(*) FROM test.t")?;
    assert_eq!(n, Some(1));
    app.query_drop("INSERT INTO test.t VALUES (2)")?;
    let e = app
        .query_drop("DELETE FROM test.t")
        .err()
        .ok_or("DELETE allowed")?;
    assert_eq!(
        server_error(&e),
        Some((
            1142,
            "42000".into(),
            "DELETE command denied to user 'app'@'localhost' for table `test`.`t`".into()
        ))
    );
    assert_eq!(
        code(app.query_drop("SET GLOBAL innodb_lock_wait_timeout = 7"))?,
        1227
    );
    assert_eq!(code(app.query_drop("SHUTDOWN"))?, 1227);
    assert_eq!(code(app.query_drop("CREATE DATABASE nope"))?, 1044);

    // Wrong password, unknown user.
    let e = mysql::Conn::new(as_user(&server, "app", "wrong"))
        .err()
        .ok_or("wrong password accepted")?;
    assert_eq!(server_error(&e).map(|x| x.0), Some(1045));
    assert_eq!(
        code(mysql::Conn::new(as_user(&server, "ghost", "x")))?,
        1045
    );

    // A database the account may not use, named at connect time.
    root.query_drop("CREATE DATABASE private")?;
    let e = mysql::Conn::new(as_user(&server, "app", "local").db_name(Some("private")))
        .err()
        .ok_or("connect to a forbidden database")?;
    assert_eq!(
        server_error(&e),
        Some((
            1044,
            "42000".into(),
            "Access denied for user 'app'@'localhost' to database 'private'".into()
        ))
    );

    // caching_sha2_password over the Unix socket: full, then fast auth.
    root.query_drop("CREATE USER sha@localhost IDENTIFIED WITH caching_sha2_password BY 'sha-pw'")?;
    root.query_drop("GRANT SELECT ON test.* TO sha@localhost")?;
    let socket = mysql::OptsBuilder::new()
        .socket(Some(server.socket.to_string_lossy().into_owned()))
        .user(Some("sha"))
        .pass(Some("sha-pw"));
    for _ in 0..2 {
        let mut sha = mysql::Conn::new(socket.clone())?;
        let who: Option<String> = sha.query_first("SELECT CURRENT_USER()")?;
        assert_eq!(who.as_deref(), Some("sha@localhost"));
    }
    assert_eq!(
        code(mysql::Conn::new(socket.clone().pass(Some("bad"))))?,
        1045
    );

    // SET PASSWORD keeps the account on caching_sha2_password.
    root.query_drop("SET PASSWORD FOR sha@localhost = PASSWORD('sha-new')")?;
    assert_eq!(code(mysql::Conn::new(socket.clone()))?, 1045);
    let mut sha = mysql::Conn::new(socket.clone().pass(Some("sha-new")))?;
    let grants: Vec<String> = sha.query("SHOW GRANTS")?;
    assert!(
        grants[0].contains("IDENTIFIED VIA caching_sha2_password USING '$A$005$"),
        "{grants:?}"
    );

    // A password change applies to the next login.
    root.query_drop("SET PASSWORD FOR app@localhost = PASSWORD('changed')")?;
    assert_eq!(
        code(mysql::Conn::new(as_user(&server, "app", "local")))?,
        1045
    );
    mysql::Conn::new(as_user(&server, "app", "changed"))?;
    Ok(())
}

#[test]
fn grants_survive_a_restart() -> Res {
    let dir = tempdir()?;
    {
        let server = Larchd::start(dir.path(), &[])?;
        let mut root = server.connect()?;
        root.query_drop("CREATE TABLE test.t (a INT)")?;
        root.query_drop("CREATE USER keep@'%' IDENTIFIED BY 'kept'")?;
        root.query_drop("GRANT SELECT ON test.t TO keep@'%'")?;
        root.query_drop("SHUTDOWN")?;
        let mut server = server;
        server.wait()?;
    }
    let server = Larchd::start(dir.path(), &[])?;
    let mut keep = mysql::Conn::new(as_user(&server, "keep", "kept"))?;
    let grants: Vec<String> = keep.query("SHOW GRANTS")?;
    assert_eq!(
        grants,
        vec![
            "GRANT USAGE ON *.* TO `keep`@`%` IDENTIFIED BY PASSWORD '*C74FE6B25FB11766FB923972CA67CC3AC6B747E9'".to_string(),
            "GRANT SELECT ON `test`.`t` TO `keep`@`%`".to_string(),
        ]
    );
    keep.query_drop("SELECT * FROM test.t")?;
    assert_eq!(
        code(keep.query_drop("INSERT INTO test.t VALUES (1)"))?,
        1142
    );
    // Root keeps every privilege.
    let mut root = server.connect()?;
    let g: Option<String> = root.query_first("SHOW GRANTS")?;
    assert_eq!(
        g.as_deref(),
        Some("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION")
    );
    Ok(())
}
