//! SHOW CREATE VIEW (and SHOW CREATE TABLE of a view, which answers the
//! same): columns `View`, `Create View`, `character_set_client`,
//! `collation_connection`, the text as MariaDB prints it
//! (`CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY
//! DEFINER VIEW `v` AS select ...`), with the SELECT as it was written.

use larch_engine::record::value::Value;
use sqlparser::ast;

use crate::ddl::ViewDef;
use crate::error::SqlError;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// `(db, name)` of a SHOW CREATE name.
pub(super) fn name_of(s: &Session, name: &ast::ObjectName) -> Result<(String, String), SqlError> {
    crate::ddl::table_name_as_written(s, name)
}

/// SHOW CREATE VIEW db.v: 1347 for a table, 1146 for nothing.
pub(super) fn show_create_view(
    s: &Session,
    name: &ast::ObjectName,
) -> Result<QueryResult, SqlError> {
    let (db, view) = name_of(s, name)?;
    let catalog = s.db.catalog();
    let Some(e) = catalog.view(&db, &view) else {
        if catalog.table_entry(&db, &view).is_some() {
            return Err(SqlError::new(
                1347,
                format!("'{db}.{view}' is not of type 'VIEW'"),
            ));
        }
        return Err(SqlError::no_such_table(&db, &view));
    };
    let def = ViewDef::decode(&e.definition)?;
    Ok(QueryResult::Rows(RowSet {
        columns: vec![
            ResultColumn::text("View", 64, false),
            ResultColumn::text("Create View", 1024, false),
            ResultColumn::text("character_set_client", 32, false),
            ResultColumn::text("collation_connection", 64, false),
        ],
        rows: vec![vec![
            Value::Str(view.clone()),
            Value::Str(def.create_text(&view)),
            Value::Str(def.charset_client.clone()),
            Value::Str(def.collation_connection.clone()),
        ]],
    }))
}
