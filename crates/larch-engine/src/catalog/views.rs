//! Views in the data dictionary: one dictionary row of kind 3 per view,
//! `(id, 3, schema, name, definition, empty)`, where `definition` is an
//! opaque byte string owned by the SQL layer (the view's SELECT text, column
//! list and options; see `docs/catalog.md`).
//!
//! Views share the table namespace of their database: a name is a table or a
//! view, never both ([`Catalog::create_table`] and [`Catalog::create_view`]
//! refuse a name the other kind holds, with 1050). A view has no tablespace.
//!
//! Crash safety is the tables': CREATE inserts the row, CREATE OR REPLACE /
//! ALTER VIEW and RENAME replace it under the same key, DROP deletes it; each
//! is one B+tree change in one mini-transaction, and the redo log is made
//! durable before the call returns, so a crash leaves the old or the new view.

use crate::error::Result;

use super::{check_name, schema_err, Catalog, KIND_VIEW};

/// A view known to the dictionary.
#[derive(Debug, Clone)]
pub struct ViewEntry {
    /// Dictionary id (stable across renames and replacements).
    pub id: u64,
    pub schema: String,
    pub name: String,
    /// The SQL layer's definition of the view.
    pub definition: Vec<u8>,
}

impl Catalog {
    /// The view `schema.name`, if there is one.
    pub fn view(&self, schema: &str, name: &str) -> Option<ViewEntry> {
        self.cache
            .read()
            .views
            .get(&(schema.to_string(), name.to_string()))
            .cloned()
    }

    /// View names of a database, sorted (empty for an unknown database).
    pub fn views(&self, schema: &str) -> Vec<String> {
        self.cache
            .read()
            .views
            .keys()
            .filter(|(s, _)| s == schema)
            .map(|(_, n)| n.clone())
            .collect()
    }

    /// Creates a view, or with `replace` replaces the definition of an
    /// existing view in place (errors 1049, 1050 when a table has the name or,
    /// without `replace`, a view has it).
    pub fn create_view(
        &self,
        schema: &str,
        name: &str,
        definition: &[u8],
        replace: bool,
    ) -> Result<()> {
        check_name("table", name)?;
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let (existing, id) = {
            let c = self.cache.read();
            if !c.databases.contains_key(schema) {
                return Err(Self::unknown_database(schema));
            }
            let existing = c.views.get(&key).map(|v| v.id);
            if c.tables.contains_key(&key) || (existing.is_some() && !replace) {
                return Err(schema_err(1050, format!("Table '{name}' already exists")));
            }
            (existing, existing.unwrap_or(c.next_id))
        };
        let row = Self::row(id, KIND_VIEW, schema, name, definition.to_vec(), &[]);
        self.write_row(&row, existing.is_some())?;
        let mut c = self.cache.write();
        if existing.is_none() {
            c.next_id = id + 1;
        }
        c.views.insert(
            key,
            ViewEntry {
                id,
                schema: schema.to_string(),
                name: name.to_string(),
                definition: definition.to_vec(),
            },
        );
        Ok(())
    }

    /// Drops a view (error 1051 if there is no such view).
    pub fn drop_view(&self, schema: &str, name: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let Some(v) = self.cache.read().views.get(&key).cloned() else {
            return Err(schema_err(1051, format!("Unknown table '{schema}.{name}'")));
        };
        self.delete_row(v.id)?;
        self.cache.write().views.remove(&key);
        Ok(())
    }

    /// Renames a view within its database (errors 1450 for another
    /// database, 1050 when the new name is taken, 1146 when there is no
    /// such view).
    pub fn rename_view(
        &self,
        schema: &str,
        name: &str,
        new_schema: &str,
        new_name: &str,
    ) -> Result<()> {
        check_name("table", new_name)?;
        let _ddl = self.ddl.lock();
        let key = (schema.to_string(), name.to_string());
        let new_key = (new_schema.to_string(), new_name.to_string());
        let v = {
            let c = self.cache.read();
            let Some(v) = c.views.get(&key).cloned() else {
                return Err(schema_err(
                    1146,
                    format!("Table '{schema}.{name}' doesn't exist"),
                ));
            };
            if schema != new_schema {
                return Err(schema_err(
                    1450,
                    format!("Changing schema from '{schema}' to '{new_schema}' is not allowed"),
                ));
            }
            if c.tables.contains_key(&new_key) || c.views.contains_key(&new_key) {
                return Err(schema_err(
                    1050,
                    format!("Table '{new_name}' already exists"),
                ));
            }
            v
        };
        let row = Self::row(
            v.id,
            KIND_VIEW,
            new_schema,
            new_name,
            v.definition.clone(),
            &[],
        );
        self.write_row(&row, true)?;
        let mut c = self.cache.write();
        c.views.remove(&key);
        c.views.insert(
            new_key,
            ViewEntry {
                schema: new_schema.to_string(),
                name: new_name.to_string(),
                ..v
            },
        );
        Ok(())
    }

    /// True when the dictionary holds at least one view (a fast path for
    /// queries when there is none).
    pub fn has_views(&self) -> bool {
        !self.cache.read().views.is_empty()
    }

    /// True when `schema.name` is a view.
    pub fn is_view(&self, schema: &str, name: &str) -> bool {
        self.cache
            .read()
            .views
            .contains_key(&(schema.to_string(), name.to_string()))
    }
}
