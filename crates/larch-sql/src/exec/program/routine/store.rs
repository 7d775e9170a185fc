//! A stored routine's dictionary definition ([`RoutineDef`], the bytes of
//! its dictionary row; layout in `docs/catalog.md`) and the parsed routines
//! cache ([`load`]).
//!
//! The dictionary keeps a routine's text as written (parameter list, RETURNS
//! type, body) with its characteristics; a routine is parsed again from the
//! text when it first runs, and the parse is cached under the definition's
//! bytes (`program::cache`).

use std::sync::Arc;

use larch_engine::catalog::ProgramKind;
use larch_engine::record::value::Value;
use sqlparser::ast;

use super::super::cache::ParseCache;
use super::super::head::{put_definer, read_definer, Context, Definer};
use super::super::host::Local;
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
    pub definer: Definer,
    pub params_text: String,
    pub returns_text: String,
    pub body_text: String,
    pub comment: String,
    pub deterministic: bool,
    pub invoker: bool,
    pub access: DataAccess,
    pub context: Context,
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
        put_definer(&mut out, &self.definer);
        for s in [
            &self.params_text,
            &self.returns_text,
            &self.body_text,
            &self.comment,
        ] {
            put_str(&mut out, s);
        }
        self.context.put(&mut out);
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
        Ok(RoutineDef {
            kind,
            definer: read_definer(&mut r)?,
            params_text: r.str()?,
            returns_text: r.str()?,
            body_text: r.str()?,
            comment: r.str()?,
            deterministic: flags & 1 != 0,
            invoker: flags & 2 != 0,
            access,
            context: Context::read(&mut r)?,
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
    pub definer: Definer,
    /// SQL SECURITY INVOKER (else DEFINER).
    pub invoker: bool,
}

impl Loaded {
    /// The account the routine runs as: `None` for SQL SECURITY INVOKER
    /// (the caller's), else its definer's, which must exist (1449) and may
    /// run it (1370).
    pub fn run_as(
        &self,
        s: &crate::session::Session,
    ) -> Result<Option<crate::privileges::SessionAccount>, SqlError> {
        if self.invoker {
            return Ok(None);
        }
        let (account, checker) = super::super::host::definer_account(s, &self.definer)?;
        let kind = if self.returns.is_some() {
            ProgramKind::Function
        } else {
            ProgramKind::Procedure
        };
        crate::privileges::routines::execute(&checker, &self.schema, &self.name, kind)?;
        Ok(Some(account))
    }

    /// The parameters as locals bound to `args` (one value a parameter).
    pub fn locals(
        &self,
        s: &crate::session::Session,
        args: Vec<Value>,
    ) -> Result<Vec<Local>, SqlError> {
        self.params
            .iter()
            .zip(args)
            .map(|(p, v)| Ok((p.name.clone(), Some(super::column_type_of(s, &p.ty)?), v)))
            .collect()
    }
}

static PARSED: ParseCache<Loaded> = ParseCache::new();

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
    let loaded = PARSED.get_or_parse(schema, &entry.name, &entry.definition, || {
        parse(schema, kind, &entry.name, &entry.definition)
    })?;
    Ok(Some(loaded))
}

fn parse(
    schema: &str,
    kind: ProgramKind,
    name: &str,
    definition: &[u8],
) -> Result<Loaded, SqlError> {
    let def = RoutineDef::decode(definition)?;
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
    Ok(Loaded {
        schema: schema.to_string(),
        name: name.to_string(),
        params: c.params,
        returns: c.returns,
        body: c.body,
        definer: def.definer,
        invoker: def.invoker,
    })
}
