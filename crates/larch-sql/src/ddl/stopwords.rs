//! User stopword tables, as InnoDB has them: `innodb_ft_user_stopword_table`
//! (per session) and `innodb_ft_server_stopword_table` (global) name a
//! table `db/name` whose first column is a VARCHAR named `value`.
//!
//! - Setting either variable to anything but NULL or such a table fails
//!   with 1231 ([`check_variable`]). A table the session may not read
//!   (no SELECT on it) counts as no such table, so the variable tells
//!   nothing of tables the user cannot see.
//! - A FULLTEXT index created while `innodb_ft_enable_stopword` is on takes
//!   its stopwords from the session's table if one is set, else from the
//!   server's, else InnoDB's default list ([`for_new_index`]). A table that
//!   no longer exists or no longer qualifies gives the default list, as in
//!   InnoDB (which logs it); an empty table gives no stopwords.
//! - The words are read once, when the index is created, with a consistent
//!   read of what is committed, and kept with the index definition: later
//!   changes to the table, or to the variables, change no existing index
//!   (InnoDB's documented behaviour).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{KeyRange, ReadContext, StopwordTable, CLUSTERED};
use larch_engine::txn::{IsolationLevel, TrxOptions};

use crate::error::SqlError;
use crate::privileges::bits::Privs;
use crate::privileges::check::Checker;
use crate::session::Session;

/// The two variables.
pub(crate) const VARIABLES: [&str; 2] = [
    "innodb_ft_server_stopword_table",
    "innodb_ft_user_stopword_table",
];

/// Checks a value of one of [`VARIABLES`]: NULL, or a stopword table.
pub(crate) fn check_variable(s: &Session, variable: &str, value: &Value) -> Result<(), SqlError> {
    let name = match value {
        Value::Null => return Ok(()),
        Value::Str(name) => name,
        _ => {
            return Err(SqlError::new(
                1232,
                format!("Incorrect argument type to variable '{variable}'"),
            ))
        }
    };
    let readable = name.split_once('/').is_some_and(|(db, table)| {
        Checker::of_shared(s)
            .table(db, table, Privs::SELECT)
            .is_ok()
    });
    match value_column(s, name).filter(|_| readable) {
        Some(_) => Ok(()),
        None => Err(SqlError::new(
            1231,
            format!("Variable '{variable}' can't be set to the value of '{name}'"),
        )),
    }
}

/// The stopword table a FULLTEXT index created now takes (`None`: the
/// default list), read as committed.
pub(crate) fn for_new_index(s: &Session) -> Result<Option<StopwordTable>, SqlError> {
    let chosen = [VARIABLES[1], VARIABLES[0]]
        .into_iter()
        .find_map(|v| match s.var_by_name(v) {
            Value::Str(name) if !name.is_empty() => Some((v, name)),
            _ => None,
        });
    let Some((variable, name)) = chosen else {
        return Ok(None);
    };
    if variable == VARIABLES[1] {
        if let Some((db, table)) = name.split_once('/') {
            Checker::of_shared(s).table(db, table, Privs::SELECT)?;
        }
    }
    let Some((column, collation)) = value_column(s, &name) else {
        tracing::warn!(table = %name, "the user stopword table does not exist or has no VARCHAR column `value`; the default stopword list is used");
        return Ok(None);
    };
    let Some((db, table)) = name.split_once('/') else {
        return Ok(None);
    };
    let t = s.db.catalog().table(db, table)?;
    let mut session = s.db.transactions().register_session()?;
    let mut trx = session.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let read = ReadContext {
        view: trx.read_view(),
    };
    let mut words = Vec::new();
    let mut rows = t.scan(&read, CLUSTERED, &KeyRange::all(), false, None)?;
    while let Some((_, row)) = rows.next_row()? {
        match row.into_iter().nth(column) {
            Some(Value::Str(w)) => words.push(w),
            Some(Value::Bytes(b)) => words.push(String::from_utf8_lossy(&b).into_owned()),
            _ => {}
        }
    }
    drop(rows);
    trx.commit()?;
    Ok(Some(StopwordTable {
        name,
        collation,
        words,
    }))
}

/// The number and collation of the `value` column of the table `db/name`
/// when it is a stopword table: its first column, a VARCHAR named `value`.
fn value_column(s: &Session, name: &str) -> Option<(usize, Collation)> {
    let (db, table) = name.split_once('/')?;
    let entry = s.db.catalog().table_entry(db, table)?;
    let first = entry.def.columns.first()?;
    match &first.ty {
        ColumnType::Varchar { collation, .. } if first.name.eq_ignore_ascii_case("value") => {
            Some((0, *collation))
        }
        _ => None,
    }
}
