//! Parenthesized (nested) joins, RIGHT JOIN, NATURAL JOIN and subqueries in
//! ON conditions, end to end in process, with the rows MariaDB 10.11 gives
//! for the same statements: inner nests flatten, a LEFT JOIN whose right
//! side is a nest NULL-extends the whole nest, the joins around a
//! NULL-extended side still apply, RIGHT JOIN keeps `*` in FROM order, the
//! inner tables are still looked up through their indexes (EXPLAIN), and a
//! view stored in MariaDB's form (`from (t1 join t2 on(...))`) loads and
//! reads.

mod support;

use larch_sql::session::Session;
use support::{code, query, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE a (id INT PRIMARY KEY, x INT)",
        "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, KEY (a_id))",
        "CREATE TABLE c (id INT PRIMARY KEY, b_id INT, v VARCHAR(5), KEY (b_id))",
        "INSERT INTO a VALUES (1, 10), (2, 20), (3, 30)",
        "INSERT INTO b VALUES (11, 1), (12, 1), (13, 2), (14, NULL)",
        "INSERT INTO c VALUES (101, 11, 'p'), (102, 13, 'q'), (103, 99, 'r')",
    ])
}

fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

#[test]
fn inner_nests_flatten() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let (names, _) = query(
        &mut s,
        "SELECT * FROM (a JOIN b ON b.a_id = a.id) JOIN c ON c.b_id = b.id",
    )?;
    assert_eq!(names, ["id", "x", "id", "a_id", "id", "b_id", "v"]);
    assert_eq!(
        flat(
            &mut s,
            "SELECT * FROM (a JOIN b ON b.a_id = a.id) JOIN c ON c.b_id = b.id \
             ORDER BY a.id, b.id, c.id"
        )?,
        ["1,10,11,1,101,11,p", "2,20,13,2,102,13,q"]
    );
    // The nest on the right.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id, c.id FROM a JOIN (b JOIN c ON c.b_id = b.id) ON b.a_id = a.id \
             ORDER BY a.id"
        )?,
        ["1,11,101", "2,13,102"]
    );
    // Comma joins inside parentheses, then an outer join over both.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id, c.id FROM (a, b) LEFT JOIN c ON c.b_id = b.id AND b.a_id = a.id \
             WHERE a.id = 1 ORDER BY a.id, b.id, c.id"
        )?,
        ["1,11,101", "1,12,NULL", "1,13,NULL", "1,14,NULL"]
    );
    Ok(())
}

#[test]
fn left_join_of_a_nest_null_extends_the_whole_nest() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // b 12 has no c: with an inner join inside, a 1 keeps only b 11; a 3
    // matches nothing and gets NULLs for b and c together.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id, c.id FROM a LEFT JOIN (b JOIN c ON c.b_id = b.id) \
             ON b.a_id = a.id ORDER BY a.id, b.id, c.id"
        )?,
        ["1,11,101", "2,13,102", "3,NULL,NULL"]
    );
    // A LEFT JOIN inside the nest keeps b 12 with a NULL c.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id, c.id FROM a LEFT JOIN (b LEFT JOIN c ON c.b_id = b.id) \
             ON b.a_id = a.id ORDER BY a.id, b.id, c.id"
        )?,
        ["1,11,101", "1,12,NULL", "2,13,102", "3,NULL,NULL"]
    );
    // The join around a NULL-extended side still filters: only b 12 has no c.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id, c.id FROM a JOIN (b LEFT JOIN c ON c.b_id = b.id) \
             ON b.a_id = a.id AND c.id IS NULL ORDER BY a.id, b.id"
        )?,
        ["1,12,NULL"]
    );
    // WHERE applies after the NULL rows are made.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id FROM a LEFT JOIN (b JOIN c ON c.b_id = b.id) ON b.a_id = a.id \
             WHERE c.id IS NULL"
        )?,
        ["3"]
    );
    Ok(())
}

#[test]
fn right_join_reads_its_right_side_first() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let (names, got) = query(
        &mut s,
        "SELECT * FROM a RIGHT JOIN b ON b.a_id = a.id ORDER BY b.id",
    )?;
    assert_eq!(names, ["id", "x", "id", "a_id"]);
    let got: Vec<String> = got.into_iter().map(|r| r.join(",")).collect();
    assert_eq!(
        got,
        ["1,10,11,1", "1,10,12,1", "2,20,13,2", "NULL,NULL,14,NULL"]
    );
    // A RIGHT JOIN whose left side is a table and right side a nest.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id, c.id FROM c RIGHT JOIN (a LEFT JOIN b ON b.a_id = a.id) \
             ON c.b_id = b.id ORDER BY a.id, b.id, c.id"
        )?,
        ["1,11,101", "1,12,NULL", "2,13,102", "3,NULL,NULL"]
    );
    // RIGHT OUTER JOIN with USING.
    assert_eq!(
        flat(
            &mut s,
            "SELECT b.id, c.id FROM c RIGHT OUTER JOIN b USING (id) ORDER BY b.id"
        )?,
        ["11,NULL", "12,NULL", "13,NULL", "14,NULL"]
    );
    Ok(())
}

#[test]
fn natural_join_and_errors() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // a and b share only `id`, and no id is in both.
    assert!(rows(&mut s, "SELECT * FROM a NATURAL JOIN b")?.is_empty());
    assert_eq!(
        flat(
            &mut s,
            "SELECT b.id, c.id FROM b NATURAL LEFT JOIN c ORDER BY b.id"
        )?,
        ["11,NULL", "12,NULL", "13,NULL", "14,NULL"]
    );
    // An alias on a parenthesized join is a syntax error, as in MariaDB.
    assert_eq!(code(&mut s, "SELECT * FROM (a JOIN b) AS q"), 1064);
    // USING a column one side lacks.
    assert_eq!(code(&mut s, "SELECT * FROM a JOIN c USING (x)"), 1054);
    Ok(())
}

#[test]
fn subqueries_in_on_conditions() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // Correlated with the outer side of a LEFT JOIN.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id AND \
             b.id = (SELECT MAX(id) FROM b b2 WHERE b2.a_id = a.id) ORDER BY a.id"
        )?,
        ["1,12", "2,13", "3,NULL"]
    );
    // Correlated with the inner side.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id FROM a JOIN b ON b.a_id = a.id AND \
             EXISTS (SELECT 1 FROM c WHERE c.b_id = b.id) ORDER BY a.id"
        )?,
        ["1,11", "2,13"]
    );
    // Uncorrelated.
    assert_eq!(
        flat(
            &mut s,
            "SELECT a.id, b.id FROM a JOIN b ON b.a_id = a.id AND \
             b.id IN (SELECT b_id FROM c) ORDER BY a.id"
        )?,
        ["1,11", "2,13"]
    );
    Ok(())
}

#[test]
fn nested_inner_tables_keep_their_indexes() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    let (_, lines) = query(
        &mut s,
        "EXPLAIN SELECT a.id, b.id, c.id FROM a LEFT JOIN (b JOIN c ON c.b_id = b.id) \
         ON b.a_id = a.id",
    )?;
    let tables: Vec<&str> = lines.iter().map(|l| l[2].as_str()).collect();
    assert_eq!(tables, ["a", "b", "c"], "{lines:?}");
    // b through a_id = a.id (the outer ON), c through b_id = b.id.
    assert_eq!(
        (lines[1][3].as_str(), lines[1][5].as_str()),
        ("ref", "a_id")
    );
    assert_eq!(lines[1][7], "test.a.id");
    assert_eq!(
        (lines[2][3].as_str(), lines[2][5].as_str()),
        ("ref", "b_id")
    );
    assert_eq!(lines[2][7], "test.b.id");
    // A RIGHT JOIN reads b first and looks a up by its primary key.
    let (_, lines) = query(
        &mut s,
        "EXPLAIN SELECT * FROM a RIGHT JOIN b ON b.a_id = a.id",
    )?;
    let tables: Vec<&str> = lines.iter().map(|l| l[2].as_str()).collect();
    assert_eq!(tables, ["b", "a"]);
    assert_eq!(
        (lines[1][3].as_str(), lines[1][5].as_str()),
        ("eq_ref", "PRIMARY")
    );
    assert_eq!(lines[1][7], "test.b.a_id");
    Ok(())
}

#[test]
fn view_in_mariadb_stored_form_loads_and_reads() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // As mariadb-dump prints a view MariaDB stored.
    s.execute(
        "CREATE ALGORITHM=UNDEFINED SQL SECURITY DEFINER VIEW `v` AS select `a`.`id` AS \
         `id`,`c`.`v` AS `v` from ((`a` join `b` on(`b`.`a_id` = `a`.`id`)) left join `c` \
         on(`c`.`b_id` = `b`.`id`))",
    )?;
    assert_eq!(
        flat(&mut s, "SELECT * FROM v ORDER BY id, v")?,
        ["1,NULL", "1,p", "2,q"]
    );
    assert_eq!(
        flat(&mut s, "SELECT COUNT(*) FROM v WHERE v IS NULL")?,
        ["1"]
    );
    Ok(())
}
