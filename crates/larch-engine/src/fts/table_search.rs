//! `MATCH ... AGAINST` over a table's FULLTEXT index: the search, and the
//! rows it found, as one snapshot sees them.
//!
//! Owns [`FulltextMatches`] and the [`IndexReader`] a table's index gives the
//! evaluator ([`super::search`]): postings from the word tables and the cache
//! ([`super::index::IndexSnapshot`]), the deleted ids read once at the
//! start, the table's document count as the idf's N, and document texts
//! (for phrases and query expansion) read through the doc id map and the
//! table with the query's snapshot.
//!
//! The document count is the number of committed documents, which is the
//! table's committed row count (every row is a document): InnoDB's N is its
//! row counter, which also counts rows other transactions inserted and have
//! not committed yet, so a search running beside uncommitted inserts can
//! weigh words differently there.
//!
//! A search sees committed documents only; its rows are the versions the
//! query's snapshot sees ([`FulltextMatches::rows`] skips documents whose
//! row the snapshot does not see).

use std::sync::Arc;

use crate::error::Result;
use crate::fts::ilist::DocEntry;
use crate::fts::index::IndexSnapshot;
use crate::fts::search::{search, IndexReader, SearchMode, SearchResult, SearchSettings};
use crate::fts::table_fulltext::TableFulltext;
use crate::table::{ReadContext, RowRef, Table};

/// The reader one search of index `index` uses.
struct TableIndexReader<'a> {
    ft: &'a TableFulltext,
    table: Arc<Table>,
    index: usize,
    snapshot: IndexSnapshot<'a>,
    read: ReadContext,
    total_docs: u64,
}

impl IndexReader for TableIndexReader<'_> {
    fn postings(&self, word: &str) -> Result<Vec<DocEntry>> {
        self.snapshot.postings(word)
    }

    fn prefix_postings(&self, prefix: &str) -> Result<Vec<(String, Vec<DocEntry>)>> {
        self.snapshot.prefix_postings(prefix)
    }

    fn is_deleted(&self, doc_id: u64) -> Result<bool> {
        Ok(self.snapshot.is_deleted(doc_id))
    }

    fn total_docs(&self) -> u64 {
        self.total_docs
    }

    fn document(&self, doc_id: u64) -> Result<Option<Vec<Option<Vec<u8>>>>> {
        let Some(at) = self.ft.doc_map().row_of_doc(&self.read, doc_id)? else {
            return Ok(None);
        };
        Ok(self
            .table
            .get(&self.read, &at)?
            .map(|row| TableFulltext::document(&self.table, self.index, &row)))
    }
}

/// What a search found (see the module doc).
#[derive(Debug)]
pub struct FulltextMatches {
    result: SearchResult,
}

impl FulltextMatches {
    /// The evaluator's result, by doc id.
    pub fn result(&self) -> &SearchResult {
        &self.result
    }

    /// The rows found, with their relevance, in InnoDB's result order
    /// (relevance descending, then doc id), as `read` sees them.
    pub fn rows(&self, ft: &TableFulltext, read: &ReadContext) -> Result<Vec<(RowRef, f32)>> {
        let mut out = Vec::with_capacity(self.result.len());
        for (doc_id, rank) in self.result.by_rank() {
            if let Some(at) = ft.doc_map().row_of_doc(read, doc_id)? {
                out.push((at, rank));
            }
        }
        Ok(out)
    }

    /// The relevance of the row at `at` (0 when the search did not find it),
    /// as `MATCH` in a select list gives it for any row.
    pub fn relevance_of_row(
        &self,
        ft: &TableFulltext,
        read: &ReadContext,
        at: &RowRef,
    ) -> Result<f32> {
        Ok(match ft.doc_map().doc_of_row(read, at)? {
            Some(doc_id) => self.result.relevance(doc_id),
            None => 0.0,
        })
    }
}

impl TableFulltext {
    /// Searches FULLTEXT index `index` for `query` (bytes in the index's
    /// character set), reading documents with `read`.
    pub fn search(
        &self,
        index: usize,
        query: &[u8],
        mode: SearchMode,
        query_expansion: bool,
        read: &ReadContext,
    ) -> Result<FulltextMatches> {
        let ix = self.indexes().get(index).ok_or_else(|| {
            crate::error::EngineError::Internal(format!("no FULLTEXT index number {index}"))
        })?;
        let reader = TableIndexReader {
            ft: self,
            table: self.open_table()?,
            index,
            snapshot: ix.snapshot()?,
            read: *read,
            total_docs: self.doc_count()?,
        };
        let ts = ix.settings();
        let settings = SearchSettings {
            collation: ts.collation,
            limits: ts.limits,
            stopwords: &ts.stopwords,
            query_expansion,
        };
        Ok(FulltextMatches {
            result: search(&reader, query, mode, &settings)?,
        })
    }
}
