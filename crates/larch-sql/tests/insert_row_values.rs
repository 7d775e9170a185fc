//! Values of an INSERT that name the row's own columns, and NULL into NOT
//! NULL columns outside strict mode, as MariaDB 10.11 does them (the
//! expected rows, warnings and errors are MariaDB's for the same
//! statements): `SET b = a + 1` and `VALUES (1, a + 1)` read the value
//! already given to `a` in the row (converted to its type), any column not
//! yet given one its DEFAULT; outside strict mode UPDATE, INSERT of several
//! rows and INSERT ... SELECT store the type's implicit default with
//! warning 1048, while a single-row INSERT still fails with 1048.

mod support;

use larch_sql::session::Session;
use support::{error, rows, TestDb, R};

fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

fn setup() -> R<(TestDb, Session)> {
    let t = TestDb::new(&[
        "CREATE TABLE n1 (a INT NOT NULL, b INT NOT NULL DEFAULT 5, \
         c VARCHAR(3) NOT NULL, d INT, e INT)",
        "CREATE TABLE n2 (a INT NOT NULL, b VARCHAR(5) NOT NULL, c INT DEFAULT 7, \
         e ENUM('x','y') DEFAULT 'y')",
    ])?;
    let s = t.session(5)?;
    Ok((t, s))
}

#[test]
fn values_read_columns_set_before() -> R<()> {
    let (_t, mut s) = setup()?;
    s.execute("INSERT INTO n1 SET a = 1, b = a + 1, c = 'x'")?;
    s.execute("INSERT INTO n1 VALUES (2, a + 1, 'y', b * 10, DEFAULT)")?;
    s.execute("INSERT INTO n1 SET b = 3, a = b + 1, c = 'z'")?;
    // Columns not set yet: their DEFAULT (b), NULL (e).
    s.execute("INSERT INTO n1 SET a = b + 1, b = 3, c = 'c', d = e, e = 4")?;
    assert_eq!(
        flat(&mut s, "SELECT * FROM n1")?,
        [
            "1,2,x,NULL,NULL",
            "2,3,y,30,NULL",
            "4,3,z,NULL,NULL",
            "6,3,c,NULL,4"
        ]
    );
    Ok(())
}

#[test]
fn values_read_converted_values_and_defaults() -> R<()> {
    let (_t, mut s) = setup()?;
    // An ENUM default read as its text; a NOT NULL column without DEFAULT
    // reads as its type's implicit default ('' here).
    s.execute("INSERT INTO n2 SET a = c + 1, b = e")?;
    s.execute("INSERT INTO n2 SET a = LENGTH(b), b = 'x'")?;
    s.execute("INSERT INTO n2 VALUES (1, 'q', n2.a + 5, 'x')")?;
    // Each row of a multi-row VALUES reads its own values.
    s.execute("INSERT INTO n2 (b, a) VALUES ('3', b * 2), ('4', b * 3)")?;
    s.execute("INSERT INTO n2 SET a = 1, b = CONCAT(a, 'z')")?;
    assert_eq!(
        flat(&mut s, "SELECT * FROM n2")?,
        ["8,y,7,y", "0,x,7,y", "1,q,6,x", "6,3,7,y", "12,4,7,y", "1,1z,7,y"]
    );
    assert_eq!(
        error(&mut s, "INSERT INTO n2 VALUES (zz, 'q', 1, 'x')")?,
        (1054, "Unknown column 'zz' in 'VALUES'".into())
    );
    Ok(())
}

#[test]
fn update_to_null_outside_strict_mode_stores_the_implicit_default() -> R<()> {
    let (_t, mut s) = setup()?;
    s.execute("INSERT INTO n1 (a, c) VALUES (1, 'a')")?;
    s.execute("SET sql_mode = ''")?;
    s.execute("UPDATE n1 SET a = NULL, c = NULL WHERE a = 1")?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [
            "Warning,1048,Column 'a' cannot be null",
            "Warning,1048,Column 'c' cannot be null"
        ]
    );
    assert_eq!(flat(&mut s, "SELECT * FROM n1")?, ["0,5,,NULL,NULL"]);
    // Strict mode: the error, the row unchanged.
    s.execute("SET sql_mode = DEFAULT")?;
    assert_eq!(
        error(&mut s, "UPDATE n1 SET a = NULL")?,
        (1048, "Column 'a' cannot be null".into())
    );
    assert_eq!(flat(&mut s, "SELECT a FROM n1")?, ["0"]);
    Ok(())
}

#[test]
fn multi_row_insert_of_null_outside_strict_mode() -> R<()> {
    let (_t, mut s) = setup()?;
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO n1 VALUES (NULL, NULL, NULL, 1, 1), (NULL, 2, 'q', 2, 2)")?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [
            "Warning,1048,Column 'a' cannot be null",
            "Warning,1048,Column 'b' cannot be null",
            "Warning,1048,Column 'c' cannot be null",
            "Warning,1048,Column 'a' cannot be null"
        ]
    );
    // One row: still the error.
    assert_eq!(
        error(&mut s, "INSERT INTO n1 VALUES (NULL, 1, 'r', 3, 3)")?,
        (1048, "Column 'a' cannot be null".into())
    );
    assert_eq!(
        error(&mut s, "INSERT INTO n1 SET a = NULL, c = 'x'")?,
        (1048, "Column 'a' cannot be null".into())
    );
    // INSERT ... SELECT warns, even for one row.
    s.execute("INSERT INTO n1 (a, c, d) SELECT NULL, NULL, 5")?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [
            "Warning,1048,Column 'a' cannot be null",
            "Warning,1048,Column 'c' cannot be null"
        ]
    );
    assert_eq!(
        flat(&mut s, "SELECT * FROM n1 ORDER BY d")?,
        ["0,0,,1,1", "0,2,q,2,2", "0,5,,5,NULL"]
    );
    // Strict mode: a multi-row INSERT fails and inserts nothing.
    s.execute("SET sql_mode = DEFAULT")?;
    assert_eq!(
        error(
            &mut s,
            "INSERT INTO n1 VALUES (7, 1, 'a', 7, 7), (NULL, 2, 'q', 8, 8)"
        )?,
        (1048, "Column 'a' cannot be null".into())
    );
    assert_eq!(
        error(&mut s, "INSERT INTO n1 (a, c, d) SELECT NULL, 'x', 9")?,
        (1048, "Column 'a' cannot be null".into())
    );
    assert_eq!(flat(&mut s, "SELECT COUNT(*) FROM n1")?, ["3"]);
    Ok(())
}
