//! MariaDB's UUID type and INSERT/REPLACE/DELETE ... RETURNING, which
//! applications use as soon as the server says it is MariaDB (Django's
//! UUIDField is a UUID column and every insert reads its id back with
//! RETURNING). Every expected answer here is MariaDB 10.11's.

mod support;

use support::{code, error, query, rows, show_create, warnings, TestDb, R};

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn uuid_columns_store_compare_and_sort_as_mariadb() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE u (a UUID PRIMARY KEY, b INT, c UUID, KEY (c))"])?;
    let mut s = t.session(5)?;
    s.execute(
        "INSERT INTO u VALUES \
         ('550e8400-e29b-41d4-a716-446655440000', 1, NULL), \
         ('550E8400E29B41D4A716446655440001', 2, NULL), \
         ('11111111-2222-3333-4444-555555555555', 3, NULL), \
         ('00000000-0000-1000-8000-000000000001', 4, NULL), \
         ('ffffffff-0000-1000-8000-000000000000', 5, NULL), \
         ('00000001-0000-4000-8000-000000000000', 6, NULL), \
         ('00000000-0001-1000-8000-000000000000', 7, NULL), \
         ('1-2-3-4-5-6-7-8-9-0-1-2-3-4-5-6-7-8-9-0-1-2-3-4-5-6-7-8-9-0-1-2', 8, NULL), \
         ('00000000-0001-1000-0000-000000000000', 9, NULL)",
    )?;
    s.execute("UPDATE u SET c = a")?;
    // MariaDB's UUID order: time-based UUIDs (version 1-5, RFC variant) by
    // their segments from the last; the others as written.
    let by_a: Vec<String> = rows(&mut s, "SELECT b FROM u ORDER BY a")?
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let mariadb_order = strs(&["5", "7", "6", "9", "4", "3", "8", "1", "2"]);
    assert_eq!(by_a, mariadb_order);
    // The same order without an index (c is a secondary key, b none),
    // through a sort, and in MIN/MAX.
    for q in [
        "SELECT b FROM u ORDER BY c",
        "SELECT b FROM u IGNORE INDEX (c) ORDER BY c",
        "SELECT b FROM u ORDER BY CAST(c AS UUID)",
    ] {
        let got: Vec<String> = rows(&mut s, q)?.into_iter().map(|r| r[0].clone()).collect();
        assert_eq!(got, mariadb_order, "{q}");
    }
    assert_eq!(
        rows(&mut s, "SELECT MAX(a), MIN(c) FROM u")?,
        vec![strs(&[
            "550e8400-e29b-41d4-a716-446655440001",
            "ffffffff-0000-1000-8000-000000000000"
        ])]
    );
    // The text is the canonical form, whatever form went in.
    assert_eq!(
        rows(
            &mut s,
            "SELECT a, LENGTH(a), a LIKE '550e%' FROM u WHERE b = 2"
        )?,
        vec![strs(&["550e8400-e29b-41d4-a716-446655440001", "36", "1"])]
    );
    assert_eq!(
        rows(&mut s, "SELECT a FROM u WHERE b = 8")?,
        vec![strs(&["12345678-9012-3456-7890-123456789012"])]
    );
    // A string compares as a UUID: any accepted form, and in UUID order.
    for q in [
        "SELECT b FROM u WHERE a = '550E8400E29B41D4A716446655440001'",
        "SELECT b FROM u WHERE c = '550e8400e29b41d4a716446655440001'",
        "SELECT b FROM u WHERE a IN ('550E8400E29B41D4A716446655440001', '446655440000')",
        "SELECT b FROM u WHERE a > '550e8400-e29b-41d4-a716-446655440000'",
    ] {
        assert_eq!(rows(&mut s, q)?, vec![strs(&["2"])], "{q}");
    }
    // Text that is no UUID compares as NULL, with a warning.
    assert_eq!(rows(&mut s, "SELECT b FROM u WHERE a = 'zz'")?.len(), 0);
    let w = warnings(&mut s)?;
    assert!(!w.is_empty());
    assert!(w
        .iter()
        .all(|w| *w == strs(&["Warning", "1292", "Incorrect uuid value: 'zz'"])));
    // A UUID does not compare with a number.
    assert_eq!(
        error(&mut s, "SELECT b FROM u WHERE a = 1")?,
        (
            4078,
            "Illegal parameter data types uuid and int for operation '='".into()
        )
    );
    assert!(show_create(&mut s, "u")?.contains("`a` uuid NOT NULL"));
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLUMN_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS \
             WHERE TABLE_NAME = 'u' AND COLUMN_NAME = 'a'"
        )?,
        vec![strs(&["uuid", "uuid", "NULL"])]
    );
    Ok(())
}

#[test]
fn values_that_are_no_uuid_are_refused_or_warned() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE v (a UUID, b UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001')",
    ])?;
    let mut s = t.session(5)?;
    for bad in [
        "'zz'",
        "'{550e8400-e29b-41d4-a716-446655440000}'",
        "'-550e8400e29b41d4a716446655440000'",
        "'550e8400e29b41d4a71644665544000'",
    ] {
        let (c, m) = error(&mut s, &format!("INSERT INTO v (a) VALUES ({bad})"))?;
        assert_eq!(c, 1292, "{bad}");
        assert!(m.starts_with("Incorrect uuid value: "), "{m}");
        assert!(m.ends_with("for column `test`.`v`.`a` at row 1"), "{m}");
    }
    assert_eq!(code(&mut s, "INSERT INTO v (a) VALUES (12)"), 4078);
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO v (a) VALUES ('zz')")?;
    assert_eq!(
        warnings(&mut s)?,
        vec![strs(&[
            "Warning",
            "1292",
            "Incorrect uuid value: 'zz' for column `test`.`v`.`a` at row 1"
        ])]
    );
    // A 16-byte binary string is a UUID's bytes.
    s.execute("INSERT INTO v (a) VALUES (UNHEX('550e8400e29b41d4a716446655440000'))")?;
    let (_, got) = query(&mut s, "SELECT a, b FROM v")?;
    assert_eq!(
        got,
        vec![
            strs(&["NULL", "00000000-0000-0000-0000-000000000001"]),
            strs(&[
                "550e8400-e29b-41d4-a716-446655440000",
                "00000000-0000-0000-0000-000000000001"
            ]),
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST('550E8400E29B41D4A716446655440000' AS UUID), CAST('x' AS UUID)"
        )?,
        vec![strs(&["550e8400-e29b-41d4-a716-446655440000", "NULL"])]
    );
    Ok(())
}

#[test]
fn insert_replace_and_delete_return_the_rows_they_wrote() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10), u UUID)",
    ])?;
    let mut s = t.session(5)?;
    let (cols, got) = query(
        &mut s,
        "INSERT INTO r (v, u) VALUES ('a', '550e8400-e29b-41d4-a716-446655440000'), ('b', NULL) \
         RETURNING id, v, u, CONCAT(v, '!') AS x",
    )?;
    assert_eq!(cols, strs(&["id", "v", "u", "x"]));
    assert_eq!(
        got,
        vec![
            strs(&["1", "a", "550e8400-e29b-41d4-a716-446655440000", "a!"]),
            strs(&["2", "b", "NULL", "b!"]),
        ]
    );
    assert_eq!(
        query(&mut s, "INSERT INTO r (v) VALUES ('c') RETURNING *")?,
        (strs(&["id", "v", "u"]), vec![strs(&["3", "c", "NULL"])])
    );
    assert_eq!(rows(&mut s, "SELECT LAST_INSERT_ID()")?, vec![strs(&["3"])]);
    assert_eq!(
        rows(&mut s, "INSERT INTO r SET v = 'd' RETURNING r.id, `r`.`v`")?,
        vec![strs(&["4", "d"])]
    );
    assert_eq!(
        rows(&mut s, "REPLACE INTO r (id, v) VALUES (1, 'z') RETURNING *")?,
        vec![strs(&["1", "z", "NULL"])]
    );
    assert_eq!(
        error(&mut s, "INSERT INTO r (v) VALUES ('e') RETURNING nosuch")?.0,
        1054
    );
    // The failed statement wrote nothing.
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM r")?, vec![strs(&["4"])]);
    assert_eq!(
        rows(&mut s, "DELETE FROM r WHERE id > 2 RETURNING id, v")?,
        vec![strs(&["3", "c"]), strs(&["4", "d"])]
    );
    assert_eq!(
        rows(&mut s, "DELETE FROM r AS x WHERE x.id = 2 RETURNING x.v")?,
        vec![strs(&["b"])]
    );
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM r")?,
        vec![strs(&["1", "z"])]
    );
    // ON DUPLICATE KEY UPDATE: the rows inserted and the rows updated (or
    // met unchanged), in the statement's order.
    s.execute("CREATE TABLE od (id INT AUTO_INCREMENT PRIMARY KEY, k INT UNIQUE, v INT)")?;
    s.execute("INSERT INTO od (k, v) VALUES (1, 1), (2, 2)")?;
    assert_eq!(
        rows(
            &mut s,
            "INSERT INTO od (k, v) VALUES (1, 10), (3, 3), (2, 2) \
             ON DUPLICATE KEY UPDATE v = VALUES(v) RETURNING id, k, v"
        )?,
        vec![
            strs(&["1", "1", "10"]),
            strs(&["3", "3", "3"]),
            strs(&["2", "2", "2"])
        ]
    );
    Ok(())
}

#[test]
fn returning_needs_select_on_the_table() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE p (id INT PRIMARY KEY, secret VARCHAR(10))",
        "INSERT INTO p VALUES (1, 'x'), (2, 'y')",
        "CREATE USER lo@localhost",
        "GRANT INSERT, DELETE ON test.p TO lo@localhost",
    ])?;
    let mut lo = t.db.new_session(0, "lo", "localhost")?;
    lo.use_database("test")?;
    // MariaDB refuses both (1143 for the column; Larch asks SELECT on the
    // table: 1142); nothing is written.
    for sql in [
        "DELETE FROM p WHERE id = 1 RETURNING secret",
        "INSERT INTO p VALUES (3, 'z') RETURNING secret",
    ] {
        let (c, _) = error(&mut lo, sql)?;
        assert_eq!(c, 1142, "{sql}");
    }
    lo.execute("DELETE FROM p WHERE id = 2")?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT id, secret FROM p")?,
        vec![strs(&["1", "x"])]
    );
    Ok(())
}
