//! The full-text index cache: one FULLTEXT index's committed documents that
//! are not yet in its auxiliary index tables.
//!
//! Owns [`IndexCache`], Larch's counterpart of InnoDB's `fts_index_cache_t`
//! (MariaDB `fts0fts.cc`): a map from index word to the word's *nodes*, each
//! node one future row of an `FTS_*_INDEX_n` table (`FIRST_DOC_ID`,
//! `LAST_DOC_ID`, `DOC_COUNT`, `ILIST`, built with [`IlistEncoder`]), plus the
//! ids of the documents added and deleted since the last sync.
//!
//! - Words are grouped and ordered by the column collation's weight string
//!   ([`Collation::weights`]), as InnoDB's word tree compares them: `Word`
//!   and `word` are one word in a `_ci` index, kept in the first spelling
//!   seen. Stopwords are dropped when a document is added.
//! - A document goes to a word's last node unless that node's ilist is
//!   already over the node limit ([`ILIST_MAX_SIZE`], InnoDB's
//!   `FTS_ILIST_MAX_SIZE`) or the document's id is below the node's last one
//!   (documents commit out of id order); then a new node starts. So a word
//!   spreads over several nodes, each with increasing doc ids.
//! - Size accounting is exact with respect to a fixed formula: word and key
//!   bytes plus [`WORD_OVERHEAD`] per word, ilist bytes plus
//!   [`NODE_OVERHEAD`] per node, [`DOC_ID_BYTES`] per added or deleted doc
//!   id. [`IndexCache::size`] always equals [`IndexCache::recomputed_size`]
//!   (the tests check it after every operation); allocator slack is not
//!   counted.
//! - Sync in two steps, so queries never miss documents: [`take_for_sync`]
//!   freezes the current contents into a shared [`SyncBatch`] (the words in
//!   collation order with their nodes, for the writer of the index tables)
//!   and starts an empty part for new documents; lookups read both parts
//!   until [`finish_sync`] drops the frozen one once the writer has
//!   committed. The frozen bytes stay charged until then.
//!
//! A cache does no locking and never syncs itself; [`super::sync`] decides
//! when a background task syncs it and which writers wait.
//!
//! [`take_for_sync`]: IndexCache::take_for_sync
//! [`finish_sync`]: IndexCache::finish_sync

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use super::ilist::{DocEntry, IlistDecoder, IlistEncoder};
use super::stopwords::StopwordSet;
use super::tokenizer::Token;
use crate::record::collation::Collation;
use crate::{EngineError, Result};

/// InnoDB's `FTS_ILIST_MAX_SIZE`: a node takes no more documents once its
/// ilist is longer than this (so one node may pass it by one entry).
pub const ILIST_MAX_SIZE: usize = 64 * 1024;
/// Bytes charged per word besides its text and key (map entry, headers).
pub const WORD_OVERHEAD: usize = 64;
/// Bytes charged per node besides its ilist (doc ids, count, buffer header).
pub const NODE_OVERHEAD: usize = 48;
/// Bytes charged per added or deleted doc id.
pub const DOC_ID_BYTES: usize = 8;

/// One index word in the cache.
#[derive(Debug)]
struct Word {
    /// The first spelling seen.
    text: String,
    /// Nodes in creation order; doc ids increase within each node.
    nodes: Vec<IlistEncoder>,
}

/// One part of the cache: the active part or the frozen part being synced.
#[derive(Debug, Default)]
struct Contents {
    /// Collation weight string -> word.
    words: BTreeMap<Vec<u8>, Word>,
    added: HashSet<u64>,
    deleted: BTreeSet<u64>,
    max_doc_id: u64,
    size: usize,
}

impl Contents {
    fn recompute(&self) -> usize {
        let words: usize = self
            .words
            .iter()
            .map(|(key, w)| {
                WORD_OVERHEAD
                    + key.len()
                    + w.text.len()
                    + w.nodes
                        .iter()
                        .map(|n| NODE_OVERHEAD + n.len())
                        .sum::<usize>()
            })
            .sum();
        words + DOC_ID_BYTES * (self.added.len() + self.deleted.len())
    }
}

/// One node of the cache (see [`IndexCache::nodes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedNode {
    /// The word as first spelled.
    pub word: String,
    pub first_doc_id: u64,
    pub last_doc_id: u64,
    pub doc_count: u64,
    /// Its documents, by increasing doc id.
    pub entries: Vec<DocEntry>,
}

/// The frozen contents handed to the writer of the index tables.
#[derive(Clone, Debug)]
pub struct SyncBatch(Arc<Contents>);

impl SyncBatch {
    /// The words in collation order, each with its nodes (one index-table
    /// row per node: `first_doc_id()`, `last_doc_id()`, `doc_count()`,
    /// `as_bytes()`).
    pub fn words(&self) -> impl Iterator<Item = (&str, &[IlistEncoder])> + '_ {
        self.0
            .words
            .values()
            .map(|w| (w.text.as_str(), w.nodes.as_slice()))
    }

    /// Number of words.
    pub fn word_count(&self) -> usize {
        self.0.words.len()
    }

    /// Documents deleted while cached, increasing.
    pub fn deleted_doc_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.deleted.iter().copied()
    }

    /// Number of documents added.
    pub fn doc_count(&self) -> usize {
        self.0.added.len()
    }

    /// Largest doc id added (0 if none): the synced doc id once written.
    pub fn max_doc_id(&self) -> u64 {
        self.0.max_doc_id
    }

    /// Bytes these contents are charged.
    pub fn bytes(&self) -> usize {
        self.0.size
    }
}

/// The in-memory inverted index of one FULLTEXT index (see the module doc).
#[derive(Debug)]
pub struct IndexCache {
    collation: Collation,
    node_limit: usize,
    active: Contents,
    frozen: Option<Arc<Contents>>,
    synced_doc_id: u64,
}

impl IndexCache {
    /// An empty cache for an index on columns of `collation`.
    pub fn new(collation: Collation) -> Self {
        Self::with_node_limit(collation, ILIST_MAX_SIZE)
    }

    /// An empty cache whose nodes close past `node_limit` ilist bytes (tests
    /// use small limits to spread words over many nodes).
    pub fn with_node_limit(collation: Collation, node_limit: usize) -> Self {
        IndexCache {
            collation,
            node_limit,
            active: Contents::default(),
            frozen: None,
            synced_doc_id: 0,
        }
    }

    /// Bytes charged for everything the cache holds, frozen part included.
    pub fn size(&self) -> usize {
        self.active.size + self.frozen.as_ref().map_or(0, |f| f.size)
    }

    /// [`IndexCache::size`] computed from the contents.
    pub fn recomputed_size(&self) -> usize {
        self.active.recompute() + self.frozen.as_ref().map_or(0, |f| f.recompute())
    }

    /// True while a [`SyncBatch`] is out (between take and finish).
    pub fn is_syncing(&self) -> bool {
        self.frozen.is_some()
    }

    /// Largest doc id written by a finished sync (InnoDB's `synced_doc_id`).
    pub fn synced_doc_id(&self) -> u64 {
        self.synced_doc_id
    }

    /// Documents added since the last finished sync.
    pub fn doc_count(&self) -> usize {
        self.active.added.len() + self.frozen.as_ref().map_or(0, |f| f.added.len())
    }

    fn key(&self, word: &str) -> Vec<u8> {
        let mut key = Vec::with_capacity(word.len() * 2);
        self.collation.weights(word, &mut key);
        key
    }

    fn parts(&self) -> impl Iterator<Item = &Contents> {
        self.frozen.as_deref().into_iter().chain([&self.active])
    }

    /// Adds a committed document: its tokens (any order; positions are byte
    /// offsets) minus `stopwords`. Fails, changing nothing, for doc id 0 (no
    /// document) or a doc id already in the cache.
    pub fn add_doc(
        &mut self,
        doc_id: u64,
        tokens: &[Token],
        stopwords: &StopwordSet,
    ) -> Result<()> {
        if doc_id == 0 {
            return Err(EngineError::Internal(
                "full-text cache: doc id 0 is not a document".into(),
            ));
        }
        if self.parts().any(|p| p.added.contains(&doc_id)) {
            return Err(EngineError::Internal(format!(
                "full-text cache: doc id {doc_id} added twice"
            )));
        }
        let mut grouped: BTreeMap<Vec<u8>, (&str, Vec<u64>)> = BTreeMap::new();
        for t in tokens {
            if t.text.is_empty() || stopwords.contains(&t.text) {
                continue;
            }
            let entry = grouped
                .entry(self.key(&t.text))
                .or_insert_with(|| (t.text.as_str(), Vec::new()));
            entry.1.push(t.position as u64);
        }
        let limit = self.node_limit;
        let c = &mut self.active;
        for (key, (text, mut positions)) in grouped {
            positions.sort_unstable();
            positions.dedup();
            let key_len = key.len();
            let word = c.words.entry(key).or_insert_with(|| {
                c.size += WORD_OVERHEAD + key_len + text.len();
                Word {
                    text: text.to_owned(),
                    nodes: Vec::new(),
                }
            });
            let reuse = word
                .nodes
                .last()
                .is_some_and(|n| n.len() <= limit && n.last_doc_id() < doc_id);
            if !reuse {
                word.nodes.push(IlistEncoder::new());
                c.size += NODE_OVERHEAD;
            }
            let Some(node) = word.nodes.last_mut() else {
                return Err(EngineError::Internal("full-text cache: no node".into()));
            };
            let before = node.len();
            node.push(doc_id, &positions)?;
            c.size += node.len() - before;
        }
        c.added.insert(doc_id);
        c.size += DOC_ID_BYTES;
        c.max_doc_id = c.max_doc_id.max(doc_id);
        Ok(())
    }

    /// Records a deleted document; false if it was already recorded.
    pub fn delete_doc(&mut self, doc_id: u64) -> bool {
        if self.is_deleted(doc_id) || !self.active.deleted.insert(doc_id) {
            return false;
        }
        self.active.size += DOC_ID_BYTES;
        true
    }

    /// True when `doc_id` was deleted while cached. Lookups do not filter
    /// deleted documents: queries filter cache and table postings alike.
    pub fn is_deleted(&self, doc_id: u64) -> bool {
        self.parts().any(|p| p.deleted.contains(&doc_id))
    }

    /// The cached postings of `word` (compared in the index collation), by
    /// increasing doc id.
    pub fn postings(&self, word: &str) -> Result<Vec<DocEntry>> {
        let key = self.key(word);
        let mut out = Vec::new();
        for part in self.parts() {
            if let Some(w) = part.words.get(&key) {
                decode_nodes(&w.nodes, &mut out)?;
            }
        }
        out.sort_by_key(|e| e.doc_id);
        Ok(out)
    }

    /// The cached words starting with `prefix` (a `word*` search), in
    /// collation order, each with its postings by increasing doc id.
    pub fn prefix_postings(&self, prefix: &str) -> Result<Vec<(String, Vec<DocEntry>)>> {
        let key = self.key(prefix);
        let mut merged: BTreeMap<&[u8], (&str, Vec<DocEntry>)> = BTreeMap::new();
        for part in self.parts() {
            for (k, w) in part.words.range(key.clone()..) {
                if !k.starts_with(&key) {
                    break;
                }
                let slot = merged
                    .entry(k.as_slice())
                    .or_insert_with(|| (w.text.as_str(), Vec::new()));
                decode_nodes(&w.nodes, &mut slot.1)?;
            }
        }
        Ok(merged
            .into_values()
            .map(|(text, mut entries)| {
                entries.sort_by_key(|e| e.doc_id);
                (text.to_owned(), entries)
            })
            .collect())
    }

    /// Every cached node, in word order (the index collation; for one word
    /// the part being synced first, then in creation order), with its
    /// documents: `INFORMATION_SCHEMA.INNODB_FT_INDEX_CACHE`.
    pub fn nodes(&self) -> Result<Vec<CachedNode>> {
        let mut merged: BTreeMap<&[u8], Vec<(&str, &IlistEncoder)>> = BTreeMap::new();
        for part in self.parts() {
            for (key, w) in &part.words {
                let slot = merged.entry(key.as_slice()).or_default();
                slot.extend(w.nodes.iter().map(|n| (w.text.as_str(), n)));
            }
        }
        let mut out = Vec::new();
        for (word, node) in merged.into_values().flatten() {
            let mut entries = Vec::new();
            decode_nodes(std::slice::from_ref(node), &mut entries)?;
            out.push(CachedNode {
                word: word.to_owned(),
                first_doc_id: node.first_doc_id().unwrap_or(0),
                last_doc_id: node.last_doc_id(),
                doc_count: node.doc_count(),
                entries,
            });
        }
        Ok(out)
    }

    /// Freezes the contents for the writer of the index tables and starts
    /// an empty part for new documents. Fails while another batch is out.
    pub fn take_for_sync(&mut self) -> Result<SyncBatch> {
        if self.frozen.is_some() {
            return Err(EngineError::Internal(
                "full-text cache: a sync is already in progress".into(),
            ));
        }
        let frozen = Arc::new(std::mem::take(&mut self.active));
        self.frozen = Some(Arc::clone(&frozen));
        Ok(SyncBatch(frozen))
    }

    /// Drops the frozen part once its batch is in the index tables; returns
    /// the bytes freed. Fails when no sync is in progress.
    pub fn finish_sync(&mut self) -> Result<usize> {
        let Some(frozen) = self.frozen.take() else {
            return Err(EngineError::Internal(
                "full-text cache: no sync in progress".into(),
            ));
        };
        self.synced_doc_id = self.synced_doc_id.max(frozen.max_doc_id);
        Ok(frozen.size)
    }
}

fn decode_nodes(nodes: &[IlistEncoder], out: &mut Vec<DocEntry>) -> Result<()> {
    for node in nodes {
        for entry in IlistDecoder::new(node.as_bytes()) {
            out.push(entry?);
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
