//! Tables in the dictionary: opening (with the transaction services
//! attached), CREATE, DROP, RENAME and the SQL layer's metadata of a table.
//! Each change is one dictionary row change made durable before the cache
//! changes, so a crash leaves the old or the new state (module docs of
//! [`super`]).

use std::sync::Arc;

use super::{check_name, codec, file_name_of, schema_err, Catalog, TableEntry, KIND_TABLE};
use crate::error::Result;
use crate::fts::service::FulltextService;
use crate::fts::table_fulltext::TableFulltext;
use crate::table::{Table, TableDef, TransactionServices};

impl Catalog {
    /// Attaches the transaction services to user tables opened from now on.
    /// Call before any user table is opened.
    pub fn set_services(&self, services: Arc<TransactionServices>) {
        if self.services.set(services).is_err() {
            tracing::warn!("the catalog's transaction services were already set");
        }
    }

    /// Wraps a user table, with the services attached and registered.
    fn attach(&self, table: Table) -> Arc<Table> {
        match self.services.get() {
            Some(s) => {
                let t = Arc::new(table.with_services(s));
                s.register_table(&t);
                t
            }
            None => Arc::new(table),
        }
    }

    /// The full-text service (cache budget, settings, sync task).
    pub fn fulltext(&self) -> &Arc<FulltextService> {
        &self.fulltext
    }

    /// The FULLTEXT indexes of `schema.name` (`None` if it has none).
    pub fn table_fulltext(&self, schema: &str, name: &str) -> Result<Option<Arc<TableFulltext>>> {
        let Some(e) = self.table_entry(schema, name) else {
            return Ok(None);
        };
        if e.def.fulltext.is_empty() {
            return Ok(None);
        }
        self.table(schema, name)?;
        Ok(self.cache.read().open_fulltext.get(&e.id).cloned())
    }

    /// Opens (or moves from the table's previous open form) the FULLTEXT
    /// indexes of table entry `e`, opened as `t`. Called under the cache's
    /// write lock.
    fn attach_fulltext(
        &self,
        open_fulltext: &mut std::collections::BTreeMap<u64, Arc<TableFulltext>>,
        e: &TableEntry,
        t: &Arc<Table>,
    ) -> Result<()> {
        if e.def.fulltext.is_empty() {
            return Ok(());
        }
        let ft = match open_fulltext.get(&e.id) {
            Some(ft) => {
                ft.rebind(t)?;
                ft.clone()
            }
            None => TableFulltext::open(t, &e.roots.auxiliary, &self.fulltext)?,
        };
        open_fulltext.insert(e.id, ft);
        Ok(())
    }

    /// The table whose clustered index is `root` in tablespace `space` (what
    /// undo records name), opened if needed; also a full-text auxiliary
    /// table of a user table.
    pub fn table_by_identity(&self, space: u32, root: u32) -> Option<Arc<Table>> {
        let (schema, name, auxiliary) = self
            .cache
            .read()
            .tables
            .values()
            .find(|e| {
                e.roots.space == space
                    && (e.roots.clustered == root || e.roots.auxiliary.contains(&root))
            })
            .map(|e| (e.schema.clone(), e.name.clone(), e.roots.clustered != root))?;
        let table = self.table(&schema, &name).ok()?;
        if !auxiliary {
            return Some(table);
        }
        let ft = self.table_fulltext(&schema, &name).ok()??;
        ft.auxiliary_tables()
            .into_iter()
            .find(|t| t.undo_identity() == (space, root))
            .cloned()
    }

    /// A number that changes whenever a table is created, dropped, renamed
    /// or has its SQL metadata replaced (for caches derived from entries).
    pub fn tables_generation(&self) -> u64 {
        self.cache.read().tables_generation
    }

    /// The dictionary entries of every table, in (schema, name) order.
    pub fn table_entries(&self) -> Vec<TableEntry> {
        self.cache.read().tables.values().cloned().collect()
    }

    /// The dictionary entry of the table with dictionary id `id`, if it
    /// still exists (ids are stable across renames).
    pub fn table_entry_by_id(&self, id: u64) -> Option<TableEntry> {
        self.cache
            .read()
            .tables
            .values()
            .find(|e| e.id == id)
            .cloned()
    }

    /// The dictionary entry of a table, if it exists.
    pub fn table_entry(&self, schema: &str, name: &str) -> Option<TableEntry> {
        self.cache
            .read()
            .tables
            .get(&(schema.to_string(), name.to_string()))
            .cloned()
    }

    /// The open table `schema.name` (error 1146 if it does not exist).
    pub fn table(&self, schema: &str, name: &str) -> Result<Arc<Table>> {
        let key = (schema.to_string(), name.to_string());
        let id = {
            let c = self.cache.read();
            let Some(e) = c.tables.get(&key) else {
                return Err(schema_err(
                    1146,
                    format!("Table '{schema}.{name}' doesn't exist"),
                ));
            };
            if let Some(t) = c.open.get(&e.id) {
                return Ok(t.clone());
            }
            e.id
        };
        let mut c = self.cache.write();
        if let Some(t) = c.open.get(&id) {
            return Ok(t.clone());
        }
        let e = c
            .tables
            .get(&key)
            .filter(|e| e.id == id)
            .cloned()
            .ok_or_else(|| schema_err(1146, format!("Table '{schema}.{name}' doesn't exist")))?;
        let t = self.attach(Table::open(&self.storage, e.def.clone(), &e.roots)?);
        let c = &mut *c;
        self.attach_fulltext(&mut c.open_fulltext, &e, &t)?;
        c.open.insert(id, t.clone());
        Ok(t)
    }

    /// Creates a table in its own tablespace (errors 1049, 1050, and the
    /// definition errors of [`TableDef::validate`]).
    pub fn create_table(&self, schema: &str, def: TableDef, sql_meta: &[u8]) -> Result<Arc<Table>> {
        check_name("table", &def.name)?;
        let _ddl = self.ddl.lock();
        let id = self.cache.read().next_id;
        self.create_table_locked(schema, def, sql_meta, id)
    }

    /// [`Catalog::create_table`] under the DDL mutex, with dictionary id `id`.
    pub(super) fn create_table_locked(
        &self,
        schema: &str,
        def: TableDef,
        sql_meta: &[u8],
        id: u64,
    ) -> Result<Arc<Table>> {
        let name = def.name.clone();
        {
            let c = self.cache.read();
            if !c.databases.contains_key(schema) {
                return Err(Self::unknown_database(schema));
            }
            let key = (schema.to_string(), name.clone());
            if c.tables.contains_key(&key) || c.views.contains_key(&key) {
                return Err(schema_err(1050, format!("Table '{name}' already exists")));
            }
        }
        let file = self.free_file_name(schema, &name, id);
        let table = self.attach(Table::create_file_per_table(
            &self.storage,
            def.clone(),
            &file,
        )?);
        let mut roots = table.roots();
        let mut fulltext = None;
        if !def.fulltext.is_empty() {
            match TableFulltext::create(&table, &self.fulltext) {
                Ok((ft, aux)) => {
                    roots.auxiliary = aux;
                    fulltext = Some(ft);
                }
                Err(e) => {
                    drop(table);
                    if let Err(drop_err) = self.storage.drop_tablespace(roots.space) {
                        tracing::warn!(error = %drop_err, "could not remove the tablespace of a failed CREATE TABLE");
                    }
                    return Err(e);
                }
            }
        }
        let row = Self::row(
            id,
            KIND_TABLE,
            schema,
            &name,
            codec::encode(&def, &roots)?,
            sql_meta,
        );
        if let Err(e) = self.write_row(&row, false) {
            drop(fulltext);
            drop(table);
            if let Err(drop_err) = self.storage.drop_tablespace(roots.space) {
                tracing::warn!(error = %drop_err, "could not remove the tablespace of a failed CREATE TABLE");
            }
            return Err(e);
        }
        let mut c = self.cache.write();
        if let Some(ft) = fulltext {
            c.open_fulltext.insert(id, ft);
        }
        c.next_id = c.next_id.max(id + 1);
        c.tables_generation += 1;
        c.tables.insert(
            (schema.to_string(), name.clone()),
            TableEntry {
                id,
                schema: schema.to_string(),
                name,
                def,
                roots,
                sql_meta: sql_meta.to_vec(),
            },
        );
        c.open.insert(id, table.clone());
        Ok(table)
    }

    /// `<db>/<table>.ibd`, or with the dictionary id appended when a renamed
    /// table still uses that file name.
    fn free_file_name(&self, schema: &str, name: &str, id: u64) -> String {
        let base = format!("{}/{}", file_name_of(schema), file_name_of(name));
        let plain = format!("{base}.ibd");
        let vfs = self.storage.spaces().vfs();
        if vfs.exists(&self.storage.spaces().path_of(&plain)) {
            format!("{base}@@{id}.ibd")
        } else {
            plain
        }
    }

    /// Drops a table and its tablespace (error 1051 if it does not exist).
    pub fn drop_table(&self, schema: &str, name: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let Some(e) = self.cache.read().tables.get(&key).cloned() else {
            return Err(schema_err(1051, format!("Unknown table '{schema}.{name}'")));
        };
        self.delete_row(e.id)?;
        {
            let mut c = self.cache.write();
            c.tables.remove(&key);
            c.open.remove(&e.id);
            c.open_fulltext.remove(&e.id);
            c.tables_generation += 1;
        }
        self.forget_scratch(e.id)?;
        self.storage.drop_tablespace(e.roots.space)
    }

    /// Renames a table, possibly into another database (errors 1049, 1050, 1146).
    pub fn rename_table(
        &self,
        schema: &str,
        name: &str,
        new_schema: &str,
        new_name: &str,
    ) -> Result<()> {
        check_name("table", new_name)?;
        if self.is_view(schema, name) {
            return self.rename_view(schema, name, new_schema, new_name);
        }
        let _ddl = self.ddl.lock();
        let (e, id) = {
            let c = self.cache.read();
            let Some(e) = c
                .tables
                .get(&(schema.to_string(), name.to_string()))
                .cloned()
            else {
                return Err(schema_err(
                    1146,
                    format!("Table '{schema}.{name}' doesn't exist"),
                ));
            };
            if !c.databases.contains_key(new_schema) {
                return Err(Self::unknown_database(new_schema));
            }
            let new_key = (new_schema.to_string(), new_name.to_string());
            if c.tables.contains_key(&new_key) || c.views.contains_key(&new_key) {
                return Err(schema_err(
                    1050,
                    format!("Table '{new_name}' already exists"),
                ));
            }
            let id = e.id;
            (e, id)
        };
        let mut def = e.def.clone();
        def.name = new_name.to_string();
        let row = Self::row(
            id,
            KIND_TABLE,
            new_schema,
            new_name,
            codec::encode(&def, &e.roots)?,
            &e.sql_meta,
        );
        self.write_row(&row, true)?;
        let mut c = self.cache.write();
        c.tables_generation += 1;
        c.tables.remove(&(schema.to_string(), name.to_string()));
        c.tables.insert(
            (new_schema.to_string(), new_name.to_string()),
            TableEntry {
                schema: new_schema.to_string(),
                name: new_name.to_string(),
                def,
                ..e
            },
        );
        Ok(())
    }

    /// Replaces the SQL layer's metadata of a table (one atomic change).
    pub fn set_table_meta(&self, schema: &str, name: &str, sql_meta: &[u8]) -> Result<()> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let Some(e) = self.cache.read().tables.get(&key).cloned() else {
            return Err(schema_err(
                1146,
                format!("Table '{schema}.{name}' doesn't exist"),
            ));
        };
        let row = Self::row(
            e.id,
            KIND_TABLE,
            schema,
            name,
            codec::encode(&e.def, &e.roots)?,
            sql_meta,
        );
        self.write_row(&row, true)?;
        let mut c = self.cache.write();
        c.tables_generation += 1;
        if let Some(t) = c.tables.get_mut(&key) {
            t.sql_meta = sql_meta.to_vec();
        }
        Ok(())
    }
}
