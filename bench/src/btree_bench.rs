//! `btree`: benchmarks of the B+tree indexes on a real data directory: point
//! lookups, inserts, range scans, bulk builds and space amplification, on a
//! table of the sysbench `sbtest` shape. See `bench/README.md` for what each
//! figure means.
//!
//! ```text
//! cargo run --release -p larch-bench --bin btree -- [--quick] [--out DIR]
//! ```
//!
//! Prints a table and writes `btree-<UTC timestamp>-{quick,full}.tsv` (`name
//! value unit notes`, tab-separated) and a `.env` file with the machine facts
//! and settings to the output directory (default `bench/results/`).

mod btree_sbtest;
mod btree_space;
mod btree_speed;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use larch_bench::harness::{machine_facts, utc_stamp, Mode, Report, Result};
use larch_engine::config::EngineConfig;
use larch_engine::io::OsVfs;
use larch_engine::page::PageSize;
use larch_engine::record::collation::Collation;
use larch_engine::storage::Storage;

use btree_sbtest::{EncodedRows, Sbtest};
use btree_speed::Table;

/// Benchmark sections, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Section {
    /// Point lookups, 1 and 2 threads.
    Lookup,
    /// Full and short range scans.
    Scan,
    /// Sequential and random inserts.
    Insert,
    /// Bulk builds.
    Bulk,
    /// Space amplification of the sbtest table after three kinds of build.
    Space,
}

/// Character set of the CHAR columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Charset {
    /// latin1_swedish_ci (1 byte per character).
    Latin1,
    /// utf8mb4_general_ci (up to 4 bytes per character; ASCII data).
    Utf8mb4,
}

#[derive(Debug, Parser)]
#[command(about = "B+tree benchmarks of the Larch engine")]
struct Args {
    /// Short runs: 200,000 rows and 3 timed runs per figure (about 1 minute).
    #[arg(long)]
    quick: bool,
    /// Rows per table [default: 200,000 quick, 1,000,000 full].
    #[arg(long)]
    rows: Option<u64>,
    /// Page size in KiB (4, 8, 16, 32 or 64).
    #[arg(long, default_value_t = 16)]
    page_size_kib: u64,
    /// Character set of the CHAR columns.
    #[arg(long, value_enum, default_value_t = Charset::Latin1)]
    charset: Charset,
    /// Buffer pool size in MiB [default: enough for the largest table].
    #[arg(long)]
    pool_mib: Option<u64>,
    /// Directory for the result files [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where to create the scratch data directory (must be on the disk to
    /// measure) [default: the system temp dir].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Run only these sections (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Section>,
}

fn open_storage(dir: &Path, page_size: PageSize, pool_bytes: u64) -> Result<Storage> {
    let mut c = EngineConfig::new(dir);
    c.page_size = Some(page_size);
    c.buffer_pool_size = pool_bytes;
    // Room for the redo of a whole build, so checkpoints rarely force flushing.
    c.log_file_size = 1 << 30;
    Ok(Storage::create(c, Arc::new(OsVfs::new()))?)
}

fn main() -> Result<()> {
    larch_bench::harness::init_tracing();
    let args = Args::parse();
    let mode = Mode::new(args.quick);
    let n = args.rows.unwrap_or(mode.pick(200_000, 1_000_000)).max(1);
    let page_size = PageSize::from_bytes(args.page_size_kib * 1024)?;
    let collation = match args.charset {
        Charset::Latin1 => Collation::Latin1SwedishCi,
        Charset::Utf8mb4 => Collation::Utf8mb4GeneralCi,
    };
    // The largest table (random inserts, both trees, ~70% full pages) is under
    // 400 bytes per row; one table exists at a time.
    let pool_bytes = args
        .pool_mib
        .map_or_else(|| (n * 400).max(64 << 20), |m| m << 20);
    let out = larch_bench::harness::results_dir(args.out.clone())?;
    let scratch = larch_bench::harness::scratch_dir(args.dir.clone(), "larch-bench-btree-")?;
    let facts = format!(
        "btree {} mode, {} timed runs per figure after one warm-up, median reported\n\
         rows: {n}; page size: {} KiB; CHAR columns: {collation:?}; buffer pool: {} MiB; \
         redo log: 1 GiB; doublewrite on; O_DIRECT data files\n{}",
        mode.name(),
        mode.reps,
        page_size.bytes() / 1024,
        pool_bytes >> 20,
        machine_facts(scratch.path())
    );
    eprint!("{facts}");

    let wanted = |s: Section| args.only.is_empty() || args.only.contains(&s);
    let mut report = Report::default();
    let t0 = Instant::now();
    let storage = open_storage(&scratch.path().join("data"), page_size, pool_bytes)?;
    let table = Sbtest::new(n, collation);
    eprintln!("== encoding {n} rows");
    let rows = EncodedRows::new(&table)?;

    if wanted(Section::Lookup) || wanted(Section::Scan) {
        let t = Table::create(&storage, "bench/read.ibd")?;
        btree_speed::bulk_load(&storage, t.tree, &rows, n)?;
        if wanted(Section::Lookup) {
            eprintln!("== point lookups (table bulk-built, resident)");
            btree_speed::run_lookups(&mut report, mode, &storage, t.tree, &rows, n)?;
        }
        if wanted(Section::Scan) {
            eprintln!("== range scans");
            btree_speed::run_scans(&mut report, mode, &storage, t.tree, &rows, n)?;
        }
        t.drop_space()?;
    }
    if wanted(Section::Insert) {
        eprintln!("== inserts");
        btree_speed::run_inserts(&mut report, mode, &storage, &rows, n)?;
    }
    if wanted(Section::Bulk) {
        eprintln!("== bulk builds");
        btree_speed::run_bulk(&mut report, mode, &storage, &rows, n)?;
    }
    if wanted(Section::Space) {
        eprintln!("== space amplification (sbtest: clustered + secondary on k)");
        btree_space::run(&mut report, &storage, &table, &rows)?;
    }
    storage.close()?;

    let elapsed = t0.elapsed().as_secs_f64();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let facts = format!("{facts}load average at end: {}\n", load.join(" "));
    let stem = format!("btree-{}-{}", utc_stamp(), mode.name());
    let tsv = out.join(format!("{stem}.tsv"));
    report.write_tsv(&tsv)?;
    let env = out.join(format!("{stem}.env"));
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
