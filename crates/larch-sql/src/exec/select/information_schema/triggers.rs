//! INFORMATION_SCHEMA.TRIGGERS: one row per trigger the session may see,
//! with MariaDB's columns (kept in `absent`, whose empty TRIGGERS this
//! table replaces; CREATED is DATETIME(2) as in MariaDB).

use larch_engine::record::value::{ColumnType, Value};

use crate::error::SqlError;
use crate::result::ResultColumn;
use crate::session::Session;

/// The rows and columns of TRIGGERS when `upper` names it.
pub(super) fn table(
    sess: &Session,
    upper: &str,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Option<Vec<ResultColumn>>, SqlError> {
    if upper != "TRIGGERS" {
        return Ok(None);
    }
    let Some(mut columns) = super::absent::table(sess, upper, &mut Vec::new())? else {
        return Ok(None);
    };
    for c in &mut columns {
        if c.name == "CREATED" {
            *c = ResultColumn::computed("CREATED", ColumnType::Datetime { fsp: 2 }, true);
        }
    }
    crate::exec::trigger::information_schema_rows(sess, rows)?;
    Ok(Some(columns))
}
