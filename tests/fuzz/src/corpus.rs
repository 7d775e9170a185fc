//! The corpus on disk: `corpus/<target>/` in this crate holds the seed
//! inputs kept in the repository and the inputs of fixed crashes (files
//! named `crash-*`), which the regression test replays.
//!
//! Files are read in name order so a run's choice of inputs does not
//! depend on the directory's order; files larger than
//! [`crate::mutate::MAX_INPUT`] are skipped.

use std::path::{Path, PathBuf};

/// The corpus directory of `target` in this crate.
pub fn dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target)
}

/// Every input file of `dir`, in name order (none when it does not exist).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// The contents of every input file of `dir`, in name order.
pub fn load(dir: &Path) -> Vec<Vec<u8>> {
    files(dir)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() <= crate::mutate::MAX_INPUT)
        .collect()
}

/// A short stable name for an input: FNV-1a of its bytes, in hex.
pub fn input_name(input: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in input {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Writes `input` as `<dir>/<prefix>-<hash><ext>` and returns the path.
pub fn save(dir: &Path, prefix: &str, ext: &str, input: &[u8]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{prefix}-{}{ext}", input_name(input)));
    std::fs::write(&path, input)?;
    Ok(path)
}
