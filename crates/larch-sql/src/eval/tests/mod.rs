//! Evaluation tests: a table of expressions checked against MariaDB's results,
//! plus columns, parameters, variables, static types and error cases.

mod mariadb_cases;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Date, Decimal, Value};
use sqlparser::ast;

use super::*;
use crate::parse::{parse, Statement};
use crate::value::to_text;

struct TestSession;

impl Session for TestSession {
    fn current_database(&self) -> Option<String> {
        Some("test".into())
    }
    fn connection_id(&self) -> u64 {
        42
    }
    fn last_insert_id(&self) -> u64 {
        7
    }
    fn found_rows(&self) -> u64 {
        3
    }
    fn row_count(&self) -> i64 {
        -1
    }
    fn server_version(&self) -> String {
        "10.11.0-Larch".into()
    }
    fn current_user(&self) -> String {
        "root@localhost".into()
    }
    fn system_variable(&self, name: &str, scope: VarScope) -> Result<Value, SqlError> {
        match (name, scope) {
            ("autocommit", _) => Ok(Value::Int(1)),
            ("max_allowed_packet", VarScope::Global) => Ok(Value::Int(16 << 20)),
            ("max_allowed_packet", _) => Ok(Value::Int(4 << 20)),
            _ => Err(SqlError::unknown_variable(name)),
        }
    }
    fn user_variable(&self, name: &str) -> Value {
        if name == "a" {
            Value::Int(10)
        } else {
            Value::Null
        }
    }
}

/// 2024-01-05 10:11:12.5 UTC.
const NOW: i64 = 1_704_449_472_500_000;

/// The first select item of `SELECT <expr>`.
fn ast_of(expr: &str) -> ast::Expr {
    let stmts = parse(&format!("SELECT {expr}")).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let Some(Statement::Sql(s)) = stmts.into_iter().next() else {
        panic!("{expr}: not a query");
    };
    let ast::Statement::Query(q) = *s else {
        panic!("{expr}: not a query")
    };
    let ast::SetExpr::Select(sel) = *q.body else {
        panic!("{expr}: not a select")
    };
    match sel.projection.into_iter().next() {
        Some(ast::SelectItem::UnnamedExpr(e))
        | Some(ast::SelectItem::ExprWithAlias { expr: e, .. }) => e,
        other => panic!("{expr}: {other:?}"),
    }
}

fn columns() -> Vec<(&'static str, ColumnType, Value)> {
    let ci = Collation::Utf8mb4GeneralCi;
    vec![
        (
            "i",
            ColumnType::Int {
                bytes: 4,
                unsigned: false,
            },
            Value::Int(5),
        ),
        (
            "u",
            ColumnType::Int {
                bytes: 8,
                unsigned: true,
            },
            Value::UInt(u64::MAX),
        ),
        (
            "s",
            ColumnType::Varchar {
                max_len: 20,
                collation: ci,
            },
            Value::Str("Hello".into()),
        ),
        (
            "sb",
            ColumnType::Varchar {
                max_len: 20,
                collation: Collation::Utf8mb4Bin,
            },
            Value::Str("Hello".into()),
        ),
        (
            "l1",
            ColumnType::Char {
                len: 10,
                collation: Collation::Latin1SwedishCi,
            },
            Value::Str("Åsa".into()),
        ),
        (
            "n",
            ColumnType::Int {
                bytes: 4,
                unsigned: false,
            },
            Value::Null,
        ),
        (
            "d",
            ColumnType::Date,
            Value::Date(Date {
                year: 2024,
                month: 1,
                day: 31,
            }),
        ),
        (
            "dc",
            ColumnType::Decimal {
                precision: 5,
                scale: 2,
            },
            Value::Decimal(Decimal::from_i128(150, 2)),
        ),
        (
            "b",
            ColumnType::Varbinary { max_len: 10 },
            Value::Bytes(b"ab".to_vec()),
        ),
        ("f", ColumnType::Double, Value::Double(0.5)),
    ]
}

fn compile_expr(expr: &str) -> Result<Compiled, SqlError> {
    let cols = columns();
    let resolve = |ids: &[ast::Ident]| {
        let name = ids.last()?.value.to_ascii_lowercase();
        if ids.len() > 1 && !ids[0].value.eq_ignore_ascii_case("t") {
            return None;
        }
        cols.iter().position(|(n, _, _)| *n == name).map(|i| {
            let (_, ty, v) = &cols[i];
            (
                i,
                ExprType {
                    ty: ty.clone(),
                    nullable: v.is_null(),
                    decimals: None,
                },
            )
        })
    };
    compile(&ast_of(expr), &resolve, &CompileOptions::default())
}

/// Evaluates `expr` over the test row: (text or "NULL" or "ERR n", warnings).
fn run_with(expr: &str, params: &[Value]) -> (String, Vec<u16>) {
    let row: Vec<Value> = columns().into_iter().map(|(_, _, v)| v).collect();
    let session = TestSession;
    let mut ctx = EvalContext::new(&session, params, NOW);
    let c = match compile_expr(expr) {
        Ok(c) => c,
        Err(e) => return (format!("ERR {}", e.code()), Vec::new()),
    };
    let out = match c.eval(&row, &mut ctx) {
        Ok(v) => match to_text(&v, &c.ty.ty) {
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
            None => "NULL".into(),
        },
        Err(e) => format!("ERR {}", e.code()),
    };
    (out, ctx.warnings().iter().map(|w| w.code).collect())
}

fn run(expr: &str) -> String {
    run_with(expr, &[]).0
}

#[test]
fn expressions_match_mariadb() {
    let mut failures = Vec::new();
    for (expr, want, warnings) in mariadb_cases::CASES {
        let (got, w) = run_with(expr, &[]);
        if got != *want || w != *warnings {
            failures.push(format!(
                "{expr}: got {got:?} {w:?}, want {want:?} {warnings:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        mariadb_cases::CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn columns_and_collations() {
    let cases = [
        ("i + 1", "6"),
        ("t.i * 2", "10"),
        ("u + 0", "18446744073709551615"),
        ("u + 1", "ERR 1690"),
        ("s = 'hello'", "1"),
        ("sb = 'hello'", "0"),
        ("s = 'hello' COLLATE utf8mb4_bin", "0"),
        ("sb COLLATE utf8mb4_general_ci = 'hello'", "1"),
        ("l1 = 'asa'", "0"),
        ("l1 LIKE 'åSA'", "1"),
        ("s LIKE 'h%'", "1"),
        ("sb LIKE 'h%'", "0"),
        ("b = 'AB'", "0"),
        ("b = 'ab'", "1"),
        ("n IS NULL", "1"),
        ("n + 1", "NULL"),
        ("COALESCE(n, i)", "5"),
        ("d + INTERVAL 1 MONTH", "2024-02-29"),
        ("d = '2024-01-31'", "1"),
        ("d > 20240101", "1"),
        ("DATEDIFF(d, '2024-01-01')", "30"),
        ("dc * 2", "3.00"),
        ("dc / 3", "0.500000"),
        ("dc + f", "2"),
        ("CONCAT(s, dc, d)", "Hello1.502024-01-31"),
        ("LENGTH(l1)", "3"),
        ("HEX(b)", "6162"),
        ("MD5(s)", "8b1a9953c4611296a827abf8c47804d7"),
        ("MD5(NULL)", "NULL"),
        ("IF(i > 3, s, dc)", "Hello"),
        ("CASE WHEN n IS NULL THEN dc ELSE i END", "1.50"),
        ("unknown_col + 1", "ERR 1054"),
        ("x.i", "ERR 1054"),
    ];
    for (expr, want) in cases {
        assert_eq!(run(expr), want, "{expr}");
    }
}

#[test]
fn session_functions_and_variables() {
    let cases = [
        ("DATABASE()", "test"),
        ("SCHEMA()", "test"),
        ("CONNECTION_ID()", "42"),
        ("LAST_INSERT_ID()", "7"),
        ("VERSION()", "10.11.0-Larch"),
        ("USER()", "root@localhost"),
        ("@@autocommit", "1"),
        ("@@session.max_allowed_packet", "4194304"),
        ("@@global.max_allowed_packet", "16777216"),
        ("@@no_such_variable", "ERR 1193"),
        ("@a + 1", "11"),
        ("@unset", "NULL"),
        ("NOW()", "2024-01-05 10:11:12"),
        ("NOW(3)", "2024-01-05 10:11:12.500"),
        ("CURRENT_TIMESTAMP", "2024-01-05 10:11:12"),
        ("CURDATE()", "2024-01-05"),
        ("CURTIME()", "10:11:12"),
        ("UNIX_TIMESTAMP()", "1704449472"),
        ("YEAR(NOW())", "2024"),
    ];
    for (expr, want) in cases {
        assert_eq!(run(expr), want, "{expr}");
    }
}

#[test]
fn parameters_take_their_runtime_types() {
    let p = [
        Value::Int(3),
        Value::Str("4".into()),
        Value::Decimal(Decimal::from_i128(25, 1)),
    ];
    assert_eq!(run_with("? + 1", &p).0, "4");
    assert_eq!(run_with("? + ?", &p).0, "7");
    assert_eq!(run_with("? * ? * ?", &p).0, "30");
    assert_eq!(run_with("? = 3", &p).0, "1");
    assert_eq!(run_with("? + ? + ? + ?", &p).0, "ERR 1210");
}

#[test]
fn compile_errors() {
    assert_eq!(run("NO_SUCH_FN(1)"), "ERR 1305");
    assert_eq!(run("SUBSTRING('a')"), "ERR 1582");
    assert_eq!(run("CONCAT()"), "ERR 1582");
    assert_eq!(run("COUNT(*)"), "ERR 1111");
    assert_eq!(run("SUM(i)"), "ERR 1111");
    assert_eq!(run("(1, 2) = (1, 2)"), "1");
    assert_eq!(run("(1, 2) = (1, 3)"), "0");
    assert_eq!(run("(1, 2) = (1, 2, 3)"), "ERR 1241");
    assert_eq!(run("'a' COLLATE no_such"), "ERR 1273");
    assert_eq!(run("DATE '2024-13-01'"), "ERR 1525");
    assert_eq!(run("i IN (SELECT 1)"), "ERR 1235");
}

#[test]
fn static_types() -> Result<(), SqlError> {
    let ty = |e: &str| compile_expr(e).map(|c| c.ty.ty);
    // INT up to 9 characters, as MariaDB types integer literals.
    assert_eq!(
        ty("1")?,
        ColumnType::Int {
            bytes: 4,
            unsigned: false
        }
    );
    assert_eq!(
        ty("1234567890")?,
        ColumnType::Int {
            bytes: 8,
            unsigned: false
        }
    );
    assert_eq!(
        ty("18446744073709551615")?,
        ColumnType::Int {
            bytes: 8,
            unsigned: true
        }
    );
    assert_eq!(
        ty("1.50")?,
        ColumnType::Decimal {
            precision: 3,
            scale: 2
        }
    );
    assert_eq!(ty("1e3")?, ColumnType::Double);
    assert!(matches!(ty("1 / 3")?, ColumnType::Decimal { scale: 4, .. }));
    assert_eq!(
        ty("dc * dc")?,
        ColumnType::Decimal {
            precision: 10,
            scale: 4
        }
    );
    assert_eq!(
        ty("i + u")?,
        ColumnType::Int {
            bytes: 8,
            unsigned: true
        }
    );
    assert_eq!(ty("s + 1")?, ColumnType::Double);
    assert_eq!(ty("NOW(6)")?, ColumnType::Datetime { fsp: 6 });
    assert_eq!(ty("d + INTERVAL 1 DAY")?, ColumnType::Date);
    assert_eq!(ty("d + INTERVAL 1 HOUR")?, ColumnType::Datetime { fsp: 0 });
    assert_eq!(
        ty("CAST(i AS DECIMAL(8,3))")?,
        ColumnType::Decimal {
            precision: 8,
            scale: 3
        }
    );
    assert!(matches!(
        ty("CONCAT(s, 'x')")?,
        ColumnType::Varchar {
            collation: Collation::Utf8mb4GeneralCi,
            ..
        }
    ));
    assert!(matches!(ty("CONCAT(s, b)")?, ColumnType::Varbinary { .. }));
    assert!(matches!(ty("IF(i, 1, 'a')")?, ColumnType::Varchar { .. }));
    assert_eq!(
        ty("IF(i, 1, 2.5)")?,
        ColumnType::Decimal {
            precision: 21,
            scale: 1
        }
    );
    assert_eq!(ty("NULL")?, ColumnType::Binary { len: 0 });
    let c = compile_expr("i = 1")?;
    assert!(!c.ty.nullable);
    assert!(compile_expr("n = 1")?.ty.nullable);
    Ok(())
}

#[test]
fn division_by_zero_can_be_an_error_and_warnings_are_capped() -> Result<(), SqlError> {
    let session = TestSession;
    let mut ctx = EvalContext::new(&session, &[], NOW);
    let c = compile_expr("1 / 0")?;
    ctx.division_by_zero = DivisionByZero::Error;
    assert_eq!(
        c.eval(&[], &mut ctx).map_err(|e| e.code()).err(),
        Some(1365)
    );
    // Without ERROR_FOR_DIVISION_BY_ZERO: NULL and no warning.
    ctx.division_by_zero = DivisionByZero::Null;
    assert_eq!(c.eval(&[], &mut ctx)?, Value::Null);
    assert_eq!(ctx.warning_count(), 0);
    ctx.division_by_zero = DivisionByZero::Warn;
    for _ in 0..100 {
        assert_eq!(c.eval(&[], &mut ctx)?, Value::Null);
    }
    assert_eq!(ctx.warnings().len(), MAX_WARNINGS);
    assert_eq!(ctx.warning_count(), 100);
    assert_eq!(ctx.warnings()[0].message, "Division by 0");
    assert_eq!(ctx.take_warnings().len(), MAX_WARNINGS);
    assert_eq!(ctx.warning_count(), 0);
    Ok(())
}

#[test]
fn string_to_number_warnings_name_the_value() -> Result<(), SqlError> {
    let session = TestSession;
    let mut ctx = EvalContext::new(&session, &[], NOW);
    compile_expr("'12abc' + 1")?.eval(&[], &mut ctx)?;
    assert_eq!(
        ctx.warnings()[0].message,
        "Truncated incorrect DOUBLE value: '12abc'"
    );
    assert_eq!(ctx.warnings()[0].level, crate::error::Level::Warning);
    Ok(())
}

#[test]
fn overflow_messages_quote_the_expression() {
    let session = TestSession;
    let mut ctx = EvalContext::new(&session, &[], NOW);
    let err = compile_expr("9223372036854775807 + 1").and_then(|c| c.eval(&[], &mut ctx));
    assert_eq!(
        err.map_err(|e| e.message()).err().as_deref(),
        Some("BIGINT value is out of range in '9223372036854775807 + 1'")
    );
}
