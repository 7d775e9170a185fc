//! Larch's differential tester: random schemas, data and statements run on
//! Larch and on MariaDB 10.11, every answer compared (result sets, column
//! metadata, affected rows, insert ids, warnings, errors, table contents
//! after each change), each mismatch minimized to a self-contained
//! reproduction. README.md describes the two ways to run it: the bounded
//! CI test (`tests/ci.rs`) and the `larch-differential` soak command.
//!
//! Modules: `server` starts the two servers; `exec` runs one statement and
//! captures its answer; `compare` compares two answers; `known` filters the
//! documented intentional differences; `open` reads the list of open bugs
//! the CI run tolerates while they are fixed; `schema` and `gen` generate tables,
//! data and statements; `ast` is the statement tree; `reduce` lists a
//! statement's simplifications and `minimize` shrinks a failing statement
//! and its data; `runner` drives a run; `report` counts
//! and writes the findings.

pub mod ast;
pub mod compare;
pub mod exec;
pub mod gen;
pub mod known;
pub mod minimize;
pub mod open;
pub mod reduce;
pub mod report;
pub mod runner;
pub mod schema;
pub mod server;

/// The error type of fallible setup steps.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The larchd binary to test: `$LARCHD` when set, else the workspace's
/// release build (`$CARGO_TARGET_DIR/release/larchd`, or `target/release/larchd`
/// at the workspace root).
pub fn default_larchd() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("LARCHD") {
        return p.into();
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return std::path::Path::new(&t).join("release").join("larchd");
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/larchd")
}

/// The seed of a run: `$LARCH_DIFF_SEED` when set, else a new one from the
/// clock and the process id.
pub fn seed_from_env() -> u64 {
    if let Some(s) = std::env::var("LARCH_DIFF_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        return s;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // splitmix64 of the time and pid, so close starts differ widely.
    let mut z = nanos ^ (u64::from(std::process::id()) << 32);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
