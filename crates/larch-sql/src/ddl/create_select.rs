//! `CREATE TABLE [IF NOT EXISTS] t [(columns, keys)] [options] [IGNORE |
//! REPLACE] [AS] SELECT ...`: a table made from a query's result columns,
//! filled with its rows.
//!
//! Columns: the declared ones first, in their order, then every result
//! column whose name none of them has. A result column that names a table
//! column keeps that column's type, display attributes, NULL/NOT NULL,
//! DEFAULT and COMMENT (as MySQL's "retained attributes"; not AUTO_INCREMENT
//! nor ON UPDATE); any other takes its expression's type. A result column
//! with the name of a declared one fills that column. Two result columns
//! with one name are error 1060.
//!
//! Rows: converted as INSERT converts them (strict per `sql_mode`); a
//! duplicate key is error 1062, skipped with a warning after IGNORE, or
//! replaces the row after REPLACE. When filling fails the new table is
//! dropped again. With IF NOT EXISTS an existing table is a note (1050) and
//! nothing is inserted.

use larch_engine::record::value::ColumnType;
use larch_engine::table::ColumnDef;
use sqlparser::ast;

use super::create::{
    add_columns, add_keys, apply_options, check_engine, database_collation, existing_table,
    replace_existing, stored_name, table_options,
};
use super::meta::ColumnMeta;
use super::table_name_as_written;
use super::work::{WCol, Work};
use crate::error::SqlError;
use crate::result::{QueryResult, ResultColumn};
use crate::session::Session;

/// How duplicate keys are handled while the table is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Duplicates {
    Error,
    Ignore,
    Replace,
}

/// The `IGNORE | REPLACE` marker the parser left among the table options.
fn duplicates(opts: &ast::CreateTableOptions) -> Duplicates {
    let list: &[ast::SqlOption] = match opts {
        ast::CreateTableOptions::None => &[],
        ast::CreateTableOptions::With(v)
        | ast::CreateTableOptions::Options(v)
        | ast::CreateTableOptions::Plain(v)
        | ast::CreateTableOptions::TableProperties(v) => v,
    };
    for o in list {
        if let ast::SqlOption::KeyValue { key, value } = o {
            if key.value == crate::parse::CTAS_DUPLICATES {
                return match value.to_string().to_ascii_uppercase().as_str() {
                    "'IGNORE'" => Duplicates::Ignore,
                    "'REPLACE'" => Duplicates::Replace,
                    _ => Duplicates::Error,
                };
            }
        }
    }
    Duplicates::Error
}

/// The column a result column becomes when no declared column takes it.
fn result_column(s: &Session, rc: &ResultColumn) -> (ColumnDef, ColumnMeta) {
    let def = ColumnDef {
        name: rc.name.clone(),
        ty: rc.ty.clone(),
        nullable: rc.nullable,
    };
    if rc.org_table.is_empty() || rc.org_name.is_empty() {
        // A FLOAT or DOUBLE with fixed decimals (`ROUND(x, 2)`) is a
        // DOUBLE(M,D) column.
        let computed = ColumnMeta {
            precision: rc.fixed_real,
            unsigned: rc.unsigned_number,
            ..ColumnMeta::default()
        };
        return (def, computed);
    }
    let source = super::table_with_meta(s, &rc.schema, &rc.org_table).ok();
    let found = source.and_then(|(entry, meta)| {
        let i = entry
            .def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&rc.org_name))?;
        Some((entry.def.columns[i].clone(), meta.columns.get(i).cloned()?))
    });
    match found {
        Some((col, meta)) => (
            ColumnDef {
                name: rc.name.clone(),
                ty: col.ty,
                nullable: rc.nullable,
            },
            ColumnMeta {
                on_update_now: false,
                invisible: false,
                generated: None,
                ..meta
            },
        ),
        None => (def, ColumnMeta::default()),
    }
}

/// The expressions of a plain SELECT's result columns (`None` for a
/// wildcard or another query form, where positions are not known).
fn projection(query: &ast::Query) -> Option<Vec<&ast::Expr>> {
    let ast::SetExpr::Select(sel) = query.body.as_ref() else {
        return None;
    };
    sel.projection
        .iter()
        .map(|item| match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                Some(e)
            }
            _ => None,
        })
        .collect()
}

/// An integer literal's type as MariaDB gives it: INT of display width
/// the number of characters up to 9 characters, BIGINT beyond.
fn literal_int(e: &ast::Expr) -> Option<(ColumnType, u32)> {
    let (text, negative) = match e {
        ast::Expr::Value(v) => (&v.value, false),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            ast::Expr::Value(v) => (&v.value, true),
            _ => return None,
        },
        _ => return None,
    };
    let ast::Value::Number(n, _) = text else {
        return None;
    };
    if !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let width = u32::try_from(n.len()).ok()? + u32::from(negative);
    let bytes = if width <= 9 { 4 } else { 8 };
    Some((
        ColumnType::Int {
            bytes,
            unsigned: false,
        },
        width,
    ))
}

/// CREATE TABLE ... SELECT (see the module documentation).
pub(super) fn create_table_select(
    s: &mut Session,
    ct: &ast::CreateTable,
    query: &ast::Query,
) -> Result<QueryResult, SqlError> {
    let (db, name) = table_name_as_written(s, &ct.name)?;
    let database = s.db.clone();
    let catalog = database.catalog();
    if !catalog.has_database(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    if existing_table(s, ct, &db, &name)?.is_none() {
        return Ok(QueryResult::ok());
    }
    let stored = stored_name(s, ct, &db, &name);
    s.begin_read()?;
    let set = crate::exec::select::run_query(s, query, &[]);
    s.end_read();
    let set = set?;

    let opts = table_options(&ct.table_options, ct.comment.as_ref())?;
    opts.refuse_encryption(Some((&db, &name)))?;
    if let Some(e) = &opts.engine {
        check_engine(s, e, &name)?;
    }
    let mut w = Work::new(&stored, database_collation(s, &db));
    let default = w.collation;
    apply_options(&mut w, &opts, default)?;
    let keys = add_columns(s, &mut w, &ct.columns)?;
    let exprs = projection(query).filter(|p| p.len() == set.columns.len());
    for (i, rc) in set.columns.iter().enumerate() {
        super::check_identifier(&rc.name, super::Ident::Column)?;
        if set.columns[..i]
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&rc.name))
        {
            return Err(SqlError::new(
                1060,
                format!("Duplicate column name '{}'", rc.name),
            ));
        }
        if w.col_pos(&rc.name).is_some() {
            continue;
        }
        let (mut def, mut meta) = result_column(s, rc);
        let literal = exprs
            .as_ref()
            .and_then(|p| p.get(i))
            .and_then(|e| literal_int(e));
        if let (Some((ty, width)), ColumnType::Int { .. }) = (literal, &def.ty) {
            def.ty = ty;
            meta.display_width = Some(width);
        }
        let id = w.new_id();
        w.cols.push(WCol {
            id,
            def,
            meta,
            origin: None,
            auto_inc: false,
            explicit_null: false,
        });
    }
    add_keys(s, &mut w, keys, &ct.constraints)?;
    super::create::resolve_foreign_keys(s, &mut w, &db, &name, ct.temporary)?;
    for n in std::mem::take(&mut w.notes) {
        s.push_warning(n);
    }
    let mut fin = w.finish()?;
    fin.settle_fulltext(s, None)?;
    let columns = set
        .columns
        .iter()
        .map(|rc| {
            fin.def
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(&rc.name))
                .ok_or_else(|| SqlError::new(1105, "CREATE TABLE ... SELECT lost a column"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    {
        if !ct.temporary {
            s.lock_tables_exclusive(&[(db.clone(), name.clone())])?;
        }
        let _ddl = database.ddl_lock.lock();
        let Some(existing) = existing_table(s, ct, &db, &name)? else {
            return Ok(QueryResult::ok());
        };
        if ct.temporary && !fin.def.fulltext.is_empty() {
            return Err(SqlError::new(
                1796,
                "Cannot create FULLTEXT index on temporary InnoDB table",
            ));
        }
        replace_existing(s, ct, &db, &name, existing)?;
        let table = catalog.create_table(&db, fin.def, &fin.meta.encode())?;
        if ct.temporary {
            s.add_temporary_table(&db, &name, stored.clone());
        }
        if let Some(n) = opts
            .auto_increment
            .filter(|_| table.auto_increment_next().is_some())
        {
            table.raise_auto_increment(n)?;
        }
    }
    let dup = duplicates(&ct.table_options);
    let r = crate::exec::write::insert_selected(
        s,
        &db,
        &stored,
        &columns,
        set.rows,
        dup == Duplicates::Ignore,
        dup == Duplicates::Replace,
    );
    if r.is_err() {
        let _ddl = database.ddl_lock.lock();
        if let Err(e) = catalog.drop_table(&db, &stored) {
            tracing::warn!(db, table = name, error = %e, "dropping a half-filled table failed");
        }
        if ct.temporary {
            s.remove_temporary_table(&db, &name);
        }
    }
    r
}
