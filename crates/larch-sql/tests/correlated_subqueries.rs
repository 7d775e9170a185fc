//! Subqueries that read columns of the query around them, end to end in
//! process: EXISTS / NOT EXISTS, IN / NOT IN with MySQL's NULL rules, scalar
//! subqueries in the select list and in WHERE, references by table name and
//! by alias, unqualified outer names, nesting two levels deep, parameters
//! of prepared statements, and the errors MariaDB gives (1242, 1054).

mod support;

use support::{code, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE customer (id INT PRIMARY KEY, name VARCHAR(20), city VARCHAR(20))",
        "INSERT INTO customer VALUES (1, 'ann', 'oslo'), (2, 'bob', 'rome'), (3, 'cid', 'oslo'), \
         (4, 'dan', NULL)",
        "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, amount INT, KEY (customer_id))",
        "INSERT INTO orders VALUES (10, 1, 5), (11, 1, 7), (12, 2, 30), (13, NULL, 1), (14, 3, 7)",
        "CREATE TABLE item (order_id INT, sku VARCHAR(10))",
        "INSERT INTO item VALUES (10, 'pen'), (11, 'ink'), (12, 'pen'), (14, 'cap')",
    ])
}

fn flat(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|r| r.join(",")).collect()
}

#[test]
fn exists_and_not_exists_read_the_outer_row() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer c WHERE EXISTS \
             (SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY id",
        )?),
        ["ann", "bob", "cid"]
    );
    // The outer table by its name, not an alias.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer WHERE NOT EXISTS \
             (SELECT * FROM orders WHERE orders.customer_id = customer.id)",
        )?),
        ["dan"]
    );
    // With a condition on the inner table and an unqualified outer column.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer WHERE EXISTS \
             (SELECT 1 FROM orders o WHERE o.customer_id = id AND o.amount > 6) ORDER BY name",
        )?),
        // `id` is orders.id here (the inner table has it): nothing matches.
        Vec::<String>::new()
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer WHERE EXISTS \
             (SELECT 1 FROM orders o WHERE o.customer_id = customer.id AND amount > 6 \
              AND city = 'oslo') ORDER BY name",
        )?),
        ["ann", "cid"]
    );
    Ok(())
}

#[test]
fn in_and_not_in_follow_the_null_rules() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // Customers with an order of the same amount as another customer's.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT c.name FROM customer c WHERE 7 IN \
             (SELECT amount FROM orders o WHERE o.customer_id = c.id) ORDER BY c.name",
        )?),
        ["ann", "cid"]
    );
    // NOT IN over an empty set is true, even for a NULL probe.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT o.id, o.customer_id NOT IN (SELECT customer_id FROM orders i \
             WHERE i.amount < o.amount AND i.customer_id IS NOT NULL) FROM orders o ORDER BY o.id",
        )?),
        ["10,1", "11,0", "12,1", "13,1", "14,1"]
    );
    // A value found beats a NULL in the set; a NULL probe against a
    // non-empty set is NULL.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT o.id, o.customer_id NOT IN (SELECT customer_id FROM orders i \
             WHERE i.amount <= o.amount) FROM orders o ORDER BY o.id",
        )?),
        ["10,0", "11,0", "12,0", "13,NULL", "14,0"]
    );
    // Not found with a NULL in the set is NULL.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT o.id, o.amount NOT IN (SELECT customer_id FROM orders i \
             WHERE i.amount <= o.amount) FROM orders o WHERE o.id = 10",
        )?),
        ["10,NULL"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT c.id, c.city IN (SELECT city FROM customer d WHERE d.id > c.id) \
             FROM customer c ORDER BY c.id",
        )?),
        ["1,1", "2,NULL", "3,NULL", "4,0"]
    );
    Ok(())
}

#[test]
fn scalar_subqueries_in_the_select_list_and_where() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name, (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS n, \
             (SELECT SUM(amount) FROM orders o WHERE o.customer_id = c.id) AS total \
             FROM customer c ORDER BY id",
        )?),
        ["ann,2,12", "bob,1,30", "cid,1,7", "dan,0,NULL"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT id FROM orders o WHERE amount = \
             (SELECT MAX(amount) FROM orders i WHERE i.customer_id = o.customer_id) ORDER BY id",
        )?),
        ["11", "12", "14"]
    );
    // More than one row for some outer row.
    assert_eq!(
        code(
            &mut s,
            "SELECT (SELECT amount FROM orders o WHERE o.customer_id = c.id) FROM customer c",
        ),
        1242
    );
    // A name neither query has stays an unknown column.
    assert_eq!(
        code(
            &mut s,
            "SELECT name FROM customer c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.nope = c.id)",
        ),
        1054
    );
    assert_eq!(
        code(
            &mut s,
            "SELECT name FROM customer c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.id = x.id)",
        ),
        1054
    );
    Ok(())
}

#[test]
fn nested_correlation_and_prepared_parameters() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // Two levels: customers with an order holding a pen; the innermost
    // subquery reads the middle one's row.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer c WHERE EXISTS (SELECT 1 FROM orders o \
             WHERE o.customer_id = c.id AND EXISTS (SELECT 1 FROM item i \
             WHERE i.order_id = o.id AND i.sku = 'pen')) ORDER BY name",
        )?),
        ["ann", "bob"]
    );
    // The innermost subquery reads the outermost row.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer c WHERE EXISTS (SELECT 1 FROM orders o \
             WHERE o.customer_id = c.id AND o.amount > (SELECT COUNT(*) FROM orders x \
             WHERE x.customer_id = c.id) * 4) ORDER BY name",
        )?),
        ["bob", "cid"]
    );
    s.execute(
        "PREPARE st FROM 'SELECT name FROM customer c WHERE EXISTS \
         (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.amount > ?) ORDER BY name'",
    )?;
    s.execute("SET @floor = 6")?;
    assert_eq!(
        flat(rows(&mut s, "EXECUTE st USING @floor")?),
        ["ann", "bob", "cid"]
    );
    s.execute("SET @floor = 10")?;
    assert_eq!(flat(rows(&mut s, "EXECUTE st USING @floor")?), ["bob"]);
    Ok(())
}

#[test]
fn update_and_delete_with_subqueries() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // Uncorrelated, reading the target table itself (MariaDB reads first).
    s.execute("DELETE FROM orders WHERE amount > (SELECT AVG(amount) FROM orders)")?;
    assert_eq!(
        flat(rows(&mut s, "SELECT id FROM orders ORDER BY id")?),
        ["10", "11", "13", "14"]
    );
    // Correlated WHERE and a correlated SET value.
    s.execute(
        "UPDATE customer c SET city = 'none' WHERE NOT EXISTS \
         (SELECT 1 FROM orders o WHERE o.customer_id = c.id)",
    )?;
    assert_eq!(
        flat(rows(&mut s, "SELECT id, city FROM customer ORDER BY id")?),
        ["1,oslo", "2,none", "3,oslo", "4,none"]
    );
    s.execute(
        "UPDATE customer c SET name = CONCAT(name, ':', \
         (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id)) WHERE id IN \
         (SELECT customer_id FROM orders)",
    )?;
    assert_eq!(
        flat(rows(&mut s, "SELECT name FROM customer ORDER BY id")?),
        ["ann:2", "bob", "cid:1", "dan"]
    );
    // Multi-table forms.
    s.execute(
        "DELETE o FROM orders o JOIN customer c ON c.id = o.customer_id \
         WHERE c.id IN (SELECT id FROM customer WHERE city = 'oslo') AND o.amount < 7",
    )?;
    assert_eq!(
        flat(rows(&mut s, "SELECT id FROM orders ORDER BY id")?),
        ["11", "13", "14"]
    );
    Ok(())
}

/// The inner query reads the outer query's own table under an alias, as
/// Django writes `OuterRef` on the same model: `FROM customer U0` hides the
/// name `customer`, so `customer.id` is the outer row's.
#[test]
fn the_same_table_under_an_alias_is_an_outer_reference() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT customer.id FROM customer WHERE \
             EXISTS(SELECT 1 FROM customer U0 WHERE U0.id = customer.id AND U0.city = 'oslo' LIMIT 1) \
             XOR EXISTS(SELECT 1 FROM customer U0 WHERE U0.id = customer.id AND U0.name < 'c' LIMIT 1) \
             ORDER BY customer.id",
        )?),
        ["2", "3"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT customer.id, (SELECT U0.id + customer.id AS r FROM customer U0 \
             ORDER BY r DESC LIMIT 1) AS m FROM customer ORDER BY customer.id",
        )?),
        ["1,5", "2,6", "3,7", "4,8"]
    );
    // Unaliased, the inner `customer` is the inner table itself.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT COUNT(*) FROM customer c WHERE \
             (SELECT COUNT(*) FROM customer WHERE customer.id = customer.id) = 4",
        )?),
        ["4"]
    );
    Ok(())
}

/// Subqueries in ORDER BY and GROUP BY, correlated or not (they were 1235).
#[test]
fn subqueries_order_and_group_rows() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer c ORDER BY \
             EXISTS(SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.amount = 7) DESC, name",
        )?),
        ["ann", "cid", "bob", "dan"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT name FROM customer c ORDER BY \
             (SELECT SUM(amount) FROM orders o WHERE o.customer_id = c.id) DESC, (SELECT 1), name",
        )?),
        ["bob", "ann", "cid", "dan"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT city, COUNT(*) FROM customer c GROUP BY city, (SELECT 1) \
             ORDER BY (SELECT COUNT(*) FROM customer c2 WHERE c2.city = c.city), city",
        )?),
        ["NULL,1", "rome,1", "oslo,2"]
    );
    Ok(())
}

/// A correlated subquery with backslashes in its string literals (Django's
/// `startswith` on an outer column escapes `\`, `%` and `_` so) runs with
/// the literals it was given (it was 1105 "malformed correlated subquery").
#[test]
fn literals_with_backslashes_in_a_correlated_subquery() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("INSERT INTO item VALUES (10, 'a\\\\b'), (12, 'c%d')")?;
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT c.name FROM customer c WHERE EXISTS(SELECT 1 FROM customer U0 \
             WHERE U0.name LIKE BINARY CONCAT(REPLACE(REPLACE(REPLACE(SUBSTRING(c.name, 1, 1), \
             '\\\\', '\\\\\\\\'), '%', '\\%'), '_', '\\_'), '%') AND U0.id <> c.id) ORDER BY c.name",
        )?),
        Vec::<String>::new()
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT o.id, (SELECT COUNT(*) FROM item i WHERE i.order_id = o.id \
             AND (i.sku LIKE '%\\\\\\\\%' OR i.sku LIKE 'c\\%%')) FROM orders o ORDER BY o.id",
        )?),
        ["10,1", "11,0", "12,1", "13,0", "14,0"]
    );
    Ok(())
}

/// Row values in IN: a list of rows, an uncorrelated subquery and a
/// correlated one, with MariaDB's NULL rules and 1241 for a width that
/// differs (Django's multi-column foreign keys filter so; it was 1241).
#[test]
fn row_values_in_lists_and_subqueries() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT id FROM orders WHERE (customer_id, amount) IN ((1, 7), (3, 7), (2, 31)) ORDER BY id",
        )?),
        ["11", "14"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT id FROM orders WHERE (customer_id, amount) IN \
             (SELECT o.customer_id, o.amount FROM orders o WHERE o.amount > 6) ORDER BY id",
        )?),
        ["11", "12", "14"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT (1, NULL) IN (SELECT 1, 2), (1, NULL) IN (SELECT 2, 2), \
             (1, 2) NOT IN (SELECT 1, NULL), (1, 2) IN (SELECT 1, 2 FROM orders WHERE 0), \
             (1, NULL) IN ((1, 2)), (1, NULL) IN ((2, 2))",
        )?),
        ["NULL,0,NULL,0,NULL,0"]
    );
    // Correlated: the row and the subquery both read the outer row.
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT c.id, (c.id, c.city) IN (SELECT o.customer_id, 'oslo' FROM orders o \
             WHERE o.customer_id = c.id) FROM customer c ORDER BY c.id",
        )?),
        ["1,1", "2,0", "3,1", "4,0"]
    );
    assert_eq!(code(&mut s, "SELECT (1, 2) IN (SELECT 1)"), 1241);
    assert_eq!(code(&mut s, "SELECT (1, 2) IN ((1, 2), 3)"), 1241);
    assert_eq!(
        code(
            &mut s,
            "SELECT c.id FROM customer c WHERE (c.id, c.name) IN \
             (SELECT o.customer_id FROM orders o WHERE o.customer_id = c.id)"
        ),
        1241
    );
    Ok(())
}
