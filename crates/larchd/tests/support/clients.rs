//! Driving MariaDB's client programs (`mariadb`, `mariadb-dump`,
//! `mariadb-admin`, `sysbench`) against a test server: whether one is
//! installed (a test without it prints SKIPPED and passes, as the suite runs
//! on machines without the Debian packages), running one with the server's
//! address, loading a file, dumping a database in a form two servers can be
//! compared by, and running sysbench.
//!
//! With `LARCH_REQUIRE_TEST_PROGRAMS=1` in the environment a missing program
//! fails the test instead: `.ci/run` sets it once
//! `crates/larchd/scripts/install-test-deps.sh` has succeeded, so a program
//! that should be there and is not cannot pass as a skip.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::{Larchd, Res};

/// True when `LARCH_REQUIRE_TEST_PROGRAMS=1`: a test must fail, not skip,
/// when a program it needs is missing.
pub fn programs_required() -> bool {
    std::env::var("LARCH_REQUIRE_TEST_PROGRAMS").is_ok_and(|v| v == "1")
}

/// True when `program` is on the PATH; otherwise prints why `test` is
/// skipped, or panics under `LARCH_REQUIRE_TEST_PROGRAMS=1`.
pub fn installed(test: &str, program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !found && programs_required() {
        panic!("{test}: `{program}` is not installed and LARCH_REQUIRE_TEST_PROGRAMS=1");
    }
    if !found {
        println!(
            "SKIPPED {test}: `{program}` is not installed \
             (crates/larchd/scripts/install-test-deps.sh installs it)"
        );
    }
    found
}

/// Runs a program, feeding `stdin` from a file when given.
pub fn run(program: &str, args: &[String], stdin: Option<&Path>) -> Result<Output, String> {
    let mut cmd = Command::new(program);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    match stdin {
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
            cmd.stdin(f);
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    cmd.output()
        .map_err(|e| format!("cannot run {program}: {e}"))
}

/// The options that point a MariaDB client at `server` as root over TCP,
/// then `extra`.
pub fn client_args(server: &Larchd, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "-h127.0.0.1".to_owned(),
        format!("-P{}", server.port),
        "-uroot".to_owned(),
        "--skip-ssl".to_owned(),
    ];
    a.extend(extra.iter().map(|s| (*s).to_owned()));
    a
}

/// Runs a MariaDB client program against `server`.
pub fn client(
    program: &str,
    server: &Larchd,
    args: &[&str],
    stdin: Option<&Path>,
) -> Result<Output, String> {
    run(program, &client_args(server, args), stdin)
}

/// `mariadb db < file`, failing with the client's message.
pub fn load(server: &Larchd, db: &str, file: &Path) -> Res {
    let out = client("mariadb", server, &[db], Some(file))?;
    if !out.status.success() {
        return Err(format!(
            "loading {} into {db} failed: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(())
}

/// `mariadb-dump [options]`: the dump's bytes; fails on any message on
/// stderr.
pub fn dump(server: &Larchd, options: &[&str]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let out = client("mariadb-dump", server, options, None)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || !stderr.trim().is_empty() {
        return Err(format!("mariadb-dump {options:?} failed ({}): {stderr}", out.status).into());
    }
    Ok(out.stdout)
}

/// A dump without the lines that name the host or the time.
pub fn comparable(dump: &[u8]) -> Vec<u8> {
    dump.split_inclusive(|b| *b == b'\n')
        .filter(|l| !l.starts_with(b"-- Host:") && !l.starts_with(b"-- Dump completed"))
        .flatten()
        .copied()
        .collect()
}

/// A new server on `dir/name` with database `db` created and the dump file
/// `path` loaded into it by the `mariadb` client.
pub fn server_loaded_from(
    dir: &Path,
    name: &str,
    db: &str,
    path: &Path,
) -> Result<Larchd, Box<dyn std::error::Error>> {
    use mysql::prelude::Queryable;
    let server = Larchd::start(&dir.join(name), &[])?;
    server
        .connect()?
        .query_drop(format!("CREATE DATABASE `{db}`"))?;
    let out = client("mariadb", &server, &[db], Some(path))?;
    if !out.status.success() {
        return Err(format!(
            "loading the dump failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(server)
}

/// Fails unless `server` dumps (with `options`) to the same text as
/// `first`, the host and time lines aside.
pub fn assert_dumps_to(server: &Larchd, options: &[&str], first: &[u8]) -> Res {
    let second = dump(server, options)?;
    if comparable(first) != comparable(&second) {
        return Err(format!(
            "the dump of the copy differs:\n{}",
            String::from_utf8_lossy(&second)
        )
        .into());
    }
    Ok(())
}

/// The rows of `sql` as text (NULL as `None`).
pub fn text_rows(
    conn: &mut mysql::Conn,
    sql: &str,
) -> Result<Vec<Vec<Option<String>>>, Box<dyn std::error::Error>> {
    use mysql::prelude::Queryable;
    let rows: Vec<mysql::Row> = conn.query(sql)?;
    Ok(rows
        .into_iter()
        .map(|r| {
            r.unwrap()
                .into_iter()
                .map(|v| match v {
                    mysql::Value::NULL => None,
                    mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    other => Some(format!("{other:?}")),
                })
                .collect()
        })
        .collect())
}

/// Runs `sysbench <workload> <common> <extra>`; returns stdout, failing
/// with the output when sysbench fails (it stops with FATAL at the first
/// error outside `--mysql-ignore-errors`).
pub fn sysbench(workload: &str, common: &[String], extra: &[&str]) -> Result<String, String> {
    let mut args = vec![workload.to_owned()];
    args.extend(common.iter().cloned());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let out = run("sysbench", &args, None)?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stdout.contains("FATAL") || stderr.contains("FATAL") {
        return Err(format!(
            "sysbench {} failed ({}):\n{stdout}\n{stderr}",
            args.join(" "),
            out.status
        ));
    }
    Ok(stdout)
}

/// The options that point sysbench at database `db` of `server` as root,
/// with one table of `table_size` rows.
pub fn sysbench_args(server: &Larchd, db: &str, table_size: u32) -> Vec<String> {
    vec![
        "--mysql-host=127.0.0.1".to_owned(),
        format!("--mysql-port={}", server.port),
        "--mysql-user=root".to_owned(),
        format!("--mysql-db={db}"),
        "--mysql-ssl=off".to_owned(),
        "--tables=1".to_owned(),
        format!("--table-size={table_size}"),
    ]
}

/// The number after `label` in sysbench's report (`ignored errors: 0 (...)`).
pub fn counter(report: &str, label: &str) -> Option<u64> {
    report
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}
