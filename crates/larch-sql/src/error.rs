//! The SQL layer's one error type, [`SqlError`], and the one place where errors
//! become what a MySQL client sees: an error number, a SQLSTATE and a message in
//! MySQL's (MariaDB 10.11's) wording.
//!
//! - SQL-layer errors are built with [`SqlError::new`] from an error number and
//!   the formatted message; the SQLSTATE comes from [`sqlstate_for`], so a code
//!   always travels with the same state. Constructors for the common errors
//!   (`unknown_column`, `no_such_table`, ...) keep the wording in this file.
//! - Syntax errors are [`SqlError::Syntax`] (1064, 42000) carrying the "near"
//!   text and line, built by the parse module.
//! - Engine errors are wrapped unchanged ([`SqlError::Engine`]) and mapped by
//!   [`engine_code`]: duplicate keys 1062/23000, table-definition errors with the
//!   engine's own errno (`Schema`), row errors via `RowError::mysql_code`, value errors via
//!   `ValueError::mysql_errno`, corruption and I/O as 1030 ("Got error ... from
//!   storage engine"), a full disk or tablespace as 1114.
//!
//! Warnings (level, code, message) share the numbering; see [`Warning`].

use larch_engine::error::EngineError;

/// Result alias of the SQL layer.
pub type Result<T, E = SqlError> = std::result::Result<T, E>;

/// Error numbers the SQL layer raises (MySQL's `ER_*` names in the comments).
pub mod code {
    /// ER_DBACCESS_DENIED_ERROR
    pub const DB_ACCESS_DENIED: u16 = 1044;
    /// ER_ACCESS_DENIED_ERROR
    pub const ACCESS_DENIED: u16 = 1045;
    /// ER_NO_DB_ERROR
    pub const NO_DB: u16 = 1046;
    /// ER_BAD_NULL_ERROR
    pub const BAD_NULL: u16 = 1048;
    /// ER_BAD_DB_ERROR
    pub const BAD_DB: u16 = 1049;
    /// ER_TABLE_EXISTS_ERROR
    pub const TABLE_EXISTS: u16 = 1050;
    /// ER_BAD_TABLE_ERROR
    pub const BAD_TABLE: u16 = 1051;
    /// ER_NON_UNIQ_ERROR
    pub const NON_UNIQ: u16 = 1052;
    /// ER_BAD_FIELD_ERROR
    pub const BAD_FIELD: u16 = 1054;
    /// ER_DUP_FIELDNAME
    pub const DUP_FIELDNAME: u16 = 1060;
    /// ER_DUP_KEYNAME
    pub const DUP_KEYNAME: u16 = 1061;
    /// ER_DUP_ENTRY
    pub const DUP_ENTRY: u16 = 1062;
    /// ER_PARSE_ERROR
    pub const PARSE: u16 = 1064;
    /// ER_EMPTY_QUERY
    pub const EMPTY_QUERY: u16 = 1065;
    /// ER_GET_ERRNO
    pub const GET_ERRNO: u16 = 1030;
    /// ER_CANT_DROP_FIELD_OR_KEY
    pub const CANT_DROP_FIELD_OR_KEY: u16 = 1091;
    /// ER_NO_SUCH_THREAD
    pub const NO_SUCH_THREAD: u16 = 1094;
    /// ER_INVALID_GROUP_FUNC_USE
    pub const INVALID_GROUP_FUNC_USE: u16 = 1111;
    /// ER_UNKNOWN_ERROR
    pub const UNKNOWN: u16 = 1105;
    /// ER_RECORD_FILE_FULL
    pub const RECORD_FILE_FULL: u16 = 1114;
    /// ER_UNKNOWN_CHARACTER_SET
    pub const UNKNOWN_CHARACTER_SET: u16 = 1115;
    /// ER_WRONG_VALUE_COUNT_ON_ROW
    pub const WRONG_VALUE_COUNT_ON_ROW: u16 = 1136;
    /// ER_NO_SUCH_TABLE
    pub const NO_SUCH_TABLE: u16 = 1146;
    /// ER_UNKNOWN_SYSTEM_VARIABLE
    pub const UNKNOWN_SYSTEM_VARIABLE: u16 = 1193;
    /// ER_LOCK_WAIT_TIMEOUT
    pub const LOCK_WAIT_TIMEOUT: u16 = 1205;
    /// ER_WRONG_ARGUMENTS
    pub const WRONG_ARGUMENTS: u16 = 1210;
    /// ER_LOCK_DEADLOCK
    pub const LOCK_DEADLOCK: u16 = 1213;
    /// ER_WRONG_VALUE_FOR_VAR
    pub const WRONG_VALUE_FOR_VAR: u16 = 1231;
    /// ER_NOT_SUPPORTED_YET
    pub const NOT_SUPPORTED_YET: u16 = 1235;
    /// ER_OPERAND_COLUMNS
    pub const OPERAND_COLUMNS: u16 = 1241;
    /// ER_WARN_DATA_OUT_OF_RANGE
    pub const WARN_DATA_OUT_OF_RANGE: u16 = 1264;
    /// A number too large for a DECIMAL: "Got overflow when converting".
    pub const DATA_OVERFLOW: u16 = 1916;
    /// WARN_DATA_TRUNCATED
    pub const WARN_DATA_TRUNCATED: u16 = 1265;
    /// ER_UNKNOWN_COLLATION
    pub const UNKNOWN_COLLATION: u16 = 1273;
    /// ER_TRUNCATED_WRONG_VALUE
    pub const TRUNCATED_WRONG_VALUE: u16 = 1292;
    /// ER_SP_DOES_NOT_EXIST
    pub const SP_DOES_NOT_EXIST: u16 = 1305;
    /// ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION: two types an operation
    /// cannot take together; also "Cannot cast 'int' as 'uuid' in assignment".
    pub const ILLEGAL_PARAMETER_DATA_TYPES: u16 = 4078;
    /// ER_QUERY_INTERRUPTED
    pub const QUERY_INTERRUPTED: u16 = 1317;
    /// ER_DIVISION_BY_ZERO
    pub const DIVISION_BY_ZERO: u16 = 1365;
    /// ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
    pub const TRUNCATED_WRONG_VALUE_FOR_FIELD: u16 = 1366;
    /// ER_DATA_TOO_LONG
    pub const DATA_TOO_LONG: u16 = 1406;
    /// ER_WRONG_VALUE_FOR_TYPE
    pub const WRONG_VALUE_FOR_TYPE: u16 = 1411;
    /// ER_TOO_BIG_SCALE
    pub const TOO_BIG_SCALE: u16 = 1425;
    /// ER_TOO_BIG_PRECISION
    pub const TOO_BIG_PRECISION: u16 = 1426;
    /// ER_M_BIGGER_THAN_D
    pub const M_BIGGER_THAN_D: u16 = 1427;
    /// ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT
    pub const WRONG_PARAMCOUNT_TO_NATIVE_FCT: u16 = 1582;
    /// ER_DATA_OUT_OF_RANGE
    pub const DATA_OUT_OF_RANGE: u16 = 1690;
    /// ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
    pub const READ_ONLY_TRANSACTION: u16 = 1792;
}

/// The SQLSTATE MySQL sends with an error number ("HY000" for the rest).
pub fn sqlstate_for(code: u16) -> &'static str {
    match code {
        1007 | 1008 | 1044 | 1049 | 1061 | 1063 | 1064 | 1065 | 1069 | 1070 | 1071 | 1072
        | 1091 | 1115 | 1118 | 1170 | 1171 | 1176 | 1231 | 1232 | 1235 | 1305 | 1425 | 1426
        | 1427 | 1582 | 1059 | 1066 | 1067 | 1068 | 1074 | 1075 | 1089 | 1090 | 1103 | 1113
        | 1166 | 1248 | 1253 | 1280 | 1286 | 1439 | 1970 | 1971 | 1133 | 1141 | 1142 | 1144
        | 1147 | 1211 | 1227 | 1410 | 1148 | 1172 | 1461 | 1203 | 1226 | 1234 => "42000",
        1040 => "08004",
        1329 | 1643 => "02000",
        // Stored programs.
        1304 | 1308 | 1309 | 1310 | 1313 | 1318 | 1319 | 1320 | 1322 | 1323 | 1324 | 1327
        | 1330 | 1331 | 1332 | 1333 | 1337 | 1338 | 1407 | 1413 => "42000",
        1321 => "2F005",
        1325 | 1326 => "24000",
        1339 => "20000",
        1415 | 1846 => "0A000",
        1642 => "01000",
        1644 => "45000",
        1645 => "0K000",
        1261 | 1262 => "01000",
        1263 => "22004",
        1045 => "28000",
        1046 => "3D000",
        1047 | 1053 | 1160 => "08S01",
        1048 | 1052 | 1062 | 1216 | 1217 | 1451 | 1452 | 4025 => "23000",
        1050 => "42S01",
        1051 | 1146 | 1965 | 4092 => "42S02",
        1054 => "42S22",
        1060 => "42S21",
        1136 => "21S01",
        1213 => "40001",
        1222 | 1241 | 1242 => "21000",
        1109 => "42S02",
        1138 => "22004",
        167 | 1264 | 1690 | 1916 => "22003",
        1441 => "22008",
        1265 | 4029 => "01000",
        1292 | 1366 | 1367 => "22007",
        1317 | 1969 => "70100",
        1369 => "44000",
        1365 => "22012",
        1406 => "22001",
        1792 => "25006",
        _ => "HY000",
    }
}

/// Everything that can fail in the SQL layer.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// A syntax error (1064): `near` is the rest of the statement from the error
    /// position (cut to 77 bytes plus "..." beyond 80), `line` is 1-based.
    #[error("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}' at line {line}")]
    Syntax { near: String, line: u64 },
    /// Any other MySQL error with its number and message text.
    #[error("{message}")]
    Mysql { code: u16, message: String },
    /// An engine error, mapped by [`engine_code`].
    #[error("{}", engine_message(.0))]
    Engine(#[from] EngineError),
    /// An error with the conditions MariaDB raises along with it (InnoDB's
    /// warnings 150 and 1215 around a failed FOREIGN KEY): SHOW WARNINGS
    /// lists `before`, the error, then `after`.
    #[error("{error}")]
    WithConditions {
        error: Box<SqlError>,
        before: Vec<Warning>,
        after: Vec<Warning>,
    },
}

impl SqlError {
    /// An error with a MySQL error number and its message text.
    pub fn new(code: u16, message: impl Into<String>) -> SqlError {
        SqlError::Mysql {
            code,
            message: message.into(),
        }
    }

    /// The MySQL error number.
    pub fn code(&self) -> u16 {
        match self {
            SqlError::Syntax { .. } => code::PARSE,
            SqlError::Mysql { code, .. } => *code,
            SqlError::Engine(e) => engine_code(e),
            SqlError::WithConditions { error, .. } => error.code(),
        }
    }

    /// The SQLSTATE sent with the error.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            SqlError::Engine(EngineError::Row(r)) => r.mysql_code().1,
            SqlError::WithConditions { error, .. } => error.sqlstate(),
            _ => sqlstate_for(self.code()),
        }
    }

    /// The message text (MySQL's wording).
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// 1065 Query was empty.
    pub fn empty_query() -> SqlError {
        SqlError::new(code::EMPTY_QUERY, "Query was empty")
    }

    /// 1046 No database selected.
    pub fn no_database() -> SqlError {
        SqlError::new(code::NO_DB, "No database selected")
    }

    /// 1049 Unknown database.
    pub fn unknown_database(db: &str) -> SqlError {
        SqlError::new(code::BAD_DB, format!("Unknown database '{db}'"))
    }

    /// 1054 Unknown column `name` in the clause `clause` ('SELECT', 'WHERE',
    /// 'ORDER BY', ...), as MariaDB 10.11 names them.
    pub fn unknown_column(name: &str, clause: &str) -> SqlError {
        SqlError::new(
            code::BAD_FIELD,
            format!("Unknown column '{name}' in '{clause}'"),
        )
    }

    /// 1052 Column is ambiguous.
    pub fn ambiguous_column(name: &str, clause: &str) -> SqlError {
        SqlError::new(
            code::NON_UNIQ,
            format!("Column '{name}' in {clause} is ambiguous"),
        )
    }

    /// 1146 Table doesn't exist.
    pub fn no_such_table(db: &str, table: &str) -> SqlError {
        SqlError::new(
            code::NO_SUCH_TABLE,
            format!("Table '{db}.{table}' doesn't exist"),
        )
    }

    /// 1050 Table already exists.
    pub fn table_exists(table: &str) -> SqlError {
        SqlError::new(
            code::TABLE_EXISTS,
            format!("Table '{table}' already exists"),
        )
    }

    /// 1305 FUNCTION does not exist.
    pub fn unknown_function(name: &str) -> SqlError {
        SqlError::new(
            code::SP_DOES_NOT_EXIST,
            format!("FUNCTION {name} does not exist"),
        )
    }

    /// 1582 Incorrect parameter count.
    pub fn wrong_param_count(function: &str) -> SqlError {
        SqlError::new(
            code::WRONG_PARAMCOUNT_TO_NATIVE_FCT,
            format!("Incorrect parameter count in the call to native function '{function}'"),
        )
    }

    /// 1690 `<type> value is out of range in '<expression>'`.
    pub fn out_of_range(ty: &str, expr: &str) -> SqlError {
        SqlError::new(
            code::DATA_OUT_OF_RANGE,
            format!("{ty} value is out of range in '{expr}'"),
        )
    }

    /// 1235 This version of MariaDB doesn't yet support ...
    pub fn not_supported(what: &str) -> SqlError {
        SqlError::new(
            code::NOT_SUPPORTED_YET,
            format!("This version of MariaDB doesn't yet support '{what}'"),
        )
    }

    /// 1193 Unknown system variable.
    pub fn unknown_variable(name: &str) -> SqlError {
        SqlError::new(
            code::UNKNOWN_SYSTEM_VARIABLE,
            format!("Unknown system variable '{name}'"),
        )
    }

    /// 1241 Operand should contain N column(s).
    pub fn operand_columns(n: usize) -> SqlError {
        SqlError::new(
            code::OPERAND_COLUMNS,
            format!("Operand should contain {n} column(s)"),
        )
    }
}

/// Severity of a diagnostic kept for SHOW WARNINGS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    /// The name SHOW WARNINGS prints.
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// One diagnostic of a statement (a row of SHOW WARNINGS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub level: Level,
    pub code: u16,
    pub message: String,
}

impl Warning {
    /// A `Warning`-level diagnostic.
    pub fn warn(code: u16, message: impl Into<String>) -> Warning {
        Warning {
            level: Level::Warning,
            code,
            message: message.into(),
        }
    }

    /// A `Note`-level diagnostic.
    pub fn note(code: u16, message: impl Into<String>) -> Warning {
        Warning {
            level: Level::Note,
            code,
            message: message.into(),
        }
    }
}

/// The MySQL error number of an engine error.
pub fn engine_code(e: &EngineError) -> u16 {
    match e {
        EngineError::DuplicateKey { .. } | EngineError::DuplicateEntry { .. } => code::DUP_ENTRY,
        EngineError::KeyTooLong { .. } => 1071,
        EngineError::Schema { errno, .. } => *errno,
        EngineError::ReadOnlyTransaction => code::READ_ONLY_TRANSACTION,
        EngineError::LockWaitTimeout
        | EngineError::LockNoWait
        | EngineError::Deadlock
        | EngineError::QueryInterrupted => e.mysql_code().map_or(code::UNKNOWN, |(c, _)| c),
        EngineError::Row(r) => r.mysql_code().0,
        EngineError::Value(v) => v.mysql_errno().unwrap_or(code::UNKNOWN),
        EngineError::DiskFull { .. } | EngineError::SpaceFull { .. } => code::RECORD_FILE_FULL,
        EngineError::Io { .. }
        | EngineError::Corruption { .. }
        | EngineError::CorruptFile { .. }
        | EngineError::PageSizeMismatch { .. }
        | EngineError::WritesDisabled { .. } => code::GET_ERRNO,
        EngineError::Config(_) | EngineError::DataDir { .. } | EngineError::Internal(_) => {
            code::UNKNOWN
        }
    }
}

/// The message MySQL would print for an engine error.
fn engine_message(e: &EngineError) -> String {
    match e {
        EngineError::ReadOnlyTransaction => {
            "Cannot execute statement in a READ ONLY transaction".to_owned()
        }
        EngineError::DuplicateKey { index_id } => {
            format!("Duplicate entry '' for key 'index {index_id}'")
        }
        // MariaDB prints the entry with `%-.64T`: up to the first NUL byte
        // (a C string), cut to 64 characters ending in "...".
        EngineError::DuplicateEntry { entry, key } => {
            let entry = entry.split('\0').next().unwrap_or_default();
            let shown = if entry.chars().count() > 64 {
                format!("{}...", entry.chars().take(61).collect::<String>())
            } else {
                entry.to_owned()
            };
            format!("Duplicate entry '{shown}' for key '{key}'")
        }
        EngineError::KeyTooLong { max } => {
            format!("Specified key was too long; max key length is {max} bytes")
        }
        EngineError::DiskFull { path } => format!("The table '{}' is full", path.display()),
        EngineError::SpaceFull { space, .. } => format!("The table 'space {space}' is full"),
        EngineError::Io { source, .. } => {
            let errno = source.raw_os_error().unwrap_or(5);
            format!("Got error {errno} \"{e}\" from storage engine InnoDB")
        }
        // HA_ERR_CRASHED (126) and HA_ERR_TABLE_DEF_CHANGED-style failures.
        EngineError::Corruption { .. }
        | EngineError::CorruptFile { .. }
        | EngineError::PageSizeMismatch { .. } => {
            format!("Got error 126 \"Index is corrupted: {e}\" from storage engine InnoDB")
        }
        EngineError::WritesDisabled { .. } => {
            format!("Got error 165 \"{e}\" from storage engine InnoDB")
        }
        // DuplicateEntry, Schema, ReadOnlyTransaction, Row and Value errors already carry
        // MySQL's wording; the rest is an unknown error with the engine's text.
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use larch_engine::page::PageId;
    use larch_engine::record::row::RowError;
    use larch_engine::record::value::ValueError;

    #[test]
    fn duplicate_entries_print_as_mariadb_does() {
        let dup = |entry: &str| {
            engine_message(&EngineError::DuplicateEntry {
                entry: entry.into(),
                key: "k".into(),
            })
        };
        assert_eq!(dup("w\0\0\0"), "Duplicate entry 'w' for key 'k'");
        assert_eq!(
            dup(&"x".repeat(90)),
            format!("Duplicate entry '{}...' for key 'k'", "x".repeat(61))
        );
        assert_eq!(
            dup(&"y".repeat(64)),
            format!("Duplicate entry '{}' for key 'k'", "y".repeat(64))
        );
    }

    #[test]
    fn engine_errors_map_to_mysql_codes_states_and_wording() {
        let cases: Vec<(EngineError, u16, &str, &str)> = vec![
            (
                EngineError::DuplicateEntry {
                    entry: "1-abc".into(),
                    key: "PRIMARY".into(),
                },
                1062,
                "23000",
                "Duplicate entry '1-abc' for key 'PRIMARY'",
            ),
            (
                EngineError::KeyTooLong { max: 3072 },
                1071,
                "42000",
                "Specified key was too long; max key length is 3072 bytes",
            ),
            (
                EngineError::Schema {
                    errno: 1060,
                    message: "Duplicate column name 'a'".into(),
                },
                1060,
                "42S21",
                "Duplicate column name 'a'",
            ),
            (
                EngineError::Row(RowError::NullNotAllowed { column: 1 }),
                1048,
                "23000",
                "column 1 cannot be null",
            ),
            (
                EngineError::Value(ValueError::TooLong {
                    ty: "VARCHAR(3)".into(),
                    len: 4,
                    max: 3,
                }),
                1406,
                "22001",
                "Data too long for VARCHAR(3): 4 > 3",
            ),
        ];
        for (e, code, state, msg) in cases {
            let s = SqlError::from(e);
            assert_eq!(
                (s.code(), s.sqlstate(), s.message().as_str()),
                (code, state, msg)
            );
        }
    }

    #[test]
    fn corruption_and_io_are_storage_engine_errors() {
        let e = SqlError::from(EngineError::Corruption {
            path: "ibdata1".into(),
            page: PageId::new(0, 3),
            reason: "checksum".into(),
        });
        assert_eq!((e.code(), e.sqlstate()), (1030, "HY000"));
        assert!(e
            .message()
            .starts_with("Got error 126 \"Index is corrupted"));
        assert!(e.message().ends_with("from storage engine InnoDB"));
        let io = SqlError::from(EngineError::Io {
            op: "read",
            path: "t.ibd".into(),
            source: std::io::Error::from_raw_os_error(5),
        });
        assert_eq!(io.code(), 1030);
        assert!(io.message().starts_with("Got error 5 "));
        let full = SqlError::from(EngineError::DiskFull {
            path: "t.ibd".into(),
        });
        assert_eq!(
            (full.code(), full.message().as_str()),
            (1114, "The table 't.ibd' is full")
        );
    }

    #[test]
    fn sql_errors_carry_state_and_wording() {
        let e = SqlError::unknown_column("x", "field list");
        assert_eq!(e.code(), 1054);
        assert_eq!(e.sqlstate(), "42S22");
        assert_eq!(e.message(), "Unknown column 'x' in 'field list'");
        let e = SqlError::out_of_range("BIGINT", "9223372036854775807 + 1");
        assert_eq!((e.code(), e.sqlstate()), (1690, "22003"));
        assert_eq!(
            e.message(),
            "BIGINT value is out of range in '9223372036854775807 + 1'"
        );
        let s = SqlError::Syntax {
            near: "frm t".into(),
            line: 2,
        };
        assert_eq!((s.code(), s.sqlstate()), (1064, "42000"));
        assert!(s.message().ends_with("near 'frm t' at line 2"));
        assert_eq!(SqlError::no_such_table("d", "t").sqlstate(), "42S02");
        assert_eq!(SqlError::empty_query().code(), 1065);
    }
}
