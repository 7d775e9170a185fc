//! Tests of [`super::IndexCache`]: unit cases and property checks against a
//! naive model.

use std::collections::BTreeMap;

use super::*;
use crate::fts::ilist::decode;
use crate::fts::test_support::{none, tok, Rng};
use crate::fts::tokenizer::{tokenize, TokenSizeLimits};

fn entry(doc_id: u64, positions: &[u64]) -> DocEntry {
    DocEntry {
        doc_id,
        positions: positions.to_vec(),
    }
}

fn check_size(c: &IndexCache) {
    assert_eq!(c.size(), c.recomputed_size());
}

#[test]
fn words_postings_and_stopwords() {
    let mut c = IndexCache::new(Collation::Utf8mb4GeneralCi);
    let doc = b"The MySQL tutorial: mysql for the DBMS";
    let tokens = tokenize(doc, Collation::Utf8mb4GeneralCi, TokenSizeLimits::default());
    c.add_doc(7, &tokens, &StopwordSet::default_list())
        .expect("add");
    check_size(&c);
    assert_eq!(c.postings("mysql").expect("ok"), vec![entry(7, &[4, 20])]);
    assert_eq!(c.postings("MYSQL").expect("ok"), vec![entry(7, &[4, 20])]);
    assert_eq!(c.postings("the").expect("ok"), vec![], "stopword");
    assert_eq!(c.postings("for").expect("ok"), vec![], "stopword");
    assert_eq!(c.postings("nothing").expect("ok"), vec![]);
    c.add_doc(3, &[tok("MySQLs", 0), tok("tut", 9)], &none())
        .expect("add");
    let words: Vec<String> = c
        .prefix_postings("my")
        .expect("ok")
        .into_iter()
        .map(|(w, _)| w)
        .collect();
    assert_eq!(words, ["mysql", "MySQLs"]);
    let tut = c.prefix_postings("TUT").expect("ok");
    assert_eq!(tut.len(), 2);
    assert_eq!(tut[0], ("tut".to_string(), vec![entry(3, &[9])]));
    assert_eq!(tut[1], ("tutorial".to_string(), vec![entry(7, &[10])]));
    assert_eq!(c.doc_count(), 2);
    check_size(&c);
}

#[test]
fn case_insensitive_words_keep_the_first_spelling() {
    let mut c = IndexCache::new(Collation::Latin1SwedishCi);
    c.add_doc(1, &[tok("Word", 0), tok("WORD", 5)], &none())
        .expect("add");
    c.add_doc(2, &[tok("word", 3)], &none()).expect("add");
    let batch = c.take_for_sync().expect("take");
    let words: Vec<_> = batch.words().collect();
    assert_eq!(words.len(), 1);
    assert_eq!(words[0].0, "Word");
    let bin = IndexCache::new(Collation::Utf8mb4Bin);
    assert!(bin.postings("x").expect("ok").is_empty());
}

#[test]
fn rejects_bad_doc_ids_without_changes() {
    let mut c = IndexCache::new(Collation::Utf8mb4Bin);
    c.add_doc(5, &[tok("abc", 0)], &none()).expect("add");
    let size = c.size();
    assert!(c.add_doc(0, &[tok("abc", 0)], &none()).is_err());
    assert!(c.add_doc(5, &[tok("xyz", 0)], &none()).is_err());
    assert_eq!(c.size(), size);
    assert!(c.postings("xyz").expect("ok").is_empty());
    let _batch = c.take_for_sync().expect("take");
    assert!(c.add_doc(5, &[tok("xyz", 0)], &none()).is_err(), "frozen");
    assert!(c.take_for_sync().is_err(), "one batch at a time");
    check_size(&c);
}

#[test]
fn nodes_split_at_the_limit_and_on_lower_doc_ids() {
    let mut c = IndexCache::with_node_limit(Collation::Utf8mb4Bin, 8);
    for doc in 1..=10u64 {
        c.add_doc(doc * 10, &[tok("w", 1), tok("w", 300)], &none())
            .expect("add");
    }
    c.add_doc(15, &[tok("w", 2)], &none())
        .expect("out of order");
    check_size(&c);
    let batch = c.take_for_sync().expect("take");
    let (word, nodes) = batch.words().next().expect("one word");
    assert_eq!(word, "w");
    assert!(nodes.len() > 2, "{} nodes", nodes.len());
    let mut docs = 0;
    for n in nodes {
        let entries = decode(n.as_bytes()).expect("decodes");
        assert_eq!(entries.len() as u64, n.doc_count());
        assert_eq!(Some(entries[0].doc_id), n.first_doc_id());
        assert_eq!(entries[entries.len() - 1].doc_id, n.last_doc_id());
        docs += entries.len();
    }
    assert_eq!(docs, 11);
    // The out-of-order document started its own node.
    let last = nodes.last().expect("node");
    assert_eq!((last.first_doc_id(), last.doc_count()), (Some(15), 1));
}

#[test]
fn sync_keeps_frozen_documents_visible_until_finished() {
    let mut c = IndexCache::new(Collation::Utf8mb4GeneralCi);
    c.add_doc(1, &[tok("alpha", 0)], &none()).expect("add");
    assert!(c.delete_doc(9));
    assert!(!c.delete_doc(9));
    let frozen_size = c.size();
    let batch = c.take_for_sync().expect("take");
    assert_eq!(batch.bytes(), frozen_size);
    assert_eq!(batch.deleted_doc_ids().collect::<Vec<_>>(), [9]);
    assert_eq!((batch.doc_count(), batch.max_doc_id()), (1, 1));
    assert_eq!(batch.word_count(), 1);
    c.add_doc(2, &[tok("alpha", 4)], &none()).expect("add");
    assert!(!c.delete_doc(9), "still recorded in the frozen part");
    assert!(c.is_deleted(9));
    assert_eq!(
        c.postings("alpha").expect("ok"),
        vec![entry(1, &[0]), entry(2, &[4])]
    );
    assert_eq!(c.prefix_postings("al").expect("ok").len(), 1);
    check_size(&c);
    assert!(c.is_syncing());
    assert_eq!(c.finish_sync().expect("finish"), frozen_size);
    assert!(c.finish_sync().is_err());
    assert_eq!(c.synced_doc_id(), 1);
    assert_eq!(c.postings("alpha").expect("ok"), vec![entry(2, &[4])]);
    assert!(!c.is_deleted(9));
    check_size(&c);
    c.take_for_sync().expect("take");
    c.finish_sync().expect("finish");
    assert_eq!((c.size(), c.synced_doc_id()), (0, 2));
}

type Model = BTreeMap<String, Vec<DocEntry>>;

fn model_prefix(model: &Model, prefix: &str) -> Vec<(String, Vec<DocEntry>)> {
    model
        .iter()
        .filter(|(w, e)| w.starts_with(prefix) && !e.is_empty())
        .map(|(w, e)| {
            let mut e = e.clone();
            e.sort_by_key(|d| d.doc_id);
            (w.clone(), e)
        })
        .collect()
}

/// Random documents over a small vocabulary in random doc id order, with
/// random deletes and syncs: postings and prefix lookups equal a naive model
/// of what the cache holds, the size equals its recomputation after every
/// step, and every posting ends in exactly one synced batch or the cache.
#[test]
fn random_documents_match_a_naive_model() {
    const VOCAB: [&str; 12] = [
        "ab", "abc", "abd", "b", "ba", "bab", "c", "cab", "d", "da", "dab", "e",
    ];
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    for round in 0..40 {
        let limit = [4, 16, 64, ILIST_MAX_SIZE][round % 4];
        let mut cache = IndexCache::with_node_limit(Collation::Utf8mb4Bin, limit);
        // What the cache holds (frozen part included), and all ever added.
        let mut held = Model::new();
        let mut all = Model::new();
        let mut synced = Model::new();
        let mut in_batch: Option<SyncBatch> = None;
        let mut ids: Vec<u64> = (1..=200).collect();
        for i in (1..ids.len()).rev() {
            // Mostly increasing ids with local shuffles.
            if rng.below(4) == 0 {
                let j = i.saturating_sub(rng.below(5) as usize);
                ids.swap(i, j);
            }
        }
        for &doc in &ids {
            let mut tokens = Vec::new();
            for _ in 0..rng.below(12) {
                let w = VOCAB[rng.below(VOCAB.len() as u64) as usize];
                tokens.push(tok(w, rng.below(2000) as usize));
            }
            cache.add_doc(doc, &tokens, &none()).expect("add");
            let mut per_word: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
            for t in &tokens {
                per_word.entry(&t.text).or_default().push(t.position as u64);
            }
            for (w, mut p) in per_word {
                p.sort_unstable();
                p.dedup();
                held.entry(w.to_string()).or_default().push(entry(doc, &p));
                all.entry(w.to_string()).or_default().push(entry(doc, &p));
            }
            if rng.below(10) == 0 {
                cache.delete_doc(rng.below(250) + 1);
            }
            check_size(&cache);
            if rng.below(25) == 0 {
                if let Some(batch) = in_batch.take() {
                    for (w, nodes) in batch.words() {
                        let list = held.entry(w.to_string()).or_default();
                        for n in nodes {
                            for e in decode(n.as_bytes()).expect("decodes") {
                                list.retain(|x| x.doc_id != e.doc_id);
                                synced.entry(w.to_string()).or_default().push(e);
                            }
                        }
                    }
                    assert_eq!(cache.finish_sync().expect("finish"), batch.bytes());
                } else {
                    in_batch = Some(cache.take_for_sync().expect("take"));
                }
                check_size(&cache);
            }
            if doc % 16 == 0 {
                for w in VOCAB {
                    let want = model_prefix(&held, w).into_iter().find(|(x, _)| x == w);
                    let got = cache.postings(w).expect("ok");
                    assert_eq!(got, want.map(|(_, e)| e).unwrap_or_default(), "{w}");
                }
                for p in ["", "a", "ab", "ba", "d", "x"] {
                    assert_eq!(
                        cache.prefix_postings(p).expect("ok"),
                        model_prefix(&held, p),
                        "prefix {p}"
                    );
                }
            }
        }
        // Every posting is in the cache or was synced, exactly once.
        for (w, entries) in &all {
            let mut got = cache.postings(w).expect("ok");
            got.extend(synced.get(w).cloned().unwrap_or_default());
            got.sort_by_key(|d| d.doc_id);
            let mut want = entries.clone();
            want.sort_by_key(|d| d.doc_id);
            assert_eq!(got, want, "{w}");
        }
    }
}
