//! FULLTEXT index maintenance against a model: documents added, deleted and
//! synced in random order read back the same postings from cache and word
//! tables; a rolled-back or crashed sync leaves the tables as they were;
//! committed syncs survive a restart.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::config::EngineConfig;
use crate::error::EngineError;
use crate::fts::auxiliary::{CommonRoots, WordTableRoots};
use crate::fts::sync::{SyncJob, SyncPolicy};
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::storage::Storage;
use crate::table::TransactionServices;
use crate::txn::{IsolationLevel, Session, TrxOptions};

const COLLATION: Collation = Collation::Utf8mb4GeneralCi;

fn storage(vfs: Arc<dyn Vfs>) -> Result<Arc<Storage>> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K4);
    c.buffer_pool_size = 512 * 4096;
    c.log_file_size = 16 << 20;
    c.undo_tablespaces = 1;
    Ok(Arc::new(Storage::open_or_create(c, vfs)?))
}

fn settings() -> TokenizeSettings {
    TokenizeSettings {
        collation: COLLATION,
        limits: TokenSizeLimits::new(3, 84).expect("limits"),
        stopwords: Arc::new(StopwordSet::default_list()),
        parser: FulltextParser::Builtin,
    }
}

/// Every add over the per-index limit: each add asks for a sync, and no
/// writer ever waits.
fn eager_budget() -> Arc<CacheBudget> {
    Arc::new(CacheBudget::new(SyncPolicy {
        cache_size: 1,
        total_cache_size: 1 << 40,
    }))
}

struct Env {
    storage: Arc<Storage>,
    services: Arc<TransactionServices>,
    index: FulltextIndex,
    session: Session,
}

impl Env {
    fn create(vfs: Arc<dyn Vfs>) -> Result<Env> {
        let storage = storage(vfs)?;
        let (services, recovered) = TransactionServices::open(&storage)?;
        assert!(recovered.is_empty());
        let space = storage.create_tablespace("test/t.ibd")?;
        let common = CommonTables::create(&storage, Some(&services), space)?;
        let words = WordTables::create(&storage, Some(&services), space, 0, COLLATION)?;
        let index = FulltextIndex::new(0, settings(), words, common, eager_budget());
        let session = services.system.register_session()?;
        Ok(Env {
            storage,
            services,
            index,
            session,
        })
    }

    fn begin(&mut self) -> Result<TxnContext> {
        let trx = self
            .session
            .begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        Ok(TxnContext::new(&self.services, trx))
    }

    fn roots(&self) -> (u32, CommonRoots, WordTableRoots) {
        let common = self.index.common_tables();
        (
            common.tables()[0].roots().space,
            common.roots(),
            self.index.word_tables().roots(),
        )
    }

    /// Takes the cache's contents for a sync (a job is always due: see
    /// [`eager_budget`]).
    fn job(&self) -> Result<(SyncJob, SyncBatch)> {
        let mut job = self
            .index
            .budget
            .try_next_cache_to_sync()
            .ok_or_else(|| EngineError::Internal("no sync due".into()))?;
        let batch = job.take()?;
        Ok((job, batch))
    }

    fn sync(&mut self) -> Result<()> {
        let (job, batch) = self.job()?;
        let mut ctx = self.begin()?;
        self.index.write_batch(&mut ctx, &batch)?;
        ctx.commit()?;
        self.index.budget.finished_sync(job)?;
        Ok(())
    }
}

/// word key (collation weights) -> doc id -> positions.
type Model = BTreeMap<Vec<u8>, BTreeMap<u64, Vec<u64>>>;

fn key(word: &str) -> Vec<u8> {
    let mut k = Vec::new();
    COLLATION.weights(word, &mut k);
    k
}

fn model_add(model: &mut Model, settings: &TokenizeSettings, doc_id: u64, text: &str) {
    for t in settings.tokens(&[Some(text.as_bytes())]) {
        if settings.stopwords.contains(&t.text) {
            continue;
        }
        let positions = model
            .entry(key(&t.text))
            .or_default()
            .entry(doc_id)
            .or_default();
        positions.push(t.position as u64);
    }
}

const VOCABULARY: &[&str] = &[
    "apple",
    "Apple",
    "banana",
    "cherry",
    "delta",
    "echo",
    "élan",
    "Elan",
    "fox",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "the",
    "and",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "ab",
    "apricot",
    "application",
    "apply",
];

fn random_text(rng: &mut StdRng) -> String {
    let n = rng.random_range(0..12);
    (0..n)
        .map(|_| VOCABULARY[rng.random_range(0..VOCABULARY.len())])
        .collect::<Vec<_>>()
        .join(if rng.random_bool(0.5) { " " } else { ", " })
}

fn expected(model: &Model, word: &str) -> Vec<DocEntry> {
    model
        .get(&key(word))
        .map(|docs| {
            docs.iter()
                .map(|(&doc_id, p)| DocEntry {
                    doc_id,
                    positions: p.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn check_against(env: &Env, model: &Model, deleted: &BTreeSet<u64>) -> Result<()> {
    let snap = env.index.snapshot()?;
    for word in VOCABULARY {
        assert_eq!(
            snap.postings(&word.to_lowercase())?,
            expected(model, &word.to_lowercase()),
            "postings of {word}"
        );
    }
    for prefix in ["ap", "e", "appl", "zz", "é"] {
        let got = snap.prefix_postings(prefix)?;
        let want: Vec<Vec<DocEntry>> = model
            .iter()
            .filter(|(k, _)| k.starts_with(&key(prefix)))
            .map(|(_, docs)| {
                docs.iter()
                    .map(|(&doc_id, p)| DocEntry {
                        doc_id,
                        positions: p.clone(),
                    })
                    .collect()
            })
            .collect();
        let got_entries: Vec<Vec<DocEntry>> = got.iter().map(|(_, e)| e.clone()).collect();
        assert_eq!(got_entries, want, "prefix {prefix}");
        for (w, _) in &got {
            assert!(key(w).starts_with(&key(prefix)), "{w} under {prefix}");
        }
    }
    for id in 0..200 {
        assert_eq!(snap.is_deleted(id), deleted.contains(&id), "doc {id}");
    }
    Ok(())
}

#[test]
fn cache_and_word_tables_serve_the_model() -> Result<()> {
    for seed in 0..4u64 {
        let mut env = Env::create(Arc::new(SimVfs::new()))?;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut model = Model::new();
        let mut deleted = BTreeSet::new();
        let mut next_doc = 1u64;
        for _ in 0..150 {
            match rng.random_range(0..10) {
                0..=5 => {
                    let text = random_text(&mut rng);
                    env.index.add_document(next_doc, &[Some(text.as_bytes())])?;
                    model_add(&mut model, env.index.settings(), next_doc, &text);
                    next_doc += 1;
                }
                6 => {
                    let id = rng.random_range(1..next_doc.max(2));
                    let mut ctx = env.begin()?;
                    if deleted.contains(&id) {
                        // Deleting twice is a duplicate key, as in InnoDB.
                        assert!(env.index.delete_document(&mut ctx, id).is_err());
                        ctx.rollback()?;
                    } else {
                        env.index.delete_document(&mut ctx, id)?;
                        if rng.random_bool(0.3) {
                            ctx.rollback()?;
                        } else {
                            ctx.commit()?;
                            deleted.insert(id);
                        }
                    }
                }
                7 | 8 => {
                    if env.index.cache().read(|c| c.doc_count()) > 0 {
                        env.sync()?;
                    }
                }
                _ => check_against(&env, &model, &deleted)?,
            }
        }
        check_against(&env, &model, &deleted)?;
        if env.index.cache().read(|c| c.doc_count()) > 0 {
            env.sync()?;
        }
        assert_eq!(env.index.cache().read(|c| c.size()), 0);
        assert_eq!(env.index.synced_doc_id()?, next_doc - 1);
        check_against(&env, &model, &deleted)?;
    }
    Ok(())
}

#[test]
fn a_rolled_back_sync_leaves_the_tables_and_a_retry_completes() -> Result<()> {
    let mut env = Env::create(Arc::new(SimVfs::new()))?;
    let mut model = Model::new();
    for (id, text) in [
        (1, "apple banana"),
        (2, "banana cherry banana"),
        (3, "Apple"),
    ] {
        env.index.add_document(id, &[Some(text.as_bytes())])?;
        model_add(&mut model, env.index.settings(), id, text);
    }
    let (job, batch) = env.job()?;
    let mut ctx = env.begin()?;
    env.index.write_batch(&mut ctx, &batch)?;
    // Mid-sync, the rows and the frozen cache hold the same documents:
    // readers see each once.
    check_against(&env, &model, &BTreeSet::new())?;
    ctx.rollback()?;
    assert!(env.index.word_tables().all_nodes()?.is_empty());
    assert_eq!(env.index.synced_doc_id()?, 0);
    check_against(&env, &model, &BTreeSet::new())?;
    let mut ctx = env.begin()?;
    env.index.write_batch(&mut ctx, &batch)?;
    ctx.commit()?;
    env.index.budget.finished_sync(job)?;
    assert_eq!(env.index.synced_doc_id()?, 3);
    let nodes = env.index.word_tables().all_nodes()?;
    let words: Vec<&str> = nodes.iter().map(|n| n.word.as_str()).collect();
    assert_eq!(words, ["apple", "banana", "cherry"]);
    assert_eq!(nodes[1].doc_count, 2);
    check_against(&env, &model, &BTreeSet::new())?;
    Ok(())
}

#[test]
fn committed_syncs_survive_a_crash_and_an_interrupted_one_rolls_back() -> Result<()> {
    let sim = Arc::new(SimVfs::new());
    let vfs: Arc<dyn Vfs> = sim.clone();
    let mut model = Model::new();
    let (space, common_roots, word_roots) = {
        let mut env = Env::create(vfs.clone())?;
        for (id, text) in [(1, "kilo lima mike"), (2, "lima lima oscar")] {
            env.index.add_document(id, &[Some(text.as_bytes())])?;
            model_add(&mut model, env.index.settings(), id, text);
        }
        env.sync()?;
        let mut ctx = env.begin()?;
        env.index.delete_document(&mut ctx, 1)?;
        ctx.commit()?;
        // A second sync, written but never committed.
        env.index
            .add_document(3, &[Some(b"papa quebec".as_slice())])?;
        let (_job, batch) = env.job()?;
        let mut ctx = env.begin()?;
        env.index.write_batch(&mut ctx, &batch)?;
        env.storage.make_durable()?;
        let roots = env.roots();
        ctx.abandon();
        let Env {
            storage,
            services,
            index,
            session,
        } = env;
        drop(session);
        drop(index);
        drop(services);
        Arc::into_inner(storage)
            .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
            .abandon();
        sim.crash();
        roots
    };
    let storage = storage(vfs)?;
    let (services, recovered) = TransactionServices::open(&storage)?;
    assert_eq!(recovered.len(), 1);
    let common = CommonTables::open(&storage, Some(&services), space, &common_roots)?;
    let words = WordTables::open(&storage, Some(&services), space, &word_roots, COLLATION)?;
    crate::table::roll_back_recovered_now(&services, recovered)?;
    let index = FulltextIndex::new(0, settings(), words, common, eager_budget());
    assert_eq!(index.synced_doc_id()?, 2);
    let snap = index.snapshot()?;
    assert_eq!(snap.postings("lima")?, expected(&model, "lima"));
    assert!(snap.postings("papa")?.is_empty());
    assert!(snap.is_deleted(1) && !snap.is_deleted(2));
    Ok(())
}

#[test]
fn ngram_indexes_shift_positions_across_columns() {
    let mut s = settings();
    s.parser = FulltextParser::Ngram(NgramParser::new(2).expect("ngram"));
    let tokens = s.tokens(&[Some("中文".as_bytes()), None, Some("全文检索".as_bytes())]);
    let got: Vec<(&str, usize)> = tokens
        .iter()
        .map(|t| (t.text.as_str(), t.position))
        .collect();
    assert_eq!(got, [("中文", 0), ("全文", 7), ("文检", 10), ("检索", 13)]);
}
