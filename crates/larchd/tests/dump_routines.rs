//! A schema with stored procedures and functions through `mariadb-dump
//! --routines` and back: the routines are dumped by mariadb-dump 10.11
//! (`DELIMITER ;;` blocks with their sql_mode and character set settings),
//! loaded into a second server with the `mariadb` client, and compared: same
//! SHOW CREATE text, same results when called, and the copy dumps to the
//! same file. Skipped (with a message) when the client programs are missing.

mod support;

use mysql::prelude::Queryable;
use support::clients::{assert_dumps_to, dump, installed, server_loaded_from};
use support::{tempdir, Larchd, Res};

/// A routine as compared between servers: kind, name, SHOW CREATE text.
type RoutineDump = (String, String, String);

/// Every routine of `db`.
fn routines(
    conn: &mut mysql::Conn,
    db: &str,
) -> Result<Vec<RoutineDump>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for kind in ["PROCEDURE", "FUNCTION"] {
        let rows: Vec<mysql::Row> = conn.query(format!("SHOW {kind} STATUS WHERE Db = '{db}'"))?;
        for r in rows {
            let name: String = r.get(1).ok_or("no name")?;
            let create: Option<mysql::Row> =
                conn.query_first(format!("SHOW CREATE {kind} `{db}`.`{name}`"))?;
            let text: String = create.and_then(|c| c.get(2)).ok_or("no SHOW CREATE row")?;
            out.push((kind.to_string(), name, text));
        }
    }
    Ok(out)
}

#[test]
fn a_dump_with_routines_round_trips() -> Res {
    if !installed("a_dump_with_routines_round_trips", "mariadb")
        || !installed("a_dump_with_routines_round_trips", "mariadb-dump")
    {
        return Ok(());
    }
    let dir = tempdir()?;
    let a = Larchd::start(&dir.path().join("a"), &[])?;
    let mut ca = a.connect()?;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20), price INT)",
        "INSERT INTO shop.items VALUES (1, 'pen', 3), (2, 'book', 12), (3, 'lamp', 40)",
        "CREATE FUNCTION shop.with_tax(p INT) RETURNS INT DETERMINISTIC RETURN p * 2",
        "CREATE PROCEDURE shop.pricey(IN floor_price INT, OUT n INT)
         COMMENT 'items above a price'
         BEGIN
           DECLARE done INT DEFAULT 0;
           DECLARE v INT;
           DECLARE c CURSOR FOR SELECT price FROM items;
           DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
           SET n = 0;
           OPEN c;
           l: LOOP
             FETCH c INTO v;
             IF done THEN LEAVE l; END IF;
             IF v > floor_price THEN SET n = n + 1; END IF;
           END LOOP;
           CLOSE c;
           SELECT name, with_tax(price) FROM items WHERE price > floor_price ORDER BY id;
         END",
    ] {
        ca.query_drop(sql)?;
    }
    let original = routines(&mut ca, "shop")?;
    assert_eq!(original.len(), 2);
    let first = dump(&a, &["--routines", "--triggers", "shop"])?;
    let text = String::from_utf8_lossy(&first);
    assert!(text.contains("DELIMITER ;;"), "{text}");
    assert!(text.contains("PROCEDURE `pricey`"), "{text}");
    let path = dir.path().join("shop.sql");
    std::fs::write(&path, &first)?;

    let b = server_loaded_from(dir.path(), "b", "shop", &path)?;
    let mut cb = b.connect()?;
    assert_eq!(routines(&mut cb, "shop")?, original);
    // The copies run: a result set, an OUT parameter, a function.
    cb.query_drop("USE shop")?;
    let rows: Vec<(String, i64)> = cb.query("CALL pricey(10, @n)")?;
    assert_eq!(rows, [("book".to_string(), 24), ("lamp".to_string(), 80)]);
    let n: Option<i64> = cb.query_first("SELECT @n")?;
    assert_eq!(n, Some(2));
    assert_dumps_to(&b, &["--routines", "--triggers", "shop"], &first)?;
    Ok(())
}
