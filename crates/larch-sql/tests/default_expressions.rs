//! DEFAULT expressions over the row's other columns (`DEFAULT (a * 2)`),
//! as MariaDB 10.11 has them: evaluated after the given values and the
//! constant defaults, in column order; refused with MariaDB's errors where
//! they cannot be; shown as MariaDB shows them; filled into existing rows
//! by ALTER TABLE ADD COLUMN. Every answer here was taken from MariaDB.

mod support;

use support::{error, one, rows, show_create, TestDb, R};

#[test]
fn defaults_read_the_given_values_and_earlier_defaults() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE d4 (a INT, b INT DEFAULT (a * 2), c VARCHAR(10) DEFAULT (CONCAT('x', b)), \
         d INT DEFAULT (e), e INT DEFAULT 7)",
    ])?;
    let mut s = t.session(5)?;
    for sql in [
        "INSERT INTO d4 (a) VALUES (5)",
        "INSERT INTO d4 (a, b) VALUES (5, 1)",
        "INSERT INTO d4 VALUES ()",
        "INSERT INTO d4 (a, e) VALUES (1, 100)",
    ] {
        s.execute(sql)?;
    }
    assert_eq!(
        rows(&mut s, "SELECT * FROM d4")?,
        vec![
            vec!["5", "10", "x10", "7", "7"],
            vec!["5", "1", "x1", "7", "7"],
            vec!["NULL", "NULL", "NULL", "7", "7"],
            vec!["1", "2", "x2", "100", "100"],
        ]
    );
    let create = show_create(&mut s, "d4")?;
    for shown in [
        "`b` int(11) DEFAULT (`a` * 2)",
        "`c` varchar(10) DEFAULT concat('x', `b`)",
        "`d` int(11) DEFAULT `e`",
    ] {
        assert!(create.contains(shown), "{shown} in {create}");
    }
    assert_eq!(
        rows(
            &mut s,
            "SELECT column_default FROM information_schema.columns \
             WHERE table_name = 'd4' AND column_name = 'b'"
        )?,
        vec![vec!["(`a` * 2)"]]
    );
    // A constant expression shows as MariaDB shows it too.
    s.execute("CREATE TABLE z (a INT DEFAULT (1+1), c INT DEFAULT (ABS(-3)))")?;
    let create = show_create(&mut s, "z")?;
    assert!(create.contains("`a` int(11) DEFAULT (1 + 1)"), "{create}");
    assert!(create.contains("`c` int(11) DEFAULT abs(-3)"), "{create}");
    // What SHOW CREATE TABLE printed creates the same table again.
    let again = create.replacen("`z`", "`z2`", 1);
    s.execute(&again)?;
    s.execute("INSERT INTO z2 () VALUES ()")?;
    assert_eq!(rows(&mut s, "SELECT * FROM z2")?, vec![vec!["2", "3"]]);
    Ok(())
}

#[test]
fn defaults_that_cannot_be_are_refused() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    assert_eq!(
        error(&mut s, "CREATE TABLE d0 (a INT DEFAULT (a + 1))")?,
        (
            4029,
            "Expression for field `a` is referring to uninitialized field `a`".to_owned()
        )
    );
    assert_eq!(
        error(&mut s, "CREATE TABLE d2 (a INT DEFAULT (zz + 1))")?,
        (1054, "Unknown column 'zz' in 'DEFAULT'".to_owned())
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE d3 (id INT AUTO_INCREMENT PRIMARY KEY, b INT DEFAULT (id + 1))"
        )?,
        (
            1901,
            "Function or expression 'AUTO_INCREMENT' cannot be used in the DEFAULT clause of `id`"
                .to_owned()
        )
    );
    // A later column whose DEFAULT is evaluated per row is not there yet;
    // a later constant one is.
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE q (a TIMESTAMP NULL DEFAULT (b), b TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"
        )?
        .0,
        4029
    );
    s.execute("CREATE TABLE q2 (a INT DEFAULT (b), b INT DEFAULT (1+1))")?;
    s.execute("CREATE TABLE d1 (a INT DEFAULT (b + 1), b INT)")?;
    s.execute("INSERT INTO d1 (b) VALUES (41)")?;
    assert_eq!(one(&mut s, "SELECT a FROM d1")?, "42");
    assert_eq!(
        error(&mut s, "ALTER TABLE d1 ALTER COLUMN b SET DEFAULT (a - 1)")?.0,
        4029
    );
    // NOT NULL: a NULL default is refused as a given NULL would be.
    s.execute("CREATE TABLE d6 (a INT, b INT DEFAULT (a + 1) NOT NULL)")?;
    assert_eq!(
        error(&mut s, "INSERT INTO d6 VALUES ()")?,
        (1048, "Column 'b' cannot be null".to_owned())
    );
    s.execute("INSERT INTO d6 (a) VALUES (3)")?;
    assert_eq!(rows(&mut s, "SELECT * FROM d6")?, vec![vec!["3", "4"]]);
    Ok(())
}

#[test]
fn a_new_column_reads_each_existing_row() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE d5 (a INT)",
        "INSERT INTO d5 VALUES (1), (2), (NULL)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("ALTER TABLE d5 ADD COLUMN b INT DEFAULT (a + 10)")?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM d5")?,
        vec![vec!["1", "11"], vec!["2", "12"], vec!["NULL", "NULL"]]
    );
    Ok(())
}
