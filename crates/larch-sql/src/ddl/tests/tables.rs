//! DROP, TRUNCATE, RENAME, maintenance statements, and persistence across
//! reopening the database.

use super::*;

#[test]
fn truncate_empties_and_resets_auto_increment() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5) DEFAULT 'x' COMMENT 'c') COMMENT='keep'")?;
    let before = show_create(&mut s, "t")?;
    let t = db.catalog().table("test", "t")?;
    for i in 0..5 {
        let id = t.allocate_auto_increment(1)?;
        assert_eq!(id, i + 1);
        insert(&db, "t", vec![Value::Int(id as i64), txt("v")])?;
    }
    drop(t);
    assert!(show_create(&mut s, "t")?.contains("AUTO_INCREMENT=6"));
    s.execute("TRUNCATE TABLE t")?;
    assert!(scan(&db, "t")?.is_empty());
    assert_eq!(
        db.catalog().table("test", "t")?.auto_increment_next(),
        Some(1)
    );
    assert_eq!(
        show_create(&mut s, "t")?,
        before.replace(" AUTO_INCREMENT=6", "")
    );
    s.execute("TRUNCATE t")?;
    assert_eq!(db.catalog().tables("test")?, vec!["t".to_string()]);
    Ok(())
}

#[test]
fn rename_swaps_moves_and_is_all_or_nothing() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE a (x INT)")?;
    s.execute("CREATE TABLE b (y INT)")?;
    insert(&db, "a", vec![Value::Int(1)])?;
    s.execute("RENAME TABLE a TO tmp, b TO a, tmp TO b")?;
    assert!(show_create(&mut s, "a")?.contains("`y`"));
    assert!(show_create(&mut s, "b")?.contains("`x`"));
    assert_eq!(scan(&db, "b")?, vec![vec![Value::Int(1)]]);
    // A failing step undoes nothing because nothing ran: checked first.
    assert_eq!(code(&mut s, "RENAME TABLE a TO c, b TO c"), 1050);
    assert_eq!(code(&mut s, "RENAME TABLE a TO c, nope TO d"), 1146);
    assert_eq!(
        db.catalog().tables("test")?,
        vec!["a".to_string(), "b".to_string()]
    );
    // Across databases, by RENAME TABLE and by ALTER TABLE ... RENAME.
    db.catalog()
        .create_database("d2", b"utf8mb4\0utf8mb4_general_ci")?;
    s.execute("RENAME TABLE b TO d2.b2")?;
    assert_eq!(scan_in(&db, "d2", "b2")?, vec![vec![Value::Int(1)]]);
    s.execute("ALTER TABLE d2.b2 RENAME TO test.b3")?;
    assert_eq!(scan(&db, "b3")?, vec![vec![Value::Int(1)]]);
    assert!(show_create(&mut s, "b3")?.starts_with("CREATE TABLE `b3` ("));
    Ok(())
}

#[test]
fn maintenance_statements() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE m (id INT PRIMARY KEY, v INT, KEY (v))")?;
    insert(&db, "m", vec![Value::Int(1), Value::Int(2)])?;
    assert_eq!(
        rows(&mut s, "CHECK TABLE m, nope")?,
        vec![
            vec!["test.m", "check", "status", "OK"],
            vec![
                "test.nope",
                "check",
                "Error",
                "Table 'test.nope' doesn't exist"
            ],
            vec!["test.nope", "check", "status", "Operation failed"],
        ]
    );
    assert_eq!(
        rows(&mut s, "OPTIMIZE TABLE m")?,
        vec![
            vec![
                "test.m",
                "optimize",
                "note",
                "Table does not support optimize, doing recreate + analyze instead"
            ],
            vec!["test.m", "optimize", "status", "OK"],
        ]
    );
    assert_eq!(scan(&db, "m")?, vec![vec![Value::Int(1), Value::Int(2)]]);
    assert_eq!(rows(&mut s, "ANALYZE TABLE m")?[0][3], "OK");
    assert_eq!(
        column_names(&mut s, "REPAIR TABLE m")?,
        ["Table", "Op", "Msg_type", "Msg_text"]
    );
    Ok(())
}

#[test]
fn definitions_and_rows_survive_reopening() -> R {
    let dir = tempfile::tempdir()?;
    let shown;
    {
        let (db, mut s) = open(dir.path())?;
        s.execute(
            "CREATE TABLE r (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, v VARCHAR(8) NOT NULL DEFAULT 'z' COMMENT 'vee', \
             d DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), KEY kv (v(4)), FULLTEXT KEY f (v)) AUTO_INCREMENT=42 COMMENT='persist'",
        )?;
        insert(&db, "r", vec![Value::UInt(7), txt("seven"), Value::Null])?;
        s.execute("ALTER TABLE r ADD COLUMN e INT DEFAULT 3")?;
        shown = show_create(&mut s, "r")?;
        assert!(shown.contains("AUTO_INCREMENT=42"), "{shown}");
        drop(s);
        db.close()?;
    }
    let (db, mut s) = open(dir.path())?;
    assert_eq!(show_create(&mut s, "r")?, shown);
    assert_eq!(
        scan(&db, "r")?,
        vec![vec![
            Value::UInt(7),
            txt("seven"),
            Value::Null,
            Value::Int(3)
        ]]
    );
    assert_eq!(db.catalog().tables("test")?, vec!["r".to_string()]);
    Ok(())
}
