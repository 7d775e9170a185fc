//! Stored programs in the data dictionary: one dictionary row of kind 4 per
//! stored procedure, stored function or trigger,
//! `(id, 4, schema, name, definition, [program kind])`, where `definition`
//! is an opaque byte string owned by the SQL layer (the program's text and
//! characteristics; see `docs/catalog.md`) and the one-byte `sql_meta` says
//! which kind of program the row holds ([`ProgramKind`]).
//!
//! Names: procedures, functions and triggers are three namespaces of a
//! database; names compare case-insensitively (as MySQL compares routine and
//! trigger names), the name as written is kept.
//!
//! Crash safety is the views': CREATE inserts the row, CREATE OR REPLACE and
//! ALTER replace it under the same key, DROP deletes it; each is one B+tree
//! change in one mini-transaction, and the redo log is made durable before
//! the call returns, so a crash leaves the old or the new program.

use crate::error::Result;

use super::{schema_err, Catalog, KIND_PROGRAM};

/// Which kind of stored program a dictionary row holds (its `sql_meta` byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProgramKind {
    Procedure,
    Function,
    Trigger,
}

impl ProgramKind {
    /// The byte stored in the row.
    pub fn byte(self) -> u8 {
        match self {
            ProgramKind::Procedure => 1,
            ProgramKind::Function => 2,
            ProgramKind::Trigger => 3,
        }
    }

    /// The kind of a stored byte.
    pub fn from_byte(b: u8) -> Option<ProgramKind> {
        match b {
            1 => Some(ProgramKind::Procedure),
            2 => Some(ProgramKind::Function),
            3 => Some(ProgramKind::Trigger),
            _ => None,
        }
    }
}

/// A stored program known to the dictionary.
#[derive(Debug, Clone)]
pub struct ProgramEntry {
    /// Dictionary id (stable across replacements).
    pub id: u64,
    pub kind: ProgramKind,
    pub schema: String,
    /// The name as written at CREATE.
    pub name: String,
    /// The SQL layer's definition of the program.
    pub definition: Vec<u8>,
}

/// The cache key of a program: schema, kind, lower-case name.
pub(super) type ProgramKey = (String, ProgramKind, String);

pub(super) fn key(schema: &str, kind: ProgramKind, name: &str) -> ProgramKey {
    (schema.to_string(), kind, name.to_lowercase())
}

impl Catalog {
    /// The program `schema.name` of `kind`, if there is one.
    pub fn program(&self, schema: &str, kind: ProgramKind, name: &str) -> Option<ProgramEntry> {
        self.cache
            .read()
            .programs
            .get(&key(schema, kind, name))
            .cloned()
    }

    /// True when the dictionary holds at least one stored program (a fast
    /// path for statements when there is none).
    pub fn has_programs(&self) -> bool {
        !self.cache.read().programs.is_empty()
    }

    /// Every program of `kind` (of one schema, or of all with `None`), in
    /// schema and name order.
    pub fn programs(&self, schema: Option<&str>, kind: ProgramKind) -> Vec<ProgramEntry> {
        self.cache
            .read()
            .programs
            .iter()
            .filter(|((s, k, _), _)| *k == kind && schema.is_none_or(|x| x == s))
            .map(|(_, p)| p.clone())
            .collect()
    }

    /// Stores a program: creates it, or with `replace` replaces an existing
    /// one of the same kind and name in place. Errors: 1049 for an unknown
    /// database, and `exists_errno` (with `exists_message`) when the name is
    /// taken and `replace` is false.
    pub fn store_program(
        &self,
        schema: &str,
        kind: ProgramKind,
        name: &str,
        definition: &[u8],
        replace: bool,
        exists: (u16, &str),
    ) -> Result<()> {
        let _ddl = self.ddl.lock();
        let k = key(schema, kind, name);
        let (existing, id) = {
            let c = self.cache.read();
            if !c.databases.contains_key(schema) {
                return Err(Self::unknown_database(schema));
            }
            let existing = c.programs.get(&k).map(|p| p.id);
            if existing.is_some() && !replace {
                return Err(schema_err(exists.0, exists.1.to_string()));
            }
            (existing, existing.unwrap_or(c.next_id))
        };
        let row = Self::row(
            id,
            KIND_PROGRAM,
            schema,
            name,
            definition.to_vec(),
            &[kind.byte()],
        );
        self.write_row(&row, existing.is_some())?;
        let mut c = self.cache.write();
        if existing.is_none() {
            c.next_id = id + 1;
        }
        c.programs.insert(
            k,
            ProgramEntry {
                id,
                kind,
                schema: schema.to_string(),
                name: name.to_string(),
                definition: definition.to_vec(),
            },
        );
        Ok(())
    }

    /// Drops a program; false when there is none of that kind and name.
    pub fn drop_program(&self, schema: &str, kind: ProgramKind, name: &str) -> Result<bool> {
        let _ddl = self.ddl.lock();
        let k = key(schema, kind, name);
        let Some(p) = self.cache.read().programs.get(&k).cloned() else {
            return Ok(false);
        };
        self.delete_row(p.id)?;
        self.cache.write().programs.remove(&k);
        Ok(true)
    }

    /// Drops every program of a database (DROP DATABASE).
    pub(super) fn drop_programs_of(&self, schema: &str) -> Result<()> {
        for kind in [
            ProgramKind::Procedure,
            ProgramKind::Function,
            ProgramKind::Trigger,
        ] {
            for p in self.programs(Some(schema), kind) {
                self.drop_program(schema, kind, &p.name)?;
            }
        }
        Ok(())
    }
}
