//! What InnoDB shows of its full-text indexes, with MariaDB 10.11's columns:
//! `INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD` (the built-in stopword
//! list) and, for the table `innodb_ft_aux_table` names,
//! `INNODB_FT_DELETED`, `INNODB_FT_BEING_DELETED`, `INNODB_FT_INDEX_CACHE`,
//! `INNODB_FT_INDEX_TABLE` and `INNODB_FT_CONFIG`.
//!
//! As in InnoDB, `SET GLOBAL innodb_ft_aux_table = 'db/table'` is refused
//! (1231) unless the table exists and has a FULLTEXT index, and what is
//! remembered is the table's dictionary id ([`AuxTable`]): the listings
//! follow the table through RENAME (the variable still shows the name it
//! was given) and are empty once it is dropped.
//!
//! Rows, as InnoDB lists them:
//! - the index tables: for every FULLTEXT index of the table in turn, every
//!   node (a word's batch of documents) as one row per document and
//!   position; the cache in word order, the word tables `INDEX_1` first;
//!   deleted documents are listed too (they are filtered by queries);
//! - `INNODB_FT_CONFIG`: `optimize_checkpoint_limit`, `synced_doc_id`,
//!   `stopword_table_name` and `use_stopword`.
//!
//! Reading them needs the PROCESS privilege (1227), as in MariaDB.

use larch_engine::fts::stopwords::DEFAULT_STOPWORDS;
use std::sync::Arc;

use larch_engine::catalog::TableEntry;
use larch_engine::fts::table_fulltext::TableFulltext;
use larch_engine::record::value::Value;
use parking_lot::Mutex;

use super::{ubig, varchar};
use crate::error::SqlError;
use crate::result::RowSet;
use crate::session::Session;

/// The tables of this module (upper case, sorted).
pub(crate) const NAMES: &[&str] = &[
    "INNODB_FT_BEING_DELETED",
    "INNODB_FT_CONFIG",
    "INNODB_FT_DEFAULT_STOPWORD",
    "INNODB_FT_DELETED",
    "INNODB_FT_INDEX_CACHE",
    "INNODB_FT_INDEX_TABLE",
];

/// InnoDB's `FTS_OPTIMIZE_LIMIT_IN_SECS` default, the value of
/// `optimize_checkpoint_limit` until a table's CONFIG stores another.
const OPTIMIZE_LIMIT_SECS: u64 = 180;

/// The table `innodb_ft_aux_table` names, by dictionary id (`None` until
/// it is set, or after it is set to NULL).
#[derive(Debug, Default)]
pub(crate) struct AuxTable(Mutex<Option<u64>>);

impl AuxTable {
    /// Checks and takes the value of `SET GLOBAL innodb_ft_aux_table`:
    /// NULL, or `db/table` naming a table with a FULLTEXT index.
    pub(crate) fn set(&self, s: &Session, value: &Value) -> Result<(), SqlError> {
        let name = match value {
            Value::Null => {
                *self.0.lock() = None;
                return Ok(());
            }
            Value::Str(name) => name,
            _ => {
                return Err(SqlError::new(
                    1232,
                    "Incorrect argument type to variable 'innodb_ft_aux_table'",
                ))
            }
        };
        let entry = name
            .split_once('/')
            .and_then(|(db, table)| s.db.catalog().table_entry(db, table))
            .filter(|e| !e.def.fulltext.is_empty());
        match entry {
            Some(e) => {
                *self.0.lock() = Some(e.id);
                Ok(())
            }
            None => Err(SqlError::new(
                1231,
                format!("Variable 'innodb_ft_aux_table' can't be set to the value of '{name}'"),
            )),
        }
    }

    /// The table named, if it still exists, and its FULLTEXT indexes.
    fn fulltext(&self, s: &Session) -> Result<Option<(TableEntry, Arc<TableFulltext>)>, SqlError> {
        let Some(id) = *self.0.lock() else {
            return Ok(None);
        };
        let catalog = s.db.catalog();
        let Some(e) = catalog.table_entry_by_id(id) else {
            return Ok(None);
        };
        Ok(catalog
            .table_fulltext(&e.schema, &e.name)?
            .map(|ft| (e, ft)))
    }
}

/// The rows of `information_schema.<upper>`, one of [`NAMES`].
pub(crate) fn table(s: &Session, upper: &str) -> Result<RowSet, SqlError> {
    let privs = s.account.privileges_ref(&s.db.acl);
    if !privs.global.intersects(crate::privileges::Privs::PROCESS) {
        return Err(SqlError::new(
            1227,
            "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation",
        ));
    }
    let aux = s.db.fulltext_aux_table.fulltext(s)?;
    let ft = aux.as_ref().map(|(_, ft)| ft);
    let u = Value::UInt;
    let mut rows = Vec::new();
    let columns = match upper {
        "INNODB_FT_DEFAULT_STOPWORD" => {
            rows.extend(
                DEFAULT_STOPWORDS
                    .iter()
                    .map(|w| vec![Value::Str((*w).into())]),
            );
            vec![varchar("value", 18, false)]
        }
        "INNODB_FT_DELETED" | "INNODB_FT_BEING_DELETED" => {
            if let Some(ft) = ft {
                let common = ft.common_tables();
                let ids = if upper == "INNODB_FT_DELETED" {
                    common.deleted_doc_ids()?
                } else {
                    common.being_deleted_doc_ids()?
                };
                rows.extend(ids.into_iter().map(|id| vec![u(id)]));
            }
            vec![ubig("DOC_ID", false)]
        }
        "INNODB_FT_INDEX_CACHE" | "INNODB_FT_INDEX_TABLE" => {
            for index in ft.iter().flat_map(|ft| ft.indexes()) {
                let nodes: Vec<(String, [u64; 3], Vec<_>)> = if upper == "INNODB_FT_INDEX_CACHE" {
                    index
                        .cached_nodes()?
                        .into_iter()
                        .map(|n| {
                            (
                                n.word,
                                [n.first_doc_id, n.last_doc_id, n.doc_count],
                                n.entries,
                            )
                        })
                        .collect()
                } else {
                    let mut out = Vec::new();
                    for n in index.stored_nodes()? {
                        let entries = n.entries()?;
                        out.push((
                            n.word,
                            [n.first_doc_id, n.last_doc_id, n.doc_count],
                            entries,
                        ));
                    }
                    out
                };
                for (word, [first, last, count], entries) in nodes {
                    for e in entries {
                        for &pos in &e.positions {
                            rows.push(vec![
                                Value::Str(word.clone()),
                                u(first),
                                u(last),
                                u(count),
                                u(e.doc_id),
                                u(pos),
                            ]);
                        }
                    }
                }
            }
            vec![
                varchar("WORD", 337, false),
                ubig("FIRST_DOC_ID", false),
                ubig("LAST_DOC_ID", false),
                ubig("DOC_COUNT", false),
                ubig("DOC_ID", false),
                ubig("POSITION", false),
            ]
        }
        "INNODB_FT_CONFIG" => {
            if let Some((entry, ft)) = &aux {
                let common = ft.common_tables();
                let limit = common
                    .config_value("optimize_checkpoint_limit")?
                    .unwrap_or_else(|| OPTIMIZE_LIMIT_SECS.to_string());
                let synced = match ft.indexes().first() {
                    Some(index) => index.synced_doc_id()?,
                    None => 0,
                };
                // The first index's, as InnoDB keeps them per table.
                let first = entry.def.fulltext.first();
                let use_stopword = first.is_none_or(|f| f.use_stopwords);
                let stopword_table = first
                    .and_then(|f| f.stopword_table.as_ref())
                    .map_or(String::new(), |t| t.name.clone());
                for (key, value) in [
                    ("optimize_checkpoint_limit", limit),
                    ("synced_doc_id", synced.to_string()),
                    ("stopword_table_name", stopword_table),
                    ("use_stopword", u8::from(use_stopword).to_string()),
                ] {
                    rows.push(vec![Value::Str(key.into()), Value::Str(value)]);
                }
            }
            vec![varchar("KEY", 193, false), varchar("VALUE", 193, false)]
        }
        _ => {
            return Err(SqlError::new(
                1109,
                format!("Unknown table '{upper}' in information_schema"),
            ))
        }
    };
    Ok(RowSet { columns, rows })
}
