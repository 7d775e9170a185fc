//! The tailored UCA collations `utf8mb3/utf8mb4_esperanto_ci` and
//! `utf8mb3/utf8mb4_swedish_ci` (Django's test models declare the first,
//! its schema tests the second), and PAD SPACE in GROUP BY and DISTINCT:
//! strings equal but for trailing spaces are one group. Every expected
//! answer is MariaDB 10.11's.

mod support;

use support::{one, rows, TestDb, R};

fn ids(s: &mut larch_sql::session::Session, sql: &str) -> R<String> {
    Ok(rows(s, sql)?
        .into_iter()
        .map(|r| r[0].clone())
        .collect::<Vec<_>>()
        .join(","))
}

#[test]
fn esperanto_and_swedish_order_their_letters_as_mariadb() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE ce (id INT PRIMARY KEY, s VARCHAR(20)) \
         CHARACTER SET utf8mb3 COLLATE utf8mb3_esperanto_ci",
        "CREATE TABLE cs (id INT PRIMARY KEY, s VARCHAR(20)) \
         CHARACTER SET utf8mb4 COLLATE utf8mb4_swedish_ci",
    ])?;
    let mut s = t.session(5)?;
    s.execute(
        "INSERT INTO ce VALUES (1,'c'),(2,'ĉ'),(3,'Ĉ'),(4,'cz'),(5,'d'),(6,'ĉa'),(7,'czzz'), \
         (8,'ça'),(9,'C'),(10,'h'),(11,'ĥ'),(12,'i'),(13,'ŭ'),(14,'v'),(15,'uz'),(16,'ĉ '), \
         (17,'sŝ'),(18,'ss')",
    )?;
    assert_eq!(
        ids(&mut s, "SELECT id FROM ce ORDER BY s, id")?,
        "1,9,8,4,7,2,3,16,6,5,10,11,12,18,17,15,13,14"
    );
    assert_eq!(one(&mut s, "SELECT COUNT(DISTINCT s) FROM ce")?, "15");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM ce WHERE s = 'Ĉ'")?, "3");
    s.execute(
        "INSERT INTO cs VALUES (1,'z'),(2,'å'),(3,'ä'),(4,'æ'),(5,'ö'),(6,'ø'),(7,'y'), \
         (8,'ü'),(9,'Å'),(10,'zz'),(11,'a'),(12,'öa'),(13,'äb'),(14,'u'),(15,'v')",
    )?;
    assert_eq!(
        ids(&mut s, "SELECT id FROM cs ORDER BY s, id")?,
        "11,14,15,7,8,1,10,2,9,3,4,13,5,6,12"
    );
    assert_eq!(one(&mut s, "SELECT COUNT(DISTINCT s) FROM cs")?, "11");
    assert_eq!(
        one(&mut s, "SELECT COLLATION(s) FROM ce LIMIT 1")?,
        "utf8mb3_esperanto_ci"
    );
    // Names quoted as identifiers, as Django writes them.
    s.execute(
        "CREATE TABLE q (s VARCHAR(5) CHARACTER SET `utf8mb3` COLLATE `utf8mb3_esperanto_ci`) \
         COLLATE `utf8mb4_swedish_ci`",
    )?;
    assert_eq!(
        one(
            &mut s,
            "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'q'"
        )?,
        "utf8mb3_esperanto_ci"
    );
    Ok(())
}

#[test]
fn trailing_spaces_make_no_group_of_their_own() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE g (id INT PRIMARY KEY, s VARCHAR(10)) COLLATE utf8mb4_general_ci",
        "CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(10)) COLLATE utf8mb4_unicode_ci",
        "CREATE TABLE b (id INT PRIMARY KEY, s VARBINARY(10))",
    ])?;
    let mut s = t.session(5)?;
    for table in ["g", "u", "b"] {
        s.execute(&format!(
            "INSERT INTO {table} VALUES (1, 'a'), (2, 'a '), (3, 'a  '), (4, 'b')"
        ))?;
    }
    for table in ["g", "u"] {
        assert_eq!(
            one(&mut s, &format!("SELECT COUNT(DISTINCT s) FROM {table}"))?,
            "2"
        );
        assert_eq!(
            ids(
                &mut s,
                &format!("SELECT COUNT(*) FROM {table} GROUP BY s ORDER BY s")
            )?,
            "3,1"
        );
        assert_eq!(
            rows(
                &mut s,
                &format!("SELECT DISTINCT s FROM {table} ORDER BY s")
            )?
            .len(),
            2
        );
    }
    // Binary strings are NO PAD: every one is its own.
    assert_eq!(one(&mut s, "SELECT COUNT(DISTINCT s) FROM b")?, "4");
    Ok(())
}
