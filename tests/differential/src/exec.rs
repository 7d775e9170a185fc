//! Running one SQL statement on one server and capturing everything the
//! comparison looks at: the result set (column metadata and rows as raw
//! text-protocol bytes), or the OK packet (affected rows, insert id), or
//! the error (code and message), and the warning count; plus, on request,
//! `SHOW WARNINGS` and `LAST_INSERT_ID()`.

use mysql::consts::ColumnFlags;
use mysql::prelude::Queryable;

/// One value of a text-protocol row: `None` is SQL NULL.
pub type Cell = Option<Vec<u8>>;
/// One row.
pub type Row = Vec<Cell>;

/// The metadata of one result column that is compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The column's name (alias) as sent.
    pub name: String,
    /// MySQL protocol type code (`MYSQL_TYPE_*`).
    pub type_code: u8,
    /// The UNSIGNED flag.
    pub unsigned: bool,
    /// Character set 63 (binary) rather than a text character set.
    pub binary: bool,
}

/// What a statement did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A result set.
    Rows {
        columns: Vec<Column>,
        rows: Vec<Row>,
    },
    /// An OK packet.
    Ok { affected: u64, insert_id: u64 },
    /// An error packet.
    Error { code: u16, message: String },
    /// The connection failed (server crashed, hung past the read timeout,
    /// or closed the connection).
    Lost(String),
}

/// A statement's outcome and its warning count.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The outcome.
    pub outcome: Outcome,
    /// The warning count the server reported.
    pub warnings: u16,
}

impl Answer {
    /// True when the statement failed with an error packet.
    pub fn is_error(&self) -> bool {
        matches!(self.outcome, Outcome::Error { .. })
    }

    /// True when the connection was lost.
    pub fn is_lost(&self) -> bool {
        matches!(self.outcome, Outcome::Lost(_))
    }
}

fn error_outcome(e: mysql::Error) -> Outcome {
    match e {
        mysql::Error::MySqlError(e) => Outcome::Error {
            code: e.code,
            message: e.message,
        },
        other => Outcome::Lost(other.to_string()),
    }
}

/// Runs `sql` (one statement) and captures its answer.
pub fn run(conn: &mut mysql::Conn, sql: &str) -> Answer {
    let mut result = match conn.query_iter(sql) {
        Ok(r) => r,
        Err(e) => {
            return Answer {
                outcome: error_outcome(e),
                warnings: 0,
            }
        }
    };
    let mut columns = Vec::new();
    let mut rows = Vec::new();
    let mut failed = None;
    if let Some(mut set) = result.iter() {
        columns = set
            .columns()
            .as_ref()
            .iter()
            .map(|c| Column {
                name: c.name_str().into_owned(),
                type_code: c.column_type() as u8,
                unsigned: c.flags().contains(ColumnFlags::UNSIGNED_FLAG),
                binary: c.character_set() == 63,
            })
            .collect();
        for row in set.by_ref() {
            match row {
                Ok(row) => rows.push(
                    row.unwrap()
                        .into_iter()
                        .map(|v| match v {
                            mysql::Value::NULL => None,
                            mysql::Value::Bytes(b) => Some(b),
                            other => Some(other.as_sql(true).into_bytes()),
                        })
                        .collect(),
                ),
                Err(e) => {
                    failed = Some(error_outcome(e));
                    break;
                }
            }
        }
    }
    // Any further result set (none expected) is drained with the result;
    // then the connection holds the final OK packet's counts.
    drop(result);
    let warnings = conn.warnings();
    if let Some(outcome) = failed {
        return Answer {
            outcome,
            warnings: 0,
        };
    }
    let outcome = if columns.is_empty() {
        Outcome::Ok {
            affected: conn.affected_rows(),
            insert_id: conn.last_insert_id(),
        }
    } else {
        Outcome::Rows { columns, rows }
    };
    Answer { outcome, warnings }
}

/// One row of `SHOW WARNINGS`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Warning {
    /// Note, Warning or Error.
    pub level: String,
    /// The error code.
    pub code: u16,
    /// The message (shown, not compared).
    pub message: String,
}

/// `SHOW WARNINGS` of the previous statement; empty when it fails.
pub fn warnings(conn: &mut mysql::Conn) -> Result<Vec<Warning>, mysql::Error> {
    let rows: Vec<(String, u16, String)> = conn.query("SHOW WARNINGS")?;
    Ok(rows
        .into_iter()
        .map(|(level, code, message)| Warning {
            level,
            code,
            message,
        })
        .collect())
}

/// `SELECT LAST_INSERT_ID()`.
pub fn last_insert_id(conn: &mut mysql::Conn) -> Result<Option<u64>, mysql::Error> {
    conn.query_first("SELECT LAST_INSERT_ID()")
}

/// The rows of `sql` (a read-back query) or the error text.
pub fn rows(conn: &mut mysql::Conn, sql: &str) -> Result<Vec<Row>, String> {
    match run(conn, sql).outcome {
        Outcome::Rows { rows, .. } => Ok(rows),
        Outcome::Ok { .. } => Ok(Vec::new()),
        Outcome::Error { code, message } => Err(format!("error {code}: {message}")),
        Outcome::Lost(e) => Err(format!("connection lost: {e}")),
    }
}

/// A cell as readable text: NULL, the string when it is printable UTF-8,
/// else hex.
pub fn show_cell(c: &Cell) -> String {
    match c {
        None => "NULL".to_owned(),
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) if !s.chars().any(|ch| ch.is_control()) => format!("'{s}'"),
            _ => format!("X'{}'", hex(b)),
        },
    }
}

/// Lower-case hexadecimal.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A row as readable text.
pub fn show_row(r: &Row) -> String {
    let cells: Vec<String> = r.iter().map(show_cell).collect();
    format!("({})", cells.join(", "))
}
