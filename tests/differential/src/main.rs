//! The soak command: runs the differential tester for a given time or
//! number of statements and reports statements run, mismatches per million
//! statements, mismatches by category, and the minimized reproductions
//! (also written to the output directory).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use larch_differential::gen::FEATURES;
use larch_differential::runner::{Config, Runner};

/// Compare Larch with MariaDB 10.11 on random SQL.
#[derive(Parser, Debug)]
#[command(name = "larch-differential")]
struct Args {
    /// Seconds to run.
    #[arg(long, default_value_t = 600)]
    duration: u64,
    /// Stop after this many statements.
    #[arg(long)]
    statements: Option<u64>,
    /// The RNG seed (default: $LARCH_DIFF_SEED, else random; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// The larchd binary (default: $LARCHD, else the workspace's release build).
    #[arg(long)]
    larchd: Option<PathBuf>,
    /// Directory for summary.md and the reproductions.
    #[arg(long, default_value = "differential-results")]
    out: PathBuf,
    /// Generator features to switch off (comma-separated; see --list-features).
    #[arg(long, value_delimiter = ',')]
    without: Vec<String>,
    /// Skip generated statements containing this text (case-insensitive;
    /// repeatable), e.g. `--avoid 'AS NCHAR'`: a temporary switch for the
    /// shape of a reported bug.
    #[arg(long)]
    avoid: Vec<String>,
    /// Print the generator features and exit.
    #[arg(long)]
    list_features: bool,
    /// Statements per round (fresh tables).
    #[arg(long, default_value_t = 60)]
    round: usize,
    /// Seconds to spend minimizing one mismatch.
    #[arg(long, default_value_t = 30)]
    minimize_secs: u64,
    /// Minimize the first N mismatches of each category (later ones: the 32nd, 64th, ...).
    #[arg(long, default_value_t = 3)]
    minimize_per_category: u64,
    /// Do not print each reproduction as it is found.
    #[arg(long)]
    quiet: bool,
}

extern "C" fn on_signal(_: libc::c_int) {
    larch_differential::runner::STOP.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list_features {
        println!("{}", FEATURES.join("\n"));
        return ExitCode::SUCCESS;
    }
    for w in &args.without {
        if !FEATURES.contains(&w.as_str()) {
            eprintln!("larch-differential: unknown feature `{w}` (see --list-features)");
            return ExitCode::FAILURE;
        }
    }
    let seed = args.seed.unwrap_or_else(larch_differential::seed_from_env);
    let larchd = args
        .larchd
        .unwrap_or_else(larch_differential::default_larchd);
    println!(
        "larch-differential: seed {seed} (replay with --seed {seed}), larchd {}",
        larchd.display()
    );
    let mut cfg = Config::new(seed, larchd);
    cfg.duration = Duration::from_secs(args.duration);
    cfg.max_statements = args.statements.unwrap_or(u64::MAX);
    cfg.disabled = args.without.into_iter().collect();
    cfg.avoid = args.avoid.iter().map(|a| a.to_ascii_uppercase()).collect();
    cfg.statements_per_round = args.round;
    cfg.minimize_time = Duration::from_secs(args.minimize_secs);
    cfg.minimize_per_category = args.minimize_per_category;
    cfg.progress = Some(Duration::from_secs(30));
    cfg.out_dir = Some(args.out.clone());
    cfg.print_findings = !args.quiet;
    // SIGINT/SIGTERM end the run at the next statement, with the report.
    // SAFETY: the handler only stores to an atomic, which is
    // async-signal-safe.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    let mut runner = match Runner::start(cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("larch-differential: cannot start the servers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runner.run();
    let summary = runner.stats.summary();
    println!("{summary}");
    if let Err(e) = runner.stats.write_dir(&args.out) {
        eprintln!("larch-differential: writing {}: {e}", args.out.display());
    } else {
        println!(
            "larch-differential: reproductions in {}",
            args.out.display()
        );
    }
    if let Err(e) = result {
        eprintln!("larch-differential: the run stopped: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
