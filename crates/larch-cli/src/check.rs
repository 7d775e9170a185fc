//! `larch check`: open the directory (recovering it if needed), verify every page
//! and every tablespace structure, print a summary, name every bad page.

use std::process::ExitCode;
use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_engine::io::Vfs;
use larch_engine::storage::{detect_page_size, scan_offline, CheckReport, Storage};

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

pub fn run(config: EngineConfig, vfs: Arc<dyn Vfs>) -> ExitCode {
    let dir = config.datadir.clone();
    let opened = Storage::open(config, vfs.clone());
    let report = match opened {
        Ok(storage) => {
            let r = storage.check();
            if let Err(e) = storage.close() {
                eprintln!("larch: closing after the check failed: {e}");
            }
            r
        }
        Err(e) if e.is_corruption() => {
            eprintln!("larch: the data directory cannot be opened: {e}");
            eprintln!("larch: scanning the files without recovery");
            detect_page_size(&*vfs, &dir).and_then(|ps| scan_offline(&*vfs, &dir, ps))
        }
        Err(e) => Err(e),
    };
    match report {
        Ok(r) => {
            print(&r);
            if r.is_clean() {
                println!("OK: no problems found");
                ExitCode::SUCCESS
            } else {
                println!("FAILED: {} problem(s)", r.problems().len());
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("larch: check failed: {e}");
            ExitCode::from(2)
        }
    }
}
