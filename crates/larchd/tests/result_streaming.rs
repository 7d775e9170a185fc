//! A SELECT's rows go to the client while the statement runs, through a
//! running `larchd` with the `mysql` crate (which reads rows as they come):
//!
//! - a result of 30 MB is sent as it is read, in the text protocol and in
//!   the binary protocol of a prepared statement, with one thread per
//!   connection and with the pool of threads: after the client has read
//!   its first rows, the statement is still running (the server waits for
//!   the client to take more), and every row arrives once, in order;
//! - a statement killed after some of its rows went out ends with the
//!   error (1317) after them, and the connection goes on;
//! - the LIMIT's offset and count, and FOUND_ROWS(), hold for streamed
//!   rows.

mod support;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{server_error, tempdir, Larchd, Res};

/// Rows in the table, each about 1,000 bytes.
const ROWS: u64 = 30_000;

fn fill(server: &Larchd) -> Result<mysql::Conn, Box<dyn std::error::Error>> {
    let mut root = server.connect()?;
    root.query_drop("CREATE DATABASE s")?;
    root.query_drop("USE s")?;
    root.query_drop("CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(2000))")?;
    root.query_drop("SET max_recursive_iterations = 100000")?;
    root.query_drop(format!(
        "INSERT INTO big WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
         WHERE i < {ROWS}) SELECT i, CONCAT(LPAD(i, 6, '0'), REPEAT('x', 994)) FROM n"
    ))?;
    Ok(root)
}

/// The command of the connection running a statement that contains
/// `marker` (`None`: no such statement is running).
fn running(root: &mut mysql::Conn, marker: &str) -> mysql::Result<Option<String>> {
    let rows: Vec<mysql::Row> = root.query("SHOW PROCESSLIST")?;
    Ok(rows.iter().find_map(|r| {
        let info = r.get::<Option<String>, _>(7).flatten()?;
        let command = r.get::<Option<String>, _>(4).flatten()?;
        (info.contains(marker) && !info.contains("PROCESSLIST")).then_some(command)
    }))
}

/// Waits up to 10 s for the statement with `marker` to be running.
fn wait_running(root: &mut mysql::Conn, marker: &str) -> Res {
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(root, marker)?.is_none() {
        if Instant::now() > deadline {
            return Err(format!("`{marker}` is not running after the client read rows").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Reads the rows of `result` checking that they are the table's, in
/// order from `first`; returns how many came.
fn read_in_order<P: mysql::prelude::Protocol>(
    result: &mut mysql::QueryResult<'_, '_, '_, P>,
    first: u64,
) -> Result<u64, Box<dyn std::error::Error>> {
    let mut next = first;
    for row in result.by_ref() {
        let (id, pad): (u64, String) = mysql::from_row(row?);
        assert_eq!(id, next, "rows out of order");
        assert_eq!(pad.len(), 1000);
        assert_eq!(&pad[..6], format!("{id:06}"));
        next += 1;
    }
    Ok(next - first)
}

/// The text and the binary protocol both stream; `options` start larchd.
fn rows_go_out_while_the_statement_runs(options: &[&str]) -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), options)?;
    let mut root = fill(&server)?;
    let mut client = server.connect()?;
    client.query_drop("USE s")?;

    // Text protocol.
    let sql = "SELECT id, pad FROM big /* streamed_text */";
    let mut result = client.query_iter(sql)?;
    for expected in 1..=10u64 {
        let row = result.next().ok_or("no row")??;
        assert_eq!(mysql::from_row::<(u64, String)>(row).0, expected);
    }
    // The first rows arrived before the statement finished: it waits for
    // the client to take the rest.
    wait_running(&mut root, "streamed_text")?;
    assert_eq!(read_in_order(&mut result, 11)?, ROWS - 10);
    drop(result);
    assert_eq!(running(&mut root, "streamed_text")?, None);
    let found: Option<u64> = client.query_first("SELECT FOUND_ROWS()")?;
    assert_eq!(found, Some(ROWS));

    // Binary protocol (a prepared statement with a parameter).
    let stmt = client.prep("SELECT id, pad FROM big WHERE id >= ? /* streamed_binary */")?;
    let mut result = client.exec_iter(&stmt, (5,))?;
    for expected in 5..15u64 {
        let row = result.next().ok_or("no row")??;
        assert_eq!(mysql::from_row::<(u64, String)>(row).0, expected);
    }
    wait_running(&mut root, "streamed_binary")?;
    assert_eq!(read_in_order(&mut result, 15)?, ROWS - 14);
    drop(result);

    // The LIMIT's offset and count apply to streamed rows.
    let mut result = client.query_iter("SELECT id, pad FROM big LIMIT 2000, 25000")?;
    assert_eq!(read_in_order(&mut result, 2001)?, 25_000);
    drop(result);
    let found: Option<u64> = client.query_first("SELECT FOUND_ROWS()")?;
    assert_eq!(found, Some(25_000));
    Ok(())
}

#[test]
fn rows_go_out_while_the_statement_runs_with_a_thread_per_connection() -> Res {
    rows_go_out_while_the_statement_runs(&[])
}

#[test]
fn rows_go_out_while_the_statement_runs_with_a_pool_of_threads() -> Res {
    rows_go_out_while_the_statement_runs(&["--thread-handling=pool-of-threads"])
}

#[test]
fn a_statement_killed_after_rows_went_out_ends_with_the_error_after_them() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), &[])?;
    let mut root = fill(&server)?;
    let mut client = server.connect()?;
    client.query_drop("USE s")?;
    let id = client.connection_id();
    let mut result = client.query_iter("SELECT id, pad FROM big /* killed_stream */")?;
    for expected in 1..=10u64 {
        let row = result.next().ok_or("no row")??;
        assert_eq!(mysql::from_row::<(u64, String)>(row).0, expected);
    }
    wait_running(&mut root, "killed_stream")?;
    root.query_drop(format!("KILL QUERY {id}"))?;
    let mut read = 10u64;
    let error = loop {
        match result.next() {
            Some(Ok(_)) => read += 1,
            Some(Err(e)) => break e,
            None => return Err(format!("all {read} rows came after KILL QUERY").into()),
        }
    };
    assert!(read < ROWS, "{read} rows");
    let (code, state, _) = server_error(&error).ok_or(format!("not a server error: {error}"))?;
    assert_eq!((code, state.as_str()), (1317, "70100"));
    drop(result);
    // The connection is in step and goes on.
    let one: Option<u64> = client.query_first("SELECT 1")?;
    assert_eq!(one, Some(1));
    let count: Option<u64> = client.query_first("SELECT COUNT(*) FROM big")?;
    assert_eq!(count, Some(ROWS));
    Ok(())
}
