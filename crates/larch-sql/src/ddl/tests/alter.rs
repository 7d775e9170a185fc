//! ALTER TABLE: rebuilds keep and convert rows, metadata-only changes,
//! failures leave the original table, CREATE/DROP INDEX.

use super::*;

fn people(db: &Database, s: &mut Session) -> R {
    s.execute("CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(10), n INT, kind ENUM('a','b'))")?;
    insert(
        db,
        "p",
        vec![Value::Int(1), txt("ann"), Value::Int(10), Value::Enum(1)],
    )?;
    insert(
        db,
        "p",
        vec![Value::Int(2), txt("bob"), Value::Null, Value::Enum(2)],
    )?;
    insert(
        db,
        "p",
        vec![Value::Int(3), txt("bob"), Value::Int(30), Value::Null],
    )?;
    Ok(())
}

#[test]
fn rebuild_keeps_and_converts_rows() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    people(&db, &mut s)?;
    let r = s.execute(
        "ALTER TABLE p ADD COLUMN x INT NOT NULL DEFAULT 5 AFTER id, MODIFY name VARCHAR(20) NOT NULL, \
         DROP COLUMN n, CHANGE kind kind_text VARCHAR(5), ADD COLUMN first_col CHAR(2) FIRST, ADD INDEX (name)",
    )?;
    match r {
        QueryResult::Ok(ok) => {
            assert_eq!(ok.affected_rows, 3);
            assert_eq!(ok.info, "Records: 3  Duplicates: 0  Warnings: 0");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        show_create(&mut s, "p")?,
        "CREATE TABLE `p` (
  `first_col` char(2) DEFAULT NULL,
  `id` int(11) NOT NULL,
  `x` int(11) NOT NULL DEFAULT 5,
  `name` varchar(20) NOT NULL,
  `kind_text` varchar(5) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `name` (`name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(
        scan(&db, "p")?,
        vec![
            vec![
                Value::Null,
                Value::Int(1),
                Value::Int(5),
                txt("ann"),
                txt("a")
            ],
            vec![
                Value::Null,
                Value::Int(2),
                Value::Int(5),
                txt("bob"),
                txt("b")
            ],
            vec![
                Value::Null,
                Value::Int(3),
                Value::Int(5),
                txt("bob"),
                Value::Null
            ],
        ]
    );
    // Back to an ENUM: members map by name.
    s.execute("ALTER TABLE p MODIFY kind_text ENUM('b','a')")?;
    assert_eq!(scan(&db, "p")?[0][4], Value::Enum(2));
    // The new secondary index is usable.
    let t = db.catalog().table("test", "p")?;
    let mut c = t.scan(
        &larch_engine::table::ReadContext::NEWEST,
        1,
        &KeyRange::eq(vec![txt("bob")]),
        false,
        None,
    )?;
    let mut n = 0;
    while c.next_row()?.is_some() {
        n += 1;
    }
    assert_eq!(n, 2);
    Ok(())
}

#[test]
fn failing_alter_leaves_the_original() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    people(&db, &mut s)?;
    let before = show_create(&mut s, "p")?;
    let rows_before = scan(&db, "p")?;
    let e = error(&mut s, "ALTER TABLE p ADD UNIQUE KEY un (name)");
    assert_eq!(e.code(), 1062);
    assert!(
        e.message().starts_with("Duplicate entry 'bob'"),
        "{}",
        e.message()
    );
    assert_eq!(show_create(&mut s, "p")?, before);
    assert_eq!(scan(&db, "p")?, rows_before);
    // Strict conversions: NULL into NOT NULL, a value that does not fit.
    assert_eq!(code(&mut s, "ALTER TABLE p MODIFY n INT NOT NULL"), 1138);
    assert_eq!(code(&mut s, "ALTER TABLE p MODIFY name VARCHAR(2)"), 1406);
    assert_eq!(show_create(&mut s, "p")?, before);
    assert_eq!(scan(&db, "p")?, rows_before);
    let names: Vec<String> = db.catalog().tables("test")?;
    assert_eq!(names, vec!["p".to_string()], "no temporary table left");
    // Non-strict: clamped with warnings.
    s.execute("SET sql_mode = ''")?;
    let r = s.execute("ALTER TABLE p MODIFY n INT NOT NULL, MODIFY name VARCHAR(2)")?;
    match r {
        QueryResult::Ok(ok) => assert_eq!(ok.info, "Records: 3  Duplicates: 0  Warnings: 4"),
        other => panic!("{other:?}"),
    }
    let rows = scan(&db, "p")?;
    assert_eq!(rows[1][1], txt("bo"));
    assert_eq!(rows[1][2], Value::Int(0));
    Ok(())
}

#[test]
fn metadata_only_changes_and_renames() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    people(&db, &mut s)?;
    let space_before = db
        .catalog()
        .table_entry("test", "p")
        .ok_or("p")?
        .roots
        .space;
    s.execute("ALTER TABLE p ALTER COLUMN n SET DEFAULT 7, ALTER name DROP DEFAULT")?;
    s.execute("ALTER TABLE p MODIFY n INT COMMENT 'count'")?;
    let e = db.catalog().table_entry("test", "p").ok_or("p")?;
    assert_eq!(
        e.roots.space, space_before,
        "metadata changes do not rebuild"
    );
    // A FULLTEXT index is built from the rows: the table is rebuilt.
    s.execute("CREATE FULLTEXT INDEX ftn ON p (name)")?;
    let e = db.catalog().table_entry("test", "p").ok_or("p")?;
    assert_ne!(e.roots.space, space_before);
    assert_eq!(e.def.fulltext.len(), 1);
    assert_eq!(
        show_create(&mut s, "p")?,
        "CREATE TABLE `p` (
  `id` int(11) NOT NULL,
  `name` varchar(10) DEFAULT NULL,
  `n` int(11) DEFAULT NULL COMMENT 'count',
  `kind` enum('a','b') DEFAULT NULL,
  PRIMARY KEY (`id`),
  FULLTEXT KEY `ftn` (`name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    s.execute("ALTER TABLE p ALTER COLUMN n SET DEFAULT 7")?;
    assert!(show_create(&mut s, "p")?.contains("`n` int(11) DEFAULT 7 COMMENT 'count'"));
    s.execute("ALTER TABLE p RENAME COLUMN n TO m, RENAME TO q")?;
    assert_eq!(code(&mut s, "SHOW CREATE TABLE p"), 1146);
    assert!(show_create(&mut s, "q")?.contains("`m` int(11) DEFAULT 7 COMMENT 'count'"));
    assert_eq!(scan(&db, "q")?.len(), 3);
    s.execute("ALTER TABLE q RENAME AS p")?;
    assert_eq!(scan(&db, "p")?[0][2], Value::Int(10));
    Ok(())
}

#[test]
fn indexes_and_auto_increment() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    people(&db, &mut s)?;
    s.execute("CREATE UNIQUE INDEX ui ON p (id, name(4))")?;
    s.execute("CREATE INDEX ix ON p (n DESC)")?;
    s.execute("ALTER TABLE p DROP PRIMARY KEY, ADD PRIMARY KEY (id, name)")?;
    assert!(show_create(&mut s, "p")?.contains(
        "  PRIMARY KEY (`id`,`name`),\n  UNIQUE KEY `ui` (`id`,`name`(4)),\n  KEY `ix` (`n` DESC)\n"
    ));
    assert!(show_create(&mut s, "p")?.contains("`name` varchar(10) NOT NULL,"));
    s.execute("DROP INDEX ui ON p")?;
    s.execute("ALTER TABLE p DROP INDEX ix, DROP PRIMARY KEY")?;
    assert!(!show_create(&mut s, "p")?.contains("KEY"));
    // A new AUTO_INCREMENT column numbers the existing rows.
    s.execute("ALTER TABLE p ADD COLUMN seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT FIRST, ADD PRIMARY KEY (seq), AUTO_INCREMENT = 100")?;
    let seqs: Vec<Value> = scan(&db, "p")?.into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(seqs, vec![Value::UInt(1), Value::UInt(2), Value::UInt(3)]);
    let t = db.catalog().table("test", "p")?;
    assert_eq!(t.auto_increment_next(), Some(100));
    assert!(show_create(&mut s, "p")?.contains(") ENGINE=InnoDB AUTO_INCREMENT=100 DEFAULT"));
    // Dropping a column drops it from keys; an emptied key goes.
    s.execute("ALTER TABLE p ADD KEY two (n, kind), ADD KEY one (kind)")?;
    s.execute("ALTER TABLE p DROP COLUMN kind")?;
    let text = show_create(&mut s, "p")?;
    assert!(
        text.contains("KEY `two` (`n`)") && !text.contains("KEY `one`"),
        "{text}"
    );
    // ENGINE=InnoDB rebuilds (new tablespace), DISABLE KEYS is a note.
    let space = db
        .catalog()
        .table_entry("test", "p")
        .ok_or("p")?
        .roots
        .space;
    s.execute("ALTER TABLE p ENGINE=InnoDB")?;
    assert_ne!(
        db.catalog()
            .table_entry("test", "p")
            .ok_or("p")?
            .roots
            .space,
        space
    );
    assert_eq!(scan(&db, "p")?.len(), 3);
    assert_eq!(
        db.catalog().table("test", "p")?.auto_increment_next(),
        Some(100)
    );
    s.execute("ALTER TABLE p DISABLE KEYS")?;
    assert_eq!(s.warnings.first().map(|w| w.code), Some(1031));
    Ok(())
}
