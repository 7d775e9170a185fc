//! A real `mariadb-dump` file (MariaDB 10.11, default options: BLOBs written
//! raw inside string literals, so the file is not UTF-8) parses statement by
//! statement, and its row values, evaluated and stored into the dumped column
//! types, print as MariaDB printed them (`SELECT` output recorded alongside).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};
use larch_sql::eval::{compile, CompileOptions, EvalContext, Session, VarScope};
use larch_sql::parse::{parse_bytes, Statement};
use larch_sql::sqlparser::ast;
use larch_sql::value::{store, to_text, StoreTarget};
use larch_sql::SqlError;

const DUMP: &[u8] = include_bytes!("fixtures/mariadb-dump.sql");

struct NoSession;

impl Session for NoSession {
    fn current_database(&self) -> Option<String> {
        None
    }
    fn connection_id(&self) -> u64 {
        1
    }
    fn last_insert_id(&self) -> u64 {
        0
    }
    fn server_version(&self) -> String {
        String::new()
    }
    fn current_user(&self) -> String {
        String::new()
    }
    fn system_variable(&self, name: &str, _: VarScope) -> Result<Value, SqlError> {
        Err(SqlError::unknown_variable(name))
    }
    fn user_variable(&self, _: &str) -> Value {
        Value::Null
    }
}

/// The column types of `t1` as the dump's CREATE TABLE declares them.
fn t1_types() -> Vec<ColumnType> {
    let ci = Collation::Utf8mb4GeneralCi;
    let members = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        ColumnType::Int {
            bytes: 8,
            unsigned: true,
        },
        ColumnType::Int {
            bytes: 4,
            unsigned: false,
        },
        ColumnType::Int {
            bytes: 1,
            unsigned: false,
        },
        ColumnType::Decimal {
            precision: 10,
            scale: 3,
        },
        ColumnType::Float,
        ColumnType::Double,
        ColumnType::Char {
            len: 5,
            collation: ci,
        },
        ColumnType::Varchar {
            max_len: 100,
            collation: Collation::Latin1Bin,
        },
        ColumnType::Text {
            kind: LobKind::Text,
            collation: ci,
        },
        ColumnType::Blob {
            kind: LobKind::Text,
        },
        ColumnType::Binary { len: 4 },
        ColumnType::Varbinary { max_len: 20 },
        ColumnType::Date,
        ColumnType::Time { fsp: 3 },
        ColumnType::Timestamp { fsp: 6 },
        ColumnType::Datetime { fsp: 0 },
        ColumnType::Year,
        ColumnType::Enum {
            values: members(&["a", "b'c", "d"]),
            collation: Collation::Utf8mb4GeneralCi,
        },
        ColumnType::Set {
            values: members(&["x", "y", "z"]),
            collation: Collation::Utf8mb4GeneralCi,
        },
        ColumnType::Bit { bits: 9 },
    ]
}

/// What MariaDB's `SELECT` printed for the rows (binary columns in hex, the
/// TEXT column of row 3 by length).
fn expected_rows() -> Vec<Vec<&'static str>> {
    vec![
        vec![
            "1",
            "-5",
            "1",
            "12.345",
            "1.5",
            "0.1",
            "ab",
            "it's; \\ \"q\"",
            "line1\nline2\ttab",
            "00FF0A0D27",
            "01020304",
            "",
            "2024-02-29",
            "-838:59:59.000",
            "2024-01-05 10:11:12.123456",
            "9999-12-31 23:59:59",
            "2155",
            "b'c",
            "x,z",
            "0155",
        ],
        vec![
            "2",
            "NULL",
            "0",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "0000-00-00",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "",
            "NULL",
        ],
        vec![
            "3",
            "2147483647",
            "0",
            "-9999999.999",
            "-3.4e38",
            "1e308",
            "é€",
            "ü",
            "len 300",
            "NULL",
            "NULL",
            "610062",
            "1000-01-01",
            "00:00:00.000",
            "NULL",
            "1000-01-01 00:00:00",
            "1901",
            "a",
            "x,y,z",
            "0000",
        ],
    ]
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect()
}

#[test]
fn dump_parses_and_its_rows_round_trip() -> Result<(), SqlError> {
    // The fixture keeps raw BLOB bytes (0xFF is never UTF-8).
    assert!(DUMP.contains(&0xFF));
    let stmts = parse_bytes(DUMP)?;
    // One statement per line ending in `;` (58 in this file).
    assert_eq!(stmts.len(), 58);
    let keys = stmts
        .iter()
        .filter(|s| matches!(s, Statement::AlterTableKeys { .. }))
        .count();
    assert_eq!(keys, 4);
    let sql: Vec<&ast::Statement> = stmts
        .iter()
        .filter_map(|s| match s {
            Statement::Sql(s) => Some(s.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(
        sql.iter()
            .filter(|s| matches!(s, ast::Statement::CreateTable(_)))
            .count(),
        2
    );
    assert_eq!(
        stmts
            .iter()
            .filter(|s| matches!(s, Statement::View(_)))
            .count(),
        2
    );
    let insert = sql
        .iter()
        .find_map(|s| match s {
            ast::Statement::Insert(i) if i.table.to_string() == "`t1`" => Some(i),
            _ => None,
        })
        .ok_or_else(|| SqlError::not_supported("no INSERT INTO t1"))?;
    let Some(source) = &insert.source else {
        return Err(SqlError::not_supported("INSERT without VALUES"));
    };
    let ast::SetExpr::Values(values) = source.body.as_ref() else {
        return Err(SqlError::not_supported("INSERT without VALUES"));
    };
    let types = t1_types();
    let session = NoSession;
    let mut ctx = EvalContext::new(&session, &[], 0);
    let no_columns = |_: &[ast::Ident]| None;
    let opts = CompileOptions::default();
    for (r, (row, want)) in values.rows.iter().zip(expected_rows()).enumerate() {
        assert_eq!(row.len(), types.len());
        for (c, ((e, ty), want)) in row.iter().zip(&types).zip(want).enumerate() {
            let v = compile(e, &no_columns, &opts)?.eval(&[], &mut ctx)?;
            let target = StoreTarget {
                db: "dumpdb",
                table: "t1",
                column: "c",
                row: r as u64 + 1,
                strict: true,
            };
            let mut warnings = Vec::new();
            let stored = store(&v, ty, &target, &mut warnings)?;
            assert!(warnings.is_empty(), "row {r} column {c}: {warnings:?}");
            let got = match to_text(&stored, ty) {
                None => "NULL".to_string(),
                Some(b) if ty.is_binary_string() || matches!(ty, ColumnType::Bit { .. }) => hex(&b),
                Some(b) if c == 8 && b.len() == 300 => "len 300".to_string(),
                Some(b) => String::from_utf8_lossy(&b).into_owned(),
            };
            assert_eq!(got, want, "row {} column {c} ({ty})", r + 1);
        }
    }
    Ok(())
}
