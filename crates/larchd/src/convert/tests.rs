//! Tests of the conversions.

use super::*;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::LobKind;
use larch_sql::result::ResultColumn;
use larch_wire::ColumnFlags;

fn col(ty: EType) -> ResultColumn {
    ResultColumn::computed("c", ty, true)
}

#[test]
fn column_definitions() {
    let d = column_def(&col(EType::Int {
        bytes: 4,
        unsigned: true,
    }));
    assert_eq!(d.column_type, WType::MYSQL_TYPE_LONG);
    assert!(d.flags.contains(ColumnFlags::UNSIGNED_FLAG));
    assert!(!d.flags.contains(ColumnFlags::NOT_NULL_FLAG));
    assert_eq!(d.length, 10);
    let mut c = col(EType::Varchar {
        max_len: 10,
        collation: Collation::Utf8mb4GeneralCi,
    });
    c.nullable = false;
    c.primary_key = true;
    let d = column_def(&c);
    assert_eq!(d.column_type, WType::MYSQL_TYPE_VAR_STRING);
    assert_eq!((d.charset, d.length), (45, 40));
    assert!(d
        .flags
        .contains(ColumnFlags::NOT_NULL_FLAG | ColumnFlags::PRI_KEY_FLAG));
    let d = column_def(&col(EType::Blob {
        kind: LobKind::Text,
    }));
    assert_eq!((d.column_type, d.charset), (WType::MYSQL_TYPE_BLOB, 63));
    assert!(d
        .flags
        .contains(ColumnFlags::BLOB_FLAG | ColumnFlags::BINARY_FLAG));
    let d = column_def(&col(EType::Decimal {
        precision: 10,
        scale: 2,
    }));
    assert_eq!((d.length, d.decimals), (12, 2));
    let d = column_def(&col(EType::Enum {
        values: vec!["a".into(), "bcd".into()],
        collation: Collation::Utf8mb4GeneralCi,
    }));
    assert_eq!(d.column_type, WType::MYSQL_TYPE_STRING);
    assert!(d.flags.contains(ColumnFlags::ENUM_FLAG));
}

#[test]
fn computed_columns_as_mariadb_announces_them() {
    // A bare NULL is type NULL.
    let mut null = col(EType::Binary { len: 0 });
    null.null_literal = true;
    let d = column_def(&null);
    assert_eq!(
        (d.column_type, d.charset, d.length),
        (WType::MYSQL_TYPE_NULL, 63, 0)
    );
    // Computed strings by their length in bytes as sent (4 per utf8mb4
    // character); a table's TEXT column is BLOB whatever its size.
    let text = |kind| EType::Text {
        kind,
        collation: Collation::Utf8mb4GeneralCi,
    };
    let varchar = |max_len| EType::Varchar {
        max_len,
        collation: Collation::Utf8mb4GeneralCi,
    };
    for (ty, want) in [
        (varchar(16_383), WType::MYSQL_TYPE_VAR_STRING),
        (varchar(16_384), WType::MYSQL_TYPE_MEDIUM_BLOB),
        (EType::Varbinary { max_len: 65_535 }, WType::MYSQL_TYPE_BLOB),
        (text(LobKind::Text), WType::MYSQL_TYPE_MEDIUM_BLOB),
        (text(LobKind::Medium), WType::MYSQL_TYPE_LONG_BLOB),
        (
            EType::Blob {
                kind: LobKind::Text,
            },
            WType::MYSQL_TYPE_BLOB,
        ),
        (text(LobKind::Long), WType::MYSQL_TYPE_LONG_BLOB),
        (text(LobKind::Tiny), WType::MYSQL_TYPE_VAR_STRING),
    ] {
        assert_eq!(column_def(&col(ty.clone())).column_type, want, "{ty:?}");
    }
    let mut column = col(text(LobKind::Long));
    column.org_name = "c".into();
    assert_eq!(column_def(&column).column_type, WType::MYSQL_TYPE_BLOB);
    // A table's TIMESTAMP is UNSIGNED, a computed one is not.
    let mut ts = col(EType::Timestamp { fsp: 0 });
    assert!(!column_def(&ts).flags.contains(ColumnFlags::UNSIGNED_FLAG));
    ts.org_name = "c".into();
    assert!(column_def(&ts).flags.contains(ColumnFlags::UNSIGNED_FLAG));
}

#[test]
fn values_in_both_protocols() {
    let bit = EType::Bit { bits: 12 };
    assert_eq!(
        binary_value(&EValue::Bit(0x0102), &bit, WType::MYSQL_TYPE_BIT),
        WValue::Bytes(vec![1, 2])
    );
    let en = EType::Enum {
        values: vec!["x".into(), "y".into()],
        collation: Collation::Utf8mb4GeneralCi,
    };
    assert_eq!(
        text_value(&EValue::Enum(2), &col(en.clone())),
        WValue::from("y")
    );
    assert_eq!(
        binary_value(
            &EValue::Time(-3_723_000_001),
            &EType::Time { fsp: 6 },
            WType::MYSQL_TYPE_TIME
        ),
        WValue::Time(WTime {
            negative: true,
            hours: 1,
            minutes: 2,
            seconds: 3,
            micros: 1
        })
    );
    // A string in an integer column is converted through its text.
    let int = EType::Int {
        bytes: 8,
        unsigned: false,
    };
    assert_eq!(
        binary_value(&EValue::Str("42".into()), &int, WType::MYSQL_TYPE_LONGLONG),
        WValue::Int(42)
    );
    assert_eq!(text_value(&EValue::Null, &col(int.clone())), WValue::Null);
}

#[test]
fn params_and_credentials() {
    assert_eq!(
        param_value(&WValue::from("héllo")),
        EValue::Str("héllo".into())
    );
    assert_eq!(
        param_value(&WValue::Bytes(vec![0xff])),
        EValue::Bytes(vec![0xff])
    );
    assert!(matches!(
        credential(b""),
        Some(Credential::NativePassword(None))
    ));
    assert!(matches!(
        credential(&[7u8; 20]),
        Some(Credential::NativePassword(Some(_)))
    ));
    assert!(credential(b"garbage").is_none());
}

#[test]
fn owned_values_equal_the_copied_ones() {
    let text = EType::Varchar {
        max_len: 10,
        collation: Collation::Utf8mb4GeneralCi,
    };
    let int = EType::Int {
        bytes: 8,
        unsigned: false,
    };
    let cases = [
        (
            EValue::Str("abc".into()),
            text.clone(),
            WType::MYSQL_TYPE_VAR_STRING,
        ),
        (
            EValue::Bytes(vec![0, 255]),
            text.clone(),
            WType::MYSQL_TYPE_BLOB,
        ),
        (
            EValue::Str("42".into()),
            int.clone(),
            WType::MYSQL_TYPE_LONGLONG,
        ),
        (
            EValue::Str("2.5".into()),
            int.clone(),
            WType::MYSQL_TYPE_DOUBLE,
        ),
        (EValue::Int(-7), int.clone(), WType::MYSQL_TYPE_LONGLONG),
        (EValue::Null, text.clone(), WType::MYSQL_TYPE_VAR_STRING),
    ];
    for (v, ty, wire) in cases {
        assert_eq!(
            owned_value(v.clone(), &col(ty.clone()), wire, true),
            binary_value(&v, &ty, wire),
            "{v:?} as {wire:?}"
        );
        assert_eq!(
            owned_value(v.clone(), &col(ty.clone()), wire, false),
            text_value(&v, &col(ty.clone()))
        );
    }
}
