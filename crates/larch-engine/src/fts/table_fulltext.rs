//! A table's FULLTEXT indexes, kept up to date by its transactions' commits.
//!
//! Owns [`TableFulltext`]: for one user table, its auxiliary tables
//! ([`CommonTables`], the [`DocMap`], each index's [`WordTables`]), one
//! [`FulltextIndex`] per FULLTEXT index, and the table's commit step. It is
//! the table's [`CommitParticipant`]: the table records which rows a
//! transaction inserted, deleted, or updated in an indexed column, and at
//! commit ([`TableFulltext::before_commit`]), under the table's *commit
//! gate*:
//!
//! 1. each changed row's old document (found in the doc map as the row was
//!    before the transaction: only a committer holding the row's lock
//!    changes its entry) goes to `DELETED` and leaves the map;
//! 2. each changed row that still exists gets a new doc id, the next in
//!    commit order, and a map entry; its indexed columns are read (the
//!    transaction's own version, under its row lock) and tokenized;
//! 3. after the commit record, the documents are added to the index caches
//!    and the gate opens ([`AfterCommit`]).
//!
//! Holding the gate from the doc id to the cache makes each cache a prefix
//! of the committed documents: whenever a document is in a cache or the
//! word tables, so is every committed document with a smaller id. A sync
//! writing a batch up to id N therefore makes every committed document up to
//! N durable in the word tables, and [`TableFulltext::open`] re-reads just
//! the committed documents above each index's synced doc id (InnoDB's
//! restart scan of `FTS_DOC_ID > synced_doc_id`, without its gap). The gate
//! is held only for in-memory work and the transaction's last writes: the
//! redo flush of the commit happens after.
//!
//! A search sees committed documents only: a transaction's own changes
//! reach the index when it commits, as in InnoDB.
//!
//! Auxiliary roots ([`crate::table::TableRoots::auxiliary`]), in order:
//! `CONFIG`, `DELETED`, `BEING_DELETED`, the doc map's two trees, then six
//! per FULLTEXT index in definition order.

use std::sync::{Arc, Weak};

use parking_lot::{Condvar, Mutex};

use crate::error::{EngineError, Result};
use crate::fts::auxiliary::{
    CommonRoots, CommonTables, WordTableRoots, WordTables, AUX_INDEX_BASE, INDEX_PARTITIONS,
};
use crate::fts::doc_map::DocMap;
use crate::fts::index::{FulltextIndex, FulltextParser, TokenizeSettings};
use crate::fts::ngram::NgramParser;
use crate::fts::service::FulltextService;
use crate::fts::stopwords::StopwordSet;
use crate::fts::tokenizer::{Token, TokenSizeLimits};
use crate::record::collation::{Charset, Collation};
use crate::record::value::Value;
use crate::table::{
    AfterCommit, CommitParticipant, FulltextParserDef, ReadContext, RowChange, RowRef, Table,
    TxnContext,
};
use crate::txn::{IsolationLevel, TrxOptions};

/// Number of auxiliary roots before the word tables' (see the module doc).
const COMMON_ROOTS: usize = 5;

/// Start-up settings of full-text search (`innodb_ft_*`).
#[derive(Debug, Clone)]
pub struct FulltextSettings {
    /// `innodb_ft_min_token_size` / `innodb_ft_max_token_size`.
    pub limits: TokenSizeLimits,
    /// The stopwords of indexes created with stopwords on.
    pub stopwords: Arc<StopwordSet>,
}

impl Default for FulltextSettings {
    fn default() -> Self {
        FulltextSettings {
            limits: TokenSizeLimits::default(),
            stopwords: Arc::new(StopwordSet::default_list()),
        }
    }
}

/// The commit gate (see the module doc): a lock whose guard can outlive
/// the call that took it.
#[derive(Debug, Default)]
struct Gate {
    next_doc_id: Mutex<Option<u64>>,
    /// Committed documents (once counted; kept by commits under the gate).
    doc_count: Mutex<Option<u64>>,
    free: Condvar,
    held: Mutex<bool>,
}

struct GateGuard(Arc<Gate>);

impl Gate {
    fn enter(self: &Arc<Self>) -> GateGuard {
        let mut held = self.held.lock();
        while *held {
            self.free.wait(&mut held);
        }
        *held = true;
        GateGuard(self.clone())
    }
}

impl Drop for GateGuard {
    fn drop(&mut self) {
        *self.0.held.lock() = false;
        self.0.free.notify_one();
    }
}

/// A table's FULLTEXT indexes (see the module doc).
#[derive(Debug)]
pub struct TableFulltext {
    /// The open table (replaced when the catalog reopens it).
    table: Mutex<Weak<Table>>,
    identity: (u32, u32),
    /// Column numbers of every FULLTEXT index, deduplicated.
    watched: Vec<usize>,
    common: CommonTables,
    docs: DocMap,
    indexes: Vec<Arc<FulltextIndex>>,
    gate: Arc<Gate>,
}

impl std::fmt::Debug for GateGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GateGuard")
    }
}

fn tokenize_settings(
    table: &Table,
    i: usize,
    settings: &FulltextSettings,
) -> Result<TokenizeSettings> {
    let def = table.def();
    let ft = &def.fulltext[i];
    let collation = def.fulltext_collation(ft).ok_or_else(|| {
        EngineError::Internal(format!("FULLTEXT index '{}' has no text column", ft.name))
    })?;
    let parser = match ft.parser {
        FulltextParserDef::Builtin => FulltextParser::Builtin,
        FulltextParserDef::Ngram { token_size } => {
            FulltextParser::Ngram(NgramParser::new(usize::from(token_size))?)
        }
    };
    let stopwords = match (&ft.stopword_table, ft.use_stopwords) {
        (_, false) => Arc::new(StopwordSet::disabled()),
        (None, true) => settings.stopwords.clone(),
        (Some(t), true) => Arc::new(StopwordSet::from_words(
            t.words.iter().map(String::as_str),
            t.collation,
        )),
    };
    Ok(TokenizeSettings {
        collation,
        limits: settings.limits,
        stopwords,
        parser,
    })
}

impl TableFulltext {
    /// Creates the auxiliary tables of `table`'s FULLTEXT indexes in its
    /// tablespace, and installs the result as the table's participant.
    /// Returns it with the auxiliary roots to store.
    pub fn create(
        table: &Arc<Table>,
        service: &Arc<FulltextService>,
    ) -> Result<(Arc<TableFulltext>, Vec<u32>)> {
        let storage = table.storage();
        let services = table.services();
        let space = table.roots().space;
        let common = CommonTables::create(storage, services, space)?;
        let docs = DocMap::create(storage, services, space, AUX_INDEX_BASE + 3)?;
        let mut words = Vec::new();
        for (i, ft) in table.def().fulltext.iter().enumerate() {
            let collation = table.def().fulltext_collation(ft).ok_or_else(|| {
                EngineError::Internal(format!("FULLTEXT index '{}' has no text column", ft.name))
            })?;
            words.push(WordTables::create(storage, services, space, i, collation)?);
        }
        let tf = Self::assemble(table, common, docs, words, service)?;
        let roots = tf.auxiliary_roots();
        Ok((tf, roots))
    }

    /// Opens the auxiliary tables at `roots`, installs the result as the
    /// table's participant, and re-reads into the caches the committed
    /// documents no sync wrote (see the module doc).
    pub fn open(
        table: &Arc<Table>,
        roots: &[u32],
        service: &Arc<FulltextService>,
    ) -> Result<Arc<TableFulltext>> {
        let n = table.def().fulltext.len();
        if roots.len() != COMMON_ROOTS + n * INDEX_PARTITIONS {
            return Err(EngineError::Internal(format!(
                "table '{}' has {n} FULLTEXT indexes but {} auxiliary roots",
                table.def().name,
                roots.len()
            )));
        }
        let storage = table.storage();
        let services = table.services();
        let space = table.roots().space;
        let common_roots = CommonRoots {
            config: roots[0],
            deleted: roots[1],
            being_deleted: roots[2],
        };
        let common = CommonTables::open(storage, services, space, &common_roots)?;
        let docs = DocMap::open(storage, services, space, [roots[3], roots[4]])?;
        let mut words = Vec::new();
        for (i, ft) in table.def().fulltext.iter().enumerate() {
            let collation = table.def().fulltext_collation(ft).ok_or_else(|| {
                EngineError::Internal(format!("FULLTEXT index '{}' has no text column", ft.name))
            })?;
            let mut r = [0u32; INDEX_PARTITIONS];
            r.copy_from_slice(&roots[COMMON_ROOTS + i * INDEX_PARTITIONS..][..INDEX_PARTITIONS]);
            words.push(WordTables::open(
                storage,
                services,
                space,
                &WordTableRoots(r),
                collation,
            )?);
        }
        let tf = Self::assemble(table, common, docs, words, service)?;
        tf.reload_unsynced()?;
        Ok(tf)
    }

    fn assemble(
        table: &Arc<Table>,
        common: CommonTables,
        docs: DocMap,
        words: Vec<WordTables>,
        service: &Arc<FulltextService>,
    ) -> Result<Arc<TableFulltext>> {
        let mut indexes = Vec::with_capacity(words.len());
        for (i, w) in words.into_iter().enumerate() {
            let ts = tokenize_settings(table, i, service.settings())?;
            let index = Arc::new(FulltextIndex::new(
                i,
                ts,
                w,
                common.clone(),
                service.budget().clone(),
            ));
            service.register(&index);
            indexes.push(index);
        }
        let mut watched: Vec<usize> = table
            .def()
            .fulltext
            .iter()
            .flat_map(|ft| ft.columns.iter().copied())
            .collect();
        watched.sort_unstable();
        watched.dedup();
        let tf = Arc::new(TableFulltext {
            table: Mutex::new(Arc::downgrade(table)),
            identity: table.undo_identity(),
            watched,
            common,
            docs,
            indexes,
            gate: Arc::default(),
        });
        let participant: Arc<dyn CommitParticipant> = tf.clone();
        if !table.set_participant(participant) {
            return Err(EngineError::Internal(format!(
                "table '{}' already has its FULLTEXT indexes open",
                table.def().name
            )));
        }
        Ok(tf)
    }

    /// The auxiliary roots, in the order [`TableFulltext::open`] takes.
    pub fn auxiliary_roots(&self) -> Vec<u32> {
        let c = self.common.roots();
        let mut out = vec![c.config, c.deleted, c.being_deleted];
        out.extend(self.docs.roots());
        for ix in &self.indexes {
            out.extend(ix.word_tables().roots().0);
        }
        out
    }

    /// Every auxiliary table (for lookups by undo identity and checks).
    pub fn auxiliary_tables(&self) -> Vec<&Arc<Table>> {
        let mut out: Vec<&Arc<Table>> = self.common.tables().into_iter().collect();
        out.push(self.docs.table());
        for ix in &self.indexes {
            out.extend(ix.word_tables().tables());
        }
        out
    }

    /// The FULLTEXT indexes, in definition order.
    pub fn indexes(&self) -> &[Arc<FulltextIndex>] {
        &self.indexes
    }

    /// The doc id map.
    pub fn doc_map(&self) -> &DocMap {
        &self.docs
    }

    /// The table-wide auxiliary tables.
    pub fn common_tables(&self) -> &CommonTables {
        &self.common
    }

    /// The number of committed documents (the table's committed rows):
    /// counted in the doc map once, then kept by every commit.
    pub fn doc_count(&self) -> Result<u64> {
        if let Some(n) = *self.gate.doc_count.lock() {
            return Ok(n);
        }
        let _gate = self.gate.enter();
        let n = self.docs.count(&ReadContext::NEWEST)?;
        *self.gate.doc_count.lock() = Some(n);
        Ok(n)
    }

    /// Holds the commit gate: no commit of the table changes its documents
    /// until the guard drops.
    pub(super) fn hold_gate(&self) -> impl Drop + '_ {
        self.gate.enter()
    }

    /// Adds `n` documents to the committed count, if counted.
    pub(super) fn count_documents(&self, n: u64) {
        if let Some(c) = self.gate.doc_count.lock().as_mut() {
            *c += n;
        }
    }

    /// Verifies that the doc id map and the table agree (one document per
    /// row, every document's row present) and that every word table node
    /// decodes and matches its bounds; returns the problems found. Run on a
    /// quiet table (`CHECK TABLE`, `larch check`).
    pub fn check(&self) -> Result<Vec<String>> {
        let table = self.table()?;
        let name = table.def().name.clone();
        let mut problems = Vec::new();
        let read = ReadContext::NEWEST;
        let docs = self.docs.docs_above(&read, 0)?;
        let mut rows_with_docs = std::collections::BTreeSet::new();
        for (doc_id, at) in &docs {
            if table.get(&read, at)?.is_none() {
                problems.push(format!(
                    "table '{name}' full-text document {doc_id} names a row that does not exist"
                ));
            } else if !rows_with_docs.insert(at.clone()) {
                problems.push(format!(
                    "table '{name}' full-text: a row has more than one document ({doc_id})"
                ));
            }
        }
        let rows = table.check()?.rows;
        if rows != rows_with_docs.len() as u64 {
            problems.push(format!(
                "table '{name}' has {rows} rows but {} full-text documents",
                rows_with_docs.len()
            ));
        }
        for (ix, def) in self.indexes.iter().zip(&table.def().fulltext) {
            for node in ix.word_tables().all_nodes()? {
                if let Err(e) = node.entries() {
                    problems.push(format!("table '{name}' FULLTEXT '{}': {e}", def.name));
                }
            }
        }
        Ok(problems)
    }

    /// The open table.
    pub(crate) fn open_table(&self) -> Result<Arc<Table>> {
        self.table()
    }

    fn table(&self) -> Result<Arc<Table>> {
        self.table
            .lock()
            .upgrade()
            .ok_or_else(|| EngineError::Internal("full-text: the table is closed".into()))
    }

    /// Moves these indexes (and their caches) to `table`, a new open form
    /// of the same table (the catalog reopened it with other secondary
    /// indexes).
    pub fn rebind(self: &Arc<Self>, table: &Arc<Table>) -> Result<()> {
        if table.undo_identity() != self.identity {
            return Err(EngineError::Internal(format!(
                "full-text indexes of table {:?} cannot move to table '{}'",
                self.identity,
                table.def().name
            )));
        }
        let participant: Arc<dyn CommitParticipant> = self.clone();
        if !table.set_participant(participant) {
            return Err(EngineError::Internal(format!(
                "table '{}' already has its FULLTEXT indexes open",
                table.def().name
            )));
        }
        *self.table.lock() = Arc::downgrade(table);
        Ok(())
    }

    /// The bytes of `row`'s indexed columns for index `i`, in the columns'
    /// character set (`None` for NULL).
    pub(crate) fn document(table: &Table, i: usize, row: &[Value]) -> Vec<Option<Vec<u8>>> {
        let def = table.def();
        def.fulltext[i]
            .columns
            .iter()
            .map(|&c| {
                let charset = def.columns[c].ty.collation().map(Collation::charset);
                match row.get(c) {
                    Some(Value::Str(s)) => Some(text_bytes(s, charset)),
                    Some(Value::Bytes(b)) => Some(b.clone()),
                    _ => None,
                }
            })
            .collect()
    }

    /// The tokens of `row` for every index.
    pub(super) fn tokens(&self, table: &Table, row: &[Value]) -> Vec<Vec<Token>> {
        self.indexes
            .iter()
            .enumerate()
            .map(|(i, ix)| {
                let doc = Self::document(table, i, row);
                let cols: Vec<Option<&[u8]>> = doc.iter().map(|c| c.as_deref()).collect();
                ix.settings().tokens(&cols)
            })
            .collect()
    }

    /// The next doc id (under the gate): above every id the map, `DELETED`
    /// and the synced ids have seen.
    pub(super) fn next_doc_id(&self) -> Result<u64> {
        let mut next = self.gate.next_doc_id.lock();
        let id = match *next {
            Some(n) => n,
            None => {
                let mut top = self.docs.max_doc_id()?;
                if let Some(&d) = self.common.deleted_doc_ids()?.last() {
                    top = top.max(d);
                }
                for ix in &self.indexes {
                    top = top.max(ix.synced_doc_id()?);
                }
                top + 1
            }
        };
        *next = Some(id + 1);
        Ok(id)
    }

    /// Re-reads the committed documents above each index's synced doc id
    /// into its cache (after a restart).
    fn reload_unsynced(&self) -> Result<()> {
        let table = self.table()?;
        let Some(services) = table.services() else {
            return Ok(());
        };
        let synced: Vec<u64> = self
            .indexes
            .iter()
            .map(|ix| ix.synced_doc_id())
            .collect::<Result<_>>()?;
        let Some(&lowest) = synced.iter().min() else {
            return Ok(());
        };
        let mut session = services.system.register_session()?;
        let mut trx = session.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
        let read = ReadContext {
            view: trx.read_view(),
        };
        let _gate = self.gate.enter();
        let mut reloaded = 0usize;
        for (doc_id, at) in self.docs.docs_above(&read, lowest)? {
            let Some(row) = table.get(&read, &at)? else {
                continue;
            };
            for (i, tokens) in self.tokens(&table, &row).into_iter().enumerate() {
                if doc_id > synced[i] {
                    self.indexes[i].add_tokens(doc_id, &tokens)?;
                }
            }
            reloaded += 1;
        }
        trx.commit()?;
        if reloaded > 0 {
            tracing::info!(
                table = %table.def().name,
                documents = reloaded,
                "full-text: documents committed after the last sync re-read into the cache"
            );
        }
        Ok(())
    }
}

/// A string value's bytes in its column's character set (latin1 columns
/// hold Rust strings whose characters are all latin1).
fn text_bytes(s: &str, charset: Option<Charset>) -> Vec<u8> {
    match charset {
        Some(Charset::Latin1) => s
            .chars()
            .map(|c| crate::record::collation::latin1_from_char(c).unwrap_or(b'?'))
            .collect(),
        _ => s.as_bytes().to_vec(),
    }
}

/// Step 2 of a commit: the new documents into the caches, then the gate
/// opens.
struct CacheAdds {
    indexes: Vec<Arc<FulltextIndex>>,
    adds: Vec<(u64, Vec<Vec<Token>>)>,
    /// Documents the commit replaced or removed.
    removed: u64,
    gate: GateGuard,
}

impl AfterCommit for CacheAdds {
    fn after_commit(self: Box<Self>) -> Result<()> {
        if let Some(n) = self.gate.0.doc_count.lock().as_mut() {
            *n = (*n + self.adds.len() as u64).saturating_sub(self.removed);
        }
        for (doc_id, per_index) in &self.adds {
            for (ix, tokens) in self.indexes.iter().zip(per_index) {
                ix.add_tokens(*doc_id, tokens)?;
            }
        }
        Ok(())
    }
}

impl CommitParticipant for TableFulltext {
    fn order(&self) -> (u32, u32) {
        self.identity
    }

    fn watched_columns(&self) -> &[usize] {
        &self.watched
    }

    fn before_commit(
        &self,
        ctx: &mut TxnContext,
        changes: Vec<RowChange>,
    ) -> Result<Box<dyn AfterCommit>> {
        let table = self.table()?;
        let gate = self.gate.enter();
        let mut rows: Vec<RowRef> = Vec::new();
        for c in changes {
            for r in [c.before, c.after].into_iter().flatten() {
                if !rows.contains(&r) {
                    rows.push(r);
                }
            }
        }
        let mut adds = Vec::new();
        let mut removed = 0;
        for at in &rows {
            if let Some(old) = self.docs.doc_of_row(&ReadContext::NEWEST, at)? {
                self.common.add_deleted(ctx, old)?;
                self.docs.delete(ctx, old)?;
                removed += 1;
            }
            let Some(row) = table.get(&ReadContext::NEWEST, at)? else {
                continue;
            };
            let doc_id = self.next_doc_id()?;
            self.docs.insert(ctx, doc_id, at)?;
            adds.push((doc_id, self.tokens(&table, &row)));
        }
        Ok(Box::new(CacheAdds {
            indexes: self.indexes.clone(),
            adds,
            removed,
            gate,
        }))
    }
}

#[cfg(test)]
#[path = "table_fulltext_tests.rs"]
pub(crate) mod tests;
