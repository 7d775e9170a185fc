//! JSON_ARRAYAGG and JSON_OBJECTAGG end to end in process, each result
//! checked against what MariaDB 10.11 prints for the same statement: NULLs
//! kept as `null`, strings quoted and escaped, JSON from a JSON function
//! embedded, DISTINCT (sorted, as MariaDB's), ORDER BY with NULLs first
//! ascending and last descending, LIMIT, GROUP BY and HAVING, no rows as
//! NULL, JSON_OBJECTAGG skipping NULL keys, and the errors (1582 for a
//! wrong argument count, 1064 for DISTINCT in JSON_OBJECTAGG).

mod support;

use larch_sql::session::Session;
use support::{code, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE ja (g INT, k VARCHAR(5), v INT, d DOUBLE, s VARCHAR(10))",
        "INSERT INTO ja VALUES (1, 'a', 3, 1.5, 'x\"y'), (1, 'b', NULL, 2e20, NULL), \
         (1, 'c', 1, 0.1, 'z'), (2, 'a', 5, -1, 'w'), (2, 'a', 5, -1, 'w')",
    ])
}

fn one(s: &mut Session, sql: &str) -> R<String> {
    support::one(s, sql)
}

#[test]
fn arrays_and_objects_per_group() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, JSON_ARRAYAGG(v), JSON_ARRAYAGG(s), JSON_ARRAYAGG(d), \
             JSON_OBJECTAGG(k, v) FROM ja GROUP BY g"
        )?,
        [
            [
                "1",
                "[3,null,1]",
                "[\"x\\\"y\",null,\"z\"]",
                "[1.5,2e20,0.1]",
                "{\"a\":3, \"b\":null, \"c\":1}"
            ],
            [
                "2",
                "[5,5]",
                "[\"w\",\"w\"]",
                "[-1,-1]",
                "{\"a\":5, \"a\":5}"
            ]
        ]
    );
    // JSON from a JSON function is embedded, not quoted.
    assert_eq!(
        one(
            &mut s,
            "SELECT JSON_ARRAYAGG(JSON_OBJECT('k', k)) FROM ja WHERE g = 2"
        )?,
        "[{\"k\": \"a\"},{\"k\": \"a\"}]"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT JSON_OBJECTAGG(k, JSON_ARRAY(v)) FROM ja WHERE g = 1"
        )?,
        "{\"a\":[3], \"b\":[null], \"c\":[1]}"
    );
    // NULL keys are skipped; no rows give NULL.
    assert_eq!(
        one(&mut s, "SELECT JSON_OBJECTAGG(s, v) FROM ja")?,
        "{\"x\\\"y\":3, \"z\":1, \"w\":5, \"w\":5}"
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAYAGG(v) FROM ja WHERE g = 9")?,
        "NULL"
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_OBJECTAGG(k, v) FROM ja WHERE g = 9")?,
        "NULL"
    );
    // In HAVING.
    assert_eq!(
        rows(
            &mut s,
            "SELECT JSON_ARRAYAGG(v) FROM ja GROUP BY g HAVING JSON_LENGTH(JSON_ARRAYAGG(v)) > 2"
        )?,
        [["[3,null,1]"]]
    );
    Ok(())
}

#[test]
fn distinct_order_by_and_limit() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAYAGG(DISTINCT v) FROM ja")?,
        "[null,1,3,5]"
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAYAGG(DISTINCT s) FROM ja")?,
        "[null,\"w\",\"x\\\"y\",\"z\"]"
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAYAGG(v ORDER BY v DESC) FROM ja")?,
        "[5,5,3,1,null]"
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAYAGG(v ORDER BY s) FROM ja")?,
        "[null,5,5,3,1]"
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAYAGG(s ORDER BY v DESC) FROM ja")?,
        "[\"w\",\"w\",\"x\\\"y\",\"z\",null]"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT JSON_ARRAYAGG(v ORDER BY v DESC LIMIT 2) FROM ja"
        )?,
        "[5,5]"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT JSON_ARRAYAGG(DISTINCT v ORDER BY v LIMIT 2) FROM ja"
        )?,
        "[null,1]"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT JSON_ARRAYAGG(v LIMIT 1) FROM ja WHERE g = 2"
        )?,
        "[5]"
    );
    Ok(())
}

#[test]
fn errors_as_mariadb() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    assert_eq!(code(&mut s, "SELECT JSON_ARRAYAGG(v, s) FROM ja"), 1582);
    assert_eq!(code(&mut s, "SELECT JSON_OBJECTAGG(k) FROM ja"), 1582);
    assert_eq!(
        code(&mut s, "SELECT JSON_OBJECTAGG(DISTINCT k, v) FROM ja"),
        1064
    );
    Ok(())
}
