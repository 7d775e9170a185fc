//! Small MariaDB behaviours that MariaDB's own test files (tests/compat)
//! depend on: INFORMATION_SCHEMA.SYSTEM_VARIABLES, the server character set
//! and collation moving together and giving new databases their default,
//! `INSERT ... VALUES ()` as a row of defaults, MariaDB's wording of
//! "function does not exist", read-only transaction and unknown column
//! errors, the optimizer and engine tunables tests set, and `@@timestamp`.

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

fn code(s: &mut larch_sql::session::Session, sql: &str) -> R<u16> {
    Ok(s.execute(sql).err().ok_or("no error")?.code())
}

#[test]
fn unknown_column_names_the_clause_as_mariadb() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE w (a INT)"])?;
    let mut s = t.session(50)?;
    for (sql, clause) in [
        ("SELECT b FROM w", "SELECT"),
        ("SELECT a FROM w WHERE b = 1", "WHERE"),
        ("SELECT a FROM w ORDER BY b", "ORDER BY"),
        ("SELECT COUNT(*) FROM w GROUP BY b", "GROUP BY"),
        ("SELECT COUNT(*) FROM w HAVING b > 1", "HAVING"),
        ("SELECT 1 FROM w JOIN w AS v ON b = 1", "ON"),
        ("INSERT INTO w (b) VALUES (1)", "INSERT INTO"),
        ("INSERT INTO w VALUES (b)", "VALUES"),
        ("UPDATE w SET b = 1", "SET"),
        ("UPDATE w SET a = 1 WHERE b = 1", "WHERE"),
        ("DELETE FROM w WHERE b = 1", "WHERE"),
    ] {
        let e = s.execute(sql).err().ok_or("no error")?;
        assert_eq!(e.code(), 1054, "{sql}");
        assert_eq!(
            e.to_string(),
            format!("Unknown column 'b' in '{clause}'"),
            "{sql}"
        );
    }
    // DROP TABLE IF EXISTS names all missing tables in one note.
    s.execute("DROP TABLE IF EXISTS x1, x2")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec!["Note", "1051", "Unknown table 'test.x1,test.x2'"]]
    );
    Ok(())
}

#[test]
fn tunables_have_mariadb_scope_default_and_limits() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        one(
            &mut s,
            "SELECT @@join_cache_level + @@global.join_cache_level"
        )?,
        "4"
    );
    s.execute("SET join_cache_level = 9")?;
    assert_eq!(one(&mut s, "SELECT @@session.join_cache_level")?, "8");
    assert_eq!(one(&mut s, "SELECT @@global.join_cache_level")?, "2");
    assert_eq!(one(&mut s, "SELECT @@global.innodb_stats_persistent")?, "1");
    // Global-only, read-only and start-up-only settings refuse as MariaDB does.
    assert_eq!(code(&mut s, "SET innodb_stats_persistent = 0")?, 1229);
    assert_eq!(
        code(&mut s, "SET GLOBAL have_dynamic_loading = 'YES'")?,
        1238
    );
    assert_eq!(
        code(&mut s, "SET GLOBAL thread_handling = 'no-threads'")?,
        1238
    );
    assert_eq!(code(&mut s, "SET GLOBAL event_scheduler = DISABLED")?, 1231);
    assert_eq!(
        code(&mut s, "SET GLOBAL concurrent_insert = 'SOMETIMES'")?,
        1231
    );
    s.execute("SET GLOBAL innodb_file_per_table = OFF")?;
    assert_eq!(one(&mut s, "SELECT @@global.innodb_file_per_table")?, "0");
    s.execute("SET GLOBAL innodb_file_per_table = DEFAULT")?;
    assert_eq!(one(&mut s, "SELECT @@global.innodb_file_per_table")?, "1");
    let r = rows(
        &mut s,
        "SELECT VARIABLE_SCOPE, DEFAULT_VALUE FROM information_schema.system_variables \
         WHERE variable_name = 'innodb_read_only_compressed'",
    )?;
    assert_eq!(r, vec![vec!["GLOBAL", "OFF"]]);
    Ok(())
}

#[test]
fn session_timestamp_fixes_the_clock() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    s.execute("SET timestamp = 1.5")?;
    assert_eq!(
        rows(&mut s, "SELECT @@timestamp, NOW(6), UNIX_TIMESTAMP()")?,
        vec![vec!["1.500000", "1970-01-01 00:00:01.500000", "1"]]
    );
    s.execute("SET timestamp = UNIX_TIMESTAMP('2010-12-31 23:59:59')")?;
    assert_eq!(one(&mut s, "SELECT NOW()")?, "2010-12-31 23:59:59");
    assert_eq!(code(&mut s, "SET GLOBAL timestamp = 1")?, 1228);
    // DEFAULT (or 0) follows the system clock again.
    s.execute("SET timestamp = DEFAULT")?;
    assert_eq!(one(&mut s, "SELECT @@timestamp > 1700000000")?, "1");
    s.execute("SET timestamp = 0")?;
    assert_eq!(one(&mut s, "SELECT YEAR(NOW()) > 2020")?, "1");
    Ok(())
}

#[test]
fn lock_table_and_column_charset_shorthands_parse() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    s.execute(
        "CREATE TABLE cs (a CHAR(5) CHARSET latin1, b CHAR(3) charset utf8mb4) \
         DEFAULT CHARSET latin1",
    )?;
    let create = rows(&mut s, "SHOW CREATE TABLE cs")?;
    assert!(
        create[0][1].contains("`b` char(3) CHARACTER SET utf8mb4")
            && create[0][1].contains("DEFAULT CHARSET=latin1"),
        "{create:?}"
    );
    s.execute("LOCK TABLE cs WRITE")?;
    s.execute("INSERT INTO cs VALUES ('x', 'y')")?;
    s.execute("UNLOCK TABLE")?;
    assert_eq!(one(&mut s, "SELECT CHARSET(a) FROM cs")?, "latin1");
    Ok(())
}

#[test]
fn ignored_names_and_clamped_settings_warn() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    s.execute("CREATE TABLE pk (a INT NOT NULL, b INT, CONSTRAINT pk_a PRIMARY KEY (a))")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Warning",
            "1280",
            "Name 'pk_a' ignored for PRIMARY key."
        ]]
    );
    s.execute("CREATE TABLE pk2 (a INT NOT NULL)")?;
    s.execute("ALTER TABLE pk2 ADD PRIMARY KEY idx3 (a)")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Warning",
            "1280",
            "Name 'idx3' ignored for PRIMARY key."
        ]]
    );
    s.execute("SET join_cache_level = 99")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Warning",
            "1292",
            "Truncated incorrect join_cache_level value: '99'"
        ]]
    );
    s.execute("SET GLOBAL innodb_stats_transient_sample_pages = 0")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Warning",
            "1292",
            "Truncated incorrect innodb_stats_transient_sample... value: '0'"
        ]]
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT @@global.innodb_stats_transient_sample_pages"
        )?,
        "1"
    );
    s.execute("SET join_cache_level = 3")?;
    // No warning of its own; as in MariaDB a SET that raises none leaves
    // the previous statement's conditions in place.
    assert_eq!(s.warning_count(), 0);
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Warning",
            "1292",
            "Truncated incorrect innodb_stats_transient_sample... value: '0'"
        ]]
    );
    Ok(())
}

#[test]
fn duplicate_indexes_and_entries_read_as_in_mariadb() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE d2 (a INT, b VARCHAR(40))"])?;
    let mut s = t.session(50)?;
    s.execute("CREATE UNIQUE INDEX idx ON d2 (a, b(31))")?;
    s.execute("ALTER TABLE d2 ADD UNIQUE INDEX idx2 (a, b(31))")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec![
            "Note",
            "1831",
            "Duplicate index `idx2`. This is deprecated and will be disallowed in a future release"
        ]]
    );
    // Another kind or another prefix is no duplicate.
    s.execute("ALTER TABLE d2 ADD INDEX k3 (a, b(31)), ADD UNIQUE k4 (a, b(30))")?;
    assert_eq!(rows(&mut s, "SHOW WARNINGS")?, Vec::<Vec<String>>::new());
    // A duplicate entry prints up to its first NUL byte.
    s.execute("CREATE TABLE bin5 (f BINARY(5))")?;
    s.execute("INSERT INTO bin5 VALUES ('w'), ('w')")?;
    let e = s
        .execute("CREATE UNIQUE INDEX i ON bin5 (f(4))")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.to_string(), "Duplicate entry 'w' for key 'i'");
    Ok(())
}

#[test]
fn altering_a_primary_key_column_keeps_it_not_null() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE pk3 (a INT PRIMARY KEY, b INT)"])?;
    let mut s = t.session(50)?;
    s.execute("ALTER TABLE pk3 CHANGE a e INT")?;
    s.execute("ALTER TABLE pk3 MODIFY e INT NULL")?;
    let create = rows(&mut s, "SHOW CREATE TABLE pk3")?;
    assert!(create[0][1].contains("`e` int(11) NOT NULL,"), "{create:?}");
    // Declared NULL in the statement that makes it the key: refused.
    let e = s
        .execute("CREATE TABLE pk4 (a INT NULL PRIMARY KEY)")
        .err()
        .ok_or("no error")?;
    assert_eq!(e.code(), 1171);
    Ok(())
}

/// `DROP TABLES` and `DROP TEMPORARY TABLES` are MariaDB's other spelling
/// of `DROP TABLE` (they were 1064).
#[test]
fn drop_tables_is_drop_table() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t1 (a INT)", "CREATE TABLE t2 (a INT)"])?;
    let mut s = t.session(50)?;
    s.execute("DROP TABLES t1, t2")?;
    assert!(rows(&mut s, "SHOW TABLES")?.is_empty());
    s.execute("CREATE TEMPORARY TABLE t3 (a INT)")?;
    s.execute("DROP TEMPORARY TABLES t3")?;
    s.execute("DROP TABLES IF EXISTS t1, t9")?;
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")?,
        vec![vec!["Note", "1051", "Unknown table 'test.t1,test.t9'"]]
    );
    Ok(())
}

/// Clauses Larch would otherwise pass over are MariaDB's errors: CAST
/// precisions past their limits (1426, 1427), index hints naming no index
/// (1176), DROP CONSTRAINT of nothing droppable (1091), INSERT DELAYED into
/// an InnoDB table (1616), a negative ENUM variable value (1231); and
/// DELETE/UPDATE LOW_PRIORITY and DELETE QUICK run as plain statements, as
/// MariaDB runs them on InnoDB.
#[test]
fn clear_errors_instead_of_ignored_clauses() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (a INT, b INT, KEY ka (a))",
        "CREATE TABLE t2 (a INT PRIMARY KEY, b INT, c INT, UNIQUE KEY ub (b), KEY kc (c), \
         CONSTRAINT chk CHECK (c > 0))",
    ])?;
    let mut s = t.session(50)?;
    for (sql, code) in [
        ("SELECT CAST(1 AS DATETIME(7))", 1426),
        ("SELECT CAST(1 AS TIME(7))", 1426),
        ("SELECT CAST(1 + 1 AS DECIMAL(66, 6))", 1426),
        ("SELECT CAST(1 AS DECIMAL(5, 6))", 1427),
        ("SELECT CAST(1 AS DOUBLE(5, 6))", 1427),
        ("SELECT CAST(1 AS DOUBLE(66, 31))", 1426),
        ("SET GLOBAL event_scheduler = -1", 1231),
        ("SELECT * FROM t1 USE KEY (ka, foo)", 1176),
        ("SELECT * FROM t1 FORCE INDEX (foo)", 1176),
        ("SELECT * FROM t1 IGNORE INDEX (PRIMARY)", 1176),
        (
            "SELECT * FROM t2 x JOIN t2 y USE INDEX (nope) ON x.c = y.c",
            1176,
        ),
        ("ALTER TABLE t2 DROP CONSTRAINT kc", 1091),
        ("ALTER TABLE t2 DROP CONSTRAINT zz", 1091),
        ("INSERT DELAYED INTO t1 VALUES (1, 1)", 1616),
        ("REPLACE DELAYED INTO t1 VALUES (1, 1)", 1616),
    ] {
        assert_eq!(support::code(&mut s, sql), code, "{sql}");
    }
    // In a READ ONLY transaction the write is refused first.
    s.execute("START TRANSACTION READ ONLY")?;
    assert_eq!(
        support::code(&mut s, "INSERT DELAYED INTO t1 VALUES (1, 1)"),
        1792
    );
    s.execute("COMMIT")?;
    let (_, message) = support::error(&mut s, "SELECT * FROM t2 y FORCE INDEX (nope)")?;
    assert_eq!(message, "Key 'nope' doesn't exist in table 'y'");
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST(1 AS DOUBLE(31, 31)), CAST(2 AS DATETIME(6))"
        )?,
        vec![vec!["1", "NULL"]]
    );
    s.execute("INSERT INTO t2 VALUES (1, 1, 1), (2, 2, 2)")?;
    assert_eq!(
        rows(&mut s, "SELECT a FROM t2 FORCE INDEX (kc) WHERE c = 2")?,
        vec![vec!["2"]]
    );
    s.execute("ALTER TABLE t2 DROP CONSTRAINT IF EXISTS zz")?;
    assert_eq!(support::warning_codes(&mut s)?, vec!["1091"]);
    s.execute("ALTER TABLE t2 DROP CONSTRAINT ub")?;
    s.execute("ALTER TABLE t2 DROP CONSTRAINT chk")?;
    s.execute("ALTER TABLE t2 DROP CONSTRAINT `PRIMARY`")?;
    let create = support::show_create(&mut s, "t2")?;
    assert!(
        !create.contains("ub") && !create.contains("chk") && !create.contains("PRIMARY"),
        "{create}"
    );
    assert!(create.contains("KEY `kc`"), "{create}");
    s.execute("INSERT LOW_PRIORITY INTO t1 VALUES (1, 1), (2, 2), (3, 3)")?;
    s.execute("UPDATE LOW_PRIORITY t1 SET b = 20 WHERE a = 2")?;
    s.execute("DELETE LOW_PRIORITY QUICK FROM t1 WHERE a = 1")?;
    s.execute("DELETE QUICK FROM t1 WHERE a = 3")?;
    assert_eq!(rows(&mut s, "SELECT a, b FROM t1")?, vec![vec!["2", "20"]]);
    Ok(())
}
