//! The machine-readable list of intentional differences between Larch and
//! MariaDB 10.11; `known-differences.md` in this crate documents each entry
//! with its reason. Everything else that differs is a mismatch. An entry
//! must be a deliberate design difference, never a bug.
//!
//! Apart from those: a statement MariaDB runs and Larch refuses with 1235
//! ("This version of MariaDB doesn't yet support ...") is a refusal, which
//! the project's rule allows (MariaDB's answer or a clear error, never a
//! clause silently ignored). Refusals are counted and reported on their own
//! ([`is_refusal`]), so every feature still missing stays visible.

use crate::compare::Mismatch;

/// One intentional difference.
pub struct Known {
    /// Its name in `known-differences.md`.
    pub name: &'static str,
    /// True when the mismatch of `sql` is this difference.
    pub matches: fn(sql: &str, m: &Mismatch) -> bool,
}

/// The list.
pub const KNOWN: &[Known] = &[Known {
    name: "version-string",
    matches: |sql, m| {
        let u = sql.to_ascii_uppercase();
        u.contains("VERSION()") && m.category.starts_with("values differ")
    },
}];

/// The name of the intentional difference `m` is, if any.
pub fn classify(sql: &str, m: &Mismatch) -> Option<&'static str> {
    KNOWN.iter().find(|k| (k.matches)(sql, m)).map(|k| k.name)
}

/// True when `m` is Larch refusing with 1235 a statement MariaDB runs.
pub fn is_refusal(m: &Mismatch) -> bool {
    m.category.starts_with("Larch fails with 1235")
}
