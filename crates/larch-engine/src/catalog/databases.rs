//! Databases in the dictionary: CREATE and DROP DATABASE (a database is one
//! dictionary row plus its directory; dropping one drops its stored programs,
//! views and tables first, each durably, then the row) and the lookups.

use super::{check_name, file_name_of, schema_err, Catalog, DatabaseEntry, KIND_DATABASE};
use crate::error::{EngineError, Result};

impl Catalog {
    /// Creates a database (error 1007 if it exists).
    pub fn create_database(&self, name: &str, sql_meta: &[u8]) -> Result<()> {
        check_name("database", name)?;
        let _ddl = self.ddl.lock();
        if self.cache.read().databases.contains_key(name) {
            return Err(schema_err(
                1007,
                format!("Can't create database '{name}'; database exists"),
            ));
        }
        let id = self.cache.read().next_id;
        let dir = self.storage.spaces().path_of(&file_name_of(name));
        self.storage.spaces().vfs().create_dir_all(&dir)?;
        self.write_row(
            &Self::row(id, KIND_DATABASE, "", name, Vec::new(), sql_meta),
            false,
        )?;
        let mut c = self.cache.write();
        c.next_id = id + 1;
        c.databases.insert(
            name.to_string(),
            DatabaseEntry {
                id,
                sql_meta: sql_meta.to_vec(),
            },
        );
        Ok(())
    }

    /// Drops a database and every table, view and stored program in it (error 1008 if it
    /// does not exist). Returns the names of the dropped tables.
    pub fn drop_database(&self, name: &str) -> Result<Vec<String>> {
        let tables = self.tables(name)?;
        self.drop_programs_of(name)?;
        self.drop_triggers_of(name)?;
        for v in self.views(name) {
            self.drop_view(name, &v)?;
        }
        for t in &tables {
            self.drop_table(name, t)?;
        }
        let _ddl = self.ddl.lock();
        let Some(db) = self.cache.read().databases.get(name).cloned() else {
            return Err(schema_err(
                1008,
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        };
        self.delete_row(db.id)?;
        self.cache.write().databases.remove(name);
        Ok(tables)
    }

    /// Every database name, sorted.
    pub fn databases(&self) -> Vec<String> {
        self.cache.read().databases.keys().cloned().collect()
    }

    /// True when the database exists.
    pub fn has_database(&self, name: &str) -> bool {
        self.cache.read().databases.contains_key(name)
    }

    /// The SQL layer's metadata of a database.
    pub fn database_meta(&self, name: &str) -> Option<Vec<u8>> {
        self.cache
            .read()
            .databases
            .get(name)
            .map(|d| d.sql_meta.clone())
    }

    pub(super) fn unknown_database(name: &str) -> EngineError {
        schema_err(1049, format!("Unknown database '{name}'"))
    }

    /// Table names of a database, sorted (error 1049 if it does not exist).
    pub fn tables(&self, schema: &str) -> Result<Vec<String>> {
        let c = self.cache.read();
        if !c.databases.contains_key(schema) {
            return Err(Self::unknown_database(schema));
        }
        Ok(c.tables
            .keys()
            .filter(|(s, _)| s == schema)
            .map(|(_, n)| n.clone())
            .collect())
    }
}
