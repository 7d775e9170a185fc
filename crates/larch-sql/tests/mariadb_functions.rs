//! Built-in functions and result column names as MariaDB gives them:
//! BIT_LENGTH, SUBSTRING_INDEX, CHARSET, COLLATION and the calendar
//! functions (TO_DAYS, FROM_DAYS, LAST_DAY, DAYNAME, MONTHNAME, WEEKDAY,
//! QUARTER) with their NULL handling; unaliased select items named by their
//! text as written.

mod support;

use support::{query, rows, TestDb, R};

#[test]
fn string_functions_follow_mariadb() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE s (a VARCHAR(10) CHARACTER SET latin1, b INT, c VARBINARY(4))",
    ])?;
    let mut s = t.session(50)?;
    s.execute("INSERT INTO s VALUES ('héllo', 1, 'x')")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT BIT_LENGTH('abc'), BIT_LENGTH(123), BIT_LENGTH(NULL), BIT_LENGTH(a) FROM s"
        )?,
        vec![vec!["24", "24", "NULL", "40"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT SUBSTRING_INDEX('www.mariadb.org', '.', 2), \
             SUBSTRING_INDEX('www.mariadb.org', '.', -2), SUBSTRING_INDEX('aXbxc', 'x', 1), \
             SUBSTRING_INDEX('a.b', '.', 0), SUBSTRING_INDEX('a.b', '.', 7), \
             SUBSTRING_INDEX('a.b', NULL, 1)"
        )?,
        vec![vec!["www.mariadb", "mariadb.org", "aXb", "", "a.b", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CHARSET(a), COLLATION(a), CHARSET(b), COLLATION(c), CHARSET(NULL), \
             COLLATION(CONCAT(a, 'x')) FROM s"
        )?,
        vec![vec![
            "latin1",
            "latin1_swedish_ci",
            "binary",
            "binary",
            "binary",
            "latin1_swedish_ci"
        ]]
    );
    Ok(())
}

#[test]
fn calendar_functions_use_mariadb_day_numbers() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TO_DAYS('1970-01-01'), TO_DAYS('0000-01-01'), TO_DAYS(20200301), \
             TO_DAYS('0000-00-00'), TO_DAYS(NULL)"
        )?,
        vec![vec!["719528", "1", "737850", "NULL", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT FROM_DAYS(366), FROM_DAYS(730000), FROM_DAYS(0), FROM_DAYS(NULL), \
             FROM_DAYS(TO_DAYS('2024-02-29'))"
        )?,
        vec![vec![
            "0001-01-01",
            "1998-09-03",
            "0000-00-00",
            "NULL",
            "2024-02-29"
        ]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT LAST_DAY('2024-02-10'), LAST_DAY('2023-02-01 10:00:00'), \
             LAST_DAY('0000-00-00'), LAST_DAY(NULL)"
        )?,
        vec![vec!["2024-02-29", "2023-02-28", "NULL", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT DAYNAME('2024-11-24'), MONTHNAME('2024-11-24'), WEEKDAY('2024-11-24'), \
             QUARTER('2024-11-24'), DAYNAME(NULL), WEEKDAY('2024-11-25')"
        )?,
        vec![vec!["Sunday", "November", "6", "4", "NULL", "0"]]
    );
    Ok(())
}

#[test]
fn unaliased_items_are_named_by_their_text() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE n (a INT, tid INT)",
        "INSERT INTO n VALUES (1, 2)",
    ])?;
    let mut s = t.session(50)?;
    let (names, _) = query(
        &mut s,
        "SELECT (a), a  , n.a, ( a+1 ), 1 +   1, COUNT( DISTINCT a ), \
         max(tid) != min(tid), 'x', -1, 1.50, concat('a' , 'b') AS c FROM n",
    )?;
    assert_eq!(
        names,
        vec![
            "a",
            "a",
            "a",
            "( a+1 )",
            "1 +   1",
            "COUNT( DISTINCT a )",
            "max(tid) != min(tid)",
            "x",
            "-1",
            "1.50",
            "c"
        ]
    );
    // The first SELECT names a UNION's columns; the name can be referred to.
    let (names, r) = query(
        &mut s,
        "SELECT a MOD 2, @@GLOBAL.autocommit FROM n UNION SELECT 5, 6 ORDER BY `a MOD 2`",
    )?;
    assert_eq!(names, vec!["a MOD 2", "@@GLOBAL.autocommit"]);
    assert_eq!(r, vec![vec!["1", "1"], vec!["5", "6"]]);
    Ok(())
}
