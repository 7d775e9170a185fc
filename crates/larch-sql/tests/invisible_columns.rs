//! INVISIBLE columns end to end in process, as MariaDB 10.11 has them: left
//! out of `SELECT *` (also through a view and `t.*`) and of an INSERT
//! without a column list (1136 when a value is given for one), readable and
//! writable by name, shown in SHOW CREATE TABLE (`INVISIBLE` before the
//! DEFAULT clause), SHOW COLUMNS and INFORMATION_SCHEMA.COLUMNS (`Extra`),
//! made visible by MODIFY, kept when ALTER rebuilds the table, left out
//! by LOAD DATA without a column list, and the errors 4108 (NOT NULL
//! without a default) and 1113 (no visible column).

mod support;

use support::{error, query, rows, show_create, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE iv (id INT PRIMARY KEY, a INT, h INT INVISIBLE, \
         h2 VARCHAR(5) DEFAULT 'x' INVISIBLE)",
        "INSERT INTO iv VALUES (1, 2)",
        "INSERT INTO iv (id, a, h) VALUES (2, 3, 4)",
    ])
}

#[test]
fn invisible_columns_are_left_out_of_star_and_bare_insert() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let (names, got) = query(&mut s, "SELECT * FROM iv ORDER BY id")?;
    assert_eq!(names, ["id", "a"]);
    assert_eq!(got, [["1", "2"], ["2", "3"]]);
    assert_eq!(
        rows(&mut s, "SELECT id, h, h2 FROM iv ORDER BY id")?,
        [["1", "NULL", "x"], ["2", "4", "x"]]
    );
    let (names, _) = query(&mut s, "SELECT iv.* FROM iv")?;
    assert_eq!(names, ["id", "a"]);
    assert_eq!(
        error(&mut s, "INSERT INTO iv VALUES (3, 4, 5)")?,
        (
            1136,
            "Column count doesn't match value count at row 1".into()
        )
    );
    s.execute("INSERT INTO iv SET id = 10, a = 1, h = 7")?;
    assert_eq!(rows(&mut s, "SELECT * FROM iv WHERE h = 7")?, [["10", "1"]]);
    s.execute("CREATE VIEW ivv AS SELECT * FROM iv")?;
    let (names, _) = query(&mut s, "SELECT * FROM ivv")?;
    assert_eq!(names, ["id", "a"]);
    Ok(())
}

#[test]
fn invisible_shows_in_create_table_and_columns() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let text = show_create(&mut s, "iv")?;
    assert!(
        text.contains("`h` int(11) INVISIBLE DEFAULT NULL,"),
        "{text}"
    );
    assert!(
        text.contains("`h2` varchar(5) INVISIBLE DEFAULT 'x',"),
        "{text}"
    );
    assert_eq!(
        rows(&mut s, "SHOW COLUMNS FROM iv")?
            .into_iter()
            .map(|r| format!("{}:{}", r[0], r[5]))
            .collect::<Vec<_>>(),
        ["id:", "a:", "h:INVISIBLE", "h2:INVISIBLE"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLUMN_NAME, EXTRA FROM INFORMATION_SCHEMA.COLUMNS \
             WHERE TABLE_NAME = 'iv' ORDER BY ORDINAL_POSITION"
        )?,
        [
            ["id", ""],
            ["a", ""],
            ["h", "INVISIBLE"],
            ["h2", "INVISIBLE"]
        ]
    );
    // A NOT NULL one with a default.
    s.execute("CREATE TABLE iv4 (a INT, b INT NOT NULL DEFAULT 1 INVISIBLE)")?;
    assert!(show_create(&mut s, "iv4")?.contains("`b` int(11) NOT NULL INVISIBLE DEFAULT 1"));
    Ok(())
}

#[test]
fn alter_adds_and_modify_makes_visible() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE iv ADD COLUMN z INT INVISIBLE")?;
    s.execute("ALTER TABLE iv MODIFY h INT")?;
    let text = show_create(&mut s, "iv")?;
    assert!(text.contains("`h` int(11) DEFAULT NULL,"), "{text}");
    assert!(
        text.contains("`z` int(11) INVISIBLE DEFAULT NULL,"),
        "{text}"
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM iv ORDER BY id")?,
        [["1", "2", "NULL"], ["2", "3", "4"]]
    );
    Ok(())
}

#[test]
fn load_data_without_a_column_list_fills_the_visible_columns() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("iv.txt");
    std::fs::write(&path, "5\t6\n")?;
    s.execute(&format!(
        "LOAD DATA INFILE '{}' INTO TABLE iv",
        path.to_string_lossy()
    ))?;
    assert_eq!(
        rows(&mut s, "SELECT id, a, h, h2 FROM iv WHERE id = 5")?,
        [["5", "6", "NULL", "x"]]
    );
    Ok(())
}

#[test]
fn errors_as_mariadb() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "CREATE TABLE iv3 (a INT, b INT NOT NULL INVISIBLE)")?,
        (
            4108,
            "Invisible column `b` must have a default value".into()
        )
    );
    assert_eq!(
        error(&mut s, "CREATE TABLE iv2 (a INT INVISIBLE)")?,
        (1113, "A table must have at least 1 column".into())
    );
    Ok(())
}
