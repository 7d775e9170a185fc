//! `INFORMATION_SCHEMA.SYSTEM_VARIABLES`: one row per system variable with
//! its session, global and default values, scope, type and limits, in
//! MariaDB 10.11's columns (names, order, types and nullability).
//!
//! Built from the variable definitions in `session::variables`: a
//! session-only variable has a NULL `GLOBAL_VALUE`, a global-only one a NULL
//! `SESSION_VALUE`. `GLOBAL_VALUE_ORIGIN` is `SQL` after `SET GLOBAL`,
//! `CONFIG` for values the server set at start-up, else `COMPILE-TIME`.
//! Larch has no per-variable help text, so `VARIABLE_COMMENT` is empty.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};

use crate::result::{ResultColumn, RowSet};
use crate::session::variables::{self, Kind, Scope, VarDef};
use crate::session::Session;

/// The table's name as information_schema lists it.
pub(crate) const NAME: &str = "SYSTEM_VARIABLES";

fn text(v: &str) -> Value {
    Value::Str(v.to_owned())
}

fn columns() -> Vec<ResultColumn> {
    let mut c = vec![
        ResultColumn::text("VARIABLE_NAME", 64, false),
        ResultColumn::text("SESSION_VALUE", 2048, true),
        ResultColumn::text("GLOBAL_VALUE", 2048, true),
        ResultColumn::text("GLOBAL_VALUE_ORIGIN", 64, false),
        ResultColumn::text("DEFAULT_VALUE", 2048, true),
        ResultColumn::text("VARIABLE_SCOPE", 64, false),
        ResultColumn::text("VARIABLE_TYPE", 64, false),
        ResultColumn::text("VARIABLE_COMMENT", 2048, false),
        ResultColumn::text("NUMERIC_MIN_VALUE", 21, true),
        ResultColumn::text("NUMERIC_MAX_VALUE", 21, true),
        ResultColumn::text("NUMERIC_BLOCK_SIZE", 21, true),
    ];
    c.push(ResultColumn::computed(
        "ENUM_VALUE_LIST",
        ColumnType::Text {
            kind: LobKind::Long,
            collation: Collation::Utf8mb4GeneralCi,
        },
        true,
    ));
    c.extend([
        ResultColumn::text("READ_ONLY", 3, false),
        ResultColumn::text("COMMAND_LINE_ARGUMENT", 64, true),
        ResultColumn::text("GLOBAL_VALUE_PATH", 2048, true),
    ]);
    c
}

/// `VARIABLE_TYPE`, `NUMERIC_MIN_VALUE`, `NUMERIC_MAX_VALUE`,
/// `NUMERIC_BLOCK_SIZE` and `ENUM_VALUE_LIST` of a variable's kind.
fn type_facts(kind: Kind) -> [Value; 5] {
    let null = || Value::Null;
    match kind {
        Kind::Bool => [text("BOOLEAN"), null(), null(), null(), text("OFF,ON")],
        Kind::Int { min, max } => {
            let name = match (min < 0, u32::try_from(max).is_ok()) {
                (true, true) => "INT",
                (true, false) => "BIGINT",
                (false, true) => "INT UNSIGNED",
                (false, false) => "BIGINT UNSIGNED",
            };
            [
                text(name),
                text(&min.to_string()),
                text(&max.to_string()),
                text("0"),
                null(),
            ]
        }
        Kind::Str => [text("VARCHAR"), null(), null(), null(), null()],
        Kind::Enum(names) => [text("ENUM"), null(), null(), null(), text(&names.join(","))],
        Kind::Set(names) => [text("SET"), null(), null(), null(), text(&names.join(","))],
        Kind::Seconds { max } => [
            text("DOUBLE"),
            text("0"),
            text(&max.to_string()),
            null(),
            null(),
        ],
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Global => "GLOBAL",
        Scope::Session => "SESSION ONLY",
        Scope::Both => "SESSION",
    }
}

fn row(sess: &Session, def: &VarDef) -> Vec<Value> {
    let shown = |v: Value| crate::exec::show::shown(def, v);
    let session = match def.scope {
        Scope::Global => Value::Null,
        _ => shown(sess.var(def)),
    };
    let global = match def.scope {
        Scope::Session => Value::Null,
        _ => shown(sess.db.global_value(def)),
    };
    let origin = if sess.db.global_is_set(def.name) {
        "SQL"
    } else if sess.db.server_fact_is_set(def.name) {
        "CONFIG"
    } else {
        "COMPILE-TIME"
    };
    let default = shown(variables::default_value(def, &sess.db));
    let [ty, min, max, block, list] = type_facts(def.kind);
    vec![
        text(&def.name.to_ascii_uppercase()),
        session,
        global,
        text(origin),
        default,
        text(scope_name(def.scope)),
        ty,
        text(""),
        min,
        max,
        block,
        list,
        text(if def.read_only { "YES" } else { "NO" }),
        if def.scope == Scope::Session {
            Value::Null
        } else {
            text("REQUIRED")
        },
        Value::Null,
    ]
}

/// The rows of `SYSTEM_VARIABLES`.
pub(crate) fn table(sess: &Session) -> RowSet {
    RowSet {
        columns: columns(),
        rows: variables::all().iter().map(|def| row(sess, def)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_follow_the_kind() {
        let [ty, min, max, _, _] = type_facts(Kind::Int { min: 0, max: 100 });
        assert_eq!(
            (ty, min, max),
            (text("INT UNSIGNED"), text("0"), text("100"))
        );
        let [ty, ..] = type_facts(Kind::Int {
            min: 0,
            max: i64::MAX,
        });
        assert_eq!(ty, text("BIGINT UNSIGNED"));
        let [ty, _, _, _, list] = type_facts(Kind::Bool);
        assert_eq!((ty, list), (text("BOOLEAN"), text("OFF,ON")));
        let [ty, _, _, _, list] = type_facts(Kind::Enum(&["A", "B"]));
        assert_eq!((ty, list), (text("ENUM"), text("A,B")));
        assert_eq!(columns().len(), 15);
    }
}
