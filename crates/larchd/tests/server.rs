//! End-to-end tests of the `larchd` binary: start-up on a fresh data
//! directory, connections over TCP and the Unix socket with the `mysql`
//! client crate, errors, prepared statements, `max_connections`, `KILL`,
//! clean shutdown (`SHUTDOWN`, SIGTERM, SIGINT) with exit status 0 and a
//! restart, refusal of a second server on the same data directory or a
//! busy port, a restart after SIGKILL, start-up options that set global
//! variables, a thread per connection with its cache and the pool of
//! threads (`--thread-handling`), and the `mariadb` command-line client
//! when it is installed.
//! Only statements the SQL layer supports without tables are used here;
//! tests with tables are in `sql_end_to_end.rs`.

mod support;

use std::process::{Command, Stdio};

use mysql::prelude::Queryable;
use support::{run_to_exit, server_error, tempdir, Larchd, Res};

#[test]
fn queries_errors_prepared_statements_and_shutdown() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let mut server = Larchd::start(&datadir, &[])?;
    assert!(
        server.log().contains("created data directory"),
        "{}",
        server.log()
    );
    assert_eq!(server.socket, datadir.join("larchd.sock"));
    let pid_file = datadir.join("larchd.pid");
    assert_eq!(
        std::fs::read_to_string(&pid_file)?.trim(),
        server.child.id().to_string()
    );

    let mut conn = server.connect()?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    let (version, db): (String, Option<String>) = conn
        .query_first("SELECT @@version, DATABASE()")?
        .ok_or("no row")?;
    assert!(version.contains("Larch"), "{version}");
    assert_eq!(db, None);
    conn.query_drop("USE test")?;
    assert_eq!(
        conn.query_first::<String, _>("SELECT DATABASE()")?,
        Some("test".to_owned())
    );

    let err = conn
        .query_drop("USE no_such_db")
        .err()
        .ok_or("USE succeeded")?;
    let (code, state, message) = server_error(&err).ok_or("not a server error")?;
    assert_eq!((code, state.as_str()), (1049, "42000"), "{message}");
    assert!(message.contains("no_such_db"), "{message}");

    let err = conn.query_drop("SELEC 1").err().ok_or("bad SQL accepted")?;
    let (code, state, _) = server_error(&err).ok_or("not a server error")?;
    assert_eq!((code, state.as_str()), (1064, "42000"));

    // Prepared statements (binary protocol), executed twice.
    // (`?+1` may be typed DOUBLE, as in MySQL 8; compare numerically.)
    let stmt = conn.prep("SELECT ?+1")?;
    assert_eq!(conn.exec_first::<f64, _, _>(&stmt, (41,))?, Some(42.0));
    assert_eq!(conn.exec_first::<f64, _, _>(&stmt, (-1.5,))?, Some(-0.5));
    conn.close(stmt)?;

    // Several statements in one COM_QUERY give several results.
    let mut values = Vec::new();
    {
        let mut results = conn.query_iter("SELECT 1; SELECT 2")?;
        while let Some(set) = results.iter() {
            for row in set {
                values.push(mysql::from_row::<i64>(row?));
            }
        }
    }
    assert_eq!(values, vec![1, 2]);
    conn.ping()?;

    // The connection id of the handshake is the session's.
    assert_eq!(
        conn.query_first::<u64, _>("SELECT CONNECTION_ID()")?,
        Some(u64::from(conn.connection_id()))
    );

    // A database named in the handshake; an unknown one is refused.
    let mut with_db = mysql::Conn::new(server.opts().db_name(Some("test")))?;
    assert_eq!(
        with_db.query_first::<String, _>("SELECT DATABASE()")?,
        Some("test".to_owned())
    );
    let err = mysql::Conn::new(server.opts().db_name(Some("nope")))
        .err()
        .ok_or("unknown database accepted at login")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1049));

    // The Unix socket (host `localhost`).
    let socket_opts = mysql::OptsBuilder::new()
        .socket(Some(server.socket.display().to_string()))
        .user(Some("root"));
    let mut local = mysql::Conn::new(socket_opts)?;
    assert_eq!(local.query_first::<i64, _>("SELECT 7")?, Some(7));
    drop(local);
    drop(with_db);

    // SHUTDOWN: OK, then the server exits 0 and cleans up.
    conn.query_drop("SHUTDOWN")?;
    let status = server.wait()?;
    assert!(status.success(), "exit {status:?}; log:\n{}", server.log());
    let log = server.log();
    assert!(log.contains("Normal shutdown"), "{log}");
    assert!(log.contains("Shutdown complete"), "{log}");
    assert!(!pid_file.exists(), "pid file left behind");
    assert!(!datadir.join("larchd.sock").exists(), "socket left behind");

    // Restart on the same directory, then SIGTERM.
    let mut again = Larchd::start(&datadir, &[])?;
    assert!(!again.log().contains("created data directory"));
    assert!(!again.log().contains("crash recovery"), "{}", again.log());
    let mut conn = again.connect()?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    again.signal("TERM")?;
    let status = again.wait()?;
    assert!(status.success(), "exit {status:?}; log:\n{}", again.log());
    assert!(again.log().contains("initiated by: SIGTERM"));
    Ok(())
}

#[test]
fn second_server_is_refused_and_a_crash_is_recovered() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let first = Larchd::start(&datadir, &[])?;

    let other_socket = dir.path().join("other.sock");
    let (status, log) = run_to_exit(&datadir, &[&format!("--socket={}", other_socket.display())])?;
    assert!(!status.success(), "second server started; log:\n{log}");
    assert!(log.contains("in use by another process"), "{log}");
    assert!(log.contains("[ERROR]") && log.contains("Aborting"), "{log}");
    // The first server is unharmed.
    let mut conn = first.connect()?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    drop(conn);

    // kill -9, then a restart on the same directory works.
    first.crash()?;
    let mut second = Larchd::start(&datadir, &[])?;
    let mut conn = second.connect()?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 2")?, Some(2));
    drop(conn);
    second.signal("INT")?;
    let status = second.wait()?;
    assert!(status.success(), "exit {status:?}; log:\n{}", second.log());
    Ok(())
}

#[test]
fn busy_port_and_bad_options_are_refused() -> Res {
    let dir = tempdir()?;
    let busy = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = busy.local_addr()?.port();
    let datadir = dir.path().join("data");
    let (status, log) = run_to_exit(&datadir, &[&format!("--port={port}")])?;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains(&format!("another server running on port: {port}")),
        "{log}"
    );
    assert!(!datadir.join("larchd.pid").exists());
    assert!(!datadir.join("larchd.sock").exists());

    let (status, log) = run_to_exit(&datadir, &["--frobnicate=1"])?;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("unknown option '--frobnicate'"), "{log}");

    let (status, log) = run_to_exit(&datadir, &["--innodb-flush-method=sometimes"])?;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("innodb_flush_method"), "{log}");

    // --skip-networking: the Unix socket only.
    let mut local = Larchd::start(&datadir, &["--skip-networking"])?;
    assert_eq!(local.port, 0);
    let socket_opts = mysql::OptsBuilder::new()
        .socket(Some(local.socket.display().to_string()))
        .user(Some("root"));
    let mut conn = mysql::Conn::new(socket_opts)?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 5")?, Some(5));
    drop(conn);
    local.signal("TERM")?;
    assert!(local.wait()?.success(), "{}", local.log());

    for flag in ["--help", "--version"] {
        let out = Command::new(env!("CARGO_BIN_EXE_larchd"))
            .arg(flag)
            .output()?;
        assert!(out.status.success(), "{flag}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("larchd"),
            "{flag}"
        );
    }
    Ok(())
}

#[test]
fn options_file_max_connections_and_kill() -> Res {
    let dir = tempdir()?;
    let cnf = dir.path().join("my.cnf");
    std::fs::write(
        &cnf,
        "[client]\nport=1\n[mysqld]\nmax-connections = 2\nskip-name-resolve\nquery_cache_size=0\n",
    )?;
    let datadir = dir.path().join("data");
    // `*`: every address, IPv4 clients of the dual-stack socket included.
    let server = Larchd::start(
        &datadir,
        &[
            &format!("--defaults-file={}", cnf.display()),
            "--bind-address=*",
        ],
    )?;
    assert!(
        server.log().contains("query_cache_size"),
        "{}",
        server.log()
    );

    let mut a = server.connect()?;
    let mut b = server.connect()?;
    // root has SUPER: one more connection, as MariaDB keeps for an
    // administrator; then 1040.
    let _admin = server.connect()?;
    let err = server.connect().err().ok_or("fourth connection accepted")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1040), "{err}");
    assert_eq!(
        a.query_first::<u64, _>("SELECT @@max_connections")?,
        Some(2)
    );

    // KILL from another session closes the connection.
    let victim = b.connection_id();
    a.query_drop(format!("KILL {victim}"))?;
    assert!(
        b.query_drop("SELECT 1").is_err(),
        "killed connection still works"
    );
    let err = a.query_drop("KILL 999999").err().ok_or("KILL of nothing")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1094));
    // The freed slot can be used again. The killed connection's socket
    // closes as the KILL runs, and its slot comes back once its thread has
    // ended the session, a moment later: a client may meet 1040 until then.
    drop(b);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut c = loop {
        match server.connect() {
            Ok(c) => break c,
            Err(e)
                if server_error(&e).map(|e| e.0) == Some(1040)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(e.into()),
        }
    };
    assert_eq!(c.query_first::<i64, _>("SELECT 3")?, Some(3));
    Ok(())
}

#[test]
fn mariadb_command_line_client() -> Res {
    if !support::clients::installed("mariadb_command_line_client", "mariadb") {
        return Ok(());
    }
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut child = Command::new("mariadb")
        .args([
            "-h127.0.0.1",
            &format!("-P{}", server.port),
            "-uroot",
            "--batch",
            "--skip-ssl",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(b"SELECT 1+1 AS two;\nUSE test\nSELECT DATABASE() AS db, @@version LIKE '%Larch%' AS larch;\n")?;
    }
    let out = child.wait_with_output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mariadb failed: {}{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("two\n2\n"), "{stdout}");
    assert!(stdout.contains("db\tlarch\ntest\t1\n"), "{stdout}");
    Ok(())
}

/// Start-up options naming SQL system variables set their global values (and
/// so every new session's), as mysqld's do; a value the variable refuses is
/// a warning in the log, not a failed start.
#[test]
fn startup_options_set_global_variables() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(
        &dir.path().join("data"),
        &[
            "--innodb-lock-wait-timeout=7",
            "--innodb-sort-buffer-size=64M",
            "--sql-mode=ANSI_QUOTES,STRICT_TRANS_TABLES",
            "--transaction-isolation=NOT-A-LEVEL",
        ],
    )?;
    let mut c = server.connect()?;
    assert_eq!(
        c.query_first::<u64, _>("SELECT @@GLOBAL.innodb_lock_wait_timeout")?,
        Some(7)
    );
    assert_eq!(
        c.query_first::<u64, _>("SELECT @@SESSION.innodb_lock_wait_timeout")?,
        Some(7)
    );
    assert_eq!(
        c.query_first::<u64, _>("SELECT @@GLOBAL.innodb_sort_buffer_size")?,
        Some(64 << 20)
    );
    assert_eq!(
        c.query_first::<String, _>("SELECT @@GLOBAL.sql_mode")?,
        Some("ANSI_QUOTES,STRICT_TRANS_TABLES".to_owned())
    );
    assert_eq!(
        c.query_first::<String, _>("SELECT @@GLOBAL.transaction_isolation")?,
        Some("REPEATABLE-READ".to_owned())
    );
    let log = server.log();
    assert!(
        log.contains("option not applied: --transaction_isolation=NOT-A-LEVEL"),
        "{log}"
    );
    Ok(())
}

/// The server's threads named `name` (from /proc; None where there is none).
fn threads_named(server: &Larchd, name: &str) -> Option<usize> {
    let dir = format!("/proc/{}/task", server.child.id());
    let tasks = std::fs::read_dir(dir).ok()?;
    Some(
        tasks
            .filter_map(|t| t.ok())
            .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
            .filter(|comm| comm.trim() == name)
            .count(),
    )
}

/// Waits up to 10 s for `f` to hold.
fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    f()
}

#[test]
fn a_thread_per_connection_and_its_cache() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &["--thread-cache-size=1"])?;
    let mut a = server.connect()?;
    let mode: Option<(String, u64)> =
        a.query_first("SELECT @@thread_handling, @@thread_cache_size")?;
    assert_eq!(mode, Some(("one-thread-per-connection".to_owned(), 1)));
    // A statement that waits holds up only its own connection.
    let mut b = server.connect()?;
    let sleeper = std::thread::spawn(move || b.query_first::<i64, _>("SELECT SLEEP(2)"));
    std::thread::sleep(std::time::Duration::from_millis(200));
    let started = std::time::Instant::now();
    for i in 0..20 {
        assert_eq!(a.query_first::<i64, _>(format!("SELECT {i}"))?, Some(i));
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(sleeper.join().map_err(|_| "sleeper panicked")??, Some(0));
    if threads_named(&server, "larchd-conn").is_some() {
        // `a`'s thread and `b`'s, idle once `b` has ended (which the server
        // sees a moment after the client closed it).
        let threads = || threads_named(&server, "larchd-conn");
        assert!(eventually(|| threads() == Some(2)), "{:?}", threads());
        std::thread::sleep(std::time::Duration::from_millis(300));
        // The next connection takes the idle thread.
        let mut c = server.connect()?;
        assert_eq!(c.query_first::<i64, _>("SELECT 4")?, Some(4));
        assert_eq!(threads(), Some(2));
        // Of `a`'s and `c`'s threads, one stays (the cache holds one).
        drop(c);
        drop(a);
        assert!(eventually(|| threads() == Some(1)), "{:?}", threads());
        std::thread::sleep(std::time::Duration::from_millis(300));
        let mut d = server.connect()?;
        assert_eq!(d.query_first::<i64, _>("SELECT 5")?, Some(5));
        assert_eq!(threads(), Some(1));
    }
    Ok(())
}

#[test]
fn a_pool_of_threads() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(
        &dir.path().join("data"),
        &["--thread-handling=pool-of-threads"],
    )?;
    let mut a = server.connect()?;
    let mode: Option<String> = a.query_first("SELECT @@thread_handling")?;
    assert_eq!(mode.as_deref(), Some("pool-of-threads"));
    let mut b = server.connect()?;
    let sleeper = std::thread::spawn(move || b.query_first::<i64, _>("SELECT SLEEP(1)"));
    std::thread::sleep(std::time::Duration::from_millis(200));
    let started = std::time::Instant::now();
    assert_eq!(a.query_first::<i64, _>("SELECT 7")?, Some(7));
    assert!(started.elapsed() < std::time::Duration::from_millis(700));
    assert_eq!(sleeper.join().map_err(|_| "sleeper panicked")??, Some(0));
    assert_eq!(threads_named(&server, "larchd-conn").unwrap_or(0), 0);
    Ok(())
}
