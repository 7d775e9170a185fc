//! INFORMATION_SCHEMA tables about the server: USER_PRIVILEGES,
//! CHARACTER_SETS, COLLATIONS, COLLATION_CHARACTER_SET_APPLICABILITY,
//! ENGINES, PLUGINS, PROCESSLIST, GLOBAL/SESSION_VARIABLES and
//! GLOBAL/SESSION_STATUS.

use larch_engine::record::value::{ColumnType, LobKind, Value};

use super::{cols, s, u, NN, NULL, T};
use super::{CHARSETS, COLLATIONS};
use crate::error::SqlError;
use crate::result::ResultColumn;
use crate::session::variables;
use crate::session::Session;

/// The rows and columns of `information_schema.<upper>` when this module
/// owns that table.
pub(super) fn table(
    sess: &Session,
    upper: &str,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Option<Vec<ResultColumn>>, SqlError> {
    let columns = match upper {
        "SCHEMA_PRIVILEGES" => {
            *rows = crate::privileges::info::rows(sess, crate::privileges::info::Kind::Schema);
            cols(&[
                ("GRANTEE", T::S(385), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("PRIVILEGE_TYPE", T::S(64), NN),
                ("IS_GRANTABLE", T::S(3), NN),
            ])
        }
        "TABLE_PRIVILEGES" => {
            *rows = crate::privileges::info::rows(sess, crate::privileges::info::Kind::Table);
            cols(&[
                ("GRANTEE", T::S(385), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("PRIVILEGE_TYPE", T::S(64), NN),
                ("IS_GRANTABLE", T::S(3), NN),
            ])
        }
        "USER_PRIVILEGES" => {
            *rows = crate::privileges::info::rows(sess, crate::privileges::info::Kind::User);
            cols(&[
                ("GRANTEE", T::S(385), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("PRIVILEGE_TYPE", T::S(64), NN),
                ("IS_GRANTABLE", T::S(3), NN),
            ])
        }
        "CHARACTER_SETS" => {
            for (name, coll, desc, maxlen) in CHARSETS {
                rows.push(vec![s(name), s(coll), s(desc), u(*maxlen)]);
            }
            cols(&[
                ("CHARACTER_SET_NAME", T::S(32), NN),
                ("DEFAULT_COLLATE_NAME", T::S(64), NN),
                ("DESCRIPTION", T::S(60), NN),
                ("MAXLEN", T::U, NN),
            ])
        }
        "COLLATIONS" => {
            for (name, cs, id, default, sortlen) in COLLATIONS {
                rows.push(vec![
                    s(name),
                    s(cs),
                    u(*id),
                    s(if *default { "Yes" } else { "" }),
                    s("Yes"),
                    u(*sortlen),
                ]);
            }
            cols(&[
                ("COLLATION_NAME", T::S(64), NN),
                ("CHARACTER_SET_NAME", T::S(32), NULL),
                ("ID", T::U, NULL),
                ("IS_DEFAULT", T::S(3), NULL),
                ("IS_COMPILED", T::S(3), NN),
                ("SORTLEN", T::U, NN),
            ])
        }
        "COLLATION_CHARACTER_SET_APPLICABILITY" => {
            for (name, cs, id, default, _) in COLLATIONS {
                rows.push(vec![
                    s(name),
                    s(cs),
                    s(name),
                    u(*id),
                    s(if *default { "Yes" } else { "" }),
                ]);
            }
            cols(&[
                ("COLLATION_NAME", T::S(64), NN),
                ("CHARACTER_SET_NAME", T::S(32), NN),
                ("FULL_COLLATION_NAME", T::S(64), NN),
                ("ID", T::U, NN),
                ("IS_DEFAULT", T::S(3), NN),
            ])
        }
        "ENGINES" => {
            for e in crate::exec::show::ENGINES {
                rows.push(e.iter().map(|v| s(v)).collect());
            }
            cols(&[
                ("ENGINE", T::S(64), NN),
                ("SUPPORT", T::S(8), NN),
                ("COMMENT", T::S(160), NN),
                ("TRANSACTIONS", T::S(3), NULL),
                ("XA", T::S(3), NULL),
                ("SAVEPOINTS", T::S(3), NULL),
            ])
        }
        "PLUGINS" => {
            for p in crate::exec::show::PLUGINS {
                rows.push(vec![
                    s(p.0),
                    s(p.1),
                    s("ACTIVE"),
                    s(p.2),
                    s(p.1),
                    Value::Null,
                    Value::Null,
                    s("Larch"),
                    s(p.3),
                    s("Apache-2.0"),
                    s(if p.2 == "STORAGE ENGINE" {
                        "FORCE"
                    } else {
                        "ON"
                    }),
                    s("Stable"),
                    s(p.1),
                ]);
            }
            cols(&[
                ("PLUGIN_NAME", T::S(64), NN),
                ("PLUGIN_VERSION", T::S(20), NN),
                ("PLUGIN_STATUS", T::S(16), NN),
                ("PLUGIN_TYPE", T::S(80), NN),
                ("PLUGIN_TYPE_VERSION", T::S(20), NN),
                ("PLUGIN_LIBRARY", T::S(64), NULL),
                ("PLUGIN_LIBRARY_VERSION", T::S(20), NULL),
                ("PLUGIN_AUTHOR", T::S(64), NULL),
                ("PLUGIN_DESCRIPTION", T::L, NULL),
                ("PLUGIN_LICENSE", T::S(80), NN),
                ("LOAD_OPTION", T::S(64), NN),
                ("PLUGIN_MATURITY", T::S(12), NN),
                ("PLUGIN_AUTH_VERSION", T::S(80), NULL),
            ])
        }
        "PROCESSLIST" => {
            let mut list = sess.db.processes();
            list.retain(|p| crate::privileges::check::sees_process(sess, p));
            list.sort_by_key(|p| p.id);
            for p in list {
                let st = p.state.lock().clone();
                let elapsed = st.since.map_or(0.0, |t| t.elapsed().as_secs_f64());
                rows.push(vec![
                    u(p.id),
                    s(&p.user),
                    s(&p.host),
                    st.db.clone().map_or(Value::Null, Value::Str),
                    s(st.command),
                    Value::Int(elapsed as i64),
                    s(st.state_text()),
                    st.info.clone().map_or(Value::Null, Value::Str),
                    Value::Double((elapsed * 1_000_000.0).round() / 1000.0),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Double(0.0),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Int(0),
                    u(0),
                    st.info
                        .map_or(Value::Null, |i| Value::Bytes(i.into_bytes())),
                    u(p.id),
                ]);
            }
            let mut c = cols(&[
                ("ID", T::U, NN),
                ("USER", T::S(128), NN),
                ("HOST", T::S(64), NN),
                ("DB", T::S(64), NULL),
                ("COMMAND", T::S(16), NN),
                ("TIME", T::I, NN),
                ("STATE", T::S(64), NULL),
                ("INFO", T::L, NULL),
                ("TIME_MS", T::D, NN),
                ("STAGE", T::I, NN),
                ("MAX_STAGE", T::I, NN),
                ("PROGRESS", T::D, NN),
                ("MEMORY_USED", T::I, NN),
                ("MAX_MEMORY_USED", T::I, NN),
                ("EXAMINED_ROWS", T::I, NN),
                ("SENT_ROWS", T::I, NN),
                ("QUERY_ID", T::U, NN),
            ]);
            c.push(ResultColumn::computed(
                "INFO_BINARY",
                ColumnType::Blob {
                    kind: LobKind::Text,
                },
                true,
            ));
            c.extend(cols(&[("TID", T::U, NN)]));
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
                    crate::exec::show::shown(def, v),
                ]);
            }
            cols(&[
                ("VARIABLE_NAME", T::S(64), NN),
                ("VARIABLE_VALUE", T::S(2048), NN),
            ])
        }
        "GLOBAL_STATUS" | "SESSION_STATUS" => {
            for (name, value) in crate::exec::show::status_list(sess) {
                rows.push(vec![s(&name.to_ascii_uppercase()), Value::Str(value)]);
            }
            cols(&[
                ("VARIABLE_NAME", T::S(64), NN),
                ("VARIABLE_VALUE", T::S(2048), NN),
            ])
        }
        _ => return Ok(None),
    };
    Ok(Some(columns))
}
