//! Session state and aggregates end to end in process, each result checked
//! against what MariaDB 10.11 gives for the same statements: GROUP_CONCAT
//! (separators, ORDER BY inside, DISTINCT, NULLs skipped, LIMIT, and
//! `group_concat_max_len` cutting with warning 1260, whose row number counts
//! the values written across the statement's groups); savepoints (1305 for
//! a released or dropped one, nested ones, ROLLBACK TO dropping later ones);
//! transaction characteristics (GLOBAL for new sessions, SESSION, the old
//! `tx_isolation` name, and the scope-less `SET TRANSACTION` and
//! `SET @@tx_isolation` that hold for the next transaction only, 1568 inside
//! one); `SET NAMES` and `SET CHARACTER SET`; SHOW ENGINES and the
//! INFORMATION_SCHEMA variable and status tables; UPDATE and DELETE with
//! ORDER BY and LIMIT.

mod support;

use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use support::{error, one, rows, TestDb, R};

/// Each row joined by `,`.
fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

/// The affected-row count and info text of a statement that returns no
/// rows.
fn changed(s: &mut Session, sql: &str) -> R<(u64, String)> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok((ok.affected_rows, ok.info)),
        other => Err(format!("expected OK from {sql}, got {other:?}").into()),
    }
}

fn concat_table() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE gc (g INT, n INT, s VARCHAR(10))",
        "INSERT INTO gc VALUES (1, 3, 'c'), (1, 1, 'a'), (1, 2, 'b'), (1, NULL, 'z'), \
         (2, 5, 'e'), (2, 5, NULL), (2, 4, 'd'), (3, NULL, NULL), (1, 1, 'a')",
    ])
}

#[test]
fn group_concat_separators_order_and_distinct() -> R<()> {
    let t = concat_table()?;
    let mut s = t.session(5)?;
    // Arrival order without ORDER BY; NULLs skipped; a group of NULLs is NULL.
    assert_eq!(
        flat(
            &mut s,
            "SELECT g, GROUP_CONCAT(n), GROUP_CONCAT(s SEPARATOR '..'), \
             GROUP_CONCAT(DISTINCT n ORDER BY n DESC) FROM gc GROUP BY g"
        )?,
        [
            "1|3,1,2,1|c..a..b..z..a|3,2,1",
            "2|5,5,4|e..d|5,4",
            "3|NULL|NULL|NULL"
        ]
        .map(|r| r.replace('|', ","))
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, GROUP_CONCAT(s ORDER BY n DESC, s ASC), \
             GROUP_CONCAT(n, s ORDER BY s DESC SEPARATOR ''), \
             GROUP_CONCAT(DISTINCT s ORDER BY s SEPARATOR '|') FROM gc GROUP BY g ORDER BY g DESC"
        )?,
        [
            ["3", "NULL", "NULL", "NULL"],
            ["2", "e,d", "5e4d", "d|e"],
            ["1", "c,b,a,a,z", "3c2b1a1a", "a|b|c|z"]
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT GROUP_CONCAT(n ORDER BY n), GROUP_CONCAT(n ORDER BY n DESC) FROM gc"
        )?,
        [["1,1,2,3,4,5,5", "5,5,4,3,2,1,1"]]
    );
    // DISTINCT alone comes out sorted by the value, over all arguments.
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, GROUP_CONCAT(DISTINCT n) FROM gc GROUP BY g"
        )?,
        [["1", "1,2,3"], ["2", "4,5"], ["3", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT GROUP_CONCAT(DISTINCT s), GROUP_CONCAT(DISTINCT n), \
             GROUP_CONCAT(DISTINCT n, s) FROM gc"
        )?,
        [["a,b,c,d,e,z", "1,2,3,4,5", "1a,2b,3c,4d,5e"]]
    );
    // A NULL sort key keeps its row (first ascending); a NULL value drops it.
    assert_eq!(
        one(
            &mut s,
            "SELECT GROUP_CONCAT(DISTINCT s ORDER BY n) FROM gc WHERE g = 1"
        )?,
        "z,a,b,c"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT GROUP_CONCAT(n, '-', s ORDER BY s DESC SEPARATOR \"; \") FROM gc WHERE g = 1"
        )?,
        "3-c; 2-b; 1-a; 1-a"
    );
    // ORDER BY a position names an argument.
    assert_eq!(
        one(
            &mut s,
            "SELECT GROUP_CONCAT(s ORDER BY 1) FROM gc WHERE g = 1"
        )?,
        "a,a,b,c,z"
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, GROUP_CONCAT(n ORDER BY n DESC LIMIT 2), GROUP_CONCAT(DISTINCT s LIMIT 2), \
             GROUP_CONCAT(s LIMIT 1) FROM gc GROUP BY g"
        )?,
        [
            ["1", "3,2", "a,b", "c"],
            ["2", "5,5", "d,e", "e"],
            ["3", "NULL", "NULL", "NULL"]
        ]
    );
    assert_eq!(
        one(&mut s, "SELECT GROUP_CONCAT(n) FROM gc WHERE g = 9")?,
        "NULL"
    );
    assert_eq!(flat(&mut s, "SHOW WARNINGS")?, Vec::<String>::new());
    Ok(())
}

#[test]
fn group_concat_max_len_cuts_with_a_warning() -> R<()> {
    let t = concat_table()?;
    let mut s = t.session(5)?;
    s.execute("SET SESSION group_concat_max_len = 10")?;
    assert_eq!(one(&mut s, "SELECT @@group_concat_max_len")?, "10");
    assert_eq!(
        one(&mut s, "SELECT @@global.group_concat_max_len")?,
        "1048576"
    );
    // "a--a--b--c" fills the 10 bytes: the fifth value, z, is cut.
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, GROUP_CONCAT(s ORDER BY s SEPARATOR '--') FROM gc GROUP BY g"
        )?,
        [["1", "a--a--b--c"], ["2", "d--e"], ["3", "NULL"]]
    );
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        ["Warning,1260,Row 5 was cut by GROUP_CONCAT()"]
    );
    // The separator before the cut value stays.
    assert_eq!(
        one(&mut s, "SELECT GROUP_CONCAT(n ORDER BY n) FROM gc")?,
        "1,1,2,3,4,"
    );
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        ["Warning,1260,Row 6 was cut by GROUP_CONCAT()"]
    );
    // Below the minimum of 4: clamped with 1292.
    s.execute("SET SESSION group_concat_max_len = 1")?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        ["Warning,1292,Truncated incorrect group_concat_max_len value: '1'"]
    );
    assert_eq!(one(&mut s, "SELECT @@group_concat_max_len")?, "4");
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, GROUP_CONCAT(DISTINCT n) FROM gc GROUP BY g"
        )?,
        [["1", "1,2,"], ["2", "4,5"], ["3", "NULL"]]
    );
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        ["Warning,1260,Row 3 was cut by GROUP_CONCAT()"]
    );
    // The row number counts the values written over the groups, one
    // warning per cut group and per call.
    s.execute("CREATE TABLE gm (g INT, s VARCHAR(10))")?;
    s.execute(
        "INSERT INTO gm VALUES (1, 'aaa'), (1, 'bbb'), (1, 'ccc'), (2, 'ddd'), (2, 'eee'), \
         (3, 'f'), (3, 'g'), (4, 'jjjjjjjjjj')",
    )?;
    s.execute("SET SESSION group_concat_max_len = 6")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, GROUP_CONCAT(s ORDER BY s DESC) FROM gm GROUP BY g"
        )?,
        [
            ["1", "ccc,bb"],
            ["2", "eee,dd"],
            ["3", "g,f"],
            ["4", "jjjjjj"]
        ]
    );
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [
            "Warning,1260,Row 2 was cut by GROUP_CONCAT()",
            "Warning,1260,Row 4 was cut by GROUP_CONCAT()",
            "Warning,1260,Row 7 was cut by GROUP_CONCAT()"
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT LENGTH(GROUP_CONCAT(s)), GROUP_CONCAT(s) FROM gm"
        )?,
        [["6", "aaa,bb"]]
    );
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [
            "Warning,1260,Row 2 was cut by GROUP_CONCAT()",
            "Warning,1260,Row 2 was cut by GROUP_CONCAT()"
        ]
    );
    // A new session starts from the global value.
    let mut other = t.session(5)?;
    assert_eq!(
        one(&mut other, "SELECT GROUP_CONCAT(s) FROM gm WHERE g = 4")?,
        "jjjjjjjjjj"
    );
    Ok(())
}

#[test]
fn savepoints() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE sp (id INT PRIMARY KEY)"])?;
    let mut s = t.session(5)?;
    let ids = |s: &mut Session| -> R<Vec<String>> { flat(s, "SELECT id FROM sp ORDER BY id") };
    s.execute("BEGIN")?;
    s.execute("INSERT INTO sp VALUES (1)")?;
    s.execute("SAVEPOINT a")?;
    s.execute("INSERT INTO sp VALUES (2)")?;
    s.execute("RELEASE SAVEPOINT a")?;
    // Released: gone, and the work after it stays.
    assert_eq!(
        error(&mut s, "ROLLBACK TO a")?,
        (1305, "SAVEPOINT a does not exist".to_owned())
    );
    let e = s
        .execute("ROLLBACK TO SAVEPOINT a")
        .err()
        .ok_or("expected an error")?;
    assert_eq!((e.code(), e.sqlstate()), (1305, "42000"));
    assert_eq!(
        error(&mut s, "RELEASE SAVEPOINT a")?,
        (1305, "SAVEPOINT a does not exist".to_owned())
    );
    assert_eq!(ids(&mut s)?, ["1", "2"]);
    // Nested: rolling back to b keeps a and b, drops c.
    s.execute("SAVEPOINT a")?;
    s.execute("INSERT INTO sp VALUES (3)")?;
    s.execute("SAVEPOINT b")?;
    s.execute("INSERT INTO sp VALUES (4)")?;
    s.execute("SAVEPOINT c")?;
    s.execute("INSERT INTO sp VALUES (5)")?;
    s.execute("ROLLBACK TO b")?;
    assert_eq!(ids(&mut s)?, ["1", "2", "3"]);
    assert_eq!(
        error(&mut s, "ROLLBACK TO c")?,
        (1305, "SAVEPOINT c does not exist".to_owned())
    );
    assert_eq!(
        error(&mut s, "RELEASE SAVEPOINT c")?,
        (1305, "SAVEPOINT c does not exist".to_owned())
    );
    // b survives its own rollback.
    s.execute("ROLLBACK TO b")?;
    s.execute("INSERT INTO sp VALUES (6)")?;
    // Back to the earlier a: b goes too.
    s.execute("ROLLBACK TO a")?;
    assert_eq!(ids(&mut s)?, ["1", "2"]);
    assert_eq!(
        error(&mut s, "ROLLBACK TO b")?,
        (1305, "SAVEPOINT b does not exist".to_owned())
    );
    // A savepoint of the same name moves to the newer point.
    s.execute("SAVEPOINT a")?;
    s.execute("INSERT INTO sp VALUES (7)")?;
    s.execute("SAVEPOINT A")?;
    s.execute("INSERT INTO sp VALUES (8)")?;
    s.execute("ROLLBACK TO a")?;
    assert_eq!(ids(&mut s)?, ["1", "2", "7"]);
    s.execute("COMMIT")?;
    assert_eq!(ids(&mut s)?, ["1", "2", "7"]);
    // COMMIT ends the savepoints; with autocommit, SAVEPOINT succeeds and
    // keeps nothing.
    assert_eq!(
        error(&mut s, "ROLLBACK TO a")?,
        (1305, "SAVEPOINT a does not exist".to_owned())
    );
    s.execute("SAVEPOINT x")?;
    assert_eq!(
        error(&mut s, "ROLLBACK TO x")?,
        (1305, "SAVEPOINT x does not exist".to_owned())
    );
    Ok(())
}

/// As in MariaDB, a session copies the global values when it starts (and
/// when COM_RESET_CONNECTION resets it): SET GLOBAL reaches the sessions
/// started after it, never a running one, its own included.
#[test]
fn set_global_reaches_new_sessions_only() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut running = t.session(5)?;
    let mut admin = t.session(5)?;
    let modes = "SELECT @@session.sql_mode, @@global.sql_mode";
    let before = one(&mut running, "SELECT @@sql_mode")?;
    admin.execute("SET GLOBAL sql_mode = 'ANSI_QUOTES'")?;
    admin.execute("SET GLOBAL lock_wait_timeout = 7")?;
    for s in [&mut running, &mut admin] {
        assert_eq!(flat(s, modes)?, [format!("{before},ANSI_QUOTES")]);
        assert_eq!(one(s, "SELECT @@lock_wait_timeout")?, "86400");
        // The session's quoting did not change under it.
        assert_eq!(one(s, "SELECT \"x\"")?, "x");
    }
    let mut newcomer = t.session(5)?;
    assert_eq!(flat(&mut newcomer, modes)?, ["ANSI_QUOTES,ANSI_QUOTES"]);
    assert_eq!(one(&mut newcomer, "SELECT @@lock_wait_timeout")?, "7");
    // SET SESSION ... = DEFAULT takes the global value of the moment.
    running.execute("SET SESSION lock_wait_timeout = DEFAULT")?;
    assert_eq!(one(&mut running, "SELECT @@lock_wait_timeout")?, "7");
    // A reset session starts again from the global values.
    admin.reset();
    assert_eq!(flat(&mut admin, modes)?, ["ANSI_QUOTES,ANSI_QUOTES"]);
    Ok(())
}

#[test]
fn global_session_and_old_isolation_names() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let levels = "SELECT @@global.tx_isolation, @@session.tx_isolation, \
                  @@global.transaction_isolation, @@session.transaction_isolation";
    assert_eq!(
        flat(&mut s, levels)?,
        ["REPEATABLE-READ,REPEATABLE-READ,REPEATABLE-READ,REPEATABLE-READ"]
    );
    // GLOBAL: new sessions, not this one.
    s.execute("SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED")?;
    assert_eq!(
        flat(&mut s, levels)?,
        ["READ-COMMITTED,REPEATABLE-READ,READ-COMMITTED,REPEATABLE-READ"]
    );
    let mut other = t.session(5)?;
    assert_eq!(
        flat(&mut other, levels)?,
        ["READ-COMMITTED,READ-COMMITTED,READ-COMMITTED,READ-COMMITTED"]
    );
    // The old name sets the session value of both names.
    s.execute("SET tx_isolation = 'READ-UNCOMMITTED'")?;
    assert_eq!(
        flat(&mut s, levels)?,
        ["READ-COMMITTED,READ-UNCOMMITTED,READ-COMMITTED,READ-UNCOMMITTED"]
    );
    s.execute("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE")?;
    assert_eq!(one(&mut s, "SELECT @@tx_isolation")?, "SERIALIZABLE");
    assert_eq!(
        error(&mut s, "SET @@tx_isolation = 'bogus'")?,
        (
            1231,
            "Variable 'tx_isolation' can't be set to the value of 'bogus'".to_owned()
        )
    );
    // READ ONLY for the session: writes refused until READ WRITE.
    s.execute("CREATE TABLE t (a INT)")?;
    s.execute("SET SESSION TRANSACTION READ ONLY")?;
    assert_eq!(
        flat(
            &mut s,
            "SELECT @@session.tx_read_only, @@global.tx_read_only, @@transaction_read_only"
        )?,
        ["1,0,1"]
    );
    assert_eq!(error(&mut s, "INSERT INTO t VALUES (1)")?.0, 1792);
    s.execute("SET SESSION TRANSACTION READ WRITE")?;
    s.execute("INSERT INTO t VALUES (1)")?;
    s.execute("SET GLOBAL TRANSACTION READ ONLY")?;
    assert_eq!(
        flat(
            &mut s,
            "SELECT @@session.tx_read_only, @@global.tx_read_only"
        )?,
        ["0,1"]
    );
    // SESSION and GLOBAL may change inside a transaction.
    s.execute("BEGIN")?;
    s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")?;
    s.execute("SET GLOBAL TRANSACTION READ WRITE")?;
    s.execute("SET tx_read_only = 1")?;
    s.execute("ROLLBACK")?;
    assert_eq!(
        flat(
            &mut s,
            "SELECT @@tx_isolation, @@tx_read_only, @@global.tx_read_only"
        )?,
        ["REPEATABLE-READ,1,0"]
    );
    Ok(())
}

#[test]
fn set_transaction_holds_for_the_next_transaction() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE sp (id INT PRIMARY KEY)"])?;
    let mut s = t.session(5)?;
    let mut w = t.session(5)?;
    const IN_PROGRESS: &str =
        "Transaction characteristics can't be changed while a transaction is in progress";
    // READ ONLY for the next transaction: the session value stays 0.
    s.execute("SET TRANSACTION READ ONLY")?;
    assert_eq!(
        flat(
            &mut s,
            "SELECT @@session.tx_read_only, @@transaction_read_only"
        )?,
        ["0,0"]
    );
    s.execute("BEGIN")?;
    let e = s
        .execute("INSERT INTO sp VALUES (1)")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(
        (e.code(), e.sqlstate(), e.message()),
        (
            1792,
            "25006",
            "Cannot execute statement in a READ ONLY transaction".to_owned()
        )
    );
    // Not inside a transaction.
    assert_eq!(
        error(&mut s, "SET TRANSACTION READ WRITE")?,
        (1568, IN_PROGRESS.to_owned())
    );
    assert_eq!(
        error(&mut s, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED")?,
        (1568, IN_PROGRESS.to_owned())
    );
    assert_eq!(
        error(&mut s, "SET @@tx_read_only = 0")?,
        (1568, IN_PROGRESS.to_owned())
    );
    s.execute("COMMIT")?;
    // The next one is read-write again.
    s.execute("BEGIN")?;
    s.execute("INSERT INTO sp VALUES (1)")?;
    s.execute("COMMIT")?;
    assert_eq!(one(&mut s, "SELECT @@session.tx_read_only")?, "0");
    // An autocommit statement refused as read-only keeps it for the next.
    s.execute("SET TRANSACTION READ ONLY")?;
    assert_eq!(error(&mut s, "INSERT INTO sp VALUES (2)")?.0, 1792);
    assert_eq!(error(&mut s, "INSERT INTO sp VALUES (2)")?.0, 1792);
    // ROLLBACK (and COMMIT) end it, with no transaction open too.
    s.execute("ROLLBACK")?;
    s.execute("INSERT INTO sp VALUES (2)")?;
    // With autocommit off the first statement starts it.
    s.execute("SET TRANSACTION READ ONLY")?;
    s.execute("SET autocommit = 0")?;
    assert_eq!(error(&mut s, "INSERT INTO sp VALUES (3)")?.0, 1792);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM sp")?, "2");
    assert_eq!(
        error(&mut s, "SET TRANSACTION READ WRITE")?,
        (1568, IN_PROGRESS.to_owned())
    );
    s.execute("COMMIT")?;
    s.execute("INSERT INTO sp VALUES (3)")?;
    s.execute("COMMIT")?;
    s.execute("SET autocommit = 1")?;
    // `SET @@tx_read_only` without a scope is the same as SET TRANSACTION;
    // without `@@` it is the session's.
    s.execute("SET @@tx_read_only = 1")?;
    assert_eq!(one(&mut s, "SELECT @@tx_read_only")?, "0");
    s.execute("BEGIN")?;
    assert_eq!(error(&mut s, "INSERT INTO sp VALUES (4)")?.0, 1792);
    s.execute("COMMIT")?;
    s.execute("INSERT INTO sp VALUES (4)")?;

    // ISOLATION LEVEL for the next transaction: READ COMMITTED sees what
    // another session commits meanwhile, the transaction after it does not.
    let count = "SELECT COUNT(*) FROM sp";
    s.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")?;
    assert_eq!(
        one(&mut s, "SELECT @@session.transaction_isolation")?,
        "REPEATABLE-READ"
    );
    s.execute("BEGIN")?;
    assert_eq!(one(&mut s, count)?, "4");
    w.execute("INSERT INTO sp VALUES (10)")?;
    assert_eq!(one(&mut s, count)?, "5");
    s.execute("COMMIT")?;
    s.execute("BEGIN")?;
    assert_eq!(one(&mut s, count)?, "5");
    w.execute("INSERT INTO sp VALUES (11)")?;
    assert_eq!(one(&mut s, count)?, "5");
    s.execute("COMMIT")?;
    // `SET @@tx_isolation` without a scope: the next transaction only.
    s.execute("SET @@tx_isolation = 'READ-COMMITTED'")?;
    assert_eq!(one(&mut s, "SELECT @@tx_isolation")?, "REPEATABLE-READ");
    s.execute("BEGIN")?;
    assert_eq!(one(&mut s, count)?, "6");
    w.execute("INSERT INTO sp VALUES (12)")?;
    assert_eq!(one(&mut s, count)?, "7");
    s.execute("COMMIT")?;
    // A committed autocommit write uses it up too.
    s.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")?;
    s.execute("INSERT INTO sp VALUES (13)")?;
    s.execute("BEGIN")?;
    assert_eq!(one(&mut s, count)?, "8");
    w.execute("INSERT INTO sp VALUES (14)")?;
    assert_eq!(one(&mut s, count)?, "8");
    s.execute("COMMIT")?;
    Ok(())
}

#[test]
fn set_names_and_character_set() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let sets = "SELECT @@character_set_client, @@character_set_results, \
                @@character_set_connection, @@collation_connection";
    assert_eq!(
        flat(&mut s, sets)?,
        ["utf8mb4,utf8mb4,utf8mb4,utf8mb4_general_ci"]
    );
    s.execute("SET NAMES latin1")?;
    assert_eq!(
        flat(&mut s, sets)?,
        ["latin1,latin1,latin1,latin1_swedish_ci"]
    );
    // CHARACTER SET: the connection takes the database's character set
    // and collation.
    s.execute("SET CHARACTER SET utf8mb4")?;
    assert_eq!(
        flat(&mut s, sets)?,
        ["utf8mb4,utf8mb4,utf8mb4,utf8mb4_general_ci"]
    );
    s.execute("SET NAMES utf8 COLLATE utf8_bin")?;
    assert_eq!(flat(&mut s, sets)?, ["utf8mb3,utf8mb3,utf8mb3,utf8mb3_bin"]);
    s.execute("SET SESSION collation_database = 'latin1_bin'")?;
    s.execute("SET CHARACTER SET utf8")?;
    assert_eq!(flat(&mut s, sets)?, ["utf8mb3,utf8mb3,latin1,latin1_bin"]);
    s.execute("SET CHARSET latin1")?;
    assert_eq!(flat(&mut s, sets)?, ["latin1,latin1,latin1,latin1_bin"]);
    // DEFAULT: the global character_set_client.
    s.execute("SET GLOBAL character_set_client = ascii")?;
    s.execute("SET CHARACTER SET DEFAULT")?;
    assert_eq!(flat(&mut s, sets)?, ["ascii,ascii,latin1,latin1_bin"]);
    s.execute("SET NAMES DEFAULT")?;
    assert_eq!(flat(&mut s, sets)?, ["ascii,ascii,ascii,ascii_general_ci"]);
    for sql in ["SET NAMES foo", "SET CHARACTER SET foo"] {
        assert_eq!(
            error(&mut s, sql)?,
            (1115, "Unknown character set: 'foo'".to_owned())
        );
    }
    Ok(())
}

#[test]
fn engines_and_variable_tables() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(5)?;
    let (names, engines) = support::query(&mut s, "SHOW ENGINES")?;
    assert_eq!(
        names,
        [
            "Engine",
            "Support",
            "Comment",
            "Transactions",
            "XA",
            "Savepoints"
        ]
    );
    let innodb: Vec<_> = engines.iter().filter(|e| e[0] == "InnoDB").collect();
    assert_eq!(innodb.len(), 1);
    assert_eq!(
        [&innodb[0][1], &innodb[0][3], &innodb[0][4], &innodb[0][5]],
        ["DEFAULT", "YES", "YES", "YES"]
    );
    assert_eq!(
        engines.iter().filter(|e| e[1] == "DEFAULT").count(),
        1,
        "one default engine"
    );
    // Names are upper case in the tables; the WHERE compares without case.
    for name in ["innodb_page_size", "INNODB_PAGE_SIZE"] {
        assert_eq!(
            rows(
                &mut s,
                &format!(
                    "SELECT * FROM information_schema.GLOBAL_VARIABLES \
                     WHERE VARIABLE_NAME = '{name}'"
                )
            )?,
            [["INNODB_PAGE_SIZE", "16384"]]
        );
    }
    assert_eq!(
        rows(
            &mut s,
            "SELECT VARIABLE_NAME FROM information_schema.GLOBAL_VARIABLES \
             WHERE VARIABLE_NAME LIKE 'innodb_page%'"
        )?,
        [["INNODB_PAGE_SIZE"]]
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.GLOBAL_VARIABLES \
             WHERE VARIABLE_NAME = 'no_such_var'"
        )?,
        "0"
    );
    s.execute("SET SESSION group_concat_max_len = 2048")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES \
             WHERE VARIABLE_NAME IN ('group_concat_max_len', 'autocommit') ORDER BY 1"
        )?,
        [["AUTOCOMMIT", "ON"], ["GROUP_CONCAT_MAX_LEN", "2048"]]
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES \
             WHERE VARIABLE_NAME = 'group_concat_max_len'"
        )?,
        "1048576"
    );
    // Questions counts this session's statements: one more per query.
    let status =
        "SELECT * FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Questions'";
    let first = rows(&mut s, status)?;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0][0], "QUESTIONS");
    let n: u64 = first[0][1].parse()?;
    assert!(n > 0);
    assert_eq!(
        rows(
            &mut s,
            "SELECT * FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'questions'"
        )?,
        [["QUESTIONS".to_owned(), (n + 1).to_string()]]
    );
    assert_eq!(
        rows(&mut s, "SHOW SESSION STATUS LIKE 'Questions'")?,
        [["Questions".to_owned(), (n + 2).to_string()]]
    );
    Ok(())
}

#[test]
fn update_and_delete_with_order_by_and_limit() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE ud (id INT PRIMARY KEY, g INT, v INT)",
        "INSERT INTO ud VALUES (1, 1, 50), (2, 1, 10), (3, 2, 40), (4, 1, 30), (5, 2, 20), \
         (6, 1, 60), (7, 1, NULL)",
    ])?;
    let mut s = t.session(5)?;
    let all = |s: &mut Session| -> R<Vec<String>> { flat(s, "SELECT * FROM ud ORDER BY id") };
    // The two largest of g = 1.
    assert_eq!(
        changed(
            &mut s,
            "UPDATE ud SET v = v + 1000 WHERE g = 1 ORDER BY v DESC LIMIT 2"
        )?,
        (2, "Rows matched: 2  Changed: 2  Warnings: 0".to_owned())
    );
    assert_eq!(
        all(&mut s)?,
        ["1,1,1050", "2,1,10", "3,2,40", "4,1,30", "5,2,20", "6,1,1060", "7,1,NULL"]
    );
    // Ascending, NULL first: it matches but does not change.
    assert_eq!(
        changed(
            &mut s,
            "UPDATE ud SET v = -v WHERE g = 1 ORDER BY v LIMIT 2"
        )?,
        (1, "Rows matched: 2  Changed: 1  Warnings: 0".to_owned())
    );
    assert_eq!(
        all(&mut s)?,
        ["1,1,1050", "2,1,-10", "3,2,40", "4,1,30", "5,2,20", "6,1,1060", "7,1,NULL"]
    );
    // A LIMIT past the matches changes them all.
    assert_eq!(
        changed(
            &mut s,
            "UPDATE ud SET v = 0 WHERE g = 2 ORDER BY id LIMIT 10"
        )?,
        (2, "Rows matched: 2  Changed: 2  Warnings: 0".to_owned())
    );
    for sql in [
        "UPDATE ud SET v = 5 ORDER BY id LIMIT 0",
        "UPDATE ud SET v = 5 LIMIT 0",
    ] {
        assert_eq!(changed(&mut s, sql)?.0, 0);
    }
    assert_eq!(
        all(&mut s)?,
        ["1,1,1050", "2,1,-10", "3,2,0", "4,1,30", "5,2,0", "6,1,1060", "7,1,NULL"]
    );
    assert_eq!(
        changed(&mut s, "DELETE FROM ud WHERE g = 1 ORDER BY v DESC LIMIT 2")?.0,
        2
    );
    assert_eq!(
        all(&mut s)?,
        ["2,1,-10", "3,2,0", "4,1,30", "5,2,0", "7,1,NULL"]
    );
    assert_eq!(
        changed(&mut s, "DELETE FROM ud ORDER BY g DESC, id DESC LIMIT 1")?.0,
        1
    );
    assert_eq!(all(&mut s)?, ["2,1,-10", "3,2,0", "4,1,30", "7,1,NULL"]);
    assert_eq!(changed(&mut s, "DELETE FROM ud LIMIT 0")?.0, 0);
    assert_eq!(
        changed(&mut s, "DELETE FROM ud WHERE g = 1 ORDER BY id LIMIT 100")?.0,
        3
    );
    assert_eq!(all(&mut s)?, ["3,2,0"]);
    Ok(())
}
