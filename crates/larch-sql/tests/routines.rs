//! Stored procedures and functions end to end, in process: CREATE / DROP /
//! ALTER, CALL with IN/OUT/INOUT parameters and result sets, stored
//! functions in expressions, the compound-statement constructs (blocks,
//! variables, IF, CASE, loops, handlers, cursors, SIGNAL), SHOW CREATE and
//! SHOW STATUS, MariaDB's errors, and persistence across a restart.

mod support;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use support::{code, one, results, rows, TestDb, R};

fn setup() -> R<TestDb> {
    TestDb::new(&[
        "CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10))",
        "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z')",
    ])
}

fn flat(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|r| r.join(",")).collect()
}

#[test]
fn procedures_take_parameters_and_return_result_sets() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE PROCEDURE p(IN x INT, OUT y INT, INOUT z VARCHAR(20))
         BEGIN
           SELECT id, b FROM t WHERE a > x ORDER BY id;
           SET y = x * 2;
           SET z = CONCAT(z, '!');
           SELECT y, z;
         END",
    )?;
    s.execute("SET @z = 'hi'")?;
    assert_eq!(
        results(&mut s, "CALL p(15, @y, @z)")?,
        ["2,y|3,z", "30,hi!", "OK"]
    );
    assert_eq!(flat(rows(&mut s, "SELECT @y, @z")?), ["30,hi!"]);
    // CALL without parentheses, and a procedure changing data.
    s.execute("CREATE PROCEDURE ins() INSERT INTO t VALUES (4, 40, 'w')")?;
    assert_eq!(results(&mut s, "CALL ins")?, ["OK"]);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t")?, "4");
    // Errors: wrong argument count, unknown procedure, OUT not a variable.
    assert_eq!(code(&mut s, "CALL p(1, @y)"), 1318);
    assert_eq!(code(&mut s, "CALL nope()"), 1305);
    assert_eq!(code(&mut s, "CALL p(1, 2, @z)"), 1414);
    Ok(())
}

#[test]
fn functions_work_in_any_expression() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute("CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2")?;
    s.execute(
        "CREATE FUNCTION grade(n INT) RETURNS VARCHAR(10)
         BEGIN
           DECLARE r VARCHAR(10) DEFAULT 'low';
           IF n >= 30 THEN SET r = 'high';
           ELSEIF n >= 20 THEN SET r = 'mid';
           END IF;
           RETURN r;
         END",
    )?;
    assert_eq!(one(&mut s, "SELECT twice(21)")?, "42");
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT id, twice(a), grade(a) FROM t ORDER BY id"
        )?),
        ["1,20,low", "2,40,mid", "3,60,high"]
    );
    assert_eq!(
        flat(rows(
            &mut s,
            "SELECT id FROM t WHERE twice(a) > 30 ORDER BY id"
        )?),
        ["2", "3"]
    );
    // A function reading a table.
    s.execute(
        "CREATE FUNCTION total() RETURNS INT READS SQL DATA
         BEGIN DECLARE n INT; SELECT SUM(a) INTO n FROM t; RETURN n; END",
    )?;
    assert_eq!(one(&mut s, "SELECT total()")?, "60");
    assert_eq!(one(&mut s, "SELECT test.total() + 1")?, "61");
    // Errors: argument count, no RETURN, recursion, result set, unknown.
    assert_eq!(code(&mut s, "SELECT twice(1, 2)"), 1318);
    s.execute("CREATE FUNCTION noret() RETURNS INT BEGIN DECLARE x INT; SET x = 1; END")?;
    assert_eq!(code(&mut s, "SELECT noret()"), 1321);
    s.execute("CREATE FUNCTION rec(n INT) RETURNS INT RETURN IF(n > 0, rec(n - 1), 0)")?;
    assert_eq!(code(&mut s, "SELECT rec(3)"), 1424);
    assert_eq!(
        code(
            &mut s,
            "CREATE FUNCTION rs() RETURNS INT BEGIN SELECT 1; RETURN 1; END"
        ),
        1415
    );
    assert_eq!(code(&mut s, "SELECT nosuchfn(1)"), 1305);
    Ok(())
}

#[test]
fn loops_case_and_labels() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE PROCEDURE loops(OUT w INT, OUT r INT, OUT l INT, OUT c VARCHAR(10))
         BEGIN
           DECLARE i INT DEFAULT 0;
           SET w = 0;
           WHILE i < 5 DO SET i = i + 1; SET w = w + i; END WHILE;
           SET r = 0;
           REPEAT SET r = r + 10; UNTIL r >= 30 END REPEAT;
           SET l = 0;
           outer_loop: LOOP
             SET l = l + 1;
             IF l < 3 THEN ITERATE outer_loop; END IF;
             LEAVE outer_loop;
           END LOOP outer_loop;
           CASE l WHEN 1 THEN SET c = 'one'; WHEN 3 THEN SET c = 'three'; ELSE SET c = 'other'; END CASE;
           blk: BEGIN
             LEAVE blk;
             SET c = 'unreached';
           END blk;
         END",
    )?;
    s.execute("CALL loops(@w, @r, @l, @c)")?;
    assert_eq!(
        flat(rows(&mut s, "SELECT @w, @r, @l, @c")?),
        ["15,30,3,three"]
    );
    s.execute("CREATE PROCEDURE nocase(x INT) CASE WHEN x > 0 THEN SELECT 'pos'; END CASE")?;
    assert_eq!(results(&mut s, "CALL nocase(1)")?, ["pos", "OK"]);
    assert_eq!(code(&mut s, "CALL nocase(0)"), 1339);
    // Label errors at CREATE.
    assert_eq!(
        code(&mut s, "CREATE PROCEDURE bad() BEGIN LEAVE nowhere; END"),
        1308
    );
    assert_eq!(
        code(&mut s, "CREATE PROCEDURE bad() a: LOOP LEAVE a; END LOOP b"),
        1310
    );
    Ok(())
}

#[test]
fn handlers_cursors_and_signals() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE PROCEDURE sum_cursor(OUT total INT, OUT names VARCHAR(50))
         BEGIN
           DECLARE done INT DEFAULT 0;
           DECLARE v INT;
           DECLARE n VARCHAR(10);
           DECLARE cur CURSOR FOR SELECT a, b FROM t ORDER BY id;
           DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
           SET total = 0, names = '';
           OPEN cur;
           read_loop: LOOP
             FETCH cur INTO v, n;
             IF done THEN LEAVE read_loop; END IF;
             SET total = total + v;
             SET names = CONCAT(names, n);
           END LOOP;
           CLOSE cur;
         END",
    )?;
    s.execute("CALL sum_cursor(@t, @n)")?;
    assert_eq!(flat(rows(&mut s, "SELECT @t, @n")?), ["60,xyz"]);
    // EXIT handler for a duplicate key; CONTINUE handler by error number.
    s.execute(
        "CREATE PROCEDURE dup(OUT res VARCHAR(20))
         BEGIN
           DECLARE EXIT HANDLER FOR SQLEXCEPTION SET res = 'caught';
           SET res = 'start';
           INSERT INTO t VALUES (1, 1, 'dup');
           SET res = 'not here';
         END",
    )?;
    s.execute("CALL dup(@r)")?;
    assert_eq!(one(&mut s, "SELECT @r")?, "caught");
    s.execute(
        "CREATE PROCEDURE cont(OUT res INT)
         BEGIN
           DECLARE dup_key CONDITION FOR 1062;
           DECLARE CONTINUE HANDLER FOR dup_key SET res = res + 100;
           SET res = 1;
           INSERT INTO t VALUES (1, 1, 'dup');
           SET res = res + 1;
         END",
    )?;
    s.execute("CALL cont(@r)")?;
    assert_eq!(one(&mut s, "SELECT @r")?, "102");
    // SIGNAL: unhandled, with a message and number; handled by SQLSTATE.
    s.execute(
        "CREATE PROCEDURE sig(x INT)
         BEGIN
           IF x < 0 THEN
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative', MYSQL_ERRNO = 1644;
           END IF;
           SELECT x;
         END",
    )?;
    let out = s.query(b"CALL sig(-1)");
    let e = out.error.ok_or("SIGNAL did not fail")?;
    assert_eq!((e.code(), e.message()), (1644, "negative".to_string()));
    assert_eq!(code(&mut s, "CALL sig(-1)"), 1644);
    s.execute(
        "CREATE PROCEDURE sig2(OUT m VARCHAR(20))
         BEGIN
           DECLARE EXIT HANDLER FOR SQLSTATE '45001' SET m = 'handled';
           SIGNAL SQLSTATE '45001';
         END",
    )?;
    s.execute("CALL sig2(@m)")?;
    assert_eq!(one(&mut s, "SELECT @m")?, "handled");
    // RESIGNAL re-raises the handled error.
    s.execute(
        "CREATE PROCEDURE resig()
         BEGIN
           DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL;
           INSERT INTO t VALUES (1, 1, 'dup');
         END",
    )?;
    assert_eq!(code(&mut s, "CALL resig()"), 1062);
    // Cursor errors.
    s.execute("CREATE PROCEDURE c2() BEGIN DECLARE c CURSOR FOR SELECT 1; OPEN c; OPEN c; END")?;
    assert_eq!(code(&mut s, "CALL c2()"), 1325);
    s.execute("CREATE PROCEDURE c3() BEGIN DECLARE c CURSOR FOR SELECT 1; CLOSE c; END")?;
    assert_eq!(code(&mut s, "CALL c3()"), 1326);
    s.execute(
        "CREATE PROCEDURE c4() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT 1 FROM t WHERE 0; OPEN c; FETCH c INTO x; END",
    )?;
    assert_eq!(code(&mut s, "CALL c4()"), 1329);
    assert_eq!(
        code(&mut s, "CREATE PROCEDURE c5() BEGIN OPEN nope; END"),
        1324
    );
    // Declaration order.
    assert_eq!(
        code(
            &mut s,
            "CREATE PROCEDURE d1() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END"
        ),
        1337
    );
    assert_eq!(
        code(
            &mut s,
            "CREATE PROCEDURE d2() BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END; DECLARE c CURSOR FOR SELECT 1; END"
        ),
        1338
    );
    Ok(())
}

#[test]
fn ddl_show_and_errors() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    s.execute(
        "CREATE PROCEDURE p1(IN a INT) COMMENT 'hello' SQL SECURITY INVOKER BEGIN SELECT a; END",
    )?;
    assert_eq!(code(&mut s, "CREATE PROCEDURE p1() SELECT 1"), 1304);
    s.execute("CREATE PROCEDURE IF NOT EXISTS p1() SELECT 1")?;
    assert_eq!(s.warning_count(), 1);
    s.execute("CREATE OR REPLACE PROCEDURE p1(IN a INT) COMMENT 'hello' BEGIN SELECT a + 1; END")?;
    assert_eq!(results(&mut s, "CALL p1(1)")?, ["2", "OK"]);
    let r = rows(&mut s, "SHOW CREATE PROCEDURE p1")?;
    assert_eq!(r[0][0], "p1");
    assert_eq!(
        r[0][2],
        "CREATE DEFINER=`root`@`localhost` PROCEDURE `p1`(IN a INT)\n    COMMENT 'hello'\nBEGIN SELECT a + 1; END"
    );
    s.execute("ALTER PROCEDURE p1 COMMENT 'changed' SQL SECURITY INVOKER")?;
    let r = rows(&mut s, "SHOW PROCEDURE STATUS WHERE Db = 'test'")?;
    assert_eq!(r.len(), 1);
    assert_eq!(
        (
            r[0][0].as_str(),
            r[0][1].as_str(),
            r[0][2].as_str(),
            r[0][3].as_str()
        ),
        ("test", "p1", "PROCEDURE", "root@localhost")
    );
    assert_eq!((r[0][6].as_str(), r[0][7].as_str()), ("INVOKER", "changed"));
    s.execute("CREATE FUNCTION f1(x INT) RETURNS INT NO SQL DETERMINISTIC RETURN x")?;
    let r = rows(&mut s, "SHOW CREATE FUNCTION f1")?;
    assert_eq!(
        r[0][2],
        "CREATE DEFINER=`root`@`localhost` FUNCTION `f1`(x INT) RETURNS INT\n    NO SQL\n    DETERMINISTIC\nRETURN x"
    );
    assert_eq!(rows(&mut s, "SHOW FUNCTION STATUS LIKE 'f%'")?.len(), 1);
    // A procedure and a function may share a name.
    s.execute("CREATE PROCEDURE f1() SELECT 1")?;
    s.execute("DROP PROCEDURE f1")?;
    assert_eq!(code(&mut s, "DROP PROCEDURE f1"), 1305);
    s.execute("DROP PROCEDURE IF EXISTS f1")?;
    assert_eq!(s.warning_count(), 1);
    assert_eq!(code(&mut s, "SHOW CREATE PROCEDURE nope"), 1305);
    assert_eq!(code(&mut s, "ALTER FUNCTION nope COMMENT 'x'"), 1305);
    // Undeclared variables, recursion limit.
    // An undeclared variable is found when the statement runs.
    s.execute("CREATE PROCEDURE u() BEGIN DECLARE x INT; SELECT 1 INTO y; END")?;
    assert_eq!(code(&mut s, "CALL u()"), 1327);
    s.execute("CREATE PROCEDURE r(n INT) BEGIN IF n > 0 THEN CALL r(n - 1); END IF; END")?;
    assert_eq!(code(&mut s, "CALL r(2)"), 1456);
    s.execute("SET max_sp_recursion_depth = 5")?;
    s.execute("CALL r(2)")?;
    // DROP DATABASE drops its routines.
    s.execute("CREATE DATABASE other")?;
    s.execute("CREATE PROCEDURE other.op() SELECT 1")?;
    assert_eq!(results(&mut s, "CALL other.op()")?, ["1", "OK"]);
    s.execute("DROP DATABASE other")?;
    s.execute("CREATE DATABASE other")?;
    assert_eq!(code(&mut s, "CALL other.op()"), 1305);
    Ok(())
}

#[test]
fn routines_survive_a_restart() -> R<()> {
    let dir = tempfile::tempdir()?;
    {
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let mut s = db.new_session(0, "root", "localhost")?;
        s.use_database("test")?;
        s.execute("CREATE FUNCTION add1(x INT) RETURNS INT RETURN x + 1")?;
        s.execute("CREATE PROCEDURE hello() SELECT 'hello'")?;
    }
    let db = Database::open(EngineConfig::new(dir.path()))?;
    let mut s = db.new_session(0, "root", "localhost")?;
    s.use_database("test")?;
    assert_eq!(one(&mut s, "SELECT add1(41)")?, "42");
    assert_eq!(results(&mut s, "CALL hello()")?, ["hello", "OK"]);
    Ok(())
}

#[test]
fn anonymous_blocks_information_schema_and_trigger_bodies() -> R<()> {
    let t = setup()?;
    let mut s = t.session(5)?;
    // BEGIN NOT ATOMIC runs directly, several statements in one query.
    assert_eq!(
        results(
            &mut s,
            "BEGIN NOT ATOMIC DECLARE x INT DEFAULT 2; SELECT a * x FROM t WHERE id = 1; END"
        )?,
        ["20", "OK"]
    );
    let out = s.query(b"SELECT 1; BEGIN NOT ATOMIC SET @q = 5; END; SELECT @q");
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.results.len(), 3);
    // Functions inside procedures, locals shadowing columns.
    s.execute("CREATE FUNCTION sq(a INT) RETURNS INT RETURN a * a")?;
    s.execute(
        "CREATE PROCEDURE use_fn(OUT r INT) BEGIN DECLARE a INT DEFAULT 3; SET r = sq(a) + (SELECT COUNT(*) FROM t WHERE a > 15); END",
    )?;
    s.execute("CALL use_fn(@r)")?;
    assert_eq!(one(&mut s, "SELECT @r")?, "9");
    let r = rows(
        &mut s,
        "SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, IS_DETERMINISTIC, ROUTINE_DEFINITION
         FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'test' ORDER BY ROUTINE_NAME",
    )?;
    assert_eq!(
        flat(r),
        [
            "sq,FUNCTION,int,NO,RETURN a * a",
            "use_fn,PROCEDURE,,NO,BEGIN DECLARE a INT DEFAULT 3; SET r = sq(a) + (SELECT COUNT(*) FROM t WHERE a > 15); END"
        ]
    );
    // A trigger's body is cut whole from a multi-statement query; the next
    // statement runs.
    let out = s.query(
        b"CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END; SELECT 2",
    );
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.results.len(), 2);
    Ok(())
}
