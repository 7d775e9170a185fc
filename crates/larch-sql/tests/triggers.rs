//! Triggers end to end, in process, after MariaDB's main.trigger tests:
//! BEFORE triggers changing NEW (converted to the column type, seen by
//! CHECK constraints), AFTER triggers writing an audit table, OLD and NEW in
//! UPDATE and DELETE, firing order with FOLLOWS / PRECEDES, REPLACE and
//! INSERT ... ON DUPLICATE KEY UPDATE, multi-table UPDATE / DELETE, an
//! error in a trigger undoing the whole statement, MariaDB's errors, SHOW
//! TRIGGERS / SHOW CREATE TRIGGER / INFORMATION_SCHEMA.TRIGGERS, and what
//! DROP / RENAME / ALTER TABLE, DROP DATABASE and a restart do to them.

mod support;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::session::Session;
use support::{code, one, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t1 (a INT PRIMARY KEY, b VARCHAR(10), c INT)",
        "CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(100))",
    ])
}

fn message(s: &mut Session, sql: &str) -> String {
    match s.query(sql.as_bytes()).error {
        Some(e) => e.message().to_string(),
        None => panic!("{sql} should fail"),
    }
}

fn flat(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|row| row.join(",")).collect()
}

fn log(s: &mut Session) -> R<Vec<String>> {
    Ok(flat(rows(s, "SELECT msg FROM log ORDER BY id")?))
}

#[test]
fn before_insert_changes_new_and_after_insert_writes_an_audit_table() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE TRIGGER t1_bi BEFORE INSERT ON t1 FOR EACH ROW
         BEGIN
           SET NEW.b = UPPER(NEW.b);
           IF NEW.c IS NULL THEN SET NEW.c = NEW.a * 10; END IF;
         END",
    )?;
    s.execute(
        "CREATE TRIGGER t1_ai AFTER INSERT ON t1 FOR EACH ROW
         INSERT INTO log (msg) VALUES (CONCAT('ins ', NEW.a, ' ', NEW.b, ' ', NEW.c))",
    )?;
    s.execute("INSERT INTO t1 (a, b) VALUES (1, 'one'), (2, 'two')")?;
    s.execute("INSERT INTO t1 SET a = 3, b = 'x', c = 7")?;
    s.execute("INSERT INTO t1 SELECT a + 10, b, NULL FROM t1 WHERE a < 3")?;
    assert_eq!(
        flat(rows(&mut s, "SELECT * FROM t1 ORDER BY a")?),
        ["1,ONE,10", "2,TWO,20", "3,X,7", "11,ONE,110", "12,TWO,120"]
    );
    assert_eq!(
        log(&mut s)?,
        [
            "ins 1 ONE 10",
            "ins 2 TWO 20",
            "ins 3 X 7",
            "ins 11 ONE 110",
            "ins 12 TWO 120"
        ]
    );
    // SET NEW.col converts to the column type.
    s.execute("CREATE TABLE n (i TINYINT, d DECIMAL(5,2))")?;
    s.execute("CREATE TRIGGER n_bi BEFORE INSERT ON n FOR EACH ROW SET NEW.d = NEW.i / 3")?;
    s.execute("INSERT INTO n (i) VALUES (10)")?;
    assert_eq!(one(&mut s, "SELECT d FROM n")?, "3.33");
    Ok(())
}

#[test]
fn update_and_delete_see_old_and_new() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("INSERT INTO t1 VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")?;
    s.execute("CREATE TRIGGER t1_bu BEFORE UPDATE ON t1 FOR EACH ROW SET NEW.c = OLD.c + NEW.c")?;
    s.execute(
        "CREATE TRIGGER t1_au AFTER UPDATE ON t1 FOR EACH ROW
         INSERT INTO log (msg) VALUES (CONCAT('upd ', OLD.a, ':', OLD.b, '->', NEW.b, ' c=', NEW.c))",
    )?;
    s.execute(
        "CREATE TRIGGER t1_bd BEFORE DELETE ON t1 FOR EACH ROW
         INSERT INTO log (msg) VALUES (CONCAT('del ', OLD.a, ' ', OLD.b))",
    )?;
    s.execute("UPDATE t1 SET b = 'z', c = 100 WHERE a <= 2")?;
    assert_eq!(
        flat(rows(&mut s, "SELECT * FROM t1 ORDER BY a")?),
        ["1,z,101", "2,z,102", "3,c,3"]
    );
    s.execute("DELETE FROM t1 WHERE a = 3")?;
    assert_eq!(
        log(&mut s)?,
        ["upd 1:a->z c=101", "upd 2:b->z c=102", "del 3 c"]
    );
    // Multi-table UPDATE and DELETE fire the triggers of the changed tables.
    s.execute("CREATE TABLE k (a INT PRIMARY KEY)")?;
    s.execute("INSERT INTO k VALUES (1)")?;
    s.execute("DELETE FROM log")?;
    s.execute("UPDATE t1 JOIN k ON t1.a = k.a SET t1.b = 'm', t1.c = 1")?;
    s.execute("DELETE t1 FROM t1 JOIN k ON t1.a = k.a")?;
    assert_eq!(log(&mut s)?, ["upd 1:z->m c=102", "del 1 m"]);
    Ok(())
}

#[test]
fn replace_and_on_duplicate_key_update_fire_as_mariadb() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("INSERT INTO t1 VALUES (1, 'a', 1)")?;
    for (name, timing, event) in [
        ("bi", "BEFORE", "INSERT"),
        ("ai", "AFTER", "INSERT"),
        ("bu", "BEFORE", "UPDATE"),
        ("au", "AFTER", "UPDATE"),
        ("bd", "BEFORE", "DELETE"),
        ("ad", "AFTER", "DELETE"),
    ] {
        s.execute(&format!(
            "CREATE TRIGGER t1_{name} {timing} {event} ON t1 FOR EACH ROW
             INSERT INTO log (msg) VALUES ('{name}')"
        ))?;
    }
    s.execute("REPLACE INTO t1 VALUES (1, 'r', 2)")?;
    assert_eq!(log(&mut s)?, ["bi", "bd", "ad", "ai"]);
    s.execute("DELETE FROM log")?;
    s.execute("INSERT INTO t1 VALUES (1, 'x', 3) ON DUPLICATE KEY UPDATE b = 'dup'")?;
    assert_eq!(log(&mut s)?, ["bi", "bu", "au"]);
    assert_eq!(one(&mut s, "SELECT b FROM t1 WHERE a = 1")?, "dup");
    // A row left unchanged still fires AFTER UPDATE (MDEV-33083).
    s.execute("DELETE FROM log")?;
    s.execute("UPDATE t1 SET b = 'dup' WHERE a = 1")?;
    s.execute("INSERT INTO t1 VALUES (1, 'x', 3) ON DUPLICATE KEY UPDATE b = 'dup'")?;
    assert_eq!(log(&mut s)?, ["bu", "au", "bi", "bu", "au"]);
    Ok(())
}

#[test]
fn firing_order_follows_precedes() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE TRIGGER tr1 BEFORE INSERT ON t1 FOR EACH ROW INSERT INTO log (msg) VALUES ('tr1')",
    )?;
    s.execute(
        "CREATE TRIGGER tr2 BEFORE INSERT ON t1 FOR EACH ROW INSERT INTO log (msg) VALUES ('tr2')",
    )?;
    s.execute("CREATE TRIGGER tr0 BEFORE INSERT ON t1 FOR EACH ROW PRECEDES tr1 INSERT INTO log (msg) VALUES ('tr0')")?;
    s.execute("CREATE TRIGGER tr15 BEFORE INSERT ON t1 FOR EACH ROW FOLLOWS tr1 INSERT INTO log (msg) VALUES ('tr15')")?;
    s.execute("INSERT INTO t1 VALUES (1, 'a', 1)")?;
    assert_eq!(log(&mut s)?, ["tr0", "tr1", "tr15", "tr2"]);
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT TRIGGER_NAME, ACTION_ORDER FROM information_schema.TRIGGERS
             WHERE TRIGGER_SCHEMA = 'test' ORDER BY ACTION_ORDER"
        )?),
        ["tr0,1", "tr1,2", "tr15,3", "tr2,4"]
    );
    assert_eq!(
        code(
            &mut s,
            "CREATE TRIGGER trx AFTER INSERT ON t1 FOR EACH ROW FOLLOWS tr1 SET @a = 1"
        ),
        4031
    );
    // The FOLLOWS clause is not part of the kept statement.
    let r = rows(&mut s, "SHOW CREATE TRIGGER tr15")?;
    assert_eq!(
        r[0][2],
        "CREATE DEFINER=`root`@`localhost` TRIGGER tr15 BEFORE INSERT ON t1 FOR EACH ROW INSERT INTO log (msg) VALUES ('tr15')"
    );
    Ok(())
}

#[test]
fn an_error_in_a_trigger_undoes_the_statement() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE TRIGGER t1_ai AFTER INSERT ON t1 FOR EACH ROW
         BEGIN
           INSERT INTO log (msg) VALUES (CONCAT('ins ', NEW.a));
           IF NEW.a = 3 THEN
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no threes';
           END IF;
         END",
    )?;
    assert_eq!(
        message(
            &mut s,
            "INSERT INTO t1 VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)"
        ),
        "no threes"
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "0");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM log")?, "0");
    // In a transaction only the failed statement is undone.
    s.execute("BEGIN")?;
    s.execute("INSERT INTO t1 VALUES (1, 'a', 1)")?;
    assert_eq!(code(&mut s, "INSERT INTO t1 VALUES (3, 'c', 3)"), 1644);
    s.execute("COMMIT")?;
    assert_eq!(log(&mut s)?, ["ins 1"]);
    // A BEFORE trigger's NEW value meets the CHECK constraint.
    s.execute("CREATE TABLE ch (v INT CHECK (v < 10))")?;
    s.execute("CREATE TRIGGER ch_bi BEFORE INSERT ON ch FOR EACH ROW SET NEW.v = NEW.v * 10")?;
    assert_eq!(code(&mut s, "INSERT INTO ch VALUES (5)"), 4025);
    s.execute("INSERT INTO ch VALUES (0)")?;
    // Changing the trigger's own table is 1442.
    s.execute("CREATE TRIGGER t1_bd BEFORE DELETE ON t1 FOR EACH ROW DELETE FROM t1 WHERE a = 99")?;
    assert_eq!(
        message(&mut s, "DELETE FROM t1"),
        "Can't update table 't1' in stored function/trigger because it is already used by statement which invoked this stored function/trigger"
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "1");
    // A statement that would commit is refused when the trigger runs, and
    // nothing of the firing statement stays.
    s.execute("DROP TRIGGER t1_bd")?;
    s.execute("CREATE PROCEDURE mk() CREATE TABLE made (a INT)")?;
    s.execute("CREATE TRIGGER t1_bd BEFORE DELETE ON t1 FOR EACH ROW CALL mk()")?;
    assert_eq!(code(&mut s, "DELETE FROM t1"), 1422);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t1")?, "1");
    assert_eq!(code(&mut s, "SELECT * FROM made"), 1146);
    Ok(())
}

#[test]
fn create_and_drop_errors_as_mariadb() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE TRIGGER t1_bi BEFORE INSERT ON t1 FOR EACH ROW SET @x = 1")?;
    assert_eq!(
        message(
            &mut s,
            "CREATE TRIGGER t1_bi BEFORE INSERT ON t1 FOR EACH ROW SET @x = 2"
        ),
        "Trigger 'test.t1_bi' already exists"
    );
    s.execute("CREATE TRIGGER IF NOT EXISTS t1_bi BEFORE INSERT ON t1 FOR EACH ROW SET @x = 2")?;
    assert_eq!(
        flat(rows(&mut s, "SHOW WARNINGS")?),
        ["Note,1359,Trigger 'test.t1_bi' already exists"]
    );
    s.execute("CREATE OR REPLACE TRIGGER t1_bi BEFORE INSERT ON t1 FOR EACH ROW SET @x = 3")?;
    s.execute("INSERT INTO t1 VALUES (1, 'a', 1)")?;
    assert_eq!(one(&mut s, "SELECT @x")?, "3");
    let cases = [
        (
            "CREATE TRIGGER x AFTER INSERT ON t1 FOR EACH ROW SET NEW.a = 1",
            1362,
            "Updating of NEW row is not allowed in after trigger",
        ),
        (
            "CREATE TRIGGER x BEFORE UPDATE ON t1 FOR EACH ROW SET OLD.a = 1",
            1362,
            "Updating of OLD row is not allowed in trigger",
        ),
        (
            "CREATE TRIGGER x AFTER DELETE ON t1 FOR EACH ROW SET @a = NEW.a",
            1363,
            "There is no NEW row in on DELETE trigger",
        ),
        (
            "CREATE TRIGGER x AFTER INSERT ON t1 FOR EACH ROW SET @a = OLD.a",
            1363,
            "There is no OLD row in on INSERT trigger",
        ),
        (
            "CREATE TRIGGER x BEFORE INSERT ON t1 FOR EACH ROW SET @a = NEW.zz",
            1054,
            "Unknown column 'zz' in 'NEW'",
        ),
        (
            "CREATE TRIGGER x BEFORE INSERT ON nosuch FOR EACH ROW SET @a = 1",
            1146,
            "Table 'test.nosuch' doesn't exist",
        ),
        (
            "CREATE TRIGGER x BEFORE UPDATE ON t1 FOR EACH ROW SELECT 1",
            1415,
            "Not allowed to return a result set from a trigger",
        ),
        (
            "CREATE TRIGGER x BEFORE UPDATE ON t1 FOR EACH ROW COMMIT",
            1422,
            "Explicit or implicit commit is not allowed in stored function or trigger",
        ),
        (
            "CREATE TRIGGER other.x BEFORE UPDATE ON test.t1 FOR EACH ROW SET @a = 1",
            1435,
            "Trigger in wrong schema",
        ),
        ("DROP TRIGGER nosuch", 1360, "Trigger does not exist"),
        ("SHOW CREATE TRIGGER nosuch", 1360, "Trigger does not exist"),
    ];
    for (sql, errno, text) in cases {
        let out = s.query(sql.as_bytes());
        let e = out.error.ok_or(format!("{sql} succeeded"))?;
        assert_eq!(
            (e.code(), e.message().to_string()),
            (errno, text.to_string()),
            "{sql}"
        );
    }
    s.execute("CREATE VIEW v AS SELECT * FROM t1")?;
    assert_eq!(
        message(
            &mut s,
            "CREATE TRIGGER x BEFORE INSERT ON v FOR EACH ROW SET @a = 1"
        ),
        "'test.v' is not of type 'BASE TABLE'"
    );
    s.execute("CREATE TEMPORARY TABLE tmp (a INT)")?;
    assert_eq!(
        code(
            &mut s,
            "CREATE TRIGGER x BEFORE INSERT ON tmp FOR EACH ROW SET @a = 1"
        ),
        1361
    );
    s.execute("DROP TRIGGER IF EXISTS nosuch")?;
    assert_eq!(
        flat(rows(&mut s, "SHOW WARNINGS")?),
        ["Note,1360,Trigger does not exist"]
    );
    s.execute("DROP TRIGGER test.t1_bi")?;
    assert_eq!(code(&mut s, "DROP TRIGGER t1_bi"), 1360);
    // The TRIGGER privilege is checked on CREATE and DROP.
    s.execute("CREATE USER u@localhost")?;
    s.execute("GRANT SELECT, INSERT ON test.* TO u@localhost")?;
    let mut u = t.db.new_session(0, "u", "localhost")?;
    u.use_database("test")?;
    assert_eq!(
        message(
            &mut u,
            "CREATE TRIGGER x BEFORE INSERT ON t1 FOR EACH ROW SET @a = 1"
        ),
        "TRIGGER command denied to user 'u'@'localhost' for table `test`.`t1`"
    );
    s.execute("GRANT TRIGGER ON test.t1 TO u@localhost")?;
    assert_eq!(
        flat(rows(&mut s, "SHOW GRANTS FOR u@localhost")?),
        [
            "GRANT USAGE ON *.* TO `u`@`localhost`",
            "GRANT SELECT, INSERT ON `test`.* TO `u`@`localhost`",
            "GRANT TRIGGER ON `test`.`t1` TO `u`@`localhost`"
        ]
    );
    u.execute("CREATE TRIGGER x BEFORE INSERT ON t1 FOR EACH ROW SET @a = 1")?;
    u.execute("DROP TRIGGER x")?;
    Ok(())
}

#[test]
fn show_triggers_show_create_and_information_schema() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("SET TIMESTAMP = UNIX_TIMESTAMP('2001-01-01 10:20:30')")?;
    s.execute(
        "CREATE DEFINER = root@localhost TRIGGER t1_bi\nBEFORE INSERT\nON t1\nFOR EACH ROW\nBEGIN\nSET NEW.b = 'x';\nEND",
    )?;
    s.execute("CREATE TRIGGER log_ad AFTER DELETE ON log FOR EACH ROW SET @d = OLD.id")?;
    s.execute("SET TIMESTAMP = DEFAULT")?;
    let (names, r) = support::query(&mut s, "SHOW TRIGGERS")?;
    assert_eq!(
        names,
        [
            "Trigger",
            "Event",
            "Table",
            "Statement",
            "Timing",
            "Created",
            "sql_mode",
            "Definer",
            "character_set_client",
            "collation_connection",
            "Database Collation"
        ]
    );
    assert_eq!(r.len(), 2);
    assert_eq!(
        r[0][..6],
        [
            "log_ad",
            "DELETE",
            "log",
            "SET @d = OLD.id",
            "AFTER",
            "2001-01-01 10:20:30.00"
        ]
    );
    assert_eq!(
        r[1][..6],
        [
            "t1_bi",
            "INSERT",
            "t1",
            "BEGIN\nSET NEW.b = 'x';\nEND",
            "BEFORE",
            "2001-01-01 10:20:30.00"
        ]
    );
    assert_eq!(r[1][7], "root@localhost");
    assert_eq!(flat(rows(&mut s, "SHOW TRIGGERS LIKE 't%'")?).len(), 1);
    assert_eq!(
        one(&mut s, "SHOW TRIGGERS FROM test WHERE `Timing` = 'AFTER'")?,
        "log_ad"
    );
    let (names, r) = support::query(&mut s, "SHOW CREATE TRIGGER t1_bi")?;
    assert_eq!(
        names,
        [
            "Trigger",
            "sql_mode",
            "SQL Original Statement",
            "character_set_client",
            "collation_connection",
            "Database Collation",
            "Created"
        ]
    );
    assert_eq!(
        r[0][2],
        "CREATE DEFINER=`root`@`localhost` TRIGGER t1_bi\nBEFORE INSERT\nON t1\nFOR EACH ROW\nBEGIN\nSET NEW.b = 'x';\nEND"
    );
    assert_eq!(r[0][6], "2001-01-01 10:20:30.00");
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT TRIGGER_CATALOG, TRIGGER_SCHEMA, TRIGGER_NAME, EVENT_MANIPULATION,
                    EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, ACTION_ORDER, ACTION_CONDITION,
                    ACTION_ORIENTATION, ACTION_TIMING, ACTION_REFERENCE_OLD_ROW,
                    ACTION_REFERENCE_NEW_ROW, CREATED, DEFINER
             FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'test'"
        )?),
        [
            "def,test,log_ad,DELETE,test,log,1,NULL,ROW,AFTER,OLD,NEW,2001-01-01 10:20:30.00,root@localhost",
            "def,test,t1_bi,INSERT,test,t1,1,NULL,ROW,BEFORE,OLD,NEW,2001-01-01 10:20:30.00,root@localhost"
        ]
    );
    Ok(())
}

#[test]
fn tables_renamed_altered_and_dropped_and_a_restart() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let mut s = db.new_session(0, "root", "localhost")?;
        s.use_database("test")?;
        s.execute("CREATE TABLE r1 (a INT)")?;
        s.execute("CREATE TABLE cnt (n INT)")?;
        s.execute("INSERT INTO cnt VALUES (0)")?;
        s.execute(
            "CREATE TRIGGER r_bi BEFORE INSERT ON test.r1 FOR EACH ROW UPDATE cnt SET n = n + 1",
        )?;
        s.execute("RENAME TABLE r1 TO r2")?;
        s.execute("ALTER TABLE r2 ADD COLUMN b INT")?;
        s.execute("TRUNCATE r2")?;
        s.execute("ALTER TABLE r2 RENAME TO r3")?;
        s.execute("CREATE DATABASE other")?;
        assert_eq!(code(&mut s, "RENAME TABLE r3 TO other.r3"), 1435);
    }
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let mut s = db.new_session(0, "root", "localhost")?;
    s.use_database("test")?;
    s.execute("INSERT INTO r3 (a) VALUES (1), (2)")?;
    assert_eq!(one(&mut s, "SELECT n FROM cnt")?, "2");
    assert_eq!(
        rows(&mut s, "SHOW CREATE TRIGGER r_bi")?[0][2],
        "CREATE DEFINER=`root`@`localhost` TRIGGER r_bi BEFORE INSERT ON `r3` FOR EACH ROW UPDATE cnt SET n = n + 1"
    );
    s.execute("DROP TABLE r3")?;
    assert_eq!(code(&mut s, "DROP TRIGGER r_bi"), 1360);
    s.execute("CREATE TABLE other.o (a INT)")?;
    s.execute("CREATE TRIGGER other.o_bi BEFORE INSERT ON o FOR EACH ROW SET @o = 1")?;
    assert_eq!(rows(&mut s, "SHOW TRIGGERS FROM other")?.len(), 1);
    s.execute("DROP DATABASE other")?;
    s.execute("CREATE DATABASE other")?;
    assert_eq!(rows(&mut s, "SHOW TRIGGERS FROM other")?.len(), 0);
    Ok(())
}
