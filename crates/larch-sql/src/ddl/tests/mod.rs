//! Tests of the DDL module on real data directories (temporary
//! directories): CREATE TABLE and SHOW output, errors, ALTER rebuilds, DROP /
//! TRUNCATE / RENAME, persistence across reopening, and the metadata
//! encoding.

mod alter;
mod create;
mod errors;
mod meta;
mod tables;

use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, TxnContext, CLUSTERED};

use crate::database::Database;
use crate::result::QueryResult;
use crate::session::Session;

type R<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// A database in `dir` and a session on `test`.
fn open(dir: &std::path::Path) -> R<(Arc<Database>, Session)> {
    let db = Database::open(EngineConfig::new(dir))?;
    let mut s = db.new_session(0, "root", "localhost")?;
    s.use_database("test")?;
    Ok((db, s))
}

/// The error code of a statement that must fail.
fn code(s: &mut Session, sql: &str) -> u16 {
    match s.execute(sql) {
        Ok(r) => panic!("{sql} succeeded: {r:?}"),
        Err(e) => e.code(),
    }
}

/// The error of a statement that must fail.
fn error(s: &mut Session, sql: &str) -> crate::error::SqlError {
    match s.execute(sql) {
        Ok(r) => panic!("{sql} succeeded: {r:?}"),
        Err(e) => e,
    }
}

/// The rows of a statement as text ("NULL" for NULL).
fn rows(s: &mut Session, sql: &str) -> R<Vec<Vec<String>>> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => Ok(set
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(&set.columns)
                    .map(|(v, c)| match crate::value::to_text(v, &c.ty) {
                        Some(b) => String::from_utf8_lossy(&b).into_owned(),
                        None => "NULL".into(),
                    })
                    .collect()
            })
            .collect()),
        other => Err(format!("{sql}: expected rows, got {other:?}").into()),
    }
}

/// The column names of a statement's result.
fn column_names(s: &mut Session, sql: &str) -> R<Vec<String>> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => Ok(set.columns.iter().map(|c| c.name.clone()).collect()),
        other => Err(format!("{sql}: expected rows, got {other:?}").into()),
    }
}

/// SHOW CREATE TABLE's text.
fn show_create(s: &mut Session, table: &str) -> R<String> {
    let r = rows(s, &format!("SHOW CREATE TABLE {table}"))?;
    let row = r.first().ok_or("no row")?;
    assert_eq!(row[0], table.rsplit('.').next().unwrap_or(table));
    Ok(row[1].clone())
}

/// Inserts a row through the engine.
fn insert(db: &Database, table: &str, row: Vec<Value>) -> R {
    db.catalog()
        .table("test", table)?
        .insert(&mut TxnContext::internal(), &row)?;
    Ok(())
}

/// Every row of `test.table` in primary key order.
fn scan(db: &Database, table: &str) -> R<Vec<Vec<Value>>> {
    scan_in(db, "test", table)
}

fn scan_in(db: &Database, schema: &str, table: &str) -> R<Vec<Vec<Value>>> {
    let t = db.catalog().table(schema, table)?;
    let mut c = t.scan(
        &larch_engine::table::ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?;
    let mut out = Vec::new();
    while let Some((_, row)) = c.next_row()? {
        out.push(row);
    }
    Ok(out)
}

fn txt(v: &str) -> Value {
    Value::Str(v.to_string())
}
