//! AUTO_INCREMENT values are reserved per statement in InnoDB's intervals
//! (`innodb_autoinc_lock_mode=1`): the ids rows get, the gaps a statement
//! leaves and LAST_INSERT_ID() are MariaDB 10.11's, checked side by side.

mod support;

use support::{one, rows, TestDb, R};

fn ids(s: &mut larch_sql::session::Session, table: &str) -> R<Vec<String>> {
    Ok(rows(s, &format!("SELECT id, v FROM {table} ORDER BY id"))?
        .into_iter()
        .map(|r| format!("{}:{}", r[0], r[1]))
        .collect())
}

#[test]
fn insert_ignore_reserves_the_statements_rows() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE)"])?;
    let mut s = t.session(5)?;
    s.execute("INSERT INTO ai (v) VALUES (1)")?;
    // Three values reserved (2..4); the duplicate's value goes to the next row.
    s.execute("INSERT IGNORE INTO ai (v) VALUES (1), (2), (3)")?;
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "2");
    s.execute("INSERT INTO ai (v) VALUES (10)")?;
    // Nothing inserted: LAST_INSERT_ID() stays, the two values are gaps.
    s.execute("INSERT IGNORE INTO ai (v) VALUES (1), (1)")?;
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "5");
    s.execute("INSERT INTO ai (v) VALUES (11)")?;
    s.execute("INSERT IGNORE INTO ai (v) VALUES (20), (1), (21), (1), (22)")?;
    s.execute("INSERT INTO ai (v) VALUES (30)")?;
    assert_eq!(
        ids(&mut s, "ai")?,
        ["1:1", "2:2", "3:3", "5:10", "8:11", "9:20", "10:21", "11:22", "14:30"]
    );
    Ok(())
}

#[test]
fn insert_select_reserves_doubling_intervals() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE src (v INT)",
        "INSERT INTO src VALUES (1), (2), (3), (4), (5)",
        "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    ])?;
    let mut s = t.session(5)?;
    // 1 + 2 values: no gap after three rows.
    s.execute("INSERT INTO ai (v) SELECT v FROM src WHERE v <= 3")?;
    s.execute("INSERT INTO ai (v) VALUES (100)")?;
    // 1 + 2 + 4 values for five rows: two are gaps.
    s.execute("INSERT INTO ai (v) SELECT v FROM src")?;
    s.execute("INSERT INTO ai (v) VALUES (101)")?;
    s.execute("INSERT INTO ai (v) VALUES (102), (103)")?;
    // An explicit value past the interval: the rest continue after it.
    s.execute("INSERT INTO ai (id, v) VALUES (NULL, 104), (50, 105), (NULL, 106)")?;
    s.execute("INSERT INTO ai (v) VALUES (107)")?;
    assert_eq!(
        ids(&mut s, "ai")?,
        [
            "1:1", "2:2", "3:3", "4:100", "5:1", "6:2", "7:3", "8:4", "9:5", "12:101", "13:102",
            "14:103", "15:104", "50:105", "51:106", "52:107"
        ]
    );
    Ok(())
}
