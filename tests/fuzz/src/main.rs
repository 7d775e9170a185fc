//! `larch-fuzz`: runs one fuzz target for a time budget, or replays saved
//! inputs.
//!
//! ```text
//! larch-fuzz --target wire --duration 600 [--seed N] [--out DIR]
//! larch-fuzz --target sql --replay FILE...
//! larch-fuzz --target record --write-seeds
//! ```
//!
//! Without `--seed` the seed comes from the clock and is printed first.
//! Inputs come from the target's seeds and `corpus/<target>/`; failing
//! inputs are saved to `--out` (default `fuzz-findings/` in the current
//! directory). The exit status is 1 when anything failed. See README.md.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use larch_fuzz::{corpus, driver, targets};

#[derive(Parser, Debug)]
#[command(about = "Fuzz one Larch target for a time budget, or replay saved inputs")]
struct Args {
    /// The target: wire, sql, record or page.
    #[arg(long)]
    target: String,
    /// Seconds to run.
    #[arg(long, default_value_t = 60)]
    duration: u64,
    /// The run's seed (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Stop after this many inputs.
    #[arg(long)]
    iterations: Option<u64>,
    /// Where failing inputs are saved.
    #[arg(long, default_value = "fuzz-findings")]
    out: PathBuf,
    /// Corpus directory (default: the target's directory in the repository).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Run these saved inputs once each instead of fuzzing.
    #[arg(long, num_args = 1..)]
    replay: Vec<PathBuf>,
    /// Write (at most 24 of) the target's built-in seeds into its corpus
    /// directory.
    #[arg(long)]
    write_seeds: bool,
}

fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    driver::iteration_seed(nanos, u64::from(std::process::id()))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut target = match targets::make(&args.target) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("larch-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let corpus_dir = args
        .corpus
        .clone()
        .unwrap_or_else(|| corpus::dir(&args.target));
    if args.write_seeds {
        // At most 24 seeds, spread over the list: the corpus stays small.
        let seeds = target.seeds();
        let step = seeds.len().div_ceil(24).max(1);
        for seed in seeds.into_iter().step_by(step) {
            match corpus::save(&corpus_dir, "seed", target.extension(), &seed) {
                Ok(p) => println!("wrote {}", p.display()),
                Err(e) => {
                    eprintln!("larch-fuzz: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    if !args.replay.is_empty() {
        let mut failed = false;
        for path in &args.replay {
            let input = match std::fs::read(path) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("larch-fuzz: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            };
            match driver::run_one(target.as_mut(), &input) {
                Ok(()) => println!("{}: ok", path.display()),
                Err(what) => {
                    failed = true;
                    println!("{}: FAILED: {what}", path.display());
                }
            }
        }
        return if failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    println!(
        "larch-fuzz: target {} seed {seed} for {} s",
        args.target, args.duration
    );
    let cfg = driver::RunConfig {
        seed,
        duration: Duration::from_secs(args.duration),
        max_iterations: args.iterations,
        out_dir: args.out.clone(),
        corpus: corpus::load(&corpus_dir),
        progress: Some(Duration::from_secs(30)),
    };
    let report = driver::run(target.as_mut(), &cfg);
    println!(
        "larch-fuzz: target {} seed {seed}: {} inputs in {:.0} s, {} distinct finding(s)",
        args.target,
        report.iterations,
        report.elapsed.as_secs_f64(),
        report.findings.len()
    );
    for f in &report.findings {
        println!(
            "{}\n  (+{} more inputs failing the same way)",
            driver::describe(&args.target, seed, f),
            f.repeats
        );
    }
    if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
