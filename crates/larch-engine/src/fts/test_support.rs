//! Shared by the full-text tests: a small deterministic random generator
//! for the property tests, and shorthands for tokens and stopword sets.

use crate::fts::stopwords::StopwordSet;
use crate::fts::tokenizer::Token;

/// xorshift64*: a small deterministic generator.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A number of a random bit width (0 to 64 bits), so that small and
    /// large values are both common.
    pub(crate) fn wide(&mut self) -> u64 {
        let bits = self.below(65);
        if bits == 0 {
            0
        } else {
            self.next() >> (64 - bits)
        }
    }
}

/// A token `text` at byte `position`.
pub(crate) fn tok(text: &str, position: usize) -> Token {
    Token {
        text: text.into(),
        position,
        char_len: text.chars().count(),
    }
}

/// No stopwords.
pub(crate) fn none() -> StopwordSet {
    StopwordSet::disabled()
}
