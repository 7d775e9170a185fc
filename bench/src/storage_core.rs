//! `storage-core`: micro-benchmarks of the storage core (buffer pool, redo log,
//! checksums, metadata memory). See `bench/README.md` for what each figure means.
//!
//! ```text
//! cargo run --release -p larch-bench --bin storage-core -- [--quick] [--out DIR]
//! ```
//!
//! Prints a table and writes `storage-core-{quick,full}.tsv` (`name value unit
//! notes`, tab-separated) and `storage-core-{quick,full}.env` (machine facts) to
//! the output directory (default `bench/results/`).

use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use larch_bench::harness::{machine_facts, Mode, Report, Result};
use larch_bench::{checksum, fix, memory, redo};

/// Benchmark sections, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Section {
    /// Buffer pool metadata bytes per page (runs first: RSS deltas need a quiet heap).
    Mem,
    /// Buffer pool fix/unfix of resident pages.
    Fix,
    /// CRC32C page checksums.
    Crc,
    /// Redo append throughput.
    Append,
    /// Durable commits on a bare redo log.
    Commit,
    /// Durable mini-transaction commits through a Storage.
    Mtr,
}

#[derive(Debug, Parser)]
#[command(about = "Storage-core micro-benchmarks of the Larch engine")]
struct Args {
    /// Short runs (under a minute in total).
    #[arg(long)]
    quick: bool,
    /// Directory for the result files [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where to create scratch data directories (must be on the disk to measure;
    /// a tmpfs makes fdatasync free) [default: the system temp dir].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Run only these sections (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Section>,
}

fn main() -> Result<()> {
    larch_bench::harness::init_tracing();
    let args = Args::parse();
    let mode = Mode::new(args.quick);
    let out = larch_bench::harness::results_dir(args.out.clone())?;
    let scratch = larch_bench::harness::scratch_dir(args.dir.clone(), "larch-bench-")?;
    let facts = format!(
        "storage-core {} mode, {} timed runs per figure after one warm-up, median reported\n{}",
        mode.name(),
        mode.reps,
        machine_facts(scratch.path())
    );
    eprint!("{facts}");

    let wanted = |s: Section| args.only.is_empty() || args.only.contains(&s);
    let mut report = Report::default();
    let t0 = Instant::now();
    let sections: [(Section, &str); 6] = [
        (Section::Mem, "buffer pool metadata"),
        (Section::Fix, "buffer pool fix/unfix"),
        (Section::Crc, "CRC32C page checksums"),
        (Section::Append, "redo append"),
        (Section::Commit, "durable commits, bare redo log"),
        (Section::Mtr, "durable commits, mini-transactions"),
    ];
    for (section, title) in sections {
        if !wanted(section) {
            continue;
        }
        eprintln!("== {title}");
        let s = scratch.path();
        match section {
            Section::Mem => memory::run(&mut report, mode, s)?,
            Section::Fix => fix::run(&mut report, mode, s)?,
            Section::Crc => checksum::run(&mut report, mode)?,
            Section::Append => redo::run_append(&mut report, mode, s)?,
            Section::Commit => redo::run_commit_raw(&mut report, mode, s)?,
            Section::Mtr => redo::run_commit_mtr(&mut report, mode, s)?,
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let facts = format!("{facts}load average at end: {}\n", load.join(" "));

    let tsv = out.join(format!("storage-core-{}.tsv", mode.name()));
    report.write_tsv(&tsv)?;
    let env = out.join(format!("storage-core-{}.env", mode.name()));
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
