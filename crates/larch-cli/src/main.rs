//! `larch`: command-line tool for Larch data directories.
//!
//! ```text
//! larch start --datadir D [options]      (create if missing, recover, verify)
//! larch init  --datadir D [--innodb-page-size=8k] [--defaults-file=F] [--innodb-...=...]
//! larch check --datadir D [--defaults-file=F]
//! larch sql   --datadir D [-e "statements"]   (SQL in-process; statements on stdin without -e)
//! ```
//!
//! Options use mysqld's syntax and names (`--innodb-page-size=8k` and
//! `--innodb_page_size=8192` are the same; `--datadir D` and `--datadir=D` too),
//! and `--defaults-file` reads a my.cnf-style file (`[mysqld]`, `[larchd]` groups).
//!
//! Exit codes: 0 success; 1 `check` found problems; 2 the command failed.

mod check;
mod shell;
mod sql;

use std::process::ExitCode;
use std::sync::Arc;

use larch_engine::config::options::OptionSet;
use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::storage::Storage;

const USAGE: &str = "\
usage: larch <command> [options]

commands:
  start    open the data directory as the server will: create it on first use,
           recover it after a crash, verify it, close it cleanly
  init     create a new data directory
  check    verify every page checksum, every tablespace structure, the undo
           logs and every table
  sql      run SQL on the data directory in-process: -e STATEMENTS, or
           statements ending with ';' on standard input (refused while a
           running larchd holds the directory)

options (mysqld syntax; dashes and underscores are interchangeable):
  --datadir=DIR                    data directory (default: ./data)
  --defaults-file=FILE             read options from a my.cnf-style file
  --innodb-page-size=SIZE          4k, 8k, 16k (default), 32k or 64k; fixed at init
  --innodb-buffer-pool-size=SIZE   e.g. 128M
  --innodb-log-file-size=SIZE      redo log capacity, e.g. 96M
  --innodb-flush-log-at-trx-commit=0|1|2
  --innodb-doublewrite=ON|OFF
  --innodb-flush-method=fsync|O_DSYNC|O_DIRECT|O_DIRECT_NO_FSYNC
  --innodb-undo-tablespaces=N
";

fn config_from(args: &[String]) -> Result<EngineConfig, String> {
    let opts =
        OptionSet::parse_args(OptionSet::join_separate_values(args)).map_err(|e| e.to_string())?;
    EngineConfig::from_options(&opts).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("LARCH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    if cmd == "--help" || cmd == "-h" || cmd == "help" {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let (rest, execute) = sql::split_execute(&args[1..]);
    let config = match config_from(&rest) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("larch: {e}");
            return ExitCode::from(2);
        }
    };
    let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
    match cmd.as_str() {
        "init" => init(config, vfs),
        "start" => start(config, vfs),
        "check" => check::run(config, vfs),
        "sql" => sql::run(config, execute),
        other => {
            eprintln!("larch: unknown command '{other}'\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn init(config: EngineConfig, vfs: Arc<dyn Vfs>) -> ExitCode {
    let dir = config.datadir.clone();
    match Storage::create(config, vfs).and_then(|s| {
        let ps = s.page_size();
        s.close().map(|_| ps)
    }) {
        Ok(ps) => {
            println!(
                "initialised data directory {} (innodb_page_size={})",
                dir.display(),
                ps.get()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("larch: init failed: {e}");
            ExitCode::from(2)
        }
    }
}

fn start(config: EngineConfig, vfs: Arc<dyn Vfs>) -> ExitCode {
    let dir = config.datadir.clone();
    let created = !Storage::exists(&*vfs, &dir);
    let storage = match Storage::open_or_create(config, vfs) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("larch: cannot start on {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let r = storage.recovery_report().clone();
    if created {
        println!("created data directory {}", dir.display());
    } else if r.blocks > 0 || !r.pages_restored.is_empty() {
        println!(
            "recovered {}: replayed {} mini-transactions (LSN {} to {}) onto {} pages, restored {} torn pages",
            dir.display(),
            r.blocks,
            r.checkpoint_lsn,
            r.end_lsn,
            r.pages_applied,
            r.pages_restored.len()
        );
    } else {
        println!(
            "opened {} (clean shutdown, nothing to recover)",
            dir.display()
        );
    }
    println!(
        "innodb_page_size={} innodb_buffer_pool_size={} innodb_log_file_size={} lsn={}",
        storage.page_size().get(),
        storage.config().buffer_pool_size,
        storage.log().capacity(),
        storage.log().current_lsn()
    );
    let mut report = storage.check();
    if let Ok(r) = report.as_mut() {
        check::add_undo_check(&storage, r);
    }
    let closed = storage.close();
    match (report, closed) {
        (Ok(r), Ok(())) if r.is_clean() => {
            println!(
                "OK: {} tablespaces verified; shut down cleanly",
                r.spaces.len()
            );
            ExitCode::SUCCESS
        }
        (Err(e), _) | (Ok(_), Err(e)) => {
            eprintln!("larch: {e}");
            ExitCode::from(2)
        }
        (Ok(r), Ok(())) => {
            for p in r.problems() {
                println!("PROBLEM {p}");
            }
            ExitCode::from(1)
        }
    }
}
