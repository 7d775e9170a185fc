//! B+tree crash tests with real processes and real files.
//!
//! A child process applies a deterministic sequence of tree changes to one
//! B+tree in a real data directory: operation `n` inserts or replaces a key with
//! a value of random length (updates change the length, so entries move and
//! pages split), removes a key, or sets/clears a delete mark. The sequence
//! alternates between growing phases (mostly inserts) and shrinking phases
//! (mostly removals), so the tree keeps splitting and merging and its root is
//! raised and lowered. After each operation the child flushes the redo log up to
//! the current LSN, as a commit does with `innodb_flush_log_at_trx_commit=1`,
//! and only then prints `D n` to its stdout and goes on.
//!
//! The parent kills the child with SIGKILL at a random moment: mostly once it
//! has reported a random number of durable operations (plus a random delay, so
//! the kill lands anywhere inside an operation), sometimes during start-up while
//! it is still recovering from the previous kill. Then the parent opens the
//! directory (crash recovery), runs the structural check `btree::check::check`
//! (no violation allowed), and compares the whole tree with a model: it must
//! equal the model after every operation reported durable, or after those and the
//! one operation that was in flight at the kill. Nothing partial is accepted:
//! every key holds exactly its old or its new value and mark. The next child
//! continues after the operations the parent found applied.
//!
//! The child is this test binary run again with `LARCH_BTREE_KILL_CHILD` set.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use larch_engine::btree::check::check;
use larch_engine::btree::node::{self, Node};
use larch_engine::btree::{BTree, OnDuplicate};
use larch_engine::buffer::Latch;
use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::page::{PageId, PageSize};
use larch_engine::storage::Storage;
use larch_engine::{EngineError, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const CHILD_ENV: &str = "LARCH_BTREE_KILL_CHILD";
const SPACE_NAME: &str = "db/kill.ibd";
const INDEX_ID: u64 = 91;
/// Distinct keys the operations draw from.
const KEYS: u32 = 1500;
/// Operations per growing or shrinking phase (a shrinking phase sweeps the key
/// space one and two thirds times).
const PHASE: u64 = 2500;
/// Step of the shrinking phases' sweep through the key ids (coprime to `KEYS`,
/// so one sweep of `KEYS` operations visits every key in a scattered order).
const SWEEP_STEP: u64 = 419;
/// Largest "big" value: keeps the shrunken tree small enough at 64k pages for
/// the root to become a leaf again.
const BIG_VALUE_MAX: usize = 3000;

fn config(dir: &Path, ps: PageSize) -> EngineConfig {
    let mut c = EngineConfig::new(dir);
    c.page_size = Some(ps);
    // A small pool: tree pages are evicted and written back while the load runs.
    c.buffer_pool_size = 48 * ps.bytes() as u64;
    // A small log: frequent checkpoints, so pages are flushed all the time.
    c.log_file_size = 1 << 20;
    c.log_buffer_size = 256 << 10;
    c.undo_tablespaces = 0;
    c
}

fn vfs() -> Arc<dyn Vfs> {
    Arc::new(OsVfs::new())
}

fn err(msg: String) -> EngineError {
    EngineError::Internal(msg)
}

/// Largest key + value a tree of page size `ps` accepts.
fn max_entry(ps: PageSize) -> usize {
    node::max_entry_bytes(ps.bytes()) - node::ENTRY_HEADER
}

/// Key `id`: ordered by id, 6 to 86 bytes long (long separators lower the
/// fan-out, so small pages get a third level).
fn key_of(id: u32) -> Vec<u8> {
    let mut k = format!("k{id:05}").into_bytes();
    let pad = (id as usize * 37) % 81;
    k.resize(k.len() + pad, b'a' + (id % 26) as u8);
    k
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    /// Insert, or replace the value and clear the delete mark.
    Put(Vec<u8>, Vec<u8>),
    /// Remove the key (no-op when absent).
    Del(Vec<u8>),
    /// Set or clear the delete mark (no-op when absent).
    Mark(Vec<u8>, bool),
}

/// Operation `n` of the sequence (the same in the child and the parent).
///
/// Growing phases: 80% inserts/replacements of random keys (10% of them with
/// big values), 15% removals, 5% delete-mark changes. Shrinking phases: 95%
/// removals sweeping the key space, 2.5% small inserts, 2.5% delete-mark changes;
/// at their end only a few dozen keys are left.
fn op(n: u64, max_entry: usize) -> Op {
    let mut rng = StdRng::seed_from_u64(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x6b69_6c6c);
    let growing = (n / PHASE) % 2 == 0;
    let r: f64 = rng.random();
    let key = key_of(rng.random_range(0..KEYS));
    let mark = rng.random_bool(0.7);
    let big = growing && rng.random_bool(0.1);
    let put = |rng: &mut StdRng, key: Vec<u8>| {
        let len = if big {
            rng.random_range(200..=(max_entry - key.len()).min(BIG_VALUE_MAX))
        } else {
            rng.random_range(0..80)
        };
        // Every byte depends on n, so any mix of old and new bytes is detected.
        let value = (0..len)
            .map(|i| (n as u8).wrapping_mul(31).wrapping_add(i as u8))
            .collect();
        Op::Put(key, value)
    };
    match (growing, r) {
        (true, r) if r < 0.8 => put(&mut rng, key),
        (true, r) if r < 0.95 => Op::Del(key),
        (false, r) if r < 0.95 => {
            Op::Del(key_of(((n % PHASE) * SWEEP_STEP % u64::from(KEYS)) as u32))
        }
        (false, r) if r < 0.975 => put(&mut rng, key),
        _ => Op::Mark(key, mark),
    }
}

/// What a key holds: its value and its delete mark.
type Stored = (Vec<u8>, bool);
/// Key -> what it holds, after a prefix of the sequence.
type Model = BTreeMap<Vec<u8>, Stored>;

fn apply_model(model: &mut Model, op: Op) {
    match op {
        Op::Put(k, v) => {
            model.insert(k, (v, false));
        }
        Op::Del(k) => {
            model.remove(&k);
        }
        Op::Mark(k, deleted) => {
            if let Some(e) = model.get_mut(&k) {
                e.1 = deleted;
            }
        }
    }
}

fn apply_tree(tree: &BTree, s: &Storage, op: Op) -> Result<()> {
    match op {
        Op::Put(k, v) => tree.insert(s.pool(), &k, &v, OnDuplicate::Replace),
        Op::Del(k) => tree.delete(s.pool(), &k).map(drop),
        Op::Mark(k, deleted) => tree.set_delete_mark(s.pool(), &k, deleted).map(drop),
    }
}

/// What the parent tells the child: where the tree is and where to continue.
struct ChildSpec {
    dir: String,
    page_size: u64,
    space: u32,
    root: u32,
    start: u64,
}

impl ChildSpec {
    fn encode(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}",
            self.dir, self.page_size, self.space, self.root, self.start
        )
    }

    fn decode(s: &str) -> Result<Self> {
        let f: Vec<&str> = s.rsplitn(5, '|').collect();
        let num = |i: usize| -> Result<u64> {
            f.get(i)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| err(format!("bad child spec '{s}'")))
        };
        Ok(Self {
            dir: f.get(4).map(|d| d.to_string()).unwrap_or_default(),
            page_size: num(3)?,
            space: num(2)? as u32,
            root: num(1)? as u32,
            start: num(0)?,
        })
    }
}

/// The child: open (recovering), then apply operations from `start` on forever,
/// printing `D n level` once operation `n` is durable (`level`: the root's level
/// after it, so the parent can count root raises and lowers).
#[test]
#[ignore = "entry point of the crash-test child process"]
fn btree_kill_child_entry() -> Result<()> {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return Ok(());
    };
    let spec = ChildSpec::decode(&spec)?;
    let ps = PageSize::from_bytes(spec.page_size)?;
    let storage = Storage::open(config(Path::new(&spec.dir), ps), vfs())?;
    let tree = BTree::open(storage.pool(), spec.space, spec.root)?;
    let max = max_entry(ps);
    let out = std::io::stdout();
    let mut out = out.lock();
    let _ = writeln!(out, "READY {}", spec.start);
    let _ = out.flush();
    for n in spec.start.. {
        apply_tree(&tree, &storage, op(n, max))?;
        // One thread changes the tree, so the current LSN covers this change.
        storage.log().flush_up_to(storage.log().current_lsn())?;
        let _ = writeln!(out, "D {n} {}", root_level(&tree, &storage)?);
        let _ = out.flush();
    }
    Ok(())
}

fn root_level(tree: &BTree, s: &Storage) -> Result<u16> {
    let g = s
        .pool()
        .fix(PageId::new(tree.space, tree.root), Latch::Shared)?;
    Ok(Node(g.data()).level())
}

/// What the reader threads learn from a running child.
#[derive(Default)]
struct Progress {
    ready: AtomicBool,
    /// Last operation reported durable, plus one (0 = none this run).
    durable: AtomicU64,
    /// Root level changes seen in the reports.
    raised: AtomicU64,
    lowered: AtomicU64,
    max_level: AtomicU64,
}

fn spawn_child(exe: &Path, spec: &ChildSpec) -> Result<Child> {
    Command::new(exe)
        .args([
            "--ignored",
            "--exact",
            "btree_kill_child_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, spec.encode())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| EngineError::io("spawn", exe, e))
}

/// Tree height (root level) and page count per level, leaves first.
fn shape(tree: &BTree, s: &Storage) -> Result<Vec<u32>> {
    let mut level = vec![tree.root];
    let mut counts = Vec::new();
    loop {
        let mut next = Vec::new();
        let mut is_leaf = false;
        for &p in &level {
            let g = s.pool().fix(PageId::new(tree.space, p), Latch::Shared)?;
            let n = Node(g.data());
            is_leaf = n.is_leaf();
            if !is_leaf {
                next.extend((0..n.len()).map(|i| n.entry(i).child()));
            }
        }
        counts.push(level.len() as u32);
        if is_leaf {
            counts.reverse();
            return Ok(counts);
        }
        level = next;
    }
}

/// Counters of one run, for the summary line and the coverage assertions.
#[derive(Debug, Default)]
struct Stats {
    kills_in_startup: u32,
    in_flight_applied: u32,
    /// Highest root level seen.
    max_height: u64,
    /// Root raises and lowers reported by the children.
    root_raised: u64,
    root_lowered: u64,
    max_pages: u32,
}

/// The data directory under test and the tree in it.
struct Target {
    dir: PathBuf,
    ps: PageSize,
    tree: BTree,
}

/// Opens the directory after a kill and checks the tree against the model of
/// the first `done` operations; the operation `done + 1` may also be present.
/// Returns how many operations the tree holds and its height.
fn verify(
    target: &Target,
    model: &mut Model,
    done: u64,
    cycle: u32,
    stats: &mut Stats,
    last: bool,
) -> Result<(u64, usize)> {
    let Target { dir, ps, tree } = target;
    let ps = *ps;
    let ctx = |m: String| err(format!("page size {ps}, cycle {cycle}: {m}"));
    let s = Storage::open(config(dir, ps), vfs())?;
    let tree = BTree::open(s.pool(), tree.space, tree.root)?;
    let problems = check(&tree, s.pool())?;
    if !problems.is_empty() {
        return Err(ctx(format!("btree check: {problems:?}")));
    }
    let got: Vec<(Vec<u8>, Stored)> = tree
        .entries(s.pool())?
        .into_iter()
        .map(|e| {
            let deleted = e.is_deleted();
            (e.key, (e.value, deleted))
        })
        .collect();
    let same = |m: &Model| got.len() == m.len() && got.iter().map(|(k, v)| (k, v)).eq(m.iter());
    let mut applied = done;
    if !same(model) {
        apply_model(model, op(done + 1, max_entry(ps)));
        applied = done + 1;
        if !same(model) {
            let diff = first_difference(&got, model);
            return Err(ctx(format!(
                "the tree matches neither the {done} operations reported durable nor \
                 those and the one in flight; {diff}"
            )));
        }
        stats.in_flight_applied += 1;
    }
    let levels = shape(&tree, &s)?;
    let height = levels.len() - 1;
    stats.max_pages = stats.max_pages.max(levels.iter().sum());
    stats.max_height = stats.max_height.max(height as u64);
    if last {
        let report = s.check()?;
        if !report.is_clean() {
            return Err(ctx(format!("storage check: {:?}", report.problems())));
        }
        s.close()?;
    } else {
        // Leave the recovered pages unwritten: the next child recovers again.
        s.abandon();
    }
    Ok((applied, height))
}

fn first_difference(got: &[(Vec<u8>, Stored)], model: &Model) -> String {
    let show = |k: &[u8]| String::from_utf8_lossy(&k[..k.len().min(6)]).into_owned();
    for (g, m) in got.iter().zip(model.iter()) {
        if g.0 != *m.0 {
            return format!(
                "key {} in the tree where {} was expected",
                show(&g.0),
                show(m.0)
            );
        }
        if g.1 != *m.1 {
            return format!(
                "key {}: value of {} bytes (deleted {}) where {} bytes (deleted {}) were expected",
                show(&g.0),
                g.1 .0.len(),
                g.1 .1,
                m.1 .0.len(),
                m.1 .1
            );
        }
    }
    format!(
        "{} entries in the tree, {} in the model",
        got.len(),
        model.len()
    )
}

/// Parses a `D n level` report.
fn parse_report(line: &str) -> Option<(u64, u64)> {
    let (n, level) = line.strip_prefix("D ")?.split_once(' ')?;
    Some((n.parse().ok()?, level.parse().ok()?))
}

/// Reads the child's stdout (progress) and stderr (kept for error messages).
fn readers(
    child: &mut Child,
    progress: &Arc<Progress>,
    start_level: u64,
) -> (
    Option<std::thread::JoinHandle<()>>,
    Option<std::thread::JoinHandle<String>>,
) {
    let out = child.stdout.take().map(|stdout| {
        let progress = progress.clone();
        std::thread::spawn(move || {
            let mut level_seen = Some(start_level);
            for line in BufReader::new(stdout)
                .lines()
                .map_while(std::io::Result::ok)
            {
                if let Some((n, level)) = parse_report(&line) {
                    let before = level_seen.replace(level);
                    if before.is_some_and(|b| level > b) {
                        progress.raised.fetch_add(1, Ordering::SeqCst);
                    }
                    if before.is_some_and(|b| level < b) {
                        progress.lowered.fetch_add(1, Ordering::SeqCst);
                    }
                    progress.max_level.fetch_max(level, Ordering::SeqCst);
                    progress.durable.store(n + 1, Ordering::SeqCst);
                } else if line.starts_with("READY ") {
                    progress.ready.store(true, Ordering::SeqCst);
                }
            }
        })
    });
    let err = child.stderr.take().map(|mut stderr| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        })
    });
    (out, err)
}

/// Runs `cycles` kill cycles on a fresh data directory of page size `ps`.
fn run_cycles(ps: PageSize, cycles: u32, seed: u64) -> Result<Stats> {
    let tmp = tempfile::tempdir().map_err(|e| EngineError::io("tempdir", "tmp", e))?;
    let dir = tmp.path().join("data");
    let exe = std::env::current_exe().map_err(|e| EngineError::io("current_exe", "self", e))?;
    let tree = {
        let s = Storage::create(config(&dir, ps), vfs())?;
        let space = s.create_tablespace(SPACE_NAME)?;
        let tree = BTree::create(s.pool(), space, INDEX_ID)?;
        s.close()?;
        tree
    };
    let target = Target {
        dir: dir.clone(),
        ps,
        tree,
    };
    let started = Instant::now();
    let mut ops_time = Duration::ZERO;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut model = Model::new();
    let mut done = 0u64; // operations 1..=done are in the tree
    let mut stats = Stats::default();
    let mut height = 0u64; // root level after the last verification
    for cycle in 0..cycles {
        let spec = ChildSpec {
            dir: dir.to_string_lossy().into_owned(),
            page_size: ps.bytes() as u64,
            space: tree.space,
            root: tree.root,
            start: done + 1,
        };
        let mut child = spawn_child(&exe, &spec)?;
        let progress = Arc::new(Progress::default());
        let (out_reader, err_reader) = readers(&mut child, &progress, height);
        let t0 = Instant::now();
        let exited = |child: &mut Child| matches!(child.try_wait(), Ok(Some(_)));
        if rng.random_bool(0.15) {
            // During start-up: opening the directory, maybe recovering.
            std::thread::sleep(Duration::from_micros(rng.random_range(0..6_000)));
            if !progress.ready.load(Ordering::SeqCst) {
                stats.kills_in_startup += 1;
            }
        } else {
            // After a random number of durable operations, at a random point
            // of the operation then running.
            let target = done + rng.random_range(250..1050u64);
            while progress.durable.load(Ordering::SeqCst) < target + 1
                && t0.elapsed() < Duration::from_secs(20)
                && !exited(&mut child)
            {
                std::thread::sleep(Duration::from_micros(200));
            }
            std::thread::sleep(Duration::from_micros(rng.random_range(0..2_000)));
        }
        ops_time += t0.elapsed();
        let _ = child.kill(); // SIGKILL
        let status = child.wait().map_err(|e| EngineError::io("wait", &exe, e))?;
        if let Some(r) = out_reader {
            let _ = r.join();
        }
        let stderr = err_reader.and_then(|r| r.join().ok()).unwrap_or_default();
        if status.code().is_some() {
            let tail: String = stderr
                .lines()
                .rev()
                .take(15)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            return Err(err(format!(
                "page size {ps}, cycle {cycle}: the child exited by itself ({status}):\n{tail}"
            )));
        }
        let reported = progress.durable.load(Ordering::SeqCst);
        if reported > 0 {
            // Operations done+1..reported-1 were reported durable.
            for n in done + 1..reported {
                apply_model(&mut model, op(n, max_entry(ps)));
            }
            done = reported - 1;
        }
        let last = cycle + 1 == cycles;
        let (applied, h) = verify(&target, &mut model, done, cycle, &mut stats, last)?;
        done = applied;
        stats.root_raised += progress.raised.load(Ordering::SeqCst);
        stats.root_lowered += progress.lowered.load(Ordering::SeqCst);
        stats.max_height = stats
            .max_height
            .max(progress.max_level.load(Ordering::SeqCst));
        height = h as u64;
    }
    eprintln!(
        "page size {ps}: {:.1} s ({:.1} s with a child running), {cycles} kills ({} during start-up), {done} operations, \
         in-flight operation found applied {} times, root level up to {} (raised {} and \
         lowered {} times), up to {} tree pages",
        started.elapsed().as_secs_f64(),
        ops_time.as_secs_f64(),
        stats.kills_in_startup,
        stats.in_flight_applied,
        stats.max_height,
        stats.root_raised,
        stats.root_lowered,
        stats.max_pages
    );
    Ok(stats)
}

/// About 50 kill cycles over 4k, 16k and 64k pages in the normal test suite.
#[test]
fn btree_survives_sigkill() -> Result<()> {
    let sizes = [PageSize::K4, PageSize::K16, PageSize::K64];
    for (i, ps) in sizes.into_iter().enumerate() {
        let cycles = if i == 0 { 18 } else { 16 };
        let stats = run_cycles(ps, cycles, 4242 + i as u64)?;
        // The load must really have changed the tree's structure.
        if stats.max_height == 0 || stats.root_raised == 0 || stats.root_lowered == 0 {
            return Err(err(format!(
                "page size {ps}: the load did not exercise the tree: {stats:?}"
            )));
        }
    }
    Ok(())
}

#[test]
#[ignore = "long: run with --ignored"]
fn btree_survives_sigkill_long() -> Result<()> {
    let sizes = [PageSize::K4, PageSize::K16, PageSize::K64];
    for (i, ps) in sizes.into_iter().enumerate() {
        let cycles = if i == 0 { 334 } else { 333 };
        run_cycles(ps, cycles, 9000 + i as u64)?;
    }
    Ok(())
}
