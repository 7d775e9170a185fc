//! Accepted-but-inert MariaDB settings that test suites read and set: their
//! MariaDB defaults, scopes and limits.

mod support;

use support::{code, one, rows, TestDb, R};

#[test]
fn table_cache_and_buffer_settings() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT @@table_definition_cache, @@table_open_cache_instances, \
             @@thread_cache_size, @@lock_wait_timeout, @@max_length_for_sort_data, \
             @@read_rnd_buffer_size, @@max_prepared_stmt_count"
        )?,
        vec![vec!["400", "8", "256", "86400", "1024", "262144", "16382"]]
    );
    s.execute("SET GLOBAL table_definition_cache = 1000")?;
    assert_eq!(
        rows(&mut s, "SELECT @@global.table_definition_cache")?,
        vec![vec!["1000"]]
    );
    s.execute("SET GLOBAL table_definition_cache = 400")?;
    let e = s
        .execute("SET GLOBAL table_open_cache_instances = 4")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.code(), 1238);
    s.execute("SET SESSION lock_wait_timeout = 5")?;
    assert_eq!(rows(&mut s, "SELECT @@lock_wait_timeout")?, vec![vec!["5"]]);
    let e = s
        .execute("SET SESSION table_definition_cache = 5")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(e.code(), 1229);
    Ok(())
}

/// Every system variable MariaDB 10.11 has is known: a script or test that
/// reads or sets one never meets 1193 "Unknown system variable".
#[test]
fn every_mariadb_variable_is_known() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    let names = include_str!("fixtures/mariadb-10.11-variables.txt");
    let mut unknown = Vec::new();
    for name in names
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        // A session-only variable has no global value (1238) and a
        // global-only one is read through @@ as its global value.
        let out = s.query(format!("SELECT @@{name}").as_bytes());
        if let Some(e) = out.error {
            if e.code() == 1193 {
                unknown.push(name);
            }
        }
    }
    assert!(unknown.is_empty(), "unknown: {unknown:?}");
    Ok(())
}

/// MariaDB's settings for machinery Larch lacks: kept with MariaDB's types
/// and limits, read-only facts as Larch has them, and the ones whose other
/// values would change answers held at the value they have (1235).
#[test]
fn mariadb_only_settings() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT @@use_stat_tables, @@log_warnings, @@ft_boolean_syntax, \
             @@innodb_deadlock_detect, @@have_geometry, @@innodb_ft_aux_table IS NULL, \
             @@max_join_size"
        )?,
        vec![vec![
            "PREFERABLY_FOR_QUERIES",
            "2",
            "+ -><()~*:\"\"&|",
            "1",
            "NO",
            "1",
            "18446744073709551615"
        ]]
    );
    // Kept: MariaDB's members and limits.
    s.execute("SET use_stat_tables = 'complementary'")?;
    s.execute("SET log_slow_verbosity = 'explain,query_plan'")?;
    assert_eq!(
        rows(&mut s, "SELECT @@use_stat_tables, @@log_slow_verbosity")?,
        vec![vec!["COMPLEMENTARY", "query_plan,explain"]]
    );
    assert_eq!(code(&mut s, "SET use_stat_tables = 'sometimes'"), 1231);
    assert_eq!(code(&mut s, "SET GLOBAL have_geometry = 'YES'"), 1238);
    // tmp_memory_table_size is tmp_table_size's other name.
    s.execute("SET tmp_memory_table_size = 65536")?;
    assert_eq!(one(&mut s, "SELECT @@tmp_table_size")?, "65536");
    // Held at the value they have: the same value (or DEFAULT) is fine.
    s.execute("SET max_join_size = DEFAULT")?;
    s.execute("SET max_join_size = 18446744073709551615")?;
    s.execute("SET GLOBAL innodb_deadlock_detect = ON")?;
    s.execute("SET GLOBAL innodb_ft_aux_table = NULL")?;
    for refused in [
        "SET max_join_size = 100",
        "SET GLOBAL innodb_deadlock_detect = OFF",
        "SET optimizer_trace = 'enabled=on'",
        "SET old_passwords = 1",
        "SET rand_seed1 = 5",
    ] {
        assert_eq!(code(&mut s, refused), 1235, "{refused}");
    }
    // Only a table with a FULLTEXT index (fulltext_settings.rs).
    assert_eq!(
        code(&mut s, "SET GLOBAL innodb_ft_aux_table = 'test/t'"),
        1231
    );
    assert_eq!(
        one(&mut s, "SELECT @@max_join_size")?,
        "18446744073709551615"
    );
    // Computed per session.
    assert_eq!(
        rows(
            &mut s,
            "SELECT @@pseudo_thread_id = CONNECTION_ID(), @@in_transaction"
        )?,
        vec![vec!["1", "0"]]
    );
    s.execute("BEGIN")?;
    assert_eq!(one(&mut s, "SELECT @@in_transaction")?, "1");
    s.execute("COMMIT")?;
    assert_eq!(code(&mut s, "SET in_transaction = 1"), 1238);
    Ok(())
}
