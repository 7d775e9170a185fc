//! [`Work`]: a table definition being built (CREATE TABLE) or changed
//! (ALTER TABLE), and its conversion to an engine `TableDef` plus a
//! [`TableMeta`].
//!
//! Keys refer to columns by a stable id, not by position, so columns can be
//! added, dropped and moved while keys follow them. Each column remembers its
//! position in the original table (`origin`), which is how a rebuild copies
//! rows. [`Work::finish`] orders keys as MySQL does (`sort_keys`: PRIMARY,
//! then UNIQUE keys with only NOT NULL columns, then other UNIQUE keys, then
//! plain keys, FULLTEXT last; otherwise in definition order), drops a prefix
//! that covers a whole CHAR/VARCHAR column, and enforces one AUTO_INCREMENT
//! column (1075). The engine's `TableDef::validate` checks the rest when the
//! table is created.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::ColumnType;
use larch_engine::table::{ColumnDef, IndexColumn, IndexDef, TableDef};

use super::meta::{ColumnMeta, TableMeta};
use crate::error::SqlError;

/// One column.
#[derive(Debug, Clone)]
pub(super) struct WCol {
    pub id: usize,
    pub def: ColumnDef,
    pub meta: ColumnMeta,
    /// Position in the table being altered (`None`: a new column).
    pub origin: Option<usize>,
    pub auto_inc: bool,
    /// Declared `NULL` explicitly in this statement (a PRIMARY KEY on it is
    /// then error 1171 rather than an implicit NOT NULL).
    pub explicit_null: bool,
}

/// What kind of key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyKind {
    Primary,
    Unique,
    Index,
    Fulltext,
}

/// One part of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WPart {
    /// Column id.
    pub col: usize,
    pub descending: bool,
    pub prefix: Option<u32>,
}

/// One key.
#[derive(Debug, Clone)]
pub(super) struct WKey {
    pub name: String,
    pub kind: KeyKind,
    pub parts: Vec<WPart>,
    pub comment: String,
}

/// The table being defined. See the module documentation.
#[derive(Debug, Clone)]
pub(super) struct Work {
    pub name: String,
    pub cols: Vec<WCol>,
    pub keys: Vec<WKey>,
    next_id: usize,
    /// The table's default collation (DEFAULT CHARSET / COLLATE).
    pub collation: Collation,
    pub engine: String,
    pub row_format: Option<String>,
    pub comment: String,
    /// The other table options (`TableMeta::options`).
    pub options: Vec<(String, String)>,
    /// Notes for the statement (1831 duplicate index), given to the
    /// session when the definition is finished.
    pub notes: Vec<crate::error::Warning>,
    /// Table CHECK constraints: name and expression text (`ddl::check`).
    pub checks: Vec<(String, String)>,
    /// FOREIGN KEY constraints, their columns as column ids
    /// (`ddl::foreign_ddl`).
    pub foreign: Vec<super::foreign::ForeignKey>,
    /// FOREIGN KEYs of the statement not yet resolved (resolved once all
    /// its keys are known, by `foreign_ddl::add_pending`).
    pub pending_foreign: Vec<super::foreign_ddl::FkSpec>,
}

/// What [`Work::finish`] produces.
#[derive(Debug, Clone)]
pub(super) struct Finished {
    pub def: TableDef,
    pub meta: TableMeta,
    /// Per new column, its position in the original table.
    pub origin: Vec<Option<usize>>,
}

impl Finished {
    /// Settles what FULLTEXT indexes take from when they are created: an
    /// index of `old` (same name and columns) keeps its settings, a new one
    /// takes the session's `innodb_ft_enable_stopword` and stopword table
    /// (`super::stopwords`).
    pub(super) fn settle_fulltext(
        &mut self,
        s: &crate::session::Session,
        old: Option<&TableDef>,
    ) -> Result<(), SqlError> {
        let stopwords = s.bool_var("innodb_ft_enable_stopword");
        // Read once, for the first new index that needs it.
        let mut table = None;
        for ft in &mut self.def.fulltext {
            let before = old.and_then(|o| {
                o.fulltext
                    .iter()
                    .find(|f| f.name.eq_ignore_ascii_case(&ft.name) && f.columns == ft.columns)
            });
            match before {
                Some(b) => {
                    ft.parser = b.parser;
                    ft.use_stopwords = b.use_stopwords;
                    ft.stopword_table = b.stopword_table.clone();
                }
                None => {
                    ft.use_stopwords = stopwords;
                    ft.stopword_table = match (stopwords, &table) {
                        (false, _) => None,
                        (true, Some(t)) => Clone::clone(t),
                        (true, None) => table.insert(super::stopwords::for_new_index(s)?).clone(),
                    };
                }
            }
        }
        Ok(())
    }
}

impl Work {
    /// An empty table definition.
    pub fn new(name: &str, collation: Collation) -> Work {
        Work {
            name: name.to_string(),
            cols: Vec::new(),
            keys: Vec::new(),
            next_id: 0,
            collation,
            engine: "InnoDB".into(),
            row_format: None,
            comment: String::new(),
            options: Vec::new(),
            notes: Vec::new(),
            checks: Vec::new(),
            foreign: Vec::new(),
            pending_foreign: Vec::new(),
        }
    }

    /// The definition of an existing table, every column with its origin.
    pub fn from_table(def: &TableDef, meta: &TableMeta) -> Work {
        let collation =
            Collation::from_name(&meta.collation).unwrap_or(Collation::Utf8mb4GeneralCi);
        let mut w = Work::new(&def.name, collation);
        w.engine = meta.engine.clone();
        w.row_format = meta.row_format.clone();
        w.comment = meta.comment.clone();
        w.options = meta.options.clone();
        w.checks = meta.checks.clone();
        // Column ids are the original positions.
        w.foreign = meta.foreign_keys.clone();
        for (i, c) in def.columns.iter().enumerate() {
            w.cols.push(WCol {
                id: i,
                def: c.clone(),
                meta: meta.columns.get(i).cloned().unwrap_or_default(),
                origin: Some(i),
                auto_inc: def.auto_increment == Some(i),
                explicit_null: false,
            });
        }
        w.next_id = def.columns.len();
        let parts = |idx: &IndexDef| {
            idx.columns
                .iter()
                .map(|c| WPart {
                    col: c.column,
                    descending: c.descending,
                    prefix: c.prefix_len,
                })
                .collect()
        };
        if let Some(pk) = &def.primary_key {
            w.keys.push(WKey {
                name: "PRIMARY".into(),
                kind: KeyKind::Primary,
                parts: parts(pk),
                comment: meta.index_comment("PRIMARY").to_string(),
            });
        }
        for idx in &def.secondary {
            w.keys.push(WKey {
                name: idx.name.clone(),
                kind: if idx.unique {
                    KeyKind::Unique
                } else {
                    KeyKind::Index
                },
                parts: parts(idx),
                comment: meta.index_comment(&idx.name).to_string(),
            });
        }
        for (name, cols) in &meta.fulltext {
            w.keys.push(WKey {
                name: name.clone(),
                kind: KeyKind::Fulltext,
                parts: cols
                    .iter()
                    .map(|&c| WPart {
                        col: c,
                        descending: false,
                        prefix: None,
                    })
                    .collect(),
                comment: meta.index_comment(name).to_string(),
            });
        }
        w
    }

    /// A fresh column id.
    pub fn new_id(&mut self) -> usize {
        self.next_id += 1;
        self.next_id - 1
    }

    /// Position of the column called `name` (case-insensitive).
    pub fn col_pos(&self, name: &str) -> Option<usize> {
        self.cols
            .iter()
            .position(|c| c.def.name.eq_ignore_ascii_case(name))
    }

    /// The column with id `id`.
    pub fn col_by_id(&self, id: usize) -> Option<&WCol> {
        self.cols.iter().find(|c| c.id == id)
    }

    /// Position of the key called `name` (case-insensitive).
    pub fn key_pos(&self, name: &str) -> Option<usize> {
        self.keys
            .iter()
            .position(|k| k.name.eq_ignore_ascii_case(name))
    }

    /// MySQL's name for an unnamed key on `first` (the column name, then
    /// `name_2`, `name_3`, ... when taken or when it is `PRIMARY`).
    pub fn unique_key_name(&self, first: &str) -> String {
        let taken = |n: &str| self.key_pos(n).is_some() || n.eq_ignore_ascii_case("PRIMARY");
        if !taken(first) {
            return first.to_string();
        }
        (2..100)
            .map(|i| format!("{first}_{i}"))
            .find(|n| !taken(n))
            .unwrap_or_else(|| "not_specified".to_string())
    }

    /// Removes column `pos` and its parts from every key; keys left without
    /// columns disappear (as in MySQL).
    pub fn remove_column(&mut self, pos: usize) {
        let id = self.cols.remove(pos).id;
        for k in &mut self.keys {
            k.parts.retain(|p| p.col != id);
        }
        self.keys.retain(|k| !k.parts.is_empty());
    }

    /// Builds the engine definition and the metadata (see the module
    /// documentation).
    pub fn finish(&self) -> Result<Finished, SqlError> {
        if !self.cols.is_empty() && self.cols.iter().all(|c| c.meta.invisible) {
            return Err(SqlError::new(1113, "A table must have at least 1 column"));
        }
        if self.cols.iter().filter(|c| c.auto_inc).count() > 1 {
            return Err(SqlError::new(
                1075,
                "Incorrect table definition; there can be only one auto column and it must be defined as a key",
            ));
        }
        if !self.pending_foreign.is_empty() {
            return Err(SqlError::new(
                crate::error::code::UNKNOWN,
                "foreign keys of the statement were not resolved",
            ));
        }
        let pos_of = |id: usize| self.cols.iter().position(|c| c.id == id);
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by_key(|&i| self.key_rank(&self.keys[i]));
        let mut def = TableDef {
            name: self.name.clone(),
            columns: self.cols.iter().map(|c| c.def.clone()).collect(),
            primary_key: None,
            secondary: Vec::new(),
            auto_increment: self.cols.iter().position(|c| c.auto_inc),
            fulltext: Vec::new(),
        };
        let mut fulltext = Vec::new();
        let mut index_comments = Vec::new();
        for i in order {
            let k = &self.keys[i];
            let mut columns = Vec::with_capacity(k.parts.len());
            for p in &k.parts {
                let Some(pos) = pos_of(p.col) else {
                    return Err(SqlError::new(
                        crate::error::code::UNKNOWN,
                        format!("key '{}' refers to a dropped column", k.name),
                    ));
                };
                let ty = &self.cols[pos].def.ty;
                if k.kind == KeyKind::Fulltext && !super::types::is_text(ty) {
                    return Err(SqlError::new(
                        1283,
                        format!(
                            "Column '{}' cannot be part of FULLTEXT index",
                            self.cols[pos].def.name
                        ),
                    ));
                }
                columns.push(IndexColumn {
                    column: pos,
                    descending: p.descending,
                    prefix_len: p.prefix.filter(|&n| !covers_whole(ty, n)),
                });
            }
            if !k.comment.is_empty() {
                index_comments.push((k.name.clone(), k.comment.clone()));
            }
            let idx = IndexDef {
                name: k.name.clone(),
                columns,
                unique: k.kind == KeyKind::Unique,
            };
            match k.kind {
                KeyKind::Primary => def.primary_key = Some(idx),
                KeyKind::Unique | KeyKind::Index => def.secondary.push(idx),
                KeyKind::Fulltext => {
                    let columns: Vec<usize> = idx.columns.iter().map(|c| c.column).collect();
                    def.fulltext.push(larch_engine::table::FulltextIndexDef {
                        name: k.name.clone(),
                        columns: columns.clone(),
                        parser: larch_engine::table::FulltextParserDef::Builtin,
                        use_stopwords: true,
                        stopword_table: None,
                    });
                    fulltext.push((k.name.clone(), columns));
                }
            }
        }
        let mut foreign_keys = Vec::with_capacity(self.foreign.len());
        for fk in &self.foreign {
            let columns = fk
                .columns
                .iter()
                .map(|&id| pos_of(id))
                .collect::<Option<Vec<usize>>>()
                .ok_or_else(|| {
                    SqlError::new(
                        crate::error::code::UNKNOWN,
                        format!("foreign key '{}' refers to a dropped column", fk.name),
                    )
                })?;
            foreign_keys.push(super::foreign::ForeignKey {
                columns,
                ..fk.clone()
            });
        }
        let meta = TableMeta {
            foreign_keys,
            columns: self.cols.iter().map(|c| c.meta.clone()).collect(),
            engine: self.engine.clone(),
            charset: self.collation.charset().name().to_string(),
            collation: self.collation.name().to_string(),
            row_format: self.row_format.clone(),
            comment: self.comment.clone(),
            fulltext,
            index_comments,
            checks: self.checks.clone(),
            options: self.options.clone(),
        };
        super::generated::validate(&def, &meta)?;
        super::defaults::validate(&def, &meta)?;
        super::doc_id::check(&def)?;
        Ok(Finished {
            def,
            meta,
            origin: self.cols.iter().map(|c| c.origin).collect(),
        })
    }

    /// MySQL's `sort_keys` order as a sort key (stable sort keeps definition
    /// order among equals).
    fn key_rank(&self, k: &WKey) -> (u8, u8, u8, u8) {
        let nullable = k
            .parts
            .iter()
            .any(|p| self.col_by_id(p.col).is_some_and(|c| c.def.nullable));
        let partial = k.parts.iter().any(|p| {
            p.prefix.is_some_and(|n| {
                self.col_by_id(p.col)
                    .is_some_and(|c| !covers_whole(&c.def.ty, n))
            })
        });
        match k.kind {
            KeyKind::Primary => (0, 0, 0, 0),
            KeyKind::Unique => (0, u8::from(nullable), 1, u8::from(partial)),
            KeyKind::Index => (1, 0, 0, 0),
            KeyKind::Fulltext => (2, 0, 0, 0),
        }
    }
}

/// True when a prefix of `n` covers a whole CHAR/VARCHAR/BINARY/VARBINARY
/// column (MySQL then keys the whole column).
fn covers_whole(ty: &ColumnType, n: u32) -> bool {
    let is_lob = matches!(ty, ColumnType::Text { .. } | ColumnType::Blob { .. });
    !is_lob && ty.max_chars() == Some(u64::from(n))
}
