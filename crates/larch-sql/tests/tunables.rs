//! Accepted-but-inert MariaDB settings that test suites read and set: their
//! MariaDB defaults, scopes and limits.

mod support;

use support::{rows, TestDb, R};

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
