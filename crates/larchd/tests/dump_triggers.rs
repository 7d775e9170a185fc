//! A schema with triggers through `mariadb-dump --triggers` and back: the
//! triggers are dumped by mariadb-dump 10.11 (`DELIMITER ;;` blocks in
//! `/*!50003 ... */` comments, with their sql_mode and character set
//! settings around each CREATE TRIGGER), loaded into a second server with
//! the `mariadb` client, and compared: same SHOW CREATE TRIGGER texts in the
//! same firing order, the copies fire, and the copy dumps to the same file.
//! Skipped (with a message) when the client programs are missing.

mod support;

use mysql::prelude::Queryable;
use support::clients::{assert_dumps_to, dump, installed, server_loaded_from};
use support::{tempdir, Larchd, Res};

/// A trigger as compared between servers: name, table, SHOW CREATE text.
type TriggerDump = (String, String, String);

/// Every trigger of `db`, in SHOW TRIGGERS order (table, event, timing,
/// firing order).
fn triggers(
    conn: &mut mysql::Conn,
    db: &str,
) -> Result<Vec<TriggerDump>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    let rows: Vec<mysql::Row> = conn.query(format!("SHOW TRIGGERS FROM `{db}`"))?;
    for r in rows {
        let name: String = r.get(0).ok_or("no name")?;
        let table: String = r.get(2).ok_or("no table")?;
        let create: Option<mysql::Row> =
            conn.query_first(format!("SHOW CREATE TRIGGER `{db}`.`{name}`"))?;
        let text: String = create.and_then(|c| c.get(2)).ok_or("no SHOW CREATE row")?;
        out.push((name, table, text));
    }
    Ok(out)
}

#[test]
fn a_dump_with_triggers_round_trips() -> Res {
    if !installed("a_dump_with_triggers_round_trips", "mariadb")
        || !installed("a_dump_with_triggers_round_trips", "mariadb-dump")
    {
        return Ok(());
    }
    let dir = tempdir()?;
    let a = Larchd::start(&dir.path().join("a"), &[])?;
    let mut ca = a.connect()?;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20), price INT)",
        "CREATE TABLE shop.audit (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(60))",
        "INSERT INTO shop.items VALUES (1, 'pen', 3), (2, 'book', 12)",
        "CREATE TRIGGER shop.items_bi BEFORE INSERT ON shop.items FOR EACH ROW
         BEGIN
           IF NEW.price < 0 THEN
             SET NEW.price = 0;
           END IF;
           SET NEW.name = UPPER(NEW.name);
         END",
        "CREATE TRIGGER shop.items_ai AFTER INSERT ON shop.items FOR EACH ROW
         INSERT INTO audit (what) VALUES (CONCAT('added ', NEW.name))",
        "CREATE TRIGGER shop.items_ai0 AFTER INSERT ON shop.items FOR EACH ROW PRECEDES items_ai
         INSERT INTO audit (what) VALUES ('first')",
        "CREATE TRIGGER shop.items_bu BEFORE UPDATE ON shop.items FOR EACH ROW
         SET NEW.price = GREATEST(NEW.price, OLD.price)",
        "CREATE TRIGGER shop.items_ad AFTER DELETE ON shop.items FOR EACH ROW
         INSERT INTO audit (what) VALUES (CONCAT('removed ', OLD.name))",
    ] {
        ca.query_drop(sql)?;
    }
    let original = triggers(&mut ca, "shop")?;
    assert_eq!(original.len(), 5);
    let first = dump(&a, &["--routines", "--triggers", "shop"])?;
    let text = String::from_utf8_lossy(&first);
    assert!(text.contains("DELIMITER ;;"), "{text}");
    assert!(
        text.contains("/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER shop.items_bi BEFORE INSERT ON shop.items FOR EACH ROW"),
        "{text}"
    );
    let path = dir.path().join("shop.sql");
    std::fs::write(&path, &first)?;

    let b = server_loaded_from(dir.path(), "b", "shop", &path)?;
    let mut cb = b.connect()?;
    assert_eq!(triggers(&mut cb, "shop")?, original);
    assert_dumps_to(&b, &["--routines", "--triggers", "shop"], &first)?;
    // The copies fire, in the same order.
    cb.query_drop("USE shop")?;
    cb.query_drop("INSERT INTO items VALUES (3, 'lamp', -5)")?;
    cb.query_drop("UPDATE items SET price = 1 WHERE id = 2")?;
    cb.query_drop("DELETE FROM items WHERE id = 1")?;
    let items: Vec<(i64, String, i64)> =
        cb.query("SELECT id, name, price FROM items ORDER BY id")?;
    assert_eq!(
        items,
        [(2, "book".to_string(), 12), (3, "LAMP".to_string(), 0)]
    );
    let audit: Vec<String> = cb.query("SELECT what FROM audit ORDER BY id")?;
    assert_eq!(audit, ["first", "added LAMP", "removed pen"]);
    Ok(())
}
