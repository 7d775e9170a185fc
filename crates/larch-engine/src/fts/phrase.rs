//! Phrase and proximity matching on document text, as InnoDB verifies them.
//!
//! Owns the text-level half of MariaDB's phrase search (`fts0que.cc`):
//!
//! - [`split_phrase`] (`fts_query_phrase_split`): a phrase's words by the
//!   built-in tokenizer. The *search* words drop stopwords and words outside
//!   the token size limits; the *verification* words keep every word from
//!   the first search word on (leading stopwords and short words dropped).
//! - [`phrase_in_document`] (`fts_query_fetch_document` and
//!   `fts_query_match_phrase`): each non-NULL, non-empty column on its own;
//!   from every indexed position of the first search word in that column, the
//!   next words of the text (any length, stopwords included) must be the
//!   verification words in order. Positions are document offsets; a column's
//!   offset is the sum of `len + 1` of the non-empty columns before it.
//! - [`proximity_ranges`] (`fts_proximity_get_positions` with InnoDB's
//!   unbounded distance): the merge walk over the words' position lists,
//!   recording every `(min, max)` window it visits.
//! - [`proximity_in_document`] (`fts_proximity_is_word_in_range`): the
//!   columns joined with one zero byte after each non-NULL column, and a
//!   window qualifies when it holds between 1 and `distance` words (counted
//!   from its first byte through the word starting at its last).
//!
//! Words compare in the index collation after case folding the document
//! word, as `innobase_fts_text_case_cmp` does. All functions are total: no
//! input makes them panic or loop forever.

use super::stopwords::StopwordSet;
use super::tokenizer::{fold_case, next_word, TokenSizeLimits};
use crate::record::collation::{Charset, Collation};

/// InnoDB's `MAX_PROXIMITY_ITEM`: the most search words a phrase may have.
pub const MAX_PHRASE_WORDS: usize = 128;

/// The end-of-list marker InnoDB appends to each position list.
const END: u64 = u64::MAX;

/// A phrase split into words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhraseWords {
    /// The words searched in the index (no stopwords, within the limits).
    pub search: Vec<String>,
    /// The words verified in the text, from the first search word on.
    pub verify: Vec<String>,
}

/// `fts_query_phrase_split`: the words of an (already case-folded) phrase.
pub fn split_phrase(text: &str, limits: TokenSizeLimits, stopwords: &StopwordSet) -> PhraseWords {
    let bytes = text.as_bytes();
    let mut out = PhraseWords::default();
    let mut from = 0;
    while let Some(w) = next_word(Charset::Utf8mb4, bytes, from) {
        from = w.next;
        if w.n_chars == 0 {
            continue;
        }
        let word = String::from_utf8_lossy(&bytes[w.start..w.end]).into_owned();
        if !stopwords.contains(&word) && limits.accepts(w.n_chars) {
            out.search.push(word.clone());
        }
        if !out.search.is_empty() {
            out.verify.push(word);
        }
    }
    out
}

/// `innobase_mysql_fts_get_token` from byte `from`: the bytes consumed and
/// the word's byte range (empty when no word follows).
fn get_token(charset: Charset, text: &[u8], from: usize) -> (usize, usize, usize) {
    if from >= text.len() {
        return (0, from, from);
    }
    match next_word(charset, text, from) {
        Some(w) => (w.next.saturating_sub(from), w.start, w.end),
        None => (text.len() - from, text.len(), text.len()),
    }
}

/// Compares query words with document words in one collation.
pub(crate) struct WordCmp {
    collation: Collation,
}

impl WordCmp {
    pub(crate) fn new(collation: Collation) -> Self {
        WordCmp { collation }
    }

    pub(crate) fn key(&self, word: &str) -> Vec<u8> {
        let mut k = Vec::with_capacity(word.len() * 2);
        self.collation.weights(word, &mut k);
        k
    }

    /// True when the document bytes `doc_word`, case folded, equal `word`.
    fn eq(&self, word: &str, doc_word: &[u8]) -> bool {
        self.key(word) == self.key(&fold_case(self.collation, doc_word))
    }
}

/// `fts_query_match_phrase_terms`: the verification words after the first,
/// from byte `ptr` of `col`. `distance` 0 or `None` means exact order.
fn match_rest(
    cmp: &WordCmp,
    col: &[u8],
    mut ptr: usize,
    words: &[String],
    distance: Option<u64>,
) -> bool {
    let charset = cmp.collation.charset();
    let mut i = 1;
    let mut dist = distance;
    while ptr < col.len() && i < words.len() {
        let (ret, s, e) = get_token(charset, col, ptr);
        if e > s {
            let same = cmp.eq(&words[i], &col[s..e]);
            if !same && matches!(dist, None | Some(0)) {
                break;
            }
            if same {
                ptr += ret;
                i += 1;
            } else {
                // fts_query_skip_word: to the next punctuation or space.
                while ptr < col.len()
                    && !(col[ptr].is_ascii_punctuation() || col[ptr].is_ascii_whitespace())
                {
                    ptr += 1;
                }
            }
            if let Some(d) = dist.as_mut() {
                *d = d.saturating_sub(1);
            }
        } else {
            ptr += ret.max(1);
        }
    }
    i == words.len()
}

/// `fts_query_match_phrase`: one column (document offset `prev_len`).
fn match_column(
    cmp: &WordCmp,
    col: &[u8],
    prev_len: u64,
    positions: &[u64],
    words: &[String],
    distance: Option<u64>,
) -> bool {
    let charset = cmp.collation.charset();
    let Some(first) = words.first() else {
        return false;
    };
    for &pos in positions {
        if pos < prev_len {
            continue;
        }
        let Ok(p) = usize::try_from(pos - prev_len) else {
            break;
        };
        if p >= col.len() {
            break;
        }
        let (ret, s, e) = get_token(charset, col, p);
        if e == s {
            break;
        }
        if cmp.eq(first, &col[s..e])
            && (words.len() == 1 || match_rest(cmp, col, p + ret, words, distance))
        {
            return true;
        }
    }
    false
}

/// True when the document's columns hold the phrase `words` starting at one
/// of `positions` (the first search word's positions in the document).
pub(crate) fn phrase_in_document(
    cmp: &WordCmp,
    columns: &[Option<Vec<u8>>],
    positions: &[u64],
    words: &[String],
    distance: Option<u64>,
) -> bool {
    let mut prev_len = 0u64;
    for col in columns.iter().flatten() {
        if col.is_empty() {
            continue;
        }
        if match_column(cmp, col, prev_len, positions, words, distance) {
            return true;
        }
        prev_len += col.len() as u64 + 1;
    }
    false
}

/// `fts_proximity_get_positions` with an unbounded distance: the windows
/// `(min, max)` the merge walk visits over the words' position lists.
pub fn proximity_ranges(lists: &[&[u64]]) -> Vec<(u64, u64)> {
    let n = lists.len();
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    let len = |i: usize| lists[i].len() + 1; // with the end marker
    let at = |i: usize, j: usize| lists[i].get(j).copied().unwrap_or(END);
    let mut idx = vec![0usize; n];
    let mut min_idx = 0usize;
    while idx[min_idx] < len(min_idx) {
        let mut min_pos = u64::MAX;
        let mut max_pos = 0u64;
        let mut ended = false;
        for (i, &k) in idx.iter().enumerate() {
            let p = at(i, k);
            if p == END {
                ended = true;
                break;
            }
            if p < min_pos {
                min_pos = p;
                min_idx = i;
            }
            max_pos = max_pos.max(p);
        }
        if !ended {
            out.push((min_pos, max_pos));
        }
        idx[min_idx] += 1;
    }
    out
}

/// `fts_proximity_is_word_in_range` on the joined columns.
pub(crate) fn proximity_in_document(
    collation: Collation,
    columns: &[Option<Vec<u8>>],
    ranges: &[(u64, u64)],
    distance: u64,
) -> bool {
    let total: usize = columns.iter().flatten().map(|c| c.len() + 1).sum();
    let mut text = vec![0u8; total];
    let mut prev = 0usize;
    for col in columns.iter().flatten() {
        if col.is_empty() {
            continue;
        }
        text[prev..prev + col.len()].copy_from_slice(col);
        prev += col.len() + 1;
    }
    let charset = collation.charset();
    for &(min, max) in ranges {
        let (Ok(mut cur), Ok(max)) = (usize::try_from(min), usize::try_from(max)) else {
            continue;
        };
        let mut n_word = 0u64;
        while cur <= max {
            let (ret, s, e) = get_token(charset, &text, cur);
            if ret == 0 {
                break;
            }
            cur += ret;
            if e > s {
                n_word += 1;
            }
            if n_word > distance {
                break;
            }
        }
        if n_word > 0 && n_word <= distance {
            return true;
        }
    }
    false
}
