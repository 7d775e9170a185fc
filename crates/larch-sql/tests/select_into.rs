//! `SELECT ... INTO @variables | OUTFILE | DUMPFILE` in MariaDB's two
//! positions, with its errors and warnings, and the OUTFILE format read back
//! by LOAD DATA.

mod support;

use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

fn err(s: &mut Session, sql: &str) -> (u16, String) {
    match s.execute(sql) {
        Ok(_) => (0, String::new()),
        Err(e) => (e.code(), e.to_string()),
    }
}

#[test]
fn into_variables() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a INT, b VARCHAR(10))",
        "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
    ])?;
    let mut s = t.session(50)?;
    s.execute("SELECT a, b INTO @a, @b FROM t WHERE a = 1")?;
    assert_eq!(rows(&mut s, "SELECT @a, @b")?, vec![vec!["1", "x"]]);
    s.execute("SELECT a, b FROM t WHERE a = 2 INTO @a, @b")?;
    assert_eq!(rows(&mut s, "SELECT @a, @b")?, vec![vec!["2", "y"]]);
    s.execute("SELECT MAX(a) FROM t INTO @m")?;
    assert_eq!(one(&mut s, "SELECT @m")?, "2");
    assert_eq!(
        err(&mut s, "SELECT a INTO @a FROM t"),
        (1172, "Result consisted of more than one row".into())
    );
    assert_eq!(
        err(&mut s, "SELECT a, b INTO @a FROM t"),
        (
            1222,
            "The used SELECT statements have a different number of columns".into()
        )
    );
    // No row: variables keep their values, warning 1329.
    s.execute("SELECT a INTO @a FROM t WHERE a > 10")?;
    assert_eq!(one(&mut s, "SELECT @a")?, "2");
    s.execute("SELECT a INTO @a FROM t WHERE a > 10")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Warning",
            "1329",
            "No data - zero rows fetched, selected, or processed"
        ]]
    );
    // Subqueries keep their own INTO-less form.
    s.execute("SELECT (SELECT COUNT(*) FROM t) INTO @c")?;
    assert_eq!(one(&mut s, "SELECT @c")?, "2");
    Ok(())
}

#[test]
fn outfile_round_trip_and_refusals() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a INT, b VARCHAR(20), c TEXT)",
        "INSERT INTO t VALUES (1, 'tab\there', NULL), (2, 'new\nline', 'back\\\\slash'), (3, 'q\"uote', '')",
    ])?;
    let dir = tempfile::tempdir()?;
    let mut s = t.session(50)?;
    let f = dir.path().join("t.txt");
    let f = f.to_string_lossy();
    s.execute(&format!("SELECT * FROM t ORDER BY a INTO OUTFILE '{f}'"))?;
    let text = std::fs::read_to_string(&*f)?;
    assert_eq!(
        text,
        "1\ttab\\\there\t\\N\n2\tnew\\\nline\tback\\\\slash\n3\tq\"uote\t\n"
    );
    assert_eq!(
        err(&mut s, &format!("SELECT 1 INTO OUTFILE '{f}'")),
        (1086, format!("File '{f}' already exists"))
    );
    // CSV with optional quoting, then loaded back.
    let csv = dir.path().join("t.csv");
    let csv = csv.to_string_lossy();
    s.execute(&format!(
        "SELECT * INTO OUTFILE '{csv}' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' \
         LINES TERMINATED BY '\\r\\n' FROM t ORDER BY a"
    ))?;
    assert_eq!(
        std::fs::read_to_string(&*csv)?,
        "1,\"tab\there\",\\N\r\n2,\"new\nline\",\"back\\\\slash\"\r\n3,\"q\\\"uote\",\"\"\r\n"
    );
    s.execute("CREATE TABLE u LIKE t")?;
    s.execute(&format!("LOAD DATA INFILE '{f}' INTO TABLE u"))?;
    s.execute("CREATE TABLE v LIKE t")?;
    s.execute(&format!(
        "LOAD DATA INFILE '{csv}' INTO TABLE v FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' \
         LINES TERMINATED BY '\\r\\n'"
    ))?;
    let original = rows(&mut s, "SELECT * FROM t ORDER BY a")?;
    assert_eq!(rows(&mut s, "SELECT * FROM u ORDER BY a")?, original);
    assert_eq!(rows(&mut s, "SELECT * FROM v ORDER BY a")?, original);
    // DUMPFILE: one row, raw bytes.
    let d = dir.path().join("d.bin");
    let d = d.to_string_lossy();
    s.execute(&format!("SELECT c FROM t WHERE a = 2 INTO DUMPFILE '{d}'"))?;
    assert_eq!(std::fs::read_to_string(&*d)?, "back\\slash");
    let d2 = dir.path().join("d2.bin");
    assert_eq!(
        err(
            &mut s,
            &format!("SELECT c FROM t INTO DUMPFILE '{}'", d2.to_string_lossy())
        )
        .0,
        1172
    );
    Ok(())
}
