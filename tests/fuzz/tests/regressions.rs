//! Replays the whole corpus of every target: the seed files and the input
//! of every crash found and fixed (`corpus/<target>/crash-*`). Each must
//! run without a panic and without a broken invariant.

use std::sync::Mutex;

use larch_fuzz::{corpus, driver, targets};

/// One target at a time: the panic counter is process-wide.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn replay(name: &str) -> Result<(), larch_fuzz::Error> {
    replay_as(name, name)
}

/// Replays `corpus/<dir>/` through target `name`.
fn replay_as(name: &str, dir: &str) -> Result<(), larch_fuzz::Error> {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut target = targets::make(name)?;
    let files = corpus::files(&corpus::dir(dir));
    assert!(!files.is_empty(), "corpus/{dir} is empty");
    let mut failures = Vec::new();
    for path in &files {
        let input = std::fs::read(path)?;
        if let Err(what) = driver::run_one(target.as_mut(), &input) {
            failures.push(format!("{}: {what}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[test]
fn wire_corpus() -> Result<(), larch_fuzz::Error> {
    replay("wire")
}

#[test]
fn record_corpus() -> Result<(), larch_fuzz::Error> {
    replay("record")
}

#[test]
fn page_corpus() -> Result<(), larch_fuzz::Error> {
    replay("page")
}

#[test]
fn page_stamped_corpus() -> Result<(), larch_fuzz::Error> {
    replay("page-stamped")
}

#[test]
fn page_open_corpus() -> Result<(), larch_fuzz::Error> {
    replay_as("page", "open")
}

#[test]
fn sql_corpus() -> Result<(), larch_fuzz::Error> {
    replay("sql")
}
