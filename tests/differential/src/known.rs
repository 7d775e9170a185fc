//! The machine-readable list of intentional differences between Larch and
//! MariaDB 10.11; `known-differences.md` in this crate documents each entry
//! with its reason. Everything else that differs is a mismatch. An entry
//! must be a deliberate design difference, never a bug.

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
