//! INFORMATION_SCHEMA.ROUTINES: one row per stored procedure and function
//! the session may see, with MariaDB's columns (kept in `absent`, whose
//! empty ROUTINES this table replaces).

use larch_engine::catalog::ProgramKind;
use larch_engine::record::value::Value;

use super::s;
use crate::error::SqlError;
use crate::exec::routine::RoutineDef;
use crate::parse::routine::DataAccess;
use crate::result::ResultColumn;
use crate::session::Session;

fn datetime(micros: i64) -> Value {
    match crate::value::temporal::datetime_from_micros(micros - micros % 1_000_000) {
        Some(dt) => Value::Datetime(dt),
        None => Value::Null,
    }
}

/// The rows and columns of ROUTINES when `upper` names it.
pub(super) fn table(
    sess: &Session,
    upper: &str,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Option<Vec<ResultColumn>>, SqlError> {
    if upper != "ROUTINES" {
        return Ok(None);
    }
    let Some(columns) = super::absent::table(sess, upper, &mut Vec::new())? else {
        return Ok(None);
    };
    let catalog = sess.db.catalog();
    for kind in [ProgramKind::Function, ProgramKind::Procedure] {
        for e in catalog.programs(None, kind) {
            if !crate::privileges::check::sees_database(sess, &e.schema) {
                continue;
            }
            let Ok(def) = RoutineDef::decode(&e.definition) else {
                continue;
            };
            let function = kind == ProgramKind::Function;
            let data_type = if function {
                def.returns_text
                    .split(|c: char| c == '(' || c.is_whitespace())
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase()
            } else {
                String::new()
            };
            let access = match def.access {
                DataAccess::ContainsSql => "CONTAINS SQL",
                DataAccess::NoSql => "NO SQL",
                DataAccess::ReadsSqlData => "READS SQL DATA",
                DataAccess::ModifiesSqlData => "MODIFIES SQL DATA",
            };
            rows.push(vec![
                s(&e.name),
                s("def"),
                s(&e.schema),
                s(&e.name),
                s(if function { "FUNCTION" } else { "PROCEDURE" }),
                s(&data_type),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                if function {
                    s(&def.returns_text)
                } else {
                    Value::Null
                },
                s("SQL"),
                s(&def.body_text),
                Value::Null,
                Value::Null,
                s("SQL"),
                s(if def.deterministic { "YES" } else { "NO" }),
                s(access),
                Value::Null,
                s(if def.invoker { "INVOKER" } else { "DEFINER" }),
                datetime(def.created),
                datetime(def.modified),
                s(&def.context.sql_mode),
                s(&def.comment),
                s(&format!("{}@{}", def.definer.0, def.definer.1)),
                s(&def.context.charset_client),
                s(&def.context.collation_connection),
                s(&def.context.db_collation),
            ]);
        }
    }
    Ok(Some(columns))
}
