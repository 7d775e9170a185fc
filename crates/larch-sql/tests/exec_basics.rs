//! Statement execution through a session: data statements, transactions,
//! SET and SHOW, on a real data directory.

use larch_engine::config::EngineConfig;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{ColumnDef, IndexDef, TableDef};
use larch_sql::database::Database;
use larch_sql::result::QueryResult;
use larch_sql::session::Session;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn open(dir: &std::path::Path) -> R<(std::sync::Arc<Database>, Session)> {
    let db = Database::open(EngineConfig::new(dir))?;
    let mut s = db.new_session(0, "root", "localhost")?;
    s.use_database("test")?;
    Ok((db, s))
}

/// sbtest-shaped table made through the engine API.
fn make_table(db: &Database) -> R<()> {
    let def = TableDef {
        name: "sbtest".into(),
        columns: vec![
            ColumnDef::new(
                "id",
                ColumnType::Int {
                    bytes: 4,
                    unsigned: false,
                },
            ),
            ColumnDef::new(
                "k",
                ColumnType::Int {
                    bytes: 4,
                    unsigned: false,
                },
            ),
            ColumnDef::new(
                "c",
                ColumnType::Char {
                    len: 20,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
            ColumnDef::new(
                "pad",
                ColumnType::Varchar {
                    max_len: 20,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            )
            .nullable(),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![IndexDef::on("k_1", &[1], false)],
        auto_increment: Some(0),
        fulltext: Vec::new(),
    };
    db.catalog().create_table("test", def, b"")?;
    Ok(())
}

fn rows(s: &mut Session, sql: &str) -> R<Vec<Vec<String>>> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => Ok(set
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(&set.columns)
                    .map(|(v, c)| match larch_sql::value::to_text(v, &c.ty) {
                        Some(b) => String::from_utf8_lossy(&b).into_owned(),
                        None => "NULL".into(),
                    })
                    .collect()
            })
            .collect()),
        other => Err(format!("expected rows from {sql}, got {other:?}").into()),
    }
}

fn one(s: &mut Session, sql: &str) -> R<String> {
    let r = rows(s, sql)?;
    Ok(r.first()
        .and_then(|r| r.first())
        .cloned()
        .unwrap_or_default())
}

fn affected(s: &mut Session, sql: &str) -> R<u64> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok(ok.affected_rows),
        other => Err(format!("expected OK from {sql}, got {other:?}").into()),
    }
}

#[test]
fn insert_select_update_delete() -> R<()> {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    make_table(&db)?;
    assert_eq!(
        affected(
            &mut s,
            "INSERT INTO sbtest (k, c, pad) VALUES (5, 'a', 'x'), (3, 'b', NULL), (5, 'c', 'z')"
        )?,
        3
    );
    assert_eq!(
        rows(&mut s, "SELECT LAST_INSERT_ID()")?,
        vec![vec!["1".to_string()]]
    );
    assert_eq!(one(&mut s, "SELECT c FROM sbtest WHERE id = 2")?, "b");
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest WHERE k = 5 ORDER BY id DESC")?,
        vec![vec!["3".to_string()], vec!["1".to_string()]]
    );
    assert_eq!(
        one(&mut s, "SELECT SUM(k) FROM sbtest WHERE id BETWEEN 1 AND 3")?,
        "13"
    );
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM sbtest WHERE pad IS NULL")?,
        "1"
    );
    assert_eq!(
        rows(&mut s, "SELECT k, COUNT(*) FROM sbtest GROUP BY k")?,
        vec![
            vec!["3".to_string(), "1".to_string()],
            vec!["5".to_string(), "2".to_string()]
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT k FROM sbtest ORDER BY k")?.len(),
        2
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM sbtest WHERE id IN (1, 3, 3, 7) ORDER BY id"
        )?,
        vec![vec!["1".to_string()], vec!["3".to_string()]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest ORDER BY id LIMIT 1, 1")?,
        vec![vec!["2".to_string()]]
    );
    assert_eq!(
        affected(&mut s, "UPDATE sbtest SET k = k + 1 WHERE id = 2")?,
        1
    );
    assert_eq!(one(&mut s, "SELECT k FROM sbtest WHERE id = 2")?, "4");
    assert_eq!(affected(&mut s, "UPDATE sbtest SET k = 4 WHERE id = 2")?, 0);
    assert_eq!(affected(&mut s, "DELETE FROM sbtest WHERE k = 5")?, 2);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM sbtest")?, "1");
    // A duplicate primary key: 1062, and the statement leaves nothing.
    let e = s
        .execute("INSERT INTO sbtest (id, k, c) VALUES (10, 1, 'x'), (2, 1, 'y')")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1062);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM sbtest")?, "1");
    // Subqueries and joins.
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM sbtest WHERE id IN (SELECT id FROM sbtest WHERE k = 4)"
        )?,
        "1"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT a.c FROM sbtest a JOIN sbtest b ON a.id = b.id WHERE b.k = 4"
        )?,
        "b"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM sbtest a LEFT JOIN sbtest b ON b.id = a.id + 100"
        )?,
        "1"
    );
    // Unknown column and table.
    assert_eq!(
        s.execute("SELECT nope FROM sbtest").err().map(|e| e.code()),
        Some(1054)
    );
    assert_eq!(
        s.execute("SELECT * FROM nope").err().map(|e| e.code()),
        Some(1146)
    );
    Ok(())
}

#[test]
fn transactions_roll_back_and_survive_restart() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let (db, mut s) = open(dir.path())?;
        make_table(&db)?;
        s.execute("BEGIN")?;
        s.execute("INSERT INTO sbtest (id, k, c) VALUES (1, 1, 'a')")?;
        s.execute("SAVEPOINT sp")?;
        s.execute("INSERT INTO sbtest (id, k, c) VALUES (2, 2, 'b')")?;
        s.execute("UPDATE sbtest SET k = 10 WHERE id = 1")?;
        s.execute("ROLLBACK TO SAVEPOINT sp")?;
        assert_eq!(
            rows(&mut s, "SELECT id, k FROM sbtest")?,
            vec![vec!["1".to_string(), "1".to_string()]]
        );
        s.execute("COMMIT")?;
        s.execute("START TRANSACTION")?;
        s.execute("DELETE FROM sbtest")?;
        s.execute("ROLLBACK")?;
        assert_eq!(one(&mut s, "SELECT COUNT(*) FROM sbtest")?, "1");
        s.execute("SET autocommit = 0")?;
        s.execute("INSERT INTO sbtest (id, k, c) VALUES (3, 3, 'c')")?;
        assert!(s.in_transaction());
        s.execute("ROLLBACK")?;
        s.execute("SET autocommit = 1")?;
        s.execute("START TRANSACTION READ ONLY")?;
        assert_eq!(
            s.execute("INSERT INTO sbtest (id, k, c) VALUES (4, 4, 'd')")
                .err()
                .map(|e| e.code()),
            Some(1792)
        );
        s.execute("COMMIT")?;
        drop(s);
        db.close()?;
    }
    let (_db, mut s) = open(dir.path())?;
    assert_eq!(
        rows(&mut s, "SELECT id, k, c FROM sbtest")?,
        vec![vec!["1".to_string(), "1".to_string(), "a".to_string()]]
    );
    Ok(())
}

#[test]
fn variables_and_show() -> R<()> {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    assert_eq!(one(&mut s, "SELECT @@autocommit")?, "1");
    s.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")?;
    assert_eq!(
        one(&mut s, "SELECT @@transaction_isolation")?,
        "READ-COMMITTED"
    );
    assert_eq!(one(&mut s, "SELECT @@tx_isolation")?, "READ-COMMITTED");
    s.execute("SET @x = 41")?;
    assert_eq!(one(&mut s, "SELECT @x + 1")?, "42");
    s.execute("SET sql_mode = 'NO_ENGINE_SUBSTITUTION'")?;
    assert_eq!(one(&mut s, "SELECT @@sql_mode")?, "NO_ENGINE_SUBSTITUTION");
    assert_eq!(
        s.execute("SET no_such_var = 1").err().map(|e| e.code()),
        Some(1193)
    );
    assert_eq!(
        s.execute("SET autocommit = 5").err().map(|e| e.code()),
        Some(1231)
    );
    assert_eq!(
        s.execute("SET GLOBAL innodb_page_size = 4096")
            .err()
            .map(|e| e.code()),
        Some(1238)
    );
    s.execute("SET NAMES utf8mb4")?;
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES LIKE 'autocommit'")?,
        vec![vec!["autocommit".to_string(), "ON".to_string()]]
    );
    assert!(rows(&mut s, "SHOW DATABASES")?
        .iter()
        .any(|r| r[0] == "test"));
    s.execute("CREATE DATABASE d2")?;
    assert_eq!(
        s.execute("CREATE DATABASE d2").err().map(|e| e.code()),
        Some(1007)
    );
    s.execute("USE d2")?;
    assert_eq!(one(&mut s, "SELECT DATABASE()")?, "d2");
    s.execute("DROP DATABASE d2")?;
    assert_eq!(s.execute("USE d2").err().map(|e| e.code()), Some(1049));
    assert_eq!(
        s.execute("SELECT * FROM t").err().map(|e| e.code()),
        Some(1046)
    );
    s.execute("USE test")?;
    let w = s.query(b"SELECT 1; SELECT 2; SELECT nope; SELECT 3");
    assert_eq!(w.results.len(), 2);
    assert_eq!(w.error.map(|e| e.code()), Some(1054));
    // Without ERROR_FOR_DIVISION_BY_ZERO (sql_mode was set above): no warning.
    assert_eq!(one(&mut s, "SELECT 1/0")?, "NULL");
    assert!(rows(&mut s, "SHOW WARNINGS")?
        .iter()
        .all(|r| r[1] != "1365"));
    s.execute("SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'")?;
    assert_eq!(one(&mut s, "SELECT 1/0")?, "NULL");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?.first().map(|r| r[1].clone()),
        Some("1365".to_string())
    );
    assert!(!rows(&mut s, "SELECT * FROM information_schema.SCHEMATA")?.is_empty());
    assert!(one(&mut s, "SHOW ENGINE INNODB STATUS")?.contains("InnoDB"));
    Ok(())
}

#[test]
fn prepared_statements_bind_parameters() -> R<()> {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    make_table(&db)?;
    let d = s.prepare(1, b"INSERT INTO sbtest (id, k, c) VALUES (?, ?, ?)")?;
    assert_eq!(d.params, 3);
    for i in 1..=20i64 {
        s.execute_prepared(
            1,
            &[
                Value::Int(i),
                Value::Int(i * 10),
                Value::Str(format!("c{i}")),
            ],
        )?;
    }
    s.prepare(2, b"SELECT c FROM sbtest WHERE id = ?")?;
    match s.execute_prepared(2, &[Value::Int(7)])? {
        QueryResult::Rows(set) => assert_eq!(set.rows, vec![vec![Value::Str("c7".into())]]),
        other => return Err(format!("{other:?}").into()),
    }
    s.prepare(3, b"UPDATE sbtest SET k = k + ? WHERE id = ?")?;
    s.execute_prepared(3, &[Value::Int(1), Value::Int(7)])?;
    assert_eq!(one(&mut s, "SELECT k FROM sbtest WHERE id = 7")?, "71");
    // Parameters are numbered across the whole statement, and a prepared
    // query describes its columns before it runs.
    let d = s.prepare(
        4,
        b"SELECT ?, ?, c FROM sbtest WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?",
    )?;
    assert_eq!(d.params, 5);
    assert_eq!(d.columns.len(), 3);
    assert_eq!(d.columns[2].name, "c");
    match s.execute_prepared(
        4,
        &[
            Value::Int(1),
            Value::Int(2),
            Value::Int(3),
            Value::Int(5),
            Value::Int(2),
        ],
    )? {
        QueryResult::Rows(set) => assert_eq!(
            set.rows,
            vec![
                vec![Value::Int(1), Value::Int(2), Value::Str("c3".into())],
                vec![Value::Int(1), Value::Int(2), Value::Str("c4".into())],
            ]
        ),
        other => return Err(format!("{other:?}").into()),
    }
    assert_eq!(
        s.execute_prepared(2, &[]).err().map(|e| e.code()),
        Some(1210)
    );
    assert_eq!(
        s.execute_prepared(99, &[]).err().map(|e| e.code()),
        Some(1243)
    );
    Ok(())
}

#[test]
fn multi_table_update_and_delete() -> R<()> {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE a (id INT PRIMARY KEY, v INT, note VARCHAR(10))")?;
    s.execute("CREATE TABLE b (id INT PRIMARY KEY, a_id INT, w INT, KEY (a_id))")?;
    s.execute("INSERT INTO a VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z')")?;
    s.execute("INSERT INTO b VALUES (1, 1, 100), (2, 1, 200), (3, 2, 300)")?;
    // a.id 1 matches two rows of b: it is changed once, from the first match.
    let n = affected(
        &mut s,
        "UPDATE a JOIN b ON b.a_id = a.id SET a.v = b.w, b.w = b.w + 1 WHERE a.id <= 2",
    )?;
    assert_eq!(n, 5);
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM a ORDER BY id")?,
        vec![
            vec!["1".to_string(), "100".to_string()],
            vec!["2".to_string(), "300".to_string()],
            vec!["3".to_string(), "30".to_string()],
        ]
    );
    assert_eq!(one(&mut s, "SELECT SUM(w) FROM b")?, "603");
    // The comma form is a cross join.
    affected(
        &mut s,
        "UPDATE a, b SET a.note = 'j' WHERE a.id = b.a_id AND b.id = 3",
    )?;
    assert_eq!(one(&mut s, "SELECT note FROM a WHERE id = 2")?, "j");
    // DELETE from both sides of a join, and the USING form.
    assert_eq!(
        affected(
            &mut s,
            "DELETE a, b FROM a JOIN b ON b.a_id = a.id WHERE a.id = 1"
        )?,
        3
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM a")?, "2");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM b")?, "1");
    assert_eq!(
        affected(
            &mut s,
            "DELETE FROM b USING b JOIN a ON a.id = b.a_id WHERE a.note = 'j'"
        )?,
        1
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM b")?, "0");
    // A failing multi-table statement leaves nothing behind.
    s.execute("INSERT INTO b VALUES (7, 2, 1), (8, 3, 1)")?;
    let e = s
        .execute("UPDATE a JOIN b ON b.a_id = a.id SET b.id = 7")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1062);
    assert_eq!(
        rows(&mut s, "SELECT id FROM b ORDER BY id")?,
        vec![vec!["7".to_string()], vec!["8".to_string()]]
    );
    Ok(())
}

#[test]
fn alter_table_extended_forms_run() -> R<()> {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE z (a INT(5) ZEROFILL, b VARCHAR(5) BINARY, KEY k (a))")?;
    s.execute("INSERT INTO z VALUES (7, 'x')")?;
    s.execute("ALTER TABLE z ADD INDEX IF NOT EXISTS k (b), COMMENT='hi', ENGINE=InnoDB")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?.first().map(|r| r[1].clone()),
        Some("1061".to_string())
    );
    s.execute("ALTER TABLE z DROP INDEX IF EXISTS nope, FORCE")?;
    let create = rows(&mut s, "SHOW CREATE TABLE z")?;
    let text = create
        .first()
        .and_then(|r| r.get(1))
        .cloned()
        .unwrap_or_default();
    assert!(
        text.contains("`a` int(5) unsigned zerofill DEFAULT NULL"),
        "{text}"
    );
    assert!(text.contains("COLLATE utf8mb4_bin"), "{text}");
    assert!(text.ends_with("COMMENT='hi'"), "{text}");
    // The rebuilds kept the row.
    assert_eq!(one(&mut s, "SELECT b FROM z WHERE a = 7")?, "x");
    Ok(())
}
