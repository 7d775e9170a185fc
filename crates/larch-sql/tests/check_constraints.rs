//! CHECK constraints as MariaDB keeps them: column and table constraints
//! are stored, shown by SHOW CREATE TABLE in MariaDB's text (cases from
//! MariaDB's `main.constraints`), listed in INFORMATION_SCHEMA, enforced on
//! INSERT, UPDATE, ON DUPLICATE KEY UPDATE and INSERT IGNORE, checked
//! against existing rows by ALTER TABLE, and a JSON column only takes JSON.

mod support;

use support::{one, rows, TestDb, R};

fn show_create(s: &mut larch_sql::session::Session, t: &str) -> R<String> {
    let r = rows(s, &format!("SHOW CREATE TABLE {t}"))?;
    Ok(r.first().and_then(|r| r.get(1)).cloned().ok_or("no row")?)
}

fn error(s: &mut larch_sql::session::Session, sql: &str) -> R<(u16, String)> {
    let e = s.execute(sql).err().ok_or(format!("no error from {sql}"))?;
    Ok((e.code(), e.to_string()))
}

#[test]
fn column_and_table_checks_are_kept_shown_and_enforced() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (a INT CHECK (a>0))",
        "CREATE TABLE t2 (a INT, b INT, CHECK (a>b))",
        "CREATE TABLE t3 (a INT, b INT, CONSTRAINT abc CHECK (a>b))",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        show_create(&mut s, "t1")?,
        "CREATE TABLE `t1` (\n  `a` int(11) DEFAULT NULL CHECK (`a` > 0)\n) \
         ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert!(show_create(&mut s, "t2")?.contains("  CONSTRAINT `CONSTRAINT_1` CHECK (`a` > `b`)\n)"));
    assert!(show_create(&mut s, "t3")?.contains("  CONSTRAINT `abc` CHECK (`a` > `b`)\n)"));

    s.execute("INSERT INTO t1 VALUES (1), (NULL)")?;
    assert_eq!(
        error(&mut s, "INSERT INTO t1 VALUES (0)")?,
        (4025, "CONSTRAINT `t1.a` failed for `test`.`t1`".to_string())
    );
    s.execute("INSERT INTO t2 VALUES (1,0)")?;
    assert_eq!(
        error(&mut s, "INSERT INTO t2 VALUES (0,1)")?,
        (
            4025,
            "CONSTRAINT `CONSTRAINT_1` failed for `test`.`t2`".to_string()
        )
    );
    assert_eq!(
        error(&mut s, "INSERT INTO t3 VALUES (0,1)")?.0,
        4025,
        "named constraint"
    );
    // UPDATE, and a failed multi-row INSERT that keeps nothing.
    assert_eq!(error(&mut s, "UPDATE t2 SET b = 5")?.0, 4025);
    assert_eq!(error(&mut s, "INSERT INTO t1 VALUES (5), (-5)")?.0, 4025);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "2");
    // IGNORE skips the row with a warning.
    s.execute("INSERT IGNORE INTO t1 VALUES (7), (-7)")?;
    let w = rows(&mut s, "SHOW WARNINGS")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "3");
    assert_eq!(
        w,
        vec![vec![
            "Warning".to_string(),
            "4025".into(),
            "CONSTRAINT `t1.a` failed for `test`.`t1`".into()
        ]]
    );
    // check_constraint_checks = 0 turns them off.
    s.execute("SET check_constraint_checks = 0")?;
    s.execute("INSERT INTO t1 VALUES (-1)")?;
    s.execute("SET check_constraint_checks = 1")?;

    let info = rows(
        &mut s,
        "SELECT TABLE_NAME, CONSTRAINT_NAME, LEVEL, CHECK_CLAUSE \
         FROM information_schema.CHECK_CONSTRAINTS ORDER BY TABLE_NAME",
    )?;
    assert_eq!(
        info,
        vec![
            vec![
                "t1".to_string(),
                "a".into(),
                "Column".into(),
                "`a` > 0".into()
            ],
            vec![
                "t2".into(),
                "CONSTRAINT_1".into(),
                "Table".into(),
                "`a` > `b`".into()
            ],
            vec![
                "t3".into(),
                "abc".into(),
                "Table".into(),
                "`a` > `b`".into()
            ],
        ]
    );
    Ok(())
}

#[test]
fn alter_table_adds_checks_against_existing_rows_and_drops_them() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT)",
        "INSERT INTO t VALUES (1, 5), (2, -3)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        error(
            &mut s,
            "ALTER TABLE t ADD CONSTRAINT positive CHECK (a > 0)"
        )?,
        (
            4025,
            "CONSTRAINT `positive` failed for `test`.`t`".to_string()
        )
    );
    assert!(!show_create(&mut s, "t")?.contains("CHECK"));
    s.execute("DELETE FROM t WHERE a < 0")?;
    s.execute("ALTER TABLE t ADD CONSTRAINT positive CHECK (a > 0)")?;
    assert_eq!(error(&mut s, "INSERT INTO t VALUES (3, -1)")?.0, 4025);
    assert_eq!(
        error(
            &mut s,
            "ALTER TABLE t ADD CONSTRAINT positive CHECK (a < 100)"
        )?,
        (
            1826,
            "Duplicate CHECK constraint name 'positive'".to_string()
        )
    );
    // A copying rebuild keeps the constraint and checks the copied rows.
    s.execute("ALTER TABLE t ADD COLUMN b INT DEFAULT 0")?;
    assert!(show_create(&mut s, "t")?.contains("CONSTRAINT `positive` CHECK (`a` > 0)"));
    assert_eq!(error(&mut s, "UPDATE t SET a = 0")?.0, 4025);
    s.execute("ALTER TABLE t DROP CONSTRAINT positive")?;
    s.execute("INSERT INTO t VALUES (3, -1, 0)")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "2");
    Ok(())
}

#[test]
fn json_columns_take_only_json() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE d (id INT PRIMARY KEY, j JSON)"])?;
    let mut s = t.session(50)?;
    assert!(show_create(&mut s, "d")?
        .contains("`j` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`j`))"));
    s.execute("INSERT INTO d VALUES (1, '{\"a\": [1, 2]}'), (2, NULL)")?;
    assert_eq!(
        error(&mut s, "INSERT INTO d VALUES (3, '{oops')")?,
        (4025, "CONSTRAINT `d.j` failed for `test`.`d`".to_string())
    );
    assert_eq!(
        error(
            &mut s,
            "INSERT INTO d VALUES (1, '[]') ON DUPLICATE KEY UPDATE j = 'bad'"
        )?
        .0,
        4025
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT json_extract(j, '$.a[1]') FROM d WHERE id = 1"
        )?,
        "2"
    );
    Ok(())
}

/// Renaming a column renames it in the CHECK constraints that read it,
/// column and table ones, by RENAME COLUMN and by CHANGE, as MariaDB does
/// (they were 1054 "Unknown column ... in 'CHECK'").
#[test]
fn renamed_columns_are_renamed_in_checks() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE ck (id INT PRIMARY KEY, a INT, b INT, \
         CONSTRAINT c1 CHECK (a > 0 AND a < b), CHECK (b <> 5), c INT CHECK (c > a))"])?;
    let mut s = t.session(50)?;
    s.execute("ALTER TABLE ck RENAME COLUMN a TO aa")?;
    s.execute("ALTER TABLE ck CHANGE b bb BIGINT, RENAME COLUMN c TO cc")?;
    let text = rows(&mut s, "SHOW CREATE TABLE ck")?[0][1].clone();
    for part in [
        "`cc` int(11) DEFAULT NULL CHECK (`cc` > `aa`)",
        "CONSTRAINT `c1` CHECK (`aa` > 0 AND `aa` < `bb`)",
        "CONSTRAINT `CONSTRAINT_1` CHECK (`bb` <> 5)",
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    assert_eq!(
        error(&mut s, "INSERT INTO ck VALUES (1, 0, 2, 3)")?,
        (4025, "CONSTRAINT `c1` failed for `test`.`ck`".to_string())
    );
    s.execute("INSERT INTO ck VALUES (1, 1, 2, 3)")?;
    assert_eq!(one(&mut s, "SELECT aa + bb + cc FROM ck")?, "6");
    Ok(())
}

/// CHECK constraints and generated columns whose literals hold backslashes
/// are kept as written (the text read back lost them, or did not parse:
/// 1064 on CREATE TABLE).
#[test]
fn backslashes_in_kept_expressions() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE bs (id INT PRIMARY KEY, a VARCHAR(10) CHECK (a <> 'x\\\\y'), \
         g VARCHAR(20) AS (CONCAT(a, '\\\\', 'it''s')) VIRTUAL, \
         d VARCHAR(20) DEFAULT (CONCAT('p\\\\', 'q')))",
    ])?;
    let mut s = t.session(50)?;
    s.execute("INSERT INTO bs (id, a) VALUES (1, 'p')")?;
    assert_eq!(one(&mut s, "SELECT g FROM bs")?, "p\\it's");
    assert_eq!(one(&mut s, "SELECT d FROM bs")?, "p\\q");
    assert_eq!(
        error(&mut s, "INSERT INTO bs (id, a) VALUES (2, 'x\\\\y')")?.0,
        4025
    );
    s.execute("INSERT INTO bs (id, a) VALUES (2, 'xy')")?;
    Ok(())
}
