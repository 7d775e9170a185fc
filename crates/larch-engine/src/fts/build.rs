//! Building FULLTEXT indexes over rows a table already holds.
//!
//! Owns [`TableFulltext::index_existing_rows`], for a table whose rows were
//! written without the full-text bookkeeping: the new table a copying ALTER
//! TABLE or TRUNCATE fills before it takes the old one's place (internal
//! writers record no commit work, see `crate::table`). No one else sees such
//! a table, so the build writes the doc id map and the word tables without
//! undo, as the copy wrote the rows; a crash before the new table is put in
//! place drops it whole at the next start.
//!
//! The build reads the rows in clustered order, gives each a doc id (the
//! next ones, in that order), tokenizes them in parallel on up to
//! `threads` threads (InnoDB's `innodb_ft_sort_pll_degree`), and adds them
//! to the index caches in doc id order. Whenever an index's cache passes
//! `innodb_ft_cache_size` it is written to the word tables at once, so the
//! build's memory stays within one cache per index whatever the table's
//! size; at the end every cache is written, so a restart has nothing to
//! re-read.
//!
//! What it does not do yet: sort words across the whole table and write the
//! word tables bottom-up with the bulk builder (InnoDB's parallel merge
//! sort); words of a large table therefore spread over one node per cache
//! flush, which OPTIMIZE TABLE merges.

use crate::error::{EngineError, Result};
use crate::fts::table_fulltext::TableFulltext;
use crate::fts::tokenizer::Token;
use crate::record::value::Value;
use crate::table::{KeyRange, ReadContext, RowRef, TxnContext, CLUSTERED};

/// Rows tokenized per parallel step.
const BATCH_ROWS: usize = 512;

/// What [`TableFulltext::index_existing_rows`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Documents indexed (one per row).
    pub documents: u64,
    /// Cache flushes to the word tables.
    pub flushes: u64,
}

impl TableFulltext {
    /// Indexes every row of a table no one else uses yet (see the module
    /// doc). `interrupted` is polled between batches (KILL QUERY).
    pub fn index_existing_rows(
        &self,
        threads: usize,
        interrupted: &(dyn Fn() -> bool + Sync),
    ) -> Result<BuildStats> {
        let table = self.open_table()?;
        let _gate = self.hold_gate();
        let mut stats = BuildStats::default();
        let mut ctx = TxnContext::internal();
        // One cursor over the whole table: the build writes other trees only.
        let mut c = table.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            false,
            None,
        )?;
        loop {
            if interrupted() {
                return Err(EngineError::QueryInterrupted);
            }
            let mut batch: Vec<(RowRef, Vec<Value>)> = Vec::with_capacity(BATCH_ROWS);
            while let Some(next) = c.next_row()? {
                batch.push(next);
                if batch.len() == BATCH_ROWS {
                    break;
                }
            }
            if batch.is_empty() {
                break;
            }
            let tokens = self.tokenize_batch(&table, &batch, threads)?;
            for ((at, _), per_index) in batch.iter().zip(tokens) {
                let doc_id = self.next_doc_id()?;
                self.doc_map().insert(&mut ctx, doc_id, at)?;
                for (ix, t) in self.indexes().iter().zip(&per_index) {
                    ix.add_tokens(doc_id, t)?;
                }
                stats.documents += 1;
            }
            self.count_documents(batch.len() as u64);
            for ix in self.indexes() {
                let size = ix.cache().read(|c| c.size());
                if size > ix.budget_policy().cache_size {
                    ix.flush_cache_internal()?;
                    stats.flushes += 1;
                }
            }
        }
        drop(c);
        for ix in self.indexes() {
            if ix.cache().read(|c| c.doc_count()) > 0 {
                ix.flush_cache_internal()?;
                stats.flushes += 1;
            }
        }
        Ok(stats)
    }

    /// Tokens of each row of `batch` for every index, computed on up to
    /// `threads` threads.
    fn tokenize_batch(
        &self,
        table: &crate::table::Table,
        batch: &[(RowRef, Vec<Value>)],
        threads: usize,
    ) -> Result<Vec<Vec<Vec<Token>>>> {
        let threads = threads.clamp(1, 16);
        if threads == 1 || batch.len() < 2 * threads {
            return Ok(batch.iter().map(|(_, r)| self.tokens(table, r)).collect());
        }
        let chunk = batch.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = batch
                .chunks(chunk)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|(_, r)| self.tokens(table, r))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut out = Vec::with_capacity(batch.len());
            for h in handles {
                let part = h.join().map_err(|_| {
                    EngineError::Internal("a full-text tokenizing thread panicked".into())
                })?;
                out.extend(part);
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::error::Result;
    use crate::fts::sync::SyncPolicy;
    use crate::fts::table_fulltext::tests::{row, Env};
    use crate::io::SimVfs;
    use crate::table::TxnContext;

    #[test]
    fn a_filled_table_is_indexed_in_batches_and_flushes() -> Result<()> {
        // A small cache: the build flushes it many times.
        let policy = SyncPolicy {
            cache_size: 4096,
            total_cache_size: 1 << 30,
        };
        let mut env = Env::create_with(Arc::new(SimVfs::new()), policy)?;
        let mut internal = TxnContext::internal();
        let n = 1500;
        for id in 1..=n {
            let title = format!("word{} common", id % 7);
            let body = (id % 3 == 0).then(|| format!("body{id} shared"));
            env.table
                .insert(&mut internal, &row(id, &title, body.as_deref(), 0))?;
        }
        assert!(
            env.rows(0, "common")?.is_empty(),
            "internal writes index nothing"
        );
        let stats = env.ft.index_existing_rows(2, &|| false)?;
        assert_eq!(stats.documents, n as u64);
        assert!(stats.flushes > 2, "{stats:?}");
        assert_eq!(env.rows(0, "common")?.len(), n as usize);
        let word3: Vec<i64> = (1..=n).filter(|id| id % 7 == 3).collect();
        assert_eq!(env.rows(0, "word3")?, word3);
        assert_eq!(env.rows(1, "body300")?, [300]);
        assert_eq!(env.rows(1, "shared")?.len(), (n / 3) as usize);
        assert_eq!(env.ft.doc_count()?, n as u64);
        assert!(env.ft.check()?.is_empty());
        for ix in env.ft.indexes() {
            assert_eq!(ix.cache().read(|c| c.size()), 0, "everything written");
        }
        // Later commits continue above the built ids.
        let mut t = env.begin()?;
        env.table
            .insert(&mut t, &row(n + 1, "common late", None, 0))?;
        t.commit()?;
        assert_eq!(env.rows(0, "late")?, [n + 1]);
        assert!(env.doc_of(n + 1)? > Some(n as u64 - 1));
        assert!(env.ft.check()?.is_empty());
        // A killed build stops.
        assert!(env.ft.index_existing_rows(1, &|| true).is_err());
        Ok(())
    }
}
