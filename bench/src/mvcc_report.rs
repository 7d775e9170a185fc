//! Section `report` of the `mvcc` benchmark: a long report beside hot-row
//! updaters, the classic MVCC trouble case, at engine level.
//!
//! The report is one read-only REPEATABLE READ transaction whose snapshot is
//! taken at `t0`; each "run" of it is two full scans under that snapshot:
//! `SELECT AVG(k)` answered by index `k` alone (covering scan, index 1,
//! column `k`), then the same over the clustered index. Per window:
//!
//! 1. wait until purge has emptied the history list;
//! 2. idle: the report with a fresh snapshot and nothing else running (one
//!    warm-up, then `mode.reps` runs; the median is the idle time);
//! 3. start the updaters (90% of updates on the hot 1% of rows, each update a
//!    transaction changing `k` and `c` of one row); after a warm-up, count
//!    their rate for a fixed time with no report (purge keeps up);
//! 4. take the report's snapshot (`t0`) and run the report at each age (0, 5,
//!    15 s quick; 0, 10, 30 s full) while the updaters go on; before each run
//!    sample the history list, undo pages, undo file sizes and RSS;
//! 5. stop the updaters, close the snapshot, time purge emptying the history
//!    (up to a limit).
//!
//! A scan longer than `Config::scan_limit` stops there and is reported as
//! incomplete (its time is a lower bound). Every complete scan is checked: it
//! sees every row, both scans of a run see the same sum of `k`, and every run
//! under one snapshot sees the same sum (the snapshot holds). The updaters
//! pause at the undo cap (`update_loop`), which the figures' notes report.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use larch_bench::harness::{fmt_value, median, repeat, rss_bytes, Mode, Result};
use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, ReadContext, CLUSTERED};
use larch_engine::txn::{IsolationLevel, ReadView, Session, Transaction, TrxOptions};

use crate::{update_loop, Env, Figures, Pick};

/// Index number of `KEY k (k)` in scans.
const INDEX_K: usize = 1;
const MIB: f64 = 1024.0 * 1024.0;

/// Settings of the section.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Updater threads.
    pub updaters: usize,
    /// Snapshot ages (seconds after `t0`) at which the report runs.
    pub ages: Vec<u64>,
    /// Windows (each one full sequence 1-5).
    pub windows: usize,
    /// Updaters run this long before anything is counted.
    pub warm_up: Duration,
    /// Updaters are counted this long without a report.
    pub baseline: Duration,
    /// A scan running longer stops there (reported as incomplete).
    pub scan_limit: Duration,
    /// Longest wait for purge to empty the history.
    pub drain_limit: Duration,
}

/// One scan: time, versions rebuilt from undo, rows and their sum of `k`.
#[derive(Debug, Clone, Copy)]
struct Scan {
    secs: f64,
    versions: u64,
    count: u64,
    sum: i64,
    /// False if the scan stopped at the time limit before the last row.
    complete: bool,
}

/// Engine state at one moment.
#[derive(Debug, Clone, Copy)]
struct Sample {
    history: u64,
    undo_pages: u64,
    /// Bytes of the undo tablespace files.
    undo_files: u64,
    rss: u64,
}

/// One report run of the long snapshot.
#[derive(Debug, Clone, Copy)]
struct Point {
    /// Seconds since `t0` when the run started.
    age: f64,
    at: Sample,
    k: Scan,
    pk: Scan,
    /// Updates per second while the report ran.
    updates: f64,
    /// The updaters had paused at the undo cap by the end of this run.
    capped: bool,
}

/// What one window measured.
#[derive(Debug, Clone)]
struct Window {
    idle_k: f64,
    idle_pk: f64,
    idle: Sample,
    base_rate: f64,
    base_history: u64,
    points: Vec<Point>,
    window_rate: f64,
    end: Sample,
    /// The updaters paused at the undo cap.
    capped: bool,
    drain: Option<f64>,
    drained_logs: u64,
    /// History logs purged per second while draining.
    purge_rate: f64,
    after: Sample,
}

pub(crate) fn run(env: &Env, figs: &mut Figures, mode: Mode, cfg: &Config) -> Result<()> {
    let mut windows = Vec::with_capacity(cfg.windows);
    for w in 0..cfg.windows {
        if env.drain(cfg.drain_limit).is_none() {
            if windows.is_empty() {
                return Err("purge did not empty the history before the first window".into());
            }
            eprintln!("   warning: history not empty; skipping the remaining windows");
            break;
        }
        eprintln!("   window {} of {}", w + 1, cfg.windows);
        windows.push(window(env, mode, cfg, w as u64)?);
    }
    emit(
        figs,
        cfg,
        env.rows,
        &windows,
        env.storage.page_size().bytes() as f64,
    );
    Ok(())
}

/// What [`observe`] saw while the updaters ran.
struct Observed {
    base_rate: f64,
    base_history: u64,
    points: Vec<Point>,
    window_rate: f64,
    end: Sample,
    /// The report's session and transaction, its snapshot still open.
    report: (Session, Transaction),
}

fn window(env: &Env, mode: Mode, cfg: &Config, w: u64) -> Result<Window> {
    let idle_runs = repeat(mode, || {
        let mut session = env.session()?;
        let mut trx = session.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
        let view = trx.read_view().ok_or("no read view")?;
        let r = report(env, view, cfg.scan_limit)?;
        trx.commit()?;
        if !(r.0.complete && r.1.complete) {
            return Err(format!(
                "an idle report took longer than the {} s scan limit",
                cfg.scan_limit.as_secs()
            )
            .into());
        }
        Ok(r)
    })?;
    let idle = sample(env)?;
    env.capped.store(false, Ordering::Relaxed);
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let observed = std::thread::scope(|s| {
        let handles: Vec<_> = (0..cfg.updaters)
            .map(|i| {
                let (stop, done) = (&stop, &done);
                let seed = (w << 32) | (i as u64 + 1);
                s.spawn(move || update_loop(env, seed, Pick::Hot, stop, done))
            })
            .collect();
        // Whatever happens here, stop the updaters before joining them.
        let r = observe(env, cfg, &done);
        stop.store(true, Ordering::SeqCst);
        let mut joined: Result<()> = Ok(());
        for h in handles {
            let j = h.join().map_err(|_| "updater thread panicked".into());
            if let (Ok(()), Err(e)) = (&joined, j.and_then(|r| r)) {
                joined = Err(e);
            }
        }
        let r = r?;
        joined.map(|()| r)
    })?;
    let capped = env.capped.swap(false, Ordering::Relaxed);
    let (session, trx) = observed.report;
    trx.commit()?;
    drop(session);
    let drained_logs = env.services.undo.history_len();
    let t = Instant::now();
    let drain = env.drain(cfg.drain_limit);
    let purged = drained_logs.saturating_sub(env.services.undo.history_len());
    let purge_rate = purged as f64 / t.elapsed().as_secs_f64();
    let after = sample(env)?;
    Ok(Window {
        idle_k: median(&idle_runs.iter().map(|r| r.0.secs).collect::<Vec<_>>()),
        idle_pk: median(&idle_runs.iter().map(|r| r.1.secs).collect::<Vec<_>>()),
        idle,
        base_rate: observed.base_rate,
        base_history: observed.base_history,
        points: observed.points,
        window_rate: observed.window_rate,
        end: observed.end,
        capped,
        drain,
        drained_logs,
        purge_rate,
        after,
    })
}

/// Steps 3 and 4 on the main thread while the updaters run (counting into
/// `done`).
fn observe(env: &Env, cfg: &Config, done: &AtomicU64) -> Result<Observed> {
    std::thread::sleep(cfg.warm_up);
    let (c0, t) = (done.load(Ordering::Relaxed), Instant::now());
    std::thread::sleep(cfg.baseline);
    let base_rate = (done.load(Ordering::Relaxed) - c0) as f64 / t.elapsed().as_secs_f64();
    let base_history = env.services.undo.history_len();

    let mut session = env.session()?;
    let mut trx = session.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let view = trx.read_view().ok_or("no read view")?;
    let (t0, c_t0) = (Instant::now(), done.load(Ordering::Relaxed));
    let mut points = Vec::with_capacity(cfg.ages.len());
    let mut first_sum = None;
    for &age in &cfg.ages {
        let due = t0 + Duration::from_secs(age);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let at = sample(env)?;
        let (c1, t1) = (done.load(Ordering::Relaxed), Instant::now());
        let (k, pk) = report(env, view, cfg.scan_limit)?;
        let updates = (done.load(Ordering::Relaxed) - c1) as f64 / t1.elapsed().as_secs_f64();
        if k.complete {
            match first_sum {
                None => first_sum = Some((age, k.sum)),
                Some((a, sum)) if sum != k.sum => {
                    return Err(format!(
                        "the report's snapshot changed: sum(k) {sum} at age {a} s, {} at {age} s",
                        k.sum
                    )
                    .into())
                }
                Some(_) => {}
            }
        }
        points.push(Point {
            age: (t1 - t0).as_secs_f64(),
            at,
            k,
            pk,
            updates,
            capped: env.capped.load(Ordering::Relaxed),
        });
    }
    let window_rate = (done.load(Ordering::Relaxed) - c_t0) as f64 / t0.elapsed().as_secs_f64();
    Ok(Observed {
        base_rate,
        base_history,
        points,
        window_rate,
        end: sample(env)?,
        report: (session, trx),
    })
}

/// The report under `view`: covering scan of index `k`, then clustered scan,
/// both computing AVG(k), each stopped after `limit`. Complete scans are
/// checked to see every row and the same sum.
fn report(env: &Env, view: ReadView, limit: Duration) -> Result<(Scan, Scan)> {
    let k = scan(env, view, INDEX_K, limit)?;
    let pk = scan(env, view, CLUSTERED, limit)?;
    let bad = |s: &Scan| s.complete && s.count != env.rows;
    if bad(&k) || bad(&pk) || (k.complete && pk.complete && k.sum != pk.sum) {
        return Err(format!(
            "inconsistent report: index k {} rows (sum {}), clustered {} rows (sum {}), table {} rows",
            k.count, k.sum, pk.count, pk.sum, env.rows
        )
        .into());
    }
    Ok((k, pk))
}

/// Rows between two looks at the clock during a scan.
const CLOCK_EVERY: u64 = 16;

fn scan(env: &Env, view: ReadView, index: usize, limit: Duration) -> Result<Scan> {
    let v0 = env.services.versions_visited();
    let t0 = Instant::now();
    let read = ReadContext::consistent(view);
    let mut cursor = env
        .table
        .scan(&read, index, &KeyRange::all(), false, Some(&[1]))?;
    if index != CLUSTERED && !cursor.is_covering() {
        return Err("index k does not cover column k".into());
    }
    let (mut count, mut sum, mut complete) = (0u64, 0i64, true);
    while let Some((_, row)) = cursor.next_row()? {
        match row.first() {
            Some(Value::Int(k)) => sum += k,
            other => return Err(format!("unexpected value of k: {other:?}").into()),
        }
        count += 1;
        if count % CLOCK_EVERY == 0 && t0.elapsed() > limit {
            complete = false;
            break;
        }
    }
    drop(cursor);
    std::hint::black_box(sum as f64 / count.max(1) as f64);
    Ok(Scan {
        secs: t0.elapsed().as_secs_f64(),
        versions: env.services.versions_visited() - v0,
        count,
        sum,
        complete,
    })
}

fn sample(env: &Env) -> Result<Sample> {
    let dir = env.storage.datadir();
    let mut undo_files = 0;
    for entry in std::fs::read_dir(dir).map_err(|e| format!("listing {}: {e}", dir.display()))? {
        let entry = entry.map_err(|e| format!("listing {}: {e}", dir.display()))?;
        if entry.file_name().to_string_lossy().starts_with("undo") {
            let meta = entry
                .metadata()
                .map_err(|e| format!("stat of {}: {e}", entry.path().display()))?;
            undo_files += meta.len();
        }
    }
    Ok(Sample {
        history: env.services.undo.history_len(),
        undo_pages: env.services.undo.undo_pages(),
        undo_files,
        rss: rss_bytes()?,
    })
}

/// Adds the median over windows of `vals`, with the range when there are
/// several windows.
fn agg(
    figs: &mut Figures,
    name: &str,
    param: &str,
    vals: &[f64],
    unit: &'static str,
    notes: String,
) {
    let m = median(vals);
    let mut notes = notes;
    if vals.len() > 1 {
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        notes = format!(
            "{notes}; median of {} windows, range {}..{}",
            vals.len(),
            fmt_value(lo),
            fmt_value(hi)
        );
    }
    figs.add(name, param, m, unit, notes);
}

fn emit(figs: &mut Figures, cfg: &Config, rows: u64, ws: &[Window], page: f64) {
    let col = |f: &dyn Fn(&Window) -> f64| ws.iter().map(f).collect::<Vec<f64>>();
    let u = cfg.updaters;
    let k_idle = col(&|w| w.idle_k * 1e3);
    let pk_idle = col(&|w| w.idle_pk * 1e3);
    agg(
        figs,
        "mvcc.report.scan_k",
        "idle",
        &k_idle,
        "ms",
        format!(
            "covering scan of index k, AVG(k), fresh snapshot, no updaters; {:.0} rows/s",
            rows as f64 / median(&k_idle) * 1e3
        ),
    );
    agg(
        figs,
        "mvcc.report.scan_pk",
        "idle",
        &pk_idle,
        "ms",
        format!(
            "clustered scan, AVG(k), fresh snapshot, no updaters; {:.0} rows/s",
            rows as f64 / median(&pk_idle) * 1e3
        ),
    );
    state(figs, page, "idle", ws, &|w| Some(w.idle));
    let capped_note = |n: usize, when: &str| {
        if n > 0 {
            format!("; updaters PAUSED at the undo cap {when} in {n} window(s)")
        } else {
            String::new()
        }
    };
    agg(
        figs,
        "mvcc.report.updates",
        "no_report",
        &col(&|w| w.base_rate),
        "updates/s",
        format!("{u} updaters, 90% of updates on 1% of rows, no snapshot held"),
    );
    agg(
        figs,
        "mvcc.report.history",
        "no_report",
        &col(&|w| w.base_history as f64),
        "logs",
        "history list at the end of the no-report period (purge keeping up)".into(),
    );
    for (j, &age) in cfg.ages.iter().enumerate() {
        let pts: Vec<(&Window, &Point)> = ws
            .iter()
            .filter_map(|w| w.points.get(j).map(|p| (w, p)))
            .collect();
        let p = |f: &dyn Fn(&Window, &Point) -> f64| {
            pts.iter().map(|(w, x)| f(w, x)).collect::<Vec<f64>>()
        };
        let param = format!("age={age}s");
        let actual = median(&p(&|_, x| x.age));
        for (name, pick, idle_of) in [
            (
                "mvcc.report.scan_k",
                (|x: &Point| x.k) as fn(&Point) -> Scan,
                (|w: &Window| w.idle_k) as fn(&Window) -> f64,
            ),
            (
                "mvcc.report.scan_pk",
                |x: &Point| x.pk,
                |w: &Window| w.idle_pk,
            ),
        ] {
            let ratio = p(&|w, x| pick(x).secs / idle_of(w));
            let short = pts.iter().filter(|(_, x)| !pick(x).complete).count();
            let done = p(&|_, x| pick(x).count as f64 / rows as f64);
            let bound = if short > 0 {
                format!("; INCOMPLETE in {short} window(s): stopped at the {} s limit after {:.1}% of the rows, so time and ratio are lower bounds",
                    cfg.scan_limit.as_secs(), 100.0 * median(&done))
            } else {
                String::new()
            };
            agg(figs, name, &param, &p(&|_, x| pick(x).secs * 1e3), "ms",
                format!("{u} updaters running; snapshot {actual:.1} s old at the start; x{:.2} vs idle{bound}", median(&ratio)));
            agg(
                figs,
                &format!("{name}.ratio"),
                &param,
                &ratio,
                "x",
                format!("scan time / idle scan time{bound}"),
            );
            agg(
                figs,
                &format!("{name}.done"),
                &param,
                &done,
                "fraction",
                "share of the rows scanned before the limit".into(),
            );
            agg(
                figs,
                &format!("{name}.versions"),
                &param,
                &p(&|_, x| pick(x).versions as f64),
                "versions",
                "older versions rebuilt from undo during the scan".into(),
            );
        }
        agg(
            figs,
            "mvcc.report.updates",
            &param,
            &p(&|_, x| x.updates),
            "updates/s",
            format!(
                "updater rate while this report run scanned{}",
                capped_note(
                    pts.iter().filter(|(_, x)| x.capped).count(),
                    "by the end of this run"
                )
            ),
        );
        state(figs, page, &param, ws, &|w| w.points.get(j).map(|x| x.at));
    }
    agg(
        figs,
        "mvcc.report.updates",
        "window",
        &col(&|w| w.window_rate),
        "updates/s",
        format!(
            "updater rate from t0 to the end of the last report run{}",
            capped_note(ws.iter().filter(|w| w.capped).count(), "before the end")
        ),
    );
    state(figs, page, "window_end", ws, &|w| Some(w.end));
    let drains: Vec<f64> = ws.iter().filter_map(|w| w.drain).collect();
    let unfinished = ws.len() - drains.len();
    agg(
        figs,
        "mvcc.report.purge_drain",
        "after_window",
        &if drains.is_empty() {
            vec![cfg.drain_limit.as_secs_f64()]
        } else {
            drains
        },
        "s",
        format!(
            "updaters stopped, snapshot closed: purge of {:.0} history logs (median){}",
            median(&col(&|w| w.drained_logs as f64)),
            if unfinished > 0 {
                format!(
                    "; NOT FINISHED within {} s in {unfinished} window(s) (lower bound)",
                    cfg.drain_limit.as_secs()
                )
            } else {
                String::new()
            }
        ),
    );
    agg(
        figs,
        "mvcc.report.purge_rate",
        "after_window",
        &col(&|w| w.purge_rate),
        "logs/s",
        "history logs purged per second while draining (each log: one update)".into(),
    );
    state(figs, page, "after_drain", ws, &|w| Some(w.after));
}

/// History length, undo pages and RSS at one point (`at` of each window).
fn state(
    figs: &mut Figures,
    page: f64,
    param: &str,
    ws: &[Window],
    at: &dyn Fn(&Window) -> Option<Sample>,
) {
    let samples: Vec<Sample> = ws.iter().filter_map(at).collect();
    let history: Vec<f64> = samples.iter().map(|s| s.history as f64).collect();
    let pages: Vec<f64> = samples.iter().map(|s| s.undo_pages as f64).collect();
    let rss: Vec<f64> = samples.iter().map(|s| s.rss as f64 / MIB).collect();
    let files: Vec<f64> = samples.iter().map(|s| s.undo_files as f64 / MIB).collect();
    agg(
        figs,
        "mvcc.report.history",
        param,
        &history,
        "logs",
        "history list length (committed logs awaiting purge)".into(),
    );
    agg(
        figs,
        "mvcc.report.undo_pages",
        param,
        &pages,
        "pages",
        format!(
            "{:.1} MiB of undo pages in use; undo files {:.0} MiB on disk",
            median(&pages) * page / MIB,
            median(&files)
        ),
    );
    agg(
        figs,
        "mvcc.report.rss",
        param,
        &rss,
        "MiB",
        "process VmRSS (includes the buffer pool)".into(),
    );
}
