//! A thousand simultaneous connections to the real `larchd`
//! (`--max-connections=1000`): every one logs in and runs a query under its
//! own connection id, `Threads_connected` counts them all, one more is
//! let in for an administrator and the next refused with ER 1040 "Too many
//! connections" while the others keep working, a freed slot can be taken
//! again, and once they are closed
//! `Threads_connected` falls back.
//!
//! Each connection holds a socket in this process and one (with its thread's
//! descriptors) in larchd: the test raises its own soft limit on open files,
//! and checks that larchd raised its own (`raise_open_files_limit`).

mod support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{server_error, tempdir, Larchd, Res};

/// `--max-connections`, and the connections held.
const MAX: usize = 1000;

/// Threads opening the connections.
const OPENERS: usize = 8;

/// Raises this process's soft limit on open files to `wanted`.
fn raise_open_files(wanted: u64) -> Res {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` into the valid, exclusively
    // borrowed `limit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err("getrlimit(RLIMIT_NOFILE) failed".into());
    }
    let wanted = wanted as libc::rlim_t;
    if limit.rlim_cur >= wanted {
        return Ok(());
    }
    if limit.rlim_max < wanted {
        return Err(format!(
            "the hard limit on open files is {}; this test needs {wanted}",
            limit.rlim_max
        )
        .into());
    }
    let raised = libc::rlimit {
        rlim_cur: wanted,
        rlim_max: limit.rlim_max,
    };
    // SAFETY: setrlimit reads one valid `rlimit`; it changes only this
    // process's limit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        return Err("setrlimit(RLIMIT_NOFILE) failed".into());
    }
    Ok(())
}

/// The soft limit on open files of process `pid` (Linux's /proc).
fn open_files_limit_of(pid: u32) -> Option<u64> {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

fn threads_connected(c: &mut mysql::Conn) -> Result<u64, Box<dyn std::error::Error>> {
    let row: Option<(String, String)> =
        c.query_first("SHOW GLOBAL STATUS LIKE 'Threads_connected'")?;
    let (_, value) = row.ok_or("no Threads_connected")?;
    Ok(value.parse()?)
}

/// Waits up to 20 s for `Threads_connected` to be `want`.
fn wait_threads_connected(c: &mut mysql::Conn, want: u64) -> Res {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = threads_connected(c)?;
        if got == want {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!("Threads_connected is {got}, expected {want}").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `SELECT CONNECTION_ID()` on `c`, checked against the handshake's id.
fn connection_id(c: &mut mysql::Conn) -> Result<u64, Box<dyn std::error::Error>> {
    let id: u64 = c
        .query_first("SELECT CONNECTION_ID()")?
        .ok_or("no CONNECTION_ID()")?;
    assert_eq!(id, u64::from(c.connection_id()));
    Ok(id)
}

/// Opens `n` connections, each running `SELECT CONNECTION_ID()`.
fn open(server: &Larchd, n: usize) -> Result<Vec<(mysql::Conn, u64)>, String> {
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        let mut c = server.connect().map_err(|e| e.to_string())?;
        let id = connection_id(&mut c).map_err(|e| e.to_string())?;
        conns.push((c, id));
    }
    Ok(conns)
}

#[test]
fn a_thousand_connections_then_too_many() -> Res {
    raise_open_files(MAX as u64 + 1024)?;
    let dir = tempdir()?;
    let max = format!("--max-connections={MAX}");
    let server = Larchd::start(&dir.path().join("data"), &[&max])?;
    if let Some(limit) = open_files_limit_of(server.child.id()) {
        assert!(
            limit >= 3 * MAX as u64,
            "larchd's open files limit: {limit}"
        );
    }
    let started = Instant::now();
    let mut admin = server.connect()?;

    // The other MAX - 1 connections, opened by several threads at once.
    let mut conns: Vec<(mysql::Conn, u64)> = Vec::with_capacity(MAX);
    std::thread::scope(|s| -> Res {
        let server = &server;
        let openers: Vec<_> = (0..OPENERS)
            .map(|i| {
                let n = (MAX - 1) / OPENERS + usize::from(i < (MAX - 1) % OPENERS);
                s.spawn(move || open(server, n))
            })
            .collect();
        for o in openers {
            conns.extend(o.join().map_err(|_| "an opener panicked")??);
        }
        Ok(())
    })?;
    let admin_id = connection_id(&mut admin)?;
    let ids: HashSet<u64> = conns.iter().map(|(_, id)| *id).chain([admin_id]).collect();
    assert_eq!(ids.len(), MAX, "connection ids are not distinct");
    assert_eq!(threads_connected(&mut admin)?, MAX as u64);
    let listed: Option<u64> =
        admin.query_first("SELECT COUNT(*) FROM information_schema.PROCESSLIST")?;
    assert_eq!(listed, Some(MAX as u64));

    // One more for an administrator (root has SUPER), as MariaDB keeps
    // one beyond max_connections; past it, refused; the others keep working.
    let extra_admin = server.connect()?;
    let err = server
        .connect()
        .err()
        .ok_or("connection beyond max_connections + 1")?;
    let (code, state, message) = server_error(&err).ok_or_else(|| format!("{err}"))?;
    assert_eq!(
        (code, state.as_str(), message.as_str()),
        (1040, "08004", "Too many connections")
    );
    for (c, id) in &mut conns {
        assert_eq!(connection_id(c)?, *id);
    }
    drop(extra_admin);
    wait_threads_connected(&mut admin, MAX as u64)?;

    // A closed connection's slot is taken again.
    drop(conns.pop());
    wait_threads_connected(&mut admin, MAX as u64 - 1)?;
    let (c, id) = open(&server, 1)?.pop().ok_or("no connection")?;
    assert!(!ids.contains(&id), "connection id {id} reused");
    conns.push((c, id));
    assert_eq!(threads_connected(&mut admin)?, MAX as u64);

    drop(conns);
    wait_threads_connected(&mut admin, 1)?;
    assert_eq!(connection_id(&mut admin)?, admin_id);
    println!(
        "{MAX} connections opened, used and closed in {:?}",
        started.elapsed()
    );
    Ok(())
}
