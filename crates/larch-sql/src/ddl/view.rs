//! CREATE [OR REPLACE] VIEW, ALTER VIEW and DROP VIEW.
//!
//! CREATE checks the SELECT by planning it (no rows read) with its table
//! names qualified by the view's database: a missing table or column is
//! refused then (1146, 1054), as is a temporary table (1352) or a variable
//! or parameter (1351). The view's
//! columns are the explicit column list or the SELECT's names (1353 when
//! the counts differ, 1060 on a duplicate). What is stored is a
//! [`ViewDef`]: the SELECT as written, the column list and the options;
//! the dictionary change is one atomic row change (`Catalog::create_view`),
//! so a crash leaves the old or the new view.
//!
//! Names: views share the table namespace (1050 for a table's name; OR
//! REPLACE or ALTER over a table is 1347). DROP VIEW of a name that is not a
//! view is MariaDB's 4092 `Unknown VIEW` (with 1347 as a warning for a
//! table under IF EXISTS). Every statement commits the open transaction
//! first, takes the exclusive metadata lock of the view's name (and the
//! shared ones of the tables it reads) and runs under the database's
//! `ddl_lock`.

use crate::exec::program::head::session_definer;
use larch_engine::catalog::TableEntry;
use larch_engine::table::{ColumnDef, TableDef, TableRoots};
use sqlparser::ast;

use super::table_name_as_written;
use super::view_def::ViewDef;
use super::TableMeta;
use crate::error::{SqlError, Warning};
use crate::exec::select::view;
use crate::parse::ViewStatement;
use crate::result::QueryResult;
use crate::session::Session;

fn not_of_type(db: &str, name: &str, kind: &str) -> SqlError {
    SqlError::new(1347, format!("'{db}.{name}' is not of type '{kind}'"))
}

fn var_text(s: &Session, name: &str) -> String {
    match s.var_by_name(name) {
        larch_engine::record::value::Value::Str(v) => v,
        _ => String::new(),
    }
}

/// 1352 when the query reads a temporary table of the session.
fn check_no_temporary(s: &Session, q: &ast::Query) -> Result<(), SqlError> {
    let mut found = None;
    let _ = ast::visit_relations(q, |name| {
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|p| p.as_ident())
            .map(|i| i.value.clone())
            .collect();
        if let [db, t] = parts.as_slice() {
            if s.temporary_table(db, t).is_some() {
                found = Some(t.clone());
                return std::ops::ControlFlow::Break(());
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    match found {
        Some(t) => Err(SqlError::new(
            1352,
            format!("View's SELECT refers to a temporary table '{t}'"),
        )),
        None => Ok(()),
    }
}

/// 1351 when the query reads a variable or a `?` parameter.
fn check_no_variables(q: &ast::Query) -> Result<(), SqlError> {
    let found = ast::visit_expressions(q, |e| match e {
        ast::Expr::Identifier(i) if i.value.starts_with('@') && i.quote_style.is_none() => {
            std::ops::ControlFlow::Break(())
        }
        ast::Expr::CompoundIdentifier(p)
            if p.first()
                .is_some_and(|i| i.value.starts_with('@') && i.quote_style.is_none()) =>
        {
            std::ops::ControlFlow::Break(())
        }
        ast::Expr::Value(v) if matches!(v.value, ast::Value::Placeholder(_)) => {
            std::ops::ControlFlow::Break(())
        }
        _ => std::ops::ControlFlow::Continue(()),
    })
    .is_break();
    if found {
        return Err(SqlError::new(
            1351,
            "View's SELECT contains a variable or parameter",
        ));
    }
    Ok(())
}

/// CREATE [OR REPLACE] VIEW / ALTER VIEW.
pub(super) fn create(s: &mut Session, v: &ViewStatement) -> Result<QueryResult, SqlError> {
    if v.or_replace && v.if_not_exists {
        return Err(SqlError::new(
            1221,
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    let (db, name) = table_name_as_written(s, &v.name)?;
    s.commit()?;
    s.lock_tables_exclusive(&[(db.clone(), name.clone())])?;
    {
        // The shared metadata locks of the tables the view reads are taken
        // here, before the DDL lock (no metadata lock is waited for under
        // it); errors are reported by the checks below, in their order.
        let mut query = (*v.query).clone();
        view::qualify(&mut query, &db);
        if s.begin_read().is_ok() {
            let _ = crate::exec::select::describe(s, &query, &[]);
            s.end_read();
        }
    }
    let database = s.db.clone();
    let catalog = database.catalog();
    let _ddl = database.ddl_lock.lock();
    if !catalog.has_database(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    let is_table = catalog.table_entry(&db, &name).is_some();
    let is_view = catalog.is_view(&db, &name);
    if v.alter && !is_view {
        return Err(if is_table {
            not_of_type(&db, &name, "VIEW")
        } else {
            SqlError::no_such_table(&db, &name)
        });
    }
    if is_table {
        return Err(if v.or_replace {
            not_of_type(&db, &name, "VIEW")
        } else {
            SqlError::table_exists(&name)
        });
    }
    if is_view && !v.alter && !v.or_replace {
        if v.if_not_exists {
            s.push_warning(Warning::note(
                1050,
                format!("Table '{name}' already exists"),
            ));
            return Ok(QueryResult::ok());
        }
        return Err(SqlError::table_exists(&name));
    }
    check_no_variables(&v.query)?;
    let mut query = (*v.query).clone();
    view::qualify(&mut query, &db);
    check_no_temporary(s, &query)?;
    s.begin_read()?;
    let described = crate::exec::select::describe(s, &query, &[]);
    s.end_read();
    let described = described?;
    let names: Vec<String> = if v.columns.is_empty() {
        described.iter().map(|c| c.name.clone()).collect()
    } else {
        if v.columns.len() != described.len() {
            return Err(SqlError::new(
                1353,
                "View's SELECT and view's field list have different column counts",
            ));
        }
        v.columns.clone()
    };
    for (i, n) in names.iter().enumerate() {
        if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(SqlError::new(1060, format!("Duplicate column name '{n}'")));
        }
    }
    // ALTER VIEW keeps what it does not name.
    let old = if is_view {
        catalog
            .view(&db, &name)
            .and_then(|e| ViewDef::decode(&e.definition).ok())
    } else {
        None
    };
    let algorithm = match v.algorithm.as_deref() {
        Some("MERGE") => 1,
        Some("TEMPTABLE") => 2,
        Some(_) => 0,
        None if v.alter => old.as_ref().map_or(0, |o| o.algorithm),
        None => 0,
    };
    let security = match v.security.as_deref() {
        Some("INVOKER") => 1,
        Some(_) => 0,
        None if v.alter => old.as_ref().map_or(0, |o| o.security),
        None => 0,
    };
    let definer = match &v.definer {
        Some(d) => d.clone(),
        None if v.alter => old
            .as_ref()
            .map(|o| o.definer.clone())
            .unwrap_or_else(|| session_definer(s)),
        None => session_definer(s),
    };
    let def = ViewDef {
        algorithm,
        security,
        check: match v.check.as_deref() {
            Some("LOCAL") => 2,
            Some(_) => 1,
            None => 0,
        },
        definer,
        select: v.select_text.clone(),
        columns: v.columns.clone(),
        charset_client: var_text(s, "character_set_client"),
        collation_connection: var_text(s, "collation_connection"),
    };
    catalog.create_view(&db, &name, &def.encode(), true)?;
    Ok(QueryResult::ok())
}

/// DROP VIEW [IF EXISTS] v1, v2 ... [RESTRICT | CASCADE].
pub(super) fn drop(
    s: &mut Session,
    names: &[ast::ObjectName],
    if_exists: bool,
) -> Result<QueryResult, SqlError> {
    let written = names
        .iter()
        .map(|n| table_name_as_written(s, n))
        .collect::<Result<Vec<_>, _>>()?;
    s.commit()?;
    s.lock_tables_exclusive(&written)?;
    let database = s.db.clone();
    let catalog = database.catalog();
    let _ddl = database.ddl_lock.lock();
    let mut missing = Vec::new();
    for (db, name) in &written {
        if catalog.is_view(db, name) {
            catalog.drop_view(db, name)?;
            continue;
        }
        if if_exists && catalog.table_entry(db, name).is_some() {
            s.push_warning(Warning::warn(
                1347,
                format!("'{db}.{name}' is not of type 'VIEW'"),
            ));
        }
        missing.push(format!("{db}.{name}"));
    }
    if missing.is_empty() {
        return Ok(QueryResult::ok());
    }
    let message = format!("Unknown VIEW: '{}'", missing.join(","));
    if if_exists {
        s.push_warning(Warning::note(4092, message));
        return Ok(QueryResult::ok());
    }
    Err(SqlError::new(4092, message))
}

/// The views among `names` (for DROP TABLE's 1965): `db.name` of each.
pub(super) fn views_among(s: &Session, written: &[(String, String)]) -> Vec<String> {
    written
        .iter()
        .filter(|(db, t)| s.db.catalog().is_view(db, t))
        .map(|(db, t)| format!("{db}.{t}"))
        .collect()
}

/// A view's columns dressed as a table entry and metadata (no keys, no
/// defaults), for SHOW COLUMNS, DESCRIBE and INFORMATION_SCHEMA.COLUMNS;
/// `None` when `db.name` is not a view.
pub(crate) fn as_table(
    s: &Session,
    db: &str,
    name: &str,
) -> Result<Option<(TableEntry, TableMeta)>, SqlError> {
    let Some(v) = view::load(s, db, name)? else {
        return Ok(None);
    };
    let columns = view::columns(s, &v)?;
    let def = TableDef {
        name: name.to_owned(),
        columns: columns
            .iter()
            .map(|c| ColumnDef {
                name: c.name.clone(),
                ty: c.ty.clone(),
                nullable: c.nullable,
            })
            .collect(),
        primary_key: None,
        secondary: Vec::new(),
        auto_increment: None,
        fulltext: Vec::new(),
    };
    let meta = TableMeta::plain(&def);
    let entry = TableEntry {
        id: 0,
        schema: db.to_owned(),
        name: name.to_owned(),
        def,
        roots: TableRoots {
            space: 0,
            clustered: 0,
            secondary: Vec::new(),
            auxiliary: Vec::new(),
        },
        sql_meta: Vec::new(),
    };
    Ok(Some((entry, meta)))
}
