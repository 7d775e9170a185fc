//! INTERSECT and EXCEPT (with and without ALL, NULLs equal, each column's
//! collation, INTERSECT binding tighter than UNION) and `op ANY|SOME|ALL
//! (subquery)` with SQL's three-valued results, each checked against
//! MariaDB 10.11's answer for the same tables.

mod support;

use support::{error, rows, TestDb, R};

fn tables() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE s1 (a INT, b VARCHAR(5) COLLATE utf8mb4_bin)",
        "CREATE TABLE s2 (a INT, b VARCHAR(5) COLLATE utf8mb4_bin)",
        "INSERT INTO s1 VALUES (1,'x'),(1,'x'),(2,'y'),(3,'Z'),(NULL,NULL),(NULL,NULL)",
        "INSERT INTO s2 VALUES (1,'x'),(3,'z'),(NULL,NULL),(4,'w')",
    ])
}

fn flat(t: &TestDb, sql: &str) -> R<Vec<String>> {
    let mut s = t.session(5)?;
    Ok(rows(&mut s, sql)?
        .into_iter()
        .map(|r| r.join(" "))
        .collect())
}

/// The result's column types aggregate the branches' (MariaDB's answers and
/// types): a number and a string are a string, an integer and a decimal a
/// DECIMAL with the larger scale (so 1 and 1.0 are one value), a DATE and a
/// TIME a DATETIME, a bare NULL takes the other branch's type. They were
/// the first branch's, so a column typed BIGINT carried 'abc'.
#[test]
fn set_operations_aggregate_the_branch_types() -> R<()> {
    use larch_engine::record::value::ColumnType;
    use larch_sql::result::QueryResult;
    let t = tables()?;
    let mut s = t.session(5)?;
    let mut typed = |sql: &str| -> R<(ColumnType, Vec<String>)> {
        match s.execute(sql)? {
            QueryResult::Rows(set) => {
                let (_, rows) = support::text_set(&set);
                Ok((set.columns[0].ty.clone(), rows.concat()))
            }
            other => Err(format!("{sql}: {other:?}").into()),
        }
    };
    let (ty, rows) = typed("SELECT 1 a UNION SELECT 'abc'")?;
    assert!(matches!(ty, ColumnType::Varchar { .. }), "{ty:?}");
    assert_eq!(rows, ["1", "abc"]);
    let (ty, rows) = typed("SELECT 1 a UNION SELECT 2.5")?;
    assert!(matches!(ty, ColumnType::Decimal { scale: 1, .. }), "{ty:?}");
    assert_eq!(rows, ["1.0", "2.5"]);
    assert_eq!(typed("SELECT 1 a UNION SELECT 1.0")?.1, ["1.0"]);
    assert_eq!(typed("SELECT 1 a INTERSECT SELECT 1.0")?.1, ["1.0"]);
    assert!(typed("SELECT 1.5 a EXCEPT SELECT 1.50")?.1.is_empty());
    let (ty, rows) =
        typed("SELECT DATE'2020-01-01' d UNION SELECT TIMESTAMP'2020-01-01 00:00:00'")?;
    assert_eq!(ty, ColumnType::Datetime { fsp: 0 });
    assert_eq!(rows, ["2020-01-01 00:00:00"]);
    let (ty, rows) = typed("SELECT TIME'01:00:00' d UNION SELECT TIME'01:00:00.5'")?;
    assert_eq!(ty, ColumnType::Time { fsp: 1 });
    assert_eq!(rows, ["01:00:00.0", "01:00:00.5"]);
    let (ty, rows) = typed("SELECT NULL n UNION SELECT 3")?;
    assert!(matches!(ty, ColumnType::Int { .. }), "{ty:?}");
    assert_eq!(rows, ["NULL", "3"]);
    assert_eq!(
        typed("SELECT 1 a UNION ALL SELECT 'x' UNION ALL SELECT 2.5 ORDER BY 1")?.1,
        ["1", "2.5", "x"]
    );
    // Table columns: INT and VARCHAR meet as a string.
    assert_eq!(
        typed("SELECT a FROM s2 WHERE a = 4 UNION SELECT b FROM s2 WHERE a = 4")?.1,
        ["4", "w"]
    );
    Ok(())
}

/// `ORDER BY 1` after a UNION orders by the result's first column. It read
/// past the row (leaving the rows unsorted) when the statement was the
/// first on its thread to sort, or a column of another width's rows after.
#[test]
fn positional_order_of_a_union() -> R<()> {
    let t = tables()?;
    assert_eq!(
        flat(
            &t,
            "SELECT 1 a UNION SELECT 3 UNION SELECT 2 ORDER BY 1 DESC"
        )?,
        ["3", "2", "1"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a FROM s1 UNION SELECT a FROM s2 ORDER BY 1 DESC"
        )?,
        ["4", "3", "2", "1", "NULL"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT 5 x, 1 y UNION SELECT 3, 2 UNION SELECT 4, 0 ORDER BY 2 DESC"
        )?,
        ["3 2", "5 1", "4 0"]
    );
    // After a sort with output columns appended to wider rows.
    let mut s = t.session(5)?;
    rows(&mut s, "SELECT a, b, a + 1 FROM s1 ORDER BY 3")?;
    assert_eq!(
        rows(&mut s, "SELECT b FROM s1 UNION SELECT b FROM s2 ORDER BY 1")?.concat(),
        ["NULL", "Z", "w", "x", "y", "z"]
    );
    // A branch's table orders nothing of the combined rows: 1250, as in
    // MariaDB (the qualifier was dropped: s1.a read the output column a).
    for sql in [
        "SELECT a FROM s1 UNION SELECT a FROM s2 ORDER BY s1.a",
        "SELECT a FROM s1 UNION SELECT a FROM s2 ORDER BY test.s1.a + 1",
        "SELECT a FROM s1 EXCEPT SELECT a FROM s2 ORDER BY s1.a DESC",
    ] {
        assert_eq!(
            error(&mut s, sql)?,
            (
                1250,
                "Table 's1' from one of the SELECTs cannot be used in ORDER BY".to_owned()
            ),
            "{sql}"
        );
    }
    // A parenthesized query's ORDER BY still reads its table's columns.
    assert_eq!(
        rows(
            &mut s,
            "(SELECT a FROM s1 WHERE a IS NOT NULL) ORDER BY s1.a DESC LIMIT 1"
        )?,
        vec![vec!["3"]]
    );
    Ok(())
}

#[test]
fn intersect_and_except() -> R<()> {
    let t = tables()?;
    assert_eq!(
        flat(
            &t,
            "SELECT a, b FROM s1 INTERSECT SELECT a, b FROM s2 ORDER BY a"
        )?,
        ["NULL NULL", "1 x"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a, b FROM s1 INTERSECT ALL SELECT a, b FROM s1 WHERE a = 1 OR a IS NULL ORDER BY a"
        )?,
        ["NULL NULL", "NULL NULL", "1 x", "1 x"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a, b FROM s1 EXCEPT SELECT a, b FROM s2 ORDER BY a"
        )?,
        ["2 y", "3 Z"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a, b FROM s1 EXCEPT ALL SELECT a, b FROM s2 ORDER BY a"
        )?,
        ["NULL NULL", "1 x", "2 y", "3 Z"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a FROM s1 UNION SELECT a FROM s2 INTERSECT SELECT a FROM s2 ORDER BY a"
        )?,
        ["NULL", "1", "2", "3", "4"]
    );
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "SELECT a FROM s1 MINUS SELECT a FROM s2")?.0,
        1064
    );
    Ok(())
}

#[test]
fn any_some_all() -> R<()> {
    let t = tables()?;
    assert_eq!(
        flat(
            &t,
            "SELECT a, 2 > ANY (SELECT a FROM s2), 2 > ALL (SELECT a FROM s2 WHERE a IS NOT NULL), \
             a = SOME (SELECT a FROM s2) FROM s1 ORDER BY a, b"
        )?,
        [
            "NULL 1 0 NULL",
            "NULL 1 0 NULL",
            "1 1 0 1",
            "1 1 0 1",
            "2 1 0 NULL",
            "3 1 0 1"
        ]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT NULL = ANY (SELECT a FROM s2), 1 < ALL (SELECT a FROM s2 WHERE a > 5), \
             1 < ANY (SELECT a FROM s2 WHERE a > 5)"
        )?,
        ["NULL 1 0"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a FROM s1 WHERE a <> ALL (SELECT a FROM s2 WHERE a IS NOT NULL) ORDER BY a"
        )?,
        ["2"]
    );
    let mut s = t.session(5)?;
    assert_eq!(error(&mut s, "SELECT 1 = ANY (1, 2)")?.0, 1064);
    Ok(())
}
