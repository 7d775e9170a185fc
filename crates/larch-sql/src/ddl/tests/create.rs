//! CREATE TABLE and what SHOW CREATE TABLE, SHOW COLUMNS and SHOW INDEX
//! print for it (MariaDB 10.11's exact text).

use super::*;

const MANY_TYPES: &str = "CREATE TABLE t1 (
  id INT NOT NULL AUTO_INCREMENT,
  a TINYINT,
  b BOOLEAN DEFAULT TRUE,
  c SMALLINT UNSIGNED NOT NULL DEFAULT '7',
  d BIGINT(20) UNSIGNED,
  e DECIMAL(10,2) NOT NULL DEFAULT 1,
  f NUMERIC,
  g FLOAT,
  h DOUBLE PRECISION DEFAULT 1.5,
  i CHAR(10) DEFAULT 'it''s',
  j VARCHAR(32) CHARACTER SET latin1,
  k VARCHAR(20) COLLATE utf8mb4_bin NOT NULL COMMENT 'the k',
  l TEXT,
  m MEDIUMBLOB,
  n DATE DEFAULT '2020-01-02',
  o TIME(3),
  p DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  q TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  r YEAR,
  s ENUM('x','y') NOT NULL DEFAULT 'y',
  t SET('a','b','c') DEFAULT 'a,c',
  u BIT(8) DEFAULT b'101',
  v VARBINARY(16),
  w TIMESTAMP NULL,
  x INT DEFAULT -3,
  PRIMARY KEY (id),
  UNIQUE KEY uk (c, k),
  KEY (a),
  KEY a_idx (j(10) DESC) COMMENT 'prefix',
  KEY (a, b),
  FULLTEXT KEY ft (l),
  CONSTRAINT fk FOREIGN KEY (x) REFERENCES other (y),
  CHECK (a > 0)
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COMMENT='demo'";

const MANY_TYPES_SHOWN: &str = "CREATE TABLE `t1` (
  `id` int(11) NOT NULL AUTO_INCREMENT,
  `a` tinyint(4) DEFAULT NULL,
  `b` tinyint(1) DEFAULT 1,
  `c` smallint(5) unsigned NOT NULL DEFAULT 7,
  `d` bigint(20) unsigned DEFAULT NULL,
  `e` decimal(10,2) NOT NULL DEFAULT 1.00,
  `f` decimal(10,0) DEFAULT NULL,
  `g` float DEFAULT NULL,
  `h` double DEFAULT 1.5,
  `i` char(10) DEFAULT 'it''s',
  `j` varchar(32) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL,
  `k` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL COMMENT 'the k',
  `l` text DEFAULT NULL,
  `m` mediumblob DEFAULT NULL,
  `n` date DEFAULT '2020-01-02',
  `o` time(3) DEFAULT NULL,
  `p` datetime(6) DEFAULT current_timestamp(6) ON UPDATE current_timestamp(6),
  `q` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(),
  `r` year(4) DEFAULT NULL,
  `s` enum('x','y') NOT NULL DEFAULT 'y',
  `t` set('a','b','c') DEFAULT 'a,c',
  `u` bit(8) DEFAULT b'101',
  `v` varbinary(16) DEFAULT NULL,
  `w` timestamp NULL DEFAULT NULL,
  `x` int(11) DEFAULT -3,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk` (`c`,`k`),
  KEY `a` (`a`),
  KEY `a_idx` (`j`(10) DESC) COMMENT 'prefix',
  KEY `a_2` (`a`,`b`),
  KEY `fk` (`x`),
  FULLTEXT KEY `ft` (`l`),
  CONSTRAINT `fk` FOREIGN KEY (`x`) REFERENCES `other` (`y`),
  CONSTRAINT `CONSTRAINT_1` CHECK (`a` > 0)
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='demo'";

#[test]
fn show_create_table_prints_mariadb_text() -> R {
    let dir = tempfile::tempdir()?;
    let (db, mut s) = open(dir.path())?;
    // The referenced table does not exist: allowed as in a dump.
    s.execute("SET foreign_key_checks = 0")?;
    s.execute(MANY_TYPES)?;
    assert_eq!(show_create(&mut s, "t1")?, MANY_TYPES_SHOWN);
    assert_eq!(show_create(&mut s, "test.t1")?, MANY_TYPES_SHOWN);
    assert_eq!(
        db.catalog().table("test", "t1")?.auto_increment_next(),
        Some(5)
    );
    // The printed statement creates the same table again.
    s.execute("DROP TABLE t1")?;
    s.execute(MANY_TYPES_SHOWN)?;
    assert_eq!(show_create(&mut s, "t1")?, MANY_TYPES_SHOWN);
    Ok(())
}

#[test]
fn keys_follow_mysql_order_names_and_implicit_not_null() -> R {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute(
        "CREATE TABLE k (a INT, b VARCHAR(10), c INT, KEY (b), UNIQUE (c), UNIQUE KEY (a, b(10)), PRIMARY KEY (a))",
    )?;
    assert_eq!(
        show_create(&mut s, "k")?,
        "CREATE TABLE `k` (
  `a` int(11) NOT NULL,
  `b` varchar(10) DEFAULT NULL,
  `c` int(11) DEFAULT NULL,
  PRIMARY KEY (`a`),
  UNIQUE KEY `c` (`c`),
  UNIQUE KEY `a` (`a`,`b`),
  KEY `b` (`b`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    // SERIAL, column-level keys, default names taken by earlier keys.
    s.execute("CREATE TABLE k2 (id SERIAL, x INT KEY, y INT UNIQUE, INDEX (y))")?;
    assert_eq!(
        show_create(&mut s, "k2")?,
        "CREATE TABLE `k2` (
  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  `x` int(11) NOT NULL,
  `y` int(11) DEFAULT NULL,
  PRIMARY KEY (`x`),
  UNIQUE KEY `id` (`id`),
  UNIQUE KEY `y` (`y`),
  KEY `y_2` (`y`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    Ok(())
}

#[test]
fn table_options_charsets_and_like() -> R {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute(
        "CREATE TABLE l1 (a VARCHAR(5), b TEXT CHARACTER SET utf8mb4, c CHAR(2) CHARACTER SET binary) \
         ENGINE=MyISAM DEFAULT CHARSET=latin1 ROW_FORMAT=dynamic",
    )?;
    assert_eq!(
        s.warnings.first().map(|w| (w.code, w.message.clone())),
        Some((
            1266,
            "Using storage engine InnoDB for table 'l1'".to_string()
        ))
    );
    let expected = "CREATE TABLE `l1` (
  `a` varchar(5) DEFAULT NULL,
  `b` text CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci DEFAULT NULL,
  `c` binary(2) DEFAULT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci ROW_FORMAT=DYNAMIC";
    assert_eq!(show_create(&mut s, "l1")?, expected);
    s.execute("CREATE TABLE l2 LIKE l1")?;
    assert_eq!(show_create(&mut s, "l2")?, expected.replace("`l1`", "`l2`"));
    s.execute("CREATE TABLE l3 (LIKE l1)")?;
    assert_eq!(show_create(&mut s, "l3")?, expected.replace("`l1`", "`l3`"));
    assert_eq!(code(&mut s, "CREATE TABLE l4 LIKE nope"), 1146);
    assert_eq!(code(&mut s, "CREATE TABLE l1 LIKE l2"), 1050);
    // IF NOT EXISTS: a note, the table unchanged.
    s.execute("CREATE TABLE IF NOT EXISTS l1 (z INT)")?;
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].code, 1050);
    assert_eq!(s.warnings[0].message, "Table 'l1' already exists");
    assert_eq!(show_create(&mut s, "l1")?, expected);
    // OR REPLACE replaces.
    s.execute("CREATE OR REPLACE TABLE l1 (z INT) COLLATE utf8mb4_unicode_ci")?;
    assert_eq!(
        show_create(&mut s, "l1")?,
        "CREATE TABLE `l1` (
  `z` int(11) DEFAULT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"
    );
    Ok(())
}

/// The other table options are kept, changed by ALTER TABLE, copied by
/// LIKE and shown as MariaDB 10.11 shows them (its text, checked side by
/// side): never dropped.
#[test]
fn table_options_are_kept_and_shown() -> R {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute(
        "CREATE TABLE so (a INT) CHARSET=latin1 STATS_PERSISTENT=0 STATS_AUTO_RECALC=1 \
         STATS_SAMPLE_PAGES=10 PACK_KEYS=1 CHECKSUM=1 DELAY_KEY_WRITE=1 MIN_ROWS=5 \
         MAX_ROWS=100 AVG_ROW_LENGTH=10 COMMENT='c' KEY_BLOCK_SIZE=0 `page_compressed`=1",
    )?;
    let head = "CREATE TABLE `so` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=InnoDB \
                DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci";
    assert_eq!(
        show_create(&mut s, "so")?,
        format!(
            "{head} MIN_ROWS=5 MAX_ROWS=100 AVG_ROW_LENGTH=10 PACK_KEYS=1 STATS_PERSISTENT=0 \
             STATS_AUTO_RECALC=1 STATS_SAMPLE_PAGES=10 CHECKSUM=1 DELAY_KEY_WRITE=1 \
             COMMENT='c' `page_compressed`='1'"
        )
    );
    s.execute(
        "ALTER TABLE so STATS_PERSISTENT=DEFAULT, PACK_KEYS=0, MAX_ROWS=0, CHECKSUM=0, \
         TRANSACTIONAL=1, ROW_FORMAT=DYNAMIC, TABLE_CHECKSUM=1",
    )?;
    let altered = format!(
        "{head} MIN_ROWS=5 AVG_ROW_LENGTH=10 PACK_KEYS=0 STATS_AUTO_RECALC=1 \
         STATS_SAMPLE_PAGES=10 CHECKSUM=1 DELAY_KEY_WRITE=1 ROW_FORMAT=DYNAMIC \
         TRANSACTIONAL=1 COMMENT='c' `page_compressed`='1'"
    );
    assert_eq!(show_create(&mut s, "so")?, altered);
    s.execute("CREATE TABLE so2 LIKE so")?;
    assert_eq!(
        show_create(&mut s, "so2")?,
        altered.replace("`so`", "`so2`")
    );
    Ok(())
}

/// Larch has no encryption keys: `ENCRYPTED=YES` is refused as MariaDB
/// refuses it without a key management plugin (CREATE 1005 errno 140,
/// ALTER 1478); a key id alone is kept and shown.
#[test]
fn encryption_is_refused_and_a_key_id_kept() -> R {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    let e = error(&mut s, "CREATE TABLE enc (a INT) ENCRYPTED=YES");
    assert_eq!(e.code(), 1005);
    assert!(e.message().contains("errno: 140"), "{}", e.message());
    assert_eq!(
        code(&mut s, "CREATE TABLE enc ENCRYPTED=YES AS SELECT 1 a"),
        1005
    );
    s.execute("CREATE TABLE enc (a INT) ENCRYPTION_KEY_ID=2")?;
    assert!(show_create(&mut s, "enc")?.ends_with(" `ENCRYPTION_KEY_ID`='2'"));
    assert_eq!(code(&mut s, "ALTER TABLE enc ENCRYPTED=YES"), 1478);
    s.execute("ALTER TABLE enc ENCRYPTED=NO")?;
    assert!(show_create(&mut s, "enc")?.ends_with(" `ENCRYPTION_KEY_ID`='2' `ENCRYPTED`='NO'"));
    Ok(())
}

#[test]
fn show_columns_describe_and_show_index() -> R {
    let dir = tempfile::tempdir()?;
    let (_db, mut s) = open(dir.path())?;
    s.execute(
        "CREATE TABLE c (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         name VARCHAR(32) NOT NULL DEFAULT 'anon' COMMENT 'who', \
         email VARCHAR(64) UNIQUE, grp INT, sub INT, \
         ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, \
         KEY g (grp, sub), KEY n (name(8)))",
    )?;
    let expected = vec![
        vec![
            "id",
            "int(10) unsigned",
            "NO",
            "PRI",
            "NULL",
            "auto_increment",
        ],
        vec!["name", "varchar(32)", "NO", "MUL", "anon", ""],
        vec!["email", "varchar(64)", "YES", "UNI", "NULL", ""],
        vec!["grp", "int(11)", "YES", "MUL", "NULL", ""],
        vec!["sub", "int(11)", "YES", "", "NULL", ""],
        vec![
            "ts",
            "timestamp",
            "NO",
            "",
            "current_timestamp()",
            "on update current_timestamp()",
        ],
    ];
    assert_eq!(rows(&mut s, "DESCRIBE c")?, expected);
    assert_eq!(rows(&mut s, "SHOW COLUMNS FROM c")?, expected);
    assert_eq!(
        column_names(&mut s, "DESC c")?,
        ["Field", "Type", "Null", "Key", "Default", "Extra"]
    );
    assert_eq!(
        rows(&mut s, "SHOW COLUMNS FROM c FROM test LIKE 'E%'")?,
        vec![expected[2].clone()]
    );
    assert_eq!(
        rows(&mut s, "SHOW COLUMNS FROM test.c WHERE `Key` = 'MUL'")?,
        vec![expected[1].clone(), expected[3].clone()]
    );
    let full = rows(&mut s, "SHOW FULL COLUMNS FROM c")?;
    assert_eq!(
        full[1],
        [
            "name",
            "varchar(32)",
            "utf8mb4_general_ci",
            "NO",
            "MUL",
            "anon",
            "",
            "select,insert,update,references",
            "who"
        ]
    );
    assert_eq!(full[0][2], "NULL");
    assert_eq!(
        column_names(&mut s, "SHOW INDEX FROM c")?,
        [
            "Table",
            "Non_unique",
            "Key_name",
            "Seq_in_index",
            "Column_name",
            "Collation",
            "Cardinality",
            "Sub_part",
            "Packed",
            "Null",
            "Index_type",
            "Comment",
            "Index_comment",
            "Ignored"
        ]
    );
    let idx: Vec<Vec<String>> = rows(&mut s, "SHOW INDEX FROM c")?
        .into_iter()
        .map(|r| {
            vec![
                r[1].clone(),
                r[2].clone(),
                r[3].clone(),
                r[4].clone(),
                r[7].clone(),
                r[9].clone(),
            ]
        })
        .collect();
    assert_eq!(
        idx,
        vec![
            vec!["0", "PRIMARY", "1", "id", "NULL", ""],
            vec!["0", "email", "1", "email", "NULL", "YES"],
            vec!["1", "g", "1", "grp", "NULL", "YES"],
            vec!["1", "g", "2", "sub", "NULL", "YES"],
            vec!["1", "n", "1", "name", "8", ""],
        ]
    );
    assert_eq!(rows(&mut s, "SHOW KEYS IN c FROM test")?.len(), 5);
    assert_eq!(rows(&mut s, "SHOW INDEXES FROM test.c")?.len(), 5);
    // Without a primary key, a NOT NULL unique key shows as PRI.
    s.execute("CREATE TABLE u (a INT NOT NULL, b INT, UNIQUE KEY (a))")?;
    let d = rows(&mut s, "DESCRIBE u")?;
    assert_eq!((d[0][3].as_str(), d[1][3].as_str()), ("PRI", ""));
    Ok(())
}
