//! Views end to end, in process: CREATE / ALTER / DROP VIEW, reading through
//! views (merged into the base table where MariaDB merges, so the base
//! table's index is used; materialized otherwise), writing through
//! updatable views with and without CHECK OPTION, the metadata statements,
//! MariaDB's errors, and persistence across a restart.

mod support;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use support::{code, one, query, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10), KEY a (a))",
        "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z'), (4, 40, NULL)",
    ])
}

fn flat(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|r| r.join(",")).collect()
}

#[test]
fn a_view_reads_as_its_select() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE VIEW v AS SELECT id, a * 2 AS a2, b FROM t WHERE a >= 20")?;
    let (names, r) = query(&mut s, "SELECT * FROM v ORDER BY id")?;
    assert_eq!(names, ["id", "a2", "b"]);
    assert_eq!(flat(r), ["2,40,y", "3,60,z", "4,80,NULL"]);
    assert_eq!(one(&mut s, "SELECT a2 FROM v WHERE id = 3")?, "60");
    // Column list, joins, subqueries, aggregates over the view, nested views.
    s.execute("CREATE VIEW w (k, doubled) AS SELECT id, a2 FROM v WHERE a2 < 80")?;
    assert_eq!(
        flat(rows(&mut s, "SELECT k, doubled FROM w ORDER BY k")?),
        ["2,40", "3,60"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT t.a, w.doubled FROM t JOIN w ON t.id = w.k ORDER BY t.a"
        )?),
        ["20,40", "30,60"]
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v")?, "3");
    assert_eq!(
        one(
            &mut s,
            "SELECT id FROM t WHERE id IN (SELECT k FROM w) ORDER BY id DESC LIMIT 1"
        )?,
        "3"
    );
    assert_eq!(
        one(&mut s, "SELECT MAX(x.a2) FROM (SELECT a2 FROM v) AS x")?,
        "80"
    );
    // An aggregating view is materialized and still reads right.
    s.execute(
        "CREATE VIEW agg AS SELECT b IS NULL AS nb, COUNT(*) AS n FROM t GROUP BY b IS NULL",
    )?;
    assert_eq!(
        flat(rows(&mut s, "SELECT nb, n FROM agg ORDER BY nb")?),
        ["0,3", "1,1"]
    );
    // INSERT ... SELECT from a view.
    s.execute("CREATE TABLE copy (id INT, a2 INT)")?;
    s.execute("INSERT INTO copy SELECT id, a2 FROM v")?;
    assert_eq!(one(&mut s, "SELECT SUM(a2) FROM copy")?, "180");
    Ok(())
}

#[test]
fn a_merged_view_uses_the_base_tables_index() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE VIEW v AS SELECT id, a AS aa, b FROM t WHERE b IS NOT NULL")?;
    let (names, lines) = query(&mut s, "EXPLAIN SELECT * FROM v WHERE aa = 20")?;
    let col = |n: &str| names.iter().position(|c| c == n).unwrap_or(usize::MAX);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].get(col("table")).map(String::as_str), Some("t"));
    assert_eq!(lines[0].get(col("key")).map(String::as_str), Some("a"));
    assert_eq!(
        flat(rows(&mut s, "SELECT * FROM v WHERE aa = 20")?),
        ["2,20,y"]
    );
    // A TEMPTABLE view is not merged: the outer query reads a derived table.
    s.execute("CREATE ALGORITHM=TEMPTABLE VIEW tv AS SELECT id, a FROM t")?;
    let (_, lines) = query(&mut s, "EXPLAIN SELECT * FROM tv WHERE a = 20")?;
    assert!(
        lines.len() > 1 || lines[0].get(col("table")).map(String::as_str) != Some("t"),
        "{lines:?}"
    );
    assert_eq!(one(&mut s, "SELECT id FROM tv WHERE a = 20")?, "2");
    Ok(())
}

#[test]
fn updatable_views_write_the_base_table_and_check_their_condition() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE VIEW v AS SELECT id, a AS aa FROM t WHERE a < 100")?;
    s.execute("INSERT INTO v (id, aa) VALUES (5, 50)")?;
    s.execute("UPDATE v SET aa = aa + 1 WHERE id = 5")?;
    assert_eq!(one(&mut s, "SELECT a FROM t WHERE id = 5")?, "51");
    s.execute("DELETE FROM v WHERE aa = 51")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t WHERE id = 5")?, "0");
    // The view's WHERE limits UPDATE and DELETE to the rows it shows.
    s.execute("INSERT INTO t VALUES (9, 900, 'big')")?;
    s.execute("UPDATE v SET aa = 0")?;
    assert_eq!(one(&mut s, "SELECT a FROM t WHERE id = 9")?, "900");
    s.execute("DELETE FROM v")?;
    assert_eq!(flat(rows(&mut s, "SELECT id FROM t")?), ["9"]);
    // WITH CHECK OPTION.
    s.execute("CREATE VIEW c AS SELECT id, a FROM t WHERE a < 100 WITH CHECK OPTION")?;
    s.execute("INSERT INTO c VALUES (1, 1)")?;
    assert_eq!(code(&mut s, "INSERT INTO c VALUES (2, 200)"), 1369);
    assert_eq!(code(&mut s, "UPDATE c SET a = 500 WHERE id = 1"), 1369);
    s.execute("UPDATE c SET a = 99 WHERE id = 1")?;
    assert_eq!(
        flat(rows(&mut s, "SELECT id, a FROM t ORDER BY id")?),
        ["1,99", "9,900"]
    );
    // Not updatable: aggregates, DISTINCT; not a plain column.
    s.execute("CREATE VIEW g AS SELECT COUNT(*) AS n FROM t")?;
    assert_eq!(code(&mut s, "UPDATE g SET n = 1"), 1288);
    assert_eq!(code(&mut s, "DELETE FROM g"), 1288);
    assert_eq!(code(&mut s, "INSERT INTO g VALUES (1)"), 1471);
    s.execute("CREATE VIEW e AS SELECT id, a + 1 AS a1 FROM t")?;
    assert_eq!(code(&mut s, "UPDATE e SET a1 = 3"), 1348);
    Ok(())
}

#[test]
fn view_errors_are_mariadbs() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(code(&mut s, "CREATE VIEW v AS SELECT * FROM missing"), 1146);
    assert_eq!(code(&mut s, "CREATE VIEW v AS SELECT nope FROM t"), 1054);
    assert_eq!(code(&mut s, "CREATE VIEW v AS SELECT a, a FROM t"), 1060);
    assert_eq!(
        code(&mut s, "CREATE VIEW v (x) AS SELECT a, b FROM t"),
        1353
    );
    s.execute("CREATE VIEW v AS SELECT a FROM t")?;
    assert_eq!(code(&mut s, "CREATE VIEW v AS SELECT b FROM t"), 1050);
    s.execute("CREATE VIEW IF NOT EXISTS v AS SELECT b FROM t")?;
    assert_eq!(code(&mut s, "CREATE TABLE v (x INT)"), 1050);
    assert_eq!(code(&mut s, "CREATE VIEW t AS SELECT 1"), 1050);
    assert_eq!(code(&mut s, "CREATE OR REPLACE VIEW t AS SELECT 1"), 1347);
    assert_eq!(code(&mut s, "DROP TABLE v"), 1965);
    assert_eq!(code(&mut s, "DROP VIEW t"), 4092);
    assert_eq!(code(&mut s, "SHOW CREATE VIEW t"), 1347);
    s.execute("DROP VIEW IF EXISTS t, nothing")?;
    // A view over a dropped table: 1356.
    s.execute("CREATE TABLE base (x INT)")?;
    s.execute("CREATE VIEW vb AS SELECT x FROM base")?;
    s.execute("DROP TABLE base")?;
    assert_eq!(code(&mut s, "SELECT * FROM vb"), 1356);
    assert_eq!(code(&mut s, "SELECT * FROM t JOIN vb"), 1356);
    Ok(())
}

#[test]
fn metadata_shows_views() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE VIEW v AS select id, b from t")?;
    let (names, r) = query(&mut s, "SHOW CREATE VIEW v")?;
    assert_eq!(
        names,
        [
            "View",
            "Create View",
            "character_set_client",
            "collation_connection"
        ]
    );
    assert_eq!(
        r[0][1],
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS select id, b from t"
    );
    assert_eq!(rows(&mut s, "SHOW CREATE TABLE v")?, r);
    assert_eq!(
        flat(rows(&mut s, "SHOW FULL TABLES")?),
        ["t,BASE TABLE", "v,VIEW"]
    );
    assert_eq!(flat(rows(&mut s, "SHOW TABLES")?), ["t", "v"]);
    let cols = rows(&mut s, "SHOW COLUMNS FROM v")?;
    assert_eq!(
        cols.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
        ["id", "b"]
    );
    assert_eq!(cols[0][1], "int(11)");
    assert_eq!(
        flat(rows(&mut s, "SELECT TABLE_TYPE, ENGINE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'v'")?),
        ["VIEW,NULL,VIEW"]
    );
    assert_eq!(
        flat(rows(&mut s, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'v' ORDER BY ORDINAL_POSITION")?),
        ["id", "b"]
    );
    assert_eq!(
        flat(rows(&mut s, "SELECT TABLE_NAME, VIEW_DEFINITION, CHECK_OPTION, IS_UPDATABLE, DEFINER, SECURITY_TYPE, ALGORITHM FROM information_schema.VIEWS")?),
        ["v,select id, b from t,NONE,YES,root@localhost,DEFINER,UNDEFINED"]
    );
    s.execute("ALTER ALGORITHM=MERGE VIEW v AS select id from t WITH LOCAL CHECK OPTION")?;
    assert_eq!(
        rows(&mut s, "SHOW CREATE VIEW v")?[0][1],
        "CREATE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS select id from t WITH LOCAL CHECK OPTION"
    );
    s.execute("RENAME TABLE v TO v2")?;
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v2")?, "4");
    assert_eq!(code(&mut s, "SELECT * FROM v"), 1146);
    Ok(())
}

#[test]
fn views_survive_a_restart_and_go_with_their_database() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let mut s = db.new_session(0, "root", "localhost")?;
        s.execute("CREATE DATABASE d")?;
        s.use_database("d")?;
        s.execute("CREATE TABLE t (a INT)")?;
        s.execute("INSERT INTO t VALUES (1), (2)")?;
        s.execute("CREATE VIEW v (x) AS SELECT a FROM t WHERE a > 1 WITH CHECK OPTION")?;
        drop(s);
        db.close()?;
    }
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let mut s = db.new_session(0, "root", "localhost")?;
    // Unqualified names in a view belong to the view's database.
    assert_eq!(one(&mut s, "SELECT x FROM d.v")?, "2");
    assert_eq!(
        rows(&mut s, "SHOW CREATE VIEW d.v")?[0][1],
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` (`x`) AS SELECT a FROM t WHERE a > 1 WITH CASCADED CHECK OPTION"
    );
    s.execute("DROP DATABASE d")?;
    s.execute("CREATE DATABASE d")?;
    s.use_database("d")?;
    s.execute("CREATE TABLE v (a INT)")?;
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM information_schema.VIEWS")?,
        "0"
    );
    Ok(())
}

#[test]
fn a_dump_with_views_imports() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // What mariadb-dump writes: a placeholder view first, the real one later.
    let dump = "/*!50001 DROP VIEW IF EXISTS `v1`*/;\n\
        SET @saved_cs_client     = @@character_set_client;\n\
        SET character_set_client = utf8mb4;\n\
        /*!50001 CREATE VIEW `v1` AS SELECT\n 1 AS `id`,\n  1 AS `a` */;\n\
        SET character_set_client = @saved_cs_client;\n\
        /*!50001 DROP VIEW IF EXISTS `v1`*/;\n\
        /*!50001 SET @saved_cs_client          = @@character_set_client */;\n\
        /*!50001 CREATE ALGORITHM=UNDEFINED */\n\
        /*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */\n\
        /*!50001 VIEW `v1` AS select `t`.`id` AS `id`,`t`.`a` AS `a` from `t` where `t`.`a` > 25 */;\n\
        /*!50001 SET character_set_client      = @saved_cs_client */;";
    if let Some(e) = s.query(dump.as_bytes()).error {
        return Err(e.into());
    }
    assert_eq!(
        flat(rows(&mut s, "SELECT id, a FROM v1 ORDER BY id")?),
        ["3,30", "4,40"]
    );
    Ok(())
}

/// A chain of 80 views, each reading the one before, merged or
/// materialized, reads as MariaDB's does; a cycle made by a rename is 1462
/// naming the view met again (MariaDB's answers). It runs on a thread with
/// larchd's statement stack (8 MiB).
#[test]
fn long_view_chains_read_and_cycles_are_1462() -> R<()> {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(view_chains)?
        .join()
        .map_err(|_| "the test thread panicked")?
}

fn view_chains() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE VIEW m0 AS SELECT id, a FROM t")?;
    s.execute("CREATE ALGORITHM = TEMPTABLE VIEW p0 AS SELECT id, a FROM t")?;
    for i in 1..80 {
        s.execute(&format!("CREATE VIEW m{i} AS SELECT id, a FROM m{}", i - 1))?;
        s.execute(&format!(
            "CREATE ALGORITHM = TEMPTABLE VIEW p{i} AS SELECT id, a FROM p{}",
            i - 1
        ))?;
    }
    for v in ["m79", "p79", "m33"] {
        assert_eq!(
            flat(rows(
                &mut s,
                &format!("SELECT id, a FROM {v} WHERE a > 15 ORDER BY id")
            )?),
            ["2,20", "3,30", "4,40"],
            "{v}"
        );
    }
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM m79 JOIN p79 USING (id)")?,
        "4"
    );

    s.execute("CREATE TABLE base (a INT)")?;
    s.execute("CREATE VIEW v1 AS SELECT a FROM base")?;
    s.execute("CREATE VIEW v2 AS SELECT a FROM v1")?;
    s.execute("DROP TABLE base")?;
    s.execute("RENAME TABLE v2 TO base")?;
    assert_eq!(
        support::error(&mut s, "SELECT * FROM v1")?,
        (1462, "`test`.`v1` contains view recursion".into())
    );
    assert_eq!(
        support::error(&mut s, "SELECT * FROM base")?,
        (1462, "`test`.`base` contains view recursion".into())
    );
    Ok(())
}
