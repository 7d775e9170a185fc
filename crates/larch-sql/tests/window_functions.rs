//! Window functions and the statistical aggregates, each query's rows
//! checked against MariaDB 10.11's for the same table: ranking functions
//! with partitions and peers, LAG/LEAD, FIRST/LAST/NTH_VALUE over frames,
//! aggregates over ROWS and RANGE frames (numeric offsets in both
//! directions), windows over grouped rows, named windows, ORDER BY a window
//! value, DISTINCT after windows; STD/VARIANCE and their kinds; and the
//! errors MariaDB gives (4015, 4018, 1235, 1064).

mod support;

use support::{error, rows, TestDb, R};

fn table() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE wf (id INT PRIMARY KEY, g CHAR(1), v INT, d DECIMAL(6,2))",
        "INSERT INTO wf VALUES (1,'a',10,1.50),(2,'a',20,2.25),(3,'a',20,NULL),\
         (4,'b',5,4.00),(5,'b',NULL,5.00),(6,'c',7,6.10)",
    ])
}

/// Rows of `sql`, each joined by spaces.
fn flat(t: &TestDb, sql: &str) -> R<Vec<String>> {
    let mut s = t.session(5)?;
    Ok(rows(&mut s, sql)?
        .into_iter()
        .map(|r| r.join(" "))
        .collect())
}

#[test]
fn running_sum_over_peers() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE w (v INT)",
        "INSERT INTO w VALUES (1), (2), (3)",
    ])?;
    assert_eq!(
        flat(&t, "SELECT v, SUM(v) OVER (ORDER BY v) FROM w")?,
        ["1 1", "2 3", "3 6"]
    );
    let t = table()?;
    assert_eq!(
        flat(&t, "SELECT v, SUM(v) OVER (ORDER BY v) FROM wf ORDER BY id")?,
        ["10 22", "20 62", "20 62", "5 5", "NULL NULL", "7 12"]
    );
    Ok(())
}

#[test]
fn ranking() -> R<()> {
    let t = table()?;
    assert_eq!(
        flat(
            &t,
            "SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC, id), \
             RANK() OVER (PARTITION BY g ORDER BY v), DENSE_RANK() OVER (ORDER BY v) \
             FROM wf ORDER BY id"
        )?,
        ["1 3 1 4", "2 1 2 5", "3 2 2 5", "4 1 2 2", "5 2 1 1", "6 1 1 3"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT id, CAST(PERCENT_RANK() OVER (ORDER BY v) AS DECIMAL(10,4)), \
             CAST(CUME_DIST() OVER (ORDER BY v) AS DECIMAL(10,4)), \
             NTILE(4) OVER (ORDER BY id) FROM wf ORDER BY id"
        )?,
        [
            "1 0.6000 0.6667 1",
            "2 0.8000 1.0000 1",
            "3 0.8000 1.0000 2",
            "4 0.2000 0.3333 2",
            "5 0.0000 0.1667 3",
            "6 0.4000 0.5000 4"
        ]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT id, NTILE(4) OVER (PARTITION BY g ORDER BY id) FROM wf ORDER BY id"
        )?,
        ["1 1", "2 2", "3 3", "4 1", "5 2", "6 1"]
    );
    Ok(())
}

#[test]
fn neighbours_and_frame_values() -> R<()> {
    let t = table()?;
    assert_eq!(
        flat(
            &t,
            "SELECT id, LAG(v) OVER (ORDER BY id), LEAD(v, 2) OVER (ORDER BY id), \
             LAG(g) OVER (PARTITION BY g ORDER BY id) FROM wf ORDER BY id"
        )?,
        [
            "1 NULL 20 NULL",
            "2 10 5 a",
            "3 20 NULL a",
            "4 20 7 NULL",
            "5 5 NULL b",
            "6 NULL NULL NULL"
        ]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT id, FIRST_VALUE(v) OVER w, LAST_VALUE(v) OVER w, NTH_VALUE(v, 2) OVER w \
             FROM wf WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING \
             AND UNBOUNDED FOLLOWING) ORDER BY id"
        )?,
        [
            "1 10 20 20",
            "2 10 20 20",
            "3 10 20 20",
            "4 5 NULL NULL",
            "5 5 NULL NULL",
            "6 7 7 NULL"
        ]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT g, ROW_NUMBER() OVER w FROM wf WINDOW w AS (ORDER BY id DESC) ORDER BY id"
        )?,
        ["a 6", "a 5", "a 4", "b 3", "b 2", "c 1"]
    );
    Ok(())
}

#[test]
fn aggregates_over_frames() -> R<()> {
    let t = table()?;
    assert_eq!(
        flat(
            &t,
            "SELECT id, SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), \
             AVG(d) OVER (PARTITION BY g), COUNT(*) OVER (), \
             COUNT(v) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING), \
             MAX(v) OVER (ORDER BY id ROWS 2 PRECEDING) FROM wf ORDER BY id"
        )?,
        [
            "1 30 1.875000 6 3 10",
            "2 50 1.875000 6 2 20",
            "3 45 1.875000 6 2 20",
            "4 25 4.500000 6 3 20",
            "5 12 4.500000 6 0 20",
            "6 7 6.100000 6 3 7"
        ]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT id, v, SUM(v) OVER (ORDER BY v DESC RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) \
             FROM wf ORDER BY id"
        )?,
        ["1 10 10", "2 20 40", "3 20 40", "4 5 22", "5 NULL NULL", "6 7 17"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT id, SUM(v) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING), \
             SUM(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) \
             FROM wf ORDER BY id"
        )?,
        ["1 25 62", "2 5 52", "3 7 32", "4 7 12", "5 NULL 7", "6 NULL 7"]
    );
    Ok(())
}

#[test]
fn windows_over_groups_in_order_by_and_with_distinct() -> R<()> {
    let t = table()?;
    assert_eq!(
        flat(
            &t,
            "SELECT g, SUM(v), SUM(SUM(v)) OVER (ORDER BY g), RANK() OVER (ORDER BY SUM(v) DESC) \
             FROM wf GROUP BY g ORDER BY g"
        )?,
        ["a 50 50 1", "b 5 55 3", "c 7 62 2"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT id FROM wf ORDER BY ROW_NUMBER() OVER (ORDER BY v DESC, id) LIMIT 3"
        )?,
        ["2", "3", "1"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT DISTINCT g, COUNT(*) OVER (PARTITION BY g) FROM wf ORDER BY g"
        )?,
        ["a 3", "b 2", "c 1"]
    );
    Ok(())
}

#[test]
fn statistical_aggregates() -> R<()> {
    let t = table()?;
    assert_eq!(
        flat(
            &t,
            "SELECT CAST(STDDEV_POP(v) AS DECIMAL(10,4)), CAST(VAR_SAMP(v) AS DECIMAL(10,4)), \
             CAST(STD(d) AS DECIMAL(10,4)), CAST(VARIANCE(v) AS DECIMAL(10,4)), \
             CAST(STDDEV_SAMP(d) AS DECIMAL(10,6)), CAST(VAR_POP(d) AS DECIMAL(10,6)) FROM wf"
        )?,
        ["6.4062 51.3000 1.7005 41.0400 1.901184 2.891600"]
    );
    assert_eq!(
        flat(
            &t,
            "SELECT g, CAST(STDDEV_SAMP(v) AS DECIMAL(10,4)) FROM wf GROUP BY g"
        )?,
        ["a 5.7735", "b NULL", "c NULL"]
    );
    Ok(())
}

#[test]
fn mariadb_errors() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    for (sql, code) in [
        ("SELECT RANK() OVER () FROM wf", 4018),
        ("SELECT LAG(v) OVER () FROM wf", 4018),
        ("SELECT id FROM wf WHERE ROW_NUMBER() OVER () > 1", 4015),
        (
            "SELECT COUNT(*) FROM wf GROUP BY ROW_NUMBER() OVER ()",
            4015,
        ),
        ("SELECT COUNT(DISTINCT v) OVER () FROM wf", 1235),
        ("SELECT GROUP_CONCAT(v) OVER () FROM wf", 1235),
        ("SELECT ROW_NUMBER() OVER w FROM wf", 4004),
        ("SELECT LEAD(v, 2, -1) OVER (ORDER BY id) FROM wf", 1064),
    ] {
        assert_eq!(error(&mut s, sql)?.0, code, "{sql}");
    }
    Ok(())
}
