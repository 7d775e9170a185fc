//! Parsing tests: every statement kind the SQL layer needs, the rewrites and
//! own statements, mysqldump text, and MySQL's syntax-error text.

use sqlparser::ast;

use super::*;

mod ddl;

fn one(sql: &str) -> Statement {
    match parse(sql) {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        other => panic!("{sql}: {other:?}"),
    }
}

fn sql_of(sql: &str) -> String {
    match one(sql) {
        Statement::Sql(s) => s.to_string(),
        other => panic!("{sql}: not a sqlparser statement: {other:?}"),
    }
}

fn syntax(sql: &str) -> (String, u64) {
    match parse(sql) {
        Err(SqlError::Syntax { near, line }) => (near, line),
        other => panic!("{sql}: expected a syntax error, got {other:?}"),
    }
}

/// Every statement kind the SQL layer must accept parses (issue list, sysbench,
/// mysqldump and mariadb-dump output).
#[test]
fn listed_statement_kinds_parse() {
    let stmts = [
        "CREATE DATABASE IF NOT EXISTS `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */",
        "CREATE SCHEMA d DEFAULT CHARSET=latin1",
        "DROP DATABASE IF EXISTS d",
        "CREATE TABLE t (a bigint(20) unsigned NOT NULL AUTO_INCREMENT, b tinyint(1) DEFAULT NULL, c mediumint, d decimal(10,2) NOT NULL DEFAULT 0.00, e float, f double, g char(10), h varchar(255) CHARACTER SET latin1 COLLATE latin1_bin, i binary(4), j varbinary(10), k tinytext, l text, m mediumtext, n longtext, o tinyblob, p blob, q mediumblob, r longblob, s date, u time(3), v datetime(6), w timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(), x year(4), y enum('a','b') DEFAULT 'a', z set('x','y'), bb bit(8) DEFAULT b'0', PRIMARY KEY (`a`), UNIQUE KEY `uk` (`g`), KEY `k` (`h`(10)), FULLTEXT KEY `ft` (`l`)) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC COMMENT='hello'",
        "CREATE TABLE IF NOT EXISTS t2 LIKE t",
        "DROP TABLE IF EXISTS t, t2",
        "RENAME TABLE a TO b, c TO d",
        "TRUNCATE TABLE t",
        "CREATE UNIQUE INDEX i ON t (a, b(10))",
        "DROP INDEX i ON t",
        "ALTER TABLE t ADD INDEX i (a), DROP INDEX j",
        "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 1 AFTER b",
        "ALTER TABLE t DROP COLUMN c",
        "ALTER TABLE t MODIFY COLUMN c BIGINT NOT NULL",
        "ALTER TABLE t CHANGE COLUMN c d INT AFTER a",
        "ALTER TABLE t RENAME COLUMN c TO d",
        "INSERT INTO t (a,b) VALUES (1,'a\\'b'),(2,_binary 'x')",
        "INSERT INTO t SELECT * FROM u",
        "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = a + 1, b = VALUES(b)",
        "INSERT IGNORE INTO t VALUES (1)",
        "REPLACE INTO t VALUES (1)",
        "UPDATE t SET a = a + 1 WHERE b = 2 ORDER BY c LIMIT 10",
        "DELETE FROM t WHERE a = 1 ORDER BY b LIMIT 5",
        "UPDATE t1 JOIN t2 ON t1.id = t2.id SET t1.a = 1",
        "DELETE t1, t2 FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.a = 1",
        "SELECT DISTINCT a, COUNT(*), GROUP_CONCAT(f ORDER BY f SEPARATOR ',') FROM t WHERE a > 1 GROUP BY a HAVING COUNT(*) > 1 ORDER BY a DESC LIMIT 10 OFFSET 5",
        "SELECT c FROM sbtest1 WHERE id=?",
        "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
        "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
        "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
        "UPDATE sbtest1 SET k=k+1 WHERE id=?",
        "DELETE FROM sbtest1 WHERE id=?",
        "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
        "SELECT * FROM a LEFT JOIN b USING (y) RIGHT JOIN c ON 1 WHERE x IN (SELECT 1) AND EXISTS (SELECT 2)",
        "SELECT 1 UNION SELECT 2 UNION ALL SELECT 3",
        "SELECT * FROM t WHERE a = 1 FOR UPDATE",
        "COMMIT", "ROLLBACK", "SAVEPOINT s1", "ROLLBACK TO s1", "RELEASE SAVEPOINT s1",
        "SET autocommit = 0",
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        "SET tx_isolation = 'READ-UNCOMMITTED'",
        "SET NAMES utf8mb4", "SET @a = 1, @@session.sql_mode = DEFAULT",
        "USE test", "SHOW DATABASES", "SHOW FULL TABLES FROM d LIKE 't%'",
        "SHOW FULL COLUMNS FROM t", "SHOW INDEX FROM t", "SHOW CREATE TABLE t",
        "SHOW GLOBAL VARIABLES LIKE 'x'", "SHOW STATUS", "SHOW ENGINES", "SHOW FULL PROCESSLIST",
        "LOCK TABLES `t` WRITE, u READ LOCAL", "UNLOCK TABLES",
        "EXPLAIN SELECT * FROM t", "KILL QUERY 5", "KILL CONNECTION 5", "KILL 5",
        "SELECT @@max_allowed_packet,@@wait_timeout,@@socket",
    ];
    for s in stmts {
        one(s);
    }
}

#[test]
fn rewrites_close_sqlparser_gaps() {
    assert_eq!(
        sql_of("SELECT * FROM t WHERE a = 1 LOCK IN SHARE MODE"),
        "SELECT * FROM t WHERE a = 1 FOR SHARE"
    );
    assert_eq!(
        sql_of("SELECT a MOD 2, MOD(a, 3), 7 mod (2)"),
        // The items keep their text as written as their names.
        "SELECT a % 2 AS `a MOD 2`, MOD(a, 3) AS `MOD(a, 3)`, 7 % (2) AS `7 mod (2)`"
    );
    assert_eq!(
        sql_of("SELECT DATE_SUB(d, INTERVAL '1:2' HOUR_MINUTE)"),
        "SELECT DATE_SUB(d, INTERVAL '1:2' HOUR TO MINUTE) \
         AS `DATE_SUB(d, INTERVAL '1:2' HOUR_MINUTE)`"
    );
    assert_eq!(
        sql_of("UPDATE t1, t2 SET t1.a = t2.a WHERE t1.id = t2.id"),
        "UPDATE t1 CROSS JOIN t2 SET t1.a = t2.a WHERE t1.id = t2.id"
    );
    assert_eq!(sql_of("EXPLAIN EXTENDED SELECT 1"), "EXPLAIN SELECT 1");
    assert_eq!(
        sql_of("SELECT * FROM t WHERE MATCH a, t.b AGAINST ('x') AND MATCH (c) AGAINST ('y')"),
        "SELECT * FROM t WHERE MATCH (a, t.b) AGAINST ('x') AND MATCH (c) AGAINST ('y')"
    );
    assert_eq!(
        sql_of("SELECT MATCH a,b AGAINST ('x'), 1 FROM t"),
        "SELECT MATCH (a, b) AGAINST ('x') AS `MATCH a,b AGAINST ('x')`, 1 AS `1` FROM t"
    );
    // Quoted words are never rewritten.
    assert_eq!(
        sql_of("SELECT 'LOCK IN SHARE MODE', `mod`"),
        "SELECT 'LOCK IN SHARE MODE', `mod`"
    );
}

#[test]
fn own_statements() {
    let tx = |read_only, consistent_snapshot| Statement::StartTransaction {
        read_only,
        consistent_snapshot,
    };
    assert_eq!(one("START TRANSACTION"), tx(None, false));
    assert_eq!(one("begin work"), tx(None, false));
    assert_eq!(one("START TRANSACTION READ ONLY"), tx(Some(true), false));
    assert_eq!(one("START TRANSACTION READ WRITE"), tx(Some(false), false));
    assert_eq!(
        one("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"),
        tx(Some(true), true)
    );
    let t = ast::ObjectName::from(vec![ast::Ident::with_quote('`', "t")]);
    assert_eq!(
        one("/*!40000 ALTER TABLE `t` DISABLE KEYS */;"),
        Statement::AlterTableKeys {
            table: t.clone(),
            enable: false
        }
    );
    assert_eq!(
        one("ALTER TABLE `t` ENABLE KEYS"),
        Statement::AlterTableKeys {
            table: t,
            enable: true
        }
    );
    assert!(
        matches!(one("ALTER TABLE d.t ENGINE=InnoDB"), Statement::AlterTableEngine { engine, .. } if engine == "InnoDB")
    );
    assert!(matches!(
        one("CREATE FULLTEXT INDEX ft ON t (a, b)"),
        Statement::CreateFulltextIndex { columns, .. } if columns.len() == 2
    ));
    assert!(matches!(
        one("OPTIMIZE TABLE t, u"),
        Statement::TableMaintenance { op: MaintenanceOp::Optimize, tables } if tables.len() == 2
    ));
    assert!(matches!(
        one("CHECK TABLE t EXTENDED"),
        Statement::TableMaintenance {
            op: MaintenanceOp::Check,
            ..
        }
    ));
    assert!(matches!(
        one("ANALYZE LOCAL TABLE t"),
        Statement::TableMaintenance {
            op: MaintenanceOp::Analyze,
            ..
        }
    ));
    assert_eq!(
        one("SHOW ENGINE INNODB STATUS"),
        Statement::ShowEngine {
            engine: "INNODB".into(),
            kind: ShowEngineKind::Status
        }
    );
    assert_eq!(
        one("SHOW WARNINGS LIMIT 2, 5"),
        Statement::ShowWarnings {
            errors: false,
            count_only: false,
            limit: Some((2, 5))
        }
    );
    assert_eq!(
        one("SHOW COUNT(*) ERRORS"),
        Statement::ShowWarnings {
            errors: true,
            count_only: true,
            limit: None
        }
    );
    assert!(matches!(
        one("SHOW CREATE DATABASE IF NOT EXISTS d"),
        Statement::ShowCreateDatabase {
            if_not_exists: true,
            ..
        }
    ));
    assert_eq!(
        one("SET CHARACTER SET utf8"),
        Statement::SetCharset {
            charset: Some("utf8".into())
        }
    );
    assert_eq!(
        one("SET CHARSET DEFAULT"),
        Statement::SetCharset { charset: None }
    );
    assert!(matches!(one("DO 1, SLEEP(0)"), Statement::Do(e) if e.len() == 2));
    assert_eq!(one("shutdown"), Statement::Shutdown);
    assert!(matches!(
        one("KILL QUERY 7"),
        Statement::Kill {
            query_only: true,
            ..
        }
    ));
    assert!(matches!(
        one("KILL @id"),
        Statement::Kill {
            query_only: false,
            ..
        }
    ));
}

#[test]
fn load_data_common_form() {
    let Statement::LoadData(l) = one(
        "LOAD DATA LOCAL INFILE 'x.csv' REPLACE INTO TABLE d.t CHARACTER SET utf8mb4 \
         FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' \
         LINES STARTING BY '>' TERMINATED BY '\\r\\n' IGNORE 1 LINES (a, @b) SET c = @b + 1",
    ) else {
        panic!("not LOAD DATA");
    };
    assert!(l.local);
    assert_eq!(l.file, "x.csv");
    assert_eq!(l.duplicates, extra::LoadDuplicates::Replace);
    assert_eq!(l.table.to_string(), "d.t");
    assert_eq!(l.charset.as_deref(), Some("utf8mb4"));
    assert_eq!(l.format.fields_terminated_by, ",");
    assert_eq!(l.format.fields_enclosed_by, "\"");
    assert!(l.format.fields_optionally_enclosed);
    assert_eq!(l.format.fields_escaped_by, "\\");
    assert_eq!(l.format.lines_starting_by, ">");
    assert_eq!(l.format.lines_terminated_by, "\r\n");
    assert_eq!(l.ignore_lines, 1);
    assert_eq!(
        l.columns
            .iter()
            .map(|c| c.value.as_str())
            .collect::<Vec<_>>(),
        ["a", "@b"]
    );
    assert_eq!(l.set.len(), 1);
    let Statement::LoadData(d) = one("LOAD DATA INFILE '/tmp/x' INTO TABLE t") else {
        panic!("not LOAD DATA");
    };
    assert!(!d.local);
    assert_eq!(
        (
            d.format.fields_terminated_by.as_str(),
            d.format.lines_terminated_by.as_str()
        ),
        ("\t", "\n")
    );
}

#[test]
fn mysqldump_file_parses_statement_by_statement() -> Result<(), SqlError> {
    let dump = "/*M!999999\\- enable the sandbox mode */ \n\
        -- MariaDB dump 10.19\n\
        /*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n\
        /*!40101 SET NAMES utf8mb4 */;\n\
        /*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n\
        /*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n\
        /*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n\
        /*M!100616 SET @OLD_NOTE_VERBOSITY=@@NOTE_VERBOSITY, NOTE_VERBOSITY=0 */;\n\
        DROP TABLE IF EXISTS `t`;\n\
        /*!40101 SET @saved_cs_client     = @@character_set_client */;\n\
        CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `b` blob,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;\n\
        LOCK TABLES `t` WRITE;\n\
        /*!40000 ALTER TABLE `t` DISABLE KEYS */;\n\
        INSERT INTO `t` VALUES (1,'a;b\\'c'),(2,0x00FF3B);\n\
        /*!40000 ALTER TABLE `t` ENABLE KEYS */;\n\
        UNLOCK TABLES;\n\
        /*M!999999 SET FUTURE=1 */;\n";
    let stmts = parse(dump)?;
    assert_eq!(stmts.len(), 14);
    assert!(matches!(
        stmts[10],
        Statement::AlterTableKeys { enable: false, .. }
    ));
    match &stmts[11] {
        Statement::Sql(s) => assert!(s.to_string().contains("'a;b''c'")),
        other => panic!("{other:?}"),
    }
    Ok(())
}

#[test]
fn syntax_errors_read_like_mysql() {
    assert_eq!(
        syntax("select * frm t where a = 1"),
        ("frm t where a = 1".into(), 1)
    );
    assert_eq!(syntax("select 1 +"), (String::new(), 1));
    assert_eq!(syntax("select\n  2 frm x y"), ("x y".into(), 2));
    let long = format!("select 1 frm {}", "1234567890".repeat(9));
    let (near, _) = syntax(&long);
    assert_eq!(near.len(), 80);
    assert!(near.ends_with("567...") && near.starts_with("1234567890"));
    let exact = format!("select 1 frm {}", "1234567890".repeat(8));
    assert_eq!(syntax(&exact).0.len(), 80);
    let multi = format!("select 1 frm {}", "é".repeat(45));
    assert_eq!(syntax(&multi).0, format!("{}...", "é".repeat(38)));
    // The error of the second statement of a multi-statement text; lines count
    // from the statement's first non-blank character.
    assert_eq!(syntax("select 1;\n\n  select 2 2 2"), ("2 2".into(), 1));
    // Positions survive blanked comments with multi-byte characters.
    assert_eq!(syntax("select /* ééé */ 1 frm x"), ("x".into(), 1));
    let e = parse("SELEC 1").expect_err("syntax");
    assert_eq!((e.code(), e.sqlstate()), (1064, "42000"));
    assert_eq!(
        e.message(),
        "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'SELEC 1' at line 1"
    );
}

#[test]
fn empty_queries_and_deep_nesting() {
    for q in ["", "  ", "/* c */", "-- x\n", ";"] {
        assert_eq!(parse(q).map_err(|e| e.code()).err(), Some(1065), "{q:?}");
    }
    // Deeper than Larch's parser goes: a clear error (1436, thread stack
    // overrun), never a crash of the server.
    let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(parse(&deep).map_err(|e| e.code()).err(), Some(1436));
    // Nested subqueries past MariaDB's 63 levels are refused (1473), also
    // when they nest far deeper than this test thread's stack could parse.
    for n in [100, 1_000, 10_000] {
        let q = format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n));
        let code = parse(&q).map_err(|e| e.code()).err();
        assert!(matches!(code, Some(1473 | 1436)), "{n} levels: {code:?}");
    }
}

#[test]
fn original_text_is_kept() -> Result<(), SqlError> {
    let p = parse_with_text("select 1 /* a */;\n  select 2")?;
    assert_eq!(p[0].text, "select 1 /* a */");
    assert_eq!(p[1].text, "select 2");
    Ok(())
}

#[test]
fn bytes_that_are_not_utf8_survive_parsing() -> Result<(), SqlError> {
    let sql = b"INSERT INTO t VALUES ('a\xFF\x00b', 'ok')";
    let stmts = parse_bytes(sql)?;
    let Statement::Sql(s) = &stmts[0] else {
        panic!("not an INSERT");
    };
    let ast::Statement::Insert(ins) = s.as_ref() else {
        panic!("not an INSERT");
    };
    let Some(src) = &ins.source else {
        panic!("no VALUES")
    };
    let ast::SetExpr::Values(v) = src.body.as_ref() else {
        panic!("no VALUES")
    };
    let lit = |e: &ast::Expr| match e {
        ast::Expr::Value(v) => v.value.clone().into_string().unwrap_or_default(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        raw_bytes(&lit(&v.rows[0][0])),
        Some(vec![b'a', 0xFF, 0, b'b'])
    );
    assert_eq!(raw_bytes(&lit(&v.rows[0][1])), None);
    assert_eq!(bytes_to_text(b"x\xC3"), format!("x{}", '\u{10FFC3}'));
    Ok(())
}

/// Every prefix of a statement either parses or is a 1064 error (never a
/// panic, never another error): the error position code slices text.
#[test]
fn every_prefix_parses_or_is_a_syntax_error() {
    let texts = [
        "SELECT /*!40001 SQL_NO_CACHE */ `a`, 'é''x', \"q\\\"\" FROM t WHERE b LIKE 'x%' LOCK IN SHARE MODE",
        "LOAD DATA LOCAL INFILE 'f' INTO TABLE t FIELDS TERMINATED BY ',' (a, @b) SET c = @b",
        "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY; SELECT !a, 7 MOD 2 -- c\n",
        "UPDATE t1, t2 SET t1.a = DATE_ADD(t2.d, INTERVAL '1:2' HOUR_MINUTE) WHERE t1.id = t2.id",
        "ALTER ONLINE TABLE t ADD COLUMN IF NOT EXISTS (a INT(5) ZEROFILL, b CHAR(3) BINARY), DROP KEY IF EXISTS k, RENAME INDEX a TO b, ENGINE='InnoDB' PAGE_CHECKSUM=1, CONVERT TO CHARSET latin1 COLLATE latin1_bin, RENAME u",
        "CREATE TABLE t (a INT UNSIGNED ZEROFILL, b VARCHAR(3) ASCII BINARY) PAGE_CHECKSUM=1 `X`='y'; DESC t 'a%'",
    ];
    for t in texts {
        for (i, _) in t.char_indices() {
            match parse(&t[..i]) {
                Ok(_) => {}
                Err(e) => assert!(matches!(e.code(), 1064 | 1065), "{:?}: {e}", &t[..i]),
            }
        }
    }
}
