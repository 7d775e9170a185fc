//! A stored routine's dictionary definition ([`RoutineDef`], the bytes of
//! its dictionary row; layout in `docs/catalog.md`) and the parsed routines
//! cache ([`load`]).
//!
//! The dictionary keeps a routine's text as written (parameter list, RETURNS
//! type, body) with its characteristics; a routine is parsed again from the
//! text when it first runs, and the parse is cached under the definition's
//! bytes, so a replaced routine (new bytes) is parsed afresh and a cached
//! parse is never stale.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use larch_engine::catalog::ProgramKind;
use parking_lot::Mutex;
use sqlparser::ast;

use crate::error::SqlError;
use crate::exec::definition_bytes::{put_str, Reader};
use crate::parse::routine::{DataAccess, Param, RoutineStatement};
use crate::parse::routine_body::SpStmt;
use crate::parse::Statement;

const VERSION: u8 = 1;

/// What the dictionary stores for a routine.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoutineDef {
    pub kind: ProgramKind,
    pub definer: (String, String),
    pub params_text: String,
    pub returns_text: String,
    pub body_text: String,
    pub comment: String,
    pub deterministic: bool,
    pub invoker: bool,
    pub access: DataAccess,
    pub sql_mode: String,
    pub charset_client: String,
    pub collation_connection: String,
    pub db_collation: String,
    /// Microseconds since the epoch.
    pub created: i64,
    pub modified: i64,
}

fn corrupt() -> SqlError {
    SqlError::new(
        1457,
        "Failed to load routine. The table mysql.proc is missing, corrupt, or contains bad data",
    )
}

impl RoutineDef {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION, self.kind.byte()];
        let flags = u8::from(self.deterministic) | (u8::from(self.invoker) << 1);
        out.push(flags);
        out.push(match self.access {
            DataAccess::ContainsSql => 0,
            DataAccess::NoSql => 1,
            DataAccess::ReadsSqlData => 2,
            DataAccess::ModifiesSqlData => 3,
        });
        for s in [
            &self.definer.0,
            &self.definer.1,
            &self.params_text,
            &self.returns_text,
            &self.body_text,
            &self.comment,
            &self.sql_mode,
            &self.charset_client,
            &self.collation_connection,
            &self.db_collation,
        ] {
            put_str(&mut out, s);
        }
        out.extend_from_slice(&self.created.to_le_bytes());
        out.extend_from_slice(&self.modified.to_le_bytes());
        out
    }

    pub fn decode(b: &[u8]) -> Result<RoutineDef, SqlError> {
        let mut r = Reader::new(b, corrupt);
        if r.u8()? != VERSION {
            return Err(corrupt());
        }
        let kind = ProgramKind::from_byte(r.u8()?).ok_or_else(corrupt)?;
        let flags = r.u8()?;
        let access = match r.u8()? {
            0 => DataAccess::ContainsSql,
            1 => DataAccess::NoSql,
            2 => DataAccess::ReadsSqlData,
            3 => DataAccess::ModifiesSqlData,
            _ => return Err(corrupt()),
        };
        let user = r.str()?;
        let host = r.str()?;
        Ok(RoutineDef {
            kind,
            definer: (user, host),
            params_text: r.str()?,
            returns_text: r.str()?,
            body_text: r.str()?,
            comment: r.str()?,
            deterministic: flags & 1 != 0,
            invoker: flags & 2 != 0,
            access,
            sql_mode: r.str()?,
            charset_client: r.str()?,
            collation_connection: r.str()?,
            db_collation: r.str()?,
            created: r.i64()?,
            modified: r.i64()?,
        })
    }
}

/// A routine ready to run.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub schema: String,
    /// The name as created.
    pub name: String,
    pub params: Vec<Param>,
    pub returns: Option<ast::DataType>,
    pub body: Arc<SpStmt>,
}

type CacheKey = (String, String, Vec<u8>);

static PARSED: LazyLock<Mutex<HashMap<CacheKey, Arc<Loaded>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Most parsed routines kept.
const CACHE_ENTRIES: usize = 1024;

/// The routine `schema.name` of `kind` from the dictionary, parsed (once per
/// definition); `None` when there is none.
pub(crate) fn load(
    catalog: &larch_engine::catalog::Catalog,
    schema: &str,
    kind: ProgramKind,
    name: &str,
) -> Result<Option<Arc<Loaded>>, SqlError> {
    let Some(entry) = catalog.program(schema, kind, name) else {
        return Ok(None);
    };
    let key = (
        schema.to_string(),
        entry.name.clone(),
        entry.definition.clone(),
    );
    if let Some(l) = PARSED.lock().get(&key) {
        return Ok(Some(l.clone()));
    }
    let def = RoutineDef::decode(&entry.definition)?;
    let what = match kind {
        ProgramKind::Function => "FUNCTION",
        _ => "PROCEDURE",
    };
    let returns = if kind == ProgramKind::Function {
        format!(" RETURNS {}", def.returns_text)
    } else {
        String::new()
    };
    let text = format!(
        "CREATE {what} `x`({}){returns}\n{}",
        def.params_text, def.body_text
    );
    let parsed = crate::parse::parse(&text)?;
    let Some(Statement::Routine(r)) = parsed.into_iter().next() else {
        return Err(corrupt());
    };
    let RoutineStatement::Create(c) = *r else {
        return Err(corrupt());
    };
    let loaded = Arc::new(Loaded {
        schema: schema.to_string(),
        name: entry.name,
        params: c.params,
        returns: c.returns,
        body: c.body,
    });
    let mut cache = PARSED.lock();
    if cache.len() >= CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(key, loaded.clone());
    Ok(Some(loaded))
}
