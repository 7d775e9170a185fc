//! The bounded fuzz run of CI: every target for a fixed time with a fixed
//! seed, so a run's inputs are the same each time (only how many fit in
//! the budget depends on the machine), and any failure prints the seeds
//! and the input, saved under the system's temporary directory for
//! `larch-fuzz --replay`.
//!
//! The targets run one at a time (a lock), so the panic counter each run
//! watches sees only its own target's panics, and the budgets add up to
//! about 90 seconds.

use std::sync::Mutex;
use std::time::Duration;

use larch_fuzz::{corpus, driver, targets};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The fixed seed of the CI run.
const CI_SEED: u64 = 20_261_129;

fn fuzz(name: &str, secs: u64) -> Result<(), larch_fuzz::Error> {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut target = targets::make(name)?;
    let cfg = driver::RunConfig {
        seed: CI_SEED,
        duration: Duration::from_secs(secs),
        max_iterations: None,
        out_dir: std::env::temp_dir().join("larch-fuzz-ci"),
        corpus: corpus::load(&corpus::dir(name)),
        progress: None,
    };
    let report = driver::run(target.as_mut(), &cfg);
    eprintln!(
        "fuzz {name}: {} inputs in {:.1} s, seed {CI_SEED}",
        report.iterations,
        report.elapsed.as_secs_f64()
    );
    assert!(report.iterations > 0, "{name}: no input ran");
    let findings: Vec<String> = report
        .findings
        .iter()
        .map(|f| driver::describe(name, CI_SEED, f))
        .collect();
    assert!(findings.is_empty(), "{}", findings.join("\n\n"));
    Ok(())
}

#[test]
fn fuzz_wire() -> Result<(), larch_fuzz::Error> {
    fuzz("wire", 15)
}

#[test]
fn fuzz_record() -> Result<(), larch_fuzz::Error> {
    fuzz("record", 15)
}

#[test]
fn fuzz_page() -> Result<(), larch_fuzz::Error> {
    fuzz("page", 20)
}

#[test]
fn fuzz_page_stamped() -> Result<(), larch_fuzz::Error> {
    fuzz("page-stamped", 15)
}

#[test]
fn fuzz_sql() -> Result<(), larch_fuzz::Error> {
    fuzz("sql", 25)
}
