//! Connections on threads of their own (`Threading::PerConnection`), served
//! with blocking socket calls: queries and prepared statements over TCP and
//! a Unix socket, TLS, `max_allowed_packet`, a kill that wakes a thread
//! blocked reading its socket or writing to a client that does not read,
//! and the timeouts: `wait_timeout`, `connect_timeout` for the handshake,
//! `net_write_timeout`, changed while connections run (as `SET GLOBAL`) or
//! set by a session for its own connection (as `SET SESSION`).

mod support;

use larch_wire::{ConnectionThreads, ServerConfig, Threading, TimeoutKind, TlsSettings};
use mysql::prelude::Queryable;
use mysql::{Conn, SslOpts};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use support::raw::{default_caps, RawClient};
use support::{mysql_error, test_config, TestServer};

type Res = Result<(), Box<dyn std::error::Error>>;

fn threaded(config: ServerConfig) -> Result<TestServer, Box<dyn std::error::Error>> {
    threaded_with(config, None)
}

fn threaded_with(
    config: ServerConfig,
    unix: Option<PathBuf>,
) -> Result<TestServer, Box<dyn std::error::Error>> {
    let threads = ConnectionThreads::new("test-conn", 4);
    TestServer::start_threaded(config, unix, Threading::PerConnection(threads))
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) -> Res {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        if Instant::now() >= deadline {
            return Err(format!("timed out waiting for {what}").into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

#[test]
fn queries_and_prepared_statements_over_tcp_and_a_unix_socket() -> Res {
    let dir = std::env::temp_dir().join(format!("larch-wire-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("s.sock");
    let server = threaded_with(test_config(), Some(path.clone()))?;
    let mut tcp = Conn::new(server.opts("native", "pw"))?;
    assert_eq!(tcp.query_first::<i64, _>("SELECT 7")?, Some(7));
    tcp.exec_drop("INSERT INTO kv VALUES (?, ?)", (1, "one"))?;
    tcp.exec_drop("INSERT INTO kv VALUES (?, ?)", (2, "two"))?;
    let v: Option<String> = tcp.exec_first("SELECT v FROM kv WHERE k = ?", (2,))?;
    assert_eq!(v.as_deref(), Some("two"));
    // A response larger than the socket buffers goes out whole.
    let big: String = "x".repeat(3 << 20);
    tcp.query_drop(format!("PUT 3 {big}"))?;
    assert_eq!(tcp.query_first::<String, _>("GET 3")?, Some(big));

    let unix = mysql::OptsBuilder::new()
        .socket(Some(path.to_string_lossy().into_owned()))
        .prefer_socket(false)
        .user(Some("native"))
        .pass(Some("pw"));
    let mut unix = Conn::new(unix)?;
    assert_eq!(
        unix.query_first::<String, _>("GET 1")?.as_deref(),
        Some("one")
    );
    drop(unix);
    drop(tcp);
    wait_until("the connections to end", || server.server.connected() == 0)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn tls_on_a_connection_thread() -> Res {
    let fixtures = support::tls_fixtures();
    let tls = TlsSettings::load(
        &fixtures.join("server-cert.pem"),
        &fixtures.join("server-key.pem"),
        None,
    )?;
    let server = threaded(ServerConfig {
        tls: Some(tls),
        rsa_key_bits: None,
        ..test_config()
    })?;
    let ssl = SslOpts::default().with_root_cert_path(Some(fixtures.join("ca.pem")));
    // caching_sha2 full authentication needs TLS here (no RSA key).
    let mut conn = Conn::new(server.opts("sha2", "pw2").ssl_opts(ssl))?;
    let tls = server.state.login_tls.lock().last().cloned().flatten();
    assert_eq!(tls.map(|t| t.version).as_deref(), Some("TLSv1.3"));
    let value: String = (0..200_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    conn.query_drop(format!("PUT 1 {value}"))?;
    assert_eq!(conn.query_first::<String, _>("GET 1")?, Some(value));
    Ok(())
}

#[test]
fn an_oversized_packet_gets_1153_and_closes() -> Res {
    let server = threaded(ServerConfig {
        max_allowed_packet: 1 << 20,
        ..test_config()
    })?;
    let mut conn = Conn::new(
        server
            .opts("native", "pw")
            .max_allowed_packet(Some(64 << 20)),
    )?;
    let err = conn
        .query_drop(format!("ECHO_LEN {}", "a".repeat(2 << 20)))
        .err()
        .ok_or("oversized query accepted")?;
    let (code, state, _) = mysql_error(&err).ok_or(format!("not a server error: {err}"))?;
    assert_eq!((code, state.as_str()), (1153, "08S01"));
    assert!(conn.ping().is_err(), "connection should be closed");
    Ok(())
}

#[test]
fn a_kill_wakes_a_thread_waiting_for_a_command() -> Res {
    let server = threaded(test_config())?;
    let mut victim = Conn::new(server.opts("native", "pw"))?;
    let mut other = Conn::new(server.opts("native", "pw"))?;
    assert_eq!(victim.query_first::<i64, _>("SELECT 1")?, Some(1));
    let id = victim.connection_id();
    wait_until("two connections", || server.server.connected() == 2)?;
    // The victim's thread sleeps in a read of its socket; the kill must
    // end it without any packet from the victim.
    assert!(server.server.kill(id, false));
    wait_until("the killed connection to end", || {
        server.server.connected() == 1
    })?;
    assert!(victim.query_drop("SELECT 1").is_err());
    assert_eq!(other.query_first::<i64, _>("SELECT 2")?, Some(2));
    Ok(())
}

#[test]
fn an_idle_connection_closes_after_the_idle_timeout() -> Res {
    let server = threaded(ServerConfig {
        idle_timeout: Some(Duration::from_millis(300)),
        ..test_config()
    })?;
    let mut conn = Conn::new(server.opts("native", "pw"))?;
    // Commands closer together than the timeout keep it open.
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    }
    wait_until("the idle connection to close", || {
        server.server.connected() == 0
    })?;
    assert!(conn.query_drop("SELECT 1").is_err());
    Ok(())
}

/// A COM_QUERY payload.
fn query(sql: &str) -> Vec<u8> {
    let mut payload = vec![0x03];
    payload.extend_from_slice(sql.as_bytes());
    payload
}

/// A result far larger than the socket buffers of both ends: the server's
/// thread blocks writing it while the client does not read.
const UNREAD: &str = "BIG 67108864";

/// How long a test waits for a connection to end: well below the default
/// `net_write_timeout` (60 s) and `net_read_timeout` (30 s), so only the
/// mechanism under test can end it in time.
fn ended_soon(server: &TestServer, what: &str) -> Res {
    wait_until(what, || server.server.connected() == 0)
}

#[test]
fn a_kill_frees_a_thread_blocked_writing_to_a_client_that_does_not_read() -> Res {
    let server = threaded(test_config())?;
    let mut client = RawClient::login(server.addr, "native", "pw", default_caps())?;
    client.command(&query(UNREAD))?;
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.server.connected(), 1);
    assert!(server.server.kill(client.connection_id, false));
    ended_soon(&server, "the killed connection to end")?;
    Ok(())
}

#[test]
fn a_global_write_timeout_change_reaches_a_running_connection() -> Res {
    let server = threaded(test_config())?;
    let mut client = RawClient::login(server.addr, "native", "pw", default_caps())?;
    server
        .server
        .set_timeout(TimeoutKind::NetWrite, Some(Duration::from_millis(300)));
    // The connection's next command runs under the new value.
    client.command(&query("PUT 1 a"))?;
    assert_eq!(client.read()?.first(), Some(&0x00));
    client.command(&query(UNREAD))?;
    ended_soon(&server, "the write to time out")?;
    Ok(())
}

#[test]
fn a_session_write_timeout_applies_to_its_own_connection() -> Res {
    let server = threaded(test_config())?;
    let mut slow = RawClient::login(server.addr, "native", "pw", default_caps())?;
    let mut other = Conn::new(server.opts("native", "pw"))?;
    slow.command(&query("TIMEOUT WRITE 300"))?;
    assert_eq!(slow.read()?.first(), Some(&0x00));
    slow.command(&query(UNREAD))?;
    wait_until("the session's write to time out", || {
        server.server.connected() == 1
    })?;
    // The other connection keeps the server's value and its connection.
    assert_eq!(other.query_first::<i64, _>("SELECT 3")?, Some(3));
    assert_eq!(
        server.server.timeout(TimeoutKind::NetWrite),
        Some(Duration::from_secs(60))
    );
    Ok(())
}

#[test]
fn the_handshake_waits_connect_timeout_not_net_read_timeout() -> Res {
    let server = threaded(ServerConfig {
        connect_timeout: Some(Duration::from_millis(300)),
        net_read_timeout: Some(Duration::from_secs(60)),
        ..test_config()
    })?;
    let mut client = RawClient::open(server.addr)?;
    let greeting = client.read()?;
    assert_eq!(greeting.first(), Some(&10), "protocol 10 greeting");
    // No handshake response: the server gives up after connect_timeout.
    ended_soon(&server, "the silent handshake to time out")?;
    assert!(client.is_closed());
    // A login within the limit is unaffected, and so are its commands.
    let mut conn = Conn::new(server.opts("native", "pw"))?;
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(conn.query_first::<i64, _>("SELECT 4")?, Some(4));
    Ok(())
}

#[test]
fn wait_timeout_changed_globally_or_by_the_session() -> Res {
    let server = threaded(test_config())?;
    let mut global = Conn::new(server.opts("native", "pw"))?;
    let mut own = Conn::new(server.opts("native", "pw"))?;
    own.query_drop("TIMEOUT WAIT 300")?;
    std::thread::sleep(Duration::from_millis(600));
    // The session's own wait_timeout closed its connection, not the other.
    assert!(own.query_drop("SELECT 1").is_err());
    assert_eq!(global.query_first::<i64, _>("SELECT 5")?, Some(5));
    // A global change applies from the connection's next command on.
    server
        .server
        .set_timeout(TimeoutKind::Wait, Some(Duration::from_millis(300)));
    assert_eq!(global.query_first::<i64, _>("SELECT 6")?, Some(6));
    wait_until("the idle connection to close", || {
        server.server.connected() == 0
    })?;
    assert!(global.query_drop("SELECT 1").is_err());
    Ok(())
}
