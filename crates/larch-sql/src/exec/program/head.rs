//! What every stored program keeps beside its text: its `[db.]name`, its
//! definer and the context it was created in ([`Context`]), read from the
//! creating session, written to and read from the dictionary bytes
//! (`docs/catalog.md`: the definer is two strings, user then host; the
//! context four strings in [`Context`]'s field order) and shown as SHOW
//! shows them.

use larch_engine::catalog::Catalog;
use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::error::SqlError;
use crate::exec::definition_bytes::{put_str, Reader};
use crate::result::ResultColumn;
use crate::session::Session;

/// A definer account: `(user, host)`.
pub(crate) type Definer = (String, String);

/// `(db, name)` of a program name (1046 without a current database; 1064
/// naming `what` when it has more than two parts).
pub(crate) fn name_of(
    s: &Session,
    name: &ast::ObjectName,
    what: &str,
) -> Result<(String, String), SqlError> {
    let parts: Vec<String> = name
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.clone())
        .collect();
    match parts.as_slice() {
        [n] => match &s.current_db {
            Some(db) => Ok((db.clone(), n.clone())),
            None => Err(SqlError::new(1046, "No database selected")),
        },
        [d, n] => Ok((d.clone(), n.clone())),
        _ => Err(SqlError::new(
            1064,
            format!("Incorrect {what} name '{name}'"),
        )),
    }
}

/// Error 1059 for a program name longer than 64 characters.
pub(crate) fn check_name_length(name: &str) -> Result<(), SqlError> {
    if name.chars().count() > 64 {
        return Err(SqlError::new(
            1059,
            format!("Identifier name '{name}' is too long"),
        ));
    }
    Ok(())
}

/// The definer of a program created without `DEFINER =`: the session's
/// account.
pub(crate) fn session_definer(s: &Session) -> Definer {
    let host = s.process.host.split(':').next().unwrap_or_default();
    let local = matches!(host, "localhost" | "127.0.0.1" | "::1" | "");
    let user = if s.process.user.is_empty() {
        "root".to_owned()
    } else {
        s.process.user.clone()
    };
    (user, if local { "localhost" } else { "%" }.to_owned())
}

/// `definer` or, when `None`, the session's account.
pub(crate) fn definer_or_session(s: &Session, definer: &Option<Definer>) -> Definer {
    definer.clone().unwrap_or_else(|| session_definer(s))
}

/// Appends the definer's two strings.
pub(crate) fn put_definer(out: &mut Vec<u8>, d: &Definer) {
    put_str(out, &d.0);
    put_str(out, &d.1);
}

/// Reads the definer's two strings.
pub(crate) fn read_definer(r: &mut Reader) -> Result<Definer, SqlError> {
    let user = r.str()?;
    let host = r.str()?;
    Ok((user, host))
}

/// `user@host` (SHOW ... STATUS, SHOW TRIGGERS, INFORMATION_SCHEMA).
pub(crate) fn definer_text(d: &Definer) -> String {
    format!("{}@{}", d.0, d.1)
}

/// `` `name` `` with backticks doubled.
pub(crate) fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// `` CREATE DEFINER=`user`@`host` `` (SHOW CREATE).
pub(crate) fn create_definer_clause(d: &Definer) -> String {
    format!("CREATE DEFINER={}@{}", quote_ident(&d.0), quote_ident(&d.1))
}

/// The session context a program was created in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Context {
    pub sql_mode: String,
    pub charset_client: String,
    pub collation_connection: String,
    pub db_collation: String,
}

fn var_text(s: &Session, name: &str) -> String {
    match s.var_by_name(name) {
        Value::Str(v) => v,
        _ => String::new(),
    }
}

/// The default collation of database `db`.
fn db_collation(catalog: &Catalog, db: &str) -> String {
    catalog
        .database_meta(db)
        .and_then(|m| {
            String::from_utf8_lossy(&m)
                .split('\0')
                .nth(1)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "utf8mb4_general_ci".into())
}

impl Context {
    /// The context of a program `s` creates in database `db`.
    pub(crate) fn of_session(s: &Session, db: &str) -> Context {
        Context {
            sql_mode: var_text(s, "sql_mode"),
            charset_client: var_text(s, "character_set_client"),
            collation_connection: var_text(s, "collation_connection"),
            db_collation: db_collation(s.db.catalog(), db),
        }
    }

    /// Appends the four strings.
    pub(crate) fn put(&self, out: &mut Vec<u8>) {
        for s in [
            &self.sql_mode,
            &self.charset_client,
            &self.collation_connection,
            &self.db_collation,
        ] {
            put_str(out, s);
        }
    }

    /// Reads the four strings.
    pub(crate) fn read(r: &mut Reader) -> Result<Context, SqlError> {
        Ok(Context {
            sql_mode: r.str()?,
            charset_client: r.str()?,
            collation_connection: r.str()?,
            db_collation: r.str()?,
        })
    }

    /// The three trailing columns of SHOW CREATE / SHOW ... STATUS / SHOW
    /// TRIGGERS.
    pub(crate) fn columns() -> [ResultColumn; 3] {
        [
            ResultColumn::text("character_set_client", 32, false),
            ResultColumn::text("collation_connection", 64, false),
            ResultColumn::text("Database Collation", 64, false),
        ]
    }

    /// The values of [`Context::columns`].
    pub(crate) fn values(&self) -> [Value; 3] {
        [
            Value::Str(self.charset_client.clone()),
            Value::Str(self.collation_connection.clone()),
            Value::Str(self.db_collation.clone()),
        ]
    }
}
