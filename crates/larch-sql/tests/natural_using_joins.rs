//! NATURAL JOIN and JOIN ... USING merge their shared columns as MariaDB
//! 10.11 does (the expected names and rows are MariaDB's for the same
//! statements): `*` lists each shared column once, first, in the first
//! table's order (the right table's for a RIGHT JOIN), then the other
//! columns of each side; the merged column takes the outer side's value;
//! an unqualified shared column is not ambiguous while `t.*` and `t.c`
//! still see every column; nested and parenthesized joins merge again;
//! views over such joins; and a lone table in parentheses, `FROM (t)`.

mod support;

use larch_sql::session::Session;
use support::{error, query, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t1 (a INT, b INT, x INT)",
        "CREATE TABLE t2 (b INT, c INT, a INT)",
        "CREATE TABLE t3 (c INT, d INT)",
        "CREATE TABLE t4 (a INT, e INT)",
        "INSERT INTO t1 VALUES (1, 2, 10), (3, 4, 30), (NULL, 6, 60)",
        "INSERT INTO t2 VALUES (2, 20, 1), (4, 40, 9), (7, 70, 7)",
        "INSERT INTO t3 VALUES (20, 200), (70, 700)",
        "INSERT INTO t4 VALUES (1, 5)",
    ])
}

/// Column names and rows joined by commas.
fn table(s: &mut Session, sql: &str) -> R<(String, Vec<String>)> {
    let (names, rows) = query(s, sql)?;
    Ok((
        names.join(","),
        rows.into_iter().map(|r| r.join(",")).collect(),
    ))
}

#[test]
fn star_lists_shared_columns_once_and_first() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        table(&mut s, "SELECT * FROM t1 NATURAL JOIN t2")?,
        ("a,b,x,c".into(), vec!["1,2,10,20".into()])
    );
    assert_eq!(
        table(&mut s, "SELECT * FROM t1 JOIN t2 USING (b) ORDER BY b")?,
        (
            "b,a,x,c,a".into(),
            vec!["2,1,10,20,1".into(), "4,3,30,40,9".into()]
        )
    );
    // The first table's order, whatever the USING list's.
    assert_eq!(
        table(&mut s, "SELECT * FROM t1 JOIN t2 USING (b, a)")?,
        ("a,b,x,c".into(), vec!["1,2,10,20".into()])
    );
    // Names in USING match case-insensitively; a repeated one counts once.
    assert_eq!(
        table(&mut s, "SELECT * FROM t1 JOIN t2 USING (B, b) ORDER BY b")?.0,
        "b,a,x,c,a"
    );
    Ok(())
}

#[test]
fn outer_joins_take_the_outer_side() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        table(&mut s, "SELECT * FROM t1 LEFT JOIN t2 USING (b) ORDER BY b")?,
        (
            "b,a,x,c,a".into(),
            vec![
                "2,1,10,20,1".into(),
                "4,3,30,40,9".into(),
                "6,NULL,60,NULL,NULL".into()
            ]
        )
    );
    // RIGHT JOIN: the right table's columns first, its value for `b`.
    assert_eq!(
        table(
            &mut s,
            "SELECT * FROM t1 RIGHT JOIN t2 USING (b) ORDER BY b"
        )?,
        (
            "b,c,a,a,x".into(),
            vec![
                "2,20,1,1,10".into(),
                "4,40,9,3,30".into(),
                "7,70,7,NULL,NULL".into()
            ]
        )
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT * FROM t1 RIGHT JOIN t2 USING (b, a) ORDER BY b"
        )?,
        (
            "b,a,c,x".into(),
            vec![
                "2,1,20,10".into(),
                "4,9,40,NULL".into(),
                "7,7,70,NULL".into()
            ]
        )
    );
    // `t.c` and `t.*` still see each side's own column.
    assert_eq!(
        table(
            &mut s,
            "SELECT t1.b, t2.b, b FROM t1 LEFT JOIN t2 USING (b) ORDER BY t1.b"
        )?,
        (
            "b,b,b".into(),
            vec!["2,2,2".into(), "4,4,4".into(), "6,NULL,6".into()]
        )
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT t1.*, b FROM t1 NATURAL RIGHT JOIN t2 ORDER BY b"
        )?,
        (
            "a,b,x,b".into(),
            vec![
                "1,2,10,2".into(),
                "NULL,NULL,NULL,4".into(),
                "NULL,NULL,NULL,7".into()
            ]
        )
    );
    Ok(())
}

#[test]
fn unqualified_shared_columns_resolve() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        table(
            &mut s,
            "SELECT * FROM t1 NATURAL JOIN t2 WHERE b > 1 ORDER BY b"
        )?,
        ("a,b,x,c".into(), vec!["1,2,10,20".into()])
    );
    assert_eq!(
        table(&mut s, "SELECT b FROM t1 JOIN t2 USING (b) WHERE b = 2")?,
        ("b".into(), vec!["2".into()])
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT b, COUNT(*) FROM t1 JOIN t2 USING (b) GROUP BY b ORDER BY b"
        )?
        .1,
        ["2,1", "4,1"]
    );
    // A column both tables have but USING does not name stays ambiguous.
    assert_eq!(
        error(&mut s, "SELECT a FROM t1 JOIN t2 USING (b)")?,
        (1052, "Column 'a' in SELECT is ambiguous".into())
    );
    Ok(())
}

#[test]
fn nested_joins_merge_again() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let expected = (
        "c,b,a,x,a,d".to_string(),
        vec!["20,2,1,10,1,200".to_string()],
    );
    assert_eq!(
        table(&mut s, "SELECT * FROM t1 JOIN t2 USING (b) NATURAL JOIN t3")?,
        expected
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT * FROM (t1 JOIN t2 USING (b)) JOIN t3 USING (c)"
        )?,
        expected
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT * FROM t3 NATURAL JOIN (t1 JOIN t2 USING (b))"
        )?,
        ("c,d,b,a,x,a".into(), vec!["20,200,2,1,10,1".into()])
    );
    assert_eq!(
        table(&mut s, "SELECT * FROM (t1 NATURAL JOIN t2) NATURAL JOIN t4")?,
        ("a,b,x,c,e".into(), vec!["1,2,10,20,5".into()])
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT b, c FROM t1 JOIN t2 USING (b) JOIN t3 USING (c)"
        )?,
        ("b,c".into(), vec!["2,20".into()])
    );
    // A comma list after a merging join keeps its own columns.
    assert_eq!(
        table(
            &mut s,
            "SELECT * FROM t1 NATURAL JOIN t2, t4 WHERE t4.a = 1"
        )?,
        ("a,b,x,c,a,e".into(), vec!["1,2,10,20,1,5".into()])
    );
    Ok(())
}

#[test]
fn using_errors() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "SELECT * FROM t1 JOIN t2 USING (zz)")?,
        (1054, "Unknown column 'zz' in 'FROM'".into())
    );
    // Only on one side.
    assert_eq!(
        error(&mut s, "SELECT * FROM t1 JOIN t2 USING (x)")?,
        (1054, "Unknown column 'x' in 'FROM'".into())
    );
    // `a` is twice in the left operand's columns.
    assert_eq!(
        error(
            &mut s,
            "SELECT * FROM t1 JOIN t2 USING (b) JOIN t4 USING (a)"
        )?,
        (1052, "Column 'a' in FROM is ambiguous".into())
    );
    assert_eq!(
        error(&mut s, "SELECT * FROM t1 JOIN t2 USING (b) NATURAL JOIN t4")?,
        (1052, "Column 'a' in FROM is ambiguous".into())
    );
    Ok(())
}

#[test]
fn views_over_merging_joins() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE VIEW v1 AS SELECT * FROM t1 NATURAL JOIN t2")?;
    assert_eq!(
        table(&mut s, "SELECT * FROM v1")?,
        ("a,b,x,c".into(), vec!["1,2,10,20".into()])
    );
    assert_eq!(
        table(&mut s, "SELECT c FROM v1 WHERE b = 2")?,
        ("c".into(), vec!["20".into()])
    );
    // The same names twice in the view's columns.
    assert_eq!(
        error(
            &mut s,
            "CREATE VIEW v2 AS SELECT * FROM t1 LEFT JOIN t2 USING (b)"
        )?,
        (1060, "Duplicate column name 'a'".into())
    );
    Ok(())
}

#[test]
fn lone_tables_in_parentheses() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let all = (
        "a,b,x".to_string(),
        vec![
            "1,2,10".to_string(),
            "3,4,30".to_string(),
            "NULL,6,60".to_string(),
        ],
    );
    assert_eq!(table(&mut s, "SELECT * FROM (t1) ORDER BY x")?, all);
    assert_eq!(table(&mut s, "SELECT * FROM ((t1)) ORDER BY x")?, all);
    assert_eq!(
        table(&mut s, "SELECT * FROM (t1, t2) WHERE t1.a = t2.a")?,
        ("a,b,x,b,c,a".into(), vec!["1,2,10,2,20,1".into()])
    );
    assert_eq!(
        table(
            &mut s,
            "SELECT t1.x, t4.e FROM (t1) JOIN (t4) ON t1.a = t4.a"
        )?,
        ("x,e".into(), vec!["10,5".into()])
    );
    assert_eq!(
        table(&mut s, "SELECT * FROM ((t1) NATURAL JOIN (t2))")?,
        ("a,b,x,c".into(), vec!["1,2,10,20".into()])
    );
    Ok(())
}
