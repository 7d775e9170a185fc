//! [`SimVfs`]: an in-memory file system for crash and fault tests.
//!
//! What it models:
//! - **Files** are inodes with three views: the *durable* content (what survives a
//!   power loss), the ordered list of *pending* operations since the last sync
//!   (writes with their offset and bytes, and length changes from `allocate` /
//!   `truncate`), and the *current* content that reads see. Invariant: current =
//!   durable with every pending operation replayed in order, except after a failed
//!   sync (below). A sync replays the pending list onto the durable content, so its
//!   cost is the bytes written since the last sync, never the whole file.
//! - **Names** live in a volatile namespace and a durable one. Creating, renaming
//!   and removing a file change only the volatile namespace; `sync_dir` copies the
//!   directory's entries into the durable one. A successful `sync_data`/`sync_all`
//!   of a file that has no durable name also makes its current name(s) durable
//!   (its existence, not a later rename). Directories themselves are durable as
//!   soon as they are created. An inode lives while a volatile name, a durable name
//!   or an open handle refers to it, so an unlinked file stays usable through its
//!   handles, like on POSIX.
//! - **Power loss** ([`SimVfs::crash`] and variants): the namespace becomes the
//!   durable one, every file restarts from its durable content plus a choice of its
//!   pending operations (in issue order: each dropped, applied whole, or torn at a
//!   512-byte sector boundary of the file), and every handle opened before the
//!   crash is dead: all its operations fail with an `Other` I/O error. Opening
//!   files again gives the restarted process's view.
//! - **Faults** ([`SimFault`]): failing fsync (whose writes are then lost, as Linux
//!   may drop the dirty pages: they stay readable until the next crash, which drops
//!   them, and a later successful sync does not make them durable), failing
//!   writes, a disk that fills up, and a crash at a chosen write with an optional
//!   torn page.
//! - **Slow syncs** ([`SimVfs::hold_syncs`]): syncs of chosen files wait until
//!   the test releases them, so a test can line other threads up behind one.
//!
//! Randomness comes from a seeded [`StdRng`], and files are kept in inode order,
//! so a run with the same seed and the same operations crashes the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{Error as IoError, ErrorKind};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{IoFile, OpenOptions, Vfs};
use crate::error::{EngineError, Result};

/// Sector size: the unit a torn write is made of.
const SECTOR: usize = 512;

/// Seed used by [`SimVfs::new`].
const DEFAULT_SEED: u64 = 0x5eed_1a4c_0000_0001;

/// A fault the simulated file system injects until it is cleared with
/// `set_fault(None)` (a [`SimFault::CrashAfterWrites`] clears itself when it fires).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimFault {
    /// `sync_data`/`sync_all` (and `dsync` writes) on files whose path contains
    /// the string fail with `EIO`; the writes pending on that file are lost: they
    /// stay readable until the next crash, which drops them.
    FailSync {
        /// Substring of the path the file was opened with.
        path_contains: String,
    },
    /// The sum of all file lengths may not exceed `limit_bytes`: a write or
    /// `allocate` that would grow past it fails with `ENOSPC` and has no effect.
    DiskFull {
        /// Capacity of the simulated disk in bytes.
        limit_bytes: u64,
    },
    /// After `writes` more successful `write_at` calls (on any file), the next
    /// `write_at` is the crash point. With `torn`, the first half of its bytes
    /// (rounded down to a multiple of 512 for writes of 1024 bytes or more) reach
    /// the file; without, none do. Then the machine crashes keeping every other
    /// pending write whole, and the call returns the dead-handle error.
    CrashAfterWrites {
        /// Successful writes still allowed before the crash point.
        writes: u64,
        /// Whether the crashing write is torn in half.
        torn: bool,
    },
    /// `write_at` on files whose path contains the string fails with `EIO` and has
    /// no effect.
    FailWrites {
        /// Substring of the path the file was opened with.
        path_contains: String,
    },
}

/// An in-memory file system with power-loss simulation and fault injection.
///
/// Clones share the same file system.
#[derive(Clone, Debug)]
pub struct SimVfs {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Syncs held back by [`SimVfs::hold_syncs`] (a slow disk a test controls).
    hold: Mutex<SyncHold>,
    hold_cv: Condvar,
}

#[derive(Default)]
struct SyncHold {
    /// Substring of the paths whose syncs wait; `None` when nothing is held.
    path_contains: Option<String>,
    /// Syncs waiting for [`SimVfs::release_syncs`].
    waiting: usize,
}

impl Shared {
    /// Blocks a sync of `path` while syncs of it are held.
    fn wait_if_held(&self, path: &Path) {
        let mut h = self.hold.lock();
        let held = |h: &SyncHold| {
            h.path_contains
                .as_deref()
                .is_some_and(|p| path.to_string_lossy().contains(p))
        };
        if !held(&h) {
            return;
        }
        h.waiting += 1;
        self.hold_cv.notify_all();
        while held(&h) {
            self.hold_cv.wait(&mut h);
        }
        h.waiting -= 1;
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.state.try_lock() {
            Some(st) => f
                .debug_struct("SimState")
                .field("files", &st.names.len())
                .field("dirs", &st.dirs.len())
                .field("epoch", &st.epoch)
                .field("writes", &st.write_count)
                .field("fault", &st.fault)
                .finish(),
            None => f.write_str("SimState { <locked> }"),
        }
    }
}

struct State {
    /// Inodes, in creation order (keeps crashes deterministic).
    files: BTreeMap<u64, Node>,
    /// The volatile namespace: what `open`, `exists` and `list_dir` see.
    names: BTreeMap<PathBuf, u64>,
    /// The namespace a crash reverts to.
    durable_names: BTreeMap<PathBuf, u64>,
    dirs: BTreeSet<PathBuf>,
    next_ino: u64,
    /// Bumped by every crash; handles from an older epoch are dead.
    epoch: u64,
    rng: StdRng,
    fault: Option<SimFault>,
    /// Successful writes left before a `CrashAfterWrites` fires.
    writes_left: u64,
    write_count: u64,
    bytes_written: u64,
}

#[derive(Default)]
struct Node {
    current: Vec<u8>,
    durable: Vec<u8>,
    pending: Vec<Pending>,
    /// Open handles of the current epoch.
    open: usize,
}

struct Pending {
    op: Op,
    /// A failed sync lost this operation: it never becomes durable.
    lost: bool,
}

enum Op {
    Write { offset: usize, data: Vec<u8> },
    SetLen(usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CrashMode {
    Random,
    KeepAll,
    DropUnsynced,
}

impl Op {
    fn apply(&self, content: &mut Vec<u8>) {
        match self {
            Op::Write { offset, data } => apply_write(content, *offset, data),
            Op::SetLen(len) => content.resize(*len, 0),
        }
    }
}

fn apply_write(content: &mut Vec<u8>, offset: usize, data: &[u8]) {
    let end = offset + data.len();
    if content.len() < end {
        content.resize(end, 0);
    }
    content[offset..end].copy_from_slice(data);
}

/// Applies a pending operation as a power loss might leave it.
fn apply_random(rng: &mut StdRng, op: &Op, content: &mut Vec<u8>) {
    match op {
        Op::SetLen(_) => {
            if rng.random_bool(0.5) {
                op.apply(content);
            }
        }
        Op::Write { offset, data } => {
            let (start, end) = (*offset, *offset + data.len());
            match rng.random_range(0..8u32) {
                0..=2 => {}
                3..=5 => op.apply(content),
                _ => {
                    // Torn: a prefix ending at a sector boundary strictly inside.
                    let first = (start / SECTOR + 1) * SECTOR;
                    if first < end {
                        let last = (end - 1) / SECTOR * SECTOR;
                        let count = (last - first) / SECTOR + 1;
                        let cut = first + rng.random_range(0..count) * SECTOR;
                        apply_write(content, start, &data[..cut - start]);
                    } else if rng.random_bool(0.5) {
                        // Within one sector: all or nothing.
                        op.apply(content);
                    }
                }
            }
        }
    }
}

/// How much of the crashing write a `CrashAfterWrites { torn: true }` keeps.
fn torn_len(len: usize) -> usize {
    if len >= 2 * SECTOR {
        len / 2 / SECTOR * SECTOR
    } else {
        len / 2
    }
}

/// Paths are compared after dropping `.` components and redundant separators.
fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

fn os_err(code: i32) -> IoError {
    IoError::from_raw_os_error(code)
}

fn dead_err() -> IoError {
    IoError::other("simulated crash: file handle is dead")
}

fn read_only_err() -> IoError {
    IoError::new(ErrorKind::PermissionDenied, "file opened read-only")
}

fn eof_err() -> IoError {
    IoError::new(ErrorKind::UnexpectedEof, "read past end of file")
}

/// `offset..offset + len` as memory indices, or `EFBIG`.
fn range(offset: u64, len: usize) -> std::result::Result<(usize, usize), IoError> {
    let start = usize::try_from(offset).map_err(|_| os_err(libc::EFBIG))?;
    let end = start.checked_add(len).ok_or_else(|| os_err(libc::EFBIG))?;
    if end > isize::MAX as usize {
        return Err(os_err(libc::EFBIG));
    }
    Ok((start, end))
}

impl Node {
    fn push(&mut self, op: Op) {
        op.apply(&mut self.current);
        self.pending.push(Pending { op, lost: false });
    }

    /// Replays the pending operations that were not lost onto the durable content.
    fn make_durable(&mut self) {
        for p in std::mem::take(&mut self.pending) {
            if !p.lost {
                p.op.apply(&mut self.durable);
            }
        }
    }

    fn lose_pending(&mut self) {
        for p in &mut self.pending {
            p.lost = true;
        }
    }
}

impl State {
    fn new(seed: u64) -> Self {
        State {
            files: BTreeMap::new(),
            names: BTreeMap::new(),
            durable_names: BTreeMap::new(),
            dirs: BTreeSet::new(),
            next_ino: 1,
            epoch: 0,
            rng: StdRng::seed_from_u64(seed),
            fault: None,
            writes_left: 0,
            write_count: 0,
            bytes_written: 0,
        }
    }

    /// The root and the current directory ("" after normalizing) always exist.
    fn dir_exists(&self, dir: &Path) -> bool {
        dir.as_os_str().is_empty() || dir.parent().is_none() || self.dirs.contains(dir)
    }

    fn parent_exists(&self, path: &Path) -> bool {
        path.parent().is_some_and(|p| self.dir_exists(p))
    }

    fn total_len(&self) -> u64 {
        self.files.values().map(|n| n.current.len() as u64).sum()
    }

    /// `ENOSPC` if growing some file by `grow` bytes would overflow the disk.
    fn check_space(&self, grow: usize) -> std::result::Result<(), IoError> {
        if let Some(SimFault::DiskFull { limit_bytes }) = self.fault {
            if grow > 0 && self.total_len().saturating_add(grow as u64) > limit_bytes {
                return Err(os_err(libc::ENOSPC));
            }
        }
        Ok(())
    }

    fn sync_fails(&self, path: &Path) -> bool {
        matches!(&self.fault, Some(SimFault::FailSync { path_contains })
            if path.to_string_lossy().contains(path_contains.as_str()))
    }

    fn writes_fail(&self, path: &Path) -> bool {
        matches!(&self.fault, Some(SimFault::FailWrites { path_contains })
            if path.to_string_lossy().contains(path_contains.as_str()))
    }

    /// Makes an inode's pending operations durable, and its existence if needed.
    fn sync_node(&mut self, ino: u64) {
        if let Some(node) = self.files.get_mut(&ino) {
            node.make_durable();
        }
        if !self.durable_names.values().any(|&i| i == ino) {
            for (name, &i) in &self.names {
                if i == ino {
                    self.durable_names.insert(name.clone(), ino);
                }
            }
        }
    }

    /// Drops inodes nothing refers to any more.
    fn gc(&mut self) {
        let live: BTreeSet<u64> = self
            .names
            .values()
            .chain(self.durable_names.values())
            .copied()
            .collect();
        self.files
            .retain(|ino, node| node.open > 0 || live.contains(ino));
    }

    fn crash(&mut self, mode: CrashMode) {
        self.epoch += 1;
        self.names = self.durable_names.clone();
        let live: BTreeSet<u64> = self.durable_names.values().copied().collect();
        self.files.retain(|ino, _| live.contains(ino));
        for node in self.files.values_mut() {
            let mut content = std::mem::take(&mut node.durable);
            for p in std::mem::take(&mut node.pending) {
                if p.lost {
                    continue;
                }
                match mode {
                    CrashMode::DropUnsynced => {}
                    CrashMode::KeepAll => p.op.apply(&mut content),
                    CrashMode::Random => apply_random(&mut self.rng, &p.op, &mut content),
                }
            }
            node.current = content.clone();
            node.durable = content;
            node.open = 0;
        }
    }
}

impl Default for SimVfs {
    fn default() -> Self {
        Self::new()
    }
}

impl SimVfs {
    /// An empty file system with a fixed default seed.
    pub fn new() -> Self {
        Self::with_seed(DEFAULT_SEED)
    }

    /// An empty file system whose random crashes are driven by `seed`.
    pub fn with_seed(seed: u64) -> Self {
        SimVfs {
            shared: Arc::new(Shared {
                state: Mutex::new(State::new(seed)),
                hold: Mutex::new(SyncHold::default()),
                hold_cv: Condvar::new(),
            }),
        }
    }

    /// Installs (or with `None` clears) the injected fault.
    pub fn set_fault(&self, fault: Option<SimFault>) {
        let mut st = self.shared.state.lock();
        st.writes_left = match fault {
            Some(SimFault::CrashAfterWrites { writes, .. }) => writes,
            _ => 0,
        };
        st.fault = fault;
    }

    /// From now on, `sync_data`/`sync_all` of files whose path contains
    /// `path_contains` block (before doing anything) until
    /// [`SimVfs::release_syncs`]: a disk whose flushes are as slow as a test
    /// needs them to be.
    pub fn hold_syncs(&self, path_contains: &str) {
        self.shared.hold.lock().path_contains = Some(path_contains.to_string());
    }

    /// Lets every held sync go on, and stops holding new ones.
    pub fn release_syncs(&self) {
        self.shared.hold.lock().path_contains = None;
        self.shared.hold_cv.notify_all();
    }

    /// Waits until at least `n` syncs are held, or `timeout` passes; returns
    /// whether they are.
    pub fn wait_for_held_syncs(&self, n: usize, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut h = self.shared.hold.lock();
        while h.waiting < n {
            if self.shared.hold_cv.wait_until(&mut h, deadline).timed_out() {
                return h.waiting >= n;
            }
        }
        true
    }

    /// Total successful `write_at` calls so far, on all files.
    pub fn write_count(&self) -> u64 {
        self.shared.state.lock().write_count
    }

    /// Total bytes of the successful `write_at` calls so far, on all files.
    pub fn bytes_written(&self) -> u64 {
        self.shared.state.lock().bytes_written
    }

    /// Bytes the files take now (what [`SimFault::DiskFull`] limits).
    pub fn used_bytes(&self) -> u64 {
        self.shared.state.lock().total_len()
    }

    /// Power loss: each write pending since its file's last sync is independently
    /// dropped, applied whole or torn at a sector boundary (seeded), unsynced
    /// directory changes are undone, and every open handle dies.
    pub fn crash(&self) {
        self.shared.state.lock().crash(CrashMode::Random);
    }

    /// Process kill: every pending write survives (the OS page cache does), except
    /// writes lost to a failed sync; unsynced directory changes are still undone,
    /// and every open handle dies.
    pub fn crash_keep_all(&self) {
        self.shared.state.lock().crash(CrashMode::KeepAll);
    }

    /// Worst-case power loss: every write not yet synced is dropped, unsynced
    /// directory changes are undone, and every open handle dies.
    pub fn crash_drop_unsynced(&self) {
        self.shared.state.lock().crash(CrashMode::DropUnsynced);
    }
}

impl Vfs for SimVfs {
    fn open(&self, path: &Path, opts: OpenOptions) -> Result<Arc<dyn IoFile>> {
        let name = normalize(path);
        let err = |e| EngineError::io("open", path, e);
        let mut st = self.shared.state.lock();
        let ino = match st.names.get(&name) {
            Some(_) if opts.create_new => return Err(err(os_err(libc::EEXIST))),
            Some(&ino) => ino,
            None => {
                if st.dirs.contains(&name) || !st.parent_exists(&name) {
                    let code = if st.dirs.contains(&name) {
                        libc::EISDIR
                    } else {
                        libc::ENOENT
                    };
                    return Err(err(os_err(code)));
                }
                if !(opts.create || opts.create_new) {
                    return Err(err(os_err(libc::ENOENT)));
                }
                let ino = st.next_ino;
                st.next_ino += 1;
                st.files.insert(ino, Node::default());
                st.names.insert(name, ino);
                ino
            }
        };
        let epoch = st.epoch;
        match st.files.get_mut(&ino) {
            Some(node) => node.open += 1,
            None => {
                return Err(EngineError::Internal(format!(
                    "SimVfs: name '{}' refers to a missing inode",
                    path.display()
                )))
            }
        }
        Ok(Arc::new(SimFile {
            shared: Arc::clone(&self.shared),
            ino,
            epoch,
            path: path.to_path_buf(),
            read_only: opts.read_only,
            dsync: opts.dsync,
        }))
    }

    fn exists(&self, path: &Path) -> bool {
        let name = normalize(path);
        let st = self.shared.state.lock();
        st.names.contains_key(&name) || (!name.as_os_str().is_empty() && st.dir_exists(&name))
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        let name = normalize(path);
        let mut st = self.shared.state.lock();
        if st.names.remove(&name).is_none() {
            let code = if st.dirs.contains(&name) {
                libc::EISDIR
            } else {
                libc::ENOENT
            };
            return Err(EngineError::io("remove", path, os_err(code)));
        }
        st.gc();
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let (src, dst) = (normalize(from), normalize(to));
        let err = |e| EngineError::io("rename", from, e);
        let mut st = self.shared.state.lock();
        let Some(&ino) = st.names.get(&src) else {
            let code = if st.dirs.contains(&src) {
                libc::EISDIR
            } else {
                libc::ENOENT
            };
            return Err(err(os_err(code)));
        };
        if st.dirs.contains(&dst) {
            return Err(err(os_err(libc::EISDIR)));
        }
        if !st.parent_exists(&dst) {
            return Err(err(os_err(libc::ENOENT)));
        }
        if src == dst {
            return Ok(());
        }
        st.names.remove(&src);
        st.names.insert(dst, ino);
        st.gc();
        Ok(())
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        let name = normalize(path);
        let mut st = self.shared.state.lock();
        for dir in name.ancestors() {
            if st.names.contains_key(dir) {
                let code = if dir == name {
                    libc::EEXIST
                } else {
                    libc::ENOTDIR
                };
                return Err(EngineError::io("mkdir", path, os_err(code)));
            }
        }
        for dir in name.ancestors() {
            if !dir.as_os_str().is_empty() && dir.parent().is_some() {
                st.dirs.insert(dir.to_path_buf());
            }
        }
        Ok(())
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        let dir = normalize(path);
        let mut st = self.shared.state.lock();
        if !st.dir_exists(&dir) {
            return Err(EngineError::io("open dir", path, os_err(libc::ENOENT)));
        }
        let in_dir = |name: &Path| name.parent() == Some(dir.as_path());
        st.durable_names.retain(|name, _| !in_dir(name));
        let entries: Vec<(PathBuf, u64)> = st
            .names
            .iter()
            .filter(|(name, _)| in_dir(name))
            .map(|(name, &ino)| (name.clone(), ino))
            .collect();
        st.durable_names.extend(entries);
        st.gc();
        Ok(())
    }

    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>> {
        let dir = normalize(path);
        let st = self.shared.state.lock();
        if !st.dir_exists(&dir) {
            let code = if st.names.contains_key(&dir) {
                libc::ENOTDIR
            } else {
                libc::ENOENT
            };
            return Err(EngineError::io("readdir", path, os_err(code)));
        }
        let mut out: Vec<PathBuf> = st
            .names
            .keys()
            .chain(st.dirs.iter())
            .filter(|name| name.parent() == Some(dir.as_path()))
            .filter_map(|name| name.file_name().map(PathBuf::from))
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// A handle to a [`SimVfs`] file; dies at the next crash.
#[derive(Debug)]
struct SimFile {
    shared: Arc<Shared>,
    ino: u64,
    /// The crash epoch the handle was opened in.
    epoch: u64,
    path: PathBuf,
    read_only: bool,
    dsync: bool,
}

impl SimFile {
    fn err(&self, op: &'static str, e: IoError) -> EngineError {
        EngineError::io(op, &self.path, e)
    }

    /// The handle's inode, or the dead-handle error after a crash.
    fn node<'a>(&self, st: &'a mut State, op: &'static str) -> Result<&'a mut Node> {
        if st.epoch != self.epoch {
            return Err(self.err(op, dead_err()));
        }
        st.files
            .get_mut(&self.ino)
            .ok_or_else(|| self.err(op, dead_err()))
    }

    fn check_writable(&self, op: &'static str) -> Result<()> {
        if self.read_only {
            return Err(self.err(op, read_only_err()));
        }
        Ok(())
    }

    fn sync(&self, op: &'static str) -> Result<()> {
        self.shared.wait_if_held(&self.path);
        let mut st = self.shared.state.lock();
        let fails = st.sync_fails(&self.path);
        let node = self.node(&mut st, op)?;
        if fails {
            node.lose_pending();
            return Err(self.err(op, os_err(libc::EIO)));
        }
        st.sync_node(self.ino);
        Ok(())
    }
}

impl IoFile for SimFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        let mut st = self.shared.state.lock();
        let node = self.node(&mut st, "read")?;
        let (start, end) = range(offset, buf.len()).map_err(|e| self.err("read", e))?;
        let src = node
            .current
            .get(start..end)
            .ok_or_else(|| self.err("read", eof_err()))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        let mut st = self.shared.state.lock();
        let cur_len = self.node(&mut st, "write")?.current.len();
        self.check_writable("write")?;
        let (start, end) = range(offset, buf.len()).map_err(|e| self.err("write", e))?;

        if let Some(SimFault::CrashAfterWrites { torn, .. }) = st.fault {
            if st.writes_left == 0 {
                st.fault = None;
                if torn {
                    let keep = torn_len(buf.len());
                    self.node(&mut st, "write")?.push(Op::Write {
                        offset: start,
                        data: buf[..keep].to_vec(),
                    });
                }
                st.crash(CrashMode::KeepAll);
                return Err(self.err("write", dead_err()));
            }
        }
        if st.writes_fail(&self.path) {
            return Err(self.err("write", os_err(libc::EIO)));
        }
        st.check_space(end.saturating_sub(cur_len))
            .map_err(|e| self.err("write", e))?;

        let sync_fails = self.dsync && st.sync_fails(&self.path);
        let node = self.node(&mut st, "write")?;
        node.push(Op::Write {
            offset: start,
            data: buf.to_vec(),
        });
        if sync_fails {
            // O_DSYNC write whose write-back failed: data visible but lost.
            node.lose_pending();
            return Err(self.err("write", os_err(libc::EIO)));
        }
        st.write_count += 1;
        st.bytes_written += buf.len() as u64;
        if matches!(st.fault, Some(SimFault::CrashAfterWrites { .. })) {
            st.writes_left = st.writes_left.saturating_sub(1);
        }
        if self.dsync {
            st.sync_node(self.ino);
        }
        Ok(())
    }

    fn sync_data(&self) -> Result<()> {
        self.sync("fdatasync")
    }

    fn sync_all(&self) -> Result<()> {
        self.sync("fsync")
    }

    fn allocate(&self, len: u64) -> Result<()> {
        let mut st = self.shared.state.lock();
        let cur_len = self.node(&mut st, "fallocate")?.current.len();
        self.check_writable("fallocate")?;
        let (len, _) = range(len, 0).map_err(|e| self.err("fallocate", e))?;
        if len <= cur_len {
            return Ok(());
        }
        st.check_space(len - cur_len)
            .map_err(|e| self.err("fallocate", e))?;
        self.node(&mut st, "fallocate")?.push(Op::SetLen(len));
        Ok(())
    }

    fn truncate(&self, len: u64) -> Result<()> {
        let mut st = self.shared.state.lock();
        self.node(&mut st, "truncate")?;
        self.check_writable("truncate")?;
        let (len, _) = range(len, 0).map_err(|e| self.err("truncate", e))?;
        self.node(&mut st, "truncate")?.push(Op::SetLen(len));
        Ok(())
    }

    fn len(&self) -> Result<u64> {
        let mut st = self.shared.state.lock();
        Ok(self.node(&mut st, "stat")?.current.len() as u64)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SimFile {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock();
        if st.epoch != self.epoch {
            return;
        }
        let closed = match st.files.get_mut(&self.ino) {
            Some(node) => {
                node.open = node.open.saturating_sub(1);
                node.open == 0
            }
            None => false,
        };
        if closed {
            st.gc();
        }
    }
}

#[cfg(test)]
mod tests;
