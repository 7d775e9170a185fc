//! Start-up options that name SQL system variables (`--sql-mode`,
//! `--innodb-lock-wait-timeout`, `--max-heap-table-size` ...): once the
//! database is open, each sets the variable's global value through
//! `SET GLOBAL`, with the SQL layer's own checks, as mysqld does at start-up.
//! Options Larch has no variable for (or only a read-only one) stay
//! "accepted and ignored" and are listed in a note.

use larch_sql::database::Database;

/// What applying the options did.
#[derive(Debug, Default)]
pub struct Applied {
    /// Options that set a global value.
    pub set: Vec<String>,
    /// Options with no settable variable behind them.
    pub ignored: Vec<String>,
    /// Options whose value the variable refused, with the error.
    pub refused: Vec<String>,
}

/// Sets the global value of every option in `options` that names a settable
/// system variable.
pub fn apply(db: &std::sync::Arc<Database>, options: &[(String, String)]) -> Applied {
    let mut out = Applied::default();
    let mut session = match db.new_session(0, "root", "localhost") {
        Ok(s) => s,
        Err(e) => {
            out.refused
                .push(format!("(no session to apply options: {e})"));
            return out;
        }
    };
    for (name, value) in options {
        let Some(literal) = sql_literal(value) else {
            out.ignored.push(name.clone());
            continue;
        };
        match session.execute(&format!("SET GLOBAL {name} = {literal}")) {
            Ok(_) => out.set.push(format!("{name}={value}")),
            // Unknown (1193) or read-only (1238) in Larch: nothing to set.
            Err(e) if matches!(e.code(), 1193 | 1238) => out.ignored.push(name.clone()),
            Err(e) => out
                .refused
                .push(format!("--{name}={value}: {}", e.message())),
        }
    }
    out
}

/// The SQL literal for an option value: numbers (with mysqld's K/M/G
/// suffixes expanded) and ON/OFF-style words as they are, anything else
/// quoted; `None` for a flag given without a value.
fn sql_literal(value: &str) -> Option<String> {
    let v = value.trim();
    if v.is_empty() {
        return None;
    }
    let (digits, scale) = match v.as_bytes()[v.len() - 1].to_ascii_uppercase() {
        b'K' => (&v[..v.len() - 1], 1u64 << 10),
        b'M' => (&v[..v.len() - 1], 1 << 20),
        b'G' => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    if let Some(n) = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
    {
        return Some(n.to_string());
    }
    if v.parse::<f64>().is_ok() {
        return Some(v.to_owned());
    }
    let word = v.to_ascii_uppercase();
    if matches!(word.as_str(), "ON" | "OFF" | "TRUE" | "FALSE") {
        return Some(word);
    }
    Some(format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''")))
}

#[cfg(test)]
mod tests {
    use super::sql_literal;

    #[test]
    fn option_values_become_sql_literals() {
        assert_eq!(sql_literal("7").as_deref(), Some("7"));
        assert_eq!(sql_literal("64M").as_deref(), Some("67108864"));
        assert_eq!(sql_literal("2k").as_deref(), Some("2048"));
        assert_eq!(sql_literal("0.5").as_deref(), Some("0.5"));
        assert_eq!(sql_literal("on").as_deref(), Some("ON"));
        assert_eq!(
            sql_literal("STRICT_TRANS_TABLES,ANSI_QUOTES").as_deref(),
            Some("'STRICT_TRANS_TABLES,ANSI_QUOTES'")
        );
        assert_eq!(sql_literal("it's").as_deref(), Some("'it''s'"));
        assert_eq!(sql_literal(""), None);
    }
}
