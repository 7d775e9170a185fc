//! A schema with FOREIGN KEYs through `mariadb-dump` and back: a chain of
//! cascading constraints, a composite key, a self-referencing table and a
//! constraint on a table dumped before its parent (mariadb-dump orders
//! tables by name and relies on `SET FOREIGN_KEY_CHECKS=0`) are dumped by
//! mariadb-dump 10.11, loaded into a second server with the `mariadb`
//! client, and compared: same SHOW CREATE TABLE text, same rows, the
//! constraints enforced in the copy, and the copy dumps to the same file.
//! Skipped (with a message) when the client programs are missing.

mod support;

use mysql::prelude::Queryable;
use support::clients::{assert_dumps_to, dump, installed, server_loaded_from, text_rows};
use support::{server_error, tempdir, Larchd, Res};

/// A table as compared between servers: name, SHOW CREATE TABLE text, rows.
type TableDump = (String, String, Vec<Vec<Option<String>>>);

fn tables(conn: &mut mysql::Conn, db: &str) -> Result<Vec<TableDump>, Box<dyn std::error::Error>> {
    let names: Vec<String> = conn.query(format!("SHOW TABLES FROM `{db}`"))?;
    let mut out = Vec::new();
    for name in names {
        let create: Option<(String, String)> =
            conn.query_first(format!("SHOW CREATE TABLE `{db}`.`{name}`"))?;
        let create = create.ok_or("no SHOW CREATE TABLE row")?.1;
        let rows = text_rows(
            conn,
            &format!("SELECT * FROM `{db}`.`{name}` ORDER BY 1, 2"),
        )?;
        out.push((name, create, rows));
    }
    Ok(out)
}

#[test]
fn a_dump_with_foreign_keys_round_trips() -> Res {
    let test = "a_dump_with_foreign_keys_round_trips";
    if !installed(test, "mariadb") || !installed(test, "mariadb-dump") {
        return Ok(());
    }
    let dir = tempdir()?;
    let a = Larchd::start(&dir.path().join("a"), &[])?;
    let mut ca = a.connect()?;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.customers (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)",
        "CREATE TABLE shop.orders (id INT PRIMARY KEY, customer_id INT NOT NULL, \
         CONSTRAINT fk_customer FOREIGN KEY (customer_id) REFERENCES shop.customers (id) \
         ON DELETE CASCADE)",
        "CREATE TABLE shop.order_lines (order_id INT, line INT, qty INT, PRIMARY KEY (order_id, line), \
         FOREIGN KEY (order_id) REFERENCES shop.orders (id) ON DELETE CASCADE ON UPDATE CASCADE)",
        "CREATE TABLE shop.categories (id INT PRIMARY KEY, parent_id INT, code CHAR(3), \
         UNIQUE KEY code (code, id), \
         FOREIGN KEY (parent_id) REFERENCES shop.categories (id) ON DELETE SET NULL)",
        "CREATE TABLE shop.audit (code CHAR(3), cat INT, \
         FOREIGN KEY (code, cat) REFERENCES shop.categories (code, id) ON UPDATE NO ACTION)",
        "INSERT INTO shop.customers VALUES (1, 'ann'), (2, 'bob')",
        "INSERT INTO shop.orders VALUES (10, 1), (11, 1), (20, 2)",
        "INSERT INTO shop.order_lines VALUES (10, 1, 5), (10, 2, 1), (20, 1, 7)",
        "INSERT INTO shop.categories VALUES (1, NULL, 'top'), (2, 1, 'sub'), (3, 2, 'low')",
        "INSERT INTO shop.audit VALUES ('sub', 2), (NULL, 3)",
    ] {
        ca.query_drop(sql)?;
    }
    let original = tables(&mut ca, "shop")?;
    assert_eq!(original.len(), 5);
    let first = dump(&a, &["shop"])?;
    let text = String::from_utf8_lossy(&first);
    assert!(
        text.contains(
            "  CONSTRAINT `order_lines_ibfk_1` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) \
             ON DELETE CASCADE ON UPDATE CASCADE"
        ),
        "{text}"
    );
    let path = dir.path().join("shop.sql");
    std::fs::write(&path, &first)?;

    let b = server_loaded_from(dir.path(), "b", "shop", &path)?;
    let mut cb = b.connect()?;
    assert_eq!(tables(&mut cb, "shop")?, original);
    // The copy enforces its constraints and cascades.
    let e = cb
        .query_drop("INSERT INTO shop.orders VALUES (30, 9)")
        .err()
        .ok_or("an orphan order was accepted")?;
    assert_eq!(server_error(&e).map(|(code, _, _)| code), Some(1452));
    cb.query_drop("DELETE FROM shop.customers WHERE id = 1")?;
    let lines: Vec<(i32, i32)> = cb.query("SELECT order_id, line FROM shop.order_lines")?;
    assert_eq!(lines, vec![(20, 1)]);
    // A second copy of the original dumps to the same file.
    let c = server_loaded_from(dir.path(), "c", "shop", &path)?;
    assert_dumps_to(&c, &["shop"], &first)?;
    Ok(())
}
