//! Target `sql`: the SQL layer's parser, binder, planner and executor,
//! through an in-process `larch_sql::session::Session`.
//!
//! An input is a script: statements separated by lines holding `--;`
//! ([`SEPARATOR`]). Each script runs in a fresh database `fz` of one
//! long-lived data directory (a temporary directory; `$LARCH_FUZZ_TMPDIR`
//! chooses where, a RAM disk makes the DDL cheaper), in a new session as
//! `root@localhost`, after `DROP DATABASE IF EXISTS fz`, `CREATE DATABASE
//! fz`, `USE fz`. Statement errors are normal; what counts as a finding:
//! any panic (the session turns a statement's panic into error 1105, the
//! driver's panic hook still sees it), and a session that no longer
//! answers `SELECT 1` with one row after a statement. A watchdog thread
//! kills a statement that runs longer than [`STATEMENT_LIMIT`] (KILL
//! QUERY) and notes it on standard error.
//!
//! Generation reuses the differential tester's grammar-aware generator
//! (`larch_differential::gen`): random tables, their rows, queries
//! (joins, subqueries, grouping, windows, CTEs, set operations), DML and
//! transaction statements, plus the DDL and utility statements of
//! [`super::sql_extra`]. The format-aware mutation works on tokens of one
//! statement or on whole statements ([`super::sql_extra::mutate_script`]).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use larch_differential::gen::dml::TxnState;
use larch_differential::gen::Gen;
use larch_engine::config::EngineConfig;
use larch_engine::record::value::Value;
use larch_sql::database::Database;
use larch_sql::result::QueryResult;
use larch_sql::session::Session;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::sql_extra;
use crate::driver::Target;

/// The line between two statements of a script.
pub const SEPARATOR: &str = "\n--;\n";

/// How long one statement may run before the watchdog kills it.
pub const STATEMENT_LIMIT: Duration = Duration::from_secs(5);

/// What the watchdog sees of the running statement: session id, start,
/// text.
#[derive(Default)]
struct Watch {
    running: Mutex<Option<(u64, Instant, String)>>,
}

/// Splits a script into its statements.
pub fn statements(script: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(script)
        .split(SEPARATOR)
        .map(str::to_owned)
        .collect()
}

/// Joins statements into a script.
pub fn script(statements: &[String]) -> Vec<u8> {
    statements.join(SEPARATOR).into_bytes()
}

/// See the module documentation.
pub struct SqlTarget {
    db: Arc<Database>,
    watch: Arc<Watch>,
    stop: Arc<AtomicBool>,
    watchdog: Option<std::thread::JoinHandle<()>>,
    /// Statements run and statements that succeeded, over all scripts.
    counts: (u64, u64),
    _dir: tempfile::TempDir,
}

/// A temporary directory under `$LARCH_FUZZ_TMPDIR` when set.
pub fn temp_dir() -> std::io::Result<tempfile::TempDir> {
    match std::env::var_os("LARCH_FUZZ_TMPDIR") {
        Some(base) => tempfile::tempdir_in(base),
        None => tempfile::tempdir(),
    }
}

/// An engine configuration for fuzzing: small memory and log, no
/// doublewrite, no log flush per commit (nothing here survives a crash).
pub fn fuzz_config(datadir: &std::path::Path) -> EngineConfig {
    let mut config = EngineConfig::new(datadir);
    config.buffer_pool_size = 32 << 20;
    config.log_file_size = 8 << 20;
    config.doublewrite = false;
    config.flush_log_at_trx_commit = 0;
    config
}

impl SqlTarget {
    /// Opens the data directory and starts the watchdog.
    pub fn new() -> Result<SqlTarget, crate::Error> {
        let dir = temp_dir()?;
        let db = Database::open(fuzz_config(dir.path()))?;
        let watch = Arc::new(Watch::default());
        let stop = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let (db, watch, stop) = (db.clone(), watch.clone(), stop.clone());
            std::thread::Builder::new()
                .name("fuzz-watchdog".into())
                .spawn(move || watchdog(&db, &watch, &stop))?
        };
        Ok(SqlTarget {
            db,
            watch,
            stop,
            watchdog: Some(watchdog),
            counts: (0, 0),
            _dir: dir,
        })
    }

    /// Statements run and statements that succeeded so far.
    pub fn counts(&self) -> (u64, u64) {
        self.counts
    }

    /// Runs one statement with the watchdog watching.
    fn statement(&mut self, session: &mut Session, sql: &str) {
        if let Ok(mut running) = self.watch.running.lock() {
            *running = Some((session.id(), Instant::now(), sql.to_owned()));
        }
        let outcome = session.query(sql.as_bytes());
        if let Ok(mut running) = self.watch.running.lock() {
            *running = None;
        }
        self.counts.0 += 1;
        self.counts.1 += u64::from(outcome.error.is_none());
    }
}

fn watchdog(db: &Database, watch: &Watch, stop: &AtomicBool) {
    let mut killed: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let Ok(running) = watch.running.lock() else {
            return;
        };
        match &*running {
            Some((id, since, sql)) if since.elapsed() > STATEMENT_LIMIT => {
                if killed.is_none_or(|k| k < *since) {
                    eprintln!(
                        "note: statement killed after {} s: {}",
                        STATEMENT_LIMIT.as_secs(),
                        crate::driver::escape(sql.as_bytes(), 500)
                    );
                    db.kill(*id, true);
                    killed = Some(Instant::now());
                }
            }
            _ => {}
        }
    }
}

impl Drop for SqlTarget {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.watchdog.take() {
            let _ = w.join();
        }
        let _ = self.db.close();
    }
}

/// True when `r` is the one-row answer `1` of `SELECT 1`.
fn is_select_one(r: &Result<QueryResult, larch_sql::error::SqlError>) -> bool {
    match r {
        Ok(QueryResult::Rows(set)) => {
            set.rows.len() == 1
                && matches!(set.rows[0].as_slice(), [Value::Int(1)] | [Value::UInt(1)])
        }
        _ => false,
    }
}

impl Target for SqlTarget {
    fn name(&self) -> &'static str {
        "sql"
    }

    fn extension(&self) -> &'static str {
        ".sql"
    }

    fn save_before_run(&self) -> bool {
        true
    }

    fn seeds(&mut self) -> Vec<Vec<u8>> {
        let mut rng = StdRng::seed_from_u64(0x5eed);
        (0..8).map(|_| self.generate(&mut rng)).collect()
    }

    fn generate(&mut self, rng: &mut StdRng) -> Vec<u8> {
        let mut gen = Gen::new(StdRng::seed_from_u64(rng.random()), BTreeSet::new());
        let n = 1 + gen.below(3);
        gen.new_tables(n);
        let mut out: Vec<String> = gen.tables.iter().map(|t| t.create_sql()).collect();
        for t in gen.tables.clone() {
            let rows = 1 + gen.below(8);
            out.push(gen.fill(&t, rows).sql());
        }
        let mut txn = TxnState::default();
        for _ in 0..rng.random_range(3..20) {
            gen.start_statement();
            let sql = match gen.weighted(&[45, 25, 8, 22]) {
                0 => larch_differential::ast::Stmt::Query(gen.top_query().0).sql(),
                1 => gen.dml().sql(),
                2 => gen.txn_stmt(&mut txn).sql(),
                _ => sql_extra::statement(&mut gen),
            };
            out.push(sql);
        }
        script(&out)
    }

    fn dictionary(&self) -> Vec<&'static [u8]> {
        sql_extra::TOKENS.iter().map(|t| t.as_bytes()).collect()
    }

    fn mutate(&mut self, input: &mut Vec<u8>, rng: &mut StdRng) -> bool {
        sql_extra::mutate_script(input, rng)
    }

    fn run(&mut self, input: &[u8]) -> Result<(), String> {
        let mut session = self
            .db
            .new_session(0, "root", "localhost")
            .map_err(|e| format!("no session: {e}"))?;
        for setup in ["DROP DATABASE IF EXISTS fz", "CREATE DATABASE fz", "USE fz"] {
            session
                .execute(setup)
                .map_err(|e| format!("setup `{setup}` failed: {e}"))?;
        }
        for (i, sql) in statements(input).iter().enumerate() {
            self.statement(&mut session, sql);
            if !is_select_one(&session.execute("SELECT 1")) {
                return Err(format!(
                    "SELECT 1 fails after statement {i}: {}",
                    crate::driver::escape(sql.as_bytes(), 300)
                ));
            }
        }
        if session.in_transaction() {
            let _ = session.execute("ROLLBACK");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_scripts_mostly_run() -> Result<(), crate::Error> {
        let mut t = SqlTarget::new()?;
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..10 {
            let input = t.generate(&mut rng);
            assert_eq!(crate::driver::run_one(&mut t, &input), Ok(()));
        }
        let (run, ok) = t.counts();
        assert!(run > 50, "{run}");
        // Generated statements reach execution, not just the parser.
        assert!(ok * 10 > run * 6, "{ok} of {run} succeeded");
        Ok(())
    }
}
