//! Triggers in the data dictionary: one dictionary row of kind 5 per
//! trigger, `(id, 5, schema, name, definition, table)`, where `definition`
//! is an opaque byte string owned by the SQL layer (the trigger's text,
//! timing, event, order and creation context; see `docs/catalog.md`) and
//! `sql_meta` holds the name of the table the trigger belongs to (UTF-8), so
//! that the dictionary can find a table's triggers.
//!
//! Names: triggers are one namespace per database (two tables of a database
//! cannot have triggers of the same name); names compare exactly, as table
//! names do (`lower_case_table_names=0`).
//!
//! Tables: a trigger follows its table by name. The SQL layer moves a
//! table's triggers when a user renames the table
//! ([`Catalog::rename_table_triggers`]) and drops them when a user drops
//! it ([`Catalog::drop_table_triggers`]); the internal renames of a copying
//! ALTER TABLE or TRUNCATE (which swap tables under temporary names) leave
//! them alone, so the rebuilt table keeps its triggers. DROP DATABASE drops
//! the database's triggers.
//!
//! Crash safety: CREATE inserts the row, CREATE OR REPLACE and a table
//! rename replace it under the same key, DROP deletes it; each is one B+tree
//! change in one mini-transaction made durable before the call returns, so a
//! crash leaves the old or the new trigger. Statements that change several
//! triggers (renaming or dropping a table with triggers) change them one
//! row at a time: a crash between two of them leaves some triggers under
//! the old table name, which DROP TRIGGER removes.

use crate::error::Result;

use super::{schema_err, Catalog, KIND_TRIGGER};

/// A trigger known to the dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerEntry {
    /// Dictionary id (stable across replacements and table renames).
    pub id: u64,
    pub schema: String,
    pub name: String,
    /// The table the trigger belongs to (in `schema`).
    pub table: String,
    /// The SQL layer's definition of the trigger.
    pub definition: Vec<u8>,
}

/// The cache key of a trigger: schema and name.
pub(super) type TriggerKey = (String, String);

impl Catalog {
    /// The trigger `schema.name`, if there is one.
    pub fn trigger(&self, schema: &str, name: &str) -> Option<TriggerEntry> {
        self.cache
            .read()
            .triggers
            .get(&(schema.to_string(), name.to_string()))
            .cloned()
    }

    /// True when the dictionary holds at least one trigger (the fast path
    /// of every data statement while there is none).
    pub fn has_triggers(&self) -> bool {
        !self.cache.read().triggers.is_empty()
    }

    /// Every trigger (of one schema, or of all with `None`), in schema and
    /// name order.
    pub fn triggers(&self, schema: Option<&str>) -> Vec<TriggerEntry> {
        self.cache
            .read()
            .triggers
            .iter()
            .filter(|((s, _), _)| schema.is_none_or(|x| x == s))
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// The triggers of table `schema.table`, in name order.
    pub fn table_triggers(&self, schema: &str, table: &str) -> Vec<TriggerEntry> {
        let c = self.cache.read();
        if c.triggers.is_empty() {
            return Vec::new();
        }
        c.triggers
            .iter()
            .filter(|((s, _), t)| s == schema && t.table == table)
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// Stores a trigger of table `schema.table`: creates it, or with
    /// `replace` replaces an existing trigger of that name in place. Errors:
    /// 1049 for an unknown database, 1146 for a missing table, 1359 when the
    /// name is taken and `replace` is false.
    pub fn store_trigger(
        &self,
        schema: &str,
        name: &str,
        table: &str,
        definition: &[u8],
        replace: bool,
    ) -> Result<()> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let (existing, id) = {
            let c = self.cache.read();
            if !c.databases.contains_key(schema) {
                return Err(Self::unknown_database(schema));
            }
            if !c
                .tables
                .contains_key(&(schema.to_string(), table.to_string()))
            {
                return Err(schema_err(
                    1146,
                    format!("Table '{schema}.{table}' doesn't exist"),
                ));
            }
            let existing = c.triggers.get(&key).map(|t| t.id);
            if existing.is_some() && !replace {
                return Err(schema_err(
                    1359,
                    format!("Trigger '{schema}.{name}' already exists"),
                ));
            }
            (existing, existing.unwrap_or(c.next_id))
        };
        let entry = TriggerEntry {
            id,
            schema: schema.to_string(),
            name: name.to_string(),
            table: table.to_string(),
            definition: definition.to_vec(),
        };
        self.write_trigger(&entry, existing.is_some())?;
        let mut c = self.cache.write();
        if existing.is_none() {
            c.next_id = id + 1;
        }
        c.triggers.insert(key, entry);
        Ok(())
    }

    /// Writes a trigger's row (replacing the row of its id when `exists`)
    /// and makes it durable.
    fn write_trigger(&self, t: &TriggerEntry, exists: bool) -> Result<()> {
        let row = Self::row(
            t.id,
            KIND_TRIGGER,
            &t.schema,
            &t.name,
            t.definition.clone(),
            t.table.as_bytes(),
        );
        self.write_row(&row, exists)
    }

    /// Drops a trigger; false when there is none of that name.
    pub fn drop_trigger(&self, schema: &str, name: &str) -> Result<bool> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let Some(t) = self.cache.read().triggers.get(&key).cloned() else {
            return Ok(false);
        };
        self.delete_row(t.id)?;
        self.cache.write().triggers.remove(&key);
        Ok(true)
    }

    /// Drops every trigger of table `schema.table` (DROP TABLE).
    pub fn drop_table_triggers(&self, schema: &str, table: &str) -> Result<()> {
        for t in self.table_triggers(schema, table) {
            self.drop_trigger(schema, &t.name)?;
        }
        Ok(())
    }

    /// Moves the triggers of `schema.table` to `new_table` (RENAME TABLE in
    /// the same database), rewriting each definition with `rewrite` (the SQL
    /// layer renames the table in the trigger's text). Error 1435 when the
    /// table moves to another database and has triggers, as MariaDB.
    pub fn rename_table_triggers(
        &self,
        schema: &str,
        table: &str,
        new_schema: &str,
        new_table: &str,
        rewrite: &dyn Fn(&[u8]) -> Vec<u8>,
    ) -> Result<()> {
        let triggers = self.table_triggers(schema, table);
        if triggers.is_empty() {
            return Ok(());
        }
        if schema != new_schema {
            return Err(schema_err(1435, "Trigger in wrong schema".into()));
        }
        let _ddl = self.ddl.lock();
        for t in triggers {
            let moved = TriggerEntry {
                table: new_table.to_string(),
                definition: rewrite(&t.definition),
                ..t
            };
            self.write_trigger(&moved, true)?;
            self.cache
                .write()
                .triggers
                .insert((moved.schema.clone(), moved.name.clone()), moved);
        }
        Ok(())
    }

    /// Error 1435 when table `schema.table` has triggers and would move to
    /// another database (checked before a rename changes anything).
    pub fn check_trigger_schema(&self, schema: &str, table: &str, new_schema: &str) -> Result<()> {
        if schema != new_schema && !self.table_triggers(schema, table).is_empty() {
            return Err(schema_err(1435, "Trigger in wrong schema".into()));
        }
        Ok(())
    }

    /// Drops every trigger of a database (DROP DATABASE).
    pub(super) fn drop_triggers_of(&self, schema: &str) -> Result<()> {
        for t in self.triggers(Some(schema)) {
            self.drop_trigger(schema, &t.name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::catalog::Catalog;
    use crate::config::EngineConfig;
    use crate::error::Result;
    use crate::io::{SimVfs, Vfs};
    use crate::record::value::ColumnType;
    use crate::storage::Storage;
    use crate::table::{ColumnDef, TableDef};

    fn open(vfs: &Arc<dyn Vfs>) -> Result<(Arc<Storage>, Catalog)> {
        let mut c = EngineConfig::new("/d");
        c.undo_tablespaces = 1;
        c.log_file_size = 4 << 20;
        let s = Arc::new(Storage::open_or_create(c, vfs.clone())?);
        Ok((s.clone(), Catalog::open(s)?))
    }

    fn table(name: &str) -> TableDef {
        TableDef {
            name: name.into(),
            columns: vec![ColumnDef::new(
                "a",
                ColumnType::Int {
                    bytes: 4,
                    unsigned: false,
                },
            )],
            primary_key: None,
            secondary: vec![],
            auto_increment: None,
            fulltext: Vec::new(),
        }
    }

    #[test]
    fn triggers_persist_follow_renames_and_go_with_their_database() -> Result<()> {
        let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
        {
            let (_s, c) = open(&vfs)?;
            c.create_database("d", &[])?;
            c.create_table("d", table("t"), &[])?;
            c.store_trigger("d", "tr", "t", b"one", false)?;
            let e = c.store_trigger("d", "tr", "t", b"two", false);
            assert!(matches!(
                e,
                Err(crate::error::EngineError::Schema { errno: 1359, .. })
            ));
            c.store_trigger("d", "tr", "t", b"two", true)?;
            c.store_trigger("d", "tr2", "t", b"x", false)?;
            let missing = c.store_trigger("d", "tr3", "nope", b"x", false);
            assert!(matches!(
                missing,
                Err(crate::error::EngineError::Schema { errno: 1146, .. })
            ));
            c.rename_table("d", "t", "d", "u")?;
            c.rename_table_triggers("d", "t", "d", "u", &|b| [b, b"!"].concat())?;
            assert!(c.drop_trigger("d", "tr2")?);
            assert!(!c.drop_trigger("d", "tr2")?);
        }
        let (_s, c) = open(&vfs)?;
        let all = c.triggers(Some("d"));
        assert_eq!(all.len(), 1);
        assert_eq!(
            (
                all[0].name.as_str(),
                all[0].table.as_str(),
                all[0].definition.as_slice()
            ),
            ("tr", "u", b"two!".as_slice())
        );
        assert!(c.table_triggers("d", "t").is_empty());
        c.create_database("e", &[])?;
        assert!(c.check_trigger_schema("d", "u", "e").is_err());
        c.drop_database("d")?;
        assert!(!c.has_triggers());
        Ok(())
    }
}
