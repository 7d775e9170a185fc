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

/// The `Auto_increment` column of SHOW TABLE STATUS: the table's counter.
fn counter(s: &mut larch_sql::session::Session, table: &str) -> R<String> {
    one(
        s,
        &format!(
            "SELECT AUTO_INCREMENT FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{table}'"
        ),
    )
}

#[test]
fn increment_and_offset_space_the_values_as_mariadb() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"])?;
    let mut s = t.session(5)?;
    s.execute("SET auto_increment_increment = 10, auto_increment_offset = 1")?;
    s.execute("INSERT INTO ai (v) VALUES (1), (2)")?;
    assert_eq!(counter(&mut s, "ai")?, "21");
    // An explicit value moves the counter to the series' next value.
    s.execute("INSERT INTO ai VALUES (42, 3)")?;
    s.execute("INSERT INTO ai (v) VALUES (4)")?;
    assert_eq!(one(&mut s, "SELECT LAST_INSERT_ID()")?, "51");
    s.execute("SET auto_increment_increment = 7, auto_increment_offset = 3")?;
    s.execute("INSERT INTO ai (v) VALUES (5), (6), (7)")?;
    s.execute("INSERT INTO ai (v) VALUES (8), (9)")?;
    s.execute("INSERT INTO ai VALUES (200, 10), (NULL, 11)")?;
    // An offset above the increment: the series is offset mod increment.
    s.execute("SET auto_increment_increment = 2, auto_increment_offset = 5")?;
    s.execute("INSERT INTO ai (v) VALUES (12)")?;
    s.execute("INSERT INTO ai (v) VALUES (13)")?;
    s.execute("SET auto_increment_increment = 1, auto_increment_offset = 1")?;
    s.execute("INSERT INTO ai (v) VALUES (14)")?;
    assert_eq!(
        ids(&mut s, "ai")?,
        [
            "1:1", "11:2", "42:3", "51:4", "66:5", "73:6", "80:7", "87:8", "94:9", "200:10",
            "206:11", "221:12", "223:13", "224:14"
        ]
    );
    // INSERT ... SELECT: doubling intervals of spaced values.
    s.execute("CREATE TABLE ai2 (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")?;
    s.execute("SET auto_increment_increment = 5, auto_increment_offset = 2")?;
    s.execute("INSERT INTO ai2 (v) SELECT v FROM ai")?;
    let got: Vec<String> = rows(&mut s, "SELECT id FROM ai2 ORDER BY id")?
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let want: Vec<String> = (0..14).map(|k| (2 + 5 * k).to_string()).collect();
    assert_eq!(got, want);
    assert_eq!(counter(&mut s, "ai2")?, "77");
    // A new table, offset above the increment: 1, 3, 5 and counter 6.
    s.execute("CREATE TABLE ai3 (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")?;
    s.execute("SET auto_increment_increment = 2, auto_increment_offset = 5")?;
    s.execute("INSERT INTO ai3 (v) VALUES (1), (2), (3)")?;
    assert_eq!(counter(&mut s, "ai3")?, "6");
    s.execute("INSERT INTO ai3 VALUES (2, 3)")?;
    s.execute("INSERT INTO ai3 (v) VALUES (4)")?;
    assert_eq!(ids(&mut s, "ai3")?, ["1:1", "2:3", "3:2", "5:3", "7:4"]);
    Ok(())
}
