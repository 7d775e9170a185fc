//! Shared by the in-process SQL tests of transactions and locks: a database
//! in a temporary directory with a small table, sessions in `test`, and
//! results as text.

#![allow(dead_code)]

use std::sync::Arc;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::result::QueryResult;
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

/// A result as text: column names and rows ("NULL" for NULL).
pub fn query(s: &mut Session, sql: &str) -> R<(Vec<String>, Vec<Vec<String>>)> {
    match s.execute(sql)? {
        QueryResult::Rows(set) => {
            let names = set.columns.iter().map(|c| c.name.clone()).collect();
            let rows = set
                .rows
                .iter()
                .map(|r| {
                    r.iter()
                        .zip(&set.columns)
                        .map(|(v, c)| match larch_sql::value::to_text(v, &c.ty) {
                            Some(b) => String::from_utf8_lossy(&b).into_owned(),
                            None => "NULL".into(),
                        })
                        .collect()
                })
                .collect();
            Ok((names, rows))
        }
        other => Err(format!("expected rows from {sql}, got {other:?}").into()),
    }
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
