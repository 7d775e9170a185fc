//! INFORMATION_SCHEMA tables, built on demand from the catalog, the
//! variables and the process list: SCHEMATA, TABLES, COLUMNS, STATISTICS,
//! ENGINES, PROCESSLIST, GLOBAL_VARIABLES, SESSION_VARIABLES, INNODB_TRX.
//! Table names are case-insensitive here, as in MySQL.

use larch_engine::record::value::Value;

use crate::error::SqlError;
use crate::result::{ResultColumn, RowSet};
use crate::session::variables;
use crate::session::Session;

fn text_cols(names: &[&str]) -> Vec<ResultColumn> {
    names
        .iter()
        .map(|n| ResultColumn::text(*n, 512, true))
        .collect()
}

fn s(v: &str) -> Value {
    Value::Str(v.to_owned())
}

/// The rows of `information_schema.<name>`.
pub(crate) fn table(sess: &Session, name: &str) -> Result<RowSet, SqlError> {
    let catalog = sess.db.catalog();
    let upper = name.to_ascii_uppercase();
    let mut rows = Vec::new();
    let columns = match upper.as_str() {
        "SCHEMATA" => {
            for db in catalog
                .databases()
                .into_iter()
                .chain(["information_schema".to_owned()])
            {
                rows.push(vec![
                    s("def"),
                    s(&db),
                    s("utf8mb4"),
                    s("utf8mb4_general_ci"),
                    Value::Null,
                    Value::Null,
                ]);
            }
            text_cols(&[
                "CATALOG_NAME",
                "SCHEMA_NAME",
                "DEFAULT_CHARACTER_SET_NAME",
                "DEFAULT_COLLATION_NAME",
                "SQL_PATH",
                "SCHEMA_COMMENT",
            ])
        }
        "TABLES" => {
            for db in catalog.databases() {
                for t in catalog.tables(&db)? {
                    let auto = catalog
                        .table(&db, &t)
                        .ok()
                        .and_then(|tb| tb.auto_increment_next())
                        .map_or(Value::Null, Value::UInt);
                    rows.push(vec![
                        s("def"),
                        s(&db),
                        s(&t),
                        s("BASE TABLE"),
                        s("InnoDB"),
                        Value::UInt(10),
                        s("Dynamic"),
                        auto,
                        s("utf8mb4_general_ci"),
                        s(""),
                    ]);
                }
            }
            let mut c = text_cols(&[
                "TABLE_CATALOG",
                "TABLE_SCHEMA",
                "TABLE_NAME",
                "TABLE_TYPE",
                "ENGINE",
            ]);
            c.push(ResultColumn::bigint("VERSION", true, true));
            c.extend(text_cols(&["ROW_FORMAT"]));
            c.push(ResultColumn::bigint("AUTO_INCREMENT", true, true));
            c.extend(text_cols(&["TABLE_COLLATION", "TABLE_COMMENT"]));
            c
        }
        "COLUMNS" => {
            for db in catalog.databases() {
                for t in catalog.tables(&db)? {
                    let Some(entry) = catalog.table_entry(&db, &t) else {
                        continue;
                    };
                    let meta = crate::ddl::TableMeta::decode(&entry.sql_meta, &entry.def)?;
                    let pk: Vec<usize> = entry
                        .def
                        .primary_key
                        .as_ref()
                        .map(|p| p.columns.iter().map(|c| c.column).collect())
                        .unwrap_or_default();
                    for (i, c) in entry.def.columns.iter().enumerate() {
                        let cm = meta.columns.get(i).cloned().unwrap_or_default();
                        let key =
                            if pk.contains(&i) {
                                "PRI"
                            } else if entry.def.secondary.iter().any(|x| {
                                x.unique && x.columns.first().is_some_and(|p| p.column == i)
                            }) {
                                "UNI"
                            } else if entry
                                .def
                                .secondary
                                .iter()
                                .any(|x| x.columns.first().is_some_and(|p| p.column == i))
                            {
                                "MUL"
                            } else {
                                ""
                            };
                        let type_text = crate::ddl::column_type_text(c, &cm);
                        let data_type = type_text.split(['(', ' ']).next().unwrap_or("").to_owned();
                        rows.push(vec![
                            s("def"),
                            s(&db),
                            s(&t),
                            s(&c.name),
                            Value::UInt(i as u64 + 1),
                            cm.default.clone().map_or(Value::Null, Value::Str),
                            s(if c.nullable { "YES" } else { "NO" }),
                            s(&data_type),
                            c.ty.collation().map_or(Value::Null, |co| s(co.name())),
                            s(&type_text),
                            s(key),
                            s(if entry.def.auto_increment == Some(i) {
                                "auto_increment"
                            } else {
                                ""
                            }),
                            s(&cm.comment),
                        ]);
                    }
                }
            }
            let mut c = text_cols(&["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME"]);
            c.push(ResultColumn::bigint("ORDINAL_POSITION", true, false));
            c.extend(text_cols(&[
                "COLUMN_DEFAULT",
                "IS_NULLABLE",
                "DATA_TYPE",
                "COLLATION_NAME",
                "COLUMN_TYPE",
                "COLUMN_KEY",
                "EXTRA",
                "COLUMN_COMMENT",
            ]));
            c
        }
        "STATISTICS" => {
            for db in catalog.databases() {
                for t in catalog.tables(&db)? {
                    let Some(entry) = catalog.table_entry(&db, &t) else {
                        continue;
                    };
                    let def = &entry.def;
                    let idxs = def
                        .primary_key
                        .iter()
                        .map(|p| (p, true, "PRIMARY".to_owned()))
                        .chain(def.secondary.iter().map(|x| (x, x.unique, x.name.clone())));
                    for (idx, unique, name) in idxs {
                        for (seq, part) in idx.columns.iter().enumerate() {
                            rows.push(vec![
                                s("def"),
                                s(&db),
                                s(&t),
                                Value::UInt(u64::from(!unique)),
                                s(&db),
                                s(&name),
                                Value::UInt(seq as u64 + 1),
                                s(&def.columns[part.column].name),
                                s(if part.descending { "D" } else { "A" }),
                                part.prefix_len
                                    .map_or(Value::Null, |p| Value::UInt(u64::from(p))),
                                s(if def.columns[part.column].nullable {
                                    "YES"
                                } else {
                                    ""
                                }),
                                s("BTREE"),
                            ]);
                        }
                    }
                }
            }
            let mut c = text_cols(&["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME"]);
            c.push(ResultColumn::bigint("NON_UNIQUE", false, false));
            c.extend(text_cols(&["INDEX_SCHEMA", "INDEX_NAME"]));
            c.push(ResultColumn::bigint("SEQ_IN_INDEX", true, false));
            c.extend(text_cols(&["COLUMN_NAME", "COLLATION"]));
            c.push(ResultColumn::bigint("SUB_PART", true, true));
            c.extend(text_cols(&["NULLABLE", "INDEX_TYPE"]));
            c
        }
        "ENGINES" => {
            rows.push(vec![
                s("InnoDB"),
                s("DEFAULT"),
                s("Larch: transactions, row-level locking"),
                s("YES"),
                s("YES"),
                s("YES"),
            ]);
            text_cols(&[
                "ENGINE",
                "SUPPORT",
                "COMMENT",
                "TRANSACTIONS",
                "XA",
                "SAVEPOINTS",
            ])
        }
        "PROCESSLIST" => {
            for p in sess.db.processes() {
                let st = p.state.lock().clone();
                rows.push(vec![
                    Value::UInt(p.id),
                    s(&p.user),
                    s(&p.host),
                    st.db.map_or(Value::Null, Value::Str),
                    s(st.command),
                    Value::UInt(st.since.map_or(0, |t| t.elapsed().as_secs())),
                    s(""),
                    st.info.map_or(Value::Null, Value::Str),
                ]);
            }
            let mut c = vec![ResultColumn::bigint("ID", true, false)];
            c.extend(text_cols(&["USER", "HOST", "DB", "COMMAND"]));
            c.push(ResultColumn::bigint("TIME", false, false));
            c.extend(text_cols(&["STATE", "INFO"]));
            c
        }
        "GLOBAL_VARIABLES" | "SESSION_VARIABLES" => {
            let global = upper == "GLOBAL_VARIABLES";
            for def in variables::all() {
                if global && def.scope == variables::Scope::Session {
                    continue;
                }
                let v = if global {
                    sess.db.global_value(def)
                } else {
                    sess.var(def)
                };
                rows.push(vec![
                    s(&def.name.to_ascii_uppercase()),
                    s(&crate::value::store::value_to_string(&v)),
                ]);
            }
            text_cols(&["VARIABLE_NAME", "VARIABLE_VALUE"])
        }
        "INNODB_TRX" => {
            for t in sess.db.transactions().innodb_trx() {
                rows.push(vec![
                    s(&t.trx_id.to_string()),
                    s(t.state.name()),
                    Value::UInt(u64::from(t.session)),
                    s(t.isolation.name()),
                    Value::UInt(u64::from(t.read_only)),
                    Value::UInt(u64::from(t.autocommit_non_locking)),
                ]);
            }
            let mut c = text_cols(&["trx_id", "trx_state"]);
            c.push(ResultColumn::bigint("trx_mysql_thread_id", true, false));
            c.extend(text_cols(&["trx_isolation_level"]));
            c.push(ResultColumn::bigint("trx_read_only", true, false));
            c.push(ResultColumn::bigint(
                "trx_autocommit_non_locking",
                true,
                false,
            ));
            c
        }
        _ => {
            return Err(SqlError::new(
                1109,
                format!("Unknown table '{name}' in information_schema"),
            ))
        }
    };
    Ok(RowSet { columns, rows })
}
