//! Text as MariaDB prints it: column types (`int(11) unsigned`,
//! `varchar(32)`, `enum('a','b')`, ...), identifiers (`` `a``b` ``), string
//! literals (`'it''s'`), default values (`DEFAULT 0`, `DEFAULT 'x'`,
//! `DEFAULT current_timestamp()`), and the canonical DEFAULT text stored in
//! [`ColumnMeta::default`].
//!
//! A stored default is always one of: `NULL`; an unquoted number (integer,
//! DECIMAL with the column's scale, FLOAT/DOUBLE, YEAR); a bit literal
//! `b'101'`; a quoted string (strings, temporal values, ENUM/SET members) in
//! MariaDB's `append_unescaped` form; a hex literal `0x...` for binary strings
//! that are not UTF-8; `current_timestamp()`/`current_timestamp(N)`; or a
//! parenthesized expression. Each is valid SQL that evaluates to the value.

use larch_engine::record::value::{ColumnType, LobKind, Value};
use larch_engine::table::ColumnDef;

use super::meta::ColumnMeta;

/// MySQL's column type text as SHOW COLUMNS / information_schema.COLUMNS.
/// COLUMN_TYPE show it ("int(11)", "varchar(32)", "decimal(10,2) unsigned",
/// "enum('a','b')", "tinyint(1)" ...).
pub fn column_type_text(def: &ColumnDef, meta: &ColumnMeta) -> String {
    let lob = |kind: &LobKind, base: &str| {
        let p = match kind {
            LobKind::Tiny => "tiny",
            LobKind::Text => "",
            LobKind::Medium => "medium",
            LobKind::Long => "long",
        };
        format!("{p}{base}")
    };
    let list = |values: &[String]| {
        values
            .iter()
            .map(|v| quote_string(v))
            .collect::<Vec<_>>()
            .join(",")
    };
    let temporal = |name: &str, fsp: u8| {
        if fsp == 0 {
            name.to_string()
        } else {
            format!("{name}({fsp})")
        }
    };
    let real = |name: &str| match meta.precision {
        Some((m, d)) => format!("{name}({m},{d})"),
        None => name.to_string(),
    };
    let mut out = match &def.ty {
        ColumnType::Int { bytes, unsigned } => {
            let name = match bytes {
                1 => "tinyint",
                2 => "smallint",
                3 => "mediumint",
                4 => "int",
                _ => "bigint",
            };
            let w = meta
                .display_width
                .unwrap_or_else(|| default_int_width(*bytes, *unsigned || meta.zerofill));
            format!("{name}({w})")
        }
        ColumnType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        ColumnType::Float => real("float"),
        ColumnType::Double => real("double"),
        ColumnType::Char { len, collation } if collation.charset().name() == "binary" => {
            format!("binary({len})")
        }
        ColumnType::Char { len, .. } => format!("char({len})"),
        ColumnType::Varchar {
            max_len, collation, ..
        } if collation.charset().name() == "binary" => format!("varbinary({max_len})"),
        ColumnType::Varchar { max_len, .. } => format!("varchar({max_len})"),
        ColumnType::Binary { len } => format!("binary({len})"),
        ColumnType::Varbinary { max_len } => format!("varbinary({max_len})"),
        ColumnType::Text { kind, collation } if collation.charset().name() == "binary" => {
            lob(kind, "blob")
        }
        ColumnType::Text { kind, .. } => lob(kind, "text"),
        ColumnType::Blob { kind } => lob(kind, "blob"),
        ColumnType::Date => "date".to_string(),
        ColumnType::Time { fsp } => temporal("time", *fsp),
        ColumnType::Datetime { fsp } => temporal("datetime", *fsp),
        ColumnType::Timestamp { fsp } => temporal("timestamp", *fsp),
        ColumnType::Year => "year(4)".to_string(),
        ColumnType::Enum { values, .. } => format!("enum({})", list(values)),
        ColumnType::Set { values, .. } => format!("set({})", list(values)),
        ColumnType::Bit { bits } => format!("bit({bits})"),
        ColumnType::Uuid => "uuid".to_string(),
    };
    let unsigned = match def.ty {
        ColumnType::Int { unsigned, .. } => unsigned,
        ColumnType::Decimal { .. } | ColumnType::Float | ColumnType::Double => meta.unsigned,
        _ => false,
    };
    if unsigned || meta.zerofill {
        out.push_str(" unsigned");
    }
    if meta.zerofill {
        out.push_str(" zerofill");
    }
    out
}

/// MySQL's default display width of an integer type.
fn default_int_width(bytes: u8, unsigned: bool) -> u32 {
    match (bytes, unsigned) {
        (1, false) => 4,
        (1, true) => 3,
        (2, false) => 6,
        (2, true) => 5,
        (3, false) => 9,
        (3, true) => 8,
        (4, false) => 11,
        (4, true) => 10,
        _ => 20,
    }
}

/// An identifier in backquotes (inner backquotes doubled).
pub(super) fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A string literal as MariaDB's `append_unescaped` writes it: quotes
/// doubled; backslash, NUL, newline and carriage return escaped.
pub(super) fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The inverse of [`quote_string`] for a stored default (`None` when `s` is
/// not a quoted string).
pub(super) fn unquote_string(s: &str) -> Option<String> {
    let inner = s.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('0') => out.push('\0'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            '\'' => {
                chars.next();
                out.push('\'');
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// The canonical DEFAULT text of a value already converted to the column
/// type `ty` (see the module documentation).
pub(super) fn literal_text(v: &Value, ty: &ColumnType) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Bit(b) => format!("b'{b:b}'"),
        Value::Int(_)
        | Value::UInt(_)
        | Value::Decimal(_)
        | Value::Float(_)
        | Value::Double(_)
        | Value::Year(_) => {
            let bytes = crate::value::to_text(v, ty).unwrap_or_default();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => {
            let bytes = crate::value::to_text(v, ty).unwrap_or_default();
            match String::from_utf8(bytes) {
                Ok(s) => quote_string(&s),
                Err(e) => {
                    let hex: String = e.as_bytes().iter().map(|b| format!("{b:02X}")).collect();
                    format!("0x{hex}")
                }
            }
        }
    }
}

/// `current_timestamp()` or `current_timestamp(N)`.
pub(super) fn now_text(fsp: u8) -> String {
    if fsp == 0 {
        "current_timestamp()".to_string()
    } else {
        format!("current_timestamp({fsp})")
    }
}

/// The fractional-second precision of a column (0 for non-temporal types).
pub(super) fn type_fsp(ty: &ColumnType) -> u8 {
    crate::value::type_fsp(ty)
}

/// The ` DEFAULT ...` clause of SHOW CREATE TABLE (without the leading
/// space), or `None` when MariaDB prints none (NOT NULL without a default,
/// AUTO_INCREMENT).
pub(super) fn default_clause(def: &ColumnDef, meta: &ColumnMeta, auto_inc: bool) -> Option<String> {
    if auto_inc {
        return None;
    }
    match &meta.default {
        Some(d) => Some(format!("DEFAULT {d}")),
        None if def.nullable => Some("DEFAULT NULL".to_string()),
        None => None,
    }
}

/// The `Default` column of SHOW COLUMNS: the value unquoted, NULL for no
/// default or a NULL default.
pub(super) fn default_for_show(meta: &ColumnMeta) -> Value {
    match meta.default.as_deref() {
        None | Some("NULL") => Value::Null,
        Some(d) => Value::Str(unquote_string(d).unwrap_or_else(|| d.to_string())),
    }
}

/// The `Extra` column of SHOW COLUMNS.
pub fn extra_for_show(def: &ColumnDef, meta: &ColumnMeta, auto_inc: bool) -> String {
    if let Some(g) = &meta.generated {
        let kind = if g.stored { "STORED" } else { "VIRTUAL" };
        if meta.invisible {
            format!("{kind} GENERATED, INVISIBLE")
        } else {
            format!("{kind} GENERATED")
        }
    } else if meta.invisible {
        "INVISIBLE".to_string()
    } else if auto_inc {
        "auto_increment".to_string()
    } else if meta.on_update_now {
        format!("on update {}", now_text(type_fsp(&def.ty)))
    } else {
        String::new()
    }
}
