//! `sql-range`: what the range statements of sysbench's `oltp_read_only`
//! cost inside the SQL layer, in process (no network, no wire protocol), and
//! the engine's range read underneath. See `bench/README.md`
//! ("`sql-range`") for what each figure means.
//!
//! ```text
//! cargo run --release -p larch-bench --bin sql-range -- [--quick] [--rows N] [--out DIR]
//! ```
//!
//! The table is `sql-point`'s (`larch_bench::sbtest_sql`). Every statement
//! reads a range of `--range-size` ids (100, sysbench's default) starting at
//! a random id; the same starts for every variant. One thread; one warm-up
//! round, then 3 quick or 5 full timed rounds, each running every variant
//! once in turn; `ns/op` is a run's wall time over its statements, the
//! median round is reported with the range.

use std::hint::black_box;
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use larch_bench::harness::{
    machine_facts, median, rounds, spread, utc_stamp, write_results, Mode, Report, Result,
};
use larch_bench::sbtest_sql::{load, Rng};
use larch_engine::buffer::BufferPool;
use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, ReadContext, Table, CLUSTERED};
use larch_engine::txn::{IsolationLevel, Session as TrxSession, TrxOptions};
use larch_sql::database::Database;
use larch_sql::result::QueryResult;
use larch_sql::session::Session;

#[derive(Debug, Parser)]
#[command(
    about = "Per-statement cost of oltp_read_only's range selects in the Larch SQL layer (in process)"
)]
struct Args {
    /// 10,000 rows and 3 timed rounds (instead of 1,000,000 and 5).
    #[arg(long)]
    quick: bool,
    /// Rows in sbtest1 [default: 10,000 quick, 1,000,000 full].
    #[arg(long)]
    rows: Option<u64>,
    /// Statements per timed run [default: 2,000 quick, 10,000 full].
    #[arg(long)]
    ops: Option<usize>,
    /// Ids per range (sysbench's --range_size).
    #[arg(long, default_value_t = 100)]
    range_size: u64,
    /// Buffer pool size in MiB [default: 600 bytes per row, at least 128 MiB].
    #[arg(long)]
    pool_mib: Option<u64>,
    /// Directory for the result files [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where to create the scratch data directory [default: the system temp dir].
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The range statements of `oltp_read_only`, as sysbench prepares them:
/// (variant name, text, rows a 100-id range returns at most).
const STATEMENTS: [(&str, &str); 4] = [
    (
        "prepared.simple_range",
        "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
    ),
    (
        "prepared.sum_range",
        "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
    ),
    (
        "prepared.order_range",
        "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    ),
    (
        "prepared.distinct_range",
        "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    ),
];

/// The variants, in the order they run within a round.
const VARIANTS: [(&str, &str); 9] = [
    (
        "prepared.simple_range",
        "Session::execute_prepared of `SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?`",
    ),
    (
        "prepared.sum_range",
        "Session::execute_prepared of `SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?`",
    ),
    (
        "prepared.order_range",
        "Session::execute_prepared of `SELECT c ... WHERE id BETWEEN ? AND ? ORDER BY c`",
    ),
    (
        "prepared.distinct_range",
        "Session::execute_prepared of `SELECT DISTINCT c ... WHERE id BETWEEN ? AND ? ORDER BY c`",
    ),
    (
        "text.simple_range",
        "Session::execute of the simple range's text, random ids (statement cache misses: parse included)",
    ),
    (
        "engine.scan_range",
        "autocommit snapshot + Table::scan of the clustered index over the id range, columns id, c + next_row to the end + commit",
    ),
    (
        "engine.scan_range.into",
        "the same read with RowCursor::next_into into one reused row (the executor's path: no row copies)",
    ),
    (
        "engine.btree_range",
        "BTree::range over the encoded key range + next_entry to the end (no snapshot, no decoding: the cursor alone, owned entries)",
    ),
    (
        "engine.btree_range.ref",
        "the same with Cursor::next_ref (entries lent from the cursor's leaf copy)",
    ),
];

/// What the variants share.
struct Env {
    session: Session,
    trx: TrxSession,
    table: Arc<Table>,
    db: Arc<Database>,
    /// First id of each statement's range.
    starts: Vec<u64>,
    /// Ids per range.
    size: u64,
}

fn rows_of(r: &QueryResult) -> Result<usize> {
    match r {
        QueryResult::Rows(set) => Ok(set.rows.len()),
        other => Err(format!("expected rows, got {other:?}").into()),
    }
}

/// Runs variant `v` over every start once; returns ns per statement.
fn run_variant(env: &mut Env, v: usize) -> Result<f64> {
    let n = env.starts.len();
    let size = env.size;
    let name = VARIANTS[v].0;
    let t0 = Instant::now();
    if let Some(stmt) = STATEMENTS.iter().position(|(s, _)| *s == name) {
        let expect = if name == "prepared.sum_range" {
            1
        } else {
            size as usize
        };
        for &lo in &env.starts {
            let params = [Value::Int(lo as i64), Value::Int((lo + size - 1) as i64)];
            let r = env.session.execute_prepared(stmt as u32 + 1, &params)?;
            let got = rows_of(black_box(&r))?;
            if got != expect {
                return Err(format!("{name}: {got} rows from id {lo}, expected {expect}").into());
            }
        }
        return Ok(t0.elapsed().as_nanos() as f64 / n as f64);
    }
    match name {
        "text.simple_range" => {
            for &lo in &env.starts {
                let sql = format!(
                    "SELECT c FROM sbtest1 WHERE id BETWEEN {lo} AND {}",
                    lo + size - 1
                );
                let got = rows_of(black_box(&env.session.execute(&sql)?))?;
                if got != size as usize {
                    return Err(format!("{name}: {got} rows from id {lo}").into());
                }
            }
        }
        "engine.scan_range" => {
            let columns = [0, 2];
            for &lo in &env.starts {
                let mut trx = env.trx.begin(TrxOptions::autocommit_select(
                    IsolationLevel::RepeatableRead,
                ))?;
                let read = ReadContext {
                    view: trx.read_view(),
                };
                let range = KeyRange {
                    lower: Bound::Included(vec![Value::Int(lo as i64)]),
                    upper: Bound::Included(vec![Value::Int((lo + size - 1) as i64)]),
                };
                let mut found = 0;
                {
                    let mut cursor =
                        env.table
                            .scan(&read, CLUSTERED, &range, false, Some(&columns))?;
                    while let Some(row) = cursor.next_row()? {
                        black_box(row);
                        found += 1;
                    }
                }
                if found != size {
                    return Err(format!("{name}: {found} rows from id {lo}").into());
                }
                trx.commit()?;
            }
        }
        "engine.scan_range.into" => {
            let columns = [0, 2];
            let ncols = env.table.def().columns.len();
            let mut row = vec![Value::Null; ncols];
            for &lo in &env.starts {
                let mut trx = env.trx.begin(TrxOptions::autocommit_select(
                    IsolationLevel::RepeatableRead,
                ))?;
                let read = ReadContext {
                    view: trx.read_view(),
                };
                let range = KeyRange {
                    lower: Bound::Included(vec![Value::Int(lo as i64)]),
                    upper: Bound::Included(vec![Value::Int((lo + size - 1) as i64)]),
                };
                let mut found = 0;
                {
                    let mut cursor =
                        env.table
                            .scan(&read, CLUSTERED, &range, false, Some(&columns))?;
                    while let Some(at) = cursor.next_into(&mut row)? {
                        black_box(at);
                        found += 1;
                    }
                }
                black_box(&row);
                if found != size {
                    return Err(format!("{name}: {found} rows from id {lo}").into());
                }
                trx.commit()?;
            }
        }
        "engine.btree_range.ref" => {
            let pool: &BufferPool = env.db.storage().pool();
            let tree = *env.table.clustered_tree();
            for &lo in &env.starts {
                let from = env.table.row_ref(&[Value::Int(lo as i64)])?.0;
                let to = env.table.row_ref(&[Value::Int((lo + size - 1) as i64)])?.0;
                let mut cursor =
                    tree.range(pool, Bound::Included(from), Bound::Included(to), false);
                let mut found = 0;
                while let Some(e) = cursor.next_ref()? {
                    black_box(e);
                    found += 1;
                }
                if found != size {
                    return Err(format!("{name}: {found} entries from id {lo}").into());
                }
            }
        }
        "engine.btree_range" => {
            let pool: &BufferPool = env.db.storage().pool();
            let tree = *env.table.clustered_tree();
            for &lo in &env.starts {
                let from = env.table.row_ref(&[Value::Int(lo as i64)])?.0;
                let to = env.table.row_ref(&[Value::Int((lo + size - 1) as i64)])?.0;
                let mut cursor =
                    tree.range(pool, Bound::Included(from), Bound::Included(to), false);
                let mut found = 0;
                while let Some(e) = cursor.next_entry()? {
                    black_box(e);
                    found += 1;
                }
                if found != size {
                    return Err(format!("{name}: {found} entries from id {lo}").into());
                }
            }
        }
        other => return Err(format!("unknown variant {other}").into()),
    }
    Ok(t0.elapsed().as_nanos() as f64 / n as f64)
}

fn main() -> Result<()> {
    larch_bench::harness::init_tracing();
    let args = Args::parse();
    let mode = Mode::new(args.quick);
    let rows = args.rows.unwrap_or(mode.pick(10_000, 1_000_000)).max(1);
    let ops = args.ops.unwrap_or(mode.pick(2_000, 10_000)).max(1);
    let size = args.range_size.clamp(1, rows);
    let pool_bytes = args
        .pool_mib
        .map_or_else(|| (rows * 600).max(128 << 20), |m| m << 20);
    let out = larch_bench::harness::results_dir(args.out.clone())?;
    let scratch = larch_bench::harness::scratch_dir(args.dir.clone(), "larch-bench-sql-range-")?;
    let facts = format!(
        "sql-range {} mode, 1 warm-up round + {} timed rounds, median reported\n\
         rows: {rows}; ids per range: {size}; statements per run: {ops}; buffer pool: {} MiB; \
         one thread, one session, autocommit, REPEATABLE READ\n{}",
        mode.name(),
        mode.reps,
        pool_bytes >> 20,
        machine_facts(scratch.path())
    );
    eprint!("{facts}");
    let t_start = Instant::now();

    let db = larch_bench::sbtest_sql::open_database(&scratch.path().join("data"), pool_bytes)?;
    let mut session = db.new_session(0, "root", "localhost")?;
    eprintln!("== loading sbtest1");
    load(&mut session, rows)?;
    db.storage().flush_all()?;
    let table = db.catalog().table("sbtest", "sbtest1")?;
    for (i, (_, text)) in STATEMENTS.iter().enumerate() {
        let desc = session.prepare(i as u32 + 1, text.as_bytes())?;
        if desc.params != 2 {
            return Err(format!("{text}: {} parameters", desc.params).into());
        }
    }
    let mut rng = Rng(0x7A3);
    let starts: Vec<u64> = (0..ops).map(|_| 1 + rng.below(rows - size + 1)).collect();
    let trx = db.transactions().register_session()?;
    let mut env = Env {
        session,
        trx,
        table,
        db: db.clone(),
        starts,
        size,
    };

    eprintln!("== {} variants x {} rounds", VARIANTS.len(), mode.reps + 1);
    let samples = rounds(mode, VARIANTS.len(), |v| run_variant(&mut env, v))?;

    let mut report = Report::default();
    for ((name, notes), s) in VARIANTS.iter().zip(&samples) {
        report.add(
            format!("sql.{name}"),
            median(s),
            "ns/op",
            format!("{notes}; {}", spread(s)),
        );
        report.add(
            format!("sql.{name}.per_row"),
            median(s) / size as f64,
            "ns/row",
            format!("the same over {size} ids per range"),
        );
    }

    let elapsed = t_start.elapsed().as_secs_f64();
    let stem = format!("sql-range-{}-{}", utc_stamp(), mode.name());
    let tsv = write_results(&out, &stem, &report, &facts, elapsed)?;
    drop(env);
    db.close()?;

    println!("{}", facts.trim_end());
    println!();
    print!("{}", report.table());
    println!();
    println!(
        "{} figures in {elapsed:.1} s; written to {}",
        report.rows().len(),
        tsv.display()
    );
    Ok(())
}
