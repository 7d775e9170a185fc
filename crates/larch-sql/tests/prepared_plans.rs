//! Prepared and repeated statements keep their compiled plan between
//! executions; these tests change what the plan was built from between two
//! executions and check that the next one sees the change: ALTER TABLE,
//! DROP and CREATE with another layout, temporary tables, USE of another
//! database, settings that change how expressions compile, CHECK
//! constraints of a write's table. A kept plan still takes its metadata
//! locks on every execution.

mod support;

use larch_engine::record::value::Value;
use larch_sql::session::Session;
use support::{rows, text_result, TestDb, R};

/// The result of a prepared execution: column names and rows as text.
fn run(s: &mut Session, id: u32, params: &[Value]) -> R<(Vec<String>, Vec<Vec<String>>)> {
    text_result(s.execute_prepared(id, params)?, "the prepared statement")
}

fn strings(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|v| v.to_string()).collect())
        .collect()
}

#[test]
fn select_star_sees_a_column_added_between_executions() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO t VALUES (1, 10), (2, 20)",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT * FROM t WHERE id >= ? ORDER BY id")?;
    for _ in 0..2 {
        let (names, got) = run(&mut s, 1, &[Value::Int(2)])?;
        assert_eq!(names, ["id", "v"]);
        assert_eq!(got, strings(&[&["2", "20"]]));
    }
    s.execute("ALTER TABLE t ADD COLUMN w VARCHAR(10) DEFAULT 'x'")?;
    let (names, got) = run(&mut s, 1, &[Value::Int(1)])?;
    assert_eq!(names, ["id", "v", "w"]);
    assert_eq!(got, strings(&[&["1", "10", "x"], &["2", "20", "x"]]));
    // The same through the text protocol's statement cache.
    for _ in 0..2 {
        assert_eq!(rows(&mut s, "SELECT * FROM t WHERE id = 1")?.len(), 1);
    }
    s.execute("ALTER TABLE t DROP COLUMN v")?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM t WHERE id = 1")?,
        strings(&[&["1", "x"]])
    );
    Ok(())
}

#[test]
fn drop_and_create_with_another_layout_is_seen() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO t VALUES (1, 10)",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT * FROM t")?;
    s.prepare(2, b"SELECT v FROM t WHERE id = ?")?;
    s.prepare(3, b"UPDATE t SET v = ? WHERE id = 1")?;
    assert_eq!(run(&mut s, 1, &[])?.1, strings(&[&["1", "10"]]));
    assert_eq!(run(&mut s, 2, &[Value::Int(1)])?.1, strings(&[&["10"]]));
    s.execute_prepared(3, &[Value::Int(11)])?;
    s.execute("DROP TABLE t")?;
    let missing = s.execute_prepared(1, &[]).err().map(|e| e.code());
    assert_eq!(missing, Some(1146));
    s.execute("CREATE TABLE t (v VARCHAR(5), id INT PRIMARY KEY, z INT)")?;
    s.execute("INSERT INTO t VALUES ('a', 1, 5), ('b', 2, 6)")?;
    let (names, got) = run(&mut s, 1, &[])?;
    assert_eq!(names, ["v", "id", "z"]);
    assert_eq!(got, strings(&[&["a", "1", "5"], &["b", "2", "6"]]));
    assert_eq!(run(&mut s, 2, &[Value::Int(2)])?.1, strings(&[&["b"]]));
    // The write's table metadata follows too: v is now a string column.
    s.execute_prepared(3, &[Value::Str("c".into())])?;
    assert_eq!(run(&mut s, 2, &[Value::Int(1)])?.1, strings(&[&["c"]]));
    s.execute("DROP TABLE t")?;
    s.execute("CREATE TABLE t (id INT PRIMARY KEY)")?;
    let unknown = s
        .execute_prepared(2, &[Value::Int(1)])
        .err()
        .map(|e| e.code());
    assert_eq!(unknown, Some(1054));
    Ok(())
}

#[test]
fn use_of_another_database_reads_its_table() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO t VALUES (1, 10)",
        "CREATE DATABASE other",
        "CREATE TABLE other.t (id INT PRIMARY KEY, name VARCHAR(10))",
        "INSERT INTO other.t VALUES (1, 'one')",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT * FROM t WHERE id = ?")?;
    s.prepare(2, b"INSERT INTO t VALUES (?, ?)")?;
    assert_eq!(
        run(&mut s, 1, &[Value::Int(1)])?.1,
        strings(&[&["1", "10"]])
    );
    s.execute_prepared(2, &[Value::Int(2), Value::Int(20)])?;
    s.use_database("other")?;
    let (names, got) = run(&mut s, 1, &[Value::Int(1)])?;
    assert_eq!(names, ["id", "name"]);
    assert_eq!(got, strings(&[&["1", "one"]]));
    s.execute_prepared(2, &[Value::Int(2), Value::Str("two".into())])?;
    assert_eq!(
        run(&mut s, 1, &[Value::Int(2)])?.1,
        strings(&[&["2", "two"]])
    );
    s.execute("USE test")?;
    assert_eq!(
        run(&mut s, 1, &[Value::Int(2)])?.1,
        strings(&[&["2", "20"]])
    );
    Ok(())
}

#[test]
fn temporary_tables_shadow_and_unshadow_a_kept_plan() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO t VALUES (1, 10)",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT * FROM t")?;
    assert_eq!(run(&mut s, 1, &[])?.1, strings(&[&["1", "10"]]));
    s.execute("CREATE TEMPORARY TABLE t (a VARCHAR(3))")?;
    s.execute("INSERT INTO t VALUES ('tmp')")?;
    assert_eq!(
        run(&mut s, 1, &[])?,
        (vec!["a".into()], strings(&[&["tmp"]]))
    );
    s.execute("DROP TEMPORARY TABLE t")?;
    assert_eq!(run(&mut s, 1, &[])?.1, strings(&[&["1", "10"]]));
    Ok(())
}

#[test]
fn settings_that_change_compilation_are_seen() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10))",
        "INSERT INTO t VALUES (1, 'abc'), (2, 'ABC')",
    ])?;
    let mut s = t.session(50)?;
    // A literal compares in `collation_connection`.
    s.prepare(1, b"SELECT 'abc' = 'ABC', id FROM t WHERE id = ?")?;
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["1", "1"]]));
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["1", "1"]]));
    s.execute("SET collation_connection = utf8mb4_bin")?;
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["0", "1"]]));
    s.execute("SET collation_connection = utf8mb4_general_ci")?;
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["1", "1"]]));
    // sql_mode: the same statement, its rows and its strictness follow.
    s.prepare(2, b"SELECT c FROM t WHERE id = ?")?;
    s.prepare(3, b"INSERT INTO t VALUES (?, ?)")?;
    assert_eq!(run(&mut s, 2, &[Value::Int(2)])?.1, strings(&[&["ABC"]]));
    let long = Value::Str("far too long a value".into());
    let strict = s.execute_prepared(3, &[Value::Int(3), long.clone()]);
    assert_eq!(strict.err().map(|e| e.code()), Some(1406));
    s.execute("SET sql_mode = ''")?;
    assert_eq!(run(&mut s, 2, &[Value::Int(2)])?.1, strings(&[&["ABC"]]));
    s.execute_prepared(3, &[Value::Int(3), long])?;
    assert_eq!(
        run(&mut s, 2, &[Value::Int(3)])?.1,
        strings(&[&["far too lo"]])
    );
    Ok(())
}

#[test]
fn check_constraints_added_between_writes_are_enforced() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (id INT PRIMARY KEY, v INT)"])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"INSERT INTO t VALUES (?, ?)")?;
    s.prepare(2, b"UPDATE t SET v = ? WHERE id = ?")?;
    s.execute_prepared(1, &[Value::Int(1), Value::Int(-1)])?;
    s.execute_prepared(2, &[Value::Int(-2), Value::Int(1)])?;
    s.execute("DELETE FROM t")?;
    s.execute("ALTER TABLE t ADD CONSTRAINT positive CHECK (v > 0)")?;
    let insert = s.execute_prepared(1, &[Value::Int(2), Value::Int(-1)]);
    assert_eq!(insert.err().map(|e| e.code()), Some(4025));
    s.execute_prepared(1, &[Value::Int(2), Value::Int(5)])?;
    let update = s.execute_prepared(2, &[Value::Int(-3), Value::Int(2)]);
    assert_eq!(update.err().map(|e| e.code()), Some(4025));
    s.execute("ALTER TABLE t DROP CONSTRAINT positive")?;
    s.execute_prepared(2, &[Value::Int(-3), Value::Int(2)])?;
    assert_eq!(rows(&mut s, "SELECT v FROM t")?, strings(&[&["-3"]]));
    Ok(())
}

#[test]
fn a_kept_plan_still_takes_its_metadata_lock() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO t VALUES (1, 10)",
    ])?;
    let mut s = t.session(50)?;
    s.prepare(1, b"SELECT v FROM t WHERE id = ?")?;
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["10"]]));
    s.execute("BEGIN")?;
    // Second execution, from the kept plan: the transaction now holds t.
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["10"]]));
    let mut ddl = t.session(50)?;
    ddl.execute("SET SESSION lock_wait_timeout = 1")?;
    let waited = ddl.execute("ALTER TABLE t ADD COLUMN w INT");
    assert_eq!(waited.err().map(|e| e.code()), Some(1205));
    s.execute("COMMIT")?;
    ddl.execute("ALTER TABLE t ADD COLUMN w INT")?;
    assert_eq!(run(&mut s, 1, &[Value::Int(1)])?.1, strings(&[&["10"]]));
    Ok(())
}
