//! ALTER TABLE / CREATE INDEX / DROP INDEX that change only secondary
//! indexes run in place (`ddl::index_change`): the new indexes are built
//! from one scan within `innodb_ddl_buffer_size`, hold exactly the rows, and
//! a duplicate leaves the table as it was; ALGORITHM= and LOCK= are honoured
//! or refused with MariaDB's 1846.

mod support;

use support::{error, one, rows, show_create, TestDb, R};

fn loaded() -> R<TestDb> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20), d INT, e INT AUTO_INCREMENT UNIQUE)",
        "SET SESSION max_recursive_iterations = 10000",
        "INSERT INTO t (id, c, d) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) \
         SELECT i, CONCAT('c', i % 97), 3001 - i FROM n",
    ])?;
    Ok(t)
}

#[test]
fn added_indexes_hold_every_row_and_report_no_copied_rows() -> R<()> {
    let t = loaded()?;
    let mut s = t.session(50)?;
    let counter = "SELECT AUTO_INCREMENT FROM information_schema.tables WHERE table_name = 't'";
    let next = one(&mut s, counter)?;
    // The smallest budget: the build spills and merges.
    s.execute("SET SESSION innodb_ddl_buffer_size = 65536")?;
    let r = s.execute("ALTER TABLE t ADD INDEX ic (c), ADD UNIQUE INDEX ud (d DESC)")?;
    assert!(format!("{r:?}").contains("Records: 0"), "{r:?}");
    assert_eq!(
        rows(&mut s, "CHECK TABLE t")?,
        vec![vec!["test.t", "check", "status", "OK"]]
    );
    assert!(show_create(&mut s, "t")?.contains("UNIQUE KEY `ud` (`d` DESC)"));
    // Each index answers as the table does.
    for (hint, cond) in [("ic", "c = 'c5'"), ("ud", "d BETWEEN 10 AND 400")] {
        let via = one(
            &mut s,
            &format!(
                "SELECT CONCAT(COUNT(*), ':', SUM(id)) FROM t FORCE INDEX ({hint}) WHERE {cond}"
            ),
        )?;
        let scan = one(
            &mut s,
            &format!(
                "SELECT CONCAT(COUNT(*), ':', SUM(id)) FROM t IGNORE INDEX ({hint}) WHERE {cond}"
            ),
        )?;
        assert_eq!(via, scan, "{hint}");
    }
    // Writes after the build maintain the new indexes, and the unique one
    // holds; AUTO_INCREMENT continues.
    s.execute("INSERT INTO t (id, c, d) VALUES (5000, 'c5', 9000)")?;
    assert_eq!(one(&mut s, "SELECT e FROM t WHERE id = 5000")?, next);
    assert_eq!(
        error(&mut s, "INSERT INTO t (id, c, d) VALUES (5001, 'x', 7)")?,
        (1062, "Duplicate entry '7' for key 'ud'".to_string())
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM t FORCE INDEX (ic) WHERE c = 'c5'"
        )?,
        "32"
    );
    // DROP INDEX is in place too; CREATE INDEX builds.
    s.execute("DROP INDEX ic ON t")?;
    s.execute("CREATE INDEX ic2 ON t (c, d)")?;
    assert!(!show_create(&mut s, "t")?.contains("KEY `ic` "));
    assert_eq!(
        rows(&mut s, "CHECK TABLE t")?,
        vec![vec!["test.t", "check", "status", "OK"]]
    );
    Ok(())
}

#[test]
fn a_duplicate_leaves_the_table_as_it_was() -> R<()> {
    let t = loaded()?;
    let mut s = t.session(50)?;
    let before = show_create(&mut s, "t")?;
    assert_eq!(
        error(
            &mut s,
            "ALTER TABLE t ADD INDEX ok (d), ADD UNIQUE INDEX uc (c)"
        )?,
        (1062, "Duplicate entry 'c0' for key 'uc'".to_string())
    );
    assert_eq!(show_create(&mut s, "t")?, before);
    assert_eq!(
        rows(&mut s, "CHECK TABLE t")?,
        vec![vec!["test.t", "check", "status", "OK"]]
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "3000");
    Ok(())
}

#[test]
fn algorithm_and_lock_are_honoured_or_refused() -> R<()> {
    let t = loaded()?;
    let mut s = t.session(50)?;
    let refused = |what: &str, reason: &str, fix: &str| {
        (
            1846u16,
            format!("{what} is not supported. Reason: {reason}. Try {fix}"),
        )
    };
    assert_eq!(
        error(&mut s, "ALTER TABLE t ADD INDEX x (c), ALGORITHM=INSTANT")?,
        refused("ALGORITHM=INSTANT", "ADD INDEX", "ALGORITHM=NOCOPY")
    );
    assert_eq!(
        error(
            &mut s,
            "ALTER TABLE t MODIFY c VARCHAR(30), ALGORITHM=INPLACE"
        )?,
        refused(
            "ALGORITHM=INPLACE",
            "Larch copies the table for this change",
            "ALGORITHM=COPY"
        )
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t FORCE, ALGORITHM=COPY, LOCK=SHARED")?,
        refused(
            "LOCK=SHARED",
            "COPY algorithm requires an exclusive lock in Larch",
            "LOCK=EXCLUSIVE"
        )
    );
    assert!(!show_create(&mut s, "t")?.contains("KEY `x`"));
    // An index build takes every LOCK= (NONE, the default: writers run
    // beside it; SHARED: readers do).
    s.execute("ALTER TABLE t ADD INDEX x (c), ALGORITHM=INPLACE, LOCK=EXCLUSIVE")?;
    s.execute("ALTER TABLE t ADD INDEX x2 (c), LOCK=NONE")?;
    s.execute("ALTER TABLE t ADD INDEX x3 (c), ALGORITHM=INPLACE, LOCK=SHARED")?;
    s.execute("ALTER TABLE t DROP INDEX x2, DROP INDEX x3")?;
    // Dropping an index builds nothing: any lock; INSTANT is MariaDB's
    // NOCOPY.
    assert_eq!(
        error(&mut s, "ALTER TABLE t DROP INDEX x, ALGORITHM=INSTANT")?,
        refused("ALGORITHM=INSTANT", "DROP INDEX", "ALGORITHM=NOCOPY")
    );
    s.execute("ALTER TABLE t DROP INDEX x, ALGORITHM=INPLACE, LOCK=NONE")?;
    // RENAME INDEX keeps the tree: instant.
    s.execute("ALTER TABLE t ADD INDEX r1 (d, c)")?;
    s.execute("ALTER TABLE t RENAME INDEX r1 TO r2, ALGORITHM=INSTANT, LOCK=NONE")?;
    assert!(show_create(&mut s, "t")?.contains("KEY `r2` (`d`,`c`)"));
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM t FORCE INDEX (r2) WHERE d > 2990"
        )?,
        "10"
    );
    // ALGORITHM=COPY copies: the rows are reported.
    let r = s.execute("ALTER TABLE t ADD INDEX y (d), ALGORITHM=COPY")?;
    assert!(format!("{r:?}").contains("Records: 3000"), "{r:?}");
    assert_eq!(
        rows(&mut s, "CHECK TABLE t")?,
        vec![vec!["test.t", "check", "status", "OK"]]
    );
    Ok(())
}
