//! DDL forms sqlparser lacks: column attributes, ALTER TABLE operations and
//! table options, DESCRIBE with a column, MariaDB dump output.

use sqlparser::ast::{self, AlterTableOperation as A, ColumnOption, SqlOption};
use sqlparser::tokenizer::Token;

use super::{one, sql_of, syntax};
use crate::parse::{AlterOp, Statement};

fn create(sql: &str) -> ast::CreateTable {
    match one(sql) {
        Statement::Sql(s) => match *s {
            ast::Statement::CreateTable(ct) => ct,
            other => panic!("{sql}: {other:?}"),
        },
        other => panic!("{sql}: {other:?}"),
    }
}

/// The operations of a statement that stays a sqlparser ALTER TABLE.
fn sql_ops(sql: &str) -> Vec<A> {
    match one(sql) {
        Statement::Sql(s) => match *s {
            ast::Statement::AlterTable(at) => at.operations,
            other => panic!("{sql}: {other:?}"),
        },
        other => panic!("{sql}: {other:?}"),
    }
}

/// The operations of a statement that is Larch's `AlterTable`.
fn ops(sql: &str) -> Vec<AlterOp> {
    match one(sql) {
        Statement::AlterTable(at) => at.operations,
        other => panic!("{sql}: {other:?}"),
    }
}

fn dialect(o: &ColumnOption) -> Option<String> {
    match o {
        ColumnOption::DialectSpecific(t) => Some(t.iter().map(Token::to_string).collect()),
        _ => None,
    }
}

/// Data type text and dialect-specific option words of each column.
fn columns(ct: &ast::CreateTable) -> Vec<(String, Vec<String>)> {
    ct.columns
        .iter()
        .map(|c| {
            let words = c
                .options
                .iter()
                .filter_map(|o| dialect(&o.option))
                .collect();
            (c.data_type.to_string(), words)
        })
        .collect()
}

/// Only SIGNED, UNSIGNED, ZEROFILL and UNSIGNED ZEROFILL (either order)
/// follow a numeric type; MariaDB's 1064 names the first word past that.
#[test]
fn refused_signedness_runs() {
    for (sql, near) in [
        ("CREATE TABLE t (a INT SIGNED ZEROFILL)", "ZEROFILL)"),
        ("CREATE TABLE t (a INT UNSIGNED UNSIGNED)", "UNSIGNED)"),
        ("CREATE TABLE t (a INT SIGNED SIGNED)", "SIGNED)"),
        ("CREATE TABLE t (a INT ZEROFILL ZEROFILL)", "ZEROFILL)"),
        ("CREATE TABLE t (a INT ZEROFILL SIGNED)", "SIGNED)"),
        ("CREATE TABLE t (a DECIMAL(5,2) UNSIGNED SIGNED)", "SIGNED)"),
        (
            "CREATE TABLE t (a INT UNSIGNED ZEROFILL UNSIGNED)",
            "UNSIGNED)",
        ),
        ("ALTER TABLE t ADD a BIGINT SIGNED UNSIGNED", "UNSIGNED"),
    ] {
        assert_eq!(syntax(sql), (near.to_string(), 1), "{sql}");
    }
}

#[test]
fn zerofill_and_signedness() {
    let ct = create(
        "CREATE TABLE t (a INT(5) UNSIGNED ZEROFILL NOT NULL AUTO_INCREMENT, b int zerofill, \
         c DECIMAL(8,2) ZEROFILL, d FLOAT(7,3) UNSIGNED ZEROFILL, e DOUBLE ZEROFILL UNSIGNED, \
         f INT SIGNED, g NUMERIC(3) UNSIGNED, h INT1 UNSIGNED, i DECIMAL SIGNED, j INT UNSIGNED)",
    );
    let z = |ty: &str| (ty.to_string(), vec!["ZEROFILL".to_string()]);
    let plain = |ty: &str| (ty.to_string(), Vec::new());
    assert_eq!(
        columns(&ct),
        [
            (
                "INT(5) UNSIGNED".to_string(),
                vec!["ZEROFILL".to_string(), "AUTO_INCREMENT".to_string()]
            ),
            z("INT UNSIGNED"),
            z("DECIMAL(8,2) UNSIGNED"),
            z("FLOAT(7,3) UNSIGNED"),
            z("DOUBLE UNSIGNED"),
            plain("INT"),
            plain("DECIMAL(3) UNSIGNED"),
            plain("TINYINT UNSIGNED"),
            plain("DECIMAL"),
            plain("INT UNSIGNED"),
        ]
    );
    assert!(ct.columns[0]
        .options
        .iter()
        .any(|o| o.option == ColumnOption::NotNull));
    // In ALTER TABLE too; CAST(... AS SIGNED) in an expression is untouched.
    let o = sql_ops("ALTER TABLE t MODIFY a SMALLINT(3) ZEROFILL DEFAULT 7, ADD b BIGINT ZEROFILL, CHANGE c d TINYINT UNSIGNED ZEROFILL");
    let words = |o: &[ColumnOption]| o.iter().filter_map(dialect).collect::<Vec<_>>();
    match &o[..] {
        [A::ModifyColumn {
            data_type, options, ..
        }, A::AddColumn { column_def, .. }, A::ChangeColumn { options: co, .. }] => {
            assert_eq!(data_type.to_string(), "SMALLINT(3) UNSIGNED");
            assert_eq!(words(options), ["ZEROFILL"]);
            assert!(matches!(options[..], [_, ColumnOption::Default(_)]));
            let opts: Vec<ColumnOption> = column_def
                .options
                .iter()
                .map(|o| o.option.clone())
                .collect();
            assert_eq!(words(&opts), ["ZEROFILL"]);
            assert_eq!(words(co), ["ZEROFILL"]);
        }
        other => panic!("{other:?}"),
    }
    let ct = create("CREATE TABLE t (a INT DEFAULT (CAST(1 AS SIGNED)), b INT)");
    assert_eq!(columns(&ct)[0].0, "INT");
}

#[test]
fn binary_ascii_unicode_attributes() {
    let ct = create(
        "CREATE TABLE t (a VARCHAR(10) BINARY, b CHAR(3) BINARY NOT NULL, c TEXT BINARY, \
         d ENUM('x','y') BINARY, e VARCHAR(5) CHARACTER SET latin1 BINARY, f CHAR BINARY, \
         g VARCHAR(4) ASCII, h CHAR(2) UNICODE BINARY, i BINARY(4), j BINARY, \
         k VARBINARY(3), l VARCHAR(3) CHARACTER SET binary)",
    );
    let cols = columns(&ct);
    for (k, col) in cols.iter().enumerate().take(6) {
        assert_eq!(col.1, ["BINARY"], "column {k}");
    }
    assert_eq!(cols[7].1, ["BINARY"]);
    for (k, col) in cols.iter().enumerate().skip(8) {
        assert!(col.1.is_empty(), "column {k}");
    }
    assert_eq!(cols[8].0, "BINARY(4)");
    assert_eq!(cols[9].0, "BINARY");
    let charset = |k: usize| {
        ct.columns[k].options.iter().find_map(|o| match &o.option {
            ColumnOption::CharacterSet(n) => Some(n.to_string()),
            _ => None,
        })
    };
    assert_eq!(charset(4).as_deref(), Some("latin1"));
    assert_eq!(charset(6).as_deref(), Some("latin1"));
    assert_eq!(charset(7).as_deref(), Some("ucs2"));
    assert_eq!(charset(11).as_deref(), Some("binary"));
    // The NOT NULL after BINARY is kept.
    assert!(ct.columns[1]
        .options
        .iter()
        .any(|o| o.option == ColumnOption::NotNull));
}

#[test]
fn alter_forms_with_sqlparser_asts() {
    let k = ast::Ident::new("k");
    assert_eq!(
        sql_ops("ALTER TABLE t DROP KEY k"),
        [A::DropIndex { name: k.clone() }]
    );
    assert_eq!(
        sql_ops("ALTER TABLE t DROP INDEX k"),
        [A::DropIndex { name: k }]
    );
    match &sql_ops("ALTER TABLE t ADD COLUMN IF NOT EXISTS c INT AFTER b, ADD IF NOT EXISTS d INT")
        [..]
    {
        [A::AddColumn {
            if_not_exists: true,
            column_def: c,
            column_position: Some(_),
            ..
        }, A::AddColumn {
            if_not_exists: true,
            column_def: d,
            ..
        }] => assert_eq!((c.name.value.as_str(), d.name.value.as_str()), ("c", "d")),
        other => panic!("{other:?}"),
    }
    match &sql_ops("ALTER TABLE t ADD (a INT NOT NULL, b VARCHAR(3) DEFAULT 'x', INDEX (a))")[..] {
        [A::AddColumn { column_def: a, .. }, A::AddColumn { column_def: b, .. }, A::AddConstraint { .. }] =>
        {
            assert_eq!((a.name.value.as_str(), b.name.value.as_str()), ("a", "b"));
            assert_eq!(b.data_type.to_string(), "VARCHAR(3)");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &sql_ops("ALTER TABLE t ADD COLUMN IF NOT EXISTS (a INT, b INT)")[..],
        [
            A::AddColumn {
                if_not_exists: true,
                ..
            },
            A::AddColumn {
                if_not_exists: true,
                ..
            }
        ]
    ));
    assert_eq!(
        sql_of("ALTER TABLE t RENAME u"),
        "ALTER TABLE t RENAME TO u"
    );
    assert_eq!(
        sql_of("ALTER ONLINE TABLE d.t ADD INDEX i (a), ALGORITHM=INPLACE"),
        "ALTER TABLE d.t ADD INDEX i (a), ALGORITHM = INPLACE"
    );
    // What sqlparser parsed before stays the same AST.
    for s in [
        "ALTER TABLE IF EXISTS t ADD INDEX i (a), DROP INDEX j",
        "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 1 AFTER b",
        "ALTER TABLE t DROP COLUMN IF EXISTS c, DROP PRIMARY KEY",
        "ALTER TABLE t CHANGE COLUMN c d INT FIRST",
        "ALTER TABLE t AUTO_INCREMENT = 5",
        "ALTER TABLE t RENAME COLUMN c TO d",
        "ALTER TABLE t ALTER COLUMN a SET DEFAULT 1",
    ] {
        assert_eq!(sql_of(s), s);
    }
    // ALTER TABLE t with no operation is MariaDB's no-op.
    assert!(sql_ops("ALTER TABLE t").is_empty());
}

#[test]
fn alter_forms_of_larch() {
    let id = |s: &str| ast::Ident::new(s);
    assert_eq!(
        ops("ALTER TABLE t DROP INDEX IF EXISTS k, DROP KEY IF EXISTS `k2`"),
        [
            AlterOp::IfExists(A::DropIndex { name: id("k") }),
            AlterOp::IfExists(A::DropIndex {
                name: ast::Ident::with_quote('`', "k2")
            })
        ]
    );
    assert!(matches!(
        &ops("ALTER TABLE t DROP FOREIGN KEY IF EXISTS f, MODIFY IF EXISTS a INT, CHANGE COLUMN IF EXISTS b c INT")[..],
        [AlterOp::IfExists(A::DropForeignKey { .. }), AlterOp::IfExists(A::ModifyColumn { .. }), AlterOp::IfExists(A::ChangeColumn { .. })]
    ));
    assert!(matches!(
        &ops("ALTER TABLE t ADD INDEX IF NOT EXISTS i (a), ADD UNIQUE KEY IF NOT EXISTS u (b), ADD CONSTRAINT f FOREIGN KEY IF NOT EXISTS (c) REFERENCES p (id)")[..],
        [AlterOp::IfNotExists(A::AddConstraint { .. }), AlterOp::IfNotExists(A::AddConstraint { .. }), AlterOp::IfNotExists(A::AddConstraint { .. })]
    ));
    assert_eq!(
        ops("ALTER TABLE t RENAME INDEX a TO b, RENAME KEY `c` TO d"),
        [
            AlterOp::RenameIndex {
                old: id("a"),
                new: id("b")
            },
            AlterOp::RenameIndex {
                old: ast::Ident::with_quote('`', "c"),
                new: id("d")
            }
        ]
    );
    assert_eq!(ops("ALTER TABLE t FORCE"), [AlterOp::Force]);
    assert_eq!(
        ops("ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"),
        [AlterOp::ConvertTo {
            charset: Some("utf8mb4".into()),
            collate: Some("utf8mb4_bin".into())
        }]
    );
    assert_eq!(
        ops("ALTER TABLE t CONVERT TO CHARSET DEFAULT"),
        [AlterOp::ConvertTo {
            charset: None,
            collate: None
        }]
    );
}

/// Table options as `key=value` text (ENGINE and COMMENT as sqlparser shows them).
fn option_texts(o: &[SqlOption]) -> Vec<String> {
    o.iter().map(ToString::to_string).collect()
}

#[test]
fn alter_table_options() {
    let single = |sql: &str| match &ops(sql)[..] {
        [AlterOp::Options(o)] => option_texts(o),
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(single("ALTER TABLE t COMMENT='x'"), ["COMMENT = 'x'"]);
    assert_eq!(single("ALTER TABLE t COMMENT 'x'"), ["COMMENT 'x'"]);
    assert_eq!(single("ALTER TABLE t COMMENT \"x\""), ["COMMENT 'x'"]);
    assert_eq!(
        single("ALTER TABLE t DEFAULT CHARSET=latin1 COLLATE latin1_bin"),
        ["DEFAULT CHARSET = latin1", "COLLATE = latin1_bin"]
    );
    assert_eq!(
        single("ALTER TABLE t CHARACTER SET = utf8mb4"),
        ["CHARACTER SET = utf8mb4"]
    );
    assert_eq!(
        single("ALTER TABLE t ROW_FORMAT=DYNAMIC"),
        ["ROW_FORMAT = DYNAMIC"]
    );
    assert_eq!(
        single("ALTER TABLE t ENGINE=Aria PAGE_CHECKSUM=1 `PAGE_COMPRESSED`='0'"),
        [
            "ENGINE = Aria",
            "PAGE_CHECKSUM = 1",
            "`PAGE_COMPRESSED` = '0'"
        ]
    );
    match &ops("ALTER TABLE t ADD INDEX (a), ENGINE=InnoDB, AUTO_INCREMENT=9")[..] {
        [AlterOp::Sql(A::AddConstraint { .. }), AlterOp::Options(o), AlterOp::Sql(A::AutoIncrement { .. })] =>
        {
            assert_eq!(option_texts(o), ["ENGINE = InnoDB"])
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &ops("ALTER TABLE t ENGINE=InnoDB, ADD COLUMN c INT")[..],
        [AlterOp::Options(_), AlterOp::Sql(A::AddColumn { .. })]
    ));
    // ENGINE alone stays Larch's AlterTableEngine.
    for sql in [
        "ALTER TABLE t ENGINE=InnoDB",
        "ALTER TABLE t ENGINE 'InnoDB'",
    ] {
        assert!(
            matches!(one(sql), Statement::AlterTableEngine { engine, .. } if engine == "InnoDB"),
            "{sql}"
        );
    }
}

#[test]
fn alter_errors_point_at_the_operation() {
    assert_eq!(
        syntax("ALTER TABLE t ADD INDEX (a), DROP KEY"),
        (String::new(), 1)
    );
    assert_eq!(
        syntax("ALTER TABLE t ADD (a INT, b INT) FIRST"),
        ("FIRST".into(), 1)
    );
    assert_eq!(syntax("ALTER TABLE t ADD (a INT"), (String::new(), 1));
    assert_eq!(
        syntax("ALTER TABLE t FORCE x, ENGINE=InnoDB"),
        ("x, ENGINE=InnoDB".into(), 1)
    );
    assert_eq!(
        syntax("ALTER TABLE t ADD COLUMN, ENGINE=InnoDB"),
        (", ENGINE=InnoDB".into(), 1)
    );
    assert_eq!(syntax("ALTER TABLE t RENAME INDEX a b"), ("b".into(), 1));
    assert_eq!(syntax("ALTER TABLE t CONVERT TO utf8"), ("utf8".into(), 1));
}

#[test]
fn describe_with_a_column() {
    assert_eq!(sql_of("DESCRIBE t col"), "SHOW COLUMNS FROM t LIKE 'col'");
    assert_eq!(sql_of("DESC d.t 'pa%'"), "SHOW COLUMNS FROM d.t LIKE 'pa%'");
    assert_eq!(sql_of("EXPLAIN `t` `c`"), "SHOW COLUMNS FROM `t` LIKE 'c'");
    assert_eq!(sql_of("DESC t"), "DESC t");
    assert_eq!(sql_of("EXPLAIN SELECT a"), "EXPLAIN SELECT a");
    assert!(
        matches!(one("DESCRIBE t c"), Statement::Sql(s) if matches!(*s, ast::Statement::ShowColumns { .. }))
    );
}

#[test]
fn mariadb_table_options_in_create_table() {
    let ct = create(
        "CREATE TABLE `aria_t` (`a` int(11) DEFAULT NULL) ENGINE=Aria DEFAULT CHARSET=latin1 \
         PAGE_CHECKSUM=1 TRANSACTIONAL=1 `PAGE_COMPRESSED`='0' COMMENT='c'",
    );
    let ast::CreateTableOptions::Plain(o) = &ct.table_options else {
        panic!("{:?}", ct.table_options);
    };
    let texts = option_texts(o);
    for t in [
        "ENGINE = Aria",
        "PAGE_CHECKSUM = 1",
        "TRANSACTIONAL = 1",
        "`PAGE_COMPRESSED` = '0'",
    ] {
        assert!(texts.iter().any(|x| x == t), "{t} in {texts:?}");
    }
    let ct = create(
        "CREATE TABLE t (a INT COMMENT \"c\") ENGINE=MERGE UNION=(a,b) TRANSACTIONAL 0 COMMENT=\"x\"",
    );
    let ast::CreateTableOptions::Plain(o) = &ct.table_options else {
        panic!("{:?}", ct.table_options);
    };
    assert!(option_texts(o).contains(&"TRANSACTIONAL = 0".to_string()));
    assert!(option_texts(o).contains(&"COMMENT = 'x'".to_string()));
    assert_eq!(
        ct.columns[0].options[0].option,
        ColumnOption::Comment("c".into())
    );
    let ct = create("CREATE TABLE t (a INT) PAGE_CHECKSUM=1");
    assert!(
        matches!(&ct.table_options, ast::CreateTableOptions::Plain(o) if option_texts(o) == ["PAGE_CHECKSUM = 1"])
    );
}

/// The CREATE TABLE statements of `mariadb-dump` (10.11) of a table with
/// every column attribute and of an Aria table parse.
#[test]
fn mariadb_dump_create_tables() {
    let many = "CREATE TABLE `many` (
  `id` int(5) unsigned zerofill NOT NULL AUTO_INCREMENT,
  `tz` tinyint(3) unsigned zerofill DEFAULT NULL,
  `sz` smallint(3) unsigned zerofill DEFAULT 007,
  `dz` decimal(8,2) unsigned zerofill DEFAULT NULL,
  `fz` float(7,3) unsigned zerofill DEFAULT NULL,
  `dblz` double unsigned zerofill DEFAULT NULL,
  `vb` varchar(10) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT NULL,
  `j` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`j`)),
  `gc` int(11) GENERATED ALWAYS AS (`tz` + 1) VIRTUAL,
  `inv` int(11) INVISIBLE DEFAULT 3,
  `ts` timestamp(3) NOT NULL DEFAULT current_timestamp(3) ON UPDATE current_timestamp(3),
  `d` date DEFAULT curdate(),
  `b` bit(3) DEFAULT b'101',
  `defexpr` int(11) DEFAULT (1 + 2),
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk_cb` (`vb`) COMMENT 'uniq',
  KEY `k_desc` (`tz` DESC,`sz`),
  SPATIAL KEY `sp` (`b`),
  CONSTRAINT `chk` CHECK (`tz` >= 0)
) ENGINE=InnoDB AUTO_INCREMENT=11 DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci PACK_KEYS=1 STATS_PERSISTENT=1 CHECKSUM=1 ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 COMMENT='many types'";
    let ct = create(many);
    let cols = columns(&ct);
    assert!(cols[..6]
        .iter()
        .all(|c| c.1.first().map(String::as_str) == Some("ZEROFILL")));
    assert_eq!(cols[2].0, "SMALLINT(3) UNSIGNED");
    let aria = "CREATE TABLE `aria_t` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=Aria DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci PAGE_CHECKSUM=1 TRANSACTIONAL=1";
    create(aria);
}
