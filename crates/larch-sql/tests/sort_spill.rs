//! ORDER BY over more rows than `sort_buffer_size` holds: the rows go to
//! sorted runs in temporary files, merged at the end. The answer must be
//! the one an all-in-memory sort gives, row for row (rows of equal keys in
//! the order they were read, as a stable sort leaves them), with the
//! LIMIT, HAVING, expressions, aliases and joins, and the runs must be
//! seen in `Sort_merge_passes` and `Created_tmp_files`.

mod support;

use support::{rows, TestDb, R};

fn status(s: &mut larch_sql::session::Session, name: &str) -> R<u64> {
    let r = rows(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    Ok(r[0][1].parse()?)
}

#[test]
fn a_sort_in_runs_on_disk_gives_the_in_memory_answer() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, g INT, s VARCHAR(20), v DECIMAL(8,2), d DATETIME)",
        "CREATE TABLE u (g INT PRIMARY KEY, name VARCHAR(10))",
    ])?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION max_recursive_iterations = 100000")?;
    s.execute(
        // 20,000 rows: g repeats (ties), s differs only in case between
        // rows equal under the case-insensitive collation, some NULLs.
        "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) \
         SELECT i, IF(i % 97 = 0, NULL, (i * 7919) % 601), \
         IF(i % 2 = 0, CONCAT('k', i % 300), UPPER(CONCAT('k', i % 300))), \
         (i % 1000) / 7, '2024-01-01' + INTERVAL (i * 37) % 5000 MINUTE FROM n",
    )?;
    s.execute(
        "INSERT INTO u WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 600) \
         SELECT i, CONCAT('n', i % 13) FROM n",
    )?;
    let queries = [
        "SELECT * FROM t ORDER BY g",
        "SELECT id, s FROM t ORDER BY s DESC",
        "SELECT id, g, v FROM t ORDER BY v DESC, g, id DESC",
        "SELECT id, CONCAT(s, '-', g) AS label FROM t ORDER BY label, id",
        "SELECT id, d, g * 2 FROM t ORDER BY 3 DESC, 2",
        "SELECT id, v FROM t ORDER BY DATE(d), v LIMIT 700, 5000",
        "SELECT id, g + 1 AS h FROM t HAVING h > 300 ORDER BY h DESC, id",
        "SELECT t.id, u.name FROM t JOIN u ON u.g = t.g ORDER BY u.name, t.s",
        "SELECT COUNT(*), SUM(id * g) FROM (SELECT id, g FROM t ORDER BY s, g LIMIT 3, 15000) x",
    ];
    s.execute("SET SESSION sort_buffer_size = 1073741824")?;
    let mut in_memory = Vec::new();
    for q in queries {
        in_memory.push(rows(&mut s, q)?);
    }
    assert_eq!(in_memory[0].len(), 20_000);
    assert_eq!(in_memory[5].len(), 5_000);
    let (passes, files) = (
        status(&mut s, "Sort_merge_passes")?,
        status(&mut s, "Created_tmp_files")?,
    );
    // Nothing went to disk in memory.
    assert_eq!(status(&mut s, "Sort_merge_passes")?, passes);
    s.execute("SET SESSION sort_buffer_size = 32768")?;
    for (q, expect) in queries.iter().zip(&in_memory) {
        let got = rows(&mut s, q)?;
        assert_eq!(got.len(), expect.len(), "{q}");
        if let Some(i) = (0..got.len()).find(|&i| got[i] != expect[i]) {
            panic!("{q}: row {i} is {:?}, in memory {:?}", got[i], expect[i]);
        }
    }
    // Over 1 MB of rows in a 32 KiB buffer: many runs, merged in passes.
    assert!(status(&mut s, "Sort_merge_passes")? - passes >= queries.len() as u64);
    assert!(status(&mut s, "Created_tmp_files")? - files > 100);
    Ok(())
}
