//! Relevance, as InnoDB computes the value of `MATCH ... AGAINST`.
//!
//! Owns the arithmetic of MariaDB's `fts_query_calculate_idf`,
//! `fts_query_calculate_ranking`, `fts_query_change_ranking` and the
//! single-term shortcut of `fts_query_prepare_result`:
//!
//! - `idf(word) = log10(total_docs / docs_with_word)`, in double precision,
//!   where `total_docs` is the table's row count statistic
//!   (`dict_table_get_n_rows`) and `docs_with_word` counts the non-deleted
//!   documents holding the word. When the word is in every document the idf
//!   is `log10(1.0001)` instead of 0, so that a match still ranks above 0; a
//!   word in no document has idf 0.
//! - A document's rank is a *float* (`fts_rank_t`): it starts at 0, and for
//!   every query word the document contains, `(float)(freq * idf * idf)` is
//!   added in float arithmetic (`freq` = the word's occurrences in the
//!   document). Natural-language and boolean mode add the same terms.
//! - Boolean mode first moves the start value: each `>` clause the document
//!   matches adds 1, each `<` or `~` clause subtracts 1, and after every step
//!   the value is clamped to `[-1, 1]`. (`+` and `-` only filter.)
//! - A query of exactly one plain term uses `(float)(freq * idf * idf)`
//!   directly, with the idf computed after deleted documents are removed.
//! - `MATCH()` returns the float widened to a double; MariaDB prints it with
//!   the shortest digits that identify the double ([`format_relevance`]), e.g.
//!   `0.22764469683170319`.
//!
//! Invariants: all functions are pure and total (no input panics); ranks are
//! computed in the same precision and order as InnoDB, so equal inputs give
//! bit-identical results.

use super::query::Operator;

/// InnoDB's `RANK_UPGRADE`.
pub const RANK_UPGRADE: f32 = 1.0;
/// InnoDB's `RANK_DOWNGRADE`.
pub const RANK_DOWNGRADE: f32 = -1.0;

/// The idf of a word held by `docs_with_word` of `total_docs` documents.
pub fn idf(total_docs: u64, docs_with_word: u64) -> f64 {
    if docs_with_word == 0 {
        0.0
    } else if total_docs == docs_with_word {
        1.0001f64.log10()
    } else {
        (total_docs as f64 / docs_with_word as f64).log10()
    }
}

/// One word's contribution to a document's rank: `(float)(freq * idf * idf)`.
pub fn word_weight(freq: u64, idf: f64) -> f32 {
    let weight = freq as f64 * idf;
    (weight * idf) as f32
}

/// The rank of a document for a one-term query (`FTS_OPT_RANKING`).
pub fn single_term_rank(freq: u64, idf: f64) -> f32 {
    let rank = freq as f32;
    (f64::from(rank) * idf * idf) as f32
}

/// The rank of one document as a query is evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DocumentRank {
    rank: f32,
}

impl DocumentRank {
    /// A document just matched: rank 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies a boolean operator of a clause the document matched: `>`
    /// raises, `<` and `~` lower, each clamped to `[-1, 1]`; the others leave
    /// the rank alone.
    pub fn apply(&mut self, op: Operator) {
        let step = match op {
            Operator::IncrRating => RANK_UPGRADE,
            Operator::DecrRating | Operator::Negate => RANK_DOWNGRADE,
            Operator::None | Operator::Exist | Operator::Ignore => return,
        };
        self.rank = (self.rank + step).clamp(-1.0, 1.0);
    }

    /// Merges the rank a document brings into an intersection (`+`): the sum,
    /// clamped to `[-1, 1]` (`fts_query_intersect_doc_id`).
    pub fn merge(&mut self, other: DocumentRank) {
        self.rank = (self.rank + other.rank).clamp(-1.0, 1.0);
    }

    /// Adds a query word the document contains `freq` times.
    pub fn add_word(&mut self, freq: u64, idf: f64) {
        self.rank += word_weight(freq, idf);
    }

    /// The rank.
    pub fn value(self) -> f32 {
        self.rank
    }
}

/// The rank of a document for a natural-language query: the sum over the
/// query words it contains of [`word_weight`]; `words` holds, for each such
/// word in InnoDB's word order, its frequency in the document and its idf.
pub fn natural_language_rank(words: &[(u64, f64)]) -> f32 {
    let mut r = DocumentRank::new();
    for &(freq, idf) in words {
        r.add_word(freq, idf);
    }
    r.value()
}

/// `MATCH()`'s value as MariaDB prints it: `0` for zero, otherwise the
/// shortest decimal digits that identify the double, positional between
/// 1e-15 and 1e17 and `1.5e-16` style outside.
pub fn format_relevance(rank: f32) -> String {
    let v = f64::from(rank);
    if v == 0.0 {
        return "0".to_owned();
    }
    let a = v.abs();
    if (1e-15..1e17).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fts::query::natural_language_terms;
    use crate::fts::stopwords::StopwordSet;
    use crate::fts::tokenizer::{tokenize_columns, TokenSizeLimits};
    use crate::record::collation::Collation;

    #[test]
    fn idf_follows_innodb() {
        assert!((idf(6, 2) - 0.477_121_254_719_662_4).abs() < 1e-15);
        assert_eq!(idf(6, 6), 1.0001f64.log10());
        assert!((idf(6, 6) - 4.342_727_686_266_485e-5).abs() < 1e-18);
        assert_eq!(idf(6, 0), 0.0);
        // A stale row count below the document count gives a negative idf,
        // which still ranks positively (it is squared).
        assert!(idf(2, 3) < 0.0);
        assert!(word_weight(1, idf(2, 3)) > 0.0);
    }

    #[test]
    fn weights_by_hand() {
        // log10(4/1) = 0.60206; squared = 0.362476; times 3.
        let w = word_weight(3, idf(4, 1));
        assert!((f64::from(w) - 1.087_428_8).abs() < 1e-6, "{w}");
        assert_eq!(
            w,
            (3.0 * 0.602_059_991_327_962_4f64 * 0.602_059_991_327_962_4) as f32
        );
        assert_eq!(single_term_rank(3, idf(4, 1)), w);
        // Float accumulation: two words.
        let r = natural_language_rank(&[(1, idf(6, 2)), (2, idf(6, 3))]);
        let expected = word_weight(1, idf(6, 2)) + word_weight(2, idf(6, 3));
        assert_eq!(r, expected);
        assert_eq!(format_relevance(natural_language_rank(&[])), "0");
    }

    #[test]
    fn boolean_adjustments_clamp() {
        let mut r = DocumentRank::new();
        r.apply(Operator::IncrRating);
        r.apply(Operator::IncrRating);
        assert_eq!(r.value(), 1.0, "clamped at 1");
        r.apply(Operator::DecrRating);
        assert_eq!(r.value(), 0.0);
        r.apply(Operator::Negate);
        r.apply(Operator::Negate);
        assert_eq!(r.value(), -1.0, "clamped at -1");
        r.apply(Operator::Exist);
        r.apply(Operator::Ignore);
        r.apply(Operator::None);
        assert_eq!(r.value(), -1.0);
        r.add_word(1, idf(6, 2));
        assert_eq!(r.value(), -1.0 + word_weight(1, idf(6, 2)));
        let mut a = DocumentRank::new();
        a.apply(Operator::IncrRating);
        let mut b = DocumentRank::new();
        b.apply(Operator::IncrRating);
        a.merge(b);
        assert_eq!(a.value(), 1.0);
    }

    #[test]
    fn relevance_is_printed_like_mariadb() {
        assert_eq!(
            format_relevance(word_weight(1, idf(6, 2))),
            "0.22764469683170319"
        );
        assert_eq!(
            format_relevance(word_weight(1, idf(6, 6))),
            "0.000000001885928302414186"
        );
        assert_eq!(format_relevance(-0.5), "-0.5");
        assert_eq!(format_relevance(1e-20), "9.999999682655225e-21");
    }

    /// mysql-test/suite/innodb_fts/r/basic.result (MariaDB): the `articles`
    /// table, `MATCH (title,body) AGAINST ('Database' IN NATURAL LANGUAGE
    /// MODE) AS score` after `ANALYZE TABLE` (so the row count is 6).
    #[test]
    fn reproduces_mariadb_basic_result() {
        let rows: [(&str, &str); 6] = [
            ("MySQL Tutorial", "DBMS stands for DataBase ..."),
            ("How To Use MySQL Well", "After you went through a ..."),
            ("Optimizing MySQL", "In this tutorial we will show ..."),
            ("1001 MySQL Tricks", "1. Never run mysqld as root. 2. ..."),
            (
                "MySQL vs. YourSQL",
                "In the following database comparison ...",
            ),
            ("MySQL Security", "When configured properly, MySQL ..."),
        ];
        let expected = [
            "0.22764469683170319",
            "0",
            "0",
            "0",
            "0.22764469683170319",
            "0",
        ];
        let collation = Collation::Latin1SwedishCi;
        let limits = TokenSizeLimits::default();
        let stopwords = StopwordSet::default_list();
        let docs: Vec<Vec<String>> = rows
            .iter()
            .map(|(t, b)| {
                tokenize_columns(&[Some(t.as_bytes()), Some(b.as_bytes())], collation, limits)
                    .into_iter()
                    .map(|tok| tok.text)
                    .filter(|w| !stopwords.contains(w))
                    .collect()
            })
            .collect();
        let terms = natural_language_terms(b"Database", collation, limits).expect("parses");
        assert_eq!(terms, ["database"]);
        let total = docs.len() as u64;
        for (i, doc) in docs.iter().enumerate() {
            let mut words = Vec::new();
            for term in &terms {
                let freq = doc.iter().filter(|w| *w == term).count() as u64;
                let with_word = docs.iter().filter(|d| d.contains(term)).count() as u64;
                if freq > 0 {
                    words.push((freq, idf(total, with_word)));
                }
            }
            assert_eq!(
                format_relevance(natural_language_rank(&words)),
                expected[i],
                "row {}",
                i + 1
            );
        }
        // 'MySQL' is in every row: the tiny idf, doubled where it occurs twice.
        let mysql: Vec<u64> = docs
            .iter()
            .map(|d| d.iter().filter(|w| *w == "mysql").count() as u64)
            .collect();
        assert_eq!(mysql, [1, 1, 1, 1, 1, 2]);
        let one = single_term_rank(1, idf(6, 6));
        let two = single_term_rank(2, idf(6, 6));
        assert_eq!(two, one * 2.0);
    }
}
