//! InnoDB's built-in full-text parser: from column bytes to index words.
//!
//! Owns the rules of MariaDB's `innobase_mysql_fts_get_token` and
//! `fts_add_token`, applied to a document given as bytes in its column's
//! character set:
//!
//! - A *word character* is a letter (upper or lower case), a digit, or `_`.
//!   latin1 uses MariaDB's `ctype_latin1` table (so `Š Œ Ž š œ ž Ÿ ƒ` and
//!   `À`..`ÿ` except `×` `÷` are letters, but `ª µ º ² ³ ¹` are not); utf8mb4
//!   uses Unicode's alphabetic and numeric properties for characters of the
//!   Basic Multilingual Plane, and no character above U+FFFF is a word
//!   character (MariaDB's utf8mb4 `ctype` gives them no class). Bytes that are
//!   not a valid character are separators of one byte.
//! - A word is a maximal run of word characters, with one exception: an
//!   apostrophe right after the *first* character of a word restarts the word
//!   after the apostrophe (`l'amour` gives `amour`, `O'Brien` gives `brien`).
//!   Any other apostrophe ends the word (`don't` gives `don` and `t`).
//! - A word is indexed when its length in *characters* is within
//!   `innodb_ft_min_token_size ..= innodb_ft_max_token_size` (defaults 3 and
//!   84). Stopwords are not removed here: InnoDB drops them when the word is
//!   added to the index cache ([`super::stopwords`]).
//! - The indexed text is the word case-folded by the column's collation:
//!   latin1 by MariaDB's `to_lower_latin1` table, utf8mb4 one character to one
//!   (Rust's lower case when it is a single character, `İ` to `i`), and not at
//!   all for the `_bin` collations and `binary` (InnoDB searches those case
//!   sensitively).
//! - A word's position is the byte offset of its first byte in the document.
//!   A document of several columns is their texts joined: each non-empty
//!   column's positions are shifted by the byte lengths of the non-empty
//!   columns before it plus one per such column ([`tokenize_columns`]); NULL
//!   and empty columns take no room, as in InnoDB.
//!
//! Invariants: tokens come out in document order with strictly increasing
//! positions; every token's `char_len` is within the limits; the functions
//! never fail and never panic on any input bytes.
//!
//! Use: the index build and the commit-time cache call [`tokenize_columns`];
//! the query parser and phrase matching call [`next_word`] and [`fold_case`].
//! Tokens are grouped into index words by the caller, which compares them
//! with the column's collation as InnoDB's word tree does.

use crate::record::collation::{latin1_to_char, Charset, Collation};
use crate::{EngineError, Result};

/// Default `innodb_ft_min_token_size`.
pub const DEFAULT_MIN_TOKEN_SIZE: usize = 3;
/// Default (and largest) `innodb_ft_max_token_size`.
pub const DEFAULT_MAX_TOKEN_SIZE: usize = 84;

/// `innodb_ft_min_token_size` and `innodb_ft_max_token_size`, in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenSizeLimits {
    /// Shortest indexed word.
    pub min: usize,
    /// Longest indexed word.
    pub max: usize,
}

impl Default for TokenSizeLimits {
    fn default() -> Self {
        TokenSizeLimits {
            min: DEFAULT_MIN_TOKEN_SIZE,
            max: DEFAULT_MAX_TOKEN_SIZE,
        }
    }
}

impl TokenSizeLimits {
    /// Checks the ranges MariaDB allows: min `0..=16`, max `10..=84`.
    pub fn new(min: usize, max: usize) -> Result<Self> {
        if min > 16 {
            return Err(EngineError::Config(format!(
                "innodb_ft_min_token_size={min} is out of range 0..16"
            )));
        }
        if !(10..=DEFAULT_MAX_TOKEN_SIZE).contains(&max) {
            return Err(EngineError::Config(format!(
                "innodb_ft_max_token_size={max} is out of range 10..84"
            )));
        }
        Ok(TokenSizeLimits { min, max })
    }

    /// True when a word of `n_chars` characters is indexed.
    pub fn accepts(self, n_chars: usize) -> bool {
        n_chars >= self.min && n_chars <= self.max
    }
}

/// An indexed word of a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The case-folded word.
    pub text: String,
    /// Byte offset of the word's first byte in the document.
    pub position: usize,
    /// Length of the word in characters.
    pub char_len: usize,
}

/// A word found by [`next_word`], before size checks and case folding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawWord {
    /// Byte offset of the word's first byte.
    pub start: usize,
    /// Byte offset just past the word (`start == end` for an empty word).
    pub end: usize,
    /// Length in characters.
    pub n_chars: usize,
    /// Where the next search starts: `end`, the first byte not consumed.
    pub next: usize,
}

/// The character at `doc[i..]`: its byte length (at least 1 while
/// `i < doc.len()`) and the character, `None` for bytes that are not one.
pub(crate) fn char_at(charset: Charset, doc: &[u8], i: usize) -> (usize, Option<char>) {
    let Some(&b) = doc.get(i) else {
        return (0, None);
    };
    match charset {
        Charset::Latin1 => (1, Some(latin1_to_char(b))),
        Charset::Binary => (1, Some(char::from(b))),
        Charset::Utf8mb4 | Charset::Utf8mb3 => {
            let len = match b {
                0x00..=0x7F => return (1, Some(char::from(b))),
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => return (1, None),
            };
            match doc.get(i..i + len).map(std::str::from_utf8) {
                Some(Ok(s)) => (len, s.chars().next()),
                _ => (1, None),
            }
        }
    }
}

/// True for a latin1 byte that MariaDB's `ctype_latin1` marks upper, lower or
/// digit.
fn latin1_word_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z')
        || matches!(b, 0x83 | 0x8A | 0x8C | 0x8E | 0x9A | 0x9C | 0x9E | 0x9F)
        || (b >= 0xC0 && b != 0xD7 && b != 0xF7)
}

/// True when the character at `doc[i..]` is a word character (see the module
/// documentation).
pub(crate) fn is_word_char(charset: Charset, doc: &[u8], i: usize, c: Option<char>) -> bool {
    let Some(&b) = doc.get(i) else {
        return false;
    };
    if b == b'_' {
        return true;
    }
    match charset {
        Charset::Latin1 => latin1_word_byte(b),
        Charset::Binary => b.is_ascii_alphanumeric(),
        Charset::Utf8mb4 | Charset::Utf8mb3 => match c {
            Some(c) if (c as u32) <= 0xFFFF => c.is_alphabetic() || c.is_numeric(),
            _ => false,
        },
    }
}

/// The next word at or after byte `from`, as `innobase_mysql_fts_get_token`
/// finds it; `None` when only separators remain. The word can be empty (an
/// apostrophe after a first character at the end of the text).
pub fn next_word(charset: Charset, doc: &[u8], from: usize) -> Option<RawWord> {
    let mut i = from;
    loop {
        if i >= doc.len() {
            return None;
        }
        let (len, c) = char_at(charset, doc, i);
        if is_word_char(charset, doc, i, c) {
            break;
        }
        i += len.max(1);
    }
    let mut start = i;
    let mut n_chars = 0usize;
    while i < doc.len() {
        let (len, c) = char_at(charset, doc, i);
        let len = len.max(1);
        if is_word_char(charset, doc, i, c) {
            n_chars += 1;
            i += len;
        } else if doc[i] == b'\'' && n_chars == 1 {
            // A single character and an apostrophe: the word starts again
            // after the apostrophe.
            i += len;
            start = i;
            n_chars = 0;
        } else {
            break;
        }
    }
    Some(RawWord {
        start,
        end: i,
        n_chars,
        next: i,
    })
}

/// Case-folds a word's bytes by `collation` (see the module documentation)
/// and returns it as text. Invalid utf8mb4 bytes become U+FFFD.
pub fn fold_case(collation: Collation, word: &[u8]) -> String {
    match collation {
        Collation::Latin1SwedishCi
        | Collation::Latin1GeneralCi
        | Collation::Latin1German1Ci
        | Collation::Latin1DanishCi
        | Collation::Latin1SpanishCi => word
            .iter()
            .map(|&b| latin1_to_char(latin1_to_lower(b)))
            .collect(),
        Collation::Latin1Bin | Collation::Latin1GeneralCs => {
            word.iter().map(|&b| latin1_to_char(b)).collect()
        }
        Collation::Binary | Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => {
            String::from_utf8_lossy(word).into_owned()
        }
        Collation::Utf8mb4GeneralCi
        | Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb4EsperantoCi
        | Collation::Utf8mb4SwedishCi
        | Collation::Utf8mb3GeneralCi
        | Collation::Utf8mb3UnicodeCi
        | Collation::Utf8mb3EsperantoCi
        | Collation::Utf8mb3SwedishCi => String::from_utf8_lossy(word)
            .chars()
            .map(lower_char)
            .collect(),
    }
}

/// MariaDB's `to_lower_latin1`: `A`..`Z` and `À`..`Þ` except `×`.
fn latin1_to_lower(b: u8) -> u8 {
    if b.is_ascii_uppercase() || ((0xC0..=0xDE).contains(&b) && b != 0xD7) {
        b + 0x20
    } else {
        b
    }
}

/// One character to one: Rust's lower case when it is a single character.
fn lower_char(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    if (c as u32) > 0xFFFF {
        return c;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The indexed words of one column's text, in document order.
pub fn tokenize(doc: &[u8], collation: Collation, limits: TokenSizeLimits) -> Vec<Token> {
    let mut out = Vec::new();
    tokenize_into(doc, collation, limits, 0, &mut out);
    out
}

/// The indexed words of a document made of several columns (`None` = NULL),
/// with InnoDB's positions across columns.
pub fn tokenize_columns(
    columns: &[Option<&[u8]>],
    collation: Collation,
    limits: TokenSizeLimits,
) -> Vec<Token> {
    let mut out = Vec::new();
    let mut add_pos = 0usize;
    // NULL and empty columns take no room (InnoDB skips them).
    for text in columns.iter().flatten().filter(|t| !t.is_empty()) {
        tokenize_into(text, collation, limits, add_pos, &mut out);
        add_pos += text.len() + 1;
    }
    out
}

fn tokenize_into(
    doc: &[u8],
    collation: Collation,
    limits: TokenSizeLimits,
    add_pos: usize,
    out: &mut Vec<Token>,
) {
    let charset = collation.charset();
    let mut from = 0;
    while let Some(w) = next_word(charset, doc, from) {
        // InnoDB would add an empty word when min_token_size is 0; Larch
        // never indexes the empty string.
        if w.n_chars > 0 && limits.accepts(w.n_chars) {
            out.push(Token {
                text: fold_case(collation, &doc[w.start..w.end]),
                position: add_pos + w.start,
                char_len: w.n_chars,
            });
        }
        from = w.next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(doc: &str) -> Vec<(String, usize)> {
        tokenize(
            doc.as_bytes(),
            Collation::Utf8mb4GeneralCi,
            TokenSizeLimits::default(),
        )
        .into_iter()
        .map(|t| (t.text, t.position))
        .collect()
    }

    #[test]
    fn splits_on_non_word_characters_and_records_byte_offsets() {
        assert_eq!(
            words("MySQL Tutorial, DBMS stands-for DataBase ..."),
            vec![
                ("mysql".to_owned(), 0),
                ("tutorial".to_owned(), 6),
                ("dbms".to_owned(), 16),
                ("stands".to_owned(), 21),
                ("for".to_owned(), 28),
                ("database".to_owned(), 32),
            ]
        );
    }

    #[test]
    fn underscore_and_digits_are_word_characters() {
        assert_eq!(
            words("foo_bar 1001 x2y"),
            vec![
                ("foo_bar".to_owned(), 0),
                ("1001".to_owned(), 8),
                ("x2y".to_owned(), 13)
            ]
        );
    }

    #[test]
    fn apostrophe_after_one_character_restarts_the_word() {
        assert_eq!(words("l'amour"), vec![("amour".to_owned(), 2)]);
        assert_eq!(words("O'Brien"), vec![("brien".to_owned(), 2)]);
        // Elsewhere an apostrophe ends the word; "t" is too short.
        assert_eq!(words("don't"), vec![("don".to_owned(), 0)]);
        assert_eq!(
            words("can't'won't"),
            vec![("can".to_owned(), 0), ("won".to_owned(), 6)]
        );
        let w = next_word(Charset::Utf8mb4, b"l'", 0).expect("a word");
        assert_eq!((w.start, w.end, w.n_chars), (2, 2, 0));
    }

    #[test]
    fn size_limits_count_characters_not_bytes() {
        // "été" is 3 characters in 5 bytes: indexed at min 3.
        assert_eq!(
            words("été ab abc"),
            vec![("été".to_owned(), 0), ("abc".to_owned(), 9)]
        );
        let long = "x".repeat(85);
        assert!(words(&long).is_empty());
        assert_eq!(words(&"é".repeat(84)).len(), 1);
        let l = TokenSizeLimits::new(1, 10).expect("valid");
        let t = tokenize(b"a bb", Collation::Utf8mb4GeneralCi, l);
        assert_eq!(t.len(), 2);
        assert!(TokenSizeLimits::new(17, 84).is_err());
        assert!(TokenSizeLimits::new(3, 9).is_err());
        assert!(TokenSizeLimits::new(3, 85).is_err());
    }

    #[test]
    fn utf8mb4_letters_fold_and_supplementary_characters_separate() {
        assert_eq!(
            words("ÉCOLE Straße"),
            vec![("école".to_owned(), 0), ("straße".to_owned(), 7)]
        );
        // An emoji (U+1F600) is not a word character.
        assert_eq!(
            words("abc😀def"),
            vec![("abc".to_owned(), 0), ("def".to_owned(), 7)]
        );
        // CJK ideographs are letters: one long word.
        assert_eq!(words("数据库系统"), vec![("数据库系统".to_owned(), 0)]);
        assert_eq!(
            fold_case(Collation::Utf8mb4GeneralCi, "İSTANBUL".as_bytes()),
            "istanbul"
        );
    }

    #[test]
    fn invalid_utf8_bytes_are_one_byte_separators() {
        let doc = b"abc\xFFdef\xE2\x82xyz\xF0";
        let t = tokenize(doc, Collation::Utf8mb4GeneralCi, TokenSizeLimits::default());
        let got: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.position)).collect();
        assert_eq!(got, vec![("abc", 0), ("def", 4), ("xyz", 9)]);
    }

    #[test]
    fn latin1_uses_mariadb_ctype_and_to_lower_tables() {
        // 0x8A is Š: a letter, but to_lower_latin1 keeps it. 0xC9 is É -> é.
        // 0xB2 (²) and 0xD7 (×) separate words.
        let doc = b"\x8Aabc \xC9t\xC9 ab\xB2cd x\xD7yz";
        let t = tokenize(
            doc,
            Collation::Latin1SwedishCi,
            TokenSizeLimits::new(2, 84).expect("ok"),
        );
        let got: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.position)).collect();
        assert_eq!(
            got,
            vec![("Šabc", 0), ("été", 5), ("ab", 9), ("cd", 12), ("yz", 17)]
        );
    }

    #[test]
    fn bin_collations_do_not_fold() {
        let t = tokenize(b"MySQL", Collation::Utf8mb4Bin, TokenSizeLimits::default());
        assert_eq!(t[0].text, "MySQL");
        let t = tokenize(b"MySQL", Collation::Latin1Bin, TokenSizeLimits::default());
        assert_eq!(t[0].text, "MySQL");
    }

    #[test]
    fn columns_are_joined_with_one_separator_byte() {
        let cols: [Option<&[u8]>; 3] = [Some(b"MySQL Tutorial"), None, Some(b"DBMS stands")];
        let t = tokenize_columns(
            &cols,
            Collation::Utf8mb4GeneralCi,
            TokenSizeLimits::default(),
        );
        let got: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.position)).collect();
        assert_eq!(
            got,
            vec![("mysql", 0), ("tutorial", 6), ("dbms", 15), ("stands", 20)]
        );
        // An empty column is skipped like NULL (innodb_fts.phrase: a title
        // of '' leaves "mysql good database" at 0, 6 and 11; ' ' shifts it).
        for (title, at) in [(&b""[..], 0), (&b" "[..], 2)] {
            let cols: [Option<&[u8]>; 2] = [Some(title), Some(b"mysql good database")];
            let t = tokenize_columns(
                &cols,
                Collation::Latin1SwedishCi,
                TokenSizeLimits::default(),
            );
            let got: Vec<_> = t.iter().map(|t| t.position).collect();
            assert_eq!(got, [at, at + 6, at + 11]);
        }
    }

    #[test]
    fn never_panics_on_arbitrary_bytes() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for len in 0..200 {
            let doc: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            for c in Collation::ALL {
                let t = tokenize(&doc, c, TokenSizeLimits::new(0, 10).expect("ok"));
                assert!(t.windows(2).all(|w| w[0].position < w[1].position));
            }
        }
    }
}
