//! A trigger's dictionary definition ([`TriggerDef`], the bytes of its
//! dictionary row; layout in `docs/catalog.md`) and the parsed bodies cache
//! ([`parsed_body`]).
//!
//! The dictionary keeps the trigger's statement as written; the body is
//! parsed again from it when the trigger first fires, and the parse (with
//! its `NEW.col` / `OLD.col` references rewritten, see `super::fire`) is
//! cached under the definition's bytes (`program::cache`).

use std::sync::Arc;

use super::super::cache::ParseCache;
use super::super::head::{put_definer, read_definer, Context, Definer};
use crate::error::SqlError;
use crate::exec::definition_bytes::{put_str, Reader};
use crate::parse::routine_body::SpStmt;
use crate::parse::trigger::{Event, Timing, TriggerStatement};
use crate::parse::Statement;

const VERSION: u8 = 1;

/// What the dictionary stores for a trigger.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TriggerDef {
    pub timing: Timing,
    pub event: Event,
    /// Triggers of one table, timing and event fire in ascending order.
    pub order: i64,
    pub definer: Definer,
    /// The statement from TRIGGER to its end (no FOLLOWS/PRECEDES).
    pub text: String,
    pub on_start: u32,
    pub on_end: u32,
    pub body_start: u32,
    pub context: Context,
    /// Microseconds since the epoch.
    pub created: i64,
}

fn corrupt() -> SqlError {
    SqlError::new(1105, "A trigger's dictionary definition is corrupt")
}

impl TriggerDef {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![
            VERSION,
            match self.timing {
                Timing::Before => 0,
                Timing::After => 1,
            },
            match self.event {
                Event::Insert => 0,
                Event::Update => 1,
                Event::Delete => 2,
            },
        ];
        out.extend_from_slice(&self.order.to_le_bytes());
        put_definer(&mut out, &self.definer);
        put_str(&mut out, &self.text);
        for n in [self.on_start, self.on_end, self.body_start] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        self.context.put(&mut out);
        out.extend_from_slice(&self.created.to_le_bytes());
        out
    }

    pub fn decode(b: &[u8]) -> Result<TriggerDef, SqlError> {
        let mut r = Reader::new(b, corrupt);
        if r.u8()? != VERSION {
            return Err(corrupt());
        }
        let timing = match r.u8()? {
            0 => Timing::Before,
            1 => Timing::After,
            _ => return Err(corrupt()),
        };
        let event = match r.u8()? {
            0 => Event::Insert,
            1 => Event::Update,
            2 => Event::Delete,
            _ => return Err(corrupt()),
        };
        let order = r.i64()?;
        let definer = read_definer(&mut r)?;
        let text = r.str()?;
        let (on_start, on_end, body_start) = (r.u32()?, r.u32()?, r.u32()?);
        let d = TriggerDef {
            timing,
            event,
            order,
            definer,
            text,
            on_start,
            on_end,
            body_start,
            context: Context::read(&mut r)?,
            created: r.i64()?,
        };
        let ok = d.on_start <= d.on_end
            && d.on_end <= d.body_start
            && (d.body_start as usize) <= d.text.len()
            && d.text.is_char_boundary(d.on_start as usize)
            && d.text.is_char_boundary(d.on_end as usize)
            && d.text.is_char_boundary(d.body_start as usize);
        if !ok {
            return Err(corrupt());
        }
        Ok(d)
    }

    /// The body as written.
    pub fn body(&self) -> &str {
        &self.text[self.body_start as usize..]
    }

    /// The definition with its ON clause naming `table` (RENAME TABLE).
    pub fn renamed(&self, table: &str) -> TriggerDef {
        let on = format!("ON `{}`", table.replace('`', "``"));
        let (a, b) = (self.on_start as usize, self.on_end as usize);
        let text = format!("{}{on}{}", &self.text[..a], &self.text[b..]);
        let delta = on.len() as i64 - (b - a) as i64;
        let shift = |n: u32| (i64::from(n) + delta).max(0) as u32;
        TriggerDef {
            text,
            on_end: shift(self.on_end),
            body_start: shift(self.body_start),
            ..self.clone()
        }
    }
}

static PARSED: ParseCache<SpStmt> = ParseCache::new();

/// The body of trigger `schema.name` whose dictionary bytes are
/// `definition`, parsed and rewritten for running (once per definition).
pub(crate) fn parsed_body(
    schema: &str,
    name: &str,
    definition: &[u8],
) -> Result<(TriggerDef, Arc<SpStmt>), SqlError> {
    let def = TriggerDef::decode(definition)?;
    let body = PARSED.get_or_parse(schema, name, definition, || parse_body(name, &def))?;
    Ok((def, body))
}

fn parse_body(name: &str, def: &TriggerDef) -> Result<SpStmt, SqlError> {
    let text = format!("CREATE {}", def.text);
    let parsed = crate::parse::parse(&text).map_err(|e| {
        SqlError::new(
            1064,
            format!(
                "Trigger '{name}' has an error in its body: '{}'",
                e.message()
            ),
        )
    })?;
    let Some(Statement::Trigger(t)) = parsed.into_iter().next() else {
        return Err(corrupt());
    };
    let TriggerStatement::Create(c) = *t else {
        return Err(corrupt());
    };
    Ok(super::fire::rewrite_body(&c.body))
}
