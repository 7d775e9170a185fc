//! `GROUP BY ... WITH ROLLUP`, each result checked against MariaDB 10.11's
//! for the same table: super-aggregate rows after the last group of each
//! prefix, NULL in the rolled-up columns, the last group's other columns,
//! DISTINCT aggregates and GROUP_CONCAT recomputed per prefix, HAVING and
//! LIMIT over the rolled-up rows; ORDER BY refused with 1221.

mod support;

use support::{error, rows, TestDb, R};

fn flat(t: &TestDb, sql: &str) -> R<Vec<String>> {
    let mut s = t.session(5)?;
    Ok(rows(&mut s, sql)?
        .into_iter()
        .map(|r| r.join(" "))
        .collect())
}

#[test]
fn super_aggregate_rows() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE s1 (a INT, b VARCHAR(5) COLLATE utf8mb4_bin)",
        "INSERT INTO s1 VALUES (1,'x'),(1,'x'),(2,'y'),(3,'Z'),(NULL,NULL),(NULL,NULL)",
    ])?;
    assert_eq!(
        flat(
            &t,
            "SELECT a, b, COUNT(*), SUM(a) FROM s1 GROUP BY a, b WITH ROLLUP"
        )?,
        [
            "NULL NULL 2 NULL",
            "NULL NULL 2 NULL",
            "1 x 2 2",
            "1 NULL 2 2",
            "2 y 1 2",
            "2 NULL 1 2",
            "3 Z 1 3",
            "3 NULL 1 3",
            "NULL NULL 6 7"
        ]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a, COUNT(*) FROM s1 GROUP BY a WITH ROLLUP HAVING COUNT(*) > 1"
        )?,
        ["NULL 2", "1 2", "NULL 6"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a, COUNT(*) FROM s1 GROUP BY a WITH ROLLUP LIMIT 2"
        )?,
        ["NULL 2", "1 2"]
    );
    assert_eq!(
        flat(&t, "SELECT a, b, COUNT(*) FROM s1 GROUP BY a WITH ROLLUP")?,
        ["NULL NULL 2", "1 x 2", "2 y 1", "3 Z 1", "NULL Z 6"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT a, COUNT(DISTINCT b), GROUP_CONCAT(b) FROM s1 GROUP BY a WITH ROLLUP"
        )?,
        ["NULL 0 NULL", "1 1 x,x", "2 1 y", "3 1 Z", "NULL 3 x,x,y,Z"]
    );
    assert_eq!(
        flat(&t, "SELECT COUNT(*) FROM s1 GROUP BY a WITH ROLLUP")?,
        ["2", "2", "1", "1", "6"]
    );
    let mut s = t.session(5)?;
    assert_eq!(
        error(
            &mut s,
            "SELECT a, COUNT(*) FROM s1 GROUP BY a WITH ROLLUP ORDER BY a DESC"
        )?
        .0,
        1221
    );
    Ok(())
}
