//! The connection timeouts of the real `larchd` on connections with a
//! thread of their own: a session's `SET SESSION wait_timeout` applies to
//! its own connection only, `SET GLOBAL wait_timeout` to every connection
//! without a value of its own from its next command on, and the handshake
//! waits `connect_timeout` (not `net_read_timeout`). `net_read_timeout`
//! and `net_write_timeout` take the same paths (see
//! `crates/larch-wire/tests/connection_threads.rs` for the socket side).

mod support;

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, Larchd, Res};

/// Idle time that outlasts a 1-second timeout.
const PAST_ONE_SECOND: Duration = Duration::from_millis(2_500);

#[test]
fn wait_timeout_of_the_session_and_of_the_server() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut admin = server.connect()?;
    let mut own = server.connect()?;
    let mut follower = server.connect()?;

    own.query_drop("SET SESSION wait_timeout = 1")?;
    assert_eq!(
        own.query_first::<u64, _>("SELECT @@SESSION.wait_timeout")?,
        Some(1)
    );
    std::thread::sleep(PAST_ONE_SECOND);
    assert!(
        own.query_drop("SELECT 1").is_err(),
        "the session's own wait_timeout closes its connection"
    );
    assert_eq!(admin.query_first::<i64, _>("SELECT 2")?, Some(2));

    // A session that set its own value keeps it when the global changes.
    let mut keeper = server.connect()?;
    keeper.query_drop("SET SESSION wait_timeout = 600")?;
    admin.query_drop("SET GLOBAL wait_timeout = 1")?;
    // The follower's next wait runs under the new global value (the
    // admin's too). The default comes back from a new connection once the
    // waits are over, so no wait can start under it by a race.
    follower.query_drop("SELECT 1")?;
    keeper.query_drop("SELECT 1")?;
    std::thread::sleep(PAST_ONE_SECOND);
    assert!(
        follower.query_drop("SELECT 1").is_err(),
        "SET GLOBAL wait_timeout reaches a running connection"
    );
    assert_eq!(keeper.query_first::<i64, _>("SELECT 3")?, Some(3));
    drop(admin);
    let mut admin = server.connect()?;
    admin.query_drop("SET GLOBAL wait_timeout = DEFAULT")?;
    assert_eq!(
        admin.query_first::<u64, _>("SELECT @@GLOBAL.wait_timeout")?,
        Some(28_800)
    );
    Ok(())
}

#[test]
fn the_handshake_waits_connect_timeout() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(
        &dir.path().join("data"),
        &["--connect-timeout=2", "--net-read-timeout=60"],
    )?;
    let mut admin = server.connect()?;
    assert_eq!(
        admin.query_first::<u64, _>("SELECT @@GLOBAL.connect_timeout")?,
        Some(2)
    );
    let mut silent = TcpStream::connect(("127.0.0.1", server.port))?;
    silent.set_read_timeout(Some(Duration::from_secs(20)))?;
    let started = Instant::now();
    let mut buf = vec![0u8; 4096];
    // The greeting, then nothing from the client: the server closes.
    let greeting = silent.read(&mut buf)?;
    assert!(greeting > 4, "a greeting");
    let end = silent.read(&mut buf);
    assert!(
        matches!(end, Ok(0) | Err(_)),
        "the server closes the silent connection: {end:?}"
    );
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(10),
        "closed after connect_timeout, not net_read_timeout: {waited:?}"
    );
    // SET GLOBAL connect_timeout reaches the next handshakes.
    admin.query_drop("SET GLOBAL connect_timeout = 30")?;
    let mut patient = TcpStream::connect(("127.0.0.1", server.port))?;
    patient.set_read_timeout(Some(Duration::from_millis(3_500)))?;
    assert!(patient.read(&mut buf)? > 4, "a greeting");
    let still_open = patient.read(&mut buf);
    assert!(
        matches!(&still_open, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
            || e.kind() == std::io::ErrorKind::TimedOut),
        "the handshake now waits longer: {still_open:?}"
    );
    Ok(())
}
