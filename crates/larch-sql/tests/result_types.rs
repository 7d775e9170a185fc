//! The types of computed result columns, as MariaDB 10.11 announces them
//! in its column definitions: an integer expression is INT up to 9
//! characters and BIGINT beyond (`SELECT 1` is INT, `1 + 1` is INT,
//! `99999999 + 1` is BIGINT), integer branches that mix signed and
//! unsigned meet as DECIMAL, a bare NULL is marked as such, JSON functions
//! are as long as their arguments. Each expected type was read from
//! MariaDB 10.11's column definitions for the same expression.

mod support;

use larch_engine::record::value::ColumnType;
use larch_sql::result::{QueryResult, ResultColumn};
use support::{TestDb, R};

fn columns(s: &mut larch_sql::session::Session, sql: &str) -> R<Vec<ResultColumn>> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => Ok(set.columns),
        other => Err(format!("expected rows from {sql}, got {other:?}").into()),
    }
}

/// "INT", "INT UNSIGNED", "BIGINT", "BIGINT UNSIGNED", "TINYINT",
/// "DECIMAL", "TEXT", "VARCHAR", "NULL" or the type's debug form.
fn kind(c: &ResultColumn) -> String {
    if c.null_literal {
        return "NULL".into();
    }
    match &c.ty {
        ColumnType::Int { bytes, unsigned } => {
            let name = match bytes {
                1 => "TINYINT",
                4 => "INT",
                8 => "BIGINT",
                _ => "OTHER INT",
            };
            if *unsigned {
                format!("{name} UNSIGNED")
            } else {
                name.into()
            }
        }
        ColumnType::Decimal { .. } => "DECIMAL".into(),
        ColumnType::Varchar { .. } => "VARCHAR".into(),
        ColumnType::Text { .. } => "TEXT".into(),
        other => format!("{other:?}"),
    }
}

#[test]
fn integer_expressions_are_int_up_to_nine_characters() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE ti (i INT, u INT UNSIGNED, b BIGINT, t TINYINT, d DECIMAL(5,2), \
         s VARCHAR(10), dt DATETIME)",
        "INSERT INTO ti VALUES (1, 1, 1, 1, 1.5, 'a', '2020-01-01 00:00:00')",
    ])?;
    let mut s = t.session(5)?;
    let cases = [
        ("1", "INT"),
        ("123456789", "INT"),
        ("1234567890", "BIGINT"),
        ("18446744073709551615", "BIGINT UNSIGNED"),
        ("-1", "INT"),
        ("1 + 1", "INT"),
        ("(1 + 1) + 1", "INT"),
        ("99999999 + 1", "BIGINT"),
        ("2 * 3", "INT"),
        ("5 DIV 2", "INT"),
        ("5 % 2", "INT"),
        ("-(5)", "INT"),
        ("~1", "BIGINT UNSIGNED"),
        ("1 = 1", "INT"),
        ("i + 1", "BIGINT"),
        ("t + 1", "INT"),
        ("t * t", "INT"),
        ("u + 1", "BIGINT UNSIGNED"),
        ("-i", "BIGINT"),
        ("-t", "INT"),
        ("-u", "BIGINT"),
        ("i DIV 2", "BIGINT"),
        ("ABS(i)", "BIGINT"),
        ("ABS(t)", "INT"),
        ("FLOOR(i)", "INT"),
        ("CEIL(d)", "INT"),
        ("FLOOR(12345678901.5)", "BIGINT"),
        ("ROUND(1)", "INT"),
        ("TRUNCATE(i, 0)", "INT"),
        ("LENGTH(s)", "INT"),
        ("CHAR_LENGTH(s)", "INT"),
        ("YEAR(dt)", "INT"),
        ("YEAR(dt) + 1", "INT"),
        ("DATEDIFF(dt, dt)", "INT"),
        ("BIT_LENGTH(s)", "BIGINT"),
        ("UNIX_TIMESTAMP(dt)", "BIGINT"),
        ("CONNECTION_ID()", "INT UNSIGNED"),
        ("LAST_INSERT_ID()", "BIGINT UNSIGNED"),
        ("CAST(t AS SIGNED)", "INT"),
        ("CAST(i AS SIGNED)", "BIGINT"),
        ("CAST(s AS SIGNED)", "BIGINT"),
        ("CAST(1 AS UNSIGNED)", "INT UNSIGNED"),
        ("CAST(t AS UNSIGNED)", "BIGINT UNSIGNED"),
        ("COALESCE(i, 1)", "INT"),
        ("IFNULL(t, 1)", "INT"),
        ("IF(1, t, t)", "TINYINT"),
        ("COALESCE(t, b)", "BIGINT"),
        ("COALESCE(u, i)", "DECIMAL"),
        ("IF(1, u, t)", "DECIMAL"),
        ("CASE WHEN 1 THEN u ELSE 1 END", "DECIMAL"),
        ("GREATEST(i, t)", "INT"),
        ("JSON_LENGTH('[1]')", "INT"),
        ("NULL", "NULL"),
        ("CAST(NULL AS SIGNED)", "INT"),
        ("JSON_ARRAY()", "VARCHAR"),
        ("JSON_OBJECT('k', s)", "VARCHAR"),
        ("JSON_DETAILED(NULL)", "TEXT"),
    ];
    for (expr, want) in cases {
        let cols = columns(&mut s, &format!("SELECT {expr} FROM ti"))?;
        let got = cols.first().map(kind).unwrap_or_default();
        assert_eq!(got, want, "SELECT {expr}");
    }
    // Aggregates: COUNT is BIGINT; MIN and MAX keep a column's type and
    // make a computed integer BIGINT.
    let cols = columns(
        &mut s,
        "SELECT COUNT(*), MIN(1), MAX(t), MIN(t + 1) FROM ti",
    )?;
    let kinds: Vec<String> = cols.iter().map(kind).collect();
    assert_eq!(kinds, ["BIGINT", "BIGINT", "TINYINT", "BIGINT"]);
    // A NULL read from a derived table or a UNION is a BINARY(0) column.
    let cols = columns(&mut s, "SELECT a.x FROM (SELECT NULL AS x) AS a")?;
    assert_eq!(
        cols.first().map(kind),
        Some("Binary { len: 0 }".to_string())
    );
    let cols = columns(&mut s, "SELECT NULL UNION SELECT NULL")?;
    assert_eq!(
        cols.first().map(kind),
        Some("Binary { len: 0 }".to_string())
    );
    Ok(())
}

#[test]
fn integer_results_keep_their_values() -> R<()> {
    // Typed INT, the values are still computed in full.
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let cases = [
        ("999999999 + 1", "1000000000"),
        ("99999 * 99999", "9999800001"),
        ("-2147483648 - 1", "-2147483649"),
        (
            "COALESCE(CAST(18446744073709551615 AS UNSIGNED), -1)",
            "18446744073709551615",
        ),
        ("COALESCE(NULL, -1, 18446744073709551615)", "-1"),
    ];
    for (expr, want) in cases {
        assert_eq!(
            support::one(&mut s, &format!("SELECT {expr}"))?,
            want,
            "{expr}"
        );
    }
    Ok(())
}

#[test]
fn computed_strings_keep_their_text_class() -> R<()> {
    use larch_engine::record::value::LobKind;
    let t = TestDb::new(&[
        "CREATE TABLE tt (tx TEXT, mt MEDIUMTEXT, v VARCHAR(10))",
        "INSERT INTO tt VALUES ('abc', 'def', 'ghi')",
    ])?;
    let mut s = t.session(5)?;
    let text = |kind| format!("{:?}", Some(kind));
    // MariaDB (utf8mb4 client): MEDIUM_BLOB, MEDIUM_BLOB, VAR_STRING,
    // LONG_BLOB, VAR_STRING: a TEXT class counts as many characters as its
    // size in bytes, 4 bytes each as sent.
    let cases = [
        ("CASE WHEN 1 THEN 1 ELSE tx END", text(LobKind::Text)),
        ("LOWER(tx)", text(LobKind::Text)),
        ("RIGHT(tx, 1)", "None".to_string()),
        ("UPPER(mt)", text(LobKind::Medium)),
        ("LEFT(v, 3)", "None".to_string()),
    ];
    for (expr, want) in cases {
        let cols = columns(&mut s, &format!("SELECT {expr} FROM tt"))?;
        let got = cols.first().map(|c| match &c.ty {
            ColumnType::Text { kind, .. } => format!("{:?}", Some(kind)),
            _ => "None".to_string(),
        });
        assert_eq!(got.as_deref(), Some(want.as_str()), "SELECT {expr}");
    }
    assert_eq!(
        support::one(&mut s, "SELECT CONCAT(RIGHT(tx, 1), LEFT(v, 2)) FROM tt")?,
        "cgh"
    );
    Ok(())
}
