//! A dump made by mariadb-dump 10.11 from MariaDB 10.11 of a table with
//! generated columns (STORED and VIRTUAL, one reading another, an index on
//! each kind) loads through the `mariadb` client: the dump's INSERTs give
//! values for the generated columns, which MariaDB ignores with warning
//! 1906 under the dump's non-strict sql_mode, and so does Larch; the
//! values are computed again, the indexes work, and the table dumps back
//! and reloads to the same file. Skipped (with a message) when the client
//! programs are missing.

mod support;

use mysql::prelude::Queryable;
use support::clients::{assert_dumps_to, dump, installed, load, server_loaded_from, text_rows};
use support::{tempdir, Larchd, Res};

fn texts(rows: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    rows.iter()
        .map(|r| r.iter().map(|v| v.map(str::to_owned)).collect())
        .collect()
}

#[test]
fn a_mariadb_dump_with_generated_columns_loads_and_dumps_back() -> Res {
    let name = "a_mariadb_dump_with_generated_columns_loads_and_dumps_back";
    if !installed(name, "mariadb") || !installed(name, "mariadb-dump") {
        return Ok(());
    }
    let dir = tempdir()?;
    let a = Larchd::start(&dir.path().join("a"), &[])?;
    let mut ca = a.connect()?;
    ca.query_drop("CREATE DATABASE gdump")?;
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/generated-columns.sql");
    load(&a, "gdump", &fixture)?;
    // The rows MariaDB 10.11 gives.
    let expected = texts(&[
        &[
            Some("1"),
            Some("2.50"),
            Some("4"),
            Some("10.00"),
            Some("item-1"),
            Some("0"),
        ],
        &[
            Some("2"),
            Some("99.99"),
            Some("3"),
            Some("299.97"),
            Some("item-2"),
            Some("1"),
        ],
        &[Some("3"), Some("10.00"), None, None, Some("item-3"), None],
    ]);
    assert_eq!(
        text_rows(&mut ca, "SELECT * FROM gdump.item ORDER BY id")?,
        expected
    );
    assert_eq!(
        text_rows(&mut ca, "SELECT id FROM gdump.item WHERE total = 299.97")?,
        texts(&[&[Some("2")]])
    );
    assert!(ca
        .query_drop("INSERT INTO gdump.item (id, price, qty) VALUES (1, 1, 1)")
        .is_err());
    let create: Option<(String, String)> = ca.query_first("SHOW CREATE TABLE gdump.item")?;
    let create = create.ok_or("no SHOW CREATE TABLE row")?.1;
    for line in [
        "`total` decimal(10,2) GENERATED ALWAYS AS (`price` * `qty`) STORED,",
        "`big` tinyint(1) GENERATED ALWAYS AS (`total` > 100) VIRTUAL,",
    ] {
        assert!(create.contains(line), "{line} in {create}");
    }
    // Dumped back, loaded into a second server, dumped again: same file.
    let first = dump(&a, &["gdump"])?;
    let text = String::from_utf8_lossy(&first);
    assert!(text.contains("(2,99.99,3,299.97,'item-2',1)"), "{text}");
    let path = dir.path().join("gdump.sql");
    std::fs::write(&path, &first)?;
    let b = server_loaded_from(dir.path(), "b", "gdump", &path)?;
    let mut cb = b.connect()?;
    assert_eq!(
        text_rows(&mut cb, "SELECT * FROM gdump.item ORDER BY id")?,
        expected
    );
    assert_dumps_to(&b, &["gdump"], &first)?;
    Ok(())
}
