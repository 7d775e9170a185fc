//! Counting and reporting: statements run, mismatches by category, the
//! intentional differences seen, and for each distinct finding its
//! smallest reproduction; the end-of-run summary and the output directory
//! (`summary.md` plus one `.sql` file per finding).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// One distinct finding: a mismatch category with the shape of its
/// minimized statement, and its smallest reproduction so far.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The coarse category (`compare::Mismatch::category`).
    pub category: String,
    /// Function names and keywords of the minimized statement.
    pub signature: String,
    /// How many mismatches were minimized to this finding.
    pub count: u64,
    /// The reproduction text (SQL with both answers in comments).
    pub repro: String,
    /// The size of the reproduction (for keeping the smallest).
    pub size: usize,
    /// The seed and statement number it was first seen at.
    pub first_seen: String,
}

/// Run statistics and findings.
#[derive(Debug, Default)]
pub struct Stats {
    /// The run's seed.
    pub seed: u64,
    /// Statements compared.
    pub statements: u64,
    /// Statements both servers rejected with the same error code (not
    /// mismatches; a measure of how much generated SQL is invalid).
    pub both_failed: u64,
    /// Rounds (fresh schemas) started.
    pub rounds: u64,
    /// Mismatches outside the intentional differences.
    pub mismatches: u64,
    /// Mismatches per coarse category.
    pub by_category: BTreeMap<String, u64>,
    /// Intentional differences seen, by name.
    pub known: BTreeMap<String, u64>,
    /// Statements MariaDB ran and Larch refused with 1235 (not supported
    /// yet), by category: allowed, not mismatches (`known::is_refusal`).
    pub refused: BTreeMap<String, u64>,
    /// Findings by key (category + signature).
    pub findings: BTreeMap<String, Finding>,
    /// Statements on which MariaDB crashed or hung (not counted as
    /// mismatches: the reference failed), the first few.
    pub mariadb_lost: Vec<String>,
    /// Times MariaDB was restarted after it died or hung.
    pub mariadb_restarts: u64,
    /// Times larchd was restarted after it died or hung.
    pub larchd_restarts: u64,
    /// Elapsed time.
    pub elapsed: Duration,
}

impl Stats {
    /// Records a minimized finding, keeping the smaller reproduction.
    pub fn add_finding(&mut self, f: Finding) {
        let key = format!("{} :: {}", f.category, f.signature);
        match self.findings.get_mut(&key) {
            Some(old) => {
                old.count += 1;
                if f.size < old.size {
                    old.repro = f.repro;
                    old.size = f.size;
                }
            }
            None => {
                self.findings.insert(key, f);
            }
        }
    }

    /// Mismatches per million statements.
    pub fn per_million(&self) -> f64 {
        if self.statements == 0 {
            0.0
        } else {
            self.mismatches as f64 * 1e6 / self.statements as f64
        }
    }

    /// The end-of-run summary (Markdown).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let secs = self.elapsed.as_secs_f64().max(0.001);
        let _ = writeln!(s, "# Larch differential run, seed {}\n", self.seed);
        let _ = writeln!(
            s,
            "- statements: {} in {:.0} s ({:.0} per second), {} rounds",
            self.statements,
            secs,
            self.statements as f64 / secs,
            self.rounds
        );
        let _ = writeln!(
            s,
            "- mismatches: {} ({:.0} per million statements), {} distinct findings",
            self.mismatches,
            self.per_million(),
            self.findings.len()
        );
        let _ = writeln!(
            s,
            "- statements both servers rejected (same error; not mismatches): {}",
            self.both_failed
        );
        let _ = writeln!(
            s,
            "- larchd restarts (crash or hang): {}",
            self.larchd_restarts
        );
        let _ = writeln!(
            s,
            "- MariaDB restarts (crash or hang; not counted as mismatches): {}",
            self.mariadb_restarts
        );
        for q in &self.mariadb_lost {
            let _ = writeln!(s, "  - MariaDB lost the connection on: `{q}`");
        }
        for (k, n) in &self.known {
            let _ = writeln!(
                s,
                "- intentional difference `{k}` (known-differences.md): {n}"
            );
        }
        if !self.refused.is_empty() {
            let total: u64 = self.refused.values().sum();
            let _ = writeln!(
                s,
                "- refused with 1235, not supported yet (allowed; not mismatches): {total}"
            );
            let mut refused: Vec<_> = self.refused.iter().collect();
            refused.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (c, n) in refused {
                let _ = writeln!(s, "  - {n:>7}  {c}");
            }
        }
        let _ = writeln!(s, "\n## Mismatches by category\n");
        let cats = self.sorted_categories();
        for (c, n) in &cats {
            let _ = writeln!(s, "- {n:>7}  {c}");
        }
        let _ = writeln!(s, "\n## Reproductions, most frequent category first\n");
        let _ = writeln!(s, "Per category: the smallest minimized reproduction, then the shapes (function names and keywords of the minimized statements) of the others.\n");
        let mut i = 0;
        for (c, n) in &cats {
            let mut fs: Vec<&Finding> = self
                .findings
                .values()
                .filter(|f| &f.category == c)
                .collect();
            if fs.is_empty() {
                continue;
            }
            fs.sort_by_key(|f| f.size);
            i += 1;
            let best = fs[0];
            let _ = writeln!(
                s,
                "### {i}. {c} ({n} mismatches)\n\nshape: {}; first seen: {}\n\n```sql\n{}\n```\n",
                best.signature,
                best.first_seen,
                best.repro.trim_end()
            );
            if fs.len() > 1 {
                let _ = writeln!(s, "Other shapes minimized in this category:\n");
                for f in fs.iter().skip(1).take(15) {
                    let _ = writeln!(s, "- `{}` ({}x)", f.signature, f.count);
                }
                if fs.len() > 16 {
                    let _ = writeln!(s, "- ... {} more", fs.len() - 16);
                }
                let _ = writeln!(s);
            }
        }
        s
    }

    /// Categories by mismatch count, most frequent first.
    pub fn sorted_categories(&self) -> Vec<(String, u64)> {
        let mut cats: Vec<(String, u64)> = self
            .by_category
            .iter()
            .map(|(c, n)| (c.clone(), *n))
            .collect();
        cats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        cats
    }

    /// Findings, most frequent category first, then most frequent finding.
    pub fn sorted_findings(&self) -> Vec<&Finding> {
        let mut v: Vec<&Finding> = self.findings.values().collect();
        v.sort_by(|a, b| {
            let ca = self.by_category.get(&a.category).copied().unwrap_or(0);
            let cb = self.by_category.get(&b.category).copied().unwrap_or(0);
            cb.cmp(&ca)
                .then(b.count.cmp(&a.count))
                .then(a.signature.cmp(&b.signature))
        });
        v
    }

    /// Writes `summary.md` and one `NNN-<category>.sql` per finding.
    pub fn write_dir(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("summary.md"), self.summary())?;
        for (i, f) in self.sorted_findings().iter().enumerate() {
            let slug: String = f
                .category
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            let slug: String = slug
                .split('-')
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let name = format!("{:03}-{}.sql", i + 1, &slug[..slug.len().min(60)]);
            std::fs::write(dir.join(name), &f.repro)?;
        }
        Ok(())
    }
}

/// The shape of a minimized statement: its function names and the
/// keywords that select a code path, sorted and deduplicated.
pub fn signature(sql: &str) -> String {
    const KEYWORDS: [&str; 40] = [
        "LEFT JOIN",
        "RIGHT JOIN",
        "NATURAL",
        "USING",
        "CROSS JOIN",
        "JOIN",
        "UNION ALL",
        "UNION",
        "INTERSECT",
        "EXCEPT",
        "WITH RECURSIVE",
        "WITH",
        "ROLLUP",
        "DISTINCT",
        "GROUP BY",
        "HAVING",
        "ORDER BY",
        "LIMIT",
        "EXISTS",
        " IN (",
        " ANY ",
        " ALL ",
        " SOME ",
        "CASE",
        "BETWEEN",
        "LIKE",
        "ESCAPE",
        "REGEXP",
        "RLIKE",
        "COLLATE",
        "BINARY",
        "INTERVAL",
        " DIV ",
        " MOD ",
        " XOR ",
        " IS ",
        "OVER",
        "ON DUPLICATE KEY",
        "SAVEPOINT",
        "ROLLBACK",
    ];
    let upper = sql.to_ascii_uppercase();
    let mut words: Vec<String> = Vec::new();
    // The statement kind.
    if let Some(w) = upper.split_whitespace().next() {
        words.push(w.to_owned());
    }
    for k in KEYWORDS {
        if upper.contains(k) {
            words.push(k.trim().to_owned());
        }
    }
    // Function names: an identifier directly followed by '('.
    let bytes = upper.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            if i < bytes.len()
                && bytes[i] == b'('
                && !matches!(
                    &upper[start..i],
                    "AS" | "IN" | "VALUES" | "EXISTS" | "ANY" | "ALL" | "SOME"
                )
            {
                words.push(upper[start..i].to_owned());
            }
        } else if bytes[i] == b'\'' {
            // Skip string literals.
            i += 1;
            while i < bytes.len() && bytes[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    // Types a CAST converts to.
    for t in [
        "AS SIGNED",
        "AS UNSIGNED",
        "AS DECIMAL",
        "AS DOUBLE",
        "AS FLOAT",
        "AS CHAR",
        "AS BINARY",
        "AS DATETIME",
        "AS DATE)",
        "AS TIME",
        "AS NCHAR",
        "AS INTEGER",
    ] {
        if upper.contains(t) {
            words.push(t.trim_end_matches(')').to_owned());
        }
    }
    words.sort();
    words.dedup();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::signature;

    #[test]
    fn signature_names_functions_and_keywords_not_literals() {
        let s = signature("SELECT CONCAT('ABS(', a) FROM t LEFT JOIN u ON x = 1 ORDER BY 1");
        assert_eq!(s, "CONCAT JOIN LEFT JOIN ORDER BY SELECT");
    }
}
