//! Common table expressions end to end, in process: non-recursive WITH
//! (several references, shadowing a table, nested WITH, in subqueries and
//! derived tables, INSERT ... SELECT, CREATE TABLE ... SELECT, views) and
//! WITH RECURSIVE (series, a tree and a graph walk over tables, UNION vs
//! UNION ALL termination, `max_recursive_iterations`, conversion to the
//! anchor's types), with MariaDB's errors.

mod support;

use larch_sql::session::Session;
use support::{code, error, one, query, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10))",
        "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z'), (4, 40, NULL)",
        // A tree: 1 is the root; 2 and 3 under it; 4 under 2; 5 under 4.
        "CREATE TABLE emp (id INT PRIMARY KEY, boss INT, name VARCHAR(20))",
        "INSERT INTO emp VALUES (1, NULL, 'ann'), (2, 1, 'bob'), (3, 1, 'cid'), \
         (4, 2, 'dan'), (5, 4, 'eve')",
        // A graph with a cycle 1 -> 2 -> 3 -> 1 and a branch 3 -> 4.
        "CREATE TABLE edge (src INT, dst INT)",
        "INSERT INTO edge VALUES (1, 2), (2, 3), (3, 1), (3, 4)",
    ])
}

fn flat(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|r| r.join(",")).collect()
}

fn warnings(s: &mut Session) -> R<Vec<String>> {
    Ok(rows(s, "SHOW WARNINGS")?
        .into_iter()
        .map(|r| format!("{} {}", r[1], r[2]))
        .collect())
}

#[test]
fn a_with_element_is_read_like_a_table_and_may_be_named_twice() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let (names, r) = query(
        &mut s,
        "WITH big (k, v) AS (SELECT id, a FROM t WHERE a >= 20) SELECT * FROM big ORDER BY k",
    )?;
    assert_eq!(names, ["k", "v"]);
    assert_eq!(flat(r), ["2,20", "3,30", "4,40"]);
    // Two references (a self-join), and an element built on an earlier one.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH c AS (SELECT id, a FROM t), d AS (SELECT id, a * 2 AS a2 FROM c WHERE id < 3) \
             SELECT x.id, y.id, d.a2 FROM c x JOIN c y ON y.a = x.a + 10 JOIN d ON d.id = x.id \
             ORDER BY x.id"
        )?),
        ["1,2,20", "2,3,40"]
    );
    // Aggregation over an element and in it; names compare case-insensitively.
    assert_eq!(
        one(
            &mut s,
            "WITH Sums AS (SELECT b IS NULL AS n, SUM(a) AS total FROM t GROUP BY b IS NULL) \
             SELECT MAX(total) FROM sums"
        )?,
        "60"
    );
    Ok(())
}

#[test]
fn an_element_hides_a_table_of_its_name_within_its_scope() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        one(&mut s, "WITH t AS (SELECT 7 AS id) SELECT COUNT(*) FROM t")?,
        "1"
    );
    // Qualified, the name is the table.
    assert_eq!(
        one(
            &mut s,
            "WITH t AS (SELECT 7 AS id) SELECT COUNT(*) FROM test.t"
        )?,
        "4"
    );
    // Inside its own definition a non-recursive element's name is the table.
    assert_eq!(
        one(
            &mut s,
            "WITH t AS (SELECT id FROM t WHERE id > 2) SELECT SUM(id) FROM t"
        )?,
        "7"
    );
    // A nested WITH hides the outer element; outside it, the outer one again.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH c AS (SELECT 1 AS v) \
             SELECT (WITH c AS (SELECT 2 AS v) SELECT v FROM c), v FROM c"
        )?),
        ["2,1"]
    );
    // A later element is not visible to an earlier one without RECURSIVE.
    assert_eq!(
        code(
            &mut s,
            "WITH a AS (SELECT * FROM later), later AS (SELECT 1) SELECT * FROM a"
        ),
        1146
    );
    Ok(())
}

#[test]
fn with_works_in_subqueries_derived_tables_and_writes() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // The outer element seen from a subquery and a derived table.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH lo AS (SELECT id FROM t WHERE a < 25) \
             SELECT id FROM t WHERE id IN (SELECT id FROM lo) ORDER BY id"
        )?),
        ["1", "2"]
    );
    assert_eq!(
        one(
            &mut s,
            "WITH lo AS (SELECT id FROM t WHERE a < 25) \
             SELECT COUNT(*) FROM (SELECT l.id FROM lo l JOIN t ON t.id = l.id) d"
        )?,
        "2"
    );
    // WITH inside a subquery and inside a derived table.
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM t WHERE a > (WITH m AS (SELECT AVG(a) AS v FROM t) SELECT v FROM m)"
        )?,
        "2"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT SUM(x) FROM (WITH c AS (SELECT a AS x FROM t) SELECT x FROM c) d"
        )?,
        "100"
    );
    // INSERT ... SELECT and CREATE TABLE ... SELECT.
    s.execute("CREATE TABLE copy (id INT, a INT)")?;
    s.execute("INSERT INTO copy WITH c AS (SELECT id, a FROM t WHERE id <= 2) SELECT * FROM c")?;
    assert_eq!(one(&mut s, "SELECT SUM(a) FROM copy")?, "30");
    s.execute(
        "CREATE TABLE made AS WITH c AS (SELECT id, b FROM t WHERE b IS NOT NULL) SELECT * FROM c",
    )?;
    assert_eq!(
        flat(rows(&mut s, "SELECT id, b FROM made ORDER BY id")?),
        ["1,x", "2,y", "3,z"]
    );
    Ok(())
}

#[test]
fn a_view_may_be_defined_with_with() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE VIEW v AS WITH c AS (SELECT id, a FROM t WHERE a > 15) SELECT id, a FROM c WHERE id < 4",
    )?;
    assert_eq!(
        flat(rows(&mut s, "SELECT * FROM v ORDER BY id")?),
        ["2,20", "3,30"]
    );
    // The view's element does not leak out, and an outer element of the
    // same name does not reach into the view.
    assert_eq!(
        one(
            &mut s,
            "WITH c AS (SELECT 1 AS id) SELECT COUNT(*) FROM v JOIN c"
        )?,
        "2"
    );
    s.execute(
        "CREATE VIEW series AS WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4) SELECT n FROM r",
    )?;
    assert_eq!(one(&mut s, "SELECT SUM(n) FROM series")?, "10");
    Ok(())
}

#[test]
fn with_errors_are_mariadbs() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        code(
            &mut s,
            "WITH c AS (SELECT 1), C AS (SELECT 2) SELECT * FROM c"
        ),
        4004
    );
    assert_eq!(
        code(&mut s, "WITH c (x, y) AS (SELECT 1) SELECT * FROM c"),
        4002
    );
    assert_eq!(
        code(
            &mut s,
            "WITH RECURSIVE c AS (SELECT * FROM c) SELECT * FROM c"
        ),
        4005
    );
    assert_eq!(
        code(&mut s, "WITH c (x, x) AS (SELECT 1, 2) SELECT * FROM c"),
        1060
    );
    assert_eq!(
        code(
            &mut s,
            "WITH c AS (SELECT id, a AS id FROM t) SELECT * FROM c"
        ),
        1060
    );
    // An element no reference reads is still checked.
    assert_eq!(
        code(
            &mut s,
            "WITH unused AS (SELECT nosuch FROM t) SELECT COUNT(*) FROM t"
        ),
        1054
    );
    assert_eq!(
        code(
            &mut s,
            "WITH unused (x) AS (SELECT id, a FROM t) SELECT COUNT(*) FROM t"
        ),
        4002
    );
    // A cycle of elements of which none has an anchor.
    match s.execute(
        "WITH RECURSIVE a AS (SELECT * FROM b WHERE id > 2), b AS (SELECT t.id FROM t, a WHERE t.id > a.id) \
         SELECT * FROM b",
    ) {
        Err(e) => assert_eq!(e.message(), "No anchors for recursive WITH element 'a'"),
        Ok(_) => panic!("a cycle without anchors accepted"),
    }
    // Recursive references the standard forbids: in a subquery, twice in
    // one part, on the inner side of an outer join, under aggregation.
    for sql in [
        "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 AND n NOT IN (SELECT n FROM c)) SELECT * FROM c",
        "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT c.n + 1 FROM c JOIN c d ON c.n = d.n WHERE c.n < 3) SELECT * FROM c",
        "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t LEFT JOIN c ON c.n = t.id WHERE n < 3) SELECT * FROM c",
        "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT COUNT(*) FROM c) SELECT * FROM c",
    ] {
        assert_eq!(code(&mut s, sql), 4008, "{sql}");
    }
    match s.execute("WITH RECURSIVE c AS (SELECT * FROM c) SELECT * FROM c") {
        Err(e) => assert_eq!(e.message(), "No anchors for recursive WITH element 'c'"),
        Ok(_) => panic!("no anchors accepted"),
    }
    Ok(())
}

#[test]
fn a_recursive_element_iterates_until_no_new_rows() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // Each iteration reads only the previous one's rows: UNION ALL gives
    // every number once.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r"
        )?),
        ["1", "2", "3", "4", "5"]
    );
    assert_eq!(
        one(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT SUM(n) FROM r"
        )?,
        "5050"
    );
    // Fibonacci with two columns.
    assert_eq!(
        one(
            &mut s,
            "WITH RECURSIVE f (i, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT i + 1, b, a + b FROM f WHERE i < 10) \
             SELECT a FROM f WHERE i = 10"
        )?,
        "34"
    );
    // A walk down the tree with depth and path.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH RECURSIVE sub (id, depth, path) AS ( \
               SELECT id, 0, CAST(name AS CHAR(100)) FROM emp WHERE id = 2 \
               UNION ALL \
               SELECT e.id, sub.depth + 1, CONCAT(sub.path, '/', e.name) FROM emp e JOIN sub ON e.boss = sub.id) \
             SELECT id, depth, path FROM sub ORDER BY id"
        )?),
        ["2,0,bob", "4,1,bob/dan", "5,2,bob/dan/eve"]
    );
    // A walk up from a leaf to the root, the table on the other side.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH RECURSIVE up AS (SELECT id, boss FROM emp WHERE id = 5 \
               UNION ALL SELECT emp.id, emp.boss FROM up, emp WHERE emp.id = up.boss) \
             SELECT id FROM up"
        )?),
        ["5", "4", "2", "1"]
    );
    // A graph with a cycle: UNION (DISTINCT) ends once nothing is new.
    assert_eq!(
        flat(rows(
            &mut s,
            "WITH RECURSIVE reach (node) AS (SELECT 1 UNION SELECT edge.dst FROM reach JOIN edge ON edge.src = reach.node) \
             SELECT node FROM reach ORDER BY node"
        )?),
        ["1", "2", "3", "4"]
    );
    // A recursive element referenced twice, and beside a non-recursive one.
    assert_eq!(
        one(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3), \
             k AS (SELECT 10 AS m) SELECT COUNT(*) FROM r, r AS r2, k"
        )?,
        "9"
    );
    Ok(())
}

#[test]
fn iterations_stop_at_max_recursive_iterations_with_a_warning() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(one(&mut s, "SELECT @@max_recursive_iterations")?, "1000");
    // UNION ALL over the cycle never runs dry: the limit ends it.
    s.execute("SET max_recursive_iterations = 5")?;
    let r = rows(
        &mut s,
        "WITH RECURSIVE walk (node, steps) AS (SELECT 1, 0 UNION ALL \
           SELECT edge.dst, steps + 1 FROM walk JOIN edge ON edge.src = walk.node) \
         SELECT MAX(steps), COUNT(*) FROM walk",
    )?;
    assert_eq!(flat(r), ["5,7"]);
    assert_eq!(
        warnings(&mut s)?,
        ["1931 Query execution was interrupted. The query exceeded max_recursive_iterations = 5. The query result may be incomplete"]
    );
    // Within the limit: no warning.
    assert_eq!(
        one(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT COUNT(*) FROM r"
        )?,
        "5"
    );
    assert!(warnings(&mut s)?.is_empty());
    // INSERT ... SELECT of a cut recursion: strict mode inserts nothing
    // (1931 is an error there), otherwise the rows and the warning.
    s.execute("CREATE TABLE cut (n INT)")?;
    let insert = "INSERT INTO cut WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 50) SELECT n FROM r";
    let cut = "Query execution was interrupted. The query exceeded max_recursive_iterations = 5. The query result may be incomplete";
    assert_eq!(error(&mut s, insert)?, (1931, cut.to_string()));
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM cut")?, "0");
    s.execute("SET sql_mode = ''")?;
    s.execute(insert)?;
    assert_eq!(warnings(&mut s)?, [format!("1931 {cut}")]);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM cut")?, "6");
    Ok(())
}

#[test]
fn recursive_rows_take_the_anchors_types() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let sql = "WITH RECURSIVE r (s) AS (SELECT 'a' UNION ALL SELECT CONCAT(s, 'b') FROM r WHERE LENGTH(s) < 3) \
               SELECT s FROM r";
    // Strict mode: the longer string does not fit the anchor's column.
    s.execute("SET sql_mode = 'STRICT_ALL_TABLES'")?;
    assert_eq!(code(&mut s, sql), 1406);
    // Otherwise it is cut, with a warning per row.
    s.execute("SET sql_mode = ''")?;
    s.execute("SET max_recursive_iterations = 3")?;
    assert_eq!(flat(rows(&mut s, sql)?), ["a", "a", "a", "a"]);
    let w = warnings(&mut s)?;
    assert_eq!(w[0], "1265 Data truncated for column 's' at row 2");
    assert_eq!(w.last().map(String::as_str), Some("1931 Query execution was interrupted. The query exceeded max_recursive_iterations = 3. The query result may be incomplete"));
    Ok(())
}
