//! Connection admission through a running `larchd`, with the `mysql`
//! crate and raw TCP sockets:
//!
//! - 1,000 TCP connections that never answer the greeting do not keep
//!   root or an ordinary user out: both log in at once (well under a
//!   second) and query;
//! - `max_connections` counts logged-in connections; an account with SUPER
//!   gets one more (1040 past it), and `--extra-port` has its own limit
//!   (`extra_max_connections`);
//! - account limits (`WITH MAX_USER_CONNECTIONS ... MAX_QUERIES_PER_HOUR
//!   ...`, the global `max_user_connections`) with MariaDB's errors and
//!   texts (1226, 1203), shown by SHOW CREATE USER and SHOW GRANTS;
//! - COM_CHANGE_USER re-authenticates and starts a fresh session on the
//!   same connection; a wrong password is 1045;
//! - a statement whose client disconnected is killed.

mod support;

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{server_error, tempdir, Larchd, Res};

/// The error code of a failed result.
fn code<T: std::fmt::Debug>(r: mysql::Result<T>) -> Result<u16, String> {
    match r {
        Ok(v) => Err(format!("expected an error, got {v:?}")),
        Err(e) => server_error(&e)
            .map(|(c, _, _)| c)
            .ok_or_else(|| format!("not a server error: {e}")),
    }
}

/// The error message of a failed result.
fn message<T: std::fmt::Debug>(r: mysql::Result<T>) -> Result<String, String> {
    match r {
        Ok(v) => Err(format!("expected an error, got {v:?}")),
        Err(e) => server_error(&e)
            .map(|(_, _, m)| m)
            .ok_or_else(|| format!("not a server error: {e}")),
    }
}

/// Options to log in as `user`. `max_allowed_packet` is given so that the
/// `mysql` crate does not ask the server for it with a query at connect
/// time, which would count against `MAX_QUERIES_PER_HOUR` (as it does in
/// MariaDB).
fn as_user(server: &Larchd, user: &str, password: &str) -> mysql::OptsBuilder {
    server
        .opts()
        .user(Some(user))
        .pass(Some(password.to_owned()))
        .max_allowed_packet(Some(16 << 20))
}

/// A free TCP port on the loopback address (bound and let go).
fn free_port() -> Result<u16, std::io::Error> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

#[test]
fn silent_connections_do_not_keep_logins_out() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), &[])?;
    let mut root = server.connect()?;
    root.query_drop("CREATE USER app@'%' IDENTIFIED BY 'pw'")?;
    root.query_drop("GRANT SELECT ON test.* TO app@'%'")?;
    drop(root);

    // 1,000 clients connect and never send their handshake response.
    let mut silent = Vec::new();
    for _ in 0..1000 {
        silent.push(TcpStream::connect(("127.0.0.1", server.port))?);
    }
    // Let the server take them all in.
    std::thread::sleep(Duration::from_millis(500));

    for (user, pw) in [("root", ""), ("app", "pw")] {
        let start = Instant::now();
        let mut conn = mysql::Conn::new(as_user(&server, user, pw))?;
        let one: Option<i64> = conn.query_first("SELECT 1")?;
        let took = start.elapsed();
        assert_eq!(one, Some(1));
        assert!(took < Duration::from_secs(1), "{user} took {took:?}");
    }
    // Over the Unix socket too.
    let start = Instant::now();
    let mut conn = mysql::Conn::new(
        mysql::OptsBuilder::new()
            .socket(Some(server.socket.display().to_string()))
            .user(Some("root")),
    )?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 2")?, Some(2));
    assert!(start.elapsed() < Duration::from_secs(1));
    drop(silent);
    Ok(())
}

#[test]
fn an_administrator_slot_and_the_extra_port() -> Res {
    let dir = tempdir()?;
    let extra = free_port()?;
    let extra_arg = format!("--extra-port={extra}");
    let server = Larchd::start(dir.path(), &["--max-connections=2", &extra_arg])?;
    let mut root = server.connect()?;
    root.query_drop("CREATE USER app@'%' IDENTIFIED BY 'pw'")?;
    let vars: Option<(u64, u64)> =
        root.query_first("SELECT @@extra_port, @@extra_max_connections")?;
    assert_eq!(vars, Some((u64::from(extra), 1)));

    // root holds one slot, app the second: the limit is reached.
    let app = mysql::Conn::new(as_user(&server, "app", "pw"))?;
    let refused = mysql::Conn::new(as_user(&server, "app", "pw"));
    let (c, state, m) = refused
        .err()
        .and_then(|e| server_error(&e))
        .ok_or("a third connection was let in")?;
    assert_eq!(
        (c, state.as_str(), m.as_str()),
        (1040, "08004", "Too many connections")
    );
    // root (SUPER) gets the administrator's extra slot, and only that one.
    let mut admin = server.connect()?;
    assert_eq!(admin.query_first::<i64, _>("SELECT 1")?, Some(1));
    assert_eq!(code(server.connect())?, 1040);

    // The extra port has its own limit of one connection.
    let on_extra = || as_user(&server, "app", "pw").tcp_port(extra);
    let mut extra_conn = mysql::Conn::new(on_extra())?;
    assert_eq!(extra_conn.query_first::<i64, _>("SELECT 3")?, Some(3));
    assert_eq!(code(mysql::Conn::new(on_extra()))?, 1040);
    // extra_max_connections is dynamic, as in MariaDB.
    admin.query_drop("SET GLOBAL extra_max_connections = 2")?;
    let second_extra = mysql::Conn::new(on_extra())?;
    drop(second_extra);
    admin.query_drop("SET GLOBAL extra_max_connections = 1")?;

    // Slots come back when connections end: with root and the
    // administrator still in, app is refused, as in MariaDB.
    drop(app);
    drop(extra_conn);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(code(mysql::Conn::new(as_user(&server, "app", "pw")))?, 1040);
    drop(admin);
    std::thread::sleep(Duration::from_millis(200));
    let mut again = mysql::Conn::new(as_user(&server, "app", "pw"))?;
    assert_eq!(again.query_first::<i64, _>("SELECT 4")?, Some(4));
    // Five at once at most: root, app, the administrator and two on the
    // extra port.
    let used: Option<(String, String)> =
        root.query_first("SHOW GLOBAL STATUS LIKE 'Max_used_connections'")?;
    assert_eq!(used.map(|r| r.1).as_deref(), Some("5"));
    drop(root);
    Ok(())
}

#[test]
fn account_limits_as_mariadb_enforces_and_shows_them() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), &[])?;
    let mut root = server.connect()?;
    root.query_drop(
        "CREATE USER lim@'%' IDENTIFIED BY 'pw' WITH MAX_QUERIES_PER_HOUR 3 \
         MAX_CONNECTIONS_PER_HOUR 3 MAX_USER_CONNECTIONS 1",
    )?;
    let create: Option<String> = root.query_first("SHOW CREATE USER lim@'%'")?;
    assert_eq!(
        create.as_deref(),
        Some(
            "CREATE USER `lim`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122' \
             WITH MAX_QUERIES_PER_HOUR 3 MAX_CONNECTIONS_PER_HOUR 3 MAX_USER_CONNECTIONS 1"
        )
    );
    root.query_drop("CREATE USER upd@'%'")?;
    root.query_drop(
        "GRANT SELECT, INSERT ON test.* TO upd@'%' WITH GRANT OPTION MAX_UPDATES_PER_HOUR 1",
    )?;
    let grants: Vec<String> = root.query("SHOW GRANTS FOR upd@'%'")?;
    assert_eq!(
        grants.first().map(String::as_str),
        Some("GRANT USAGE ON *.* TO `upd`@`%` WITH MAX_UPDATES_PER_HOUR 1")
    );
    root.query_drop("CREATE TABLE test.t (a INT)")?;

    // MAX_USER_CONNECTIONS 1.
    let mut lim = mysql::Conn::new(as_user(&server, "lim", "pw"))?;
    assert_eq!(
        message(mysql::Conn::new(as_user(&server, "lim", "pw")))?,
        "User 'lim' has exceeded the 'max_user_connections' resource (current value: 1)"
    );
    // MAX_QUERIES_PER_HOUR 3: the fourth statement is refused.
    for i in 1..=3 {
        assert_eq!(lim.query_first::<i64, _>(format!("SELECT {i}"))?, Some(i));
    }
    let e = lim.query_first::<i64, _>("SELECT 4");
    assert_eq!(
        message(e)?,
        "User 'lim' has exceeded the 'max_queries_per_hour' resource (current value: 3)"
    );
    drop(lim);
    std::thread::sleep(Duration::from_millis(200));
    // MAX_CONNECTIONS_PER_HOUR 3: the first, the refused second (over
    // MAX_USER_CONNECTIONS, not counted), then two more.
    for _ in 0..2 {
        let c = mysql::Conn::new(as_user(&server, "lim", "pw"))?;
        drop(c);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        message(mysql::Conn::new(as_user(&server, "lim", "pw")))?,
        "User 'lim' has exceeded the 'max_connections_per_hour' resource (current value: 3)"
    );
    // FLUSH USER_RESOURCES starts the hour again.
    root.query_drop("FLUSH USER_RESOURCES")?;
    drop(mysql::Conn::new(as_user(&server, "lim", "pw"))?);

    // MAX_UPDATES_PER_HOUR 1: the second change is refused, reads go on.
    let mut upd = mysql::Conn::new(as_user(&server, "upd", ""))?;
    upd.query_drop("INSERT INTO test.t VALUES (1)")?;
    assert_eq!(code(upd.query_drop("INSERT INTO test.t VALUES (2)"))?, 1226);
    assert_eq!(
        upd.query_first::<i64, _>("SELECT COUNT(*) FROM test.t")?,
        Some(1)
    );

    // The global max_user_connections (ER 1203); root (SUPER) is exempt.
    root.query_drop("CREATE USER g@'%'")?;
    root.query_drop("SET GLOBAL max_user_connections = 1")?;
    let g = mysql::Conn::new(as_user(&server, "g", ""))?;
    let e = mysql::Conn::new(as_user(&server, "g", ""));
    let (c, state, m) = e
        .err()
        .and_then(|e| server_error(&e))
        .ok_or("a second connection of g was let in")?;
    assert_eq!(c, 1203);
    assert_eq!(state, "42000");
    assert_eq!(
        m,
        "User g already has more than 'max_user_connections' active connections"
    );
    let _root2 = server.connect()?;
    drop(g);
    root.query_drop("SET GLOBAL max_user_connections = 0")?;

    // The limits survive a restart (stored with the account).
    drop(upd);
    drop(root);
    drop(server);
    let server = Larchd::start(dir.path(), &[])?;
    let mut root = server.connect()?;
    let grants: Vec<String> = root.query("SHOW GRANTS FOR lim@'%'")?;
    assert!(
        grants.first().is_some_and(|g| g.ends_with(
            "WITH MAX_QUERIES_PER_HOUR 3 MAX_CONNECTIONS_PER_HOUR 3 MAX_USER_CONNECTIONS 1"
        )),
        "{grants:?}"
    );
    Ok(())
}

#[test]
fn change_user_starts_a_fresh_session_on_the_same_connection() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), &[])?;
    let mut root = server.connect()?;
    root.query_drop("CREATE USER app@'%' IDENTIFIED BY 'pw'")?;
    root.query_drop("GRANT SELECT ON test.* TO app@'%'")?;
    root.query_drop("SET @v = 1")?;
    root.query_drop("CREATE TEMPORARY TABLE test.tmp (a INT)")?;
    let id: Option<u64> = root.query_first("SELECT CONNECTION_ID()")?;

    root.change_user(
        mysql::ChangeUserOpts::default()
            .with_user(Some("app".into()))
            .with_pass(Some("pw".into()))
            .with_db_name(Some("test".into())),
    )?;
    let who: Option<(String, Option<i64>, Option<String>, u64)> =
        root.query_first("SELECT CURRENT_USER(), @v, DATABASE(), CONNECTION_ID()")?;
    assert_eq!(
        who,
        Some((
            "app@%".to_owned(),
            None,
            Some("test".to_owned()),
            id.unwrap_or(0)
        ))
    );
    // The temporary table went with the old session.
    assert_eq!(code(root.query_drop("SELECT * FROM test.tmp"))?, 1146);
    // The new account's privileges apply.
    assert_eq!(code(root.query_drop("CREATE TABLE test.x (a INT)"))?, 1142);

    // Back to root, with an empty password.
    root.change_user(
        mysql::ChangeUserOpts::default()
            .with_user(Some("root".into()))
            .with_pass(Some(String::new())),
    )?;
    assert_eq!(
        root.query_first::<String, _>("SELECT CURRENT_USER()")?
            .as_deref(),
        Some("root@localhost")
    );
    // A wrong password is refused with 1045.
    let e = root.change_user(
        mysql::ChangeUserOpts::default()
            .with_user(Some("app".into()))
            .with_pass(Some("wrong".into())),
    );
    assert_eq!(code(e)?, 1045);
    Ok(())
}

#[test]
fn a_statement_whose_client_went_away_is_killed() -> Res {
    client_goes_away_during_a_statement(&[])
}

#[test]
fn with_a_pool_of_threads_a_statement_whose_client_went_away_is_killed() -> Res {
    client_goes_away_during_a_statement(&["--thread-handling=pool-of-threads"])
}

/// A client sends a long statement and disappears: the statement stops
/// within seconds, as MariaDB's does.
fn client_goes_away_during_a_statement(options: &[&str]) -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), options)?;
    let mut root = server.connect()?;
    // A client sends SLEEP(60) and disappears (its socket closes).
    let opts = server.opts();
    let sleeper = std::thread::spawn(move || -> Result<(), String> {
        let mut conn = mysql::Conn::new(opts.read_timeout(Some(Duration::from_millis(700))))
            .map_err(|e| e.to_string())?;
        // The read times out and the crate drops the connection.
        let _ = conn.query_drop("SELECT SLEEP(60) AS long_sleep");
        drop(conn);
        Ok(())
    });
    let running = |root: &mut mysql::Conn| -> mysql::Result<usize> {
        let rows: Vec<mysql::Row> = root.query("SHOW PROCESSLIST")?;
        Ok(rows
            .iter()
            .filter(|r| {
                r.get::<Option<String>, _>(7)
                    .flatten()
                    .is_some_and(|i| i.contains("long_sleep"))
            })
            .count())
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(&mut root)? == 0 {
        assert!(Instant::now() < deadline, "the statement never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    sleeper.join().map_err(|_| "sleeper panicked")??;
    let gone = Instant::now();
    while running(&mut root)? > 0 {
        assert!(
            gone.elapsed() < Duration::from_secs(5),
            "the statement still runs after its client left"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// A raw TCP connection that reads the greeting and goes away: a
/// handshake error for its host.
fn silent_from(source: &str, port: u16) -> Res {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(format!("{source}:0").parse()?)?;
        let mut stream = socket.connect(([127, 0, 0, 1], port).into()).await?;
        let mut buf = [0u8; 512];
        let _ = tokio::io::AsyncReadExt::read(&mut stream, &mut buf).await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })?;
    Ok(())
}

#[test]
fn hosts_are_blocked_after_connection_errors_and_logins_slowed() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(
        dir.path(),
        &[
            "--max-connect-errors=3",
            "--connection-control-failed-connections-threshold=2",
        ],
    )?;
    let mut root = server.connect()?;
    root.query_drop("CREATE USER app@'%' IDENTIFIED BY 'pw'")?;
    let from = |source: &str, pw: &str| {
        let addr: std::net::SocketAddr = format!("{source}:0").parse().map_err(|_| "address")?;
        Ok::<_, Box<dyn std::error::Error>>(as_user(&server, "app", pw).bind_address(Some(addr)))
    };
    // Three handshake errors from 127.0.0.2 block it (1129) ...
    for _ in 0..3 {
        silent_from("127.0.0.2", server.port)?;
    }
    std::thread::sleep(Duration::from_millis(200));
    let e = mysql::Conn::new(from("127.0.0.2", "pw")?);
    let (c, _, m) = e
        .err()
        .and_then(|e| server_error(&e))
        .ok_or("not blocked")?;
    assert_eq!(c, 1129);
    assert_eq!(
        m,
        "Host '127.0.0.2' is blocked because of many connection errors; unblock with \
         'mariadb-admin flush-hosts'"
    );
    // ... but not another host, nor the loopback address itself.
    drop(mysql::Conn::new(from("127.0.0.3", "pw")?)?);
    for _ in 0..4 {
        silent_from("127.0.0.1", server.port)?;
    }
    drop(mysql::Conn::new(from("127.0.0.1", "pw")?)?);
    root.query_drop("FLUSH HOSTS")?;
    drop(mysql::Conn::new(from("127.0.0.2", "pw")?)?);

    // Failed logins from a host: from the second on, each further login
    // waits a growing delay (1 s, then 2 s), until one succeeds.
    for _ in 0..2 {
        assert_eq!(code(mysql::Conn::new(from("127.0.0.4", "bad")?))?, 1045);
    }
    let start = Instant::now();
    assert_eq!(code(mysql::Conn::new(from("127.0.0.4", "bad")?))?, 1045);
    let first = start.elapsed();
    assert!(first >= Duration::from_millis(900), "{first:?}");
    let start = Instant::now();
    drop(mysql::Conn::new(from("127.0.0.4", "pw")?)?);
    assert!(
        start.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        start.elapsed()
    );
    // The success reset it; another host was never slowed.
    let start = Instant::now();
    drop(mysql::Conn::new(from("127.0.0.4", "pw")?)?);
    assert!(start.elapsed() < Duration::from_millis(800));
    // FLUSH HOSTS ends a delay too.
    for _ in 0..3 {
        assert_eq!(code(mysql::Conn::new(from("127.0.0.5", "bad")?))?, 1045);
    }
    root.query_drop("FLUSH HOSTS")?;
    let start = Instant::now();
    drop(mysql::Conn::new(from("127.0.0.5", "pw")?)?);
    assert!(start.elapsed() < Duration::from_millis(800));
    let delayed: Option<(String, String)> =
        root.query_first("SHOW GLOBAL STATUS LIKE 'Connection_control_delay_generated'")?;
    assert_eq!(delayed.map(|r| r.1).as_deref(), Some("3"));
    let mut buf = Vec::new();
    let _ =
        TcpStream::connect(("127.0.0.1", server.port)).and_then(|mut s| s.read_to_end(&mut buf));
    Ok(())
}
