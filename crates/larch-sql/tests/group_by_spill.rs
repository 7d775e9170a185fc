//! GROUP BY with more groups than `tmp_table_size` holds: the groups that
//! do not fit go to temporary files and are aggregated from there. The
//! answer must be the one an all-in-memory run gives (same values, same
//! order, same first-row values for plain columns), and the spill must be
//! seen in `Created_tmp_disk_tables`.

mod support;

use support::{one, rows, TestDb, R};

fn disk_tables(s: &mut larch_sql::session::Session) -> R<u64> {
    let r = rows(s, "SHOW GLOBAL STATUS LIKE 'Created_tmp_disk_tables'")?;
    Ok(r[0][1].parse()?)
}

#[test]
fn spilled_groups_give_the_in_memory_answer() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, s VARCHAR(10), v DECIMAL(8,2), d DATETIME)",
    ])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION max_recursive_iterations = 100000")?;
    s.execute(
        // 20,000 rows in 6,007 groups of g; s differs in case only between
        // rows of one group under the case-insensitive collation.
        "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) \
         SELECT i, (i * 7919) % 6007, IF(i % 2 = 0, CONCAT('k', i % 300), UPPER(CONCAT('k', i % 300))), \
         (i % 1000) / 7, '2024-01-01' + INTERVAL i MINUTE FROM n",
    )?;
    let queries = [
        "SELECT g, COUNT(*), SUM(v), AVG(v), MIN(d), MAX(s), BIT_XOR(id), STD(v), VAR_SAMP(v) FROM t GROUP BY g",
        "SELECT s, g % 10 AS m, COUNT(*), MIN(id), id FROM t GROUP BY s, m",
        "SELECT g DIV 2 AS h, SUM(id) AS total FROM t WHERE id % 3 <> 0 GROUP BY h HAVING total > 10000 ORDER BY total DESC, h",
        "SELECT DATE(d) AS day, g, MAX(v) FROM t GROUP BY day, g ORDER BY g, day LIMIT 50",
        // Not spillable (GROUP_CONCAT, COUNT DISTINCT): the same answer in memory.
        "SELECT g, GROUP_CONCAT(id ORDER BY id), COUNT(DISTINCT s) FROM t GROUP BY g",
    ];
    let mut in_memory = Vec::new();
    for q in queries {
        in_memory.push(rows(&mut s, q)?);
    }
    let before = disk_tables(&mut s)?;
    s.execute("SET SESSION tmp_table_size = 65536")?;
    for (q, expect) in queries.iter().zip(&in_memory) {
        let got = rows(&mut s, q)?;
        assert_eq!(got.len(), expect.len(), "{q}");
        assert!(got == *expect, "{q}: the spilled answer differs");
    }
    // The four spillable statements spilled.
    assert_eq!(disk_tables(&mut s)? - before, 4);
    // max_heap_table_size bounds it too.
    s.execute("SET SESSION tmp_table_size = DEFAULT, max_heap_table_size = 65536")?;
    assert_eq!(rows(&mut s, queries[0])?, in_memory[0]);
    assert_eq!(disk_tables(&mut s)? - before, 5);
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM (SELECT g FROM t GROUP BY g) x"
        )?,
        "6007"
    );
    Ok(())
}

fn sort_merge_passes(s: &mut larch_sql::session::Session) -> R<u64> {
    let r = rows(s, "SHOW GLOBAL STATUS LIKE 'Sort_merge_passes'")?;
    Ok(r[0][1].parse()?)
}

/// A spilled GROUP BY's finished groups are sorted as they come, in runs
/// on disk past `sort_buffer_size`: by the ORDER BY, or by the GROUP BY
/// values without one. The answer is the in-memory one; among rows of
/// equal ORDER BY keys, the order of a sort in one buffer.
#[test]
fn spilled_groups_are_sorted_in_runs_on_disk() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, s VARCHAR(10), v DECIMAL(8,2))",
    ])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION max_recursive_iterations = 100000")?;
    s.execute(
        // 30,000 rows in 12,007 groups of g.
        "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) \
         SELECT i, (i * 7919) % 12007, IF(i % 2 = 0, CONCAT('k', i % 300), UPPER(CONCAT('k', i % 300))), \
         (i % 1000) / 7 FROM n",
    )?;
    // Answers without ties in their order: the same in memory.
    let exact = [
        "SELECT g, COUNT(*), SUM(v), MAX(s) FROM t GROUP BY g",
        "SELECT g, SUM(id) AS total FROM t GROUP BY g ORDER BY total DESC, g",
        "SELECT s, g % 10 AS m, COUNT(*), MIN(id) FROM t GROUP BY s, m ORDER BY 4 DESC",
        "SELECT g, AVG(v) AS a FROM t GROUP BY g ORDER BY a, g LIMIT 100, 2000",
        "SELECT g, COUNT(*) FROM t GROUP BY g LIMIT 10, 30",
        "SELECT g, MIN(id) AS first FROM t GROUP BY g HAVING first % 3 = 0 ORDER BY g DESC",
    ];
    // Ties in the ORDER BY: rows of equal keys in the order the groups
    // finish (which a spill changes).
    let tied = [
        "SELECT g % 50 AS m, g, COUNT(*) AS c FROM t GROUP BY g ORDER BY m",
        "SELECT g, COUNT(*) AS c FROM t GROUP BY g ORDER BY c DESC LIMIT 5, 3000",
    ];
    let mut in_memory = Vec::new();
    for q in exact {
        in_memory.push(rows(&mut s, q)?);
    }
    assert_eq!(in_memory[0].len(), 12_007);
    assert_eq!(in_memory[3].len(), 2_000);
    let spills = disk_tables(&mut s)?;
    s.execute("SET SESSION tmp_table_size = 65536, sort_buffer_size = 1073741824")?;
    for (q, expect) in exact.iter().zip(&in_memory) {
        assert!(
            rows(&mut s, q)? == *expect,
            "{q}: the spilled answer differs"
        );
    }
    assert_eq!(disk_tables(&mut s)? - spills, exact.len() as u64);
    let mut one_buffer = Vec::new();
    for q in tied {
        one_buffer.push(rows(&mut s, q)?);
    }
    let passes = sort_merge_passes(&mut s)?;
    s.execute("SET SESSION sort_buffer_size = 32768")?;
    for (q, expect) in exact
        .iter()
        .chain(&tied)
        .zip(in_memory.iter().chain(&one_buffer))
    {
        let got = rows(&mut s, q)?;
        assert_eq!(got.len(), expect.len(), "{q}");
        if let Some(i) = (0..got.len()).find(|&i| got[i] != expect[i]) {
            panic!(
                "{q}: row {i} is {:?}, in one buffer {:?}",
                got[i], expect[i]
            );
        }
    }
    // The statements without LIMIT sorted in runs and merged them.
    assert!(sort_merge_passes(&mut s)? - passes >= 4);
    Ok(())
}
