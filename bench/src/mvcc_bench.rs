//! `mvcc`: engine-level benchmarks of multi-version concurrency control on a
//! real data directory: point reads while other sessions hold snapshots (with
//! and without concurrent updaters), and a long report (one REPEATABLE READ
//! snapshot, full scans) beside hot-row updaters. See `bench/README.md`
//! ("`mvcc`") for what each figure means.
//!
//! ```text
//! cargo run --release -p larch-bench --bin mvcc -- [--quick] [--out DIR] [--only reads,report]
//! ```
//!
//! The table, loaded once and shared by every figure:
//!
//! ```sql
//! CREATE TABLE t (id INT PRIMARY KEY, k INT, c CHAR(120), KEY k (k))
//! ```
//!
//! Prints a table and writes `mvcc-<UTC timestamp>.tsv` (`name parameter value
//! unit notes`, tab-separated) and `mvcc-<UTC timestamp>.env` (machine facts and
//! settings) to the output directory (default `bench/results/`).

mod mvcc_reads;
mod mvcc_report;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use larch_bench::harness::{fmt_value, machine_facts, utc_stamp, Mode, Result};
use larch_engine::config::EngineConfig;
use larch_engine::io::OsVfs;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::storage::Storage;
use larch_engine::table::{
    ColumnDef, IndexDef, PurgeWorker, Table, TableDef, TransactionServices, TxnContext,
};
use larch_engine::txn::{IsolationLevel, Session, TrxOptions};

/// Benchmark sections, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Section {
    /// Point reads while 0, 1, 100, 1000 sessions hold snapshots.
    Reads,
    /// A long report (snapshot + full scans) beside hot-row updaters.
    Report,
}

#[derive(Debug, Parser)]
#[command(about = "MVCC benchmarks of the Larch engine (snapshots, version walks, purge)")]
struct Args {
    /// Short runs: 100,000 rows, 1 s runs, report ages 0/5/15 s (< 2 minutes).
    #[arg(long)]
    quick: bool,
    /// Rows in the table [default: 100,000 quick, 1,000,000 full].
    #[arg(long)]
    rows: Option<u64>,
    /// Updater threads beside the report [default: 2 quick, 4 full].
    #[arg(long)]
    updaters: Option<usize>,
    /// Report windows (each: idle scans, updaters, snapshot aged 0..max) [default: 1 quick, 3 full].
    #[arg(long)]
    windows: Option<usize>,
    /// Buffer pool size in MiB [default: 600 bytes per row, at least 256 MiB].
    #[arg(long)]
    pool_mib: Option<u64>,
    /// Updaters pause while the undo logs use more than this (disk guard)
    /// [default: 2 quick, 8 full].
    #[arg(long)]
    max_undo_gib: Option<u64>,
    /// Directory for the result files [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where to create the scratch data directory [default: the system temp dir].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Run only these sections (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Section>,
}

/// The benchmark table with the engine around it.
pub(crate) struct Env {
    storage: Arc<Storage>,
    services: Arc<TransactionServices>,
    table: Arc<Table>,
    /// Rows in the table (ids `1..=rows`; none is ever deleted).
    rows: u64,
    /// Undo pages in use above which updaters pause (a disk-space guard).
    undo_cap_pages: u64,
    /// Set when an updater paused at the cap (cleared by whoever reports it).
    capped: AtomicBool,
}

impl Env {
    /// A fresh data directory at `dir` with the table created and loaded.
    fn create(dir: &Path, rows: u64, pool_bytes: u64, undo_cap_bytes: u64) -> Result<Env> {
        let mut c = EngineConfig::new(dir);
        c.buffer_pool_size = pool_bytes;
        // Room for the redo of the load and the updates, so checkpoints
        // rarely force flushing.
        c.log_file_size = 1 << 30;
        let storage = Arc::new(Storage::create(c, Arc::new(OsVfs::new()))?);
        let (services, recovered) = TransactionServices::open(&storage)?;
        if !recovered.is_empty() {
            return Err("a fresh data directory recovered active transactions".into());
        }
        let t = Table::create_file_per_table(&storage, table_def(), "bench/t.ibd")?;
        let table = Arc::new(t.with_services(&services));
        services.register_table(&table);
        let undo_cap_pages = undo_cap_bytes / storage.page_size().bytes() as u64;
        let env = Env {
            storage,
            services,
            table,
            rows,
            undo_cap_pages,
            capped: AtomicBool::new(false),
        };
        env.load()?;
        Ok(env)
    }

    /// Inserts rows `1..=rows` in id order as an internal writer (no undo, no
    /// locks: what a bulk load leaves, every row visible to every snapshot),
    /// then flushes every page so no figure pays for cleaning the load.
    fn load(&self) -> Result<()> {
        let t0 = Instant::now();
        let mut ctx = TxnContext::internal();
        let mut rng = Rng::new(0x5EED);
        for id in 1..=self.rows {
            let row = new_row(id as i64, self.rows, &mut rng);
            self.table.insert(&mut ctx, &row)?;
        }
        ctx.commit()?;
        let loaded = t0.elapsed().as_secs_f64();
        self.storage.flush_all()?;
        eprintln!(
            "   loaded {} rows in {loaded:.1} s ({:.0} rows/s), flushed in {:.1} s",
            self.rows,
            self.rows as f64 / loaded,
            t0.elapsed().as_secs_f64() - loaded
        );
        Ok(())
    }

    fn session(&self) -> Result<Session> {
        Ok(self.services.system.register_session()?)
    }

    /// Updates row `id` in its own transaction: new random `k` and `c`.
    fn update(&self, session: &mut Session, id: i64, rng: &mut Rng) -> Result<()> {
        let trx = session.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        let mut ctx = TxnContext::new(&self.services, trx);
        let at = self.table.row_ref(&[Value::Int(id)])?;
        let row = new_row(id, self.rows, rng);
        if self.table.update(&mut ctx, &at, &row)?.is_none() {
            return Err(format!("row {id} vanished").into());
        }
        // No make_durable: the redo is written by the background log writer,
        // as with innodb_flush_log_at_trx_commit=0.
        ctx.commit()?;
        Ok(())
    }

    /// Waits until purge has emptied the history list (it does once no
    /// snapshot pins it). Returns the seconds it took, or `None` on timeout.
    fn drain(&self, limit: Duration) -> Option<f64> {
        let t0 = Instant::now();
        while self.services.undo.history_len() > 0 {
            if t0.elapsed() > limit {
                eprintln!(
                    "   warning: purge left {} history logs after {:.0} s",
                    self.services.undo.history_len(),
                    limit.as_secs_f64()
                );
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Some(t0.elapsed().as_secs_f64())
    }
}

/// id INT PRIMARY KEY, k INT, c CHAR(120) latin1; KEY k (k).
fn table_def() -> TableDef {
    let int = ColumnType::Int {
        bytes: 4,
        unsigned: false,
    };
    let char120 = ColumnType::Char {
        len: 120,
        collation: Collation::Latin1SwedishCi,
    };
    TableDef {
        name: "t".into(),
        columns: vec![
            ColumnDef::new("id", int.clone()),
            ColumnDef::new("k", int),
            ColumnDef::new("c", char120),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![IndexDef::on("k", &[1], false)],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

/// Row `id` with `k` random in `1..=rows` and `c` as sysbench makes it: ten
/// groups of 11 random digits joined by `-` (119 characters).
fn new_row(id: i64, rows: u64, rng: &mut Rng) -> Vec<Value> {
    let k = 1 + rng.below(rows) as i64;
    let mut c = String::with_capacity(120);
    for g in 0..10 {
        if g > 0 {
            c.push('-');
        }
        let _ = write!(c, "{:011}", rng.below(100_000_000_000));
    }
    vec![Value::Int(id), Value::Int(k), Value::Str(c)]
}

/// SplitMix64: small, fast, well mixed (benchmark inputs only).
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible here).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Which rows the updaters change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Any row, uniformly.
    Uniform,
    /// 90% of updates on the hot 1% of rows (ids that are multiples of 100,
    /// spread over the whole table), 10% on any row.
    Hot,
}

impl Pick {
    pub(crate) fn id(self, rows: u64, rng: &mut Rng) -> i64 {
        let uniform = |rng: &mut Rng| 1 + rng.below(rows) as i64;
        match self {
            Pick::Uniform => uniform(rng),
            Pick::Hot if rows >= 100 && rng.below(10) < 9 => {
                100 * (1 + rng.below(rows / 100)) as i64
            }
            Pick::Hot => uniform(rng),
        }
    }
}

/// Updates rows picked by `pick`, one transaction each, until `stop`; counts
/// them in `done` as they commit. Returns how many it did. While the undo
/// logs use more than the cap (`--max-undo-gib`), it pauses and sets
/// `env.capped`, so a run cannot fill the disk.
pub(crate) fn update_loop(
    env: &Env,
    seed: u64,
    pick: Pick,
    stop: &AtomicBool,
    done: &AtomicU64,
) -> Result<u64> {
    let mut session = env.session()?;
    let mut rng = Rng::new(seed);
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        if env.services.undo.undo_pages() > env.undo_cap_pages {
            env.capped.store(true, Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        let id = pick.id(env.rows, &mut rng);
        env.update(&mut session, id, &mut rng)?;
        done.fetch_add(1, Ordering::Relaxed);
        n += 1;
    }
    Ok(n)
}

/// One measurement.
#[derive(Debug, Clone)]
pub(crate) struct Figure {
    name: String,
    param: String,
    value: f64,
    unit: &'static str,
    notes: String,
}

/// The collected measurements, printed as a table and written as TSV.
#[derive(Debug, Default)]
pub(crate) struct Figures {
    rows: Vec<Figure>,
}

impl Figures {
    /// Adds a measurement and prints it at once (progress for long runs).
    pub(crate) fn add(
        &mut self,
        name: &str,
        param: impl Into<String>,
        value: f64,
        unit: &'static str,
        notes: impl Into<String>,
    ) {
        let f = Figure {
            name: name.into(),
            param: param.into(),
            value,
            unit,
            notes: notes.into(),
        };
        eprintln!(
            "  {:<34} {:<16} {:>10} {:<10} {}",
            f.name,
            f.param,
            fmt_value(f.value),
            f.unit,
            f.notes
        );
        self.rows.push(f);
    }

    fn table(&self) -> String {
        let w = |f: fn(&Figure) -> usize, min: usize| {
            self.rows.iter().map(f).max().unwrap_or(min).max(min)
        };
        let (wn, wp) = (w(|f| f.name.len(), 4), w(|f| f.param.len(), 9));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<wn$}  {:<wp$}  {:>10}  {:<10}  notes",
            "name", "parameter", "value", "unit"
        );
        let _ = writeln!(s, "{}", "-".repeat(wn + wp + 10 + 10 + 15));
        for f in &self.rows {
            let _ = writeln!(
                s,
                "{:<wn$}  {:<wp$}  {:>10}  {:<10}  {}",
                f.name,
                f.param,
                fmt_value(f.value),
                f.unit,
                f.notes
            );
        }
        s
    }

    fn write_tsv(&self, path: &Path) -> Result<()> {
        let mut s = String::from("name\tparameter\tvalue\tunit\tnotes\n");
        for f in &self.rows {
            let notes = f.notes.replace(['\t', '\n'], " ");
            let _ = writeln!(
                s,
                "{}\t{}\t{}\t{}\t{notes}",
                f.name, f.param, f.value, f.unit
            );
        }
        std::fs::write(path, s).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(())
    }
}

fn main() -> Result<()> {
    larch_bench::harness::init_tracing();
    let args = Args::parse();
    let mode = Mode::new(args.quick);
    let rows = args.rows.unwrap_or(mode.pick(100_000, 1_000_000)).max(1);
    let pool_bytes = args
        .pool_mib
        .map_or_else(|| (rows * 600).max(256 << 20), |m| m << 20);
    let undo_cap = args.max_undo_gib.unwrap_or(mode.pick(2, 8)) << 30;
    let report_cfg = mvcc_report::Config {
        updaters: args.updaters.unwrap_or(mode.pick(2, 4)).max(1),
        ages: mode.pick(vec![0, 5, 15], vec![0, 10, 30]),
        windows: args.windows.unwrap_or(mode.pick(1, 2)).max(1),
        warm_up: Duration::from_secs(mode.pick(1, 2)),
        baseline: Duration::from_secs(mode.pick(4, 10)),
        scan_limit: Duration::from_secs(mode.pick(5, 60)),
        drain_limit: Duration::from_secs(mode.pick(20, 300)),
    };
    let read_dur = Duration::from_millis(mode.pick(1000, 3000));
    let out = larch_bench::harness::results_dir(args.out.clone())?;
    let scratch = larch_bench::harness::scratch_dir(args.dir.clone(), "larch-bench-mvcc-")?;
    let facts = format!(
        "mvcc {} mode; rows: {rows}; buffer pool: {} MiB; redo log: 1 GiB (no flush per commit); \
         16 KiB pages; O_DIRECT data files; doublewrite on; purge thread running; \
         updaters pause above {} GiB of undo\n\
         reads: 2 reader threads, {} s runs, 1 warm-up + {} timed runs per figure, median reported\n\
         report: {} hot-row updaters, snapshot ages {:?} s, {} window(s), scans stopped after {} s\n{}",
        mode.name(),
        pool_bytes >> 20,
        undo_cap >> 30,
        read_dur.as_secs_f64(),
        mode.reps,
        report_cfg.updaters,
        report_cfg.ages,
        report_cfg.windows,
        report_cfg.scan_limit.as_secs(),
        machine_facts(scratch.path())
    );
    eprint!("{facts}");

    let wanted = |s: Section| args.only.is_empty() || args.only.contains(&s);
    let mut figs = Figures::default();
    let t0 = Instant::now();
    eprintln!("== loading {rows} rows");
    let env = Env::create(&scratch.path().join("data"), rows, pool_bytes, undo_cap)?;
    let mut purge = PurgeWorker::start(env.services.clone(), Vec::new())?;
    if wanted(Section::Reads) {
        eprintln!("== point reads while sessions hold snapshots");
        mvcc_reads::run(&env, &mut figs, mode, read_dur)?;
    }
    if wanted(Section::Report) {
        eprintln!("== long report beside hot updates");
        mvcc_report::run(&env, &mut figs, mode, &report_cfg)?;
    }
    purge.stop();
    let Env {
        storage,
        services,
        table,
        ..
    } = env;
    drop(table);
    drop(services);
    // The scratch directory is deleted next: stop the background threads
    // without flushing the (possibly many) dirty pages a close would write.
    if let Some(storage) = Arc::into_inner(storage) {
        storage.abandon();
    }

    let elapsed = t0.elapsed().as_secs_f64();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let facts = format!("{facts}load average at end: {}\n", load.join(" "));
    let stem = format!("mvcc-{}", utc_stamp());
    let tsv = out.join(format!("{stem}.tsv"));
    figs.write_tsv(&tsv)?;
    let env_file = out.join(format!("{stem}.env"));
    std::fs::write(&env_file, format!("{facts}elapsed: {elapsed:.1} s\n"))
        .map_err(|e| format!("writing {}: {e}", env_file.display()))?;
    println!("{}", facts.trim_end());
    println!();
    print!("{}", figs.table());
    println!();
    println!(
        "{} figures in {elapsed:.1} s; written to {}",
        figs.rows.len(),
        tsv.display()
    );
    Ok(())
}
