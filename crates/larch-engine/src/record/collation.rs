//! Character sets, collations and their memcomparable sort keys.
//!
//! This module owns the collations Larch supports (MariaDB 10.11 names):
//! `binary`, `latin1_swedish_ci` (MariaDB's test default), `latin1_bin`,
//! `latin1_general_ci`, `latin1_general_cs`, `latin1_german1_ci`,
//! `latin1_danish_ci`, `latin1_spanish_ci`,
//! `utf8mb4_general_ci`, `utf8mb4_bin`, `utf8mb4_unicode_ci`, and the
//! tailored `utf8mb4_esperanto_ci` and `utf8mb4_swedish_ci` (UCA 4.0.0 with
//! MariaDB's tailoring rules; see `tailored_weights`); and the same five for
//! `utf8mb3` (MariaDB's `utf8`), whose orders are their utf8mb4
//! counterparts' ([`Collation::ordering`]): the two agree on every character
//! utf8mb3 can hold, which is the Basic Multilingual Plane.
//!
//! A collation turns a string into a *weight string* ([`Collation::weights`]): one
//! weight per character (latin1: one byte; `utf8mb4_general_ci`: two bytes;
//! `utf8mb4_unicode_ci`: zero or more two-byte UCA 4.0.0 primary weights; the `_bin`
//! collations and `binary`: the encoded bytes themselves). Two strings compare as
//! their weight strings do, with MySQL's PAD SPACE rule for every collation except
//! `binary`: the shorter weight string is compared as if padded with the weight of
//! a space, so `'a' = 'a '` and `'a\t' < 'a'`.
//!
//! [`Collation::sort_key`] encodes the weight string so that `memcmp` of two sort
//! keys equals [`Collation::compare`] *and* no sort key is a proper prefix of
//! another (so sort keys concatenate into composite keys and can be complemented
//! for descending key parts). The layout (chunks of 8 weight bytes, each followed by
//! a marker byte) is described in `docs/key-encoding.md`.
//!
//! Strings are Rust `&str` (Unicode). latin1 means MySQL's latin1, which is really
//! Windows-1252 with the five undefined bytes mapped to the C1 controls; characters
//! latin1 cannot represent are compared as `'?'`, which is what MySQL would have
//! stored (the row encoder rejects them instead: error 1366).
//!
//! Fidelity: the latin1 tables and the `utf8mb4_general_ci` table are exact copies
//! of MariaDB's (verified against MariaDB 10.11.19 for every code point). The
//! `utf8mb4_unicode_ci` table covers U+0000..U+05FF, U+1E00..U+1FFF,
//! U+2000..U+218F, U+3000..U+30FF, U+FB00..U+FB4F and U+FF00..U+FFFF exactly;
//! other BMP characters get UCA's implicit weights (exact for CJK ideographs and
//! unassigned code points; other scripts then sort after all covered characters,
//! by code point). Every character outside the BMP gets the single weight 0xFFFD
//! in both utf8mb4 `_ci` collations (so they are all equal), as in MariaDB.

use std::cmp::Ordering;

mod latin1_orders;
mod tables;

use latin1_orders::{
    LATIN1_DANISH_CI, LATIN1_GENERAL_CI, LATIN1_GENERAL_CS, LATIN1_GERMAN1_CI, LATIN1_SPANISH_CI,
    SORT_ORDER_LATIN1,
};

use crate::record::value::ValueError;

/// A character set (the byte encoding of a string column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    /// Raw bytes.
    Binary,
    /// MySQL latin1 (Windows-1252), one byte per character.
    Latin1,
    /// UTF-8 with up to four bytes per character.
    Utf8mb4,
    /// UTF-8 with up to three bytes per character (MariaDB's `utf8`): the
    /// Basic Multilingual Plane only.
    Utf8mb3,
}

impl Charset {
    /// The MySQL name.
    pub fn name(self) -> &'static str {
        match self {
            Charset::Binary => "binary",
            Charset::Latin1 => "latin1",
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb3 => "utf8mb3",
        }
    }

    /// Maximum bytes per character (MySQL's `mbmaxlen`).
    pub fn max_bytes_per_char(self) -> usize {
        match self {
            Charset::Binary | Charset::Latin1 => 1,
            Charset::Utf8mb4 => 4,
            Charset::Utf8mb3 => 3,
        }
    }

    /// Encodes `s` in this character set. latin1 and utf8mb3 reject characters
    /// they cannot represent ([`ValueError::BadValue`], MySQL error 1366).
    pub fn encode(self, s: &str, out: &mut Vec<u8>) -> Result<(), ValueError> {
        match self {
            Charset::Binary | Charset::Utf8mb4 => out.extend_from_slice(s.as_bytes()),
            Charset::Utf8mb3 => match s.chars().find(|&c| !self.can_hold(c)) {
                None => out.extend_from_slice(s.as_bytes()),
                Some(c) => {
                    return Err(ValueError::BadValue {
                        ty: "utf8mb3 string".into(),
                        value: format!("{c:?} (U+{:04X})", c as u32),
                    })
                }
            },
            Charset::Latin1 => {
                for c in s.chars() {
                    match latin1_from_char(c) {
                        Some(b) => out.push(b),
                        None => {
                            return Err(ValueError::BadValue {
                                ty: "latin1 string".into(),
                                value: format!("{c:?} (U+{:04X})", c as u32),
                            })
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// True when the character set can represent `c`.
    pub fn can_hold(self, c: char) -> bool {
        match self {
            Charset::Binary | Charset::Utf8mb4 => true,
            Charset::Latin1 => latin1_from_char(c).is_some(),
            Charset::Utf8mb3 => (c as u32) <= 0xFFFF,
        }
    }

    /// Decodes bytes of this character set. `binary` and the UTF-8 sets must be
    /// UTF-8.
    pub fn decode(self, bytes: &[u8]) -> Result<String, ValueError> {
        match self {
            Charset::Binary | Charset::Utf8mb4 | Charset::Utf8mb3 => {
                String::from_utf8(bytes.to_vec())
                    .map_err(|_| ValueError::Corrupt("string bytes are not valid UTF-8".into()))
            }
            Charset::Latin1 => Ok(bytes.iter().map(|&b| latin1_to_char(b)).collect()),
        }
    }
}

/// The supported collations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collation {
    /// `binary`: byte order, NO PAD.
    Binary,
    /// `latin1_swedish_ci`: MariaDB's `sort_order_latin1` (case-insensitive,
    /// Swedish: `Å` < `Ä` = `Æ` < `Ö` after `Z`, `Ü` = `Y`), PAD SPACE.
    Latin1SwedishCi,
    /// `latin1_bin`: latin1 byte order, PAD SPACE.
    Latin1Bin,
    /// `latin1_general_ci`, `latin1_general_cs`, `latin1_german1_ci`,
    /// `latin1_danish_ci`, `latin1_spanish_ci`: one weight per byte from
    /// MariaDB's tables (`latin1_orders`), PAD SPACE.
    Latin1GeneralCi,
    /// See [`Collation::Latin1GeneralCi`].
    Latin1GeneralCs,
    /// See [`Collation::Latin1GeneralCi`].
    Latin1German1Ci,
    /// See [`Collation::Latin1GeneralCi`].
    Latin1DanishCi,
    /// See [`Collation::Latin1GeneralCi`].
    Latin1SpanishCi,
    /// `utf8mb4_general_ci`: one weight per character (upper-cased, accents
    /// removed for Latin), PAD SPACE.
    Utf8mb4GeneralCi,
    /// `utf8mb4_bin`: code point order, PAD SPACE.
    Utf8mb4Bin,
    /// `utf8mb4_unicode_ci`: UCA 4.0.0 primary weights, PAD SPACE.
    Utf8mb4UnicodeCi,
    /// `utf8mb4_esperanto_ci`: `utf8mb4_unicode_ci` with MariaDB's Esperanto
    /// tailoring (ĉ after c, ĝ after g, ĥ after h, ĵ after j, ŝ after s, ŭ
    /// after u, each a letter of its own).
    Utf8mb4EsperantoCi,
    /// `utf8mb4_swedish_ci`: `utf8mb4_unicode_ci` with MariaDB's Swedish
    /// tailoring (ü = y; å < ä = æ < ö = ø, all after z).
    Utf8mb4SwedishCi,
    /// `utf8mb3_general_ci`: `utf8mb4_general_ci`'s order.
    Utf8mb3GeneralCi,
    /// `utf8mb3_bin`: code point order.
    Utf8mb3Bin,
    /// `utf8mb3_unicode_ci`: `utf8mb4_unicode_ci`'s order.
    Utf8mb3UnicodeCi,
    /// `utf8mb3_esperanto_ci`: `utf8mb4_esperanto_ci`'s order.
    Utf8mb3EsperantoCi,
    /// `utf8mb3_swedish_ci`: `utf8mb4_swedish_ci`'s order.
    Utf8mb3SwedishCi,
}

/// Bytes of weights per sort-key chunk.
const CHUNK: usize = 8;
/// PAD SPACE chunk markers: the rest of the weight string is all spaces (end), or
/// its first non-space weight is below / above the space weight (more follows).
const PAD_LESS: u8 = 1;
const PAD_END: u8 = 2;
const PAD_GREATER: u8 = 3;
/// NO PAD chunk marker for "more chunks follow"; a final chunk's marker is its
/// number of significant bytes (0..=8).
const NOPAD_MORE: u8 = 9;

impl Collation {
    /// Every supported collation.
    pub const ALL: [Collation; 18] = [
        Collation::Binary,
        Collation::Latin1SwedishCi,
        Collation::Latin1Bin,
        Collation::Latin1GeneralCi,
        Collation::Latin1GeneralCs,
        Collation::Latin1German1Ci,
        Collation::Latin1DanishCi,
        Collation::Latin1SpanishCi,
        Collation::Utf8mb4GeneralCi,
        Collation::Utf8mb4Bin,
        Collation::Utf8mb4UnicodeCi,
        Collation::Utf8mb4EsperantoCi,
        Collation::Utf8mb4SwedishCi,
        Collation::Utf8mb3GeneralCi,
        Collation::Utf8mb3Bin,
        Collation::Utf8mb3UnicodeCi,
        Collation::Utf8mb3EsperantoCi,
        Collation::Utf8mb3SwedishCi,
    ];

    /// The MySQL name.
    pub fn name(self) -> &'static str {
        match self {
            Collation::Binary => "binary",
            Collation::Latin1SwedishCi => "latin1_swedish_ci",
            Collation::Latin1Bin => "latin1_bin",
            Collation::Latin1GeneralCi => "latin1_general_ci",
            Collation::Latin1GeneralCs => "latin1_general_cs",
            Collation::Latin1German1Ci => "latin1_german1_ci",
            Collation::Latin1DanishCi => "latin1_danish_ci",
            Collation::Latin1SpanishCi => "latin1_spanish_ci",
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Utf8mb4UnicodeCi => "utf8mb4_unicode_ci",
            Collation::Utf8mb4EsperantoCi => "utf8mb4_esperanto_ci",
            Collation::Utf8mb4SwedishCi => "utf8mb4_swedish_ci",
            Collation::Utf8mb3GeneralCi => "utf8mb3_general_ci",
            Collation::Utf8mb3Bin => "utf8mb3_bin",
            Collation::Utf8mb3UnicodeCi => "utf8mb3_unicode_ci",
            Collation::Utf8mb3EsperantoCi => "utf8mb3_esperanto_ci",
            Collation::Utf8mb3SwedishCi => "utf8mb3_swedish_ci",
        }
    }

    /// The weight table of a latin1 collation (`latin1_swedish_ci`'s for the
    /// others, which have none).
    fn latin1_order(self) -> &'static [u8; 256] {
        match self {
            Collation::Latin1GeneralCi => &LATIN1_GENERAL_CI,
            Collation::Latin1GeneralCs => &LATIN1_GENERAL_CS,
            Collation::Latin1German1Ci => &LATIN1_GERMAN1_CI,
            Collation::Latin1DanishCi => &LATIN1_DANISH_CI,
            Collation::Latin1SpanishCi => &LATIN1_SPANISH_CI,
            _ => &SORT_ORDER_LATIN1,
        }
    }

    /// The collation whose order this one uses: the utf8mb4 counterpart of a
    /// utf8mb3 collation, else itself.
    pub fn ordering(self) -> Collation {
        match self {
            Collation::Utf8mb3GeneralCi => Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb3Bin => Collation::Utf8mb4Bin,
            Collation::Utf8mb3UnicodeCi => Collation::Utf8mb4UnicodeCi,
            Collation::Utf8mb3EsperantoCi => Collation::Utf8mb4EsperantoCi,
            Collation::Utf8mb3SwedishCi => Collation::Utf8mb4SwedishCi,
            other => other,
        }
    }

    /// The collation of `charset` whose order is this one's: the utf8mb3 or
    /// utf8mb4 counterpart of a UTF-8 collation (a latin1 or binary collation,
    /// or a charset without the counterpart, gives `self`).
    pub fn in_charset(self, charset: Charset) -> Collation {
        let base = self.ordering();
        match charset {
            Charset::Utf8mb4 => base,
            Charset::Utf8mb3 => match base {
                Collation::Utf8mb4GeneralCi => Collation::Utf8mb3GeneralCi,
                Collation::Utf8mb4Bin => Collation::Utf8mb3Bin,
                Collation::Utf8mb4UnicodeCi => Collation::Utf8mb3UnicodeCi,
                Collation::Utf8mb4EsperantoCi => Collation::Utf8mb3EsperantoCi,
                Collation::Utf8mb4SwedishCi => Collation::Utf8mb3SwedishCi,
                _ => self,
            },
            Charset::Binary | Charset::Latin1 => self,
        }
    }

    /// Looks a collation up by name (case-insensitive). `utf8_*` names are
    /// the `utf8mb3_*` collations, as in MariaDB 10.11 (`old_mode` without
    /// `UTF8_IS_UTF8MB3` is not supported).
    pub fn from_name(name: &str) -> Option<Collation> {
        let lower = name.to_ascii_lowercase();
        let lower = match lower.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => lower,
        };
        Collation::ALL.into_iter().find(|c| c.name() == lower)
    }

    /// The character set the collation belongs to.
    pub fn charset(self) -> Charset {
        match self {
            Collation::Binary => Charset::Binary,
            Collation::Latin1SwedishCi | Collation::Latin1Bin => Charset::Latin1,
            Collation::Latin1GeneralCi
            | Collation::Latin1GeneralCs
            | Collation::Latin1German1Ci
            | Collation::Latin1DanishCi
            | Collation::Latin1SpanishCi => Charset::Latin1,
            Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb4Bin
            | Collation::Utf8mb4UnicodeCi
            | Collation::Utf8mb4EsperantoCi
            | Collation::Utf8mb4SwedishCi => Charset::Utf8mb4,
            Collation::Utf8mb3GeneralCi
            | Collation::Utf8mb3Bin
            | Collation::Utf8mb3UnicodeCi
            | Collation::Utf8mb3EsperantoCi
            | Collation::Utf8mb3SwedishCi => Charset::Utf8mb3,
        }
    }

    /// True for PAD SPACE collations (all but `binary` in MariaDB 10.11).
    pub fn is_pad_space(self) -> bool {
        !matches!(self, Collation::Binary)
    }

    /// True when the string can be rebuilt from its sort key (up to trailing
    /// spaces for PAD SPACE collations): `binary` and the `_bin` collations.
    pub fn is_sort_key_reversible(self) -> bool {
        matches!(
            self,
            Collation::Binary
                | Collation::Latin1Bin
                | Collation::Utf8mb4Bin
                | Collation::Utf8mb3Bin
        )
    }

    /// Upper bound of weight bytes per character.
    pub fn max_weight_bytes_per_char(self) -> usize {
        match self {
            Collation::Binary | Collation::Latin1SwedishCi | Collation::Latin1Bin => 1,
            Collation::Latin1GeneralCi
            | Collation::Latin1GeneralCs
            | Collation::Latin1German1Ci
            | Collation::Latin1DanishCi
            | Collation::Latin1SpanishCi => 1,
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => 2,
            Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => 4,
            Collation::Utf8mb4UnicodeCi
            | Collation::Utf8mb3UnicodeCi
            | Collation::Utf8mb4EsperantoCi
            | Collation::Utf8mb3EsperantoCi
            | Collation::Utf8mb4SwedishCi
            | Collation::Utf8mb3SwedishCi => 2 * MAX_UCA_WEIGHTS_PER_CHAR,
        }
    }

    /// Upper bound of the [`Collation::sort_key`] length of a string of at most
    /// `max_chars` characters.
    pub fn max_sort_key_len(self, max_chars: usize) -> usize {
        sort_key_len_for_weights(max_chars.saturating_mul(self.max_weight_bytes_per_char()))
    }

    /// Bytes per weight unit and the space weight (PAD SPACE collations).
    fn unit(self) -> (usize, [u8; 2]) {
        match self {
            Collation::Binary
            | Collation::Latin1SwedishCi
            | Collation::Latin1Bin
            | Collation::Latin1GeneralCi
            | Collation::Latin1GeneralCs
            | Collation::Latin1German1Ci
            | Collation::Latin1DanishCi
            | Collation::Latin1SpanishCi
            | Collation::Utf8mb4Bin
            | Collation::Utf8mb3Bin => (1, [b' ', 0]),
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => (2, [0x00, 0x20]),
            Collation::Utf8mb4UnicodeCi
            | Collation::Utf8mb3UnicodeCi
            | Collation::Utf8mb4EsperantoCi
            | Collation::Utf8mb3EsperantoCi
            | Collation::Utf8mb4SwedishCi
            | Collation::Utf8mb3SwedishCi => (2, UCA_SPACE.to_be_bytes()),
        }
    }

    /// Appends the weight string of `s` (no padding, trailing spaces kept), like
    /// MariaDB's `WEIGHT_STRING()` except that `utf8mb4_bin` weights are the UTF-8
    /// bytes (same order as MariaDB's 3-byte code points).
    pub fn weights(self, s: &str, out: &mut Vec<u8>) {
        let this = self;
        match this {
            Collation::Binary | Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => {
                out.extend_from_slice(s.as_bytes())
            }
            Collation::Latin1Bin => out.extend(s.chars().map(latin1_lossy)),
            Collation::Latin1SwedishCi
            | Collation::Latin1GeneralCi
            | Collation::Latin1GeneralCs
            | Collation::Latin1German1Ci
            | Collation::Latin1DanishCi
            | Collation::Latin1SpanishCi => {
                let order = self.latin1_order();
                out.extend(s.chars().map(|c| order[usize::from(latin1_lossy(c))]))
            }
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
                out.reserve(s.len() * 2);
                for c in s.chars() {
                    out.extend_from_slice(&general_ci_weight(c).to_be_bytes());
                }
            }
            Collation::Utf8mb4UnicodeCi | Collation::Utf8mb3UnicodeCi => {
                for c in s.chars() {
                    uca_weights(c, |w| out.extend_from_slice(&w.to_be_bytes()));
                }
            }
            Collation::Utf8mb4EsperantoCi
            | Collation::Utf8mb3EsperantoCi
            | Collation::Utf8mb4SwedishCi
            | Collation::Utf8mb3SwedishCi => {
                for c in s.chars() {
                    let mut emit = |w: u16| out.extend_from_slice(&w.to_be_bytes());
                    if !tailored_weights(self.ordering(), c, &mut emit) {
                        uca_weights(c, emit);
                    }
                }
            }
        }
    }

    /// Compares two strings in this collation (MySQL's `strnncollsp`).
    pub fn compare(self, a: &str, b: &str) -> Ordering {
        match self.char_weight_fn() {
            Some(weight) => compare_per_char(a, b, weight, self.is_pad_space()),
            None => self.compare_by_weight_strings(a, b),
        }
    }

    /// For collations with exactly one weight per character: that weight as
    /// a number whose order is the weight string's order (for the binary
    /// collations the code point, which orders as UTF-8 bytes do).
    fn char_weight_fn(self) -> Option<fn(char) -> u32> {
        Some(match self {
            Collation::Binary | Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => |c| c as u32,
            Collation::Latin1Bin => |c| u32::from(latin1_lossy(c)),
            Collation::Latin1SwedishCi => {
                |c| u32::from(SORT_ORDER_LATIN1[usize::from(latin1_lossy(c))])
            }
            Collation::Latin1GeneralCi => {
                |c| u32::from(LATIN1_GENERAL_CI[usize::from(latin1_lossy(c))])
            }
            Collation::Latin1GeneralCs => {
                |c| u32::from(LATIN1_GENERAL_CS[usize::from(latin1_lossy(c))])
            }
            Collation::Latin1German1Ci => {
                |c| u32::from(LATIN1_GERMAN1_CI[usize::from(latin1_lossy(c))])
            }
            Collation::Latin1DanishCi => {
                |c| u32::from(LATIN1_DANISH_CI[usize::from(latin1_lossy(c))])
            }
            Collation::Latin1SpanishCi => {
                |c| u32::from(LATIN1_SPANISH_CI[usize::from(latin1_lossy(c))])
            }
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
                |c| u32::from(general_ci_weight(c))
            }
            Collation::Utf8mb4UnicodeCi
            | Collation::Utf8mb3UnicodeCi
            | Collation::Utf8mb4EsperantoCi
            | Collation::Utf8mb3EsperantoCi
            | Collation::Utf8mb4SwedishCi
            | Collation::Utf8mb3SwedishCi => return None,
        })
    }

    /// [`Collation::compare`] through the full weight strings.
    fn compare_by_weight_strings(self, a: &str, b: &str) -> Ordering {
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        self.weights(a, &mut wa);
        self.weights(b, &mut wb);
        if !self.is_pad_space() {
            return wa.cmp(&wb);
        }
        let (unit, space) = self.unit();
        let space = &space[..unit];
        let common = wa.len().min(wb.len());
        match wa[..common].cmp(&wb[..common]) {
            Ordering::Equal => {}
            other => return other,
        }
        // The longer string's rest is compared with spaces.
        let (rest, sign) = if wa.len() > common {
            (&wa[common..], Ordering::Greater)
        } else {
            (&wb[common..], Ordering::Less)
        };
        for w in rest.chunks(unit) {
            match w.cmp(space) {
                Ordering::Equal => continue,
                Ordering::Greater => return sign,
                Ordering::Less => return sign.reverse(),
            }
        }
        Ordering::Equal
    }

    /// Appends the memcomparable, self-delimiting sort key of `s`:
    /// `memcmp(sort_key(a), sort_key(b)) == compare(a, b)`.
    pub fn sort_key(self, s: &str, out: &mut Vec<u8>) {
        let mut w = Vec::with_capacity(s.len() * 2);
        self.weights(s, &mut w);
        if self.is_pad_space() {
            let (unit, space) = self.unit();
            pad_space_chunks(&w, unit, &space[..unit], out);
        } else {
            binary_sort_key(&w, out);
        }
    }

    /// Length of the sort key at the start of `key` (whose bytes are XORed with
    /// `flip` first: 0xFF for descending key parts).
    pub fn sort_key_len(self, key: &[u8], flip: u8) -> Result<usize, ValueError> {
        chunked_len(key, flip, self.is_pad_space())
    }

    /// Rebuilds the string from its sort key (reversible collations only; trailing
    /// spaces of PAD SPACE collations are lost). Returns the string and the number of
    /// key bytes consumed.
    pub fn decode_sort_key(self, key: &[u8], flip: u8) -> Result<(String, usize), ValueError> {
        if !self.is_sort_key_reversible() {
            return Err(ValueError::Corrupt(format!(
                "the {} sort key cannot be decoded",
                self.name()
            )));
        }
        let (bytes, used) = decode_chunks(key, flip, self.is_pad_space())?;
        Ok((self.charset().decode(&bytes)?, used))
    }
}

/// Compares byte strings (`binary`, NO PAD).
pub fn compare_binary(a: &[u8], b: &[u8]) -> Ordering {
    a.cmp(b)
}

/// Appends the memcomparable, self-delimiting NO PAD sort key of a byte string:
/// chunks of 8 bytes (the last zero-padded), each followed by a marker: 9 when more
/// chunks follow, else the number of significant bytes in the chunk (0..=8).
pub fn binary_sort_key(bytes: &[u8], out: &mut Vec<u8>) {
    let mut rest = bytes;
    loop {
        let n = rest.len().min(CHUNK);
        out.extend_from_slice(&rest[..n]);
        out.resize(out.len() + CHUNK - n, 0);
        if rest.len() > CHUNK {
            out.push(NOPAD_MORE);
            rest = &rest[CHUNK..];
        } else {
            // n <= 8 here.
            out.push(n as u8);
            return;
        }
    }
}

/// Decodes a [`binary_sort_key`]: the bytes and the number of key bytes consumed.
pub fn decode_binary_sort_key(key: &[u8], flip: u8) -> Result<(Vec<u8>, usize), ValueError> {
    decode_chunks(key, flip, false)
}

/// Sort-key length for a weight string of at most `weight_bytes` bytes.
pub fn sort_key_len_for_weights(weight_bytes: usize) -> usize {
    // A weight string that fills its last chunk exactly needs no further chunk, so
    // ceil(w / 8) chunks and at least one.
    weight_bytes
        .div_ceil(CHUNK)
        .max(1)
        .saturating_mul(CHUNK + 1)
}

/// PAD SPACE chunking: weight string without trailing space units, cut in chunks
/// of 8 bytes padded with space units; after each chunk a marker tells how the rest
/// of the weight string compares with an endless run of spaces.
fn pad_space_chunks(w: &[u8], unit: usize, space: &[u8], out: &mut Vec<u8>) {
    let mut len = w.len();
    while len >= unit && &w[len - unit..len] == space {
        len -= unit;
    }
    let w = &w[..len];
    let mut start = 0;
    loop {
        let end = (start + CHUNK).min(w.len());
        out.extend_from_slice(&w[start..end]);
        let mut filled = end - start;
        while filled < CHUNK {
            out.extend_from_slice(space);
            filled += unit;
        }
        if end == w.len() {
            out.push(PAD_END);
            return;
        }
        // The rest ends in a non-space unit, so a first non-space unit exists.
        let marker = w[end..]
            .chunks(unit)
            .find(|u| *u != space)
            .map_or(PAD_END, |u| if u < space { PAD_LESS } else { PAD_GREATER });
        out.push(marker);
        start = end;
    }
}

/// Length of a chunked sort key (PAD SPACE or NO PAD) at the start of `key`.
fn chunked_len(key: &[u8], flip: u8, pad: bool) -> Result<usize, ValueError> {
    let mut pos = 0;
    loop {
        let marker = key
            .get(pos + CHUNK)
            .ok_or_else(|| ValueError::Corrupt("truncated string key".into()))?
            ^ flip;
        pos += CHUNK + 1;
        let last = if pad {
            match marker {
                PAD_END => true,
                PAD_LESS | PAD_GREATER => false,
                m => return Err(ValueError::Corrupt(format!("bad string key marker {m}"))),
            }
        } else {
            match marker {
                0..=8 => true,
                NOPAD_MORE => false,
                m => return Err(ValueError::Corrupt(format!("bad string key marker {m}"))),
            }
        };
        if last {
            return Ok(pos);
        }
    }
}

/// Rebuilds the weight bytes of a chunked key of a 1-byte-unit collation.
fn decode_chunks(key: &[u8], flip: u8, pad: bool) -> Result<(Vec<u8>, usize), ValueError> {
    let len = chunked_len(key, flip, pad)?;
    let mut out = Vec::with_capacity(len);
    for chunk in key[..len].chunks(CHUNK + 1) {
        let marker = chunk[CHUNK] ^ flip;
        let data = chunk[..CHUNK].iter().map(|b| b ^ flip);
        if pad {
            out.extend(data);
            if marker == PAD_END {
                while out.last() == Some(&b' ') {
                    out.pop();
                }
            }
        } else if marker == NOPAD_MORE {
            out.extend(data);
        } else {
            out.extend(data.take(usize::from(marker)));
        }
    }
    Ok((out, len))
}

/// Unicode code points of latin1 bytes 0x80..=0x9F (Windows-1252; the five bytes
/// Windows-1252 leaves undefined map to the C1 controls, as in MySQL).
#[rustfmt::skip]
static LATIN1_80_9F: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

/// The latin1 byte of `c`, if latin1 can represent it.
pub fn latin1_from_char(c: char) -> Option<u8> {
    let cp = c as u32;
    if cp < 0x80 || (0xA0..=0xFF).contains(&cp) {
        return u8::try_from(cp).ok();
    }
    LATIN1_80_9F
        .iter()
        .position(|&u| u32::from(u) == cp)
        .and_then(|i| u8::try_from(0x80 + i).ok())
}

/// The character of a latin1 byte.
pub fn latin1_to_char(b: u8) -> char {
    if (0x80..0xA0).contains(&b) {
        let cp = LATIN1_80_9F[usize::from(b - 0x80)];
        char::from_u32(u32::from(cp)).unwrap_or('?')
    } else {
        char::from(b)
    }
}

/// The latin1 byte of `c`, or `'?'` when latin1 cannot represent it.
/// Compares character by character without building weight strings; with
/// PAD SPACE the longer string's rest is compared with spaces.
fn compare_per_char(a: &str, b: &str, weight: fn(char) -> u32, pad: bool) -> Ordering {
    let (mut ia, mut ib) = (a.chars(), b.chars());
    loop {
        match (ia.next(), ib.next()) {
            (Some(x), Some(y)) => {
                if x != y {
                    match weight(x).cmp(&weight(y)) {
                        Ordering::Equal => {}
                        other => return other,
                    }
                }
            }
            (None, None) => return Ordering::Equal,
            (Some(x), None) => {
                if !pad {
                    return Ordering::Greater;
                }
                let space = weight(' ');
                for c in std::iter::once(x).chain(ia) {
                    match weight(c).cmp(&space) {
                        Ordering::Equal => {}
                        other => return other,
                    }
                }
                return Ordering::Equal;
            }
            (None, Some(y)) => {
                if !pad {
                    return Ordering::Less;
                }
                let space = weight(' ');
                for c in std::iter::once(y).chain(ib) {
                    match space.cmp(&weight(c)) {
                        Ordering::Equal => {}
                        other => return other,
                    }
                }
                return Ordering::Equal;
            }
        }
    }
}

fn latin1_lossy(c: char) -> u8 {
    latin1_from_char(c).unwrap_or(b'?')
}

/// Looks a code point up in a run table.
fn lookup(table: &'static [tables::Run], cp: u32) -> Option<Weights> {
    let cp16 = u16::try_from(cp).ok()?;
    let i = table.partition_point(|&(first, _, _, _)| first <= cp16);
    let &(first, count, incrementing, weights) = table.get(i.checked_sub(1)?)?;
    let off = cp16 - first;
    if off >= count {
        return None;
    }
    if incrementing {
        Some(Weights::One(weights.first()?.wrapping_add(off)))
    } else {
        Some(Weights::Many(weights))
    }
}

/// Result of a table lookup.
enum Weights {
    One(u16),
    Many(&'static [u16]),
}

/// `utf8mb4_general_ci` weight of a character. ASCII, most of the text
/// sorted and grouped, weighs its upper case (no table search).
fn general_ci_weight(c: char) -> u16 {
    if c.is_ascii() {
        return u16::from(c.to_ascii_uppercase() as u8);
    }
    general_ci_weight_from_table(c)
}

/// [`general_ci_weight`] from the weight table (any character).
fn general_ci_weight_from_table(c: char) -> u16 {
    let cp = c as u32;
    let Ok(cp16) = u16::try_from(cp) else {
        return 0xFFFD;
    };
    match lookup(tables::GENERAL_CI, cp) {
        Some(Weights::One(w)) => w,
        Some(Weights::Many(ws)) => ws.first().copied().unwrap_or(cp16),
        None => cp16,
    }
}

/// UCA 4.0.0 primary weight of a space.
const UCA_SPACE: u16 = 0x0209;
/// Most weights our UCA table gives one character.
const MAX_UCA_WEIGHTS_PER_CHAR: usize = 4;

/// Feeds the `utf8mb4_unicode_ci` primary weights of `c` to `emit`.
fn uca_weights(c: char, mut emit: impl FnMut(u16)) {
    let cp = c as u32;
    if cp > 0xFFFF {
        emit(0xFFFD);
        return;
    }
    match lookup(tables::UNICODE_CI, cp) {
        Some(Weights::One(w)) => emit(w),
        Some(Weights::Many(ws)) => ws.iter().for_each(|&w| emit(w)),
        None => {
            let (a, b) = uca_implicit(cp);
            emit(a);
            emit(b);
        }
    }
}

/// Feeds the weights a tailored collation gives `c` in place of its UCA
/// 4.0.0 ones to `emit` (false, emitting nothing, when `c` is not
/// tailored), after MariaDB's tailoring rules
/// (`ctype-uca.c`). A letter tailored as a new letter right after a base
/// letter (`& C < ĉ`) weighs as the base letter followed by [`AFTER_ALL`]
/// and its rank among the letters put there: it sorts after every string
/// starting with the base letter and before the next letter, as a primary
/// weight between the two would. Upper and lower case weigh alike (`<<<`),
/// as do letters tailored as accents of one another (`<<`).
fn tailored_weights(collation: Collation, c: char, mut emit: impl FnMut(u16)) -> bool {
    let mut after = |letter: char, rank: u16| {
        uca_weights(letter, &mut emit);
        emit(AFTER_ALL);
        emit(rank);
    };
    match (collation, c) {
        (Collation::Utf8mb4EsperantoCi, 'ĉ' | 'Ĉ') => after('c', 1),
        (Collation::Utf8mb4EsperantoCi, 'ĝ' | 'Ĝ') => after('g', 1),
        (Collation::Utf8mb4EsperantoCi, 'ĥ' | 'Ĥ') => after('h', 1),
        (Collation::Utf8mb4EsperantoCi, 'ĵ' | 'Ĵ') => after('j', 1),
        (Collation::Utf8mb4EsperantoCi, 'ŝ' | 'Ŝ') => after('s', 1),
        (Collation::Utf8mb4EsperantoCi, 'ŭ' | 'Ŭ') => after('u', 1),
        (Collation::Utf8mb4SwedishCi, 'ü' | 'Ü') => uca_weights('y', emit),
        (Collation::Utf8mb4SwedishCi, 'å' | 'Å') => after('z', 1),
        (Collation::Utf8mb4SwedishCi, 'ä' | 'Ä' | 'æ' | 'Æ') => after('z', 2),
        (Collation::Utf8mb4SwedishCi, 'ö' | 'Ö' | 'ø' | 'Ø') => after('z', 3),
        _ => return false,
    }
    true
}

/// Above every UCA weight a character has (the implicit weights of the
/// table's characters reach 0xFBC1, characters beyond the BMP 0xFFFD).
const AFTER_ALL: u16 = 0xFFFF;

/// UCA implicit weights (UTS #10, as in MySQL's UCA 4.0.0 code) for characters
/// without a table entry: CJK unified ideographs first, then the rest by code point.
fn uca_implicit(cp: u32) -> (u16, u16) {
    let base: u32 = if (0x4E00..=0x9FA5).contains(&cp) || (0xF900..=0xFA2D).contains(&cp) {
        0xFB40
    } else if (0x3400..=0x4DB5).contains(&cp) {
        0xFB80
    } else {
        0xFBC0
    };
    // cp <= 0xFFFF, so both values fit in 16 bits.
    let hi = (base + (cp >> 15)) as u16;
    let lo = ((cp & 0x7FFF) | 0x8000) as u16;
    (hi, lo)
}

#[cfg(test)]
mod tests;
