//! sysbench `oltp_read_write` with 8 client threads against the real
//! `larchd`, with prepared statements and with `--db-ps-mode=disable`: no
//! error but the deadlocks and lock wait timeouts sysbench is told to retry
//! (anything else stops sysbench with FATAL and fails the test), no
//! reconnect, transactions done; afterwards the table is whole:
//! `CHECK TABLE` is OK and, as every transaction deletes a row and inserts
//! it again, the table still has exactly ids 1 to table-size, through the
//! primary key and through the secondary index `k_1` alike.
//!
//! The single-threaded runs of every workload are in `real_clients.rs`.
//! Prints SKIPPED and passes when `sysbench` is missing (see
//! `support/clients.rs`).

mod support;

use mysql::prelude::Queryable;
use support::clients::{counter, installed, sysbench, sysbench_args, text_rows};
use support::{tempdir, Larchd, Res};

/// Rows of `sbtest1`.
const TABLE_SIZE: u32 = 1000;

/// The errors sysbench retries the transaction on (its default list, given
/// here so that the test says what it tolerates): deadlock, lock wait
/// timeout, key file error.
const IGNORED_ERRORS: &str = "--mysql-ignore-errors=1213,1205,1020";

/// Fails unless `sbtest1` passes CHECK TABLE and holds ids 1 to
/// `TABLE_SIZE` once each, in its primary key and in its index `k_1`.
fn check_table(conn: &mut mysql::Conn, context: &str) -> Res {
    let check = text_rows(conn, "CHECK TABLE sbtest1")?;
    let last = check.last().ok_or("CHECK TABLE returned no row")?;
    assert_eq!(
        (last[2].as_deref(), last[3].as_deref()),
        (Some("status"), Some("OK")),
        "{context}: {check:?}"
    );
    let by_primary: Option<(u64, u64, u64, u64)> =
        conn.query_first("SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM sbtest1")?;
    let n = u64::from(TABLE_SIZE);
    assert_eq!(by_primary, Some((n, n, 1, n)), "{context}");
    let by_k: Option<u64> =
        conn.query_first("SELECT COUNT(*) FROM sbtest1 FORCE INDEX (k_1) WHERE k >= 0")?;
    assert_eq!(by_k, Some(n), "{context}: the index k_1 disagrees");
    Ok(())
}

#[test]
fn oltp_read_write_with_eight_threads() -> Res {
    if !installed("oltp_read_write_with_eight_threads", "sysbench") {
        return Ok(());
    }
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = server.connect()?;
    conn.query_drop("CREATE DATABASE sbtest")?;
    conn.query_drop("USE sbtest")?;
    let common = sysbench_args(&server, "sbtest", TABLE_SIZE);
    sysbench("oltp_read_write", &common, &["prepare"])?;
    check_table(&mut conn, "after prepare")?;
    for mode in ["auto", "disable"] {
        let report = sysbench(
            "oltp_read_write",
            &common,
            &[
                "--threads=8",
                "--time=3",
                IGNORED_ERRORS,
                &format!("--db-ps-mode={mode}"),
                "run",
            ],
        )?;
        let context = format!("--db-ps-mode={mode}:\n{report}");
        let transactions = counter(&report, "transactions:").unwrap_or(0);
        assert!(transactions > 0, "no transactions with {context}");
        assert_eq!(counter(&report, "reconnects:"), Some(0), "{context}");
        let ignored = counter(&report, "ignored errors:").ok_or("no error count")?;
        println!(
            "sysbench oltp_read_write --threads=8 --db-ps-mode={mode}: \
             {transactions} transactions, {ignored} retried"
        );
        check_table(&mut conn, &context)?;
    }
    sysbench("oltp_read_write", &common, &["cleanup"])?;
    Ok(())
}
