//! Document ids: which row each full-text document is.
//!
//! Owns [`DocMap`], the `FTS_DOCS` auxiliary table of a table with FULLTEXT
//! indexes: one row per document, `doc_id -> row address` ([`RowRef`],
//! the clustered key), with a secondary index on a hash of the address for
//! the reverse lookup.
//!
//! ```text
//! FTS_DOCS   doc_id BIGINT UNSIGNED PRIMARY KEY,
//!            row_hash BIGINT UNSIGNED, row_ref LONGBLOB,
//!            KEY by_row (row_hash)
//! ```
//!
//! InnoDB keeps the doc id in the row itself (the hidden `FTS_DOC_ID`
//! column and its unique `FTS_DOC_ID_INDEX`), assigned when the row is
//! written. Larch keeps it beside the row, and assigns it when the writing
//! transaction commits ([`super::table_fulltext`]): doc ids then increase in
//! commit order, so every committed document at or below a synced doc id is
//! in the word tables, and a restart re-reads exactly the documents above
//! it. (InnoDB's insert-time ids can commit out of order around a sync and
//! be missed by its restart scan.) The map is an ordinary versioned table, so
//! a query reads it with its own snapshot: the row a doc id names is the one
//! its snapshot sees.
//!
//! Invariants: one map row per document; a row address has at most one
//! document at a time (the commit step deletes the old entry before it adds
//! the new one, under the row's lock).

use std::ops::Bound;
use std::sync::Arc;

use crate::error::{EngineError, Result};
use crate::fts::auxiliary::attach;
use crate::record::value::{ColumnType, LobKind, Value};
use crate::storage::Storage;
use crate::table::{
    ColumnDef, IndexDef, KeyRange, ReadContext, RowRef, Table, TableDef, TableRoots,
    TransactionServices, TxnContext, CLUSTERED,
};

const BIGINT_UNSIGNED: ColumnType = ColumnType::Int {
    bytes: 8,
    unsigned: true,
};

fn def() -> TableDef {
    TableDef {
        name: "FTS_DOCS".into(),
        columns: vec![
            ColumnDef::new("doc_id", BIGINT_UNSIGNED),
            ColumnDef::new("row_hash", BIGINT_UNSIGNED),
            ColumnDef::new(
                "row_ref",
                ColumnType::Blob {
                    kind: LobKind::Long,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![IndexDef::on("by_row", &[1], false)],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

/// FNV-1a over the address bytes: stable across builds (it is stored).
fn row_hash(row: &RowRef) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in &row.0 {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn doc_id_of(v: &Value) -> Result<u64> {
    match v {
        Value::UInt(n) => Ok(*n),
        other => Err(EngineError::Internal(format!(
            "full-text doc id map: doc id is {other:?}"
        ))),
    }
}

fn row_of(v: Value) -> Result<RowRef> {
    match v {
        Value::Bytes(b) => Ok(RowRef(b)),
        other => Err(EngineError::Internal(format!(
            "full-text doc id map: row address is {other:?}"
        ))),
    }
}

/// The doc id map of one table (see the module doc).
#[derive(Debug, Clone)]
pub struct DocMap {
    table: Arc<Table>,
}

impl DocMap {
    /// Creates the map in `space`, its trees numbered from `number`.
    pub fn create(
        storage: &Arc<Storage>,
        services: Option<&Arc<TransactionServices>>,
        space: u32,
        number: u16,
    ) -> Result<DocMap> {
        let t = Table::create_numbered(storage, def(), space, number)?;
        Ok(DocMap {
            table: attach(t, services)?,
        })
    }

    /// Opens the map whose clustered and `by_row` roots are `roots`.
    pub fn open(
        storage: &Arc<Storage>,
        services: Option<&Arc<TransactionServices>>,
        space: u32,
        roots: [u32; 2],
    ) -> Result<DocMap> {
        let roots = TableRoots {
            space,
            clustered: roots[0],
            secondary: vec![roots[1]],
            auxiliary: Vec::new(),
        };
        let t = Table::open(storage, def(), &roots)?;
        Ok(DocMap {
            table: attach(t, services)?,
        })
    }

    /// The clustered and `by_row` root pages.
    pub fn roots(&self) -> [u32; 2] {
        let r = self.table.roots();
        [r.clustered, r.secondary.first().copied().unwrap_or(0)]
    }

    /// The map's table.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// Maps `doc_id` to `row` in `ctx`'s transaction.
    pub fn insert(&self, ctx: &mut TxnContext, doc_id: u64, row: &RowRef) -> Result<()> {
        self.table.insert(
            ctx,
            &[
                Value::UInt(doc_id),
                Value::UInt(row_hash(row)),
                Value::Bytes(row.0.clone()),
            ],
        )?;
        Ok(())
    }

    /// Removes the entry of `doc_id` in `ctx`'s transaction.
    pub fn delete(&self, ctx: &mut TxnContext, doc_id: u64) -> Result<bool> {
        let at = self.table.row_ref(&[Value::UInt(doc_id)])?;
        self.table.delete(ctx, &at)
    }

    /// The document of the row at `row`, as `read` sees the map.
    pub fn doc_of_row(&self, read: &ReadContext, row: &RowRef) -> Result<Option<u64>> {
        let range = KeyRange::eq(vec![Value::UInt(row_hash(row))]);
        let mut c = self.table.scan(read, 1, &range, false, Some(&[0, 2]))?;
        while let Some((_, values)) = c.next_row()? {
            let mut it = values.into_iter();
            let (Some(doc), Some(at)) = (it.next(), it.next()) else {
                continue;
            };
            if row_of(at)? == *row {
                return doc_id_of(&doc).map(Some);
            }
        }
        Ok(None)
    }

    /// The row of document `doc_id`, as `read` sees the map.
    pub fn row_of_doc(&self, read: &ReadContext, doc_id: u64) -> Result<Option<RowRef>> {
        let at = self.table.row_ref(&[Value::UInt(doc_id)])?;
        match self.table.get(read, &at)? {
            Some(values) => match values.into_iter().nth(2) {
                Some(v) => row_of(v).map(Some),
                None => Ok(None),
            },
            None => Ok(None),
        }
    }

    /// The documents above `doc_id`, increasing, as `read` sees the map.
    pub fn docs_above(&self, read: &ReadContext, doc_id: u64) -> Result<Vec<(u64, RowRef)>> {
        let range = KeyRange {
            lower: Bound::Excluded(vec![Value::UInt(doc_id)]),
            upper: Bound::Unbounded,
        };
        let mut c = self
            .table
            .scan(read, CLUSTERED, &range, false, Some(&[0, 2]))?;
        let mut out = Vec::new();
        while let Some((_, values)) = c.next_row()? {
            let mut it = values.into_iter();
            if let (Some(doc), Some(at)) = (it.next(), it.next()) {
                out.push((doc_id_of(&doc)?, row_of(at)?));
            }
        }
        Ok(out)
    }

    /// The number of documents `read` sees.
    pub fn count(&self, read: &ReadContext) -> Result<u64> {
        let mut c = self
            .table
            .scan(read, CLUSTERED, &KeyRange::all(), false, Some(&[0]))?;
        let mut n = 0;
        while c.next_row()?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    /// The largest doc id with an entry, committed or not (0 if none).
    pub fn max_doc_id(&self) -> Result<u64> {
        let mut c = self.table.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            true,
            Some(&[0]),
        )?;
        match c.next_row()? {
            Some((_, values)) => values.first().map_or(Ok(0), doc_id_of),
            None => Ok(0),
        }
    }
}
