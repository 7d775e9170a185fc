//! The auxiliary tables of full-text search: where a FULLTEXT index's words
//! live once synced from the cache, and the table-wide bookkeeping.
//!
//! Owns [`WordTables`] (one FULLTEXT index's `INDEX_1` .. `INDEX_6`) and
//! [`CommonTables`] (a table's `DELETED`, `BEING_DELETED` and `CONFIG`),
//! Larch's counterparts of InnoDB's `FTS_<table>_<index>_INDEX_n` and
//! `FTS_<table>_DELETED` / `_BEING_DELETED` / `_CONFIG` tables. They are
//! ordinary engine tables ([`Table`]): every change is redo-logged and
//! undo-logged in the transaction that makes it, so a crash or a rollback
//! leaves them as the last committed transaction did, with nothing of their
//! own to recover. Unlike InnoDB, they are not separate tablespace files: they
//! live in the user table's tablespace, so a table with FULLTEXT indexes is
//! still one `.ibd` file, and dropping the table drops them with it.
//!
//! Layouts (columns in order; the primary key first):
//!
//! ```text
//! INDEX_n        word VARCHAR(84) in the index's collation,
//!                first_doc_id BIGINT UNSIGNED, last_doc_id BIGINT UNSIGNED,
//!                doc_count INT UNSIGNED, ilist LONGBLOB
//!                PRIMARY KEY (word, first_doc_id)
//! DELETED        doc_id BIGINT UNSIGNED PRIMARY KEY
//! BEING_DELETED  doc_id BIGINT UNSIGNED PRIMARY KEY
//! CONFIG         `key` VARCHAR(50) latin1_bin PRIMARY KEY,
//!                value VARCHAR(200) utf8mb4_bin
//! ```
//!
//! A row of an `INDEX_n` table is one *node* of a word ([`super::cache`]):
//! the ilist ([`super::ilist`]) of some of the word's documents, all with
//! ids in `first_doc_id ..= last_doc_id`. A word has as many rows as nodes;
//! words compare in the index collation, as the cache groups them.
//!
//! Partitions: a word goes to the `INDEX_n` table chosen by a hash of its
//! first character's collation weight ([`partition_of`]). InnoDB splits by
//! ranges of that weight tuned for `latin1` and `utf8mb4_general_ci` (digits,
//! a-e, f-j, k-o, p-t, u-z and beyond); with the UCA and `_bin` collations
//! nearly every word then lands in the last table. A hash keeps the six
//! tables even for every collation, and still keeps every word of a prefix
//! search (`word*`) in one table, since they share their first character.
//!
//! Index ids: the auxiliary trees take index numbers from
//! [`AUX_INDEX_BASE`] up in the user table's tablespace, far above any user
//! index number, so their row locks never collide with the user table's.
//!
//! Reads use the newest version of each row ([`ReadContext::NEWEST`]), as
//! InnoDB reads its auxiliary tables: a sync's rows may be seen before it
//! commits, so readers merge table and cache postings by doc id
//! ([`super::index`]).

use std::ops::Bound;
use std::sync::Arc;

use crate::error::{EngineError, Result};
use crate::fts::ilist::{self, DocEntry, IlistEncoder};
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, LobKind, Value};
use crate::storage::Storage;
use crate::table::{
    ColumnDef, IndexDef, KeyRange, ReadContext, Table, TableDef, TableRoots, TransactionServices,
    TxnContext, CLUSTERED,
};

/// Number of `INDEX_n` tables per FULLTEXT index (InnoDB's
/// `FTS_NUM_AUX_INDEX`).
pub const INDEX_PARTITIONS: usize = 6;

/// Longest indexed word in characters (InnoDB's `FTS_MAX_WORD_LEN_IN_CHAR`,
/// the top of `innodb_ft_max_token_size`).
pub const MAX_WORD_CHARS: u32 = 84;

/// First index number of the auxiliary trees in a tablespace (see the
/// module doc): `CONFIG`, `DELETED`, `BEING_DELETED` take the next three;
/// FULLTEXT index `i`'s partitions take [`word_table_index_number`].
pub const AUX_INDEX_BASE: u16 = 0x8000;

/// Most FULLTEXT indexes one table can have with distinct index numbers.
pub const MAX_FULLTEXT_INDEXES: usize = 1024;

/// The CONFIG key of the largest doc id synced to the index tables.
pub const CONFIG_SYNCED_DOC_ID: &str = "synced_doc_id";

const BIGINT_UNSIGNED: ColumnType = ColumnType::Int {
    bytes: 8,
    unsigned: true,
};

/// The index number of partition `p` of FULLTEXT index `i` of a table.
pub fn word_table_index_number(i: usize, p: usize) -> Result<u16> {
    if i >= MAX_FULLTEXT_INDEXES || p >= INDEX_PARTITIONS {
        return Err(EngineError::Internal(format!(
            "full-text index {i} partition {p} has no index number"
        )));
    }
    Ok(AUX_INDEX_BASE + 16 + (i * 8 + p) as u16)
}

/// The `INDEX_n` partition (0-based) that holds `word` in `collation`: a
/// hash of the first character's weight (see the module doc).
pub fn partition_of(word: &str, collation: Collation) -> usize {
    let Some(first) = word.chars().next() else {
        return 0;
    };
    let mut buf = [0u8; 4];
    let mut weights = Vec::with_capacity(8);
    collation.weights(first.encode_utf8(&mut buf), &mut weights);
    // FNV-1a: stable across builds and platforms (the placement is on disk).
    let mut h: u32 = 0x811c_9dc5;
    for b in weights {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (h % INDEX_PARTITIONS as u32) as usize
}

/// Where a table's auxiliary trees live: each table's clustered root page
/// in the user table's tablespace (what the catalog stores).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommonRoots {
    pub config: u32,
    pub deleted: u32,
    pub being_deleted: u32,
}

/// The roots of one FULLTEXT index's `INDEX_1` .. `INDEX_6`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordTableRoots(pub [u32; INDEX_PARTITIONS]);

fn doc_id_table(name: &str) -> TableDef {
    TableDef {
        name: name.into(),
        columns: vec![ColumnDef::new("doc_id", BIGINT_UNSIGNED)],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: Vec::new(),
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

fn config_table() -> TableDef {
    TableDef {
        name: "FTS_CONFIG".into(),
        columns: vec![
            ColumnDef::new(
                "key",
                ColumnType::Varchar {
                    max_len: 50,
                    collation: Collation::Latin1Bin,
                },
            ),
            ColumnDef::new(
                "value",
                ColumnType::Varchar {
                    max_len: 200,
                    collation: Collation::Utf8mb4Bin,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: Vec::new(),
        fulltext: Vec::new(),
        auto_increment: None,
    }
}

fn word_table(p: usize, collation: Collation) -> TableDef {
    TableDef {
        name: format!("FTS_INDEX_{}", p + 1),
        columns: vec![
            ColumnDef::new(
                "word",
                ColumnType::Varchar {
                    max_len: MAX_WORD_CHARS,
                    collation,
                },
            ),
            ColumnDef::new("first_doc_id", BIGINT_UNSIGNED),
            ColumnDef::new("last_doc_id", BIGINT_UNSIGNED),
            ColumnDef::new(
                "doc_count",
                ColumnType::Int {
                    bytes: 4,
                    unsigned: true,
                },
            ),
            ColumnDef::new(
                "ilist",
                ColumnType::Blob {
                    kind: LobKind::Long,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0, 1], true)),
        fulltext: Vec::new(),
        secondary: Vec::new(),
        auto_increment: None,
    }
}

fn open_one(
    storage: &Arc<Storage>,
    services: Option<&Arc<TransactionServices>>,
    def: TableDef,
    space: u32,
    root: u32,
) -> Result<Arc<Table>> {
    let roots = TableRoots {
        space,
        clustered: root,
        secondary: Vec::new(),
        auxiliary: Vec::new(),
    };
    attach(Table::open(storage, def, &roots)?, services)
}

fn create_one(
    storage: &Arc<Storage>,
    services: Option<&Arc<TransactionServices>>,
    def: TableDef,
    space: u32,
    number: u16,
) -> Result<Arc<Table>> {
    attach(
        Table::create_numbered(storage, def, space, number)?,
        services,
    )
}

/// Shares an auxiliary table, registered with `services` (when given) so
/// rollback and purge find it by its undo identity.
pub(super) fn attach(
    table: Table,
    services: Option<&Arc<TransactionServices>>,
) -> Result<Arc<Table>> {
    Ok(match services {
        Some(s) => {
            let t = Arc::new(table.with_services(s));
            s.register_table(&t);
            t
        }
        None => Arc::new(table),
    })
}

fn uint(v: &Value, what: &str) -> Result<u64> {
    match v {
        Value::UInt(n) => Ok(*n),
        Value::Int(n) if *n >= 0 => Ok(*n as u64),
        other => Err(EngineError::Internal(format!(
            "full-text auxiliary table: {what} is {other:?}"
        ))),
    }
}

/// A table's `CONFIG`, `DELETED` and `BEING_DELETED` tables, shared by its
/// FULLTEXT indexes.
#[derive(Debug, Clone)]
pub struct CommonTables {
    config: Arc<Table>,
    deleted: Arc<Table>,
    being_deleted: Arc<Table>,
}

impl CommonTables {
    /// Creates the three tables in tablespace `space`.
    pub fn create(
        storage: &Arc<Storage>,
        services: Option<&Arc<TransactionServices>>,
        space: u32,
    ) -> Result<CommonTables> {
        Ok(CommonTables {
            config: create_one(storage, services, config_table(), space, AUX_INDEX_BASE)?,
            deleted: create_one(
                storage,
                services,
                doc_id_table("FTS_DELETED"),
                space,
                AUX_INDEX_BASE + 1,
            )?,
            being_deleted: create_one(
                storage,
                services,
                doc_id_table("FTS_BEING_DELETED"),
                space,
                AUX_INDEX_BASE + 2,
            )?,
        })
    }

    /// Opens the tables at `roots` in tablespace `space`.
    pub fn open(
        storage: &Arc<Storage>,
        services: Option<&Arc<TransactionServices>>,
        space: u32,
        roots: &CommonRoots,
    ) -> Result<CommonTables> {
        Ok(CommonTables {
            config: open_one(storage, services, config_table(), space, roots.config)?,
            deleted: open_one(
                storage,
                services,
                doc_id_table("FTS_DELETED"),
                space,
                roots.deleted,
            )?,
            being_deleted: open_one(
                storage,
                services,
                doc_id_table("FTS_BEING_DELETED"),
                space,
                roots.being_deleted,
            )?,
        })
    }

    /// The root pages (what the catalog stores).
    pub fn roots(&self) -> CommonRoots {
        CommonRoots {
            config: self.config.roots().clustered,
            deleted: self.deleted.roots().clustered,
            being_deleted: self.being_deleted.roots().clustered,
        }
    }

    /// Every auxiliary table, for registration and checks.
    pub fn tables(&self) -> [&Arc<Table>; 3] {
        [&self.config, &self.deleted, &self.being_deleted]
    }

    /// The value of CONFIG `key`, if set.
    pub fn config_value(&self, key: &str) -> Result<Option<String>> {
        let mut c = self.config.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::eq(vec![Value::Str(key.into())]),
            false,
            Some(&[1]),
        )?;
        match c.next_row()? {
            Some((_, row)) => match row.into_iter().next() {
                Some(Value::Str(s)) => Ok(Some(s)),
                other => Err(EngineError::Internal(format!(
                    "full-text CONFIG '{key}' holds {other:?}"
                ))),
            },
            None => Ok(None),
        }
    }

    /// A numeric CONFIG value (0 when unset, as InnoDB reads a missing one).
    pub fn config_u64(&self, key: &str) -> Result<u64> {
        match self.config_value(key)? {
            None => Ok(0),
            Some(s) => s.trim().parse().map_err(|_| {
                EngineError::Internal(format!("full-text CONFIG '{key}' is not a number: '{s}'"))
            }),
        }
    }

    /// Sets CONFIG `key` to `value` in `ctx`'s transaction.
    pub fn set_config(&self, ctx: &mut TxnContext, key: &str, value: &str) -> Result<()> {
        let row = [Value::Str(key.into()), Value::Str(value.into())];
        let at = self.config.row_ref(&row[..1])?;
        if self.config.update(ctx, &at, &row)?.is_none() {
            self.config.insert(ctx, &row)?;
        }
        Ok(())
    }

    /// Records `doc_id` as deleted, in `ctx`'s transaction (InnoDB's
    /// `fts_delete`, run as the deleting transaction commits).
    pub fn add_deleted(&self, ctx: &mut TxnContext, doc_id: u64) -> Result<()> {
        self.deleted.insert(ctx, &[Value::UInt(doc_id)])?;
        Ok(())
    }

    /// The ids in `DELETED`, increasing.
    pub fn deleted_doc_ids(&self) -> Result<Vec<u64>> {
        doc_ids(&self.deleted)
    }

    /// The ids in `BEING_DELETED`, increasing.
    pub fn being_deleted_doc_ids(&self) -> Result<Vec<u64>> {
        doc_ids(&self.being_deleted)
    }
}

fn doc_ids(table: &Table) -> Result<Vec<u64>> {
    let mut c = table.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?;
    let mut out = Vec::new();
    while let Some((_, row)) = c.next_row()? {
        out.push(uint(&row[0], "doc_id")?);
    }
    Ok(out)
}

/// One node as stored: a row of an `INDEX_n` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredNode {
    pub word: String,
    pub first_doc_id: u64,
    pub last_doc_id: u64,
    pub doc_count: u64,
    pub ilist: Vec<u8>,
}

impl StoredNode {
    fn from_row(row: Vec<Value>) -> Result<StoredNode> {
        let mut it = row.into_iter();
        let (Some(word), Some(first), Some(last), Some(count), Some(ilist)) =
            (it.next(), it.next(), it.next(), it.next(), it.next())
        else {
            return Err(EngineError::Internal(
                "full-text index table row has too few columns".into(),
            ));
        };
        let Value::Str(word) = word else {
            return Err(EngineError::Internal(format!(
                "full-text index table word is {word:?}"
            )));
        };
        let Value::Bytes(ilist) = ilist else {
            return Err(EngineError::Internal(format!(
                "full-text index table ilist is {ilist:?}"
            )));
        };
        Ok(StoredNode {
            word,
            first_doc_id: uint(&first, "first_doc_id")?,
            last_doc_id: uint(&last, "last_doc_id")?,
            doc_count: uint(&count, "doc_count")?,
            ilist,
        })
    }

    /// The node's documents, checked against its bounds and count (a
    /// mismatch is corruption of the index table, reported, never served).
    pub fn entries(&self) -> Result<Vec<DocEntry>> {
        let entries = ilist::decode(&self.ilist)?;
        let ok = entries.len() as u64 == self.doc_count
            && entries.first().map(|e| e.doc_id) == Some(self.first_doc_id)
            && entries.last().map(|e| e.doc_id) == Some(self.last_doc_id);
        if !ok {
            return Err(EngineError::Internal(format!(
                "full-text index node '{}' ({}..={}, {} documents) does not match its ilist",
                self.word, self.first_doc_id, self.last_doc_id, self.doc_count
            )));
        }
        Ok(entries)
    }
}

/// One FULLTEXT index's `INDEX_1` .. `INDEX_6`.
#[derive(Debug, Clone)]
pub struct WordTables {
    collation: Collation,
    partitions: Vec<Arc<Table>>,
}

impl WordTables {
    /// Creates the partitions of FULLTEXT index number `index` (its place
    /// among the table's FULLTEXT indexes, for index numbers) in `space`.
    pub fn create(
        storage: &Arc<Storage>,
        services: Option<&Arc<TransactionServices>>,
        space: u32,
        index: usize,
        collation: Collation,
    ) -> Result<WordTables> {
        let mut partitions = Vec::with_capacity(INDEX_PARTITIONS);
        for p in 0..INDEX_PARTITIONS {
            let number = word_table_index_number(index, p)?;
            partitions.push(create_one(
                storage,
                services,
                word_table(p, collation),
                space,
                number,
            )?);
        }
        Ok(WordTables {
            collation,
            partitions,
        })
    }

    /// Opens the partitions at `roots`.
    pub fn open(
        storage: &Arc<Storage>,
        services: Option<&Arc<TransactionServices>>,
        space: u32,
        roots: &WordTableRoots,
        collation: Collation,
    ) -> Result<WordTables> {
        let partitions = roots
            .0
            .iter()
            .enumerate()
            .map(|(p, &root)| open_one(storage, services, word_table(p, collation), space, root))
            .collect::<Result<Vec<_>>>()?;
        Ok(WordTables {
            collation,
            partitions,
        })
    }

    /// The root pages (what the catalog stores).
    pub fn roots(&self) -> WordTableRoots {
        let mut roots = [0; INDEX_PARTITIONS];
        for (r, t) in roots.iter_mut().zip(&self.partitions) {
            *r = t.roots().clustered;
        }
        WordTableRoots(roots)
    }

    /// The partitions, `INDEX_1` first.
    pub fn tables(&self) -> &[Arc<Table>] {
        &self.partitions
    }

    fn partition(&self, word: &str) -> &Arc<Table> {
        &self.partitions[partition_of(word, self.collation)]
    }

    /// Writes one node of `word` in `ctx`'s transaction.
    pub fn insert_node(&self, ctx: &mut TxnContext, word: &str, node: &IlistEncoder) -> Result<()> {
        let Some(first) = node.first_doc_id() else {
            return Ok(()); // an empty node is no row
        };
        let row = [
            Value::Str(word.into()),
            Value::UInt(first),
            Value::UInt(node.last_doc_id()),
            Value::UInt(node.doc_count()),
            Value::Bytes(node.as_bytes().to_vec()),
        ];
        self.partition(word).insert(ctx, &row)?;
        Ok(())
    }

    /// The stored nodes of `word` (compared in the index collation), by
    /// increasing first doc id.
    pub fn nodes(&self, word: &str) -> Result<Vec<StoredNode>> {
        let range = KeyRange::eq(vec![Value::Str(word.into())]);
        let mut c =
            self.partition(word)
                .scan(&ReadContext::NEWEST, CLUSTERED, &range, false, None)?;
        let mut out = Vec::new();
        while let Some((_, row)) = c.next_row()? {
            out.push(StoredNode::from_row(row)?);
        }
        Ok(out)
    }

    /// The stored nodes of every word starting with `prefix` (in the index
    /// collation), in word order then first doc id.
    pub fn prefix_nodes(&self, prefix: &str) -> Result<Vec<StoredNode>> {
        if prefix.is_empty() {
            let mut out = self.nodes_by_partition()?;
            let c = self.collation;
            out.sort_by(|a, b| {
                c.compare(&a.word, &b.word)
                    .then(a.first_doc_id.cmp(&b.first_doc_id))
            });
            return Ok(out);
        }
        let mut out = Vec::new();
        self.scan_prefix(self.partition(prefix), prefix, &mut out)?;
        Ok(out)
    }

    /// Every stored node, `INDEX_1` first and each table in word order, as
    /// InnoDB lists `INFORMATION_SCHEMA.INNODB_FT_INDEX_TABLE`.
    pub fn nodes_by_partition(&self) -> Result<Vec<StoredNode>> {
        let mut out = Vec::new();
        for t in &self.partitions {
            self.scan_prefix(t, "", &mut out)?;
        }
        Ok(out)
    }

    /// Appends the nodes of word table `t` whose words start with `prefix`
    /// (under the index's collation), in word order.
    fn scan_prefix(&self, t: &Arc<Table>, prefix: &str, out: &mut Vec<StoredNode>) -> Result<()> {
        let mut key = Vec::new();
        self.collation.weights(prefix, &mut key);
        let range = KeyRange {
            lower: Bound::Included(vec![Value::Str(prefix.into())]),
            upper: Bound::Unbounded,
        };
        let mut weights = Vec::new();
        let mut c = t.scan(&ReadContext::NEWEST, CLUSTERED, &range, false, None)?;
        while let Some((_, row)) = c.next_row()? {
            let node = StoredNode::from_row(row)?;
            if !key.is_empty() {
                weights.clear();
                self.collation.weights(&node.word, &mut weights);
                if !weights.starts_with(&key) {
                    break;
                }
            }
            out.push(node);
        }
        Ok(())
    }

    /// Every stored node, in word order (all partitions merged), for
    /// checks.
    pub fn all_nodes(&self) -> Result<Vec<StoredNode>> {
        self.prefix_nodes("")
    }
}

#[cfg(test)]
#[path = "auxiliary_tests.rs"]
mod tests;
