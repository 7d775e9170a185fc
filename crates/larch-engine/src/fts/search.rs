//! The full-text query evaluator: `MATCH ... AGAINST` as InnoDB evaluates it.
//!
//! Owns MariaDB's `fts_query` (`fts0que.cc`, `fts0ast.cc`), reading one
//! FULLTEXT index through [`IndexReader`] and returning every matching
//! document with its `fts_ranking_t.rank` ([`SearchResult`]).
//!
//! - The parsed query ([`super::query`]) is rebuilt into InnoDB's syntax tree
//!   ([`super::search_ast`]): a prefixed item is a list of an operator node
//!   and the item, a term of several words is a list, and each group wraps
//!   the list built so far in a new list (bison's `expr_lst sub_expr` rule).
//!   The tree is walked as `fts_ast_visit` does, by an explicit stack: at
//!   each list level unmarked items first (union, `~`, `<`, `>`), then the
//!   `+` items of the nested lists (intersection), then the `-` items
//!   (difference). A group is evaluated into its own set and merged into the
//!   parent with the group's operator (`fts_ast_visit_sub_exp`,
//!   `fts_merge_doc_ids`); groups nest at most 32 deep.
//! - Each word read counts its postings again into the word's document count
//!   (deleted documents included), so a word searched twice has twice the
//!   count; a document's frequency of a word is taken from the first read.
//!   A `word*` term reads every indexed word with that prefix (any prefix
//!   length) under the prefix's own statistics.
//! - Deleted documents ([`IndexReader::is_deleted`]) never enter a result.
//! - Ranks: each document starts at 0, moved by `>` (+1), `<` and `~` (−1),
//!   clamped to [−1, 1] after each step and summed with the parent's on
//!   `+`; at the end every word attached to the document adds
//!   `(float)(freq * idf * idf)` ([`super::ranking`]), in the order the
//!   query first attached the words to any document. A query of one plain
//!   term (no expansion) takes the shortcut `fts_query_prepare_result` does:
//!   the idf counts only non-deleted documents.
//! - Phrases and proximity searches ([`super::phrase`]): documents holding
//!   every search word, verified on the document text.
//! - Query expansion (`fts_expand_query`): the words of every document found
//!   (all of them, not a top few), minus the words already attached, are
//!   searched as extra union terms before ranking.
//!
//! Known differences from InnoDB, all outside the tests' MariaDB comparison:
//! - Words are read as InnoDB reads its index tables after a sync. While
//!   words are still in InnoDB's cache, a `word*` term visits the matching
//!   words in its red-black tree's order (backwards from where the prefix
//!   search stopped, then forwards), so a document holding two words with
//!   the prefix may take its frequency from the other word than here (the
//!   first in collation order); the cache also skips a `+` word's document
//!   count when its node is out of range, and searches a prefix term after a
//!   phrase in the index tables only. Non-prefix queries are unaffected.
//! - [`super::query`] drops empty groups (`()`, `(!!)`), which InnoDB keeps:
//!   there `x +(!!)` finds nothing and `x ()` is not a single-term query.
//! - Query expansion after a query whose last term is `word*` does not
//!   reproduce InnoDB's reuse of that term's wildcard state for the
//!   expansion words.
//!
//! The evaluator keeps no state between calls and never panics; errors are
//! the reader's, the parser's, MariaDB's error 191 for a phrase of more than
//! 128 search words and error 128 past 32 nested groups.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::ilist::DocEntry;
use super::phrase::{
    phrase_in_document, proximity_in_document, proximity_ranges, split_phrase, WordCmp,
    MAX_PHRASE_WORDS,
};
use super::query::{parse_boolean, parse_natural, Operator};
use super::ranking::{idf, single_term_rank, word_weight, RANK_DOWNGRADE, RANK_UPGRADE};
use super::search_ast::{walk, Ast, Kind};
use super::stopwords::StopwordSet;
use super::tokenizer::{tokenize_columns, TokenSizeLimits};
use crate::record::collation::Collation;
use crate::{EngineError, Result};

/// What a full-text search reads: one FULLTEXT index's words (cache and
/// index tables together) and its table.
pub trait IndexReader {
    /// The postings of `word` (compared in the index collation), by
    /// increasing doc id, deleted documents included.
    fn postings(&self, word: &str) -> Result<Vec<DocEntry>>;
    /// The indexed words starting with `prefix`, in collation order, each
    /// with its postings by increasing doc id.
    fn prefix_postings(&self, prefix: &str) -> Result<Vec<(String, Vec<DocEntry>)>>;
    /// True when the document is deleted (in the DELETED table or the
    /// cache's deleted set): searches skip it.
    fn is_deleted(&self, doc_id: u64) -> Result<bool>;
    /// The table's row count statistic (InnoDB's `dict_table_get_n_rows`),
    /// the N of the idf.
    fn total_docs(&self) -> u64;
    /// The indexed columns' values of a document (None for SQL NULL), in
    /// index column order, for phrase verification and query expansion;
    /// None when the row no longer exists.
    fn document(&self, doc_id: u64) -> Result<Option<Vec<Option<Vec<u8>>>>>;
}

/// `IN NATURAL LANGUAGE MODE` or `IN BOOLEAN MODE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    /// Natural-language mode (the default).
    NaturalLanguage,
    /// Boolean mode.
    Boolean,
}

/// The index and server settings a search depends on.
#[derive(Clone, Copy, Debug)]
pub struct SearchSettings<'a> {
    /// The index's collation (its first column's).
    pub collation: Collation,
    /// `innodb_ft_min_token_size` / `innodb_ft_max_token_size`.
    pub limits: TokenSizeLimits,
    /// The index's stopwords (phrase words are filtered by them).
    pub stopwords: &'a StopwordSet,
    /// `WITH QUERY EXPANSION` (the SQL layer allows it in natural-language
    /// mode only).
    pub query_expansion: bool,
}

/// The documents a search found, with their ranks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchResult {
    ranks: BTreeMap<u64, f32>,
}

impl SearchResult {
    /// Number of documents found.
    pub fn len(&self) -> usize {
        self.ranks.len()
    }

    /// True when nothing was found.
    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    /// The rank of a found document.
    pub fn rank(&self, doc_id: u64) -> Option<f32> {
        self.ranks.get(&doc_id).copied()
    }

    /// `MATCH()`'s value for any row: the rank, 0 when not found
    /// (`fts_retrieve_ranking`).
    pub fn relevance(&self, doc_id: u64) -> f32 {
        self.rank(doc_id).unwrap_or(0.0)
    }

    /// The documents by increasing doc id.
    pub fn by_doc_id(&self) -> impl Iterator<Item = (u64, f32)> + '_ {
        self.ranks.iter().map(|(&d, &r)| (d, r))
    }

    /// The documents in InnoDB's result order (`fts_query_sort_result_on_rank`):
    /// rank descending, ties by increasing doc id.
    pub fn by_rank(&self) -> Vec<(u64, f32)> {
        let mut v: Vec<(u64, f32)> = self.by_doc_id().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}

/// Evaluates `query` (bytes in the index's character set) against the index.
pub fn search(
    reader: &dyn IndexReader,
    query: &[u8],
    mode: SearchMode,
    settings: &SearchSettings,
) -> Result<SearchResult> {
    let parsed = match mode {
        SearchMode::Boolean => parse_boolean(query, settings.collation, settings.limits)?,
        SearchMode::NaturalLanguage => parse_natural(query, settings.collation, settings.limits)?,
    };
    if parsed.clauses.is_empty() {
        return Ok(SearchResult::default());
    }
    let mut ast = Ast::build(&parsed.clauses);
    let mut q = Query::new(reader, settings);
    q.opt_ranking = !settings.query_expansion && ast.is_single_term();
    walk(&mut ast, &mut q)?;
    if settings.query_expansion {
        q.expand()?;
    }
    q.result()
}

/// One document of the current set (`fts_ranking_t`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Ranking {
    rank: f32,
    /// Positions in the query's word vector; `None` once an intersection
    /// took them over.
    words: Option<BTreeSet<usize>>,
}

pub(crate) type DocSet = BTreeMap<u64, Ranking>;

/// Per-word statistics (`fts_word_freq_t`).
#[derive(Debug, Default)]
struct WordFreq {
    doc_count: u64,
    doc_freqs: BTreeMap<u64, u64>,
    idf: f64,
}

/// The state of one query (`fts_query_t`).
pub(crate) struct Query<'a> {
    reader: &'a dyn IndexReader,
    settings: &'a SearchSettings<'a>,
    cmp: WordCmp,
    deleted: HashMap<u64, bool>,
    pub(crate) doc_ids: DocSet,
    intersection: Option<DocSet>,
    pub(crate) oper: Operator,
    pub(crate) multi_exist: bool,
    pub(crate) visiting_sub_exp: usize,
    opt_ranking: bool,
    word_freqs: BTreeMap<Vec<u8>, WordFreq>,
    word_map: HashMap<Vec<u8>, usize>,
    word_vector: Vec<String>,
    wildcard_words: Vec<Vec<u8>>,
    lower_doc_id: u64,
    upper_doc_id: u64,
}

/// Which document set a posting list feeds.
enum Sink<'s> {
    /// The current operator's set operation.
    Process,
    /// Phrase matching collects documents and positions.
    Collect(&'s mut Vec<DocEntry>),
}

impl<'a> Query<'a> {
    fn new(reader: &'a dyn IndexReader, settings: &'a SearchSettings<'a>) -> Self {
        Query {
            reader,
            settings,
            cmp: WordCmp::new(settings.collation),
            deleted: HashMap::new(),
            doc_ids: DocSet::new(),
            intersection: None,
            oper: Operator::None,
            multi_exist: false,
            visiting_sub_exp: 0,
            opt_ranking: false,
            word_freqs: BTreeMap::new(),
            word_map: HashMap::new(),
            word_vector: Vec::new(),
            wildcard_words: Vec::new(),
            lower_doc_id: 0,
            upper_doc_id: 0,
        }
    }

    fn is_deleted(&mut self, doc_id: u64) -> Result<bool> {
        if let Some(&d) = self.deleted.get(&doc_id) {
            return Ok(d);
        }
        let d = self.reader.is_deleted(doc_id)?;
        self.deleted.insert(doc_id, d);
        Ok(d)
    }

    fn add_word_freq(&mut self, word: &str) -> Vec<u8> {
        let key = self.cmp.key(word);
        self.word_freqs.entry(key.clone()).or_default();
        key
    }

    // ---- document set operations (fts_query_process_doc_id) ----

    fn process_doc_id(&mut self, doc_id: u64, rank: f32) -> Result<()> {
        if self.opt_ranking || self.is_deleted(doc_id)? {
            return Ok(());
        }
        match self.oper {
            Operator::None => self.union_doc_id(doc_id, rank),
            Operator::Exist => self.intersect_doc_id(doc_id, rank),
            Operator::Ignore => {
                self.doc_ids.remove(&doc_id);
            }
            Operator::Negate => self.change_ranking(doc_id, RANK_DOWNGRADE),
            Operator::DecrRating => {
                self.union_doc_id(doc_id, rank);
                self.change_ranking(doc_id, RANK_DOWNGRADE);
            }
            Operator::IncrRating => {
                self.union_doc_id(doc_id, rank);
                self.change_ranking(doc_id, RANK_UPGRADE);
            }
        }
        Ok(())
    }

    fn union_doc_id(&mut self, doc_id: u64, rank: f32) {
        self.doc_ids.entry(doc_id).or_insert_with(|| Ranking {
            rank,
            words: Some(BTreeSet::new()),
        });
    }

    fn change_ranking(&mut self, doc_id: u64, step: f32) {
        if let Some(r) = self.doc_ids.get_mut(&doc_id) {
            r.rank = clamp(r.rank + step);
        }
    }

    fn intersect_doc_id(&mut self, doc_id: u64, mut rank: f32) {
        let from_current = match self.doc_ids.get(&doc_id) {
            None if self.multi_exist => return,
            None => false,
            Some(r) if r.words.is_none() => return,
            Some(r) => {
                rank = clamp(rank + r.rank);
                true
            }
        };
        let Some(inter) = self.intersection.as_mut() else {
            return;
        };
        if inter.contains_key(&doc_id) {
            return;
        }
        let words = if from_current {
            self.doc_ids.get_mut(&doc_id).and_then(|r| r.words.take())
        } else {
            None
        };
        inter.insert(
            doc_id,
            Ranking {
                rank,
                words: Some(words.unwrap_or_default()),
            },
        );
    }

    fn word_pos(&mut self, word: &str) -> usize {
        let key = self.cmp.key(word);
        if let Some(&p) = self.word_map.get(&key) {
            return p;
        }
        let p = self.word_vector.len();
        self.word_map.insert(key, p);
        self.word_vector.push(word.to_owned());
        p
    }

    fn add_word_to_document(&mut self, doc_id: u64, word: &str) {
        if self.opt_ranking {
            return;
        }
        let in_inter = self
            .intersection
            .as_ref()
            .is_some_and(|i| i.contains_key(&doc_id));
        if !in_inter && !self.doc_ids.contains_key(&doc_id) {
            return;
        }
        let pos = self.word_pos(word);
        self.add_word_pos(doc_id, pos);
    }

    fn add_word_pos(&mut self, doc_id: u64, pos: usize) {
        let set = match self.intersection.as_mut().and_then(|i| i.get_mut(&doc_id)) {
            Some(r) => r,
            None => match self.doc_ids.get_mut(&doc_id) {
                Some(r) => r,
                None => return,
            },
        };
        if let Some(w) = set.words.as_mut() {
            w.insert(pos);
        }
    }

    // ---- reading words (fts_query_filter_doc_ids) ----

    /// True when InnoDB skips the word's index node for a `+` search: its
    /// doc ids lie wholly outside the range of the set before the last `+`
    /// term (one node per word, as after a sync of a small index).
    fn node_skipped(&self, postings: &[DocEntry]) -> bool {
        let (Some(first), Some(last)) = (postings.first(), postings.last()) else {
            return true;
        };
        self.oper == Operator::Exist
            && ((self.upper_doc_id > 0 && first.doc_id > self.upper_doc_id)
                || (self.lower_doc_id > 0 && last.doc_id < self.lower_doc_id))
    }

    fn filter(
        &mut self,
        key: &[u8],
        word: &str,
        postings: &[DocEntry],
        sink: &mut Sink,
    ) -> Result<()> {
        if self.node_skipped(postings) {
            // The index row's DOC_COUNT is read before the range check
            // (`fts_query_read_node`).
            if let Some(wf) = self.word_freqs.get_mut(key) {
                wf.doc_count += postings.len() as u64;
            }
            return Ok(());
        }
        for e in postings {
            if let Some(wf) = self.word_freqs.get_mut(key) {
                wf.doc_count += 1;
                let f = wf.doc_freqs.entry(e.doc_id).or_insert(0);
                if *f == 0 {
                    *f = e.positions.len() as u64;
                }
            }
            match sink {
                Sink::Collect(out) => out.push(e.clone()),
                Sink::Process => {
                    self.process_doc_id(e.doc_id, 0.0)?;
                    self.add_word_to_document(e.doc_id, word);
                }
            }
        }
        Ok(())
    }

    /// Reads a term (all words with the prefix for `word*`) into the
    /// current operation under the term's statistics.
    fn read_term(&mut self, word: &str, wildcard: bool) -> Result<()> {
        let key = self.cmp.key(word);
        if wildcard {
            for (_, postings) in self.reader.prefix_postings(word)? {
                self.filter(&key, word, &postings, &mut Sink::Process)?;
            }
        } else {
            let postings = self.reader.postings(word)?;
            self.filter(&key, word, &postings, &mut Sink::Process)?;
        }
        Ok(())
    }

    /// `fts_query_visitor` for a term.
    pub(crate) fn visit_term(&mut self, word: &str, wildcard: bool) -> Result<()> {
        if wildcard && self.settings.query_expansion {
            let key = self.cmp.key(word);
            if !self.wildcard_words.contains(&key) {
                self.wildcard_words.push(key);
            }
        }
        self.add_word_freq(word);
        match self.oper {
            Operator::Exist => {
                if self.doc_ids.is_empty() && self.multi_exist {
                    return Ok(());
                }
                self.intersection = Some(DocSet::new());
                if !self.doc_ids.is_empty() && self.multi_exist {
                    self.lower_doc_id = self.doc_ids.keys().next().copied().unwrap_or(0);
                    self.upper_doc_id = self.doc_ids.keys().next_back().copied().unwrap_or(0);
                } else {
                    self.lower_doc_id = 0;
                    self.upper_doc_id = 0;
                }
                self.read_term(word, wildcard)?;
                self.doc_ids = self.intersection.take().unwrap_or_default();
            }
            Operator::Ignore => {
                if !self.doc_ids.is_empty() {
                    self.read_term(word, wildcard)?;
                }
            }
            _ => self.read_term(word, wildcard)?,
        }
        Ok(())
    }

    /// `fts_query_visitor` for a phrase (`fts_query_phrase_search`).
    pub(crate) fn visit_phrase(&mut self, text: &str, distance: Option<u64>) -> Result<()> {
        if self.oper == Operator::Exist {
            self.intersection = Some(DocSet::new());
        }
        self.phrase_search(text, distance)?;
        if self.oper == Operator::Exist {
            self.doc_ids = self.intersection.take().unwrap_or_default();
        }
        Ok(())
    }

    fn phrase_search(&mut self, text: &str, distance: Option<u64>) -> Result<()> {
        let proximity = distance.is_some_and(|d| d > 0);
        let words = split_phrase(text, self.settings.limits, self.settings.stopwords);
        if words.search.len() > MAX_PHRASE_WORDS {
            return Err(EngineError::Schema {
                errno: 191,
                message: "Too many words in a FTS phrase or proximity search".to_owned(),
            });
        }
        let mut lists: Vec<Vec<DocEntry>> = Vec::with_capacity(words.search.len());
        for w in &words.search {
            let key = self.add_word_freq(w);
            let postings = self.reader.postings(w)?;
            let mut matched = Vec::new();
            self.filter(&key, w, &postings, &mut Sink::Collect(&mut matched))?;
            if matched.is_empty() {
                return Ok(());
            }
            lists.push(matched);
        }
        let Some(first) = lists.first() else {
            return Ok(());
        };
        if words.verify.len() == 1 {
            let last = words.search.last().cloned().unwrap_or_default();
            for doc_id in first.iter().map(|e| e.doc_id).collect::<Vec<_>>() {
                self.process_doc_id(doc_id, 0.0)?;
                self.add_word_to_document(doc_id, &last);
            }
            return Ok(());
        }
        for (i, m0) in first.iter().enumerate() {
            let mut per_word: Vec<&[u64]> = vec![&m0.positions];
            for list in &lists[1..] {
                match list.binary_search_by_key(&m0.doc_id, |e| e.doc_id) {
                    Ok(j) => per_word.push(&list[j].positions),
                    Err(_) => break,
                }
            }
            if per_word.len() != lists.len() {
                continue;
            }
            let found = if proximity {
                let ranges = proximity_ranges(&per_word);
                !ranges.is_empty()
                    && match self.reader.document(m0.doc_id)? {
                        Some(cols) => proximity_in_document(
                            self.settings.collation,
                            &cols,
                            &ranges,
                            distance.unwrap_or(0),
                        ),
                        None => false,
                    }
            } else {
                match self.reader.document(m0.doc_id)? {
                    Some(cols) => phrase_in_document(
                        &self.cmp,
                        &cols,
                        &lists[0][i].positions,
                        &words.verify,
                        distance,
                    ),
                    None => false,
                }
            };
            if found {
                self.process_doc_id(m0.doc_id, 0.0)?;
                for w in &words.search {
                    self.add_word_to_document(m0.doc_id, w);
                }
            }
        }
        Ok(())
    }

    /// Entering a group (`fts_ast_visit_sub_exp`): the parent's set and
    /// state, to be restored by [`Query::leave_group`].
    pub(crate) fn enter_group(&mut self) -> Result<(Operator, DocSet, bool)> {
        self.visiting_sub_exp += 1;
        if self.visiting_sub_exp > 32 {
            return Err(EngineError::Schema {
                errno: 128,
                message: "Table handler out of memory".to_owned(),
            });
        }
        let saved = (
            self.oper,
            std::mem::take(&mut self.doc_ids),
            self.multi_exist,
        );
        self.multi_exist = false;
        Ok(saved)
    }

    /// Leaving a group: merges its set into the parent's with the group's
    /// operator (`fts_merge_doc_ids`).
    pub(crate) fn leave_group(&mut self, saved: (Operator, DocSet, bool)) -> Result<()> {
        let (oper, parent, multi_exist) = saved;
        self.multi_exist = multi_exist;
        self.oper = oper;
        self.visiting_sub_exp = self.visiting_sub_exp.saturating_sub(1);
        let sub = std::mem::replace(&mut self.doc_ids, parent);
        if self.oper == Operator::Exist {
            self.intersection = Some(DocSet::new());
        }
        for (doc_id, r) in sub {
            self.process_doc_id(doc_id, r.rank)?;
            for pos in r.words.unwrap_or_default() {
                self.add_word_pos(doc_id, pos);
            }
        }
        if self.oper == Operator::Exist {
            if let Some(inter) = self.intersection.take() {
                self.doc_ids = inter;
            }
        }
        Ok(())
    }

    /// `fts_expand_query`: a second pass with the found documents' words.
    fn expand(&mut self) -> Result<()> {
        if self.doc_ids.is_empty() {
            return Ok(());
        }
        let mut tokens: BTreeMap<Vec<u8>, String> = BTreeMap::new();
        let doc_ids: Vec<u64> = self.doc_ids.keys().copied().collect();
        for doc_id in doc_ids {
            let Some(cols) = self.reader.document(doc_id)? else {
                continue;
            };
            let refs: Vec<Option<&[u8]>> = cols.iter().map(|c| c.as_deref()).collect();
            for t in tokenize_columns(&refs, self.settings.collation, self.settings.limits) {
                tokens.entry(self.cmp.key(&t.text)).or_insert(t.text);
            }
        }
        for word in &self.word_vector {
            let key = self.cmp.key(word);
            if self.wildcard_words.contains(&key) {
                tokens.retain(|k, _| !k.starts_with(&key));
            } else {
                tokens.remove(&key);
            }
        }
        if matches!(self.oper, Operator::Exist | Operator::Ignore) {
            self.oper = Operator::None;
        }
        for word in tokens.into_values() {
            self.add_word_freq(&word);
            self.read_term(&word, false)?;
        }
        Ok(())
    }

    /// `fts_query_calculate_idf` and `fts_query_prepare_result`.
    fn result(mut self) -> Result<SearchResult> {
        let total = self.reader.total_docs();
        let mut ranks = BTreeMap::new();
        if self.opt_ranking {
            let Some(wf) = self.word_freqs.values().next() else {
                return Ok(SearchResult::default());
            };
            let doc_freqs: Vec<(u64, u64)> = wf.doc_freqs.iter().map(|(&d, &f)| (d, f)).collect();
            let mut doc_count = wf.doc_count;
            let mut kept = Vec::new();
            for (doc_id, freq) in doc_freqs {
                if self.is_deleted(doc_id)? {
                    doc_count = doc_count.saturating_sub(1);
                } else {
                    kept.push((doc_id, freq));
                }
            }
            let word_idf = idf(total, doc_count);
            for (doc_id, freq) in kept {
                ranks.insert(doc_id, single_term_rank(freq, word_idf));
            }
            return Ok(SearchResult { ranks });
        }
        for wf in self.word_freqs.values_mut() {
            wf.idf = idf(total, wf.doc_count);
        }
        for (&doc_id, r) in &self.doc_ids {
            let mut rank = r.rank;
            for &pos in r.words.iter().flatten() {
                let Some(word) = self.word_vector.get(pos) else {
                    continue;
                };
                if let Some(wf) = self.word_freqs.get(&self.cmp.key(word)) {
                    let freq = wf.doc_freqs.get(&doc_id).copied().unwrap_or(0);
                    rank += word_weight(freq, wf.idf);
                }
            }
            ranks.insert(doc_id, rank);
        }
        Ok(SearchResult { ranks })
    }
}

/// `fts_query_change_ranking`'s bounds (ranks are never NaN).
fn clamp(r: f32) -> f32 {
    r.clamp(-1.0, 1.0)
}

/// Kinds of tree leaves the walker hands to the query.
pub(crate) fn visit_leaf(q: &mut Query, kind: &Kind) -> Result<()> {
    match kind {
        Kind::Term { word, wildcard } => q.visit_term(word, *wildcard),
        Kind::Text { text, distance } => q.visit_phrase(text, *distance),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
