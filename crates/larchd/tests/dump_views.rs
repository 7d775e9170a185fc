//! A schema with views through `mariadb-dump` and back: views over a table,
//! a view over a view, a column list, an aggregating view and WITH CHECK
//! OPTION are dumped by mariadb-dump 10.11 (placeholder views first, the
//! real definitions in `/*!50001 ... */` comments at the end), loaded into
//! a second server with the `mariadb` client, and compared: same views,
//! same SHOW CREATE VIEW text, same rows, and the copy dumps to the same
//! file. Skipped (with a message) when the client programs are missing.

mod support;

use mysql::prelude::Queryable;
use support::clients::{assert_dumps_to, dump, installed, server_loaded_from, text_rows};
use support::{tempdir, Larchd, Res};

/// A view as compared between servers: name, SHOW CREATE VIEW text, rows as
/// text.
type ViewDump = (String, String, Vec<Vec<Option<String>>>);

/// Every view of `db`.
fn views(conn: &mut mysql::Conn, db: &str) -> Result<Vec<ViewDump>, Box<dyn std::error::Error>> {
    let names: Vec<(String, String)> = conn.query(format!("SHOW FULL TABLES FROM `{db}`"))?;
    let mut out = Vec::new();
    for (name, kind) in names {
        if kind != "VIEW" {
            continue;
        }
        let create: Option<(String, String, String, String)> =
            conn.query_first(format!("SHOW CREATE VIEW `{db}`.`{name}`"))?;
        let create = create.ok_or("no SHOW CREATE VIEW row")?.1;
        let rows = text_rows(conn, &format!("SELECT * FROM `{db}`.`{name}` ORDER BY 1"))?;
        out.push((name, create, rows));
    }
    Ok(out)
}

#[test]
fn a_dump_with_views_round_trips() -> Res {
    if !installed("a_dump_with_views_round_trips", "mariadb")
        || !installed("a_dump_with_views_round_trips", "mariadb-dump")
    {
        return Ok(());
    }
    let dir = tempdir()?;
    let a = Larchd::start(&dir.path().join("a"), &[])?;
    let mut ca = a.connect()?;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20), price INT, KEY price (price))",
        "INSERT INTO shop.items VALUES (1, 'pen', 3), (2, 'book', 12), (3, 'lamp', 40), (4, NULL, 7)",
        "CREATE VIEW shop.cheap AS SELECT id, name, price FROM shop.items WHERE price < 20",
        "CREATE VIEW shop.cheap_names (item) AS SELECT name FROM shop.cheap WHERE name IS NOT NULL",
        "CREATE ALGORITHM=TEMPTABLE VIEW shop.totals AS SELECT COUNT(*) AS n, SUM(price) AS total FROM shop.items",
        "CREATE VIEW shop.guarded AS SELECT id, price FROM shop.items WHERE price > 5 WITH CHECK OPTION",
    ] {
        ca.query_drop(sql)?;
    }
    let original = views(&mut ca, "shop")?;
    assert_eq!(original.len(), 4);
    let first = dump(&a, &["shop"])?;
    let text = String::from_utf8_lossy(&first);
    assert!(text.contains("/*!50001 VIEW `cheap`"), "{text}");
    let path = dir.path().join("shop.sql");
    std::fs::write(&path, &first)?;

    let b = server_loaded_from(dir.path(), "b", "shop", &path)?;
    let mut cb = b.connect()?;
    assert_eq!(views(&mut cb, "shop")?, original);
    // The copy's check option works, and it dumps to the same file.
    assert!(cb
        .query_drop("INSERT INTO shop.guarded VALUES (9, 1)")
        .is_err());
    assert_dumps_to(&b, &["shop"], &first)?;
    Ok(())
}
