//! Stopwords: words a full-text index never holds.
//!
//! Owns InnoDB's default stopword list ([`DEFAULT_STOPWORDS`], the rows of
//! `INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD`, MariaDB's
//! `fts_default_stopword`: 36 entries, `the` twice, so 35 distinct words) and
//! [`StopwordSet`], the set one index uses:
//!
//! - [`StopwordSet::default_list`]: the default list, compared as MariaDB's
//!   cached default list is, with `latin1_swedish_ci` (so `THE` and `the` are
//!   the same stopword);
//! - [`StopwordSet::disabled`]: `innodb_ft_enable_stopword=OFF`, no stopwords;
//! - [`StopwordSet::from_words`]: a user stopword table
//!   (`innodb_ft_server_stopword_table` / `innodb_ft_user_stopword_table`),
//!   compared with the collation of that table's `value` column. A user list
//!   replaces the default list, it does not extend it.
//!
//! Invariant: membership is decided by the set's collation alone (two words
//! that compare equal are both stopwords or neither). Used when a document's
//! words enter the index cache, and by the ngram parser, which drops every
//! ngram containing a stopword.

use std::collections::HashSet;

use crate::record::collation::Collation;

/// `INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD`, in MariaDB's order.
pub const DEFAULT_STOPWORDS: [&str; 36] = [
    "a", "about", "an", "are", "as", "at", "be", "by", "com", "de", "en", "for", "from", "how",
    "i", "in", "is", "it", "la", "of", "on", "or", "that", "the", "this", "to", "was", "what",
    "when", "where", "who", "will", "with", "und", "the", "www",
];

/// Where a [`StopwordSet`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopwordSource {
    /// InnoDB's default list.
    Default,
    /// Stopwords disabled (`innodb_ft_enable_stopword=OFF`).
    Disabled,
    /// A user stopword table.
    User,
}

/// The stopwords of one full-text index.
#[derive(Clone, Debug)]
pub struct StopwordSet {
    source: StopwordSource,
    collation: Collation,
    keys: HashSet<Vec<u8>>,
    /// Longest stopword in characters (bounds the ngram substring search).
    max_chars: usize,
}

impl StopwordSet {
    /// InnoDB's default list.
    pub fn default_list() -> Self {
        Self::build(
            StopwordSource::Default,
            Collation::Latin1SwedishCi,
            DEFAULT_STOPWORDS.iter().copied(),
        )
    }

    /// No stopwords.
    pub fn disabled() -> Self {
        Self::build(
            StopwordSource::Disabled,
            Collation::Latin1SwedishCi,
            std::iter::empty(),
        )
    }

    /// The values of a user stopword table, compared with `collation`.
    /// Duplicates are kept once, as InnoDB does.
    pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>, collation: Collation) -> Self {
        Self::build(StopwordSource::User, collation, words.into_iter())
    }

    fn build<'a>(
        source: StopwordSource,
        collation: Collation,
        words: impl Iterator<Item = &'a str>,
    ) -> Self {
        let mut keys = HashSet::new();
        let mut max_chars = 0;
        for w in words {
            let mut key = Vec::new();
            collation.sort_key(w, &mut key);
            keys.insert(key);
            max_chars = max_chars.max(w.chars().count());
        }
        StopwordSet {
            source,
            collation,
            keys,
            max_chars,
        }
    }

    /// Where the set came from.
    pub fn source(&self) -> StopwordSource {
        self.source
    }

    /// The collation words are compared with.
    pub fn collation(&self) -> Collation {
        self.collation
    }

    /// Number of distinct stopwords.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there are no stopwords.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Length in characters of the longest stopword.
    pub fn max_chars(&self) -> usize {
        self.max_chars
    }

    /// True when `word` is a stopword.
    pub fn contains(&self, word: &str) -> bool {
        if self.keys.is_empty() {
            return false;
        }
        let mut key = Vec::new();
        self.collation.sort_key(word, &mut key);
        self.keys.contains(&key)
    }
}

impl Default for StopwordSet {
    fn default() -> Self {
        Self::default_list()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_list_is_innodbs() {
        assert_eq!(DEFAULT_STOPWORDS.len(), 36);
        let set = StopwordSet::default_list();
        assert_eq!(set.len(), 35, "'the' is listed twice");
        assert_eq!(set.source(), StopwordSource::Default);
        for w in [
            "a", "the", "www", "und", "la", "com", "how", "who", "i", "de", "en",
        ] {
            assert!(set.contains(w), "{w}");
        }
        for w in ["database", "mysql", "and", "not", "tutorial", ""] {
            assert!(!set.contains(w), "{w}");
        }
        assert!(set.contains("THE"), "compared case-insensitively");
        assert_eq!(set.max_chars(), 5);
    }

    #[test]
    fn disabled_has_no_stopwords() {
        let set = StopwordSet::disabled();
        assert!(set.is_empty());
        assert!(!set.contains("the"));
        assert_eq!(set.source(), StopwordSource::Disabled);
    }

    #[test]
    fn user_list_replaces_the_default_and_uses_its_collation() {
        let set = StopwordSet::from_words(["Lorem", "ipsum", "lorem"], Collation::Utf8mb4GeneralCi);
        assert_eq!(set.len(), 2);
        assert!(set.contains("lorem"));
        assert!(set.contains("IPSUM"));
        assert!(!set.contains("the"));
        let bin = StopwordSet::from_words(["Lorem"], Collation::Utf8mb4Bin);
        assert!(bin.contains("Lorem"));
        assert!(!bin.contains("lorem"));
        assert_eq!(bin.source(), StopwordSource::User);
    }
}
