//! A kept plan (prepared or statement-cached SELECT) keeps its table's
//! access path between executions and only rebuilds its key ranges; these
//! tests change what the choice was made from between two executions and
//! check the next one follows: an index created or dropped (rows then come
//! in another index's order), parameters that no longer give a usable bound
//! (NULL, a value of another kind, out of the column's range) or give one of
//! another shape, and the WHERE left to check per row when the conjuncts the
//! ranges enforce change. Every query is run at least twice per case, so the
//! kept path is the one checked.

mod support;

use larch_engine::record::value::Value;
use larch_sql::session::Session;
use support::{rows, text_result, TestDb, R};

/// The rows of a prepared execution, as text.
fn run(s: &mut Session, id: u32, params: &[Value]) -> R<Vec<Vec<String>>> {
    Ok(text_result(s.execute_prepared(id, params)?, "the prepared statement")?.1)
}

/// One text column's values.
fn col(rows: &[Vec<String>]) -> Vec<String> {
    rows.iter().filter_map(|r| r.first().cloned()).collect()
}

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn an_index_created_or_dropped_between_executions_changes_the_access_path() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, v INT)",
        "INSERT INTO t VALUES (1, 30, 0), (2, 20, 0), (3, 10, 0), (4, 5, 0)",
    ])?;
    let mut s = t.session(50)?;
    // No ORDER BY: rows come in the order of the index read.
    s.prepare(1, b"SELECT id, k FROM t WHERE k >= ?")?;
    for _ in 0..2 {
        assert_eq!(
            col(&run(&mut s, 1, &[Value::Int(10)])?),
            ids(&["1", "2", "3"])
        );
    }
    s.execute("CREATE INDEX ik ON t (k)")?;
    for _ in 0..2 {
        assert_eq!(
            col(&run(&mut s, 1, &[Value::Int(10)])?),
            ids(&["3", "2", "1"])
        );
    }
    assert_eq!(col(&run(&mut s, 1, &[Value::Int(25)])?), ids(&["1"]));
    s.execute("DROP INDEX ik ON t")?;
    for _ in 0..2 {
        assert_eq!(
            col(&run(&mut s, 1, &[Value::Int(10)])?),
            ids(&["1", "2", "3"])
        );
    }
    // The same through the text protocol's statement cache.
    let q = "SELECT id FROM t WHERE k >= 10";
    for _ in 0..2 {
        assert_eq!(col(&rows(&mut s, q)?), ids(&["1", "2", "3"]));
    }
    s.execute("ALTER TABLE t ADD INDEX ik (k)")?;
    for _ in 0..2 {
        assert_eq!(col(&rows(&mut s, q)?), ids(&["3", "2", "1"]));
    }
    Ok(())
}

#[test]
fn a_point_lookup_follows_parameters_that_give_no_bound() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))",
        "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT id FROM t WHERE id = ?")?;
    let cases: &[(Value, &[&str])] = &[
        (Value::Int(2), &["2"]),
        (Value::Int(2), &["2"]),
        (Value::Null, &[]),
        (Value::Null, &[]),
        (Value::Int(3), &["3"]),
        // A string does not bound an integer key: a scan, and the whole
        // WHERE is checked per row again.
        (Value::Str("1".into()), &["1"]),
        (Value::Str("1".into()), &["1"]),
        (Value::Int(1), &["1"]),
        // Out of INT's range: no bound, no row.
        (Value::Int(1 << 40), &[]),
        (Value::Int(-(1 << 40)), &[]),
        (Value::Int(2), &["2"]),
    ];
    for (param, want) in cases {
        let got = col(&run(&mut s, 1, std::slice::from_ref(param))?);
        assert_eq!(got, ids(want), "id = {param:?}");
    }
    Ok(())
}

#[test]
fn ranges_and_lists_follow_the_shape_of_their_parameters() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, KEY ab (a, b))",
        "INSERT INTO t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 10), (4, 2, 30), (5, 3, 5)",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT id FROM t WHERE id BETWEEN ? AND ?")?;
    let between: &[(Value, Value, &[&str])] = &[
        (Value::Int(2), Value::Int(4), &["2", "3", "4"]),
        (Value::Int(3), Value::Int(5), &["3", "4", "5"]),
        (Value::Int(2), Value::Null, &[]),
        (Value::Int(4), Value::Int(9), &["4", "5"]),
    ];
    for (lo, hi, want) in between {
        let got = col(&run(&mut s, 1, &[lo.clone(), hi.clone()])?);
        assert_eq!(got, ids(want), "BETWEEN {lo:?} AND {hi:?}");
    }
    s.prepare(2, b"SELECT id FROM t WHERE id IN (?, ?) ORDER BY id")?;
    let list: &[(Value, Value, &[&str])] = &[
        (Value::Int(1), Value::Int(3), &["1", "3"]),
        (Value::Int(2), Value::Int(5), &["2", "5"]),
        (Value::Int(4), Value::Null, &["4"]),
        (Value::Int(5), Value::Int(5), &["5"]),
    ];
    for (x, y, want) in list {
        let got = col(&run(&mut s, 2, &[x.clone(), y.clone()])?);
        assert_eq!(got, ids(want), "IN ({x:?}, {y:?})");
    }
    // Two key parts: an equality and a range, then the range gone.
    s.prepare(3, b"SELECT id FROM t WHERE a = ? AND b > ? ORDER BY id")?;
    let two: &[(Value, Value, &[&str])] = &[
        (Value::Int(1), Value::Int(10), &["2"]),
        (Value::Int(2), Value::Int(5), &["3", "4"]),
        (Value::Int(2), Value::Null, &[]),
        (Value::Int(2), Value::Str("x".into()), &["3", "4"]),
        (Value::Null, Value::Int(0), &[]),
        (Value::Int(3), Value::Int(0), &["5"]),
    ];
    for (a, b, want) in two {
        let got = col(&run(&mut s, 3, &[a.clone(), b.clone()])?);
        assert_eq!(got, ids(want), "a = {a:?} AND b > {b:?}");
    }
    // ORDER BY from the index, backwards, with LIMIT.
    s.prepare(4, b"SELECT id FROM t WHERE a = ? ORDER BY b DESC LIMIT 1")?;
    for (a, want) in [(1, "2"), (2, "4"), (3, "5"), (1, "2")] {
        assert_eq!(col(&run(&mut s, 4, &[Value::Int(a)])?), ids(&[want]));
    }
    Ok(())
}

#[test]
fn distinct_keeps_the_first_of_equal_rows() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(5), n INT)",
        "INSERT INTO t VALUES (1, 'b', 1), (2, 'A', 2), (3, 'a', 2), (4, 'B', 1), (5, NULL, 3), (6, NULL, 3)",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(
        1,
        b"SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
    )?;
    for _ in 0..2 {
        let got = col(&run(&mut s, 1, &[Value::Int(1), Value::Int(6)])?);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[1].to_lowercase(), "a");
        assert_eq!(got[2].to_lowercase(), "b");
    }
    let got = rows(&mut s, "SELECT DISTINCT n, c FROM t")?;
    assert_eq!(
        got.iter().map(|r| r.join(",")).collect::<Vec<_>>(),
        ["1,b", "2,A", "3,NULL"]
    );
    Ok(())
}
