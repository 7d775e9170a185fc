//! `LOAD DATA [LOCAL] INFILE` (parsed by `parse::extra`): records read by
//! `records` from a server-side file (under `secure_file_priv`, see
//! `file_access`) or from the client (`LOCAL`, through
//! [`ClientIo::local_file`]), mapped to columns and `@variables`, `SET`
//! expressions applied, and inserted through the normal insert path
//! (`write::BulkInsert`: conversions, defaults, unique checks, REPLACE /
//! IGNORE, AUTO_INCREMENT) in batches, in the statement's transaction.
//!
//! Invariants: the input is streamed (one batch of rows in memory); the
//! statement is all or nothing (an error reverts every row it inserted); a
//! LOCAL file is always read to its end, even after an error, so the
//! connection stays in step with the client.
//!
//! MySQL's rules: LOCAL without REPLACE behaves as IGNORE (duplicates and
//! bad values are warnings); a short record is warning 1261 and its
//! missing columns take their defaults, a long one warning 1262, NULL for a
//! NOT NULL column warning 1263 and the type's implicit default; in strict
//! mode (without IGNORE) these are errors, and so is division by zero in a
//! SET expression under ERROR_FOR_DIVISION_BY_ZERO. The result's info is
//! `Records: N  Deleted: D  Skipped: S  Warnings: W`.

mod records;

use std::io::Read;
use std::sync::atomic::Ordering;

use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::file_access;
use super::write::BulkInsert;
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions};
use crate::parse::{LoadData, LoadDuplicates};
use crate::result::{OkInfo, QueryResult};
use crate::session::client_io::ClientIo;
use crate::session::Session;
use records::{Field, RecordReader};

/// Rows inserted per batch.
const BATCH: usize = 1000;

/// Where a field goes.
enum Slot {
    Column(usize),
    Var(String),
}

/// Runs LOAD DATA; `client` serves LOCAL files.
pub(crate) fn execute(
    s: &mut Session,
    l: &LoadData,
    client: Option<&mut dyn ClientIo>,
) -> Result<QueryResult, SqlError> {
    if l.format.fields_terminated_by.is_empty() && l.format.fields_enclosed_by.is_empty() {
        return Err(SqlError::not_supported("LOAD DATA with fixed-size rows"));
    }
    if l.local {
        if !s.bool_var("local_infile") {
            return Err(not_allowed());
        }
        let Some(client) = client else {
            return Err(not_allowed());
        };
        let mut src = client.local_file(&l.file)?;
        let r = load(s, l, &mut src);
        // Whatever happened, the client's file is read to its end.
        let mut sink = [0u8; 8192];
        while matches!(src.read(&mut sink), Ok(n) if n > 0) {}
        return r;
    }
    let path = file_access::server_path(s, &l.file)?;
    let shown = path.to_string_lossy().into_owned();
    let file = std::fs::File::open(&path).map_err(|e| file_access::cant_read(&shown, &e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(SqlError::new(
            1085,
            format!("The file '{shown}' must be in the database directory or be readable by all"),
        ));
    }
    larch_engine::io::blocking::blocking(|| load(s, l, &mut &file))
}

/// ER_NOT_ALLOWED_COMMAND.
fn not_allowed() -> SqlError {
    SqlError::new(
        1148,
        "The used command is not allowed with this MariaDB version",
    )
}

/// Loads the records of `src` as one data statement.
fn load(s: &mut Session, l: &LoadData, src: &mut dyn Read) -> Result<QueryResult, SqlError> {
    let mark = s.statement_mark()?;
    s.read = super::write::txn_ctx(s)?.read_context();
    let mut bulk: Option<BulkInsert> = None;
    let strict = s.begin_strict_statement(ignores_errors(l));
    let r = load_rows(s, l, src, &mut bulk);
    s.end_strict_statement(strict);
    s.read = larch_engine::table::ReadContext::NEWEST;
    if let Some(b) = bulk.as_mut() {
        for w in b.take_warnings() {
            s.push_warning(w);
        }
    }
    s.end_statement(r.as_ref().err(), mark)?;
    let (records, warnings) = r?;
    let counts = bulk.map(|b| b.counts).unwrap_or_default();
    if counts.first_id != 0 {
        s.last_insert_id = counts.first_id;
    }
    Ok(QueryResult::Ok(OkInfo {
        affected_rows: counts.affected,
        last_insert_id: counts.insert_id(),
        info: format!(
            "Records: {records}  Deleted: {}  Skipped: {}  Warnings: {warnings}",
            counts.deleted, counts.skipped
        ),
    }))
}

/// The zero value a NOT NULL column gets for NULL in non-strict mode.
fn implicit_default(ty: &ColumnType) -> Value {
    match ty {
        ColumnType::Int { .. }
        | ColumnType::Decimal { .. }
        | ColumnType::Float
        | ColumnType::Double
        | ColumnType::Year
        | ColumnType::Bit { .. } => Value::Int(0),
        ColumnType::Date => Value::Str("0000-00-00".into()),
        ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => {
            Value::Str("0000-00-00 00:00:00".into())
        }
        ColumnType::Time { .. } => Value::Str("00:00:00".into()),
        ColumnType::Enum { values, .. } | ColumnType::Set { values, .. } => match ty {
            ColumnType::Enum { .. } => Value::Str(values.first().cloned().unwrap_or_default()),
            _ => Value::Str(String::new()),
        },
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            Value::Bytes(Vec::new())
        }
        _ => Value::Str(String::new()),
    }
}

/// A field's value for a column of type `ty`.
fn field_value(bytes: Vec<u8>, ty: &ColumnType) -> Value {
    match ty {
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            Value::Bytes(bytes)
        }
        _ => match String::from_utf8(bytes) {
            Ok(s) => Value::Str(s),
            Err(e) => Value::Str(crate::parse::bytes_to_text(e.as_bytes())),
        },
    }
}

/// IGNORE, or LOCAL without REPLACE: data errors are warnings.
fn ignores_errors(l: &LoadData) -> bool {
    l.duplicates == LoadDuplicates::Ignore || (l.local && l.duplicates != LoadDuplicates::Replace)
}

/// Reads, maps and inserts every record; returns (records, warnings).
fn load_rows(
    s: &mut Session,
    l: &LoadData,
    src: &mut dyn Read,
    bulk_out: &mut Option<BulkInsert>,
) -> Result<(u64, usize), SqlError> {
    let replace = l.duplicates == LoadDuplicates::Replace;
    let ignore = ignores_errors(l);
    let bulk = bulk_out.insert(BulkInsert::open(s, &l.table, replace, ignore)?);
    let strict = s.strict() && !ignore;
    let ncols = bulk.def().columns.len();
    let slots: Vec<Slot> = if l.columns.is_empty() {
        (0..ncols)
            .filter(|&i| !bulk.invisible(i))
            .map(Slot::Column)
            .collect()
    } else {
        l.columns
            .iter()
            .map(|c| match c.value.strip_prefix('@') {
                Some(v) if c.quote_style.is_none() => Ok(Slot::Var(
                    v.trim_matches(['`', '\'', '"']).to_ascii_lowercase(),
                )),
                _ => bulk.column(&c.value, "field list").map(Slot::Column),
            })
            .collect::<Result<_, _>>()?
    };
    // SET col = expr: compiled once, evaluated per row (user variables
    // hold the row's @fields).
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "field list".into(),
    };
    let resolve = |_: &[ast::Ident]| None;
    let mut sets = Vec::with_capacity(l.set.len());
    for a in &l.set {
        let ast::AssignmentTarget::ColumnName(n) = &a.target else {
            return Err(SqlError::not_supported("tuple assignment"));
        };
        let col = bulk.column(&super::names::object_last(n), "field list")?;
        sets.push((col, eval::compile(&a.value, &resolve, &opts)?));
    }
    // The columns each row gives values for: the column slots, then SET.
    let mut cols: Vec<usize> = slots
        .iter()
        .filter_map(|x| match x {
            Slot::Column(c) => Some(*c),
            Slot::Var(_) => None,
        })
        .collect();
    cols.extend(sets.iter().map(|(c, _)| *c));
    let nslots = slots.len();
    let types: Vec<(ColumnType, bool, String)> = bulk
        .def()
        .columns
        .iter()
        .map(|c| (c.ty.clone(), c.nullable, c.name.clone()))
        .collect();
    let auto = bulk.def().auto_increment;
    let mut reader = RecordReader::new(src, &l.format);
    let mut fields: Vec<Field> = Vec::new();
    let read_err = |e: std::io::Error| file_access::io_error(&l.file, &e, false);
    for _ in 0..l.ignore_lines {
        if !reader.next_record(&mut fields).map_err(read_err)? {
            break;
        }
    }
    let mut batch: Vec<Vec<Option<Value>>> = Vec::with_capacity(BATCH);
    let mut records = 0u64;
    while reader.next_record(&mut fields).map_err(read_err)? {
        records += 1;
        let row_no = records;
        if fields.len() < nslots {
            let w = Warning::warn(
                1261,
                format!("Row {row_no} doesn't contain data for all columns"),
            );
            if strict {
                return Err(SqlError::new(w.code, w.message));
            }
            bulk.warn(w);
        } else if fields.len() > nslots {
            let w = Warning::warn(
                1262,
                format!(
                    "Row {row_no} was truncated; it contained more data than there were input columns"
                ),
            );
            if strict {
                return Err(SqlError::new(w.code, w.message));
            }
            bulk.warn(w);
        }
        let mut row: Vec<Option<Value>> = Vec::with_capacity(cols.len());
        let mut present = fields.drain(..).map(Some).chain(std::iter::repeat(None));
        for slot in &slots {
            let field = present.next().flatten();
            match slot {
                Slot::Var(name) => {
                    let ty = ColumnType::Varchar {
                        max_len: u32::MAX,
                        collation: s.connection_collation(),
                    };
                    let v = match field {
                        Some(Some(b)) => field_value(b, &ty),
                        _ => Value::Null,
                    };
                    eval::uservar::forget(name);
                    s.user_vars
                        .set(name.clone(), eval::uservar::UserValue::new(v, &ty));
                }
                Slot::Column(c) => {
                    let (ty, nullable, name) = &types[*c];
                    row.push(match field {
                        // A missing field: the column's default.
                        None => None,
                        Some(Some(b)) => Some(field_value(b, ty)),
                        Some(None) if *nullable || auto == Some(*c) => Some(Value::Null),
                        Some(None) => {
                            let w = Warning::warn(
                                1263,
                                format!(
                                    "Column set to default value; NULL supplied to NOT NULL column '{name}' at row {row_no}"
                                ),
                            );
                            if strict {
                                return Err(SqlError::new(w.code, w.message));
                            }
                            bulk.warn(w);
                            Some(implicit_default(ty))
                        }
                    });
                }
            }
        }
        drop(present);
        for (_, e) in &sets {
            let mut ctx = s.eval_context(&[]);
            let v = e.eval_stored(&[], &mut ctx)?;
            for w in ctx.take_warnings() {
                bulk.warn(w);
            }
            row.push(Some(v));
        }
        batch.push(row);
        if batch.len() >= BATCH {
            if s.process.kill_query.load(Ordering::SeqCst) {
                return Err(SqlError::new(1317, "Query execution was interrupted"));
            }
            bulk.insert(s, &cols, std::mem::take(&mut batch))?;
        }
    }
    if !batch.is_empty() {
        bulk.insert(s, &cols, batch)?;
    }
    Ok((records, bulk.warning_count()))
}
