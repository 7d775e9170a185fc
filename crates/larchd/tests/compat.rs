//! The compatibility suite in CI: starts larchd on a temporary data
//! directory and runs `tests/compat/run 127.0.0.1 PORT`, which runs every
//! MariaDB mysqltest file listed in `tests/compat/expected-pass` with the
//! `mariadb-test` client and compares the output with the test's .result
//! file. Any FAIL fails this test, so a regression in a listed test is
//! caught.
//!
//! Prints SKIPPED and returns when `mariadb-test`, MariaDB's test files
//! (packages mariadb-test and mariadb-test-data) or python3 are missing
//! (`crates/larchd/scripts/install-test-deps.sh` installs them); fails
//! instead under `LARCH_REQUIRE_TEST_PROGRAMS=1` (see `support/clients.rs`).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use support::{tempdir, Larchd, Res};

/// The runner's own limit on one test, in seconds.
const PER_TEST_TIMEOUT: &str = "60";

/// The whole run's limit (the expected-pass list takes seconds today).
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Why the suite cannot run here, if it cannot.
fn missing_prerequisite() -> Option<String> {
    if !on_path("mariadb-test") && !on_path("mysqltest") {
        return Some("`mariadb-test` is not installed (package mariadb-test)".into());
    }
    if !on_path("mariadb") && !on_path("mysql") {
        return Some("the `mariadb` client is not installed".into());
    }
    if !on_path("python3") {
        return Some("python3 is not installed".into());
    }
    let test_dir = std::env::var("MYSQL_TEST_DIR")
        .unwrap_or_else(|_| "/usr/share/mysql/mysql-test".to_owned());
    if !Path::new(&test_dir).join("include").is_dir() {
        return Some(format!(
            "MariaDB's test files are not in {test_dir} (package mariadb-test-data)"
        ));
    }
    None
}

#[test]
fn expected_pass_list_passes() -> Res {
    if let Some(why) = missing_prerequisite() {
        if support::clients::programs_required() {
            return Err(format!(
                "expected_pass_list_passes: {why} and LARCH_REQUIRE_TEST_PROGRAMS=1"
            )
            .into());
        }
        println!(
            "SKIPPED expected_pass_list_passes: {why} \
             (crates/larchd/scripts/install-test-deps.sh installs it)"
        );
        return Ok(());
    }
    let dir = tempdir()?;
    let vardir = dir.path().join("var");
    // As mysql-test-run's configuration: files may be read and written
    // under the test directory (`secure-file-priv= @ENV.MYSQLTEST_VARDIR`).
    let secure_file_priv = format!("--secure-file-priv={}", vardir.display());
    let server = Larchd::start(&dir.path().join("data"), &[&secure_file_priv])?;
    let mut child = Command::new(repo_root().join("tests/compat/run"))
        .arg(format!("--vardir={}", vardir.display()))
        .arg(format!("--timeout={PER_TEST_TIMEOUT}"))
        .arg("127.0.0.1")
        .arg(server.port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tests/compat/run: {e}"))?;
    // Read the output on threads so that a full pipe cannot stall the runner.
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = read(Box::new(stdout));
    let err = read(Box::new(stderr));
    let status = support::wait_child(&mut child, RUN_TIMEOUT)
        .map_err(|_| "tests/compat/run did not finish in time")?;
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    print!("{out}");
    eprint!("{err}");
    let failed: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    if !status.success() || !failed.is_empty() {
        let logs: String = failed
            .iter()
            .filter_map(|l| l.split_whitespace().nth(1))
            .map(|name| name.trim_end_matches(':'))
            .filter_map(|name| {
                let (suite, test) = name.split_once('.')?;
                let path = vardir.join("log").join(suite).join(format!("{test}.out"));
                let text = std::fs::read_to_string(&path).ok()?;
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                Some(format!("--- {name}\n{}\n", tail.join("\n")))
            })
            .collect();
        return Err(format!(
            "the compatibility suite failed ({status}):\n{}\n{logs}\nlarchd log:\n{}",
            failed.join("\n"),
            server.log()
        )
        .into());
    }
    if !out.lines().any(|l| l.contains(" passed, 0 failed")) {
        return Err(format!("no summary line in the runner's output:\n{out}").into());
    }
    Ok(())
}
