//! The status variables of threads and connections as MariaDB counts them
//! (`Threads_cached`, `Threads_created`, `Threads_connected`,
//! `Threads_running`, `Connections`), in `SHOW GLOBAL STATUS` and
//! `INFORMATION_SCHEMA.GLOBAL_STATUS`, and `SET GLOBAL thread_cache_size`
//! resizing the running thread cache, against the real `larchd`.

mod support;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, Larchd, Res};

/// One status variable through `SHOW GLOBAL STATUS`.
fn status(c: &mut mysql::Conn, name: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let row: Option<(String, String)> =
        c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    let (shown, value) = row.ok_or_else(|| format!("no status variable {name}"))?;
    assert_eq!(shown, name);
    Ok(value.parse()?)
}

/// Waits up to 10 s for status variable `name` to be `want`.
fn wait_status(c: &mut mysql::Conn, name: &str, want: u64) -> Res {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = status(c, name)?;
        if got == want {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!("{name} is {got}, expected {want}").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn thread_and_connection_counts_and_a_resizable_cache() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &["--thread-cache-size=2"])?;
    let mut a = server.connect()?;
    let connections = status(&mut a, "Connections")?;
    assert!(connections >= 1);
    assert_eq!(status(&mut a, "Threads_connected")?, 1);
    // The connection asking is running its statement.
    assert_eq!(status(&mut a, "Threads_running")?, 1);
    let created = status(&mut a, "Threads_created")?;
    assert!(created >= 1);

    // Two more connections: two new threads; one of them runs a statement.
    let b = server.connect()?;
    let mut c = server.connect()?;
    assert_eq!(status(&mut a, "Connections")?, connections + 2);
    assert_eq!(status(&mut a, "Threads_connected")?, 3);
    assert_eq!(status(&mut a, "Threads_created")?, created + 2);
    let sleeper = std::thread::spawn(move || {
        let r = c.query_first::<i64, _>("SELECT SLEEP(1)");
        (c, r)
    });
    wait_status(&mut a, "Threads_running", 2)?;
    let (c, slept) = sleeper.join().map_err(|_| "sleeper panicked")?;
    assert_eq!(slept?, Some(0));
    wait_status(&mut a, "Threads_running", 1)?;

    // Closed connections leave their threads in the cache (it holds 2).
    drop(b);
    drop(c);
    wait_status(&mut a, "Threads_cached", 2)?;
    wait_status(&mut a, "Threads_connected", 1)?;
    // A new connection takes a cached thread: none created.
    let d = server.connect()?;
    assert_eq!(status(&mut a, "Threads_cached")?, 1);
    assert_eq!(status(&mut a, "Threads_created")?, created + 2);
    assert_eq!(status(&mut a, "Connections")?, connections + 3);

    // A refused login counts as a connection.
    let refused = mysql::Conn::new(server.opts().pass(Some("wrong")));
    assert!(refused.is_err());
    wait_status(&mut a, "Connections", connections + 4)?;

    // INFORMATION_SCHEMA.GLOBAL_STATUS shows the same figures.
    let rows: Vec<(String, String)> = a.query(
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM INFORMATION_SCHEMA.GLOBAL_STATUS \
         WHERE VARIABLE_NAME IN ('THREADS_CACHED', 'THREADS_CREATED', 'THREADS_CONNECTED') \
         ORDER BY VARIABLE_NAME",
    )?;
    let want = [
        ("THREADS_CACHED", 1),
        ("THREADS_CONNECTED", 2),
        ("THREADS_CREATED", created + 2),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(n, v)| ((*n).to_owned(), v.to_string()))
        .collect();
    assert_eq!(rows, want);

    // SET GLOBAL thread_cache_size resizes the running cache: the idle
    // thread ends at once, and a closing connection's thread ends too.
    a.query_drop("SET GLOBAL thread_cache_size = 0")?;
    let size: Option<u64> = a.query_first("SELECT @@GLOBAL.thread_cache_size")?;
    assert_eq!(size, Some(0));
    wait_status(&mut a, "Threads_cached", 0)?;
    drop(d);
    wait_status(&mut a, "Threads_connected", 1)?;
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(status(&mut a, "Threads_cached")?, 0);
    // Growing it again keeps the threads of closing connections.
    a.query_drop("SET GLOBAL thread_cache_size = 4")?;
    let e = server.connect()?;
    assert_eq!(status(&mut a, "Threads_created")?, created + 3);
    drop(e);
    wait_status(&mut a, "Threads_cached", 1)?;
    Ok(())
}

#[test]
fn a_pool_of_threads_caches_no_thread() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(
        &dir.path().join("data"),
        &["--thread-handling=pool-of-threads"],
    )?;
    let mut a = server.connect()?;
    let b = server.connect()?;
    assert_eq!(status(&mut a, "Threads_connected")?, 2);
    drop(b);
    wait_status(&mut a, "Threads_connected", 1)?;
    assert_eq!(status(&mut a, "Threads_cached")?, 0);
    // The pool's worker threads.
    assert!(status(&mut a, "Threads_created")? >= 1);
    a.query_drop("SET GLOBAL thread_cache_size = 3")?;
    assert_eq!(status(&mut a, "Threads_cached")?, 0);
    Ok(())
}
