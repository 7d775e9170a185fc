//! `SELECT ... INTO @v1, ...`, `INTO OUTFILE 'file' [format]` and `INTO
//! DUMPFILE 'file'` (parsed by `parse::select_into`).
//!
//! The query runs as a normal SELECT (same locking, same snapshot); then:
//! - variables: the column count must match the variable count (1222,
//!   checked even when no row comes back), more than one row is error 1172,
//!   no row leaves the variables alone with warning 1329;
//! - OUTFILE: one line per row in the given [`FileFormat`] (the format
//!   `LOAD DATA` and `mysqldump --tab` read), written by the server under
//!   the `secure_file_priv` rules (`file_access`); an existing file is
//!   error 1086 and is never overwritten;
//! - DUMPFILE: the values of at most one row, concatenated without any
//!   separator or escaping.
//!
//! Each form reports the rows it consumed as affected rows, as MariaDB does.

use std::io::Write;

use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::file_access;
use crate::error::{SqlError, Warning};
use crate::parse::{FileFormat, IntoTarget};
use crate::result::{OkInfo, QueryResult, RowSet};
use crate::session::Session;

fn too_many_rows() -> SqlError {
    SqlError::new(1172, "Result consisted of more than one row")
}

/// Runs `query` and sends its rows to `into`.
pub(crate) fn execute(
    s: &mut Session,
    query: &ast::Query,
    into: &IntoTarget,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    if let IntoTarget::Locals(vars) = into {
        // Outside a stored program there are no local variables.
        let name = vars.iter().find_map(|v| match v {
            crate::parse::select_into::IntoVar::Local(n) => Some(n.as_str()),
            crate::parse::select_into::IntoVar::User(_) => None,
        });
        return Err(SqlError::new(
            1327,
            format!("Undeclared variable: {}", name.unwrap_or_default()),
        ));
    }
    let set = match super::select::execute(s, query, params, None)? {
        QueryResult::Rows(set) => set,
        QueryResult::Ok(_) => RowSet::default(),
    };
    let n = set.rows.len() as u64;
    match into {
        IntoTarget::Variables(vars) => {
            if vars.len() != set.columns.len() {
                return Err(SqlError::new(
                    1222,
                    "The used SELECT statements have a different number of columns",
                ));
            }
            if set.rows.len() > 1 {
                return Err(too_many_rows());
            }
            match set.rows.into_iter().next() {
                None => s.push_warning(Warning::warn(
                    1329,
                    "No data - zero rows fetched, selected, or processed",
                )),
                Some(row) => {
                    for ((name, v), column) in vars.iter().zip(row).zip(&set.columns) {
                        crate::eval::uservar::forget(name);
                        s.user_vars.set(
                            name.clone(),
                            crate::eval::uservar::UserValue::new(v, &column.ty),
                        );
                    }
                }
            }
        }
        IntoTarget::Outfile { file, format, .. } => {
            let mut out = create(s, file)?;
            let mut line = Vec::new();
            for row in &set.rows {
                line.clear();
                format_row(&mut line, row, &set, format);
                out.write_all(&line)
                    .map_err(|e| file_access::io_error(file, &e, true))?;
            }
            out.flush()
                .map_err(|e| file_access::io_error(file, &e, true))?;
        }
        // Refused before the query ran.
        IntoTarget::Locals(_) => {}
        IntoTarget::Dumpfile(file) => {
            if set.rows.len() > 1 {
                return Err(too_many_rows());
            }
            let mut out = create(s, file)?;
            if let Some(row) = set.rows.first() {
                for (v, c) in row.iter().zip(&set.columns) {
                    if let Some(b) = crate::value::column_text(v, c) {
                        out.write_all(&b)
                            .map_err(|e| file_access::io_error(file, &e, true))?;
                    }
                }
            }
            out.flush()
                .map_err(|e| file_access::io_error(file, &e, true))?;
        }
    }
    Ok(QueryResult::Ok(OkInfo {
        affected_rows: n,
        ..OkInfo::default()
    }))
}

/// Creates the file (never replacing one: 1086).
fn create(s: &Session, file: &str) -> Result<std::io::BufWriter<std::fs::File>, SqlError> {
    let path = file_access::server_path(s, file)?;
    let shown = path.to_string_lossy().into_owned();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => file_access::exists(&shown),
            _ => file_access::cant_create(&shown, &e),
        })?;
    Ok(std::io::BufWriter::with_capacity(1 << 16, f))
}

/// True for the types OPTIONALLY ENCLOSED BY leaves unquoted.
fn numeric(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int { .. }
            | ColumnType::Decimal { .. }
            | ColumnType::Float
            | ColumnType::Double
            | ColumnType::Year
            | ColumnType::Bit { .. }
    )
}

/// Appends one row in `format` (MySQL's `select_export` rules).
pub(crate) fn format_row(out: &mut Vec<u8>, row: &[Value], set: &RowSet, format: &FileFormat) {
    let escape = format.fields_escaped_by.as_bytes().first().copied();
    let enclose = format.fields_enclosed_by.as_bytes().first().copied();
    let field_term = format.fields_terminated_by.as_bytes();
    let line_first = format.lines_terminated_by.as_bytes().first().copied();
    out.extend_from_slice(format.lines_starting_by.as_bytes());
    for (i, (v, c)) in row.iter().zip(&set.columns).enumerate() {
        if i > 0 {
            out.extend_from_slice(field_term);
        }
        let Some(text) = crate::value::column_text(v, c) else {
            match escape {
                Some(e) => out.extend_from_slice(&[e, b'N']),
                None => out.extend_from_slice(b"NULL"),
            }
            continue;
        };
        let quote = match enclose {
            Some(q) if !(format.fields_optionally_enclosed && numeric(&c.ty)) => Some(q),
            _ => None,
        };
        if let Some(q) = quote {
            out.push(q);
        }
        match escape {
            Some(e) => {
                let sep = quote.or_else(|| field_term.first().copied());
                for &b in &text {
                    if b == 0 {
                        out.extend_from_slice(&[e, b'0']);
                        continue;
                    }
                    if b == e || Some(b) == sep || Some(b) == line_first {
                        out.push(e);
                    }
                    out.push(b);
                }
            }
            None => match quote {
                // Without an escape character an enclosing character in
                // the value is doubled.
                Some(q) => {
                    for &b in &text {
                        if b == q {
                            out.push(q);
                        }
                        out.push(b);
                    }
                }
                None => out.extend_from_slice(&text),
            },
        }
        if let Some(q) = quote {
            out.push(q);
        }
    }
    out.extend_from_slice(format.lines_terminated_by.as_bytes());
}
