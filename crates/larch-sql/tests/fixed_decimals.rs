//! FLOAT(M,D) and DOUBLE(M,D): values rounded to D decimals and bounded by
//! M digits when stored, shown with D decimals, compared within them; the
//! fixed decimals of expressions over them (arithmetic, ROUND, IFNULL,
//! aggregates, window functions, UNION, CAST AS DOUBLE(M,D)); ZEROFILL.
//! Every expected answer is MariaDB 10.11's for the same statements.

mod support;

use support::{code, error, one, rows, show_create, warning_codes, TestDb, R};

/// A stored value is rounded to D decimals (half to even on the scaled
/// fraction, as MariaDB's `truncate_double`) and held within
/// ±(10^(M-D) - 10^-D): beyond is 1264 in strict mode, the bound with a
/// warning otherwise. An UNSIGNED or ZEROFILL column refuses negatives.
#[test]
fn stored_values_are_rounded_and_bounded() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, f FLOAT(5,2), d DOUBLE(10,3), \
         u DOUBLE(6,1) UNSIGNED, z FLOAT(7,3) ZEROFILL)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        error(&mut s, "INSERT INTO t VALUES (1, 1234.5, 1, 1, 1)")?,
        (
            1264,
            "Out of range value for column 'f' at row 1".to_owned()
        )
    );
    s.execute("INSERT INTO t VALUES (2, -999.994, -1234567.1235, 12345.66, 1.5)")?;
    // 999.995 rounds to 1000.00, beyond the bound.
    assert_eq!(
        code(
            &mut s,
            "INSERT INTO t VALUES (3, 999.995, 0.0005, 0.05, -1)"
        ),
        1264
    );
    s.execute("INSERT INTO t VALUES (4, '12.345', '1e3', '0.25', '2.0005')")?;
    s.execute("INSERT INTO t VALUES (5, 2.675, 2.0015, 0.15, 0.0015)")?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id")?,
        vec![
            vec!["2", "-999.99", "-1234567.123", "12345.7", "001.500"],
            vec!["4", "12.35", "1000.000", "0.2", "002.001"],
            vec!["5", "2.67", "2.002", "0.2", "000.002"],
        ]
    );
    s.execute("SET sql_mode = ''")?;
    s.execute("INSERT INTO t VALUES (6, 1234.5, 1e10, -5, 123456)")?;
    assert_eq!(warning_codes(&mut s)?, vec!["1264"; 4]);
    assert_eq!(
        rows(&mut s, "SELECT * FROM t WHERE id = 6")?,
        vec![vec!["6", "999.99", "9999999.999", "0.0", "9999.999"]]
    );
    s.execute("UPDATE t SET d = d / 3 WHERE id = 4")?;
    assert_eq!(one(&mut s, "SELECT d FROM t WHERE id = 4")?, "333.333");
    assert_eq!(
        rows(&mut s, "SELECT SUM(d), SUM(f) FROM t")?,
        vec![vec!["8765768.211", "15.02"]]
    );
    // Beyond 17 significant digits a DOUBLE shows zeros.
    s.execute("CREATE TABLE w (f FLOAT(20,10), d DOUBLE(30,25))")?;
    s.execute("INSERT INTO w VALUES (1.123456789012, 3.1415926535897932384626)")?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM w")?,
        vec![vec!["1.1234568357", "3.1415926535897930000000000"]]
    );
    Ok(())
}

/// ZEROFILL pads with zeros to the display width, or to the type's own
/// width without one.
#[test]
fn zerofill_pads_to_the_width() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE z (i INT(5) ZEROFILL, b BIGINT ZEROFILL, d DECIMAL(6,2) ZEROFILL, \
         f FLOAT(7,3) ZEROFILL, g DOUBLE ZEROFILL)",
        "INSERT INTO z VALUES (42, 7, 3.5, 1.5, 2.5)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(&mut s, "SELECT * FROM z")?,
        vec![vec![
            "00042",
            "00000000000000000007",
            "0003.50",
            "001.500",
            "00000000000000000002.5"
        ]]
    );
    assert_eq!(
        rows(&mut s, "SELECT i + 0, i FROM z")?,
        vec![vec!["42", "00042"]]
    );
    Ok(())
}

/// Expressions keep MariaDB's decimals: the most of their operands' (an
/// integer has 0, a DECIMAL its scale), 4 more for a division, AVG and the
/// deviations; ROUND and TRUNCATE those they ask for; a plain DOUBLE, a
/// string or SQRT leave them free.
#[test]
fn expressions_keep_fixed_decimals() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (f FLOAT(5,2), d DOUBLE(10,3), p DOUBLE, i INT, m DECIMAL(8,4))",
        "INSERT INTO t VALUES (1.5, 2.25, 0.1, 3, 1.5)",
    ])?;
    let mut s = t.session(50)?;
    let cases = [
        (
            "SELECT f/2, d/3, f+d, -f, ABS(f), f*1.5e0, f*p, f+i, f*m, d-m, f/i FROM t",
            vec![
                "0.750000",
                "0.7500000",
                "3.750",
                "-1.50",
                "1.50",
                "2.25",
                "0.15000000000000002",
                "4.50",
                "2.2500",
                "0.7500",
                "0.500000",
            ],
        ),
        (
            "SELECT ROUND(f,1), ROUND(2.5e0,1), ROUND(p, 3), ROUND(f), ROUND(d, -1), \
             TRUNCATE(d, 1), TRUNCATE(p, 2), ROUND(p, i) FROM t",
            vec!["1.5", "2.5", "0.100", "2", "0", "2.2", "0.10", "0.1"],
        ),
        (
            "SELECT IFNULL(f,d), COALESCE(f,d,m), IF(i>0, f, d), \
             CASE WHEN i>0 THEN f ELSE m END, GREATEST(f,d), LEAST(f, i), NULLIF(f, 0) FROM t",
            vec![
                "1.500", "1.5000", "1.500", "1.5000", "2.250", "1.50", "1.50",
            ],
        ),
        (
            "SELECT f+'1', f+NULL, SQRT(f), POW(f,2), MOD(f, 1), f % 1 FROM t",
            vec!["2.5", "NULL", "1.224744871391589", "2.25", "0.50", "0.50"],
        ),
        (
            "SELECT SUM(f), AVG(f), MIN(d), MAX(f), STDDEV(i), VARIANCE(m), AVG(p), SUM(p), \
             STD(f) FROM t",
            vec![
                "1.50",
                "1.500000",
                "2.250",
                "1.50",
                "0.0000",
                "0.00000000",
                "0.1",
                "0.1",
                "0.000000",
            ],
        ),
        (
            "SELECT SUM(f) OVER (), AVG(d) OVER (), CUME_DIST() OVER (ORDER BY i), \
             PERCENT_RANK() OVER (ORDER BY i) FROM t",
            vec!["1.50", "2.2500000", "1.0000000000", "0.0000000000"],
        ),
        (
            "SELECT * FROM (SELECT f*2 x, ROUND(p,2) y FROM t) z",
            vec!["3.00", "0.10"],
        ),
    ];
    for (sql, want) in cases {
        assert_eq!(rows(&mut s, sql)?, vec![want], "{sql}");
    }
    // A UNION column has the most decimals of its branches, or none.
    let unions = [
        (
            "SELECT f FROM t UNION SELECT 1.23456",
            vec!["1.50000", "1.23456"],
        ),
        (
            "SELECT f FROM t UNION SELECT i FROM t",
            vec!["1.50", "3.00"],
        ),
        ("SELECT f FROM t UNION SELECT p FROM t", vec!["1.5", "0.1"]),
        (
            "SELECT d FROM t UNION ALL SELECT f FROM t",
            vec!["2.250", "1.500"],
        ),
        (
            "SELECT i FROM t UNION SELECT f FROM t",
            vec!["3.00", "1.50"],
        ),
    ];
    for (sql, want) in unions {
        let got: Vec<String> = rows(&mut s, sql)?.into_iter().flatten().collect();
        assert_eq!(got, want, "{sql}");
    }
    Ok(())
}

/// A comparison of a FLOAT or DOUBLE with fixed decimals is within them
/// (MariaDB's `compare_real_fixed`); CAST AS DOUBLE(M,D) rounds and bounds
/// (a note 1264 beyond); CREATE TABLE ... SELECT and ALTER keep (M,D).
#[test]
fn comparisons_casts_and_new_columns() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (f FLOAT(5,2), d DOUBLE(10,3), p DOUBLE, i INT)",
        "INSERT INTO t VALUES (1.5, 2.25, 0.1, 3)",
        "CREATE TABLE g (id INT PRIMARY KEY, price FLOAT(10,2))",
        "INSERT INTO g VALUES (1, 12.35), (2, 0.1), (3, 12.36)",
    ])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT f = 1.5, f = 1.504, f = 1.506, f < 1.504, f <=> 1.495, d = 2.2504, \
             d = 2.2506, f = i/2, f IN (1.5), f BETWEEN 1.504 AND 2 FROM t"
        )?,
        vec![vec!["1", "0", "0", "1", "0", "0", "0", "1", "1", "0"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM g WHERE price = 12.35 OR price = 0.1 ORDER BY id"
        )?,
        vec![vec!["1"], vec!["2"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CAST(12345.678 AS DOUBLE(5,2)), CAST(2.675 AS DOUBLE(5,2)), \
             CAST('1.005' AS DOUBLE(4,2)), CAST(-0.001 AS DOUBLE(4,2)), \
             CAST(NULL AS DOUBLE(4,1))"
        )?,
        vec![vec!["999.99", "2.67", "1.00", "0.00", "NULL"]]
    );
    assert_eq!(warning_codes(&mut s)?, vec!["1264"]);
    s.execute(
        "CREATE TABLE t9 AS SELECT CAST(1.5 AS DOUBLE(6,2)) c, ROUND(d, 1) r, f*2 x, f FROM t",
    )?;
    let create = show_create(&mut s, "t9")?;
    for part in [
        "`c` double(6,2) DEFAULT NULL",
        "`r` double(18,1) DEFAULT NULL",
        "`x` double(19,2) DEFAULT NULL",
        "`f` float(5,2) DEFAULT NULL",
    ] {
        assert!(create.contains(part), "{create}");
    }
    assert_eq!(
        rows(&mut s, "SELECT * FROM t9")?,
        vec![vec!["1.50", "2.2", "3.00", "1.50"]]
    );
    // ALTER to (M,D) rounds the rows it copies.
    s.execute("ALTER TABLE t MODIFY p DOUBLE(5,2)")?;
    assert_eq!(one(&mut s, "SELECT p FROM t")?, "0.10");
    s.execute("CREATE TABLE tf (f FLOAT)")?;
    s.execute("INSERT INTO tf VALUES (1.23456789)")?;
    s.execute("ALTER TABLE tf MODIFY f FLOAT(6,3)")?;
    assert_eq!(one(&mut s, "SELECT f FROM tf")?, "1.235");
    assert_eq!(one(&mut s, "SELECT f = 1.235 FROM tf")?, "1");
    Ok(())
}
