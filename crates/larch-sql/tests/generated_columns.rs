//! Generated columns end to end in process, as MariaDB 10.11 has them:
//! `[GENERATED ALWAYS] AS (expr) VIRTUAL | STORED | PERSISTENT` in CREATE
//! and ALTER TABLE; values computed on INSERT, REPLACE, INSERT ... SELECT,
//! ON DUPLICATE KEY UPDATE and (single- and multi-table) UPDATE, and again
//! when ALTER TABLE changes a column they read or their expression; 1906
//! for a value given to one (an error in strict mode, a warning otherwise
//! or with IGNORE; DEFAULT is fine); the DDL errors 4029, 1054, 1901, 1903,
//! 1064; plain and UNIQUE indexes on them; SHOW CREATE TABLE, SHOW COLUMNS
//! and INFORMATION_SCHEMA.COLUMNS; and their definition across a restart.

mod support;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use support::{error, query, rows, show_create, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE g (id INT PRIMARY KEY, a INT, b INT, \
         s INT AS (a + b) VIRTUAL, \
         d INT GENERATED ALWAYS AS (a * 2) STORED, \
         e INT AS (s + 1) PERSISTENT, \
         t VARCHAR(20) AS (CONCAT('v', b)) STORED, \
         UNIQUE KEY us (s), KEY kd (d))",
        "INSERT INTO g (id, a, b) VALUES (1, 1, 2), (2, 10, 20)",
    ])
}

#[test]
fn values_are_computed_on_insert_and_update() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM g ORDER BY id")?,
        [
            ["1", "1", "2", "3", "2", "4", "v2"],
            ["2", "10", "20", "30", "20", "31", "v20"]
        ]
    );
    // DEFAULT for a generated column is fine, in VALUES and in SET.
    s.execute("INSERT INTO g VALUES (3, 5, 6, DEFAULT, DEFAULT, DEFAULT, DEFAULT)")?;
    s.execute("INSERT INTO g SET id = 4, a = 7, b = NULL, d = DEFAULT")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, s, d, e, t FROM g WHERE id >= 3 ORDER BY id"
        )?,
        [
            ["3", "11", "10", "12", "v6"],
            ["4", "NULL", "14", "NULL", "NULL"]
        ]
    );
    // So is a literal NULL (MariaDB takes it as DEFAULT).
    s.execute("INSERT INTO g VALUES (7, 1, 1, NULL, NULL, NULL, NULL)")?;
    assert_eq!(
        rows(&mut s, "SELECT s, d, e, t FROM g WHERE id = 7")?,
        [["2", "2", "3", "v1"]]
    );
    s.execute("DELETE FROM g WHERE id = 7")?;
    s.execute("UPDATE g SET a = 100 WHERE id = 1")?;
    s.execute("UPDATE g SET b = 1, s = DEFAULT WHERE id = 4")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, s, d, e, t FROM g WHERE id IN (1, 4) ORDER BY id"
        )?,
        [
            ["1", "102", "200", "103", "v2"],
            ["4", "8", "14", "9", "v1"]
        ]
    );
    // INSERT ... SELECT, REPLACE and ON DUPLICATE KEY UPDATE.
    s.execute("CREATE TABLE src (id INT, a INT, b INT)")?;
    s.execute("INSERT INTO src VALUES (5, 1, 1), (6, 2, 2)")?;
    s.execute("INSERT INTO g (id, a, b) SELECT id, a, b FROM src")?;
    s.execute("REPLACE INTO g (id, a, b) VALUES (5, 3, 3)")?;
    s.execute("INSERT INTO g (id, a, b) VALUES (6, 0, 0) ON DUPLICATE KEY UPDATE a = 50")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, s, d, e FROM g WHERE id IN (5, 6) ORDER BY id"
        )?,
        [["5", "6", "6", "7"], ["6", "52", "100", "53"]]
    );
    // Multi-table UPDATE.
    s.execute("UPDATE g JOIN src ON g.id = src.id SET g.b = src.b + 1000")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, s, e, t FROM g WHERE id IN (5, 6) ORDER BY id"
        )?,
        [
            ["5", "1004", "1005", "v1001"],
            ["6", "1052", "1053", "v1002"]
        ]
    );
    Ok(())
}

#[test]
fn a_value_for_a_generated_column_is_1906() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let msg = "The value specified for generated column 's' in table 'g' has been ignored";
    assert_eq!(
        error(&mut s, "INSERT INTO g VALUES (3, 1, 1, 9, 9, 9, 'x')")?,
        (1906, msg.into())
    );
    assert_eq!(
        error(&mut s, "INSERT INTO g (id, a, b, s) VALUES (3, 1, 1, 9)")?,
        (1906, msg.into())
    );
    assert_eq!(
        error(&mut s, "UPDATE g SET s = 5 WHERE id = 1")?,
        (1906, msg.into())
    );
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM g")?, [["2"]]);
    // IGNORE, or a non-strict sql_mode: a warning, and the value is computed.
    s.execute("INSERT IGNORE INTO g (id, a, b, s) VALUES (3, 1, 1, 9)")?;
    assert_eq!(rows(&mut s, "SHOW WARNINGS")?, [["Warning", "1906", msg]]);
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO g (id, a, b, d) VALUES (4, 2, 2, 9)")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        [[
            "Warning",
            "1906",
            "The value specified for generated column 'd' in table 'g' has been ignored"
        ]]
    );
    s.execute("UPDATE g SET s = 5, a = 3 WHERE id = 4")?;
    assert_eq!(rows(&mut s, "SHOW WARNINGS")?, [["Warning", "1906", msg]]);
    assert_eq!(
        rows(&mut s, "SELECT id, s, d FROM g WHERE id >= 3 ORDER BY id")?,
        [["3", "2", "2"], ["4", "5", "6"]]
    );
    Ok(())
}

#[test]
fn results_are_stored_with_the_column_type_rules() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE n (a INT, c TINYINT AS (a * 1000) STORED)"])?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "INSERT INTO n (a) VALUES (5)")?,
        (1264, "Out of range value for column 'c' at row 1".into())
    );
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO n (a) VALUES (5)")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        [[
            "Warning",
            "1264",
            "Out of range value for column 'c' at row 1"
        ]]
    );
    assert_eq!(rows(&mut s, "SELECT a, c FROM n")?, [["5", "127"]]);
    Ok(())
}

#[test]
fn definition_errors_are_mariadbs() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let cases: &[(&str, u16, &str)] = &[
        (
            "CREATE TABLE e (a INT, c INT AS (c + 1) VIRTUAL)",
            4029,
            "Expression for field `c` is referring to uninitialized field `c`",
        ),
        (
            "CREATE TABLE e (a INT, c INT AS (d + 1) VIRTUAL, d INT AS (a) VIRTUAL)",
            4029,
            "Expression for field `c` is referring to uninitialized field `d`",
        ),
        (
            "CREATE TABLE e (a INT, c INT AS (x) VIRTUAL)",
            1054,
            "Unknown column 'x' in 'GENERATED ALWAYS AS'",
        ),
        (
            "CREATE TABLE e (a INT, c INT AS (NOW()) STORED)",
            1901,
            "Function or expression 'current_timestamp()' cannot be used in the GENERATED ALWAYS AS clause of `c`",
        ),
        (
            "CREATE TABLE e (a INT, c DOUBLE AS (RAND()) PERSISTENT)",
            1901,
            "Function or expression 'rand()' cannot be used in the GENERATED ALWAYS AS clause of `c`",
        ),
        (
            "CREATE TABLE e (a INT, c INT AS (a IN (SELECT 1)) VIRTUAL)",
            1901,
            "Function or expression 'select ...' cannot be used in the GENERATED ALWAYS AS clause of `c`",
        ),
        (
            "CREATE TABLE e (a INT, c INT AS (@x) STORED)",
            1901,
            "Function or expression '@x' cannot be used in the GENERATED ALWAYS AS clause of `c`",
        ),
        (
            "CREATE TABLE e (a INT AUTO_INCREMENT PRIMARY KEY, c INT AS (a) STORED)",
            1901,
            "Function or expression 'AUTO_INCREMENT' cannot be used in the GENERATED ALWAYS AS clause of `c`",
        ),
        (
            "CREATE TABLE e (a INT, c INT AS (a) STORED, PRIMARY KEY (c))",
            1903,
            "Primary key cannot be defined upon a generated column",
        ),
    ];
    for (sql, code, msg) in cases {
        assert_eq!(error(&mut s, sql)?, (*code, (*msg).to_string()), "{sql}");
    }
    for sql in [
        "CREATE TABLE e (a INT, c INT AS (a) VIRTUAL DEFAULT 1)",
        "CREATE TABLE e (a INT, c INT AS (a) STORED NOT NULL)",
        "CREATE TABLE e (a INT, c INT AS (a) VIRTUAL NULL)",
        "CREATE TABLE e (a INT, c INT AUTO_INCREMENT AS (a) VIRTUAL, KEY (c))",
    ] {
        assert_eq!(error(&mut s, sql)?.0, 1064, "{sql}");
    }
    // MariaDB computes a non-deterministic VIRTUAL column on each read;
    // Larch refuses it rather than store a value that goes stale.
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE e (a INT, c DATETIME AS (NOW()) VIRTUAL)"
        )?
        .0,
        1235
    );
    assert_eq!(rows(&mut s, "SHOW TABLES")?, Vec::<Vec<String>>::new());
    // A VIRTUAL column may read the AUTO_INCREMENT column.
    s.execute("CREATE TABLE ai (a INT AUTO_INCREMENT PRIMARY KEY, c INT AS (a * 10) VIRTUAL)")?;
    s.execute("INSERT INTO ai () VALUES (), ()")?;
    assert_eq!(
        rows(&mut s, "SELECT a, c FROM ai ORDER BY a")?,
        [["1", "10"], ["2", "20"]]
    );
    Ok(())
}

#[test]
fn indexes_on_generated_columns() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // `s` is a UNIQUE VIRTUAL column: 1 + 2 = 3 already exists.
    assert_eq!(
        error(&mut s, "INSERT INTO g (id, a, b) VALUES (3, 2, 1)")?,
        (1062, "Duplicate entry '3' for key 'us'".into())
    );
    s.execute("INSERT IGNORE INTO g (id, a, b) VALUES (3, 2, 1), (4, 4, 4)")?;
    assert_eq!(rows(&mut s, "SELECT id FROM g WHERE s = 8")?, [["4"]]);
    // Lookups by the stored column's index.
    let (names, plan) = query(&mut s, "EXPLAIN SELECT id FROM g WHERE d = 20")?;
    let key = names
        .iter()
        .position(|n| n == "key")
        .ok_or("no key column")?;
    assert_eq!(plan[0][key], "kd");
    assert_eq!(rows(&mut s, "SELECT id FROM g WHERE d = 20")?, [["2"]]);
    // An UPDATE moves the index entries with the value.
    s.execute("UPDATE g SET a = 11 WHERE id = 2")?;
    assert_eq!(
        rows(&mut s, "SELECT id FROM g WHERE d = 20")?,
        Vec::<Vec<String>>::new()
    );
    assert_eq!(rows(&mut s, "SELECT id FROM g WHERE d = 22")?, [["2"]]);
    assert_eq!(rows(&mut s, "SELECT id FROM g WHERE s = 31")?, [["2"]]);
    s.execute("CREATE UNIQUE INDEX ut ON g (t)")?;
    assert_eq!(
        error(&mut s, "INSERT INTO g (id, a, b) VALUES (9, 100, 2)")?,
        (1062, "Duplicate entry 'v2' for key 'ut'".into())
    );
    Ok(())
}

#[test]
fn shown_as_mariadb_shows_them() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let text = show_create(&mut s, "g")?;
    for line in [
        "`s` int(11) GENERATED ALWAYS AS (`a` + `b`) VIRTUAL,",
        "`d` int(11) GENERATED ALWAYS AS (`a` * 2) STORED,",
        "`e` int(11) GENERATED ALWAYS AS (`s` + 1) STORED,",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let cols = rows(&mut s, "SHOW COLUMNS FROM g")?;
    let extra: Vec<(&str, &str, &str)> = cols
        .iter()
        .map(|r| (r[0].as_str(), r[4].as_str(), r[5].as_str()))
        .collect();
    assert_eq!(
        extra,
        [
            ("id", "NULL", ""),
            ("a", "NULL", ""),
            ("b", "NULL", ""),
            ("s", "NULL", "VIRTUAL GENERATED"),
            ("d", "NULL", "STORED GENERATED"),
            ("e", "NULL", "STORED GENERATED"),
            ("t", "NULL", "STORED GENERATED"),
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLUMN_NAME, EXTRA, IS_GENERATED, GENERATION_EXPRESSION, COLUMN_DEFAULT \
             FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'g' AND COLUMN_NAME IN ('a', 's', 'd') \
             ORDER BY ORDINAL_POSITION"
        )?,
        [
            ["a", "", "NEVER", "NULL", "NULL"],
            ["s", "VIRTUAL GENERATED", "ALWAYS", "`a` + `b`", "NULL"],
            ["d", "STORED GENERATED", "ALWAYS", "`a` * 2", "NULL"],
        ]
    );
    // The printed definition creates the same table.
    s.execute("DROP TABLE g")?;
    s.execute(&text)?;
    assert_eq!(show_create(&mut s, "g")?, text);
    Ok(())
}

#[test]
fn alter_table_recomputes_generated_values() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE al (a INT, b INT)",
        "INSERT INTO al VALUES (1, 2), (3, 4)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE al ADD COLUMN c INT AS (a + b) STORED")?;
    s.execute("ALTER TABLE al ADD COLUMN d INT AS (a * b) VIRTUAL, ADD KEY kd (d)")?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM al ORDER BY a")?,
        [["1", "2", "3", "2"], ["3", "4", "7", "12"]]
    );
    s.execute("ALTER TABLE al MODIFY c INT AS (a - b) STORED")?;
    assert_eq!(
        rows(&mut s, "SELECT a, c FROM al ORDER BY a")?,
        [["1", "-1"], ["3", "-1"]]
    );
    // A column the expressions read changes type: values follow.
    s.execute("ALTER TABLE al MODIFY b DECIMAL(5,1)")?;
    s.execute("UPDATE al SET b = 0.5 WHERE a = 1")?;
    assert_eq!(
        rows(&mut s, "SELECT a, b, c, d FROM al ORDER BY a")?,
        [["1", "0.5", "1", "1"], ["3", "4.0", "-1", "12"]]
    );
    s.execute("ALTER TABLE al CHANGE c c2 INT AS (b + 100) PERSISTENT")?;
    assert_eq!(
        rows(&mut s, "SELECT a, c2 FROM al ORDER BY a")?,
        [["1", "101"], ["3", "104"]]
    );
    // MODIFY to an ordinary column keeps the values.
    s.execute("ALTER TABLE al MODIFY c2 INT")?;
    s.execute("UPDATE al SET c2 = 7 WHERE a = 1")?;
    assert_eq!(
        rows(&mut s, "SELECT a, c2 FROM al ORDER BY a")?,
        [["1", "7"], ["3", "104"]]
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE al DROP COLUMN a")?,
        (1054, "Unknown column 'a' in 'GENERATED ALWAYS AS'".into())
    );
    // CHANGE renames the column in the expressions that read it.
    s.execute("ALTER TABLE al CHANGE a a2 INT")?;
    let text = show_create(&mut s, "al")?;
    assert!(
        text.contains("`d` int(11) GENERATED ALWAYS AS (`a2` * `b`) VIRTUAL,"),
        "{text}"
    );
    assert_eq!(rows(&mut s, "SELECT a2 FROM al WHERE d = 12")?, [["3"]]);
    // So does RENAME COLUMN (it was 1054 on the generated column).
    s.execute("ALTER TABLE al RENAME COLUMN a2 TO a3")?;
    let text = show_create(&mut s, "al")?;
    assert!(
        text.contains("`d` int(11) GENERATED ALWAYS AS (`a3` * `b`) VIRTUAL,"),
        "{text}"
    );
    assert_eq!(rows(&mut s, "SELECT a3 FROM al WHERE d = 12")?, [["3"]]);
    Ok(())
}

#[test]
fn generated_columns_survive_a_restart() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let mut s = db.new_session(0, "root", "localhost")?;
        s.use_database("test")?;
        s.execute("CREATE TABLE r (a INT, v INT AS (a + 1) VIRTUAL, st INT AS (v * 2) STORED)")?;
        s.execute("INSERT INTO r (a) VALUES (1)")?;
        drop(s);
        db.close()?;
    }
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let mut s = db.new_session(0, "root", "localhost")?;
    s.use_database("test")?;
    s.execute("INSERT INTO r (a) VALUES (2)")?;
    assert_eq!(
        rows(&mut s, "SELECT a, v, st FROM r ORDER BY a")?,
        [["1", "2", "4"], ["2", "3", "6"]]
    );
    let text = show_create(&mut s, "r")?;
    assert!(
        text.contains("`st` int(11) GENERATED ALWAYS AS (`v` * 2) STORED"),
        "{text}"
    );
    assert_eq!(error(&mut s, "INSERT INTO r VALUES (3, 4, 5)")?.0, 1906);
    Ok(())
}
