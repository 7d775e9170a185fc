//! Table definitions as the engine sees them: columns, the primary key and the
//! secondary indexes, and the checks MySQL makes at `CREATE TABLE`.
//!
//! A [`TableDef`] is plain data; the catalog persists it and the SQL layer builds
//! it from DDL. [`TableDef::validate`] rejects what the engine cannot store with
//! MySQL's error numbers (through [`EngineError::Schema`],
//! [`EngineError::KeyTooLong`] and the record format's row-size error 1118), so a
//! table that was created can always take any row its types allow.

use crate::error::{EngineError, Result};
use crate::page::PageSize;
use crate::record::key::{mysql_key_len, KeyPart};
use crate::record::value::ColumnType;

/// Most indexes per table (MySQL's `MAX_KEY`, error 1069).
pub const MAX_INDEXES: usize = 64;
/// Most columns per index (MySQL's `MAX_REF_PARTS`, error 1070).
pub const MAX_KEY_PARTS: usize = 16;

/// How a FULLTEXT index splits text into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FulltextParserDef {
    /// InnoDB's built-in parser.
    Builtin,
    /// `WITH PARSER ngram`, with `ngram_token_size` as it was at creation.
    Ngram { token_size: u8 },
}

/// A FULLTEXT index: the columns whose text it indexes (one charset), kept
/// by the full-text subsystem in auxiliary tables rather than as a B+tree
/// of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FulltextIndexDef {
    pub name: String,
    /// Column numbers, in index order (at least one).
    pub columns: Vec<usize>,
    pub parser: FulltextParserDef,
    /// Stopwords apply (`innodb_ft_enable_stopword` when the index was
    /// created).
    pub use_stopwords: bool,
    /// With `use_stopwords`: the user stopword table in force when the
    /// index was created (`innodb_ft_user_stopword_table`, else
    /// `innodb_ft_server_stopword_table`) and the words it held then; `None`
    /// for InnoDB's default list.
    pub stopword_table: Option<StopwordTable>,
}

/// A user stopword table as read when a FULLTEXT index was created: its
/// `db/name` and the values of its `value` column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopwordTable {
    pub name: String,
    /// The `value` column's collation, which the words are compared in.
    pub collation: crate::record::collation::Collation,
    pub words: Vec<String>,
}

/// One column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub ty: ColumnType,
    pub nullable: bool,
}

impl ColumnDef {
    /// A NOT NULL column.
    pub fn new(name: &str, ty: ColumnType) -> Self {
        Self {
            name: name.to_string(),
            ty,
            nullable: false,
        }
    }

    /// The same column, nullable.
    pub fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }
}

/// One column of an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexColumn {
    /// Position of the column in [`TableDef::columns`].
    pub column: usize,
    pub descending: bool,
    /// Prefix length: characters for text, bytes for binary strings.
    pub prefix_len: Option<u32>,
}

impl IndexColumn {
    /// An ascending part over the whole column.
    pub fn new(column: usize) -> Self {
        Self {
            column,
            descending: false,
            prefix_len: None,
        }
    }
}

/// An index: the primary key or a secondary index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    pub name: String,
    pub columns: Vec<IndexColumn>,
    /// Secondary indexes only: no two rows with the same non-NULL key.
    pub unique: bool,
}

impl IndexDef {
    /// An index on whole columns, ascending.
    pub fn on(name: &str, columns: &[usize], unique: bool) -> Self {
        Self {
            name: name.to_string(),
            columns: columns.iter().map(|&c| IndexColumn::new(c)).collect(),
            unique,
        }
    }
}

/// A table: its columns and indexes. Without a primary key the clustered index
/// is keyed by a hidden 6-byte row id (InnoDB's `GEN_CLUST_INDEX`).
#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub primary_key: Option<IndexDef>,
    pub secondary: Vec<IndexDef>,
    /// The AUTO_INCREMENT column, if any (an integer column that leads some
    /// index, as MySQL requires).
    pub auto_increment: Option<usize>,
    /// FULLTEXT indexes (see [`FulltextIndexDef`]).
    pub fulltext: Vec<FulltextIndexDef>,
}

fn invalid(errno: u16, message: String) -> EngineError {
    EngineError::Schema { errno, message }
}

impl TableDef {
    /// The key parts of `index` (types from the columns).
    pub fn key_parts(&self, index: &IndexDef) -> Vec<KeyPart> {
        index
            .columns
            .iter()
            .map(|c| KeyPart {
                ty: self.columns[c.column].ty.clone(),
                descending: c.descending,
                prefix_len: c.prefix_len,
            })
            .collect()
    }

    /// Checks the definition as `CREATE TABLE` does in MySQL with InnoDB: names,
    /// key columns, key lengths for the page size (error 1071) and the worst-case
    /// row size (error 1118) are checked by the caller of this function through
    /// [`crate::table::TableLayout::new`].
    pub fn validate(&self, page_size: PageSize) -> Result<()> {
        if self.columns.is_empty() {
            return Err(invalid(
                1113,
                "A table must have at least 1 column".to_string(),
            ));
        }
        for (i, c) in self.columns.iter().enumerate() {
            c.ty.validate()?;
            if self.columns[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&c.name))
            {
                return Err(invalid(1060, format!("Duplicate column name '{}'", c.name)));
            }
        }
        let indexes: Vec<&IndexDef> = self.primary_key.iter().chain(&self.secondary).collect();
        if indexes.len() > MAX_INDEXES {
            return Err(invalid(
                1069,
                format!("Too many keys specified; max {MAX_INDEXES} keys allowed"),
            ));
        }
        if let Some(a) = self.auto_increment {
            let is_int = self
                .columns
                .get(a)
                .is_some_and(|c| matches!(c.ty, ColumnType::Int { .. }));
            let leads = indexes
                .iter()
                .any(|i| i.columns.first().is_some_and(|c| c.column == a));
            if !is_int || !leads {
                return Err(invalid(
                    1075,
                    "Incorrect table definition; there can be only one auto column and it must be defined as a key".to_string(),
                ));
            }
        }
        for (n, idx) in indexes.iter().enumerate() {
            if indexes[..n]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&idx.name))
            {
                return Err(invalid(1061, format!("Duplicate key name '{}'", idx.name)));
            }
            self.validate_index(idx, n == 0 && self.primary_key.is_some(), page_size)?;
        }
        self.validate_fulltext(&indexes)
    }

    fn validate_fulltext(&self, indexes: &[&IndexDef]) -> Result<()> {
        if indexes.len() + self.fulltext.len() > MAX_INDEXES {
            return Err(invalid(
                1069,
                format!("Too many keys specified; max {MAX_INDEXES} keys allowed"),
            ));
        }
        for (n, ft) in self.fulltext.iter().enumerate() {
            let clash = indexes
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&ft.name))
                || self.fulltext[..n]
                    .iter()
                    .any(|o| o.name.eq_ignore_ascii_case(&ft.name));
            if clash {
                return Err(invalid(1061, format!("Duplicate key name '{}'", ft.name)));
            }
            if ft.columns.is_empty() || ft.columns.len() > MAX_KEY_PARTS {
                return Err(invalid(
                    1070,
                    format!("Too many key parts specified; max {MAX_KEY_PARTS} parts allowed"),
                ));
            }
            let mut charset = None;
            for (k, &c) in ft.columns.iter().enumerate() {
                let Some(col) = self.columns.get(c) else {
                    return Err(invalid(
                        1072,
                        format!("Key column #{c} doesn't exist in table"),
                    ));
                };
                if ft.columns[..k].contains(&c) {
                    return Err(invalid(
                        1060,
                        format!("Duplicate column name '{}'", col.name),
                    ));
                }
                let text = matches!(
                    col.ty,
                    ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text { .. }
                );
                let Some(collation) = col.ty.collation().filter(|_| text) else {
                    return Err(invalid(
                        1283,
                        format!("Column '{}' cannot be part of FULLTEXT index", col.name),
                    ));
                };
                if charset.is_some_and(|cs| cs != collation.charset()) {
                    return Err(invalid(
                        1283,
                        format!("Column '{}' cannot be part of FULLTEXT index", col.name),
                    ));
                }
                charset = Some(collation.charset());
            }
            if let FulltextParserDef::Ngram { token_size } = ft.parser {
                if !(1..=10).contains(&token_size) {
                    return Err(invalid(
                        1210,
                        format!("Incorrect arguments to ngram_token_size {token_size}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The collation a FULLTEXT index compares its words in: its first
    /// column's.
    pub fn fulltext_collation(
        &self,
        ft: &FulltextIndexDef,
    ) -> Option<crate::record::collation::Collation> {
        ft.columns
            .first()
            .and_then(|&c| self.columns.get(c))
            .and_then(|c| c.ty.collation())
    }

    fn validate_index(&self, idx: &IndexDef, primary: bool, page_size: PageSize) -> Result<()> {
        if idx.columns.is_empty() {
            return Err(invalid(
                1064,
                format!("index '{}' has no columns", idx.name),
            ));
        }
        if idx.columns.len() > MAX_KEY_PARTS {
            return Err(invalid(
                1070,
                format!("Too many key parts specified; max {MAX_KEY_PARTS} parts allowed"),
            ));
        }
        for (k, part) in idx.columns.iter().enumerate() {
            let Some(col) = self.columns.get(part.column) else {
                return Err(invalid(
                    1072,
                    format!("Key column #{} doesn't exist in table", part.column),
                ));
            };
            if idx.columns[..k].iter().any(|o| o.column == part.column) {
                return Err(invalid(
                    1060,
                    format!("Duplicate column name '{}'", col.name),
                ));
            }
            let is_lob = matches!(col.ty, ColumnType::Text { .. } | ColumnType::Blob { .. });
            if is_lob && part.prefix_len.is_none() {
                return Err(invalid(
                    1170,
                    format!(
                        "BLOB/TEXT column '{}' used in key specification without a key length",
                        col.name
                    ),
                ));
            }
            if let Some(p) = part.prefix_len {
                let is_string = col.ty.max_chars().is_some();
                let too_long = col.ty.max_chars().is_some_and(|m| u64::from(p) > m);
                if p == 0 || !is_string || (too_long && !is_lob) {
                    return Err(invalid(
                        1089,
                        "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys".to_string(),
                    ));
                }
            }
            if primary && col.nullable {
                return Err(invalid(
                    1171,
                    format!(
                        "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead (column '{}')",
                        col.name
                    ),
                ));
            }
        }
        let len = mysql_key_len(&self.key_parts(idx));
        if len > page_size.max_key_bytes() {
            return Err(EngineError::KeyTooLong {
                max: page_size.max_key_bytes(),
            });
        }
        Ok(())
    }

    /// Position of the column called `name` (case-insensitive, as MySQL).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }
}
