//! `txn`: micro-benchmarks of the transaction system (`larch_engine::txn`):
//! snapshot open+close, visibility checks, commits, autocommit SELECT cycles.
//! See `bench/README.md` ("Transaction system") for what each figure means.
//!
//! ```text
//! cargo run --release -p larch-bench --bin txn -- [--quick] [--out DIR] [--only a,b]
//! ```
//!
//! Prints a table and writes `txn-{quick,full}.tsv` (`name value unit notes`,
//! tab-separated) and `txn-{quick,full}.env` (machine facts) to the output
//! directory (default `bench/results/`).

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use larch_bench::harness::{machine_facts, median, repeat, spread, Mode, Report, Result};
use larch_engine::txn::{IsolationLevel, TransactionSystem, TrxId, TrxOptions};

/// Benchmark sections, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Section {
    /// Snapshot open+close (READ COMMITTED statement boundaries).
    Snapshot,
    /// The same on a model of a mutex-protected active-transaction list.
    Baseline,
    /// Visibility checks: below the low watermark, via the commit table.
    Visibility,
    /// Commits: begin + id + CSN + in-order publish.
    Commit,
    /// Autocommit non-locking SELECT: begin + snapshot + end.
    Select,
}

#[derive(Debug, Parser)]
#[command(about = "Transaction-system micro-benchmarks of the Larch engine")]
struct Args {
    /// Short runs (well under a minute in total).
    #[arg(long)]
    quick: bool,
    /// Directory for the result files [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only these sections (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Section>,
}

/// Thread counts of the multi-threaded figures.
const THREADS: [usize; 3] = [1, 2, 64];

/// CPUs the threads can run on.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `body(thread, stop)` on `threads` threads released together; each
/// body does its set-up, then operations until `stop` is set (`dur` after the
/// release), and returns how many it did. The run lasts from the earliest
/// thread start to the latest thread end, each measured by the thread itself
/// (with many more threads than CPUs the releasing thread may run late).
/// Returns (seconds, operations).
fn timed_threads(
    threads: usize,
    dur: Duration,
    body: &(impl Fn(usize, &AtomicBool) -> Result<u64> + Sync),
) -> Result<(f64, u64)> {
    let barrier = Barrier::new(threads + 1);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (barrier, stop) = (&barrier, &stop);
                s.spawn(move || -> Result<(Instant, Instant, u64)> {
                    barrier.wait();
                    let t0 = Instant::now();
                    let ops = body(i, stop)?;
                    Ok((t0, Instant::now(), ops))
                })
            })
            .collect();
        barrier.wait();
        std::thread::sleep(dur);
        stop.store(true, Ordering::Relaxed);
        let mut runs = Vec::with_capacity(threads);
        for h in handles {
            runs.push(h.join().map_err(|_| "benchmark thread panicked")??);
        }
        let first = runs.iter().map(|r| r.0).min().ok_or("no threads")?;
        let last = runs.iter().map(|r| r.1).max().ok_or("no threads")?;
        Ok(((last - first).as_secs_f64(), runs.iter().map(|r| r.2).sum()))
    })
}

/// Operations between two looks at the stop flag.
const BATCH: u64 = 64;

/// Runs `op(thread)` (after `setup(thread)`) in a timed loop on `threads`
/// threads, once per repetition, and reports `ns/op` (wall time x busy cores /
/// operations: the latency one thread sees while threads <= CPUs, the CPU time
/// an operation costs beyond that) and, for several threads, the total rate.
fn parallel_figure<S>(
    report: &mut Report,
    mode: Mode,
    name: &str,
    threads: usize,
    notes: &str,
    setup: impl Fn(usize) -> Result<S> + Sync,
    op: impl Fn(&mut S) -> Result<()> + Sync,
) -> Result<()> {
    let dur = Duration::from_millis(mode.pick(300, 1500));
    let busy = threads.min(cpus()) as f64;
    let body = |t: usize, stop: &AtomicBool| -> Result<u64> {
        let mut state = setup(t)?;
        let mut ops = 0;
        while !stop.load(Ordering::Relaxed) {
            for _ in 0..BATCH {
                op(&mut state)?;
            }
            ops += BATCH;
        }
        Ok(ops)
    };
    let runs = repeat(mode, || timed_threads(threads, dur, &body))?;
    let ns: Vec<f64> = runs
        .iter()
        .map(|&(s, n)| s * 1e9 * busy / n as f64)
        .collect();
    report.add(
        format!("{name}.{threads}t"),
        median(&ns),
        "ns/op",
        format!("{notes}; {}", spread(&ns)),
    );
    if threads > 1 {
        let mops: Vec<f64> = runs.iter().map(|&(s, n)| n as f64 / s / 1e6).collect();
        report.add(
            format!("{name}.{threads}t.total"),
            median(&mops),
            "Mops/s",
            format!("all {threads} threads together; {}", spread(&mops)),
        );
    }
    Ok(())
}

/// Snapshot open+close: each thread has its own session and one READ
/// COMMITTED transaction; an operation is `read_view()` (opens the snapshot)
/// plus `end_statement()` (closes it).
fn run_snapshot(report: &mut Report, mode: Mode) -> Result<()> {
    let sys = TransactionSystem::new(1, 1)?;
    for threads in THREADS {
        parallel_figure(
            report,
            mode,
            "txn.snapshot.open_close",
            threads,
            "read_view + end_statement at READ COMMITTED, own session per thread",
            |_| {
                let mut session = sys.register_session()?;
                let t = session.begin(TrxOptions::read_write(IsolationLevel::ReadCommitted))?;
                Ok((session, t))
            },
            |(_, t)| {
                black_box(t.read_view());
                t.end_statement();
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// A model of the classic design for comparison: one mutex over the list of
/// active read-write transaction ids (here 100) and the list of open views;
/// opening a view copies the ids under the mutex, closing it unlinks it.
fn run_baseline(report: &mut Report, mode: Mode) -> Result<()> {
    struct Shared {
        active: Vec<TrxId>,
        views: Vec<usize>,
    }
    let shared = Mutex::new(Shared {
        active: (1000..1100).collect(),
        views: Vec::new(),
    });
    for threads in THREADS {
        parallel_figure(
            report,
            mode,
            "txn.baseline.mutex_copy_100",
            threads,
            "model: lock, copy 100 active ids, link view; lock, unlink",
            |t| Ok((t, Vec::<TrxId>::with_capacity(128))),
            |(t, ids)| {
                {
                    let mut g = shared.lock().map_err(|_| "poisoned")?;
                    ids.clear();
                    ids.extend_from_slice(&g.active);
                    g.views.push(*t);
                }
                black_box(&ids);
                let mut g = shared.lock().map_err(|_| "poisoned")?;
                if let Some(pos) = g.views.iter().position(|v| v == t) {
                    g.views.swap_remove(pos);
                }
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// Visibility checks from one thread, cycling through 4096 writer ids.
fn run_visibility(report: &mut Report, mode: Mode) -> Result<()> {
    const IDS: u64 = 4096;
    let sys = TransactionSystem::new(1, 1)?;
    let mut writer = sys.register_session()?;
    let mut commit_n = |n: u64| -> Result<Vec<TrxId>> {
        (0..n)
            .map(|_| {
                let mut t = writer.begin(TrxOptions::default())?;
                let id = t.id_for_write()?;
                t.commit()?;
                Ok(id)
            })
            .collect()
    };
    let old = commit_n(IDS)?;
    // A long report pins the watermark: everything committed after it is
    // looked up in the commit table (ring), and once more than the ring's
    // 65,536 entries are newer than the oldest of them, in its overflow map.
    let mut reader = sys.register_session()?;
    let mut report_trx = reader.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let view = report_trx.read_view().ok_or("no read view")?;
    let newer = commit_n(100_000)?;
    let watermark = sys.advance_low_watermark();
    if old.iter().any(|&id| id >= watermark) || newer.iter().any(|&id| id < watermark) {
        return Err(format!("unexpected watermark {watermark}").into());
    }
    let in_ring: Vec<TrxId> = newer[newer.len() - IDS as usize..].to_vec();
    let in_overflow: Vec<TrxId> = newer[..IDS as usize].to_vec();
    if sys.commit_table_overflow() < IDS as usize {
        return Err("expected the oldest ids in the overflow map".into());
    }
    let checks = mode.pick(20_000_000u64, 100_000_000);
    let mut figure =
        |name: &str, ids: &[TrxId], expect: bool, checks: u64, notes: &str| -> Result<()> {
            let secs = repeat(mode, || {
                let t0 = Instant::now();
                let mut seen = 0u64;
                for i in 0..checks {
                    let id = ids[(i % IDS) as usize];
                    seen += u64::from(sys.is_visible(black_box(&view), black_box(id)));
                }
                let s = t0.elapsed().as_secs_f64();
                if seen != if expect { checks } else { 0 } {
                    return Err(format!("{name}: wrong visibility answers").into());
                }
                Ok(s)
            })?;
            let ns: Vec<f64> = secs.iter().map(|s| s * 1e9 / checks as f64).collect();
            report.add(
                name,
                median(&ns),
                "ns/op",
                format!("{notes}; {}", spread(&ns)),
            );
            Ok(())
        };
    figure(
        "txn.visible.below_watermark",
        &old,
        true,
        checks,
        "writer id below the low watermark: one comparison",
    )?;
    figure(
        "txn.visible.commit_table",
        &in_ring,
        false,
        checks,
        "writer committed after the snapshot, found in the ring",
    )?;
    figure(
        "txn.visible.overflow",
        &in_overflow,
        false,
        checks / 10,
        "writer evicted from the ring into the overflow map (long snapshot)",
    )?;
    report_trx.commit()?;
    Ok(())
}

/// Commits: an operation is begin + `id_for_write` (id) + commit (CSN, commit
/// table, in-order publish, wait until published).
fn run_commit(report: &mut Report, mode: Mode) -> Result<()> {
    let sys = TransactionSystem::new(1, 1)?;
    for threads in THREADS {
        parallel_figure(
            report,
            mode,
            "txn.commit",
            threads,
            "begin + first-write id + commit (CSN, in-order publish)",
            |_| sys.register_session().map_err(Into::into),
            |session| {
                let mut t = session.begin(TrxOptions::default())?;
                black_box(t.id_for_write()?);
                black_box(t.commit()?);
                Ok(())
            },
        )?;
    }
    // Every transaction finished: the watermark reaches the next id.
    let mut w = 0;
    while w != sys.advance_low_watermark() {
        w = sys.low_watermark();
    }
    let lag = sys.next_trx_id() - w;
    if lag != 0 {
        return Err(format!("low watermark {lag} ids behind after the commits").into());
    }
    Ok(())
}

/// Autocommit non-locking SELECT: begin + `read_view` (snapshot) + commit.
fn run_select(report: &mut Report, mode: Mode) -> Result<()> {
    let sys = TransactionSystem::new(1, 1)?;
    for threads in THREADS {
        parallel_figure(
            report,
            mode,
            "txn.autocommit_select",
            threads,
            "begin + read_view + commit, no id, no CSN",
            |_| sys.register_session().map_err(Into::into),
            |session| {
                let mut t = session.begin(TrxOptions::autocommit_select(
                    IsolationLevel::RepeatableRead,
                ))?;
                black_box(t.read_view());
                black_box(t.commit()?);
                Ok(())
            },
        )?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mode = Mode::new(args.quick);
    let out = larch_bench::harness::results_dir(args.out.clone())?;
    let facts = format!(
        "txn {} mode, {} timed runs per figure after one warm-up, median reported\n{}",
        mode.name(),
        mode.reps,
        machine_facts(&std::env::temp_dir())
    );
    eprint!("{facts}");

    let wanted = |s: Section| args.only.is_empty() || args.only.contains(&s);
    let mut report = Report::default();
    let t0 = Instant::now();
    let sections: [(Section, &str); 5] = [
        (Section::Snapshot, "snapshot open+close"),
        (Section::Baseline, "model: mutex + active-list copy"),
        (Section::Visibility, "visibility checks"),
        (Section::Commit, "commits"),
        (Section::Select, "autocommit SELECT cycle"),
    ];
    for (section, title) in sections {
        if !wanted(section) {
            continue;
        }
        eprintln!("== {title}");
        match section {
            Section::Snapshot => run_snapshot(&mut report, mode)?,
            Section::Baseline => run_baseline(&mut report, mode)?,
            Section::Visibility => run_visibility(&mut report, mode)?,
            Section::Commit => run_commit(&mut report, mode)?,
            Section::Select => run_select(&mut report, mode)?,
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let facts = format!("{facts}load average at end: {}\n", load.join(" "));

    let tsv = out.join(format!("txn-{}.tsv", mode.name()));
    report.write_tsv(&tsv)?;
    let env = out.join(format!("txn-{}.env", mode.name()));
    std::fs::write(&env, format!("{facts}elapsed: {elapsed:.1} s\n"))
        .map_err(|e| format!("writing {}: {e}", env.display()))?;
    println!("{}", facts.trim_end());
    println!();
    print!("{}", report.table());
    println!();
    println!(
        "{} figures in {elapsed:.1} s; written to {}",
        report.rows().len(),
        tsv.display()
    );
    Ok(())
}
