//! The dictionary of FOREIGN KEY constraints by referenced (parent)
//! table: for a table, the constraints of every table (in any database)
//! that reference it.
//!
//! Constraints live in their child tables' metadata; this index is derived
//! from the catalog's entries and rebuilt lazily whenever the catalog's
//! tables generation changes (any CREATE, DROP, RENAME or metadata change
//! of a table), so it is always consistent with the dictionary without DDL
//! having to maintain it. Parents are keyed by name, so a constraint
//! created before its parent (with `foreign_key_checks = 0`) is found once
//! the parent exists. A rebuild decodes every table's metadata once; a
//! lookup is one read of the generation and one hash lookup.

use std::collections::HashMap;
use std::sync::Arc;

use larch_engine::catalog::Catalog;
use parking_lot::RwLock;

use super::foreign::ForeignKey;
use super::meta::TableMeta;

/// One constraint seen from its parent.
#[derive(Debug, Clone)]
pub(crate) struct ChildKey {
    /// The child table.
    pub db: String,
    pub table: String,
    /// The constraint (columns are positions in the child table).
    pub fk: ForeignKey,
    /// Names of the child's referencing columns, in constraint order.
    pub column_names: Vec<String>,
}

impl ChildKey {
    /// The constraint as error messages print it (see
    /// [`ForeignKey::clause`]).
    pub fn clause(&self) -> String {
        self.fk.clause(&self.column_names, &self.db)
    }
}

type ByParent = HashMap<(String, String), Vec<ChildKey>>;

/// See the module documentation.
#[derive(Default)]
pub struct ForeignKeyIndex {
    built: RwLock<Option<(u64, Arc<ByParent>)>>,
}

impl ForeignKeyIndex {
    /// The constraints that reference `db`.`table` (the table's own
    /// self-references included), in (child database, child table,
    /// definition) order.
    pub(crate) fn children(&self, catalog: &Catalog, db: &str, table: &str) -> Vec<ChildKey> {
        let map = self.current(catalog);
        map.get(&(db.to_owned(), table.to_owned()))
            .cloned()
            .unwrap_or_default()
    }

    /// True when some table references `db`.`table`.
    pub(crate) fn has_children(&self, catalog: &Catalog, db: &str, table: &str) -> bool {
        let map = self.current(catalog);
        !map.is_empty() && map.contains_key(&(db.to_owned(), table.to_owned()))
    }

    /// True when a table of `db` other than `except` has a constraint
    /// called `name` (InnoDB's constraint names are unique per database).
    pub(crate) fn name_taken(&self, catalog: &Catalog, db: &str, name: &str, except: &str) -> bool {
        self.current(catalog)
            .values()
            .flatten()
            .any(|c| c.db == db && c.table != except && c.fk.name.eq_ignore_ascii_case(name))
    }

    fn current(&self, catalog: &Catalog) -> Arc<ByParent> {
        let generation = catalog.tables_generation();
        if let Some((g, map)) = self.built.read().as_ref() {
            if *g == generation {
                return map.clone();
            }
        }
        let mut built = self.built.write();
        let mut map = ByParent::new();
        // The `#sql-...` tables of an ALTER in progress are not children.
        for e in catalog
            .table_entries()
            .into_iter()
            .filter(|e| !crate::session::temporary::is_hidden(&e.name))
        {
            let Ok(meta) = TableMeta::decode(&e.sql_meta, &e.def) else {
                continue;
            };
            for fk in meta.foreign_keys {
                let column_names = fk
                    .columns
                    .iter()
                    .map(|&c| {
                        e.def
                            .columns
                            .get(c)
                            .map(|c| c.name.clone())
                            .unwrap_or_default()
                    })
                    .collect();
                map.entry((fk.ref_db.clone(), fk.ref_table.clone()))
                    .or_default()
                    .push(ChildKey {
                        db: e.schema.clone(),
                        table: e.name.clone(),
                        fk,
                        column_names,
                    });
            }
        }
        let map = Arc::new(map);
        *built = Some((generation, map.clone()));
        map
    }
}
