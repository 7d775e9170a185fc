//! MariaDB 10.11's system variables for machinery Larch does not have:
//! replication and Galera, the Aria and MyISAM engines, the Performance
//! Schema, the thread pool, the query cache, logs, and InnoDB's own tuning
//! knobs that Larch's engine replaces with its own.
//!
//! Scripts, tools and MariaDB's own test suite read and set them, and a
//! real MariaDB variable must never be 1193 "Unknown system variable". The
//! table lives in `mariadb_settings.tsv` (its header describes the format)
//! and is read once into [`VarDef`]s. Each entry says how Larch stands:
//!
//! - *kept*: checked with MariaDB's type and limits and kept; it changes no
//!   statement's answer in MariaDB either;
//! - *read-only*: shown, never set (1238);
//! - *default-only* ([`VarDef::fixed`]): another value would change answers
//!   in a way Larch does not implement (`max_join_size`, `old_passwords`,
//!   `innodb_ft_user_stopword_table`, ...), so setting any value but the
//!   one it has fails with 1235 instead of being silently ignored.

use std::sync::OnceLock;

use super::{Kind, Scope, VarDef};

const TABLE: &str = include_str!("mariadb_settings.tsv");

/// The variables of `mariadb_settings.tsv`, sorted by name.
pub(super) fn settings() -> &'static [VarDef] {
    static SETTINGS: OnceLock<Vec<VarDef>> = OnceLock::new();
    SETTINGS.get_or_init(|| {
        let mut defs: Vec<VarDef> = TABLE.lines().filter_map(parse_line).collect();
        defs.sort_by_key(|d| d.name);
        defs
    })
}

/// One line of the table (`None` for comments, blank lines and, should one
/// slip in, a malformed line: the unit test below reads every line).
fn parse_line(line: &'static str) -> Option<VarDef> {
    if line.trim().is_empty() || line.starts_with('#') {
        return None;
    }
    let mut fields = line.split('\t');
    let name = fields.next()?;
    let scope = match fields.next()? {
        "global" => Scope::Global,
        "session" => Scope::Session,
        "both" => Scope::Both,
        _ => return None,
    };
    let (read_only, fixed) = match fields.next()? {
        "kept" => (false, false),
        "read-only" => (true, false),
        "default-only" => (false, true),
        _ => return None,
    };
    let kind = parse_kind(fields.next()?)?;
    let default = match fields.next()? {
        "*" => None,
        text => Some(text),
    };
    if fields.next().is_some() {
        return None;
    }
    Some(VarDef {
        name,
        scope,
        kind,
        read_only,
        default,
        fixed,
    })
}

fn parse_kind(text: &'static str) -> Option<Kind> {
    let (head, rest) = text.split_once(':').unwrap_or((text, ""));
    Some(match head {
        "bool" => Kind::Bool,
        "str" => Kind::Str,
        "int" => {
            let (min, max) = rest.split_once(':')?;
            Kind::Int {
                min: min.parse().ok()?,
                max: max.parse().ok()?,
            }
        }
        "seconds" => Kind::Seconds {
            max: rest.parse().ok()?,
        },
        "enum" => Kind::Enum(names(rest)),
        "set" => Kind::Set(names(rest)),
        _ => return None,
    })
}

/// The members of an ENUM or SET kind, kept for the life of the process
/// (the table is read once).
fn names(list: &'static str) -> &'static [&'static str] {
    Box::leak(list.split(',').collect::<Vec<_>>().into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_a_variable() {
        let lines = TABLE
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        for line in lines {
            assert!(parse_line(line).is_some(), "malformed: {line:?}");
        }
        let defs = settings();
        assert!(defs.len() > 400, "{} variables", defs.len());
        let fixed = defs.iter().find(|d| d.name == "max_join_size");
        assert!(fixed.is_some_and(|d| d.fixed && !d.read_only));
    }
}
