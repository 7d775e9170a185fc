//! Larch's fuzzer, on stable Rust: seeded generation plus mutation of
//! corpus inputs, run against one target for a time budget.
//!
//! Modules: `driver` runs a target (input choice, mutation, the time
//! budget, panic detection, saving and printing a failing input with its
//! seed); `panics` is the process-wide panic hook that counts every panic,
//! also those the code under test catches itself (a statement's panic
//! becomes error 1105 in the SQL layer, a session call's panic becomes
//! 1105 in the protocol layer: both still count as findings); `mutate`
//! holds the byte mutations (flips, splices, truncation, length-field
//! lies, dictionary tokens); `corpus` reads and writes the corpus
//! directories; `targets` holds the targets themselves.
//!
//! A target is a [`driver::Target`]: it offers seed inputs, generates new
//! inputs from an RNG, may mutate with knowledge of its format, and runs
//! one input, returning `Err` when an invariant other than "no panic" is
//! broken. Every choice comes from an RNG seeded from the run's seed and
//! the iteration number, so a run with the same seed, corpus and budget in
//! iterations is the same run; each failing input is also saved to a file
//! that `--replay` runs alone. README.md describes the commands.

pub mod corpus;
pub mod driver;
pub mod mutate;
pub mod panics;
pub mod targets;

/// The error type of setup steps (temporary directories, databases).
pub type Error = Box<dyn std::error::Error + Send + Sync>;
