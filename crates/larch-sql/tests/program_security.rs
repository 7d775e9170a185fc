//! SQL SECURITY of stored programs as MariaDB enforces it: a DEFINER
//! routine (the default) and every trigger run as the definer's account
//! (its privileges, CURRENT_USER()), an INVOKER routine as the caller; a
//! definer that is no account is a note at CREATE and error 1449 when the
//! program runs; the definer needs EXECUTE on its routine (1370) and the
//! TRIGGER privilege on its trigger's table (1142).

mod support;

use larch_sql::session::Session;
use support::{error, one, results, rows, TestDb, R};

fn flat(s: &mut Session, sql: &str) -> R<Vec<String>> {
    Ok(rows(s, sql)?.into_iter().map(|r| r.join(",")).collect())
}

fn setup() -> R<(TestDb, Session)> {
    let t = TestDb::new(&[
        "CREATE TABLE t (a INT)",
        "INSERT INTO t VALUES (1)",
        "CREATE TABLE secret (v INT)",
        "INSERT INTO secret VALUES (42)",
    ])?;
    let s = t.session(5)?;
    Ok((t, s))
}

const MISSING: &str = "The user specified as a definer ('nobody'@'%') does not exist";

#[test]
fn a_missing_definer_is_a_note_then_error_1449() -> R<()> {
    let (_t, mut s) = setup()?;
    s.execute("CREATE DEFINER=nobody@'%' PROCEDURE p() SELECT COUNT(*) FROM t")?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [format!("Note,1449,{MISSING}")]
    );
    assert_eq!(error(&mut s, "CALL p()")?, (1449, MISSING.to_string()));
    s.execute("CREATE DEFINER=nobody@'%' FUNCTION f() RETURNS INT RETURN 1")?;
    assert_eq!(error(&mut s, "SELECT f()")?, (1449, MISSING.to_string()));
    s.execute(
        "CREATE DEFINER=nobody@'%' TRIGGER tr BEFORE INSERT ON t \
         FOR EACH ROW SET @u = CURRENT_USER()",
    )?;
    assert_eq!(
        flat(&mut s, "SHOW WARNINGS")?,
        [format!("Note,1449,{MISSING}")]
    );
    assert_eq!(
        error(&mut s, "INSERT INTO t VALUES (2)")?,
        (1449, MISSING.to_string())
    );
    // An INVOKER routine does not need its definer.
    s.execute(
        "CREATE DEFINER=nobody@'%' PROCEDURE pi() SQL SECURITY INVOKER SELECT CURRENT_USER()",
    )?;
    assert_eq!(results(&mut s, "CALL pi()")?, ["root@localhost", "OK"]);
    // Once the account exists, the programs run.
    s.execute("DROP TRIGGER tr")?;
    s.execute("CREATE USER nobody@'%'")?;
    s.execute("GRANT EXECUTE ON test.* TO nobody@'%'")?;
    assert_eq!(one(&mut s, "SELECT f()")?, "1");
    Ok(())
}

#[test]
fn definer_routines_run_with_the_definers_privileges() -> R<()> {
    let (t, mut s) = setup()?;
    s.execute("CREATE USER u1@localhost, u2@localhost")?;
    s.execute("GRANT SELECT ON test.t TO u1@localhost")?;
    s.execute("CREATE DEFINER=u1@localhost PROCEDURE p2() SELECT CURRENT_USER(), COUNT(*) FROM t")?;
    s.execute("CREATE DEFINER=u1@localhost PROCEDURE p3() INSERT INTO t VALUES (5)")?;
    s.execute(
        "CREATE DEFINER=u1@localhost PROCEDURE p4() SQL SECURITY INVOKER SELECT CURRENT_USER()",
    )?;
    // The definer needs EXECUTE on the routine.
    assert_eq!(
        error(&mut s, "CALL p2()")?,
        (
            1370,
            "execute command denied to user 'u1'@'localhost' for routine 'test.p2'".into()
        )
    );
    s.execute("GRANT EXECUTE ON test.* TO u1@localhost")?;
    assert_eq!(results(&mut s, "CALL p2()")?, ["u1@localhost,1", "OK"]);
    // Statements inside are checked against the definer's privileges.
    assert_eq!(error(&mut s, "CALL p3()")?.0, 1142);
    assert_eq!(results(&mut s, "CALL p4()")?, ["root@localhost", "OK"]);
    assert_eq!(one(&mut s, "SELECT CURRENT_USER()")?, "root@localhost");

    // A caller with EXECUTE only reads through a DEFINER routine what it
    // may not read itself, and not through an INVOKER one.
    s.execute("CREATE PROCEDURE peek() SELECT v FROM secret")?;
    s.execute("CREATE PROCEDURE peek_invoker() SQL SECURITY INVOKER SELECT v FROM secret")?;
    s.execute("GRANT EXECUTE ON test.* TO u2@localhost")?;
    let mut u2 = t.db.new_session(0, "u2", "localhost")?;
    u2.use_database("test")?;
    assert_eq!(error(&mut u2, "SELECT v FROM secret")?.0, 1142);
    assert_eq!(results(&mut u2, "CALL peek()")?, ["42", "OK"]);
    assert_eq!(error(&mut u2, "CALL peek_invoker()")?.0, 1142);
    assert_eq!(one(&mut u2, "SELECT CURRENT_USER()")?, "u2@localhost");
    Ok(())
}

#[test]
fn triggers_run_as_their_definer() -> R<()> {
    let (t, mut s) = setup()?;
    s.execute("CREATE TABLE audit (who VARCHAR(100), v INT)")?;
    s.execute("CREATE USER u1@localhost, u2@localhost")?;
    s.execute("GRANT SELECT ON test.t TO u1@localhost")?;
    s.execute(
        "CREATE DEFINER=u1@localhost TRIGGER tr2 BEFORE INSERT ON t \
         FOR EACH ROW SET @u = CURRENT_USER()",
    )?;
    // The definer lacks the TRIGGER privilege on the table.
    assert_eq!(
        error(&mut s, "INSERT INTO t VALUES (3)")?,
        (
            1142,
            "TRIGGER command denied to user 'u1'@'localhost' for table `test`.`t`".into()
        )
    );
    s.execute("GRANT TRIGGER ON test.t TO u1@localhost")?;
    s.execute("INSERT INTO t VALUES (3)")?;
    assert_eq!(one(&mut s, "SELECT @u")?, "u1@localhost");
    s.execute("DROP TRIGGER tr2")?;

    // A root trigger writes the audit table the inserting account cannot.
    s.execute(
        "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW \
         INSERT INTO audit VALUES (CURRENT_USER(), NEW.a)",
    )?;
    s.execute("GRANT INSERT ON test.t TO u2@localhost")?;
    let mut u2 = t.db.new_session(0, "u2", "localhost")?;
    u2.use_database("test")?;
    u2.execute("INSERT INTO t VALUES (7)")?;
    assert_eq!(error(&mut u2, "INSERT INTO audit VALUES ('x', 0)")?.0, 1142);
    assert_eq!(flat(&mut s, "SELECT * FROM audit")?, ["root@localhost,7"]);
    Ok(())
}
