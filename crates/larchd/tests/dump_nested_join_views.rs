//! A dump made by mariadb-dump 10.11 from MariaDB 10.11, whose views MariaDB
//! stored with parenthesized joins (`from ((t1 join t2 on(...)) left join
//! t3 on(...))`, a LEFT JOIN of a parenthesized join, and a RIGHT JOIN
//! MariaDB rewrote as a LEFT JOIN), loads through the `mariadb` client and
//! its views give the rows MariaDB gives. Skipped (with a message) when the
//! client program is missing.

mod support;

use mysql::prelude::Queryable;
use support::clients::{installed, load, text_rows};
use support::{tempdir, Larchd, Res};

fn texts(rows: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    rows.iter()
        .map(|r| r.iter().map(|v| v.map(str::to_owned)).collect())
        .collect()
}

#[test]
fn a_mariadb_dump_with_nested_join_views_loads() -> Res {
    if !installed("a_mariadb_dump_with_nested_join_views_loads", "mariadb") {
        return Ok(());
    }
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = server.connect()?;
    conn.query_drop("CREATE DATABASE shop")?;
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/nested-join-views.sql");
    load(&server, "shop", &fixture)?;
    // The rows MariaDB 10.11 gives for the same views.
    assert_eq!(
        text_rows(&mut conn, "SELECT * FROM shop.order_items ORDER BY 1, 2, 3")?,
        texts(&[
            &[Some("ann"), Some("10"), Some("pen")],
            &[Some("ann"), Some("11"), None],
            &[Some("bob"), Some("12"), Some("ink")],
        ])
    );
    assert_eq!(
        text_rows(&mut conn, "SELECT * FROM shop.customer_items ORDER BY 1, 2")?,
        texts(&[
            &[Some("ann"), Some("pen")],
            &[Some("bob"), Some("ink")],
            &[Some("cid"), None],
        ])
    );
    assert_eq!(
        text_rows(&mut conn, "SELECT * FROM shop.item_owners ORDER BY 1")?,
        texts(&[&[Some("ink"), Some("bob")], &[Some("pen"), Some("ann")]])
    );
    // The definition is kept as MariaDB printed it.
    let create: Option<(String, String, String, String)> =
        conn.query_first("SHOW CREATE VIEW shop.customer_items")?;
    let create = create.ok_or("no SHOW CREATE VIEW row")?.1;
    assert!(
        create.contains(
            "from (`customer` `c` left join (`orders` `o` join `item` `i` \
             on(`i`.`order_id` = `o`.`id`)) on(`o`.`customer_id` = `c`.`id`))"
        ),
        "{create}"
    );
    Ok(())
}
