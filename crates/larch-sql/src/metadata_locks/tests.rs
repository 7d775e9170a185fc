//! The lock word and the exclusive-set protocol without sessions: mutual
//! exclusion, writer preference with the holder's bypass, no deadlock between
//! DDL taking overlapping sets in any order, and timeouts.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::{MetadataLocks, SessionLocks, WaitLimit};

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
    a.acquire_shared(&locks, "db", "t", || limit(10))
        .expect("free");
    b.acquire_shared(&locks, "db", "t", || limit(10))
        .expect("shared with shared");
    // Re-entrant: a second acquire by the same session is a no-op.
    a.acquire_shared(&locks, "db", "t", || limit(10))
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
    c.acquire_shared(&locks, "db", "other", || limit(10))
        .expect("free");
    let e = c
        .acquire_shared(&locks, "db", "t", || limit(50))
        .expect_err("exclusive granted");
    assert_eq!(e.code(), 1205);
    let mut ddl = SessionLocks {
        shared: Vec::new(),
        exclusive: held,
    };
    ddl.release_exclusive(&locks);
    c.acquire_shared(&locks, "db", "t", || limit(10))
        .expect("released");
    c.release_shared();
    assert_eq!(locks.entries(), 2, "entries stay until DDL forgets them");
}

#[test]
fn pending_ddl_holds_back_newcomers_but_not_holders() {
    let locks = Arc::new(MetadataLocks::default());
    let mut holder = SessionLocks::default();
    holder
        .acquire_shared(&locks, "db", "t", || limit(10))
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
    while locks.entry("db", "t").word.load(Ordering::Acquire) < super::EXCLUSIVE_WAITER {
        assert!(start.elapsed() < Duration::from_secs(5), "DDL never queued");
        thread::yield_now();
    }
    // A newcomer waits behind the queued DDL...
    let mut newcomer = SessionLocks::default();
    assert!(newcomer
        .acquire_shared(&locks, "db", "t", || limit(50))
        .is_err());
    // ...a session that already holds locks does not.
    let mut busy = SessionLocks::default();
    busy.acquire_shared(&locks, "db", "u", || limit(10))
        .expect("free");
    busy.acquire_shared(&locks, "db", "t", || limit(10))
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
                s.acquire_shared(&locks, "db", TABLES[t], || limit(10_000))
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
        .acquire_shared(&locks, "db", "t", || WaitLimit {
            deadline: Instant::now() + Duration::from_secs(60),
            cancel: cancel.clone(),
            process: None,
        })
        .expect_err("cancelled");
    assert_eq!(e.code(), 1317);
    drop(SessionLocks {
        shared: Vec::new(),
        exclusive: held,
    });
}
