//! `LOAD DATA INFILE` (server-side files) as MariaDB runs it: formats,
//! column lists with `@variables` and SET, IGNORE n LINES, short and long
//! rows in strict and non-strict mode, duplicates (error, REPLACE,
//! IGNORE), AUTO_INCREMENT, the info message, all-or-nothing on error,
//! `secure_file_priv`, and a large file.

mod support;

use larch_engine::record::value::Value;
use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

fn err(s: &mut Session, sql: &str) -> (u16, String) {
    match s.execute(sql) {
        Ok(_) => (0, String::new()),
        Err(e) => (e.code(), e.to_string()),
    }
}

/// Runs LOAD DATA and returns (affected rows, info).
fn load(s: &mut Session, sql: &str) -> R<(u64, String)> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok((ok.affected_rows, ok.info)),
        other => Err(format!("{other:?}").into()),
    }
}

fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> R<String> {
    let p = dir.path().join(name);
    std::fs::write(&p, text)?;
    Ok(p.to_string_lossy().into_owned())
}

#[test]
fn formats_columns_and_set() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(20), c VARCHAR(20))",
    ])?;
    let dir = tempfile::tempdir()?;
    let mut s = t.session(50)?;
    let f = file(
        &dir,
        "a.txt",
        "header\n\\N\t1\tone\t\\N\n\\N\t2\t\\N\t\\N\n",
    )?;
    let (n, info) = load(
        &mut s,
        &format!("LOAD DATA INFILE '{f}' INTO TABLE t IGNORE 1 LINES"),
    )?;
    assert_eq!(n, 2);
    assert_eq!(info, "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0");
    assert_eq!(
        rows(&mut s, "SELECT id, a, b, c FROM t")?,
        vec![
            vec!["1", "1", "one", "NULL"],
            vec!["2", "2", "NULL", "NULL"]
        ]
    );
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "1");
    // A CSV with quoting, a column list with a variable and SET.
    let f = file(
        &dir,
        "b.csv",
        "\"x\",10,\"a,b\"\r\n\"y\",20,\"say \"\"hi\"\"\"\r\n",
    )?;
    let (n, _) = load(
        &mut s,
        &format!(
            "LOAD DATA INFILE '{f}' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"' \
             LINES TERMINATED BY '\\r\\n' (c, @v, b) SET a = @v * 2"
        ),
    )?;
    assert_eq!(n, 2);
    assert_eq!(
        rows(&mut s, "SELECT a, b, c FROM t WHERE id > 2 ORDER BY id")?,
        vec![vec!["20", "a,b", "x"], vec!["40", "say \"hi\"", "y"]]
    );
    assert_eq!(one(&mut s, "SELECT @v")?, "20");
    // LINES STARTING BY skips what comes before the prefix.
    let f = file(&dir, "c.txt", "junk\nxx7\tpre\nno prefix\nxx8\tfix\n")?;
    load(
        &mut s,
        &format!("LOAD DATA INFILE '{f}' INTO TABLE t LINES STARTING BY 'xx' (a, b)"),
    )?;
    assert_eq!(
        rows(&mut s, "SELECT a, b FROM t WHERE a IN (7, 8) ORDER BY a")?,
        vec![vec!["7", "pre"], vec!["8", "fix"]]
    );
    assert_eq!(
        err(
            &mut s,
            &format!("LOAD DATA INFILE '{f}' INTO TABLE t (a, nope)")
        )
        .0,
        1054
    );
    assert_eq!(
        err(&mut s, "LOAD DATA INFILE '/nonexistent/x.txt' INTO TABLE t").0,
        29
    );
    Ok(())
}

#[test]
fn short_long_and_null_rows() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT NOT NULL, b VARCHAR(5) DEFAULT 'dflt')"])?;
    let dir = tempfile::tempdir()?;
    let mut s = t.session(50)?;
    let f = file(&dir, "a.txt", "1\n2\tx\textra\n\\N\ty\n")?;
    s.execute("SET sql_mode = ''")?;
    let (n, info) = load(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE t"))?;
    assert_eq!(n, 3);
    assert_eq!(info, "Records: 3  Deleted: 0  Skipped: 0  Warnings: 3");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![
            vec![
                "Warning",
                "1261",
                "Row 1 doesn't contain data for all columns"
            ],
            vec![
                "Warning",
                "1262",
                "Row 2 was truncated; it contained more data than there were input columns"
            ],
            vec![
                "Warning",
                "1263",
                "Column set to default value; NULL supplied to NOT NULL column 'a' at row 3"
            ],
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT a, b FROM t ORDER BY a")?,
        vec![vec!["0", "y"], vec!["1", "dflt"], vec!["2", "x"]]
    );
    // Strict mode: the first bad row fails the statement, nothing stays.
    s.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")?;
    s.execute("DELETE FROM t")?;
    let (code, msg) = err(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE t"));
    assert_eq!(
        (code, msg.as_str()),
        (1261, "Row 1 doesn't contain data for all columns")
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "0");
    // IGNORE turns them back into warnings.
    let (n, _) = load(
        &mut s,
        &format!("LOAD DATA INFILE '{f}' IGNORE INTO TABLE t"),
    )?;
    assert_eq!(n, 3);
    Ok(())
}

#[test]
fn duplicates_and_atomicity() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO t VALUES (2, 'old')",
    ])?;
    let dir = tempfile::tempdir()?;
    let mut s = t.session(50)?;
    let f = file(&dir, "a.txt", "1\tone\n2\ttwo\n3\tthree\n")?;
    let (code, msg) = err(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE t"));
    assert_eq!(code, 1062, "{msg}");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "1");
    let (n, info) = load(
        &mut s,
        &format!("LOAD DATA INFILE '{f}' IGNORE INTO TABLE t"),
    )?;
    assert_eq!(n, 2);
    assert_eq!(info, "Records: 3  Deleted: 0  Skipped: 1  Warnings: 1");
    assert_eq!(one(&mut s, "SELECT v FROM t WHERE k = 2")?, "old");
    let (n, info) = load(
        &mut s,
        &format!("LOAD DATA INFILE '{f}' REPLACE INTO TABLE t"),
    )?;
    // Rows 1 and 3 are identical to the ones they replace: MariaDB changes
    // them in place and counts them once; row 2 is a delete and an insert
    // (MariaDB 10.11: 4 rows affected, Deleted: 1).
    assert_eq!(n, 4);
    assert_eq!(info, "Records: 3  Deleted: 1  Skipped: 0  Warnings: 0");
    assert_eq!(one(&mut s, "SELECT v FROM t WHERE k = 2")?, "two");
    // Inside a transaction the rows roll back with it.
    s.execute("DELETE FROM t")?;
    s.execute("BEGIN")?;
    load(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE t"))?;
    s.execute("ROLLBACK")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "0");
    Ok(())
}

#[test]
fn secure_file_priv_and_large_file() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(40))"])?;
    let dir = tempfile::tempdir()?;
    let other = tempfile::tempdir()?;
    let mut big = String::new();
    for i in 0..200_000 {
        big.push_str(&format!("{i}\trow number {i}\n"));
    }
    let f = file(&dir, "big.txt", &big)?;
    let outside = file(&other, "x.txt", "1\tx\n")?;
    let dir_s = dir.path().to_string_lossy().into_owned();
    t.db.set_server_fact("secure_file_priv", Value::Str(dir_s));
    let mut s = t.session(50)?;
    let refused = (
        1290,
        "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement".to_owned(),
    );
    assert_eq!(
        err(
            &mut s,
            &format!("LOAD DATA INFILE '{outside}' INTO TABLE t")
        ),
        refused
    );
    let escape = format!("{}/../x.txt", dir.path().to_string_lossy());
    assert_eq!(
        err(&mut s, &format!("SELECT 1 INTO OUTFILE '{escape}'")),
        refused
    );
    let (n, _) = load(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE t"))?;
    assert_eq!(n, 200_000);
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), MAX(a), MIN(b) FROM t")?,
        vec![vec!["200000", "199999", "row number 0"]]
    );
    t.db.set_server_fact("secure_file_priv", Value::Str("NULL".into()));
    assert_eq!(
        err(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE t")).0,
        1290
    );
    // LOCAL without a client that can send files.
    assert_eq!(
        err(&mut s, "LOAD DATA LOCAL INFILE 'x' INTO TABLE t"),
        (
            1148,
            "The used command is not allowed with this MariaDB version".into()
        )
    );
    Ok(())
}
