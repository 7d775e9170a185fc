//! `CREATE TABLE ... SELECT`, temporary tables and INSERT IGNORE as MariaDB
//! runs them: derived column definitions, duplicate handling, the 1050 note,
//! temporary tables that shadow permanent ones and are private to their
//! session, and data errors that IGNORE turns into warnings.

mod support;

use support::{one, rows, TestDb, R};

fn create_text(s: &mut larch_sql::session::Session, t: &str) -> R<String> {
    Ok(rows(s, &format!("SHOW CREATE TABLE {t}"))?
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().nth(1))
        .unwrap_or_default())
}

fn warnings(s: &mut larch_sql::session::Session) -> R<Vec<Vec<String>>> {
    rows(s, "SHOW WARNINGS")
}

#[test]
fn create_select_derives_columns_and_copies_rows() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (a INT NOT NULL DEFAULT 5 COMMENT 'x', b VARCHAR(10), c DECIMAL(5,2))",
        "INSERT INTO t1 VALUES (1,'a',1.5),(2,'b',2.5)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("CREATE TABLE t2 SELECT * FROM t1")?;
    assert_eq!(
        create_text(&mut s, "t2")?,
        "CREATE TABLE `t2` (\n  `a` int(11) NOT NULL DEFAULT 5 COMMENT 'x',\n  \
         `b` varchar(10) DEFAULT NULL,\n  `c` decimal(5,2) DEFAULT NULL\n) \
         ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(
        rows(&mut s, "SELECT a, b, c FROM t2 ORDER BY a")?,
        vec![vec!["1", "a", "1.50"], vec!["2", "b", "2.50"]]
    );
    // Declared columns first; a result column with a declared name fills it.
    s.execute(
        "CREATE TABLE t3 (id INT AUTO_INCREMENT PRIMARY KEY, a BIGINT) AS \
         SELECT a, 1 AS one, 1234567890 AS big, 'xyz' AS s, NULL AS z FROM t1",
    )?;
    assert_eq!(
        create_text(&mut s, "t3")?,
        "CREATE TABLE `t3` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  \
         `a` bigint(20) DEFAULT NULL,\n  `one` int(1) NOT NULL,\n  \
         `big` bigint(10) NOT NULL,\n  `s` varchar(3) NOT NULL,\n  \
         `z` binary(0) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB \
         AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(
        rows(&mut s, "SELECT id, a, one FROM t3 ORDER BY id")?,
        vec![vec!["1", "1", "1"], vec!["2", "2", "1"]]
    );
    let e = s
        .execute("CREATE TABLE t4 SELECT a, a FROM t1")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1060);
    Ok(())
}

#[test]
fn create_select_duplicates_error_ignore_and_replace() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (a INT, b CHAR(1))",
        "INSERT INTO t1 VALUES (1,'a'),(2,'b'),(2,'c')",
    ])?;
    let mut s = t.session(5)?;
    let e = s
        .execute("CREATE TABLE t2 (PRIMARY KEY (a)) SELECT a, b FROM t1")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1062);
    // The half-filled table is gone.
    assert_eq!(one(&mut s, "SHOW TABLES LIKE 't2'")?, "");
    s.execute("CREATE TABLE t2 (PRIMARY KEY (a)) IGNORE SELECT a, b FROM t1")?;
    assert_eq!(
        warnings(&mut s)?,
        vec![vec![
            "Warning",
            "1062",
            "Duplicate entry '2' for key 'PRIMARY'"
        ]]
    );
    assert_eq!(
        rows(&mut s, "SELECT a, b FROM t2 ORDER BY a")?,
        vec![vec!["1", "a"], vec!["2", "b"]]
    );
    s.execute("CREATE TABLE t3 (PRIMARY KEY (a)) REPLACE SELECT a, b FROM t1")?;
    assert_eq!(
        rows(&mut s, "SELECT a, b FROM t3 ORDER BY a")?,
        vec![vec!["1", "a"], vec!["2", "c"]]
    );
    // IF NOT EXISTS: a note, nothing inserted.
    s.execute("CREATE TABLE IF NOT EXISTS t3 SELECT 9 AS a, 'z' AS b")?;
    assert_eq!(
        warnings(&mut s)?,
        vec![vec!["Note", "1050", "Table 't3' already exists"]]
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t3")?, "2");
    let e = s
        .execute("CREATE TABLE t3 SELECT 1")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1050);
    s.execute("CREATE OR REPLACE TABLE t3 AS SELECT 7 AS x")?;
    assert_eq!(rows(&mut s, "SELECT * FROM t3")?, vec![vec!["7"]]);
    Ok(())
}

#[test]
fn temporary_tables_shadow_and_stay_private() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t1 (a INT)", "INSERT INTO t1 VALUES (1),(2)"])?;
    let mut s = t.session(5)?;
    let mut other = t.session(5)?;
    s.execute("CREATE TEMPORARY TABLE t1 (b INT, KEY (b))")?;
    s.execute("INSERT INTO t1 VALUES (10)")?;
    assert_eq!(rows(&mut s, "SELECT t1.b FROM t1")?, vec![vec!["10"]]);
    assert_eq!(
        rows(&mut other, "SELECT a FROM t1 ORDER BY a")?,
        vec![vec!["1"], vec!["2"]]
    );
    assert_eq!(
        create_text(&mut s, "t1")?,
        "CREATE TEMPORARY TABLE `t1` (\n  `b` int(11) DEFAULT NULL,\n  KEY `b` (`b`)\n) \
         ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(rows(&mut s, "SHOW TABLES")?, vec![vec!["t1"]]);
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'test'"
        )?,
        "1"
    );
    let e = s
        .execute("CREATE TEMPORARY TABLE t1 (c INT)")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1050);
    // A temporary table is no DDL for the transaction.
    s.execute("BEGIN")?;
    s.execute("INSERT INTO t1 VALUES (11)")?;
    s.execute("CREATE TEMPORARY TABLE t2 SELECT b FROM t1")?;
    s.execute("ROLLBACK")?;
    assert_eq!(rows(&mut s, "SELECT b FROM t1")?, vec![vec!["10"]]);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t2")?, "0");
    s.execute("ALTER TABLE t2 RENAME t3")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t3")?, "0");
    let e = s
        .execute("DROP TEMPORARY TABLE t2")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1051);
    // DROP TABLE drops the temporary table first; the permanent one shows.
    s.execute("DROP TABLE t1")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "2");
    s.execute("CREATE TEMPORARY TABLE tt (a INT)")?;
    drop(s);
    let e = other.execute("SELECT * FROM tt").err().ok_or("no error")?;
    assert_eq!(e.code(), 1146);
    let names: Vec<String> = t.db.catalog().tables("test")?;
    assert_eq!(names, vec!["t1".to_string()]);
    Ok(())
}

#[test]
fn insert_ignore_turns_data_errors_into_warnings() -> R<()> {
    let t = TestDb::new(&[
        "SET GLOBAL sql_mode = 'STRICT_TRANS_TABLES'",
        "CREATE TABLE t1 (a INT PRIMARY KEY, b TINYINT, c VARCHAR(3) NOT NULL)",
    ])?;
    let mut s = t.session(5)?;
    let e = s
        .execute("INSERT INTO t1 VALUES (1, 1000, 'x')")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1264);
    s.execute(
        "INSERT IGNORE INTO t1 VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1000, 'abcdef'), (3, 1, NULL)",
    )?;
    assert_eq!(
        warnings(&mut s)?,
        vec![
            vec!["Warning", "1062", "Duplicate entry '1' for key 'PRIMARY'"],
            vec![
                "Warning",
                "1264",
                "Out of range value for column 'b' at row 3"
            ],
            vec!["Warning", "1265", "Data truncated for column 'c' at row 3"],
            vec!["Warning", "1048", "Column 'c' cannot be null"],
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT a, b, c FROM t1 ORDER BY a")?,
        vec![
            vec!["1", "1", "a"],
            vec!["2", "127", "abc"],
            vec!["3", "1", ""]
        ]
    );
    Ok(())
}
