//! The connection timeouts of the real `larchd` on connections with a
//! thread of their own: a session's `SET SESSION wait_timeout` applies to
//! its own connection only, `SET GLOBAL wait_timeout` to the connections
//! made after it (each copies the global values when it connects), and the
//! handshake waits `connect_timeout` (not `net_read_timeout`).
//! `net_read_timeout` and `net_write_timeout` take the same paths (see
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
    let server = Larchd::start(&dir.path().join("data"), &["--wait-timeout=600"])?;
    let mut admin = server.connect()?;
    let mut own = server.connect()?;
    let mut follower = server.connect()?;
    // The start-up option is the global value sessions copy.
    assert_eq!(
        admin
            .query_first::<(u64, u64), _>("SELECT @@GLOBAL.wait_timeout, @@SESSION.wait_timeout")?,
        Some((600, 600))
    );

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

    // As in MariaDB, a session copies the global value when it connects:
    // SET GLOBAL reaches the connections made after it, not the running
    // ones (the admin's own included).
    admin.query_drop("SET GLOBAL wait_timeout = 1")?;
    let mut newcomer = server.connect()?;
    assert_eq!(
        newcomer.query_first::<u64, _>("SELECT @@SESSION.wait_timeout")?,
        Some(1)
    );
    assert_eq!(
        follower.query_first::<u64, _>("SELECT @@SESSION.wait_timeout")?,
        Some(600)
    );
    // The default comes back from a connection made before the change, so
    // no connection made under the default can be waiting under 1 s.
    admin.query_drop("SET GLOBAL wait_timeout = DEFAULT")?;
    std::thread::sleep(PAST_ONE_SECOND);
    assert!(
        newcomer.query_drop("SELECT 1").is_err(),
        "a connection made after SET GLOBAL wait_timeout waits under it"
    );
    assert_eq!(follower.query_first::<i64, _>("SELECT 3")?, Some(3));
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
