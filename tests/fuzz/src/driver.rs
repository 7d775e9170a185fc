//! The fuzz loop: picks or generates an input, mutates it, runs the
//! target on it, and records every failure with what replays it.
//!
//! Each iteration `i` draws from its own RNG, seeded with a mix of the
//! run's seed and `i` (printed with a finding), so the inputs of a run are
//! fixed by the seed, the corpus and the target's seeds; only how many
//! iterations fit in the time budget depends on the machine. An input
//! fails when running it panics (caught here with `catch_unwind`), when
//! any thread panicked meanwhile, caught or not ([`crate::panics`]), or
//! when the target reports a broken invariant. A failing input is saved
//! under the output directory and printed, with its seeds; findings with
//! the same panic place (or, for other failures, the same first line) are
//! saved once.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::{corpus, mutate, panics};

/// One fuzz target.
pub trait Target {
    /// The target's name (`--target`, the corpus directory).
    fn name(&self) -> &'static str;

    /// The file extension of saved inputs (`.bin`, `.sql`).
    fn extension(&self) -> &'static str {
        ".bin"
    }

    /// Built-in seed inputs (valid encodings, typical exchanges).
    fn seeds(&mut self) -> Vec<Vec<u8>>;

    /// A new input from the RNG, built with knowledge of the format.
    fn generate(&mut self, rng: &mut StdRng) -> Vec<u8>;

    /// Tokens the byte mutations insert.
    fn dictionary(&self) -> Vec<&'static [u8]> {
        Vec::new()
    }

    /// A mutation that knows the format; false when it made none (the
    /// driver then mutates bytes).
    fn mutate(&mut self, input: &mut Vec<u8>, rng: &mut StdRng) -> bool {
        let _ = (input, rng);
        false
    }

    /// Runs one input. `Err` names a broken invariant other than a panic.
    fn run(&mut self, input: &[u8]) -> Result<(), String>;

    /// True when each input should be written to disk before it runs, so
    /// an abort that no hook sees (a stack overflow) leaves it behind.
    fn save_before_run(&self) -> bool {
        false
    }
}

/// How long and from what a run starts.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The run's seed.
    pub seed: u64,
    /// Wall-clock budget.
    pub duration: Duration,
    /// Stop after this many inputs, if set (with the time budget).
    pub max_iterations: Option<u64>,
    /// Where failing inputs are saved.
    pub out_dir: PathBuf,
    /// Corpus inputs (besides the target's seeds).
    pub corpus: Vec<Vec<u8>>,
    /// Print progress every this often (`None`: quiet).
    pub progress: Option<Duration>,
}

/// One failing input.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Iteration number in the run.
    pub iteration: u64,
    /// The seed of that iteration's RNG.
    pub iteration_seed: u64,
    /// The input.
    pub input: Vec<u8>,
    /// What went wrong (first line: where).
    pub what: String,
    /// Where it was saved, if saving worked.
    pub saved: Option<PathBuf>,
    /// Further inputs that failed the same way.
    pub repeats: u64,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs run.
    pub iterations: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// Distinct findings, in the order found.
    pub findings: Vec<Finding>,
}

/// The seed of iteration `i` of a run seeded with `seed` (splitmix64).
pub fn iteration_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Runs one input and reports any failure: a panic that escaped, a panic
/// caught somewhere inside, or the target's own verdict.
pub fn run_one(target: &mut dyn Target, input: &[u8]) -> Result<(), String> {
    // Panics are counted process-wide (a target's own threads panic too),
    // so one input runs at a time: another run's panic, on another thread,
    // would be counted as this one's.
    let _one_at_a_time = ONE_INPUT_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    panics::install();
    let _ = panics::take();
    let before = panics::count();
    panics::set_quiet(true);
    let verdict = std::panic::catch_unwind(AssertUnwindSafe(|| target.run(input)));
    panics::set_quiet(false);
    let panicked = panics::count() - before;
    let first = panics::take();
    match (verdict, panicked) {
        (Ok(Ok(())), 0) => Ok(()),
        (Ok(Err(what)), 0) => Err(what),
        (Ok(verdict), n) => Err(format!(
            "{} ({n} panic(s), caught inside; verdict: {})",
            first.unwrap_or_default(),
            match verdict {
                Ok(()) => "ok".to_owned(),
                Err(e) => e,
            }
        )),
        (Err(_), _) => Err(format!("{} (escaped)", first.unwrap_or_default())),
    }
}

/// Held while [`run_one`] runs an input.
static ONE_INPUT_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Fuzzes `target` for the budget of `cfg`.
pub fn run(target: &mut dyn Target, cfg: &RunConfig) -> Report {
    panics::install();
    let start = Instant::now();
    let mut pool: Vec<Vec<u8>> = target.seeds();
    pool.extend(cfg.corpus.iter().cloned());
    let fixed = pool.len();
    let dictionary = target.dictionary();
    let mut report = Report::default();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut last_progress = Instant::now();
    let mut i = 0u64;
    while start.elapsed() < cfg.duration && cfg.max_iterations.is_none_or(|m| i < m) {
        let iteration_seed = iteration_seed(cfg.seed, i);
        let mut rng = StdRng::seed_from_u64(iteration_seed);
        let input = next_input(target, &mut rng, &pool, &dictionary);
        if target.save_before_run() {
            let _ = std::fs::create_dir_all(&cfg.out_dir);
            let path = cfg.out_dir.join(format!(
                "last-input-{}{}",
                target.name(),
                target.extension()
            ));
            let _ = std::fs::write(path, &input);
        }
        if let Err(what) = run_one(target, &input) {
            let key = finding_key(&what);
            match seen.get(&key) {
                Some(&k) => report.findings[k].repeats += 1,
                None => {
                    let saved = corpus::save(
                        &cfg.out_dir,
                        &format!("crash-{}", target.name()),
                        target.extension(),
                        &input,
                    )
                    .ok();
                    let finding = Finding {
                        iteration: i,
                        iteration_seed,
                        input: input.clone(),
                        what,
                        saved,
                        repeats: 0,
                    };
                    eprintln!("{}", describe(target.name(), cfg.seed, &finding));
                    seen.insert(key, report.findings.len());
                    report.findings.push(finding);
                }
            }
        }
        // Recent inputs join the splice partners (a bounded ring after the
        // seeds and the corpus).
        if pool.len() < fixed + 64 {
            pool.push(input);
        } else {
            let slot = fixed + (i as usize % 64);
            pool[slot] = input;
        }
        i += 1;
        if let Some(every) = cfg.progress {
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                eprintln!(
                    "[{}] {i} inputs, {:.0} s, {} finding(s)",
                    target.name(),
                    start.elapsed().as_secs_f64(),
                    report.findings.len()
                );
            }
        }
    }
    report.iterations = i;
    report.elapsed = start.elapsed();
    report
}

/// What makes two findings the same: a panic's place (file, line,
/// column), else the first line of the verdict.
fn finding_key(what: &str) -> String {
    let first = what.lines().next().unwrap_or_default();
    if let Some(rest) = first.strip_prefix("panic on thread ") {
        if let Some(at) = rest.find(" at ") {
            let place = &rest[at + 4..];
            let end = place.find(": ").unwrap_or(place.len());
            return place[..end].to_owned();
        }
    }
    first.to_owned()
}

/// The input of one iteration: generated, or a pool input mutated.
fn next_input(
    target: &mut dyn Target,
    rng: &mut StdRng,
    pool: &[Vec<u8>],
    dictionary: &[&[u8]],
) -> Vec<u8> {
    if pool.is_empty() || rng.random_bool(0.3) {
        let mut input = target.generate(rng);
        if rng.random_bool(0.3) {
            mutate_input(target, &mut input, rng, pool, dictionary);
        }
        return input;
    }
    let mut input = pool[rng.random_range(0..pool.len())].clone();
    mutate_input(target, &mut input, rng, pool, dictionary);
    input
}

fn mutate_input(
    target: &mut dyn Target,
    input: &mut Vec<u8>,
    rng: &mut StdRng,
    pool: &[Vec<u8>],
    dictionary: &[&[u8]],
) {
    if rng.random_bool(0.5) && target.mutate(input, rng) {
        return;
    }
    mutate::mutate(input, rng, pool, dictionary, 6);
}

/// A finding as text: what failed, the seeds, where the input is, and the
/// input itself (escaped, shortened when long).
pub fn describe(target: &str, seed: u64, f: &Finding) -> String {
    let saved = f
        .saved
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "(not saved)".to_owned());
    format!(
        "FINDING in target {target}: {}\n  run seed {seed}, iteration {}, iteration seed {}\n  input saved to {saved} (replay: --target {target} --replay {saved})\n  input ({} bytes): {}",
        f.what,
        f.iteration,
        f.iteration_seed,
        f.input.len(),
        escape(&f.input, 4000)
    )
}

/// `bytes` as printable ASCII with `\xNN` escapes, at most `max` bytes.
pub fn escape(bytes: &[u8], max: usize) -> String {
    let mut s = String::new();
    for &b in bytes.iter().take(max) {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    if bytes.len() > max {
        s.push_str(&format!("... ({} more bytes)", bytes.len() - max));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Panics on inputs starting with `!`, reports inputs starting with `?`.
    struct Picky;

    impl Target for Picky {
        fn name(&self) -> &'static str {
            "picky"
        }
        fn seeds(&mut self) -> Vec<Vec<u8>> {
            vec![b"abc".to_vec()]
        }
        fn generate(&mut self, rng: &mut StdRng) -> Vec<u8> {
            vec![rng.random_range(b'!'..=b'?')]
        }
        fn run(&mut self, input: &[u8]) -> Result<(), String> {
            match input.first() {
                Some(b'!') => panic!("bang"),
                Some(b'?') => Err("question".to_owned()),
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn panics_and_verdicts_are_findings_saved_once_each() -> Result<(), crate::Error> {
        let out = tempfile::tempdir()?;
        let cfg = RunConfig {
            seed: 3,
            duration: Duration::from_secs(60),
            max_iterations: Some(2000),
            out_dir: out.path().to_path_buf(),
            corpus: Vec::new(),
            progress: None,
        };
        let report = run(&mut Picky, &cfg);
        assert_eq!(report.iterations, 2000);
        let whats: Vec<&str> = report.findings.iter().map(|f| f.what.as_str()).collect();
        assert_eq!(report.findings.len(), 2, "{whats:?}");
        assert!(whats.iter().any(|w| w.contains("bang")));
        assert!(whats.contains(&"question"));
        for f in &report.findings {
            let path = f.saved.as_ref().ok_or("finding not saved")?;
            assert_eq!(std::fs::read(path)?, f.input);
            assert!(f.repeats > 0);
            // The saved input alone fails again.
            assert!(run_one(&mut Picky, &f.input).is_err());
        }
        Ok(())
    }

    #[test]
    fn panics_at_one_place_are_one_finding() {
        let a = "panic on thread 'main' at src/x.rs:10:5: index 7 out of range (escaped)";
        let b = "panic on thread 'w' at src/x.rs:10:5: index 9 out of range (escaped)";
        let c = "panic on thread 'main' at src/x.rs:11:5: index 7 out of range (escaped)";
        assert_eq!(finding_key(a), finding_key(b));
        assert_ne!(finding_key(a), finding_key(c));
        assert_eq!(finding_key("SELECT 1 fails\nmore"), "SELECT 1 fails");
    }

    #[test]
    fn a_caught_panic_is_a_finding() {
        struct Swallows;
        impl Target for Swallows {
            fn name(&self) -> &'static str {
                "swallows"
            }
            fn seeds(&mut self) -> Vec<Vec<u8>> {
                Vec::new()
            }
            fn generate(&mut self, _: &mut StdRng) -> Vec<u8> {
                Vec::new()
            }
            fn run(&mut self, _: &[u8]) -> Result<(), String> {
                let _ = std::panic::catch_unwind(|| panic!("hidden"));
                Ok(())
            }
        }
        let r = run_one(&mut Swallows, b"x");
        assert!(r.as_ref().is_err_and(|e| e.contains("hidden")), "{r:?}");
    }
}
