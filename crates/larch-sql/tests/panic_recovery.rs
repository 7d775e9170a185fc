//! A statement that panics fails alone: the panic is the statement's error
//! (1105), its changes are rolled back as a failed statement's are, and
//! what its nested parts changed in the session (describing without reading
//! rows, an EXPLAIN being collected, a routine's account and database) is
//! put back as it was. The next statement on the same session and the same
//! thread gets its whole answer, with the session's own privileges.
//!
//! The panics are injected (`larch_sql::fault_injection`, a feature on for
//! this crate's tests only).

mod support;

use larch_sql::fault_injection::{panic_at, FaultPoint};
use support::{error, results, rows, TestDb, R};

fn table() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (a INT PRIMARY KEY, b INT)",
        "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
    ])
}

const ALL: [[&str; 2]; 3] = [["1", "10"], ["2", "20"], ["3", "30"]];

#[test]
fn a_panic_while_a_statement_is_prepared_leaves_the_next_select_whole() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    panic_at(FaultPoint::SelectBlockPlanned, 1);
    let code = s
        .prepare(1, b"SELECT a, b FROM t")
        .map_err(|e| e.code())
        .err();
    assert_eq!(
        code,
        Some(1105),
        "the injected panic fires while the query is described"
    );
    assert_eq!(rows(&mut s, "SELECT a, b FROM t ORDER BY a")?, ALL);
    // Preparing again works and describes the columns.
    let description = s.prepare(2, b"SELECT a, b FROM t WHERE a > ?")?;
    assert_eq!(description.columns.len(), 2);
    // Another session on this thread is not affected either.
    let mut other = t.session(5)?;
    assert_eq!(rows(&mut other, "SELECT a, b FROM t ORDER BY a")?, ALL);
    Ok(())
}

#[test]
fn a_panic_in_explain_is_its_error_and_the_next_statements_are_whole() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    panic_at(FaultPoint::SelectBlockPlanned, 1);
    let (code, message) = error(&mut s, "EXPLAIN SELECT a FROM t WHERE b > 10")?;
    assert_eq!(code, 1105, "{message}");
    assert!(message.contains("injected panic"), "{message}");
    // A SELECT reads rows (nothing is being explained any more) and may
    // keep its plan for the next run.
    for _ in 0..2 {
        assert_eq!(rows(&mut s, "SELECT a, b FROM t ORDER BY a")?, ALL);
    }
    // The next EXPLAIN numbers its blocks from 1 again.
    let explained = rows(&mut s, "EXPLAIN SELECT a FROM t WHERE b > 10")?;
    assert_eq!(explained.len(), 1, "{explained:?}");
    assert_eq!(explained[0][0], "1", "{explained:?}");
    assert_eq!(explained[0][2], "t", "{explained:?}");
    Ok(())
}

#[test]
fn a_panic_while_a_with_element_is_checked_leaves_the_next_select_whole() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    // The element no one reads is checked by describing it; the outer block
    // is planned first, so the second block planned is the element's.
    assert_eq!(
        rows(&mut s, "WITH u AS (SELECT a FROM t) SELECT 7")?,
        [["7"]]
    );
    panic_at(FaultPoint::SelectBlockPlanned, 2);
    let (code, _) = error(&mut s, "WITH u AS (SELECT a FROM t) SELECT a, b FROM t")?;
    assert_eq!(code, 1105);
    assert_eq!(rows(&mut s, "SELECT a, b FROM t ORDER BY a")?, ALL);
    assert_eq!(
        rows(
            &mut s,
            "WITH u AS (SELECT a, b FROM t) SELECT * FROM u ORDER BY a"
        )?,
        ALL
    );
    Ok(())
}

#[test]
fn a_panic_inside_a_definer_routine_gives_the_caller_its_own_account_back() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE secret (v INT)",
        "INSERT INTO secret VALUES (42)",
        "CREATE USER low@localhost",
        "GRANT EXECUTE ON test.* TO low@localhost",
        // Runs as root (its definer): reads what `low` may not.
        "CREATE PROCEDURE peek() SELECT v FROM secret",
    ])?;
    let mut low = t.db.new_session(0, "low", "localhost")?;
    low.use_database("test")?;
    assert_eq!(error(&mut low, "SELECT v FROM secret")?.0, 1142);
    assert_eq!(results(&mut low, "CALL peek()")?, ["42", "OK"]);
    // The routine's SELECT panics while it runs as root.
    panic_at(FaultPoint::SelectBlockPlanned, 1);
    assert_eq!(error(&mut low, "CALL peek()")?.0, 1105);
    assert_eq!(
        rows(&mut low, "SELECT CURRENT_USER(), DATABASE()")?,
        [["low@localhost", "test"]]
    );
    assert_eq!(error(&mut low, "SELECT v FROM secret")?.0, 1142);
    Ok(())
}

#[test]
fn a_panic_in_a_statement_rolls_back_that_statement_alone() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a INT PRIMARY KEY, b INT)",
        "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
        "CREATE TABLE log (n INT)",
        // Each row inserted into t plans one SELECT block.
        "CREATE TRIGGER count_rows AFTER INSERT ON t FOR EACH ROW \
         INSERT INTO log SELECT COUNT(*) FROM t",
    ])?;
    let mut s = t.session(5)?;
    // In a transaction: the statement's rows go, the earlier ones stay.
    s.execute("BEGIN")?;
    s.execute("INSERT INTO t VALUES (4, 40)")?;
    // The third row's trigger panics, after two rows (and two log rows).
    panic_at(FaultPoint::SelectBlockPlanned, 3);
    let (code, _) = error(&mut s, "INSERT INTO t VALUES (5, 50), (6, 60), (7, 70)")?;
    assert_eq!(code, 1105);
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), MAX(a) FROM t")?,
        [["4", "4"]]
    );
    assert_eq!(rows(&mut s, "SELECT n FROM log")?, [["4"]]);
    s.execute("COMMIT")?;
    // With autocommit: nothing of the statement stays, and the next
    // statements run in transactions of their own.
    panic_at(FaultPoint::SelectBlockPlanned, 2);
    assert_eq!(
        error(&mut s, "INSERT INTO t VALUES (8, 80), (9, 90)")?.0,
        1105
    );
    let mut other = t.session(5)?;
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*), MAX(a) FROM t")?,
        [["4", "4"]]
    );
    s.execute("INSERT INTO t VALUES (10, 100)")?;
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*), MAX(a) FROM t")?,
        [["5", "10"]]
    );
    assert_eq!(rows(&mut other, "SELECT COUNT(*) FROM log")?, [["2"]]);
    Ok(())
}

#[test]
fn a_panic_in_an_online_index_build_undoes_the_build_and_lets_the_table_go() -> R<()> {
    let t = table()?;
    let mut s = t.session(5)?;
    let before = support::show_create(&mut s, "t")?;
    // The build has run while other sessions may use the table; the panic
    // comes before the table is taken back.
    panic_at(FaultPoint::IndexChangeBuilt, 1);
    let (code, message) = error(&mut s, "ALTER TABLE t ADD INDEX by_b (b), LOCK=NONE")?;
    assert_eq!(code, 1105, "{message}");
    assert!(message.contains("injected panic"), "{message}");
    assert_eq!(support::show_create(&mut s, "t")?, before);
    // Nobody holds the table: another session changes it at once, and the
    // same index can be built again (its name and trees are free).
    let mut other = t.session(1)?;
    other.execute("SET SESSION lock_wait_timeout = 2")?;
    other.execute("ALTER TABLE t ADD INDEX by_b (b), LOCK=NONE")?;
    assert!(support::show_create(&mut other, "t")?.contains("KEY `by_b` (`b`)"));
    assert_eq!(
        rows(&mut s, "CHECK TABLE t")?,
        [["test.t", "check", "status", "OK"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT a, b FROM t FORCE INDEX (by_b) ORDER BY b")?,
        ALL
    );
    Ok(())
}
