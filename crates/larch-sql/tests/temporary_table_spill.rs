//! What MariaDB keeps in a temporary table, past `tmp_table_size` (or
//! `max_heap_table_size`) on disk:
//! - SELECT DISTINCT with more distinct rows than the limit holds: the keys
//!   of the rows let through stay in memory up to the limit, rows not seen
//!   by then wait in temporary files and are deduplicated from there;
//! - derived tables (subqueries in FROM) larger than the limit are
//!   materialized in a temporary file and read from it by the join.
//!
//! The answer must be the in-memory one row for row (DISTINCT: the first
//! of equal rows under the columns' collations, in the order read, with
//! LIMIT and OFFSET counted over it), and the spill seen in
//! `Created_tmp_disk_tables`.

mod support;

use support::{one, rows, TestDb, R};

fn disk_tables(s: &mut larch_sql::session::Session) -> R<u64> {
    let r = rows(s, "SHOW GLOBAL STATUS LIKE 'Created_tmp_disk_tables'")?;
    Ok(r[0][1].parse()?)
}

/// A table of 20,000 rows: g takes 6,007 values in a scattered order; s
/// has 600 spellings of 300 words under the case-insensitive collation
/// (the first spelling read must be the one kept); n is NULL on every
/// seventh row.
fn table() -> R<TestDb> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, s VARCHAR(10), n INT, KEY (g))",
    ])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION max_recursive_iterations = 100000")?;
    s.execute(
        "INSERT INTO t WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 20000) \
         SELECT i, (i * 7919) % 6007, IF(i % 2 = 0, CONCAT('k', i % 300), UPPER(CONCAT('k', i % 300))), \
         IF(i % 7 = 0, NULL, i % 4001) FROM q",
    )?;
    Ok(t)
}

/// Runs `queries` in memory, then under each of `limits` (a
/// `tmp_table_size`), and checks the answers are the same and that at
/// least `spills` statements spilled under each limit.
fn same_answers_spilled(
    s: &mut larch_sql::session::Session,
    queries: &[&str],
    limits: &[&str],
    spills: u64,
) -> R<Vec<Vec<Vec<String>>>> {
    let mut in_memory = Vec::new();
    for q in queries {
        in_memory.push(rows(s, q)?);
    }
    for limit in limits {
        let before = disk_tables(s)?;
        s.execute(&format!("SET SESSION tmp_table_size = {limit}"))?;
        for (q, expect) in queries.iter().zip(&in_memory) {
            let got = rows(s, q)?;
            assert_eq!(got.len(), expect.len(), "{q} under {limit}");
            assert!(
                got == *expect,
                "{q} under {limit}: the spilled answer differs"
            );
        }
        let spilled = disk_tables(s)? - before;
        assert!(
            spilled >= spills,
            "{spilled} statements spilled under {limit}"
        );
        s.execute("SET SESSION tmp_table_size = DEFAULT")?;
    }
    Ok(in_memory)
}

#[test]
fn spilled_distinct_gives_the_in_memory_answer() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    let queries = [
        "SELECT DISTINCT g FROM t",
        "SELECT DISTINCT s FROM t",
        "SELECT DISTINCT n, g % 3 FROM t",
        "SELECT DISTINCT g % 1000 AS m, s FROM t WHERE id % 5 <> 0",
        "SELECT DISTINCT g FROM t LIMIT 2990, 25",
        "SELECT DISTINCT n FROM t LIMIT 3999, 10",
        "SELECT DISTINCT g FROM t ORDER BY g LIMIT 100",
        "SELECT DISTINCT n FROM t ORDER BY id",
        "SELECT COUNT(*), SUM(g) FROM (SELECT DISTINCT g, s FROM t) x",
    ];
    let in_memory = same_answers_spilled(&mut s, &queries, &["65536", "1024"], 6)?;
    assert_eq!(in_memory[0].len(), 6007);
    assert_eq!(in_memory[4].len(), 25);
    // The first spelling read is the one kept.
    assert_eq!(in_memory[1][0], vec!["K1".to_string()]);
    // DISTINCT sorted by select-list columns drops duplicates as rows come
    // and sorts the distinct rows (in runs on disk past sort_buffer_size):
    // the same rows as sorting all rows first (the old way, still taken
    // when a key is an expression, here a trailing NULL).
    let sorted = [
        "SELECT DISTINCT s FROM t ORDER BY s",
        "SELECT DISTINCT g % 100 AS m, n FROM t ORDER BY m DESC, 2 LIMIT 50, 30",
        "SELECT DISTINCT n FROM t ORDER BY n",
        "SELECT DISTINCT s, g FROM t WHERE id < 5000 ORDER BY g DESC, s",
        "SELECT DISTINCT UPPER(s) AS u, n % 10 FROM t ORDER BY 2, u LIMIT 7",
    ];
    for q in sorted {
        let (order, limit) = match q.find(" LIMIT") {
            Some(at) => q.split_at(at),
            None => (q, ""),
        };
        let old_way = format!("{order}, NULL{limit}");
        assert_eq!(rows(&mut s, q)?, rows(&mut s, &old_way)?, "{q}");
    }
    s.execute("SET SESSION sort_buffer_size = 32768")?;
    let runs_before: u64 =
        rows(&mut s, "SHOW GLOBAL STATUS LIKE 'Sort_merge_passes'")?[0][1].parse()?;
    same_answers_spilled(&mut s, &sorted, &["65536", "1024"], 2)?;
    let runs_after: u64 =
        rows(&mut s, "SHOW GLOBAL STATUS LIKE 'Sort_merge_passes'")?[0][1].parse()?;
    assert!(runs_after > runs_before, "no sort went to runs on disk");
    s.execute("SET SESSION sort_buffer_size = DEFAULT")?;
    // max_heap_table_size bounds it too.
    let before = disk_tables(&mut s)?;
    s.execute("SET SESSION max_heap_table_size = 16384")?;
    assert_eq!(rows(&mut s, queries[0])?, in_memory[0]);
    assert_eq!(disk_tables(&mut s)? - before, 1);
    assert_eq!(one(&mut s, "SELECT COUNT(DISTINCT g) FROM t")?, "6007");
    Ok(())
}

#[test]
fn spilled_derived_tables_give_the_in_memory_answer() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION max_recursive_iterations = 100000")?;
    let queries = [
        "SELECT COUNT(*), SUM(x.g), MAX(x.s) FROM (SELECT * FROM t) x",
        "SELECT x.id, x.s FROM (SELECT id, s FROM t WHERE id % 3 = 0) x WHERE x.id > 19000",
        // Both sides of the join derived: the inner one is read again for
        // every row of the outer one.
        "SELECT a.id, b.id, b.s FROM (SELECT id FROM t WHERE id <= 300) a \
         JOIN (SELECT id, g, s FROM t WHERE id <= 300) b ON a.id = b.g % 300 ORDER BY a.id, b.id",
        "SELECT t.id, x.c FROM t LEFT JOIN (SELECT g, COUNT(*) AS c FROM t GROUP BY g) x \
         ON x.g = t.id WHERE t.id < 50 ORDER BY t.id",
        "SELECT * FROM (SELECT id, s FROM t LIMIT 100, 5000) x ORDER BY id DESC LIMIT 3",
        "SELECT COUNT(*), SUM(g) FROM (SELECT DISTINCT s, g FROM (SELECT * FROM t) y) x",
        "SELECT n, COUNT(*) FROM (SELECT n FROM t UNION ALL SELECT g FROM t) u GROUP BY n ORDER BY 2 DESC, 1 LIMIT 5",
        // WITH elements: materialized once, read by each reference.
        "WITH c AS (SELECT id, s FROM t WHERE id <= 600) \
         SELECT COUNT(*), MIN(a.s), MAX(b.id) FROM c a JOIN c b ON a.id = b.id + 2",
        "WITH RECURSIVE r(i, x) AS (SELECT 1, CAST('a' AS CHAR(20)) UNION ALL \
         SELECT i + 1, CONCAT('b', i) FROM r WHERE i < 2000) SELECT COUNT(*), MAX(x), SUM(i) FROM r",
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION SELECT (i * 7) % 3001 FROM r) SELECT COUNT(*), SUM(i) FROM r",
    ];
    let in_memory = same_answers_spilled(&mut s, &queries, &["1024", "262144"], 8)?;
    assert_eq!(in_memory[0][0][0], "20000");
    assert_eq!(in_memory[3].len(), 49);
    assert_eq!(in_memory[7][0], ["598", "k0", "598"]);
    assert_eq!(in_memory[8][0], ["2000", "b999", "2001000"]);
    assert_eq!(in_memory[9][0], ["1000", "1500500"]);
    Ok(())
}
