//! Random column types and values for the record tests (test-only).
//!
//! Values are canonical (as `normalize_value` returns them: CHAR without trailing
//! spaces, BINARY padded), biased towards boundaries and ties.

use rand::rngs::StdRng;
use rand::Rng;

use crate::record::collation::Collation;
use crate::record::value::{
    ColumnType, Date, DateTime, Decimal, LobKind, Timestamp, Value, TIMESTAMP_MAX_SECS,
    TIME_MAX_MICROS,
};

/// A spread of column types covering every variant.
pub fn column_types() -> Vec<ColumnType> {
    let mut v = Vec::new();
    for bytes in [1, 2, 3, 4, 8] {
        for unsigned in [false, true] {
            v.push(ColumnType::Int { bytes, unsigned });
        }
    }
    for (precision, scale) in [
        (1, 0),
        (5, 5),
        (9, 0),
        (10, 2),
        (18, 9),
        (20, 10),
        (65, 30),
        (65, 0),
    ] {
        v.push(ColumnType::Decimal { precision, scale });
    }
    v.push(ColumnType::Float);
    v.push(ColumnType::Double);
    for collation in Collation::ALL {
        v.push(ColumnType::Char { len: 10, collation });
        v.push(ColumnType::Varchar {
            max_len: 20,
            collation,
        });
    }
    v.push(ColumnType::Text {
        kind: LobKind::Tiny,
        collation: Collation::Utf8mb4UnicodeCi,
    });
    v.push(ColumnType::Text {
        kind: LobKind::Text,
        collation: Collation::Latin1SwedishCi,
    });
    v.push(ColumnType::Binary { len: 6 });
    v.push(ColumnType::Varbinary { max_len: 20 });
    v.push(ColumnType::Blob {
        kind: LobKind::Tiny,
    });
    v.push(ColumnType::Date);
    for fsp in [0, 1, 3, 6] {
        v.push(ColumnType::Time { fsp });
        v.push(ColumnType::Datetime { fsp });
        v.push(ColumnType::Timestamp { fsp });
    }
    v.push(ColumnType::Year);
    v.push(ColumnType::Enum {
        values: names(3),
        collation: Collation::Utf8mb4GeneralCi,
    });
    v.push(ColumnType::Enum {
        values: names(300),
        collation: Collation::Utf8mb4GeneralCi,
    });
    v.push(ColumnType::Set {
        values: names(5),
        collation: Collation::Utf8mb4GeneralCi,
    });
    v.push(ColumnType::Set {
        values: names(64),
        collation: Collation::Utf8mb4GeneralCi,
    });
    for bits in [1, 13, 64] {
        v.push(ColumnType::Bit { bits });
    }
    v.push(ColumnType::Uuid);
    v
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("m{i}")).collect()
}

const TEXT_POOL: &[char] = &[
    'a', 'A', 'b', 'B', 'z', 'Z', ' ', ' ', '\t', '\0', 'ä', 'Ä', 'å', 'ö', 'ß', 's', 'é', 'e',
    'ÿ', 'y', '€', '\u{a0}', '~', '_', 'Ω', 'я', '中', '😀', '\u{301}', 'ﬁ',
];

/// A random value of `ty` (NULL with probability `null_pct`%).
pub fn random_value(rng: &mut StdRng, ty: &ColumnType, null_pct: u32) -> Value {
    if rng.random_range(0..100) < null_pct {
        return Value::Null;
    }
    let pick = rng.random_range(0..10);
    match ty {
        ColumnType::Int { bytes, unsigned } => {
            let bits = u32::from(*bytes) * 8;
            if *unsigned {
                let max = if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                Value::UInt(match pick {
                    0 => 0,
                    1 => max,
                    2 => rng.random_range(0..4),
                    _ => rng.random_range(0..=max),
                })
            } else {
                let max = (1i128 << (bits - 1)) - 1;
                let min = -(1i128 << (bits - 1));
                let n = match pick {
                    0 => min,
                    1 => max,
                    2 => rng.random_range(-2..=2),
                    _ => rng.random_range(min..=max),
                };
                Value::Int(n as i64)
            }
        }
        ColumnType::Decimal { precision, scale } => {
            let intg = usize::from(precision - scale);
            let (ni, nf) = match pick {
                0 => (0, 0),
                1 => (intg, usize::from(*scale)),
                _ => (
                    rng.random_range(0..=intg),
                    rng.random_range(0..=usize::from(*scale)),
                ),
            };
            let mut digits: Vec<u8> = (0..ni + usize::from(*scale))
                .map(|i| {
                    let in_range = i < ni || i - ni < nf;
                    match (pick, in_range) {
                        (_, false) => 0,
                        (1, true) => 9,
                        (2, true) => rng.random_range(0..2),
                        _ => rng.random_range(0..10),
                    }
                })
                .collect();
            if digits.is_empty() {
                digits.push(0);
            }
            let neg = rng.random_bool(0.5);
            Value::Decimal(
                Decimal::from_parts(neg, &digits, *scale).unwrap_or_else(|_| Decimal::zero()),
            )
        }
        ColumnType::Float => Value::Float(loop {
            let f = match pick {
                0 => 0.0,
                1 => -0.0,
                2 => f32::from(rng.random_range(-3i8..=3)),
                3 => f32::MAX,
                4 => f32::MIN_POSITIVE,
                _ => f32::from_bits(rng.random()),
            };
            if f.is_finite() {
                break f;
            }
        }),
        ColumnType::Double => Value::Double(loop {
            let f = match pick {
                0 => 0.0,
                1 => -0.0,
                2 => f64::from(rng.random_range(-3i8..=3)),
                3 => f64::MIN,
                4 => -f64::MIN_POSITIVE,
                _ => f64::from_bits(rng.random()),
            };
            if f.is_finite() {
                break f;
            }
        }),
        _ if ty.is_binary_string() => {
            let max = ty.max_chars().unwrap_or(0).min(20) as usize;
            let len = rng.random_range(0..=max);
            let alphabet: &[u8] = if pick < 5 { &[0, 1, b'a', 0xFF] } else { &[] };
            let mut b: Vec<u8> = (0..len)
                .map(|_| {
                    if alphabet.is_empty() {
                        rng.random()
                    } else {
                        alphabet[rng.random_range(0..alphabet.len())]
                    }
                })
                .collect();
            if let Some(w) = ty.fixed_len() {
                b.resize(w, 0);
            }
            Value::Bytes(b)
        }
        ColumnType::Char { collation, .. }
        | ColumnType::Varchar { collation, .. }
        | ColumnType::Text { collation, .. } => {
            let max = ty.max_chars().unwrap_or(0).min(24) as usize;
            let charset = collation.charset();
            let len = rng.random_range(0..=max);
            let mut s = String::new();
            while s.chars().count() < len {
                let c = TEXT_POOL[rng.random_range(0..TEXT_POOL.len())];
                if charset.can_hold(c) {
                    s.push(c);
                }
            }
            if matches!(ty, ColumnType::Char { .. }) {
                s = s.trim_end_matches(' ').to_string();
            }
            // TEXT limits are bytes.
            if let ColumnType::Text { kind, .. } = ty {
                while s.len() as u64 > kind.max_bytes() {
                    s.pop();
                }
            }
            Value::Str(s)
        }
        ColumnType::Date => Value::Date(random_date(rng, pick)),
        ColumnType::Time { fsp } => {
            let unit = 10i64.pow(6 - u32::from(*fsp));
            let us = match pick {
                0 => TIME_MAX_MICROS,
                1 => -TIME_MAX_MICROS,
                2 => rng.random_range(-2..=2) * unit,
                _ => rng.random_range(-TIME_MAX_MICROS..=TIME_MAX_MICROS),
            };
            Value::Time(us / unit * unit)
        }
        ColumnType::Datetime { fsp } => {
            let unit = 10u32.pow(6 - u32::from(*fsp));
            let micros = rng.random_range(0..1_000_000) / unit * unit;
            Value::Datetime(DateTime {
                date: random_date(rng, pick),
                hour: if pick == 1 {
                    23
                } else {
                    rng.random_range(0..24)
                },
                minute: rng.random_range(0..60),
                second: if pick == 2 {
                    0
                } else {
                    rng.random_range(0..60)
                },
                micros: if pick < 3 { 0 } else { micros },
            })
        }
        ColumnType::Timestamp { fsp } => {
            let unit = 10u32.pow(6 - u32::from(*fsp));
            let secs = match pick {
                0 => 0,
                1 => TIMESTAMP_MAX_SECS,
                2 => 1,
                _ => rng.random_range(1..=TIMESTAMP_MAX_SECS),
            };
            let micros = if secs == 0 {
                0
            } else {
                rng.random_range(0..1_000_000) / unit * unit
            };
            Value::Timestamp(Timestamp { secs, micros })
        }
        ColumnType::Year => Value::Year(match pick {
            0 => 0,
            1 => 1901,
            2 => 2155,
            _ => rng.random_range(1901..=2155),
        }),
        ColumnType::Enum { values, .. } => Value::Enum(rng.random_range(0..=values.len() as u16)),
        ColumnType::Set { values, .. } => {
            let n = values.len() as u32;
            let bits: u64 = rng.random();
            Value::Set(if n >= 64 {
                bits
            } else {
                bits & ((1u64 << n) - 1)
            })
        }
        ColumnType::Bit { bits } => {
            let b: u64 = match pick {
                0 => 0,
                1 => u64::MAX,
                _ => rng.random(),
            };
            Value::Bit(if *bits >= 64 {
                b
            } else {
                b & ((1u64 << bits) - 1)
            })
        }
        ColumnType::Uuid => Value::Bytes(match pick {
            0 => vec![0; 16],
            1 => vec![0xFF; 16],
            _ => (0..16).map(|_| rng.random()).collect(),
        }),
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            Value::Null
        }
    }
}

fn random_date(rng: &mut StdRng, pick: u32) -> Date {
    match pick {
        0 => Date::default(),
        1 => Date {
            year: 9999,
            month: 12,
            day: 31,
        },
        2 => Date {
            year: 1000,
            month: 1,
            day: 1,
        },
        _ => Date {
            year: rng.random_range(1000..=9999),
            month: rng.random_range(1..=12),
            day: rng.random_range(1..=28),
        },
    }
}
