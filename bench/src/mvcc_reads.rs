//! Section `reads` of the `mvcc` benchmark: point reads by primary key, each
//! in its own autocommit snapshot (begin, `read_view`, `Table::get`, commit),
//! on 2 reader threads, while 0, 1, 100 or 1000 other sessions hold an open
//! REPEATABLE READ snapshot; then the same with 2 updater threads changing
//! random rows (one transaction per update) meanwhile.
//!
//! Every run: open the held snapshots (untimed), release all threads
//! together for a fixed time, close the snapshots, wait (untimed) until purge
//! has emptied the history list, so each run starts from the same state.
//! Readers and updaters use the same seeds in every run (same rows read, same
//! rows updated). The runs go in rounds: each round runs every variant once
//! (held counts ascending, without then with updaters), so a change in the
//! machine's load during the section touches every variant alike, and from
//! the second round on the peak of registered sessions (which snapshot scans
//! visit) is the same for all. The first round is the warm-up; then
//! `mode.reps` timed rounds; the median is reported with the range.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use larch_bench::harness::{median, run_for, spread, Mode, Result};
use larch_engine::record::value::Value;
use larch_engine::table::ReadContext;
use larch_engine::txn::{IsolationLevel, Session, Transaction, TrxOptions};

use crate::{update_loop, Env, Figures, Pick, Rng};

/// Sessions holding a snapshot during a run.
const HELD: [usize; 4] = [0, 1, 100, 1000];
/// Reader threads.
const READERS: usize = 2;
/// Updater threads of the `updating` runs.
const UPDATERS: usize = 2;
/// Reads between two looks at the stop flag.
const BATCH: u64 = 16;
/// Longest wait for purge between runs.
const DRAIN_LIMIT: Duration = Duration::from_secs(120);

/// What one timed run did.
#[derive(Debug, Clone, Copy)]
struct Run {
    secs: f64,
    reads: u64,
    updates: u64,
    /// Older versions rebuilt from undo by the readers.
    versions: u64,
    /// History list length when the run ended (before the snapshots closed).
    history: u64,
    /// Undo pages in use when the run ended.
    undo_pages: u64,
    /// Commit-table overflow entries when the run ended.
    overflow: usize,
    /// Seconds purge needed afterwards (`None`: it did not finish in time).
    drain: Option<f64>,
    /// The updaters paused at the undo cap.
    capped: bool,
}

pub(crate) fn run(env: &Env, figs: &mut Figures, mode: Mode, dur: Duration) -> Result<()> {
    let variants: Vec<(usize, usize)> =
        HELD.iter().flat_map(|&h| [(h, 0), (h, UPDATERS)]).collect();
    let mut all: Vec<Vec<Run>> = vec![Vec::with_capacity(mode.reps); variants.len()];
    for round in 0..=mode.reps {
        eprintln!(
            "   round {round} of {}{}",
            mode.reps,
            if round == 0 { " (warm-up)" } else { "" }
        );
        for (v, &(held, updaters)) in variants.iter().enumerate() {
            let r = one_run(env, held, updaters, dur)?;
            if round > 0 {
                all[v].push(r);
            }
        }
    }
    let mut base = [f64::NAN; 2];
    // Figures grouped: every held count without updaters, then with.
    let mut order: Vec<usize> = (0..variants.len()).collect();
    order.sort_by_key(|&v| (variants[v].1, variants[v].0));
    for (held, updaters, runs) in order
        .into_iter()
        .map(|v| (variants[v].0, variants[v].1, &all[v]))
    {
        let u = usize::from(updaters > 0);
        let rate: Vec<f64> = runs.iter().map(|r| r.reads as f64 / r.secs).collect();
        let m = median(&rate);
        if held == 0 {
            base[u] = m;
        }
        let name = if updaters == 0 {
            "mvcc.point_read"
        } else {
            "mvcc.point_read.updating"
        };
        let param = format!("held={held}");
        let per_read_us = 1e6 * READERS as f64 / m;
        figs.add(
            name,
            &param,
            m,
            "reads/s",
            format!(
                "{READERS} threads, {per_read_us:.2} us/read each, x{:.3} vs held=0; {}",
                m / base[u],
                spread(&rate)
            ),
        );
        if updaters == 0 {
            continue;
        }
        let ups: Vec<f64> = runs.iter().map(|r| r.updates as f64 / r.secs).collect();
        let capped = runs.iter().filter(|r| r.capped).count();
        figs.add(
            "mvcc.point_read.updating.updates",
            &param,
            median(&ups),
            "updates/s",
            format!(
                "{updaters} threads, uniform rows; {}{}",
                spread(&ups),
                if capped > 0 {
                    format!("; PAUSED at the undo cap in {capped} run(s)")
                } else {
                    String::new()
                }
            ),
        );
        let vpr: Vec<f64> = runs
            .iter()
            .map(|r| r.versions as f64 / r.reads.max(1) as f64)
            .collect();
        figs.add(
            "mvcc.point_read.updating.versions",
            &param,
            median(&vpr),
            "per_read",
            format!(
                "older versions rebuilt from undo per read; {}",
                spread(&vpr)
            ),
        );
        let hist: Vec<f64> = runs.iter().map(|r| r.history as f64).collect();
        let pages: Vec<f64> = runs.iter().map(|r| r.undo_pages as f64).collect();
        let overflow: Vec<f64> = runs.iter().map(|r| r.overflow as f64).collect();
        figs.add(
                "mvcc.point_read.updating.history",
                &param,
                median(&hist),
                "logs",
                format!(
                    "history list at the end of a run; undo pages {:.0}, commit-table overflow {:.0} (medians)",
                    median(&pages),
                    median(&overflow)
                ),
            );
        let drains: Vec<f64> = runs.iter().filter_map(|r| r.drain).collect();
        if drains.len() < runs.len() {
            eprintln!("   warning: purge did not empty the history after some runs");
        }
        figs.add(
            "mvcc.point_read.updating.purge_drain",
            &param,
            median(&drains),
            "s",
            format!(
                "purge time to empty the history after the run (snapshots closed); {}",
                spread(&drains)
            ),
        );
    }
    Ok(())
}

/// One timed run with `held` snapshots held and `updaters` updater threads.
fn one_run(env: &Env, held: usize, updaters: usize, dur: Duration) -> Result<Run> {
    let snapshots = hold_snapshots(env, held)?;
    let done = AtomicU64::new(0);
    let v0 = env.services.versions_visited();
    let (secs, counts) = run_for(READERS + updaters, dur, |i, stop| {
        if i < READERS {
            Ok((read_loop(env, i as u64 + 1, stop)?, 0))
        } else {
            let seed = 1000 + i as u64;
            Ok((0, update_loop(env, seed, Pick::Uniform, stop, &done)?))
        }
    })?;
    let versions = env.services.versions_visited() - v0;
    let history = env.services.undo.history_len();
    let undo_pages = env.services.undo.undo_pages();
    let overflow = env.services.system.commit_table_overflow();
    let capped = env.capped.swap(false, Ordering::Relaxed);
    for (_session, trx) in snapshots {
        trx.commit()?;
    }
    let drain = env.drain(DRAIN_LIMIT);
    Ok(Run {
        secs,
        reads: counts.iter().map(|c| c.0).sum(),
        updates: counts.iter().map(|c| c.1).sum(),
        versions,
        history,
        undo_pages,
        overflow,
        drain,
        capped,
    })
}

/// `n` sessions, each with a read-only REPEATABLE READ transaction whose
/// snapshot is open (taken by `read_view`) and kept until they are dropped.
fn hold_snapshots(env: &Env, n: usize) -> Result<Vec<(Session, Transaction)>> {
    (0..n)
        .map(|_| {
            let mut session = env.session()?;
            let mut trx = session.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
            trx.read_view().ok_or("no read view at REPEATABLE READ")?;
            Ok((session, trx))
        })
        .collect()
}

/// Point reads of random rows until `stop`, each an autocommit SELECT with its
/// own snapshot. Returns how many it did.
fn read_loop(env: &Env, seed: u64, stop: &AtomicBool) -> Result<u64> {
    let mut session = env.session()?;
    let mut rng = Rng::new(seed);
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..BATCH {
            let id = 1 + rng.below(env.rows) as i64;
            let at = env.table.row_ref(&[Value::Int(id)])?;
            let mut trx = session.begin(TrxOptions::autocommit_select(
                IsolationLevel::RepeatableRead,
            ))?;
            let view = trx.read_view().ok_or("no read view at REPEATABLE READ")?;
            let row = env.table.get(&ReadContext::consistent(view), &at)?;
            if black_box(row).is_none() {
                return Err(format!("row {id} not found").into());
            }
            trx.commit()?;
        }
        n += BATCH;
    }
    Ok(n)
}
