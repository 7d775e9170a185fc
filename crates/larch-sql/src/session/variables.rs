//! System variables: the names MySQL/MariaDB clients, drivers and tools read
//! and set, their scope, type, default and limits.
//!
//! A variable is global-only, session-only, or both (a session starts with the
//! global value). Values are engine [`Value`]s: integers and booleans as
//! `Int`/`UInt` (`@@autocommit` is 1, as in MySQL), everything else as `Str`.
//! Engine settings (`innodb_*`, `datadir`) are read-only and come from the
//! open engine's configuration. Setting a variable checks its type and range
//! with MySQL's errors: 1193 unknown, 1238 read-only, 1228/1229 wrong scope,
//! 1231 bad value, 1232 wrong type.

use larch_engine::record::value::Value;

use crate::database::Database;
use crate::error::SqlError;

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    Both,
}

/// The type of a variable's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ON/OFF, 1/0, TRUE/FALSE.
    Bool,
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// Any string.
    Str,
    /// One of the listed names (case-insensitive, stored as listed).
    Enum(&'static [&'static str]),
    /// A comma-separated set of the listed names (`sql_mode`).
    Set(&'static [&'static str]),
    /// A number of seconds with a fraction in `0..=max` (stored as a DOUBLE,
    /// e.g. `max_statement_time`).
    Seconds { max: i64 },
}

/// One system variable.
#[derive(Debug, Clone, Copy)]
pub struct VarDef {
    pub name: &'static str,
    pub scope: Scope,
    pub kind: Kind,
    pub read_only: bool,
    /// The default as text (`None`: computed from the engine in `default_value`).
    pub default: Option<&'static str>,
    /// Larch does not implement what another value would do: setting any
    /// value but the one the variable has fails with 1235 (MariaDB's
    /// settings in `mariadb_settings.tsv` marked default-only).
    pub fixed: bool,
}

const fn v(name: &'static str, scope: Scope, kind: Kind, default: &'static str) -> VarDef {
    VarDef {
        name,
        scope,
        kind,
        read_only: false,
        default: Some(default),
        fixed: false,
    }
}

const fn ro(name: &'static str, kind: Kind, default: &'static str) -> VarDef {
    VarDef {
        name,
        scope: Scope::Global,
        kind,
        read_only: true,
        default: Some(default),
        fixed: false,
    }
}

/// Read-only, computed from the engine or server.
const fn engine(name: &'static str, kind: Kind) -> VarDef {
    VarDef {
        name,
        scope: Scope::Global,
        kind,
        read_only: true,
        default: None,
        fixed: false,
    }
}

mod connections;
mod mariadb_settings;
mod table;
mod tunables;

use connections::CONNECTIONS;
use table::VARIABLES;
pub use table::{DEFAULT_SQL_MODE, SQL_MODES};
use tunables::TUNABLES;

/// The definition of `name` (case-insensitive).
pub fn lookup(name: &str) -> Option<&'static VarDef> {
    let lower = name.to_ascii_lowercase();
    [
        VARIABLES,
        TUNABLES,
        CONNECTIONS,
        mariadb_settings::settings(),
    ]
    .into_iter()
    .find_map(|t| {
        t.binary_search_by(|d| d.name.cmp(lower.as_str()))
            .ok()
            .map(|i| &t[i])
    })
}

/// Every variable, in name order.
pub fn all() -> &'static [VarDef] {
    static ALL: std::sync::OnceLock<Vec<VarDef>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<VarDef> = VARIABLES
            .iter()
            .chain(TUNABLES)
            .chain(CONNECTIONS)
            .chain(mariadb_settings::settings())
            .copied()
            .collect();
        all.sort_by_key(|d| d.name);
        all
    })
}

/// The aliases that must change together (`tx_isolation` is the old name).
pub fn alias_of(name: &str) -> Option<&'static str> {
    match name {
        "tx_isolation" => Some("transaction_isolation"),
        "transaction_isolation" => Some("tx_isolation"),
        "tx_read_only" => Some("transaction_read_only"),
        "transaction_read_only" => Some("tx_read_only"),
        "tmp_memory_table_size" => Some("tmp_table_size"),
        "tmp_table_size" => Some("tmp_memory_table_size"),
        _ => None,
    }
}

/// The default value of a variable.
pub fn default_value(def: &VarDef, db: &Database) -> Value {
    if let Some(text) = def.default {
        return parse_default(def.kind, text);
    }
    let c = db.storage().config();
    let int = |n: u64| Value::UInt(n);
    match def.name {
        "datadir" => Value::Str(format!("{}/", db.storage().datadir().display())),
        "innodb_buffer_pool_size" => int(c.buffer_pool_size),
        "innodb_doublewrite" => int(u64::from(c.doublewrite)),
        "innodb_flush_log_at_trx_commit" => int(u64::from(c.flush_log_at_trx_commit)),
        "innodb_flush_method" => Value::Str(c.flush_method.name().to_owned()),
        "innodb_io_capacity" => int(u64::from(c.io_capacity)),
        "innodb_io_capacity_max" => int(u64::from(c.io_capacity_max)),
        "innodb_log_buffer_size" => int(c.log_buffer_size),
        "innodb_log_file_size" => int(c.log_file_size),
        "innodb_old_blocks_pct" => int(u64::from(c.old_blocks_pct)),
        "innodb_old_blocks_time" => int(u64::from(c.old_blocks_time_ms)),
        "innodb_page_size" => int(u64::from(db.storage().page_size().get())),
        "innodb_read_ahead_threshold" => int(u64::from(c.read_ahead_threshold)),
        "innodb_undo_tablespaces" => int(u64::from(c.undo_tablespaces)),
        "port" => int(0),
        "max_connections" => int(151),
        "hostname" => Value::Str(hostname()),
        "general_log_file" => Value::Str(format!("{}.log", hostname())),
        "slow_query_log_file" | "log_slow_query_file" => {
            Value::Str(format!("{}-slow.log", hostname()))
        }
        "open_files_limit" => int(open_files_limit()),
        _ => Value::Str(String::new()),
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "localhost".to_owned())
}

/// The soft limit on open files the server runs under (MariaDB's
/// `open_files_limit` shows the limit it got).
fn open_files_limit() -> u64 {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            limits
                .lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

/// A default as the tables write it (`\\N` is NULL, as MariaDB shows
/// `innodb_ft_aux_table` before it is set).
fn parse_default(kind: Kind, text: &str) -> Value {
    if text == "\\N" {
        return Value::Null;
    }
    match kind {
        Kind::Seconds { .. } => Value::Double(text.parse().unwrap_or(0.0)),
        Kind::Bool | Kind::Int { .. } => text
            .parse::<u64>()
            .map(Value::UInt)
            .unwrap_or_else(|_| Value::Str(text.to_owned())),
        _ => Value::Str(text.to_owned()),
    }
}

fn wrong_value(name: &str, shown: &str) -> SqlError {
    SqlError::new(
        1231,
        format!("Variable '{name}' can't be set to the value of '{shown}'"),
    )
}

fn wrong_type(name: &str) -> SqlError {
    SqlError::new(
        1232,
        format!("Incorrect argument type to variable '{name}'"),
    )
}

/// Checks `value` for `def` and converts it to the stored form.
pub fn normalize(def: &VarDef, value: Value) -> Result<Value, SqlError> {
    let name = def.name;
    let text = |v: &Value| -> Option<String> {
        match v {
            Value::Str(s) => Some(s.clone()),
            Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    };
    match def.kind {
        Kind::Bool => {
            let b = match &value {
                Value::Int(0) | Value::UInt(0) => false,
                Value::Int(1) | Value::UInt(1) => true,
                Value::Int(n) => return Err(wrong_value(name, &n.to_string())),
                Value::UInt(n) => return Err(wrong_value(name, &n.to_string())),
                Value::Null => return Err(wrong_value(name, "NULL")),
                v => match text(v).map(|s| s.to_ascii_uppercase()).as_deref() {
                    Some("ON" | "TRUE") => true,
                    Some("OFF" | "FALSE") => false,
                    Some(other) => return Err(wrong_value(name, other)),
                    None => return Err(wrong_type(name)),
                },
            };
            Ok(Value::UInt(u64::from(b)))
        }
        Kind::Int { min, max } => {
            let n: i128 = match &value {
                Value::Int(n) => i128::from(*n),
                Value::UInt(n) => i128::from(*n),
                Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
                    return Err(wrong_type(name))
                }
                Value::Str(s) if s.eq_ignore_ascii_case("default") => {
                    return Ok(parse_default(def.kind, def.default.unwrap_or("0")))
                }
                _ => return Err(wrong_type(name)),
            };
            // MySQL clamps out-of-range integers (with warning 1292).
            let clamped = n.clamp(i128::from(min), i128::from(max));
            Ok(if clamped < 0 {
                Value::Int(clamped as i64)
            } else {
                Value::UInt(clamped as u64)
            })
        }
        Kind::Seconds { max } => {
            let n: f64 = match &value {
                Value::Int(n) => *n as f64,
                Value::UInt(n) => *n as f64,
                Value::Double(d) => *d,
                Value::Float(f) => f64::from(*f),
                Value::Decimal(_) => crate::value::store::value_to_string(&value)
                    .parse()
                    .map_err(|_| wrong_type(name))?,
                _ => return Err(wrong_type(name)),
            };
            if n.is_nan() {
                return Err(wrong_type(name));
            }
            Ok(Value::Double(n.clamp(0.0, max as f64)))
        }
        Kind::Str => match &value {
            // A variable that starts as NULL may be set back to it.
            Value::Null if def.default == Some("\\N") => Ok(Value::Null),
            Value::Null => Ok(Value::Str(String::new())),
            Value::Int(n) => Ok(Value::Str(n.to_string())),
            Value::UInt(n) => Ok(Value::Str(n.to_string())),
            v => {
                let s = text(v).ok_or_else(|| wrong_type(name))?;
                if name == "ft_boolean_syntax" && !is_boolean_syntax(&s) {
                    return Err(wrong_value(name, &s));
                }
                Ok(Value::Str(s))
            }
        },
        Kind::Enum(names) => {
            let chosen = match &value {
                Value::Int(n) if *n >= 0 && (*n as usize) < names.len() => names[*n as usize],
                Value::UInt(n) if (*n as usize) < names.len() => names[*n as usize],
                Value::Int(n) => return Err(wrong_value(name, &n.to_string())),
                Value::UInt(n) => return Err(wrong_value(name, &n.to_string())),
                Value::Null => return Err(wrong_value(name, "NULL")),
                v => {
                    let s = text(v).ok_or_else(|| wrong_type(name))?;
                    let up = s.replace(' ', "-");
                    *names
                        .iter()
                        .find(|n| n.eq_ignore_ascii_case(&up))
                        .ok_or_else(|| wrong_value(name, &s))?
                }
            };
            Ok(Value::Str(chosen.to_owned()))
        }
        Kind::Set(names) => {
            let s = match &value {
                Value::Null => return Err(wrong_value(name, "NULL")),
                Value::Int(_) | Value::UInt(_) => {
                    let bits = match value {
                        Value::Int(n) => n as u64,
                        Value::UInt(n) => n,
                        _ => 0,
                    };
                    let picked: Vec<&str> = names
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i < 64 && bits & (1 << i) != 0)
                        .map(|(_, n)| *n)
                        .collect();
                    return Ok(Value::Str(picked.join(",")));
                }
                v => text(v).ok_or_else(|| wrong_type(name))?,
            };
            let mut picked: Vec<&str> = Vec::new();
            for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let member = names
                    .iter()
                    .find(|n| n.eq_ignore_ascii_case(part))
                    .ok_or_else(|| wrong_value(name, part))?;
                for m in expand_mode(member) {
                    if !picked.contains(&m) {
                        picked.push(m);
                    }
                }
            }
            picked.sort_by_key(|m| names.iter().position(|n| n == m));
            Ok(Value::Str(picked.join(",")))
        }
    }
}

/// MariaDB's rule for `ft_boolean_syntax`: 14 ASCII characters, none a
/// letter or digit, a space first or second, no character twice except the
/// two quotes in the 11th and 12th places.
fn is_boolean_syntax(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 14
        && (b[0] == b' ' || b[1] == b' ')
        && b.iter().enumerate().all(|(i, &c)| {
            c.is_ascii()
                && !c.is_ascii_alphanumeric()
                && b[..i]
                    .iter()
                    .enumerate()
                    .all(|(j, &d)| d != c || (i, j) == (11, 10))
        })
}

/// Combination modes stand for several members (MariaDB keeps the name too).
fn expand_mode(mode: &'static str) -> Vec<&'static str> {
    match mode {
        "TRADITIONAL" => vec![
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "TRADITIONAL",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ],
        "ANSI" => vec![
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "ANSI",
        ],
        m => vec![m],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for table in [
            VARIABLES,
            TUNABLES,
            CONNECTIONS,
            mariadb_settings::settings(),
        ] {
            for w in table.windows(2) {
                assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
            }
        }
        for w in all().windows(2) {
            assert!(w[0].name < w[1].name, "{} twice", w[0].name);
        }
        assert!(lookup("JOIN_CACHE_LEVEL").is_some());
        assert!(lookup("AUTOCOMMIT").is_some());
        assert!(lookup("no_such_variable").is_none());
    }

    #[test]
    fn ft_boolean_syntax_is_checked_as_mariadb_does() {
        let v = lookup("ft_boolean_syntax").expect("ft_boolean_syntax");
        for good in ["+ -><()~*:\"\"&|", " +-><()~*:\"\"&|", "@ -><()~*:\"\"&|"] {
            assert_eq!(
                normalize(v, Value::Str(good.into())).ok(),
                Some(Value::Str(good.into()))
            );
        }
        for bad in [
            "@ -><()~*:\"\"@|",
            "+ -><()~*:\"\"@!|",
            "+-><()~*:\"\"&|x",
            "+x-><()~*:\"\"&|",
            "+ -><()~*:\"\"&",
        ] {
            let e = normalize(v, Value::Str(bad.into())).map_err(|e| (e.code(), e.message()));
            assert_eq!(
                e,
                Err((
                    1231,
                    format!("Variable 'ft_boolean_syntax' can't be set to the value of '{bad}'")
                )),
                "{bad}"
            );
        }
    }

    #[test]
    fn values_are_checked_as_mysql_does() {
        let ac = lookup("autocommit").expect("autocommit");
        assert_eq!(
            normalize(ac, Value::Str("off".into())).ok(),
            Some(Value::UInt(0))
        );
        assert_eq!(
            normalize(ac, Value::Int(2)).map_err(|e| e.code()),
            Err(1231)
        );
        let iso = lookup("transaction_isolation").expect("isolation");
        assert_eq!(
            normalize(iso, Value::Str("read-committed".into())).ok(),
            Some(Value::Str("READ-COMMITTED".into()))
        );
        let mode = lookup("sql_mode").expect("sql_mode");
        assert_eq!(
            normalize(mode, Value::Str("no_zero_date,strict_trans_tables".into())).ok(),
            Some(Value::Str("STRICT_TRANS_TABLES,NO_ZERO_DATE".into()))
        );
        assert_eq!(
            normalize(mode, Value::Str("bogus".into())).map_err(|e| e.code()),
            Err(1231)
        );
        let mst = lookup("max_statement_time").expect("max_statement_time");
        assert_eq!(normalize(mst, Value::Int(5)).ok(), Some(Value::Double(5.0)));
        assert_eq!(
            normalize(mst, Value::Str("x".into())).map_err(|e| e.code()),
            Err(1232)
        );
        let notes = lookup("note_verbosity").expect("note_verbosity");
        assert_eq!(
            normalize(notes, Value::Str("EXPLAIN,basic".into())).ok(),
            Some(Value::Str("basic,explain".into()))
        );
        let wait = lookup("wait_timeout").expect("wait_timeout");
        assert_eq!(normalize(wait, Value::Int(0)).ok(), Some(Value::UInt(1)));
        assert_eq!(
            normalize(wait, Value::Str("x".into())).map_err(|e| e.code()),
            Err(1232)
        );
    }
}
