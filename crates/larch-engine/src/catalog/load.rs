//! Opening the data dictionary: the dictionary table's own definition, creating
//! it in a new data directory, loading every row into the cache, and the
//! start-up checks (tablespaces no table refers to, `CHECK TABLE` of every
//! table). Loading is the only place rows of every kind are decoded; a row
//! of an unknown kind or shape stops the open rather than being skipped.

use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::TriggerEntry;
use super::{
    codec, routines, Cache, Catalog, DatabaseEntry, DictionaryCheck, ProgramEntry, ProgramKind,
    TableEntry, ViewEntry,
};
use super::{
    KIND_DATABASE, KIND_DDL_LOG, KIND_PROGRAM, KIND_SYSTEM, KIND_TABLE, KIND_TRIGGER, KIND_VIEW,
};
use crate::error::{EngineError, Result};
use crate::fts::service::FulltextService;
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, LobKind, Value};
use crate::space::SYSTEM_SPACE;
use crate::storage::Storage;
use crate::table::{
    ColumnDef, IndexDef, KeyRange, ReadContext, Table, TableDef, TableRoots, CLUSTERED,
};
/// The dictionary table's own definition.
fn dictionary_def() -> TableDef {
    let name = |n: &str| {
        ColumnDef::new(
            n,
            ColumnType::Varchar {
                max_len: 256,
                collation: Collation::Utf8mb4Bin,
            },
        )
    };
    let blob = |n: &str| {
        ColumnDef::new(
            n,
            ColumnType::Blob {
                kind: LobKind::Long,
            },
        )
    };
    TableDef {
        name: "larch_dictionary".into(),
        columns: vec![
            ColumnDef::new(
                "id",
                ColumnType::Int {
                    bytes: 8,
                    unsigned: true,
                },
            ),
            ColumnDef::new(
                "kind",
                ColumnType::Int {
                    bytes: 1,
                    unsigned: true,
                },
            ),
            name("schema_name"),
            name("name"),
            blob("definition"),
            blob("sql_meta"),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

impl Catalog {
    /// Opens the dictionary of `storage`, creating it in a new data directory,
    /// and drops tablespaces no table refers to (remnants of interrupted DDL).
    pub fn open(storage: Arc<Storage>) -> Result<Catalog> {
        let catalog = Self::load_dictionary(storage)?;
        catalog.recover_ddl_log()?;
        for id in catalog.orphan_spaces()? {
            let name = catalog.storage.spaces().get(id)?.name.clone();
            tracing::warn!(space = id, file = %name, "dropping a tablespace no table refers to (left by an interrupted CREATE or DROP TABLE)");
            catalog.storage.drop_tablespace(id)?;
        }
        Ok(catalog)
    }

    /// Opens the dictionary for verification only: nothing is created or
    /// dropped. `None` when the data directory has no dictionary yet.
    pub fn open_for_check(storage: Arc<Storage>) -> Result<Option<Catalog>> {
        if storage.dictionary_root()?.is_none() {
            return Ok(None);
        }
        Self::load_dictionary(storage).map(Some)
    }

    fn load_dictionary(storage: Arc<Storage>) -> Result<Catalog> {
        let dictionary = match storage.dictionary_root()? {
            Some(root) => Table::open(
                &storage,
                dictionary_def(),
                &TableRoots {
                    space: SYSTEM_SPACE,
                    clustered: root,
                    secondary: vec![],
                    auxiliary: vec![],
                },
            )?,
            None => {
                let t = Table::create(&storage, dictionary_def(), SYSTEM_SPACE)?;
                storage.set_dictionary_root(t.roots().clustered)?;
                t
            }
        };
        let catalog = Catalog {
            storage,
            services: std::sync::OnceLock::new(),
            dictionary,
            cache: RwLock::new(Cache::default()),
            ddl: Mutex::new(()),
            fulltext: FulltextService::new(
                crate::fts::sync::SyncPolicy::default(),
                crate::fts::table_fulltext::FulltextSettings::default(),
            ),
        };
        catalog.load()?;
        Ok(catalog)
    }

    fn load(&self) -> Result<()> {
        let mut cache = Cache {
            next_id: 1,
            ..Cache::default()
        };
        let mut c = self.dictionary.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            false,
            None,
        )?;
        while let Some((_, row)) = c.next_row()? {
            let (id, kind, schema, name, def, meta) = match row.as_slice() {
                [Value::UInt(id), Value::UInt(kind), Value::Str(s), Value::Str(n), Value::Bytes(d), Value::Bytes(m)] => {
                    (*id, *kind, s.clone(), n.clone(), d, m.clone())
                }
                _ => {
                    return Err(EngineError::Internal(format!(
                        "dictionary row of unexpected shape: {row:?}"
                    )))
                }
            };
            cache.next_id = cache.next_id.max(id + 1);
            match kind {
                KIND_DATABASE => {
                    cache
                        .databases
                        .insert(name, DatabaseEntry { id, sql_meta: meta });
                }
                KIND_TABLE => {
                    let (def, roots) = codec::decode(def)?;
                    cache.tables.insert(
                        (schema.clone(), name.clone()),
                        TableEntry {
                            id,
                            schema,
                            name,
                            def,
                            roots,
                            sql_meta: meta,
                        },
                    );
                }
                KIND_VIEW => {
                    cache.views.insert(
                        (schema.clone(), name.clone()),
                        ViewEntry {
                            id,
                            schema,
                            name,
                            definition: def.clone(),
                        },
                    );
                }
                KIND_PROGRAM => {
                    let kind = meta
                        .first()
                        .and_then(|b| ProgramKind::from_byte(*b))
                        .ok_or_else(|| {
                            EngineError::Internal(format!(
                                "dictionary row {id} has no program kind"
                            ))
                        })?;
                    cache.programs.insert(
                        routines::key(&schema, kind, &name),
                        ProgramEntry {
                            id,
                            kind,
                            schema,
                            name,
                            definition: def.clone(),
                        },
                    );
                }
                KIND_TRIGGER => {
                    let table = String::from_utf8(meta).map_err(|_| {
                        EngineError::Internal(format!("dictionary row {id} has a bad table name"))
                    })?;
                    cache.triggers.insert(
                        (schema.clone(), name.clone()),
                        TriggerEntry {
                            id,
                            schema,
                            name,
                            table,
                            definition: def.clone(),
                        },
                    );
                }
                KIND_SYSTEM => {
                    cache.system.insert(name, (id, meta));
                }
                KIND_DDL_LOG => cache.ddl_log.push((id, def.clone())),
                _ => {
                    return Err(EngineError::Internal(format!(
                        "dictionary row {id} has unknown kind {kind}"
                    )))
                }
            }
        }
        *self.cache.write() = cache;
        Ok(())
    }

    /// File-per-table tablespaces that no table refers to.
    pub fn orphan_spaces(&self) -> Result<Vec<u32>> {
        let used: Vec<u32> = self
            .cache
            .read()
            .tables
            .values()
            .map(|t| t.roots.space)
            .collect();
        let first_user_space = self.storage.config().undo_tablespaces + 1;
        Ok(self
            .storage
            .spaces()
            .ids()
            .into_iter()
            .filter(|id| *id >= first_user_space && !used.contains(id))
            .collect())
    }

    /// `CHECK TABLE` of one table (see [`Table::check`]): its indexes, and
    /// for a table with FULLTEXT indexes their auxiliary tables and the
    /// agreement of documents and rows.
    pub fn check_table(&self, schema: &str, name: &str) -> Result<crate::table::TableCheck> {
        let mut report = self.table(schema, name)?.check()?;
        if let Some(ft) = self.table_fulltext(schema, name)? {
            for aux in ft.auxiliary_tables() {
                report.problems.extend(aux.check()?.problems);
            }
            report.problems.extend(ft.check()?);
        }
        Ok(report)
    }

    /// `CHECK TABLE` of every table (see [`Table::check`]), in name order, plus
    /// a problem for every tablespace no table refers to.
    pub fn check_tables(&self) -> Result<DictionaryCheck> {
        let names: Vec<(String, String)> = self.cache.read().tables.keys().cloned().collect();
        let mut out = Vec::with_capacity(names.len());
        for (schema, name) in names {
            let report = self.check_table(&schema, &name)?;
            out.push((format!("{schema}.{name}"), report));
        }
        let mut orphans = Vec::new();
        for id in self.orphan_spaces()? {
            let file = self.storage.spaces().get(id)?.name.clone();
            orphans.push(format!("tablespace {id} ('{file}') belongs to no table"));
        }
        Ok(DictionaryCheck {
            tables: out,
            orphans,
        })
    }
}
