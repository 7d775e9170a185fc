//! INFORMATION_SCHEMA tables about schemas, tables and columns: SCHEMATA,
//! TABLES, COLUMNS.

use larch_engine::catalog::TableEntry;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};

use super::{base_tables, database_charset, table_facts, TABLE_NAMES};
use super::{cols, opt_s, opt_u, s, u, NN, NULL, T};
use crate::ddl::TableMeta;
use crate::error::SqlError;
use crate::result::ResultColumn;
use crate::session::Session;

/// The rows and columns of `information_schema.<upper>` when this module
/// owns that table.
pub(super) fn table(
    sess: &Session,
    upper: &str,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Option<Vec<ResultColumn>>, SqlError> {
    let catalog = sess.db.catalog();
    let columns = match upper {
        "SCHEMATA" => {
            let mut dbs = catalog.databases();
            dbs.push("information_schema".to_owned());
            dbs.sort();
            dbs.retain(|d| crate::privileges::check::sees_database(sess, d));
            for db in dbs {
                let (charset, collation) = if db == "information_schema" {
                    ("utf8mb3".to_owned(), "utf8mb3_general_ci".to_owned())
                } else {
                    database_charset(sess, &db)
                };
                rows.push(vec![
                    s("def"),
                    s(&db),
                    s(&charset),
                    s(&collation),
                    Value::Null,
                    s(""),
                ]);
            }
            cols(&[
                ("CATALOG_NAME", T::S(512), NN),
                ("SCHEMA_NAME", T::S(64), NN),
                ("DEFAULT_CHARACTER_SET_NAME", T::S(32), NN),
                ("DEFAULT_COLLATION_NAME", T::S(64), NN),
                ("SQL_PATH", T::S(512), NULL),
                ("SCHEMA_COMMENT", T::S(1024), NN),
            ])
        }
        "TABLES" => {
            for t in base_tables(sess, None)? {
                let (row_format, auto, options, comment) = table_facts(sess, &t);
                let mut r = vec![
                    s("def"),
                    s(&t.db),
                    s(&t.name),
                    s("BASE TABLE"),
                    s(&t.meta.engine),
                    u(10),
                    s(&row_format),
                ];
                r.extend(t.size_figures(sess));
                r.extend([
                    opt_u(auto),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    s(&t.meta.collation),
                    Value::Null,
                    s(&options),
                    s(&comment),
                    u(0),
                    s("N"),
                ]);
                rows.push(r);
            }
            rows.extend(super::views::tables_rows(sess));
            for n in TABLE_NAMES {
                rows.push(vec![
                    s("def"),
                    s("information_schema"),
                    s(n),
                    s("SYSTEM VIEW"),
                    s("MEMORY"),
                    u(11),
                    s("Fixed"),
                    Value::Null,
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    s("utf8mb3_general_ci"),
                    Value::Null,
                    s(""),
                    s(""),
                    u(0),
                    s("Y"),
                ]);
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("TABLE_TYPE", T::S(64), NN),
                ("ENGINE", T::S(64), NULL),
                ("VERSION", T::U, NULL),
                ("ROW_FORMAT", T::S(10), NULL),
                ("TABLE_ROWS", T::U, NULL),
                ("AVG_ROW_LENGTH", T::U, NULL),
                ("DATA_LENGTH", T::U, NULL),
                ("MAX_DATA_LENGTH", T::U, NULL),
                ("INDEX_LENGTH", T::U, NULL),
                ("DATA_FREE", T::U, NULL),
                ("AUTO_INCREMENT", T::U, NULL),
                ("CREATE_TIME", T::Dt, NULL),
                ("UPDATE_TIME", T::Dt, NULL),
                ("CHECK_TIME", T::Dt, NULL),
                ("TABLE_COLLATION", T::S(64), NULL),
                ("CHECKSUM", T::U, NULL),
                ("CREATE_OPTIONS", T::S(2048), NULL),
                ("TABLE_COMMENT", T::S(2048), NN),
                ("MAX_INDEX_LENGTH", T::U, NULL),
                ("TEMPORARY", T::S(1), NULL),
            ])
        }
        "COLUMNS" => {
            let mut tables = base_tables(sess, None)?;
            tables.extend(super::views::as_base_tables(sess));
            for t in tables {
                for (i, c) in t.entry.def.columns.iter().enumerate() {
                    let cm = t.meta.columns.get(i).cloned().unwrap_or_default();
                    let auto = t.entry.def.auto_increment == Some(i);
                    let type_text = crate::ddl::column_type_text(c, &cm);
                    let data_type = type_text.split(['(', ' ']).next().unwrap_or("").to_owned();
                    let [chars, octets, precision, scale, fsp] = type_lengths(&c.ty);
                    let collation =
                        c.ty.collation()
                            .or_else(|| c.ty.member_collation())
                            .filter(|co| *co != Collation::Binary);
                    let extra = if cm.generated.is_some() {
                        crate::ddl::extra_for_show(c, &cm, auto)
                    } else if cm.invisible {
                        "INVISIBLE".to_owned()
                    } else if auto {
                        "auto_increment".to_owned()
                    } else if cm.on_update_now {
                        let fsp = crate::value::type_fsp(&c.ty);
                        if fsp == 0 {
                            "on update current_timestamp()".to_owned()
                        } else {
                            format!("on update current_timestamp({fsp})")
                        }
                    } else {
                        String::new()
                    };
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&t.name),
                        s(&c.name),
                        u(i as u64 + 1),
                        column_default(&t.entry, &t.meta, i),
                        s(if c.nullable { "YES" } else { "NO" }),
                        s(&data_type),
                        opt_u(chars),
                        opt_u(octets),
                        opt_u(precision),
                        opt_u(scale),
                        opt_u(fsp),
                        opt_s(collation.map(|co| co.charset().name())),
                        opt_s(collation.map(|co| co.name())),
                        s(&type_text),
                        s(column_key(&t.entry, i)),
                        s(&extra),
                        s("select,insert,update,references"),
                        s(&cm.comment),
                        s(if cm.generated.is_some() {
                            "ALWAYS"
                        } else {
                            "NEVER"
                        }),
                        opt_s(cm.generated.as_ref().map(|g| g.expr.as_str())),
                    ]);
                }
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("COLUMN_NAME", T::S(64), NN),
                ("ORDINAL_POSITION", T::U, NN),
                ("COLUMN_DEFAULT", T::L, NULL),
                ("IS_NULLABLE", T::S(3), NN),
                ("DATA_TYPE", T::S(64), NN),
                ("CHARACTER_MAXIMUM_LENGTH", T::U, NULL),
                ("CHARACTER_OCTET_LENGTH", T::U, NULL),
                ("NUMERIC_PRECISION", T::U, NULL),
                ("NUMERIC_SCALE", T::U, NULL),
                ("DATETIME_PRECISION", T::U, NULL),
                ("CHARACTER_SET_NAME", T::S(32), NULL),
                ("COLLATION_NAME", T::S(64), NULL),
                ("COLUMN_TYPE", T::L, NN),
                ("COLUMN_KEY", T::S(3), NN),
                ("EXTRA", T::S(80), NN),
                ("PRIVILEGES", T::S(80), NN),
                ("COLUMN_COMMENT", T::S(1024), NN),
                ("IS_GENERATED", T::S(6), NN),
                ("GENERATION_EXPRESSION", T::L, NULL),
            ])
        }
        _ => return Ok(None),
    };
    Ok(Some(columns))
}

/// `(CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION,
/// NUMERIC_SCALE, DATETIME_PRECISION)` of a column type.
pub(super) fn type_lengths(ty: &ColumnType) -> [Option<u64>; 5] {
    let lob = |k: &LobKind| match k {
        LobKind::Tiny => 255,
        LobKind::Text => 65_535,
        LobKind::Medium => 16_777_215,
        LobKind::Long => 4_294_967_295,
    };
    let mb = |c: &Collation| c.charset().max_bytes_per_char() as u64;
    match ty {
        ColumnType::Int { bytes, unsigned } => {
            let p = match (bytes, unsigned) {
                (1, _) => 3,
                (2, _) => 5,
                (3, false) => 7,
                (3, true) => 8,
                (4, _) => 10,
                (_, false) => 19,
                (_, true) => 20,
            };
            [None, None, Some(p), Some(0), None]
        }
        ColumnType::Decimal { precision, scale } => [
            None,
            None,
            Some(u64::from(*precision)),
            Some(u64::from(*scale)),
            None,
        ],
        ColumnType::Float => [None, None, Some(12), None, None],
        ColumnType::Double => [None, None, Some(22), None, None],
        ColumnType::Bit { bits } => [None, None, Some(u64::from(*bits)), None, None],
        ColumnType::Char { len, collation } => {
            let n = u64::from(*len);
            [Some(n), Some(n * mb(collation)), None, None, None]
        }
        ColumnType::Varchar { max_len, collation } => {
            let n = u64::from(*max_len);
            [Some(n), Some(n * mb(collation)), None, None, None]
        }
        ColumnType::Binary { len } => {
            let n = u64::from(*len);
            [Some(n), Some(n), None, None, None]
        }
        ColumnType::Varbinary { max_len } => {
            let n = u64::from(*max_len);
            [Some(n), Some(n), None, None, None]
        }
        ColumnType::Text { kind, .. } | ColumnType::Blob { kind } => {
            let n = lob(kind);
            [Some(n), Some(n), None, None, None]
        }
        ColumnType::Enum { values, .. } => {
            let n = values.iter().map(|v| v.chars().count()).max().unwrap_or(0) as u64;
            [Some(n), Some(n * 4), None, None, None]
        }
        ColumnType::Set { values, .. } => {
            let n = values.iter().map(|v| v.chars().count() + 1).sum::<usize>();
            let n = n.saturating_sub(1) as u64;
            [Some(n), Some(n * 4), None, None, None]
        }
        ColumnType::Time { fsp } | ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => {
            [None, None, None, None, Some(u64::from(*fsp))]
        }
        ColumnType::Date | ColumnType::Year | ColumnType::Uuid => [None; 5],
    }
}

/// COLUMN_KEY of column `i`: PRI, UNI, MUL or "" (as SHOW COLUMNS).
fn column_key(entry: &TableEntry, i: usize) -> &'static str {
    let def = &entry.def;
    let first =
        |x: &larch_engine::table::IndexDef| x.columns.first().is_some_and(|p| p.column == i);
    if def
        .primary_key
        .as_ref()
        .is_some_and(|p| p.columns.iter().any(|c| c.column == i))
    {
        "PRI"
    } else if def
        .secondary
        .iter()
        .any(|x| x.unique && x.columns.len() == 1 && first(x))
    {
        "UNI"
    } else if def.secondary.iter().any(first) {
        "MUL"
    } else {
        ""
    }
}

/// COLUMN_DEFAULT: the DEFAULT expression as MariaDB 10.2+ shows it (string
/// literals quoted, `NULL` for a nullable column without a default, SQL NULL
/// when there is no default).
fn column_default(entry: &TableEntry, meta: &TableMeta, i: usize) -> Value {
    let c = &entry.def.columns[i];
    if entry.def.auto_increment == Some(i)
        || meta.columns.get(i).is_some_and(|m| m.generated.is_some())
    {
        return Value::Null;
    }
    match meta.columns.get(i).and_then(|m| m.default.as_deref()) {
        Some(d) => s(d),
        None if c.nullable => s("NULL"),
        None => Value::Null,
    }
}
