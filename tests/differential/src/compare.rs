//! Comparing the two servers' answers to one statement.
//!
//! Rules (README.md has the rationale):
//! - an error on one side and success on the other is always a mismatch;
//!   when both fail, the error codes must be equal (messages are not
//!   compared);
//! - result sets: same column count, names, type codes, UNSIGNED flag and
//!   binary-vs-text character set; rows as multisets, and where the query's
//!   ORDER BY fixes an order, the sequence of the ORDER BY key columns too
//!   (keys compared as the collation would: case, trailing spaces and the
//!   accents the data uses folded, so ties may come in either order);
//! - where a GROUP BY, DISTINCT, set operation or MIN/MAX may show either
//!   of two values equal under a case-insensitive collation, values are
//!   compared folded;
//! - FLOAT/DOUBLE values equal within a relative 1e-12 (summation order);
//! - OK packets: affected rows and insert id;
//! - warnings: the set of distinct (level, code) pairs (how many times a
//!   warning is raised depends on evaluation order, which the optimizer
//!   may choose), for statements that read at most one table (with more,
//!   the join order and access paths decide which rows an expression is
//!   evaluated on; `runner::compare_stmt`).

use crate::exec::{show_row, Answer, Cell, Column, Outcome, Row, Warning};

/// How the rows of a result are ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// No ORDER BY: rows compared as multisets.
    Unordered,
    /// ORDER BY on these result columns: multiset plus key sequence.
    Keys(Vec<usize>),
    /// ORDER BY every column with a LIMIT: only the sequence of rows with
    /// keys folded (ties at the limit may pick different rows).
    Limited,
}

/// A difference between the two answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// A short stable label used to group and count mismatches.
    pub category: String,
    /// What exactly differs.
    pub detail: String,
}

fn mm(category: impl Into<String>, detail: impl Into<String>) -> Option<Mismatch> {
    Some(Mismatch {
        category: category.into(),
        detail: detail.into(),
    })
}

/// The MySQL type name of a protocol type code.
pub fn type_name(code: u8) -> &'static str {
    match code {
        0 => "DECIMAL",
        1 => "TINY",
        2 => "SHORT",
        3 => "LONG",
        4 => "FLOAT",
        5 => "DOUBLE",
        6 => "NULL",
        7 => "TIMESTAMP",
        8 => "LONGLONG",
        9 => "INT24",
        10 => "DATE",
        11 => "TIME",
        12 => "DATETIME",
        13 => "YEAR",
        15 => "VARCHAR",
        16 => "BIT",
        245 => "JSON",
        246 => "NEWDECIMAL",
        247 => "ENUM",
        248 => "SET",
        249 => "TINY_BLOB",
        250 => "MEDIUM_BLOB",
        251 => "LONG_BLOB",
        252 => "BLOB",
        253 => "VAR_STRING",
        254 => "STRING",
        255 => "GEOMETRY",
        _ => "?",
    }
}

/// Compares a statement's answers (MariaDB first). With `fold`, values are
/// compared folded (see `fold`): for statements where a server may show
/// any one of several values that are equal under the collation (GROUP
/// BY, DISTINCT, set operations, MIN/MAX).
pub fn answers(m: &Answer, l: &Answer, order: &Order, fold: bool) -> Option<Mismatch> {
    match (&m.outcome, &l.outcome) {
        (_, Outcome::Lost(e)) => mm("Larch connection lost (crash or hang)", e.clone()),
        (Outcome::Lost(e), _) => mm("MariaDB connection lost", e.clone()),
        (
            Outcome::Error {
                code: a,
                message: ma,
            },
            Outcome::Error {
                code: b,
                message: mb,
            },
        ) => {
            if a == b {
                None
            } else {
                mm(
                    format!("error code differs: MariaDB {a}, Larch {b}"),
                    format!("MariaDB: {a} {ma}\nLarch: {b} {mb}"),
                )
            }
        }
        (Outcome::Error { code, message }, _) => mm(
            format!(
                "MariaDB fails with {code}{}, Larch succeeds",
                error_key(*code, message)
            ),
            format!("MariaDB: {code} {message}"),
        ),
        (_, Outcome::Error { code, message }) => mm(
            format!(
                "Larch fails with {code}{}, MariaDB succeeds",
                error_key(*code, message)
            ),
            format!("Larch: {code} {message}"),
        ),
        (Outcome::Ok { .. }, Outcome::Rows { .. }) | (Outcome::Rows { .. }, Outcome::Ok { .. }) => {
            mm("result set on one side only", "")
        }
        (
            Outcome::Ok {
                affected: a,
                insert_id: ia,
            },
            Outcome::Ok {
                affected: b,
                insert_id: ib,
            },
        ) => {
            if a != b {
                mm("affected rows", format!("MariaDB {a}, Larch {b}"))
            } else if ia != ib {
                mm("OK packet insert id", format!("MariaDB {ia}, Larch {ib}"))
            } else {
                None
            }
        }
        (
            Outcome::Rows {
                columns: ca,
                rows: ra,
            },
            Outcome::Rows {
                columns: cb,
                rows: rb,
            },
        ) => {
            // Values before metadata: a wrong value matters more than a
            // wrong type code, and must not hide behind one.
            if ca.len() != cb.len() {
                return mm(
                    "column count",
                    format!("MariaDB {}, Larch {}", ca.len(), cb.len()),
                );
            }
            let values = if fold {
                let f = |rs: &[Row]| -> Vec<Row> {
                    rs.iter()
                        .map(|r| r.iter().map(self::fold).collect())
                        .collect()
                };
                rows(ca, &f(ra), &f(rb), order).map(|mut m| {
                    m.detail = format!("(values compared case- and accent-folded)\n{}", m.detail);
                    m
                })
            } else {
                rows(ca, ra, rb, order)
            };
            values.or_else(|| columns(ca, cb))
        }
    }
}

/// A short key for errors whose code alone covers many unrelated causes:
/// the missing function (1305), the unsupported construct (1235), the
/// internal error's message with numbers elided (1105).
fn error_key(code: u16, message: &str) -> String {
    match code {
        1105 => {
            let mut key = String::new();
            for c in message.chars().take(60) {
                if c.is_ascii_digit() {
                    if !key.ends_with('N') {
                        key.push('N');
                    }
                } else {
                    key.push(c);
                }
            }
            format!(" ({key})")
        }
        1305 => {
            // "FUNCTION db.NAME does not exist"
            let name = message.split_whitespace().nth(1).unwrap_or("");
            format!(" ({})", name.rsplit('.').next().unwrap_or(name))
        }
        1235 => {
            // "This version of MariaDB doesn't yet support 'WHAT'"
            let what = message
                .split_once("support '")
                .map_or(message, |(_, w)| w.trim_end_matches('\''));
            let u = what.to_ascii_uppercase();
            if ["ANY(", "ALL(", "SOME("].iter().any(|k| u.contains(k)) {
                " (ANY/ALL/SOME subquery)".to_owned()
            } else {
                format!(" ({})", what.chars().take(40).collect::<String>())
            }
        }
        _ => String::new(),
    }
}

fn columns(a: &[Column], b: &[Column]) -> Option<Mismatch> {
    if a.len() != b.len() {
        return mm(
            "column count",
            format!("MariaDB {}, Larch {}", a.len(), b.len()),
        );
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.name != y.name {
            return mm(
                "column name",
                format!("column {i}: MariaDB `{}`, Larch `{}`", x.name, y.name),
            );
        }
        if x.type_code != y.type_code {
            return mm(
                format!(
                    "column type: MariaDB {}, Larch {}",
                    type_name(x.type_code),
                    type_name(y.type_code)
                ),
                format!("column {i} `{}`", x.name),
            );
        }
        if x.unsigned != y.unsigned {
            return mm(
                "column UNSIGNED flag",
                format!(
                    "column {i} `{}` ({}): MariaDB unsigned={}, Larch unsigned={}",
                    x.name,
                    type_name(x.type_code),
                    x.unsigned,
                    y.unsigned
                ),
            );
        }
        if x.binary != y.binary {
            return mm(
                "column binary charset",
                format!(
                    "column {i} `{}` ({}): MariaDB binary={}, Larch binary={}",
                    x.name,
                    type_name(x.type_code),
                    x.binary,
                    y.binary
                ),
            );
        }
    }
    None
}

fn is_float(c: &Column) -> bool {
    c.type_code == 4 || c.type_code == 5
}

fn cell_eq(c: &Column, a: &Cell, b: &Cell) -> bool {
    if a == b {
        return true;
    }
    if !is_float(c) {
        return false;
    }
    let parse = |x: &Cell| -> Option<f64> { std::str::from_utf8(x.as_ref()?).ok()?.parse().ok() };
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
        _ => false,
    }
}

fn row_eq(cols: &[Column], a: &Row, b: &Row) -> bool {
    a.len() == b.len()
        && cols
            .iter()
            .zip(a.iter().zip(b))
            .all(|(c, (x, y))| cell_eq(c, x, y))
}

/// A value folded the way the case-insensitive collations compare: lower
/// case, accents of the generated data removed, trailing spaces dropped.
fn fold(c: &Cell) -> Cell {
    let b = c.as_ref()?;
    let Ok(s) = std::str::from_utf8(b) else {
        return Some(b.clone());
    };
    let s: String = s
        .to_lowercase()
        .chars()
        .map(|ch| match ch {
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'å' | 'ä' | 'à' | 'á' => 'a',
            'ö' | 'ó' => 'o',
            'ü' | 'ú' => 'u',
            _ => ch,
        })
        .collect();
    Some(s.trim_end_matches(' ').as_bytes().to_vec())
}

fn describe_rows(rows: &[Row]) -> String {
    const MAX: usize = 20;
    let mut s: Vec<String> = rows.iter().take(MAX).map(show_row).collect();
    if rows.len() > MAX {
        s.push(format!("... {} rows in all", rows.len()));
    }
    s.join("\n")
}

fn rows(cols: &[Column], a: &[Row], b: &[Row], order: &Order) -> Option<Mismatch> {
    let both = || {
        format!(
            "MariaDB:\n{}\nLarch:\n{}",
            describe_rows(a),
            describe_rows(b)
        )
    };
    if a.len() != b.len() {
        return mm("row count", both());
    }
    if *order == Order::Limited {
        let fa: Vec<Row> = a.iter().map(|r| r.iter().map(fold).collect()).collect();
        let fb: Vec<Row> = b.iter().map(|r| r.iter().map(fold).collect()).collect();
        return if fa.iter().zip(&fb).all(|(x, y)| row_eq(cols, x, y)) {
            None
        } else {
            mm(
                values_category(cols, &fa, &fb, "rows differ (ORDER BY ... LIMIT)"),
                both(),
            )
        };
    }
    let mut sa = a.to_vec();
    let mut sb = b.to_vec();
    sa.sort();
    sb.sort();
    if !sa.iter().zip(&sb).all(|(x, y)| row_eq(cols, x, y)) {
        return mm(values_category(cols, &sa, &sb, "values differ"), both());
    }
    if let Order::Keys(keys) = order {
        let key = |r: &Row| -> Row {
            keys.iter()
                .map(|&k| r.get(k).cloned().flatten())
                .map(|c| fold(&c))
                .collect()
        };
        let kcols: Vec<Column> = keys.iter().filter_map(|&k| cols.get(k).cloned()).collect();
        if !a
            .iter()
            .zip(b)
            .all(|(x, y)| row_eq(&kcols, &key(x), &key(y)))
        {
            return mm("row order", both());
        }
    }
    None
}

/// "values differ (TYPE column)" naming the type of the first column that
/// differs between two aligned row lists.
fn values_category(cols: &[Column], a: &[Row], b: &[Row], what: &str) -> String {
    for (x, y) in a.iter().zip(b) {
        for (i, c) in cols.iter().enumerate() {
            if let (Some(p), Some(q)) = (x.get(i), y.get(i)) {
                if !cell_eq(c, p, q) {
                    return format!("{what} ({} column)", type_name(c.type_code));
                }
            }
        }
    }
    what.to_owned()
}

/// Compares `SHOW WARNINGS` as sets of (level, code).
pub fn warnings(m: &[Warning], l: &[Warning]) -> Option<Mismatch> {
    let set = |w: &[Warning]| {
        let mut v: Vec<(String, u16)> = w.iter().map(|w| (w.level.clone(), w.code)).collect();
        v.sort();
        v.dedup();
        v
    };
    let (a, b) = (set(m), set(l));
    if a == b {
        return None;
    }
    let show = |w: &[Warning]| {
        let v: Vec<String> = w
            .iter()
            .take(10)
            .map(|w| format!("{} {} {}", w.level, w.code, w.message))
            .collect();
        v.join("\n")
    };
    let codes = |v: &[(String, u16)]| {
        let s: Vec<String> = v.iter().map(|(l, c)| format!("{l} {c}")).collect();
        if s.is_empty() {
            "none".to_owned()
        } else {
            s.join(",")
        }
    };
    mm(
        format!("warnings: MariaDB {}, Larch {}", codes(&a), codes(&b)),
        format!("MariaDB:\n{}\nLarch:\n{}", show(m), show(l)),
    )
}

/// Compares a table's contents read back in primary-key order; `types`
/// names the columns' SQL types, or `AUTO_INCREMENT` (for the category:
/// which kind of column differs).
pub fn table_state(table: &str, types: &[String], m: &[Row], l: &[Row]) -> Option<Mismatch> {
    if m.len() == l.len() && m.iter().zip(l).all(|(x, y)| x == y) {
        return None;
    }
    let what = if m.len() != l.len() {
        "row count differs".to_owned()
    } else {
        let col = m
            .iter()
            .zip(l)
            .find_map(|(x, y)| (0..x.len()).find(|&i| x.get(i) != y.get(i)))
            .unwrap_or(0);
        let ty = types.get(col).map_or("?", String::as_str);
        if ty == "AUTO_INCREMENT" {
            "the AUTO_INCREMENT column differs".to_owned()
        } else {
            // The type without lengths, collations or UNSIGNED.
            let base: String = ty.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            format!("a {base} column differs")
        }
    };
    mm(
        format!("table contents after the statement ({what})"),
        format!(
            "table {table}\nMariaDB:\n{}\nLarch:\n{}",
            describe_rows(m),
            describe_rows(l)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, code: u8) -> Column {
        Column {
            name: name.into(),
            type_code: code,
            unsigned: false,
            binary: false,
        }
    }

    fn rows_answer(rows: &[&[&str]]) -> Answer {
        Answer {
            outcome: Outcome::Rows {
                columns: vec![col("c0", 253), col("c1", 3)],
                rows: rows
                    .iter()
                    .map(|r| r.iter().map(|c| Some(c.as_bytes().to_vec())).collect())
                    .collect(),
            },
            warnings: 0,
        }
    }

    #[test]
    fn unordered_results_are_multisets() {
        let a = rows_answer(&[&["a", "1"], &["b", "2"]]);
        let b = rows_answer(&[&["b", "2"], &["a", "1"]]);
        assert_eq!(answers(&a, &b, &Order::Unordered, false), None);
        let c = rows_answer(&[&["b", "2"], &["b", "2"]]);
        assert!(answers(&a, &c, &Order::Unordered, false).is_some());
    }

    #[test]
    fn order_keys_allow_ties_but_not_reordering() {
        let a = rows_answer(&[&["a", "1"], &["A", "2"], &["b", "3"]]);
        let tie = rows_answer(&[&["A", "2"], &["a", "1"], &["b", "3"]]);
        assert_eq!(answers(&a, &tie, &Order::Keys(vec![0]), false), None);
        let wrong = rows_answer(&[&["b", "3"], &["a", "1"], &["A", "2"]]);
        let m = answers(&a, &wrong, &Order::Keys(vec![0]), false);
        assert_eq!(m.map(|m| m.category), Some("row order".to_owned()));
    }

    #[test]
    fn folding_accepts_case_variants_only_when_asked() {
        let a = rows_answer(&[&["a", "1"]]);
        let b = rows_answer(&[&["A", "1"]]);
        assert!(answers(&a, &b, &Order::Unordered, false).is_some());
        assert_eq!(answers(&a, &b, &Order::Unordered, true), None);
        assert_eq!(answers(&a, &b, &Order::Limited, false), None);
    }

    #[test]
    fn errors_compare_by_code() {
        let e = |code| Answer {
            outcome: Outcome::Error {
                code,
                message: "FUNCTION test.ROW_NUMBER does not exist".into(),
            },
            warnings: 0,
        };
        assert_eq!(answers(&e(1064), &e(1064), &Order::Unordered, false), None);
        assert!(answers(&e(1064), &e(1054), &Order::Unordered, false).is_some());
        let ok = Answer {
            outcome: Outcome::Ok {
                affected: 0,
                insert_id: 0,
            },
            warnings: 0,
        };
        let m = answers(&ok, &e(1305), &Order::Unordered, false).map(|m| m.category);
        assert_eq!(
            m,
            Some("Larch fails with 1305 (ROW_NUMBER), MariaDB succeeds".to_owned())
        );
    }

    #[test]
    fn values_are_compared_before_metadata() {
        let a = rows_answer(&[&["a", "1"]]);
        let mut b = rows_answer(&[&["a", "2"]]);
        if let Outcome::Rows { columns, .. } = &mut b.outcome {
            columns[1].type_code = 8;
        }
        let m = answers(&a, &b, &Order::Unordered, false).map(|m| m.category);
        assert_eq!(m, Some("values differ (LONG column)".to_owned()));
    }

    #[test]
    fn warnings_compare_as_sets() {
        let w = |code| Warning {
            level: "Warning".into(),
            code,
            message: String::new(),
        };
        assert_eq!(warnings(&[w(1292), w(1292)], &[w(1292)]), None);
        assert!(warnings(&[w(1292)], &[]).is_some());
    }
}
