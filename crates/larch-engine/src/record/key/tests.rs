//! Key-encoding tests: `memcmp` of encoded keys equals the SQL order of the
//! tuples for random values of every type (NULLs, descending parts, prefixes and
//! multi-part keys included), decoding round trips, and boundary values.

use std::cmp::Ordering;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::testgen::{column_types, random_value};
use super::*;
use crate::page::PageSize;
use crate::record::value::{normalize_value, Date, Decimal, LobKind, TIME_MAX_MICROS};

fn key(parts: &[KeyPart], values: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_key(parts, values, &mut out).unwrap_or_else(|e| panic!("{values:?}: {e}"));
    out
}

fn check_order(parts: &[KeyPart], tuples: &[Vec<Value>]) {
    let keys: Vec<Vec<u8>> = tuples.iter().map(|t| key(parts, t)).collect();
    for (a, ka) in tuples.iter().zip(&keys) {
        for (b, kb) in tuples.iter().zip(&keys) {
            let want = compare_key_values(parts, a, b).expect("compare");
            assert_eq!(ka.cmp(kb), want, "{parts:?}\n{a:?}\n{b:?}");
        }
    }
}

/// Checks decoding of one key: exact values for reversible parts, values equal in
/// SQL for decodable ones, and the originals path for everything.
fn check_decode(parts: &[KeyPart], values: &[Value]) {
    let k = key(parts, values);
    assert!(k.len() <= key_len_upper_bound(parts));
    assert_eq!(split_key(parts, &k).expect("split").len(), parts.len());
    let normalized: Vec<Value> = parts
        .iter()
        .zip(values)
        .map(|(p, v)| normalize_value(&p.ty, v).expect("normalize"))
        .collect();
    if parts.iter().all(KeyPart::is_decodable) {
        let back = decode_key(parts, &k).expect("decode");
        for ((p, got), want) in parts.iter().zip(&back).zip(&normalized) {
            if p.is_reversible() {
                assert_eq!(got, want, "{}", p.ty);
            } else {
                assert_eq!(
                    compare_key_values(
                        std::slice::from_ref(p),
                        std::slice::from_ref(got),
                        std::slice::from_ref(want)
                    ),
                    Ok(Ordering::Equal),
                    "{}",
                    p.ty
                );
            }
        }
    } else {
        assert!(matches!(
            decode_key(parts, &k),
            Err(ValueError::Unsupported(_))
        ));
    }
    let (mut k2, mut originals) = (Vec::new(), Vec::new());
    encode_key_with_values(parts, values, &mut k2, &mut originals).expect("encode");
    assert_eq!(k2, k);
    let back = decode_key_with_values(parts, &k2, &originals).expect("decode with values");
    for ((p, got), want) in parts.iter().zip(back).zip(&normalized) {
        if p.prefix_len.is_some() && !want.is_null() {
            assert_eq!(got, None);
        } else {
            assert_eq!(got.as_ref(), Some(want), "{}", p.ty);
        }
    }
}

#[test]
fn single_part_keys_of_every_type() {
    let mut rng = StdRng::seed_from_u64(0x6b65_7931);
    for ty in column_types() {
        for descending in [false, true] {
            let part = KeyPart {
                ty: ty.clone(),
                descending,
                prefix_len: None,
            };
            let parts = [part];
            let tuples: Vec<Vec<Value>> = (0..150)
                .map(|_| vec![random_value(&mut rng, &ty, 10)])
                .collect();
            check_order(&parts, &tuples);
            for t in &tuples {
                check_decode(&parts, t);
            }
        }
    }
}

#[test]
fn multi_part_keys() {
    let mut rng = StdRng::seed_from_u64(0x6d75_6c74);
    let types = column_types();
    for _ in 0..150 {
        let n = rng.random_range(1..=4);
        let parts: Vec<KeyPart> = (0..n)
            .map(|_| {
                let ty = types[rng.random_range(0..types.len())].clone();
                let prefix = ty.max_chars().is_some() && rng.random_bool(0.2);
                KeyPart {
                    ty,
                    descending: rng.random_bool(0.4),
                    prefix_len: prefix.then(|| rng.random_range(0..4)),
                }
            })
            .collect();
        // A small pool of values per part makes ties in leading parts common.
        let pools: Vec<Vec<Value>> = parts
            .iter()
            .map(|p| (0..4).map(|_| random_value(&mut rng, &p.ty, 15)).collect())
            .collect();
        let tuples: Vec<Vec<Value>> = (0..40)
            .map(|_| {
                pools
                    .iter()
                    .map(|pool| pool[rng.random_range(0..pool.len())].clone())
                    .collect()
            })
            .collect();
        check_order(&parts, &tuples);
        for t in &tuples {
            check_decode(&parts, t);
            // Range scans on leading parts: every key with the same leading values
            // lies in [prefix, prefix_end(prefix)).
            let lead = rng.random_range(0..=parts.len());
            let mut prefix = Vec::new();
            encode_key_prefix(&parts, &t[..lead], &mut prefix).expect("prefix");
            let end = prefix_end(&prefix);
            for u in &tuples {
                let same = compare_key_values(&parts[..lead], &t[..lead], &u[..lead])
                    == Ok(Ordering::Equal);
                let k = key(&parts, u);
                let inside = k.as_slice() >= prefix.as_slice()
                    && end.as_ref().is_none_or(|e| k.as_slice() < e.as_slice());
                assert_eq!(inside, same, "{parts:?} {t:?} {u:?} lead {lead}");
                assert_eq!(k.starts_with(&prefix), same);
            }
        }
    }
}

#[test]
fn boundary_values_sort_in_order() {
    let int = |bytes, unsigned| KeyPart::new(ColumnType::Int { bytes, unsigned });
    let sorted = |part: KeyPart, vals: Vec<Value>| {
        let keys: Vec<Vec<u8>> = vals
            .iter()
            .map(|v| key(std::slice::from_ref(&part), std::slice::from_ref(v)))
            .collect();
        for w in keys.windows(2) {
            assert!(w[0] < w[1], "{:?}: {:?}", part.ty, vals);
        }
        let desc = part.desc();
        let dkeys: Vec<Vec<u8>> = vals
            .iter()
            .map(|v| key(std::slice::from_ref(&desc), std::slice::from_ref(v)))
            .collect();
        for w in dkeys.windows(2) {
            assert!(w[0] > w[1]);
        }
    };
    sorted(
        int(8, false),
        vec![
            Value::Null,
            Value::Int(i64::MIN),
            Value::Int(i64::MIN + 1),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(1),
            Value::Int(i64::MAX),
        ],
    );
    sorted(
        int(8, true),
        vec![
            Value::Null,
            Value::UInt(0),
            Value::UInt(1 << 63),
            Value::UInt(u64::MAX),
        ],
    );
    sorted(
        KeyPart::new(ColumnType::Double),
        vec![
            Value::Null,
            Value::Double(f64::MIN),
            Value::Double(-1.0),
            Value::Double(-f64::MIN_POSITIVE),
            Value::Double(0.0),
            Value::Double(5e-324),
            Value::Double(1.0),
            Value::Double(f64::MAX),
        ],
    );
    sorted(
        KeyPart::new(ColumnType::Float),
        vec![
            Value::Float(f32::MIN),
            Value::Float(-0.5),
            Value::Float(0.0),
            Value::Float(f32::MAX),
        ],
    );
    let dec = |s: &str| Value::Decimal(Decimal::parse(s).expect("decimal"));
    let max = format!("{}.{}", "9".repeat(35), "9".repeat(30));
    sorted(
        KeyPart::new(ColumnType::Decimal {
            precision: 65,
            scale: 30,
        }),
        vec![
            Value::Null,
            dec(&format!("-{max}")),
            dec("-1"),
            dec("-0.000000000000000000000000000001"),
            dec("0"),
            dec("0.000000000000000000000000000001"),
            dec("1"),
            dec(&max),
        ],
    );
    sorted(
        KeyPart::new(ColumnType::Date),
        vec![
            Value::Date(Date::default()),
            Value::Date(Date {
                year: 1000,
                month: 1,
                day: 1,
            }),
            Value::Date(Date {
                year: 9999,
                month: 12,
                day: 31,
            }),
        ],
    );
    sorted(
        KeyPart::new(ColumnType::Time { fsp: 6 }),
        vec![
            Value::Time(-TIME_MAX_MICROS),
            Value::Time(-1),
            Value::Time(0),
            Value::Time(1),
            Value::Time(TIME_MAX_MICROS),
        ],
    );
    // -0.0 and 0.0 are the same key; so are decimal -0 and 0.
    let d = [KeyPart::new(ColumnType::Double)];
    assert_eq!(
        key(&d, &[Value::Double(-0.0)]),
        key(&d, &[Value::Double(0.0)])
    );
    let dp = [KeyPart::new(ColumnType::Decimal {
        precision: 10,
        scale: 2,
    })];
    assert_eq!(key(&dp, &[dec("-0.00")]), key(&dp, &[dec("0")]));
    // NaN and infinities are not keys.
    assert!(encode_key(&d, &[Value::Double(f64::NAN)], &mut Vec::new()).is_err());
    assert!(encode_key(&d, &[Value::Double(f64::NEG_INFINITY)], &mut Vec::new()).is_err());
}

#[test]
fn string_keys_follow_collations() {
    let vc = |collation| {
        [KeyPart::new(ColumnType::Varchar {
            max_len: 10,
            collation,
        })]
    };
    let s = |x: &str| vec![Value::Str(x.into())];
    let ci = vc(Collation::Utf8mb4GeneralCi);
    assert_eq!(key(&ci, &s("a")), key(&ci, &s("A ")));
    assert!(key(&ci, &s("a\t")) < key(&ci, &s("a")));
    let sw = vc(Collation::Latin1SwedishCi);
    assert!(key(&sw, &s("zz")) < key(&sw, &s("ä")));
    // VARBINARY: trailing spaces count and 'a' < 'a '.
    let vb = [KeyPart::new(ColumnType::Varbinary { max_len: 10 })];
    let b = |x: &[u8]| vec![Value::Bytes(x.to_vec())];
    assert!(key(&vb, &b(b"a")) < key(&vb, &b(b"a ")));
    assert!(key(&vb, &b(b"a")) < key(&vb, &b(b"a\0")));
    // BINARY(3) pads: 'a' and 'a\0\0' are the same key.
    let bin = [KeyPart::new(ColumnType::Binary { len: 3 })];
    assert_eq!(key(&bin, &b(b"a")), key(&bin, &b(b"a\0\0")));
    // Prefix parts compare the first characters only.
    let pre = [KeyPart::new(ColumnType::Varchar {
        max_len: 10,
        collation: Collation::Utf8mb4UnicodeCi,
    })
    .prefix(2)];
    assert_eq!(key(&pre, &s("abX")), key(&pre, &s("ABy")));
    assert!(!pre[0].is_reversible());
    // _ci keys keep the original through the originals bytes.
    let (mut k, mut orig) = (Vec::new(), Vec::new());
    encode_key_with_values(&ci, &s("ÄbC "), &mut k, &mut orig).expect("encode");
    assert_eq!(
        decode_key_with_values(&ci, &k, &orig),
        Ok(vec![Some(Value::Str("ÄbC ".into()))])
    );
    assert!(decode_key(&ci, &k).is_err());
    // A search key longer than the column still encodes.
    let short = [KeyPart::new(ColumnType::Varchar {
        max_len: 2,
        collation: Collation::Utf8mb4Bin,
    })];
    assert!(encode_key(&short, &s("abcdef"), &mut Vec::new()).is_ok());
}

#[test]
fn reversibility() {
    let p = |ty| KeyPart::new(ty);
    assert!(p(ColumnType::Char {
        len: 3,
        collation: Collation::Latin1Bin
    })
    .is_reversible());
    assert!(!p(ColumnType::Varchar {
        max_len: 3,
        collation: Collation::Utf8mb4Bin
    })
    .is_reversible());
    assert!(p(ColumnType::Varchar {
        max_len: 3,
        collation: Collation::Utf8mb4Bin
    })
    .is_decodable());
    assert!(!p(ColumnType::Char {
        len: 3,
        collation: Collation::Latin1SwedishCi
    })
    .is_decodable());
    assert!(p(ColumnType::Varbinary { max_len: 3 }).is_reversible());
    assert!(p(ColumnType::Double).is_reversible());
}

#[test]
fn key_lengths() {
    let utf8 = |n| {
        KeyPart::new(ColumnType::Varchar {
            max_len: n,
            collation: Collation::Utf8mb4GeneralCi,
        })
    };
    // MySQL: VARCHAR(768) utf8mb4 is 3072 bytes, the limit at 16k pages.
    assert_eq!(mysql_key_len(&[utf8(768)]), PageSize::K16.max_key_bytes());
    assert!(mysql_key_len(&[utf8(769)]) > PageSize::K16.max_key_bytes());
    let text = KeyPart::new(ColumnType::Text {
        kind: LobKind::Text,
        collation: Collation::Latin1SwedishCi,
    })
    .prefix(100);
    assert_eq!(mysql_key_len(std::slice::from_ref(&text)), 100);
    assert_eq!(
        key_len_upper_bound(std::slice::from_ref(&text)),
        1 + collation_len(Collation::Latin1SwedishCi, 100)
    );
    let int = KeyPart::new(ColumnType::Int {
        bytes: 4,
        unsigned: false,
    });
    assert_eq!(key_len_upper_bound(&[int.clone(), int]), 10);
    // Encoded keys never exceed the bound.
    let long = "ß".repeat(768);
    let parts = [KeyPart::new(ColumnType::Varchar {
        max_len: 768,
        collation: Collation::Utf8mb4UnicodeCi,
    })];
    assert!(key(&parts, &[Value::Str(long)]).len() <= key_len_upper_bound(&parts));
}

fn collation_len(c: Collation, chars: usize) -> usize {
    c.max_sort_key_len(chars)
}

#[test]
fn successor_and_prefix_end() {
    assert_eq!(successor(b"ab"), b"ab\0".to_vec());
    assert!(successor(b"ab").as_slice() > b"ab".as_slice());
    assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
    assert_eq!(prefix_end(&[1, 0xFF, 0xFF]), Some(vec![2]));
    assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
    assert_eq!(prefix_end(&[]), None);
}

#[test]
fn corrupt_keys_are_errors() {
    let parts = [KeyPart::new(ColumnType::Int {
        bytes: 4,
        unsigned: false,
    })];
    assert!(decode_key(&parts, &[]).is_err());
    assert!(decode_key(&parts, &[VALUE_MARKER, 0, 0]).is_err());
    assert!(decode_key(&parts, &[7]).is_err());
    assert!(decode_key(&parts, &[NULL_MARKER, 0]).is_err());
    assert_eq!(decode_key(&parts, &[NULL_MARKER]), Ok(vec![Value::Null]));
    assert!(encode_key(&parts, &[], &mut Vec::new()).is_err());
    assert!(encode_key(&parts, &[Value::Str("x".into())], &mut Vec::new()).is_err());
}
