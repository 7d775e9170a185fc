//! One FULLTEXT index as the engine maintains it: its cache of committed
//! documents, its word tables, and the table-wide deleted list.
//!
//! Owns [`FulltextIndex`], Larch's counterpart of what InnoDB spreads over
//! `fts_t`, `fts_cache_t` and `fts_index_cache_t`:
//!
//! - **Adding a document** ([`FulltextIndex::add_document`]) tokenizes its
//!   columns with the index's parser (the built-in one or ngram) and adds
//!   the words to the cache through the shared [`CacheBudget`], which may
//!   make the writer wait at the hard limit but never makes it sync. The
//!   commit path calls it once the inserting transaction has committed.
//! - **Deleting a document** ([`FulltextIndex::delete_document`]) inserts its
//!   id into `DELETED` in the deleting transaction, so the deletion commits or
//!   rolls back with it. Its words stay in the cache and the word tables
//!   until OPTIMIZE removes them; searches skip deleted ids.
//! - **Sync** ([`FulltextIndex::write_batch`]) writes a frozen cache batch
//!   to the word tables and raises the index's synced doc id in `CONFIG`, in
//!   one transaction of the sync task: either all of a batch is in the
//!   tables or none of it. Until the task reports the sync finished, the
//!   cache keeps serving the frozen words, so a search may meet a document
//!   both in the cache and in an uncommitted sync's rows; readers merge by
//!   doc id.
//! - **Reading** ([`FulltextIndex::snapshot`]): an [`IndexSnapshot`] loads
//!   the deleted ids once (as InnoDB reads `DELETED` at the start of a
//!   query) and serves postings merged from the word tables and the cache.
//!
//! Invariants: a doc id is added to the cache at most once (the cache
//! refuses a second add); postings come out by increasing doc id, one entry
//! per document.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::error::Result;
use crate::fts::auxiliary::{CommonTables, StoredNode, WordTables, CONFIG_SYNCED_DOC_ID};
use crate::fts::cache::{CachedNode, IndexCache, SyncBatch};
use crate::fts::ilist::DocEntry;
use crate::fts::ngram::NgramParser;
use crate::fts::stopwords::StopwordSet;
use crate::fts::sync::{CacheBudget, RegisteredCache};
use crate::fts::tokenizer::{tokenize_columns, Token, TokenSizeLimits};
use crate::record::collation::Collation;
use crate::table::TxnContext;

/// How an index turns text into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FulltextParser {
    /// InnoDB's built-in parser ([`crate::fts::tokenizer`]).
    Builtin,
    /// `WITH PARSER ngram` ([`crate::fts::ngram`]).
    Ngram(NgramParser),
}

/// What an index needs to know to tokenize.
#[derive(Debug, Clone)]
pub struct TokenizeSettings {
    /// The collation of the indexed columns.
    pub collation: Collation,
    /// `innodb_ft_min_token_size` / `innodb_ft_max_token_size`.
    pub limits: TokenSizeLimits,
    /// The stopwords in force when the index was created.
    pub stopwords: Arc<StopwordSet>,
    pub parser: FulltextParser,
}

impl TokenizeSettings {
    /// The indexed words of a document given as its columns' bytes (`None`
    /// for NULL), with positions across columns as InnoDB gives them.
    pub fn tokens(&self, columns: &[Option<&[u8]>]) -> Vec<Token> {
        match self.parser {
            FulltextParser::Builtin => tokenize_columns(columns, self.collation, self.limits),
            FulltextParser::Ngram(ngram) => {
                let mut out = Vec::new();
                let mut add_pos = 0usize;
                for text in columns.iter().flatten().filter(|t| !t.is_empty()) {
                    for mut t in ngram.index_tokens(text, self.collation, &self.stopwords) {
                        t.position += add_pos;
                        out.push(t);
                    }
                    add_pos += text.len() + 1;
                }
                out
            }
        }
    }
}

/// One FULLTEXT index (see the module doc).
#[derive(Debug)]
pub struct FulltextIndex {
    /// The index's number among its table's FULLTEXT indexes.
    number: usize,
    settings: TokenizeSettings,
    words: WordTables,
    common: CommonTables,
    budget: Arc<CacheBudget>,
    cache: Arc<RegisteredCache>,
}

impl Drop for FulltextIndex {
    fn drop(&mut self) {
        self.budget.unregister(&self.cache);
    }
}

impl FulltextIndex {
    /// An index over `words` and `common`, with an empty cache registered
    /// in `budget`.
    pub fn new(
        number: usize,
        settings: TokenizeSettings,
        words: WordTables,
        common: CommonTables,
        budget: Arc<CacheBudget>,
    ) -> FulltextIndex {
        let cache = budget.register(IndexCache::new(settings.collation));
        FulltextIndex {
            number,
            settings,
            words,
            common,
            budget,
            cache,
        }
    }

    /// The tokenizing settings.
    pub fn settings(&self) -> &TokenizeSettings {
        &self.settings
    }

    /// The word tables.
    pub fn word_tables(&self) -> &WordTables {
        &self.words
    }

    /// The table-wide auxiliary tables.
    pub fn common_tables(&self) -> &CommonTables {
        &self.common
    }

    /// The index's cache, as registered in the budget (sync jobs name it).
    pub fn cache(&self) -> &Arc<RegisteredCache> {
        &self.cache
    }

    /// The CONFIG key of this index's synced doc id.
    pub fn synced_doc_id_key(&self) -> String {
        format!("{CONFIG_SYNCED_DOC_ID}_{}", self.number)
    }

    /// The largest doc id a committed sync wrote to the word tables.
    pub fn synced_doc_id(&self) -> Result<u64> {
        self.common.config_u64(&self.synced_doc_id_key())
    }

    /// Adds a committed document (its indexed columns' bytes, `None` for
    /// NULL) to the cache. May wait while all caches are over the hard
    /// limit; never syncs.
    pub fn add_document(&self, doc_id: u64, columns: &[Option<&[u8]>]) -> Result<()> {
        let tokens = self.settings.tokens(columns);
        self.budget
            .add_doc(&self.cache, doc_id, &tokens, &self.settings.stopwords)
    }

    /// Adds a committed document already tokenized with
    /// [`TokenizeSettings::tokens`].
    pub fn add_tokens(&self, doc_id: u64, tokens: &[Token]) -> Result<()> {
        self.budget
            .add_doc(&self.cache, doc_id, tokens, &self.settings.stopwords)
    }

    /// Records `doc_id` as deleted in `ctx`'s transaction.
    pub fn delete_document(&self, ctx: &mut TxnContext, doc_id: u64) -> Result<()> {
        self.common.add_deleted(ctx, doc_id)
    }

    /// Writes a frozen cache batch to the word tables and raises the synced
    /// doc id, in `ctx`'s transaction (the sync task's own). The caller
    /// commits, then reports the job finished to the budget; on an error it
    /// rolls back and may retry with the same batch.
    pub fn write_batch(&self, ctx: &mut TxnContext, batch: &SyncBatch) -> Result<()> {
        for (word, nodes) in batch.words() {
            for node in nodes {
                self.words.insert_node(ctx, word, node)?;
            }
        }
        let synced = self.synced_doc_id()?.max(batch.max_doc_id());
        self.common
            .set_config(ctx, &self.synced_doc_id_key(), &synced.to_string())
    }

    /// The cache limits in force.
    pub fn budget_policy(&self) -> crate::fts::sync::SyncPolicy {
        self.budget.policy()
    }

    /// Writes the whole cache to the word tables without undo, for a table
    /// no one else uses yet (an index build, see [`super::build`]).
    pub fn flush_cache_internal(&self) -> Result<()> {
        let Some(mut job) = self.budget.sync_job_for(&self.cache) else {
            return Err(crate::error::EngineError::Internal(
                "full-text cache is being synced during an index build".into(),
            ));
        };
        let written = job.take().and_then(|batch| {
            let mut ctx = TxnContext::internal();
            self.write_batch(&mut ctx, &batch)
        });
        self.budget.finished_sync(job)?;
        written
    }

    /// The nodes of the cache, in word order
    /// (`INFORMATION_SCHEMA.INNODB_FT_INDEX_CACHE`).
    pub fn cached_nodes(&self) -> Result<Vec<CachedNode>> {
        self.cache.read(|c| c.nodes())
    }

    /// The nodes of the word tables, `INDEX_1` first
    /// (`INFORMATION_SCHEMA.INNODB_FT_INDEX_TABLE`).
    pub fn stored_nodes(&self) -> Result<Vec<StoredNode>> {
        self.words.nodes_by_partition()
    }

    /// A reader of the index as it is now (see [`IndexSnapshot`]).
    pub fn snapshot(&self) -> Result<IndexSnapshot<'_>> {
        let deleted = self.common.deleted_doc_ids()?.into_iter().collect();
        Ok(IndexSnapshot {
            index: self,
            deleted,
        })
    }
}

/// A FULLTEXT index read for one query: the deleted ids as of its start,
/// postings merged from the word tables and the cache.
#[derive(Debug)]
pub struct IndexSnapshot<'a> {
    index: &'a FulltextIndex,
    deleted: BTreeSet<u64>,
}

impl IndexSnapshot<'_> {
    /// The postings of `word` (compared in the index collation), by
    /// increasing doc id, deleted documents included.
    pub fn postings(&self, word: &str) -> Result<Vec<DocEntry>> {
        let mut out = Vec::new();
        for node in self.index.words.nodes(word)? {
            out.extend(node.entries()?);
        }
        out.extend(self.index.cache.read(|c| c.postings(word))?);
        Ok(merge_by_doc_id(out))
    }

    /// The indexed words starting with `prefix`, in collation order, each
    /// with its postings by increasing doc id.
    pub fn prefix_postings(&self, prefix: &str) -> Result<Vec<(String, Vec<DocEntry>)>> {
        let collation = self.index.settings.collation;
        let mut words: Vec<(String, Vec<DocEntry>)> = Vec::new();
        for node in self.index.words.prefix_nodes(prefix)? {
            let entries = node.entries()?;
            match words.last_mut() {
                Some((w, e)) if collation.compare(w, &node.word).is_eq() => e.extend(entries),
                _ => words.push((node.word, entries)),
            }
        }
        for (word, entries) in self.index.cache.read(|c| c.prefix_postings(prefix))? {
            match words.binary_search_by(|(w, _)| collation.compare(w, &word)) {
                Ok(i) => words[i].1.extend(entries),
                Err(i) => words.insert(i, (word, entries)),
            }
        }
        Ok(words
            .into_iter()
            .map(|(w, e)| (w, merge_by_doc_id(e)))
            .collect())
    }

    /// True when `doc_id` was deleted (committed, or being committed) when
    /// the snapshot was taken.
    pub fn is_deleted(&self, doc_id: u64) -> bool {
        self.deleted.contains(&doc_id)
    }

    /// Number of deleted ids seen.
    pub fn deleted_count(&self) -> usize {
        self.deleted.len()
    }
}

/// Sorts entries by doc id and keeps one entry per document (a document in
/// both a frozen cache part and its sync's rows is the same document).
fn merge_by_doc_id(mut entries: Vec<DocEntry>) -> Vec<DocEntry> {
    entries.sort_by_key(|e| e.doc_id);
    entries.dedup_by_key(|e| e.doc_id);
    entries
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
