//! Collation tests: documented MySQL/MariaDB orderings (the expected classes and
//! weights below were taken from MariaDB 10.11.19), and the sort-key property
//! `memcmp(sort_key(a), sort_key(b)) == compare(a, b)` on random strings.

use std::cmp::Ordering;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

/// `latin1_swedish_ci`, from MariaDB 10.11.19 `GROUP BY s ORDER BY s`.
const LATIN1_SWEDISH_CI: &[&[&str]] = &[
    &["", " "],
    &["-"],
    &["0"],
    &["9"],
    &["a\u{0}"],
    &["a\u{9}"],
    &["a", "A", "a "],
    &["a b"],
    &["a-b"],
    &["aa"],
    &["ab", "ab "],
    &["az"],
    &["aÄ"],
    &["b"],
    &["ð", "d"],
    &["é", "e", "E", "É"],
    &["m"],
    &["ñ", "n"],
    &["o", "õ"],
    &["s"],
    &["ss"],
    &["th"],
    &["ü", "Ü", "y", "Y", "ý"],
    &["z", "Z"],
    &["å", "Å", "["],
    &["ä", "Ä", "æ", "Æ", "\\"],
    &["ö", "Ö", "]"],
    &["_"],
    &["`"],
    &["{"],
    &["~"],
    &["€"],
    &["Š"],
    &["š"],
    &["\u{a0}"],
    &["µ"],
    &["×"],
    &["ø", "Ø"],
    &["þ"],
    &["ß"],
    &["ÿ"],
];

/// `latin1_bin`, from MariaDB 10.11.19 `GROUP BY s ORDER BY s`.
const LATIN1_BIN: &[&[&str]] = &[
    &["", " "],
    &["-"],
    &["0"],
    &["9"],
    &["A"],
    &["E"],
    &["Y"],
    &["Z"],
    &["["],
    &["\\"],
    &["]"],
    &["_"],
    &["`"],
    &["a\u{0}"],
    &["a\u{9}"],
    &["a", "a "],
    &["a b"],
    &["a-b"],
    &["aa"],
    &["ab", "ab "],
    &["az"],
    &["aÄ"],
    &["b"],
    &["d"],
    &["e"],
    &["m"],
    &["n"],
    &["o"],
    &["s"],
    &["ss"],
    &["th"],
    &["y"],
    &["z"],
    &["{"],
    &["~"],
    &["€"],
    &["Š"],
    &["š"],
    &["\u{a0}"],
    &["µ"],
    &["Ä"],
    &["Å"],
    &["Æ"],
    &["É"],
    &["Ö"],
    &["×"],
    &["Ø"],
    &["Ü"],
    &["ß"],
    &["ä"],
    &["å"],
    &["æ"],
    &["é"],
    &["ð"],
    &["ñ"],
    &["õ"],
    &["ö"],
    &["ø"],
    &["ü"],
    &["ý"],
    &["þ"],
    &["ÿ"],
];

/// `utf8mb4_general_ci`, from MariaDB 10.11.19 `GROUP BY s ORDER BY s`.
const UTF8MB4_GENERAL_CI: &[&[&str]] = &[
    &["", " "],
    &["-"],
    &["0"],
    &["2"],
    &["9"],
    &["a\u{0}"],
    &["a\u{9}"],
    &["a", "A", "a ", "ä", "Ä", "å", "Å", "á"],
    &["a b"],
    &["a-b"],
    &["aa", "aÄ"],
    &["ab", "ab "],
    &["az"],
    &["a\u{301}"],
    &["b"],
    &["d"],
    &["dž"],
    &["é", "e", "E", "É"],
    &["fi"],
    &["ı", "İ", "i", "I"],
    &["l"],
    &["m"],
    &["ñ", "n"],
    &["ö", "Ö", "o", "õ"],
    &["oe"],
    &["ß", "s", "Š", "š", "ſ"],
    &["ss"],
    &["th"],
    &["ü", "Ü"],
    &["y", "Y", "ý", "ÿ"],
    &["z", "Z"],
    &["["],
    &["\\"],
    &["]"],
    &["_"],
    &["`"],
    &["{"],
    &["~"],
    &["\u{a0}"],
    &["\u{ad}"],
    &["²"],
    &["½"],
    &["æ", "Æ"],
    &["ð"],
    &["×"],
    &["ø", "Ø"],
    &["þ"],
    &["Ł", "ł"],
    &["œ", "Œ"],
    &["ǅ", "ǆ", "Ǆ"],
    &["α", "ά"],
    &["µ"],
    &["Ω", "ω", "Ω"],
    &["ё", "е"],
    &["я", "Я"],
    &["ẞ"],
    &["€"],
    &["あ"],
    &["ア"],
    &["中"],
    &["日"],
    &["ﬁ"],
    &["Ａ", "ａ"],
    &["😀", "😁", "\u{fffd}"],
];

/// `utf8mb4_bin`, from MariaDB 10.11.19 `GROUP BY s ORDER BY s`.
const UTF8MB4_BIN: &[&[&str]] = &[
    &["", " "],
    &["-"],
    &["0"],
    &["2"],
    &["9"],
    &["A"],
    &["E"],
    &["I"],
    &["Y"],
    &["Z"],
    &["["],
    &["\\"],
    &["]"],
    &["_"],
    &["`"],
    &["a\u{0}"],
    &["a\u{9}"],
    &["a", "a "],
    &["a b"],
    &["a-b"],
    &["aa"],
    &["ab", "ab "],
    &["az"],
    &["aÄ"],
    &["a\u{301}"],
    &["b"],
    &["d"],
    &["dž"],
    &["e"],
    &["fi"],
    &["i"],
    &["l"],
    &["m"],
    &["n"],
    &["o"],
    &["oe"],
    &["s"],
    &["ss"],
    &["th"],
    &["y"],
    &["z"],
    &["{"],
    &["~"],
    &["\u{a0}"],
    &["\u{ad}"],
    &["²"],
    &["µ"],
    &["½"],
    &["Ä"],
    &["Å"],
    &["Æ"],
    &["É"],
    &["Ö"],
    &["×"],
    &["Ø"],
    &["Ü"],
    &["ß"],
    &["á"],
    &["ä"],
    &["å"],
    &["æ"],
    &["é"],
    &["ð"],
    &["ñ"],
    &["õ"],
    &["ö"],
    &["ø"],
    &["ü"],
    &["ý"],
    &["þ"],
    &["ÿ"],
    &["İ"],
    &["ı"],
    &["Ł"],
    &["ł"],
    &["Œ"],
    &["œ"],
    &["Š"],
    &["š"],
    &["ſ"],
    &["Ǆ"],
    &["ǅ"],
    &["ǆ"],
    &["Ω", "Ω"],
    &["ά"],
    &["α"],
    &["ω"],
    &["Я"],
    &["е"],
    &["я"],
    &["ё"],
    &["ẞ"],
    &["€"],
    &["あ"],
    &["ア"],
    &["中"],
    &["日"],
    &["ﬁ"],
    &["Ａ"],
    &["ａ"],
    &["\u{fffd}"],
    &["😀"],
    &["😁"],
];

/// `utf8mb4_unicode_ci`, from MariaDB 10.11.19 `GROUP BY s ORDER BY s`.
const UTF8MB4_UNICODE_CI: &[&[&str]] = &[
    &["", " ", "\u{a0}"],
    &["`"],
    &["_"],
    &["\u{ad}"],
    &["-"],
    &["["],
    &["]"],
    &["{"],
    &["\\"],
    &["×"],
    &["~"],
    &["\u{fffd}"],
    &["€"],
    &["0"],
    &["½"],
    &["²", "2"],
    &["9"],
    &["a\u{9}"],
    &[
        "a", "A", "a ", "a\u{0}", "ä", "Ä", "å", "Å", "Ａ", "ａ", "a\u{301}", "á",
    ],
    &["a b"],
    &["a-b"],
    &["aa", "aÄ"],
    &["ab", "ab "],
    &["az"],
    &["æ", "Æ"],
    &["b"],
    &["d"],
    &["ǅ", "dž", "ǆ", "Ǆ"],
    &["ð"],
    &["é", "e", "E", "É"],
    &["ﬁ", "fi"],
    &["İ", "i", "I"],
    &["ı"],
    &["l"],
    &["Ł", "ł"],
    &["m"],
    &["ñ", "n"],
    &["ö", "Ö", "o", "õ"],
    &["œ", "Œ", "oe"],
    &["ø", "Ø"],
    &["s", "Š", "š", "ſ"],
    &["ß", "ss"],
    &["th"],
    &["ü", "Ü"],
    &["y", "Y", "ý", "ÿ"],
    &["z", "Z"],
    &["þ"],
    &["α", "ά"],
    &["µ"],
    &["Ω", "ω", "Ω"],
    &["ё", "е"],
    &["я", "Я"],
    &["あ", "ア"],
    &["中"],
    &["日"],
    &["ẞ"],
    &["😀", "😁"],
];

/// `binary`, from MariaDB 10.11.19 `GROUP BY s ORDER BY s`.
const BINARY: &[&[&str]] = &[
    &[""],
    &[" "],
    &["-"],
    &["0"],
    &["2"],
    &["9"],
    &["A"],
    &["E"],
    &["I"],
    &["Y"],
    &["Z"],
    &["["],
    &["\\"],
    &["]"],
    &["_"],
    &["`"],
    &["a"],
    &["a\u{0}"],
    &["a\u{9}"],
    &["a "],
    &["a b"],
    &["a-b"],
    &["aa"],
    &["ab"],
    &["ab "],
    &["az"],
    &["aÄ"],
    &["a\u{301}"],
    &["b"],
    &["d"],
    &["dž"],
    &["e"],
    &["fi"],
    &["i"],
    &["l"],
    &["m"],
    &["n"],
    &["o"],
    &["oe"],
    &["s"],
    &["ss"],
    &["th"],
    &["y"],
    &["z"],
    &["{"],
    &["~"],
    &["\u{a0}"],
    &["\u{ad}"],
    &["²"],
    &["µ"],
    &["½"],
    &["Ä"],
    &["Å"],
    &["Æ"],
    &["É"],
    &["Ö"],
    &["×"],
    &["Ø"],
    &["Ü"],
    &["ß"],
    &["á"],
    &["ä"],
    &["å"],
    &["æ"],
    &["é"],
    &["ð"],
    &["ñ"],
    &["õ"],
    &["ö"],
    &["ø"],
    &["ü"],
    &["ý"],
    &["þ"],
    &["ÿ"],
    &["İ"],
    &["ı"],
    &["Ł"],
    &["ł"],
    &["Œ"],
    &["œ"],
    &["Š"],
    &["š"],
    &["ſ"],
    &["Ǆ"],
    &["ǅ"],
    &["ǆ"],
    &["Ω", "Ω"],
    &["ά"],
    &["α"],
    &["ω"],
    &["Я"],
    &["е"],
    &["я"],
    &["ё"],
    &["ẞ"],
    &["€"],
    &["あ"],
    &["ア"],
    &["中"],
    &["日"],
    &["ﬁ"],
    &["Ａ"],
    &["ａ"],
    &["\u{fffd}"],
    &["😀"],
    &["😁"],
];
/// `HEX(WEIGHT_STRING(s COLLATE utf8mb4_general_ci))` from MariaDB 10.11.19.
const GENERAL_CI_WEIGHTS: &[(&str, &str)] = &[
    ("ŵḩ£", "0057004800A3"),
    ("ā", "0041"),
    ("·Ǹl", "00B7004E004C"),
    ("ṹ", "0055"),
    ("ÐȭúṦ", "00D0004F00550053"),
    ("¿ḭ", "00BF0049"),
    ("ṛŨĲ", "005200550132"),
    ("ϘƳĔǁћ", "03D801B3004501C1040B"),
    ("»ǦỹṬϤ", "00BB00470059005403E4"),
    ("ạхφȽ", "0041042503A6023D"),
    ("χỶРẘή", "03A70059042000570397"),
    ("ÖĲṙƒН", "004F013200520191041D"),
    ("ß", "0053"),
    ("ϣЙЮỺầ", "03E20419042E1EFA0041"),
    ("ịÆ½", "004900C600BD"),
    ("иƙİỴ", "0418019800490059"),
    ("😀", "FFFD"),
];

/// `HEX(WEIGHT_STRING(s COLLATE utf8mb4_unicode_ci))` from MariaDB 10.11.19.
const UNICODE_CI_WEIGHTS: &[(&str, &str)] = &[
    ("ŵḩ£", "10510EE10E10"),
    ("ā", "0E33"),
    ("·Ǹl", "02670F640F2E"),
    ("ÐȭúṦ", "0E860F82101F0FEA"),
    ("¿ḭ", "02560EFB"),
    ("ṛŨĲ", "0FC0101F0EFB0F10"),
    ("ϘƳĔǁћ", "10FF10660E8B10CC1215"),
    ("»ǦỹṬϤ", "02870EC1105E1002110E"),
    ("ạхφȽ", "0E33123D1105FBC0823D"),
    ("χỶРẘή", "1106105E11FB105110F1"),
    ("ÖĲṙƒН", "0F820EFB0F100FC00EBD11C6"),
    ("ß", "0FEA0FEA"),
    ("ϣЙЮỺầ", "110D119012A9FBC09EFA0E33"),
    ("ịÆ½", "0EFB0E380E2A02CD0E2B"),
    ("иƙİỴ", "117C0F260EFB105E"),
    ("a\u{0}b", "0E330E4A"),
    ("中", "FB40CE2D"),
    ("😀", "FFFD"),
];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

fn key(c: Collation, s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    c.sort_key(s, &mut out);
    out
}

/// Every pair of strings from the classes compares as the class indexes do, both
/// with `compare` and with `memcmp` of the sort keys.
fn check_classes(c: Collation, classes: &[&[&str]]) {
    let items: Vec<(usize, &str)> = classes
        .iter()
        .enumerate()
        .flat_map(|(i, class)| class.iter().map(move |s| (i, *s)))
        .collect();
    for &(ia, a) in &items {
        for &(ib, b) in &items {
            let want = ia.cmp(&ib);
            assert_eq!(c.compare(a, b), want, "{}: compare({a:?}, {b:?})", c.name());
            assert_eq!(
                key(c, a).cmp(&key(c, b)),
                want,
                "{}: sort keys of {a:?} and {b:?}",
                c.name()
            );
        }
    }
}

#[test]
fn mariadb_orderings() {
    check_classes(Collation::Latin1SwedishCi, LATIN1_SWEDISH_CI);
    check_classes(Collation::Latin1Bin, LATIN1_BIN);
    check_classes(Collation::Utf8mb4GeneralCi, UTF8MB4_GENERAL_CI);
    check_classes(Collation::Utf8mb4Bin, UTF8MB4_BIN);
    check_classes(Collation::Utf8mb4UnicodeCi, UTF8MB4_UNICODE_CI);
    check_classes(Collation::Binary, BINARY);
}

#[test]
fn mariadb_weight_strings() {
    for &(s, want) in GENERAL_CI_WEIGHTS {
        let mut w = Vec::new();
        Collation::Utf8mb4GeneralCi.weights(s, &mut w);
        assert_eq!(hex(&w), want, "general_ci {s:?}");
    }
    for &(s, want) in UNICODE_CI_WEIGHTS {
        let mut w = Vec::new();
        Collation::Utf8mb4UnicodeCi.weights(s, &mut w);
        assert_eq!(hex(&w), want, "unicode_ci {s:?}");
    }
    let mut w = Vec::new();
    Collation::Latin1SwedishCi.weights("aÅÄÖü", &mut w);
    assert_eq!(w, [65, 91, 92, 93, 89]);
}

#[test]
fn documented_rules() {
    use Collation::*;
    let eq = |c: Collation, a: &str, b: &str| c.compare(a, b) == Ordering::Equal;
    for c in [Latin1SwedishCi, Utf8mb4GeneralCi, Utf8mb4UnicodeCi] {
        assert!(eq(c, "a", "A"), "{}", c.name());
        assert!(eq(c, "abc", "ABC "), "{}", c.name());
    }
    for c in Collation::ALL {
        // PAD SPACE: trailing spaces do not count; NO PAD (binary): they do.
        assert_eq!(eq(c, "a", "a "), c != Binary, "{}", c.name());
        assert_eq!(c.is_pad_space(), c != Binary);
        // Characters below the space sort before the end of the string.
        if c.is_pad_space() {
            assert_eq!(c.compare("a\t", "a"), Ordering::Less, "{}", c.name());
        }
    }
    assert_eq!(Binary.compare("a", "a "), Ordering::Less);
    // Accents fold in general_ci and unicode_ci; latin1_swedish_ci puts ä after z.
    assert!(eq(Utf8mb4GeneralCi, "ä", "a"));
    assert!(eq(Utf8mb4UnicodeCi, "ä", "a"));
    assert_eq!(Latin1SwedishCi.compare("ä", "z"), Ordering::Greater);
    assert_eq!(Latin1SwedishCi.compare("å", "ä"), Ordering::Less);
    assert_eq!(Latin1SwedishCi.compare("ä", "ö"), Ordering::Less);
    assert!(eq(Latin1SwedishCi, "ü", "y"));
    assert!(eq(Latin1SwedishCi, "æ", "ä"));
    // ß is one letter s in general_ci and "ss" in unicode_ci.
    assert!(eq(Utf8mb4GeneralCi, "ß", "s"));
    assert!(!eq(Utf8mb4GeneralCi, "ß", "ss"));
    assert!(eq(Utf8mb4UnicodeCi, "ß", "ss"));
    assert!(!eq(Utf8mb4UnicodeCi, "ß", "s"));
    // _bin collations are case-sensitive.
    assert_eq!(Latin1Bin.compare("A", "a"), Ordering::Less);
    assert_eq!(Utf8mb4Bin.compare("A", "a"), Ordering::Less);
    // Outside the BMP, the _ci collations see U+FFFD; utf8mb4_bin sees code points.
    assert!(eq(Utf8mb4GeneralCi, "😀", "😁"));
    assert!(eq(Utf8mb4UnicodeCi, "😀", "😁"));
    assert_eq!(Utf8mb4Bin.compare("😀", "😁"), Ordering::Less);
    assert_eq!(Utf8mb4Bin.compare("\u{FFFF}", "😀"), Ordering::Less);
}

#[test]
fn names_and_aliases() {
    for c in Collation::ALL {
        assert_eq!(Collation::from_name(c.name()), Some(c));
        assert_eq!(Collation::from_name(&c.name().to_uppercase()), Some(c));
    }
    // utf8 is utf8mb3, a character set of its own with utf8mb4's orders.
    assert_eq!(
        Collation::from_name("utf8_general_ci"),
        Some(Collation::Utf8mb3GeneralCi)
    );
    assert_eq!(
        Collation::from_name("UTF8MB3_ESPERANTO_CI"),
        Some(Collation::Utf8mb3EsperantoCi)
    );
    assert_eq!(
        Collation::from_name("utf8_bin"),
        Some(Collation::Utf8mb3Bin)
    );
    assert_eq!(Collation::Utf8mb3Bin.charset(), Charset::Utf8mb3);
    assert_eq!(
        Collation::Utf8mb3SwedishCi.ordering(),
        Collation::Utf8mb4SwedishCi
    );
    assert_eq!(
        Collation::Utf8mb4UnicodeCi.in_charset(Charset::Utf8mb3),
        Collation::Utf8mb3UnicodeCi
    );
    assert_eq!(
        Collation::Utf8mb3UnicodeCi.in_charset(Charset::Utf8mb4),
        Collation::Utf8mb4UnicodeCi
    );
    assert_eq!(
        Collation::Latin1Bin.in_charset(Charset::Utf8mb3),
        Collation::Latin1Bin
    );
    for c in Collation::ALL {
        let o = c.ordering();
        for (a, b) in [("a", "A"), ("ĉ", "d"), ("ü", "y"), ("ä", "z"), ("x ", "x")] {
            assert_eq!(c.compare(a, b), o.compare(a, b), "{} {a} {b}", c.name());
        }
    }
    assert_eq!(Collation::from_name("latin2_czech_cs"), None);
    assert_eq!(Collation::Latin1Bin.charset(), Charset::Latin1);
    assert_eq!(
        Collation::Utf8mb4UnicodeCi.charset().max_bytes_per_char(),
        4
    );
    assert_eq!(Charset::Utf8mb3.max_bytes_per_char(), 3);
    let mut out = Vec::new();
    assert!(Charset::Utf8mb3.encode("\u{FFFF}é", &mut out).is_ok());
    assert!(Charset::Utf8mb3.encode("a😀", &mut out).is_err());
    assert!(!Charset::Utf8mb3.can_hold('😀'));
}

#[test]
fn latin1_round_trip() {
    let all: Vec<u8> = (0..=255u8).collect();
    let s = Charset::Latin1.decode(&all).expect("decode");
    assert_eq!(s.chars().count(), 256);
    assert!(s.starts_with('\0'));
    assert!(s.contains('€'));
    let mut back = Vec::new();
    Charset::Latin1.encode(&s, &mut back).expect("encode");
    assert_eq!(back, all);
    let mut out = Vec::new();
    assert!(matches!(
        Charset::Latin1.encode("Ω", &mut out),
        Err(ValueError::BadValue { .. })
    ));
}

const POOL: &[char] = &[
    'a', 'A', 'b', 'B', 'z', ' ', ' ', ' ', '\t', '\0', '\u{1}', '~', '_', 'ä', 'Ä', 'å', 'ö', 'ß',
    's', 'S', 'é', 'e', 'ÿ', 'y', '€', '\u{a0}', '\u{ad}', 'Ω', 'ω', 'я', '中', '😀', '\u{301}',
    'ﬁ', 'Æ', 'ı', 'Ł', '\u{7f}', '\u{ffff}',
];

fn random_string(rng: &mut StdRng) -> String {
    let len = rng.random_range(0..24);
    (0..len)
        .map(|_| POOL[rng.random_range(0..POOL.len())])
        .collect()
}

#[test]
fn sort_key_matches_compare() {
    let mut rng = StdRng::seed_from_u64(0x5eed_c011);
    for c in Collation::ALL {
        let strings: Vec<String> = (0..300).map(|_| random_string(&mut rng)).collect();
        let keys: Vec<Vec<u8>> = strings.iter().map(|s| key(c, s)).collect();
        for (a, ka) in strings.iter().zip(&keys) {
            let chars = if c == Collation::Binary {
                a.len()
            } else {
                a.chars().count()
            };
            assert!(ka.len() <= c.max_sort_key_len(chars));
            assert_eq!(c.sort_key_len(ka, 0).expect("len"), ka.len());
            for (b, kb) in strings.iter().zip(&keys) {
                assert_eq!(ka.cmp(kb), c.compare(a, b), "{}: {a:?} vs {b:?}", c.name());
                // Self-delimiting: a key is never a proper prefix of another.
                if ka != kb {
                    assert!(!kb.starts_with(ka), "{}: {a:?} prefix of {b:?}", c.name());
                }
            }
            if c.is_sort_key_reversible() {
                let mut flipped: Vec<u8> = ka.iter().map(|b| !b).collect();
                flipped.extend_from_slice(b"tail");
                let (back, used) = c.decode_sort_key(&flipped, 0xFF).expect("decode");
                assert_eq!(used, ka.len());
                let want = if c.is_pad_space() {
                    c.charset()
                        .decode(&{
                            let mut v = Vec::new();
                            c.weights(a, &mut v);
                            v
                        })
                        .expect("decode")
                        .trim_end_matches(' ')
                        .to_string()
                } else {
                    a.clone()
                };
                assert_eq!(back, want, "{}", c.name());
            }
        }
    }
}

#[test]
fn binary_sort_key_boundaries() {
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![0],
        vec![0, 0],
        vec![1],
        vec![0; 7],
        vec![0; 8],
        vec![0; 9],
        vec![0xFF; 8],
        vec![0xFF; 16],
        vec![0xFF; 17],
        b"abcdefgh".to_vec(),
        b"abcdefgh\0".to_vec(),
        b"abcdefghi".to_vec(),
    ];
    for a in &cases {
        let mut ka = Vec::new();
        binary_sort_key(a, &mut ka);
        assert_eq!(ka.len(), sort_key_len_for_weights(a.len()));
        let (back, used) = decode_binary_sort_key(&ka, 0).expect("decode");
        assert_eq!((&back, used), (a, ka.len()));
        for b in &cases {
            let mut kb = Vec::new();
            binary_sort_key(b, &mut kb);
            assert_eq!(ka.cmp(&kb), a.cmp(b), "{a:?} vs {b:?}");
        }
    }
    assert!(decode_binary_sort_key(&[0; 8], 0).is_err());
    assert!(decode_binary_sort_key(&[0, 0, 0, 0, 0, 0, 0, 0, 10], 0).is_err());
}

#[test]
fn latin1_unrepresentable_compares_as_question_mark() {
    assert_eq!(
        Collation::Latin1SwedishCi.compare("Ω", "?"),
        Ordering::Equal
    );
}

#[test]
fn per_character_compare_agrees_with_weight_strings() {
    use rand::{Rng, SeedableRng};
    let alphabet: Vec<char> = "aAbB zZ\u{e9}\u{c9}\u{e4}\u{df}s1\t\u{1F600}\u{0}-_"
        .chars()
        .collect();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let all = [
        Collation::Binary,
        Collation::Utf8mb4Bin,
        Collation::Latin1Bin,
        Collation::Latin1SwedishCi,
        Collation::Utf8mb4GeneralCi,
        Collation::Utf8mb4UnicodeCi,
    ];
    for _ in 0..20_000 {
        let mut gen = || -> String {
            let n = rng.random_range(0..6);
            (0..n)
                .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                .collect()
        };
        let (a, b) = (gen(), gen());
        for c in all {
            assert_eq!(
                c.compare(&a, &b),
                c.compare_by_weight_strings(&a, &b),
                "{c:?} {a:?} {b:?}"
            );
        }
    }
}

#[test]
fn general_ci_ascii_shortcut_agrees_with_the_table() {
    for b in 0u8..128 {
        let c = char::from(b);
        assert_eq!(
            super::general_ci_weight(c),
            super::general_ci_weight_from_table(c),
            "character {b:#04x}"
        );
    }
}
