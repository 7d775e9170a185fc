//! Tests of column types, values and their row encoding (round trips,
//! memcomparability, MySQL's range, length and temporal rules, type sizes).

use std::cmp::Ordering;

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::*;
use crate::record::key::testgen::{column_types, random_value};

fn enc(ty: &ColumnType, v: &Value) -> Result<Vec<u8>, ValueError> {
    let mut out = Vec::new();
    encode_value(ty, v, &mut out)?;
    Ok(out)
}

fn dec(s: &str) -> Value {
    Value::Decimal(Decimal::parse(s).expect("decimal"))
}

#[test]
fn round_trip_random_values() {
    let mut rng = StdRng::seed_from_u64(0x7a1e);
    for ty in column_types() {
        ty.validate().expect("valid type");
        for _ in 0..400 {
            let v = random_value(&mut rng, &ty, 0);
            let bytes = enc(&ty, &v).unwrap_or_else(|e| panic!("{ty}: {v:?}: {e}"));
            if let Some(w) = ty.fixed_len() {
                assert_eq!(bytes.len(), w, "{ty}");
            }
            assert!(bytes.len() <= ty.max_storage_bytes(), "{ty}");
            let back = decode_value(&ty, &bytes).expect("decode");
            match (&v, &back) {
                // Exact bits, including -0.0.
                (Value::Float(a), Value::Float(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                (Value::Double(a), Value::Double(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                _ => assert_eq!(back, v, "{ty}"),
            }
        }
    }
}

/// Fixed-width encodings other than floats are memcomparable.
#[test]
fn fixed_width_encodings_are_memcomparable() {
    let mut rng = StdRng::seed_from_u64(0xc0ffee);
    for ty in column_types() {
        if ty.fixed_len().is_none() || matches!(ty, ColumnType::Float | ColumnType::Double) {
            continue;
        }
        let vals: Vec<Value> = (0..120).map(|_| random_value(&mut rng, &ty, 0)).collect();
        for a in &vals {
            for b in &vals {
                let want = compare_values(&ty, a, b).expect("compare");
                let got = enc(&ty, a).expect("a").cmp(&enc(&ty, b).expect("b"));
                assert_eq!(got, want, "{ty}: {a:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn integer_bounds() {
    for (bytes, lo, hi) in [
        (1u8, -128i128, 127i128),
        (2, -32768, 32767),
        (3, -8388608, 8388607),
        (4, -2147483648, 2147483647),
        (8, i128::from(i64::MIN), i128::from(i64::MAX)),
    ] {
        let ty = ColumnType::Int {
            bytes,
            unsigned: false,
        };
        for n in [lo, hi, 0, -1] {
            let v = Value::Int(n as i64);
            assert_eq!(decode_value(&ty, &enc(&ty, &v).expect("in range")), Ok(v));
        }
        if bytes < 8 {
            for n in [lo - 1, hi + 1] {
                let e = enc(&ty, &Value::Int(n as i64)).expect_err("out of range");
                assert_eq!(e.mysql_errno(), Some(1264));
            }
        }
        let uty = ColumnType::Int {
            bytes,
            unsigned: true,
        };
        let umax = if bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (bytes * 8)) - 1
        };
        assert_eq!(
            decode_value(&uty, &enc(&uty, &Value::UInt(umax)).expect("max")),
            Ok(Value::UInt(umax))
        );
        assert!(enc(&uty, &Value::Int(-1)).is_err());
        if bytes < 8 {
            assert!(enc(&uty, &Value::UInt(umax + 1)).is_err());
        }
    }
    // Signed values are accepted by unsigned columns when they fit, and back.
    let u8ty = ColumnType::Int {
        bytes: 1,
        unsigned: true,
    };
    assert_eq!(enc(&u8ty, &Value::Int(255)), Ok(vec![255]));
}

#[test]
fn decimals() {
    let ty = ColumnType::Decimal {
        precision: 10,
        scale: 2,
    };
    // 0 and -0 are the same value and the same bytes.
    assert_eq!(Decimal::parse("-0.00"), Decimal::parse("0"));
    assert!(!Decimal::parse("-0.00").expect("d").is_negative());
    assert_eq!(enc(&ty, &dec("-0")), enc(&ty, &dec("0.000")));
    assert_eq!(dec("1.5"), dec("1.50"));
    assert_eq!(Decimal::parse("-12.340").expect("d").to_string(), "-12.340");
    assert_eq!(Decimal::parse(".5").expect("d").to_string(), "0.5");
    assert!(Decimal::parse("1e5").is_err());
    assert!(Decimal::parse("-").is_err());
    assert!(Decimal::parse("1.2.3").is_err());
    // Rounding half away from zero to the column scale.
    let back = |v: &Value| decode_value(&ty, &enc(&ty, v).expect("enc")).expect("dec");
    assert_eq!(back(&dec("1.005")), dec("1.01"));
    assert_eq!(back(&dec("-1.005")), dec("-1.01"));
    assert_eq!(back(&dec("1.0049")), dec("1.00"));
    assert_eq!(back(&dec("99999999.994")), dec("99999999.99"));
    assert_eq!(
        enc(&ty, &dec("99999999.995")).map_err(|e| e.mysql_errno()),
        Err(Some(1264))
    );
    assert!(enc(&ty, &dec("123456789")).is_err());
    // The extremes of DECIMAL(65,30).
    let big = ColumnType::Decimal {
        precision: 65,
        scale: 30,
    };
    let max = format!("{}.{}", "9".repeat(35), "9".repeat(30));
    let min = format!("-{max}");
    let tiny = format!("0.{}1", "0".repeat(29));
    for s in [&max, &min, &tiny] {
        let b = enc(&big, &dec(s)).expect("fits");
        assert_eq!(b.len(), 30);
        let Ok(Value::Decimal(d)) = decode_value(&big, &b) else {
            panic!("decode {s}");
        };
        assert_eq!(d.to_string(), *s);
    }
    assert!(enc(&big, &dec(&format!("1{max}"))).is_err());
    assert!(enc(&big, &dec(&min)).expect("min") < enc(&big, &dec("0")).expect("0"));
    assert_eq!(decimal_bin_size(65, 30), 30);
    assert_eq!(decimal_bin_size(10, 2), 5);
    assert_eq!(decimal_bin_size(18, 9), 8);
    // MySQL's documented example: DECIMAL(14,4) 1234567890.1234 is
    // 81 0D FB 38 D2 04 D2.
    let ex = ColumnType::Decimal {
        precision: 14,
        scale: 4,
    };
    assert_eq!(
        enc(&ex, &dec("1234567890.1234")),
        Ok(vec![0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2])
    );
    assert_eq!(
        enc(&ex, &dec("-1234567890.1234")),
        Ok(vec![0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D])
    );
    // Corrupt groups are rejected.
    assert!(decode_value(&ty, &[0xFF; 5]).is_err());
}

#[test]
fn floats() {
    let f = ColumnType::Float;
    let back = decode_value(&f, &enc(&f, &Value::Float(-0.0)).expect("enc")).expect("dec");
    assert!(matches!(back, Value::Float(x) if x.to_bits() == (-0.0f32).to_bits()));
    assert!(enc(&f, &Value::Float(f32::NAN)).is_err());
    assert!(enc(&ColumnType::Double, &Value::Double(f64::INFINITY)).is_err());
    // A DOUBLE too large for FLOAT is out of range.
    assert!(enc(&f, &Value::Double(1e300)).is_err());
    assert_eq!(
        compare_values(&f, &Value::Float(-0.0), &Value::Float(0.0)),
        Ok(Ordering::Equal)
    );
}

#[test]
fn strings() {
    let char3 = ColumnType::Char {
        len: 3,
        collation: Collation::Utf8mb4GeneralCi,
    };
    // CHAR drops trailing spaces; excess spaces are cut silently.
    assert_eq!(
        enc(&char3, &Value::Str("ab    ".into())),
        Ok(b"ab".to_vec())
    );
    let e = enc(&char3, &Value::Str("abcd".into())).expect_err("too long");
    assert_eq!(e.mysql_errno(), Some(1406));
    let vc = ColumnType::Varchar {
        max_len: 3,
        collation: Collation::Utf8mb4Bin,
    };
    assert_eq!(enc(&vc, &Value::Str("ab ".into())), Ok(b"ab ".to_vec()));
    assert_eq!(
        enc(&vc, &Value::Str("äbc  ".into())),
        Ok("äbc".as_bytes().to_vec())
    );
    assert!(enc(&vc, &Value::Str("abc d".into())).is_err());
    // latin1 stores one byte per character and rejects what it cannot hold.
    let l1 = ColumnType::Varchar {
        max_len: 5,
        collation: Collation::Latin1SwedishCi,
    };
    assert_eq!(enc(&l1, &Value::Str("Ä€".into())), Ok(vec![0xC4, 0x80]));
    assert_eq!(
        enc(&l1, &Value::Str("Ω".into())).map_err(|e| e.mysql_errno()),
        Err(Some(1366))
    );
    // TINYTEXT's limit is 255 bytes: 128 two-byte characters do not fit.
    let tt = ColumnType::Text {
        kind: LobKind::Tiny,
        collation: Collation::Utf8mb4GeneralCi,
    };
    assert!(enc(&tt, &Value::Str("é".repeat(127))).is_ok());
    assert!(enc(&tt, &Value::Str("é".repeat(128))).is_err());
    assert_eq!(
        enc(&tt, &Value::Str(format!("{}   ", "a".repeat(254)))).map(|b| b.len()),
        Ok(255)
    );
    // BINARY pads with 0x00; VARBINARY keeps bytes as given.
    let bin = ColumnType::Binary { len: 4 };
    assert_eq!(
        enc(&bin, &Value::Bytes(b"a".to_vec())),
        Ok(b"a\0\0\0".to_vec())
    );
    assert!(enc(&bin, &Value::Bytes(b"abcde".to_vec())).is_err());
    let vb = ColumnType::Varbinary { max_len: 4 };
    assert_eq!(enc(&vb, &Value::Bytes(b"a ".to_vec())), Ok(b"a ".to_vec()));
    assert_eq!(
        compare_values(
            &vb,
            &Value::Bytes(b"a".to_vec()),
            &Value::Bytes(b"a ".to_vec())
        ),
        Ok(Ordering::Less)
    );
    let vcs = ColumnType::Varchar {
        max_len: 4,
        collation: Collation::Latin1SwedishCi,
    };
    assert_eq!(
        compare_values(&vcs, &Value::Str("a".into()), &Value::Str("A ".into())),
        Ok(Ordering::Equal)
    );
    // Wrong kinds are caller bugs.
    assert!(matches!(
        enc(&vc, &Value::Int(1)),
        Err(ValueError::TypeMismatch { .. })
    ));
    assert!(enc(&vc, &Value::Null).is_err());
}

#[test]
fn temporal() {
    let date = |year, month, day| Value::Date(Date { year, month, day });
    let d = ColumnType::Date;
    assert!(enc(&d, &date(0, 0, 0)).expect("zero") < enc(&d, &date(1000, 1, 1)).expect("min"));
    assert!(enc(&d, &date(2024, 2, 29)).is_ok());
    assert_eq!(
        enc(&d, &date(2023, 2, 29)).map_err(|e| e.mysql_errno()),
        Err(Some(1292))
    );
    assert!(enc(&d, &date(2023, 13, 1)).is_err());
    assert!(enc(&d, &date(2023, 0, 0)).is_ok());
    let t = ColumnType::Time { fsp: 0 };
    let neg = enc(&t, &Value::Time(-1_000_000)).expect("neg");
    let zero = enc(&t, &Value::Time(0)).expect("zero");
    assert!(neg < zero);
    // TIME(0) holds whole seconds up to 838:59:59; TIME(6) its fraction too.
    let whole_max = TIME_MAX_MICROS - 999_999;
    assert!(enc(&t, &Value::Time(-whole_max)).expect("min") < neg);
    let t6 = ColumnType::Time { fsp: 6 };
    assert!(
        enc(&t6, &Value::Time(TIME_MAX_MICROS)).expect("max")
            > enc(&t6, &Value::Time(whole_max)).expect("whole")
    );
    assert!(enc(&t6, &Value::Time(TIME_MAX_MICROS + 1)).is_err());
    assert!(enc(&t, &Value::Time(TIME_MAX_MICROS + 1_000_000)).is_err());
    // Fractions beyond the column precision are not silently dropped.
    assert!(enc(&t, &Value::Time(500_000)).is_err());
    assert_eq!(format_time(-TIME_MAX_MICROS), "-838:59:59.999999");
    let dt = ColumnType::Datetime { fsp: 6 };
    let v = Value::Datetime(DateTime {
        date: Date {
            year: 9999,
            month: 12,
            day: 31,
        },
        hour: 23,
        minute: 59,
        second: 59,
        micros: 999_999,
    });
    assert_eq!(decode_value(&dt, &enc(&dt, &v).expect("max")), Ok(v));
    let ts = ColumnType::Timestamp { fsp: 0 };
    let tsv = |secs| Value::Timestamp(Timestamp { secs, micros: 0 });
    assert!(enc(&ts, &tsv(TIMESTAMP_MAX_SECS)).is_ok());
    assert!(enc(&ts, &tsv(TIMESTAMP_MAX_SECS + 1)).is_err());
    assert!(enc(&ts, &Value::Timestamp(Timestamp { secs: 0, micros: 1 })).is_err());
    let y = ColumnType::Year;
    assert_eq!(enc(&y, &Value::Year(0)), Ok(vec![0]));
    assert_eq!(enc(&y, &Value::Year(2155)), Ok(vec![255]));
    assert!(enc(&y, &Value::Year(1900)).is_err());
    assert!(decode_value(&ColumnType::Date, &[0, 0]).is_err());
}

#[test]
fn enum_set_bit() {
    let e = ColumnType::Enum {
        values: vec!["a".into(), "b".into()],
        collation: Collation::Utf8mb4GeneralCi,
    };
    assert_eq!(enc(&e, &Value::Enum(2)), Ok(vec![2]));
    assert!(enc(&e, &Value::Enum(3)).is_err());
    let s = ColumnType::Set {
        values: (0..9).map(|i| i.to_string()).collect(),
        collation: Collation::Utf8mb4GeneralCi,
    };
    assert_eq!(s.fixed_len(), Some(2));
    assert!(enc(&s, &Value::Set(1 << 9)).is_err());
    let b = ColumnType::Bit { bits: 10 };
    assert_eq!(enc(&b, &Value::Bit(0x3FF)), Ok(vec![3, 0xFF]));
    assert!(enc(&b, &Value::Bit(0x400)).is_err());
    let five = ColumnType::Set {
        values: (0..40).map(|i| i.to_string()).collect(),
        collation: Collation::Utf8mb4GeneralCi,
    };
    assert_eq!(five.fixed_len(), Some(8));
}

#[test]
fn type_validation_and_sizes() {
    let bad = [
        ColumnType::Int {
            bytes: 5,
            unsigned: false,
        },
        ColumnType::Decimal {
            precision: 66,
            scale: 0,
        },
        ColumnType::Decimal {
            precision: 5,
            scale: 6,
        },
        ColumnType::Char {
            len: 256,
            collation: Collation::Latin1Bin,
        },
        ColumnType::Varchar {
            max_len: 16384,
            collation: Collation::Utf8mb4Bin,
        },
        ColumnType::Time { fsp: 7 },
        ColumnType::Enum {
            values: vec![],
            collation: Collation::Utf8mb4GeneralCi,
        },
        ColumnType::Bit { bits: 65 },
    ];
    for ty in bad {
        assert!(ty.validate().is_err(), "{ty}");
    }
    let vc = ColumnType::Varchar {
        max_len: 16383,
        collation: Collation::Utf8mb4Bin,
    };
    assert!(vc.validate().is_ok());
    assert_eq!(vc.max_storage_bytes(), 65532);
    assert_eq!(
        ColumnType::Text {
            kind: LobKind::Long,
            collation: Collation::Utf8mb4GeneralCi
        }
        .max_storage_bytes(),
        0xFFFF_FFFF
    );
    assert_eq!(ColumnType::Datetime { fsp: 3 }.fixed_len(), Some(7));
    assert_eq!(ColumnType::Timestamp { fsp: 6 }.fixed_len(), Some(7));
    assert_eq!(ColumnType::Time { fsp: 1 }.fixed_len(), Some(4));
    assert_eq!(
        ColumnType::Char {
            len: 4,
            collation: Collation::Binary
        }
        .to_string(),
        "BINARY(4)"
    );
    assert_eq!(
        ColumnType::Int {
            bytes: 8,
            unsigned: true
        }
        .to_string(),
        "BIGINT UNSIGNED"
    );
}
