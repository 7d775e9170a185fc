//! `larchd`: the Larch server, a MySQL/MariaDB-compatible database server.
//!
//! ```text
//! larchd [--defaults-file=my.cnf] [--datadir=DIR] [--port=3306] [--socket=PATH] ...
//! ```
//!
//! Start-up: options (`options`), the error log (`log`), the TLS
//! certificate and key when `--ssl-cert` is given (an unreadable or invalid
//! file stops the start; without it the data directory's generated ones,
//! `certs`, once it is open), then `Database::open` on the data directory (created with the `test` database
//! on first start, recovered after a crash; a directory locked by another
//! process is refused), then listeners, pid file and the ready line
//! (`serve`). Clients connect with any MySQL or MariaDB client as `root`
//! with an empty password, from the local host. SIGTERM, SIGINT or the SQL
//! statement `SHUTDOWN` stop the server cleanly: connections end, the
//! database is flushed (`Database::close`), the socket and pid files are
//! removed, and the exit status is 0.
//!
//! Exit status: 0 after a clean shutdown (and for `--help`/`--version`);
//! 1 when the server cannot start (bad option, unusable TLS files, locked
//! or damaged data directory, port or socket in use) or the final flush
//! failed.
//!
//! Modules: `allocator` (the memory allocator, a build-time choice),
//! `options` (command line and option files), `log` (error log),
//! `serve` (listeners, ready line, shutdown), `session` (the `SqlSession`
//! adapter and the execution-mode choice), `limits` (connection slots and
//! per-account limits), `certs` (generated TLS certificates), `convert`
//! (types and values between the SQL layer and the protocol).

mod allocator;
mod certs;
mod convert;
mod limits;
mod log;
mod options;
mod serve;
mod session;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use larch_sql::database::{Database, SERVER_VERSION};

use crate::log::ErrorLog;
use crate::options::{Command, ServerOptions, USAGE};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match options::parse(&args) {
        Ok(Command::Run(opts)) => opts,
        Ok(Command::Help { verbose }) => {
            print!("{USAGE}");
            if verbose {
                println!("\nAccepted and ignored (MariaDB options Larch does not implement):");
                for name in options::IGNORED_OPTIONS {
                    println!("  --{}", name.replace('_', "-"));
                }
            }
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!(
                "larchd  Ver {SERVER_VERSION} for {} on {} (Larch {})",
                std::env::consts::OS,
                std::env::consts::ARCH,
                env!("CARGO_PKG_VERSION")
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let ts = log::timestamp_now();
            eprintln!("{ts} 0 [ERROR] larchd: {e}");
            eprintln!("{ts} 0 [ERROR] Aborting");
            return ExitCode::from(1);
        }
    };
    let log = match ErrorLog::open(opts.log_error.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            let path = opts
                .log_error
                .as_deref()
                .unwrap_or(std::path::Path::new(""));
            eprintln!(
                "{} 0 [ERROR] larchd: cannot open the error log '{}': {e}",
                log::timestamp_now(),
                path.display()
            );
            return ExitCode::from(1);
        }
    };
    log.install_tracing();
    run(&opts, &log)
}

/// Opens the database, serves, shuts down.
fn run(opts: &ServerOptions, log: &Arc<ErrorLog>) -> ExitCode {
    let abort = |lines: &[String]| {
        for l in lines {
            log.error(l);
        }
        log.error("Aborting");
        ExitCode::from(1)
    };
    log.note(&format!(
        "Starting Larch {SERVER_VERSION} (larchd {}) as process {}",
        env!("CARGO_PKG_VERSION"),
        std::process::id()
    ));
    for w in &opts.warnings {
        log.warning(w);
    }
    // Given files are checked before the data directory is touched.
    let mut tls = match &opts.ssl {
        None => None,
        Some(files) => match load_tls(files, log) {
            Ok(settings) => Some((settings, files.clone())),
            Err(e) => return abort(&[e]),
        },
    };
    let datadir = opts.engine.datadir.clone();
    let fresh = !larch_engine::storage::Storage::exists(&larch_engine::io::OsVfs, &datadir);
    let db = match Database::open(opts.engine.clone()) {
        Ok(db) => db,
        Err(e) => {
            return abort(&[format!(
                "larchd: cannot open the data directory '{}': {e}",
                datadir.display()
            )])
        }
    };
    report_open(&db, fresh, &datadir, log);
    // Without --ssl-cert (and without --skip-ssl): the data directory's
    // generated certificates (`certs`).
    if tls.is_none() && !opts.ssl_disabled {
        let loaded = certs::ensure(&datadir).and_then(|(files, made)| {
            if made {
                log.note(&format!(
                    "larchd: generated a CA, server and client certificate in '{}'",
                    datadir.display()
                ));
            }
            load_tls(&files, log).map(|settings| (settings, files))
        });
        match loaded {
            Ok(t) => tls = Some(t),
            Err(e) => return abort(&[e]),
        }
    }
    disable_transparent_huge_pages(log);
    raise_open_files_limit(opts.max_connections, log);
    let applied = options::globals::apply(&db, &opts.ignored);
    if !applied.set.is_empty() {
        log.note(&format!(
            "larchd: start-up options set global variables: {}",
            applied.set.join(", ")
        ));
    }
    for r in &applied.refused {
        log.warning(&format!("larchd: option not applied: {r}"));
    }
    if !applied.ignored.is_empty() {
        log.note(&format!(
            "larchd: accepted and ignored options Larch does not implement: {}",
            applied.ignored.join(", ")
        ));
    }

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("larchd-worker")
        // Statements run on these threads with pool-of-threads: the same
        // stack as a connection thread (larch-wire `threads`).
        .thread_stack_size(8 << 20)
        .max_blocking_threads(opts.max_connections as usize + 64)
        .on_thread_start(|| {
            larch_engine::io::blocking::set_thread_hook(Some(session::leave_worker));
        })
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return abort(&[format!("larchd: cannot start the runtime: {e}")]),
    };
    let served = runtime.block_on(serve::serve(db.clone(), opts, tls, log));
    runtime.shutdown_timeout(Duration::from_secs(5));
    let code = match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = db.close();
            serve::remove_pid_file(&opts.pid_file);
            return abort(&e.0);
        }
    };
    let code = match db.close() {
        Ok(()) => code,
        Err(e) => {
            log.error(&format!("larchd: flushing the data directory failed: {e}"));
            ExitCode::from(1)
        }
    };
    drop(db);
    serve::remove_pid_file(&opts.pid_file);
    log.note("larchd: Shutdown complete");
    code
}

/// Loads the TLS files (logging that TLS is offered).
fn load_tls(files: &options::SslFiles, log: &ErrorLog) -> Result<larch_wire::TlsSettings, String> {
    let settings = larch_wire::TlsSettings::load(&files.cert, &files.key, files.ca.as_deref())
        .map_err(|e| format!("larchd: cannot start TLS: {e}"))?;
    log.note(&format!(
        "larchd: TLS offered to TCP clients ({}), certificate '{}'",
        larch_wire::TLS_LIBRARY_VERSION,
        files.cert.display()
    ));
    Ok(settings)
}

/// Logs what opening the data directory did.
fn report_open(db: &Database, fresh: bool, datadir: &std::path::Path, log: &ErrorLog) {
    let storage = db.storage();
    if fresh {
        log.note(&format!(
            "InnoDB: created data directory '{}' with the `test` database",
            datadir.display()
        ));
    } else {
        let r = storage.recovery_report();
        if r.blocks > 0 || !r.pages_restored.is_empty() {
            log.note(&format!(
                "InnoDB: crash recovery: replayed {} mini-transactions (LSN {} to {}) onto {} pages, restored {} torn pages",
                r.blocks,
                r.checkpoint_lsn,
                r.end_lsn,
                r.pages_applied,
                r.pages_restored.len()
            ));
        }
    }
    log.note(&format!(
        "InnoDB: innodb_page_size={} innodb_buffer_pool_size={} innodb_log_file_size={}; log sequence number {}",
        storage.page_size().get(),
        storage.config().buffer_pool_size,
        storage.log().capacity(),
        storage.log().current_lsn()
    ));
}

/// Turns transparent huge pages off for the rest of the process's mappings
/// when the kernel gives them to every mapping (`always`), as MariaDB does
/// after it has allocated its buffer pool: per-thread allocator pages would
/// otherwise each hold a 2 MiB page (see `allocator`). Under `madvise` or
/// `never` nothing asks for huge pages and nothing is changed.
fn disable_transparent_huge_pages(log: &ErrorLog) {
    let mode =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !mode.contains("[always]") {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) takes integer
        // arguments only and changes a flag of this process; no memory is
        // passed or returned.
        let rc = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
        if rc == 0 {
            log.note("larchd: transparent huge pages disabled for the server process");
        } else {
            log.warning("larchd: could not disable transparent huge pages (prctl failed)");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = log;
}

/// Open files a connection needs: its socket, and with a thread of its own
/// the epoll and wake-up descriptors of its runtime.
const FILES_PER_CONNECTION: u64 = 3;

/// Raises the soft limit on open files towards what `max_connections`
/// connections need (plus room for data files and logs), up to the hard
/// limit, as MariaDB raises it to its `open_files_limit`; a shell's default
/// soft limit of 1024 would otherwise refuse connections well below
/// `max_connections`. Says so in the log when the hard limit is too low.
fn raise_open_files_limit(max_connections: u32, log: &ErrorLog) {
    let wanted = u64::from(max_connections) * FILES_PER_CONNECTION + 1024;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` into the valid, exclusively
    // borrowed `limit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return;
    }
    if limit.rlim_cur >= wanted {
        return;
    }
    let raised = libc::rlimit {
        rlim_cur: wanted.min(limit.rlim_max),
        rlim_max: limit.rlim_max,
    };
    if raised.rlim_cur > limit.rlim_cur {
        // SAFETY: setrlimit reads one valid `rlimit`; it changes only this
        // process's limit.
        let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) };
        if rc != 0 {
            return;
        }
    }
    if raised.rlim_cur < wanted {
        log.warning(&format!(
            "larchd: open files limited to {} (hard limit); {max_connections} connections \
             may need {wanted}",
            raised.rlim_cur
        ));
    }
}
