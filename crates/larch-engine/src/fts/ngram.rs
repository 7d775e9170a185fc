//! The ngram full-text parser (MySQL 5.7+'s `ngram` plugin, for CJK text).
//!
//! Owns the rules of MySQL's `ngram_parse` and InnoDB's ngram stopword check:
//!
//! - The text is cut into *runs* by one-byte characters that are a space or
//!   not a word character ([`super::tokenizer`]'s definition). Multi-byte
//!   characters never cut a run, whatever they are (a full-width comma joins
//!   its neighbours).
//! - Every `n` consecutive characters of a run are a token (`n` =
//!   `ngram_token_size`, 1..=10, default 2), at the byte offset of its first
//!   character; runs shorter than `n` give nothing. `abc def` with `n = 2`
//!   gives `ab`, `bc`, `de`, `ef`.
//! - A byte that cannot start a character (utf8mb4 lead bytes `0x80..=0xC1`
//!   and `0xF8..`), or a character cut by the end of the text, ends the whole
//!   document: the rest is not parsed. The length of a character is taken
//!   from its lead byte alone, as MySQL's `my_mbcharlen` does.
//! - In query mode (boolean queries and phrase matching), a text that gave no
//!   token at all gives its last run when that run is shorter than `n`
//!   (`"a bc"` with `n = 3` gives `bc`).
//! - Tokens are case-folded like the built-in parser's
//!   ([`super::tokenizer::fold_case`]). `innodb_ft_min_token_size` and
//!   `max_token_size` do not apply. When an ngram enters the index it is
//!   dropped if *any* of its substrings is a stopword ([`contains_stopword`]),
//!   so with the default list every bigram containing `a` or `i` is dropped.
//!
//! Invariants: tokens come out in document order with increasing positions;
//! every index-mode token has exactly `n` characters; no input makes the
//! parser fail or panic.

use super::stopwords::StopwordSet;
use super::tokenizer::{fold_case, is_word_char, Token};
use crate::record::collation::{Charset, Collation};
use crate::{EngineError, Result};

/// Default `ngram_token_size`.
pub const DEFAULT_NGRAM_TOKEN_SIZE: usize = 2;
/// Largest `ngram_token_size`.
pub const MAX_NGRAM_TOKEN_SIZE: usize = 10;

/// What the text being parsed is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NgramMode {
    /// A document being indexed.
    Index,
    /// A query term or phrase, or a document being matched against a phrase:
    /// a text too short for one ngram gives its last run.
    Query,
}

/// The ngram parser for one `ngram_token_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NgramParser {
    n: usize,
}

/// Byte length of the character starting with `b`, from the lead byte only;
/// 0 when `b` cannot start one.
fn mbcharlen(charset: Charset, b: u8) -> usize {
    match charset {
        Charset::Latin1 | Charset::Binary => 1,
        Charset::Utf8mb4 | Charset::Utf8mb3 => match b {
            0x00..=0x7F => 1,
            0x80..=0xC1 => 0,
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 0,
        },
    }
}

impl NgramParser {
    /// A parser for `ngram_token_size = n` (1..=10).
    pub fn new(n: usize) -> Result<Self> {
        if !(1..=MAX_NGRAM_TOKEN_SIZE).contains(&n) {
            return Err(EngineError::Config(format!(
                "ngram_token_size={n} is out of range 1..10"
            )));
        }
        Ok(NgramParser { n })
    }

    /// The token size.
    pub fn token_size(self) -> usize {
        self.n
    }

    /// Every ngram of `doc` (bytes in `collation`'s character set).
    pub fn ngrams(self, doc: &[u8], collation: Collation, mode: NgramMode) -> Vec<Token> {
        let charset = collation.charset();
        let mut out = Vec::new();
        let mut start = 0usize;
        let mut next = 0usize;
        let mut n_chars = 0usize;
        let mut is_first = true;
        while next < doc.len() {
            let len = mbcharlen(charset, doc[next]);
            if len == 0 || next + len > doc.len() {
                break;
            }
            if len == 1 {
                let c = char::from(doc[next]);
                let word = doc[next] != b' ' && is_word_char(charset, doc, next, Some(c));
                if !word {
                    start = next + 1;
                    next = start;
                    n_chars = 0;
                    continue;
                }
            }
            next += len;
            n_chars += 1;
            if n_chars == self.n {
                out.push(Token {
                    text: fold_case(collation, &doc[start..next]),
                    position: start,
                    char_len: self.n,
                });
                start += mbcharlen(charset, doc[start]).max(1);
                n_chars = self.n - 1;
                is_first = false;
            }
        }
        if mode == NgramMode::Query && n_chars > 0 && is_first && start < next {
            out.push(Token {
                text: fold_case(collation, &doc[start..next]),
                position: start,
                char_len: n_chars,
            });
        }
        out
    }

    /// The ngrams of a document that enter the index: those containing no
    /// stopword.
    pub fn index_tokens(
        self,
        doc: &[u8],
        collation: Collation,
        stopwords: &StopwordSet,
    ) -> Vec<Token> {
        let mut tokens = self.ngrams(doc, collation, NgramMode::Index);
        tokens.retain(|t| !contains_stopword(&t.text, stopwords));
        tokens
    }
}

/// True when some substring of `token` (of any length, at any character
/// offset) is a stopword: InnoDB's `fts_check_token` for ngram tokens.
pub fn contains_stopword(token: &str, stopwords: &StopwordSet) -> bool {
    if stopwords.is_empty() {
        return false;
    }
    let bounds: Vec<usize> = token
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(token.len()))
        .collect();
    let n = bounds.len() - 1;
    let longest = stopwords.max_chars().min(n);
    (1..=longest).any(|len| {
        (0..=n - len).any(|s| {
            let sub = &token[bounds[s]..bounds[s + len]];
            stopwords.contains(sub)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grams(n: usize, doc: &str, mode: NgramMode) -> Vec<(String, usize)> {
        NgramParser::new(n)
            .expect("valid size")
            .ngrams(doc.as_bytes(), Collation::Utf8mb4GeneralCi, mode)
            .into_iter()
            .map(|t| (t.text, t.position))
            .collect()
    }

    fn texts(n: usize, doc: &str) -> Vec<String> {
        grams(n, doc, NgramMode::Index)
            .into_iter()
            .map(|g| g.0)
            .collect()
    }

    #[test]
    fn token_size_range() {
        assert!(NgramParser::new(0).is_err());
        assert!(NgramParser::new(11).is_err());
        assert_eq!(NgramParser::new(10).expect("ok").token_size(), 10);
    }

    #[test]
    fn manual_examples() {
        assert_eq!(texts(1, "abcd"), ["a", "b", "c", "d"]);
        assert_eq!(texts(2, "abcd"), ["ab", "bc", "cd"]);
        assert_eq!(texts(3, "abcd"), ["abc", "bcd"]);
        assert_eq!(texts(4, "abcd"), ["abcd"]);
        assert!(texts(5, "abcd").is_empty());
        assert_eq!(texts(2, "abc def"), ["ab", "bc", "de", "ef"]);
    }

    #[test]
    fn positions_are_byte_offsets_and_text_is_folded() {
        assert_eq!(
            grams(2, "数据库 MySQL", NgramMode::Index),
            vec![
                ("数据".to_owned(), 0),
                ("据库".to_owned(), 3),
                ("my".to_owned(), 10),
                ("ys".to_owned(), 11),
                ("sq".to_owned(), 12),
                ("ql".to_owned(), 13),
            ]
        );
    }

    #[test]
    fn only_one_byte_characters_cut_runs() {
        // ',' cuts; the full-width comma U+FF0C does not.
        assert_eq!(texts(2, "ab,cd"), ["ab", "cd"]);
        assert_eq!(texts(2, "中，文"), ["中，", "，文"]);
    }

    #[test]
    fn invalid_bytes_end_the_document() {
        let p = NgramParser::new(2).expect("ok");
        let t = p.ngrams(b"abc\x80def", Collation::Utf8mb4GeneralCi, NgramMode::Index);
        assert_eq!(t.len(), 2);
        let t = p.ngrams(b"ab\xE4\xB8", Collation::Utf8mb4GeneralCi, NgramMode::Index);
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn query_mode_keeps_a_short_text() {
        assert_eq!(
            grams(3, "a bc", NgramMode::Query),
            vec![("bc".to_owned(), 2)]
        );
        assert!(grams(3, "a bc", NgramMode::Index).is_empty());
        // Once an ngram was produced, a short last run is not added.
        assert_eq!(
            grams(3, "abc de", NgramMode::Query),
            vec![("abc".to_owned(), 0)]
        );
    }

    #[test]
    fn ngrams_containing_a_stopword_are_not_indexed() {
        let sw = StopwordSet::default_list();
        assert!(contains_stopword("ab", &sw), "'a' is a stopword");
        assert!(contains_stopword("xisy", &sw), "'is' is a stopword");
        assert!(!contains_stopword("bc", &sw));
        let p = NgramParser::new(2).expect("ok");
        let kept: Vec<String> = p
            .index_tokens(b"abcd", Collation::Utf8mb4GeneralCi, &sw)
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(kept, ["bc", "cd"]);
        let none = StopwordSet::disabled();
        assert_eq!(
            p.index_tokens(b"abcd", Collation::Utf8mb4GeneralCi, &none)
                .len(),
            3
        );
    }

    #[test]
    fn never_panics_on_arbitrary_bytes() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for len in 0..150 {
            let doc: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 32) as u8
                })
                .collect();
            for n in 1..=4 {
                let p = NgramParser::new(n).expect("ok");
                for c in Collation::ALL {
                    let t = p.ngrams(&doc, c, NgramMode::Query);
                    assert!(t.windows(2).all(|w| w[0].position < w[1].position));
                }
            }
        }
    }
}
