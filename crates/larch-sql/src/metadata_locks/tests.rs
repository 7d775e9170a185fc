//! The lock word and the set protocol without sessions: which modes exclude
//! which, writer preference with the holder's bypass, no deadlock between
//! DDL and LOCK TABLES taking overlapping sets in any order and modes, and
//! timeouts.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::{MetadataLocks, Mode, SessionLocks, WaitLimit};

fn limit(ms: u64) -> WaitLimit {
    WaitLimit {
        deadline: Instant::now() + Duration::from_millis(ms),
        cancel: Arc::new(AtomicBool::new(false)),
        process: None,
    }
}

fn names(list: &[&str]) -> Vec<(String, String)> {
    list.iter()
        .map(|t| ("db".to_owned(), (*t).to_owned()))
        .collect()
}

#[test]
fn shared_holders_exclude_ddl_until_released() {
    let locks = MetadataLocks::default();
    let mut a = SessionLocks::default();
    let mut b = SessionLocks::default();
    a.acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(10))
        .expect("free");
    b.acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(10))
        .expect("shared with shared");
    // Re-entrant: a second acquire by the same session is a no-op.
    a.acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(10))
        .expect("held");
    let e = locks
        .exclusive(&names(&["t"]), &limit(50))
        .expect_err("held by two");
    assert_eq!(e.code(), 1205);
    a.release_shared();
    assert!(locks.exclusive(&names(&["t"]), &limit(50)).is_err());
    b.release_shared();
    let held = locks
        .exclusive(&names(&["t"]), &limit(50))
        .expect("free now");
    // While DDL holds it, even a session that holds other locks waits.
    let mut c = SessionLocks::default();
    c.acquire_shared(&locks, "db", "other", Mode::SharedRead, || limit(10))
        .expect("free");
    let e = c
        .acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(50))
        .expect_err("exclusive granted");
    assert_eq!(e.code(), 1205);
    let mut ddl = SessionLocks {
        shared: Vec::new(),
        exclusive: held,
        tables: None,
    };
    ddl.release_exclusive(&locks);
    c.acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(10))
        .expect("released");
    c.release_shared();
    assert_eq!(locks.entries(), 2, "entries stay until DDL forgets them");
}

#[test]
fn pending_ddl_holds_back_newcomers_but_not_holders() {
    let locks = Arc::new(MetadataLocks::default());
    let mut holder = SessionLocks::default();
    holder
        .acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(10))
        .expect("free");
    let waiting = {
        let locks = locks.clone();
        thread::spawn(move || {
            locks
                .exclusive(&names(&["t"]), &limit(5_000))
                .map(|l| l.len())
        })
    };
    let start = Instant::now();
    while !locks.entry("db", "t").is_pending() {
        assert!(start.elapsed() < Duration::from_secs(5), "DDL never queued");
        thread::yield_now();
    }
    // A newcomer waits behind the queued DDL...
    let mut newcomer = SessionLocks::default();
    assert!(newcomer
        .acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(50))
        .is_err());
    // ...a session that already holds locks does not.
    let mut busy = SessionLocks::default();
    busy.acquire_shared(&locks, "db", "u", Mode::SharedRead, || limit(10))
        .expect("free");
    busy.acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(10))
        .expect("holders pass a pending exclusive request");
    busy.release_shared();
    holder.release_shared();
    assert_eq!(waiting.join().expect("no panic").expect("granted"), 1);
}

#[test]
fn ddl_on_overlapping_sets_never_deadlocks_and_excludes_each_other() {
    const TABLES: [&str; 3] = ["a", "b", "c"];
    let locks = Arc::new(MetadataLocks::default());
    // Per table: how many DDL statements hold it now.
    let inside: Arc<[AtomicUsize; 3]> = Arc::new(Default::default());
    let mut threads = Vec::new();
    for k in 0..4 {
        let locks = locks.clone();
        let inside = inside.clone();
        threads.push(thread::spawn(move || {
            let orders = [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1]];
            for i in 0..200 {
                // Two or three of the three tables: any two sets overlap.
                let set: Vec<usize> = orders[(i + k) % 4][..2 + (i % 2)].to_vec();
                let list: Vec<&str> = set.iter().map(|&t| TABLES[t]).collect();
                let held = locks
                    .exclusive(&names(&list), &limit(10_000))
                    .expect("no deadlock");
                for &t in &set {
                    assert_eq!(
                        inside[t].fetch_add(1, Ordering::SeqCst),
                        0,
                        "two DDL at once"
                    );
                }
                thread::yield_now();
                for &t in &set {
                    inside[t].fetch_sub(1, Ordering::SeqCst);
                }
                let mut s = SessionLocks {
                    shared: Vec::new(),
                    exclusive: held,
                    tables: None,
                };
                s.release_exclusive(&locks);
            }
        }));
    }
    // Readers run meanwhile and never see a DDL inside their table.
    for r in 0..2 {
        let locks = locks.clone();
        let inside = inside.clone();
        threads.push(thread::spawn(move || {
            for i in 0..300 {
                let mut s = SessionLocks::default();
                let t = (i + r) % 3;
                s.acquire_shared(&locks, "db", TABLES[t], Mode::SharedRead, || limit(10_000))
                    .expect("no deadlock");
                assert_eq!(inside[t].load(Ordering::SeqCst), 0, "read during DDL");
                s.release_shared();
            }
        }));
    }
    for t in threads {
        t.join().expect("no panic");
    }
    // Shared-only users leave their entries; DDL forgets unused ones.
    assert!(locks.entries() <= 3);
}

#[test]
fn cancel_ends_a_wait() {
    let locks = MetadataLocks::default();
    let held = locks.exclusive(&names(&["t"]), &limit(10)).expect("free");
    let cancel = Arc::new(AtomicBool::new(true));
    let mut s = SessionLocks::default();
    let e = s
        .acquire_shared(&locks, "db", "t", Mode::SharedRead, || WaitLimit {
            deadline: Instant::now() + Duration::from_secs(60),
            cancel: cancel.clone(),
            process: None,
        })
        .expect_err("cancelled");
    assert_eq!(e.code(), 1317);
    drop(SessionLocks {
        shared: Vec::new(),
        exclusive: held,
        tables: None,
    });
}

const MODES: [Mode; 5] = [
    Mode::SharedRead,
    Mode::SharedWrite,
    Mode::ReadOnly,
    Mode::NoReadWrite,
    Mode::Exclusive,
];

/// MySQL's compatibility of granted modes (row: held, column: requested,
/// in the order of [`MODES`]).
const COMPATIBLE: [[bool; 5]; 5] = [
    [true, true, true, false, false],
    [true, true, false, false, false],
    [true, false, true, false, false],
    [false, false, false, false, false],
    [false, false, false, false, false],
];

fn index(m: Mode) -> usize {
    MODES.iter().position(|&x| x == m).unwrap_or(0)
}

#[test]
fn each_mode_excludes_exactly_what_mysql_excludes() {
    let locks = MetadataLocks::default();
    let lock = locks.entry("db", "t");
    for (h, &held) in MODES.iter().enumerate() {
        assert!(lock.try_grant(held, false), "{held:?} on a free table");
        for (r, &wanted) in MODES.iter().enumerate() {
            let granted = lock.try_grant(wanted, true);
            assert_eq!(
                granted, COMPATIBLE[h][r],
                "{wanted:?} while {held:?} is held"
            );
            if granted {
                lock.release(wanted);
            }
        }
        lock.release(held);
        assert!(!lock.is_pending());
        assert_eq!(lock.word.load(Ordering::Acquire), 0, "all released");
    }
}

#[test]
fn a_waiting_lock_tables_holds_back_the_statements_it_excludes() {
    let locks = Arc::new(MetadataLocks::default());
    let mut writer = SessionLocks::default();
    writer
        .acquire_shared(&locks, "db", "t", Mode::SharedWrite, || limit(10))
        .expect("free");
    // LOCK TABLES t READ waits for the writing transaction.
    let read_lock = {
        let locks = locks.clone();
        thread::spawn(move || {
            let wanted = vec![("db".to_owned(), "t".to_owned(), Mode::ReadOnly)];
            locks.acquire_set(&wanted, &limit(5_000)).map(|l| l.len())
        })
    };
    let start = Instant::now();
    while !locks.entry("db", "t").is_pending() {
        assert!(start.elapsed() < Duration::from_secs(5), "never queued");
        thread::yield_now();
    }
    // New writers wait behind it, new readers do not.
    let mut other = SessionLocks::default();
    let e = other
        .acquire_shared(&locks, "db", "t", Mode::SharedWrite, || limit(50))
        .expect_err("a pending READ lock holds writers back");
    assert_eq!(e.code(), 1205);
    other
        .acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(50))
        .expect("readers pass");
    other.release_shared();
    writer.release_shared();
    assert_eq!(read_lock.join().expect("no panic").expect("granted"), 1);
    // Granted: readers still pass, writers wait.
    let mut late = SessionLocks::default();
    late.acquire_shared(&locks, "db", "t", Mode::SharedRead, || limit(50))
        .expect("read under READ");
    assert!(late
        .acquire_shared(&locks, "db", "t", Mode::SharedWrite, || limit(50))
        .is_err());
}

#[test]
fn a_table_listed_twice_gets_the_stronger_mode() {
    let locks = MetadataLocks::default();
    let wanted = vec![
        ("db".to_owned(), "t".to_owned(), Mode::ReadOnly),
        ("db".to_owned(), "t".to_owned(), Mode::NoReadWrite),
        ("db".to_owned(), "u".to_owned(), Mode::SharedRead),
        ("db".to_owned(), "u".to_owned(), Mode::ReadOnly),
    ];
    let held = locks.acquire_set(&wanted, &limit(10)).expect("free");
    let modes: Vec<Mode> = held.iter().map(|(_, m)| *m).collect();
    assert_eq!(modes, vec![Mode::NoReadWrite, Mode::ReadOnly]);
    for (l, m) in held {
        l.release(m);
    }
}

/// Threads take random sets in random modes, as LOCK TABLES, DDL and
/// statements do, each set all together; none may deadlock, and every grant
/// must be compatible with what the other threads hold at that moment.
#[test]
fn random_mixes_of_modes_never_deadlock_and_keep_exclusion() {
    const TABLES: [&str; 3] = ["a", "b", "c"];
    let locks = Arc::new(MetadataLocks::default());
    // Per table and mode: holders now.
    let holding: Arc<Vec<[AtomicUsize; 5]>> =
        Arc::new((0..3).map(|_| Default::default()).collect());
    let mut threads = Vec::new();
    for k in 0..6u64 {
        let locks = locks.clone();
        let holding = holding.clone();
        threads.push(thread::spawn(move || {
            let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (k + 1).wrapping_mul(0x2545_F491_4F6C_DD1D);
            let mut next = move |n: u64| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % n) as usize
            };
            for _ in 0..300 {
                let count = 1 + next(3);
                let wanted: Vec<(String, String, Mode)> = (0..count)
                    .map(|_| ("db".to_owned(), TABLES[next(3)].to_owned(), MODES[next(5)]))
                    .collect();
                let held = locks
                    .acquire_set(&wanted, &limit(20_000))
                    .expect("no deadlock");
                for (l, m) in &held {
                    let t = TABLES.iter().position(|x| l.is("db", x)).unwrap_or(0);
                    for (o, &other) in MODES.iter().enumerate() {
                        if holding[t][o].load(Ordering::SeqCst) > 0 {
                            assert!(
                                COMPATIBLE[o][index(*m)],
                                "{m:?} granted while {other:?} is held"
                            );
                        }
                    }
                    holding[t][index(*m)].fetch_add(1, Ordering::SeqCst);
                }
                thread::yield_now();
                for (l, m) in held {
                    let t = TABLES.iter().position(|x| l.is("db", x)).unwrap_or(0);
                    holding[t][index(m)].fetch_sub(1, Ordering::SeqCst);
                    l.release(m);
                }
            }
        }));
    }
    for t in threads {
        t.join().expect("no panic");
    }
    for t in TABLES {
        let l = locks.entry("db", t);
        assert_eq!(l.word.load(Ordering::Acquire), 0, "{t}: all released");
    }
}
