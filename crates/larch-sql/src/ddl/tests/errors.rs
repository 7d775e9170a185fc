//! MySQL's error numbers and messages for bad definitions and missing
//! objects.

use super::*;

#[test]
fn create_table_errors() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE t (a INT)")?;
    let cases: &[(&str, u16)] = &[
        ("CREATE TABLE t (a INT)", 1050),
        ("CREATE TABLE nodb.t (a INT)", 1049),
        ("CREATE TABLE x (a INT, A INT)", 1060),
        ("CREATE TABLE x (a INT, KEY k (a), KEY k (a))", 1061),
        (
            "CREATE TABLE x (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))",
            1068,
        ),
        ("CREATE TABLE x (a INT AUTO_INCREMENT)", 1075),
        (
            "CREATE TABLE x (a INT AUTO_INCREMENT, b INT AUTO_INCREMENT, KEY (a), KEY (b))",
            1075,
        ),
        ("CREATE TABLE x (a INT DEFAULT 'abc')", 1067),
        ("CREATE TABLE x (a INT NOT NULL DEFAULT NULL)", 1067),
        ("CREATE TABLE x (a DATE DEFAULT CURRENT_TIMESTAMP)", 1067),
        ("CREATE TABLE x (a TINYINT DEFAULT 300)", 1067),
        ("CREATE TABLE x (a VARCHAR(2) DEFAULT 'abc')", 1067),
        ("CREATE TABLE x (a ENUM('p','q') DEFAULT 'r')", 1067),
        ("CREATE TABLE x (a INT AUTO_INCREMENT DEFAULT 1 KEY)", 1067),
        ("CREATE TABLE x (a INT ON UPDATE CURRENT_TIMESTAMP)", 1294),
        ("CREATE TABLE x (a CHAR(300))", 1074),
        ("CREATE TABLE x (a VARCHAR(20000))", 1074),
        ("CREATE TABLE x (a DECIMAL(70))", 1426),
        ("CREATE TABLE x (a DECIMAL(10,20))", 1427),
        ("CREATE TABLE x (a DATETIME(7))", 1426),
        ("CREATE TABLE x (a INT(300))", 1439),
        ("CREATE TABLE x (a BIT(65))", 1439),
        ("CREATE TABLE x (a ENUM('a','A'))", 1291),
        ("CREATE TABLE x (a INT, KEY (b))", 1072),
        ("CREATE TABLE x (a TEXT, KEY (a))", 1170),
        ("CREATE TABLE x (a VARCHAR(1000), KEY (a))", 1071),
        ("CREATE TABLE x (a INT, KEY (a(3)))", 1089),
        ("CREATE TABLE x (a INT NULL, PRIMARY KEY (a))", 1171),
        ("CREATE TABLE x (a INT, KEY `PRIMARY` (a))", 1280),
        ("CREATE TABLE x (a INT, FULLTEXT KEY (a))", 1283),
        ("CREATE TABLE x (a VARCHAR(5) CHARACTER SET koi8r)", 1115),
        ("CREATE TABLE x (a VARCHAR(5) COLLATE nope_ci)", 1273),
        (
            "CREATE TABLE x (a VARCHAR(5) CHARACTER SET latin1 COLLATE utf8mb4_bin)",
            1253,
        ),
        ("CREATE TABLE x (`a ` INT)", 1166),
        ("CREATE TABLE x (a INT) ENGINE=Nonesuch", 1286),
    ];
    for (sql, expected) in cases {
        assert_eq!(code(&mut s, sql), *expected, "{sql}");
        assert!(
            db.catalog().table_entry("test", "x").is_none(),
            "{sql} left a table"
        );
    }
    assert_eq!(
        error(&mut s, "CREATE TABLE x (a INT DEFAULT 'abc')").message(),
        "Invalid default value for 'a'"
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE x (a INT, b INT, PRIMARY KEY (a), PRIMARY KEY (b))"
        )
        .message(),
        "Multiple primary key defined"
    );
    assert_eq!(
        error(&mut s, "CREATE TABLE x (a INT, a INT)").message(),
        "Duplicate column name 'a'"
    );
    let mut fresh = db.new_session(0, "root", "localhost")?;
    assert_eq!(code(&mut fresh, "CREATE TABLE y (a INT)"), 1046);
    assert_eq!(code(&mut fresh, "SHOW CREATE TABLE y"), 1046);
    Ok(())
}

#[test]
fn missing_objects() -> R {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute("CREATE TABLE t (a INT, b INT, KEY kb (b))")?;
    let e = error(&mut s, "SHOW CREATE TABLE nope");
    assert_eq!(
        (e.code(), e.message()),
        (1146, "Table 'test.nope' doesn't exist".to_string())
    );
    assert_eq!(code(&mut s, "DESCRIBE nope"), 1146);
    assert_eq!(code(&mut s, "SHOW INDEX FROM nope"), 1146);
    assert_eq!(code(&mut s, "ALTER TABLE nope ADD c INT"), 1146);
    assert_eq!(code(&mut s, "TRUNCATE TABLE nope"), 1146);
    let e = error(&mut s, "DROP TABLE x1, t, x2");
    assert_eq!(
        (e.code(), e.message()),
        (1051, "Unknown table 'test.x1,test.x2'".to_string())
    );
    // The existing table was dropped all the same.
    assert_eq!(code(&mut s, "SHOW CREATE TABLE t"), 1146);
    s.execute("DROP TABLE IF EXISTS x1, x2")?;
    let notes: Vec<(u16, String)> = s
        .warnings
        .iter()
        .map(|w| (w.code, w.message.clone()))
        .collect();
    assert_eq!(
        notes,
        vec![(1051, "Unknown table 'test.x1,test.x2'".to_string())]
    );
    s.execute("CREATE TABLE t (a INT, b INT, KEY kb (b))")?;
    let e = error(&mut s, "DROP INDEX nope ON t");
    assert_eq!(
        (e.code(), e.message()),
        (
            1091,
            "Can't DROP INDEX `nope`; check that it exists".to_string()
        )
    );
    let e = error(&mut s, "ALTER TABLE t DROP COLUMN nope");
    assert_eq!(
        (e.code(), e.message()),
        (
            1091,
            "Can't DROP COLUMN `nope`; check that it exists".to_string()
        )
    );
    s.execute("ALTER TABLE t DROP COLUMN IF EXISTS nope")?;
    assert_eq!(s.warnings.first().map(|w| w.code), Some(1091));
    assert_eq!(code(&mut s, "ALTER TABLE t DROP PRIMARY KEY"), 1091);
    assert_eq!(code(&mut s, "ALTER TABLE t MODIFY nope INT"), 1054);
    assert_eq!(code(&mut s, "ALTER TABLE t ADD b INT"), 1060);
    assert_eq!(code(&mut s, "ALTER TABLE t ADD c INT AFTER nope"), 1054);
    assert_eq!(code(&mut s, "ALTER TABLE t ADD INDEX kb (a)"), 1061);
    assert_eq!(code(&mut s, "ALTER TABLE t DROP a, DROP b"), 1090);
    assert_eq!(code(&mut s, "ALTER TABLE t RENAME TO nodb.t"), 1049);
    assert_eq!(code(&mut s, "RENAME TABLE nope TO t2"), 1146);
    assert_eq!(code(&mut s, "CREATE INDEX k ON nope (a)"), 1146);
    // Nothing changed.
    assert_eq!(
        show_create(&mut s, "t")?,
        "CREATE TABLE `t` (\n  `a` int(11) DEFAULT NULL,\n  `b` int(11) DEFAULT NULL,\n  KEY `kb` (`b`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    Ok(())
}

/// InnoDB's reserved `FTS_DOC_ID` column and `FTS_DOC_ID_INDEX` index
/// (`ddl::doc_id`): the definitions MariaDB 10.11 refuses fail with its
/// errors, in CREATE and ALTER, and those it takes are taken.
#[test]
fn fts_doc_id_definitions() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    let refused: &[(&str, u16, &str)] = &[
        (
            "CREATE TABLE x (f1 INT NOT NULL, FTS_DOC_ID INT UNSIGNED NOT NULL)",
            1166,
            "Incorrect column name 'FTS_DOC_ID'",
        ),
        (
            "CREATE TABLE x (f1 INT, fts_doc_id BIGINT NOT NULL)",
            1166,
            "Incorrect column name 'fts_doc_id'",
        ),
        (
            "CREATE TABLE x (f1 INT, FTS_DOC_ID BIGINT UNSIGNED)",
            1166,
            "Incorrect column name 'FTS_DOC_ID'",
        ),
        (
            "CREATE TABLE x (f1 INT, `FTS_DOC_\u{130}D` BIGINT UNSIGNED NOT NULL)",
            1166,
            "Incorrect column name 'FTS_DOC_\u{130}D'",
        ),
        (
            "CREATE TABLE x (f1 TEXT, FTS_DOC_ID BIGINT UNSIGNED NOT NULL, \
             KEY FTS_DOC_ID_INDEX (FTS_DOC_ID), FULLTEXT (f1))",
            1798,
            "Index 'FTS_DOC_ID_INDEX' is of wrong type for an InnoDB FULLTEXT index",
        ),
        (
            "CREATE TABLE x (f1 TEXT, FTS_DOC_ID BIGINT UNSIGNED NOT NULL, \
             UNIQUE KEY fts_doc_id_index (FTS_DOC_ID DESC), FULLTEXT (f1))",
            1798,
            "Index 'fts_doc_id_index' is of wrong type for an InnoDB FULLTEXT index",
        ),
        (
            "CREATE TABLE x (f1 TEXT, FTS_DOC_ID BIGINT UNSIGNED NOT NULL, \
             UNIQUE KEY FTS_DOC_ID_INDEX (FTS_DOC_ID, f1(2)), FULLTEXT (f1))",
            1798,
            "Index 'FTS_DOC_ID_INDEX' is of wrong type for an InnoDB FULLTEXT index",
        ),
        (
            "CREATE TABLE x (f1 TEXT, a BIGINT UNSIGNED NOT NULL, \
             UNIQUE KEY FTS_DOC_ID_INDEX (a), FULLTEXT (f1))",
            1798,
            "Index 'FTS_DOC_ID_INDEX' is of wrong type for an InnoDB FULLTEXT index",
        ),
    ];
    for (sql, code_, message) in refused {
        let e = error(&mut s, sql);
        assert_eq!(
            (e.code(), e.message().as_str()),
            (*code_, *message),
            "{sql}"
        );
        assert!(db.catalog().table_entry("test", "x").is_none(), "{sql}");
    }
    for sql in [
        "CREATE TABLE ok1 (f1 INT, FTS_DOC_ID BIGINT NOT NULL)",
        "CREATE TABLE ok2 (f1 INT, `FTS_DOC_\u{131}D` INT)",
        "CREATE TABLE ok3 (f1 TEXT, FTS_DOC_ID BIGINT UNSIGNED NOT NULL, \
         UNIQUE KEY FTS_DOC_ID_INDEX (FTS_DOC_ID), FULLTEXT (f1))",
        "CREATE TABLE ok4 (f1 TEXT, FTS_DOC_ID BIGINT UNSIGNED NOT NULL PRIMARY KEY, FULLTEXT (f1))",
        // Without a FULLTEXT index the index name is free.
        "CREATE TABLE ok5 (f1 TEXT, FTS_DOC_ID BIGINT UNSIGNED NOT NULL, \
         KEY FTS_DOC_ID_INDEX (FTS_DOC_ID))",
    ] {
        s.execute(sql)?;
    }
    // ALTER follows the same rules.
    assert_eq!(code(&mut s, "ALTER TABLE ok2 ADD fts_doc_id INT"), 1166);
    assert_eq!(code(&mut s, "ALTER TABLE ok5 ADD FULLTEXT (f1)"), 1798);
    s.execute("ALTER TABLE ok5 DROP INDEX FTS_DOC_ID_INDEX, ADD FULLTEXT (f1)")?;
    Ok(())
}
