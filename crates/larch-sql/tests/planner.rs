//! Access paths the planner chooses, checked two ways: EXPLAIN names the
//! path (so a regression to a scan and a sort fails here), and the rows the
//! path gives equal the rows of the same query forced through a scan and a
//! sort (an ORDER BY on an expression, which no index gives).

mod support;

use rand::{Rng, SeedableRng};
use support::{one, query, rows, TestDb, R};

/// The EXPLAIN line of a one-table query, by column name.
fn explain(s: &mut larch_sql::session::Session, sql: &str) -> R<Vec<(String, String)>> {
    let (names, mut lines) = query(s, &format!("EXPLAIN {sql}"))?;
    assert_eq!(lines.len(), 1, "one line for {sql}: {lines:?}");
    let line = lines.remove(0);
    Ok(names.into_iter().zip(line).collect())
}

fn field<'a>(line: &'a [(String, String)], name: &str) -> &'a str {
    line.iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Table `t` with NULLs and duplicates in the indexed columns.
fn table(n: usize) -> R<TestDb> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT NULL, b VARCHAR(20) NULL, \
         c CHAR(30) NOT NULL, d INT NOT NULL, KEY ab (a, b), KEY d (d))",
    ])?;
    let mut s = t.session(50)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut values = Vec::new();
    for id in 1..=n {
        let a = if rng.random_range(0..8) == 0 {
            "NULL".to_string()
        } else {
            rng.random_range(0..20).to_string()
        };
        let b = if rng.random_range(0..8) == 0 {
            "NULL".to_string()
        } else {
            format!("'{}'", ["x", "Y", "b", "ab", "z z"][rng.random_range(0..5)])
        };
        let d = rng.random_range(0..1000);
        values.push(format!("({id}, {a}, {b}, 'row {id}', {d})"));
        if values.len() == 200 {
            s.execute(&format!("INSERT INTO t VALUES {}", values.join(",")))?;
            values.clear();
        }
    }
    if !values.is_empty() {
        s.execute(&format!("INSERT INTO t VALUES {}", values.join(",")))?;
    }
    Ok(t)
}

#[test]
fn order_by_an_index_reads_in_order_and_stops_at_the_limit() -> R<()> {
    let t = table(3_000)?;
    let mut s = t.session(50)?;
    // (query through the index, the same query sorted, expected key)
    let cases = [
        (
            "SELECT a, b FROM t ORDER BY a, b LIMIT 40",
            "SELECT a, b FROM t ORDER BY a + 0, CONCAT(b) LIMIT 40",
            "ab",
        ),
        (
            "SELECT a, b FROM t ORDER BY a DESC, b DESC LIMIT 40",
            "SELECT a, b FROM t ORDER BY a + 0 DESC, CONCAT(b) DESC LIMIT 40",
            "ab",
        ),
        (
            "SELECT a, b, c FROM t WHERE a = 7 ORDER BY b LIMIT 25",
            "SELECT a, b, c FROM t WHERE a = 7 ORDER BY CONCAT(b), c LIMIT 25",
            "ab",
        ),
        (
            "SELECT id, c FROM t ORDER BY id DESC LIMIT 5",
            "SELECT id, c FROM t ORDER BY id + 0 DESC LIMIT 5",
            "PRIMARY",
        ),
        (
            "SELECT d FROM t WHERE d BETWEEN 100 AND 300 ORDER BY d DESC LIMIT 30",
            "SELECT d FROM t WHERE d BETWEEN 100 AND 300 ORDER BY d + 0 DESC LIMIT 30",
            "d",
        ),
    ];
    for (indexed, sorted, key) in cases {
        let line = explain(&mut s, indexed)?;
        assert_eq!(field(&line, "key"), key, "{indexed}: {line:?}");
        assert!(
            !field(&line, "Extra").contains("filesort"),
            "{indexed} is read in index order: {line:?}"
        );
        let sorted_line = explain(&mut s, sorted)?;
        assert!(
            field(&sorted_line, "Extra").contains("filesort"),
            "{sorted} sorts: {sorted_line:?}"
        );
        let mut got = rows(&mut s, indexed)?;
        let mut want = rows(&mut s, sorted)?;
        assert_eq!(got.len(), want.len(), "{indexed}");
        // Rows tied on the ORDER BY columns may come in any order, and the
        // LIMIT may cut a tie anywhere: compare the ORDER BY columns.
        if indexed.contains("a, b, c") {
            for r in got.iter_mut().chain(want.iter_mut()) {
                r.truncate(2);
            }
        }
        assert_eq!(got, want, "{indexed}");
    }
    // NULLs come first ascending and last descending, as MySQL sorts them.
    let first = rows(&mut s, "SELECT a FROM t ORDER BY a LIMIT 1")?;
    assert_eq!(first, vec![vec!["NULL".to_string()]]);
    let last = rows(&mut s, "SELECT a FROM t ORDER BY a DESC LIMIT 1")?;
    assert_eq!(last, vec![vec!["19".to_string()]]);
    Ok(())
}

#[test]
fn a_covering_index_answers_scans_and_sees_the_snapshot() -> R<()> {
    let t = table(2_000)?;
    let mut s = t.session(50)?;
    let line = explain(&mut s, "SELECT COUNT(*), SUM(d) FROM t")?;
    assert_eq!(field(&line, "type"), "index", "{line:?}");
    assert_eq!(field(&line, "key"), "d", "the narrowest index: {line:?}");
    assert_eq!(field(&line, "Extra"), "Using index", "{line:?}");
    let line = explain(&mut s, "SELECT SUM(a) FROM t WHERE b = 'x'")?;
    assert_eq!(field(&line, "key"), "ab", "{line:?}");
    assert!(field(&line, "Extra").contains("Using index"), "{line:?}");
    // A column no index covers: the clustered index.
    let line = explain(&mut s, "SELECT MAX(c) FROM t")?;
    assert_eq!(field(&line, "type"), "ALL", "{line:?}");

    let sum = |s: &mut larch_sql::session::Session, sql: &str| -> R<i64> {
        Ok(rows(s, sql)?[0][0].parse()?)
    };
    // The covering answer equals the row-by-row one (an expression on c
    // makes the statement read whole rows).
    let covered = sum(&mut s, "SELECT SUM(d) FROM t")?;
    let whole = sum(&mut s, "SELECT SUM(d + LENGTH(c) * 0) FROM t")?;
    assert_eq!(covered, whole);

    // A snapshot reads the index entries as they were when it started.
    s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")?;
    let mut w = t.session(50)?;
    w.execute("UPDATE t SET d = d + 1000 WHERE id % 3 = 0")?;
    w.execute("DELETE FROM t WHERE id % 7 = 0")?;
    w.execute("INSERT INTO t VALUES (5000, 1, 'x', 'new', 5)")?;
    assert_eq!(sum(&mut s, "SELECT SUM(d) FROM t")?, covered);
    assert_eq!(sum(&mut s, "SELECT COUNT(*) FROM t")?, 2_000);
    s.execute("COMMIT")?;
    let now = sum(&mut s, "SELECT SUM(d) FROM t")?;
    let now_whole = sum(&mut s, "SELECT SUM(d + LENGTH(c) * 0) FROM t")?;
    assert_eq!(now, now_whole);
    assert_ne!(now, covered);
    Ok(())
}

#[test]
fn explain_names_each_access_type() -> R<()> {
    let t = table(500)?;
    let mut s = t.session(50)?;
    let cases: [(&str, &str, &str, &str); 7] = [
        ("SELECT * FROM t WHERE id = 5", "const", "PRIMARY", "const"),
        ("SELECT * FROM t WHERE a = 5", "ref", "ab", "const"),
        (
            "SELECT * FROM t WHERE id BETWEEN 5 AND 9",
            "range",
            "PRIMARY",
            "NULL",
        ),
        (
            "SELECT * FROM t WHERE id IN (1, 5, 9)",
            "range",
            "PRIMARY",
            "NULL",
        ),
        ("SELECT d FROM t", "index", "d", "NULL"),
        ("SELECT * FROM t WHERE c = 'row 5'", "ALL", "NULL", "NULL"),
        ("SELECT * FROM t WHERE d + 1 = 5", "ALL", "NULL", "NULL"),
    ];
    for (sql, ty, key, reference) in cases {
        let line = explain(&mut s, sql)?;
        assert_eq!(field(&line, "type"), ty, "{sql}: {line:?}");
        assert_eq!(field(&line, "key"), key, "{sql}: {line:?}");
        assert_eq!(field(&line, "ref"), reference, "{sql}: {line:?}");
        assert_eq!(field(&line, "select_type"), "SIMPLE", "{sql}");
        assert_eq!(field(&line, "table"), "t", "{sql}");
    }
    let point = explain(&mut s, "SELECT * FROM t WHERE id = 5")?;
    assert_eq!(field(&point, "rows"), "1");
    assert_eq!(field(&point, "key_len"), "4");
    let range = explain(&mut s, "SELECT * FROM t WHERE id BETWEEN 5 AND 9")?;
    let n: u64 = field(&range, "rows").parse()?;
    assert!((3..=10).contains(&n), "estimate for 5 rows: {n}");
    assert_eq!(field(&range, "Extra"), "Using where");
    let all = explain(&mut s, "SELECT * FROM t WHERE c = 'row 5'")?;
    let n: u64 = field(&all, "rows").parse()?;
    assert!((250..=1000).contains(&n), "estimate for 500 rows: {n}");

    // A join: the inner table is looked up by its primary key.
    let (_, lines) = query(
        &mut s,
        "EXPLAIN SELECT x.id, y.c FROM t x JOIN t y ON y.id = x.d WHERE x.id < 10",
    )?;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0][2], "x");
    assert_eq!(lines[0][3], "range");
    assert_eq!(lines[1][2], "y");
    assert_eq!(lines[1][3], "eq_ref");
    assert_eq!(lines[1][7], "test.x.d");

    // No table; a derived table.
    let (_, lines) = query(&mut s, "EXPLAIN SELECT 1 + 1")?;
    assert_eq!(lines[0][9], "No tables used");
    let (_, lines) = query(&mut s, "EXPLAIN SELECT * FROM (SELECT d FROM t) AS x")?;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        (lines[0][1].as_str(), lines[0][2].as_str()),
        ("PRIMARY", "<derived2>")
    );
    assert_eq!(
        (lines[1][1].as_str(), lines[1][2].as_str()),
        ("DERIVED", "t")
    );
    // UNION: both blocks and the union result.
    let (_, lines) = query(&mut s, "EXPLAIN SELECT id FROM t UNION SELECT d FROM t")?;
    let kinds: Vec<&str> = lines.iter().map(|l| l[1].as_str()).collect();
    assert_eq!(kinds, ["PRIMARY", "UNION", "UNION RESULT"], "{lines:?}");
    assert_eq!(lines[2][2], "<union1,2>");
    // EXPLAIN reads no rows: a table it names stays unlocked and unread.
    let read = |s: &mut larch_sql::session::Session| -> R<u64> {
        Ok(rows(s, "SHOW GLOBAL STATUS LIKE 'Innodb_rows_read'")?[0][1].parse()?)
    };
    let before = read(&mut s)?;
    query(&mut s, "SELECT COUNT(*) FROM t")?;
    let counted = read(&mut s)?;
    assert!(
        counted >= before + 500,
        "a real read counts: {before} -> {counted}"
    );
    query(&mut s, "EXPLAIN SELECT COUNT(*) FROM t")?;
    query(&mut s, "EXPLAIN SELECT * FROM t WHERE a = 5")?;
    assert_eq!(read(&mut s)?, counted);
    Ok(())
}

#[test]
fn conjuncts_the_ranges_enforce_give_the_rows_a_scan_gives() -> R<()> {
    let t = table(2_000)?;
    let mut s = t.session(50)?;
    // (through a range, whose bounding conjuncts the filter may skip; the
    // same through a scan: `id + 0` and `d + 0` bound no index)
    let cases = [
        (
            "SELECT id, d FROM t WHERE id BETWEEN 100 AND 199",
            "SELECT id, d FROM t WHERE id + 0 BETWEEN 100 AND 199",
        ),
        (
            "SELECT id FROM t WHERE id > 100 AND id > 150 AND id <= 300",
            "SELECT id FROM t WHERE id + 0 > 100 AND id + 0 > 150 AND id + 0 <= 300",
        ),
        (
            "SELECT id, d FROM t WHERE id BETWEEN 100 AND 400 AND d < 500",
            "SELECT id, d FROM t WHERE id + 0 BETWEEN 100 AND 400 AND d < 500",
        ),
        (
            "SELECT id, d FROM t WHERE d BETWEEN 100 AND 200 AND id < 1500",
            "SELECT id, d FROM t WHERE d + 0 BETWEEN 100 AND 200 AND id + 0 < 1500",
        ),
        (
            "SELECT id FROM t WHERE id IN (5, 7, 1999, 4000)",
            "SELECT id FROM t WHERE id + 0 IN (5, 7, 1999, 4000)",
        ),
        (
            "SELECT id FROM t WHERE id >= -5 AND id < 20 AND (d > 10 OR a IS NULL)",
            "SELECT id FROM t WHERE id + 0 >= -5 AND id + 0 < 20 AND (d > 10 OR a IS NULL)",
        ),
        (
            "SELECT SUM(d), COUNT(*) FROM t WHERE id BETWEEN 10 AND 50",
            "SELECT SUM(d), COUNT(*) FROM t WHERE id + 0 BETWEEN 10 AND 50",
        ),
    ];
    for (ranged, scanned) in cases {
        let key = field(&explain(&mut s, ranged)?, "key").to_string();
        assert!(!key.is_empty(), "{ranged} reads an index range");
        let mut got = rows(&mut s, ranged)?;
        let mut want = rows(&mut s, scanned)?;
        got.sort();
        want.sort();
        assert!(!want.is_empty(), "{scanned} finds rows");
        assert_eq!(got, want, "{ranged}");
    }
    Ok(())
}

#[test]
fn explain_shows_with_elements_as_derived_tables() -> R<()> {
    let t = table(50)?;
    let mut s = t.session(50)?;
    let shape = |lines: &[Vec<String>]| -> Vec<String> {
        lines
            .iter()
            .map(|l| format!("{} {} {}", l[0], l[1], l[2]))
            .collect()
    };
    // Each reference of a non-recursive element is planned as a derived table.
    let (_, lines) = query(
        &mut s,
        "EXPLAIN WITH c AS (SELECT d, COUNT(*) AS n FROM t GROUP BY d) \
         SELECT * FROM c x, c y WHERE x.d = y.d",
    )?;
    assert_eq!(
        shape(&lines),
        [
            "1 PRIMARY <derived2>",
            "1 PRIMARY <derived3>",
            "2 DERIVED t",
            "3 DERIVED t"
        ]
    );
    // A recursive element: the anchor, the recursive part reading the
    // element, the union of both.
    let (_, lines) = query(
        &mut s,
        "EXPLAIN WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) \
         SELECT * FROM r",
    )?;
    assert_eq!(
        shape(&lines),
        [
            "1 PRIMARY <derived2>",
            "2 DERIVED NULL",
            "3 RECURSIVE UNION <derived2>",
            "NULL UNION RESULT <union2,3>"
        ]
    );
    assert_eq!(lines[1][9], "No tables used");
    assert_eq!(lines[2][9], "Using where");
    Ok(())
}

#[test]
fn explain_update_delete_and_insert_show_the_statements_access() -> R<()> {
    let t = table(50)?;
    let mut s = t.session(50)?;
    let line = |s: &mut larch_sql::session::Session, sql: &str| -> R<String> {
        let (_, lines) = query(s, &format!("EXPLAIN {sql}"))?;
        assert_eq!(lines.len(), 1, "{sql}: {lines:?}");
        Ok(lines[0]
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 8)
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join(" "))
    };
    // A point or a range through an index is a range read.
    assert_eq!(
        line(&mut s, "UPDATE t SET c = 'x' WHERE id = 5")?,
        "1 SIMPLE t range PRIMARY PRIMARY 4 NULL Using where"
    );
    // Changing the key read by: the rows are buffered first.
    assert_eq!(
        line(&mut s, "UPDATE t SET d = d + 1 WHERE d = 3")?,
        "1 SIMPLE t range d d 4 NULL Using where; Using buffer"
    );
    // No usable index: UPDATE reads the clustered index, DELETE the table.
    assert_eq!(
        line(&mut s, "UPDATE t SET c = 'x' WHERE c = 'row 5'")?,
        "1 SIMPLE t index NULL PRIMARY 4 NULL Using where"
    );
    assert_eq!(
        line(&mut s, "DELETE FROM t WHERE c = 'row 5'")?,
        "1 SIMPLE t ALL NULL NULL NULL NULL Using where"
    );
    assert_eq!(
        line(
            &mut s,
            "DELETE FROM t WHERE id BETWEEN 3 AND 7 ORDER BY d LIMIT 2"
        )?,
        "1 SIMPLE t range PRIMARY PRIMARY 4 NULL Using where; Using filesort"
    );
    assert_eq!(
        line(&mut s, "DELETE FROM t")?,
        "1 SIMPLE NULL NULL NULL NULL NULL NULL Deleting all rows"
    );
    // INSERT ... VALUES names its table; INSERT/REPLACE ... SELECT shows the SELECT.
    assert_eq!(
        line(&mut s, "INSERT INTO t (id, c, d) VALUES (1000, 'x', 1)")?,
        "1 INSERT t ALL NULL NULL NULL NULL NULL"
    );
    s.execute("CREATE TABLE u (id INT PRIMARY KEY, d INT)")?;
    assert_eq!(
        line(&mut s, "REPLACE INTO u SELECT id, d FROM t WHERE id = 7")?,
        "1 SIMPLE t const PRIMARY PRIMARY 4 const "
    );
    // Nothing was changed.
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "50");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM u")?, "0");
    Ok(())
}

/// GROUP BY integer columns an index is ordered by: the index brings the
/// rows group after group (EXPLAIN shows no temporary table and no sort, as
/// MariaDB's does), and every aggregate, NULL group, WHERE range, join and
/// ORDER BY ... LIMIT over the groups gives the rows that grouping by hash
/// (the same query with the index ignored) gives.
#[test]
fn group_by_an_index_groups_rows_as_they_come() -> R<()> {
    let t = table(3_000)?;
    let mut s = t.session(50)?;
    let line = explain(&mut s, "SELECT d, COUNT(*) FROM t GROUP BY d")?;
    assert_eq!(field(&line, "key"), "d");
    assert_eq!(field(&line, "Extra"), "Using index");
    let line = explain(&mut s, "SELECT a, COUNT(*) FROM t GROUP BY a")?;
    assert_eq!(field(&line, "key"), "ab");
    assert_eq!(field(&line, "Extra"), "Using index");
    // Sorting the groups by an aggregate still sorts.
    let line = explain(
        &mut s,
        "SELECT d, COUNT(*) FROM t GROUP BY d ORDER BY 2 DESC LIMIT 3",
    )?;
    assert!(field(&line, "Extra").contains("Using filesort"));
    let queries = [
        "SELECT d, COUNT(*), SUM(id), MIN(c), MAX(b) FROM t {hint} GROUP BY d",
        "SELECT a, COUNT(*), COUNT(b), AVG(id), GROUP_CONCAT(DISTINCT b ORDER BY b) \
         FROM t {hint} GROUP BY a",
        "SELECT a, b, COUNT(*) FROM t {hint} GROUP BY a, b",
        "SELECT d, COUNT(DISTINCT a) FROM t {hint} WHERE d BETWEEN 100 AND 300 GROUP BY d",
        "SELECT a, COUNT(*) FROM t {hint} WHERE a IS NULL OR a > 15 GROUP BY a HAVING COUNT(*) > 1",
        "SELECT d, COUNT(*) FROM t {hint} GROUP BY d ORDER BY COUNT(*) DESC LIMIT 7",
        "SELECT d, COUNT(*) FROM t {hint} GROUP BY d ORDER BY COUNT(*), d DESC LIMIT 5, 1200",
        "SELECT t.a, COUNT(*), SUM(u.d) FROM t {hint} JOIN t u ON u.id = t.id + 1 GROUP BY t.a",
        "SELECT t.a, COUNT(*), COUNT(u.id) FROM t {hint} RIGHT JOIN t u \
         ON u.id = t.id + 1 AND u.d < 500 GROUP BY t.a",
        "SELECT t.d, COUNT(u.id) FROM t {hint} LEFT JOIN t u ON u.a = t.d GROUP BY t.d",
    ];
    for q in queries {
        let by_index = rows(&mut s, &q.replace("{hint}", ""))?;
        let by_hash = rows(&mut s, &q.replace("{hint}", "IGNORE INDEX (ab, d)"))?;
        assert!(!by_index.is_empty(), "{q}");
        assert_eq!(by_index, by_hash, "{q}");
    }
    Ok(())
}
