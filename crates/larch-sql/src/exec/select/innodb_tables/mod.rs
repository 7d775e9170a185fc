//! What InnoDB shows of its transactions and row locks, with MariaDB 10.11's
//! columns: `INFORMATION_SCHEMA.INNODB_TRX`, `INNODB_LOCKS` and
//! `INNODB_LOCK_WAITS`, and the transaction list of `SHOW ENGINE INNODB
//! STATUS` ([`monitor_transactions`]).
//!
//! Three engine sources are joined here, read one after the other (so, as in
//! InnoDB, a listing is consistent per transaction and per lock, not across
//! them):
//! - the transaction system's slots (`TransactionSystem::innodb_trx`): id,
//!   state, start, isolation level, keyed by session slot;
//! - the services' registry of live transaction contexts
//!   (`TransactionServices::active_transactions`): the lock owner, undo
//!   records, connection id and session slot of each, and its lock counters;
//! - the lock table (`LockManager::snapshot`, `lock_waits`).
//!
//! Conventions, following MariaDB:
//! - a transaction without an id (it has not written) shows the large
//!   "fake" id the transaction system gives it; locks of owners no
//!   transaction is known for (purge) show trx id 0;
//! - `lock_id` is `trx_id:space:page:rec`. Larch locks keys, not heap
//!   numbers, so `page` is the clustered index's root page and `rec` is 1 for
//!   the supremum (InnoDB's heap number) and a hash of the key otherwise;
//!   `lock_page` and `lock_rec` are NULL. `lock_data` is the primary key
//!   values (quoted strings, bare numbers, `0x...` for a hidden row id and
//!   binary strings; `_bin` strings without trailing spaces, prefix parts as
//!   their prefix), NULL when a key part cannot be decoded (a string under a
//!   case-insensitive collation);
//! - `lock_mode` is MariaDB's enum: `S`/`X` for record and next-key locks,
//!   `S,GAP`/`X,GAP` for gap locks and insert intentions (any lock on the
//!   supremum shows the bare mode, as InnoDB stores it);
//! - `INNODB_LOCKS` lists only locks that are waited for or block a waiter;
//! - `trx_lock_memory_bytes` is the transaction's share of the lock table's
//!   accounted memory, by its number of lock entries (Larch's lock table is
//!   shared, not a heap per transaction); `trx_tables_locked` counts the
//!   tables the transaction holds or waits for row locks in;
//!   `trx_tables_in_use` is 0 (Larch does not track the tables a statement
//!   has open), and so are `trx_concurrency_tickets`; `trx_unique_checks` and
//!   `trx_foreign_key_checks` show 1 and `trx_operation_state` NULL.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use larch_engine::lock::{
    LockInfo, LockKind, LockMode, LockStats, LockTarget, LockWaitInfo, OwnerId, RecordKey,
    WaitingFor,
};
use larch_engine::record::collation::Collation;
use larch_engine::record::key::decode_key as decode_key_parts;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::Table;
use larch_engine::txn::{TrxInfo, FAKE_TRX_ID_BASE};

use crate::error::SqlError;
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;

/// The tables of this module (upper case).
mod fulltext;
mod keys;
mod monitor;

pub(crate) use fulltext::AuxTable;
use keys::IndexNames;
pub(crate) use monitor::monitor_transactions;

pub(crate) const NAMES: &[&str] = &["INNODB_LOCKS", "INNODB_LOCK_WAITS", "INNODB_TRX"];

/// The full-text tables (`fulltext`).
pub(crate) use fulltext::NAMES as FULLTEXT_NAMES;

/// MariaDB's `trx_query` is a VARCHAR(1024).
const QUERY_CHARS: usize = 1024;

/// The rows of `information_schema.<upper>`, one of [`NAMES`].
pub(crate) fn table(sess: &Session, upper: &str) -> Result<RowSet, SqlError> {
    if FULLTEXT_NAMES.contains(&upper) {
        return fulltext::table(sess, upper);
    }
    let seen = Observed::gather(sess);
    Ok(match upper {
        "INNODB_TRX" => innodb_trx(&seen),
        "INNODB_LOCKS" => innodb_locks(sess, &seen),
        "INNODB_LOCK_WAITS" => innodb_lock_waits(&seen),
        _ => {
            return Err(SqlError::new(
                1109,
                format!("Unknown table '{upper}' in information_schema"),
            ))
        }
    })
}

// ---- column types ----

fn varchar(name: &str, len: u32, nullable: bool) -> ResultColumn {
    ResultColumn::computed(
        name,
        ColumnType::Varchar {
            max_len: len,
            collation: Collation::Utf8mb4GeneralCi,
        },
        nullable,
    )
}

/// BIGINT(21) UNSIGNED.
fn ubig(name: &str, nullable: bool) -> ResultColumn {
    ResultColumn::bigint(name, true, nullable)
}

/// INT(11) UNSIGNED.
fn uint(name: &str, nullable: bool) -> ResultColumn {
    ResultColumn::computed(
        name,
        ColumnType::Int {
            bytes: 4,
            unsigned: true,
        },
        nullable,
    )
}

/// INT(1) NOT NULL.
fn int1(name: &str) -> ResultColumn {
    ResultColumn::computed(
        name,
        ColumnType::Int {
            bytes: 4,
            unsigned: false,
        },
        false,
    )
}

fn datetime(name: &str, nullable: bool) -> ResultColumn {
    ResultColumn::computed(name, ColumnType::Datetime { fsp: 0 }, nullable)
}

/// ENUM(members) NOT NULL; values are passed as their member text, as table
/// reads pass ENUM columns.
fn enumeration(name: &str, members: &[&str]) -> ResultColumn {
    ResultColumn::computed(
        name,
        ColumnType::Enum {
            values: members.iter().map(|m| (*m).to_owned()).collect(),
            collation: Collation::Utf8mb3GeneralCi,
        },
        false,
    )
}

fn text(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

/// A DATETIME value (UTC, as `NOW()`), whole seconds.
fn datetime_value(t: SystemTime) -> Value {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let micros = i64::try_from(secs)
        .unwrap_or(i64::MAX / 1_000_000)
        .saturating_mul(1_000_000);
    crate::value::temporal::datetime_from_micros(micros).map_or(Value::Null, Value::Datetime)
}

fn secs_since(t: SystemTime) -> u64 {
    SystemTime::now()
        .duration_since(t)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

// ---- the joined view ----

/// One live transaction of the transaction system, with what the registry of
/// transaction contexts and the lock table know of it.
pub(crate) struct TrxRow {
    pub info: TrxInfo,
    /// `trx_state`.
    pub state: &'static str,
    /// The connection running it (0 when unknown: an autocommit SELECT).
    pub thread_id: u64,
    /// The statement it runs, if any.
    pub query: Option<String>,
    /// The connection's user and host.
    pub user_host: Option<(String, String)>,
    pub undo_records: u64,
    pub lock_structs: u64,
    pub rows_locked: u64,
    pub tables_locked: u64,
    pub lock_memory: u64,
    /// The lock it waits for.
    pub waiting: Option<WaitingFor>,
}

impl TrxRow {
    /// InnoDB's `TRX_WEIGHT`: undo records plus lock structs.
    fn weight(&self) -> u64 {
        self.undo_records.saturating_add(self.lock_structs)
    }
}

/// Everything the tables and the monitor show, read once per statement.
pub(crate) struct Observed {
    pub trxs: Vec<TrxRow>,
    /// The id each lock owner is shown with.
    trx_ids: HashMap<OwnerId, u64>,
    /// Every (waiting request, blocking lock) pair.
    pub waits: Vec<LockWaitInfo>,
    /// The lock manager's counters.
    pub stats: LockStats,
    /// Entries in the lock table when it was read.
    pub lock_entries: usize,
}

/// Per-owner facts computed from a lock table snapshot.
#[derive(Default)]
struct OwnerLocks {
    entries: u64,
    indexes: HashSet<u64>,
}

impl Observed {
    pub(crate) fn gather(sess: &Session) -> Observed {
        let services = sess.db.services();
        let infos = sess.db.transactions().innodb_trx();
        let active = services.active_transactions();
        let locks: Vec<LockInfo> = services.locks.snapshot();
        let waits = services.locks.lock_waits();
        let stats = services.locks.stats();

        let mut per_owner: HashMap<OwnerId, OwnerLocks> = HashMap::new();
        for l in &locks {
            let o = per_owner.entry(l.owner).or_default();
            o.entries += 1;
            o.indexes.insert(l.target.index_id);
        }
        let total_entries = locks.len() as u64;
        let memory = stats.memory_bytes as u64;

        let processes: HashMap<u64, _> =
            sess.db.processes().into_iter().map(|p| (p.id, p)).collect();
        let by_slot: HashMap<u32, usize> = active
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.session_slot.map(|s| (s, i)))
            .collect();

        // The statement and account of a connection.
        let connection = |thread_id: u64| match processes.get(&thread_id) {
            Some(p) => {
                let st = p.state.lock();
                let query = if st.command == "Query" {
                    st.info
                        .as_ref()
                        .map(|q| q.chars().take(QUERY_CHARS).collect())
                } else {
                    None
                };
                (query, Some((p.user.clone(), p.host.clone())))
            }
            None => (None, None),
        };

        let mut trx_ids = HashMap::new();
        let mut matched = vec![false; active.len()];
        let mut trxs = Vec::with_capacity(infos.len());
        for info in infos {
            let a = by_slot
                .get(&info.session)
                .copied()
                .filter(|&i| active[i].trx_id == 0 || active[i].trx_id == info.trx_id);
            let Some(i) = a else {
                // No transaction context: an autocommit SELECT, whose
                // connection is not known. The querying statement's own one
                // is left out: MariaDB's INFORMATION_SCHEMA query starts no
                // InnoDB transaction.
                if info.autocommit_non_locking && info.session == sess.trx_session.slot_index() {
                    continue;
                }
                trxs.push(TrxRow {
                    state: info.state.name(),
                    thread_id: 0,
                    query: None,
                    user_host: None,
                    undo_records: 0,
                    lock_structs: 0,
                    rows_locked: 0,
                    tables_locked: 0,
                    lock_memory: 0,
                    waiting: None,
                    info,
                });
                continue;
            };
            matched[i] = true;
            let a = &active[i];
            trx_ids.insert(a.owner, info.trx_id);
            let waiting = a.locks.waiting_for();
            let state = if a.rolling_back {
                "ROLLING BACK"
            } else if waiting.is_some() {
                "LOCK WAIT"
            } else {
                info.state.name()
            };
            let thread_id = a.thread_id.unwrap_or(0);
            let (query, user_host) = connection(thread_id);
            let own = per_owner.get(&a.owner);
            let entries = own.map_or(0, |o| o.entries);
            trxs.push(TrxRow {
                state,
                thread_id,
                query,
                user_host,
                undo_records: a.undo_records,
                lock_structs: a.locks.lock_structs() as u64,
                rows_locked: a.locks.rows_locked() as u64,
                tables_locked: own.map_or(0, |o| o.indexes.len() as u64),
                lock_memory: if total_entries == 0 {
                    0
                } else {
                    (u128::from(memory) * u128::from(entries) / u128::from(total_entries)) as u64
                },
                waiting,
                info,
            });
        }
        for (a, _) in active.iter().zip(&matched).filter(|(_, m)| !**m) {
            let id = match (a.trx_id, a.session_slot) {
                (0, Some(slot)) => FAKE_TRX_ID_BASE + u64::from(slot),
                (id, _) => id,
            };
            trx_ids.insert(a.owner, id);
        }
        trxs.sort_by_key(|t| t.info.trx_id);
        Observed {
            trxs,
            trx_ids,
            waits,
            stats,
            lock_entries: locks.len(),
        }
    }

    /// The transaction id shown for `owner` (0 for owners without a
    /// transaction, such as purge).
    fn trx_id(&self, owner: OwnerId) -> u64 {
        self.trx_ids.get(&owner).copied().unwrap_or(0)
    }
}

// ---- lock naming ----

/// `(space, clustered root)` of a lock's index id (`Table::lock_index`).
fn split_index_id(index_id: u64) -> (u32, u32) {
    ((index_id >> 32) as u32, index_id as u32)
}

/// The `rec` part of a lock id: 1 for the supremum (its InnoDB heap
/// number), else a 32-bit hash of the key (FNV-1a, folded; never 0 or 1).
fn rec_part(key: &RecordKey) -> u32 {
    match key.bytes() {
        None => 1,
        Some(k) => {
            let h = k.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            });
            ((h ^ (h >> 32)) as u32).max(2)
        }
    }
}

/// `lock_id`: `trx_id:space:page:rec`.
pub(crate) fn lock_id(trx_id: u64, target: &LockTarget) -> String {
    let (space, root) = split_index_id(target.index_id);
    format!("{trx_id}:{space}:{root}:{}", rec_part(&target.key))
}

/// MariaDB's `INNODB_LOCKS.lock_mode`.
fn lock_mode_enum(mode: LockMode, kind: LockKind, target: &LockTarget) -> &'static str {
    let gap = match kind {
        LockKind::InsertIntention => true,
        LockKind::GapOnly => !matches!(target.key, RecordKey::Supremum),
        LockKind::RecordOnly | LockKind::NextKey => false,
    };
    match (mode, gap) {
        (LockMode::Shared, false) => "S",
        (LockMode::Shared, true) => "S,GAP",
        (LockMode::Exclusive, false) => "X",
        (LockMode::Exclusive, true) => "X,GAP",
    }
}

/// InnoDB's monitor text of a record lock's mode ("lock_mode X locks rec but
/// not gap", "lock mode S locks gap before rec", ...).
fn monitor_mode(mode: LockMode, kind: LockKind, target: &LockTarget, waiting: bool) -> String {
    let mut s = match mode {
        LockMode::Shared => String::from("lock mode S"),
        LockMode::Exclusive => String::from("lock_mode X"),
    };
    let supremum = matches!(target.key, RecordKey::Supremum);
    match kind {
        LockKind::NextKey => {}
        LockKind::GapOnly if supremum => {}
        LockKind::GapOnly => s.push_str(" locks gap before rec"),
        LockKind::RecordOnly => s.push_str(" locks rec but not gap"),
        LockKind::InsertIntention => s.push_str(" locks gap before rec insert intention"),
    }
    if waiting {
        s.push_str(" waiting");
    }
    s
}

fn innodb_trx(seen: &Observed) -> RowSet {
    let isolation = [
        "READ UNCOMMITTED",
        "READ COMMITTED",
        "REPEATABLE READ",
        "SERIALIZABLE",
    ];
    let columns = vec![
        ubig("trx_id", false),
        varchar("trx_state", 13, false),
        datetime("trx_started", false),
        varchar("trx_requested_lock_id", 81, true),
        datetime("trx_wait_started", true),
        ubig("trx_weight", false),
        ubig("trx_mysql_thread_id", false),
        varchar("trx_query", 1024, true),
        varchar("trx_operation_state", 64, true),
        ubig("trx_tables_in_use", false),
        ubig("trx_tables_locked", false),
        ubig("trx_lock_structs", false),
        ubig("trx_lock_memory_bytes", false),
        ubig("trx_rows_locked", false),
        ubig("trx_rows_modified", false),
        ubig("trx_concurrency_tickets", false),
        enumeration("trx_isolation_level", &isolation),
        int1("trx_unique_checks"),
        int1("trx_foreign_key_checks"),
        varchar("trx_last_foreign_key_error", 256, true),
        int1("trx_is_read_only"),
        int1("trx_autocommit_non_locking"),
    ];
    let rows = seen
        .trxs
        .iter()
        .map(|t| {
            let (requested, wait_started) = match &t.waiting {
                Some(w) => (
                    text(lock_id(t.info.trx_id, &w.target)),
                    datetime_value(w.since),
                ),
                None => (Value::Null, Value::Null),
            };
            vec![
                Value::UInt(t.info.trx_id),
                text(t.state),
                datetime_value(t.info.started),
                requested,
                wait_started,
                Value::UInt(t.weight()),
                Value::UInt(t.thread_id),
                t.query.clone().map_or(Value::Null, Value::Str),
                Value::Null,
                Value::UInt(0),
                Value::UInt(t.tables_locked),
                Value::UInt(t.lock_structs),
                Value::UInt(t.lock_memory),
                Value::UInt(t.rows_locked),
                Value::UInt(t.undo_records),
                Value::UInt(0),
                text(t.info.isolation.name()),
                Value::Int(1),
                Value::Int(1),
                Value::Null,
                Value::Int(i64::from(t.info.read_only)),
                Value::Int(i64::from(t.info.autocommit_non_locking)),
            ]
        })
        .collect();
    RowSet { columns, rows }
}

fn innodb_locks(sess: &Session, seen: &Observed) -> RowSet {
    let columns = vec![
        varchar("lock_id", 81, false),
        ubig("lock_trx_id", false),
        enumeration(
            "lock_mode",
            &[
                "S", "S,GAP", "X", "X,GAP", "IS", "IS,GAP", "IX", "IX,GAP", "AUTO_INC",
            ],
        ),
        enumeration("lock_type", &["RECORD", "TABLE"]),
        varchar("lock_table", 1024, false),
        varchar("lock_index", 1024, true),
        uint("lock_space", true),
        uint("lock_page", true),
        uint("lock_rec", true),
        varchar("lock_data", 8192, true),
    ];
    let mut names = IndexNames::new(sess);
    let mut done = HashSet::new();
    let mut rows = Vec::new();
    for w in &seen.waits {
        let involved = [
            (w.waiting_owner, w.waiting_mode, w.waiting_kind),
            (w.blocking_owner, w.blocking_mode, w.blocking_kind),
        ];
        for (owner, mode, kind) in involved {
            let trx_id = seen.trx_id(owner);
            let id = lock_id(trx_id, &w.target);
            if done.insert(id.clone()) {
                rows.push(lock_row(&mut names, id, trx_id, &w.target, mode, kind));
            }
        }
    }
    RowSet { columns, rows }
}

fn lock_row(
    names: &mut IndexNames<'_>,
    id: String,
    trx_id: u64,
    target: &LockTarget,
    mode: LockMode,
    kind: LockKind,
) -> Vec<Value> {
    let (space, _) = split_index_id(target.index_id);
    let table = names.table_text(target.index_id);
    let index = names.get(target.index_id).map(|n| n.index);
    vec![
        text(id),
        Value::UInt(trx_id),
        text(lock_mode_enum(mode, kind, target)),
        text("RECORD"),
        text(table),
        index.map_or(Value::Null, text),
        Value::UInt(u64::from(space)),
        Value::Null,
        Value::Null,
        names.lock_data(target).map_or(Value::Null, Value::Str),
    ]
}

fn innodb_lock_waits(seen: &Observed) -> RowSet {
    let columns = vec![
        ubig("requesting_trx_id", false),
        varchar("requested_lock_id", 81, false),
        ubig("blocking_trx_id", false),
        varchar("blocking_lock_id", 81, false),
    ];
    let rows = seen
        .waits
        .iter()
        .map(|w| {
            let requesting = seen.trx_id(w.waiting_owner);
            let blocking = seen.trx_id(w.blocking_owner);
            vec![
                Value::UInt(requesting),
                text(lock_id(requesting, &w.target)),
                Value::UInt(blocking),
                text(lock_id(blocking, &w.target)),
            ]
        })
        .collect();
    RowSet { columns, rows }
}

// ---- SHOW ENGINE INNODB STATUS ----

#[cfg(test)]
mod tests;
