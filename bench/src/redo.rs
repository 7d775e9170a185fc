//! Redo log: raw append throughput and durable group-commit rate.
//!
//! *Append* (`redo.append.*`): threads call [`RedoLog::append`] then
//! [`RedoLog::close`] with records of 100 B or 1 KiB and never sync. The log runs
//! on a real file with the default 16 MiB log buffer; when the ring is full the
//! appending thread itself writes it out to the file (`pwrite` into the page
//! cache, no `fdatasync`), so the figure is the sustained rate, not the rate of
//! filling memory. The log file is 1 GiB and a checkpoint is written between
//! runs (untimed), so an append never waits for log space. MB/s counts record
//! payload bytes (10^6 B); each block adds a 24-byte header and padding to 8 B.
//!
//! *Durable commits* (`redo.commit.*`): each of N threads loops "append one
//! small block, close it, [`RedoLog::flush_up_to`] its end" for a fixed time, on a
//! real file with `fdatasync` on this machine's disk. Group commit lets one leader
//! write and sync for every waiting thread; `syncs/commit` (from
//! `log.stats().syncs`) shows how well that works. Two variants:
//! - `raw`: the bare [`RedoLog`] (64-byte record), nothing else running;
//! - `mtr`: a full [`Storage`] (page cleaner running), each thread with its own
//!   4-page [`Workload`] tablespace, committing `Workload::run_mtr` (a
//!   mini-transaction changing 1-4 pages under X latches) and then flushing the
//!   log up to its end, as a transaction commit with
//!   `innodb_flush_log_at_trx_commit=1` would. Its sync count also includes the
//!   syncs the page cleaner asks for.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use larch_engine::config::EngineConfig;
use larch_engine::io::OsVfs;
use larch_engine::storage::workload::Workload;
use larch_engine::storage::Storage;
use larch_engine::wal::file::FIRST_LSN;
use larch_engine::wal::{LogFile, RedoLog};

use crate::harness::{
    median, median_by, repeat, run_for, run_parallel, spread, Mode, Report, Result,
};

/// A bare redo log on a new real file `dir/ib_logfile0`.
fn raw_log(dir: &Path, capacity: u64) -> Result<RedoLog> {
    std::fs::create_dir_all(dir)?;
    let file = LogFile::create(&OsVfs::new(), &dir.join("ib_logfile0"), capacity, false)?;
    let cp = file.read_checkpoint()?;
    let defaults = EngineConfig::new(dir);
    let log = RedoLog::new(
        file,
        FIRST_LSN,
        cp,
        cp.epoch + 1,
        defaults.log_buffer_size,
        1,
    );
    log.write_checkpoint(FIRST_LSN)?;
    Ok(log)
}

/// Everything appended so far is in the file: checkpoint at the end (allowed for
/// a log that describes no pages), freeing the whole file for the next run.
fn checkpoint_all(log: &RedoLog) -> Result<()> {
    log.write_checkpoint(log.current_lsn())?;
    Ok(())
}

pub fn run_append(report: &mut Report, mode: Mode, scratch: &Path) -> Result<()> {
    let log = raw_log(&scratch.join("append"), 1 << 30)?;
    let volume: u64 = mode.pick(64 << 20, 256 << 20);
    for (size, label) in [(100usize, "100B"), (1024, "1KiB")] {
        for threads in [1usize, 2] {
            let per_thread = volume / size as u64 / threads as u64;
            let waits0 = log.stats().waits.load(Ordering::SeqCst);
            let samples = repeat(mode, || {
                let (secs, _) = run_parallel(threads, |t| {
                    let rec = vec![t as u8 + 1; size];
                    for _ in 0..per_thread {
                        let (s, e) = log.append(&rec)?;
                        log.close(s, e);
                    }
                    Ok(())
                })?;
                checkpoint_all(&log)?;
                Ok(secs)
            })?;
            let total = per_thread * threads as u64;
            let mbs: Vec<f64> = samples
                .iter()
                .map(|s| (total * size as u64) as f64 / s / 1e6)
                .collect();
            let waits = log.stats().waits.load(Ordering::SeqCst) - waits0;
            let mapps = total as f64 / median(&samples) / 1e6;
            report.add(
                format!("redo.append.{label}.{threads}t"),
                median(&mbs),
                "MB/s",
                format!(
                    "{mapps:.2} M appends/s; {} MiB per run; {waits} waits for ring space; {}",
                    volume >> 20,
                    spread(&mbs)
                ),
            );
        }
    }
    Ok(())
}

/// One durable-commit run: commits, seconds, syncs.
#[derive(Clone, Copy)]
struct CommitRun {
    commits: u64,
    secs: f64,
    syncs: u64,
}

impl CommitRun {
    fn rate(&self) -> f64 {
        self.commits as f64 / self.secs
    }
}

fn report_commits(
    report: &mut Report,
    name: &str,
    threads: usize,
    runs: &[CommitRun],
    extra: &str,
) -> Result<()> {
    let rates: Vec<f64> = runs.iter().map(CommitRun::rate).collect();
    let mid = median_by(runs, CommitRun::rate).ok_or("no runs")?;
    let per = mid.syncs as f64 / mid.commits.max(1) as f64;
    report.add(
        format!("{name}.{threads}t"),
        median(&rates),
        "commits/s",
        format!(
            "{:.0} us/commit per thread; {extra}{}",
            threads as f64 * 1e6 / mid.rate(),
            spread(&rates)
        ),
    );
    report.add(
        format!("{name}.{threads}t.syncs_per_commit"),
        per,
        "syncs",
        format!(
            "{} syncs, {} commits in the median run",
            mid.syncs, mid.commits
        ),
    );
    Ok(())
}

const COMMIT_THREADS: [usize; 3] = [1, 8, 64];

pub fn run_commit_raw(report: &mut Report, mode: Mode, scratch: &Path) -> Result<()> {
    let log = raw_log(&scratch.join("commit"), 256 << 20)?;
    let dur = Duration::from_millis(mode.pick(600, 3000));
    for threads in COMMIT_THREADS {
        let runs = repeat(mode, || {
            let syncs0 = log.stats().syncs.load(Ordering::SeqCst);
            let (secs, counts) = run_for(threads, dur, |t, stop: &AtomicBool| {
                let rec = [t as u8; 64];
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let (s, e) = log.append(&rec)?;
                    log.close(s, e);
                    log.flush_up_to(e)?;
                    n += 1;
                }
                Ok(n)
            })?;
            let syncs = log.stats().syncs.load(Ordering::SeqCst) - syncs0;
            checkpoint_all(&log)?;
            Ok(CommitRun {
                commits: counts.iter().sum(),
                secs,
                syncs,
            })
        })?;
        report_commits(report, "redo.commit.raw", threads, &runs, "64 B record; ")?;
    }
    Ok(())
}

pub fn run_commit_mtr(report: &mut Report, mode: Mode, scratch: &Path) -> Result<()> {
    let storage = Storage::create(
        EngineConfig::new(scratch.join("mtr")),
        Arc::new(OsVfs::new()),
    )?;
    let max = COMMIT_THREADS.iter().copied().max().unwrap_or(1);
    let wls: Vec<Workload> = (0..max)
        .map(|i| Workload::create(&storage, &format!("bench/c{i}.ibd"), 4))
        .collect::<larch_engine::Result<_>>()?;
    // Per-workload mtr numbers continue across runs.
    let next: Vec<AtomicU64> = (0..max).map(|_| AtomicU64::new(1)).collect();
    let dur = Duration::from_millis(mode.pick(600, 3000));
    let log = storage.log();
    for threads in COMMIT_THREADS {
        let runs = repeat(mode, || {
            let syncs0 = log.stats().syncs.load(Ordering::SeqCst);
            let (secs, counts) = run_for(threads, dur, |t, stop: &AtomicBool| {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let end = wls[t].run_mtr(&storage, next[t].fetch_add(1, Ordering::Relaxed))?;
                    log.flush_up_to(end)?;
                    n += 1;
                }
                Ok(n)
            })?;
            let syncs = log.stats().syncs.load(Ordering::SeqCst) - syncs0;
            Ok(CommitRun {
                commits: counts.iter().sum(),
                secs,
                syncs,
            })
        })?;
        report_commits(report, "redo.commit.mtr", threads, &runs, "")?;
    }
    storage.close()?;
    Ok(())
}
