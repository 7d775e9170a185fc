//! `ORDER BY ... LIMIT` keeps only the rows it may return while it reads
//! (sorting and cutting as it goes): its answer must be exactly the slice a
//! full sort gives, ties in the same order, with HAVING, positional and
//! expression keys, offsets, and limits larger than the table.

mod support;

use support::{rows, TestDb, R};

#[test]
fn limited_sorts_are_slices_of_the_full_sort() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, s VARCHAR(10))"])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION max_recursive_iterations = 100000")?;
    s.execute(
        // 5,000 rows, many ties in g (100 values) and in s (37 values, some NULL).
        "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) \
         SELECT i, (i * 7919) % 100, IF(i % 11 = 0, NULL, CONCAT('v', (i * 31) % 37)) FROM n",
    )?;
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t")?, [["5000"]]);
    let queries = [
        "SELECT id, g FROM t ORDER BY g",
        "SELECT id, g FROM t ORDER BY g DESC, s",
        "SELECT id, s FROM t ORDER BY s DESC",
        "SELECT id, g * 3 AS x FROM t ORDER BY x, id DESC",
        "SELECT id, g FROM t ORDER BY 2",
        "SELECT id, g + 1 AS h FROM t HAVING h > 40 ORDER BY h",
        "SELECT CONCAT(s, id) FROM t WHERE id % 3 = 0 ORDER BY LENGTH(s), g",
    ];
    for q in queries {
        let all = rows(&mut s, q)?;
        for (offset, count) in [
            (0, 1),
            (0, 10),
            (5, 7),
            (1000, 1500),
            (4990, 100),
            (0, 10_000),
        ] {
            let got = rows(&mut s, &format!("{q} LIMIT {offset}, {count}"))?;
            let expect: Vec<_> = all.iter().skip(offset).take(count).cloned().collect();
            assert_eq!(got, expect, "{q} LIMIT {offset}, {count}");
        }
        assert!(rows(&mut s, &format!("{q} LIMIT 0"))?.is_empty());
    }
    Ok(())
}

/// Without ORDER BY, a LIMIT stops the read once it has its rows: after
/// HAVING (which filtered only the rows the LIMIT had kept, so `HAVING id >
/// 5 LIMIT 2` answered nothing) and counting distinct rows for SELECT
/// DISTINCT, whose first rows are those MariaDB gives.
#[test]
fn a_limit_without_order_counts_rows_after_having_and_distinct() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, s VARCHAR(10))"])?;
    let mut s = t.session(5)?;
    s.execute(
        "INSERT INTO t VALUES (1, 3, 'a'), (2, 1, 'B'), (3, 3, 'A'), (4, 2, 'b'), (5, 1, 'c'), \
         (6, 2, 'a'), (7, 4, 'C'), (8, 4, 'd')",
    )?;
    assert_eq!(
        rows(&mut s, "SELECT id FROM t HAVING id > 5 LIMIT 2")?,
        [["6"], ["7"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id, g FROM t HAVING g > 1 LIMIT 1, 2")?,
        [["3", "3"], ["4", "2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT g FROM t LIMIT 3")?,
        [["3"], ["1"], ["2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT g FROM t LIMIT 2, 5")?,
        [["2"], ["4"]]
    );
    // Equal under the column's case-insensitive collation: the first kept.
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT s FROM t")?,
        [["a"], ["B"], ["c"], ["d"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT s FROM t WHERE id > 1 LIMIT 1, 2")?,
        [["A"], ["c"]]
    );
    Ok(())
}
