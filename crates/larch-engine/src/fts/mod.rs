//! Full-text search building blocks, following InnoDB's FTS (MariaDB 10.11).
//!
//! This module owns the pure parts of full-text search: the pieces that turn
//! column text into index words, query strings into a syntax tree, word
//! occurrences into InnoDB's inverted-list bytes, and match statistics into
//! relevance values, the in-memory index cache and its sync policy, and the
//! query evaluator, which reads an index only through the
//! [`search::IndexReader`] trait. None of them touches pages, transactions or
//! the catalog; the index maintenance (auxiliary tables, `FTS_DOC_ID`) and
//! the SQL executor build on them.
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
//!   [`phrase`] (phrase and proximity verification on the document text).
//!
//! The byte layout and the tokenizer rules are described in
//! `docs/fts-format.md`.

pub mod cache;
pub mod ilist;
pub mod ngram;
pub mod phrase;
pub mod query;
pub mod ranking;
pub mod search;
pub mod search_ast;
pub mod stopwords;
pub mod sync;
#[cfg(test)]
mod test_support;
pub mod tokenizer;
