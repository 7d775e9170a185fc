//! Statements that nest deeply or chain one operator many times, sent to a
//! running larchd: each either runs or fails with MariaDB's error (1436
//! "Thread stack overrun" for expressions nested past what MariaDB allows,
//! 1473 "Too high level of nesting for select" past 63 nested subqueries,
//! 1153 for a packet over max_allowed_packet), and never takes the server
//! down. Each shape is also sent at 10 and 100 times its size; after each,
//! the same connection and a new one still work.
//!
//! What MariaDB 10.11 does with the base shapes (checked side by side):
//! `1+1+...` of 2,000 terms and `CONCAT(` nested 1,000 deep give 1436; an
//! AND chain of 2,000 terms, an OR list of 50,000 terms, derived tables
//! nested 50 deep, CONCAT nested 200 deep and 10,000 UNION ALL branches
//! run; scalar subqueries nested 100 deep give 1473.

mod support;

use mysql::prelude::Queryable;
use support::{server_error, tempdir, Larchd, Res};

/// What a statement must do.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    /// Run and return this single value.
    Value(&'static str),
    /// Fail with one of these codes.
    Error(&'static [u16]),
    /// Run, or fail with one of these codes.
    RunOr(&'static [u16]),
}

fn plus_chain(n: usize) -> String {
    format!("SELECT {}", vec!["1"; n].join("+"))
}

fn and_chain(n: usize) -> String {
    format!(
        "SELECT COUNT(*) FROM t WHERE {}",
        vec!["a = 1"; n].join(" AND ")
    )
}

fn or_list(n: usize) -> String {
    let terms: Vec<String> = (0..n).map(|i| format!("a = {i}")).collect();
    format!("SELECT COUNT(*) FROM t WHERE {}", terms.join(" OR "))
}

fn scalar_subqueries(n: usize) -> String {
    format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n))
}

fn derived_tables(n: usize) -> String {
    format!(
        "SELECT COUNT(*) FROM {}t{}",
        "(SELECT * FROM ".repeat(n),
        ") d".repeat(n)
    )
}

fn concat_nest(n: usize) -> String {
    format!("SELECT LENGTH({}'x'{})", "CONCAT(".repeat(n), ")".repeat(n))
}

fn union_all(n: usize) -> String {
    format!(
        "SELECT COUNT(*) FROM ({}) u",
        vec!["SELECT 1"; n].join(" UNION ALL ")
    )
}

const STACK: &[u16] = &[1436];
const NESTING: &[u16] = &[1473, 1436];
const TOO_BIG: &[u16] = &[1153, 1436, 1473];

/// A connection to the database the shapes read (`d`). The client's own
/// packet limit is above the server's (16M), so the largest statements
/// reach the server and get its 1153 instead of being stopped by the client.
fn connect(server: &Larchd) -> mysql::Result<mysql::Conn> {
    mysql::Conn::new(
        server
            .opts()
            .db_name(Some("d"))
            .max_allowed_packet(Some(256 << 20)),
    )
}

/// Sends `sql`, checks the outcome, then checks the connection and the
/// server still answer.
fn run(server: &Larchd, conn: &mut mysql::Conn, what: &str, sql: &str, want: Outcome) -> Res {
    let got: Result<Option<String>, mysql::Error> = conn.query_first(sql);
    match (&got, want) {
        (Ok(Some(v)), Outcome::Value(w)) if v == w => {}
        (Ok(_), Outcome::RunOr(_)) => {}
        (Err(e), Outcome::Error(codes) | Outcome::RunOr(codes))
            if server_error(e).is_some_and(|(c, _, _)| codes.contains(&c)) => {}
        _ => {
            return Err(format!(
                "{what} ({} bytes): got {:?}, want {want:?}",
                sql.len(),
                got.map_err(|e| e.to_string())
            )
            .into())
        }
    }
    // An oversized packet ends the connection, as in MariaDB.
    if let Ok(Some(two)) = conn.query_first::<String, _>("SELECT 1 + 1") {
        assert_eq!(two, "2", "after {what}");
    } else {
        *conn = connect(server)?;
    }
    let mut fresh = connect(server)?;
    assert_eq!(
        fresh.query_first::<i64, _>("SELECT COUNT(*) FROM t")?,
        Some(3),
        "a new connection after {what}"
    );
    Ok(())
}

#[test]
fn deep_and_long_statements_never_take_the_server_down() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(dir.path(), &["--max-allowed-packet=16M"])?;
    server.connect()?.query_drop("CREATE DATABASE d")?;
    let mut conn = connect(&server)?;
    conn.query_drop("CREATE TABLE t (a INT)")?;
    conn.query_drop("INSERT INTO t VALUES (1), (2), (3)")?;
    let cases: Vec<(&str, fn(usize) -> String, usize, [Outcome; 3])> = vec![
        (
            "1+1+...",
            plus_chain,
            2_000,
            [
                Outcome::Error(STACK),
                Outcome::Error(STACK),
                Outcome::Error(STACK),
            ],
        ),
        (
            "AND chain",
            and_chain,
            2_000,
            [
                Outcome::Value("1"),
                Outcome::Value("1"),
                Outcome::RunOr(TOO_BIG),
            ],
        ),
        (
            "OR list",
            or_list,
            50_000,
            [
                Outcome::Value("3"),
                Outcome::RunOr(TOO_BIG),
                Outcome::Error(TOO_BIG),
            ],
        ),
        (
            "nested scalar subqueries",
            scalar_subqueries,
            100,
            [
                Outcome::Error(NESTING),
                Outcome::Error(NESTING),
                Outcome::Error(NESTING),
            ],
        ),
        (
            "nested derived tables",
            derived_tables,
            50,
            [
                Outcome::Value("3"),
                Outcome::Error(NESTING),
                Outcome::Error(NESTING),
            ],
        ),
        (
            "nested CONCAT",
            concat_nest,
            200,
            [
                Outcome::Value("1"),
                Outcome::Error(STACK),
                Outcome::Error(STACK),
            ],
        ),
        (
            "UNION ALL branches",
            union_all,
            10_000,
            [
                Outcome::Value("10000"),
                Outcome::RunOr(TOO_BIG),
                Outcome::RunOr(TOO_BIG),
            ],
        ),
    ];
    for (what, make, base, outcomes) in cases {
        for (scale, want) in [1, 10, 100].into_iter().zip(outcomes) {
            let sql = make(base * scale);
            run(&server, &mut conn, &format!("{what} x{scale}"), &sql, want)?;
        }
    }
    // A long chain that turns out to be wrong at its end.
    let broken = format!("{} +", plus_chain(200_000));
    run(
        &server,
        &mut conn,
        "broken chain",
        &broken,
        Outcome::Error(&[1064]),
    )?;
    Ok(())
}
