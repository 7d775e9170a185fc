//! `--log-error=FILE`: the error log goes to the file, created with its
//! directory, instead of stderr: the start-up lines, the ready line with
//! the port clients connect to, and the shutdown lines; a restart appends
//! to the same file. `@@log_error` names the file.

mod support;

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, wait_child, Res, TIMEOUT};

/// Starts larchd logging to `log` and waits for the `n`-th ready line in
/// it; returns the process and the port of that line.
fn start(datadir: &Path, log: &Path, n: usize) -> Result<(Child, u16), String> {
    let mut child = support::command(datadir, &[&format!("--log-error={}", log.display())])
        .spawn()
        .map_err(|e| format!("cannot run larchd: {e}"))?;
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let port = text
            .lines()
            .filter(|l| l.starts_with("Version:"))
            .nth(n - 1)
            .and_then(|l| l.split("port: ").nth(1))
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse::<u16>().ok());
        if let Some(port) = port {
            return Ok((child, port));
        }
        if Instant::now() >= deadline || child.try_wait().ok().flatten().is_some() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("larchd did not become ready; log:\n{text}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Connects to `port`, runs a query, and shuts the server down with
/// SHUTDOWN; returns what larchd wrote on stderr.
fn use_and_shut_down(
    mut child: Child,
    port: u16,
    log: &Path,
) -> Result<String, Box<dyn std::error::Error>> {
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .prefer_socket(false);
    let mut conn = mysql::Conn::new(opts)?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1 + 1")?, Some(2));
    let shown: Option<String> = conn.query_first("SELECT @@global.log_error")?;
    assert_eq!(shown, Some(log.display().to_string()), "@@log_error");
    conn.query_drop("SHUTDOWN")?;
    let status = wait_child(&mut child, TIMEOUT)?;
    assert!(status.success(), "{status}");
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        std::io::Read::read_to_string(&mut e, &mut stderr)?;
    }
    Ok(stderr)
}

/// Fails unless `needles` occur in `text` in this order.
fn assert_in_order(text: &str, needles: &[&str]) {
    let mut at = 0;
    for n in needles {
        match text[at..].find(n) {
            Some(i) => at += i + n.len(),
            None => panic!("{n:?} missing (or out of order) in the log:\n{text}"),
        }
    }
}

#[test]
fn the_error_log_file_gets_start_up_and_shutdown() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    // The directory does not exist yet.
    let log = dir.path().join("logs").join("larchd.err");
    let (child, port) = start(&datadir, &log, 1)?;
    let stderr = use_and_shut_down(child, port, &log)?;
    assert_eq!(stderr, "", "larchd wrote on stderr");
    let first = std::fs::read_to_string(&log)?;
    assert_in_order(
        &first,
        &[
            "[Note] Starting Larch",
            "[Note] InnoDB: created data directory",
            "[Note] larchd: ready for connections.",
            &format!("port: {port}"),
            "[Note] larchd (initiated by: ",
            "Normal shutdown",
            "[Note] larchd: Shutdown complete",
        ],
    );
    assert!(first.ends_with("Shutdown complete\n"), "{first}");

    // A restart appends.
    let (child, port) = start(&datadir, &log, 2)?;
    let stderr = use_and_shut_down(child, port, &log)?;
    assert_eq!(stderr, "", "larchd wrote on stderr");
    let both = std::fs::read_to_string(&log)?;
    assert!(both.starts_with(&first), "the first run's lines were lost");
    let second = &both[first.len()..];
    assert_in_order(
        second,
        &[
            "[Note] Starting Larch",
            "[Note] larchd: ready for connections.",
            &format!("port: {port}"),
            "Normal shutdown",
            "[Note] larchd: Shutdown complete",
        ],
    );
    assert!(!second.contains("created data directory"), "{second}");
    Ok(())
}
