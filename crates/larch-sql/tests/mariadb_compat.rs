//! Small MariaDB behaviours that MariaDB's own test files (tests/compat)
//! depend on: INFORMATION_SCHEMA.SYSTEM_VARIABLES, the server character set
//! and collation moving together and giving new databases their default,
//! `INSERT ... VALUES ()` as a row of defaults, and MariaDB's wording of
//! "function does not exist" and read-only transaction errors.

mod support;

use support::{one, rows, TestDb, R};

#[test]
fn system_variables_table_shows_scope_values_and_type() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    s.execute("SET SESSION innodb_lock_wait_timeout = 7")?;
    let r = rows(
        &mut s,
        "SELECT SESSION_VALUE, GLOBAL_VALUE, VARIABLE_SCOPE, VARIABLE_TYPE, READ_ONLY \
         FROM information_schema.system_variables \
         WHERE variable_name = 'innodb_lock_wait_timeout'",
    )?;
    assert_eq!(r, vec![vec!["7", "50", "SESSION", "INT UNSIGNED", "NO"]]);
    // have_innodb.inc asks this of every server.
    let n = one(
        &mut s,
        "SELECT COUNT(*) FROM information_schema.system_variables \
         WHERE variable_name = 'have_sanitizer' AND global_value LIKE 'MSAN%'",
    )?;
    assert_eq!(n, "0");
    let r = rows(
        &mut s,
        "SELECT SESSION_VALUE, VARIABLE_SCOPE, READ_ONLY, ENUM_VALUE_LIST \
         FROM information_schema.system_variables WHERE variable_name = 'version'",
    )?;
    assert_eq!(r, vec![vec!["NULL", "GLOBAL", "YES", "NULL"]]);
    Ok(())
}

#[test]
fn server_charset_sets_collation_and_new_database_default() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    s.execute("SET GLOBAL character_set_server = latin1")?;
    assert_eq!(
        one(&mut s, "SELECT @@global.collation_server")?,
        "latin1_swedish_ci"
    );
    // A new session takes the global values; its new databases follow them.
    let mut s2 = t.session(50)?;
    s2.execute("CREATE DATABASE d1")?;
    let create = rows(&mut s2, "SHOW CREATE DATABASE d1")?;
    assert!(
        create[0][1].contains("DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci"),
        "{create:?}"
    );
    s2.execute("CREATE TABLE d1.t (a VARCHAR(5))")?;
    let table = rows(&mut s2, "SHOW CREATE TABLE d1.t")?;
    assert!(table[0][1].contains("CHARSET=latin1"), "{table:?}");
    // Explicit options win over the server's.
    s2.execute("CREATE DATABASE d2 CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")?;
    let create = rows(&mut s2, "SHOW CREATE DATABASE d2")?;
    assert!(create[0][1].contains("COLLATE utf8mb4_bin"), "{create:?}");
    // And the collation sets the character set.
    s.execute("SET GLOBAL collation_server = utf8mb4_general_ci")?;
    assert_eq!(
        one(&mut s, "SELECT @@global.character_set_server")?,
        "utf8mb4"
    );
    Ok(())
}

#[test]
fn insert_empty_values_row_is_all_defaults() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE d (id INT AUTO_INCREMENT PRIMARY KEY, b INT DEFAULT 5)"])?;
    let mut s = t.session(50)?;
    s.execute("INSERT INTO d VALUES (), ()")?;
    s.execute("INSERT INTO d () VALUES ()")?;
    assert_eq!(
        rows(&mut s, "SELECT id, b FROM d ORDER BY id")?,
        vec![vec!["1", "5"], vec!["2", "5"], vec!["3", "5"]]
    );
    // With a column list, the row must have its values.
    let e = s
        .execute("INSERT INTO d (b) VALUES ()")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1136);
    Ok(())
}

#[test]
fn error_wording_matches_mariadb() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE w (a INT)"])?;
    let mut s = t.session(50)?;
    let e = s
        .execute("SELECT no_such_function(1)")
        .err()
        .ok_or("no error")?;
    assert_eq!(
        e.to_string(),
        "FUNCTION test.no_such_function does not exist"
    );
    s.execute("START TRANSACTION READ ONLY")?;
    let e = s
        .execute("INSERT INTO w VALUES (1)")
        .err()
        .ok_or("no error")?;
    assert_eq!(
        e.to_string(),
        "Cannot execute statement in a READ ONLY transaction"
    );
    Ok(())
}
