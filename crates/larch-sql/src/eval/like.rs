//! The one LIKE matcher: `%` any run of characters, `_` one character, the
//! escape character quoting the next pattern character; characters compare
//! by the collation's weights, one character against one (no padding:
//! trailing spaces matter).
//!
//! Matching is iterative (backtracking only to the last `%`), so its time
//! is at most the text's length times the pattern's, whatever the pattern;
//! nothing recurses. It is used by `LIKE` itself, `SHOW ... LIKE`, host and
//! database patterns of accounts, `JSON_SEARCH` and the protocol's field
//! list wildcards.
//!
//! Speed: a scan with `c LIKE '%99%'` compares millions of characters, so
//! equality of two ASCII characters is one table lookup. Each collation's
//! ASCII characters are sorted once into classes of equal weights
//! ([`ascii_classes`]); two ASCII characters are equal in the collation
//! exactly when their classes are. Text that is all ASCII is matched byte
//! by byte without decoding; other text is decoded once into characters.
//! Weights are computed only for a pair with a character beyond ASCII.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use larch_engine::record::collation::Collation;
use parking_lot::RwLock;

/// For each ASCII character, the smallest ASCII character with the same
/// weights in a collation.
type AsciiClasses = [u8; 128];

/// The ASCII classes of `coll`, computed once per collation.
fn ascii_classes(coll: Collation) -> Arc<AsciiClasses> {
    static CACHE: OnceLock<RwLock<HashMap<Collation, Arc<AsciiClasses>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| RwLock::new(HashMap::new()));
    if let Some(found) = cache.read().get(&coll) {
        return found.clone();
    }
    let weights: Vec<Vec<u8>> = (0u8..128)
        .map(|b| {
            let mut w = Vec::new();
            let mut buf = [0u8; 4];
            coll.weights(char::from(b).encode_utf8(&mut buf), &mut w);
            w
        })
        .collect();
    let mut classes = [0u8; 128];
    for (b, class) in (0u8..128).zip(classes.iter_mut()) {
        let first = weights
            .iter()
            .position(|w| *w == weights[usize::from(b)])
            .unwrap_or(usize::from(b));
        *class = u8::try_from(first).unwrap_or(b);
    }
    let classes = Arc::new(classes);
    cache.write().insert(coll, classes.clone());
    classes
}

/// True when `a` and `b` are equal in the collation, one character each
/// (no class table: for callers comparing a few characters).
pub(super) fn same_char(a: char, b: char, coll: Collation) -> bool {
    a == b || (!is_binary(coll) && same_weights(a, b, coll, &mut Vec::new(), &mut Vec::new()))
}

/// The binary collations compare characters by code point.
fn is_binary(coll: Collation) -> bool {
    matches!(
        coll.ordering(),
        Collation::Binary | Collation::Utf8mb4Bin | Collation::Latin1Bin
    )
}

/// True when `a` and `b` have the same weights in `coll` (`wa`, `wb`:
/// scratch buffers).
fn same_weights(a: char, b: char, coll: Collation, wa: &mut Vec<u8>, wb: &mut Vec<u8>) -> bool {
    let mut buf = [0u8; 4];
    wa.clear();
    wb.clear();
    coll.weights(a.encode_utf8(&mut buf), wa);
    coll.weights(b.encode_utf8(&mut buf), wb);
    wa == wb
}

/// Character equality in one collation.
#[derive(Debug)]
struct CharEquality {
    coll: Collation,
    /// The binary collations compare characters by code point.
    binary: bool,
    classes: Arc<AsciiClasses>,
}

impl CharEquality {
    fn new(coll: Collation) -> CharEquality {
        CharEquality {
            coll,
            binary: is_binary(coll),
            classes: ascii_classes(coll),
        }
    }

    /// `wa` and `wb` are scratch buffers for the weights of characters
    /// beyond ASCII.
    fn same(&self, a: char, b: char, wa: &mut Vec<u8>, wb: &mut Vec<u8>) -> bool {
        if a == b {
            return true;
        }
        if a.is_ascii() && b.is_ascii() {
            return self.classes[a as usize] == self.classes[b as usize];
        }
        !self.binary && same_weights(a, b, self.coll, wa, wb)
    }
}

/// One element of a LIKE pattern.
#[derive(Debug, Clone, Copy)]
enum Element {
    Char(char),
    One,
    Any,
}

/// One element of a pattern whose characters are all ASCII, for text that
/// is all ASCII: a character stands as its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AsciiElement {
    /// A character's class, and whether the class has no other member (the
    /// character then matches only itself, and can be searched for).
    Class(u8, bool),
    One,
    Any,
}

/// A LIKE pattern ready to match texts in one collation.
#[derive(Debug)]
pub struct LikePattern {
    elements: Vec<Element>,
    /// The pattern for all-ASCII text, when its characters are all ASCII.
    ascii: Option<Vec<AsciiElement>>,
    /// For each `%` of `ascii`, a search for the run of characters after it
    /// that match only themselves (`None`: no such character follows).
    after_any: Vec<Option<memchr::memmem::Finder<'static>>>,
    equality: CharEquality,
}

impl LikePattern {
    /// `pattern` with escape character `esc` (an escape at the very end
    /// stands for itself), compared in `coll`.
    pub fn new(pattern: &str, esc: char, coll: Collation) -> LikePattern {
        let mut elements = Vec::with_capacity(pattern.len());
        let mut it = pattern.chars();
        while let Some(c) = it.next() {
            elements.push(if c == esc {
                Element::Char(it.next().unwrap_or(esc))
            } else if c == '%' {
                Element::Any
            } else if c == '_' {
                Element::One
            } else {
                Element::Char(c)
            });
        }
        let equality = CharEquality::new(coll);
        let classes = &*equality.classes;
        let ascii = elements
            .iter()
            .map(|e| match *e {
                Element::Char(c) if c.is_ascii() => {
                    let class = classes[c as usize];
                    let alone = classes.iter().filter(|&&k| k == class).count() == 1;
                    Some(AsciiElement::Class(class, alone))
                }
                Element::Char(_) => None,
                Element::One => Some(AsciiElement::One),
                Element::Any => Some(AsciiElement::Any),
            })
            .collect::<Option<Vec<_>>>();
        let after_any = ascii.as_deref().map_or_else(Vec::new, |pattern| {
            (0..pattern.len())
                .map(|i| {
                    let run: Vec<u8> = pattern[i + 1..]
                        .iter()
                        .map_while(|e| match e {
                            AsciiElement::Class(c, true) => Some(*c),
                            _ => None,
                        })
                        .collect();
                    let searchable = pattern[i] == AsciiElement::Any && !run.is_empty();
                    searchable.then(|| memchr::memmem::Finder::new(&run).into_owned())
                })
                .collect()
        });
        LikePattern {
            elements,
            ascii,
            after_any,
            equality,
        }
    }

    /// True when the whole of `text` matches the pattern.
    pub fn matches(&self, text: &str) -> bool {
        if text.is_ascii() {
            match &self.ascii {
                Some(pattern) => self.match_ascii(pattern, text.as_bytes()),
                None => self.match_units(text.as_bytes()),
            }
        } else {
            let chars: Vec<char> = text.chars().collect();
            self.match_units(&chars)
        }
    }

    /// [`Self::match_units`] for ASCII text and an ASCII pattern: a class
    /// lookup per character, and after a `%` followed by characters that
    /// match only themselves, a byte search for them.
    fn match_ascii(&self, pat: &[AsciiElement], text: &[u8]) -> bool {
        let classes = &*self.equality.classes;
        // Where matching after the `%` at `sp` may start, from `from` on.
        let resume = |sp: usize, from: usize| match self.after_any.get(sp) {
            Some(Some(finder)) => text
                .get(from..)
                .and_then(|rest| finder.find(rest))
                .map(|at| from + at),
            _ => Some(from),
        };
        let (mut ti, mut pi) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while let Some(&t) = text.get(ti) {
            match pat.get(pi) {
                Some(AsciiElement::Any) => {
                    let Some(at) = resume(pi, ti) else {
                        return false;
                    };
                    star = Some((pi, at));
                    ti = at;
                    pi += 1;
                }
                Some(AsciiElement::One) => {
                    ti += 1;
                    pi += 1;
                }
                Some(AsciiElement::Class(c, _)) if classes[usize::from(t)] == *c => {
                    ti += 1;
                    pi += 1;
                }
                _ => match star {
                    Some((sp, st)) => {
                        // No match from `st`: none from a later `%` can
                        // start before it either, so try the next start.
                        let Some(at) = resume(sp, st + 1) else {
                            return false;
                        };
                        pi = sp + 1;
                        ti = at;
                        star = Some((sp, at));
                    }
                    None => return false,
                },
            }
        }
        pat[pi..].iter().all(|p| *p == AsciiElement::Any)
    }

    /// The matching itself, over ASCII bytes or decoded characters.
    fn match_units<U: Copy + Into<char>>(&self, text: &[U]) -> bool {
        let pat = &self.elements;
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        let (mut ti, mut pi) = (0usize, 0usize);
        // The last `%` seen and the text position it is tried from.
        let mut star: Option<(usize, usize)> = None;
        while let Some(&t) = text.get(ti) {
            match pat.get(pi) {
                Some(Element::Any) => {
                    star = Some((pi, ti));
                    pi += 1;
                }
                Some(Element::One) => {
                    ti += 1;
                    pi += 1;
                }
                Some(Element::Char(c)) if self.equality.same(*c, t.into(), &mut wa, &mut wb) => {
                    ti += 1;
                    pi += 1;
                }
                _ => match star {
                    Some((sp, st)) => {
                        pi = sp + 1;
                        ti = st + 1;
                        star = Some((sp, st + 1));
                    }
                    None => return false,
                },
            }
        }
        pat[pi..].iter().all(|p| matches!(p, Element::Any))
    }
}

/// The pattern of a `LIKE` whose pattern and escape are literals, compiled
/// with the expression. Two are equal when their expressions' patterns,
/// escapes and collations are (which the expression compares beside it).
#[derive(Debug, Clone)]
pub struct ConstantLike(pub Arc<LikePattern>);

impl PartialEq for ConstantLike {
    fn eq(&self, _: &ConstantLike) -> bool {
        true
    }
}

/// The escape character of a LIKE whose ESCAPE clause gave `escape` (the
/// clause's first character; `\\` without one or for an empty one).
pub fn escape_char(escape: Option<&str>) -> char {
    escape.and_then(|e| e.chars().next()).unwrap_or('\\')
}

/// MySQL's LIKE: true when `s` matches `pattern` (escape `esc`) in `coll`.
pub fn like(s: &str, pattern: &str, esc: char, coll: Collation) -> bool {
    LikePattern::new(pattern, esc, coll).matches(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_escapes_and_collations() {
        let ci = Collation::Utf8mb4GeneralCi;
        let cases = [
            ("abc", "a%", true),
            ("abc", "%B%", true),
            ("abc", "a_c", true),
            ("abc", "a_", false),
            ("a%c", "a\\%c", true),
            ("abc", "a\\%c", false),
            ("", "%", true),
            ("", "_", false),
            ("abc ", "abc", false),
            ("xx99yy", "%99%", true),
            ("x9y9", "%99%", false),
            ("Ärger", "ä%", true),
            ("straße", "%SSE", false),
            ("日本語", "_本_", true),
            ("日本語", "%語", true),
            (
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
                "%a%a%a%a%a%a%a%c",
                false,
            ),
        ];
        for (text, pattern, want) in cases {
            assert_eq!(
                like(text, pattern, '\\', ci),
                want,
                "{text:?} LIKE {pattern:?}"
            );
        }
        assert!(!like("abc", "A%", '\\', Collation::Utf8mb4Bin));
        assert!(like("a%", "a|%", '|', Collation::Utf8mb4Bin));
        assert!(!like("a|x", "a|%", '|', Collation::Utf8mb4Bin));
    }

    /// The ASCII path (classes, byte search after `%`) answers as the
    /// general one, on random patterns and texts.
    #[test]
    fn the_ascii_path_answers_as_the_general_one() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let alphabet = b"aAb9%_\\ x";
        for coll in [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4Bin] {
            for _ in 0..20_000 {
                let mut word = |len| {
                    (0..next(len))
                        .map(|_| char::from(alphabet[next(alphabet.len() as u64) as usize]))
                        .collect::<String>()
                };
                let (pattern, text) = (word(7), word(12));
                let p = LikePattern::new(&pattern, '\\', coll);
                assert!(p.ascii.is_some());
                let general = p.match_units(text.as_bytes());
                assert_eq!(
                    p.matches(&text),
                    general,
                    "{text:?} LIKE {pattern:?} in {coll:?}"
                );
            }
        }
    }

    /// The ASCII classes give the answer the weights give, for every pair.
    #[test]
    fn ascii_classes_agree_with_the_weights() {
        for coll in [
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4UnicodeCi,
            Collation::Utf8mb4Bin,
            Collation::Latin1SwedishCi,
            Collation::Binary,
        ] {
            let equality = CharEquality::new(coll);
            for a in (0u8..128).map(char::from) {
                for b in (0u8..128).map(char::from) {
                    let (mut wa, mut wb) = (Vec::new(), Vec::new());
                    let mut buf = [0u8; 4];
                    coll.weights(a.encode_utf8(&mut buf), &mut wa);
                    coll.weights(b.encode_utf8(&mut buf), &mut wb);
                    let by_weights = a == b || (!equality.binary && wa == wb);
                    assert_eq!(
                        equality.same(a, b, &mut Vec::new(), &mut Vec::new()),
                        by_weights,
                        "{coll:?} {a:?} {b:?}"
                    );
                }
            }
        }
    }
}
