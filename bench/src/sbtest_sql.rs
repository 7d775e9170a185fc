//! The sysbench table of the in-process SQL benchmarks (`sql-point`,
//! `sql-range`): a deterministic generator of sysbench-like values and the
//! load of `sbtest.sbtest1` through SQL.
//!
//! The same seed gives the same table in every run, so figures from the
//! benchmarks that share this module read the same rows.

use std::time::Instant;

use larch_sql::result::QueryResult;
use larch_sql::session::Session;

use crate::harness::Result;

/// Rows per INSERT statement of the load.
const LOAD_BATCH: u64 = 1000;

/// A small deterministic generator (splitmix64): the same table and the same
/// ids in every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `groups` groups of 11 random digits joined by `-`, as sysbench makes
    /// `c` (10 groups) and `pad` (5 groups).
    pub fn digits(&mut self, groups: usize) -> String {
        let mut s = String::with_capacity(groups * 12);
        for g in 0..groups {
            if g > 0 {
                s.push('-');
            }
            for _ in 0..11 {
                s.push(char::from(b'0' + (self.below(10) as u8)));
            }
        }
        s
    }
}

/// Creates `sbtest.sbtest1` through SQL and loads `rows` rows (ids `1..=rows`,
/// in id order, 1000 rows per INSERT, each its own autocommit transaction).
pub fn load(session: &mut Session, rows: u64) -> Result<()> {
    session.execute("CREATE DATABASE sbtest")?;
    session.use_database("sbtest")?;
    session.execute(
        "CREATE TABLE sbtest1 (id INT NOT NULL, k INT NOT NULL DEFAULT 0, \
         c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', \
         PRIMARY KEY (id), KEY k_1 (k)) ENGINE=InnoDB",
    )?;
    let t0 = Instant::now();
    let mut rng = Rng(0x5B7E_5701);
    let mut id = 1;
    while id <= rows {
        let end = (id + LOAD_BATCH - 1).min(rows);
        let mut sql = String::with_capacity(((end - id + 1) * 200) as usize + 64);
        sql.push_str("INSERT INTO sbtest1 (id, k, c, pad) VALUES ");
        for i in id..=end {
            if i > id {
                sql.push(',');
            }
            let k = 1 + rng.below(rows);
            let (c, pad) = (rng.digits(10), rng.digits(5));
            sql.push_str(&format!("({i},{k},'{c}','{pad}')"));
        }
        match session.execute(&sql)? {
            QueryResult::Ok(ok) if ok.affected_rows == end - id + 1 => {}
            other => return Err(format!("load of ids {id}..={end}: {other:?}").into()),
        }
        id = end + 1;
    }
    eprintln!(
        "   loaded {rows} rows in {:.1} s ({:.0} rows/s)",
        t0.elapsed().as_secs_f64(),
        rows as f64 / t0.elapsed().as_secs_f64().max(1e-9)
    );
    Ok(())
}

/// Opens a database on `dir` for the SQL benchmarks: a buffer pool of
/// `pool_bytes` and room for the redo of the load, so checkpoints rarely
/// force flushing.
pub fn open_database(
    dir: &std::path::Path,
    pool_bytes: u64,
) -> Result<std::sync::Arc<larch_sql::database::Database>> {
    let mut c = larch_engine::config::EngineConfig::new(dir);
    c.buffer_pool_size = pool_bytes;
    c.log_file_size = 1 << 30;
    Ok(larch_sql::database::Database::open(c)?)
}
