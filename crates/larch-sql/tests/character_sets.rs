//! The utf8mb3 character set (MariaDB's `utf8`) as a set of its own, the
//! latin1 collations beyond `latin1_swedish_ci` / `latin1_bin`, per-key
//! collations in GROUP_CONCAT's ORDER BY, and COERCIBILITY(). Every
//! expected answer is MariaDB 10.11's for the same statements.

mod support;

use support::{error, one, rows, show_create, warnings, TestDb, R};

#[test]
fn utf8mb3_columns_keep_their_character_set() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE m3 (id INT PRIMARY KEY, \
         a VARCHAR(4) CHARACTER SET utf8 COLLATE utf8_unicode_ci, \
         b TEXT CHARSET utf8mb3, c CHAR(2) COLLATE utf8mb3_bin) DEFAULT CHARSET=latin1"])?;
    let mut s = t.session(5)?;
    assert_eq!(
        show_create(&mut s, "m3")?,
        "CREATE TABLE `m3` (\n  `id` int(11) NOT NULL,\n  \
         `a` varchar(4) CHARACTER SET utf8mb3 COLLATE utf8mb3_unicode_ci DEFAULT NULL,\n  \
         `b` text CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci DEFAULT NULL,\n  \
         `c` char(2) CHARACTER SET utf8mb3 COLLATE utf8mb3_bin DEFAULT NULL,\n  \
         PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci"
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT column_name, character_set_name, collation_name, \
             character_maximum_length, character_octet_length \
             FROM information_schema.columns WHERE table_name = 'm3' AND column_name <> 'id' \
             ORDER BY ordinal_position"
        )?,
        [
            ["a", "utf8mb3", "utf8mb3_unicode_ci", "4", "12"],
            ["b", "utf8mb3", "utf8mb3_general_ci", "65535", "65535"],
            ["c", "utf8mb3", "utf8mb3_bin", "2", "6"],
        ]
        .map(|r| r.map(String::from).to_vec())
    );
    // A character beyond the Basic Multilingual Plane: 1366 in strict mode,
    // '?' and a warning otherwise.
    let (code, message) = error(&mut s, "INSERT INTO m3 VALUES (1, 'x😀', 'b', 'c')")?;
    assert_eq!(code, 1366);
    assert_eq!(
        message,
        "Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column `test`.`m3`.`a` at row 1"
    );
    s.execute("INSERT INTO m3 VALUES (1, 'ĉé', 'b', 'c')")?;
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO m3 VALUES (2, 'a😀b', 'x😀', 'd')")?;
    let w = warnings(&mut s)?;
    assert_eq!(w.len(), 2);
    assert!(w[0][2].starts_with("Incorrect string value: '\\xF0\\x9F\\x98\\x80b'"));
    s.execute("SET sql_mode = DEFAULT")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, a, HEX(a), LENGTH(a), b, CHAR_LENGTH(b) FROM m3 ORDER BY id"
        )?,
        [
            ["1", "ĉé", "C489C3A9", "4", "b", "1"],
            ["2", "a?b", "613F62", "3", "x?", "2"]
        ]
        .map(|r| r.map(String::from).to_vec())
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLLATION(a), CHARSET(b), COLLATION(c), COLLATION(CONCAT(a, _utf8mb4'x')), \
             COLLATION(CONCAT(a, 'x')), COLLATION(_utf8'x'), CHARSET(CONVERT('x' USING utf8)) \
             FROM m3 WHERE id = 1"
        )?,
        [[
            "utf8mb3_unicode_ci",
            "utf8mb3",
            "utf8mb3_bin",
            "utf8mb3_unicode_ci",
            "utf8mb3_unicode_ci",
            "utf8mb3_general_ci",
            "utf8mb3"
        ]]
        .map(|r| r.map(String::from).to_vec())
    );
    // A utf8mb4 collation is not one of utf8mb3's.
    let (code, message) = error(&mut s, "SELECT a COLLATE utf8mb4_bin FROM m3")?;
    assert_eq!(
        (code, message.as_str()),
        (
            1253,
            "COLLATION 'utf8mb4_bin' is not valid for CHARACTER SET 'utf8mb3'"
        )
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM m3 WHERE a = 'ĈÉ'")?, "1");
    // 21,845 utf8mb3 characters fill a row's 65,535 bytes.
    let (code, _) = error(
        &mut s,
        "CREATE TABLE wide (a VARCHAR(21846) CHARACTER SET utf8mb3)",
    )?;
    assert_eq!(code, 1074);
    s.execute("CREATE TABLE wide (a VARCHAR(21845) CHARACTER SET utf8mb3)")?;
    // A table's default character set.
    s.execute("CREATE TABLE d3 (a INT) DEFAULT CHARSET=utf8")?;
    s.execute("ALTER TABLE d3 ADD b VARCHAR(3)")?;
    assert!(show_create(&mut s, "d3")?.ends_with(
        "`b` varchar(3) DEFAULT NULL\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 \
         COLLATE=utf8mb3_general_ci"
    ));
    Ok(())
}

#[test]
fn latin1_collations_order_as_mariadb() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE l1 (id INT PRIMARY KEY, s VARCHAR(10) COLLATE latin1_general_cs, \
         g VARCHAR(10) COLLATE latin1_general_ci, \
         d VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_danish_ci, \
         sp VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_spanish_ci, \
         ge VARCHAR(10) COLLATE latin1_german1_ci) DEFAULT CHARSET=latin1",
        "INSERT INTO l1 VALUES (1,'a','a','Å','n','ä'),(2,'A','A','Z','ñ','b'), \
         (3,'b','b','Æ','o','a'),(4,'B','B','Ø','N','ß'),(5,'á','á','A','Ñ','s')",
    ])?;
    let mut s = t.session(5)?;
    for (col, want) in [
        ("s", "2,1,5,4,3"),
        ("g", "1,2,5,3,4"),
        ("d", "5,2,3,4,1"),
        ("sp", "1,4,2,5,3"),
        ("ge", "1,3,2,4,5"),
    ] {
        let ids: Vec<String> = rows(&mut s, &format!("SELECT id FROM l1 ORDER BY {col}, id"))?
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(ids.join(","), want, "ORDER BY {col}");
        // GROUP_CONCAT orders by each key's own collation.
        assert_eq!(
            one(
                &mut s,
                &format!("SELECT GROUP_CONCAT(id ORDER BY {col}, id) FROM l1")
            )?,
            want,
            "GROUP_CONCAT ORDER BY {col}"
        );
    }
    // A covering read of an index gives the stored values (a `_ci` key
    // cannot be turned back into them).
    s.execute("CREATE INDEX ig ON l1 (g)")?;
    assert_eq!(
        rows(&mut s, "SELECT g, id FROM l1 WHERE g >= 'a' ORDER BY g, id")?,
        [["a", "1"], ["A", "2"], ["á", "5"], ["b", "3"], ["B", "4"]]
            .map(|r| r.map(String::from).to_vec())
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(DISTINCT s), COUNT(DISTINCT g), COUNT(DISTINCT d), \
             COUNT(DISTINCT sp), COUNT(DISTINCT ge) FROM l1"
        )?,
        [["5", "3", "5", "3", "3"]].map(|r| r.map(String::from).to_vec())
    );
    assert!(show_create(&mut s, "l1")?
        .contains("`s` varchar(10) CHARACTER SET latin1 COLLATE latin1_general_cs DEFAULT NULL"));
    assert_eq!(
        rows(&mut s, "SHOW COLLATION LIKE 'latin1_general%'")?,
        [
            ["latin1_general_ci", "latin1", "48", "", "Yes", "1"],
            ["latin1_general_cs", "latin1", "49", "", "Yes", "1"]
        ]
        .map(|r| r.map(String::from).to_vec())
    );
    Ok(())
}

#[test]
fn every_collation_is_listed_and_coercibility_is_mariadbs() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE c (a VARCHAR(3))",
        "INSERT INTO c VALUES ('x')",
    ])?;
    let mut s = t.session(5)?;
    for c in larch_engine::record::collation::Collation::ALL {
        assert_eq!(
            one(
                &mut s,
                &format!(
                    "SELECT COUNT(*) FROM information_schema.COLLATIONS \
                     WHERE COLLATION_NAME = '{}' AND CHARACTER_SET_NAME = '{}'",
                    c.name(),
                    c.charset().name()
                )
            )?,
            "1",
            "{} in information_schema.COLLATIONS",
            c.name()
        );
    }
    assert_eq!(
        rows(
            &mut s,
            "SELECT COERCIBILITY(NULL), COERCIBILITY(1), COERCIBILITY('a' COLLATE utf8mb4_bin), \
             COERCIBILITY(a), COERCIBILITY(CONCAT(a, 'x')), COERCIBILITY(USER()), \
             COERCIBILITY(VERSION()), COERCIBILITY(@v), COERCIBILITY(NOW()), \
             COERCIBILITY('x'), COERCIBILITY(_latin1'x') FROM c"
        )?,
        [["6", "5", "0", "2", "2", "3", "3", "2", "5", "4", "4"]]
            .map(|r| r.map(String::from).to_vec())
    );
    // An introducer's literal does not beat the connection's literal.
    assert_eq!(
        one(&mut s, "SELECT COLLATION(CONCAT(_latin1'a', 'b'))")?,
        "utf8mb4_general_ci"
    );
    Ok(())
}
