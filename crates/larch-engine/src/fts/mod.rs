//! Full-text search building blocks, following InnoDB's FTS (MariaDB 10.11).
//!
//! This module owns the pure parts of full-text search: the pieces that turn
//! column text into index words, query strings into a syntax tree, word
//! occurrences into InnoDB's inverted-list bytes, and match statistics into
//! relevance values, the in-memory index cache and its sync policy, and the
//! query evaluator, which reads an index only through the
//! [`search::IndexReader`] trait. These pure parts touch no pages,
//! transactions or catalog. On them, [`auxiliary`], [`doc_map`], [`index`],
//! [`table_fulltext`] and [`service`] keep FULLTEXT indexes in engine tables,
//! up to date with the transactions that change their tables.
//!
//! - [`tokenizer`]: InnoDB's built-in parser (word characters, the apostrophe
//!   rule, case folding, `innodb_ft_min_token_size` / `max_token_size`, byte
//!   positions, several columns as one document);
//! - [`stopwords`]: the default stopword list and [`stopwords::StopwordSet`];
//! - [`ngram`]: MySQL's ngram parser (`ngram_token_size`);
//! - [`query`]: boolean-mode and natural-language query strings to an AST;
//! - [`ilist`]: the inverted-list (ilist) codec of the `INDEX_n` tables;
//! - [`ranking`]: InnoDB's TF-IDF relevance and its boolean adjustments;
//! - [`cache`]: the per-index cache of committed documents not yet in the
//!   index tables ([`cache::IndexCache`]);
//! - [`sync`]: the shared cache budget (`innodb_ft_cache_size`,
//!   `innodb_ft_total_cache_size`), the choice of caches a background task
//!   syncs, and the hard limit above which writers wait;
//! - [`search`]: the query evaluator (`MATCH ... AGAINST` in natural-language
//!   and boolean mode, with query expansion) over an [`search::IndexReader`],
//!   with [`search_ast`] (InnoDB's query tree and its traversal order) and
//!   [`phrase`] (phrase and proximity verification on the document text);
//! - [`auxiliary`]: the auxiliary tables (`INDEX_1`..`INDEX_6` per index,
//!   `DELETED`, `BEING_DELETED`, `CONFIG` per table) as engine tables in the
//!   user table's tablespace;
//! - [`index`]: one FULLTEXT index maintained: documents into its cache,
//!   deletions into `DELETED`, cache batches into the word tables, and
//!   postings read back from both;
//! - [`doc_map`]: which row each document is (doc ids assigned at commit);
//! - [`table_fulltext`]: a table's FULLTEXT indexes kept up to date by its
//!   transactions' commits, and re-read after a restart;
//! - [`table_search`]: `MATCH ... AGAINST` over a table's index, its rows
//!   as a snapshot sees them;
//! - [`service`]: the engine-wide budget, settings and sync task;
//! - [`build`]: indexing the rows a new table was filled with.
//!
//! The byte layout and the tokenizer rules are described in
//! `docs/fts-format.md`.

pub mod auxiliary;
pub mod build;
pub mod cache;
pub mod doc_map;
pub mod ilist;
pub mod index;
pub mod ngram;
pub mod phrase;
pub mod query;
pub mod ranking;
pub mod search;
pub mod search_ast;
pub mod service;
pub mod stopwords;
pub mod sync;
pub mod table_fulltext;
pub mod table_search;
#[cfg(test)]
mod test_support;
pub mod tokenizer;
