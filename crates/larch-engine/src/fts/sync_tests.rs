//! Tests of [`super::CacheBudget`]: limits, the choice of caches, writers
//! waiting only above the hard limit, and many writers with one sync task.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::thread;

use super::*;
use crate::fts::cache::{NODE_OVERHEAD, WORD_OVERHEAD};
use crate::fts::ilist::{decode, DocEntry};
use crate::fts::test_support::{none, tok, Rng};
use crate::record::collation::Collation;

fn policy(cache_size: usize, total_cache_size: usize) -> SyncPolicy {
    SyncPolicy {
        cache_size,
        total_cache_size,
    }
}

fn cache() -> IndexCache {
    IndexCache::new(Collation::Utf8mb4Bin)
}

/// Adds documents of one word until the cache holds at least `bytes`.
fn fill(b: &CacheBudget, c: &RegisteredCache, next_doc: &mut u64, bytes: usize) {
    while c.read(|c| c.size()) < bytes {
        *next_doc += 1;
        b.add_doc(c, *next_doc, &[tok("filler", 1)], &none())
            .expect("add");
    }
}

/// Runs one sync job to the end on this thread; returns the bytes freed.
fn sync_one(b: &CacheBudget, mut job: SyncJob) -> usize {
    let batch = job.take().expect("take");
    let bytes = batch.bytes();
    assert_eq!(b.finished_sync(job).expect("finish"), bytes);
    bytes
}

fn check_charges(b: &CacheBudget, caches: &[Arc<RegisteredCache>]) {
    let sum: usize = caches.iter().map(|c| c.read(|c| c.size())).sum();
    assert_eq!(b.total(), sum);
    for c in caches {
        c.read(|c| assert_eq!(c.size(), c.recomputed_size()));
    }
}

#[test]
fn limits_and_variables() {
    let p = SyncPolicy::default();
    assert_eq!((p.cache_size, p.total_cache_size), (8_000_000, 640_000_000));
    assert_eq!(p.hard_limit(), 1_280_000_000);
    assert_eq!(
        SyncPolicy::from_variables(8_000_000, 640_000_000).expect("ok"),
        p
    );
    assert!(SyncPolicy::from_variables(1_599_999, 640_000_000).is_err());
    assert!(SyncPolicy::from_variables((1 << 40) + 1, 640_000_000).is_err());
    assert!(SyncPolicy::from_variables(8_000_000, 31_999_999).is_err());
    assert!(SyncPolicy::from_variables(8_000_000, 1_600_000_001).is_err());
    assert_eq!(policy(1, usize::MAX).hard_limit(), usize::MAX);
}

#[test]
fn per_index_limit_requests_a_sync_of_that_cache_only() {
    let b = CacheBudget::new(policy(1000, 1_000_000));
    let small = b.register(cache());
    let big = b.register(cache());
    let mut doc = 0;
    fill(&b, &small, &mut doc, 500);
    assert!(b.try_next_cache_to_sync().is_none(), "under every limit");
    assert!(b.is_settled());
    fill(&b, &big, &mut doc, 1001);
    assert!(b.stats().sync_requests > 0);
    let job = b.try_next_cache_to_sync().expect("a sync");
    assert_eq!(job.cache().id(), big.id());
    assert!(b.try_next_cache_to_sync().is_none(), "one sync per cache");
    assert!(!b.is_settled());
    let freed = sync_one(&b, job);
    assert!(freed > 1000);
    assert_eq!(big.read(|c| (c.size(), c.synced_doc_id())), (0, doc));
    check_charges(&b, &[small.clone(), big.clone()]);
    assert!(b.is_settled());
    let s = b.stats();
    assert_eq!(
        (s.syncs_started, s.syncs_finished, s.writer_waits),
        (1, 1, 0)
    );
    assert_eq!(s.bytes_synced, freed as u64);
    b.unregister(&small);
    assert_eq!(b.total(), 0);
    assert!(b.add_doc(&small, 10_000, &[], &none()).is_err());
}

#[test]
fn total_limit_syncs_largest_then_oldest() {
    let b = CacheBudget::new(policy(1_000_000, 2500));
    let caches: Vec<_> = (0..4).map(|_| b.register(cache())).collect();
    let mut doc = 0;
    // Cache 1 is the largest; caches 2 and 0 have equal sizes, 2 dirty first.
    fill(&b, &caches[2], &mut doc, 1200);
    fill(&b, &caches[0], &mut doc, 1200);
    fill(&b, &caches[1], &mut doc, 1500);
    fill(&b, &caches[3], &mut doc, 200);
    assert_eq!(caches[0].read(|c| c.size()), caches[2].read(|c| c.size()));
    assert!(b.total() > 4000 && b.total() <= b.policy().hard_limit());
    let mut order = Vec::new();
    while let Some(job) = b.try_next_cache_to_sync() {
        order.push(job.cache().id());
        sync_one(&b, job);
    }
    assert_eq!(order, [caches[1].id(), caches[2].id()]);
    assert!(b.total() <= 2500);
    check_charges(&b, &caches);
    assert_eq!(b.stats().writer_waits, 0, "never over the hard limit");
}

#[test]
fn writer_waits_above_the_hard_limit_until_a_sync_finishes() {
    let b = Arc::new(CacheBudget::new(policy(1_000_000, 1000)));
    let c = b.register(cache());
    let mut doc = 0;
    fill(&b, &c, &mut doc, 2001);
    assert!(b.total() > b.policy().hard_limit());
    assert_eq!(
        b.stats().writer_waits,
        0,
        "adds checked before they grew it"
    );
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (b, c, done) = (Arc::clone(&b), Arc::clone(&c), Arc::clone(&done));
        thread::spawn(move || {
            b.add_doc(&c, 1_000_000, &[tok("late", 0)], &none())
                .expect("add");
            done.store(true, Ordering::SeqCst);
        })
    };
    while b.stats().waiting_writers == 0 {
        thread::yield_now();
    }
    assert!(!done.load(Ordering::SeqCst), "blocked");
    let s = b.stats();
    assert_eq!(s.writer_waits, 1);
    assert!(s.lowest_total_at_wait.expect("recorded") > b.policy().hard_limit());
    // Taking the batch frees nothing yet: the writer still waits.
    let mut job = b.try_next_cache_to_sync().expect("job");
    let batch = job.take().expect("take");
    assert!(b.total() > b.policy().hard_limit());
    assert!(!done.load(Ordering::SeqCst));
    assert_eq!(b.finished_sync(job).expect("finish"), batch.bytes());
    writer.join().expect("writer");
    assert!(done.load(Ordering::SeqCst));
    assert_eq!(b.stats().waiting_writers, 0);
    check_charges(&b, std::slice::from_ref(&c));
    let late = c.read(|c| c.postings("late")).expect("ok");
    assert_eq!(late.len(), 1);
}

#[test]
fn shutdown_releases_writers_and_the_sync_loop() {
    let b = Arc::new(CacheBudget::new(policy(1_000_000, 100)));
    let c = b.register(cache());
    let mut doc = 0;
    fill(&b, &c, &mut doc, 201);
    assert!(b.total() > b.policy().hard_limit());
    let writer = {
        let (b, c) = (Arc::clone(&b), Arc::clone(&c));
        thread::spawn(move || b.add_doc(&c, 99_999, &[tok("x", 0)], &none()))
    };
    while b.stats().waiting_writers == 0 {
        thread::yield_now();
    }
    b.shutdown();
    writer
        .join()
        .expect("writer")
        .expect("released by shutdown");
    assert_eq!(b.stats().waiting_writers, 0);
    assert!(b.try_next_cache_to_sync().is_some(), "work remains");
    assert!(b.next_cache_to_sync().is_none());
}

/// Postings by (cache id, word).
type Postings = BTreeMap<(u64, String), Vec<DocEntry>>;

/// Many writers add random documents to many caches under a tiny budget
/// while one task syncs, starting only when a writer is blocked. Checks:
/// only the sync task takes batches (writers cannot: they reach a cache
/// through `add_doc` and `read` alone); every wait began above the hard
/// limit; the total never passed the hard limit by more than one document
/// per writer; after the writers stop, the sync task settles the total under
/// the soft limit; every posting is in a synced batch or still cached,
/// exactly once; the charges equal the caches' sizes.
#[test]
fn many_writers_one_sync_task() {
    const WRITERS: u64 = 4;
    const CACHES: usize = 12;
    const DOCS: u64 = 400;
    const WORDS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "eps", "zeta"];
    let p = policy(600, 2500);
    let b = Arc::new(CacheBudget::new(p));
    let caches: Vec<_> = (0..CACHES).map(|_| b.register(cache())).collect();
    let synced: Arc<Mutex<Postings>> = Arc::default();
    let syncer = {
        let (b, synced) = (Arc::clone(&b), Arc::clone(&synced));
        thread::spawn(move || {
            // Start only once a writer is blocked, which must happen: the
            // documents hold far more than the hard limit.
            while b.stats().waiting_writers == 0 {
                thread::yield_now();
            }
            let mut jobs = 0u64;
            while let Some(mut job) = b.next_cache_to_sync() {
                let id = job.cache().id();
                let batch = job.take().expect("take");
                {
                    let mut s = synced.lock();
                    for (w, nodes) in batch.words() {
                        for n in nodes {
                            let e = decode(n.as_bytes()).expect("decodes");
                            s.entry((id, w.to_string())).or_default().extend(e);
                        }
                    }
                }
                b.finished_sync(job).expect("finish");
                jobs += 1;
            }
            jobs
        })
    };
    // A document's charge: at most 6 words of <= 5 bytes (text and key),
    // each a new node of <= 2 + 6 + 1 ilist bytes, and its doc id.
    let max_doc_bytes = 6 * (WORD_OVERHEAD + 10 + NODE_OVERHEAD + 9) + 8;
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (b, caches) = (Arc::clone(&b), caches.clone());
            thread::spawn(move || {
                let mut rng = Rng(0xA076_1D64_78BD_642F ^ (w + 1));
                let mut added = Vec::new();
                for i in 0..DOCS {
                    let c = &caches[rng.below(CACHES as u64) as usize];
                    let doc = 1 + i * WRITERS + w;
                    let tokens: Vec<Token> = (0..1 + rng.below(6))
                        .map(|k| tok(WORDS[rng.below(6) as usize], (k * 10) as usize))
                        .collect();
                    b.add_doc(c, doc, &tokens, &none()).expect("add");
                    added.push((c.id(), doc, tokens));
                }
                added
            })
        })
        .collect();
    let mut want: BTreeMap<(u64, String), Vec<u64>> = BTreeMap::new();
    for wr in writers {
        for (id, doc, tokens) in wr.join().expect("writer") {
            for t in &tokens {
                let docs = want.entry((id, t.text.clone())).or_default();
                if docs.last() != Some(&doc) && !docs.contains(&doc) {
                    docs.push(doc);
                }
            }
        }
    }
    while !b.is_settled() {
        thread::yield_now();
    }
    let s = b.stats();
    assert!(
        b.total() <= p.total_cache_size,
        "settled under the soft limit"
    );
    assert!(s.peak_total <= p.hard_limit() + WRITERS as usize * max_doc_bytes);
    if let Some(low) = s.lowest_total_at_wait {
        assert!(low > p.hard_limit(), "waited at {low}");
    }
    assert_eq!(s.waiting_writers, 0);
    assert!(s.syncs_finished > 0 && s.writer_waits > 0);
    check_charges(&b, &caches);
    b.shutdown();
    let jobs = syncer.join().expect("syncer");
    let s = b.stats();
    assert_eq!((s.syncs_started, s.syncs_finished), (jobs, jobs));
    // Every posting exactly once, in a batch or in the cache.
    let synced = synced.lock();
    for ((id, word), docs) in &want {
        let c = caches.iter().find(|c| c.id() == *id).expect("cache");
        let mut got: Vec<u64> = c
            .read(|c| c.postings(word))
            .expect("ok")
            .iter()
            .map(|e| e.doc_id)
            .collect();
        if let Some(e) = synced.get(&(*id, word.clone())) {
            got.extend(e.iter().map(|e| e.doc_id));
        }
        got.sort_unstable();
        let mut docs = docs.clone();
        docs.sort_unstable();
        assert_eq!(got, docs, "{id} {word}");
    }
}
