//! Views in INFORMATION_SCHEMA and SHOW TABLE STATUS: the VIEWS table, the
//! `VIEW` rows of TABLES (ENGINE and the statistics NULL, comment `VIEW`),
//! and the views as column sources for COLUMNS. A view whose tables are
//! gone has no COLUMNS rows (its columns cannot be worked out).

use larch_engine::record::value::Value;

use super::{cols, s, BaseTable, NN, T};
use crate::ddl::ViewDef;
use crate::error::SqlError;
use crate::result::ResultColumn;
use crate::session::Session;

/// Every view `(db, name, definition)`, by database and name.
fn all_views(sess: &Session, db: Option<&str>) -> Vec<(String, String, ViewDef)> {
    let catalog = sess.db.catalog();
    let dbs = match db {
        Some(d) => vec![d.to_owned()],
        None => catalog.databases(),
    };
    let mut out = Vec::new();
    for db in dbs {
        for name in catalog.views(&db) {
            let Some(e) = catalog.view(&db, &name) else {
                continue;
            };
            if let Ok(def) = ViewDef::decode(&e.definition) {
                out.push((db.clone(), name, def));
            }
        }
    }
    out
}

/// INFORMATION_SCHEMA.VIEWS.
pub(super) fn views_table(
    sess: &Session,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Vec<ResultColumn>, SqlError> {
    for (db, name, def) in all_views(sess, None) {
        let updatable = crate::exec::select::view::load(sess, &db, &name)
            .ok()
            .flatten()
            .and_then(|v| {
                crate::exec::select::view::mergeable(sess, &v)
                    .ok()
                    .flatten()
            })
            .is_some();
        rows.push(vec![
            s("def"),
            s(&db),
            s(&name),
            s(&def.body()),
            s(def.check_name()),
            s(if updatable { "YES" } else { "NO" }),
            s(&format!("{}@{}", def.definer.0, def.definer.1)),
            s(def.security_name()),
            s(&def.charset_client),
            s(&def.collation_connection),
            s(def.algorithm_name()),
        ]);
    }
    Ok(cols(&[
        ("TABLE_CATALOG", T::S(512), NN),
        ("TABLE_SCHEMA", T::S(64), NN),
        ("TABLE_NAME", T::S(64), NN),
        ("VIEW_DEFINITION", T::L, NN),
        ("CHECK_OPTION", T::S(8), NN),
        ("IS_UPDATABLE", T::S(3), NN),
        ("DEFINER", T::S(384), NN),
        ("SECURITY_TYPE", T::S(7), NN),
        ("CHARACTER_SET_CLIENT", T::S(32), NN),
        ("COLLATION_CONNECTION", T::S(64), NN),
        ("ALGORITHM", T::S(10), NN),
    ]))
}

/// The INFORMATION_SCHEMA.TABLES rows of the views.
pub(super) fn tables_rows(sess: &Session) -> Vec<Vec<Value>> {
    all_views(sess, None)
        .into_iter()
        .map(|(db, name, _)| {
            let mut r = vec![s("def"), s(&db), s(&name), s("VIEW")];
            r.extend(std::iter::repeat_n(Value::Null, 16));
            r.extend([s("VIEW"), Value::Null, Value::Null]);
            r
        })
        .collect()
}

/// The SHOW TABLE STATUS rows of the views of `db`.
pub(crate) fn status_rows(sess: &Session, db: &str) -> Vec<Vec<Value>> {
    all_views(sess, Some(db))
        .into_iter()
        .map(|(_, name, _)| {
            let mut r = vec![s(&name)];
            r.extend(std::iter::repeat_n(Value::Null, 16));
            r.extend([s("VIEW"), Value::Null, Value::Null]);
            r
        })
        .collect()
}

/// The views as column sources (for COLUMNS), skipping broken ones.
pub(super) fn as_base_tables(sess: &Session) -> Vec<BaseTable> {
    all_views(sess, None)
        .into_iter()
        .filter_map(|(db, name, _)| {
            let (entry, meta) = crate::ddl::view_as_table(sess, &db, &name).ok()??;
            Some(BaseTable {
                db,
                name,
                entry,
                meta,
            })
        })
        .collect()
}
