//! Crash tests with real processes and real files: a child process runs the
//! deterministic multi-page workload, reporting each mini-transaction once it is
//! durable, and is killed with SIGKILL at a random moment (sometimes while it is
//! still recovering from the previous kill). The parent then recovers the
//! directory and checks that the pages hold exactly the state after a prefix of
//! the workload that includes every mini-transaction reported durable.
//!
//! The child is this test binary run again with `LARCH_CRASH_CHILD` set.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::page::PageSize;
use larch_engine::storage::workload::Workload;
use larch_engine::storage::Storage;
use larch_engine::{EngineError, Result};
use rand::{Rng, SeedableRng};

const CHILD_ENV: &str = "LARCH_CRASH_CHILD";
const SPACE_NAME: &str = "db/crash.ibd";

fn config(dir: &str, ps: PageSize) -> EngineConfig {
    let mut c = EngineConfig::new(dir);
    c.page_size = Some(ps);
    c.buffer_pool_size = 40 * ps.bytes() as u64;
    c.log_file_size = 256 << 10;
    c.log_buffer_size = 256 << 10;
    c.undo_tablespaces = 1;
    c
}

fn vfs() -> Arc<dyn Vfs> {
    Arc::new(OsVfs::new())
}

/// The child: open (recovering), then run mtrs forever, printing `D n` once mtr
/// `n` is durable.
#[test]
#[ignore = "entry point of the crash-test child process"]
fn crash_child_entry() -> Result<()> {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return Ok(());
    };
    let (dir, ps) = spec.split_once('|').unwrap_or((&spec, "16384"));
    let ps = PageSize::from_bytes(ps.parse().unwrap_or(16384))?;
    let storage = Storage::open_or_create(config(dir, ps), vfs())?;
    let w = match storage.spaces().ids().into_iter().find(|&id| id > 1) {
        Some(space) => Workload::find(&storage, space)?,
        None => Workload::create(&storage, SPACE_NAME, 60)?,
    };
    let mut n = w.last_applied(&storage)? + 1;
    let out = std::io::stdout();
    let mut out = out.lock();
    let _ = writeln!(out, "READY {n}");
    let _ = out.flush();
    loop {
        let end = w.run_mtr(&storage, n)?;
        storage.log().flush_up_to(end)?;
        let _ = writeln!(out, "D {n}");
        let _ = out.flush();
        n += 1;
    }
}

fn run_cycles(ps: PageSize, cycles: u32, seed: u64) -> Result<()> {
    let tmp = tempfile::tempdir().map_err(|e| EngineError::io("tempdir", "tmp", e))?;
    let dir = tmp.path().join("data");
    let dir_s = dir.to_string_lossy().to_string();
    let exe = std::env::current_exe().map_err(|e| EngineError::io("current_exe", "self", e))?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut durable_total = 0u64;
    for cycle in 0..cycles {
        let mut child = Command::new(&exe)
            .args([
                "--ignored",
                "--exact",
                "crash_child_entry",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, format!("{dir_s}|{}", ps.get()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| EngineError::io("spawn", &exe, e))?;
        let durable = Arc::new(AtomicU64::new(0));
        let ready = Arc::new(AtomicU64::new(0));
        let reader = child.stdout.take().map(|stdout| {
            let (durable, ready) = (durable.clone(), ready.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(stdout)
                    .lines()
                    .map_while(std::io::Result::ok)
                {
                    if let Some(n) = line.strip_prefix("D ").and_then(|v| v.parse().ok()) {
                        durable.store(n, Ordering::SeqCst);
                    } else if line.contains("READY ") {
                        ready.store(1, Ordering::SeqCst);
                    }
                }
            })
        });
        // Mostly kill during the workload; sometimes during start-up/recovery.
        if rng.random_bool(0.85) {
            let t0 = Instant::now();
            while ready.load(Ordering::SeqCst) == 0 && t0.elapsed() < Duration::from_secs(20) {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        std::thread::sleep(Duration::from_millis(rng.random_range(1..60)));
        let _ = child.kill(); // SIGKILL
        let status = child.wait().map_err(|e| EngineError::io("wait", &exe, e))?;
        if let Some(r) = reader {
            let _ = r.join();
        }
        let reported = durable.load(Ordering::SeqCst);
        if ready.load(Ordering::SeqCst) == 1 && status.code().is_some() {
            return Err(EngineError::Internal(format!(
                "cycle {cycle}: the child exited by itself ({status}) instead of being killed"
            )));
        }
        durable_total = durable_total.max(reported);
        if !larch_engine::storage::Storage::exists(&*vfs(), &dir) {
            continue; // killed before the directory was created
        }
        // Recover in this process and verify; abandon so the next child recovers too.
        let storage = Storage::open(config(&dir_s, ps), vfs())?;
        let Some(space) = storage.spaces().ids().into_iter().find(|&id| id > 1) else {
            storage.abandon();
            continue;
        };
        let w = Workload::find(&storage, space)?;
        let m = w
            .verify(&storage)
            .map_err(|e| EngineError::Internal(format!("page size {ps}, cycle {cycle}: {e}")))?;
        if m < durable_total {
            return Err(EngineError::Internal(format!(
                "page size {ps}, cycle {cycle}: mtr {durable_total} was reported durable but only {m} survived"
            )));
        }
        if cycle + 1 == cycles {
            let report = storage.check()?;
            if !report.is_clean() {
                return Err(EngineError::Internal(format!(
                    "check failed: {:?}",
                    report.problems()
                )));
            }
            storage.close()?;
        } else {
            storage.abandon();
        }
    }
    Ok(())
}

/// 200 kill cycles across all page sizes in the normal test suite.
#[test]
fn sigkill_cycles_every_page_size() -> Result<()> {
    for (i, ps) in PageSize::ALL.into_iter().enumerate() {
        run_cycles(ps, 40, 77 + i as u64)?;
    }
    Ok(())
}

#[test]
#[ignore = "long: run with --ignored"]
fn sigkill_cycles_long() -> Result<()> {
    for (i, ps) in PageSize::ALL.into_iter().enumerate() {
        run_cycles(ps, 400, 1000 + i as u64)?;
    }
    Ok(())
}
