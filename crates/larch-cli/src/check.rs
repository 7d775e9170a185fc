//! `larch check`: open the directory (recovering it if needed), verify every page
//! and every tablespace structure, the undo logs (rollback segments, slots,
//! history lists, log chains and records) and every table, print a summary,
//! name every bad page.

use std::process::ExitCode;
use std::sync::Arc;

use larch_engine::catalog::Catalog;
use larch_engine::config::EngineConfig;
use larch_engine::io::Vfs;
use larch_engine::storage::{detect_page_size, scan_offline, CheckReport, Storage};
use larch_engine::undo::check_undo;

fn print(report: &CheckReport) {
    println!(
        "{:<24} {:>6} {:>9} {:>9} {:>9} {:>7} {:>9}  page types",
        "file", "space", "pages", "valid", "unused", "btrees", "problems"
    );
    for s in &report.spaces {
        let types: Vec<String> = s.by_type.iter().map(|(t, n)| format!("{t}={n}")).collect();
        println!(
            "{:<24} {:>6} {:>9} {:>9} {:>9} {:>7} {:>9}  {}",
            s.name,
            s.space,
            s.pages,
            s.valid,
            s.zero,
            s.btrees,
            s.problems.len(),
            types.join(" ")
        );
    }
    for p in report.problems() {
        println!("PROBLEM {p}");
    }
}

/// Verifies the undo logs, prints one summary line and files the problems
/// under their tablespaces in `report`. Undo logs are read before the undo
/// store is opened, so nothing a crash left behind is finished first.
pub(crate) fn add_undo_check(storage: &Storage, report: &mut CheckReport) {
    match check_undo(storage) {
        Ok(u) => {
            println!(
                "undo: {} rollback segments, {} active logs, {} history logs, {} pages, {} records, {} problems",
                u.rollback_segments,
                u.live_logs,
                u.history_logs,
                u.pages,
                u.records,
                u.problems.len()
            );
            u.add_to(report);
        }
        Err(e) => {
            if let Some(s) = report.spaces.first_mut() {
                s.problems
                    .push(format!("undo logs could not be checked: {e}"));
            }
        }
    }
}

/// `CHECK TABLE` of every table in the dictionary: prints one line per table
/// and returns the problems (a table whose trees are broken is reported by
/// the page-level check as well).
fn check_tables(storage: &Arc<Storage>) -> larch_engine::Result<Vec<String>> {
    let Some(catalog) = Catalog::open_for_check(storage.clone())? else {
        return Ok(Vec::new());
    };
    let check = catalog.check_tables()?;
    let mut problems = check.orphans;
    for (name, report) in &check.tables {
        println!(
            "table {name:<40} {:>10} rows {:>8} off-page values {:>4} problems",
            report.rows,
            report.off_page_values,
            report.problems.len()
        );
        problems.extend(report.problems.iter().cloned());
    }
    Ok(problems)
}

pub fn run(config: EngineConfig, vfs: Arc<dyn Vfs>) -> ExitCode {
    let dir = config.datadir.clone();
    let opened = Storage::open(config, vfs.clone());
    let mut table_problems = Vec::new();
    // A directory that cannot be opened for corruption is a failed check,
    // whatever the page scan below finds.
    let mut open_problem = None;
    let report = match opened {
        Ok(storage) => {
            let storage = Arc::new(storage);
            let mut r = storage.check();
            if let Ok(report) = r.as_mut() {
                add_undo_check(&storage, report);
            }
            if r.as_ref().is_ok_and(|r| r.is_clean()) {
                match check_tables(&storage) {
                    Ok(p) => table_problems = p,
                    Err(e) => table_problems.push(format!("tables could not be checked: {e}")),
                }
            }
            match Arc::into_inner(storage).map(Storage::close) {
                Some(Err(e)) => eprintln!("larch: closing after the check failed: {e}"),
                None => eprintln!("larch: the data directory was still in use after the check"),
                Some(Ok(())) => {}
            }
            r
        }
        Err(e) if e.is_corruption() => {
            eprintln!("larch: the data directory cannot be opened: {e}");
            eprintln!("larch: scanning the files without recovery");
            open_problem = Some(format!("the data directory cannot be opened: {e}"));
            detect_page_size(&*vfs, &dir).and_then(|ps| scan_offline(&*vfs, &dir, ps))
        }
        Err(e) => Err(e),
    };
    match report {
        Ok(r) => {
            print(&r);
            for p in open_problem.iter().chain(&table_problems) {
                println!("PROBLEM {p}");
            }
            let n = r.problems().len() + table_problems.len() + usize::from(open_problem.is_some());
            if n == 0 {
                println!("OK: no problems found");
                ExitCode::SUCCESS
            } else {
                println!("FAILED: {n} problem(s)");
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("larch: check failed: {e}");
            ExitCode::from(2)
        }
    }
}
