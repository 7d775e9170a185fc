//! Text forms and storage rules, with expected results taken from MariaDB
//! 10.11 (the same statements run against a MariaDB server).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Date, DateTime, Decimal, LobKind, Timestamp, Value};

use super::temporal::{date_format, parse_datetime, parse_time};
use super::*;
use crate::error::{SqlError, Warning};

fn text(v: Value, ty: ColumnType) -> String {
    String::from_utf8_lossy(&to_text(&v, &ty).unwrap_or_default()).into_owned()
}

fn dec(s: &str) -> Decimal {
    Decimal::parse(s).unwrap_or_else(|_| Decimal::zero())
}

fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> DateTime {
    DateTime {
        date: Date {
            year: y,
            month: mo,
            day: d,
        },
        hour: h,
        minute: mi,
        second: s,
        micros: us,
    }
}

#[test]
fn text_protocol_forms() {
    let members = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    let cases: Vec<(Value, ColumnType, &str)> = vec![
        (
            Value::Int(-5),
            ColumnType::Int {
                bytes: 4,
                unsigned: false,
            },
            "-5",
        ),
        (
            Value::UInt(u64::MAX),
            ColumnType::Int {
                bytes: 8,
                unsigned: true,
            },
            "18446744073709551615",
        ),
        (
            Value::Decimal(dec("1.5")),
            ColumnType::Decimal {
                precision: 10,
                scale: 3,
            },
            "1.500",
        ),
        (
            Value::Decimal(dec("-0.5")),
            ColumnType::Decimal {
                precision: 10,
                scale: 3,
            },
            "-0.500",
        ),
        (Value::Double(1e20), ColumnType::Double, "1e20"),
        (
            Value::Double(0.1 + 0.2),
            ColumnType::Double,
            "0.30000000000000004",
        ),
        (Value::Float(1.0 / 3.0), ColumnType::Float, "0.333333"),
        (
            Value::Date(Date {
                year: 2024,
                month: 1,
                day: 5,
            }),
            ColumnType::Date,
            "2024-01-05",
        ),
        (
            Value::Datetime(dt(2024, 1, 5, 7, 8, 9, 123_456)),
            ColumnType::Datetime { fsp: 0 },
            "2024-01-05 07:08:09",
        ),
        (
            Value::Datetime(dt(2024, 1, 5, 7, 8, 9, 123_456)),
            ColumnType::Datetime { fsp: 3 },
            "2024-01-05 07:08:09.123",
        ),
        (
            Value::Timestamp(Timestamp {
                secs: 1_700_000_000,
                micros: 0,
            }),
            ColumnType::Timestamp { fsp: 0 },
            "2023-11-14 22:13:20",
        ),
        (
            Value::Timestamp(Timestamp::default()),
            ColumnType::Timestamp { fsp: 0 },
            "0000-00-00 00:00:00",
        ),
        (
            Value::Time(-(838 * 3600 + 59 * 60 + 59) * 1_000_000),
            ColumnType::Time { fsp: 0 },
            "-838:59:59",
        ),
        (
            Value::Time(3_723_500_000),
            ColumnType::Time { fsp: 1 },
            "01:02:03.5",
        ),
        (Value::Year(0), ColumnType::Year, "0000"),
        (Value::Year(2024), ColumnType::Year, "2024"),
        (
            Value::Enum(2),
            ColumnType::Enum {
                values: members.clone(),
                collation: Collation::Utf8mb4GeneralCi,
            },
            "b",
        ),
        (
            Value::Enum(0),
            ColumnType::Enum {
                values: members.clone(),
                collation: Collation::Utf8mb4GeneralCi,
            },
            "",
        ),
        (
            Value::Set(0b101),
            ColumnType::Set {
                values: members,
                collation: Collation::Utf8mb4GeneralCi,
            },
            "a,c",
        ),
        (
            Value::Str("héllo".into()),
            ColumnType::Varchar {
                max_len: 9,
                collation: Collation::Utf8mb4GeneralCi,
            },
            "héllo",
        ),
    ];
    for (v, ty, want) in cases {
        assert_eq!(text(v.clone(), ty.clone()), want, "{v:?} as {ty}");
    }
    assert_eq!(
        to_text(&Value::Bit(0x0102), &ColumnType::Bit { bits: 12 }),
        Some(vec![1, 2])
    );
    assert_eq!(
        to_text(&Value::Bit(5), &ColumnType::Bit { bits: 1 }),
        Some(vec![5])
    );
    assert_eq!(to_text(&Value::Null, &ColumnType::Double), None);
}

fn target(strict: bool) -> StoreTarget<'static> {
    StoreTarget {
        db: "x",
        table: "t",
        column: "c",
        row: 1,
        strict,
    }
}

fn strict_err(v: Value, ty: ColumnType) -> (u16, String) {
    match store(&v, &ty, &target(true), &mut Vec::new()) {
        Err(e) => (e.code(), e.message()),
        Ok(got) => panic!("{v:?} into {ty}: stored {got:?}"),
    }
}

fn lax(v: Value, ty: ColumnType) -> (Value, Vec<u16>) {
    let mut w: Vec<Warning> = Vec::new();
    match store(&v, &ty, &target(false), &mut w) {
        Ok(got) => (got, w.iter().map(|w| w.code).collect()),
        Err(e) => panic!("{v:?} into {ty}: {e}"),
    }
}

fn s(x: &str) -> Value {
    Value::Str(x.into())
}

#[test]
fn strict_mode_errors_match_mariadb() {
    let tiny = ColumnType::Int {
        bytes: 1,
        unsigned: false,
    };
    let varchar3 = ColumnType::Varchar {
        max_len: 3,
        collation: Collation::Utf8mb4GeneralCi,
    };
    let dec52 = ColumnType::Decimal {
        precision: 5,
        scale: 2,
    };
    let e = ColumnType::Enum {
        values: vec!["a".into(), "b".into()],
        collation: Collation::Utf8mb4GeneralCi,
    };
    let cases: Vec<(Value, ColumnType, u16, &str)> = vec![
        (
            Value::Int(300),
            tiny.clone(),
            1264,
            "Out of range value for column 'c' at row 1",
        ),
        (
            s("abc"),
            tiny.clone(),
            1366,
            "Incorrect integer value: 'abc' for column `x`.`t`.`c` at row 1",
        ),
        (
            s("12abc"),
            tiny.clone(),
            1265,
            "Data truncated for column 'c' at row 1",
        ),
        (
            s("2024-13-01"),
            ColumnType::Date,
            1292,
            "Incorrect date value: '2024-13-01' for column `x`.`t`.`c` at row 1",
        ),
        (
            s("2024-01-01 25:00:00"),
            ColumnType::Datetime { fsp: 0 },
            1292,
            "Incorrect datetime value: '2024-01-01 25:00:00' for column `x`.`t`.`c` at row 1",
        ),
        (
            s("abcd"),
            varchar3,
            1406,
            "Data too long for column 'c' at row 1",
        ),
        (s("c"), e, 1265, "Data truncated for column 'c' at row 1"),
        (
            Value::Decimal(dec("1234.5")),
            dec52.clone(),
            1264,
            "Out of range value for column 'c' at row 1",
        ),
        (
            s("x"),
            dec52,
            1366,
            "Incorrect decimal value: 'x' for column `x`.`t`.`c` at row 1",
        ),
        (
            Value::Int(1800),
            ColumnType::Year,
            1264,
            "Out of range value for column 'c' at row 1",
        ),
        (
            s("900:00:00"),
            ColumnType::Time { fsp: 0 },
            1292,
            "Incorrect time value: '900:00:00' for column `x`.`t`.`c` at row 1",
        ),
        (
            Value::Int(-1),
            ColumnType::Int {
                bytes: 4,
                unsigned: true,
            },
            1264,
            "Out of range value for column 'c' at row 1",
        ),
        (
            s("中"),
            ColumnType::Char {
                len: 5,
                collation: Collation::Latin1SwedishCi,
            },
            1366,
            "Incorrect string value: '\\xE4\\xB8\\xAD' for column `x`.`t`.`c` at row 1",
        ),
    ];
    for (v, ty, code, msg) in cases {
        assert_eq!(
            strict_err(v.clone(), ty.clone()),
            (code, msg.to_string()),
            "{v:?} into {ty}"
        );
    }
}

#[test]
fn non_strict_mode_clamps_and_warns_like_mariadb() {
    let tiny = ColumnType::Int {
        bytes: 1,
        unsigned: false,
    };
    let set = ColumnType::Set {
        values: vec!["a".into(), "b".into()],
        collation: Collation::Utf8mb4GeneralCi,
    };
    let cases: Vec<(Value, ColumnType, Value, Vec<u16>)> = vec![
        (Value::Int(300), tiny.clone(), Value::Int(127), vec![1264]),
        (s("abc"), tiny.clone(), Value::Int(0), vec![1366]),
        (s("12abc"), tiny.clone(), Value::Int(12), vec![1265]),
        (Value::Double(12.5), tiny.clone(), Value::Int(12), vec![]),
        (Value::Decimal(dec("12.5")), tiny, Value::Int(13), vec![]),
        (
            s("2024-13-01"),
            ColumnType::Date,
            Value::Date(Date::default()),
            vec![1292],
        ),
        (
            s("abcd"),
            ColumnType::Varchar {
                max_len: 3,
                collation: Collation::Utf8mb4GeneralCi,
            },
            s("abc"),
            vec![1265],
        ),
        (
            s("ab   "),
            ColumnType::Varchar {
                max_len: 3,
                collation: Collation::Utf8mb4GeneralCi,
            },
            s("ab "),
            vec![1265],
        ),
        (s("a,c"), set, Value::Set(1), vec![1265]),
        (
            Value::Decimal(dec("1234.5")),
            ColumnType::Decimal {
                precision: 5,
                scale: 2,
            },
            Value::Decimal(dec("999.99")),
            vec![1264],
        ),
        (
            Value::Decimal(dec("1.005")),
            ColumnType::Decimal {
                precision: 5,
                scale: 2,
            },
            Value::Decimal(dec("1.01")),
            vec![1265],
        ),
        (
            Value::Int(1800),
            ColumnType::Year,
            Value::Year(0),
            vec![1264],
        ),
        (Value::Int(5), ColumnType::Year, Value::Year(2005), vec![]),
        (s("0"), ColumnType::Year, Value::Year(2000), vec![]),
        (
            s("900:00:00"),
            ColumnType::Time { fsp: 0 },
            Value::Time(838 * 3600 * 1_000_000 + 3_599_000_000),
            vec![1264],
        ),
        (
            Value::Int(-1),
            ColumnType::Int {
                bytes: 4,
                unsigned: true,
            },
            Value::UInt(0),
            vec![1264],
        ),
        (
            Value::Int(256),
            ColumnType::Bit { bits: 8 },
            Value::Bit(255),
            vec![1264],
        ),
        (s("1.5e1"), ColumnType::Double, Value::Double(15.0), vec![]),
        (
            Value::Int(20240105),
            ColumnType::Date,
            Value::Date(Date {
                year: 2024,
                month: 1,
                day: 5,
            }),
            vec![],
        ),
        (
            s("2024-01-05 10:11:12.123456"),
            ColumnType::Datetime { fsp: 2 },
            Value::Datetime(dt(2024, 1, 5, 10, 11, 12, 120_000)),
            vec![],
        ),
        (
            s("2024-01-05 10:11:12"),
            ColumnType::Date,
            Value::Date(Date {
                year: 2024,
                month: 1,
                day: 5,
            }),
            vec![1265],
        ),
        (
            Value::Double(1e40),
            ColumnType::Float,
            Value::Float(f32::MAX),
            vec![1264],
        ),
        (
            Value::Int(42),
            ColumnType::Text {
                kind: LobKind::Tiny,
                collation: Collation::Utf8mb4Bin,
            },
            s("42"),
            vec![],
        ),
        (
            s("B"),
            ColumnType::Enum {
                values: vec!["a".into(), "b".into()],
                collation: Collation::Utf8mb4GeneralCi,
            },
            Value::Enum(2),
            vec![],
        ),
        (
            Value::Bytes(vec![0xFF, 0x41]),
            ColumnType::Varchar {
                max_len: 5,
                collation: Collation::Utf8mb4Bin,
            },
            s("?A"),
            vec![1366],
        ),
    ];
    for (v, ty, want, codes) in cases {
        assert_eq!(lax(v.clone(), ty.clone()), (want, codes), "{v:?} into {ty}");
    }
}

#[test]
fn temporal_strings_in_mysql_forms() {
    let p = |x: &str| parse_datetime(x).map(|p| (p.value, p.has_time));
    assert_eq!(p("2024-01-05"), Some((dt(2024, 1, 5, 0, 0, 0, 0), false)));
    assert_eq!(
        p("24/1/5 7.30.1"),
        Some((dt(2024, 1, 5, 7, 30, 1, 0), true))
    );
    assert_eq!(
        p("2024-01-05T07:30:01.5"),
        Some((dt(2024, 1, 5, 7, 30, 1, 500_000), true))
    );
    assert_eq!(
        p("20240105073001"),
        Some((dt(2024, 1, 5, 7, 30, 1, 0), true))
    );
    assert_eq!(p("991231"), Some((dt(1999, 12, 31, 0, 0, 0, 0), false)));
    assert_eq!(p("0000-00-00"), Some((DateTime::default(), false)));
    assert_eq!(p("2024-02-30"), None);
    assert_eq!(p("2023-02-29"), None);
    assert_eq!(p("2024-02-29").map(|x| x.0.date.day), Some(29));
    assert_eq!(p("abc"), None);
    // As MariaDB reads them: no space inside the date, and only a
    // two-digit year is expanded.
    assert_eq!(p("1 02:03:04"), None);
    assert_eq!(p("2001 02 03"), None);
    assert_eq!(p("1-02-03").map(|x| x.0.date.year), Some(1));
    // Compared with a date, any day up to 31 stands in its place.
    assert_eq!(
        crate::value::temporal::parse_datetime_any_day("2024-02-30").map(|x| x.value.date.day),
        Some(30)
    );
    assert_eq!(
        crate::value::temporal::parse_datetime_any_day("2024-02-32"),
        None
    );
    assert_eq!(parse_time("10:11:12"), Some((36_672_000_000, false, false)));
    assert_eq!(
        parse_time("-1 02:00:00.5"),
        Some((-93_600_500_000, false, false))
    );
    assert_eq!(parse_time("101112"), Some((36_672_000_000, false, false)));
    assert_eq!(parse_time("12:5"), Some((43_500_000_000, false, false)));
    assert_eq!(parse_time("10:61:00"), None);
}

#[test]
fn date_format_specifiers() {
    let d = dt(2024, 3, 1, 15, 4, 5, 120);
    let f = |fmt: &str| date_format(&d, fmt).unwrap_or_default();
    assert_eq!(f("%Y-%m-%d %H:%i:%s"), "2024-03-01 15:04:05");
    assert_eq!(
        f("%W %M %D %y %c %e %a %b"),
        "Friday March 1st 24 3 1 Fri Mar"
    );
    assert_eq!(
        f("%h %I %l %k %p %r %T %f %j %w %%"),
        "03 03 3 15 PM 03:04:05 PM 15:04:05 000120 061 5 %"
    );
    // 2024-01-01 is a Monday: MySQL WEEK() modes 0..3.
    let jan1 = dt(2024, 1, 1, 0, 0, 0, 0);
    assert_eq!(
        date_format(&jan1, "%U %u %V %v %X %x").as_deref(),
        Some("00 01 53 01 2023 2024")
    );
    let zero = DateTime::default();
    assert_eq!(
        date_format(&zero, "%Y-%m-%d").as_deref(),
        Some("0000-00-00")
    );
    assert_eq!(date_format(&zero, "%W"), None);
}

#[test]
fn errors_are_sql_errors() {
    let e: SqlError = match store(&s("x"), &ColumnType::Double, &target(true), &mut Vec::new()) {
        Err(e) => e,
        Ok(v) => panic!("stored {v:?}"),
    };
    assert_eq!(e.sqlstate(), "22007");
}
