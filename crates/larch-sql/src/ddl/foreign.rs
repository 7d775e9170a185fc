//! FOREIGN KEY constraints as InnoDB keeps them: the definition kept in a
//! child table's [`TableMeta`](super::TableMeta), its byte encoding, and
//! its text as SHOW CREATE TABLE and error messages print it.
//!
//! A constraint belongs to the referencing (child) table. It names its
//! columns by position in the child table and the referenced (parent)
//! table and columns by name, because the parent may not exist yet (with
//! `foreign_key_checks = 0` a dump creates children first) and is found by
//! name when rows are checked. An unnamed constraint is called
//! `<table>_ibfk_<n>`, `n` one more than the highest such number already
//! used by the table, as InnoDB does.
//!
//! Actions: RESTRICT (also what an absent clause means; printed as
//! nothing), CASCADE, SET NULL and NO ACTION (printed, behaves as
//! RESTRICT). SET DEFAULT is refused when the constraint is defined
//! (InnoDB's errno 150), so it is never stored.
//!
//! The DDL rules are in `foreign_ddl`, the dictionary of constraints by
//! parent table in `foreign_index`, enforcement in `exec::write::foreign`.

use larch_engine::table::TableDef;

use super::render::quote_ident;
use crate::error::SqlError;

/// What happens to child rows when their parent row is deleted or its
/// referenced columns change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FkAction {
    /// Refuse (1451); also what an absent clause means.
    #[default]
    Restrict,
    /// Delete the child rows, or give them the parent's new key.
    Cascade,
    /// Set the child's referencing columns to NULL.
    SetNull,
    /// As RESTRICT (InnoDB checks immediately), printed as written.
    NoAction,
}

impl FkAction {
    /// The rule as INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS shows it.
    pub fn rule(self) -> &'static str {
        match self {
            FkAction::Restrict => "RESTRICT",
            FkAction::Cascade => "CASCADE",
            FkAction::SetNull => "SET NULL",
            FkAction::NoAction => "NO ACTION",
        }
    }

    /// True when changes of the parent are refused while children exist.
    pub fn restricts(self) -> bool {
        matches!(self, FkAction::Restrict | FkAction::NoAction)
    }

    fn byte(self) -> u8 {
        match self {
            FkAction::Restrict => 0,
            FkAction::Cascade => 1,
            FkAction::SetNull => 2,
            FkAction::NoAction => 3,
        }
    }

    fn from_byte(b: u8) -> Option<FkAction> {
        Some(match b {
            0 => FkAction::Restrict,
            1 => FkAction::Cascade,
            2 => FkAction::SetNull,
            3 => FkAction::NoAction,
            _ => return None,
        })
    }
}

/// One FOREIGN KEY constraint of a child table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    /// The constraint name (unique among the table's constraints).
    pub name: String,
    /// The referencing columns: positions in the child table (column ids
    /// while a definition is being built by `ddl::work::Work`).
    pub columns: Vec<usize>,
    /// The referenced table.
    pub ref_db: String,
    pub ref_table: String,
    /// The referenced columns, by name, as many as `columns`.
    pub ref_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

impl ForeignKey {
    /// The constraint as SHOW CREATE TABLE prints it (without the leading
    /// indentation): ``CONSTRAINT `c_ibfk_1` FOREIGN KEY (`p_id`) REFERENCES
    /// `p` (`id`) ON DELETE CASCADE``. `columns` are the names of the
    /// referencing columns; the referenced table is qualified with its
    /// database when that is not `child_db`.
    pub fn clause(&self, columns: &[String], child_db: &str) -> String {
        let cols: Vec<String> = columns.iter().map(|c| quote_ident(c)).collect();
        let refs: Vec<String> = self.ref_columns.iter().map(|c| quote_ident(c)).collect();
        let table = if self.ref_db == child_db {
            quote_ident(&self.ref_table)
        } else {
            format!(
                "{}.{}",
                quote_ident(&self.ref_db),
                quote_ident(&self.ref_table)
            )
        };
        let mut out = format!(
            "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {table} ({})",
            quote_ident(&self.name),
            cols.join(", "),
            refs.join(", ")
        );
        for (what, action) in [("DELETE", self.on_delete), ("UPDATE", self.on_update)] {
            if action != FkAction::Restrict {
                out.push_str(&format!(" ON {what} {}", action.rule()));
            }
        }
        out
    }

    /// The names of the referencing columns of child table `child`.
    pub fn column_names(&self, child: &TableDef) -> Vec<String> {
        self.columns
            .iter()
            .map(|&c| {
                child
                    .columns
                    .get(c)
                    .map_or_else(String::new, |c| c.name.clone())
            })
            .collect()
    }

    /// True when this constraint references `db`.`table`.
    pub fn references(&self, db: &str, table: &str) -> bool {
        self.ref_db == db && self.ref_table == table
    }
}

/// The number `n` of a name `<table>_ibfk_<n>`, if it is one.
pub(super) fn generated_number(table: &str, name: &str) -> Option<u32> {
    let rest = name.strip_prefix(table)?.strip_prefix("_ibfk_")?;
    rest.parse().ok()
}

/// Appends the constraints to `out` (the layout is in `docs/catalog.md`
/// and `ddl::meta`).
pub(super) fn encode(fks: &[ForeignKey], out: &mut Vec<u8>) {
    let put_len = |out: &mut Vec<u8>, n: usize| {
        out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes())
    };
    let put_str = |out: &mut Vec<u8>, s: &str| {
        put_len(out, s.len());
        out.extend_from_slice(s.as_bytes());
    };
    put_len(out, fks.len());
    for fk in fks {
        put_str(out, &fk.name);
        put_len(out, fk.columns.len());
        for &c in &fk.columns {
            put_len(out, c);
        }
        put_str(out, &fk.ref_db);
        put_str(out, &fk.ref_table);
        put_len(out, fk.ref_columns.len());
        for c in &fk.ref_columns {
            put_str(out, c);
        }
        out.push(fk.on_delete.byte());
        out.push(fk.on_update.byte());
    }
}

/// What [`decode`] reads with: the metadata reader's primitives.
pub(super) trait FieldReader {
    fn u8(&mut self) -> Result<u8, SqlError>;
    fn u32(&mut self) -> Result<u32, SqlError>;
    fn count(&mut self, min_size: usize) -> Result<usize, SqlError>;
    fn string(&mut self) -> Result<String, SqlError>;
    fn corrupt(&self, what: &str) -> SqlError;
}

/// Reads what [`encode`] wrote; column positions must be below `ncols`.
pub(super) fn decode(r: &mut impl FieldReader, ncols: usize) -> Result<Vec<ForeignKey>, SqlError> {
    let n = r.count(22)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string()?;
        let k = r.count(4)?;
        let mut columns = Vec::with_capacity(k);
        for _ in 0..k {
            let c = r.u32()? as usize;
            if c >= ncols {
                return Err(r.corrupt(&format!("FOREIGN KEY '{name}' names column {c}")));
            }
            columns.push(c);
        }
        let ref_db = r.string()?;
        let ref_table = r.string()?;
        let k = r.count(4)?;
        if k != columns.len() {
            return Err(r.corrupt(&format!("FOREIGN KEY '{name}' has {k} referenced columns")));
        }
        let mut ref_columns = Vec::with_capacity(k);
        for _ in 0..k {
            ref_columns.push(r.string()?);
        }
        let action = |b: u8, r: &dyn Fn(&str) -> SqlError| {
            FkAction::from_byte(b).ok_or_else(|| r(&format!("FOREIGN KEY '{name}' action {b}")))
        };
        let (d, u) = (r.u8()?, r.u8()?);
        let corrupt = |what: &str| r.corrupt(what);
        out.push(ForeignKey {
            on_delete: action(d, &corrupt)?,
            on_update: action(u, &corrupt)?,
            name,
            columns,
            ref_db,
            ref_table,
            ref_columns,
        });
    }
    Ok(out)
}
