//! Statement time limits against a running larchd: `max_statement_time`
//! (MariaDB's 1969), `max_execution_time` (MySQL's 3024, SELECT only), `SET
//! STATEMENT ... FOR`, an account's `MAX_STATEMENT_TIME` (kept across a
//! restart), a timed-out write leaving the table as it was, and a deadline
//! of an earlier statement never interrupting a later one.

mod support;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{server_error, tempdir, Larchd, Res};

/// The error code and SQLSTATE a statement failed with.
fn failure(conn: &mut mysql::Conn, sql: &str) -> Result<(u16, String), String> {
    match conn.query_drop(sql) {
        Ok(()) => Err(format!("{sql} succeeded")),
        Err(e) => server_error(&e)
            .map(|(code, state, _)| (code, state))
            .ok_or_else(|| format!("{sql}: {e}")),
    }
}

#[test]
fn statements_stop_at_their_time_limit() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut c = server.connect()?;

    // max_statement_time: the SLEEP is cut short with MariaDB's error.
    c.query_drop("SET max_statement_time = 0.2")?;
    let started = Instant::now();
    assert_eq!(failure(&mut c, "SELECT SLEEP(5)")?, (1969, "70100".into()));
    assert!(started.elapsed() < Duration::from_secs(3));
    // The connection goes on; statements under the limit run, and the
    // first one's deadline does not reach the second.
    assert_eq!(c.query_first::<i64, _>("SELECT SLEEP(0.15)")?, Some(0));
    assert_eq!(c.query_first::<i64, _>("SELECT SLEEP(0.15)")?, Some(0));
    c.query_drop("SET max_statement_time = 0")?;
    assert_eq!(c.query_first::<i64, _>("SELECT SLEEP(0.3)")?, Some(0));

    // A scan stops too: a cross join of 2,000 x 2,000 rows.
    c.query_drop("CREATE TABLE test.t (id INT PRIMARY KEY, v INT NOT NULL)")?;
    c.query_drop("SET SESSION max_recursive_iterations = 5000")?;
    c.query_drop(
        "INSERT INTO test.t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) SELECT i, 0 FROM n",
    )?;
    let started = Instant::now();
    assert_eq!(
        failure(
            &mut c,
            "SET STATEMENT max_statement_time = 0.1 FOR SELECT COUNT(*) FROM test.t a JOIN test.t b ON a.v + b.id < 0"
        )?,
        (1969, "70100".into())
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // And a join of derived tables (materialized rows, in memory or in a
    // temporary file past tmp_table_size).
    for size in ["DEFAULT", "1024"] {
        c.query_drop(format!("SET SESSION tmp_table_size = {size}"))?;
        let started = Instant::now();
        assert_eq!(
            failure(
                &mut c,
                "SET STATEMENT max_statement_time = 0.1 FOR SELECT COUNT(*) FROM \
                 (SELECT id, v FROM test.t LIMIT 5000) a JOIN (SELECT id, v FROM test.t LIMIT 5000) b \
                 JOIN (SELECT id FROM test.t LIMIT 5000) c ON a.v + b.id + c.id < 0"
            )?,
            (1969, "70100".into()),
            "tmp_table_size = {size}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
    c.query_drop("SET SESSION tmp_table_size = DEFAULT")?;
    // SET STATEMENT's limit was for that statement only.
    let mst: Option<f64> = c.query_first("SELECT @@max_statement_time")?;
    assert_eq!(mst, Some(0.0));

    // A write that runs out of time changes nothing.
    assert_eq!(
        failure(
            &mut c,
            "SET STATEMENT max_statement_time = 0.2 FOR UPDATE test.t SET v = v + 1 + SLEEP(0.01) WHERE id <= 100"
        )?,
        (1969, "70100".into())
    );
    assert_eq!(
        c.query_first::<i64, _>("SELECT SUM(v) FROM test.t")?,
        Some(0)
    );

    // max_execution_time (milliseconds) holds for SELECT only.
    c.query_drop("SET max_execution_time = 100")?;
    assert_eq!(failure(&mut c, "SELECT SLEEP(2)")?, (3024, "HY000".into()));
    c.query_drop("DO SLEEP(0.3)")?;
    c.query_drop("SET max_execution_time = 0")?;

    // KILL QUERY still reports 1317.
    let victim: Option<u64> = c.query_first("SELECT CONNECTION_ID()")?;
    let victim = victim.ok_or("no connection id")?;
    let mut other = server.connect()?;
    let sleeper = std::thread::spawn(move || {
        let r = failure(&mut c, "SELECT SLEEP(5)");
        (c, r)
    });
    std::thread::sleep(Duration::from_millis(300));
    other.query_drop(format!("KILL QUERY {victim}"))?;
    let (_, r) = sleeper.join().map_err(|_| "sleeper panicked")?;
    assert_eq!(r?, (1317, "70100".into()));
    Ok(())
}

#[test]
fn account_max_statement_time() -> Res {
    let dir = tempdir()?;
    let data = dir.path().join("data");
    let server = Larchd::start(&data, &[])?;
    let mut root = server.connect()?;
    root.query_drop("CREATE USER slow@'%' IDENTIFIED BY 'pw' WITH MAX_STATEMENT_TIME .25")?;
    root.query_drop("GRANT SELECT ON test.* TO slow@'%'")?;
    let shown: Option<String> = root.query_first("SHOW CREATE USER slow@'%'")?;
    let shown = shown.ok_or("no SHOW CREATE USER row")?;
    assert!(
        shown.ends_with(" WITH MAX_STATEMENT_TIME 0.250000"),
        "{shown}"
    );
    assert!(
        matches!(
            root.query_drop("CREATE USER bad@'%' WITH MAX_STATEMENT_TIME -1"),
            Err(ref e) if server_error(e).map(|e| e.0) == Some(1064)
        ),
        "a negative MAX_STATEMENT_TIME is a syntax error"
    );
    drop(root);
    drop(server);

    // After a restart the account still carries its limit, and a login
    // takes it as the session's max_statement_time.
    let server = Larchd::start(&data, &[])?;
    let opts = server.opts().user(Some("slow")).pass(Some("pw"));
    let mut c = mysql::Conn::new(opts)?;
    let mst: Option<f64> = c.query_first("SELECT @@max_statement_time")?;
    assert_eq!(mst, Some(0.25));
    assert_eq!(failure(&mut c, "SELECT SLEEP(3)")?, (1969, "70100".into()));
    // The session may lift it.
    c.query_drop("SET max_statement_time = 0")?;
    assert_eq!(c.query_first::<i64, _>("SELECT SLEEP(0.4)")?, Some(0));
    Ok(())
}
