//! ALTER TABLE ... RENAME INDEX|KEY, CONVERT TO CHARACTER SET and
//! [DEFAULT] CHARACTER SET, end to end in process, with the SHOW CREATE
//! TABLE text and errors MariaDB 10.11 gives: a renamed key keeps its
//! columns and serves lookups, 1176 / 1061 for a missing or taken name;
//! CONVERT TO changes every character column (TEXT grows to MEDIUMTEXT
//! from latin1 to utf8mb4), keeps binary strings, converts the values and
//! refuses (1366) a value the new set cannot hold; the table's default set
//! alone leaves the columns as they were.

mod support;

use support::{error, rows, show_create, TestDb, R};

#[test]
fn rename_index_renames_and_checks_names() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, c INT, KEY ka (a), UNIQUE KEY kc (c))",
        "INSERT INTO t VALUES (1, 10, 100), (2, 20, 200)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE t RENAME INDEX ka TO kb")?;
    let text = show_create(&mut s, "t")?;
    assert!(text.contains("KEY `kb` (`a`)"), "{text}");
    assert!(!text.contains("`ka`"), "{text}");
    s.execute("ALTER TABLE t RENAME KEY kc TO kd")?;
    let text = show_create(&mut s, "t")?;
    assert!(text.contains("UNIQUE KEY `kd` (`c`)"), "{text}");
    // Only the case changes.
    s.execute("ALTER TABLE t RENAME INDEX kb TO KB")?;
    assert!(show_create(&mut s, "t")?.contains("KEY `KB` (`a`)"));
    // The renamed key still reads and still enforces uniqueness.
    assert_eq!(rows(&mut s, "SELECT id FROM t WHERE a = 20")?, [["2"]]);
    assert_eq!(error(&mut s, "INSERT INTO t VALUES (3, 30, 100)")?.0, 1062);
    assert_eq!(
        error(&mut s, "ALTER TABLE t RENAME INDEX nope TO kx")?,
        (1176, "Key 'nope' doesn't exist in table 't'".into())
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t RENAME INDEX KB TO kd")?,
        (1061, "Duplicate key name 'kd'".into())
    );
    Ok(())
}

#[test]
fn convert_to_character_set_changes_every_character_column() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE ct (id INT PRIMARY KEY, a VARCHAR(10), b TEXT, \
         c CHAR(3) CHARACTER SET latin1 COLLATE latin1_bin, d VARBINARY(4), f TINYTEXT, \
         KEY ka (a)) DEFAULT CHARSET=latin1",
        "INSERT INTO ct VALUES (1, 'caf\u{e9}', 'x', 'abc', 'b', 'y')",
    ])?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE ct CONVERT TO CHARACTER SET utf8mb4")?;
    let text = show_create(&mut s, "ct")?;
    for part in [
        "`a` varchar(10) DEFAULT NULL",
        "`b` mediumtext DEFAULT NULL",
        "`c` char(3) DEFAULT NULL",
        "`d` varbinary(4) DEFAULT NULL",
        "`f` text DEFAULT NULL",
        "DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    assert_eq!(
        rows(&mut s, "SELECT a, c FROM ct WHERE a = 'CAF\u{c9}'")?,
        [["caf\u{e9}", "abc"]]
    );
    // Back to latin1 with a collation; a TEXT does not shrink.
    s.execute("ALTER TABLE ct CONVERT TO CHARACTER SET latin1 COLLATE latin1_bin")?;
    let text = show_create(&mut s, "ct")?;
    assert!(text.contains("`b` mediumtext"), "{text}");
    assert!(
        text.contains("DEFAULT CHARSET=latin1 COLLATE=latin1_bin"),
        "{text}"
    );
    assert!(!text.contains("CHARACTER SET"), "{text}");
    // Errors as MariaDB gives them.
    assert_eq!(
        error(&mut s, "ALTER TABLE ct CONVERT TO CHARACTER SET nope")?,
        (1115, "Unknown character set: 'nope'".into())
    );
    assert_eq!(
        error(
            &mut s,
            "ALTER TABLE ct CONVERT TO CHARACTER SET utf8mb4 COLLATE latin1_bin"
        )?
        .0,
        1253
    );
    s.execute("CREATE TABLE cv (a VARCHAR(20000)) CHARSET latin1")?;
    assert_eq!(
        error(&mut s, "ALTER TABLE cv CONVERT TO CHARACTER SET utf8mb4")?,
        (
            1074,
            "Column length too big for column 'a' (max = 16383); use BLOB or TEXT instead".into()
        )
    );
    Ok(())
}

#[test]
fn convert_refuses_characters_the_new_set_lacks() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE cx (a VARCHAR(10) CHARACTER SET utf8mb4) CHARSET latin1",
        "INSERT INTO cx VALUES ('\u{e9}'), ('\u{65e5}\u{672c}')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "ALTER TABLE cx CONVERT TO CHARACTER SET latin1")?.0,
        1366
    );
    // The table is as it was.
    assert!(show_create(&mut s, "cx")?.contains("CHARACTER SET utf8mb4"));
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM cx")?, [["2"]]);
    Ok(())
}

#[test]
fn default_character_set_leaves_the_columns() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE ct (id INT PRIMARY KEY, a VARCHAR(10)) CHARSET latin1"])?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE ct CHARACTER SET = utf8mb4")?;
    let text = show_create(&mut s, "ct")?;
    assert!(
        text.contains("`a` varchar(10) CHARACTER SET latin1 COLLATE latin1_swedish_ci"),
        "{text}"
    );
    assert!(text.contains("DEFAULT CHARSET=utf8mb4"), "{text}");
    s.execute("ALTER TABLE ct DEFAULT CHARACTER SET latin1 COLLATE latin1_bin")?;
    let text = show_create(&mut s, "ct")?;
    assert!(
        text.contains("DEFAULT CHARSET=latin1 COLLATE=latin1_bin"),
        "{text}"
    );
    // A column added now takes the new default.
    s.execute("ALTER TABLE ct ADD b CHAR(2)")?;
    assert!(show_create(&mut s, "ct")?.contains("`b` char(2) DEFAULT NULL"));
    Ok(())
}
