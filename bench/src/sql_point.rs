//! `sql-point`: what one point select costs inside the SQL layer, in process
//! (no network, no wire protocol): parse, plan + execute, and the engine read
//! underneath, on a sysbench-like table. See `bench/README.md` ("`sql-point`")
//! for what each figure means.
//!
//! ```text
//! cargo run --release -p larch-bench --bin sql-point -- [--quick] [--rows N] [--out DIR]
//! ```
//!
//! The table, created and loaded through SQL on a fresh data directory:
//!
//! ```sql
//! CREATE TABLE sbtest1 (id INT NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0,
//!   c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))
//! ```
//!
//! One thread; every figure is measured in rounds (one warm-up round, then 3
//! quick or 5 full timed rounds), each round running every variant once in
//! turn, so a burst of load from other processes touches all variants alike.
//! A run is a fixed number of statements on random ids (the same ids for
//! every variant); `ns/op` is the run's wall time over its statements, and the
//! median round is reported with the range.
//!
//! Prints a table and a tab-separated breakdown, and writes
//! `sql-point-<UTC timestamp>-{quick,full}.tsv` (`name value unit notes`) plus
//! a `.env` file (machine facts, settings) to the output directory (default
//! `bench/results/`).

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use larch_bench::harness::{
    fmt_value, machine_facts, median, rounds, spread, utc_stamp, write_results, Mode, Report,
    Result,
};
use larch_bench::sbtest_sql::{load, Rng};
use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, ReadContext, Table, CLUSTERED};
use larch_engine::txn::{IsolationLevel, Session as TrxSession, TrxOptions};
use larch_sql::parse::{parse, Statement};
use larch_sql::result::QueryResult;
use larch_sql::session::Session;

#[derive(Debug, Parser)]
#[command(about = "Per-statement cost of a point select in the Larch SQL layer (in process)")]
struct Args {
    /// 10,000 rows and 3 timed rounds (instead of 1,000,000 and 5).
    #[arg(long)]
    quick: bool,
    /// Rows in sbtest1 [default: 10,000 quick, 1,000,000 full].
    #[arg(long)]
    rows: Option<u64>,
    /// Statements per timed run [default: 20,000 quick, 100,000 full].
    #[arg(long)]
    ops: Option<usize>,
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

/// The point select, as sysbench sends it with `--db-ps-mode=disable`.
fn point_select(id: u64) -> String {
    format!("SELECT c FROM sbtest1 WHERE id={id}")
}

/// The same, as sysbench prepares it.
const POINT_SELECT_PS: &str = "SELECT c FROM sbtest1 WHERE id=?";

/// One row of `c` expected from a point select.
fn check_one_row(r: &QueryResult, what: &str) -> Result<()> {
    match r {
        QueryResult::Rows(set) if set.rows.len() == 1 => Ok(()),
        other => Err(format!("{what}: expected one row, got {other:?}").into()),
    }
}

/// What the variants share: the session, the engine objects and the ids.
struct Env {
    session: Session,
    trx: TrxSession,
    table: Arc<Table>,
    /// Random ids in `1..=rows`, one per statement of a run.
    ids: Vec<u64>,
    /// `point_select(id)` of each id, made before timing.
    texts: Vec<String>,
    /// One parsed point select.
    parsed: Statement,
}

/// The prepared statement's id in the session.
const STMT: u32 = 1;

/// The variants, in the order they run within a round.
const VARIANTS: [(&str, &str); 10] = [
    (
        "parse.point_select",
        "larch_sql::parse::parse of the point select's text (random ids)",
    ),
    (
        "clone.point_select",
        "Statement::clone of the parsed point select (Session::execute_prepared and a statement cache hit clone the statement once per execution)",
    ),
    (
        "text.point_select",
        "Session::execute of the point select's text, random ids (statement cache misses)",
    ),
    (
        "text.point_select.cached",
        "Session::execute of one fixed point select text (statement cache hit, no parse; one row, which stays in the CPU caches)",
    ),
    (
        "prepared.point_select",
        "Session::execute_prepared of `SELECT c FROM sbtest1 WHERE id=?`, random ids",
    ),
    (
        "engine.get",
        "engine floor: autocommit snapshot (begin, read_view) + Table::row_ref + Table::get + commit",
    ),
    (
        "engine.scan_eq",
        "autocommit snapshot + Table::scan of the clustered index over KeyRange::eq(id), columns id, c + next_row + commit (the access path the executor takes)",
    ),
    ("parse.select_1", "larch_sql::parse::parse of `SELECT 1`"),
    (
        "text.select_1",
        "Session::execute of `SELECT 1` (statement cache hit)",
    ),
    (
        "prepared.select_1",
        "Session::execute_prepared of `SELECT 1`",
    ),
];

/// The prepared `SELECT 1`'s id in the session.
const STMT_ONE: u32 = 2;

/// Runs variant `v` over every id once; returns ns per statement.
fn run_variant(env: &mut Env, v: usize) -> Result<f64> {
    let n = env.ids.len();
    let t0 = Instant::now();
    match VARIANTS[v].0 {
        "parse.point_select" => {
            for t in &env.texts {
                black_box(parse(black_box(t))?);
            }
        }
        "clone.point_select" => {
            for _ in 0..n {
                black_box(black_box(&env.parsed).clone());
            }
        }
        "text.point_select" => {
            for t in &env.texts {
                let r = env.session.execute(black_box(t))?;
                check_one_row(black_box(&r), "text point select")?;
            }
        }
        "text.point_select.cached" => {
            let t = point_select(env.ids[0]);
            for _ in 0..n {
                let r = env.session.execute(black_box(&t))?;
                check_one_row(black_box(&r), "cached text point select")?;
            }
        }
        "prepared.point_select" => {
            for &id in &env.ids {
                let r = env
                    .session
                    .execute_prepared(STMT, &[Value::Int(black_box(id) as i64)])?;
                check_one_row(black_box(&r), "prepared point select")?;
            }
        }
        "engine.get" => {
            for &id in &env.ids {
                let mut trx = env.trx.begin(TrxOptions::autocommit_select(
                    IsolationLevel::RepeatableRead,
                ))?;
                let read = ReadContext {
                    view: trx.read_view(),
                };
                let at = env.table.row_ref(&[Value::Int(black_box(id) as i64)])?;
                let row = env.table.get(&read, &at)?;
                if black_box(row).is_none() {
                    return Err(format!("engine.get: row {id} not found").into());
                }
                trx.commit()?;
            }
        }
        "engine.scan_eq" => {
            let columns = [0, 2];
            for &id in &env.ids {
                let mut trx = env.trx.begin(TrxOptions::autocommit_select(
                    IsolationLevel::RepeatableRead,
                ))?;
                let read = ReadContext {
                    view: trx.read_view(),
                };
                let range = KeyRange::eq(vec![Value::Int(black_box(id) as i64)]);
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
                if found != 1 {
                    return Err(format!("engine.scan_eq: {found} rows for id {id}").into());
                }
                trx.commit()?;
            }
        }
        "parse.select_1" => {
            for _ in 0..n {
                black_box(parse(black_box("SELECT 1"))?);
            }
        }
        "text.select_1" => {
            for _ in 0..n {
                let r = env.session.execute(black_box("SELECT 1"))?;
                check_one_row(black_box(&r), "SELECT 1")?;
            }
        }
        "prepared.select_1" => {
            for _ in 0..n {
                let r = env.session.execute_prepared(STMT_ONE, &[])?;
                check_one_row(black_box(&r), "prepared SELECT 1")?;
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
    let ops = args.ops.unwrap_or(mode.pick(20_000, 100_000)).max(1);
    let pool_bytes = args
        .pool_mib
        .map_or_else(|| (rows * 600).max(128 << 20), |m| m << 20);
    let out = larch_bench::harness::results_dir(args.out.clone())?;
    let scratch = larch_bench::harness::scratch_dir(args.dir.clone(), "larch-bench-sql-")?;
    let facts = format!(
        "sql-point {} mode, 1 warm-up round + {} timed rounds, median reported\n\
         rows: {rows}; statements per run: {ops}; buffer pool: {} MiB; redo log: 1 GiB; \
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
    let desc = session.prepare(STMT, POINT_SELECT_PS.as_bytes())?;
    if desc.params != 1 {
        return Err(format!("{POINT_SELECT_PS}: {} parameters", desc.params).into());
    }
    session.prepare(STMT_ONE, b"SELECT 1")?;
    let mut rng = Rng(0x1D5);
    let ids: Vec<u64> = (0..ops).map(|_| 1 + rng.below(rows)).collect();
    let texts = ids.iter().map(|&id| point_select(id)).collect();
    let parsed = parse(&point_select(1))?
        .into_iter()
        .next()
        .ok_or("the point select parsed to no statement")?;
    let trx = db.transactions().register_session()?;
    let mut env = Env {
        session,
        trx,
        table,
        ids,
        texts,
        parsed,
    };

    eprintln!("== {} variants x {} rounds", VARIANTS.len(), mode.reps + 1);
    let samples = rounds(mode, VARIANTS.len(), |v| run_variant(&mut env, v))?;

    let mut report = Report::default();
    let med: Vec<f64> = samples.iter().map(|s| median(s)).collect();
    for ((name, notes), s) in VARIANTS.iter().zip(&samples) {
        report.add(
            format!("sql.{name}"),
            median(s),
            "ns/op",
            format!("{notes}; {}", spread(s)),
        );
    }
    let fig = |name: &str| -> Result<f64> {
        VARIANTS
            .iter()
            .position(|(n, _)| *n == name)
            .map(|i| med[i])
            .ok_or_else(|| format!("no variant {name}").into())
    };
    let (parse_ns, text, prepared, floor, scan) = (
        fig("parse.point_select")?,
        fig("text.point_select")?,
        fig("prepared.point_select")?,
        fig("engine.get")?,
        fig("engine.scan_eq")?,
    );
    let derived = [
        (
            "sql.breakdown.parse",
            parse_ns,
            "parse only (= sql.parse.point_select)",
        ),
        (
            "sql.breakdown.plan_execute",
            prepared - floor,
            "prepared - engine floor: binding, planning, executing, result building above the engine read",
        ),
        (
            "sql.breakdown.engine_floor",
            floor,
            "the engine read (= sql.engine.get)",
        ),
        (
            "sql.breakdown.text_total",
            text,
            "text query, all of it (= sql.text.point_select)",
        ),
        (
            "sql.breakdown.text_minus_prepared",
            text - prepared,
            "what the text protocol adds over a prepared execute (parse, cache miss)",
        ),
        (
            "sql.breakdown.scan_eq_minus_get",
            scan - floor,
            "the executor's engine access path (scan over an equality range) against Table::get",
        ),
    ];
    for (name, v, notes) in derived {
        report.add(name, v, "ns/op", notes);
    }

    let elapsed = t_start.elapsed().as_secs_f64();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let facts = format!("{facts}load average at end: {}\n", load.join(" "));
    let stem = format!("sql-point-{}-{}", utc_stamp(), mode.name());
    let tsv = write_results(&out, &stem, &report, &facts, elapsed)?;
    drop(env);
    db.close()?;

    println!("{}", facts.trim_end());
    println!();
    print!("{}", report.table());
    println!();
    println!("point select, ns per statement (tab-separated):");
    println!("parse\tplan+execute\texecute floor\ttext total\tprepared total\tSELECT 1 text\tSELECT 1 prepared");
    println!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        fmt_value(parse_ns),
        fmt_value(prepared - floor),
        fmt_value(floor),
        fmt_value(text),
        fmt_value(prepared),
        fmt_value(fig("text.select_1")?),
        fmt_value(fig("prepared.select_1")?),
    );
    println!();
    println!(
        "{} figures in {elapsed:.1} s; written to {}",
        report.rows().len(),
        tsv.display()
    );
    Ok(())
}
