//! Table and index statistics in SQL metadata: TABLE_ROWS, DATA_LENGTH,
//! INDEX_LENGTH and AVG_ROW_LENGTH in INFORMATION_SCHEMA.TABLES and SHOW
//! TABLE STATUS follow the table's contents, and SHOW INDEX /
//! INFORMATION_SCHEMA.STATISTICS give each key prefix's distinct values.

mod support;

use support::{one, rows, TestDb, R};

fn num(s: &str) -> R<u64> {
    Ok(s.parse::<u64>()?)
}

#[test]
fn sizes_and_row_estimates_follow_the_contents() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, pad VARCHAR(200), KEY k (k))",
        "CREATE TABLE empty_t (id INT PRIMARY KEY)",
    ])?;
    let mut s = t.session(50)?;
    let sizes = |s: &mut _, table: &str| -> R<Vec<u64>> {
        let r = rows(
            s,
            &format!(
                "SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, AVG_ROW_LENGTH \
                 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test' \
                 AND TABLE_NAME = '{table}'"
            ),
        )?;
        let row = r.first().ok_or("no row")?;
        row.iter().map(|v| num(v)).collect()
    };
    let page = num(&one(&mut s, "SELECT @@innodb_page_size")?)?;
    assert_eq!(sizes(&mut s, "empty_t")?, vec![0, page, 0, 0]);

    // 5,000 rows of about 220 bytes: about 1.1 MB of leaves.
    s.execute("BEGIN")?;
    for chunk in 0..50 {
        let values: Vec<String> = (0..100)
            .map(|i| {
                let id = chunk * 100 + i;
                format!("({id}, {}, REPEAT('x', 200))", id % 50)
            })
            .collect();
        s.execute(&format!("INSERT INTO t VALUES {}", values.join(",")))?;
    }
    s.execute("COMMIT")?;
    let v = sizes(&mut s, "t")?;
    let (rows_est, data, index, avg) = (v[0], v[1], v[2], v[3]);
    assert!(
        (2_500..=10_000).contains(&rows_est),
        "TABLE_ROWS {rows_est} for 5,000 rows"
    );
    assert!(data >= 1_000_000, "DATA_LENGTH {data}");
    assert!(data % page == 0 && index % page == 0);
    assert!(index >= page && index < data, "INDEX_LENGTH {index}");
    assert_eq!(avg, data / rows_est);

    // SHOW TABLE STATUS shows the same figures.
    let status = rows(&mut s, "SHOW TABLE STATUS LIKE 't'")?;
    let row = status.first().ok_or("no status row")?;
    assert_eq!(num(&row[4])?, rows_est, "Rows");
    assert_eq!(num(&row[6])?, data, "Data_length");
    assert_eq!(num(&row[8])?, index, "Index_length");
    Ok(())
}

#[test]
fn index_cardinality_counts_distinct_prefixes() -> R<()> {
    let t = TestDb::new(
        &["CREATE TABLE c (id INT PRIMARY KEY, a INT, b INT, u INT, \
         KEY ab (a, b), UNIQUE KEY u (u))"],
    )?;
    let mut s = t.session(50)?;
    let values: Vec<String> = (0..300)
        .map(|i| format!("({i}, {}, {}, {i})", i % 7, i % 30))
        .collect();
    s.execute(&format!("INSERT INTO c VALUES {}", values.join(",")))?;
    let show = rows(&mut s, "SHOW INDEX FROM c")?;
    let card: Vec<(String, String, String)> = show
        .iter()
        .map(|r| (r[2].clone(), r[4].clone(), r[6].clone()))
        .collect();
    // A small table is read whole: the counts are exact. (a, b) has
    // lcm(7, 30) = 210 distinct pairs; unique keys are listed first.
    let expected = [
        ("PRIMARY", "id", "300"),
        ("u", "u", "300"),
        ("ab", "a", "7"),
        ("ab", "b", "210"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(card, expected);
    // Index names sort case-insensitively: ab, PRIMARY, u.
    let stats = rows(
        &mut s,
        "SELECT INDEX_NAME, SEQ_IN_INDEX, CARDINALITY FROM information_schema.STATISTICS \
         WHERE TABLE_NAME = 'c' ORDER BY INDEX_NAME, SEQ_IN_INDEX",
    )?;
    assert_eq!(
        stats,
        vec![
            vec!["ab".to_string(), "1".into(), "7".into()],
            vec!["ab".into(), "2".into(), "210".into()],
            vec!["PRIMARY".into(), "1".into(), "300".into()],
            vec!["u".into(), "1".into(), "300".into()],
        ]
    );
    // Deleted rows leave the counts once purged or delete-marked.
    s.execute("DELETE FROM c WHERE a = 0")?;
    let after = one(
        &mut s,
        "SELECT CARDINALITY FROM information_schema.STATISTICS \
         WHERE TABLE_NAME = 'c' AND INDEX_NAME = 'ab' AND SEQ_IN_INDEX = 1",
    )?;
    assert_eq!(after, "6");
    Ok(())
}
