//! Shared by the in-process SQL tests of transactions and locks: a database
//! in a temporary directory with a small table, sessions in `test`, and
//! results as text.

#![allow(dead_code)]

use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::result::{QueryResult, RowSet};
use larch_sql::session::Session;

pub type R<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A database that lives as long as its temporary directory.
pub struct TestDb {
    _dir: tempfile::TempDir,
    pub db: Arc<Database>,
}

impl TestDb {
    /// Opens a fresh database and runs `setup` in it.
    pub fn new(setup: &[&str]) -> R<TestDb> {
        let dir = tempfile::tempdir()?;
        let db = Database::open(EngineConfig::new(dir.path()))?;
        let t = TestDb { _dir: dir, db };
        let mut s = t.session(50)?;
        for sql in setup {
            s.execute(sql)?;
        }
        Ok(t)
    }

    /// A session in `test` with `innodb_lock_wait_timeout` = `timeout` s.
    pub fn session(&self, timeout: u32) -> R<Session> {
        let mut s = self.db.new_session(0, "root", "localhost")?;
        s.use_database("test")?;
        s.execute(&format!("SET SESSION innodb_lock_wait_timeout = {timeout}"))?;
        Ok(s)
    }
}

/// A row set as text: column names and rows ("NULL" for NULL).
pub fn text_set(set: &RowSet) -> (Vec<String>, Vec<Vec<String>>) {
    let names = set.columns.iter().map(|c| c.name.clone()).collect();
    let rows = set
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(&set.columns)
                .map(|(v, c)| match larch_sql::value::column_text(v, c) {
                    Some(b) => String::from_utf8_lossy(&b).into_owned(),
                    None => "NULL".into(),
                })
                .collect()
        })
        .collect();
    (names, rows)
}

/// A statement's result as text: column names and rows; an error when it
/// returned no rows (`what` names the statement).
pub fn text_result(result: QueryResult, what: &str) -> R<(Vec<String>, Vec<Vec<String>>)> {
    match result {
        QueryResult::Rows(set) => Ok(text_set(&set)),
        other => Err(format!("expected rows from {what}, got {other:?}").into()),
    }
}

/// A result as text: column names and rows ("NULL" for NULL).
pub fn query(s: &mut Session, sql: &str) -> R<(Vec<String>, Vec<Vec<String>>)> {
    text_result(s.execute(sql)?, sql)
}

/// Every result of one statement (a CALL may return several result sets):
/// each result set as rows joined by `|`, columns by `,`; an OK as "OK".
pub fn results(s: &mut Session, sql: &str) -> R<Vec<String>> {
    let out = s.query(sql.as_bytes());
    if let Some(e) = out.error {
        return Err(format!("{sql}: {e}").into());
    }
    Ok(out
        .results
        .iter()
        .map(|r| match r {
            QueryResult::Ok(_) => "OK".to_string(),
            QueryResult::Rows(set) => text_set(set)
                .1
                .iter()
                .map(|row| row.join(","))
                .collect::<Vec<_>>()
                .join("|"),
        })
        .collect())
}

/// The code and message of the error `sql` must give (an error of the
/// test when it succeeds).
pub fn error(s: &mut Session, sql: &str) -> R<(u16, String)> {
    match s.execute(sql) {
        Ok(r) => Err(format!("expected an error from {sql}, got {r:?}").into()),
        Err(e) => Ok((e.code(), e.message())),
    }
}

/// The code of the error `sql` must give (panics when it succeeds).
pub fn code(s: &mut Session, sql: &str) -> u16 {
    let out = s.query(sql.as_bytes());
    match out.error {
        Some(e) => e.code(),
        None => panic!("{sql} should fail, got {:?}", out.results),
    }
}

/// SHOW CREATE TABLE's text for `table` ("" when it returns no row).
pub fn show_create(s: &mut Session, table: &str) -> R<String> {
    Ok(rows(s, &format!("SHOW CREATE TABLE {table}"))?
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().nth(1))
        .unwrap_or_default())
}

/// The rows of `sql` as text.
pub fn rows(s: &mut Session, sql: &str) -> R<Vec<Vec<String>>> {
    Ok(query(s, sql)?.1)
}

/// The first column of the first row of `sql` ("" when there is none).
pub fn one(s: &mut Session, sql: &str) -> R<String> {
    Ok(rows(s, sql)?
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next())
        .unwrap_or_default())
}

/// The warnings of the last statement as "code" strings.
pub fn warning_codes(s: &mut Session) -> R<Vec<String>> {
    Ok(rows(s, "SHOW WARNINGS")?
        .into_iter()
        .map(|r| r[1].clone())
        .collect())
}

/// The affected-row count of `sql`'s OK packet.
pub fn affected_rows(s: &mut Session, sql: &str) -> R<u64> {
    match s.execute(sql)? {
        QueryResult::Ok(ok) => Ok(ok.affected_rows),
        other => Err(format!("expected OK from {sql}, got {other:?}").into()),
    }
}

/// The result columns of `sql` (an error of the test when it gives no rows).
pub fn columns(s: &mut Session, sql: &str) -> R<Vec<larch_sql::result::ResultColumn>> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => Ok(set.columns),
        other => Err(format!("expected rows from {sql}, got {other:?}").into()),
    }
}

/// SHOW WARNINGS as rows of level, code and message.
pub fn warnings(s: &mut Session) -> R<Vec<Vec<String>>> {
    rows(s, "SHOW WARNINGS")
}

/// A warning row as SHOW WARNINGS gives it.
pub fn warning(code: &str, message: &str) -> Vec<String> {
    vec!["Warning".into(), code.into(), message.into()]
}
