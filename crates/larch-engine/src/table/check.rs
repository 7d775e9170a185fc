//! `CHECK TABLE` for one table: every index tree is structurally sound, every
//! clustered record parses, every off-page chain is whole, and the secondary
//! indexes hold exactly one live entry per row, with the right key.
//!
//! Changes nothing. The caller keeps writers away (the SQL layer holds the
//! table as LOCK TABLES ... READ does); purge is kept off this table while
//! the check runs, so no tree changes under it. Problems are reported as
//! text naming the index and the page or row; only I/O and internal errors are `Err`. Cost: one point lookup
//! per row and secondary index (it is a verification tool, not a hot path).

use std::ops::Bound;

use super::Table;
use crate::btree::check::check as check_tree;
use crate::error::Result;
use crate::record::overflow;
use crate::record::row::RowView;
use crate::record::value::Value;

/// What [`Table::check`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableCheck {
    /// Live (not delete-marked) rows in the clustered index.
    pub rows: u64,
    /// Off-page values verified.
    pub off_page_values: u64,
    /// Everything wrong; empty when the table is healthy.
    pub problems: Vec<String>,
}

impl Table {
    /// Verifies the table. See the module documentation.
    pub fn check(&self) -> Result<TableCheck> {
        // Purge holds this shared while it changes the trees.
        let _no_purge = self.retired.write();
        let pool = self.storage.pool();
        let name = &self.layout.def.name;
        let mut out = TableCheck::default();
        for p in check_tree(&self.clustered, pool)? {
            out.problems.push(format!("table '{name}' PRIMARY: {p}"));
        }
        for (i, tree) in self.secondary.iter().enumerate() {
            for p in check_tree(tree, pool)? {
                let index = &self.layout.secondary[i].name;
                out.problems
                    .push(format!("table '{name}' index '{index}': {p}"));
            }
        }
        if !out.problems.is_empty() {
            return Ok(out); // entries of a broken tree cannot be trusted
        }
        let mut c = self
            .clustered
            .range(pool, Bound::Unbounded, Bound::Unbounded, false);
        while let Some(e) = c.next_entry()? {
            if e.is_deleted() {
                continue;
            }
            out.rows += 1;
            let view = match RowView::parse(&self.layout.clustered.row, &e.value) {
                Ok(v) => v,
                Err(err) => {
                    out.problems
                        .push(format!("table '{name}': record {:02x?}: {err}", e.key));
                    continue;
                }
            };
            let mut chains_ok = true;
            for (_, r) in view.external_columns() {
                out.off_page_values += 1;
                for p in overflow::check_chain(pool, &r)? {
                    chains_ok = false;
                    out.problems
                        .push(format!("table '{name}': record {:02x?}: {p}", e.key));
                }
            }
            if !chains_ok {
                continue;
            }
            let row = match self.decode_row(&e.key, &e.value, None) {
                Ok(r) => r
                    .into_iter()
                    .map(|v| v.unwrap_or(Value::Null))
                    .collect::<Vec<_>>(),
                Err(err) => {
                    out.problems
                        .push(format!("table '{name}': record {:02x?}: {err}", e.key));
                    continue;
                }
            };
            for (s, tree) in self.secondary.iter().enumerate() {
                let (mut key, _) = self.layout.secondary_prefix(s, &row)?;
                key.extend_from_slice(&e.key);
                if tree.get(pool, &key)?.is_none_or(|f| f.deleted) {
                    out.problems.push(format!(
                        "table '{name}' index '{}': no entry for the row with clustered key {:02x?}",
                        self.layout.secondary[s].name, e.key
                    ));
                }
            }
        }
        for (s, tree) in self.secondary.iter().enumerate() {
            let mut live = 0u64;
            let mut c = tree.range(pool, Bound::Unbounded, Bound::Unbounded, false);
            while let Some(e) = c.next_entry()? {
                live += u64::from(!e.is_deleted());
            }
            if live != out.rows {
                out.problems.push(format!(
                    "table '{name}' index '{}': {live} entries for {} rows",
                    self.layout.secondary[s].name, out.rows
                ));
            }
        }
        Ok(out)
    }
}
