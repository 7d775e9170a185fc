//! FOREIGN KEY constraints as InnoDB in MariaDB 10.11 has them (cases after
//! MariaDB's `innodb.foreign_key`, `innodb.innodb-fk-warnings` and
//! `main.foreign_key`): kept and shown by SHOW CREATE TABLE and
//! INFORMATION_SCHEMA, checked when defined, enforced on every write with
//! RESTRICT, CASCADE and SET NULL, with locks that make a child insert wait
//! for a concurrent parent delete, and switched off by
//! `foreign_key_checks = 0`.

mod support;

use std::time::{Duration, Instant};

use larch_sql::session::Session;
use support::{one, rows, TestDb, R};

fn show_create(s: &mut Session, t: &str) -> R<String> {
    let r = rows(s, &format!("SHOW CREATE TABLE {t}"))?;
    Ok(r.first().and_then(|r| r.get(1)).cloned().ok_or("no row")?)
}

fn error(s: &mut Session, sql: &str) -> R<(u16, String)> {
    let e = s.execute(sql).err().ok_or(format!("no error from {sql}"))?;
    Ok((e.code(), e.to_string()))
}

fn column(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?
        .into_iter()
        .filter_map(|r| r.into_iter().next())
        .collect())
}

const PARENT: &str = "CREATE TABLE p (id INT PRIMARY KEY, v INT)";

#[test]
fn constraints_are_kept_and_shown_as_mariadb_prints_them() -> R<()> {
    let t = TestDb::new(&[
        PARENT,
        "CREATE TABLE c (id INT PRIMARY KEY, p_id INT, \
         FOREIGN KEY (p_id) REFERENCES p (id) ON DELETE CASCADE)",
        "CREATE TABLE c2 (a INT, b INT, KEY (b, a), \
         CONSTRAINT fk_a FOREIGN KEY (a) REFERENCES p (id) ON UPDATE SET NULL ON DELETE NO ACTION, \
         FOREIGN KEY (b) REFERENCES p (id) ON DELETE RESTRICT)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        show_create(&mut s, "c")?,
        "CREATE TABLE `c` (\n  `id` int(11) NOT NULL,\n  `p_id` int(11) DEFAULT NULL,\n  \
         PRIMARY KEY (`id`),\n  KEY `p_id` (`p_id`),\n  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`p_id`) \
         REFERENCES `p` (`id`) ON DELETE CASCADE\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 \
         COLLATE=utf8mb4_general_ci"
    );
    // The named constraint names its index; `b` already leads a key.
    assert_eq!(
        show_create(&mut s, "c2")?,
        "CREATE TABLE `c2` (\n  `a` int(11) DEFAULT NULL,\n  `b` int(11) DEFAULT NULL,\n  \
         KEY `b` (`b`,`a`),\n  KEY `fk_a` (`a`),\n  CONSTRAINT `fk_a` FOREIGN KEY (`a`) REFERENCES \
         `p` (`id`) ON DELETE NO ACTION ON UPDATE SET NULL,\n  CONSTRAINT `c2_ibfk_1` FOREIGN KEY \
         (`b`) REFERENCES `p` (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 \
         COLLATE=utf8mb4_general_ci"
    );
    // ALTER numbers past the highest generated name; DROP FOREIGN KEY.
    s.execute("ALTER TABLE c ADD FOREIGN KEY (id) REFERENCES p (id)")?;
    assert!(show_create(&mut s, "c")?.contains("CONSTRAINT `c_ibfk_2` FOREIGN KEY (`id`)"));
    s.execute("ALTER TABLE c DROP FOREIGN KEY c_ibfk_2")?;
    assert!(!show_create(&mut s, "c")?.contains("c_ibfk_2"));
    assert_eq!(
        error(&mut s, "ALTER TABLE c DROP FOREIGN KEY f1")?,
        (
            1091,
            "Can't DROP FOREIGN KEY `f1`; check that it exists".to_string()
        )
    );

    let tc = rows(
        &mut s,
        "SELECT CONSTRAINT_NAME, TABLE_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS \
         WHERE CONSTRAINT_TYPE = 'FOREIGN KEY' ORDER BY CONSTRAINT_NAME",
    )?;
    assert_eq!(
        tc,
        vec![
            vec!["c2_ibfk_1", "c2", "FOREIGN KEY"],
            vec!["c_ibfk_1", "c", "FOREIGN KEY"],
            vec!["fk_a", "c2", "FOREIGN KEY"],
        ]
    );
    let kcu = rows(
        &mut s,
        "SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION, POSITION_IN_UNIQUE_CONSTRAINT, \
         REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME \
         FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_NAME = 'c'",
    )?;
    assert_eq!(
        kcu,
        vec![
            vec!["PRIMARY", "id", "1", "NULL", "NULL", "NULL", "NULL"],
            vec!["c_ibfk_1", "p_id", "1", "1", "test", "p", "id"],
        ]
    );
    let rc = rows(
        &mut s,
        "SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_NAME, MATCH_OPTION, UPDATE_RULE, DELETE_RULE, \
         TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS \
         ORDER BY CONSTRAINT_NAME",
    )?;
    assert_eq!(
        rc,
        vec![
            vec![
                "c2_ibfk_1",
                "PRIMARY",
                "NONE",
                "RESTRICT",
                "RESTRICT",
                "c2",
                "p"
            ],
            vec!["c_ibfk_1", "PRIMARY", "NONE", "RESTRICT", "CASCADE", "c", "p"],
            vec![
                "fk_a",
                "PRIMARY",
                "NONE",
                "SET NULL",
                "NO ACTION",
                "c2",
                "p"
            ],
        ]
    );
    // LIKE copies no constraint, as InnoDB.
    s.execute("CREATE TABLE c3 LIKE c")?;
    assert!(!show_create(&mut s, "c3")?.contains("FOREIGN KEY"));
    Ok(())
}

#[test]
fn definitions_are_checked_with_mariadbs_errors() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t1 (id INT NOT NULL PRIMARY KEY, a INT, b INT UNSIGNED)"])?;
    let mut s = t.session(50)?;
    let formed = |t: &str| {
        (
            1005,
            format!(
                "Can't create table `test`.`{t}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
            ),
        )
    };
    // No index on the referenced column, a missing table, SET NULL on a NOT
    // NULL column, incompatible types, SET DEFAULT.
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t2 (a INT, FOREIGN KEY (a) REFERENCES t1 (a))"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t2 (a INT, FOREIGN KEY (a) REFERENCES t9 (id))"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t2 (a INT NOT NULL, FOREIGN KEY (a) REFERENCES t1 (id) ON DELETE SET NULL)"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t2 (a CHAR(20), FOREIGN KEY (a) REFERENCES t1 (id))"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t2 (a BIGINT, FOREIGN KEY (a) REFERENCES t1 (id))"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t2 (a INT, FOREIGN KEY (a) REFERENCES t1 (id) ON DELETE SET DEFAULT)"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(
            &mut s,
            "CREATE TEMPORARY TABLE t2 (a INT, FOREIGN KEY (a) REFERENCES t1 (id))"
        )?,
        formed("t2")
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t1 ADD FOREIGN KEY (a, b) REFERENCES t1 (id)")?,
        (
            1239,
            "Incorrect foreign key definition for 'foreign key without name': Key reference and table reference don't match"
                .to_string()
        )
    );
    // ALTER with checks off reports the missing index as 1822.
    s.execute("CREATE TABLE t2 (a INT, b INT)")?;
    s.execute("SET foreign_key_checks = 0")?;
    assert_eq!(
        error(&mut s, "ALTER TABLE t2 ADD CONSTRAINT c FOREIGN KEY (a) REFERENCES t1 (a)")?,
        (
            1822,
            "Failed to add the foreign key constraint. Missing index for constraint 'c' in the referenced table 't1'"
                .to_string()
        )
    );
    s.execute("SET foreign_key_checks = 1")?;
    // ALTER ADD checks the rows already there.
    s.execute("INSERT INTO t2 VALUES (1, 1)")?;
    assert_eq!(
        error(
            &mut s,
            "ALTER TABLE t2 ADD CONSTRAINT c FOREIGN KEY (a) REFERENCES t1 (id)"
        )?,
        (
            1452,
            "Cannot add or update a child row: a foreign key constraint fails (`test`.`t2`, \
             CONSTRAINT `c` FOREIGN KEY (`a`) REFERENCES `t1` (`id`))"
                .to_string()
        )
    );
    s.execute("INSERT INTO t1 VALUES (1, 0, 0)")?;
    s.execute("ALTER TABLE t2 ADD CONSTRAINT c FOREIGN KEY (a) REFERENCES t1 (id)")?;
    // The indexes a constraint needs, in the child and in the parent, and
    // a referencing column.
    assert_eq!(
        error(&mut s, "ALTER TABLE t2 DROP INDEX c")?,
        (
            1553,
            "Cannot drop index 'c': needed in a foreign key constraint".to_string()
        )
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t1 DROP PRIMARY KEY")?,
        (
            1553,
            "Cannot drop index 'PRIMARY': needed in a foreign key constraint".to_string()
        )
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t2 DROP COLUMN a")?,
        (
            1828,
            "Cannot drop column 'a': needed in a foreign key constraint 'c'".to_string()
        )
    );
    // Column changes a constraint cannot follow.
    assert_eq!(
        error(&mut s, "ALTER TABLE t2 MODIFY a BIGINT")?,
        (
            1832,
            "Cannot change column 'a': used in a foreign key constraint 'c'".to_string()
        )
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t1 MODIFY id BIGINT NOT NULL")?,
        (
            1833,
            "Cannot change column 'id': used in a foreign key constraint 'c' of table 'test.t2'"
                .to_string()
        )
    );
    s.execute("CREATE TABLE t3 (a INT, FOREIGN KEY (a) REFERENCES t1 (id) ON DELETE SET NULL)")?;
    assert_eq!(
        error(&mut s, "ALTER TABLE t3 MODIFY a INT NOT NULL")?,
        (
            1830,
            "Column 'a' cannot be NOT NULL: needed in a foreign key constraint 't3_ibfk_1' SET NULL"
                .to_string()
        )
    );
    // Constraint names are unique in a database.
    assert_eq!(
        error(
            &mut s,
            "CREATE TABLE t4 (a INT, CONSTRAINT c FOREIGN KEY (a) REFERENCES t1 (id))"
        )?,
        (
            1005,
            "Can't create table `test`.`t4` (errno: 121 \"Duplicate key on write or update\")"
                .to_string()
        )
    );
    Ok(())
}

#[test]
fn child_rows_need_a_parent_and_parents_restrict() -> R<()> {
    let t = TestDb::new(&[
        PARENT,
        "CREATE TABLE c (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id))",
        "INSERT INTO p VALUES (1, 10), (2, 20)",
    ])?;
    let mut s = t.session(50)?;
    let child_err =
        "Cannot add or update a child row: a foreign key constraint fails (`test`.`c`, \
                     CONSTRAINT `c_ibfk_1` FOREIGN KEY (`p_id`) REFERENCES `p` (`id`))";
    let parent_err =
        "Cannot delete or update a parent row: a foreign key constraint fails (`test`.`c`, \
                      CONSTRAINT `c_ibfk_1` FOREIGN KEY (`p_id`) REFERENCES `p` (`id`))";
    s.execute("INSERT INTO c VALUES (1, 1), (2, NULL)")?;
    assert_eq!(
        error(&mut s, "INSERT INTO c VALUES (3, 3)")?,
        (1452, child_err.to_string())
    );
    assert_eq!(error(&mut s, "UPDATE c SET p_id = 5 WHERE id = 1")?.0, 1452);
    // INSERT ... SELECT and a failed multi-row INSERT keep nothing.
    assert_eq!(
        error(&mut s, "INSERT INTO c SELECT id + 10, id + 1 FROM p")?.0,
        1452
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM c")?, "2");
    // IGNORE: a warning, the row skipped.
    s.execute("INSERT IGNORE INTO c VALUES (4, 9), (5, 2)")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec!["Warning".to_string(), "1452".into(), child_err.into()]]
    );
    assert_eq!(
        column(&mut s, "SELECT id FROM c ORDER BY id")?,
        ["1", "2", "5"]
    );
    // The parent side: DELETE, UPDATE of the key, REPLACE, multi-table.
    assert_eq!(
        error(&mut s, "DELETE FROM p WHERE id = 1")?,
        (1451, parent_err.to_string())
    );
    assert_eq!(error(&mut s, "UPDATE p SET id = 7 WHERE id = 1")?.0, 1451);
    assert_eq!(error(&mut s, "REPLACE INTO p VALUES (2, 22)")?.0, 1451);
    assert_eq!(
        error(&mut s, "DELETE p FROM p JOIN c ON c.p_id = p.id")?.0,
        1451
    );
    // Other columns and unreferenced rows change freely.
    s.execute("UPDATE p SET v = v + 1")?;
    s.execute("INSERT INTO p VALUES (3, 30)")?;
    s.execute("DELETE FROM p WHERE id = 3")?;
    assert_eq!(column(&mut s, "SELECT v FROM p ORDER BY id")?, ["11", "21"]);
    // Deleting the children first, in one multi-table statement or two.
    s.execute("DELETE FROM c WHERE p_id = 2")?;
    s.execute("DELETE FROM p WHERE id = 2")?;
    Ok(())
}

#[test]
fn cascade_and_set_null_follow_the_parent() -> R<()> {
    let t = TestDb::new(&[
        PARENT,
        "CREATE TABLE c (id INT PRIMARY KEY, p_id INT, \
         FOREIGN KEY (p_id) REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE)",
        "CREATE TABLE g (id INT PRIMARY KEY, c_id INT, \
         FOREIGN KEY (c_id) REFERENCES c (id) ON DELETE SET NULL ON UPDATE CASCADE)",
        "INSERT INTO p VALUES (1, 0), (2, 0), (3, 0)",
        "INSERT INTO c VALUES (10, 1), (11, 1), (20, 2), (30, 3)",
        "INSERT INTO g VALUES (100, 10), (101, 11), (200, 20)",
    ])?;
    let mut s = t.session(50)?;
    // Deleting p 1 deletes c 10 and 11, which nulls g 100 and 101.
    match s.execute("DELETE FROM p WHERE id = 1")? {
        larch_sql::result::QueryResult::Ok(ok) => {
            assert_eq!(ok.affected_rows, 1, "cascaded rows are not counted")
        }
        other => return Err(format!("{other:?}").into()),
    }
    assert_eq!(
        column(&mut s, "SELECT id FROM c ORDER BY id")?,
        ["20", "30"]
    );
    assert_eq!(
        rows(&mut s, "SELECT id, c_id FROM g ORDER BY id")?,
        vec![vec!["100", "NULL"], vec!["101", "NULL"], vec!["200", "20"]]
    );
    // Updating p 2's key carries into c, and from c's key into g.
    s.execute("UPDATE p SET id = 5 WHERE id = 2")?;
    assert_eq!(
        rows(&mut s, "SELECT id, p_id FROM c ORDER BY id")?,
        vec![vec!["20", "5"], vec!["30", "3"]]
    );
    s.execute("UPDATE c SET id = 21 WHERE id = 20")?;
    assert_eq!(one(&mut s, "SELECT c_id FROM g WHERE id = 200")?, "21");
    // REPLACE deletes the old parent row, so its children go too.
    s.execute("REPLACE INTO p VALUES (3, 9)")?;
    assert_eq!(column(&mut s, "SELECT id FROM c ORDER BY id")?, ["21"]);
    // A failing cascade reverts the whole statement.
    s.execute("CREATE TABLE r (c_id INT, FOREIGN KEY (c_id) REFERENCES c (id))")?;
    s.execute("INSERT INTO r VALUES (21)")?;
    assert_eq!(error(&mut s, "DELETE FROM p")?.0, 1451);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM p")?, "2");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM c")?, "1");
    Ok(())
}

#[test]
fn self_referencing_tables_cascade_to_the_depth_limit() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE tree (id INT PRIMARY KEY, parent INT, \
         FOREIGN KEY (parent) REFERENCES tree (id) ON DELETE CASCADE)"])?;
    let mut s = t.session(50)?;
    // A row may reference itself, and rows their siblings.
    s.execute("INSERT INTO tree VALUES (1, 1), (2, 1), (3, 2), (4, 2)")?;
    assert_eq!(error(&mut s, "INSERT INTO tree VALUES (5, 9)")?.0, 1452);
    s.execute("DELETE FROM tree WHERE id = 2")?;
    assert_eq!(column(&mut s, "SELECT id FROM tree")?, ["1"]);
    s.execute("DELETE FROM tree")?;
    // A chain of 17 rows is deeper than InnoDB's 15 cascades.
    for i in 1..=17 {
        let parent = if i == 1 {
            "NULL".to_string()
        } else {
            (i - 1).to_string()
        };
        s.execute(&format!("INSERT INTO tree VALUES ({i}, {parent})"))?;
    }
    let (code, msg) = error(&mut s, "DELETE FROM tree WHERE id = 1")?;
    assert_eq!(
        (code, msg.as_str()),
        (
            1030,
            "Got error 193 '`test`.`tree`, CONSTRAINT `tree_ibfk_1` FOREIGN KEY (`parent`) \
             REFERENCES `tree` (`id`) ON DELETE CASCADE' from InnoDB"
        )
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM tree")?, "17");
    s.execute("DELETE FROM tree WHERE id = 5")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM tree")?, "4");
    Ok(())
}

#[test]
fn drop_truncate_and_rename_respect_constraints() -> R<()> {
    let t = TestDb::new(&[
        "CREATE DATABASE other",
        PARENT,
        "CREATE TABLE other.c (a INT, FOREIGN KEY (a) REFERENCES test.p (id))",
        "CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (id))",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        error(&mut s, "TRUNCATE TABLE p")?,
        (
            1701,
            "Cannot truncate a table referenced in a foreign key constraint (`other`.`c`, \
             CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`) REFERENCES `test`.`p` (`id`))"
                .to_string()
        )
    );
    assert!(show_create(&mut s, "other.c")?
        .contains("CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`) REFERENCES `test`.`p` (`id`)"));
    // A rename carries the references; the renamed child's names follow.
    s.execute("RENAME TABLE p TO p2, c TO c2")?;
    assert!(show_create(&mut s, "c2")?
        .contains("CONSTRAINT `c2_ibfk_1` FOREIGN KEY (`a`) REFERENCES `p2` (`id`)"));
    assert!(show_create(&mut s, "other.c")?.contains("REFERENCES `test`.`p2` (`id`)"));
    assert_eq!(error(&mut s, "INSERT INTO other.c VALUES (1)")?.0, 1452);
    s.execute("INSERT INTO p2 VALUES (1, 0)")?;
    s.execute("INSERT INTO other.c VALUES (1)")?;
    let refused = (
        1451,
        "Cannot delete or update a parent row: a foreign key constraint fails".to_string(),
    );
    assert_eq!(error(&mut s, "DROP TABLE p2")?, refused);
    // In order: the parent is refused while its child still exists, the
    // child is dropped.
    assert_eq!(error(&mut s, "DROP TABLE p2, c2")?, refused);
    assert_eq!(error(&mut s, "SELECT * FROM c2")?.0, 1146);
    s.execute("DROP TABLE other.c, p2")?;
    Ok(())
}

#[test]
fn foreign_key_checks_off_allows_what_dumps_do() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    s.execute("SET FOREIGN_KEY_CHECKS = 0")?;
    // The child first, its parent later, rows in any order.
    s.execute("CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (id) ON DELETE CASCADE)")?;
    s.execute("INSERT INTO c VALUES (1), (2)")?;
    s.execute(PARENT)?;
    s.execute("INSERT INTO p VALUES (1, 0)")?;
    s.execute("SET FOREIGN_KEY_CHECKS = 1")?;
    assert_eq!(error(&mut s, "INSERT INTO c VALUES (3)")?.0, 1452);
    // The constraint works once the parent exists.
    s.execute("DELETE FROM p WHERE id = 1")?;
    assert_eq!(column(&mut s, "SELECT a FROM c")?, ["2"]);
    s.execute("SET FOREIGN_KEY_CHECKS = 0")?;
    s.execute("INSERT INTO c VALUES (7)")?;
    s.execute("DROP TABLE p")?;
    Ok(())
}

#[test]
fn a_child_insert_waits_for_a_concurrent_parent_delete() -> R<()> {
    let t = TestDb::new(&[
        PARENT,
        "CREATE TABLE c (a INT, FOREIGN KEY (a) REFERENCES p (id))",
        "INSERT INTO p VALUES (1, 0), (2, 0)",
    ])?;
    let mut a = t.session(20)?;
    a.execute("BEGIN")?;
    a.execute("DELETE FROM p WHERE id = 1")?;
    // The insert's check locks parent row 1 in share mode: it waits for the
    // delete, and fails once the delete commits.
    let mut b = t.session(20)?;
    let waiter = std::thread::spawn(move || -> (u128, Option<u16>) {
        let started = Instant::now();
        let r = b
            .execute("INSERT INTO c VALUES (1)")
            .err()
            .map(|e| e.code());
        (started.elapsed().as_millis(), r)
    });
    std::thread::sleep(Duration::from_millis(300));
    a.execute("COMMIT")?;
    let (waited, code) = waiter.join().map_err(|_| "waiter panicked")?;
    assert!(waited >= 250, "the insert waited {waited} ms");
    assert_eq!(code, Some(1452));

    // The other way round: an open insert of a child holds its parent.
    let mut b = t.session(20)?;
    b.execute("BEGIN")?;
    b.execute("INSERT INTO c VALUES (2)")?;
    let mut a = t.session(20)?;
    let waiter = std::thread::spawn(move || -> (u128, Option<u16>) {
        let started = Instant::now();
        let r = a
            .execute("DELETE FROM p WHERE id = 2")
            .err()
            .map(|e| e.code());
        (started.elapsed().as_millis(), r)
    });
    std::thread::sleep(Duration::from_millis(300));
    b.execute("COMMIT")?;
    let (waited, code) = waiter.join().map_err(|_| "waiter panicked")?;
    assert!(waited >= 250, "the delete waited {waited} ms");
    assert_eq!(code, Some(1451));
    Ok(())
}
