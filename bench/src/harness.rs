//! Measurement plumbing shared by the benchmarks: run modes, timed repetitions,
//! thread launching, the result table and its TSV file, and machine facts.
//!
//! Method: every figure is taken over one untimed warm-up run followed by
//! [`Mode::reps`] timed runs; the reported value is the median run, and the notes
//! give the range over the timed runs. Timing is wall-clock [`Instant`]. Threads
//! are released together by a barrier, and a multi-threaded run lasts from the
//! release until the last thread has finished.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Error type of the benchmarks: anything printable.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
/// Result alias of the benchmarks.
pub type Result<T> = std::result::Result<T, Error>;

/// How long and how often to measure.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    /// `--quick`: short runs (the whole binary in well under a minute).
    pub quick: bool,
    /// Timed repetitions per figure (after one warm-up run).
    pub reps: usize,
}

impl Mode {
    pub fn new(quick: bool) -> Self {
        Self {
            quick,
            reps: if quick { 3 } else { 5 },
        }
    }

    /// `quick` in quick mode, else `full`.
    pub fn pick<T>(&self, quick: T, full: T) -> T {
        if self.quick {
            quick
        } else {
            full
        }
    }

    /// "quick" or "full".
    pub fn name(&self) -> &'static str {
        self.pick("quick", "full")
    }
}

/// Runs `f` once untimed (warm-up), then `mode.reps` times, returning the samples.
pub fn repeat<T>(mode: Mode, mut f: impl FnMut() -> Result<T>) -> Result<Vec<T>> {
    f()?;
    (0..mode.reps).map(|_| f()).collect()
}

/// The median of `v` (mean of the two middle values for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// The sample whose `key` is the median (the upper middle one for an even
/// count), so that figures derived from one run stay consistent.
pub fn median_by<T: Clone>(v: &[T], key: impl Fn(&T) -> f64) -> Option<T> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| key(a).total_cmp(&key(b)));
    s.get(s.len() / 2).cloned()
}

/// "median of N, range a..b" for the notes column.
pub fn spread(v: &[f64]) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "median of {}, range {}..{}",
        v.len(),
        fmt_value(lo),
        fmt_value(hi)
    )
}

/// Runs `body(i)` on `threads` threads released together; returns the wall-clock
/// seconds from the release until the last one finished, and their results.
pub fn run_parallel<T: Send>(
    threads: usize,
    body: impl Fn(usize) -> Result<T> + Sync,
) -> Result<(f64, Vec<T>)> {
    run_timed(threads, None, |i, _| body(i))
}

/// Runs `body(i, stop)` on `threads` threads released together for `dur`: `stop`
/// becomes true when the time is up and each body should return promptly. Returns
/// the wall-clock seconds from the release until the last one finished.
pub fn run_for<T: Send>(
    threads: usize,
    dur: Duration,
    body: impl Fn(usize, &AtomicBool) -> Result<T> + Sync,
) -> Result<(f64, Vec<T>)> {
    run_timed(threads, Some(dur), body)
}

fn run_timed<T: Send>(
    threads: usize,
    dur: Option<Duration>,
    body: impl Fn(usize, &AtomicBool) -> Result<T> + Sync,
) -> Result<(f64, Vec<T>)> {
    let barrier = Barrier::new(threads + 1);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (barrier, stop, body) = (&barrier, &stop, &body);
                s.spawn(move || {
                    barrier.wait();
                    body(i, stop)
                })
            })
            .collect();
        barrier.wait();
        let t0 = Instant::now();
        if let Some(d) = dur {
            std::thread::sleep(d);
            stop.store(true, Ordering::SeqCst);
        }
        let mut out = Vec::with_capacity(threads);
        let mut first_err = None;
        for h in handles {
            match h.join() {
                Ok(Ok(v)) => out.push(v),
                Ok(Err(e)) => first_err = first_err.or(Some(e)),
                Err(_) => first_err = first_err.or(Some("benchmark thread panicked".into())),
            }
        }
        let secs = t0.elapsed().as_secs_f64();
        match first_err {
            Some(e) => Err(e),
            None => Ok((secs, out)),
        }
    })
}

/// One figure.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
    pub notes: String,
}

/// The collected figures, printed as a table and written as TSV.
#[derive(Debug, Default)]
pub struct Report {
    rows: Vec<Row>,
}

/// A value with 3-4 significant digits.
pub fn fmt_value(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        format!("{v}")
    } else if a >= 1000.0 || v == 0.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 0.1 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

impl Report {
    /// Adds a figure and prints it at once (progress for long runs).
    pub fn add(
        &mut self,
        name: impl Into<String>,
        value: f64,
        unit: &'static str,
        notes: impl Into<String>,
    ) {
        let row = Row {
            name: name.into(),
            value,
            unit,
            notes: notes.into(),
        };
        eprintln!(
            "  {:<44} {:>12} {:<9} {}",
            row.name,
            fmt_value(row.value),
            row.unit,
            row.notes
        );
        self.rows.push(row);
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The table as text.
    pub fn table(&self) -> String {
        let w = self
            .rows
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let mut s = String::new();
        let _ = writeln!(s, "{:<w$}  {:>12}  {:<9}  notes", "name", "value", "unit");
        let _ = writeln!(s, "{}", "-".repeat(w + 2 + 12 + 2 + 9 + 2 + 5));
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{:<w$}  {:>12}  {:<9}  {}",
                r.name,
                fmt_value(r.value),
                r.unit,
                r.notes
            );
        }
        s
    }

    /// Writes `name\tvalue\tunit\tnotes` lines (with that header line) to `path`.
    pub fn write_tsv(&self, path: &Path) -> Result<()> {
        let mut s = String::from("name\tvalue\tunit\tnotes\n");
        for r in &self.rows {
            let notes = r.notes.replace(['\t', '\n'], " ");
            let _ = writeln!(s, "{}\t{}\t{}\t{}", r.name, r.value, r.unit, notes);
        }
        std::fs::write(path, s).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(())
    }
}

/// Resident set size of this process in bytes (`VmRSS` of `/proc/self/status`).
pub fn rss_bytes() -> Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .ok_or("no VmRSS line in /proc/self/status")?;
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .ok_or("malformed VmRSS line")?
        .parse()?;
    Ok(kb * 1024)
}

/// `YYYYMMDD-HHMMSS` in UTC, now.
pub fn utc_stamp() -> String {
    stamp_of(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

/// `YYYYMMDD-HHMMSS` in UTC of `secs` seconds after the Unix epoch.
pub fn stamp_of(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// File system type and device of the mount holding `path` (from `/proc/mounts`).
pub fn fs_of(path: &Path) -> String {
    let Ok(path) = path.canonicalize() else {
        return "unknown".into();
    };
    let Ok(mounts) = std::fs::read_to_string("/proc/mounts") else {
        return "unknown".into();
    };
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 3 && path.starts_with(f[1]))
                .then(|| (f[1].len(), format!("{} on {} ({})", f[2], f[0], f[1])))
        })
        .max_by_key(|(len, _)| *len)
        .map_or_else(|| "unknown".into(), |(_, s)| s)
}

/// A few lines describing the machine, for the header and the `.env` file.
pub fn machine_facts(scratch: &Path) -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / (1024.0 * 1024.0));
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    format!(
        "cpus: {cpus} x {model}\nmemory: {mem_gib:.1} GiB\nkernel: {}\nload average at start: {}\n\
         transparent hugepages: {}\nscratch dir: {} = {}\n",
        kernel.trim(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        thp.trim(),
        scratch.display(),
        fs_of(scratch)
    )
}

/// Logs warnings (or what `RUST_LOG` asks for) to stderr, as every benchmark
/// binary does before it starts.
pub fn init_tracing() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
}

/// A scratch directory named `prefix...` under `base` (the system temp dir
/// when `None`), removed when dropped.
pub fn scratch_dir(base: Option<std::path::PathBuf>, prefix: &str) -> Result<tempfile::TempDir> {
    let base = base.unwrap_or_else(std::env::temp_dir);
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(&base)
        .map_err(|e| format!("creating a scratch dir in {}: {e}", base.display()).into())
}

/// The directory result files go to (`bench/results` unless `out`), created.
pub fn results_dir(out: Option<std::path::PathBuf>) -> Result<std::path::PathBuf> {
    let out =
        out.unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results"));
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    Ok(out)
}

/// Runs `variants` variants in turn for one warm-up round and [`Mode::reps`]
/// timed rounds (`run(v)` returns variant `v`'s figure); the timed figures of
/// each variant, in variant order.
pub fn rounds(
    mode: Mode,
    variants: usize,
    mut run: impl FnMut(usize) -> Result<f64>,
) -> Result<Vec<Vec<f64>>> {
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(mode.reps); variants];
    for round in 0..=mode.reps {
        for (v, s) in samples.iter_mut().enumerate() {
            let figure = run(v)?;
            if round > 0 {
                s.push(figure);
            }
        }
        eprintln!(
            "   round {round}{}",
            if round == 0 { " (warm-up)" } else { "" }
        );
    }
    Ok(samples)
}

/// Writes `<out>/<stem>.tsv` (the report) and `<out>/<stem>.env` (the run's
/// facts and duration); the TSV's path.
pub fn write_results(
    out: &Path,
    stem: &str,
    report: &Report,
    facts: &str,
    elapsed_secs: f64,
) -> Result<std::path::PathBuf> {
    let tsv = out.join(format!("{stem}.tsv"));
    report.write_tsv(&tsv)?;
    let env_file = out.join(format!("{stem}.env"));
    std::fs::write(&env_file, format!("{facts}elapsed: {elapsed_secs:.1} s\n"))
        .map_err(|e| format!("writing {}: {e}", env_file.display()))?;
    Ok(tsv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(
            median_by(&[(1, 5.0), (2, 1.0), (3, 3.0)], |x| x.1).map(|x| x.0),
            Some(3)
        );
    }

    #[test]
    fn stamps_are_utc_calendar_times() {
        assert_eq!(stamp_of(0), "19700101-000000");
        assert_eq!(stamp_of(951_782_400), "20000229-000000");
        assert_eq!(stamp_of(1_700_000_000), "20231114-221320");
        assert_eq!(stamp_of(4_107_542_399), "21000228-235959");
    }

    #[test]
    fn parallel_runs_return_every_result() -> Result<()> {
        let (_, v) = run_parallel(3, |i| Ok(i * 2))?;
        assert_eq!(v, vec![0, 2, 4]);
        assert!(run_parallel(2, |i| if i == 1 { Err("boom".into()) } else { Ok(()) }).is_err());
        Ok(())
    }
}
